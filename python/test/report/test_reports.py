"""JSON, CSV and markdown reports, and that ``docs/report-schema.md`` describes them."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cuda.bench import __version__
from cuda.bench.compare import compare
from cuda.bench.compare.exit_policy import parse_fail_on
from cuda.bench.compare.model import (
    Comparison,
    EvidenceSource,
    InputPair,
    Interval,
    Reason,
    Row,
    SideEstimate,
    Status,
    SuiteSummary,
    Verdict,
)
from cuda.bench.compare.records import ROW_FIELDS, flat_columns
from cuda.bench.compare.thresholds import Thresholds
from cuda.bench.report.csv_report import csv_cell, render_csv
from cuda.bench.report.document import DocumentOptions
from cuda.bench.report.json_report import render_json, report_data
from cuda.bench.report.markdown_report import headline, render_markdown_report
from cuda.bench.report.tables import Display
from cuda.bench.results.synthetic import SyntheticConfig, write_run

_REPO = Path(__file__).resolve().parents[3]
_SCHEMA_DOC = _REPO / "docs" / "report-schema.md"

# ---------------------------------------------------------------------------------------
# The documented schema, read from docs/report-schema.md
# ---------------------------------------------------------------------------------------

_ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| ([^|]*?) \| (.*) \|$")


def _doc_table(heading: str) -> dict[str, tuple[str, str]]:
    """``field -> (type, unit)`` of the table under the heading that starts with ``heading``."""
    lines = _SCHEMA_DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    fields: dict[str, tuple[str, str]] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        match = _ROW.match(line)
        if match:
            name, kind, unit, _ = match.groups()
            fields[name] = (kind.strip(), unit.strip())
    assert fields, f"no table under {heading!r}"
    return fields


TOP = _doc_table("### Top-level fields")
ROWS = _doc_table("### Row fields")
AXES = _doc_table("### Axis values")
_NON_FINITE = ("inf", "-inf", "nan")


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


_DYNAMIC = {"thresholds": "<key>", "counts": "<status>", "geomean.drift_reasons": "<code>"}


def _paths(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``(documented path, value)`` of every top-level field, ``rows`` not descended."""
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


# ---------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpu(gpu_dir: Path) -> Comparison:
    return compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", method="robust")


