"""A result file given as something that is no regular file: a named pipe (FIFO) that
nothing writes to blocked ``nvbench_compare`` and ``nvbench-json-summary`` for good, in
``open``. Such an input (a FIFO, a socket, a device) is refused, unopened, in one line
naming it; a pipe the shell hands over (``/dev/stdin``, ``<(command)``) is still read.

Every command runs as a program with a time limit, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

_LIMIT = 60
_COMMANDS = {
    "nvbench_compare": "cuda.bench.cli.compare",
    "nvbench-json-summary": "cuda.bench.cli.json_summary",
    "nvbench-walltime": "cuda.bench.cli.walltime",
}


def _run(
    module: str, *args: str | Path, cwd: Path | None = None, **options: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=_LIMIT,
        cwd=cwd,
        **options,  # type: ignore[arg-type]
    )


def _arguments(tool: str, given: str, gpu_dir: Path) -> list[str]:
    if tool == "nvbench_compare":
        return [given, str(gpu_dir / "gpu_cmp.json"), "--no-color"]
    return [given]


def _assert_refused(done: subprocess.CompletedProcess[str], given: str, what: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{given}: not a regular file but {what}; not read" in lines[0], lines[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A named pipe that nothing writes to: a read of it waits for good."""
    path = tmp_path / "run.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("tool", sorted(_COMMANDS))
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(
    tool: str, fifo: Path, gpu_dir: Path
) -> None:
    """Blocked in ``open`` until the time limit before (nothing writes to the FIFO)."""
    done = _run(_COMMANDS[tool], *_arguments(tool, "run.json", gpu_dir), cwd=fifo.parent)
    _assert_refused(done, "run.json", "a named pipe (FIFO)")


@pytest.mark.parametrize("tool", ["nvbench_compare", "nvbench-json-summary"])
def test_a_socket_is_refused_as_no_regular_file(tool: str, tmp_path: Path, gpu_dir: Path) -> None:
    """Read as "cannot read file: No such device or address" before."""
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "run.json"))
        done = _run(_COMMANDS[tool], *_arguments(tool, "run.json", gpu_dir), cwd=tmp_path)
    finally:
        server.close()
    _assert_refused(done, "run.json", "a socket")


@pytest.mark.parametrize("tool", ["nvbench_compare", "nvbench-json-summary"])
def test_a_device_is_refused_as_no_regular_file(tool: str, gpu_dir: Path) -> None:
    """``/dev/null`` read as an empty result file before (NVBench's crashed run)."""
    done = _run(_COMMANDS[tool], *_arguments(tool, os.devnull, gpu_dir))
    _assert_refused(done, os.devnull, "a character device")


def test_a_pipe_from_the_shell_is_still_read(gpu_dir: Path) -> None:
    """``cat run.json | nvbench-json-summary /dev/stdin`` and ``<(cat run.json)``: pipes
    that a writer holds already, read as docs/security.md says (up to 1 GiB)."""
    data = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    from_stdin = subprocess.run(
        [sys.executable, "-m", _COMMANDS["nvbench-json-summary"], "/dev/stdin"],
        input=data,
        capture_output=True,
        check=False,
        timeout=_LIMIT,
    )
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert b"# Benchmark Results" in from_stdin.stdout
    read_end, write_end = os.pipe()
    try:
        writer = subprocess.Popen(
            ["cat", str(gpu_dir / "gpu_ref_nosidecar.json")], stdout=write_end
        )
        os.close(write_end)
        done = _run(
            _COMMANDS["nvbench_compare"],
            f"/dev/fd/{read_end}",
            gpu_dir / "gpu_cmp.json",
            "--no-color",
            pass_fds=(read_end,),
        )
        writer.wait(timeout=_LIMIT)
    finally:
        os.close(read_end)
    assert done.returncode == 0, done.stderr
    assert "copy_bench" in done.stdout


@contextlib.contextmanager
def _opened_named_pipe(fifo: Path, data: bytes) -> Iterator[int]:
    """The read end of the named pipe ``fifo``, opened as a shell's ``< fifo`` opens it, a
    writer already holding the other end and writing ``data`` (then closing it)."""
    os.mkfifo(fifo)
    read_end = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # no writer yet: do not wait
    write_end = os.open(fifo, os.O_WRONLY)  # a reader exists: returns at once
    os.set_blocking(read_end, True)

    def feed() -> None:
        try:
            with open(write_end, "wb") as pipe:
                pipe.write(data)
        except BrokenPipeError:  # the command refused the pipe, and the test closed it
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield read_end
    finally:
        os.close(read_end)
        writer.join(timeout=_LIMIT)


@pytest.mark.parametrize("given", ["/dev/stdin", "/dev/fd/N"])
def test_a_named_pipe_the_shell_opened_is_read(given: str, gpu_dir: Path, tmp_path: Path) -> None:
    """``nvbench-json-summary /dev/stdin < fifo`` (or ``/dev/fd/N`` of it): the shell opened
    the named pipe, and its writer holds it, so it cannot block. Refused as 'a named pipe'
    after 0218fe6: the links of ``/dev/stdin`` lead on to the pipe's name in its folder."""
    data = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    with _opened_named_pipe(tmp_path / "fifo", data) as read_end:
        if given == "/dev/stdin":
            done = _run(_COMMANDS["nvbench-json-summary"], given, stdin=read_end)
        else:
            path = f"/dev/fd/{read_end}"
            done = _run(_COMMANDS["nvbench-json-summary"], path, pass_fds=(read_end,))
    assert done.returncode == 0, done.stderr
    assert "# Benchmark Results" in done.stdout
