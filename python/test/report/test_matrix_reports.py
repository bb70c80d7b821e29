"""The N-way matrix: text and markdown renderers, JSON/CSV reports and their schema doc,
and the per-candidate gate."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.compare import MultiComparison, Status, compare_many
from cuda.bench.compare.errors import ConfigError
from cuda.bench.compare.many_gate import evaluate_many, parse_gate
from cuda.bench.report.colors import PLAIN
from cuda.bench.report.document import DocumentOptions
from cuda.bench.report.html.matrix_data import matrix_page_data
from cuda.bench.report.matrix import (
    best_text,
    render_matrix_document,
    render_matrix_markdown,
    shown_states,
)
from cuda.bench.report.matrix_records import (
    many_columns,
    many_report_data,
    render_many_csv,
    render_many_json,
)
from cuda.bench.results.synthetic import SyntheticConfig, write_run

_REPO = Path(__file__).resolve().parents[3]
_PAIRWISE_DOC = _REPO / "docs" / "report-schema.md"
_MANY_DOC = _REPO / "docs" / "report-schema-many.md"
_ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| ([^|]*?) \| (.*) \|$")
_NON_FINITE = ("inf", "-inf", "nan")


def _doc_table(doc: Path, heading: str) -> dict[str, str]:
    """``field -> type`` of the table under the heading that starts with ``heading``."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    fields: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        match = _ROW.match(line)
        if match:
            fields[match.group(1)] = match.group(2).strip()
    assert fields, f"no table under {heading!r}"
    return fields


TOP = _doc_table(_MANY_DOC, "### Top-level fields")
LEAD = _doc_table(_MANY_DOC, "### Record fields")
PAIRWISE_ROWS = _doc_table(_PAIRWISE_DOC, "### Row fields")


def _matches(value: Any, kind: str) -> bool:
    if kind.endswith(" or null"):
        return value is None or _matches(value, kind.removesuffix(" or null"))
    if kind.startswith("array of "):
        item = kind.removeprefix("array of ")
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        return numeric or value in _NON_FINITE
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("object", "array"):
        return isinstance(value, dict if kind == "object" else list)
    raise AssertionError(f"undocumented type {kind!r}")


_DYNAMIC = {"thresholds": "<key>", "candidates[].counts": "<status>"}


