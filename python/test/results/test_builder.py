"""ResultBuilder: state order, names, axis encodings, summaries (spec §3-§5, §13, §14.1).

Oracles: the spec's rules and its Examples A and B (read in place from the spec), and the real
NVBench files, which are rebuilt from their own side-file samples and compared field by field.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from cuda.bench.results._axes import (
    Float64Axis,
    Int64Axis,
    Pow2Axis,
    StringAxis,
    TypeAxis,
    TypeValue,
)
from cuda.bench.results._builder import ResultBuilder
from cuda.bench.results._devices import DeviceSpec, VersionInfo
from cuda.bench.results._measurement import (
    Measurement,
    StatePoint,
    UserSummary,
    buffer_size_summary,
    element_count_summary,
    global_memory_summary,
)
from cuda.bench.results._schema import Document

# -- helpers ------------------------------------------------------------------------------------


def as_json(document: Document) -> dict[str, Any]:
    result: dict[str, Any] = msgspec.to_builtins(document)
    return result


def states_of(document: Document, bench: int = 0) -> list[dict[str, Any]]:
    states: list[dict[str, Any]] = as_json(document)["benchmarks"][bench]["states"]
    return states


def names(document: Document, bench: int = 0) -> list[str]:
    return [s["name"] for s in states_of(document, bench)]


def key_shape(value: Any) -> Any:
    """Structure with key order but without scalar values: equal shapes = same key orders."""
    if isinstance(value, dict):
        return [(key, key_shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_shape(item) for item in value]
    return None


def samples(seed: int, size: int, center: float = 1e-5) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).lognormal(math.log(center), 0.01, size)


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as stream:
        result: dict[str, Any] = json.load(stream)
    return result


# -- order, names, type_config_index -------------------------------------------------------------


def test_states_come_out_in_nvbench_order_whatever_the_insertion_order() -> None:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
    bench = builder.benchmark(
        "grid",
        axes=[
            TypeAxis("T", ["F32", "F64"]),
            Pow2Axis("BlockSize", [6, 8]),
            Pow2Axis("NumBlocks", [6, 8]),
        ],
    )
    combos = [
        (device, t, block, blocks)
        for device in (0, 1)
        for t in ("F32", "F64")
        for block in (64, 256)
        for blocks in (64, 256)
    ]
    random.Random(3).shuffle(combos)
    for device, t, block, blocks in combos:
        bench.state({"T": t, "BlockSize": block, "NumBlocks": blocks}, device=device)
    got = names(builder.build().document)
    # §3.5: devices outer, then type configurations, then the first value axis fastest.
    want = [
        f"Device={d} T={t} BlockSize=2^{b} NumBlocks=2^{n}"
        for d in (0, 1)
        for t in ("F32", "F64")
        for n in (6, 8)
        for b in (6, 8)
    ]
    assert got == want
    assert [p.name for p in bench.points()] == want


def test_type_config_index_is_row_major_with_inactive_values_counted() -> None:
    builder = ResultBuilder()
    outs = ["I8", "I16", "I32", "F32", "I64", "F64"]
    bench = builder.benchmark(
        "convert",
        axes=[
            TypeAxis("In", ["I8", TypeValue("I16", active=False), "I32"]),
            TypeAxis("Out", outs),
        ],
    )
    bench.fill(lambda point: Measurement())
    states = states_of(builder.build().document)
    index = {s["name"]: s["type_config_index"] for s in states}
    # §4.4: the last type axis varies fastest; inactive values keep their slots.
    assert index["Device=0 In=I8 Out=I8"] == 0
    assert index["Device=0 In=I8 Out=I16"] == 1
    assert index["Device=0 In=I8 Out=F64"] == 5
    assert index["Device=0 In=I32 Out=I8"] == 12
    assert not any("In=I16" in name for name in index)
    assert [s["type_config_index"] for s in states] == sorted(index.values())
    with pytest.raises(ValueError, match="inactive"):
        bench.state({"In": "I16", "Out": "I8"})


def test_state_names_and_axis_value_encodings() -> None:
    builder = ResultBuilder()
    bench = builder.benchmark(
        "misc",
        axes=[
            Float64Axis("Ratio", [0.25, 1.0, 123456.789, 1e-7, 0.1 + 0.2]),
            Int64Axis("Rows", [-3]),
            StringAxis("Layout", ["x y"]),
        ],
    )
    bench.fill(lambda point: Measurement())
    document = builder.build().document
    # §4.3: %.5g for floats in names; §4.2: shortest round trip in axis_values.
    assert names(document) == [
        "Device=0 Ratio=0.25 Rows=-3 Layout=x y",
        "Device=0 Ratio=1 Rows=-3 Layout=x y",
        "Device=0 Ratio=1.2346e+05 Rows=-3 Layout=x y",
        "Device=0 Ratio=1e-07 Rows=-3 Layout=x y",
        "Device=0 Ratio=0.3 Rows=-3 Layout=x y",
    ]
    values = [s["axis_values"][0]["value"] for s in states_of(document)]
    assert values == ["0.25", "1", "123456.789", "1e-07", "0.30000000000000004"]
    axes = as_json(document)["benchmarks"][0]["axes"]
    assert [v["input_string"] for v in axes[0]["values"]] == [
        "0.25",
        "1",
        "1.2346e+05",
        "1e-07",
        "0.3",
    ]
    assert axes[0]["values"][2] == {
        "input_string": "1.2346e+05",
        "description": "",
        "value": 123456.789,
    }
    assert axes[1] == {
        "name": "Rows",
        "type": "int64",
        "flags": "",
        "values": [{"input_string": "-3", "description": "", "value": -3}],
    }
    assert states_of(document)[0]["axis_values"][1:] == [
        {"name": "Rows", "type": "int64", "value": "-3"},
        {"name": "Layout", "type": "string", "value": "x y"},
    ]


def test_pow2_and_type_axis_definitions() -> None:
    builder = ResultBuilder()
    bench = builder.benchmark(
        "copy",
        axes=[
            TypeAxis("T", ["F32", TypeValue("F64", active=False), TypeValue("Custom", "my_t")]),
            Pow2Axis("Elements", [0, 20]),
        ],
    )
    bench.state({"T": "F32", "Elements": 1 << 20})
    document = as_json(builder.build().document)
    type_axis, pow2_axis = document["benchmarks"][0]["axes"]
    assert type_axis == {
        "name": "T",
        "type": "type",
        "flags": "",
        "values": [
            {"input_string": "F32", "description": "float", "is_active": True},
            {"input_string": "F64", "description": "double", "is_active": False},
            {"input_string": "Custom", "description": "my_t", "is_active": True},
        ],
    }
    assert pow2_axis["flags"] == "pow2"
    assert pow2_axis["values"] == [
        {"input_string": "0", "description": "2^0 = 1", "value": 1},
        {"input_string": "20", "description": "2^20 = 1048576", "value": 1048576},
    ]
    state = document["benchmarks"][0]["states"][0]
    assert state["name"] == "Device=0 T=F32 Elements=2^20"
    assert state["axis_values"] == [
        {"name": "T", "type": "string", "value": "F32"},
        {"name": "Elements", "type": "int64", "value": "1048576"},
    ]


def test_benchmarks_without_axes_and_cpu_only_benchmarks() -> None:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
    gpu = builder.benchmark("plain", devices=[1])
    gpu.state(device=1, gpu_times=samples(1, 10))
    cpu = builder.benchmark("host", devices=None)
    cpu.state(cpu_times=samples(2, 10))
    document = as_json(builder.build().document)
    plain, host = document["benchmarks"]
    assert (plain["axes"], plain["devices"]) == (None, [1])
    assert plain["states"][0]["name"] == "Device=1"
    assert plain["states"][0]["axis_values"] is None
    assert (host["devices"], host["axes"]) == (None, None)
    state = host["states"][0]
    assert (state["name"], state["device"], state["axis_values"]) == ("", 0, None)
    assert all(s["tag"].startswith("nv/cpu_only/") for s in state["summaries"])
    assert [b["index"] for b in document["benchmarks"]] == [0, 1]


def test_skipped_states() -> None:
    builder = ResultBuilder()
    bench = builder.benchmark("b", axes=[StringAxis("Layout", ["a", "b"])])
    bench.state({"Layout": "b"}, skip_reason="not implemented")
    bench.state({"Layout": "a"}, gpu_times=samples(0, 20))
    skipped = states_of(builder.build().document)[1]
    assert skipped["summaries"] is None
    assert skipped["is_skipped"] is True
    assert list(skipped)[-2:] == ["is_skipped", "skip_reason"]
    assert skipped["skip_reason"] == "not implemented"
    assert "skip_reason" not in states_of(builder.build().document)[0]
    assert builder.build().samples(0, 1) == (None, None)


def test_settings_inherit_and_non_finite_settings_become_null() -> None:
    builder = ResultBuilder()
    bench = builder.benchmark(
        "b", min_samples=3, timeout=math.inf, skip_time=1e-5, cold_warmup_runs=2
    )
    bench.state()
    document = as_json(builder.build().document)
    benchmark = document["benchmarks"][0]
    for record in (benchmark, benchmark["states"][0]):
        assert record["min_samples"] == 3
        assert record["cold_warmup_runs"] == 2
        assert record["timeout"] is None
        assert record["skip_time"] == 1e-5
        assert record["cold_max_warmup_walltime"] == -1.0


def test_summary_order_user_cold_batch_user() -> None:
    builder = ResultBuilder()
    bench = builder.benchmark("b")
    bench.state(
        gpu_times=samples(0, 20),
        batch_times=samples(1, 40),
        summaries_before=[element_count_summary(5, "Items"), global_memory_summary(64, "In")],
        summaries_after=[UserSummary("my/after", 1.5, name="After")],
    )
    tags = [s["tag"] for s in states_of(builder.build().document)[0]["summaries"]]
    assert tags[:2] == ["nv/element_count/Items", "nv/gmem/reads/In"]
    assert tags[2] == "nv/cold/sample_size"
    assert tags[-4:] == [
        "nv/batch/sample_size",
        "nv/batch/time/gpu/mean",
        "nv/batch/walltime",
        "my/after",
    ]
    batch = states_of(builder.build().document)[0]["summaries"][-4:-1]
    times = samples(1, 40)
    total = 0.0
    for item in times.tolist():
        total += item
    assert [d["data"][0]["value"] for d in batch][:2] == ["40", repr(total / 40)]


def test_user_summary_encodings() -> None:
    summary = msgspec.to_builtins(
        UserSummary("my/str", "hello", name="Str", extra={"extra": 42, "f": 0.5}).to_summary()
    )
    assert summary == {
        "tag": "my/str",
        "name": "Str",
        "data": [
            {"name": "value", "type": "string", "value": "hello"},
            {"name": "extra", "type": "int64", "value": "42"},
            {"name": "f", "type": "float64", "value": "0.5"},
        ],
    }
    bare = msgspec.to_builtins(UserSummary("my/flag", hide="").to_summary())
    assert bare == {"tag": "my/flag", "hide": ""}  # no data key when nothing holds a value
    with pytest.raises(TypeError):
        UserSummary("my/bool", True).to_summary()


def test_fill_and_add_states_equal_state_by_state() -> None:
    axes = [TypeAxis("T", ["F32", "F64"]), Int64Axis("N", [1, 2, 3])]

    def measure(point: StatePoint) -> Measurement | None:
        if point.values["N"] == 3 and point.values["T"] == "F64":
            return Measurement(skip_reason="too big")
        seed = point.type_config_index * 10 + int(point.values["N"])
        return Measurement(
            gpu_times=samples(seed, 16),
            frequencies=np.full(16, 1.5e9),
            batch_mean=1e-5,
            batch_count=100,
            element_count=int(point.values["N"]),
        )

    filled = ResultBuilder()
    filled.benchmark("b", axes=axes).fill(measure)
    one_by_one = ResultBuilder()
    bench = one_by_one.benchmark("b", axes=axes)
    for point in reversed(list(bench.points())):
        m = measure(point)
        assert m is not None
        bench.add(point.values, m)
    blocks = ResultBuilder()
    bench = blocks.benchmark("b", axes=axes)
    points = [p for p in bench.points() if p.name != "Device=0 T=F64 N=3"]
    seeds = [p.type_config_index * 10 + int(p.values["N"]) for p in points]
    bench.add_states(
        [p.values for p in points],
        gpu_times=np.stack([samples(s, 16) for s in seeds]),
        frequencies=np.full((len(points), 16), 1.5e9),
        batch_means=np.full(len(points), 1e-5),
        batch_counts=100,
        element_counts=[int(p.values["N"]) for p in points],
    )
    bench.state({"T": "F64", "N": 3}, skip_reason="too big")
    encoded = [msgspec.json.encode(b.build().document) for b in (filled, one_by_one, blocks)]
    assert encoded[0] == encoded[1] == encoded[2]
    bulk = [b.build().samples(0, 0) for b in (filled, blocks)]
    assert np.array_equal(bulk[0][0], bulk[1][0]) and np.array_equal(bulk[0][1], bulk[1][1])


def test_bulk_data_is_float32_of_the_samples() -> None:
    builder = ResultBuilder()
    gpu = samples(5, 30)
    clocks = np.linspace(1.5e9, 1.6e9, 30)
    builder.benchmark("b").state(gpu_times=gpu, cpu_times=gpu + 1e-6, frequencies=clocks)
    times, freqs = builder.build().samples(0, 0)
    assert times is not None and freqs is not None
    assert times.dtype == np.float32 and np.array_equal(times, gpu.astype(np.float32))
    assert np.array_equal(freqs, clocks.astype(np.float32))


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (
            lambda b: b.benchmark("x", axes=[Int64Axis("A", [1]), TypeAxis("T", ["F32"])]),
            ValueError,
        ),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [1]), Int64Axis("A", [2])]), ValueError),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [1, 1])]), ValueError),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [])]), ValueError),
        (lambda b: b.benchmark("x", axes=[Pow2Axis("A", [63])]), ValueError),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [1])]).state({"A": 2}), ValueError),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [1])]).state({}), ValueError),
        (lambda b: b.benchmark("x", axes=[Int64Axis("A", [1])]).state({"A": 1.0}), TypeError),
        (
            lambda b: b.benchmark("x", axes=[Int64Axis("A", [1])]).state({"A": 1, "B": 2}),
            ValueError,
        ),
        (lambda b: b.benchmark("x").state(device=0).state(device=0), ValueError),
        (lambda b: b.benchmark("x").state(device=3), ValueError),
        (lambda b: b.benchmark("x", devices=[7]), ValueError),
        (lambda b: b.benchmark("x", devices=None).state(gpu_times=[1.0]), ValueError),
        (
            lambda b: b.benchmark("x", devices=None).state(cpu_times=[1.0], batch_mean=1.0),
            ValueError,
        ),
        (lambda b: b.benchmark("x").state(cpu_times=[1.0]), ValueError),
        (lambda b: b.benchmark("x").state(gpu_times=[1.0], batch_mean=1.0), ValueError),
        (lambda b: b.benchmark("x").state(gpu_times=[1.0, 2.0], frequencies=[1.0]), ValueError),
    ],
)
def test_invalid_input_is_rejected(call: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        call(ResultBuilder())


_NAN, _INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("cpu_only", "arguments", "error", "match"),
    [
        (True, {"cpu_times": []}, ValueError, "cpu_times: no samples"),
        (True, {"cpu_times": [1e-6, _NAN]}, ValueError, "cpu_times must be finite and non"),
        (True, {"cpu_times": [1e-6, -1e-6]}, ValueError, "-1e-06 at position 1"),
        (True, {"cpu_times": ["fast"]}, TypeError, "cpu_times must be numbers"),
        (False, {"gpu_times": [1e-6, _NAN]}, ValueError, "gpu_times must be finite"),
        (False, {"gpu_times": [1e-6, -1e-6]}, ValueError, "gpu_times must be finite"),
        (False, {"gpu_times": [1e-6, _INF]}, ValueError, "inf at position 1"),
        (False, {"gpu_times": [[1e-6]]}, ValueError, "gpu_times must be a flat list"),
        (False, {"gpu_times": [1e-6], "cpu_times": [-1.0]}, ValueError, "cpu_times must be"),
        (False, {"gpu_times": [1e-6], "frequencies": [-1e9]}, ValueError, "frequencies must"),
        (False, {"gpu_times": [1e-6], "frequencies": [_NAN]}, ValueError, "frequencies must"),
        (False, {"gpu_times": [1e-6], "walltime": -1.0}, ValueError, "walltime must be finite"),
        (False, {"gpu_times": [1e-6], "walltime": _NAN}, ValueError, "walltime must be finite"),
        (False, {"gpu_times": [1e-6], "element_count": -1}, ValueError, "element_count must"),
        (False, {"gpu_times": [1e-6], "global_memory_bytes": -8}, ValueError, "global_memory"),
        (False, {"batch_times": [1e-6, -1e-6]}, ValueError, "batch_times must be finite"),
        (False, {"batch_times": []}, ValueError, "batch_times: no samples"),
        (False, {"batch_mean": -1e-6, "batch_count": 10}, ValueError, "batch_mean must"),
        (False, {"batch_mean": 1e-6, "batch_count": -10}, ValueError, "batch_count must"),
        (
            False,
            {"batch_mean": 1e-6, "batch_count": 1, "batch_walltime": _INF},
            ValueError,
            "batch_walltime",
        ),
    ],
)
def test_samples_no_measurement_records_are_refused(
    tmp_path: Path, cpu_only: bool, arguments: dict[str, Any], error: type[Exception], match: str
) -> None:
    # The samples samples_to_result refuses: NVBench never writes them, and the file read
    # back would hold a median of NaN, a mean of negative times or no samples at all.
    builder = ResultBuilder(devices=[] if cpu_only else None)
    bench = builder.benchmark("b", devices=None if cpu_only else "all")
    with pytest.raises(error, match=match):
        bench.state(**arguments)
    with pytest.raises(error, match=match):
        bench.add(None, Measurement(**arguments))
    builder.write(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["benchmarks"][0]["states"] is None


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"gpu_times": [[1e-6, _NAN]]}, r"gpu_times must be finite .* at position \(0, 1\)"),
        ({"gpu_times": [[1e-6]], "cpu_times": [[-1e-6]]}, "cpu_times must be finite"),
        ({"gpu_times": [[1e-6]], "frequencies": [[-1.0]]}, "frequencies must be finite"),
        ({"gpu_times": [[1e-6]], "walltimes": [_NAN]}, "walltimes must be finite"),
        ({"gpu_times": [[1e-6]], "element_counts": -1}, "element_counts must not be negative"),
        ({"gpu_times": [[1e-6]], "global_memory_bytes": [-1]}, "global_memory_bytes must not"),
        ({"gpu_times": [[1e-6]], "batch_means": -1.0, "batch_counts": 1}, "batch_means must"),
        ({"gpu_times": [[1e-6]], "batch_means": 1.0, "batch_counts": -1}, "batch_counts must"),
    ],
)
def test_add_states_refuses_what_state_refuses(arguments: dict[str, Any], match: str) -> None:
    bench = ResultBuilder().benchmark("b", axes=[Int64Axis("N", [1])])
    with pytest.raises(ValueError, match=match):
        bench.add_states([{"N": 1}], **arguments)


def test_a_cold_measurement_without_samples_is_still_written() -> None:
    # NVBench writes one when every trial was discarded: sample size 0 and the walltime.
    builder = ResultBuilder()
    builder.benchmark("b").state(gpu_times=[], walltime=0.5)
    tags = [s["tag"] for s in states_of(builder.build().document)[0]["summaries"]]
    assert tags == ["nv/cold/sample_size", "nv/cold/walltime"]


def test_a_benchmark_name_is_declared_once() -> None:
    # A file with two benchmarks of one name reads with a warning and a look-up finds one.
    builder = ResultBuilder()
    builder.benchmark("x").state(gpu_times=[1e-6])
    with pytest.raises(ValueError, match="'x' is already declared"):
        builder.benchmark("x", devices=None)
    assert [b.name for b in builder.build().document.benchmarks or []] == ["x"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ("./bench --x", r"argv must be a list .* not a string"),
        # The hint for bytes suggested [b'./bench'], which then wrote "b'./bench'" as argv.
        (b"./bench", r"argv must be a list of command-line words \(text\), got b"),
        (None, r"argv must be a list of command-line words \(text\), got None"),
        # str() recorded these as the words "None" and "b'./bench'".
        ([None], r"argv: each word must be text, got None"),
        ([b"./bench"], r"argv: each word must be text, got b"),
    ],
)
def test_argv_is_a_list_of_words(argv: Any, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        ResultBuilder(argv=argv)
    meta = as_json(ResultBuilder(argv=("./bench", "--x")).build().document)["meta"]
    assert meta["argv"] == ["./bench", "--x"]


def test_multi_device_benchmarks_need_a_device() -> None:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
    with pytest.raises(ValueError, match="device="):
        builder.benchmark("x").state()


def test_device_presets_and_bandwidth_formula() -> None:
    h100, a100 = DeviceSpec.h100(0).to_json(), DeviceSpec.a100(1).to_json()
    # §3.3: 2 * memory clock * (bus width // 8); spec Example A lists these bandwidths.
    assert h100["global_memory_bus_bandwidth"] == 2 * 2_619_000_000 * (5120 // 8)
    assert a100["global_memory_bus_bandwidth"] == 2 * 1_593_000_000 * (5120 // 8)
    assert len(h100) == 19 and a100["id"] == 1
    assert DeviceSpec(global_memory_bus_bandwidth=5).peak_bandwidth == 5


def test_device_presets_match_the_real_files(gpu_dir: Path) -> None:
    devices = load(gpu_dir / "gpu_ref.json")["devices"]
    assert devices[0] == DeviceSpec.h100(0).to_json()
    assert devices[1] == DeviceSpec.a100(1).to_json()
    assert [list(d) for d in devices] == [list(DeviceSpec.h100(0).to_json())] * 2


# -- spec Examples A and B ------------------------------------------------------------------------


def spec_example(shared_data: Path, heading: str) -> dict[str, Any]:
    spec = shared_data.parent / "spec" / "nvbench-json-format.md"
    if not spec.is_file():
        pytest.skip(f"spec not available: {spec}")
    lines = spec.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    begin = next(i for i in range(start, len(lines)) if lines[i].strip() == "```json")
    end = next(i for i in range(begin + 1, len(lines)) if lines[i].strip() == "```")
    result: dict[str, Any] = json.loads("\n".join(lines[begin + 1 : end]))
    return result


def version_of(document: dict[str, Any]) -> VersionInfo:
    nvbench = document["meta"]["version"]["nvbench"]
    return VersionInfo(
        git_branch=nvbench["git_branch"],
        git_sha=nvbench["git_sha"],
        git_version=nvbench["git_version"],
        git_is_dirty=nvbench["git_is_dirty"],
    )


def summaries_by_tag(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["tag"]: s for s in state["summaries"]}


def value(state: dict[str, Any], tag: str) -> str:
    result: str = summaries_by_tag(state)[tag]["data"][0]["value"]
    return result


def masked(document: dict[str, Any], prefixes: tuple[str, ...]) -> dict[str, Any]:
    """A copy with the values of sample-derived summaries blanked."""
    copy: dict[str, Any] = json.loads(json.dumps(document))
    for benchmark in copy["benchmarks"]:
        for state in benchmark["states"] or []:
            for summary in state["summaries"] or []:
                if summary["tag"].startswith(prefixes):
                    for datum in summary["data"]:
                        datum["value"] = None
    return copy


def test_example_a_structure(shared_data: Path, tmp_path: Path) -> None:
    example = spec_example(shared_data, "### 13.1")
    builder = ResultBuilder(
        devices=[DeviceSpec.a100(1), DeviceSpec.h100(0)],
        argv=example["meta"]["argv"],
        version=version_of(example),
    )
    bench = builder.benchmark(
        "copy",
        axes=[
            TypeAxis("T", ["F32", TypeValue("F64", active=False)]),
            Pow2Axis("Elements", [20]),
            StringAxis("Layout", ["contiguous", "strided"]),
        ],
    )
    states = {s["name"]: s for s in example["benchmarks"][0]["states"]}
    for name in reversed(list(states)):  # insertion order must not matter
        state = states[name]
        values = {"T": "F32", "Elements": 1 << 20, "Layout": name.rsplit("=", 1)[1]}
        if state["is_skipped"]:
            bench.state(values, device=state["device"], skip_reason=state["skip_reason"])
            continue
        size = int(value(state, "nv/cold/sample_size"))
        gpu = samples(size, size, float(value(state, "nv/cold/time/gpu/mean")))
        bench.state(
            values,
            device=state["device"],
            gpu_times=gpu,
            cpu_times=gpu + 6e-6,
            frequencies=np.full(size, float(value(state, "nv/cold/sm_clock_rate/mean"))),
            walltime=float(value(state, "nv/cold/walltime")),
            batch_mean=float(value(state, "nv/batch/time/gpu/mean")),
            batch_count=int(value(state, "nv/batch/sample_size")),
            batch_walltime=float(value(state, "nv/batch/walltime")),
            element_count=1 << 20,
            global_memory_bytes=2 * 4 * (1 << 20),  # one float read and one written
        )
    builder.write(tmp_path / "results" / "copy.json")
    written = load(tmp_path / "results" / "copy.json")
    assert key_shape(written) == key_shape(example)
    sample_derived = ("nv/cold/time/", "nv/cold/bw/", "nv/cold/sm_clock_rate/")
    assert masked(written, sample_derived) == masked(example, sample_derived)


def test_example_b_structure_and_single_sample_state(shared_data: Path, tmp_path: Path) -> None:
    example = spec_example(shared_data, "### 13.2")
    builder = ResultBuilder(
        devices=[DeviceSpec.h100(0)], argv=example["meta"]["argv"], version=version_of(example)
    )
    parse_rows = builder.benchmark(
        "parse_rows", axes=[Int64Axis("Rows", [1000, 100000])], devices=None
    )
    noop = builder.benchmark("noop", devices=None)
    for state in example["benchmarks"][0]["states"]:
        rows = int(state["axis_values"][0]["value"])
        size = int(value(state, "nv/cpu_only/sample_size"))
        parse_rows.state(
            {"Rows": rows},
            cpu_times=samples(rows, size, float(value(state, "nv/cpu_only/time/cpu/mean"))),
            walltime=float(value(state, "nv/cpu_only/walltime")),
            element_count=rows,
            global_memory_bytes=48 * rows,
        )
    single = example["benchmarks"][1]["states"][0]
    noop.state(
        cpu_times=[float(value(single, "nv/cpu_only/time/cpu/min"))],
        walltime=float(value(single, "nv/cpu_only/walltime")),
    )
    builder.write(tmp_path / "host.json")
    written = load(tmp_path / "host.json")
    assert key_shape(written) == key_shape(example)
    sample_derived = ("nv/cpu_only/time/", "nv/cpu_only/bw/")
    assert masked(written, sample_derived) == masked(example, sample_derived)
    # With one sample every statistic is determined: stdev inf, IQR 0, no Rel IQR (§6.8).
    assert written["benchmarks"][1] == example["benchmarks"][1]
    assert not (tmp_path / "host.json-freqs-bin").exists()


# -- the real GPU run, rebuilt from its own side files ---------------------------------------


def axes_from_json(axes: list[dict[str, Any]] | None) -> list[Any]:
    result: list[Any] = []
    for axis in axes or []:
        values = axis["values"]
        if axis["type"] == "type":
            result.append(
                TypeAxis(
                    axis["name"],
                    [
                        TypeValue(v["input_string"], v["description"], v["is_active"])
                        for v in values
                    ],
                )
            )
        elif axis["flags"] == "pow2":
            result.append(Pow2Axis(axis["name"], [int(v["input_string"]) for v in values]))
        elif axis["type"] == "int64":
            result.append(Int64Axis(axis["name"], [v["value"] for v in values]))
        elif axis["type"] == "float64":
            result.append(Float64Axis(axis["name"], [v["value"] for v in values]))
        else:
            result.append(StringAxis(axis["name"], [v["value"] for v in values]))
    return result


def typed(datum: dict[str, Any]) -> int | float | str:
    kind, raw = datum["type"], datum["value"]
    return int(raw) if kind == "int64" else float(raw) if kind == "float64" else str(raw)


def user_summary(summary: dict[str, Any]) -> Any:
    """The builder helper that produces this kind of user summary (§5.3.5)."""
    data = summary["data"]
    tag = summary["tag"]
    if tag.startswith("nv/element_count/"):
        return element_count_summary(int(data[0]["value"]), tag.split("/", 2)[2])
    if summary.get("hint") == "bytes":
        column = "" if "hide" in summary else summary["name"]
        size = int(data[0]["value"])
        return buffer_size_summary(size, tag, column, summary.get("description", ""))
    return UserSummary(
        tag,
        typed(data[0]),
        name=summary.get("name"),
        description=summary.get("description"),
        hint=summary.get("hint"),
        hide=summary.get("hide"),
        extra={d["name"]: typed(d) for d in data[1:]},
    )


def side_samples(json_path: Path, state: dict[str, Any], tag: str) -> np.ndarray[Any, Any]:
    data = {d["name"]: d["value"] for d in summaries_by_tag(state)[tag]["data"]}
    return np.fromfile(json_path.parent / data["filename"], "<f4")


def test_rebuild_real_gpu_run_from_its_side_files(gpu_dir: Path, tmp_path: Path) -> None:
    source = gpu_dir / "gpu_ref.json"
    original = load(source)
    builder = ResultBuilder(
        devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)],
        argv=original["meta"]["argv"],
        version=version_of(original),
    )
    for benchmark in original["benchmarks"]:
        bench = builder.benchmark(
            benchmark["name"],
            axes=axes_from_json(benchmark["axes"]),
            devices=benchmark["devices"],
            timeout=benchmark["timeout"],
        )
        for state in benchmark["states"]:
            values = {a["name"]: typed(a) for a in state["axis_values"]}
            # The file stores type-axis values as strings, as the builder expects.
            if state["is_skipped"]:
                bench.state(values, device=state["device"], skip_reason=state["skip_reason"])
                continue
            summaries = summaries_by_tag(state)
            gpu = side_samples(source, state, "nv/json/bin:nv/cold/sample_times").astype(np.float64)
            freqs = side_samples(source, state, "nv/json/freqs-bin:nv/cold/sample_freqs")
            mean = float(value(state, "nv/cold/time/gpu/mean"))
            # Element and byte counts are not stored; recover them from the rates NVBench wrote.
            elements = round(float(value(state, "nv/cold/bw/item_rate")) * mean)
            byte_rate = summaries.get("nv/cold/bw/global/bytes_per_second")
            memory = 0 if byte_rate is None else round(float(byte_rate["data"][0]["value"]) * mean)
            before = [
                user_summary(s)
                for s in state["summaries"]
                if not s["tag"].startswith(("nv/cold/", "nv/batch/", "nv/json/"))
            ]
            bench.state(
                values,
                device=state["device"],
                gpu_times=gpu,
                cpu_times=gpu + 4.1e-6,  # CPU samples are not in the side files
                frequencies=freqs,
                walltime=float(value(state, "nv/cold/walltime")),
                batch_mean=float(value(state, "nv/batch/time/gpu/mean")),
                batch_count=int(value(state, "nv/batch/sample_size")),
                batch_walltime=float(value(state, "nv/batch/walltime")),
                element_count=elements,
                global_memory_bytes=memory,
                summaries_before=before,
            )
    target = tmp_path / "gpu_ref.json"
    builder.write(target)
    written = load(target)
    assert key_shape(written) == key_shape(original)
    # Everything but sample-derived statistics is identical, side-file references included.
    approximate = ("nv/cold/time/", "nv/cold/bw/")
    assert masked(written, approximate) == masked(original, approximate)
    for bench_w, bench_o in zip(written["benchmarks"], original["benchmarks"], strict=True):
        for state_w, state_o in zip(bench_w["states"], bench_o["states"], strict=True):
            if not state_o["summaries"]:
                continue
            for tag in ("min", "max", "q1", "median", "q3"):
                got = float(value(state_w, f"nv/cold/time/gpu/{tag}"))
                want = float(value(state_o, f"nv/cold/time/gpu/{tag}"))
                assert np.float32(got) == np.float32(want), (state_o["name"], tag)
            for tag in ("nv/cold/time/gpu/mean", "nv/cold/bw/item_rate"):
                assert float(value(state_w, tag)) == pytest.approx(
                    float(value(state_o, tag)), rel=1e-6
                )
            for tag in (
                "nv/json/bin:nv/cold/sample_times",
                "nv/json/freqs-bin:nv/cold/sample_freqs",
            ):
                name = summaries_by_tag(state_o)[tag]["data"][0]["value"]
                assert (target.parent / name).read_bytes() == (source.parent / name).read_bytes()
