"""Pairing inputs: directory discovery, benchmarks, devices, device sections, states."""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.compare.errors import CompareInputError
from cuda.bench.compare.filters import FilterPlan
from cuda.bench.compare.match import (
    BenchmarkMatch,
    DevicePair,
    FilePair,
    StateKey,
    StateMatch,
    UnpairedFile,
    device_differences,
    device_mismatch_is_fatal,
    discover_pairs,
    match_benchmarks,
    match_device_states,
    match_states,
    pair_devices,
    states_on_device,
)
from cuda.bench.results import BenchmarkResult, NVBenchFormatWarning, SubBenchmarkState
from cuda.bench.results import _schema as s
from hypothesis import given
from hypothesis import strategies as st

# ---------------------------------------------------------------------------------------------
# Small documents built in memory

Axes = Sequence[tuple[str, str, Any]]


def state(name: str, axes: Axes = (), device: int | None = 0) -> s.State:
    prefix = "" if device is None else f"Device={device}"
    full = " ".join(part for part in (prefix, name) if part)
    return s.State(
        name=full,
        device=0 if device is None else device,
        axis_values=[s.AxisValue(name=n, type=t, value=v) for n, t, v in axes] or None,
    )


def bench(
    name: str, states: Sequence[s.State] = (), devices: Sequence[int] | None = (0,)
) -> s.Benchmark:
    return s.Benchmark(name=name, devices=list(devices) if devices else None, states=list(states))


