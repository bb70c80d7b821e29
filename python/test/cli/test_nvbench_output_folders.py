"""A folder of NVBench's own outputs: ``--jsonbin X.json --json X_plain.json`` in one run
writes two byte-identical files (the side-file summaries of both name ``X.json-bin/``).
Given such a folder, ``nvbench-walltime`` (and ``nvbench-histogram``, ``nvbench-plot-bwutil``)
refused it as "a run given twice", so they could not read a folder NVBench wrote. Byte-identical
JSON files of one folder are one run: the one whose side-file names are its own is read, the
others are left out with a note. Naming both files stays refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _cli_helpers import run_main


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": note: " in line]


def test_walltime_reads_each_run_of_an_nvbench_folder_once(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.walltime import main

    result = run_main(main, capsys, cpu_dir)
    assert result.code == 0, result.err
    notes = _notes(result.err)
    assert len(notes) == 2, result.err
    for run in ("cpu_run1", "cpu_run2"):
        assert any(
            f"{cpu_dir / run}_plain.json: the same run as {cpu_dir / run}.json" in note
            for note in notes
        ), result.err
    assert "_plain" not in result.out
    assert "cpu_run1.json" in result.out and "cpu_run2.json" in result.out


def test_the_file_that_names_its_side_files_is_the_one_read(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``a.json`` sorts first, but its side-file names are ``cpu_run1.json-bin/...``."""
    from cuda.bench.cli.walltime import main

    shutil.copyfile(cpu_dir / "cpu_run1.json", tmp_path / "cpu_run1.json")
    shutil.copyfile(cpu_dir / "cpu_run1.json", tmp_path / "a.json")
    shutil.copytree(cpu_dir / "cpu_run1.json-bin", tmp_path / "cpu_run1.json-bin")
    result = run_main(main, capsys, tmp_path)
    assert result.code == 0, result.err
    assert _notes(result.err) == [
        f"nvbench-walltime: note: {tmp_path / 'a.json'}: the same run as "
        f"{tmp_path / 'cpu_run1.json'} (byte for byte, as NVBench writes --json beside "
        "--jsonbin); read once"
    ]


