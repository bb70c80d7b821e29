"""What ``nvbench-history ingest`` refuses or leaves out of a real NVBench run besides its
median: other stored summaries, side files, duplicated states, values beyond int64.

Real input: ``nvbench-format-examples/gpu`` (``gpu_ref_nosidecar.json`` edited in memory,
``gpu_cmp.json`` with its side files copied and edited).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _ingest_refusal import refused_line
from cuda.bench.cli.history import main
from cuda.bench.history.archive import query

#: The first state of gpu_ref_nosidecar.json, as the one-line errors show it.
FIRST = "benchmark 'copy_bench' device 0 state 'T=F32 Elements=2^16 Layout=contiguous'"


def _document(gpu_dir: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    return document


def _set(state: dict[str, Any], tag: str, value: str, kind: str | None = None) -> None:
    (summary,) = [one for one in state["summaries"] if one["tag"] == tag]
    summary["data"][0]["value"] = value
    if kind is not None:
        summary["data"][0]["type"] = kind


def _refused(tmp_path: Path, bad: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    return refused_line(tmp_path, bad.parent / "good.json", bad, capsys, *extra)


def _write(tmp_path: Path, gpu_dir: Path, document: dict[str, Any]) -> Path:
    shutil.copy(gpu_dir / "gpu_cmp_plain.json", tmp_path / "good.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    return bad


# --- A: every stored summary is a value the comparison can use ------------------------------


# Each was archived (exit 0) and made the gate's rows of that state AMBG or UNKNOWN for
# up to --max-runs nights, in an archive that cannot be corrected.
@pytest.mark.parametrize(
    ("tag", "value", "kind", "shown", "what"),
    [
        ("nv/cold/time/gpu/mean", "nan", None, "nan", "not a time"),
        ("nv/cold/time/gpu/mean", "0", None, "0.0", "not a time"),
        ("nv/cold/time/gpu/mean", "1e300", None, "1e+300", "not a time"),
        ("nv/cold/time/gpu/stdev/relative", "-0.5", None, "-0.5", "not a relative deviation"),
        ("nv/cold/time/gpu/stdev/relative", "nan", None, "nan", "not a relative deviation"),
        ("nv/cold/sample_size", "0", None, "0", "not a sample count"),
        ("nv/cold/sample_size", "nan", None, "nan", "not a sample count"),
        ("nv/cold/sample_size", "nan", "float64", "nan", "not a sample count"),
        ("nv/cold/sample_size", "-3", None, "-3", "not a sample count"),
        ("nv/cold/sm_clock_rate/mean", "nan", None, "nan", "not a clock rate"),
        ("nv/cold/sm_clock_rate/mean", "-inf", None, "-inf", "not a clock rate"),
        ("nv/cold/sm_clock_rate/mean", "0", None, "0.0", "not a clock rate"),
        # No GPU clocks its SMs so (compare.bulk.MIN_CLOCK_RATE, MAX_CLOCK_RATE).
        ("nv/cold/sm_clock_rate/mean", "1e308", None, "1e+308", "not a clock rate"),
        ("nv/cold/sm_clock_rate/mean", "1000", None, "1000.0", "not a clock rate"),
    ],
)
def test_ingest_refuses_a_stored_summary_the_comparison_cannot_use(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    tag: str,
    value: str,
    kind: str | None,
    shown: str,
    what: str,
) -> None:
    document = _document(gpu_dir)
    _set(document["benchmarks"][0]["states"][0], tag, value, kind)
    line = _refused(tmp_path, _write(tmp_path, gpu_dir, document), capsys)
    assert "bad.json: " in line and FIRST in line, line
    assert f"has {tag} {shown}, {what}" in line and line.endswith("nothing written"), line


def test_ingest_takes_absent_summaries_and_an_infinite_noise(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Older NVBench files lack some summaries (no clock, no sample size), and NVBench writes
    an infinite relative deviation for fewer than 5 samples (null where JSON cannot hold
    it): all are archived as they are."""
    document = _document(gpu_dir)
    states = document["benchmarks"][0]["states"]
    absent = {"nv/cold/time/gpu/mean", "nv/cold/sample_size", "nv/cold/sm_clock_rate/mean"}
    states[0]["summaries"] = [one for one in states[0]["summaries"] if one["tag"] not in absent]
    _set(states[1], "nv/cold/time/gpu/stdev/relative", "inf")
    (noise,) = [s for s in states[2]["summaries"] if s["tag"].endswith("gpu/stdev/relative")]
    noise["data"][0]["value"] = None
    run = _write(tmp_path, gpu_dir, document)
    archive = tmp_path / "archive"
    assert main(["ingest", "--archive", str(archive), "--commit", "c1", str(run)]) == 0
    assert "warning" not in capsys.readouterr().err
    rows = (
        query(archive)
        .execute(
            "SELECT state_name, mean, samples, sm_clock, noise FROM states WHERE device = 0 "
            "ORDER BY state_name"
        )
        .fetchall()
    )
    stored = {row[0]: row[1:] for row in rows}
    assert stored["T=F32 Elements[pow2]=16 Layout=contiguous"][:3] == (None, None, None)
    assert stored["T=F32 Elements[pow2]=20 Layout=contiguous"][3] == float("inf")


