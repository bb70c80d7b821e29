"""The suite's own reporting (``conftest.py`` with the repository's pytest options): skipped
tests summarised by reason, torch as one skip reason, and ``NVBENCH_TOOLS_REQUIRE_TORCH=1``
turning those skips into a failed run. Each case runs pytest on a tiny test directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REQUIRE_TORCH, TORCH_ABSENT

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# Without the cache and hypothesis's plugin (which alone takes a second to import).
PYTEST_OPTIONS = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--color=no")

HIDE_TORCH = 'import sys\nsys.modules["torch"] = None  # as if torch were not installed\n'


def run_suite(
    directory: Path, files: dict[str, str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """pytest on ``files`` beside a copy of this suite's conftest and pytest options."""
    directory.mkdir(exist_ok=True)
    shutil.copy(HERE / "conftest.py", directory)
    shutil.copy(REPO / "pyproject.toml", directory)
    for name, text in files.items():
        (directory / name).write_text(text)
    environ = {k: v for k, v in os.environ.items() if k != REQUIRE_TORCH} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "."],
        cwd=directory,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def summary_lines(output: str) -> list[str]:
    """The lines of the skip summary, after its header, up to the final counts."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "skipped, by reason" in line)
    return [line for line in lines[start + 1 :] if not line.startswith("=")]


def test_skips_are_counted_by_reason_in_one_line_each(tmp_path: Path) -> None:
    files = {
        "test_a.py": (
            "import pytest\n"
            "@pytest.mark.parametrize('n', range(7))\n"
            "def test_data(n):\n    pytest.skip('no data here')\n"
            "def test_other():\n    pytest.skip('another reason')\n"
            "def test_runs():\n    pass\n"
            "@pytest.mark.xfail(reason='expected')\n"
            "def test_expected():\n    assert False\n"
        ),
        "test_b.py": (
            "import pytest\n"
            "pytest.skip('no data here', allow_module_level=True)\n"  # a skipped module: 1
        ),
        "test_c.py": (
            "import pytest\n"
            "@pytest.mark.skipif(True, reason='another reason')\n"
            "def test_marked():\n    pass\n"
        ),
    }
    done = run_suite(tmp_path / "suite", files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED [" not in done.stdout  # no line per test
    assert summary_lines(done.stdout) == ["    8  no data here", "    2  another reason"]
    assert "1 passed, 10 skipped, 1 xfailed" in done.stdout


def test_no_summary_without_skips(tmp_path: Path) -> None:
    done = run_suite(tmp_path / "suite", {"test_a.py": "def test_runs():\n    pass\n"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped, by reason" not in done.stdout


TORCH_TESTS = {
    "test_module.py": HIDE_TORCH + "from conftest import import_torch\n"
    "torch = import_torch()\n"
    "def test_one():\n    pass\n"
    "def test_two():\n    pass\n",
    "test_function.py": HIDE_TORCH + "from conftest import import_torch\n"
    "def test_in_a_function():\n    import_torch()\n"
    "def test_without_torch():\n    pass\n",
}


def test_missing_torch_is_one_skip_reason(tmp_path: Path) -> None:
    done = run_suite(tmp_path / "suite", TORCH_TESTS)
    assert done.returncode == 0, done.stdout + done.stderr
    # The module-level skip counts once, as pytest counts it.
    assert summary_lines(done.stdout) == [f"    2  {TORCH_ABSENT}"]
    assert REQUIRE_TORCH not in done.stdout


def test_required_torch_fails_the_run_when_missing(tmp_path: Path) -> None:
    done = run_suite(tmp_path / "suite", TORCH_TESTS, env={REQUIRE_TORCH: "1"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"    2  {TORCH_ABSENT}" in done.stdout
    assert f"error: {REQUIRE_TORCH}=1 but torch is not installed: the run fails" in done.stdout
    assert "1 passed, 2 skipped" in done.stdout  # the other tests still ran


def test_required_torch_keeps_other_skips_and_failures_as_they_are(tmp_path: Path) -> None:
    files = {
        "test_a.py": "import pytest\ndef test_skip():\n    pytest.skip('no data here')\n",
        "test_b.py": "def test_fails():\n    assert False\n",
    }
    done = run_suite(tmp_path / "suite", files, env={REQUIRE_TORCH: "1"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED test_b.py::test_fails" in done.stdout  # -rfE still lists failures
    assert "error:" not in done.stdout
    del files["test_b.py"]
    done = run_suite(tmp_path / "again", files, env={REQUIRE_TORCH: "1"})
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_torch_is_an_error_not_a_skip(tmp_path: Path) -> None:
    files = {
        "test_a.py": "from conftest import import_torch\n"
        "torch = import_torch()\n"
        "def test_one():\n    pass\n",
    }
    suite = tmp_path / "suite"
    (suite / "torch").mkdir(parents=True)  # shadows any installed torch
    (suite / "torch" / "__init__.py").write_text("import a_library_torch_lost\n")
    done = run_suite(suite, files)
    assert done.returncode == 2, done.stdout + done.stderr  # a collection error
    assert "No module named 'a_library_torch_lost'" in done.stdout
    assert TORCH_ABSENT not in done.stdout


def test_ci_requires_torch_before_it_runs_the_tests() -> None:
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    run_tests = 'bash -euo pipefail -c "$test_command"'
    assert lines.index(f"export {REQUIRE_TORCH}=1") < lines.index(run_tests)


REAL_DATA_TESTS = {
    "test_real.py": "from conftest import real_path\n"
    "def test_gpu(gpu_dir):\n    (gpu_dir / 'gpu_ref.json').read_bytes()\n"
    "def test_cpu(cpu_dir):\n    (cpu_dir / 'cpu_run1.json').read_bytes()\n"
    "def test_upstream(upstream_2021_dir):\n    (upstream_2021_dir / 'ref.json').read_bytes()\n"
    "def test_one_file(shared_data):\n"
    "    real_path('nvbench-format-examples/gpu/gpu_ref.json').read_bytes()\n"
    "def test_history():\n    real_path('history-real/firefox/labels.json').read_bytes()\n"
    "def test_runs():\n    pass\n"
}


def test_an_empty_shared_data_folder_skips_each_real_data_test(tmp_path: Path) -> None:
    """NVBENCH_TOOLS_SHARED_DATA naming an existing but empty folder: skips, not failures,
    each naming what is absent."""
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_suite(
        tmp_path / "suite", REAL_DATA_TESTS, env={"NVBENCH_TOOLS_SHARED_DATA": str(empty)}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 5 skipped" in done.stdout
    reasons = summary_lines(done.stdout)
    for absent, count in (
        ("nvbench-format-examples/gpu", 2),
        ("nvbench-format-examples/cpu", 1),
        ("upstream-2021-two-gpus", 1),
        ("history-real/firefox/labels.json", 1),
    ):
        line = f"real NVBench files not available: {empty / absent} is absent"
        assert [reason for reason in reasons if line in reason] == [
            f"{count:5d}  {line} (set NVBENCH_TOOLS_SHARED_DATA to where they are)"
        ], reasons


def test_a_partial_data_set_skips_naming_its_first_absent_file(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    gpu = shared / "nvbench-format-examples" / "gpu"
    gpu.mkdir(parents=True)
    (gpu / "gpu_ref.json").write_text("{}")  # the JSON without its side files
    done = run_suite(
        tmp_path / "suite", REAL_DATA_TESTS, env={"NVBENCH_TOOLS_SHARED_DATA": str(shared)}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    absent = f"real NVBench files not available: {gpu / 'gpu_ref.json-bin'} is absent"
    assert any(line.startswith(f"    2  {absent}") for line in summary_lines(done.stdout))
