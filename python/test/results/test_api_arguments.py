"""Arguments of the wrong kind given to the reader's public entry points are refused with a
TypeError naming the parameter, never taken for something else: an int path is no file
descriptor to read (and close under its owner), bytes no path kept in str fields."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.results import (
    BenchmarkResult,
    FileOutline,
    ReadMode,
    ResultFormatError,
    SubBenchmarkResult,
)


@pytest.fixture
def descriptor(gpu_dir: Path) -> Iterator[int]:
    """A file descriptor of the test's own, open on a real result file."""
    fd = os.open(gpu_dir / "gpu_ref.json", os.O_RDONLY)
    yield fd
    os.close(fd)  # raises EBADF where a reader closed it


def _path_readers(gpu_dir: Path) -> dict[str, Callable[[Any], object]]:
    """Every public call that takes the path of a result file, by name."""
    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    bench = json.loads((gpu_dir / "gpu_ref.json").read_text())["benchmarks"][0]
    readers: dict[str, Callable[[Any], object]] = {
        "FileOutline.read": FileOutline.read,
        "from_json": BenchmarkResult.from_json,
        "from_document": lambda path: BenchmarkResult.from_document(result.document, path),
        "SubBenchmarkResult": lambda path: SubBenchmarkResult(bench, path),
        "write": lambda path: result.write(path),
    }
    for mode in ReadMode:
        readers[mode.name] = lambda path, m=mode: BenchmarkResult(path, mode=m)
    return readers


def test_a_file_descriptor_is_refused_and_left_open(gpu_dir: Path, descriptor: int) -> None:
    # FileOutline.read(fd) and the slim and benchmark-by-benchmark readers opened it with
    # open(), which closes the descriptor it is given: the caller's file, stdout for True.
    for name, reader in _path_readers(gpu_dir).items():
        with pytest.raises(TypeError, match=r"must be a str or os\.PathLike, got int") as error:
            reader(descriptor)
        assert "file descriptor" in str(error.value), name
        os.fstat(descriptor)  # still open


def test_true_as_a_path_leaves_stdout_open(gpu_dir: Path) -> None:
    # True is the int 1: standard output, closed by the reader (in a process of its own).
    program = (
        "import os\n"
        "from cuda.bench.results import BenchmarkResult, FileOutline, ReadMode\n"
        "for read in (FileOutline.read, lambda p: BenchmarkResult(p, mode=ReadMode.SLIM)):\n"
        "    try:\n"
        "        read(True)\n"
        "    except TypeError as error:\n"
        "        print(error, flush=True)\n"
        "os.fstat(1)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("path must be a str or os.PathLike, got bool True") == 2


def test_bytes_paths_are_refused(gpu_dir: Path) -> None:
    # FileOutline.read kept bytes in its str fields (from_outline then refused the outline).
    path = os.fsencode(gpu_dir / "gpu_ref.json")
    for reader in _path_readers(gpu_dir).values():
        with pytest.raises(TypeError, match=r"must be a str or os\.PathLike, got bytes .*fsdecode"):
            reader(path)


def test_a_path_like_giving_bytes_is_refused(gpu_dir: Path) -> None:
    class BytesPath:
        def __fspath__(self) -> bytes:
            return os.fsencode(gpu_dir / "gpu_ref.json")

    os.PathLike.register(BytesPath)
    with pytest.raises(TypeError, match=r"path must be a str or os\.PathLike.*bytes"):
        FileOutline.read(BytesPath())  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 1.5, ["a.json"]], ids=["None", "float", "list"])
def test_other_values_are_refused_naming_the_parameter(gpu_dir: Path, value: object) -> None:
    with pytest.raises(TypeError, match=r"^path must be a str or os\.PathLike"):
        FileOutline.read(value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^json_path must be a str or os\.PathLike"):
        BenchmarkResult.from_json(value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^json_dir must be a str or os\.PathLike"):
        SubBenchmarkResult({"name": "b", "states": []}, value)  # type: ignore[arg-type]


def test_an_empty_path_is_said_to_be_empty(gpu_dir: Path) -> None:
    # It said "'.': is a directory" (the current directory, looked up as "").
    document = BenchmarkResult(gpu_dir / "gpu_ref.json").document
    for reader in (
        BenchmarkResult,
        BenchmarkResult.from_json,
        FileOutline.read,
        lambda path: BenchmarkResult.from_document(document, path),
    ):
        with pytest.raises(ResultFormatError, match="path is empty"):
            reader("")
