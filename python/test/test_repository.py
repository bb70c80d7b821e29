"""The repository's promises: README commands, CI script, example data, code quality."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def _code_block_after(marker: str) -> str:
    text = README.read_text()
    match = re.search(rf"^<!-- {marker} -->\n```sh\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)
    assert match, f"README has no code block after <!-- {marker} -->"
    return match.group(1)


def test_readme_starts_with_the_two_commands() -> None:
    lines = README.read_text().splitlines()
    assert lines[0].startswith("# ")
    commands = [line for line in lines[1:10] if line.startswith("python3 -m venv")]
    assert commands == [_code_block_after("run-command"), _code_block_after("test-command")]
    assert "pytest" in commands[1] and "nvbench_compare" in commands[0]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    script = (REPO / ".ci" / "run").read_text()
    assert os.access(REPO / ".ci" / "run", os.X_OK)
    extraction = re.search(r"^test_command=\$\((.*)\)$", script, re.MULTILINE)
    assert extraction, ".ci/run no longer extracts the README command"
    done = subprocess.run(
        ["bash", "-c", extraction.group(1)], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == _code_block_after("test-command")


def test_run_command_uses_example_data_made_by_our_writer() -> None:
    from cuda.bench.results import BenchmarkResult

    command = _code_block_after("run-command")
    paths = re.findall(r"python/examples/data/\S+\.json", command)
    assert len(paths) == 2
    for path in paths:
        result = BenchmarkResult(REPO / path)
        assert result.meta.argv[0] == "./example_bench"  # written by make_example_data.py
        assert all(state.samples is not None for state in result.states())


def test_example_data_is_reproducible(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(REPO / "python" / "examples" / "make_example_data.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    committed = REPO / "python" / "examples" / "data"
    for made in sorted(tmp_path.rglob("*")):
        if made.is_file():
            relative = made.relative_to(tmp_path)
            assert made.read_bytes() == (committed / relative).read_bytes(), relative


def test_constraints_pin_the_cpu_torch() -> None:
    text = (REPO / ".ci" / "constraints.txt").read_text()
    assert re.search(r"^torch==\d+\.\d+\.\d+$", text, re.MULTILINE)


def _tool(name: str) -> str:
    found = shutil.which(
        name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the test extra)")
    return found


def test_code_is_ruff_clean() -> None:
    ruff = _tool("ruff")
    targets = ["python", "stubs"]
    check = subprocess.run([ruff, "check", *targets], cwd=REPO, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    form = subprocess.run(
        [ruff, "format", "--check", *targets], cwd=REPO, capture_output=True, text=True
    )
    assert form.returncode == 0, form.stdout + form.stderr


def _mypy_root(tmp_path: Path) -> Path:
    """A tree where ``cuda/bench`` is the package, as installed (mypy needs real paths)."""
    root = tmp_path / "mypyroot"
    (root / "cuda").mkdir(parents=True)
    (root / "cuda" / "bench").symlink_to(REPO / "python" / "cuda_bench")
    return root


@pytest.mark.slow
def test_package_is_mypy_strict_clean(tmp_path: Path) -> None:
    _tool("mypy")
    root = _mypy_root(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "-p",
            "cuda.bench",
        ],
        cwd=root,
        env={**os.environ, "MYPYPATH": str(root)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_is_over_600_lines() -> None:
    # Small modules with one job (the developers' guide); a module past the limit is split.
    package = REPO / "python" / "cuda_bench"
    long = {
        str(path.relative_to(REPO)): lines
        for path in sorted(package.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert not long, long
