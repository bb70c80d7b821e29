"""No module-level mutable state: no function rebinds a module global, and comparing
leaves every module's globals (and the containers they hold) as it found them.

Memos are ``functools`` caches, values handed on explicitly, or attributes of the objects
they belong to; a module global that changes between calls couples one call to the last.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cuda.bench.compare import compare
from cuda.bench.report.document import render_document
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"


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
