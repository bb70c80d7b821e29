"""Side-file warnings name paths as the user spelled the JSON file: ``r/ref.json-bin/2.bin``
for ``r/ref.json``, the JSON file's own path as typed plus the recorded name. They named the
side file by its absolute path (and a side file refused as outside the tree or no path by the
JSON file's absolute path), while every other line said ``r/ref.json``.

And one wording for every side file of a run: the recorded name resolved against the JSON
file's folder as typed, then the JSON file that records it, ``r/ref.json-bin/2.bin (recorded
in r/ref.json): ...``. A side file was named three ways in one nvbench_compare run: so, as a
recorded name alone followed by ``(recorded in r/ref.json)`` (a missing file, whose name did
not say where it was looked for), and as ``r/ref.json: ref.json-bin/0.bin: ...`` (a count
recorded as 0, a file outside the tree, a name that is no path, a folded group of missing
files)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from _cli_helpers import Result, run_main

RUN = "r/gpu_ref.json"
BIN = "r/gpu_ref.json-bin"
IN = f"(recorded in {RUN}):"


@pytest.fixture
def spoiled(tmp_path: Path, gpu_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``r/gpu_ref.json`` with its side files, seven of them unusable, each in its own way;
    the working directory is ``tmp_path``."""
    run = tmp_path / "r"
    run.mkdir()
    shutil.copyfile(gpu_dir / "gpu_ref.json", run / "gpu_ref.json")
    for folder in ("gpu_ref.json-bin", "gpu_ref.json-freqs-bin"):
        shutil.copytree(gpu_dir / folder, run / folder)
    times = run / "gpu_ref.json-bin"
    (times / "2.bin").write_bytes((times / "2.bin").read_bytes()[:100])  # wrong size
    (times / "3.bin").unlink()
    (times / "3.bin").mkdir()  # a directory
    (times / "4.bin").write_bytes(b"")  # empty
    count = (times / "5.bin").stat().st_size // 4
    np.full(count, np.nan, dtype="<f4").tofile(times / "5.bin")  # not usable values
    (times / "6.bin").unlink()
    os.mkfifo(times / "6.bin")  # no regular file
    text = (run / "gpu_ref.json").read_text(encoding="utf-8")
    text = text.replace('"gpu_ref.json-bin/0.bin"', '"../../elsewhere/0.bin"')  # outside
    text = text.replace('"gpu_ref.json-bin/1.bin"', json.dumps("gpu_ref.json-bin/1\0.bin"))
    (run / "gpu_ref.json").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _warnings(result: Result) -> list[str]:
    return [line for line in result.err.splitlines() if "warning:" in line]


def _assert_as_typed(result: Result, root: Path, expected: list[str]) -> None:
    lines = _warnings(result)
    assert str(root) not in result.err, result.err
    for start in expected:
        assert any(line.split("warning: ", 1)[1].startswith(start) for line in lines), (
            start,
            result.err,
        )


def test_compare_names_side_files_as_the_json_file_was_given(
    spoiled: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, RUN, gpu_dir / "gpu_cmp.json", "--no-color")
    assert result.code == 0, result.err
    _assert_as_typed(
        result,
        spoiled,
        [
            f"r/../../elsewhere/0.bin {IN} leads outside the JSON file's directory tree",
            f"{BIN}/1\\x00.bin {IN} is no usable path",
            f"{BIN}/2.bin {IN} side file holds 100 bytes, expected",
            f"{BIN}/3.bin {IN} sample time file of copy_bench / ",
            f"{BIN}/4.bin {IN} sample time file of copy_bench / ",
            f"{BIN}/5.bin {IN} ",
            f"{BIN}/6.bin {IN} sample time file of copy_bench / ",
        ],
    )
    # Every side file of the run in the one wording (the side files of gpu_cmp.json are
    # all read: no line names it).
    assert all(f" {IN} " in line for line in _warnings(result)), result.err


def test_missing_and_miscounted_side_files_are_named_in_the_same_words(
    spoiled: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files missing (three, folded in one line; and one alone) and a count recorded as 0
    (of a file that holds values):
    named as the other side files are, the recorded name resolved against the JSON file's
    folder as typed, then the JSON file that records it."""
    from cuda.bench.cli.compare import main

    for number in (7, 8, 9):
        (spoiled / BIN / f"{number}.bin").unlink()
    document = json.loads((spoiled / RUN).read_text(encoding="utf-8"))
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            for summary in state["summaries"] or []:
                fields = {datum["name"]: datum for datum in summary["data"]}
                if fields.get("filename", {}).get("value") == "gpu_ref.json-bin/10.bin":
                    fields["size"]["value"] = "0"
    (spoiled / RUN).write_text(json.dumps(document), encoding="utf-8")
    cmp = spoiled / "c"
    cmp.mkdir()
    shutil.copyfile(gpu_dir / "gpu_cmp.json", cmp / "gpu_cmp.json")
    for folder in ("gpu_cmp.json-bin", "gpu_cmp.json-freqs-bin"):
        shutil.copytree(gpu_dir / folder, cmp / folder)
    (cmp / "gpu_cmp.json-bin" / "3.bin").unlink()
    result = run_main(main, capsys, RUN, "c/gpu_cmp.json", "--no-color")
    assert result.code == 0, result.err
    lines = [line.split("warning: ", 1)[1] for line in _warnings(result)]
    assert (
        f"{BIN}/7.bin ... 9.bin {IN} 3 side files are missing; their states use their summaries"
        in lines
    ), result.err
    # 10.bin keeps its values: present with the wrong size, it is unusable (compare.md 2).
    assert (
        f"{BIN}/10.bin {IN} recorded with 0 values, but it holds 8000 bytes; its per-sample "
        "data are not used" in lines
    ), result.err
    assert any(
        line.startswith(
            "c/gpu_cmp.json-bin/3.bin (recorded in c/gpu_cmp.json): sample time file of "
        )
        and line.endswith(" not found; using its summaries")
        for line in lines
    ), result.err
    assert all(" (recorded in " in line for line in lines), result.err


def test_histogram_names_side_files_as_the_json_file_was_given(
    spoiled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli.histogram import main

    result = run_main(main, capsys, RUN, "-o", "h.png")
    assert result.code == 0, result.err
    _assert_as_typed(
        result,
        spoiled,
        [
            f"r/../../elsewhere/0.bin {IN} leads outside",
            f"{BIN}/1\\x00.bin {IN} is no usable path",
            f"{BIN}/2.bin {IN} side file holds 100 bytes, expected",
            f"{BIN}/5.bin {IN} ",
        ],
    )


def test_the_reader_names_side_files_as_the_json_file_was_given(spoiled: Path) -> None:
    """``SideFileError`` of ``state.samples`` (the library's own words)."""
    from cuda.bench.results import BenchmarkResult, SideFileError

    result = BenchmarkResult(RUN)
    problems = []
    for state in result.states():
        try:
            state.samples  # noqa: B018 - reading is the check
        except SideFileError as error:
            problems.append(str(error))
    assert str(spoiled) not in "\n".join(problems)
    assert any(p.startswith(f"{BIN}/2.bin {IN} side file holds 100 bytes") for p in problems)
    assert any(p.startswith(f"r/../../elsewhere/0.bin {IN} leads outside") for p in problems)