def device(id: int, name: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": id, "name": name or f"GPU {id}", "ecc_state": False, **fields}


def result(
    benches: Sequence[s.Benchmark],
    devices: Sequence[dict[str, Any]] | None = None,
    path: str = "mem.json",
) -> BenchmarkResult:
    if devices is None:
        ids = sorted({d for b in benches for d in (b.devices or [])})
        devices = [device(i) for i in ids]
    document = s.Document(devices=list(devices) or None, benchmarks=list(benches))
    with warnings.catch_warnings():
        # Duplicate benchmark names are the point of some tests.
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        return BenchmarkResult.from_document(document, path)


def names(matches: Sequence[StateMatch]) -> list[tuple[str | None, str | None]]:
    return [
        (
            None if m.ref is None else m.ref.state_name,
            None if m.cmp is None else m.cmp.state_name,
        )
        for m in matches
    ]


def only(r: BenchmarkResult, name: str, occurrence: int = 0) -> list[SubBenchmarkState]:
    return list([b for b in r.benchmarks if b.name == name][occurrence])


# ---------------------------------------------------------------------------------------------
# Input discovery


def write(path: Path, text: str | None = None) -> Path:
    """``text`` at ``path``; by default a JSON object naming the file, so that no two files of
    a folder are byte for byte alike (such files are one run, read once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"file": path.name}) if text is None else text)
    return path


def test_two_files_are_one_pair(tmp_path: Path) -> None:
    a, b = write(tmp_path / "a.json"), write(tmp_path / "b.txt")
    pairs, unpaired = discover_pairs(a, b)
    assert pairs == [FilePair(a, b)]
    assert unpaired == []
    assert pairs[0].label == f"{a} vs. {b}"


def test_two_files_accept_strings_and_leave_content_to_the_reader(tmp_path: Path) -> None:
    a, b = write(tmp_path / "a.json", ""), write(tmp_path / "b.json", "")
    assert discover_pairs(str(a), os.fspath(b)) == ([FilePair(a, b)], [])


def test_directories_pair_by_name_in_sorted_order(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    for name in ("zeta.json", "Alpha.json", "mid.json", "b.json"):
        write(ref / name)
    for name in ("mid.json", "b.json", "zeta.json", "Alpha.json"):
        write(cmp / name)
    pairs, unpaired = discover_pairs(ref, cmp)
    assert [(p.ref.name, p.cmp.name) for p in pairs] == [
        ("Alpha.json", "Alpha.json"),
        ("b.json", "b.json"),
        ("mid.json", "mid.json"),
        ("zeta.json", "zeta.json"),
    ]
    assert all(p.ref.parent == ref and p.cmp.parent == cmp for p in pairs)
    assert unpaired == []


def test_files_on_one_side_are_reported(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    write(ref / "both.json")
    write(cmp / "both.json")
    write(ref / "old.json")
    write(cmp / "new.json")
    write(cmp / "another.json")
    pairs, unpaired = discover_pairs(ref, cmp)
    assert [p.ref.name for p in pairs] == ["both.json"]
    assert unpaired == [
        UnpairedFile("compare", cmp / "another.json", f"has no counterpart in '{ref}'"),
        UnpairedFile("compare", cmp / "new.json", f"has no counterpart in '{ref}'"),
        UnpairedFile("reference", ref / "old.json", f"has no counterpart in '{cmp}'"),
    ]
    assert str(unpaired[2]) == f"reference file '{ref / 'old.json'}' has no counterpart in '{cmp}'"


def test_empty_files_are_skipped_or_reported(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    write(ref / "ok.json")
    write(cmp / "ok.json")
    write(ref / "crashed_both.json", "")
    write(cmp / "crashed_both.json", "")
    write(ref / "crashed_cmp.json")
    write(cmp / "crashed_cmp.json", "")
    write(ref / "only_empty.json", "")
    pairs, unpaired = discover_pairs(ref, cmp)
    assert [p.ref.name for p in pairs] == ["ok.json"]
    assert unpaired == [
        UnpairedFile(
            "reference",
            ref / "crashed_cmp.json",
            f"has an empty counterpart '{cmp / 'crashed_cmp.json'}'",
        )
    ]


def test_only_json_regular_files_directly_inside_count(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    for side in (ref, cmp):
        write(side / "run.json")
        write(side / "run.md")
        write(side / "run.JSON")
        write(side / "nested" / "deep.json")
        (side / "dir.json").mkdir()
        write(side / "run.json-bin" / "0.bin")
    write(ref / "notes.txt")
    pairs, unpaired = discover_pairs(ref, cmp)
    assert [p.ref.name for p in pairs] == ["run.json"]
    assert unpaired == []


def test_byte_identical_files_of_a_directory_are_one_run(tmp_path: Path) -> None:
    """``--jsonbin x.json --json x_plain.json`` writes two byte-identical files: one run, read
    once on each side (``x.json``, the first by name here), the other left out and mapped to
    it. Where only one side's file is such a copy, the other side's file is unpaired, and
    says why."""
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    for side in (ref, cmp):
        write(side / "x.json", '{"run": 1}')
        write(side / "x_plain.json", '{"run": 1}')
        write(side / "y.json", '{"run": 2}')
    write(cmp / "y_plain.json", '{"run": 2}')
    write(ref / "y_plain.json", '{"run": 3}')
    copies: dict[Path, Path] = {}
    pairs, unpaired = discover_pairs(ref, cmp, copies)
    assert [(p.ref.name, p.cmp.name) for p in pairs] == [("x.json", "x.json"), ("y.json", "y.json")]
    assert copies == {
        ref / "x_plain.json": ref / "x.json",
        cmp / "x_plain.json": cmp / "x.json",
        cmp / "y_plain.json": cmp / "y.json",
    }
    assert unpaired == [
        UnpairedFile(
            "reference",
            ref / "y_plain.json",
            f"has a counterpart '{cmp / 'y_plain.json'}' left out as the same run as "
            f"'{cmp / 'y.json'}'",
        )
    ]


def test_a_copy_stands_for_its_run_where_no_other_file_does(tmp_path: Path) -> None:
    """The reference run wrote ``--jsonbin x.json --json x_plain.json``, the compare run only
    ``--json x_plain.json``: the two ``x_plain.json`` pair, as they did before copies were
    known, and ``x.json`` is the run read through its copy (no pair at all, exit 2, before)."""
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    write(ref / "x.json", '{"run": 1}')
    write(ref / "x_plain.json", '{"run": 1}')
    write(cmp / "x_plain.json", '{"run": 2}')
    copies: dict[Path, Path] = {}
    pairs, unpaired = discover_pairs(ref, cmp, copies)
    assert pairs == [FilePair(ref / "x_plain.json", cmp / "x_plain.json")]
    assert unpaired == []
    assert copies == {ref / "x.json": ref / "x_plain.json"}


def test_symlinked_files_count(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    target = write(tmp_path / "real.json")
    ref.mkdir()
    cmp.mkdir()
    (ref / "x.json").symlink_to(target)
    (cmp / "x.json").symlink_to(target)
    assert [p.ref.name for p in discover_pairs(ref, cmp)[0]] == ["x.json"]


def test_directories_without_common_files_are_an_error(tmp_path: Path) -> None:
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    write(ref / "a.json")
    write(cmp / "b.json")
    with pytest.raises(CompareInputError) as caught:
        discover_pairs(ref, cmp)
    # Both hold runs, under other names: how folders pair, and the way to compare them.
    assert str(caught.value) == (
        f"no matching non-empty .json files in '{ref}' and '{cmp}' (folders pair their files "
        "by name; --ref DIR --cmp DIR compares the runs of one folder with those of the "
        "other, whatever their names)"
    )


def test_empty_directories_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with pytest.raises(CompareInputError, match=r"no matching non-empty \.json files"):
        discover_pairs(tmp_path / "a", tmp_path / "b")


def test_file_against_directory_is_an_error(tmp_path: Path) -> None:
    f, d = write(tmp_path / "a.json"), tmp_path / "d"
    d.mkdir()
    with pytest.raises(CompareInputError) as caught:
        discover_pairs(f, d)
    assert str(caught.value) == (
        f"reference '{f}' is a file but compare '{d}' is a directory; "
        "give two files or two directories"
    )
    with pytest.raises(CompareInputError) as caught:
        discover_pairs(d, f)
    assert str(caught.value) == (
        f"reference '{d}' is a directory but compare '{f}' is a file; "
        "give two files or two directories"
    )


def test_missing_inputs_are_named(tmp_path: Path) -> None:
    present = write(tmp_path / "a.json")
    with pytest.raises(CompareInputError) as caught:
        discover_pairs(tmp_path / "nope.json", present)
    assert str(caught.value) == f"reference input '{tmp_path / 'nope.json'}' does not exist"
    with pytest.raises(CompareInputError) as caught:
        discover_pairs(present, tmp_path / "gone")
    assert str(caught.value) == f"compare input '{tmp_path / 'gone'}' does not exist"


def test_real_directory_pairs_itself(gpu_dir: Path, cpu_dir: Path) -> None:
    """Each run once: ``gpu_ref_plain.json`` repeats ``gpu_ref.json`` byte for byte (NVBench's
    ``--json`` beside ``--jsonbin``), so it is left out, mapped to the file read."""
    copies: dict[Path, Path] = {}
    pairs, unpaired = discover_pairs(gpu_dir, gpu_dir, copies)
    assert [p.ref.name for p in pairs] == [
        "gpu_cmp.json",
        "gpu_ref.json",
        "gpu_ref_nosidecar.json",
    ]
    assert unpaired == []
    assert copies == {
        gpu_dir / "gpu_cmp_plain.json": gpu_dir / "gpu_cmp.json",
        gpu_dir / "gpu_ref_plain.json": gpu_dir / "gpu_ref.json",
    }
    with pytest.raises(CompareInputError, match=r"no matching non-empty \.json files"):
        discover_pairs(gpu_dir, cpu_dir)


# ---------------------------------------------------------------------------------------------
# Benchmarks


def bench_names(matches: Sequence[BenchmarkMatch]) -> list[tuple[str, int, bool, bool]]:
    return [(m.name, m.occurrence, m.ref is not None, m.cmp is not None) for m in matches]


def test_benchmarks_pair_by_name_in_compare_order() -> None:
    ref = result([bench("a"), bench("b"), bench("c")])
    cmp = result([bench("c"), bench("a"), bench("b")])
    matches = match_benchmarks(ref, cmp)
    assert bench_names(matches) == [
        ("c", 0, True, True),
        ("a", 0, True, True),
        ("b", 0, True, True),
    ]
    for match in matches:
        assert match.is_matched and not match.is_added and not match.is_removed
        assert match.ref is not None and match.cmp is not None
        assert match.ref.name == match.cmp.name == match.name


def test_added_and_removed_benchmarks_are_kept() -> None:
    ref = result([bench("gone1"), bench("both"), bench("gone2")])
    cmp = result([bench("new"), bench("both")])
    matches = match_benchmarks(ref, cmp)
    assert bench_names(matches) == [
        ("new", 0, False, True),
        ("both", 0, True, True),
        ("gone1", 0, True, False),
        ("gone2", 0, True, False),
    ]
    assert matches[0].is_added and matches[2].is_removed


def test_duplicate_benchmarks_pair_by_occurrence() -> None:
    ref = result([bench("x", [state("A=1")]), bench("y"), bench("x", [state("A=2")])])
    cmp = result(
        [bench("x", [state("A=1")]), bench("x", [state("A=2")]), bench("x", [state("A=3")])]
    )
    matches = match_benchmarks(ref, cmp)
    assert bench_names(matches) == [
        ("x", 0, True, True),
        ("x", 1, True, True),
        ("x", 2, False, True),
        ("y", 0, True, False),
    ]
    assert matches[0].ref is not None and matches[0].ref.position == 0
    assert matches[1].ref is not None and matches[1].ref.position == 2
    assert matches[1].cmp is not None and matches[1].cmp.position == 1


def test_extra_reference_occurrences_are_removed_with_their_number() -> None:
    ref = result([bench("x"), bench("x"), bench("x")])
    cmp = result([bench("x")])
    assert bench_names(match_benchmarks(ref, cmp)) == [
        ("x", 0, True, True),
        ("x", 1, True, False),
        ("x", 2, True, False),
    ]


def test_benchmark_selection_applies_before_pairing() -> None:
    ref = result([bench("a"), bench("b")])
    cmp = result([bench("b"), bench("c")])
    plan = FilterPlan.from_args([("benchmark", "b"), ("benchmark", "a")])
    assert bench_names(match_benchmarks(ref, cmp, plan.selects_benchmark)) == [
        ("b", 0, True, True),
        ("a", 0, True, False),
    ]


def test_cpu_only_against_gpu_is_not_paired() -> None:
    ref = result([bench("k", [state("", device=None)], devices=None), bench("z")])
    cmp = result([bench("k", [state("")])])
    matches = match_benchmarks(ref, cmp)
    assert bench_names(matches) == [
        ("k", 0, False, True),
        ("k", 0, True, False),
        ("z", 0, True, False),
    ]
    note = (
        "benchmark 'k' is CPU-only in the reference run but a GPU benchmark in the compare "
        "run; they are not compared"
    )
    assert matches[0].note == note
    assert matches[1].note == note
    assert matches[2].note == ""


def test_real_benchmarks_pair(upstream_2021_dir: Path, cpu_dir: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    assert [m.name for m in match_benchmarks(ref, cmp) if m.is_matched] == [
        "simple",
        "single_float64_axis",
        "copy_sweep_grid_shape",
        "copy_type_sweep",
        "copy_type_conversion_sweep",
    ]
    cpu = BenchmarkResult(cpu_dir / "cpu_run1.json")
    # A GPU file against a CPU file: nothing in common, everything reported.
    assert bench_names(match_benchmarks(ref, cpu))[:3] == [
        ("host_sort", 0, False, True),
        ("tiny", 0, False, True),
        ("simple", 0, True, False),
    ]


# ---------------------------------------------------------------------------------------------
# Devices


def two_device_match(
    ref_devices: Sequence[int] = (0, 1), cmp_devices: Sequence[int] = (0, 1)
) -> BenchmarkMatch:
    ref = result([bench("b", [state("", device=d) for d in ref_devices], ref_devices)])
    cmp = result([bench("b", [state("", device=d) for d in cmp_devices], cmp_devices)])
    (match,) = match_benchmarks(ref, cmp)
    return match


def ids(pairs: Sequence[DevicePair]) -> list[tuple[int | None, int | None]]:
    return [(p.ref_device, p.cmp_device) for p in pairs]


def test_devices_pair_by_position() -> None:
    pairs = pair_devices(two_device_match())
    assert ids(pairs) == [(0, 0), (1, 1)]
    assert [p.position for p in pairs] == [0, 1]
    assert [(p.ref_name, p.cmp_name) for p in pairs] == [("GPU 0", "GPU 0"), ("GPU 1", "GPU 1")]
    assert not any(p.is_cpu_only for p in pairs)
    assert len(set(pairs)) == 2  # hashable despite the device records


def test_benchmark_device_order_is_kept() -> None:
    assert ids(pair_devices(two_device_match((1, 0), (0, 1)))) == [(1, 0), (0, 1)]


def test_selections_cross_and_repeat_devices() -> None:
    match = two_device_match()
    assert ids(pair_devices(match, (0, 1), (1, 0))) == [(0, 1), (1, 0)]
    assert ids(pair_devices(match, (0, 0), (0, 1))) == [(0, 0), (0, 1)]
    assert ids(pair_devices(match, (1,), (0,))) == [(1, 0)]
    assert ids(pair_devices(match, (1, 0), None)) == [(1, 0), (0, 1)]


def test_selected_id_missing_from_benchmark() -> None:
    match = two_device_match((0, 1), (0,))
    with pytest.raises(CompareInputError) as caught:
        pair_devices(match, None, (0, 1, 2, 1))
    assert (
        str(caught.value)
        == "benchmark 'b' does not contain --compare-devices device id(s): 1, 2 (it ran on: 0)"
    )
    with pytest.raises(CompareInputError) as caught:
        pair_devices(match, (3,), (0,))
    assert str(caught.value) == (
        "benchmark 'b' does not contain --reference-devices device id(s): 3 (it ran on: 0, 1)"
    )


def test_device_counts_must_agree() -> None:
    match = two_device_match((0, 1), (0,))
    with pytest.raises(CompareInputError) as caught:
        pair_devices(match)
    assert str(caught.value) == (
        "benchmark 'b' has 2 reference device(s) (mem.json) but 1 compare device(s) (mem.json); "
        "devices are paired by position, select them with --reference-devices/--compare-devices"
    )
    assert ids(pair_devices(match, (1,), None)) == [(1, 0)]


def test_device_metadata_must_exist() -> None:
    ref = result([bench("b", [state("")], (0,))])
    cmp = result([bench("b", [state("", device=5)], (5,))], devices=[device(0)], path="c.json")
    (match,) = match_benchmarks(ref, cmp)
    with pytest.raises(CompareInputError) as caught:
        pair_devices(match)
    assert str(caught.value) == (
        "benchmark 'b' ran on device 5, but the device list of 'c.json' does not describe it"
    )


def test_cpu_only_benchmarks_have_one_pair_whatever_the_selection() -> None:
    ref = result([bench("k", [state("A=1", device=None)], None)])
    cmp = result([bench("k", [state("A=1", device=None)], None)])
    (match,) = match_benchmarks(ref, cmp)
    for selection in (None, (0,), (3, 4)):
        (pair,) = pair_devices(match, selection, selection)
        assert pair == DevicePair(0, None, None, is_cpu_only=True)


def test_one_sided_benchmarks_pair_with_nothing() -> None:
    ref = result([bench("old", [state("")], (0, 1))])
    cmp = result([bench("new", [state("", device=1)], (1,))])
    added, removed = match_benchmarks(ref, cmp)
    assert ids(pair_devices(added)) == [(None, 1)]
    assert ids(pair_devices(removed)) == [(0, None), (1, None)]
    assert ids(pair_devices(removed, (1,), (0,))) == [(1, None)]
    assert pair_devices(added)[0].ref_info is None
    assert pair_devices(added)[0].cmp_name == "GPU 1"


def test_real_devices_pair(gpu_dir: Path, cpu_dir: Path) -> None:
    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    cmp = BenchmarkResult(gpu_dir / "gpu_cmp.json")
    for match in match_benchmarks(ref, cmp):
        pairs = pair_devices(match)
        assert [(p.ref_name, p.cmp_name) for p in pairs] == [
            ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
            ("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"),
        ]
    cpu = [
        pair_devices(m)
        for m in match_benchmarks(
            BenchmarkResult(cpu_dir / "cpu_run1.json"), BenchmarkResult(cpu_dir / "cpu_run2.json")
        )
    ]
    assert cpu == [[DevicePair(0, None, None, is_cpu_only=True)]] * 2


# ---------------------------------------------------------------------------------------------
# Device sections


def modified_copy(source: Path, tmp_path: Path, change: Any) -> Path:
    document = json.loads(source.read_text())
    change(document)
    target = tmp_path / source.name
    target.write_text(json.dumps(document, indent=2))
    return target


def test_identical_real_device_sections(gpu_dir: Path, upstream_2021_dir: Path) -> None:
    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    cmp = BenchmarkResult(gpu_dir / "gpu_cmp.json")
    assert device_differences(ref, cmp) == []
    assert device_differences(ref, cmp, (1, 0), (1, 0)) == []
    old_ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    old_cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    assert device_differences(old_ref, old_cmp) == []


def test_changed_fields_are_listed(gpu_dir: Path, tmp_path: Path) -> None:
    def change(document: dict[str, Any]) -> None:
        document["devices"][0]["name"] = "NVIDIA H200"
        document["devices"][1]["ecc_state"] = not document["devices"][1]["ecc_state"]
        document["devices"][1]["number_of_sms"] += 1

    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    cmp = BenchmarkResult(modified_copy(gpu_dir / "gpu_cmp.json", tmp_path, change))
    sms = ref.devices[1]["number_of_sms"]
    ecc = ref.devices[1]["ecc_state"]
    assert device_differences(ref, cmp) == [
        "[0] name: 'NVIDIA H100 80GB HBM3' vs. 'NVIDIA H200'",
        f"[1] number_of_sms: {sms} vs. {sms + 1}",
        f"[1] ecc_state: {ecc!r} vs. {not ecc!r}",
    ]
    # Only the selected devices count.
    assert device_differences(ref, cmp, (1,), (1,)) == [
        f"[1] number_of_sms: {sms} vs. {sms + 1}",
        f"[1] ecc_state: {ecc!r} vs. {not ecc!r}",
    ]


def test_crossed_selection_labels_both_ids(upstream_2021_dir: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    lines = device_differences(ref, cmp, (0,), (1,))
    assert lines[0] == "[0 vs. 1] name: 'Quadro GV100' vs. 'Quadro GP100'"
    assert all(line.startswith("[0 vs. 1] ") for line in lines)
    assert not any(" id:" in line for line in lines)


def test_missing_and_extra_fields(tmp_path: Path) -> None:
    ref = result([bench("b")], devices=[device(0, clock=1)])
    cmp = result([bench("b")], devices=[device(0, extra="x")])
    assert device_differences(ref, cmp) == [
        "[0] clock: 1 vs. (absent)",
        "[0] extra: (absent) vs. 'x'",
    ]


def test_device_count_mismatch(upstream_2021_dir: Path, tmp_path: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(
        modified_copy(upstream_2021_dir / "cmp.json", tmp_path, lambda d: d["devices"].pop())
    )
    assert device_differences(ref, cmp) == [
        "device count: 2 vs. 1",
        "[1] only in the reference: 'Quadro GP100'",
    ]
    assert device_differences(ref, cmp, (0,), None) == []


def test_repeated_selection_reports_once(upstream_2021_dir: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    assert device_differences(ref, cmp, (0, 0), (1, 1)) == device_differences(ref, cmp, (0,), (1,))


def test_selection_of_unknown_device_is_an_error(gpu_dir: Path) -> None:
    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    with pytest.raises(CompareInputError) as caught:
        device_differences(ref, ref, None, (3, 1, 2))
    assert str(caught.value) == (
        f"--compare-devices device id(s) not present in input '{ref.path}': 3, 2 "
        "(its devices: 0, 1)"
    )


def test_cpu_only_files_have_no_device_differences(cpu_dir: Path) -> None:
    one = BenchmarkResult(cpu_dir / "cpu_run1.json")
    two = BenchmarkResult(cpu_dir / "cpu_run2.json")
    assert device_differences(one, two) == []


@pytest.mark.parametrize(
    ("differences", "ref_sel", "cmp_sel", "ignore", "fatal"),
    [
        (["x"], None, None, False, True),
        (["x"], None, None, True, False),
        (["x"], (0,), None, False, False),
        (["x"], None, (1,), False, False),
        ([], None, None, False, False),
    ],
)
def test_device_mismatch_fatality(
    differences: list[str],
    ref_sel: tuple[int, ...] | None,
    cmp_sel: tuple[int, ...] | None,
    ignore: bool,
    fatal: bool,
) -> None:
    assert device_mismatch_is_fatal(differences, ref_sel, cmp_sel, ignore) is fatal


# ---------------------------------------------------------------------------------------------
# States


def states_of(*specs: tuple[str, Axes]) -> list[SubBenchmarkState]:
    r = result([bench("b", [state(name, axes) for name, axes in specs])])
    return list(r.benchmarks[0])


def test_states_pair_by_name_and_axes_ignoring_device() -> None:
    ref = result([bench("b", [state("A=1", [("A", "int64", "1")], device=1)], (1,))])
    cmp = result([bench("b", [state("A=1", [("A", "int64", "1")], device=0)], (0,))])
    (match,) = match_states(ref.benchmarks[0], cmp.benchmarks[0])
    assert match.is_matched
    assert match.key == StateKey("A=1", (("A", "int64", "1"),))
    assert str(match.key) == "A=1"
    assert match.occurrence == 0
    assert match.state is match.cmp


def test_state_order_is_compare_order_then_removed() -> None:
    ref = states_of(("A=1", ()), ("A=2", ()), ("A=3", ()), ("A=4", ()))
    cmp = states_of(("A=3", ()), ("A=5", ()), ("A=1", ()))
    assert names(match_states(ref, cmp)) == [
        ("Device=0 A=3", "Device=0 A=3"),
        (None, "Device=0 A=5"),
        ("Device=0 A=1", "Device=0 A=1"),
        ("Device=0 A=2", None),
        ("Device=0 A=4", None),
    ]


def test_added_and_removed_states_are_one_sided() -> None:
    ref = states_of(("A=1", ()))
    cmp = states_of(("A=2", ()))
    added, removed = match_states(ref, cmp)
    assert added.is_added and not added.is_removed and added.ref is None
    assert removed.is_removed and removed.cmp is None and removed.state is removed.ref


def test_duplicates_pair_by_occurrence() -> None:
    ref = states_of(("A=1", ()), ("A=2", ()), ("A=1", ()), ("A=1", ()))
    cmp = states_of(("A=1", ()), ("A=1", ()), ("A=2", ()), ("A=2", ()))
    matches = match_states(ref, cmp)
    assert [(m.key.name, m.occurrence, m.ref is not None, m.cmp is not None) for m in matches] == [
        ("A=1", 0, True, True),
        ("A=1", 1, True, True),
        ("A=2", 0, True, True),
        ("A=2", 1, False, True),
        ("A=1", 2, True, False),
    ]
    assert matches[0].ref is ref[0] and matches[1].ref is ref[2] and matches[4].ref is ref[3]


def test_same_name_different_axis_values_do_not_pair() -> None:
    # A string axis value containing a space makes names ambiguous; axis values decide.
    ref = states_of(("M=a b", [("M", "string", "a b")]))
    cmp = states_of(("M=a b", [("M", "string", "a"), ("b", "string", "")]))
    assert [m.is_matched for m in match_states(ref, cmp)] == [False, False]


def test_axis_type_is_part_of_the_key() -> None:
    ref = states_of(("A=1", [("A", "int64", "1")]))
    cmp = states_of(("A=1", [("A", "float64", "1")]))
    assert [m.is_matched for m in match_states(ref, cmp)] == [False, False]


def test_native_numbers_of_old_files_match_strings() -> None:
    ref = states_of(("A=1 R=0.5", [("A", "int64", 1), ("R", "float64", 0.5)]))
    cmp = states_of(("A=1 R=0.5", [("R", "float64", "0.5"), ("A", "int64", "1")]))
    (match,) = match_states(ref, cmp)
    assert match.is_matched
    assert match.key.axes == (("A", "int64", "1"), ("R", "float64", "0.5"))


def test_empty_state_names_match() -> None:
    ref = result([bench("t", [state("", device=None)], None)])
    cmp = result([bench("t", [state("", device=None)], None)])
    (match,) = match_states(ref.benchmarks[0], cmp.benchmarks[0])
    assert match.is_matched and match.key == StateKey("", ())


def test_no_states() -> None:
    assert match_states([], []) == []
    (only_ref,) = match_states(states_of(("A=1", ())), [])
    assert only_ref.is_removed


@given(
    st.lists(st.integers(min_value=0, max_value=4), max_size=12),
    st.lists(st.integers(min_value=0, max_value=4), max_size=12),
)
def test_state_matching_invariants(ref_keys: list[int], cmp_keys: list[int]) -> None:
    ref = states_of(*[(f"K={k}", ()) for k in ref_keys])
    cmp = states_of(*[(f"K={k}", ()) for k in cmp_keys])
    matches = match_states(ref, cmp)
    # Every state appears exactly once, on its own side.
    assert [m.cmp for m in matches if m.cmp is not None] == cmp
    assert sorted(id(m.ref) for m in matches if m.ref is not None) == sorted(map(id, ref))
    # Compare order first, then the reference-only states in reference order.
    removed = [m.ref for m in matches if m.cmp is None]
    assert all(m.cmp is None for m in matches[len(cmp) :])
    assert removed == [r for r in ref if any(m.ref is r for m in matches[len(cmp) :])]
    assert [m.ref for m in matches[len(cmp) :]] == [
        r for r in ref if not any(m.ref is r for m in matches[: len(cmp)])
    ]
    # Pairs share a key; per key min(count) pairs, occurrences count up from 0.
    ref_counts, cmp_counts = Counter(ref_keys), Counter(cmp_keys)
    for m in matches:
        if m.is_matched:
            assert m.ref is not None and m.cmp is not None
            assert m.ref.state_name == m.cmp.state_name
    paired = Counter(m.key.name for m in matches if m.is_matched)
    for key in set(ref_keys) | set(cmp_keys):
        assert paired[f"K={key}"] == min(ref_counts[key], cmp_counts[key])
    for key in set(ref_keys) | set(cmp_keys):
        occurrences = [m.occurrence for m in matches if m.key.name == f"K={key}"]
        assert sorted(occurrences) == list(range(max(ref_counts[key], cmp_counts[key])))


def test_states_on_device_and_per_pair_matching() -> None:
    ref = result([bench("b", [state("A=1", device=0), state("A=1", device=1)], (0, 1))])
    cmp = result([bench("b", [state("A=1", device=1), state("A=2", device=0)], (0, 1))])
    (match,) = match_benchmarks(ref, cmp)
    assert [s.state_name for s in states_on_device(match.ref, 1)] == ["Device=1 A=1"]
    assert states_on_device(None, 0) == []
    pairs = pair_devices(match)
    assert names(match_device_states(match, pairs[0])) == [
        (None, "Device=0 A=2"),
        ("Device=0 A=1", None),
    ]
    assert names(match_device_states(match, pairs[1])) == [("Device=1 A=1", "Device=1 A=1")]


def test_keep_filters_states_before_matching() -> None:
    axes = [("A", "int64", "1")]
    ref = result([bench("b", [state("A=1", axes), state("A=2", [("A", "int64", "2")])])])
    cmp = result([bench("b", [state("A=1", axes)])])
    (match,) = match_benchmarks(ref, cmp)
    plan = FilterPlan.from_args([("axis", "A=1")])
    (pair,) = pair_devices(match)
    kept = match_device_states(match, pair, lambda s: plan.selects_state("b", s.axis_values))
    assert names(kept) == [("Device=0 A=1", "Device=0 A=1")]


def test_one_sided_benchmark_states_are_all_added() -> None:
    ref = result([bench("x")])
    cmp = result([bench("new", [state("A=1"), state("A=2")])])
    added = next(m for m in match_benchmarks(ref, cmp) if m.is_added)
    (pair,) = pair_devices(added)
    assert [m.is_added for m in match_device_states(added, pair)] == [True, True]


# ---------------------------------------------------------------------------------------------
# Real files end to end


def all_state_matches(
    ref: BenchmarkResult,
    cmp: BenchmarkResult,
    ref_sel: Sequence[int] | None = None,
    cmp_sel: Sequence[int] | None = None,
) -> list[tuple[BenchmarkMatch, DevicePair, StateMatch]]:
    return [
        (match, pair, state_match)
        for match in match_benchmarks(ref, cmp)
        for pair in pair_devices(match, ref_sel, cmp_sel)
        for state_match in match_device_states(match, pair)
    ]


def test_upstream_2021_all_states_match(upstream_2021_dir: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    matches = all_state_matches(ref, cmp)
    assert len(matches) == 126
    assert all(m.is_matched for _, _, m in matches)
    for _, pair, m in matches:
        assert m.ref is not None and m.cmp is not None
        assert m.ref.state_name == m.cmp.state_name
        assert m.ref.device == m.cmp.device == pair.ref_device
        assert m.occurrence == 0
    per_device = Counter(pair.ref_device for _, pair, _ in matches)
    assert per_device == {0: 63, 1: 63}
    skipped = sum(1 for _, _, m in matches if m.ref is not None and m.ref.is_skipped)
    assert skipped == 38


def test_upstream_2021_crossed_devices_still_match(upstream_2021_dir: Path) -> None:
    ref = BenchmarkResult(upstream_2021_dir / "ref.json")
    cmp = BenchmarkResult(upstream_2021_dir / "cmp.json")
    matches = all_state_matches(ref, cmp, (0, 1), (1, 0))
    assert len(matches) == 126 and all(m.is_matched for _, _, m in matches)
    for _, pair, m in matches:
        assert m.ref is not None and m.cmp is not None
        assert (m.ref.device, m.cmp.device) == (pair.ref_device, pair.cmp_device)
        assert m.ref.device != m.cmp.device
        assert m.ref.key == m.cmp.key


def test_gpu_examples_all_states_match(gpu_dir: Path) -> None:
    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    cmp = BenchmarkResult(gpu_dir / "gpu_cmp.json")
    matches = all_state_matches(ref, cmp)
    assert len(matches) == 24
    assert all(m.is_matched for _, _, m in matches)
    keys = [m.key.name for match, pair, m in matches if match.name == "misc" and pair.position == 0]
    assert keys == [
        "Ratio=0.25 Plain=7",
        "Ratio=1 Plain=7",
        "Ratio=1.2346e+05 Plain=7",
        "Ratio=1e-07 Plain=7",
    ]


def test_cpu_runs_all_states_match(cpu_dir: Path) -> None:
    ref = BenchmarkResult(cpu_dir / "cpu_run1.json")
    cmp = BenchmarkResult(cpu_dir / "cpu_run2.json")
    matches = all_state_matches(ref, cmp, (7,), (9,))  # selections do not apply to CPU-only
    assert [(match.name, m.key.name) for match, _, m in matches] == [
        ("host_sort", "Elements=2^10 Mode=spin"),
        ("host_sort", "Elements=2^16 Mode=spin"),
        ("host_sort", "Elements=2^10 Mode=sleep"),
        ("host_sort", "Elements=2^16 Mode=sleep"),
        ("tiny", ""),
    ]
    assert all(m.is_matched and pair.is_cpu_only for _, pair, m in matches)


def test_nosidecar_file_matches_its_sidecar_twin(gpu_dir: Path) -> None:
    ref = BenchmarkResult(gpu_dir / "gpu_ref_nosidecar.json")
    cmp = BenchmarkResult(gpu_dir / "gpu_ref.json")
    matches = all_state_matches(ref, cmp)
    assert len(matches) == 24 and all(m.is_matched for _, _, m in matches)


def test_filtered_real_comparison_leaves_removed_states(gpu_dir: Path, tmp_path: Path) -> None:
    def drop_one_state(document: dict[str, Any]) -> None:
        states = document["benchmarks"][1]["states"]
        del states[1]  # Device=0 Ratio=1 Plain=7

    ref = BenchmarkResult(gpu_dir / "gpu_ref.json")
    cmp = BenchmarkResult(modified_copy(gpu_dir / "gpu_cmp.json", tmp_path, drop_one_state))
    matches = all_state_matches(ref, cmp)
    one_sided = [
        (match.name, m.key.name, m.is_removed) for match, _, m in matches if not m.is_matched
    ]
    assert one_sided == [("misc", "Ratio=1 Plain=7", True)]
    assert len(matches) == 24
