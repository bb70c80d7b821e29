"""An optional package that is installed but fails to import (pyarrow built for NumPy 2
under NumPy 1, a dependency of its own missing) is one line and exit status 2 from every
command that needs it, with the package's own reason: it was a traceback and exit 1, which
CI reads as a regression found."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cuda.bench._deps import BrokenDependencyError, MissingDependencyError, require
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

REASON = "pyarrow requires NumPy 2.0 or newer, found 1.26.4"


def _package(root: Path, name: str, body: str) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(body, encoding="utf-8")
    return root


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


def test_an_import_error_inside_a_package_names_it_and_keeps_its_reason(on_path: Path) -> None:
    _package(on_path, "broken_for_a_test", f"raise ImportError({REASON!r})\n")
    with pytest.raises(BrokenDependencyError) as raised:
        require("broken_for_a_test", extra="history", purpose="a test", package="pyarrow")
    message = str(raised.value)
    assert message.startswith("pyarrow is needed for a test and is installed")
    assert message.endswith(REASON)
    assert isinstance(raised.value, MissingDependencyError)  # what the tools catch


def test_a_package_missing_a_dependency_of_its_own_is_broken_not_missing(on_path: Path) -> None:
    _package(on_path, "lacking_for_a_test", "import no_such_module_of_its_own\n")
    with pytest.raises(BrokenDependencyError, match="no_such_module_of_its_own"):
        require("lacking_for_a_test", extra="plot", purpose="a test")


def test_a_missing_package_still_gets_the_install_hint() -> None:
    with pytest.raises(MissingDependencyError) as raised:
        require("no_such_package_for_a_test", extra="plot", purpose="a test")
    assert not isinstance(raised.value, BrokenDependencyError)
    assert "pip install" in str(raised.value)


def _run(module: str, fake: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(fake), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )


def test_history_ingest_with_a_broken_pyarrow_is_one_line_and_2(tmp_path: Path) -> None:
    fake = _package(tmp_path / "site", "pyarrow", f"raise ImportError({REASON!r})\n")
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=2), seed=3, jsonbin=False)
    archive = tmp_path / "archive"
    done = _run(
        "cuda.bench.cli.history", fake, "ingest", "--archive", archive, "--commit", "abc", pair.ref
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nvbench-history: error: pyarrow")
    assert lines[0].endswith(REASON)


def test_a_plot_with_a_broken_matplotlib_is_one_line_and_2(tmp_path: Path) -> None:
    fake = _package(tmp_path / "site", "matplotlib", "import numpy_built_for_another_abi\n")
    pair = write_pair(tmp_path, SyntheticConfig(benchmarks=1, states=2), seed=3, jsonbin=False)
    done = _run("cuda.bench.cli.compare", fake, pair.ref, pair.cmp, "--plot", tmp_path / "f.png")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "matplotlib is needed" in done.stderr and "numpy_built_for_another_abi" in done.stderr
    assert not (tmp_path / "f.png").exists()
