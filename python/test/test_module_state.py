"""No module-level mutable state: no module holds a mutable container or an object with
state of its own, no function rebinds a module global, and comparing leaves every
module's globals (and the containers they hold) as it found them.

Memos are ``functools`` caches, values handed on explicitly, or attributes of the objects
they belong to; a module global that changes between calls couples one call to the last.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import enum
import importlib
import pkgutil
import sys
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, Final

import cuda.bench
import msgspec
import numpy as np
import pytest
from cuda.bench._lazy import LazyModule
from cuda.bench.compare import compare
from cuda.bench.compare.bulkdata import NO_BULK
from cuda.bench.report.document import render_document
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"


#: Module-level objects the check below would flag, each with why it is not state.
ALLOWED: Final = MappingProxyType(
    {
        "cuda.bench.compare.bulkdata.NO_BULK": "the bulk data of states without side files: "
        "with no source its caches are final from construction "
        "(test_the_shared_empty_bulk_data_never_changes)",
        "cuda.bench.results._LAZY": "results/ is being rewritten (issue 16 item 2, "
        "branch r16): make this lazy-import table a MappingProxyType there",
        "cuda.bench.results._axes._BUILTIN_TYPE_DESCRIPTIONS": "results/ is being "
        "rewritten (issue 16 item 2, branch r16): make it a MappingProxyType there",
        "cuda.bench.results.synthetic._SIDE_CODES": "results/ is being rewritten "
        "(issue 16 item 2, branch r16): make it a MappingProxyType there",
    }
)

#: Classes whose instances the check passes, with why.
ALLOWED_TYPES: Final = MappingProxyType(
    {
        LazyModule: "stands for a module (numpy, numpy.typing) imported on first use: it "
        "keeps only the attributes it looked up there, the objects any later lookup returns",
    }
)

_MUTABLE_CONTAINERS: Final = (dict, list, set, bytearray, collections.deque)


def _all_modules() -> list[ModuleType]:
    """Every module of the package, imported (``__main__`` modules would run a program)."""
    names = [
        info.name
        for info in pkgutil.walk_packages(cuda.bench.__path__, "cuda.bench.")
        if not info.name.endswith(".__main__")
    ]
    return [cuda.bench, *(importlib.import_module(name) for name in sorted(names))]


def _holds_state(value: object) -> bool:
    """``value`` can change in place: a mutable container, a writable array, or an object of
    the package's own classes that is not frozen and keeps attributes of its own."""
    if isinstance(value, _MUTABLE_CONTAINERS):
        return True
    if isinstance(value, np.ndarray):
        return bool(value.flags.writeable)
    kind = type(value)
    if not kind.__module__.startswith("cuda.bench") or isinstance(value, enum.Enum | tuple):
        return False
    if isinstance(value, msgspec.Struct):
        return not kind.__struct_config__.frozen
    if dataclasses.is_dataclass(value):
        return not kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
    if getattr(value, "__dict__", None):
        return True
    slots = {name for cls in kind.__mro__ for name in getattr(cls, "__slots__", ())}
    return any(hasattr(value, name) for name in slots)


def test_no_module_holds_mutable_state() -> None:
    """Constants are tuples, frozensets, MappingProxyTypes and frozen structs; memos are
    ``functools`` caches. A dict or list at module level is state any call can change."""
    modules = _all_modules()
    allowed = {id(value) for value in map(_lookup, ALLOWED) if value is not None}
    offenders = sorted(
        f"{module.__name__}.{name}: {type(value).__name__}"
        for module in modules
        for name, value in vars(module).items()
        if not (name.startswith("__") and name.endswith("__"))
        and id(value) not in allowed
        and type(value) not in ALLOWED_TYPES
        and _holds_state(value)
    )
    assert offenders == []


def _lookup(path: str) -> object | None:
    """The object ``module.name`` names, or ``None`` when it is gone."""
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name, None)
    except ModuleNotFoundError:
        return None


