"""Packaging: the shared ``cuda`` namespace, cheap imports, installed layouts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _python(code: str, *, path: list[Path] | None = None) -> str:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join([str(p) for p in path] + [env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_repository_ships_no_cuda_init() -> None:
    # Only what the project ships: virtual environments inside the checkout hold others.
    shipped = [REPO / "python", REPO / "stubs"]
    offenders = [
        path
        for root in shipped
        if root.exists()
        for path in root.rglob("__init__.py*")
        if path.parent.name == "cuda"
    ]
    assert offenders == []
    assert not (REPO / "python" / "cuda_bench" / "__init__.py").read_text().count("cuda.bindings")


def test_import_cuda_bench_is_cheap() -> None:
    out = _python(
        """
        import sys
        import cuda.bench
        heavy = ("numpy", "msgspec", "pandas", "matplotlib", "torch")
        print(",".join(m for m in heavy if m in sys.modules))
        """
    )
    assert out.strip() == ""


def test_import_results_does_not_pull_optional_packages() -> None:
    out = _python(
        """
        import sys
        import cuda.bench.results
        print(",".join(m for m in ("pandas", "matplotlib", "seaborn", "torch") if m in sys.modules))
        """
    )
    assert out.strip() == ""


def test_summaries_alone_never_import_numpy(tmp_path: Path) -> None:
    # Reading results and comparing them from their summaries needs no array: numpy (a
    # tenth of a second to import) stays out until a side file is read.
    from cuda.bench.results.synthetic import SyntheticConfig, write_pair

    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=1, states=4, samples=50), seed=1, jsonbin=False
    )
    out = _python(
        f"""
        import sys
        from cuda.bench.results import BenchmarkResult
        from cuda.bench.compare import compare
        from cuda.bench.report.document import render_document
        result = BenchmarkResult({str(pair.ref[0])!r})
        assert result["bench_00"][0].get_value("nv/cold/time/gpu/mean") > 0
        ref, cmp = {str(pair.ref[0])!r}, {str(pair.cmp[0])!r}
        for method in ("ci", "robust"):
            assert "# Summary" in render_document(compare(ref, cmp, method=method))
        print("numpy" in sys.modules)
        """
    )
    assert out.strip() == "False"


def _fake_cuda_python(root: Path) -> Path:
    """A site directory holding ``cuda/bindings`` the way cuda-python installs it."""
    bindings = root / "cuda" / "bindings"
    bindings.mkdir(parents=True)
    (bindings / "__init__.py").write_text("MARK = 'bindings'\n")
    return root


def test_shares_the_cuda_namespace_with_cuda_python(tmp_path: Path) -> None:
    site = _fake_cuda_python(tmp_path / "site")
    out = _python(
        """
        import cuda.bindings, cuda.bench.results
        print(cuda.bindings.MARK, cuda.bench.results.BenchmarkResult.__name__)
        """,
        path=[site],
    )
    assert out.split() == ["bindings", "BenchmarkResult"]


@pytest.mark.slow
def test_non_editable_install_layout(tmp_path: Path) -> None:
    """``pip install .`` puts ``cuda/bench`` beside other ``cuda.*`` packages and ships no
    ``cuda/__init__.py``."""
    target = tmp_path / "target"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(target),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"pip could not build the package here: {done.stderr.strip()[-300:]}")
    assert (target / "cuda" / "bench" / "results" / "__init__.py").is_file()
    assert (target / "cuda" / "bench" / "py.typed").is_file()
    assets = target / "cuda" / "bench" / "report" / "html" / "assets"
    assert sorted(path.name for path in assets.iterdir()) == [
        "history.css",
        "history.js",
        "report.css",
        "report.js",
    ]
    assert not (target / "cuda" / "__init__.py").exists()
    site = _fake_cuda_python(tmp_path / "other")
    out = _python(
        """
        import cuda.bindings, cuda.bench.results
        print(cuda.bench.results.__file__)
        """,
        path=[target, site],
    )
    assert out.strip().startswith(str(target))
