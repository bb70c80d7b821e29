"""pandas export of results (optional: needs the ``pandas`` extra)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._deps import require

if TYPE_CHECKING:
    import pandas as pd

    from ._benchmark import SubBenchmarkResult
    from ._state import SubBenchmarkState
    from ._views import BenchmarkResultDevice

__all__ = ["samples_frame", "states_frame"]

_FIXED = ("benchmark", "device", "device_name", "state", "skipped", "skip_reason")


def _pandas() -> Any:
    return require("pandas", extra="pandas", purpose="DataFrame export")


# The functions take a result's benchmarks and devices, not the result: BenchmarkResult's
# own methods call them, and imports run one way (python/test/test_layers.py).


def states_frame(
    benchmarks: Sequence[SubBenchmarkResult], devices: Mapping[int, BenchmarkResultDevice]
) -> pd.DataFrame:
    """One row per state: identity, one column per axis (typed), then summary values by tag.

    An axis whose name collides with a fixed column is prefixed ``axis:``. Summary columns
    hold each summary's ``value`` entry; file summaries and summaries without one are left
    out.
    """
    pandas = _pandas()
    rows: list[dict[str, Any]] = []
    axis_columns: dict[str, None] = {}
    tag_columns: dict[str, None] = {}
    for bench in benchmarks:
        for state in bench:
            device = state.device
            info = devices.get(device) if device is not None else None
            row: dict[str, Any] = {
                "benchmark": bench.name,
                "device": device,
                "device_name": info.name if info is not None else None,
                "state": state.state_name,
                "skipped": state.is_skipped,
                "skip_reason": state.skip_reason,
            }
            for value in state.axis_values:
                column = f"axis:{value.name}" if value.name in _FIXED else value.name
                axis_columns.setdefault(column)
                row[column] = value.typed
            for tag in state.tags:
                summary_value = state.value(tag)
                if summary_value is None:
                    continue
                tag_columns.setdefault(tag)
                row[tag] = summary_value
            rows.append(row)
    columns = [*_FIXED, *axis_columns, *tag_columns]
    # Nullable dtypes keep integer axes integral where other benchmarks lack the column.
    frame: pd.DataFrame = pandas.DataFrame(rows, columns=columns).convert_dtypes()
    return frame


def samples_frame(
    benchmarks: Sequence[SubBenchmarkResult], choose: Callable[[SubBenchmarkState], bool] | None
) -> pd.DataFrame:
    """One row per sample: benchmark, device, state, sample index, time, frequency, cycles."""
    pandas = _pandas()
    pieces: list[Any] = []
    for bench in benchmarks:
        for state in bench:
            if choose is not None and not choose(state):
                continue
            samples = state.samples
            if samples is None:
                continue
            frequencies = state.frequencies
            piece = pandas.DataFrame(
                {
                    "benchmark": bench.name,
                    "device": state.device,
                    "state": state.state_name,
                    "sample": np.arange(samples.size),
                    "time": samples.astype(np.float64),
                }
            )
            if frequencies is not None:
                piece["frequency"] = frequencies.astype(np.float64)
                piece["cycles"] = piece["time"] * piece["frequency"]
            pieces.append(piece)
    if not pieces:
        empty: pd.DataFrame = pandas.DataFrame(
            columns=["benchmark", "device", "state", "sample", "time", "frequency", "cycles"]
        )
        return empty
    frame: pd.DataFrame = pandas.concat(pieces, ignore_index=True)
    frame["device"] = frame["device"].astype("Int64")
    return frame
