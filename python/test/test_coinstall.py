"""One environment with NVIDIA's cuda-bench 0.3.0 and ours, installed in either order
(docs/coinstall.md): NVIDIA's runner names resolve, our tools keep working, a shadowed
``cuda.bench.results`` is reported in one line with its repair, and uninstalling either
package behaves as documented.

These tests build wheels and virtual environments (tens of seconds); they are marked slow
and skip, with the reason, where the cuda-bench wheel cannot be had (no network, no wheel
for this Python).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CUDA_BENCH = "cuda-bench==0.3.0"
REPAIR = "pip install --force-reinstall --no-deps . (from the nvbench-tools checkout's root)"

pytestmark = pytest.mark.slow


def _run(*command: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


@dataclass(frozen=True)
class Wheels:
    ours: Path
    nvidia: Path


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Wheels:
    where = tmp_path_factory.mktemp("wheels")
    got = _run(
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
        "-d", where / "nvidia", CUDA_BENCH, check=False,
    )  # fmt: skip
    nvidia = sorted((where / "nvidia").glob("cuda_bench-*.whl"))
    if got.returncode != 0 or not nvidia:
        pytest.skip(f"the {CUDA_BENCH} wheel cannot be had here: {got.stderr.strip()[-300:]}")
    built = _run(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", where / "ours", REPO,
        check=False,
    )  # fmt: skip
    ours = sorted((where / "ours").glob("nvbench_tools-*.whl"))
    if built.returncode != 0 or not ours:
        pytest.skip(f"pip could not build our wheel here: {built.stderr.strip()[-300:]}")
    return Wheels(ours[0], nvidia[0])


class Env:
    """A virtual environment and what runs in it."""

    def __init__(self, root: Path) -> None:
        _run(sys.executable, "-m", "venv", root)
        self.bin = root / "bin"
        self.python = self.bin / "python"

    def pip(self, *arguments: str | Path) -> None:
        _run(self.python, "-m", "pip", "--quiet", "--disable-pip-version-check", *arguments)

    def code(self, source: str) -> str:
        return _run(self.python, "-c", textwrap.dedent(source)).stdout

    def tool(self, name: str, *arguments: str | Path) -> subprocess.CompletedProcess[str]:
        return _run(self.bin / name, *arguments, check=False)


#: What NVIDIA's runner names are, without a GPU: the decorators and ``register`` are
#: objects of NVIDIA's modules; ``State`` needs the CUDA extension, and without
#: cuda-bindings NVIDIA's own loader says so.
RUNNER_PROBE = """
    import cuda.bench as bench
    for name in ("register", "axis", "option"):
        value = getattr(bench, name)
        module = getattr(value, "__module__", None) or type(value).__module__
        print(name, module)
    for name in ("State", "run_all_benchmarks"):
        try:
            getattr(bench, name)
            print(name, "loaded")
        except ImportError as error:
            print(name, "cuda-bindings" in str(error))
    print("dir", all(n in dir(bench) for n in ("State", "register", "run_all_benchmarks")))
"""

OUR_API = """
    import cuda.bench.results as results
    print(hasattr(results, "ReadMode"), hasattr(results, "ResultBuilder"))
