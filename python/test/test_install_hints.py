"""Install hints name the checkout, never a PyPI name: nvbench-tools is not on PyPI, so
``pip install 'nvbench-tools[X]'`` fails, or installs whatever someone else registers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cuda.bench._deps import MissingDependencyError, install_hint, require
from cuda.bench.cli._common import COINSTALL_REPAIR

REPO = Path(__file__).resolve().parents[2]

# ``pip install nvbench-tools``, ``'nvbench-tools[X]'``, ``--no-deps nvbench-tools``: the
# package by its (unregistered) name, across a line break in a docstring too.
PYPI_NAME = re.compile(r"nvbench-tools\[|pip\s+install\s+(?:--?[\w-]+\s+)*'?nvbench-tools\b")


def _texts() -> list[Path]:
    roots = [REPO / "python" / "cuda_bench", REPO / "python" / "examples", REPO / "docs"]
    files = [p for root in roots for p in root.rglob("*") if p.suffix in {".py", ".md"}]
    return [*files, REPO / "README.md"]


def test_no_source_or_page_installs_the_package_by_name() -> None:
    offenders = [
        f"{path.relative_to(REPO)}: {match.group(0)!r}"
        for path in _texts()
        for match in PYPI_NAME.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_pattern_catches_the_pypi_forms() -> None:
    for text in (
        "pip install 'nvbench-tools[history]'",
        "python -m pip install --force-reinstall --no-deps nvbench-tools",
        "``pip install\n'nvbench-tools[history]'``",
        "pip install nvbench-tools",
    ):
        assert PYPI_NAME.search(text), text
    for text in (install_hint("plot"), COINSTALL_REPAIR, "pip install ./nvbench-tools"):
        assert not PYPI_NAME.search(text), text


def test_the_hint_says_where_to_run_it() -> None:
    assert install_hint("plot") == (
        "python -m pip install '.[plot]' (from the nvbench-tools checkout's root)"
    )
    assert COINSTALL_REPAIR.endswith("--no-deps . (from the nvbench-tools checkout's root)")
    with pytest.raises(MissingDependencyError) as raised:
        require("no_such_module_for_the_hint", extra="plot", purpose="a test")
    assert str(raised.value).endswith(install_hint("plot"))
