"""The comparison's value types can be introspected, and the modules that define and use
them import one another in one direction only."""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from cuda.bench.compare import calibrate as calibrate_module
from cuda.bench.compare import model
from cuda.bench.compare.match import StateKey
from cuda.bench.compare.runs import StateIdentity, state_index
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

PACKAGE = Path(model.__file__).resolve().parents[1]

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


def _module_level_imports(body: list[ast.stmt]) -> Iterator[ast.ImportFrom]:
    """Relative imports at module level, those under ``if TYPE_CHECKING:`` included (they
    are what ``get_type_hints`` needs at run time), not those inside functions."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            yield node
        for field in ("body", "orelse", "handlers", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _module_level_imports(inner)


def _import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        package = parts[:-1]
        if parts[-1] == "__init__":
            parts = package
        name = ".".join(parts)
        targets: set[str] = set()
        for node in _module_level_imports(ast.parse(path.read_text()).body):
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, *([node.module] if node.module else [])])
            targets.add(target)
            targets.update(f"{target}.{alias.name}".lstrip(".") for alias in node.names)
        graph[name] = targets
    return {
        name: {
            target
            for target in targets
            if target in graph and target != name and not name.startswith(f"{target}.")
        }
        for name, targets in graph.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> list[str] | None:
        if name in trail:
            return [*trail[trail.index(name) :], name]
        if name in done:
            return None
        for target in sorted(graph[name]):
            found = walk(target, [*trail, name])
            if found:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        found = walk(name, [])
        if found:
            return found
    return None


def test_no_import_cycle_at_module_level() -> None:
    from test_layers import TYPE_ONLY_BACK_REFERENCES

    graph = _import_graph()
    assert "compare.model" in graph["compare.suite"]  # the graph sees relative imports
    # The type-only back-references test_layers allows (and checks to be type-only and needed).
    for name, target in TYPE_ONLY_BACK_REFERENCES:
        graph.get(name, set()).discard(target)
    assert _cycle(graph) is None


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