"""


def _assert_runner_resolves(env: Env) -> None:
    lines = env.code(RUNNER_PROBE).splitlines()
    assert lines[0] == "register cuda.bench"
    assert lines[1].split() == ["axis", "cuda.bench._decorators"]
    assert lines[2].split() == ["option", "cuda.bench._decorators"]
    # No CUDA here: NVIDIA's loader, reached through either __init__, names cuda-bindings.
    assert lines[3:] == ["State True", "run_all_benchmarks True", "dir True"]


def _type_check(env: Env, where: Path) -> list[str]:
    """mypy's errors on a client of our API, type-checked against ``env``'s packages."""
    pytest.importorskip("mypy", reason="mypy comes with the test extra")
    client = where / "client.py"
    client.write_text(
        "from cuda.bench.results import BenchmarkResult, ReadMode\n"
        "mode: ReadMode = ReadMode.SLIM\n"
        "def load(path: str) -> BenchmarkResult:\n"
        "    return BenchmarkResult(path, mode=mode)\n"
    )
    done = _run(
        sys.executable, "-m", "mypy", "--no-incremental", "--python-executable", env.python,
        "--cache-dir", where / ".mypy_cache", client, check=False,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if ": error:" in line]


@pytest.fixture
def gpu_pair(gpu_dir: Path) -> tuple[Path, Path]:
    return gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"


def _compare_works(env: Env, pair: tuple[Path, Path]) -> str:
    """Runs ``nvbench_compare`` on the real pair; returns its stderr."""
    done = env.tool("nvbench_compare", *pair)
    assert done.returncode == 0, done.stderr
    assert "# Summary" in done.stdout
    return done.stderr


def test_cuda_bench_first_then_ours(
    wheels: Wheels, tmp_path: Path, gpu_pair: tuple[Path, Path]
) -> None:
    env = Env(tmp_path / "venv")
    env.pip("install", wheels.nvidia)
    env.pip("install", wheels.ours)
    # Our __init__ files are on disk and resolve NVIDIA's runner from NVIDIA's modules.
    _assert_runner_resolves(env)
    assert env.code(OUR_API).split() == ["True", "True"]
    assert _compare_works(env, gpu_pair) == ""
    # cuda-bench's results/__init__.pyi was there first; ours replaced it, so type checkers
    # see our API (they reported `Module "cuda.bench.results" has no attribute "ReadMode"`).
    assert _type_check(env, tmp_path) == []
    robust = env.tool("nvbench-compare-robust", "--help")
    assert robust.returncode == 0 and "compatible with NVIDIA's" in robust.stdout

    # Uninstalling cuda-bench removes the shared files (pip removes what its record lists):
    # our tools keep working and say what to run; that command brings everything back.
    env.pip("uninstall", "--yes", "cuda-bench")
    notice = _compare_works(env, gpu_pair)
    assert notice.count("\n") == 1 and "missing" in notice and REPAIR in notice
    env.pip("install", "--force-reinstall", "--no-deps", wheels.ours)
    assert _compare_works(env, gpu_pair) == ""
    assert env.code(OUR_API).split() == ["True", "True"]


def test_ours_first_then_cuda_bench(
    wheels: Wheels, tmp_path: Path, gpu_pair: tuple[Path, Path]
) -> None:
    env = Env(tmp_path / "venv")
    env.pip("install", wheels.ours)
    env.pip("install", wheels.nvidia)
    # NVIDIA's __init__ files won: its runner is its own, its reader is its own.
    _assert_runner_resolves(env)
    assert env.code(OUR_API).split() == ["False", "False"]
    # Our tools import only modules cuda-bench does not ship, and say what happened.
    notice = _compare_works(env, gpu_pair)
    assert notice.count("\n") == 1
    assert "replaced by cuda-bench's" in notice and "cuda/bench/results/__init__.py" in notice
    assert REPAIR in notice
    # The shared console scripts are NVIDIA's now.
    legacy = env.tool("nvbench-compare-legacy", "--help")
    assert legacy.returncode == 0 and "compatible with NVIDIA's" not in legacy.stdout

    # The repair puts our files back; NVIDIA's runner then resolves through them.
    env.pip("install", "--force-reinstall", "--no-deps", wheels.ours)
    assert _compare_works(env, gpu_pair) == ""
    assert env.code(OUR_API).split() == ["True", "True"]
    assert _type_check(env, tmp_path) == []
    _assert_runner_resolves(env)

    # Uninstalling nvbench-tools now removes the shared files NVIDIA's runner needs;
    # reinstalling cuda-bench the same way restores it.
    env.pip("uninstall", "--yes", "nvbench-tools")
    broken = _run(env.python, "-c", "import cuda.bench; cuda.bench.register", check=False)
    assert broken.returncode != 0
    env.pip("install", "--force-reinstall", "--no-deps", wheels.nvidia)
    _assert_runner_resolves(env)
