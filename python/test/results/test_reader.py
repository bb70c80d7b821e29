"""The mapping API on real NVBench files: concrete values, lazy side files, tolerance."""

from __future__ import annotations

import copy
import json
import pickle
import shutil
import statistics
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _reader_helpers import REAL_FILES, contents
from conftest import real_path
from cuda.bench.results import (
    BenchmarkResult,
    BenchmarkResultDevice,
    BenchmarkResultSummary,
    FileOutline,
    NVBenchFormatWarning,
    ReadMode,
    ResultFormatError,
    SharedStateNamesWarning,
    SideFileError,
    SubBenchmarkResult,
    SubBenchmarkState,
)


def test_public_names_live_in_results_module() -> None:
    for cls in (
        BenchmarkResult,
        SubBenchmarkResult,
        SubBenchmarkState,
        BenchmarkResultSummary,
        BenchmarkResultDevice,
    ):
        assert cls.__module__ == "cuda.bench.results"


def test_gpu_reference_structure(gpu_dir: Path) -> None:
    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    assert list(result) == ["copy_bench", "misc"]
    assert len(result) == 2
    assert "copy_bench" in result and "nope" not in result
    assert list(result.keys()) == ["copy_bench", "misc"]
    assert [bench.name for bench in result.values()] == ["copy_bench", "misc"]
    assert dict(result.items())["misc"] is result["misc"]
    with pytest.raises(KeyError):
        result["nope"]
    assert result.devices[0].name == "NVIDIA H100 80GB HBM3"
    assert result.devices[1].name == "NVIDIA A100-SXM4-80GB"
    assert result.devices[1]["sm_default_clock_rate"] == 1410000000
    assert len(result.devices[0].data) == 19
    copy = result["copy_bench"]
    assert len(copy) == 16
    assert copy.devices == [0, 1]
    assert [axis.name for axis in copy.axes] == ["T", "Elements", "Layout"]
    assert copy.axis("Elements") is not None and copy.axis("Elements").is_pow2  # type: ignore[union-attr]
    assert result.meta.json_version == "1.0.0"
    assert result.meta.argv[:3] == ("./gpu_bench", "--jsonbin", "gpu_ref.json")


def test_state_fields_and_pow2_point(gpu_dir: Path) -> None:
    copy = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    state = copy[0]
    assert state.state_name == "Device=0 T=F32 Elements=2^16 Layout=contiguous"
    assert state.key == "T=F32 Elements=2^16 Layout=contiguous"
    assert state.device == 0
    assert state.type_config_index == 0
    assert state.point == {"T": "F32", "Elements[pow2]": "16", "Layout": "contiguous"}
    assert state.name() == "T=F32 Elements[pow2]=16 Layout=contiguous"
    elements = state.axis_values[1]
    assert (elements.name, elements.value, elements.typed) == ("Elements", "65536", 65536)
    assert elements["name"] == "Elements"
    assert copy[-1].device == 1
    assert [s.state_name for s in copy[1:3]] == [copy[1].state_name, copy[2].state_name]


def test_skipped_states_and_reasons(gpu_dir: Path) -> None:
    copy = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    skipped = [state for state in copy if state.is_skipped]
    assert len(skipped) == 4
    assert all("F64" in state.state_name and "strided" in state.state_name for state in skipped)
    assert all(state.skip_reason for state in skipped)
    assert all(state.summaries == {} for state in skipped)
    assert all(state.samples is None for state in skipped)
    assert all(not state.skip_reason for state in copy if not state.is_skipped)


def test_summaries_are_typed(gpu_dir: Path) -> None:
    misc = BenchmarkResult(gpu_dir / "gpu_ref.json")["misc"]
    state = misc[0]
    mean = state.summaries["nv/cold/time/gpu/mean"]
    assert isinstance(mean.value, float)
    assert mean.name == "GPU Time" and mean.hint == "duration" and mean.hide is None
    samples = state.summaries["nv/cold/sample_size"]
    assert samples.value == 50 and isinstance(samples.value, int)
    custom = state.summaries["my/str"]
    assert custom.value == "hello"
    assert custom["extra"] == 42
    assert custom.get("missing", "x") == "x"
    assert state.summaries["my/custom"].value == pytest.approx(1 / 3)
    assert state.summaries["nv/cold/walltime"].is_hidden
    ratios = [s.axis_values[0].typed for s in misc if s.device == 0]
    assert ratios == [0.25, 1.0, 123456.789, 1e-07]
    assert misc[2].point["Ratio"] == "1.2346e+05"