def test_every_allowed_object_still_needs_it() -> None:
    """An exception whose object is gone, or no longer holds state, leaves the list."""
    stale = [path for path in ALLOWED if not _holds_state(_lookup(path))]
    assert stale == []


def test_the_check_would_see_state() -> None:
    """The check above flags what it must (and passes what it must)."""

    @dataclasses.dataclass
    class Open:
        value: int = 0

    assert _holds_state({}) and _holds_state([]) and _holds_state(collections.Counter())
    assert _holds_state(np.zeros(2))
    assert not _holds_state(MappingProxyType({})) and not _holds_state(frozenset())
    frozen_array = np.zeros(2)
    frozen_array.setflags(write=False)
    assert not _holds_state(frozen_array)
    Open.__module__ = "cuda.bench.example"
    assert _holds_state(Open())
    assert not _holds_state(object())


def test_the_shared_empty_bulk_data_never_changes(pairs: list[tuple[Path, Path]]) -> None:
    """Every state without side files shares :data:`NO_BULK`: asking it anything, and
    releasing it as the engine does after each row, leaves it as constructed."""

    def snapshot() -> dict[str, object]:
        return {name: getattr(NO_BULK, name) for name in type(NO_BULK).__slots__}

    before = snapshot()
    assert NO_BULK.times() is None and NO_BULK.cycles() is None
    assert NO_BULK.unsorted_times() is None and NO_BULK.unsorted_cycles() is None
    assert not NO_BULK.has_times() and not NO_BULK.has_frequencies()
    assert snapshot() == before
    NO_BULK.release()
    assert snapshot() == before
    _compare_all(pairs)
    assert snapshot() == before


def test_no_function_rebinds_a_module_global() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: global {', '.join(node.names)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Global)
    ]
    assert offenders == []


def _fingerprint(value: Any) -> Any:
    """What would reveal a change: identities of a container's contents."""
    if isinstance(value, dict):
        return ("dict", tuple((key, id(item)) for key, item in value.items()))
    if isinstance(value, list | bytearray):
        return ("list", tuple(id(item) for item in value))
    if isinstance(value, set):
        return ("set", frozenset(id(item) for item in value))
    return ("value", id(value))


def _package_globals() -> dict[tuple[str, str], Any]:
    modules: list[tuple[str, ModuleType]] = [
        (name, module)
        for name, module in list(sys.modules.items())
        if name.startswith("cuda.bench") and module is not None
    ]
    return {
        (name, attribute): _fingerprint(value)
        for name, module in modules
        for attribute, value in vars(module).items()
        if not (attribute.startswith("__") and attribute.endswith("__"))
    }


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("module-state")
    found = []
    for seed, jsonbin in ((1, True), (2, False)):
        written = write_pair(
            root / str(seed),
            SyntheticConfig(benchmarks=2, states=6, samples=150),
            seed=seed,
            random_shifts=2,
            jsonbin=jsonbin,
        )
        found.append((written.ref[0], written.cmp[0]))
    return found


def _compare_all(pairs: list[tuple[Path, Path]]) -> None:
    for ref, cmp in pairs:
        for method in ("ci", "robust"):
            comparison = compare(ref, cmp, method=method, jobs=1)
            render_document(comparison)
            for row in comparison:
                if row.ref_state is not None:
                    row.ref_state.summaries  # noqa: B018 (reads a lazily decoded state)


def test_comparing_leaves_module_globals_as_it_found_them(
    pairs: list[tuple[Path, Path]],
) -> None:
    _compare_all(pairs)  # imports whatever a comparison imports lazily
    before = _package_globals()
    _compare_all(list(reversed(pairs)))
    after = _package_globals()
    changed = sorted(
        f"{module}.{name}"
        for (module, name), fingerprint in before.items()
        if after.get((module, name)) != fingerprint
    )
    assert changed == []
