"""The comparison's value types can be introspected, and the modules that define and use
them import one another in one direction only."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import msgspec
import pytest
from cuda.bench.compare import calibrate as calibrate_module
from cuda.bench.compare import model
from cuda.bench.compare.match import StateKey
from cuda.bench.compare.runs import StateIdentity, state_index
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

VALUE_TYPES = [
    model.Comparison,
    model.Row,
    model.Verdict,
    model.Effect,
    model.SideEstimate,
    model.SuiteSummary,
]


@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=lambda cls: cls.__name__)
def test_type_hints_resolve(value_type: type) -> None:
    hints = typing.get_type_hints(value_type)
    assert hints  # every field's annotation names something that exists at run time


@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=lambda cls: cls.__name__)
def test_msgspec_inspects(value_type: type) -> None:
    info = msgspec.inspect.type_info(value_type)
    assert isinstance(info, msgspec.inspect.StructType)
    assert info.cls is value_type


def test_comparison_suite_is_the_summary_struct() -> None:
    info = msgspec.inspect.type_info(model.Comparison)
    assert isinstance(info, msgspec.inspect.StructType)
    suite = next(field for field in info.fields if field.name == "suite")
    assert isinstance(suite.type, msgspec.inspect.UnionType)
    members = [
        member for member in suite.type.types if isinstance(member, msgspec.inspect.StructType)
    ]
    assert [member.cls for member in members] == [model.SuiteSummary]


def test_calibrating_does_not_load_the_comparison_api(tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path,
        SyntheticConfig(benchmarks=1, states=3, samples=50),
        seed=2,
        ref_runs=2,
        jsonbin=False,
    )
    runs = [str(path) for path in pair.ref]
    code = (
        "import sys\n"
        "from cuda.bench.compare.calibrate import calibrate\n"
        f"calibrate({runs!r}, methods=('robust',), presets=('default',))\n"
        "print('cuda.bench.compare.api' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_calibration_lookup_uses_the_run_identity_by_name(tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=2, states=3, samples=80), seed=3, ref_runs=3
    )
    calibration = calibrate_module.calibrate(
        list(pair.ref), methods=("robust",), presets=("default",)
    )
    index = state_index(BenchmarkResult(pair.ref[0]))
    assert index and all(isinstance(identity.key, StateKey) for identity in index)
    for identity in index:
        floor = calibration.floor_for(identity.named())
        assert floor is not None
        assert floor.identity == identity.named()
        assert (floor.benchmark, floor.key) == (identity.benchmark, identity.key.name)
    other = StateIdentity("bench_09", 0, 0, "Device=0 Elements=1024", 0)
    assert calibration.floor_for(other) is None


def test_former_frame_module_names_the_records() -> None:
    from cuda.bench.compare import frame, records

    assert frame.__all__ == records.__all__
    assert all(getattr(frame, name) is getattr(records, name) for name in records.__all__)