# --- B: side files as the comparison takes them -----------------------------------------------


def _side_files(tmp_path: Path, gpu_dir: Path) -> Path:
    """gpu_cmp.json with its side files, in ``tmp_path`` (writable copies)."""
    for name in ("gpu_cmp.json-bin", "gpu_cmp.json-freqs-bin"):
        shutil.copytree(gpu_dir / name, tmp_path / name)
    run = tmp_path / "gpu_cmp.json"
    shutil.copy(gpu_dir / "gpu_cmp.json", run)
    return run


def _clean(tmp_path: Path, gpu_dir: Path) -> Path:
    """An archive of gpu_cmp.json and its side files as NVBench wrote them."""
    archive = tmp_path / "clean"
    run = str(gpu_dir / "gpu_cmp.json")
    assert (
        main(["ingest", "--archive", str(archive), "--commit", "c1", "--samples", "64", run]) == 0
    )
    return archive


def _sample_rows(archive: Path) -> int:
    found = query(archive).execute("SELECT count(*) FROM samples").fetchone()[0]
    assert isinstance(found, int) and found > 10
    return found


def _spoil(path: Path, how: str) -> None:
    values = np.fromfile(path, dtype="<f4")
    if how == "zero":
        values[7] = 0.0
    elif how == "nan":
        values[5] = np.nan
    else:  # most values NaN: the samples' median itself is NaN
        values[::3] = 1e-6
        values[values != 1e-6] = np.nan
    path.chmod(0o644)
    values.astype("<f4").tofile(path)


def _first_summary(run: Path, tag: str) -> float:
    state = json.loads(run.read_text())["benchmarks"][0]["states"][0]
    (summary,) = [one for one in state["summaries"] if one["tag"] == tag]
    return float(summary["data"][0]["value"])


def _ingest_spoiled(
    tmp_path: Path, gpu_dir: Path, kind: str, how: str, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path, Path, str]:
    """Ingest the compare run with its first side file of ``kind`` (``json-bin``,
    ``json-freqs-bin``) spoiled ``how`` and 64 samples a state: the run, the spoiled file,
    the archive and the one warning line, which names the file and says its per-sample
    data are not used."""
    run = _side_files(tmp_path, gpu_dir)
    spoiled = tmp_path / f"gpu_cmp.{kind}" / "0.bin"
    _spoil(spoiled, how)
    archive = tmp_path / "archive"
    assert main(["ingest", "--archive", str(archive), "--commit", "c1", "--samples", "64",
                 str(run)]) == 0  # fmt: skip
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 1 and f"{spoiled} (recorded in {run}): " in warned[0], warned
    assert "its per-sample data are not used" in warned[0] and FIRST in warned[0]
    return run, spoiled, archive, warned[0]


