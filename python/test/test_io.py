"""Atomic output files."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from cuda.bench._io import atomic_path, check_destination, write_bytes, write_text


def test_written_files_get_umask_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        write_text(tmp_path / "report.md", "hello\n")
    finally:
        os.umask(previous)
    mode = stat.S_IMODE((tmp_path / "report.md").stat().st_mode)
    assert mode == 0o644


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_writing_never_touches_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int
) -> None:
    """The umask is process-wide: a library call must not set it, even to read it (another
    thread creating a file meanwhile would get the wrong permissions)."""
    previous = os.umask(umask)
    try:

        def no_umask(mask: int) -> int:
            raise AssertionError(f"os.umask({mask:#o}) called while writing")

        monkeypatch.setattr(os, "umask", no_umask)
        write_text(tmp_path / "report.md", "hello\n")
        with atomic_path(tmp_path / "report.json") as temporary:
            temporary.write_text("{}")
        monkeypatch.undo()
    finally:
        os.umask(previous)
    for name in ("report.md", "report.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "report.md"]


def test_a_replacement_stays_private_until_it_is_complete(tmp_path: Path) -> None:
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    previous = os.umask(0o022)
    try:
        with atomic_path(target) as temporary:
            # Written beside a private file, the new content is not readable by others.
            assert stat.S_IMODE(temporary.stat().st_mode) == 0o600
            temporary.write_text("new")
    finally:
        os.umask(previous)
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_failure_leaves_no_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("render failed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_dash_writes_to_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write_text("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert list(tmp_path.iterdir()) == []


def test_overwriting_keeps_the_existing_mode(tmp_path: Path) -> None:
    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_link_is_written_through_to_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert target.read_text() == "new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "created.json")
    write_text(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "created.json").read_text() == "made"


def _read_fifo(fifo: Path, received: list[bytes]) -> threading.Thread:
    # A daemon: if the write never reaches the FIFO (replaced by a file, say), the reader
    # stays blocked in open(); the assertion then fails instead of the suite never exiting.
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    return reader


@pytest.mark.parametrize("via_link", [False, True])
def test_a_fifo_is_written_in_place(tmp_path: Path, via_link: bool) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    path = fifo
    if via_link:  # what /dev/stdout is: a link to the descriptor's file
        path = tmp_path / "stdout"
        path.symlink_to(fifo)
    received: list[bytes] = []
    reader = _read_fifo(fifo, received)
    write_text(path, "through the pipe\n")
    reader.join(timeout=10)
    assert received == [b"through the pipe\n"]
    assert fifo.is_fifo() and (path.is_symlink() or not via_link)
    received.clear()
    reader = _read_fifo(fifo, received)
    with atomic_path(path, suffix=".png") as temporary:  # what save_figure does
        assert temporary.parent != tmp_path
        temporary.write_bytes(b"image")
    reader.join(timeout=10)
    assert received == [b"image"] and fifo.is_fifo()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"fifo", path.name})


def test_descriptor_paths_are_written_directly() -> None:
    for path in ("/dev/stdout", "/dev/stderr", "/dev/fd/63", "/proc/self/fd/1"):
        assert check_destination(path).direct, path
    assert not check_destination("/tmp/report.json").direct


def test_a_missing_directory_is_an_error_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_text(tmp_path / "missing" / "report.md", "text")
    with pytest.raises(FileNotFoundError), atomic_path(tmp_path / "missing" / "plot.png"):
        pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_failed_write_into_a_device_names_it() -> None:
    # "error: No space left on device" said nothing of which output failed.
    with pytest.raises(OSError) as failed:
        write_bytes("/dev/full", b"x" * 100_000)
    assert failed.value.filename == "/dev/full"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux's /proc")
def test_a_directory_no_one_may_write_names_the_output_not_the_temporary() -> None:
    # "/proc/.report.md.f0821097.tmp: No such file or directory" named a file the user
    # never gave, which was never created.
    with pytest.raises(OSError) as failed:
        write_text("/proc/report.md", "text")
    assert failed.value.filename == "/proc/report.md"
    with pytest.raises(OSError) as failed, atomic_path("/proc/plot.png", ".png"):
        pass
    assert failed.value.filename == "/proc/plot.png"


def test_a_write_that_fails_names_the_output_not_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    with pytest.raises(OSError) as failed, atomic_path(target) as temporary:
        raise OSError(28, "No space left on device", os.fspath(temporary))
    assert failed.value.filename == os.fspath(target)
    assert list(tmp_path.iterdir()) == []
