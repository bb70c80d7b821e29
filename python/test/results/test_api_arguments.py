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


def test_from_outline_and_from_document_name_what_they_take() -> None:
    # Both raised AttributeError ('NoneType' object has no attribute 'path' / 'devices').
    for value in (None, "run.json", {"benchmarks": []}):
        with pytest.raises(TypeError, match=r"^outline must be a FileOutline .*got "):
            BenchmarkResult.from_outline(value)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"^document must be a cuda\.bench\.results\.Document"):
            BenchmarkResult.from_document(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", list(ReadMode), ids=lambda mode: mode.value)
def test_a_bool_is_no_state_index(gpu_dir: Path, mode: ReadMode) -> None:
    # bench[True] and bench.state_at(True) were the state at 1.
    bench = BenchmarkResult(gpu_dir / "gpu_ref.json", mode=mode)["copy_bench"]
    for flag in (True, False):
        with pytest.raises(TypeError, match=r"^index must be an int, got a bool"):
            bench[flag]
        with pytest.raises(TypeError, match=r"^position must be an int, got a bool"):
            bench.state_at(flag)
    with pytest.raises(TypeError, match=r"^index must be an int, got str"):
        bench["0"]  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"^position must be an int, got float"):
        bench.state_at(1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", [ReadMode.LAZY, ReadMode.BY_BENCHMARK], ids=["lazy", "by"])
def test_int_indices_still_count_from_either_end(gpu_dir: Path, mode: ReadMode) -> None:
    import numpy as np

    path = gpu_dir / "gpu_ref.json"
    names = [state.state_name for state in BenchmarkResult(path)["copy_bench"]]
    bench = BenchmarkResult(path, mode=mode)["copy_bench"]
    # A negative position before the states are decoded counts from the end too (it was
    # kept as a pending position -1, then said the file had changed).
    assert bench.state_at(-1).state_name == names[-1]
    assert bench.state_at(np.int64(1)).state_name == names[1]
    assert bench[np.int64(-2)].state_name == names[-2]
    assert [state.state_name for state in bench[1:3]] == names[1:3]


@pytest.mark.parametrize("tag", [None, 3, b"nv/cold/time/gpu/mean"], ids=["None", "int", "bytes"])
def test_a_tag_that_is_no_str_is_refused(gpu_dir: Path, tag: Any) -> None:
    # summary_values gave an array of NaN, state.value None: a tag found in no state.
    bench = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    state = bench[0]
    calls: list[Callable[[], object]] = [
        lambda: bench.summary_values(tag),
        lambda: state.value(tag),
        lambda: state.float_value(tag),
        lambda: state.get_value(tag, 0.0),
        lambda: state.summary(tag),
        lambda: state.has_summary(tag),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=r"^tag must be a str"):
            call()
    with pytest.raises(TypeError, match=r"^each of tags must be a str"):
        state.get_values(["nv/cold/time/gpu/mean", tag])
    with pytest.raises(TypeError, match=r"^key must be a str"):
        state.value("nv/cold/time/gpu/mean", tag)
    # Tags a state lacks are still found absent.
    assert state.value("no/such/tag") is None and not state.has_summary("no/such/tag")
    assert state.get_values(["no/such/tag"], 7) == [7]
