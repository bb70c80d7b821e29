"""Bad input: one exception type, naming the file and the JSON path — never anything else."""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.results import BenchmarkResult, NVBenchFormatWarning, ReadMode, ResultFormatError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _write(tmp_path: Path, text: str | bytes, name: str = "bad.json") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


Reader = Callable[[Path], BenchmarkResult]


@pytest.fixture(params=list(ReadMode), ids=lambda mode: mode.value)
def read(request: pytest.FixtureRequest) -> Reader:
    """Every read mode (lazy: summaries decoded on use; full and slim: decoded from a map of
    the file; by benchmark: states decoded on use); each problem must be reported the same
    way by each."""
    return functools.partial(BenchmarkResult, mode=request.param)


def test_missing_file(read: Reader, tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(ResultFormatError, match=r"absent\.json: no such file"):
        read(path)


def test_directory_instead_of_file(read: Reader, tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match="is a directory"):
        read(tmp_path)


def test_empty_file(read: Reader, tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match="file is empty"):
        read(_write(tmp_path, ""))


def test_truncated_json(read: Reader, tmp_path: Path, gpu_dir: Path) -> None:
    text = (gpu_dir / "gpu_ref.json").read_bytes()
    with pytest.raises(ResultFormatError, match="truncated JSON"):
        read(_write(tmp_path, text[: len(text) // 2]))


def test_invalid_json_reports_line_and_column(read: Reader, tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n  "benchmarks": [\n    oops\n  ]\n}\n')
    with pytest.raises(ResultFormatError, match=r"not valid JSON.*line 3, column 5"):
        read(path)


def test_not_an_object(read: Reader, tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match=r"expected object, got array"):
        read(_write(tmp_path, "[1, 2]"))


def test_missing_benchmarks(read: Reader, tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match="missing required field benchmarks"):
        read(_write(tmp_path, '{"meta": {}}'))


def test_benchmark_without_states(read: Reader, tmp_path: Path) -> None:
    path = _write(tmp_path, '{"benchmarks": [{"name": "a", "states": []}, {"name": "b"}]}')
    with pytest.raises(ResultFormatError) as info:
        read(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "missing required field states" in message
    assert message.endswith("at $.benchmarks[1]")


@pytest.mark.parametrize(
    ("document", "json_path"),
    [
        ('{"benchmarks": [{"name": 3, "states": null}]}', "$.benchmarks[0].name"),
        (
            '{"benchmarks": [{"name": "a", "states": [{"name": "s", "is_skipped": "no"}]}]}',
            "$.benchmarks[0].states[0].is_skipped",
        ),
        (
            '{"benchmarks": [{"name": "a", "devices": ["0"], "states": null}]}',
            "$.benchmarks[0].devices[0]",
        ),
        ('{"devices": [{"id": "0", "name": "x"}], "benchmarks": null}', "$.devices[0]"),
        (
            '{"benchmarks": [{"name": "a", "states": [{"name": "s", "summaries": [{"tag": 1}]}]}]}',
            "$.benchmarks[0].states[0].summaries[0].tag",
        ),
        ('{"meta": {"argv": "prog"}, "benchmarks": null}', "$.meta.argv"),
    ],
)
def test_wrong_types_name_the_json_path(
    read: Reader, tmp_path: Path, document: str, json_path: str
) -> None:
    path = _write(tmp_path, document)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        with pytest.raises(ResultFormatError) as info:
            # Summaries are decoded when first used; the error is the same either way.
            for state in read(path).states():
                _ = state.summaries
    assert info.value.json_path == json_path
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_utf8_bytes(read: Reader, tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError):
        read(_write(tmp_path, b'{"benchmarks": [{"name": "\xff", "states": null}]}'))


# -- property-based: mutations of real documents ---------------------------------------------

_REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["inf", "nan", "-1", "1e999", "0x10", "", "2^20"]),
    st.just([]),
    st.just({}),
    st.lists(st.integers(), max_size=2),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            paths.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for position, value in enumerate(node):
            paths.extend(_paths(value, (*prefix, position)))
    return paths


def _mutate(doc: Any, path: tuple[Any, ...], action: str, value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "delete":
        del parent[last]
    else:
        parent[last] = value
    return doc


def _exercise(result: BenchmarkResult) -> None:
    """Touch everything a user can reach, side files included."""
    _ = result.meta, result.devices
    for bench in result.benchmarks:
        _ = bench.axes, bench.devices, bench.settings
        for state in bench:
            _ = state.state_name, state.device, state.point, state.name(), state.key
            _ = state.is_skipped, state.skip_reason, state.type_config_index
            for summary in state.summaries.values():
                _ = summary.value
            _ = state.bw, state.sample_count
            _ = state.samples, state.frequencies


@pytest.fixture(scope="module")
def real_documents(cpu_dir: Path, gpu_dir: Path, upstream_2021_dir: Path) -> list[tuple[Path, str]]:
    files = [
        cpu_dir / "cpu_run1.json",
        gpu_dir / "gpu_ref.json",
        upstream_2021_dir / "ref.json",
    ]
    return [(path, path.read_text()) for path in files]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_mutated_real_documents_load_or_raise_our_error(
    real_documents: list[tuple[Path, str]], tmp_path_factory: pytest.TempPathFactory, data: Any
) -> None:
    source, text = data.draw(st.sampled_from(real_documents))
    doc = json.loads(text)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(doc)
        path = data.draw(st.sampled_from(paths))
        action = data.draw(st.sampled_from(["replace", "delete"] if path else ["replace"]))
        doc = _mutate(doc, path, action, data.draw(_REPLACEMENTS))
    directory = tmp_path_factory.mktemp("mutated")
    target = directory / source.name
    target.write_text(json.dumps(doc))
    # Side files stay where they are: resolution falls back to "unavailable", or, for a
    # mutated size, to a wrong-size error — both must be our error type or fine.
    (directory / f"{source.name}-bin").symlink_to(source.parent / f"{source.name}-bin")
    freqs = source.parent / f"{source.name}-freqs-bin"
    if freqs.exists():
        (directory / f"{source.name}-freqs-bin").symlink_to(freqs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        try:
            result = BenchmarkResult(target)
            _exercise(result)
        except ResultFormatError as error:
            assert str(target) in str(error) or target.name in str(error)


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000), junk=st.binary(max_size=8))
def test_cut_and_garbled_bytes_raise_our_error(cut: int, junk: bytes) -> None:
    text = json.dumps(
        {"benchmarks": [{"name": "a", "states": [{"name": "s", "summaries": None}]}]}
    ).encode()
    garbled = text[: cut % (len(text) + 1)] + junk
    from cuda.bench.results._parse import decode_document

    with warnings.catch_warnings():
        # A document that decodes has no version: that warning is expected, not the point.
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        try:
            decode_document(garbled, "mem.json")
        except ResultFormatError as error:
            assert "mem.json" in str(error)


def test_nan_settings_written_as_null_are_fine(tmp_path: Path) -> None:
    doc = {
        "benchmarks": [{"name": "a", "timeout": None, "states": [{"name": "", "timeout": None}]}]
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        result = BenchmarkResult(_write(tmp_path, json.dumps(doc)))
    assert result["a"].settings["timeout"] is None
    assert not math.isnan(len(result["a"]))
