"""``cuda.bench.results`` as a drop-in for NVIDIA's current API (issue #17).

Small documents written here in the shapes NVIDIA's own tests use: axis-less benchmarks
with ``axis_values: null``, pow2 axes, axis values given as input strings, and side-file
paths recorded relative to the benchmark's working directory.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
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
from cuda.bench.results._stages import Stage

# NVIDIA's test documents record no format version.
pytestmark = pytest.mark.filterwarnings("ignore::cuda.bench.results.NVBenchFormatWarning")

TIMES = "nv/json/bin:nv/cold/sample_times"
FREQS = "nv/json/freqs-bin:nv/cold/sample_freqs"


def _mean(values: Any) -> float:
    return float(sum(values)) / len(values)


def _weighted(samples: Any, frequencies: Any) -> float:
    return float(sum(s * f for s, f in zip(samples, frequencies, strict=True))) / float(
        sum(frequencies)
    )


def _side_summary(
    tag: str, filename: Any, size: Any, *, types: tuple[str, str] | None = None
) -> dict[str, Any]:
    types = types or ("string", "int64")
    return {
        "tag": tag,
        "data": [
            {"name": "filename", "type": types[0], "value": filename},
            {"name": "size", "type": types[1], "value": str(size)},
        ],
    }


def _pow2_axis(*exponents: int) -> dict[str, Any]:
    return {
        "name": "BlockSize",
        "type": "int64",
        "flags": "pow2",
        "values": [
            {"input_string": str(e), "description": f"2^{e} = {2**e}", "value": 2**e}
            for e in exponents
        ],
    }


def _state(
    name: str, axis_values: list[dict[str, Any]] | None, summaries: list[Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "device": 0,
        "axis_values": axis_values,
        "summaries": summaries,
        "is_skipped": False,
    }


def _block_state(exponent: int, summaries: list[Any]) -> dict[str, Any]:
    value = {"name": "BlockSize", "type": "int64", "value": str(2**exponent)}
    return _state(f"Device=0 BlockSize=2^{exponent}", [value], summaries)


def _write_floats(path: Path, *values: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack(f"<{len(values)}f", *values))


def _write_json(path: Path, benchmarks: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    devices = [{"id": 0, "name": "NVIDIA RTX A6000"}]
    path.write_text(json.dumps({"devices": devices, "benchmarks": benchmarks}), encoding="utf-8")
    return path


@pytest.fixture
def axis_less(tmp_path: Path) -> Path:
    """NVIDIA's shape: a benchmark without axes run from ``tmp_path``, its JSON written to
    ``temp_data/``, side-file paths recorded relative to the working directory."""
    data = tmp_path / "temp_data"
    _write_floats(data / "run.json-bin" / "0.bin", 1.0, 4.0)
    _write_floats(data / "run.json-freqs-bin" / "0.bin", 100.0, 400.0)
    summaries = [
        _side_summary(TIMES, "temp_data/run.json-bin/0.bin", 2),
        _side_summary(FREQS, "temp_data/run.json-freqs-bin/0.bin", 2),
    ]
    bench = {"name": "simple", "axes": None, "states": [_state("Device=0", None, summaries)]}
    return _write_json(data / "run.json", [bench])


@pytest.fixture
def pow2(tmp_path: Path) -> Path:
    _write_floats(tmp_path / "result.json-bin" / "0.bin", 1.0, 2.0, 4.0)
    _write_floats(tmp_path / "result.json-freqs-bin" / "0.bin", 100.0, 200.0, 400.0)
    summaries = [
        _side_summary(TIMES, "result.json-bin/0.bin", 3),
        _side_summary(FREQS, "result.json-freqs-bin/0.bin", 3),
    ]
    bench = {
        "name": "copy",
        "devices": [0],
        "axes": [_pow2_axis(6, 8)],
        "states": [_block_state(8, summaries), _block_state(6, [])],
    }
    return _write_json(tmp_path / "result.json", [bench])


# -- 1. SubBenchmarkResult(bench, json_dir) --------------------------------------------------


def test_a_benchmark_object_and_its_directory_make_the_benchmark_a_file_makes(
    pow2: Path,
) -> None:
    document = json.loads(pow2.read_text())
    made = SubBenchmarkResult(document["benchmarks"][0], str(pow2.parent))
    read = BenchmarkResult.from_json(pow2)["copy"]
    assert made.name == read.name == "copy"
    assert made.devices == read.devices == [0]
    assert [axis.name for axis in made.axes] == ["BlockSize"] and made.axes[0]["flags"] == "pow2"
    assert len(made) == 2 and made[-1] is made.states[1] and list(made) == made.states
    assert made[:1] == made.states[:1]
    assert [state.state_name for state in made] == [state.state_name for state in read]
    assert (
        made.centers(_mean)
        == read.centers(_mean)
        == {
            "BlockSize[pow2]=8": pytest.approx(7 / 3),
            "BlockSize[pow2]=6": None,
        }
    )
    assert made.centers_with_frequencies(_weighted) == read.centers_with_frequencies(_weighted)
    assert made.centers_with_frequencies(_weighted)["BlockSize[pow2]=8"] == pytest.approx(3.0)


def test_a_benchmark_without_devices_has_an_empty_device_list(axis_less: Path) -> None:
    bench = json.loads(axis_less.read_text())["benchmarks"][0]
    assert SubBenchmarkResult(bench, str(axis_less.parent)).devices == []


def test_side_files_recorded_relative_to_the_working_directory_are_found(
    axis_less: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    result = BenchmarkResult.from_json("temp_data/run.json")
    bench = json.loads(axis_less.read_text())["benchmarks"][0]
    made = SubBenchmarkResult(bench, "temp_data")  # relative: to the current directory
    monkeypatch.chdir(axis_less.parent)  # both were anchored when made
    for state in (result["simple"][0], made[0]):
        assert state.samples is not None and list(state.samples) == [1.0, 4.0]
        assert state.frequencies is not None and list(state.frequencies) == [100.0, 400.0]


def test_what_is_not_a_benchmark_object_is_refused() -> None:
    with pytest.raises(ResultFormatError, match="states"):
        SubBenchmarkResult({"name": "no states"}, "")
    with pytest.raises(ValueError, match="name"):
        SubBenchmarkResult({"states": []}, "")


# -- 2. SubBenchmarkState.name() --------------------------------------------------------------


def test_an_axis_less_state_is_named_by_its_stored_name(axis_less: Path) -> None:
    result = BenchmarkResult.from_json(axis_less)
    state = result["simple"][0]
    assert state.name() == "Device=0" and state.point == {} and state.axis_values == ()
    assert result.centers(_mean) == {"simple": {"Device=0": pytest.approx(2.5)}}
    assert result.centers_with_frequencies(_weighted) == {
        "simple": {"Device=0": pytest.approx(3.4)}
    }


def _one_axis(axis: dict[str, Any], stored: dict[str, Any]) -> SubBenchmarkResult:
    state = _state(f"Device=0 {axis['name']}={stored['value']}", [stored], [])
    return SubBenchmarkResult({"name": "b", "axes": [axis], "states": [state]}, "")


def test_an_axis_value_is_named_by_the_input_string_declared_for_its_typed_value() -> None:
    duration = {
        "name": "Duration",
        "type": "float64",
        "flags": "",
        "values": [{"input_string": "0", "description": "", "value": 0.0}],
    }
    state = _one_axis(duration, {"name": "Duration", "type": "float64", "value": "0"})[0]
    assert state.name() == "Duration=0" and state.point == {"Duration": "0"}
    named = {
        "name": "Mode",
        "type": "int64",
        "flags": "",
        "values": [
            {"input_string": "default", "description": "", "value": 0},
            {"input_string": "fast", "description": "", "value": 1},
        ],
    }
    bench = _one_axis(named, {"name": "Mode", "type": "int64", "value": "1"})
    assert bench[0].name() == "Mode=fast"
    assert bench.centers(_mean) == {"Mode=fast": None}


def test_an_axis_value_is_found_by_its_input_string() -> None:
    # Type axes declare no values, only input strings; a state stores the input string.
    types = {
        "name": "T",
        "type": "type",
        "values": [{"input_string": "F32", "description": "float", "is_active": True}],
    }
    assert _one_axis(types, {"name": "T", "type": "string", "value": "F32"})[0].name() == "T=F32"
    # A value stored as the declared input string rather than the value itself.
    named = {
        "name": "Mode",
        "type": "string",
        "values": [{"input_string": "default", "description": "", "value": "built-in"}],
    }
    stored = {"name": "Mode", "type": "string", "value": "default"}
    assert _one_axis(named, stored)[0].name() == "Mode=default"


def test_pow2_axes_are_named_with_their_flag_and_exponent(pow2: Path) -> None:
    names = [state.name() for state in BenchmarkResult.from_json(pow2)["copy"]]
    assert names == ["BlockSize[pow2]=8", "BlockSize[pow2]=6"]


def test_a_state_knows_its_key_in_centers_even_when_devices_repeat_a_point() -> None:
    states = [
        {**_block_state(6, []), "name": f"Device={device} BlockSize=2^6", "device": device}
        for device in (0, 1)
    ]
    bench = SubBenchmarkResult(
        {"name": "b", "devices": [0, 1], "axes": [_pow2_axis(6)], "states": states}, ""
    )
    keys = [state.center_key for state in bench]
    assert keys == ["Device=0 BlockSize[pow2]=6", "Device=1 BlockSize[pow2]=6"]
    with pytest.warns(UserWarning, match="share names"):
        centers = bench.centers(_mean)
    assert list(centers) == ["BlockSize[pow2]=6"]  # NVIDIA's keys: name()
    assert [centers[key] for key in keys] == [None, None]  # each device's, by center_key


# -- 3. a missing file ------------------------------------------------------------------------


def test_a_missing_file_is_a_file_not_found_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    for read in (BenchmarkResult.from_json, BenchmarkResult):
        with pytest.raises(FileNotFoundError) as raised:
            read(missing)
        assert isinstance(raised.value, OSError) and isinstance(raised.value, ResultFormatError)
        assert (
            raised.value.filename == str(missing)
            and str(raised.value) == f"{missing}: no such file"
        )
    with pytest.raises(FileNotFoundError):
        BenchmarkResult.from_json(json_path=missing, metadata={"run": 1})


def test_the_command_line_still_says_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuda.bench.cli.json_summary import main

    missing = tmp_path / "missing.json"
    assert main([str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{missing}: no such file" in err


# -- 4. recorded counts and side-file fields --------------------------------------------------


def _counted(tmp_path: Path, times: int, freqs: int, *, benchmarks: int = 1) -> Path:
    # No side file exists: the counts are checked from the JSON alone. Benchmarks after
    # the first are named copy_1, copy_2, ..., their states' counts equal.
    summaries = [
        _side_summary(TIMES, "result.json-bin/0.bin", times),
        _side_summary(FREQS, "result.json-freqs-bin/0.bin", freqs),
    ]
    bench = {
        "name": "copy",
        "devices": [0],
        "axes": [_pow2_axis(8)],
        "states": [_block_state(8, summaries)],
    }
    equal = [
        _side_summary(TIMES, "result.json-bin/1.bin", 2),
        _side_summary(FREQS, "result.json-freqs-bin/1.bin", 2),
    ]
    others = [
        {**bench, "name": f"copy_{index}", "states": [_block_state(8, equal)]}
        for index in range(1, benchmarks)
    ]
    return _write_json(tmp_path / "result.json", [bench, *others])


@pytest.mark.parametrize("lazy", [True, False])
def test_differing_recorded_counts_are_refused_at_load(tmp_path: Path, lazy: bool) -> None:
    path = _counted(tmp_path, 3, 2)
    with pytest.raises(
        ValueError, match=r"sample count \(3\) does not match frequency count \(2\)"
    ):
        BenchmarkResult.from_json(path, lazy=lazy)
    with pytest.raises(
        ValueError, match=r"sample count \(3\) does not match frequency count \(2\)"
    ):
        SubBenchmarkResult(json.loads(path.read_text())["benchmarks"][0], str(tmp_path))
    # Read without the check (as a comparison reads), the state is there.
    assert BenchmarkResult(path, lazy=lazy, check_counts=False)["copy"][0].samples is None


@pytest.mark.parametrize("mode", [ReadMode.FULL, ReadMode.LAZY, ReadMode.SLIM])
def test_every_mode_that_reads_the_whole_file_checks_the_counts_at_load(
    tmp_path: Path, mode: ReadMode
) -> None:
    path = _counted(tmp_path, 3, 2)
    with pytest.raises(ValueError, match=r"sample count \(3\) does not match"):
        BenchmarkResult.from_json(path, mode=mode)
    assert len(BenchmarkResult(path, mode=mode, check_counts=False)["copy"]) == 1


def test_a_result_read_by_benchmark_checks_the_counts_when_the_states_are_decoded(
    tmp_path: Path,
) -> None:
    path = _counted(tmp_path, 3, 2, benchmarks=2)
    outline = FileOutline.read(path)
    assert outline is not None
    for result in (
        BenchmarkResult.from_json(path, mode=ReadMode.BY_BENCHMARK),
        BenchmarkResult.from_outline(outline),
    ):
        assert len(result["copy_1"]) == 1  # decoded and checked alone
        bench = result["copy"]  # the header only: nothing checked yet
        with pytest.raises(ValueError, match=r"sample count \(3\) does not match"):
            len(bench)
    for unchecked in (
        BenchmarkResult(path, mode=ReadMode.BY_BENCHMARK, check_counts=False),
        BenchmarkResult.from_outline(outline, check_counts=False),
    ):
        assert len(unchecked["copy"]) == 1


def test_a_result_of_one_benchmark_read_by_benchmark_is_read_at_once_and_checked_so(
    tmp_path: Path,
) -> None:
    # Nothing to leave for later: the states are decoded (slim) from the bytes in hand.
    # The same from an outline made apart (its one benchmark has a span like any other).
    path = _counted(tmp_path, 3, 2)
    outline = FileOutline.read(path)
    assert outline is not None and len(outline.spans) == 1
    with pytest.raises(ValueError, match=r"sample count \(3\) does not match"):
        BenchmarkResult.from_json(path, mode=ReadMode.BY_BENCHMARK)
    with pytest.raises(ValueError, match=r"sample count \(3\) does not match"):
        BenchmarkResult.from_outline(outline)
    for unchecked in (
        BenchmarkResult(path, mode=ReadMode.BY_BENCHMARK, check_counts=False),
        BenchmarkResult.from_outline(outline, check_counts=False),
    ):
        assert unchecked["copy"]._stages.stage is Stage.SLIM
        assert len(unchecked["copy"]) == 1


@pytest.mark.parametrize(
    ("layout", "refused"),
    [
        ("indented", True),  # as NVBench writes it: read without decoding the summaries
        ("sorted keys", True),  # another key order: the summaries are decoded to know
        ("tag repeated", False),  # the first of repeated tags counts, as everywhere
        ("tag in a description", False),
    ],
)
def test_the_count_check_reads_any_layout_as_the_decoded_summaries_say(
    tmp_path: Path, layout: str, refused: bool
) -> None:
    summaries = [_side_summary(TIMES, "a.bin", 3), _side_summary(FREQS, "b.bin", 2)]
    if layout == "tag repeated":
        summaries.insert(1, _side_summary(FREQS, "c.bin", 3))
    if layout == "tag in a description":
        summaries = [_side_summary(TIMES, "a.bin", 3), _side_summary(FREQS, "b.bin", 3)]
        summaries[1]["description"] = f'{{"tag": "{FREQS}", "data": [{{"value": "2"}}]}}'
    bench = {"name": "copy", "axes": None, "states": [_state("Device=0", None, summaries)]}
    path = tmp_path / "result.json"
    document = {"benchmarks": [bench]}
    path.write_text(json.dumps(document, indent=2, sort_keys=layout == "sorted keys"))
    for lazy in (True, False):
        if refused:
            with pytest.raises(ValueError, match=r"sample count \(3\) does not match"):
                BenchmarkResult.from_json(path, lazy=lazy)
        else:
            assert len(BenchmarkResult.from_json(path, lazy=lazy)["copy"]) == 1


def test_a_profile_run_without_frequencies_is_no_mismatch(tmp_path: Path) -> None:
    # NVBench --profile records 1 sample and 0 frequencies.
    assert len(BenchmarkResult.from_json(_counted(tmp_path, 1, 0))["copy"]) == 1


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (("int64", "int64"), "field 'filename' has type 'int64'; expected 'string'"),
        (("string", "string"), "field 'size' has type 'string'; expected 'int64'"),
        (("string", "float64"), "field 'size' has type 'float64'; expected 'int64'"),
    ],
)
@pytest.mark.parametrize("wrong", [TIMES, FREQS])
def test_a_side_file_field_of_another_declared_type_is_refused_at_load(
    tmp_path: Path, types: tuple[str, str], message: str, wrong: str
) -> None:
    # NVIDIA's reader refuses these when loading, in these words (issue #28); before, the
    # file loaded and the field was reported when the samples were first read. NVBench's
    # --jsonbin writes both side files, and such files are checked at load.
    _write_floats(tmp_path / "result.json-bin" / "0.bin", 1.0, 2.0, 4.0)
    _write_floats(tmp_path / "result.json-freqs-bin" / "0.bin", 1.0, 2.0, 4.0)
    summaries = [
        _side_summary(tag, f"result.json-{kind}/0.bin", 3, types=types if tag == wrong else None)
        for tag, kind in ((TIMES, "bin"), (FREQS, "freqs-bin"))
    ]
    bench = {"name": "copy", "axes": [_pow2_axis(8)], "states": [_block_state(8, summaries)]}
    path = _write_json(tmp_path / "result.json", [bench])
    with pytest.raises(ValueError, match=rf"summary '{wrong}' {message}"):
        BenchmarkResult.from_json(path)
    with pytest.raises(ValueError, match=message):
        SubBenchmarkResult(bench, str(tmp_path))


def test_without_frequencies_a_wrong_declared_type_is_reported_when_first_read(
    tmp_path: Path,
) -> None:
    # Finding the sample-times tag in every file at load would cost files without side
    # files several percent of their load; without frequencies the same message comes on
    # first use.
    _write_floats(tmp_path / "result.json-bin" / "0.bin", 1.0, 2.0, 4.0)
    summary = _side_summary(TIMES, "result.json-bin/0.bin", 3, types=("int64", "int64"))
    bench = {"name": "copy", "axes": [_pow2_axis(8)], "states": [_block_state(8, [summary])]}
    state = BenchmarkResult.from_json(_write_json(tmp_path / "result.json", [bench]))["copy"][0]
    with pytest.raises(ValueError, match="field 'filename' has type 'int64'; expected 'string'"):
        _ = state.samples


def test_a_side_file_field_of_the_declared_type_but_a_bad_value_is_reported_when_read(
    tmp_path: Path,
) -> None:
    _write_floats(tmp_path / "result.json-bin" / "0.bin", 1.0, 2.0, 4.0)
    summary = _side_summary(TIMES, "result.json-bin/0.bin", "three")
    bench = {"name": "copy", "axes": [_pow2_axis(8)], "states": [_block_state(8, [summary])]}
    state = BenchmarkResult.from_json(_write_json(tmp_path / "result.json", [bench]))["copy"][0]
    with pytest.raises(ValueError, match=f"field 'size' of side-file summary {TIMES}"):
        _ = state.samples


# -- 5. empty() -------------------------------------------------------------------------------


def test_an_empty_result_reads_nothing_and_keeps_its_metadata_object(pow2: Path) -> None:
    @dataclass
    class RunMetadata:
        returncode: int

    metadata = RunMetadata(returncode=1)
    empty = BenchmarkResult.empty(metadata=metadata)
    assert empty.metadata is metadata and empty.subbenches == {} and len(empty) == 0
    assert empty.devices == {} and empty.path is None
    assert BenchmarkResult.from_json(pow2, metadata=metadata).metadata is metadata
    assert BenchmarkResult.from_json(pow2).metadata is None


# -- 7. one name to look things up by ---------------------------------------------------------


def test_a_comparison_row_finds_its_state_in_centers(
    tmp_path: Path, pow2: Path, axis_less: Path
) -> None:
    from cuda.bench.compare import compare

    for path in (pow2, axis_less):
        comparison = compare(path, path, jobs=1)
        centers = BenchmarkResult.from_json(path).centers(_mean)
        for row in comparison.rows:
            assert row.center_key is not None
            assert row.center_key in centers[row.benchmark]
            assert row.center_key == row.cmp_state.name()  # type: ignore[union-attr]
        assert [row.center_key for row in comparison.rows] == [
            key for bench in centers.values() for key in bench
        ]