def _paths(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            name = _DYNAMIC.get(prefix, str(key))
            path = f"{prefix}.{name}" if prefix else name
            found.append((path, item))
            if path != "rows":
                found += _paths(item, path)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                found += _paths(item, f"{prefix}[]")
    return found


@pytest.fixture(scope="module")
def gpu_many(gpu_dir: Path) -> MultiComparison:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    return compare_many(ref, {"a": cmp, "b": ref})


@pytest.fixture(scope="module")
def uneven(tmp_path_factory: pytest.TempPathFactory) -> MultiComparison:
    """Candidates with different states: one has an extra state, one is 30 % slower in
    one state; robust method (no intervals: no best)."""
    root = tmp_path_factory.mktemp("uneven")
    small = SyntheticConfig(benchmarks=1, states=2, samples=200)
    write_run(root / "base.json", small, seed=5)
    write_run(
        root / "wide.json",
        SyntheticConfig(benchmarks=1, states=3, samples=200),
        seed=5,
        side="cmp",
    )
    write_run(
        root / "slow.json",
        small,
        seed=5,
        side="cmp",
        shifts={("bench_00", "Device=0 Elements=1024"): 1.3},
    )
    return compare_many(
        root / "base.json",
        {"wide": root / "wide.json", "slow": root / "slow.json"},
        method="robust",
    )


# ---------------------------------------------------------------------------------------
# JSON and CSV against the schema doc


def _directories(root: Path) -> MultiComparison:
    """Directory inputs with a file only the baseline has."""
    small = SyntheticConfig(benchmarks=1, states=2, samples=200)
    for name in ("base", "cand"):
        (root / name).mkdir()
        write_run(root / name / "a.json", small, seed=5, side="ref" if name == "base" else "cmp")
    write_run(root / "base" / "only_base.json", small, seed=5)
    return compare_many(root / "base", {"cand": root / "cand"}, method="robust")


def test_json_every_field_is_documented_with_its_type(
    gpu_many: MultiComparison, uneven: MultiComparison, tmp_path: Path
) -> None:
    documents = [
        json.loads(render_many_json(gpu_many, fail_on="slow", gate=["b"])),
        json.loads(render_many_json(uneven, fail_on="missing,slow")),
        json.loads(render_many_json(_directories(tmp_path), fail_on="missing")),
    ]
    seen: set[str] = set()
    expected_fields = [*LEAD, *PAIRWISE_ROWS]
    for document in documents:
        for path, value in _paths(document):
            assert path in TOP, f"top-level field {path!r} is not documented"
            assert _matches(value, TOP[path]), (path, value, TOP[path])
            seen.add(path)
        for record in document["rows"]:
            assert list(record) == expected_fields
            for name, value in record.items():
                kind = LEAD.get(name) or PAIRWISE_ROWS[name]
                assert _matches(value, kind), (name, value, kind)
    assert seen == set(TOP)


def test_json_records_line_up_states_and_candidates(uneven: MultiComparison) -> None:
    data = many_report_data(uneven, fail_on="missing")
    assert data["states"] == 3
    keys = [(row["state"], row["candidate"], row["status"]) for row in data["rows"]]
    # The state only "wide" has is ADDED there, and has no "slow" record.
    assert [key for key in keys if key[2] == "ADDED"] == [(2, "wide", "ADDED")]
    assert sum(1 for key in keys if key[0] == 2) == 1
    assert [key[0] for key in keys] == sorted(key[0] for key in keys)
    slow = next(row for row in data["rows"] if row["status"] == "SLOW")
    assert slow["candidate"] == "slow"
    wide = data["candidates"][0]
    assert (wide["name"], wide["failed"], wide["failed_conditions"]) == ("wide", True, ["missing"])
    assert data["fail_on"]["failed"] is True


def test_csv_columns_and_records(gpu_many: MultiComparison, uneven: MultiComparison) -> None:
    for many in (gpu_many, uneven):
        text = render_many_csv(many, fail_on="slow")
        reader = csv.DictReader(io.StringIO(text))
        assert reader.fieldnames == many_columns(many)
        documented = [name for name in PAIRWISE_ROWS if name != "axes"]
        assert [name for name in reader.fieldnames if name in PAIRWISE_ROWS] == documented
        assert reader.fieldnames[:9] == [
            "schema",
            "schema_version",
            "baseline",
            "correction",
            "confidence",
            "pair_confidence",
            *LEAD,
        ]
        records = list(reader)
        rows = json.loads(render_many_json(many, fail_on="slow"))["rows"]
        assert len(records) == len(rows)
        for record, row in zip(records, rows, strict=True):
            assert record["schema"] == "nvbench-tools.compare-many"
            assert record["schema_version"] == "1"
            assert (record["candidate"], record["state"]) == (row["candidate"], str(row["state"]))
            assert record["best"] == ";".join(row["best"])
            assert record["failed_conditions"] == ";".join(row["failed_conditions"])
    axes = [name for name in many_columns(uneven) if name.startswith("axis.")]
    assert axes == ["axis.Elements"]


# ---------------------------------------------------------------------------------------
# Text


def test_document_has_a_table_per_device_and_a_footer(gpu_many: MultiComparison) -> None:
    options = DocumentOptions(style=PLAIN)
    text = render_matrix_document(gpu_many, options)
    assert text.count("# copy_bench") == 1 and text.count("## [0] NVIDIA H100") == 2
    slow = next(line for line in text.splitlines() if "F32 |     2^20 | contiguous" in line)
    cells = [cell.strip() for cell in slow.strip("|").split("|")]
    # a is the slower candidate here, b is the baseline itself: best is a tie of b and
    # the baseline.
    assert cells[-5].startswith("+4.9% [") and cells[-3].startswith("+0.0% [")
    assert (cells[-4], cells[-2], cells[-1]) == ("SLOW", "SAME", "tie: gpu_ref, b")
    assert "| a         | 0.997 (-0.3%)" in text
    # The FAST state is a's alone; the 4 states skipped everywhere are no contest.
    assert "- Best: gpu_ref 0, a 1, b 0; tie 19; undecided 0" in text


def test_the_best_column_says_the_same_in_the_terminal_markdown_and_html(
    gpu_many: MultiComparison,
) -> None:
    words = [best_text(line) for line in gpu_many.matrix()]
    assert [record["best"] for record in matrix_page_data(gpu_many)["rows"]] == words
    assert "all tie" in words and "tie: gpu_ref, b" in words
    for text in (
        render_matrix_document(gpu_many, DocumentOptions(style=PLAIN)),
        render_matrix_markdown(gpu_many, DocumentOptions()),
    ):
        shown = [
            line.rstrip(" |").rsplit("|", 1)[1].strip()
            for line in text.splitlines()
            if line.startswith("| ") and "2^" in line
        ]
        assert shown and Counter(shown) <= Counter(words)
        assert "all tie" in shown


def test_display_options_select_states(uneven: MultiComparison) -> None:
    matrix = uneven.matrix()
    assert len(shown_states(matrix, DocumentOptions())) == 3
    changed = shown_states(matrix, DocumentOptions(only_changed=True))
    # robust has no intervals to rank by, and one state has no baseline: no winner.
    assert [best_text(line) for line in changed] == ["undecided", "undecided"]
    statuses = {cell.status for line in changed for cell in line.cells if cell is not None}
    assert Status.SLOW in statuses and Status.ADDED in statuses
    assert shown_states(matrix, DocumentOptions(order="change"))[0].state.key.endswith("1024")


def test_markdown_report_and_its_limit(gpu_many: MultiComparison) -> None:
    full = render_matrix_markdown(gpu_many, fail_on=["slow"], gate=["a"])
    assert full.startswith("## nvbench_compare: gpu_ref vs. a, b\n")
    assert "- Failed: a: --fail-on slow: 1" in full
    assert "#### copy_bench" in full and "##### [0] NVIDIA H100" in full
    assert "🔴 SLOW" in full and "characters (--markdown-limit)" not in full
    short = render_matrix_markdown(gpu_many, limit=4000)
    assert len(short) <= 4000
    assert "state(s) left out to stay within 4000 characters" in short


# ---------------------------------------------------------------------------------------
# Gate


def test_gate_selects_the_candidates_that_fail(gpu_many: MultiComparison) -> None:
    everyone = evaluate_many(gpu_many, "slow")
    assert everyone.gate == ("a", "b") and everyone.exit_status == 1
    assert [item.name for item in everyone.failing] == ["a"]
    only_b = evaluate_many(gpu_many, "slow", gate=["b"])
    assert only_b.exit_status == 0 and only_b.candidates[0].failed
    assert evaluate_many(gpu_many, (), gate=["a"]).exit_status == 0
    assert parse_gate(["a,b", "a"], ("a", "b")) == ("a", "b")
    with pytest.raises(ConfigError, match="unknown candidate 'c'; the candidates are a, b"):
        parse_gate("c", ("a", "b"))
    with pytest.raises(ConfigError, match="an empty name"):
        parse_gate("a,", ("a", "b"))


def test_simple_display_shows_the_baseline_center_alone(gpu_many: MultiComparison) -> None:
    intervals = render_matrix_document(gpu_many, DocumentOptions(style=PLAIN))
    simple = render_matrix_document(gpu_many, DocumentOptions(style=PLAIN, display="simple"))
    assert "5.899 [-0.172, +0.041] us" in intervals
    line = next(line for line in simple.splitlines() if "F32 |     2^20 | contiguous" in line)
    assert "5.899 us" in line and "[-0.172" not in line
    assert "baseline's center;" in simple
