"""A side file holding another state's samples (a copied folder, a renumbered file, a file
of the other run) was read as the state's own: the comparison called the state FAST by
-96 % against its own summaries, exit 0 without a word, and ``ingest`` archived the foreign
median. NVBench computes a state's min and max from the very samples it writes, so sample
times that do not reach them are not this state's: the side file is named in one warning
and left out, the state decided (and archived) from its summaries, as for any other
unusable side file.

Input: ``python/examples/data`` (the project's example run, with side files), copied; the
check against files NVBench wrote: ``nvbench-format-examples`` (skipped where absent).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _cli_helpers import run_main

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
_TIMES = "nv/json/bin:nv/cold/sample_times"


def _side_file(document: dict[str, object], index: int) -> str:
    states = [s for b in document["benchmarks"] for s in b["states"]]  # type: ignore[attr-defined]
    for summary in states[index]["summaries"]:
        if summary["tag"] == _TIMES:
            return str(next(d["value"] for d in summary["data"] if d["name"] == "filename"))
    raise AssertionError("no sample-times file")


def _swapped(tmp_path: Path, scale: float | None = None) -> Path:
    """A copy of the examples whose reference state 0 side file holds state 5's samples
    (``scale``: its own samples times ``scale`` instead)."""
    target = tmp_path / "run"
    shutil.copytree(_EXAMPLES, target)
    ref = target / "ref.json"
    document = json.loads(ref.read_text())
    first = target / _side_file(document, 0)
    if scale is None:
        shutil.copyfile(target / _side_file(document, 5), first)
    else:
        import numpy as np

        (np.fromfile(first, "<f4") * np.float32(scale)).astype("<f4").tofile(first)
    return target


def _compare_rows(capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[str, dict[str, str]]:
    from cuda.bench.cli.compare import main

    report = folder / "report.json"
    result = run_main(main, capsys, folder / "ref.json", folder / "cmp.json", "--json", report)
    assert result.code == 0, result.err
    rows = json.loads(report.read_text())["rows"]
    return result.err, {f"{r['benchmark']} {r['ref_state_name']}": r["status"] for r in rows}


@pytest.mark.parametrize("scale", [None, 1000.0])
def test_a_comparison_leaves_out_samples_that_are_not_the_states_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: float | None
) -> None:
    folder = _swapped(tmp_path, scale)
    err, rows = _compare_rows(capsys, folder)
    lines = [line for line in err.splitlines() if "not this state's samples" in line]
    assert len(lines) == 1, err
    assert f"{folder}/ref.json-bin/" in lines[0] and "its per-sample data are not used" in lines[0]
    # The state is decided as the same runs without that side file decide it.
    plain = tmp_path / "plain"
    shutil.copytree(_EXAMPLES, plain)
    document = json.loads((plain / "ref.json").read_text())
    (plain / _side_file(document, 0)).unlink()
    _, expected = _compare_rows(capsys, plain)
    assert rows == expected


def test_the_states_own_samples_pass_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real files agree with their summaries to float32 rounding: no warning."""
    target = tmp_path / "run"
    shutil.copytree(_EXAMPLES, target)
    err, _ = _compare_rows(capsys, target)
    assert "not this state's samples" not in err


def test_ingest_archives_the_state_from_its_summaries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli.history import main
    from cuda.bench.history.archive import query

    folder = _swapped(tmp_path)
    archive = tmp_path / "archive"
    args = ("ingest", "--archive", archive, "--commit", "c1", folder / "ref.json")
    result = run_main(main, capsys, *args)
    assert result.code == 0, result.err
    assert "not this state's samples" in result.err
    assert "is archived from its summaries" in result.err
    document = json.loads((folder / "ref.json").read_text())
    first = document["benchmarks"][0]["states"][0]
    recorded = next(
        float(s["data"][0]["value"])
        for s in first["summaries"]
        if s["tag"] == "nv/cold/time/gpu/median"
    )
    stored = query(archive).execute("SELECT median FROM states").fetchall()
    assert any(row[0] == pytest.approx(recorded, rel=1e-12) for row in stored), stored