def test_histogram_reads_an_nvbench_folder(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli.histogram import main

    result = run_main(main, capsys, cpu_dir, "-o", tmp_path / "h.png")
    assert result.code == 0, result.err
    assert len([note for note in _notes(result.err) if "the same run as" in note]) == 2


def test_both_files_named_are_still_a_run_given_twice(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.walltime import main

    result = run_main(main, capsys, cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run1_plain.json")
    assert result.code == 2
    assert "a run is given twice" in result.err


def test_a_file_read_once_is_still_an_input_no_output_may_replace(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.walltime import main

    for name in ("cpu_run1.json", "cpu_run1_plain.json"):
        shutil.copyfile(cpu_dir / name, tmp_path / name)
    copy = tmp_path / "cpu_run1_plain.json"
    before = copy.read_bytes()
    result = run_main(main, capsys, tmp_path, "-o", copy)
    assert result.code == 2, result.err
    assert "is the input file" in result.err
    assert copy.read_bytes() == before


@pytest.mark.parametrize("command", ["walltime", "histogram", "plot_bwutil"])
def test_file_names_that_are_no_text_are_read_once_without_a_traceback(
    command: str, gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two byte-identical files whose names hold a byte that is no UTF-8 (``\\xff``): the
    check of which one names its side files encoded the name as UTF-8 and stopped with a
    UnicodeEncodeError (exit 1, a traceback). NVBench's UTF-8 JSON cannot record such a
    name, so neither is its own: the first by name is read, the other left out."""
    if command != "walltime":
        pytest.importorskip("matplotlib")
    import importlib
    import os

    main = importlib.import_module(f"cuda.bench.cli.{command}").main
    folder = tmp_path / "u"
    folder.mkdir()
    names = [os.fsdecode(b"\xffa.json"), os.fsdecode(b"\xffb.json")]
    for name in names:
        shutil.copyfile(gpu_dir / "gpu_ref_plain.json", folder / name)
    shutil.copytree(gpu_dir / "gpu_ref.json-bin", folder / "gpu_ref.json-bin")
    output = [] if command == "walltime" else ["-o", tmp_path / "figure.png"]
    result = run_main(main, capsys, folder, *output)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    notes = [note for note in _notes(result.err) if "the same run as" in note]
    assert len(notes) == 1, result.err
    # The names as the notes show what is no text: escaped.
    assert "b.json: the same run as " in notes[0] and notes[0].endswith(
        "a.json (byte for byte, as NVBench writes --json beside --jsonbin); read once"
    ), notes[0]


@pytest.mark.parametrize("command", ["walltime", "histogram", "plot_bwutil"])
def test_the_help_states_the_folder_rule(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """nvbench-walltime's help said so; nvbench-histogram's and nvbench-plot-bwutil's
    did not, though they read folders the same way."""
    import importlib

    monkeypatch.setenv("COLUMNS", "1000")  # no line broken at "byte-identical"
    main = importlib.import_module(f"cuda.bench.cli.{command}").main
    result = run_main(main, capsys, "--help")
    assert result.code == 0
    text = " ".join(result.out.split())
    assert "byte-identical ones read once: NVBench's --json file beside --jsonbin" in text
    assert "a run given twice (the same file, or a copy of it) is refused" in text


def test_plot_bwutil_reads_each_run_of_an_nvbench_folder_once(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gpu_ref.json and gpu_ref_plain.json, byte for byte alike: one run, drawn once."""
    pytest.importorskip("matplotlib")
    from cuda.bench.cli.plot_bwutil import main

    folder = tmp_path / "run"
    folder.mkdir()
    for name in ("gpu_ref.json", "gpu_ref_plain.json"):
        shutil.copyfile(gpu_dir / name, folder / name)
    result = run_main(main, capsys, folder, "-o", tmp_path / "bw.png")
    assert result.code == 0, result.err
    assert _notes(result.err) == [
        f"nvbench-plot-bwutil: note: {folder / 'gpu_ref_plain.json'}: the same run as "
        f"{folder / 'gpu_ref.json'} (byte for byte, as NVBench writes --json beside "
        "--jsonbin); read once"
    ]
    assert (tmp_path / "bw.png").stat().st_size > 0


def test_a_folders_json_entries_left_unread_are_each_named(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty ``*.json`` (what NVBench leaves of a crashed run), a named pipe and a link
    to no file in a given folder were skipped without a word: the figure or the total then
    lacked a run nobody was told of. Each is one warning; the readable runs are read."""
    from cuda.bench.cli.walltime import main

    shutil.copyfile(cpu_dir / "cpu_run1.json", tmp_path / "cpu_run1.json")
    shutil.copytree(cpu_dir / "cpu_run1.json-bin", tmp_path / "cpu_run1.json-bin")
    (tmp_path / "crashed.json").write_bytes(b"")
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    result = run_main(main, capsys, tmp_path)
    assert result.code == 0, result.err
    warned = [line for line in result.err.splitlines() if ": warning: " in line]
    assert warned == [
        f"nvbench-walltime: warning: {tmp_path / 'crashed.json'}: empty (NVBench leaves an "
        "empty JSON file when a run crashes); left out",
        f"nvbench-walltime: warning: {tmp_path / 'dangling.json'}: a link to no file "
        "(dangling, or a loop of links); left out",
        f"nvbench-walltime: warning: {tmp_path / 'pipe.json'}: not a regular file but a "
        "named pipe (FIFO); not read",
    ], result.err
    assert "cpu_run1.json" in result.out


def test_a_folder_of_links_compares_from_the_side_files_beside_their_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CI job stages its runs with ``ln -s``: the JSON files were read through the links,
    but their side files were looked for beside the links only ("20 side files are
    missing; their states use their summaries"), so every state lost its samples. They
    are found beside the files the links lead to, and the folders compare as the files
    themselves do (the SLOW row fails --fail-on slow alike)."""
    import json

    from cuda.bench.cli.compare import main

    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    real = tmp_path / "real"
    shutil.copytree(examples, real)
    for side, name in (("ref", "ref.json"), ("cmp", "cmp.json")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "run.json").symlink_to(real / name)
    linked = tmp_path / "linked.json"
    direct = tmp_path / "direct.json"
    args = ("--fail-on", "slow", "--json")
    through = run_main(main, capsys, tmp_path / "ref", tmp_path / "cmp", *args, linked)
    plain = run_main(main, capsys, real / "ref.json", real / "cmp.json", *args, direct)
    assert through.code == plain.code == 1, through.err
    assert "missing" not in through.err, through.err
    rows = json.loads(linked.read_text())["rows"]
    expected = json.loads(direct.read_text())["rows"]
    assert [(r["status"], r["frac_diff"]) for r in rows] == [
        (r["status"], r["frac_diff"]) for r in expected
    ]
    assert all(str(r["ref_sample_file"]).startswith(str(real)) for r in rows)
