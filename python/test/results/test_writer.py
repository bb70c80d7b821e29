"""write_document: JSON text layout (§2.1), --jsonbin side files (§7), atomicity, and that
NVIDIA's own reader accepts what we write."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from cuda.bench.results import BenchmarkResult, SideFileError, _writer
from cuda.bench.results._axes import Float64Axis, Int64Axis, StringAxis
from cuda.bench.results._builder import ResultBuilder
from cuda.bench.results._devices import DeviceSpec
from cuda.bench.results._schema import Document
from cuda.bench.results._writer import encode_document, write_document
from hypothesis import given, settings
from hypothesis import strategies as st

# -- helpers ------------------------------------------------------------------------------------


def python_layout(document: Document) -> bytes:
    """§2.1's recipe, the reference for the text layout."""
    text = json.dumps(msgspec.to_builtins(document), indent=2, ensure_ascii=False) + "\n"
    return text.encode("utf-8")


def decode(path: Path) -> Document:
    return msgspec.json.decode(path.read_bytes(), type=Document)


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as stream:
        result: dict[str, Any] = json.load(stream)
    return result


def all_states(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for benchmark in document["benchmarks"]:
        yield from benchmark["states"] or []


def side_refs(state: dict[str, Any]) -> dict[str, tuple[str, int]]:
    """tag -> (filename, size) of the side-file summaries of a state."""
    refs = {}
    for summary in state["summaries"] or []:
        if summary["tag"].startswith(("nv/json/bin:", "nv/json/freqs-bin:")):
            data = {d["name"]: d["value"] for d in summary["data"]}
            refs[summary["tag"]] = (data["filename"], int(data["size"]))
    return refs


def listing(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def mixed_run() -> ResultBuilder:
    """A GPU benchmark (with a skipped and a zero-sample state) and a CPU-only one."""
    rng = np.random.default_rng(11)
    builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
    gpu = builder.benchmark("gpu", axes=[StringAxis("Layout", ["a", "b", "c"])])
    for device in (0, 1):
        times = rng.lognormal(-11, 0.01, 40)
        gpu.state(
            {"Layout": "a"},
            device=device,
            gpu_times=times,
            cpu_times=times + 3e-6,
            frequencies=rng.normal(1.7e9, 1e6, 40),
            batch_mean=1e-5,
            batch_count=1000,
        )
        gpu.state({"Layout": "b"}, device=device, skip_reason="skipped")
        gpu.state({"Layout": "c"}, device=device, gpu_times=[], walltime=0.5)
    host = builder.benchmark("host", axes=[Int64Axis("Rows", [1, 2])], devices=None)
    for rows in (1, 2):
        host.state({"Rows": rows}, cpu_times=rng.lognormal(-9, 0.1, 7 * rows))
    cold = builder.benchmark("after_host", devices=[1])
    cold.state(device=1, gpu_times=rng.lognormal(-11, 0.01, 5), frequencies=np.full(5, 1.4e9))
    return builder


# -- JSON text ------------------------------------------------------------------------------------


def test_encoding_reproduces_real_files_byte_for_byte(gpu_dir: Path, cpu_dir: Path) -> None:
    for path in (
        gpu_dir / "gpu_ref.json",
        gpu_dir / "gpu_ref_nosidecar.json",
        cpu_dir / "cpu_run1.json",
    ):
        raw = path.read_bytes()
        assert encode_document(msgspec.json.decode(raw, type=Document)) == raw, path


def test_encoding_reproduces_legacy_file(upstream_2021_dir: Path) -> None:
    raw = (upstream_2021_dir / "ref.json").read_bytes()
    assert encode_document(msgspec.json.decode(raw, type=Document)) == raw


floats = st.floats(allow_nan=False, allow_infinity=False)
texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)


@settings(max_examples=60)
@given(
    ratios=st.lists(floats, min_size=1, max_size=4, unique=True),
    timeout=floats,
    layouts=st.lists(texts, min_size=1, max_size=3, unique=True),
    argv=st.lists(texts, max_size=3),
)
def test_encoding_matches_python_json_layout(
    ratios: list[float], timeout: float, layouts: list[str], argv: list[str]
) -> None:
    # -0.0 and 0.0 are one axis value for the builder.
    ratios = list({0.0 if r == 0 else r: None for r in ratios})
    builder = ResultBuilder(argv=argv)
    bench = builder.benchmark(
        "b",
        axes=[Float64Axis("Ratio", ratios), StringAxis("Layout", layouts)],
        timeout=timeout,
        skip_time=timeout / 3,
    )
    bench.fill(lambda point: None)
    bench.state({"Ratio": ratios[0], "Layout": layouts[0]}, gpu_times=[1e-5] * 6)
    document = builder.build().document
    assert encode_document(document) == python_layout(document)


def test_float_spellings_that_differ_between_encoders() -> None:
    builder = ResultBuilder()
    builder.benchmark(
        "b", axes=[Float64Axis("F", [1e-5, 1.5e-7, 1e16, 1e22, 123456.789, 0.1])], skip_time=1e-5
    ).state({"F": 1e-5})
    text = encode_document(builder.build().document).decode()
    assert '"value": 1e-05' in text and '"value": 1e+16' in text and '"value": 1e+22' in text
    assert '"skip_time": 1e-05' in text
    assert text == python_layout(builder.build().document).decode()


def test_encoding_of_old_layouts_with_native_float_values() -> None:
    # §11: before mid-2021 values were native numbers; before 2021-12-25 states were maps.
    settings_ = {"min_samples": 10, "min_time": 1e-05, "max_noise": 0.005, "timeout": 1e16}
    value = {"type": "float64", "value": 1.5e-06}
    legacy = {
        "benchmarks": [
            {
                "index": 0,
                "name": "b",
                **settings_,
                "devices": [0],
                "axes": {
                    "R": {
                        "type": "float64",
                        "flags": "",
                        "values": [{"input_string": "1e-07", "value": 1e-07}],
                    }
                },
                "states": {
                    "Device=0 R=1e-07": {
                        "device": 0,
                        **settings_,
                        "axis_values": {"R": {"type": "float64", "value": 1e-07}},
                        "summaries": {"nv/cold/time/gpu/mean": {"value": value}},
                        "is_skipped": False,
                    }
                },
            }
        ]
    }
    array_layout = {
        "benchmarks": [
            {
                "name": "b",
                **settings_,
                "states": [
                    {
                        "name": "Device=0",
                        "axis_values": [{"name": "R", "type": "float64", "value": 2e-05}],
                        "summaries": [{"tag": "t", "data": [{"name": "value", **value}]}],
                    }
                ],
            }
        ]
    }
    for raw in (legacy, array_layout):
        document = msgspec.convert(raw, type=Document)
        assert encode_document(document) == python_layout(document)
        assert b"1e-05" in encode_document(document)


def test_non_finite_native_floats_are_written_as_null(tmp_path: Path) -> None:
    builder = ResultBuilder()
    builder.benchmark("b", timeout=float("inf"), axes=[Float64Axis("F", [float("nan")])]).state(
        {"F": float("nan")}
    )
    write_document(tmp_path / "r.json", builder.build().document)
    written = load(tmp_path / "r.json")
    assert written["benchmarks"][0]["timeout"] is None
    assert written["benchmarks"][0]["axes"][0]["values"][0]["value"] is None
    assert written["benchmarks"][0]["states"][0]["name"] == "Device=0 F=nan"
    assert (tmp_path / "r.json").read_bytes().endswith(b"}\n")


# -- side files -------------------------------------------------------------------------------


def test_side_files_layout_and_content(tmp_path: Path) -> None:
    built = mixed_run().build()
    target = tmp_path / "out" / "run.json"  # parent created like NVBench's mkdir -p
    write_document(target, built.document, built.samples)
    written = load(target)
    seen: list[tuple[str, int, str]] = []
    for b_index, benchmark in enumerate(written["benchmarks"]):
        for s_index, state in enumerate(benchmark["states"]):
            refs = side_refs(state)
            times, freqs = built.samples(b_index, s_index)
            if times is None or times.size == 0:
                # Skipped and zero-sample states get no side files (§5.3.1 rows 28-29: N >= 1).
                assert refs == {}
                continue
            cpu_only = benchmark["devices"] is None
            kind = "cpu_only" if cpu_only else "cold"
            name, size = refs[f"nv/json/bin:nv/{kind}/sample_times"]
            stored = np.fromfile(target.parent / name, "<f4")
            assert size == times.size == stored.size
            assert (target.parent / name).stat().st_size == 4 * size
            assert np.array_equal(stored, np.asarray(times, dtype=np.float32))
            seen.append(("times", int(Path(name).stem), name.split("/")[0]))
            if cpu_only:
                assert "nv/json/freqs-bin:nv/cold/sample_freqs" not in refs
                continue
            assert freqs is not None
            name, size = refs["nv/json/freqs-bin:nv/cold/sample_freqs"]
            assert np.array_equal(np.fromfile(target.parent / name, "<f4"), freqs)
            seen.append(("freqs", int(Path(name).stem), name.split("/")[0]))
    # Separate counters from 0, in state order; filenames relative to the JSON's directory.
    assert [k for kind, k, _ in seen if kind == "times"] == [0, 1, 2, 3, 4]
    assert [k for kind, k, _ in seen if kind == "freqs"] == [0, 1, 2]
    assert {d for kind, _, d in seen if kind == "times"} == {"run.json-bin"}
    assert {d for kind, _, d in seen if kind == "freqs"} == {"run.json-freqs-bin"}
    assert sorted(os.listdir(target.parent)) == ["run.json", "run.json-bin", "run.json-freqs-bin"]


def test_side_file_summaries_match_nvbench_and_sit_after_the_measurement(
    gpu_dir: Path, cpu_dir: Path, tmp_path: Path
) -> None:
    built = mixed_run().build()
    write_document(tmp_path / "run.json", built.document, built.samples)
    written = load(tmp_path / "run.json")
    real = {
        summary["tag"]: summary
        for path in (gpu_dir / "gpu_ref.json", cpu_dir / "cpu_run1.json")
        for state in all_states(load(path))
        for summary in state["summaries"] or []
        if summary["tag"].startswith("nv/json/")
    }
    for state in all_states(written):
        tags = [s["tag"] for s in state["summaries"] or []]
        for summary in state["summaries"] or []:
            if summary["tag"].startswith("nv/json/"):
                # tag, name, description, hint and hide exactly as NVBench writes them.
                reference = real[summary["tag"]]
                assert {k: v for k, v in summary.items() if k != "data"} == {
                    k: v for k, v in reference.items() if k != "data"
                }
                assert [(d["name"], d["type"]) for d in summary["data"]] == [
                    (d["name"], d["type"]) for d in reference["data"]
                ]
        if "nv/json/bin:nv/cold/sample_times" in tags:
            at = tags.index("nv/json/bin:nv/cold/sample_times")
            assert tags[at - 1].startswith("nv/cold/") and not tags[at - 1].startswith("nv/json")
            assert tags[at + 1] == "nv/json/freqs-bin:nv/cold/sample_freqs"
            assert all(not t.startswith("nv/cold/") for t in tags[at + 2 :])
        if "nv/json/bin:nv/cpu_only/sample_times" in tags:
            assert tags[-2:] == ["nv/cpu_only/walltime", "nv/json/bin:nv/cpu_only/sample_times"]


def test_stale_side_file_references_are_replaced_or_dropped(gpu_dir: Path, tmp_path: Path) -> None:
    source = gpu_dir / "gpu_ref.json"
    document = decode(source)
    before = encode_document(document)

    def real_samples(b: int, s: int) -> tuple[Any, Any]:
        state = load_state(source, b, s)
        refs = side_refs(state)
        if not refs:
            return None, None
        times = np.fromfile(source.parent / refs["nv/json/bin:nv/cold/sample_times"][0], "<f4")
        freqs = np.fromfile(
            source.parent / refs["nv/json/freqs-bin:nv/cold/sample_freqs"][0], "<f4"
        )
        return times, freqs

    target = tmp_path / "copy.json"
    write_document(target, document, real_samples)
    written = load(target)
    original = load(source)
    for state_w, state_o in zip(all_states(written), all_states(original), strict=True):
        refs_w, refs_o = side_refs(state_w), side_refs(state_o)
        assert refs_w.keys() == refs_o.keys()
        for tag, (name, size) in refs_w.items():
            assert name == refs_o[tag][0].replace("gpu_ref.json", "copy.json")
            assert size == refs_o[tag][1]
            old = (source.parent / refs_o[tag][0]).read_bytes()
            assert (target.parent / name).read_bytes() == old
        # Apart from the references, the states are unchanged.
        assert [s for s in state_w["summaries"] or [] if not s["tag"].startswith("nv/json/")] == [
            s for s in state_o["summaries"] or [] if not s["tag"].startswith("nv/json/")
        ]
    assert encode_document(document) == before  # the input was not modified

    for bulk, jsonbin in ((real_samples, False), (None, True)):
        plain = tmp_path / f"plain_{jsonbin}.json"
        write_document(plain, document, bulk, jsonbin=jsonbin)
        assert all(side_refs(state) == {} for state in all_states(load(plain)))
        assert not (tmp_path / f"plain_{jsonbin}.json-bin").exists()
    # Without side files the JSON is what NVBench writes with plain --json (same layout as the
    # real no-sidecar file, whose samples came from the same seeds).
    nosidecar = load(gpu_dir / "gpu_ref_nosidecar.json")
    assert [s["name"] for s in all_states(load(tmp_path / "plain_False.json"))] == [
        s["name"] for s in all_states(nosidecar)
    ]


def load_state(path: Path, benchmark: int, state: int) -> dict[str, Any]:
    result: dict[str, Any] = load(path)["benchmarks"][benchmark]["states"][state]
    return result


def test_bulk_provider_is_called_lazily_in_document_order(tmp_path: Path) -> None:
    built = mixed_run().build()
    calls: list[tuple[int, int]] = []

    def provider(b: int, s: int) -> tuple[Any, Any]:
        calls.append((b, s))
        return built.samples(b, s)

    write_document(tmp_path / "r.json", built.document, provider)
    # Every state with summaries is asked once, in order; skipped states without summaries not.
    document = msgspec.to_builtins(built.document)
    expected = [
        (b, s)
        for b, benchmark in enumerate(document["benchmarks"])
        for s, state in enumerate(benchmark["states"])
        if state["summaries"] is not None
    ]
    assert calls == expected
    assert (0, 1) not in calls


def test_rewriting_a_file_in_place_from_its_own_side_files(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    mixed_run().write(target)
    original = listing(tmp_path)
    document = decode(target)

    def from_disk(b: int, s: int) -> tuple[Any, Any]:
        refs = side_refs(msgspec.to_builtins(document)["benchmarks"][b]["states"][s])
        times = freqs = None
        for tag, (name, _) in refs.items():
            # Memory-mapped, like a lazy reader: the old files are replaced while mapped.
            data = np.memmap(target.parent / name, dtype="<f4", mode="r")
            if tag.startswith("nv/json/bin:"):
                times = data
            else:
                freqs = data
        return times, freqs

    write_document(target, document, from_disk)
    assert listing(tmp_path) == original


def test_frequencies_must_match_times(tmp_path: Path) -> None:
    built = mixed_run().build()

    def bad(b: int, s: int) -> tuple[Any, Any]:
        times, freqs = built.samples(b, s)
        return (times, None if freqs is None else freqs[:-1])

    with pytest.raises(ValueError, match="frequencies"):
        write_document(tmp_path / "r.json", built.document, bad)
    assert list(tmp_path.iterdir()) == []


# -- atomicity ---------------------------------------------------------------------------------


@pytest.fixture()
def previous_run(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """An existing result (JSON and side files) that a failed write must leave untouched."""
    target = tmp_path / "r.json"
    builder = ResultBuilder()
    builder.benchmark("old").state(gpu_times=[2e-5] * 8, frequencies=[1e9] * 8)
    builder.write(target)
    return target, listing(tmp_path)


def test_failed_encoding_leaves_nothing_behind(
    previous_run: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, before = previous_run
    built = mixed_run().build()

    def broken(document: Document) -> bytes:
        raise RuntimeError("serialization failed")

    monkeypatch.setattr(_writer, "encode_document", broken)
    with pytest.raises(RuntimeError, match="serialization failed"):
        write_document(target, built.document, built.samples)
    assert listing(target.parent) == before
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(
        ["r.json", "r.json-bin", "r.json-freqs-bin"]
    )


def test_failure_midway_through_side_files_leaves_nothing_behind(
    previous_run: tuple[Path, dict[str, bytes]],
) -> None:
    target, before = previous_run
    built = mixed_run().build()

    def failing(b: int, s: int) -> tuple[Any, Any]:
        if (b, s) == (1, 0):  # after several side files were already written
            raise OSError("disk full")
        return built.samples(b, s)

    with pytest.raises(OSError, match="disk full"):
        write_document(target, built.document, failing)
    assert listing(target.parent) == before
    assert sorted(p.name for p in target.parent.iterdir()) == sorted(
        ["r.json", "r.json-bin", "r.json-freqs-bin"]
    )


def test_failure_while_writing_the_json_file(
    previous_run: tuple[Path, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, before = previous_run
    built = mixed_run().build()
    real = _writer._write_new_file

    def partial(path: Path, payload: bytes) -> None:
        real(path, payload[: len(payload) // 2])  # half the file reaches the disk, then...
        raise OSError("no space left")

    monkeypatch.setattr(_writer, "_write_new_file", partial)
    with pytest.raises(OSError, match="no space"):
        write_document(target, built.document, built.samples)
    assert listing(target.parent) == before


def test_side_file_directory_blocked_by_a_file(tmp_path: Path) -> None:
    (tmp_path / "r.json-bin").write_text("not a directory")
    built = mixed_run().build()
    with pytest.raises(NotADirectoryError):
        write_document(tmp_path / "r.json", built.document, built.samples)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json-bin"]


def test_a_failed_write_removes_the_directories_it_created(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    built = mixed_run().build()

    def failing(b: int, s: int) -> tuple[Any, Any]:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_document(tmp_path / "out" / "new" / "deeper" / "r.json", built.document, failing)
    # The directory that was there stays; the two made for the file are gone.
    assert [p.name for p in tmp_path.rglob("*")] == ["out"]


@pytest.mark.parametrize("name", ["newdir/sub/", "newdir/sub/.", f"sub{os.sep}{os.sep}"])
def test_a_path_that_names_a_directory_is_refused(tmp_path: Path, name: str) -> None:
    # Path() drops the trailing separator: a file named "sub" was written.
    with pytest.raises(ValueError, match="names a directory"):
        mixed_run().write(f"{tmp_path}{os.sep}{name}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("jsonbin", ["no", 0, None])
def test_jsonbin_must_be_a_bool(tmp_path: Path, jsonbin: Any) -> None:
    # jsonbin='no' wrote side files: any true value counted.
    built = mixed_run().build()
    with pytest.raises(TypeError, match="jsonbin must be True or False"):
        write_document(tmp_path / "r.json", built.document, built.samples, jsonbin=jsonbin)
    with pytest.raises(TypeError, match="jsonbin must be True or False"):
        mixed_run().write(tmp_path / "r.json", jsonbin=jsonbin)
    with pytest.raises(TypeError, match="jsonbin must be True or False"):
        BenchmarkResult.empty().write(tmp_path / "r.json", jsonbin=jsonbin)
    assert list(tmp_path.iterdir()) == []


def copied_run(source: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "in"
    copy.mkdir()
    for item in source.parent.iterdir():
        if item.name.startswith(source.name):
            (shutil.copytree if item.is_dir() else shutil.copy)(item, copy / item.name)
    return copy / source.name


@pytest.mark.parametrize("missing", ["-bin", "-freqs-bin"])
def test_rewriting_a_result_whose_side_files_are_missing_is_refused(
    gpu_dir: Path, tmp_path: Path, missing: str
) -> None:
    # The write would silently drop every sample the file records (a truncated side file
    # raises SideFileError): refused the same way, naming the file.
    source = copied_run(gpu_dir / "gpu_ref.json", tmp_path)
    shutil.rmtree(f"{source}{missing}")
    result = BenchmarkResult(source)
    out = tmp_path / "out" / "r.json"
    with pytest.raises(SideFileError, match=rf"gpu_ref\.json{missing}/0\.bin .*not found"):
        result.write(out)
    assert not (tmp_path / "out").exists()
    written = result.write(out, jsonbin=False)  # asked for: written without samples
    assert all(state.samples is None for state in written.states())


def test_rewriting_a_result_carries_its_samples(cpu_dir: Path, tmp_path: Path) -> None:
    source = copied_run(cpu_dir / "cpu_run1.json", tmp_path)
    result = BenchmarkResult(source)
    written = result.write(tmp_path / "r.json")
    pairs = [
        (old.samples, new.samples)
        for old, new in zip(result.states(), written.states(), strict=True)
    ]
    assert sum(old is not None for old, _ in pairs) > 1
    for old, new in pairs:
        assert new is None if old is None else new is not None and np.array_equal(old, new)


def test_successful_rewrite_replaces_old_side_files(
    previous_run: tuple[Path, dict[str, bytes]],
) -> None:
    target, _ = previous_run
    (target.parent / "r.json-bin" / "99.bin").write_bytes(b"stale")
    built = mixed_run().build()
    write_document(target, built.document, built.samples)
    assert sorted(os.listdir(target.parent / "r.json-bin")) == [f"{k}.bin" for k in range(5)]
    assert not any(p.name.startswith(".") for p in target.parent.iterdir())


# -- NVIDIA's reader ----------------------------------------------------------------------------

_UPSTREAM_SCRIPT = """
import json, sys
import cuda.bench.results
from cuda.bench.results import BenchmarkResult
result = BenchmarkResult.from_json(sys.argv[1])
out = {"__module__": cuda.bench.results.__file__}
for name, sub in result.items():
    out[name] = [
        [state.state_name,
         None if state.samples is None else len(state.samples),
         None if state.frequencies is None else len(state.frequencies)]
        for state in sub.states
    ]
print(json.dumps(out))
"""


def upstream_python() -> str:
    path = os.environ.get("NVBENCH_UPSTREAM_PYTHON")
    if not path:
        pytest.skip(
            "NVBENCH_UPSTREAM_PYTHON is not set (path of a Python with NVIDIA's cuda-bench)"
        )
    if not Path(path).is_file():
        pytest.skip(f"NVBENCH_UPSTREAM_PYTHON={path} does not exist")
    return path


def test_nvidia_reader_reads_what_we_write(tmp_path: Path) -> None:
    python = upstream_python()
    rng = np.random.default_rng(5)
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)], argv=["./bench"])
    bench = builder.benchmark("copy", axes=[Int64Axis("N", [1, 2, 3]), StringAxis("L", ["a", "b"])])
    sizes = {}
    for point in bench.points():
        if point.values["L"] == "b" and point.values["N"] == 3:
            bench.state(point.values, skip_reason="no")
            continue
        size = 10 * int(point.values["N"]) + (5 if point.values["L"] == "a" else 0)
        sizes[point.name] = size
        times = rng.lognormal(-11, 0.01, size)
        bench.state(point.values, gpu_times=times, frequencies=np.full(size, 1.7e9))
    target = tmp_path / "ours.json"
    builder.write(target)
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    completed = subprocess.run(
        [python, "-c", _UPSTREAM_SCRIPT, str(target)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path.parent,  # side files must resolve from the JSON, not the working dir
        env=environment,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    seen = json.loads(completed.stdout)
    # Make sure it was NVIDIA's package that read the file, not this repository's.
    module = Path(seen.pop("__module__")).resolve()
    assert Path(__file__).resolve().parents[2] not in module.parents
    ours = load(target)
    assert list(seen) == [b["name"] for b in ours["benchmarks"]]
    rows = seen["copy"]
    assert [row[0] for row in rows] == [s["name"] for s in ours["benchmarks"][0]["states"]]
    for name, times, freqs in rows:
        if name in sizes:
            assert times == freqs == sizes[name]
        else:
            assert times is None
