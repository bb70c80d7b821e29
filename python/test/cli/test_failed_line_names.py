"""The ``Failed:`` line of ``--fail-on missing`` names unpaired files by their file names,
which come with an artifact: the terminal summary, the HTML comparison page and the
N-way reports wrote them raw (an OSC title change, a colour, a right-to-left override and
a line break reached the terminal and the page) while the ``Unpaired files:`` list above
escaped the same name."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from _cli_helpers import assert_no_controls, run_main
from cuda.bench.cli.compare import main

pytestmark = pytest.mark.skipif(
    sys.platform == "darwin", reason="needs a file system that takes any character but / in a name"
)

#: A file name that retitles the terminal, colours it, reverses the text and breaks the line.
NAME = "t\x1b]0;PWN\x07\x1b[31mRED\u202eabc\nX.json"
#: How every output shows it.
SHOWN = "t\\x1b]0;PWN\\x07\\x1b[31mRED\\u202eabc\\nX.json"


def _folders(tmp_path: Path, gpu_dir: Path, *names: str) -> list[Path]:
    """Folders holding the real run as ``x.json``; the first also holds it as ``NAME``,
    a newline longer (a byte-identical copy would be read once), with no counterpart."""
    folders = []
    for name in names:
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", folder / "x.json")
        folders.append(folder)
    source = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    (folders[0] / NAME).write_bytes(source + b"\n")
    return folders


def _failed_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "Failed:" in line]


def test_terminal_failed_line_shows_a_file_name_as_escapes(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = _folders(tmp_path, gpu_dir, "a", "b")
    result = run_main(main, capsys, ref, cmp, "--fail-on", "missing", "--color", "never")
    assert result.code == 1, result.err
    assert_no_controls(result.out)
    assert_no_controls(result.err)
    (failed,) = _failed_lines(result.out)
    assert SHOWN in failed and failed.endswith("(unpaired)")
    # The same rendering as the list of unpaired files above it.
    assert f"  - reference: {ref}/{SHOWN}" in result.out.splitlines()


def _page_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    bad = sorted({f"{ord(c):#x}" for c in text if not c.isprintable() and c != "\n"})
    assert not bad, bad
    return text


def test_html_failed_text_shows_a_file_name_as_escapes(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = _folders(tmp_path, gpu_dir, "a", "b")
    page = tmp_path / "r.html"
    result = run_main(main, capsys, ref, cmp, "--fail-on", "missing", "--html", page)
    assert result.code == 1, result.err
    text = _page_text(page)
    assert f"reference file {ref}/{SHOWN} (unpaired)" in text


def test_n_way_failed_text_shows_a_file_name_as_escapes(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folders = _folders(tmp_path, gpu_dir, "dA", "dB", "dC")
    page, out_dir = tmp_path / "nw.html", tmp_path / "out"
    out_dir.mkdir()
    args = [*folders, "--fail-on", "missing"]
    result = run_main(main, capsys, *args, "--html", page)
    assert result.code == 1, result.err
    assert f"{SHOWN} (unpaired)" in _page_text(page)
    assert_no_controls(result.out)
    result = run_main(main, capsys, *args, "--output-dir", out_dir)
    assert result.code == 1, result.err
    assert f"{SHOWN} (unpaired)" in _page_text(out_dir / "report.html")
    highlights_files = sorted(out_dir.glob("*/highlights.md"))
    assert len(highlights_files) == 2
    for highlights in highlights_files:
        (failed,) = [line for line in _page_text(highlights).splitlines() if "Failed" in line]
        assert SHOWN in failed