@pytest.mark.parametrize("mode", list(ReadMode))
def test_the_parts_of_a_result_are_read_only(gpu_dir: Path, mode: ReadMode) -> None:
    # Changes made through them persisted: a summary's value then differed from
    # state.value(tag), a popped summary made state.summary(tag) raise KeyError, and a
    # device's name differed from its recorded one.
    result = BenchmarkResult(gpu_dir / "gpu_ref.json", mode=mode)
    state, tag = result["copy_bench"][0], "nv/cold/time/gpu/mean"
    summary = state.summaries[tag]
    device = result["copy_bench"].device_info[0]
    attempts = [
        lambda: summary.data.__setitem__("value", -1.0),
        lambda: state.summaries.pop(tag),
        lambda: state.summaries.__setitem__(tag, summary),
        lambda: device.data.__setitem__("name", "X"),
        lambda: result.devices.pop(0),
        lambda: result.subbenches.pop("copy_bench"),
    ]
    for attempt in attempts:
        with pytest.raises((TypeError, AttributeError)):
            attempt()
    assert state.summaries[tag].value == state.value(tag) == summary.value
    assert state.summary(tag) is summary
    assert device["name"] == device.name == result.devices[0].name
    assert "copy_bench" in result.subbenches
    # Still the dicts NVIDIA's reader hands out: scripts written for it serialise them
    # and test their type (a read-only mapping proxy failed both).
    for part in (state.summaries, summary.data, device.data, result.devices, result.subbenches):
        assert isinstance(part, dict)
    assert json.loads(json.dumps(device.data)) == dict(device.data)
    assert json.loads(json.dumps({t: str(v.value) for t, v in state.summaries.items()}))
    assert pickle.loads(pickle.dumps(state.summaries[tag])) == summary
    # Copies stay read-only, a whole result's too (a deep copy with plain dicts inside
    # could be made to contradict itself); dict(x) is the copy to change.
    whole = copy.deepcopy(result)
    for part in (copy.copy(device.data), copy.deepcopy(device.data), whole.subbenches):
        with pytest.raises(TypeError):
            part.pop("name" if part is not whole.subbenches else "copy_bench")
    assert isinstance(copy.deepcopy(device.data), dict)
    editable = dict(device.data)
    editable["name"] = "X"
    assert device.data["name"] == device.name != "X"


def test_views_made_by_hand_copy_what_they_are_given() -> None:
    data: dict[str, Any] = {"value": 1.5}
    summary = BenchmarkResultSummary("t", None, None, None, None, data)
    fields: dict[str, Any] = {"id": 0, "name": "H100"}
    device = BenchmarkResultDevice(0, "H100", fields)
    data["value"], fields["name"] = 2.5, "X"
    assert summary.value == 1.5 and device["name"] == "H100"
    assert summary == BenchmarkResultSummary("t", None, None, None, None, {"value": 1.5})
    for value in (summary, device):  # the compare workers send rows back pickled
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"mode": "slim"}, TypeError, r"mode must be a ReadMode .* \(for 'slim': ReadMode.SLIM\)"),
        ({"mode": "lazy"}, TypeError, "ReadMode.LAZY"),
        ({"mode": "bogus"}, TypeError, "mode must be a ReadMode .* got 'bogus'$"),
        ({"mode": 1}, TypeError, "mode must be a ReadMode"),
        ({"lazy": "no"}, TypeError, "lazy must be True or False, got 'no'"),
        ({"lazy": 0}, TypeError, "lazy must be True or False"),
        ({"check_counts": "yes"}, TypeError, "check_counts must be True or False"),
        ({"side_files_anywhere": 1}, TypeError, "side_files_anywhere must be True or False"),
    ],
)
def test_reader_arguments_of_the_wrong_kind_are_refused(
    gpu_dir: Path, arguments: dict[str, Any], error: type[Exception], match: str
) -> None:
    # They were read as something else without a word: mode='slim' or 1 in FULL mode (the
    # reader tests `mode is ReadMode.X`), lazy='no' as lazy.
    path = gpu_dir / "gpu_ref.json"
    with pytest.raises(error, match=match):
        BenchmarkResult(path, **arguments)
    with pytest.raises(error, match=match):
        BenchmarkResult.from_json(path, **arguments)
    for mode in (*ReadMode, None):
        assert len(BenchmarkResult(path, mode=mode, lazy=False, side_files_anywhere=None)) > 0


