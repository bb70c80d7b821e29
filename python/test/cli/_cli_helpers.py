"""What the command-line tests share: running a CLI in process or as a program."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest


class Result:
    """Exit status and captured output of one in-process run."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> Any:
        return json.loads(self.out)


def run_main(
    main: Callable[[Sequence[str] | None], int],
    capsys: pytest.CaptureFixture[str],
    *args: str | Path,
) -> Result:
    """``main`` in process; argparse's SystemExit becomes the exit status."""
    try:
        code = main([str(arg) for arg in args])
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return Result(code, out, err)


def assert_usage_error(result: Result, *needles: str) -> None:
    """Exit status 2, nothing on stdout, one ``error:`` line on stderr holding ``needles``."""
    assert result.code == 2, (result.out, result.err)
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err
    assert "error:" in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


def assert_no_controls(text: str) -> None:
    """Nothing in ``text`` a terminal obeys: no control character but the line feed."""
    bad = sorted({f"{ord(c):#x}" for c in text if not c.isprintable() and c != "\n"})
    assert not bad, bad


#: The word joiners markdown writers put after ``@`` and ``#``, inside ``://``, after
#: ``www`` before ``.`` and after ``GH-`` before a digit, so that GitHub makes no mention,
#: reference or link of a name (:func:`cuda.bench._untrusted.markdown_inline`).
_REFERENCE_JOINER = re.compile(
    r"(?<=[@#])\u2060|(?<=:)\u2060(?=//)|(?<=(?i:www))\u2060(?=\.)|(?<=(?i:gh)-)\u2060(?=\d)"
)


def without_reference_joiners(markdown: str) -> str:
    """``markdown`` without the word joiners its writer put where GitHub would make a
    mention, reference or link; any other word joiner (a name's, written raw) stays."""
    return _REFERENCE_JOINER.sub("", markdown)


def assert_no_markdown_controls(markdown: str) -> None:
    """:func:`assert_no_controls` for markdown: the writer's own word joiners allowed."""
    assert_no_controls(without_reference_joiners(markdown))


def assert_drawn_as_text(result: Result, image: Path) -> None:
    """``image`` written, and nothing a terminal obeys on stderr: names in labels and
    titles drawn as their escapes, so matplotlib warns of no glyph a font lacks."""
    assert image.stat().st_size > 0
    assert_no_controls(result.err)
    assert "Glyph" not in result.err


def console_command(script: str, module: str) -> list[str]:
    """The installed console script, else ``python -m module`` (the same code path)."""
    found = shutil.which(script) or shutil.which(script, path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", module]


def run_command(command: Sequence[str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``command`` with ``args`` as a separate program, output captured as UTF-8 text."""
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
