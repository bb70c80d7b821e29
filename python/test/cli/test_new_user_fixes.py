"""What a new user ran into on a fresh clone (review after #25-#30), each fixed and pinned:
inputs besides the result files that never end, and error lines that read as Python."""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main
from cuda.bench._read_small import MAX_SMALL_BYTES, read_small
from cuda.bench.cli.compare import main

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
REF, CMP = DATA / "ref.json", DATA / "cmp.json"


class _Feeder:
    """A pipe that a thread fills with ``size`` blank bytes, as ``/dev/zero`` would without
    end: a named one at ``path`` (a FIFO), or, without ``path``, one handed over as the
    shell's ``<(...)`` hands it (``/dev/fd/N`` of an unnamed pipe); the test stops it if the
    command never opens it."""

    def __init__(self, path: Path | None, size: int) -> None:
        self.read_end: int | None = None
        target: Path | int
        if path is None:
            self.read_end, target = os.pipe()
            path = Path(f"/dev/fd/{self.read_end}")
        else:
            os.mkfifo(path)
            target = path
        self.path = path
        self.thread = threading.Thread(target=self._feed, args=(target, size), daemon=True)
        self.thread.start()

    def _feed(self, target: Path | int, size: int) -> None:
        block = b" " * (1 << 20)
        try:
            with open(target, "wb") as pipe:
                while size > 0:
                    pipe.write(block[: min(size, len(block))])
                    size -= len(block)
        except BrokenPipeError:  # the reader stopped early: what a bounded read does
            pass

    def stop(self) -> None:
        if self.read_end is not None:
            os.close(self.read_end)  # the last reader gone: the writer's next write fails
        elif self.thread.is_alive():  # never opened: open the other end so the writer ends
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                self.thread.join(timeout=0.5)
                while self.thread.is_alive() and os.read(fd, 1 << 20):
                    pass
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
        self.thread.join(timeout=10)


@pytest.fixture
def endless() -> Iterator[Path]:
    feeder = _Feeder(None, MAX_SMALL_BYTES + (2 << 20))
    try:
        yield feeder.path
    finally:
        feeder.stop()


@pytest.mark.parametrize("option", ["--calibration", "--config"])
def test_a_side_input_that_is_not_a_regular_file_is_read_only_up_to_a_limit(
    capsys: pytest.CaptureFixture[str], endless: Path, option: str
) -> None:
    """``--calibration /dev/zero`` and ``--config /dev/zero`` read without end (the memory
    fills); a pipe handed over (``<(...)``) longer than the limit stands in for them, as a
    device is now refused unopened (test_input_kinds.py)."""
    result = run_main(main, capsys, REF, CMP, option, endless)
    assert_usage_error(result, str(endless), "not a regular file")


def test_an_ab_manifest_that_is_not_a_regular_file_is_not_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Read without end before #29, then up to a limit; a named pipe is now refused
    unopened (it may have no writer at all)."""
    feeder = _Feeder(tmp_path / "manifest.json", MAX_SMALL_BYTES + (2 << 20))
    try:
        result = run_main(main, capsys, "--paired", tmp_path)
    finally:
        feeder.stop()
    assert_usage_error(result, "manifest.json", "not a regular file")


def test_read_small_reads_a_short_stream_whole_and_refuses_a_long_one() -> None:
    short = _Feeder(None, 1000)
    try:
        assert read_small(short.path, limit=4096) == b" " * 1000
    finally:
        short.stop()
    long = _Feeder(None, 3 << 20)
    try:
        with pytest.raises(OSError) as raised:
            read_small(long.path, limit=1 << 20)
    finally:
        long.stop()
    assert raised.value.errno == errno.EFBIG


def test_a_result_file_given_as_calibration_says_what_a_calibration_file_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It said ``not a calibration file (schema None)``: Python's None, not the file's."""
    result = run_main(main, capsys, REF, CMP, "--calibration", REF)
    assert_usage_error(result, str(REF), "no 'schema' field", "nvbench_compare calibrate")
    assert "None" not in result.err


def test_markdown_given_as_calibration_says_it_is_not_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# copy\n\n| T | Elements |\n", encoding="utf-8")
    result = run_main(main, capsys, REF, CMP, "--calibration", notes)
    assert_usage_error(result, str(notes), "not a calibration file (not valid JSON")


@pytest.fixture
def archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli import history as history_cli

    folder = tmp_path / "archive"
    done = run_main(history_cli.main, capsys, "ingest", "--archive", folder, "--commit", "c0", REF)
    assert done.code == 0, done.err
    return folder