def test_from_outline_takes_a_bool_check_counts(gpu_dir: Path) -> None:
    outline = FileOutline.read(gpu_dir / "gpu_ref.json")
    assert outline is not None
    with pytest.raises(TypeError, match="check_counts must be True or False"):
        BenchmarkResult.from_outline(outline, check_counts="no")  # type: ignore[arg-type]


def test_inf_and_nan_strings_become_floats(tmp_path: Path, cpu_dir: Path) -> None:
    doc = json.loads((cpu_dir / "cpu_run1.json").read_text())
    summaries = doc["benchmarks"][0]["states"][0]["summaries"]
    summaries[0]["data"][0] = {"name": "value", "type": "float64", "value": "inf"}
    summaries[1]["data"][0] = {"name": "value", "type": "float64", "value": "-nan"}
    summaries[2]["data"] = [{"name": "value", "type": "float64", "value": None}]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    state = BenchmarkResult(path)["host_sort"][0]
    tags = [summary["tag"] for summary in summaries[:3]]
    assert state.value(tags[0]) == float("inf")
    assert np.isnan(state.value(tags[1]))  # type: ignore[arg-type]
    assert state.value(tags[2]) is None


def test_side_files_are_lazy_and_cached(tmp_path: Path, gpu_dir: Path) -> None:
    target = tmp_path / "run"
    shutil.copytree(gpu_dir, target, ignore=shutil.ignore_patterns("*.md", "*.csv"))
    result = BenchmarkResult(target / "gpu_ref.json")
    # Loading must not touch the side files: delete one now, the state still loads.
    state = result["copy_bench"][1]
    (target / "gpu_ref.json-bin" / "1.bin").unlink()
    assert state.samples is None
    first = result["copy_bench"][0]
    samples = first.samples
    assert samples is not None and samples.dtype == np.float32
    assert samples.size == 2000 == first.value("nv/cold/sample_size")
    assert first.samples is samples
    assert first.frequencies is not None and first.frequencies.size == samples.size
    assert not samples.flags.writeable


def test_sample_counts_of_side_files(gpu_dir: Path, cpu_dir: Path) -> None:
    copy = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    counts = {s.state_name: s.samples.size for s in copy if s.samples is not None}  # type: ignore[union-attr]
    assert counts["Device=0 T=F32 Elements=2^16 Layout=contiguous"] == 2000
    assert counts["Device=0 T=F32 Elements=2^20 Layout=contiguous"] == 500
    cpu = BenchmarkResult(cpu_dir / "cpu_run1.json")
    sizes = [s.samples.size for s in cpu.states() if s.samples is not None]  # type: ignore[union-attr]
    assert sizes == [144096, 2224, 4144, 20000]
    cpu2 = BenchmarkResult(cpu_dir / "cpu_run2.json")
    sizes2 = [s.samples.size for s in cpu2.states() if s.samples is not None]  # type: ignore[union-attr]
    assert sizes2 == [201760, 4048, 4272, 20000]


def test_plain_json_written_beside_jsonbin_finds_the_side_files(gpu_dir: Path) -> None:
    plain = BenchmarkResult(gpu_dir / "gpu_ref_plain.json")["copy_bench"][0]
    assert plain.samples is not None and plain.samples.size == 2000


def test_nosidecar_file_has_no_samples(gpu_dir: Path) -> None:
    result = BenchmarkResult(gpu_dir / "gpu_ref_nosidecar.json")
    assert all(state.samples is None for state in result.states())
    assert all(state.frequencies is None for state in result.states())


