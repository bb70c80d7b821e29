"""The package's layers import one way, as README's module map draws them: shared helpers,
then ``results`` (the reader and writer), then ``adapters`` and ``compare`` (the engine),
then ``history``, then ``report`` (the renderers), then ``cli``. A module imports only from
its own layer and the layers above it; the one exception is named below.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Final

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