@pytest.mark.parametrize("how", ["zero", "nan", "mostly_nan"])
def test_ingest_leaves_out_a_sample_file_the_comparison_does_not_use(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Zero or NaN sample times went into the stored median and interval (and with
    --samples into the samples table); mostly NaN made the ingest blame the median. As
    nvbench_compare does, the file's samples are not used, with one line naming it."""
    from cuda.bench.cli.compare import main as compare_main

    run, spoiled, archive, warned = _ingest_spoiled(tmp_path, gpu_dir, "json-bin", how, capsys)
    assert f"{spoiled} (recorded in {run}): holds non-" in warned
    # nvbench_compare names the same file and leaves out its samples too.
    assert compare_main([str(gpu_dir / "gpu_ref.json"), str(run)]) in (0, 1)
    assert any(
        str(spoiled) in line and "its per-sample data are not used" in line
        for line in capsys.readouterr().err.splitlines()
    )
    connection = query(archive)
    first = "state_name = 'T=F32 Elements[pow2]=16 Layout=contiguous' AND device = 0"
    median, low, high, cycles = connection.execute(
        f"SELECT median, median_lo, median_hi, cycles_median FROM states WHERE {first}"
    ).fetchone()
    assert median == _first_summary(run, "nv/cold/time/gpu/median")
    assert (low, high, cycles) == (None, None, None)
    assert connection.execute(f"SELECT count(*) FROM samples WHERE {first}").fetchone()[0] == 0
    times = connection.execute("SELECT flatten(list(times)) FROM samples").fetchone()[0]
    assert np.isfinite(times).all() and min(times) > 0
    assert _sample_rows(archive) == _sample_rows(_clean(tmp_path, gpu_dir)) - 1


def test_ingest_leaves_out_a_clock_file_the_comparison_does_not_use(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A zero SM clock made a zero cycles median and stored the zero among the clocks."""
    _, _, archive, _ = _ingest_spoiled(tmp_path, gpu_dir, "json-freqs-bin", "zero", capsys)
    connection = query(archive)
    first = "state_name = 'T=F32 Elements[pow2]=16 Layout=contiguous' AND device = 0"
    low, cycles = connection.execute(
        f"SELECT median_lo, cycles_median FROM states WHERE {first}"
    ).fetchone()
    assert low is not None and cycles is None  # the times are used, the cycles are not
    times, clocks = connection.execute(
        f"SELECT times, clocks FROM samples WHERE {first}"
    ).fetchone()
    assert len(times) == 64 and clocks is None
    with_clocks = "SELECT count(*) FROM samples WHERE clocks IS NOT NULL"
    clean = query(_clean(tmp_path, gpu_dir)).execute(with_clocks).fetchone()[0]
    assert connection.execute(with_clocks).fetchone()[0] == clean - 1


# --- C: one state twice in one run ------------------------------------------------------------


def test_ingest_refuses_a_state_that_appears_twice_in_a_run(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state listed twice (the same benchmark name registered twice, say) was archived
    twice: trend counted that run twice in the state's series."""
    document = _document(gpu_dir)
    states = document["benchmarks"][0]["states"]
    states.append(json.loads(json.dumps(states[0])))
    line = _refused(tmp_path, _write(tmp_path, gpu_dir, document), capsys)
    assert "bad.json: " in line and FIRST in line and "appears twice" in line, line


def test_ingest_refuses_a_benchmark_that_appears_twice_with_the_same_states(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reader's warning that the benchmark appears more than once comes first: the
    line that explains the refusal."""
    document = _document(gpu_dir)
    document["benchmarks"].append(json.loads(json.dumps(document["benchmarks"][0])))
    bad = _write(tmp_path, gpu_dir, document)
    fresh = tmp_path / "fresh"
    assert main(["ingest", "--archive", str(fresh), "--commit", "c1", str(bad)]) == 2
    warning, error = capsys.readouterr().err.splitlines()
    assert "bad.json: benchmark 'copy_bench' appears more than once" in warning
    assert "bad.json: " in error and FIRST in error and "appears twice" in error, error
    assert not fresh.exists()


# --- D: values beyond int64 -------------------------------------------------------------------

TOO_BIG = str(2**63)


@pytest.mark.parametrize("where", ["sample_size", "device", "axis"])
def test_ingest_refuses_a_value_beyond_int64_in_one_line(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """Each was an OverflowError with a traceback (exit 1) when the table was built."""
    document = _document(gpu_dir)
    state = document["benchmarks"][0]["states"][0]
    if where == "sample_size":
        _set(state, "nv/cold/sample_size", TOO_BIG)
    elif where == "device":
        state["device"] = 2**63
    else:
        (axis,) = [one for one in state["axis_values"] if one["name"] == "Elements"]
        axis["value"] = TOO_BIG
    line = _refused(tmp_path, _write(tmp_path, gpu_dir, document), capsys)
    assert "bad.json: benchmark 'copy_bench' " in line and TOO_BIG in line, line
    assert "int64" in line or "not a sample count" in line, line


def test_ingest_refuses_an_order_beyond_int64_in_one_line(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(tmp_path, gpu_dir, _document(gpu_dir))
    line = _refused(tmp_path, bad, capsys, "--order", TOO_BIG)
    assert f"--order {TOO_BIG}" in line and "int64" in line, line


@pytest.mark.parametrize(
    ("value", "shown"), [("nan", "nan"), ("0", "0.0"), ("-1e-06", "-1e-06"), ("1e300", "1e+300")]
)
def test_ingest_refuses_a_median_that_is_no_time_beside_samples(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str], value: str, shown: str
) -> None:
    # With side files the archive takes the samples' median, and a recorded median of
    # NaN was archived without a word, where baseline check refused the run and the gate
    # called the state ????.
    run = _side_files(tmp_path, gpu_dir)
    document = json.loads(run.read_text())
    _set(document["benchmarks"][0]["states"][0], "nv/cold/time/gpu/median", value)
    run.write_text(json.dumps(document))
    line = refused_line(tmp_path, gpu_dir / "gpu_cmp_plain.json", run, capsys, "--order", "1")
    assert line.endswith(f"{run}: {FIRST} has median {shown}, not a time; nothing written")
