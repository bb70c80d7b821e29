"""A result file given as something that is no regular file: a named pipe (FIFO) that
nothing writes to blocked ``nvbench_compare`` and ``nvbench-json-summary`` for good, in
``open``. Such an input (a FIFO, a socket, a device) is refused, unopened, in one line
naming it; a pipe the shell hands over (``/dev/stdin``, ``<(command)``, ``< fifo``) is still
read. So for a comparison config and a calibration; and the reads that follow a check that
a file is a regular one do not wait on a named pipe put in its place since.

Every command runs as a program with a time limit, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def test_the_gate_words_a_named_pipe_as_every_reader_does(fifo: Path) -> None:
    """``nvbench-history gate`` checks its runs before any reading, and said "not a file (an
    NVBench JSON result is expected)" of a named pipe that the other readers name."""
    archive = fifo.parent / "archive"  # refused before the archive is opened
    done = _run("cuda.bench.cli.history", "gate", "--archive", archive, "run.json", cwd=fifo.parent)
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


# ---------------------------------------------------------------------------------------------
# The other inputs: a comparison config, a calibration, and what the tools read again later.


@pytest.mark.parametrize("option", ["--config", "--calibration"])
def test_a_config_or_calibration_that_is_a_named_pipe_is_refused_without_waiting(
    option: str, fifo: Path, gpu_dir: Path
) -> None:
    """Held in ``open`` until the time limit before: read_small opened them blocking."""
    done = _run(
        _COMMANDS["nvbench_compare"],
        gpu_dir / "gpu_ref_nosidecar.json",
        gpu_dir / "gpu_cmp.json",
        option,
        "run.json",
        cwd=fifo.parent,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "'run.json': not a regular file but a named pipe (FIFO); not read" in lines[0]


def test_a_config_the_shell_hands_over_through_a_named_pipe_is_read(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """``--config /dev/stdin < fifo``: a pipe handed over, read as before."""
    with _opened_named_pipe(tmp_path / "fifo", b'version = 1\n[preset]\nname = "strict"\n') as end:
        done = _run(
            _COMMANDS["nvbench_compare"],
            gpu_dir / "gpu_ref_nosidecar.json",
            gpu_dir / "gpu_cmp.json",
            "--no-color",
            "--config",
            "/dev/stdin",
            stdin=end,
        )
    assert done.returncode in (0, 1), done.stderr
    assert "preset strict" in done.stdout


def test_a_named_pipe_in_a_folder_given_does_not_hold_the_output_check(
    gpu_dir: Path, tmp_path: Path
) -> None:
    """``nvbench_compare a b --json out.json`` where ``out.json`` exists and folder ``a``
    holds a named pipe ``z.json``: the check that no output is an input read every
    ``*.json`` of the folders for the side files it names, the pipe too, and waited in
    ``open`` for good."""
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        shutil.copyfile(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / side / "run.json")
    os.mkfifo(tmp_path / "a" / "z.json")
    (tmp_path / "out.json").write_text("{}")
    done = _run(
        _COMMANDS["nvbench_compare"], "a", "b", "--no-color", "--json", "out.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert '"schema": "nvbench-tools.compare"' in (tmp_path / "out.json").read_text()


#: What a file checked as a regular file, then read, finds when a named pipe took its place
#: in between: each read in a program of its own with a time limit.
_SWAPPED = {
    "archive": """
import os, sys
from pathlib import Path
from cuda.bench import _archive_marker
from cuda.bench.history.archive import ArchiveError, open_archive
marker = Path(sys.argv[1]).with_name("nvbench-archive.json")
os.mkfifo(marker)
os.path.isfile = lambda path: True  # the check passed; the pipe came after it
Path.is_file = lambda self: True
assert _archive_marker._is_marker(str(marker))  # unreadable: taken for one, to be safe
try:
    open_archive(marker.parent)
except ArchiveError as error:
    assert "unreadable archive marker" in str(error), error
else:
    raise AssertionError("read")
""",
    "identity": """
import os, sys, types
from pathlib import Path
from cuda.bench.results import _identity
fifo = sys.argv[1]
os.path.isfile = lambda path: True  # the check passed; the pipe came after it
Path.is_file = lambda self: True
assert _identity._file_digest(fifo) is None
assert _identity.written_together([Path(fifo), Path(fifo)]) == {}
stand_in = types.SimpleNamespace(path=fifo, document={"benchmarks": []})
assert len(_identity.measurement_digest(stand_in)) == 64  # the document's digest
""",
    "snapshot": """
import sys
from cuda.bench.results._errors import ResultFormatError
from cuda.bench.results._snapshot import FileIdentity, read_unchanged
try:
    read_unchanged(sys.argv[1], FileIdentity(0, 0, 10, 0), "run.json")
except ResultFormatError as error:
    assert "changed since it was read" in str(error), error
else:
    raise AssertionError("read")
""",
    "run_ids": """
import sys
from cuda.bench.history._run_ids import run_hashes
from cuda.bench.results import BenchmarkResult
result = BenchmarkResult(sys.argv[2])
fresh, old = run_hashes(sys.argv[1], result)  # the run read, then the pipe put in its place
assert len(fresh) == 64 and len(old) == 64
""",
}


@pytest.mark.parametrize("reader", sorted(_SWAPPED))
def test_a_named_pipe_swapped_in_after_the_check_does_not_hold_a_read(
    reader: str, fifo: Path, gpu_dir: Path
) -> None:
    """Each of these opened the file blocking after checking it was a regular file (or
    read as one): a named pipe put in its place since held the read in ``open`` for good."""
    done = subprocess.run(
        [sys.executable, "-c", _SWAPPED[reader], str(fifo), str(gpu_dir / "gpu_ref.json")],
        capture_output=True,
        text=True,
        check=False,
        timeout=_LIMIT,
    )
    assert done.returncode == 0, done.stderr


def test_a_pipe_that_is_no_json_or_too_long_is_refused_early(tmp_path: Path) -> None:
    """A result read from a pipe is refused at its first chunk when no JSON object starts
    there, and once it passes the limit (``results/_parse._read_bounded``, through the
    bounded read every small input shares)."""
    done = subprocess.run(
        [sys.executable, "-m", _COMMANDS["nvbench-json-summary"], "/dev/stdin"],
        input=b"  hello",
        capture_output=True,
        check=False,
        timeout=_LIMIT,
    )
    assert done.returncode == 2
    assert (
        done.stderr.decode()
        .strip()
        .endswith(
            "/dev/stdin: not an NVBench JSON file (it does not start with '{'); not read; an "
            "NVBench result is the JSON file a benchmark writes with --json PATH"
        )
    )
    from cuda.bench.results import ResultFormatError
    from cuda.bench.results._parse import _read_bounded

    read_end, write_end = os.pipe()
    os.write(write_end, b'{"benchmarks": []}' + b" " * 100)
    os.close(write_end)
    try:
        with pytest.raises(ResultFormatError, match="not a regular file, and longer than 64"):
            _read_bounded(Path(f"/dev/fd/{read_end}"), "piped.json", limit=64)
    finally:
        os.close(read_end)


@pytest.mark.parametrize("lazy", [True, False])
def test_a_regular_file_that_is_no_json_is_refused_before_it_is_read_whole(
    tmp_path: Path, lazy: bool
) -> None:
    """A sparse file of gigabytes of zeros (or any regular file whose first byte opens no
    JSON object) was read whole, twice on the comparison's path, before the decoder said
    'not valid JSON': 4 GB of memory and 30 s for one line. Its first chunk now decides,
    as a pipe's did: the file is refused having read no more than that chunk."""
    from cuda.bench.results import ResultFormatError
    from cuda.bench.results._parse import read_document

    sparse = tmp_path / "sparse.json"
    with sparse.open("wb") as handle:
        handle.truncate(1 << 30)  # a hole: no disk, and reading it whole costs 1 GiB
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ResultFormatError, match=r"does not start with '\{'"):
            read_document(sparse, lazy=lazy)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 24, peak


@pytest.mark.parametrize("first", [b"[", b"{", b"1"])
def test_a_result_file_larger_than_any_result_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first: bytes
) -> None:
    """A sparse file of gigabytes beginning like JSON (``[``, ``{``, a digit) passed the
    first-chunk check and was read whole: 3 GB of memory and 6-18 s for one line, on
    every path (two runs, several runs a side, --paired, whose same-run check digested it
    first). Larger than any result (MAX_STREAM_BYTES), it is refused unread."""
    from _cli_helpers import run_main
    from cuda.bench.cli.compare import main
    from cuda.bench.results._parse import MAX_STREAM_BYTES

    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.write(first)
        handle.truncate(MAX_STREAM_BYTES + 1)
    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    ref, cmp = examples / "ref.json", examples / "cmp.json"
    import tracemalloc

    for args in (
        (ref, big),
        ("--ref", ref, "--ref", cmp, "--cmp", big, "--cmp", cmp),
        ("--paired", "--ref", big, "--ref", ref, "--cmp", cmp, "--cmp", cmp),
    ):
        tracemalloc.start()
        try:
            result = run_main(main, capsys, *args)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.code == 2, result.err
        assert f"{big}: " in result.err and "MiB, more than the 1024 MiB" in result.err
        assert peak < 1 << 26, peak


def _sparse(path: Path, size: int, first: bytes = b"{") -> Path:
    with path.open("wb") as handle:
        handle.write(first)
        handle.truncate(size)
    return path


def _peak_memory(call: Any) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_folders_and_the_output_check_read_no_file_larger_than_any_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two sparse copies of 1 GiB and more in a folder were hashed whole by the check for
    copies (20 s, 1.15 GB), and the check that no output replaces an input read every JSON
    file of the inputs whole where an output existed already (1.4 GB)."""
    from _cli_helpers import run_main
    from cuda.bench.cli.compare import main
    from cuda.bench.cli.walltime import main as walltime
    from cuda.bench.results._parse import MAX_STREAM_BYTES

    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("a.json", "b.json"):
        _sparse(folder / name, MAX_STREAM_BYTES + 1)
    result: list[Any] = []
    peak = _peak_memory(lambda: result.append(run_main(walltime, capsys, folder)))
    assert result[0].code == 2 and peak < 1 << 26, (result[0].err, peak)
    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    big = _sparse(tmp_path / "big.json", MAX_STREAM_BYTES + 1)
    existing = tmp_path / "out.json"
    existing.write_text("{}")
    result.clear()
    args = (examples / "ref.json", big, "--json", existing)
    peak = _peak_memory(lambda: result.append(run_main(main, capsys, *args)))
    assert result[0].code == 2 and peak < 1 << 26, (result[0].err, peak)


def test_a_small_input_that_is_a_large_regular_file_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config`` (and ``--calibration``, a --paired manifest) was read whole when a
    regular file, whatever its size: a sparse 1.5 GB config cost 3 GB and 13 s. Only a
    pipe had the 16 MiB limit."""
    from _cli_helpers import run_main
    from cuda.bench._read_small import MAX_SMALL_BYTES
    from cuda.bench.cli.compare import main

    examples = Path(__file__).resolve().parents[2] / "examples" / "data"
    config = _sparse(tmp_path / "c.toml", MAX_SMALL_BYTES + 1, b"#")
    result: list[Any] = []
    args = (examples / "ref.json", examples / "cmp.json", "--config", config)
    peak = _peak_memory(lambda: result.append(run_main(main, capsys, *args)))
    assert result[0].code == 2 and peak < 1 << 24, (result[0].err, peak)
    assert "MiB, more than the 16 MiB such an input may hold" in result[0].err


def test_a_small_file_is_read_without_room_made_for_the_cap(tmp_path: Path) -> None:
    """Reading up to the cap in one call (``read(cap + 1)``) made room for the whole cap
    first: every result file read took 1 GiB for a moment (a gate report under load
    failed). The file's own size is what is read, then what it grew by, in pieces."""
    from cuda.bench._read_small import read_small

    small = tmp_path / "small.json"
    small.write_bytes(b'{"benchmarks": []}' + b" " * 1000)
    found: list[bytes] = []
    peak = _peak_memory(lambda: found.append(read_small(small, 1 << 20, regular_limit=1 << 30)))
    assert found == [small.read_bytes()]
    assert peak < 1 << 22, peak  # a piece of the growth read at most, not the cap