def test_report_html_naming_a_file_says_the_site_is_a_folder(
    tmp_path: Path, archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said ``notes.md: File exists`` (mkdir's words), which does not say what is wrong."""
    from cuda.bench.cli import history as history_cli

    target = tmp_path / "notes.md"
    target.write_text("keep me", encoding="utf-8")
    result = run_main(history_cli.main, capsys, "report", "--archive", archive, "--html", target)
    assert_usage_error(result, "notes.md", "is not a directory")
    assert target.read_text(encoding="utf-8") == "keep me"


def test_report_html_in_a_missing_folder_names_the_missing_folder(
    tmp_path: Path, archive: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said ``no/site: No such file or directory`` of the site, which is to be created."""
    from cuda.bench.cli import history as history_cli

    site = tmp_path / "no" / "site"
    result = run_main(history_cli.main, capsys, "report", "--archive", archive, "--html", site)
    assert_usage_error(result, f"directory '{tmp_path / 'no'}' does not exist")
    assert not (tmp_path / "no").exists()


def test_ab_out_naming_a_file_says_it_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty file as ``--out`` was said to 'exist and not be empty; use --resume'."""
    import sys

    target = tmp_path / "notes.md"
    target.write_text("", encoding="utf-8")
    command = f"{sys.executable} -c pass"
    result = run_main(main, capsys, "ab", "--out", target, command, command)
    assert_usage_error(result, "notes.md", "is a file, not a directory")
    assert target.read_text(encoding="utf-8") == ""


def test_calibrate_refuses_runs_that_share_no_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two runs of different benchmarks used to write a calibration of no state (exit 0, a
    # warning about degrees of freedom), which a comparison then took as calibrated.
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    history = generate(HistoryNoise("iid"), series=2, runs=2, seed=1)
    other = write_history(tmp_path / "other", history, SyntheticConfig(benchmarks=1, states=2))[0]
    output = tmp_path / "cal.json"
    result = run_main(main, capsys, "calibrate", REF, other, "-o", output)
    # Named since 2026-11-30 by the run that shares nothing (before: "nothing to calibrate").
    assert_usage_error(result, f"{other}: holds none of the compared states of {REF}")
    assert not output.exists()
    # Runs of one benchmark still calibrate.
    assert run_main(main, capsys, "calibrate", REF, CMP, "-o", output).code == 0
    assert output.exists()


def test_a_full_disk_on_standard_output_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nvbench_compare ... > /dev/full` said only "error: No space left on device"."""
    import sys

    monkeypatch.setattr(sys, "stdout", _FullDisk())
    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    code = main([str(examples / "ref.json"), str(examples / "cmp.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().endswith("error: standard output: No space left on device")


class _FullDisk:
    """A stdout whose writes fail as a full disk's do (no file name on the error)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("tool", ["json_summary", "walltime"])
def test_a_full_disk_on_standard_output_is_named_by_every_tool(
    tool: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tools that print (rather than write) said only "error: No space left on
    device" with stdout on a full disk (`nvbench-json-summary x.json > /dev/full`)."""
    import importlib
    import sys

    module = importlib.import_module(f"cuda.bench.cli.{tool}")
    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    code = module.main([str(examples / "ref.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].endswith("error: standard output: No space left on device"), err
    assert isinstance(sys.stdout, _FullDisk), "the stand-in was left on sys.stdout"


class _ClosedStderr:
    """A stderr that cannot be written (``2>/dev/full``, a closed pipe)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (("missing.json", "other.json"), 2),  # an error to tell
        (("ref.json", "cmp.json", "--fail-on", "slow"), 1),  # a failure line to tell
        (("ref.json", "cmp.json", "--markdown", "-"), 0),
    ],
)
def test_an_unwritable_stderr_leaves_the_exit_status_as_it_is(
    arguments: tuple[str, ...], expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With stderr on a full disk every tool exited 1 on bad input (the OSError of printing
    the error escaped), which CI reads as a regression found."""
    import sys

    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    monkeypatch.chdir(examples)
    monkeypatch.setattr(sys, "stderr", _ClosedStderr())
    monkeypatch.setattr(sys, "stdout", open(os.devnull, "w"))  # noqa: SIM115
    try:
        assert main(list(arguments)) == expected
    finally:
        sys.stdout.close()


@pytest.mark.parametrize(
    ("options", "listed"),
    [
        (("--reference-devices", "0", "--compare-devices", "1"), "(its devices: 0)"),
        (("-a", "T=F16"), "(values of T: F32, F64, I32, I64)"),
        (("-b", "scan", "-a", "T=F16"), "(values of T: I32, I64)"),
        (("-a", "Elements=2^10"), "(values of Elements: 2^16, 2^20, 2^24)"),
        (("-a", "Size=1"), "(axes: T, Elements)"),
    ],
)
def test_a_device_or_axis_value_that_is_not_there_lists_those_that_are(
    options: tuple[str, ...], listed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # '--compare-devices 1' and '-a T=F16' named only what was missing, where -b names the
    # benchmarks there are.
    result = run_main(main, capsys, REF, CMP, *options)
    assert_usage_error(result, listed)


@pytest.mark.parametrize("given", ["2%", " 2 %"])
def test_a_tolerance_with_a_percent_sign_is_that_percentage(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--tolerance 2%`` said "expected a percentage, got '2%'" (the history gate and
    ``baseline check --max-rsd 3%`` took the sign); the same as ``--tolerance 2`` now."""
    plain = run_main(main, capsys, REF, CMP, "--json", "-", "--tolerance", "2")
    signed = run_main(main, capsys, REF, CMP, "--json", "-", "--tolerance", given)
    assert signed.code == plain.code, signed.err
    assert signed.json()["rows"] == plain.json()["rows"]
    hidden = run_main(main, capsys, REF, CMP, "--threshold-diff", "2")
    assert run_main(main, capsys, REF, CMP, "--threshold-diff", given).out == hidden.out
    result = run_main(main, capsys, REF, CMP, "--tolerance", "2%%")
    assert_usage_error(result, "argument --tolerance: expected a percentage, got '2%%'")