def test_histogram_leaves_out_samples_that_are_not_the_states_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli.histogram import main

    folder = _swapped(tmp_path)
    result = run_main(main, capsys, folder / "ref.json", "-o", tmp_path / "h.png")
    assert result.code == 0, result.err
    assert "not this state's samples" in result.err


@pytest.mark.parametrize("kind", ["gpu", "cpu"])
def test_real_nvbench_side_files_reach_their_recorded_min_and_max(
    shared_data: Path, kind: str
) -> None:
    """Files NVBench wrote (not our writer): every state's samples reach its recorded min
    and max and average to its mean within a hundredth of the tolerances, so the check
    refuses none of them."""
    import numpy as np
    from cuda.bench.compare.bulk import RECORDED_MEAN_TOLERANCE, RECORDED_RANGE_TOLERANCE
    from cuda.bench.compare.evidence import recorded_sample_summaries
    from cuda.bench.results import BenchmarkResult

    files = sorted((shared_data / "nvbench-format-examples" / kind).glob("*.json"))
    checked = 0
    for path in files:
        for state in BenchmarkResult(path).states():
            samples = state.samples
            low, high, mean = recorded_sample_summaries(state)
            if samples is None or low is None or high is None or mean is None:
                continue
            times = np.asarray(samples, dtype=np.float64)
            assert abs(times.min() / low - 1) < RECORDED_RANGE_TOLERANCE / 100, (path, state)
            assert abs(times.max() / high - 1) < RECORDED_RANGE_TOLERANCE / 100, (path, state)
            assert abs(times.mean() / mean - 1) < RECORDED_MEAN_TOLERANCE / 100, (path, state)
            checked += 1
    assert checked >= 10


def _edited(tmp_path: Path, edit_state: object = None, edit_samples: object = None) -> Path:
    """A copy of the examples, the reference's state 0 summaries edited by ``edit_state``
    and its sample times by ``edit_samples``."""
    target = tmp_path / "run"
    shutil.copytree(_EXAMPLES, target)
    ref = target / "ref.json"
    document = json.loads(ref.read_text())
    if callable(edit_state):
        edit_state(document["benchmarks"][0]["states"][0])
        ref.write_text(json.dumps(document))
    if callable(edit_samples):
        first = target / _side_file(document, 0)
        edit_samples(first, document, target)
    return target


def _without_extremes(state: dict[str, object]) -> None:
    """NVBench before 2025 recorded no min and max: the mean is left to tell."""
    summaries = state["summaries"]
    assert isinstance(summaries, list)
    state["summaries"] = [
        one
        for one in summaries
        if one["tag"] not in ("nv/cold/time/gpu/min", "nv/cold/time/gpu/max")
    ]


def _at_the_ends(first: Path, document: object, target: Path) -> None:
    """The state's own samples, every one but the largest moved to the smallest: min and
    max as recorded, the mean not."""
    import numpy as np

    times = np.fromfile(first, "<f4")
    times[times != times.max()] = times.min()
    times.tofile(first)


def _foreign(first: Path, document: object, target: Path) -> None:
    shutil.copyfile(target / _side_file(document, 5), first)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("edit_state", "edit_samples"),
    [(_without_extremes, _foreign), (None, _at_the_ends)],
    ids=["foreign-without-min-and-max", "own-samples-moved-to-the-ends"],
)
def test_samples_that_do_not_average_to_the_recorded_mean_are_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit_state: object, edit_samples: object
) -> None:
    """Another state's samples where the state records no min and max (files before 2025)
    called it FAST by -96 % without a word; samples whose ends match but whose mass does
    not called it SLOW by 3.8 %. The recorded mean now tells them too."""
    folder = _edited(tmp_path, edit_state, edit_samples)
    err, rows = _compare_rows(capsys, folder)
    lines = [line for line in err.splitlines() if "not this state's samples" in line]
    assert len(lines) == 1 and "records mean" in lines[0], err
    first = next(key for key in rows if key.startswith("reduce "))
    assert rows[first] == "SAME", rows
