"""``nvbench_compare`` given folders of NVBench's own outputs: ``--jsonbin X.json --json
X_plain.json`` in one run writes two byte-identical files. ``nvbench_compare DIR_A DIR_B``
compared ``X_plain.json`` as well, so every row appeared twice (and the suite's counts and
geometric mean counted each state twice); ``--ref DIR --cmp DIR``, several candidates and
``calibrate DIR`` refused the folder as "a run given twice". A folder's byte-identical files
are one run, read once, with a note naming each one left out, worded as nvbench-walltime,
nvbench-histogram and nvbench-plot-bwutil word it. Files named one by one are all read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main

_NOTE = "(byte for byte, as NVBench writes --json beside --jsonbin); read once"


@pytest.fixture
def folders(gpu_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``ref/`` and ``cmp/`` in the working directory, each the outputs of one NVBench run
    with ``--jsonbin run.json --json run_plain.json`` (the real reference and compare runs,
    whose two known changes are one regression and one improvement)."""
    for side, run in (("ref", "gpu_ref"), ("cmp", "gpu_cmp")):
        folder = tmp_path / side
        folder.mkdir()
        shutil.copyfile(gpu_dir / f"{run}.json", folder / "run.json")
        shutil.copyfile(gpu_dir / f"{run}_plain.json", folder / "run_plain.json")
        for kind in ("bin", "freqs-bin"):
            shutil.copytree(gpu_dir / f"{run}.json-{kind}", folder / f"{run}.json-{kind}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": note: " in line]


def _read_once_notes(*sides: str) -> list[str]:
    return [
        f"nvbench_compare: note: {side}/run_plain.json: the same run as {side}/run.json {_NOTE}"
        for side in sides
    ]


def _status_rows(out: str, status: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("|") and status in line]


def test_two_folders_compare_each_run_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, "ref", "cmp")
    assert result.code == 0, result.err
    assert _notes(result.err) == _read_once_notes("ref", "cmp"), result.err
    assert "run_plain.json" not in result.out
    assert len(_status_rows(result.out, "SLOW")) == 1, result.out
    assert len(_status_rows(result.out, "FAST")) == 1, result.out


def test_the_report_lists_each_state_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, "ref", "cmp", "--json", "-")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert [pair["ref"] for pair in report["inputs"]] == [["ref/run.json"]], report["inputs"]


def test_folders_of_runs_read_each_run_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, "--ref", "ref", "--cmp", "cmp")
    assert result.code == 0, result.err
    assert _notes(result.err) == _read_once_notes("ref", "cmp"), result.err
    assert len(_status_rows(result.out, "SLOW")) == 1, result.out


def test_several_candidates_tell_each_copy_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    shutil.copytree(folders / "cmp", folders / "cmp2")
    result = run_main(main, capsys, "--runs", "ref", "cmp", "cmp2")
    assert result.code == 0, result.err
    assert _notes(result.err) == _read_once_notes("ref", "cmp", "cmp2"), result.err


def test_variants_of_a_folder_read_it_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, "--ref", "ref", "--col", "Device")
    assert result.code == 0, result.err
    assert _notes(result.err) == _read_once_notes("ref"), result.err


def test_calibration_reads_each_run_of_a_folder_once(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    shutil.copytree(folders / "ref", folders / "ref2")
    shutil.copyfile(folders / "cmp" / "run.json", folders / "ref2" / "run.json")
    shutil.copyfile(folders / "cmp" / "run.json", folders / "ref2" / "run_plain.json")
    result = run_main(main, capsys, "calibrate", "ref", "ref2", "-o", folders / "cal.json")
    assert result.code == 0, result.err
    notes = [
        line.replace("nvbench_compare calibrate:", "nvbench_compare:")
        for line in _notes(result.err)
    ]
    assert notes == _read_once_notes("ref", "ref2"), result.err
    assert (folders / "cal.json").stat().st_size > 0


def test_files_named_one_by_one_are_all_read(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(
        main, capsys, "--ref", "ref/run.json", "--ref", "ref/run_plain.json", "--cmp", "cmp"
    )
    assert_usage_error(
        result, "ref/run_plain.json: a copy of ref/run.json", "a reference run is given twice"
    )


def test_a_folder_of_one_printer_pairs_with_a_folder_of_both(
    folders: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The compare run wrote only --json run_plain.json (no --jsonbin): its run pairs with the
    # reference's run_plain.json by name, as before copies were known, and the reference's
    # run.json is that run, not a file without a counterpart. Before: "no matching non-empty
    # .json files", exit 2.
    from cuda.bench.cli.compare import main

    (folders / "cmp" / "run.json").unlink()
    result = run_main(main, capsys, "ref", "cmp")
    assert result.code == 0, result.err
    note = f"nvbench_compare: note: ref/run.json: the same run as ref/run_plain.json {_NOTE}"
    assert _notes(result.err) == [note], result.err
    assert "counterpart" not in result.err, result.err
    assert len(_status_rows(result.out, "SLOW")) == 1, result.out
    assert len(_status_rows(result.out, "FAST")) == 1, result.out


@pytest.mark.parametrize(
    "args",
    [
        ("top", "cmp"),
        ("--ref", "top", "--cmp", "cmp"),
        ("calibrate", "top", "cmp", "-o", "c.json"),
    ],
    ids=["DIR DIR", "--ref DIR", "calibrate"],
)
def test_a_folder_of_run_folders_names_the_subfolder_to_give(
    folders: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    # A job's folder of per-run folders: the error said only that the folder held no runs.
    from cuda.bench.cli.compare import main

    (folders / "top").mkdir()
    shutil.move(folders / "ref", folders / "top" / "night1")
    result = run_main(main, capsys, *args)
    assert_usage_error(
        result,
        "its subfolders are not read, and night1 holds .json files",
        f"(give {Path('top') / 'night1'} or the files)",
    )
    assert not (folders / "c.json").exists()
