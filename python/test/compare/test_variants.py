"""compare_variants: the values of one axis inside one run compared with one of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from cuda.bench.compare import (
    CompareInputError,
    FilterError,
    Status,
    compare,
    compare_many,
    compare_variants,
)
from cuda.bench.compare.variants import axis_variants
from cuda.bench.results import (
    BenchmarkResult,
    DeviceSpec,
    Int64Axis,
    Pow2Axis,
    ResultBuilder,
    StringAxis,
)

#: Time factor of each Impl value against ``base`` (``fast`` 20 % faster, ``slow`` 15 %
#: slower, ``twin`` the same).
FACTORS = {"base": 1.0, "fast": 0.8, "slow": 1.15, "twin": 1.0}


def _write_run(path: Path, seed: int, *, device_factor: float = 1.0) -> Path:
    """A run with ``impls`` (axes Impl and Elements, two devices; device 1 is
    ``device_factor`` times slower) and ``plain`` (no Impl axis)."""
    rng = np.random.default_rng(seed)
    builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
    impls = builder.benchmark(
        "impls", axes=[StringAxis("Impl", list(FACTORS)), Pow2Axis("Elements", [10, 12])]
    )
    plain = builder.benchmark("plain", axes=[Int64Axis("N", [1, 2])])
    for device in (0, 1):
        scale = device_factor if device == 1 else 1.0
        for impl, factor in FACTORS.items():
            for exponent in (10, 12):
                base = 1e-6 * 2 ** (exponent - 10) * factor * scale
                impls.state(
                    {"Impl": impl, "Elements": 2**exponent},
                    device=device,
                    gpu_times=base * rng.lognormal(0.0, 0.004, 300),
                    frequencies=np.full(300, 1.7e9),
                )
        for n in (1, 2):
            plain.state(
                {"N": n},
                device=device,
                gpu_times=1e-5 * n * scale * rng.lognormal(0.0, 0.004, 300),
                frequencies=np.full(300, 1.7e9),
            )
    builder.write(path, jsonbin=True)
    return path


@pytest.fixture(scope="module")
def run_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_run(tmp_path_factory.mktemp("variants") / "run.json", 3, device_factor=1.3)


def _statuses(many: object, name: str) -> dict[tuple[int | None, str], Status]:
    comparison = many[name]  # type: ignore[index]
    return {(row.ref_device, row.key): row.status for row in comparison.rows}


def test_each_value_is_compared_with_the_first_state_by_state(run_file: Path) -> None:
    many = compare_variants(run_file, "Impl")
    assert many.baseline == "Impl=base"
    assert many.names == ("Impl=fast", "Impl=slow", "Impl=twin")
    expected = {"Impl=fast": Status.FAST, "Impl=slow": Status.SLOW, "Impl=twin": Status.SAME}
    for name, status in expected.items():
        rows = many[name].rows
        # Only the benchmark with the axis; the axis is out of the state's identity.
        assert {row.benchmark for row in rows} == {"impls"}
        assert sorted((row.ref_device, row.key) for row in rows) == [
            (0, "Elements=2^10"),
            (0, "Elements=2^12"),
            (1, "Elements=2^10"),
            (1, "Elements=2^12"),
        ]
        assert {row.status for row in rows} == {status}, name
        assert all("Impl" not in [v.name for v in row.axis_values] for row in rows)
    assert many.family_size == 3
    assert many.pair_confidence == pytest.approx(1 - 0.05 / 3)
    assert [line.best for line in many.matrix()] == [("Impl=fast",)] * 4


def test_the_baseline_value_can_be_chosen(run_file: Path) -> None:
    many = compare_variants(run_file, "Impl", baseline="slow")
    assert many.baseline == "Impl=slow"
    assert many.names == ("Impl=base", "Impl=fast", "Impl=twin")
    assert set(_statuses(many, "Impl=base").values()) == {Status.FAST}


def test_pow2_values_are_named_as_state_names_show_them(run_file: Path) -> None:
    variants = axis_variants(BenchmarkResult(run_file), "Elements")
    assert [variant.label for variant in variants] == ["Elements=2^10", "Elements=2^12"]
    for given in ("2^12", "4096", "Elements=2^12"):
        many = compare_variants(run_file, "Elements", baseline=given)
        assert many.baseline == "Elements=2^12"
        # 4x fewer elements: much faster.
        assert set(_statuses(many, "Elements=2^10").values()) == {Status.FAST}


def test_the_same_as_a_pairwise_comparison_of_split_files(run_file: Path, tmp_path: Path) -> None:
    """The projection changes nothing but the identity: the verdicts and intervals are
    those of two files holding the states of each value."""
    many = compare_variants(run_file, "Impl", correction="none")
    result = BenchmarkResult(run_file)
    from cuda.bench.compare.variants import project

    variants = {variant.label: variant for variant in axis_variants(result, "Impl")}
    from cuda.bench.compare.filters import FilterPlan

    base = project(result, "Impl", variants["Impl=base"], FilterPlan())
    slow = project(result, "Impl", variants["Impl=slow"], FilterPlan())
    pairwise = compare(base, slow)
    assert [(r.key, r.status, r.verdict.effect) for r in many["Impl=slow"].rows] == [
        (r.key, r.status, r.verdict.effect) for r in pairwise.rows
    ]


def test_filters_select_states_and_may_name_the_axis(run_file: Path) -> None:
    many = compare_variants(
        run_file, "Impl", filters=[("axis", "Impl=[base,slow]"), ("axis", "Elements=2^12")]
    )
    assert many.names == ("Impl=slow",)
    assert [row.key for row in many["Impl=slow"].rows] == ["Elements=2^12"] * 2
    assert many["Impl=slow"].filters == ("-a Elements=2^12",)
    with pytest.raises(FilterError, match="Impl=nope"):
        compare_variants(run_file, "Impl", filters=[("axis", "Impl=nope")])


def test_benchmark_filters_naming_a_benchmark_without_the_axis(run_file: Path) -> None:
    many = compare_variants(
        run_file, "Impl", filters=[("benchmark", "impls"), ("benchmark", "plain")]
    )
    assert {row.benchmark for row in many["Impl=fast"].rows} == {"impls"}
    with pytest.raises(CompareInputError, match="no compared benchmark has an axis 'Impl'"):
        compare_variants(run_file, "Impl", filters=[("benchmark", "plain")])


def test_a_benchmark_without_the_axis_is_left_out_with_a_warning(run_file: Path) -> None:
    """``plain`` has no Impl axis: --col Impl cannot compare it, and says so (it was left
    out without a word); a filter that leaves it out already needs no warning."""
    many = compare_variants(run_file, "Impl")
    for name in many.names:
        told = [line for line in many[name].warnings if "'plain'" in line]
        assert len(told) == 1, many[name].warnings
        assert "no axis 'Impl'" in told[0] and "4 states" in told[0] and "not compared" in told[0]
    chosen = compare_variants(run_file, "Impl", filters=[("benchmark", "impls")])
    assert not any("'plain'" in line for line in chosen["Impl=fast"].warnings)


def test_several_runs_are_projected_alike(run_file: Path, tmp_path: Path) -> None:
    other = _write_run(tmp_path / "run2.json", 4, device_factor=1.3)
    many = compare_variants([run_file, other], "Impl", method="ci")
    assert many["Impl=fast"].settings["runs"] == [2, 2]
    assert set(_statuses(many, "Impl=fast").values()) == {Status.FAST}
    assert set(_statuses(many, "Impl=twin").values()) == {Status.SAME}


def test_devices_of_one_file(run_file: Path) -> None:
    many = compare_variants(run_file, "Device")
    assert many.baseline == "Device=0"
    assert many.names == ("Device=1",)
    rows = many["Device=1"].rows
    assert {(row.ref_device, row.cmp_device) for row in rows} == {(0, 1)}
    assert len(rows) == 4 * 2 + 2  # impls (Impl x Elements) + plain
    assert {row.status for row in rows} == {Status.SLOW}
    # The devices differ, which is the point: no warning says so.
    assert not any("device sections" in warning for warning in many["Device=1"].warnings)
    reverse = compare_variants(run_file, "Device", baseline="1")
    assert {row.status for row in reverse["Device=0"].rows} == {Status.FAST}
    with pytest.raises(CompareInputError, match="cmp_devices"):
        compare_variants(run_file, "Device", cmp_devices="1")


def test_the_matrix_is_that_of_compare_many_on_the_projections(run_file: Path) -> None:
    from cuda.bench.compare.filters import FilterPlan
    from cuda.bench.compare.variants import project

    result = BenchmarkResult(run_file)
    variants = axis_variants(result, "Impl")
    sides = [project(result, "Impl", variant, FilterPlan()) for variant in variants]
    direct = compare_many(
        sides[0], {v.label: s for v, s in zip(variants[1:], sides[1:], strict=True)}
    )
    many = compare_variants(run_file, "Impl")
    assert [line.best for line in many.matrix()] == [line.best for line in direct.matrix()]


@pytest.mark.parametrize(
    ("axis", "baseline", "filters", "message"),
    [
        ("Nope", None, None, "no compared benchmark has an axis 'Nope' (axes: Device, "),
        ("Impl", "F64", None, "--baseline F64 is not a value of Impl"),
        ("Elements", "[2^", None, "--baseline [2^ is not a value of Elements"),
        ("Device", "7", None, "--baseline 7 is not a value of Device"),
        ("Impl", None, [("axis", "Impl=twin")], "Impl has one value among the compared states"),
        ("N", None, [("axis", "N=1")], "N has one value"),
    ],
)
def test_bad_requests_are_one_line_errors(
    run_file: Path,
    axis: str,
    baseline: str | None,
    filters: list[tuple[str, str]] | None,
    message: str,
) -> None:
    with pytest.raises(CompareInputError, match=re.escape(message)):
        compare_variants(run_file, axis, baseline=baseline, filters=filters)


def test_device_variants_of_a_cpu_only_file(tmp_path: Path) -> None:
    builder = ResultBuilder(devices=[])
    bench = builder.benchmark("host", axes=[Int64Axis("N", [1, 2])], devices=None)
    for n in (1, 2):
        bench.state({"N": n}, cpu_times=np.full(50, 1e-3 * n))
    path = tmp_path / "cpu.json"
    builder.write(path, jsonbin=False)
    with pytest.raises(CompareInputError, match=r"no compared state ran on a device \(CPU-only\)"):
        compare_variants(path, "Device")
    assert compare_variants(path, "N").names == ("N=2",)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CompareInputError, match="is a directory"):
        compare_variants(tmp_path, "T")


def test_gpu_example_compares_f64_with_f32_state_by_state(gpu_dir: Path) -> None:
    """The acceptance example: ``--col T`` on gpu_ref.json."""
    path = gpu_dir / "gpu_ref.json"
    many = compare_variants(path, "T")
    assert (many.baseline, many.names) == ("T=F32", ("T=F64",))
    rows = many["T=F64"].rows
    result = BenchmarkResult(path)
    states = {
        (state.device, state.name()): state
        for state in result["copy_bench"]
        if not state.is_skipped
    }
    assert {row.benchmark for row in rows} == {"copy_bench"}
    assert len(rows) == 8  # 2 devices x Elements x Layout
    checked = 0
    for row in rows:
        point = " ".join(f"{v.name}={v.input_string}" for v in row.axis_values)
        assert "T=" not in row.key
        f32 = states.get((row.ref_device, f"T=F32 {point}".replace("Elements=", "Elements[pow2]=")))
        f64 = states.get((row.ref_device, f"T=F64 {point}".replace("Elements=", "Elements[pow2]=")))
        if f32 is None or f64 is None:
            assert row.status not in (Status.FAST, Status.SLOW, Status.SAME)
            continue
        mean = "nv/cold/time/gpu/mean"
        assert row.status is Status.SLOW  # F64 copies twice the bytes
        assert row.ref is not None and row.cmp is not None
        assert f64.float_value(mean) > f32.float_value(mean)  # type: ignore[operator]
        checked += 1
    assert checked == 4  # the strided F64 states are skipped


def test_a_benchmark_named_like_the_device_warning_keeps_its_warnings(tmp_path: Path) -> None:
    """Device variants leave out the engine's warning that the device sections differ,
    known as such from where it is told, never from its text: a benchmark named as that
    warning begins keeps its own warnings."""
    path = _write_run(tmp_path / "run.json", 5)
    document = json.loads(path.read_text())
    hostile = "device sections of run.json and run.json differ"
    bench = document["benchmarks"][1]
    assert bench["name"] == "plain"
    bench["name"] = hostile
    state = next(state for state in bench["states"] if state["device"] == 1)
    state["name"] = state["name"].replace("Device=1 ", "")
    path.write_text(json.dumps(document))

    warnings = compare_variants(path, "Device")["Device=1"].warnings

    told = [line for line in warnings if line.startswith(f"{hostile}: compare state ")]
    assert len(told) == 1, warnings
    assert "does not begin with 'Device=1'" in told[0]
    assert all(line in told for line in warnings), warnings
