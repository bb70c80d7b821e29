"""Warnings and notes on stderr quote names from result files. They folded every run of
white space into one space, so a benchmark named ``misc\\nFAKE: all good\\r\\tend`` read
``'misc FAKE: all good end'`` there while stdout showed ``misc\\nFAKE...``: a line break,
a carriage return and a tab are now the same visible escapes as everywhere else."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import assert_no_controls, run_main
from cuda.bench.cli.compare import main

#: A benchmark name that would forge a line of its own.
NAME = "misc\nFAKE: all good\r\tend"
SHOWN = "misc\\nFAKE: all good\\r\\tend"


def _renamed(gpu_dir: Path, target: Path) -> Path:
    document: dict[str, Any] = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    (bench,) = [bench for bench in document["benchmarks"] if bench["name"] == "misc"]
    bench["name"] = NAME
    target.write_text(json.dumps(document))
    return target


def test_plot_note_shows_a_name_as_stdout_does(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _renamed(gpu_dir, tmp_path / "ref.json")
    cmp = _renamed(gpu_dir, tmp_path / "cmp.json")
    figures = tmp_path / "along{pair}.png"
    result = run_main(
        main, capsys, ref, cmp, "--plot-along", "Elements", "--plot-along-output", figures
    )
    assert result.code == 0, result.err
    assert_no_controls(result.out)
    assert_no_controls(result.err)
    assert f"# {SHOWN}" in result.out.splitlines()
    (note,) = [line for line in result.err.splitlines() if "has no axis" in line]
    assert f"benchmark '{SHOWN}' has no axis 'Elements'" in note


@pytest.mark.skipif(sys.platform == "darwin", reason="needs any character but / in a file name")
def test_unpaired_file_warning_shows_a_file_name_as_the_summary_does(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "t\tab\ncd\r.json"
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / side / "x.json")
    source = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    (tmp_path / "a" / name).write_bytes(source + b"\n")
    result = run_main(main, capsys, tmp_path / "a", tmp_path / "b", "--color", "never")
    assert result.code == 0, result.err
    assert_no_controls(result.err)
    shown = f"{tmp_path / 'a'}/t\\tab\\ncd\\r.json"
    (warning,) = [line for line in result.err.splitlines() if "no counterpart" in line]
    assert f"reference file '{shown}' has no counterpart" in warning
    assert f"  - reference: {shown}" in result.out.splitlines()


@pytest.mark.skipif(sys.platform == "darwin", reason="needs any character but / in a file name")
def test_n_way_warnings_show_a_file_name_as_escapes(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # matrix.md's and the N-way page's warning lists folded them as well.
    source = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    for side in ("a", "b", "c"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "x.json").write_bytes(source)
    (tmp_path / "a" / "t\tab\ncd.json").write_bytes(source + b"\n")
    out_dir, page = tmp_path / "out", tmp_path / "n.html"
    out_dir.mkdir()
    folders = [tmp_path / side for side in ("a", "b", "c")]
    result = run_main(main, capsys, *folders, "--html", page, "--output-dir", out_dir)
    assert result.code == 0, result.err
    assert_no_controls(result.err)
    shown = "t\\tab\\ncd.json"
    warnings = [line for line in result.err.splitlines() if "no counterpart" in line]
    assert len(warnings) == 2 and all(shown in line for line in warnings)
    matrix = (out_dir / "matrix.md").read_text(encoding="utf-8").replace("\\\\", "\\")
    assert len([line for line in matrix.splitlines() if shown in line]) == 2
    assert page.read_text(encoding="utf-8").count(f"{shown} has no counterpart") == 2
