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


def _public_modules() -> list[str]:
    """``cuda.bench.compare`` and ``cuda.bench.history`` with every module under them whose
    name has no leading underscore."""
    import pkgutil

    import cuda.bench.compare
    import cuda.bench.history

    names = []
    for package in (cuda.bench.compare, cuda.bench.history):
        names.append(package.__name__)
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not any(part.startswith("_") for part in found.name.split(".")):
                names.append(found.name)
    return names


def _public_names(module_name: str) -> list[tuple[str, object]]:
    import importlib

    module = importlib.import_module(module_name)
    return [(name, getattr(module, name)) for name in getattr(module, "__all__", ())]


@pytest.mark.parametrize("module_name", _public_modules())
def test_every_public_class_and_function_can_be_introspected(module_name: str) -> None:
    # Annotations naming types imported only for the type checker raised NameError in
    # typing.get_type_hints, inspect.signature(eval_str=True) and pydoc ("name 'FloatArray'
    # is not defined": RunSeries, Detection, ArchiveSeries, Failure, SyntheticHistory, ...).
    import inspect
    import pydoc

    checked = 0
    for name, value in _public_names(module_name):
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        assert pydoc.render_doc(value), name
        if inspect.isclass(value):
            assert isinstance(typing.get_type_hints(value), dict), name
            try:
                inspect.signature(value, eval_str=True)
            except ValueError as error:  # an exception's or a str subclass' builtin __init__
                assert "no signature found for builtin" in str(error), name
            checked += 1
        elif module_name in ("cuda.bench.compare", "cuda.bench.history"):
            typing.get_type_hints(value)
            inspect.signature(value, eval_str=True)
    assert checked or module_name not in ("cuda.bench.compare", "cuda.bench.history")
