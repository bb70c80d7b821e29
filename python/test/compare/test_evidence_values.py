"""Recorded values that are no evidence: a sample count or an SM clock that no measurement
can have recorded, or one recorded with a type the reader cannot take. Such a value is never
a pass and never a FAST/SLOW: the row is undecided with a reason, in every method that would
otherwise rest on it (``nvbench-history ingest`` refuses such files outright).

The cases edit a copy of a real NVBench file (``gpu_ref_nosidecar.json``; the 2021 upstream
file for a state without quartiles): the compare run of one state 1.5 times slower."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.bulk import UnusableBulkData, checked_frequencies, checked_values
from cuda.bench.compare.bulkdata import BulkData
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods.ci import decide
from cuda.bench.compare.model import Reason, Status
from cuda.bench.compare.runs import with_runs
from cuda.bench.compare.thresholds import PRESETS

BENCH = "copy_bench"
STATE = "Device=0 T=F32 Elements=2^16 Layout=contiguous"
FILTERS = [
    ("benchmark", BENCH),
    ("axis", "T=F32"),
    ("axis", "Elements=2^16"),
    ("axis", "Layout=contiguous"),
]
CLOCK = "nv/cold/sm_clock_rate/mean"
TIMES = ("min", "q1", "median", "q3", "max", "mean")


def _state(document: dict[str, Any], bench: str, name: str) -> dict[str, Any]:
    for benchmark in document["benchmarks"]:
        if benchmark["name"] == bench:
            for state in benchmark["states"]:
                if state["name"] == name:
                    found: dict[str, Any] = state
                    return found
    raise AssertionError(f"no {bench} / {name}")


def _set(state: dict[str, Any], tag: str, value: str, kind: str | None = None) -> None:
    (summary,) = [one for one in state["summaries"] if one["tag"] == tag]
    summary["data"][0]["value"] = value
    if kind is not None:
        summary["data"][0]["type"] = kind


def _slower(state: dict[str, Any], factor: float) -> None:
    for name in TIMES:
        tag = f"nv/cold/time/gpu/{name}"
        (summary,) = [one for one in state["summaries"] if one["tag"] == tag]
        summary["data"][0]["value"] = repr(float(summary["data"][0]["value"]) * factor)


def _pair(gpu_dir: Path, tmp_path: Path, edit: Any) -> tuple[Path, Path]:
    """The real file as reference; as compare, a copy 1.5 times slower in one state with
    ``edit`` applied to that state."""
    source = gpu_dir / "gpu_ref_nosidecar.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    state = _state(document, BENCH, STATE)
    _slower(state, 1.5)
    edit(state)
    document["meta"]["argv"] = [*document["meta"]["argv"], "--changed"]
    cmp = tmp_path / "cmp.json"
    cmp.write_text(json.dumps(document), encoding="utf-8")
    return source, cmp


def _row(ref: Path, cmp: Path, method: str) -> Any:
    found = compare(ref, cmp, method=method, filters=FILTERS, ref_devices="0", cmp_devices="0")
    (row,) = list(found)
    return row


# -- the SM clock: a range no clock leaves ----------------------------------------------------


@pytest.mark.parametrize("method", ["ci", "robust"])
@pytest.mark.parametrize("clock", ["1e308", "1e12", "100000", "1e-300"])
def test_a_clock_no_gpu_runs_at_never_confirms_a_change(
    gpu_dir: Path, tmp_path: Path, method: str, clock: str
) -> None:
    """A mean clock of 1e308 Hz made a +50 % time change +8.5e300 % in cycles: SLOW
    ``ci_change_confirmed_by_cycles`` (robust: ``clear_gap_confirmed_by_summary_cycles``).
    No GPU clocks its SMs outside 1 MHz to 100 GHz: such a value is an invalid clock."""
    ref, cmp = _pair(gpu_dir, tmp_path, lambda state: _set(state, CLOCK, clock))
    row = _row(ref, cmp, method)
    assert (row.status, row.reason) == (Status.AMBG, Reason.INVALID_CLOCK_RATE), row.verdict
    assert "1 MHz to 100 GHz" in row.verdict.message


def test_a_throttled_clock_in_the_range_still_explains_the_time_change(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """The control: the same change with the clock 1.5 times lower is a clock change."""
    ref, cmp = _pair(
        gpu_dir, tmp_path, lambda state: _set(state, CLOCK, repr(1754914176.704 / 1.5))
    )
    row = _row(ref, cmp, "ci")
    assert (row.status, row.reason) == (Status.AMBG, Reason.CLOCK_CHANGE_EXPLAINS_TIME)


@pytest.mark.parametrize("scale", [1e3, 1e-5])
def test_a_clock_file_no_gpu_runs_at_is_unusable(scale: float) -> None:
    """Per-sample clocks are held to the same range: cycles made of 1.7e12 Hz clocks
    confirmed any change as the mean clock did."""
    times = np.full(50, 2e-5, dtype=np.float32)
    freqs = np.full(50, 1.7e9 * scale, dtype=np.float32)
    with pytest.raises(UnusableBulkData, match="outside 1 MHz to 100 GHz"):
        checked_frequencies(checked_values(times), freqs)
    warnings: list[str] = []
    bulk = BulkData.from_arrays(times, freqs, warn=warnings.append)
    assert bulk.cycles() is None and bulk.times() is not None
    assert len(warnings) == 1 and "outside 1 MHz to 100 GHz" in warnings[0], warnings


# -- the SM clock: present but unreadable, or on one side only -----------------------------

THROTTLED = repr(1754914176.704 / 1.5)  # a clock 1.5 times lower: the time change's cause


@pytest.mark.parametrize("method", ["ci", "robust"])
@pytest.mark.parametrize("kind", ["string", "double"])
def test_a_clock_recorded_with_a_type_the_reader_cannot_take_is_invalid(
    gpu_dir: Path, tmp_path: Path, method: str, kind: str
) -> None:
    """The throttled clock that explains the change, tagged ``"string"`` (or an unknown
    type) instead of ``float64``: ci read it as no clock and
    called the row SLOW ``ci_change_without_cycles``; robust said ``missing_clock_rate``.
    A clock present but unreadable is broken evidence: ``invalid_clock_rate``."""
    edit = lambda state: _set(state, CLOCK, THROTTLED, kind)  # noqa: E731
    ref, cmp = _pair(gpu_dir, tmp_path, edit)
    row = _row(ref, cmp, method)
    assert (row.status, row.reason) == (Status.AMBG, Reason.INVALID_CLOCK_RATE), row.verdict


def _without_clock(state: dict[str, Any]) -> None:
    state["summaries"] = [one for one in state["summaries"] if one["tag"] != CLOCK]


@pytest.mark.parametrize("side", ["cmp", "ref"])
def test_ci_decides_a_change_with_a_clock_on_one_side_only_in_time_alone(
    gpu_dir: Path, tmp_path: Path, side: str
) -> None:
    """A run of an NVBench that records no clock against one that does (an upgrade between
    the runs): the change is decided in time alone, as for files without clocks. Making it
    AMBG ``missing_clock_rate`` let ``--fail-on slow`` pass a regression across the upgrade
    (and a gate, for as long as its reference window held an older run)."""
    ref, cmp = _pair(gpu_dir, tmp_path, lambda state: _set(state, CLOCK, THROTTLED))
    edited = cmp if side == "cmp" else tmp_path / "ref.json"
    document = json.loads((cmp if side == "cmp" else ref).read_text(encoding="utf-8"))
    _without_clock(_state(document, BENCH, STATE))
    edited.write_text(json.dumps(document), encoding="utf-8")
    if side == "ref":
        ref = edited
    row = _row(ref, cmp, "ci")
    assert (row.status, row.reason) == (Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES), row.verdict


def test_ci_decides_in_time_alone_without_clocks_on_both_sides(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """The documented rule for files without clocks (older NVBench) stays: SLOW."""
    ref, cmp = _pair(gpu_dir, tmp_path, _without_clock)
    document = json.loads(ref.read_text(encoding="utf-8"))
    _without_clock(_state(document, BENCH, STATE))
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document), encoding="utf-8")
    row = _row(ref, cmp, "ci")
    assert (row.status, row.reason) == (Status.SLOW, Reason.CI_CHANGE_WITHOUT_CYCLES)


def test_ci_calls_an_unchanged_state_same_with_a_clock_on_one_side_only(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """SAME needs no cycles where none can be compared (as robust's
    ``same_without_clock_rate``): only a change must be confirmed."""
    ref, cmp = _pair(
        gpu_dir, tmp_path, lambda state: (_slower(state, 1 / 1.5), _without_clock(state))
    )
    row = _row(ref, cmp, "ci")
    assert (row.status, row.reason) == (Status.SAME, Reason.CI_SAME_WITHOUT_CYCLES), row.verdict


# -- the sample count ----------------------------------------------------------------------------


def _upstream_pair(upstream_2021_dir: Path, tmp_path: Path, count: str, kind: str | None) -> Path:
    """The 2021 upstream file's ``simple`` Device=0 (no quartiles, no clock: its interval
    rests on the mean, the stdev and the count), 1.1 % slower with a 1 % stdev, recording
    ``count`` samples in both runs; returns the folder with ``ref.json`` and ``cmp.json``."""
    for name, factor in (("ref.json", 1.0), ("cmp.json", 1.011)):
        document = json.loads((upstream_2021_dir / "ref.json").read_text(encoding="utf-8"))
        state = _state(document, "simple", "Device=0")
        _set(state, "nv/cold/sample_size", count, kind)
        _set(state, "nv/cold/time/gpu/stdev/relative", "0.01")
        mean = "nv/cold/time/gpu/mean"
        (summary,) = [one for one in state["summaries"] if one["tag"] == mean]
        summary["data"][0]["value"] = repr(float(summary["data"][0]["value"]) * factor)
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    return tmp_path


def _simple(folder: Path, method: str) -> Any:
    found = compare(
        folder / "ref.json",
        folder / "cmp.json",
        method=method,
        filters=[("benchmark", "simple")],
        ref_devices="0",
        cmp_devices="0",
    )
    (row,) = list(found)
    return row


@pytest.mark.parametrize("method", ["ci", "robust"])
@pytest.mark.parametrize(
    ("count", "kind"),
    [(str(2**70), None), (str(2**63), None), ("-5", None), ("499", "string"), ("499.5", "float64")],
)
def test_a_sample_count_that_is_no_count_leaves_the_row_unknown(
    upstream_2021_dir: Path, tmp_path: Path, method: str, count: str, kind: str | None
) -> None:
    """2^70 samples (beyond int64, which ingest refuses) made the standard error of the
    mean vanish: a 1.1 % change was SLOW [+1.1, +1.1] and failed --fail-on slow. A count
    that is no count (negative, beyond int64, text, a fraction) is a damaged file: ``????``
    ``invalid_sample_count``, naming the side and the value."""
    row = _simple(_upstream_pair(upstream_2021_dir, tmp_path, count, kind), method)
    assert (row.status, row.reason) == (Status.UNKNOWN, Reason.INVALID_SAMPLE_COUNT), row.verdict
    assert "reference" in row.verdict.message and "compare" not in row.verdict.message


def test_the_real_sample_count_leaves_the_change_ambiguous(
    upstream_2021_dir: Path, tmp_path: Path
) -> None:
    """The control: with its 499 samples the same 1.1 % change is not decided."""
    row = _simple(_upstream_pair(upstream_2021_dir, tmp_path, "499", None), "ci")
    assert row.status is Status.AMBG


def test_a_further_run_with_no_count_leaves_the_row_unknown() -> None:
    """Every run of a side counts, not only the first (the message names the run)."""
    rng = np.random.default_rng(5)
    runs = [SideEvidence.from_samples(2e-5 * rng.lognormal(0, 0.01, 500)) for _ in range(4)]
    broken = msgspec.structs.replace(runs[3], sample_count=None, sample_count_not_a_count="'9'")
    verdict = decide(
        with_runs(runs[0], [runs[1]]), with_runs(runs[2], [broken]), PRESETS["default"]
    )
    assert (verdict.status, verdict.reason) == (Status.UNKNOWN, Reason.INVALID_SAMPLE_COUNT)
    assert verdict.message.startswith("compare run 2 records sample count '9', not a count")


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("nv/cold/time/gpu/median", (Status.UNKNOWN, Reason.TIMING_CENTER_NONFINITE)),
        (CLOCK, (Status.AMBG, Reason.INVALID_CLOCK_RATE)),
    ],
)
def test_an_integer_beyond_the_float_range_is_no_value_rather_than_an_error(
    gpu_dir: Path, tmp_path: Path, tag: str, expected: tuple[Status, Reason]
) -> None:
    """A summary typed ``int64`` with 400 digits (the reader keeps it as a Python int)
    stopped the comparison with an OverflowError traceback (exit 1). It is infinite: a
    median that is no time, a clock that is no clock."""
    ref, cmp = _pair(gpu_dir, tmp_path, lambda state: _set(state, tag, "1" + "0" * 400, "int64"))
    row = _row(ref, cmp, "ci")
    assert (row.status, row.reason) == expected, row.verdict


@pytest.mark.parametrize(
    ("digits", "expected"), [("1" + "0" * 400, "inf"), ("-1" + "0" * 400, "-inf")]
)
def test_a_recorded_value_beyond_the_float_range_is_infinite_for_every_reader(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], digits: str, expected: str
) -> None:
    """The comparison's own readers caught the OverflowError, but
    ``SubBenchmarkState.float_value``, which the side-file check reads min, max and mean
    with, did not: nvbench-histogram (and ingest) of a file with side files whose min is an
    int64 of 400 digits stopped with a traceback, exit 1."""
    from cuda.bench.cli import histogram
    from cuda.bench.results import BenchmarkResult

    pytest.importorskip("matplotlib")
    import shutil

    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copytree(gpu_dir / "gpu_ref.json-bin", folder / "gpu_ref.json-bin")
    document = json.loads((gpu_dir / "gpu_ref.json").read_text(encoding="utf-8"))
    _set(_state(document, BENCH, STATE), "nv/cold/time/gpu/min", digits, "int64")
    (folder / "gpu_ref.json").write_text(json.dumps(document), encoding="utf-8")
    (state,) = [s for s in BenchmarkResult(folder / "gpu_ref.json")[BENCH] if s.state_name == STATE]
    assert state.float_value("nv/cold/time/gpu/min") == float(expected)
    code = histogram.main([str(folder / "gpu_ref.json"), "-o", str(tmp_path / "h.png")])
    assert code == 0, capsys.readouterr().err