def test_centers(gpu_dir: Path, cpu_dir: Path) -> None:
    cpu = BenchmarkResult(cpu_dir / "cpu_run1.json")
    centers = cpu.centers(statistics.median)
    assert set(centers) == {"host_sort", "tiny"}
    host = centers["host_sort"]
    assert list(host) == [
        "Elements[pow2]=10 Mode=spin",
        "Elements[pow2]=16 Mode=spin",
        "Elements[pow2]=10 Mode=sleep",
        "Elements[pow2]=16 Mode=sleep",
    ]
    assert host["Elements[pow2]=16 Mode=sleep"] is None
    spin = cpu["host_sort"][0]
    assert host["Elements[pow2]=10 Mode=spin"] == pytest.approx(float(np.median(spin.samples)))
    # Two devices share axis points: keyed by name() as NVIDIA's (the last device's value,
    # with a warning), every device's value still there (issue #28).
    bench = BenchmarkResult(gpu_dir / "gpu_ref.json")["copy_bench"]
    with pytest.warns(SharedStateNamesWarning, match="devices 0, 1 share names"):
        gpu = bench.centers(np.median)
    assert len(gpu) == 8 and list(gpu) == list(dict.fromkeys(state.name() for state in bench))
    name = "T=F32 Elements[pow2]=16 Layout=contiguous"
    device0, device1 = (bench.states[i] for i in (0, 8))
    assert device0.name() == device1.name() == name
    assert gpu[name] == gpu[f"Device=1 {name}"] == pytest.approx(np.median(device1.samples))
    assert gpu[device0.center_key] == pytest.approx(np.median(device0.samples))
    assert gpu[device0.center_key] != gpu[name]
    assert gpu.by_device()[0][name] == gpu[f"Device=0 {name}"]
    assert sorted(gpu.by_device()) == [0, 1] and len(gpu.by_device()[1]) == 8
    with pytest.warns(SharedStateNamesWarning):
        with_freqs = BenchmarkResult(gpu_dir / "gpu_ref.json").centers_with_frequencies(
            lambda t, f: float(np.median(t.astype(np.float64) * f))
        )
    cycles = with_freqs["copy_bench"]["Device=0 T=F32 Elements[pow2]=16 Layout=contiguous"]
    assert cycles is not None and 5000 < cycles < 6000  # ~3.2 us at ~1.75 GHz


def test_a_shared_names_warning_points_at_the_callers_line(gpu_dir: Path) -> None:
    # Through BenchmarkResult.centers it named python/cuda_bench/results/_model.py, not the
    # caller (a fixed stacklevel fitted SubBenchmarkResult.centers only).
    result = BenchmarkResult(gpu_dir / "gpu_ref.json")
    for call in (
        lambda: result.centers(np.median),
        lambda: result["copy_bench"].centers(np.median),
        lambda: result.centers_with_frequencies(lambda t, f: float(np.median(t))),
    ):
        with pytest.warns(SharedStateNamesWarning) as caught:
            call()
        assert {Path(one.filename).name for one in caught} == {Path(__file__).name}


def test_cpu_only_states_ignore_the_device_field(cpu_dir: Path) -> None:
    result = BenchmarkResult(cpu_dir / "cpu_run1.json")
    assert result.devices == {}
    tiny = result["tiny"]
    assert tiny.devices == [] and tiny.is_cpu_only
    state = tiny[0]
    assert state.state_name == "" and state.device is None
    assert state.point == {} and state.name() == ""
    assert state._raw.device not in (None, 0)  # the garbage NVBench wrote is really there


def test_upstream_2021_files(upstream_2021_dir: Path) -> None:
    result = BenchmarkResult(upstream_2021_dir / "ref.json")
    assert list(result) == [
        "simple",
        "single_float64_axis",
        "copy_sweep_grid_shape",
        "copy_type_sweep",
        "copy_type_conversion_sweep",
    ]
    states = list(result.states())
    assert len(states) == 126
    assert sum(state.is_skipped for state in states) == 38
    assert {d.name for d in result.devices.values()} == {"Quadro GV100", "Quadro GP100"}
    simple = result["simple"]
    assert [s.state_name for s in simple] == ["Device=0", "Device=1"]
    assert simple[0].axis_values == () and simple[0].point == {}
    sweep = result["copy_sweep_grid_shape"][0]
    assert sweep.point == {"BlockSize[pow2]": "6", "NumBlocks[pow2]": "6"}
    assert result["copy_type_sweep"][0].axis_values[0].axis_type == "type"
    assert simple[0].samples is None
    assert simple[0].value("nv/cold/time/gpu/q1") is None
    assert simple[0].float_value("nv/cold/time/gpu/mean") is not None


def test_empty_and_metadata() -> None:
    marker = object()
    empty = BenchmarkResult.empty(metadata=marker)
    assert len(empty) == 0 and empty.devices == {} and empty.metadata is marker
    assert BenchmarkResult().path is None


