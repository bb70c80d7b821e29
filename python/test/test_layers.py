"""The package's layers import one way, as README's module map draws them: shared helpers,
then ``results`` (the reader and writer), then ``adapters`` and ``compare`` (the engine),
then ``history``, then ``report`` (the renderers), then ``cli``. A module imports only from
its own layer and the layers above it; the one exception is named below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Final

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"

#: Each top-level name of the package and its layer (a layer imports from lower numbers).
LAYERS: Final = MappingProxyType(
    {
        "": 0,  # the package itself and its shared modules (_io, _lazy, _deps, ...)
        "results": 1,
        "adapters": 2,
        "compare": 2,
        "history": 3,
        "report": 4,
        "cli": 5,
        "scripts": 6,  # NVIDIA's script module names over the cli (cuda.bench.scripts)
    }
)

#: Imports against the flow, each with why.
ALLOWED: Final = MappingProxyType(
    {
        ("compare/__main__.py", "cli"): "`python -m cuda.bench.compare` runs the command line",
    }
)


def _layer(module: Sequence[str]) -> str:
    """The layer of a module given by its names inside the package (``results``,
    ``_model``)."""
    return module[0] if len(module) > 1 and module[0] in LAYERS else ""


def _imported_layers(source: str, module: Sequence[str]) -> set[str]:
    """The layers ``source``, the module ``module`` of the package, imports from."""
    package = list(module[:-1])
    targets: list[list[str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = node.module.split(".") if node.module else []
            if node.level:
                targets.append([*package[: len(package) - (node.level - 1)], *names, "*"])
            elif names[:2] == ["cuda", "bench"]:
                targets.append([*names[2:], "*"])
        elif isinstance(node, ast.Import):
            targets.extend(
                [*alias.name.split(".")[2:], "*"]
                for alias in node.names
                if alias.name.startswith("cuda.bench.")
            )
    return {_layer(target) for target in targets}


def test_every_top_level_package_has_a_layer() -> None:
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert packages == set(LAYERS) - {""}


def test_layers_import_one_way() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        module = path.relative_to(PACKAGE).with_suffix("").parts
        own = _layer(module)
        for layer in sorted(_imported_layers(path.read_text(), module)):
            if LAYERS[layer] > LAYERS[own] and (name, layer) not in ALLOWED:
                offenders.append(f"{name} imports from {layer}")
    assert offenders == []


def test_the_check_sees_an_upward_import() -> None:
    source = (
        "from ..compare import compare\n"
        "import cuda.bench.report.tables\n"
        "from . import _schema\n"
        "from .. import _io\n"
    )
    assert _imported_layers(source, ("results", "probe")) == {"compare", "report", "results", ""}
    assert _imported_layers("from ...results import x\n", ("report", "html", "data")) == {"results"}


# ---------------------------------------------------------------------------------------------
# No import circles, module by module.
#
# Every import counts: at module level, inside functions (a lazy import still ties the two
# modules together, and only hides the circle until that function runs) and under
# ``if TYPE_CHECKING:`` (the types a module names are a dependency too). A circle is allowed only
# where it closes through a type-only import listed below: a function that takes a value whose
# own methods call that function must name the value's type, and no import of it ever runs.

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

#: Type-only imports (module → module it names types of) that may close a circle, each with why.
TYPE_ONLY_BACK_REFERENCES: Final = MappingProxyType(
    {
        ("results._state", "results._benchmark"): (
            "a state names its benchmark's public type (SubBenchmarkState.benchmark; named "
            "from its own module, not the package __init__, which NVIDIA's cuda-bench may "
            "replace); the benchmark holds its states"
        ),
        ("compare.records", "compare.model"): (
            "the records take a Comparison, whose to_dataframe builds its frame from them"
        ),
        ("compare.exit_policy", "compare.model"): (
            "--fail-on reads a Comparison; the records (Comparison.to_dataframe) name its "
            "conditions"
        ),
        ("compare.suite", "compare.model"): (
            "the suite summary reads a Comparison; its records (Comparison.to_dataframe) hold it"
        ),
    }
)


def _modules(root: Path) -> dict[str, Path]:
    """Each module under ``root`` by dotted name (a package by its own name, the root's
    ``__init__`` as ``""``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _type_only_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                inside.update(id(inner) for inner in ast.walk(statement))
    return inside


def _import_edges(
    source: str, module: str, is_package: bool, modules: Mapping[str, Path], prefix: str
) -> dict[str, bool]:
    """The modules ``source`` (the module ``module``) imports, each with whether every such
    import is type-only. ``prefix`` is the package's absolute name (``cuda.bench``; empty
    for a directory of scripts, which import each other by plain name)."""
    tree = ast.parse(source)
    type_only = _type_only_nodes(tree)
    own = module.split(".") if module else []
    package = own if is_package else own[:-1]
    edges: dict[str, bool] = {}

    def absolute(name: str) -> list[str] | None:
        parts = name.split(".")
        if prefix:
            head = prefix.split(".")
            return parts[len(head) :] if parts[: len(head)] == head else None
        return parts if parts[0] in modules else None

    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                parts: list[str] | None = [*base, *(node.module.split(".") if node.module else [])]
            else:
                parts = absolute(node.module or "")
            if parts is None:
                continue
            for alias in node.names:
                submodule = ".".join([*parts, alias.name])
                targets.append(submodule if submodule in modules else ".".join(parts))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = absolute(alias.name)
                if parts is not None:
                    targets.append(".".join(parts))
        for target in targets:
            if target in modules and target != module:
                edges[target] = edges.get(target, True) and id(node) in type_only
    return edges


def _graph(root: Path, prefix: str) -> dict[str, dict[str, bool]]:
    modules = _modules(root)
    return {
        name: _import_edges(path.read_text(), name, path.name == "__init__.py", modules, prefix)
        for name, path in modules.items()
    }


def _circle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One circle of ``graph`` (its modules in order, the first repeated at the end)."""
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> list[str] | None:
        if name in trail:
            return [*trail[trail.index(name) :], name]
        if name in done:
            return None
        for target in sorted(graph.get(name, ())):
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


def _without_allowed(graph: Mapping[str, Mapping[str, bool]]) -> dict[str, set[str]]:
    return {
        name: {
            target
            for target, type_only in edges.items()
            if not (type_only and (name, target) in TYPE_ONLY_BACK_REFERENCES)
        }
        for name, edges in graph.items()
    }


@pytest.mark.parametrize(
    ("root", "prefix"), [(PACKAGE, "cuda.bench"), (BENCHMARKS, "")], ids=["package", "benchmarks"]
)
def test_no_import_circle(root: Path, prefix: str) -> None:
    assert _circle(_without_allowed(_graph(root, prefix))) is None


def test_each_allowed_back_reference_is_a_type_only_import_in_a_circle() -> None:
    """The list stays as short as it can: each entry is there, is type-only, and without it
    its target would still reach back to the module that names it."""
    graph = _graph(PACKAGE, "cuda.bench")
    for name, target in TYPE_ONLY_BACK_REFERENCES:
        assert graph[name].get(target) is True, (name, target)
        rest = {
            module: set(edges) - ({target} if module == name else set())
            for module, edges in graph.items()
        }
        assert _reaches(rest, target, name), (name, target)


def _reaches(graph: Mapping[str, Iterable[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return False


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        # a lazy import closing a circle (compare/model → records → exit_policy → model)
        (
            {
                "m/__init__.py": "",
                "m/model.py": "def f():\n    from .records import g\n",
                "m/records.py": "from .policy import p\n",
                "m/policy.py": "from .model import Status\n",
            },
            ["m.model", "m.policy", "m.records", "m.model"],
        ),
        # a type-only import closing a circle with a lazy one (results/_model ↔ _frame)
        (
            {
                "m/__init__.py": "",
                "m/a.py": "def f():\n    from .b import g\n",
                "m/b.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
                ),
            },
            ["m.a", "m.b", "m.a"],
        ),
        # scripts importing each other by plain name (verdict_quality ↔ _many_study)
        (
            {
                "vq.py": "def f():\n    import _study\n",
                "_study.py": "def g():\n    import vq as q\n",
            },
            ["_study", "vq", "_study"],
        ),
    ],
    ids=["lazy", "type-only", "scripts"],
)
def test_the_circle_check_sees_lazy_and_type_only_imports(
    tmp_path: Path, files: Mapping[str, str], circle: list[str]
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    prefix = "" if "vq.py" in files else "cuda.bench"
    found = _circle(_without_allowed(_graph(tmp_path, prefix)))
    assert found is not None
    assert sorted(found[:-1]) == sorted(circle[:-1])