@pytest.fixture(scope="module")
def directories(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """Directory inputs with an unpaired file on each side, an ADDED state, a shift."""
    root = tmp_path_factory.mktemp("dirs")
    ref, cmp = root / "ref", root / "cmp"
    ref.mkdir()
    cmp.mkdir()
    small = SyntheticConfig(benchmarks=1, states=2, samples=200)
    write_run(ref / "a.json", small, seed=5)
    write_run(ref / "only_ref.json", small, seed=5)
    write_run(
        cmp / "a.json",
        SyntheticConfig(benchmarks=1, states=3, samples=200),
        seed=5,
        side="cmp",
        shifts={("bench_00", "Device=0 Elements=1024"): 1.3},
    )
    write_run(cmp / "only_cmp.json", small, seed=5, side="cmp")
    return compare(ref, cmp, method="robust")


def _noisy() -> Comparison:
    """A hand-made comparison with infinite noise and an effect-free AMBG row."""
    infinite = SideEstimate(
        center=1e-3,
        noise=math.inf,
        interval=Interval(0.9e-3, 1e-3, 1.1e-3),
        source=EvidenceSource.MEAN,
        mean=1e-3,
        stdev_relative=math.inf,
        sample_count=10,
        clock_rate=1.5e9,
    )
    row = Row(
        benchmark="b",
        key="",
        occurrence=0,
        axis_values=(),
        verdict=Verdict(Status.AMBG, Reason.NOISE_UNAVAILABLE, "noise is infinite"),
        ref=infinite,
        cmp=infinite,
    )
    return Comparison(
        rows=(row,),
        method="robust",
        preset="default",
        thresholds=Thresholds(),
        inputs=(InputPair(("r.json",), ("c.json",)),),
    )


def _drifting() -> Comparison:
    """:func:`_noisy` with a suite whose one row is AMBG for drift."""
    reasons = (("run_drift_unmeasured", 1),)
    suite = SuiteSummary(1.0, 1, drift_rows=1, drift_reasons=reasons)
    return msgspec.structs.replace(_noisy(), suite=suite)


# ---------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------


def test_json_top_level(gpu: Comparison) -> None:
    data = json.loads(render_json(gpu, fail_on="slow,unknown"))
    assert data["schema"] == "nvbench-tools.compare"
    assert data["schema_version"] == 2
    assert data["tool"] == {"name": "nvbench_compare", "version": __version__}
    assert data["method"] == "robust" and data["preset"] == "default"
    assert data["thresholds"]["clear_gap.relative"] == 0.005
    assert data["thresholds"]["bulk.rare_support.max_removed_sample_fraction"] == 0.01
    assert data["total"] == 24 == len(data["rows"])
    assert data["counts"] == {
        "SAME": 18,
        "FAST": 1,
        "SLOW": 1,
        "AMBG": 0,
        "????": 0,
        "ADDED": 0,
        "REMOVED": 0,
        "SKIP": 4,
    }
    # Skipped in both runs: not a ???? reason, listed by skip reason.
    assert data["reasons"] == []
    assert data["skipped"] == [
        {"reason": "Strided layout is not implemented for 8-byte types.", "count": 4}
    ]
    assert data["fail_on"]["conditions"] == ["slow", "unknown"]
    assert data["fail_on"]["failed"] is True
    (slow_failure,) = data["fail_on"]["failures"]
    (slow_index,) = slow_failure["rows"]
    assert data["rows"][slow_index]["status"] == "SLOW"
    assert data["rows"][slow_index]["failed_conditions"] == ["slow"]
    skipped = [row for row in data["rows"] if row["status"] == "SKIP"]
    assert len(skipped) == 4 and all(row["failed_conditions"] == [] for row in skipped)
    assert data["geomean"]["rows"] == 20
    assert data["geomean"]["ratio"] == pytest.approx(0.99718, abs=1e-5)


def test_json_rows_round_trip(gpu: Comparison) -> None:
    data = json.loads(render_json(gpu))
    for index, (record, row) in enumerate(zip(data["rows"], gpu.rows, strict=True)):
        assert record["index"] == index
        assert record["status"] == row.status.value
        assert record["reason_code"] == row.reason.value
        assert record["reason_alias"] == row.reason.alias
        assert record["key"] == row.key
        assert record["ref_center"] == row.ref_center
        assert record["cmp_center"] == row.cmp_center
        assert record["frac_diff"] == row.frac_diff
        if row.ref is not None and row.ref.interval is not None:
            assert record["ref_lo"] == row.ref.interval.lo
            assert record["ref_hi"] == row.ref.interval.hi
        assert [axis["name"] for axis in record["axes"]] == [v.name for v in row.axis_values]
    slow = next(r for r in data["rows"] if r["status"] == "SLOW")
    assert slow["axes"] == [
        {"name": "T", "type": "string", "value": "F32", "display": "F32"},
        {"name": "Elements", "type": "int64", "value": "1048576", "display": "2^20"},
        {"name": "Layout", "type": "string", "value": "contiguous", "display": "contiguous"},
    ]
    assert slow["ref_device"] == 0 and slow["ref_device_name"] == "NVIDIA H100 80GB HBM3"
    assert slow["ref_sample_file"].endswith("gpu_ref.json-bin/1.bin")
    assert slow["effect_ratio"] is None


def test_json_non_finite_numbers_are_strings() -> None:
    text = render_json(_noisy())
    assert "Infinity" not in text and "NaN" not in text
    record = json.loads(text)["rows"][0]
    assert record["ref_spread"] == "inf"
    assert record["cmp_stdev_relative"] == "inf"
    assert record["ref_clock_rate"] == 1.5e9


@pytest.fixture(scope="module")
def paired(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """A paired comparison of 4 rounds (its report has a ``design``)."""
    from cuda.bench.compare.paired import PairedDesign
    from cuda.bench.compare.paired_inputs import compare_paired

    root = tmp_path_factory.mktemp("paired")
    small = SyntheticConfig(benchmarks=1, states=2, samples=100)
    ref, cmp = [root / f"ref{r}.json" for r in range(4)], [root / f"cmp{r}.json" for r in range(4)]
    for r in range(4):
        write_run(ref[r], small, seed=2, run=r)
        write_run(cmp[r], small, seed=2, side="cmp", run=r)
    design = PairedDesign(4, ("ref", "cmp", "cmp", "ref"), order="random", seed=5)
    return compare_paired(ref, cmp, design=design)


def _gated(comparison: Comparison) -> Comparison:
    settings = {**comparison.settings, "tool": "nvbench-history gate", "archive_runs": ["a1"]}
    return msgspec.structs.replace(comparison, settings=settings)


def test_json_every_field_is_documented_with_its_type(
    gpu: Comparison, directories: Comparison, paired: Comparison
) -> None:
    documents = [
        json.loads(render_json(gpu, fail_on="slow,unknown")),
        json.loads(render_json(directories, fail_on="missing,slow")),
        json.loads(render_json(_noisy(), fail_on="ambiguous")),
        json.loads(render_json(paired)),
        # A suite with rows AMBG for drift, whose reason codes it names.
        json.loads(render_json(_drifting())),
        # A gate's settings (nvbench-history gate): the archive runs it gated against.
        json.loads(render_json(_gated(gpu))),
    ]
    seen: set[str] = set()
    for document in documents:
        for path, value in _paths(document):
            assert path in TOP, f"top-level field {path!r} is not documented"
            assert _matches(value, TOP[path][0]), (path, value, TOP[path][0])
            seen.add(path)
        for record in document["rows"]:
            assert list(record) == list(ROWS), "row fields differ from the documentation"
            for name, value in record.items():
                assert _matches(value, ROWS[name][0]), (name, value, ROWS[name][0])
            for axis in record["axes"]:
                assert list(axis) == list(AXES)
                for name, value in axis.items():
                    assert _matches(value, AXES[name][0])
    # Nothing documented that the reports never write.
    assert seen == set(TOP)


def test_documented_units_match_the_field_specs() -> None:
    for spec in ROW_FIELDS:
        kind, unit = ROWS[spec.name]
        assert unit == spec.unit, spec.name
        expected = "array of string" if spec.type == "array" else spec.type
        assert kind == (f"{expected} or null" if spec.nullable else expected), spec.name
    assert ROWS["ref_center"][1] == "s" and ROWS["frac_diff"][1] == "fraction"
    assert ROWS["ref_clock_rate"][1] == "Hz" and ROWS["effect_ratio"][1] == "ratio"


def test_directories_report_unpaired_files_and_added_rows(directories: Comparison) -> None:
    data = report_data(directories, fail_on="missing")
    assert sorted((item["side"], Path(item["path"]).name) for item in data["unpaired_files"]) == [
        ("compare", "only_cmp.json"),
        ("reference", "only_ref.json"),
    ]
    assert data["counts"]["ADDED"] == 1 and data["counts"]["SLOW"] == 1
    (failure,) = data["fail_on"]["failures"]
    assert len(failure["unpaired_files"]) == 2
    added = data["rows"][failure["rows"][0]]
    assert added["status"] == "ADDED" and added["ref_center"] is None
    assert added["ref_file"].endswith("a.json") and added["ref_files"] == [added["ref_file"]]


# ---------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------


def test_csv_columns_rows_and_values(gpu: Comparison) -> None:
    text = render_csv(gpu, fail_on="slow")
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == flat_columns(gpu)
    documented = [name for name in ROWS if name != "axes"]
    assert [name for name in reader.fieldnames if name in ROWS] == documented
    assert [name for name in reader.fieldnames if name.startswith("threshold.")] == [
        "threshold." + key for key in json.loads(render_json(gpu))["thresholds"]
    ]
    records = list(reader)
    assert len(records) == 24
    json_rows = json.loads(render_json(gpu, fail_on="slow"))["rows"]
    for record, expected in zip(records, json_rows, strict=True):
        # Every line stands alone.
        assert record["schema"] == "nvbench-tools.compare" and record["schema_version"] == "2"
        assert record["threshold.same.center_relative"] == "0.005"
        assert record["ref_file"].endswith("gpu_ref.json")
        # A list of names is one cell of JSON array text (a name may hold a comma).
        assert json.loads(record["ref_files"]) == expected["ref_files"] == [record["ref_file"]]
        for name in ("ref_center", "cmp_hi", "frac_diff", "ref_clock_rate"):
            value = expected[name]
            assert record[name] == ("" if value is None else repr(value))
        assert record["ref_is_skipped"] in ("true", "false")
        assert record["failed_conditions"] == ";".join(expected["failed_conditions"])
    slow = next(r for r in records if r["status"] == "SLOW")
    assert slow["axis.Elements"] == "1048576" and slow["axis.Ratio"] == ""
    assert slow["failed_conditions"] == "slow"


def test_csv_lines_of_a_paired_comparison_carry_its_design(
    gpu: Comparison, paired: Comparison
) -> None:
    design = json.loads(render_json(paired))["design"]
    reader = csv.DictReader(io.StringIO(render_csv(paired)))
    assert reader.fieldnames == flat_columns(paired)
    records = list(reader)
    assert records
    for record in records:  # every line stands alone, as the thresholds do
        assert record["design.rounds"] == str(design["rounds"]) == "4"
        assert record["design.order"] == design["order"] == "random"
        assert record["design.seed"] == str(design["seed"]) == "5"
        assert record["design.first"] == ";".join(design["first"]) == "ref;cmp;cmp;ref"
    # An unpaired comparison's CSV keeps its columns: no empty design columns.
    assert not [name for name in flat_columns(gpu) if name.startswith("design.")]


def test_dataframe_of_a_paired_comparison_types_its_design(paired: Comparison) -> None:
    pytest.importorskip("pandas", reason="pandas comes with the pandas extra")
    frame = paired.to_dataframe()
    assert list(frame.columns) == flat_columns(paired)
    assert str(frame["design.rounds"].dtype) == "Int64" and set(frame["design.rounds"]) == {4}
    assert str(frame["design.seed"].dtype) == "Int64" and set(frame["design.seed"]) == {5}
    assert set(frame["design.first"]) == {"ref;cmp;cmp;ref"}


def test_csv_cells() -> None:
    assert csv_cell(None) == ""
    assert csv_cell(True) == "true" and csv_cell(False) == "false"
    assert csv_cell(math.inf) == "inf" and csv_cell(-math.inf) == "-inf"
    assert csv_cell(math.nan) == "nan"
    assert csv_cell(3.18e-06) == "3.18e-06" and csv_cell(7) == "7"
    record = next(csv.DictReader(io.StringIO(render_csv(_noisy()))))
    assert record["ref_spread"] == "inf" and record["key"] == ""


def test_csv_quotes_awkward_text(gpu: Comparison) -> None:
    text = render_csv(gpu)
    # Skip reasons contain commas and semicolons; the CSV still parses to 24 rows.
    assert len(list(csv.reader(io.StringIO(text)))) == 25
    assert "\r" not in text


# ---------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------


def test_markdown_report_structure(gpu: Comparison) -> None:
    text = render_markdown_report(gpu, DocumentOptions(fail_on=parse_fail_on("slow")))
    lines = text.splitlines()
    assert lines[0] == headline(gpu)
    assert lines[0].startswith("### 🔴 nvbench_compare: 1 regression, 1 improvement")
    assert "\x1b" not in text
    assert "🔴 1 regression · 🟢 1 improvement · 🔵 18 unchanged · ⚪ 4 skipped" in lines
    assert any(line.startswith("❌ **Failed** `--fail-on slow: 1 row(s)") for line in lines)
    regressions = lines.index("#### Regressions")
    first_details = next(i for i, line in enumerate(lines) if line.startswith("<details>"))
    assert regressions < first_details
    table = lines[regressions + 2 : regressions + 5]
    assert table[0].startswith("| Benchmark  | Device | State")
    assert "copy_bench" in table[2] and "🔴 SLOW" in table[2]
    assert not lines[regressions + 5].startswith("|")  # the only regression
    assert text.count("<details>") == text.count("</details>") == 2
    assert "<details><summary>copy_bench: 🔴 1 · 🟢 1 · 🔵 10 · ⚪ 4</summary>" in lines
    # A blank line after <summary> so GitHub renders the table inside.
    assert lines[first_details + 1] == ""
    assert "##### [0] NVIDIA H100 80GB HBM3" in lines
    reasons = lines.index("#### Ambiguous, unknown and skipped results")
    assert reasons > first_details
    assert lines[reasons + 2] == (
        "- ⚪ Skipped: 4 states skipped by the benchmark in both runs (not in the tables; "
        "--show-skipped lists them)"
    )
    assert lines[reasons + 3] == "  - 4: Strided layout is not implemented for 8-byte types."
    assert "SKIP |" not in text  # hidden from the tables
    assert lines[-1].startswith("<sub>Method `robust`, preset `default`")
    assert text.endswith("\n")


def test_markdown_headlines() -> None:
    def of(*statuses: Status) -> Comparison:
        rows = tuple(
            Row(
                benchmark="b",
                key=f"N={i}",
                occurrence=0,
                axis_values=(),
                verdict=Verdict(status, Reason.BULK_SAME if status is Status.SAME else (
                    Reason.NOISE_TOO_HIGH if status is Status.AMBG
                    else Reason.CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES)),
                ref=SideEstimate(center=1.0),
                cmp=SideEstimate(center=1.0),
            )
            for i, status in enumerate(statuses)
        )  # fmt: skip
        return Comparison(rows, "robust", "default", Thresholds(), ())

    assert headline(of(Status.SAME, Status.SAME)) == (
        "### 🔵 nvbench_compare: no significant changes (2 states)"
    )
    assert headline(of(Status.FAST)) == (
        "### 🟢 nvbench_compare: 1 improvement, no regressions (1 state)"
    )
    assert headline(of(Status.SAME, Status.AMBG)) == (
        "### 🤷 nvbench_compare: no confirmed changes, 1 ambiguous (2 states)"
    )
    assert headline(of(Status.SLOW, Status.SLOW, Status.AMBG)) == (
        "### 🔴 nvbench_compare: 2 regressions, 1 ambiguous (3 states)"
    )
    assert headline(of()) == "### 🟡 nvbench_compare: nothing compared (0 states)"


def test_markdown_threshold_and_display(gpu: Comparison) -> None:
    text = render_markdown_report(gpu, DocumentOptions(display=Display.EXPLAIN, min_change=0.03))
    assert "| Reason" in text
    # Hidden rows leave the tables but the counts stay.
    assert "🔵 18 unchanged" in text
    assert "🔵 SAME |" not in text
    assert text.count("<details>") == 2
    # Why the block is empty: a reader sees '🔵 8' in its summary and no table.
    assert (
        "<details><summary>misc: 🔵 8</summary>\n\nNo rows to show (--threshold-diff hides "
        "the rows that changed less than 3.00%).\n\n</details>"
    ) in text


def test_markdown_says_only_changed_hid_a_benchmarks_rows(gpu: Comparison) -> None:
    text = render_markdown_report(gpu, DocumentOptions(only_changed=True))
    assert (
        "<details><summary>misc: 🔵 8</summary>\n\nNo rows to show (--only-changed hides "
        "SAME and AMBG rows).\n\n</details>"
    ) in text


def test_markdown_no_regressions_and_warnings(directories: Comparison) -> None:
    text = render_markdown_report(
        directories, DocumentOptions(fail_on=parse_fail_on("slow,missing"))
    )
    assert "#### Warnings" in text
    assert "only_ref.json` has no counterpart" in text
    assert "❌ **Failed** `--fail-on missing:" in text
    quiet = render_markdown_report(_noisy(), DocumentOptions(fail_on=parse_fail_on("slow")))
    assert "No regressions." in quiet
    assert "✅ Passed `--fail-on slow`" in quiet
    assert "- 🤷 `noise_unavailable` (noise-miss): 1 — noise is infinite" in quiet