def test_from_json_keeps_metadata(gpu_dir: Path) -> None:
    marker = {"run": 3}
    result = BenchmarkResult.from_json(gpu_dir / "gpu_ref.json", metadata=marker)
    assert result.metadata is marker


def test_dataframes(cpu_dir: Path, gpu_dir: Path) -> None:
    pytest.importorskip("pandas")
    frame = BenchmarkResult(gpu_dir / "gpu_ref.json").to_dataframe()
    assert len(frame) == 24
    assert {"benchmark", "device", "device_name", "state", "T", "Elements", "Ratio"} <= set(
        frame.columns
    )
    copy = frame[frame["benchmark"] == "copy_bench"]
    assert copy["skipped"].sum() == 4
    assert set(copy["device_name"]) == {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"}
    assert str(frame["Elements"].dtype) == "Int64"
    assert frame["nv/cold/time/gpu/mean"].notna().sum() == 20
    cpu = BenchmarkResult(cpu_dir / "cpu_run1.json")
    samples = cpu.samples_dataframe(lambda state: state.benchmark.name == "tiny")
    assert len(samples) == 20000 and set(samples["benchmark"]) == {"tiny"}
    gpu = BenchmarkResult(gpu_dir / "gpu_ref.json")
    first = gpu.samples_dataframe(lambda state: state is gpu["misc"][0])
    assert len(first) == 50
    assert np.allclose(first["cycles"], first["time"] * first["frequency"])


def test_no_version_warns_on_stderr_not_stdout(
    tmp_path: Path, cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads((cpu_dir / "cpu_run1.json").read_text())
    del doc["meta"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    with pytest.warns(NVBenchFormatWarning, match="no JSON format version"):
        BenchmarkResult(path)
    assert capsys.readouterr().out == ""


def test_duplicate_benchmark_names_kept_in_benchmarks(tmp_path: Path, cpu_dir: Path) -> None:
    doc = json.loads((cpu_dir / "cpu_run1.json").read_text())
    doc["benchmarks"].append(doc["benchmarks"][0])
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(doc))
    with pytest.warns(NVBenchFormatWarning, match="more than once"):
        result = BenchmarkResult(path)
    assert len(result) == 2 and len(result.benchmarks) == 3
    assert result["host_sort"] is result.benchmarks[0]


def _map_layout(doc: dict) -> dict:  # type: ignore[type-arg]
    """Rewrite a current document into the unversioned pre-2021-12-25 map layout."""
    benches = []
    for bench in doc["benchmarks"]:
        states = {}
        for state in bench["states"]:
            summaries = None
            if state["summaries"] is not None:
                summaries = {}
                for summary in state["summaries"]:
                    entry = {
                        k: summary[k]
                        for k in ("name", "hint", "hide", "description")
                        if k in summary
                    }
                    for datum in summary.get("data", []):
                        entry[datum["name"]] = {"type": datum["type"], "value": datum["value"]}
                    summaries[summary["tag"]] = entry
            converted = {
                "device": state["device"],
                "type_config_index": state["type_config_index"],
                "axis_values": {
                    v["name"]: {"type": v["type"], "value": v["value"]}
                    for v in state["axis_values"] or []
                },
                "summaries": summaries,
                "is_skipped": state["is_skipped"],
            }
            if "skip_reason" in state:
                converted["skip_reason"] = state["skip_reason"]
            states[state["name"]] = converted
        axes = {
            axis["name"]: {k: axis[k] for k in ("type", "flags", "values")}
            for axis in bench["axes"] or []
        }
        benches.append(
            {
                "index": bench["index"],
                "name": bench["name"],
                "devices": bench["devices"],
                "axes": axes,
                "states": states,
            }
        )
    return {"devices": doc["devices"], "benchmarks": benches}


def test_unversioned_map_layout(tmp_path: Path, upstream_2021_dir: Path) -> None:
    current = BenchmarkResult(upstream_2021_dir / "ref.json")
    doc = json.loads((upstream_2021_dir / "ref.json").read_text())
    path = tmp_path / "map.json"
    path.write_text(json.dumps(_map_layout(doc)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        old = BenchmarkResult(path)
    assert list(old) == list(current)
    for new_state, old_state in zip(current.states(), old.states(), strict=False):
        assert old_state.state_name == new_state.state_name
        assert old_state.point == new_state.point
        assert old_state.is_skipped == new_state.is_skipped
        assert old_state.skip_reason == new_state.skip_reason
        assert old_state.summaries == new_state.summaries


def test_native_numbers_from_before_string_encoding(
    tmp_path: Path, upstream_2021_dir: Path
) -> None:
    doc = json.loads((upstream_2021_dir / "ref.json").read_text())
    for bench in doc["benchmarks"]:
        for state in bench["states"]:
            for value in state["axis_values"] or []:
                if value["type"] == "int64":
                    value["value"] = int(value["value"])
            for summary in state["summaries"] or []:
                for datum in summary.get("data", []):
                    if datum["type"] == "float64":
                        datum["value"] = float(datum["value"])
    path = tmp_path / "native.json"
    path.write_text(json.dumps(doc))
    native = BenchmarkResult(path)
    current = BenchmarkResult(upstream_2021_dir / "ref.json")
    for new_state, old_state in zip(current.states(), native.states(), strict=False):
        assert old_state.point == new_state.point
        assert old_state.summaries == new_state.summaries


def test_side_file_wrong_size_raises_at_access(tmp_path: Path, gpu_dir: Path) -> None:
    target = tmp_path / "run"
    shutil.copytree(gpu_dir, target, ignore=shutil.ignore_patterns("*.md", "*.csv"))
    broken = target / "gpu_ref.json-bin" / "0.bin"
    broken.write_bytes(broken.read_bytes()[:-4])
    result = BenchmarkResult(target / "gpu_ref.json")  # loading is fine
    with pytest.raises(SideFileError, match=r"0\.bin.*7996 bytes, expected 8000"):
        _ = result["copy_bench"][0].samples
    assert isinstance(SideFileError("f", "p"), ValueError)


def test_sample_frequency_count_mismatch(tmp_path: Path, gpu_dir: Path) -> None:
    target = tmp_path / "run"
    shutil.copytree(gpu_dir, target, ignore=shutil.ignore_patterns("*.md", "*.csv"))
    doc = json.loads((target / "gpu_ref.json").read_text())
    state = doc["benchmarks"][0]["states"][0]
    freqs = next(s for s in state["summaries"] if s["tag"].startswith("nv/json/freqs-bin"))
    # Point the frequencies at another state's file with a different count.
    freqs["data"] = [
        {"name": "filename", "type": "string", "value": "gpu_ref.json-freqs-bin/1.bin"},
        {"name": "size", "type": "int64", "value": "500"},
    ]
    (target / "gpu_ref.json").write_text(json.dumps(doc))
    # Refused when loading, from the counts the JSON records (as NVIDIA's reader does) ...
    with pytest.raises(
        ValueError, match=r"sample count \(2000\) does not match frequency count \(500\)"
    ):
        BenchmarkResult(target / "gpu_ref.json")
    # ... or, read without that check, when the side files are.
    state_view = BenchmarkResult(target / "gpu_ref.json", check_counts=False)["copy_bench"][0]
    with pytest.raises(SideFileError, match=r"500 frequencies.*2000 samples"):
        _ = state_view.frequencies


def test_side_file_resolution_order(tmp_path: Path, gpu_dir: Path) -> None:
    # Legacy layout: the recorded path is relative to the benchmark's working directory.
    results = tmp_path / "work" / "results"
    results.mkdir(parents=True)
    doc = json.loads((gpu_dir / "gpu_ref.json").read_text())
    for bench in doc["benchmarks"]:
        for state in bench["states"]:
            for summary in state["summaries"] or []:
                for datum in summary.get("data", []):
                    if datum["name"] == "filename":
                        datum["value"] = "results/" + datum["value"]
    (results / "gpu_ref.json").write_text(json.dumps(doc))
    shutil.copytree(gpu_dir / "gpu_ref.json-bin", results / "gpu_ref.json-bin")
    legacy = BenchmarkResult(results / "gpu_ref.json")["copy_bench"][0]
    assert legacy.sample_file == results / "gpu_ref.json-bin" / "0.bin"
    assert legacy.samples is not None
    # Parent-of-directory fallback: the JSON was moved one level down. That is outside the
    # JSON file's tree, so only read when asked (docs/security.md); otherwise it is not
    # looked at, and the side file is missing, as one that does not exist there.
    nested = tmp_path / "nested" / "sub"
    nested.mkdir(parents=True)
    shutil.copy(gpu_dir / "gpu_ref.json", nested / "copy.json")
    shutil.copytree(gpu_dir / "gpu_ref.json-bin", tmp_path / "nested" / "gpu_ref.json-bin")
    moved = BenchmarkResult(nested / "copy.json", side_files_anywhere=True)["copy_bench"][0]
    assert moved.sample_file == tmp_path / "nested" / "gpu_ref.json-bin" / "0.bin"
    refused = BenchmarkResult(nested / "copy.json")["copy_bench"][0]
    assert refused.sample_file is None and refused.samples is None


def test_side_files_never_resolved_from_cwd(
    tmp_path: Path, gpu_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(gpu_dir / "gpu_ref.json", alone / "gpu_ref.json")
    monkeypatch.chdir(gpu_dir)  # the side files do exist relative to the cwd
    state = BenchmarkResult(alone / "gpu_ref.json")["copy_bench"][0]
    assert state.sample_file is None and state.samples is None


def test_relative_path_survives_chdir(
    tmp_path: Path, gpu_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(gpu_dir.parent)
    result = BenchmarkResult(Path("gpu") / "gpu_ref.json")
    monkeypatch.chdir(tmp_path)
    assert result["copy_bench"][0].samples is not None


def test_bad_summary_value_names_file_and_path(tmp_path: Path, cpu_dir: Path) -> None:
    doc = json.loads((cpu_dir / "cpu_run1.json").read_text())
    doc["benchmarks"][1]["states"][0]["summaries"][2]["data"][0]["value"] = "fast"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    state = BenchmarkResult(path)["tiny"][0]
    with pytest.raises(ResultFormatError) as info:
        _ = state.summaries
    message = str(info.value)
    assert str(path) in message
    assert "$.benchmarks[1].states[0].summaries[2].data[0].value" in message


# -- the full reader (lazy=False, what a comparison uses) --------------------------------------


@pytest.mark.parametrize("relative", REAL_FILES)
def test_full_and_lazy_readers_agree(relative: str) -> None:
    path = real_path(relative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        lazy, full = BenchmarkResult(path), BenchmarkResult(path, lazy=False)
    assert full.devices == lazy.devices
    assert contents(full) == contents(lazy)
    assert contents(full)  # states with summaries were compared, not two empty lists


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_full_reader_leaves_the_file_neither_mapped_nor_open(tmp_path: Path, gpu_dir: Path) -> None:
    path = tmp_path / "run.json"
    shutil.copyfile(gpu_dir / "gpu_ref.json", path)
    result = BenchmarkResult(path, lazy=False)
    assert str(path) not in Path("/proc/self/maps").read_text()
    open_files = {str(fd.resolve()) for fd in Path("/proc/self/fd").iterdir() if fd.is_symlink()}
    assert str(path.resolve()) not in open_files
    path.unlink()  # nothing refers to the file any more: every summary is still there
    assert contents(result) == contents(BenchmarkResult(gpu_dir / "gpu_ref.json"))


def test_full_reader_reads_a_file_its_one_pass_cannot(
    monkeypatch: pytest.MonkeyPatch, gpu_dir: Path
) -> None:
    from cuda.bench.results import _parse

    def refuse(path: object) -> None:
        return None  # as for a file that is not a regular file

    monkeypatch.setattr(_parse, "read_file", refuse)
    result = BenchmarkResult(gpu_dir / "gpu_ref.json", lazy=False)
    monkeypatch.undo()
    assert contents(result) == contents(BenchmarkResult(gpu_dir / "gpu_ref.json"))


def test_files_are_read_into_memory_never_mapped(
    monkeypatch: pytest.MonkeyPatch, gpu_dir: Path
) -> None:
    """A map of a file truncated while it is decoded ends the process with SIGBUS: no read
    mode may decode from one."""
    import mmap

    from cuda.bench.results import ReadMode

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a result file was mapped")

    monkeypatch.setattr(mmap, "mmap", refuse)
    for mode in ReadMode:
        result = BenchmarkResult(gpu_dir / "gpu_ref.json", mode=mode)
        assert contents(result) == contents(BenchmarkResult(gpu_dir / "gpu_ref.json"))
