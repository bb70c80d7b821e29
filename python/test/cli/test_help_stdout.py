"""``--help`` of every command with standard output unwritable (``--help > /dev/full``)."""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys

import pytest


class _FullDisk:
    """A stdout whose writes fail as a full disk's do (no file name on the error)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FullOnFlush(io.StringIO):
    """A stdout that takes writes into its buffer and fails when flushed (a full disk
    under a buffered stream)."""

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _status(tool: str, argv: list[str]) -> int | str | None:
    module = importlib.import_module(f"cuda.bench.cli.{tool}")
    try:
        return int(module.main(argv))
    except SystemExit as done:
        return done.code


@pytest.mark.parametrize("stdout", [_FullDisk, _FullOnFlush])
@pytest.mark.parametrize(
    ("tool", "argv"),
    [
        ("history", ["--help"]),
        ("history", ["trend", "--help"]),
        ("compare", ["--help"]),
        ("json_summary", ["--help"]),
        ("histogram", ["--help"]),
        ("walltime", ["--help"]),
    ],
)
def test_help_that_cannot_be_written_is_an_error(
    tool: str,
    argv: list[str],
    stdout: type[object],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``nvbench-history --help > /dev/full`` exited 0 without a word: argparse drops the
    write errors of its help, and the help ends the run before the final flush."""
    monkeypatch.setattr(sys, "stdout", stdout())
    code = _status(tool, argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1, err
    assert err[0].endswith("error: standard output: No space left on device"), err


def test_help_still_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _status("history", ["--help"]) == 0
    assert "nvbench-history" in capsys.readouterr().out


@pytest.mark.parametrize("stdout", [_FullDisk, _FullOnFlush])
@pytest.mark.parametrize("tool", ["compare_robust", "compare_legacy"])
def test_the_compatible_commands_help_that_cannot_be_written_is_an_error(
    tool: str,
    stdout: type[object],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """NVIDIA's command names print their help outside the shared wrapper: ``--help >
    /dev/full`` still exited 0. An error there is NVIDIA's error status, 1."""
    monkeypatch.setattr(sys, "stdout", stdout())
    code = _status(tool, ["--help"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1, err
    assert err[0].endswith("error: standard output: No space left on device"), err


def test_the_compatible_commands_help_still_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert _status("compare_robust", ["--help"]) == 0
    assert "compatible with NVIDIA's" in " ".join(capsys.readouterr().out.split())
