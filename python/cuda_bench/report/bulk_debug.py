"""``--bulk-debug-python``: a Python snippet listing the displayed rows and their side files.

Compatible with the output of NVIDIA's ``nvbench-compare-robust`` option of the same name:
the code sits between ``# NVB-BULK-BEGIN`` and ``# NVB-BULK-END`` lines (so it can be cut
out of a longer output), defines ``bulk_rows`` with the same keys, and the helpers
``read_float32(filename, expected_count)`` and ``load_bulk_data(row)``. Ours adds the
thresholds the decisions used (``thresholds``) and the method, which the upstream snippet
lacks.
"""

from __future__ import annotations

import pprint
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..compare.model import Comparison, Row
from ..compare.records import threshold_items
from ..results._sidecar import FREQS_TAG, TIMES_TAGS
from ..results._tools_api import SubBenchmarkState
from .json_report import axis_objects
from .tables import visible_rows

__all__ = ["BEGIN_MARKER", "END_MARKER", "bulk_rows", "render_bulk_debug"]

BEGIN_MARKER = "# NVB-BULK-BEGIN"
END_MARKER = "# NVB-BULK-END"


_HELPERS = '''

def read_float32(filename, expected_count):
    """A side file's values (little-endian float32), or None without a file."""
    if filename is None:
        return None
    values = np.fromfile(filename, dtype="<f4")
    if expected_count is not None and values.size != expected_count:
        raise ValueError(f"{filename}: expected {expected_count} values, found {values.size}")
    return values


def load_bulk_data(row):
    """The per-sample data of one entry of bulk_rows."""
    return {
        "reference_samples": read_float32(
            row["reference_sample_filename"], row["reference_sample_count"]
        ),
        "reference_frequencies": read_float32(
            row["reference_frequency_filename"], row["reference_frequency_count"]
        ),
        "compare_samples": read_float32(
            row["compare_sample_filename"], row["compare_sample_count"]
        ),
        "compare_frequencies": read_float32(
            row["compare_frequency_filename"], row["compare_frequency_count"]
        ),
    }


# Example:
#   data = load_bulk_data(bulk_rows[0])
#   np.median(data["compare_samples"]) / np.median(data["reference_samples"])
#   cycles = data["compare_samples"].astype(float) * data["compare_frequencies"]
'''


def _side_file(
    state: SubBenchmarkState | None, tags: Sequence[str]
) -> tuple[str | None, int | None]:
    """Absolute path and recorded value count of one of ``tags``' side files."""
    if state is None:
        return None, None
    for tag in tags:
        if not state.has_summary(tag):
            continue
        size = state.value(tag, "size")
        path = state.sample_file if tag in TIMES_TAGS else state.frequency_file
        count = size if isinstance(size, int) else None
        return (None if path is None else str(path)), count
    return None, None


def bulk_rows(comparison: Comparison, rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One record per row of ``rows`` (the displayed rows), keys as upstream's snippet."""
    occurrences: Counter[tuple[int, str, int, str]] = Counter(
        (row.pair, row.benchmark, row.device_pair, row.key) for row in comparison.rows
    )
    records: list[dict[str, Any]] = []
    table_index: Counter[tuple[int, str, int]] = Counter()
    for index, row in enumerate(rows):
        section = (row.pair, row.benchmark, row.device_pair)
        inputs = comparison.inputs[row.pair] if row.pair < len(comparison.inputs) else None
        ref_samples = _side_file(row.ref_state, TIMES_TAGS)
        ref_freqs = _side_file(row.ref_state, (FREQS_TAG,))
        cmp_samples = _side_file(row.cmp_state, TIMES_TAGS)
        cmp_freqs = _side_file(row.cmp_state, (FREQS_TAG,))
        records.append(
            {
                "row_index": index,
                "table_row_index": table_index[section],
                "benchmark": row.benchmark,
                "reference_json": None if inputs is None else ", ".join(inputs.ref),
                "compare_json": None if inputs is None else ", ".join(inputs.cmp),
                "reference_device_id": row.ref_device,
                "compare_device_id": row.cmp_device,
                "state_key": row.key,
                "occurrence": row.occurrence,
                "occurrence_count": occurrences[
                    (row.pair, row.benchmark, row.device_pair, row.key)
                ],
                "axis_values": axis_objects(row),
                "status": row.status.value,
                "reason": row.reason.value,
                "reason_message": row.verdict.text,
                "reference_time": row.ref_center,
                "compare_time": row.cmp_center,
                "fractional_difference": row.frac_diff,
                "reference_sample_filename": ref_samples[0],
                "reference_sample_count": ref_samples[1],
                "reference_frequency_filename": ref_freqs[0],
                "reference_frequency_count": ref_freqs[1],
                "compare_sample_filename": cmp_samples[0],
                "compare_sample_count": cmp_samples[1],
                "compare_frequency_filename": cmp_freqs[0],
                "compare_frequency_count": cmp_freqs[1],
            }
        )
        table_index[section] += 1
    return records


def render_bulk_debug(comparison: Comparison, min_change: float = 0.0) -> str:
    """The snippet for the rows a ``--threshold-diff`` of ``min_change`` keeps."""
    rows = visible_rows(comparison.rows, min_change)
    thresholds = dict(threshold_items(comparison.thresholds))
    parts = [
        BEGIN_MARKER,
        '"""Per-sample data behind the rows of an nvbench_compare run (generated)."""',
        "import numpy as np",
        "",
        'nan = float("nan")',
        'inf = float("inf")',
        "",
        f"method = {comparison.method!r}",
        f"preset = {comparison.preset!r}",
        f"thresholds = {pprint.pformat(thresholds, sort_dicts=False)}",
        f"bulk_rows = {pprint.pformat(bulk_rows(comparison, rows), sort_dicts=False)}",
    ]
    return "\n".join(parts) + _HELPERS + END_MARKER + "\n"
