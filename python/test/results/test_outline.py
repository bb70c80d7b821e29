"""A file's first pass made apart (FileOutline): a value that pickles, from which
BenchmarkResult.from_outline makes the result a benchmark-by-benchmark read gives, checked
where it is used, and never serving a file other than the one outlined."""

from __future__ import annotations

import json
import os
import pickle
import warnings
from pathlib import Path

import msgspec
import pytest
from _reader_helpers import REAL_FILES, contents
from conftest import real_path
from cuda.bench.compare.workers import can_fork, fork_map
from cuda.bench.results import (
    BenchmarkResult,
    FileOutline,
    NVBenchFormatWarning,
    ReadMode,
    ResultFormatError,
)
from cuda.bench.results._stages import Stage
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

TAG = "nv/cold/time/gpu/mean"


def _stages(result: BenchmarkResult) -> list[Stage]:
    return [bench._stages.stage for bench in result.benchmarks]


def _values(result: BenchmarkResult) -> list[object]:
    return [state.get_value(TAG) for state in result.states()]


@pytest.fixture(scope="module")
def three_benchmarks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outline")
    pair = write_pair(root, SyntheticConfig(benchmarks=3, states=4, samples=30), seed=7)
    return pair.ref[0]


@pytest.fixture
def copy(three_benchmarks: Path, tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    return path


@pytest.mark.parametrize("relative", REAL_FILES)
def test_the_result_of_an_outline_is_the_benchmark_by_benchmark_read(
    relative: str,
) -> None:
    path = real_path(relative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        outline = FileOutline.read(path)
        assert outline is not None
        read = BenchmarkResult.from_outline(pickle.loads(pickle.dumps(outline)))
        usual = BenchmarkResult(path, lazy=False)
    # Left in the file as a benchmark-by-benchmark read leaves them (a file of one
    # benchmark is read whole then).
    by_benchmark = BenchmarkResult(path, mode=ReadMode.BY_BENCHMARK)
    assert _stages(read) == _stages(by_benchmark)
    assert read.label == os.fspath(path) and read.path == path.absolute()
    assert read.devices == usual.devices and read.meta == usual.meta
    assert [b.axes for b in read.benchmarks] == [b.axes for b in usual.benchmarks]
    assert contents(read) == contents(usual) and contents(usual)
    assert read.document == usual.document


def test_an_outline_is_a_value_that_pickles_and_holds_no_states(three_benchmarks: Path) -> None:
    outline = FileOutline.read(three_benchmarks)
    assert outline is not None
    assert pickle.loads(pickle.dumps(outline)) == outline
    assert outline.path == os.path.abspath(three_benchmarks)
    assert outline.label == os.fspath(three_benchmarks)
    assert outline.identity.size == three_benchmarks.stat().st_size
    header = json.loads(outline.header)
    assert [b["states"] for b in header["benchmarks"]] == [None] * 3
    # Each span holds exactly that benchmark's states.
    text, document = three_benchmarks.read_bytes(), json.loads(three_benchmarks.read_bytes())
    for (offset, length), bench in zip(outline.spans, document["benchmarks"], strict=True):
        assert json.loads(text[offset : offset + length]) == bench["states"]
    with pytest.raises(AttributeError):
        outline.path = "other.json"  # type: ignore[misc]


@pytest.mark.skipif(not can_fork(), reason="forked workers run on Linux only")
def test_an_outline_made_in_another_process_reads_the_file_there_once(
    three_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuda.bench.results import _stages as stages

    def outline(paths: list[Path]) -> list[tuple[int, FileOutline | None]]:
        return [(os.getpid(), FileOutline.read(path)) for path in paths]

    [(pid, made)] = fork_map(outline, [[], [three_benchmarks]])[1]
    assert pid != os.getpid() and made == FileOutline.read(three_benchmarks)
    # Made from the outline, the result does not read the file whole again.
    monkeypatch.setattr(stages, "read_file", lambda *_: pytest.fail("read again"))
    assert made is not None
    read = BenchmarkResult.from_outline(made)
    assert contents(read) == contents(BenchmarkResult(three_benchmarks))


def test_the_result_is_checked_and_warned_about_where_it_is_made(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    write_pair(tmp_path / "w", SyntheticConfig(benchmarks=2, states=2, samples=5), seed=1)
    document = json.loads((tmp_path / "w" / "ref.json").read_text())
    del document["meta"]["version"]
    document["devices"][0]["id"] = "zero"
    path.write_text(json.dumps(document))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outline = FileOutline.read(path)  # no check, no warning
    assert outline is not None
    with pytest.raises(ResultFormatError, match=r"device `id` must be an integer"):
        BenchmarkResult.from_outline(outline)
    document["devices"][0]["id"] = 0
    path.write_text(json.dumps(document))
    outline = FileOutline.read(path)
    assert outline is not None
    with pytest.warns(NVBenchFormatWarning, match="no JSON format version"):
        BenchmarkResult.from_outline(outline)


@pytest.mark.parametrize("change", ["replace", "rewrite"])
def test_a_file_changed_since_its_outline_is_read_as_it_is_now(
    copy: Path, tmp_path: Path, change: str
) -> None:
    outline = FileOutline.read(copy)
    assert outline is not None
    before = _values(BenchmarkResult(copy))
    changed = copy.read_bytes().replace(b'"value": "0.', b'"value": "7.')
    if change == "replace":
        new = tmp_path / "new.json"
        new.write_bytes(changed)
        os.replace(new, copy)
    else:
        copy.write_bytes(changed)
        stat = copy.stat()
        os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    read = BenchmarkResult.from_outline(outline)
    now = _values(read)
    assert now == _values(BenchmarkResult(copy)) and now != before


def test_a_file_changed_after_the_result_was_made_is_refused_when_its_states_are_read(
    copy: Path,
) -> None:
    outline = FileOutline.read(copy)
    assert outline is not None
    read = BenchmarkResult.from_outline(outline)
    with open(copy, "r+b") as handle:
        handle.truncate(copy.stat().st_size // 3)
    with pytest.raises(ResultFormatError, match="changed since it was read") as raised:
        _values(read)
    assert str(raised.value).startswith(f"{copy}: ")


FORGED = {
    "header that does not decode": lambda o: {"header": b'{"benchmarks": ['},
    "header with states": lambda o: {"header": b'{"benchmarks": [{"name": "x", "states": [1]}]}'},
    "header as text": lambda o: {"header": o.header.decode()},
    "fewer spans than benchmarks": lambda o: {"spans": o.spans[:2]},
    "span beyond the file": lambda o: {"spans": (*o.spans[:2], (10**12, 10))},
    "span before it": lambda o: {"spans": ((-5, 10), *o.spans[1:])},
    "spans swapped": lambda o: {"spans": (o.spans[1], o.spans[0], o.spans[2])},
    "spans overlapping": lambda o: {"spans": (o.spans[0], (o.spans[0][0] + 1, 5), o.spans[2])},
    "span of three numbers": lambda o: {"spans": ((0, 10, 1), *o.spans[1:])},
    "span of a float": lambda o: {"spans": ((o.spans[0][0], float(o.spans[0][1])), *o.spans[1:])},
    "spans as a list": lambda o: {"spans": list(o.spans)},
    "no identity": lambda o: {"identity": None},
}


@pytest.mark.parametrize("forged", list(FORGED))
def test_an_outline_that_does_not_describe_its_file_gives_the_file_read_again(
    three_benchmarks: Path, forged: str
) -> None:
    outline = FileOutline.read(three_benchmarks)
    assert outline is not None
    changes = FORGED[forged](outline)
    read = BenchmarkResult.from_outline(msgspec.structs.replace(outline, **changes))
    assert contents(read) == contents(BenchmarkResult(three_benchmarks))


@pytest.mark.parametrize("field", ["path", "label"])
def test_an_outline_without_a_file_name_is_refused(three_benchmarks: Path, field: str) -> None:
    outline = FileOutline.read(three_benchmarks)
    assert outline is not None
    with pytest.raises(TypeError, match=r"FileOutline made by FileOutline\.read"):
        BenchmarkResult.from_outline(msgspec.structs.replace(outline, **{field: 3}))


def test_an_outline_serves_its_own_file_from_another_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SyntheticConfig(benchmarks=3, states=2, samples=5)
    mine = write_pair(tmp_path / "mine", config, seed=1).ref[0]
    other = write_pair(tmp_path / "other", config, seed=99).ref[0]
    monkeypatch.chdir(mine.parent)
    outline = FileOutline.read("ref.json")
    assert outline is not None
    here = BenchmarkResult.from_outline(outline)
    assert here.label == "ref.json" and _stages(here) == [Stage.RAW] * 3
    # From where "ref.json" is another file, the outline still serves its own, by its
    # absolute path (from the outline when unchanged; when changed, read again there).
    monkeypatch.chdir(other.parent)
    for change in (False, True):
        if change:
            stat = mine.stat()
            os.utime(mine, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
        served = BenchmarkResult.from_outline(outline)
        assert served.label == str(mine) and served.path == mine
        assert _values(served) == _values(BenchmarkResult(mine)) != _values(BenchmarkResult(other))


@pytest.mark.parametrize(
    "content", [None, b"", b"  \n", b'{"benchmarks": [', b"[1, 2]", b"\xff\xfe{}"]
)
def test_a_file_without_an_outline_is_left_to_the_reader_to_word(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "run.json"
    if content is not None:
        path.write_bytes(content)
    assert FileOutline.read(path) is None
    assert FileOutline.read(tmp_path) is None  # a directory
    with pytest.raises(ResultFormatError) as raised:
        BenchmarkResult(path, mode=ReadMode.BY_BENCHMARK)
    assert str(raised.value).startswith(f"{path}: ")


def _public_classes() -> list[type]:
    import cuda.bench.results as results

    found = [getattr(results, name) for name in results.__all__]
    return [value for value in found if isinstance(value, type)]


@pytest.mark.parametrize("cls", _public_classes(), ids=lambda cls: cls.__name__)
def test_every_public_class_of_the_reader_can_be_introspected(cls: type) -> None:
    # Each says it lives in cuda.bench.results, where its annotations are then resolved.
    import typing

    assert cls.__module__ == "cuda.bench.results"
    hints = typing.get_type_hints(cls)
    if issubclass(cls, msgspec.Struct):
        assert isinstance(msgspec.inspect.type_info(cls), msgspec.inspect.StructType)
        assert set(hints) >= set(cls.__struct_fields__)


def test_a_lazily_loaded_class_is_introspected_alone_in_a_fresh_interpreter() -> None:
    # Measurement's annotations name UserSummary, which nothing else has asked for yet.
    import subprocess
    import sys

    code = (
        "import typing\n"
        "from cuda.bench.results import Measurement\n"
        "print(typing.get_type_hints(Measurement)['summaries_before'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "UserSummary" in done.stdout
