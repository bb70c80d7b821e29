"""``cuda.bench`` resolves NVIDIA's runner names from NVIDIA's modules (docs/coinstall.md),
checked here against stand-ins for those modules; the real wheel is exercised by the slow
``test_coinstall.py``. And our commands' one-line notice where NVIDIA's files replaced ours."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )


def test_without_cuda_bench_the_runner_names_say_how_to_get_it() -> None:
    done = _python(
        """
        import sys, cuda.bench as bench
        for name in ("register", "axis", "State", "run_all_benchmarks"):
            try:
                getattr(bench, name)
            except ImportError as error:
                text = str(error)  # the hint: from a checkout, not a PyPI name
                print(name, "'.[runner]' (from the nvbench-tools checkout's root)" in text
                      and "nvbench-tools[" not in text)
        try:
            from cuda.bench import State
        except ImportError as error:
            print("from-import", "cuda-bench package" in str(error))
        print(hasattr(bench, "no_such_name"), "register" in dir(bench), bench.__version__)
        print(sorted(m for m in sys.modules if m.startswith("cuda.bench")))
        """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:5] == [
        "register True",
        "axis True",
        "State True",
        "run_all_benchmarks True",
        "from-import True",
    ]
    assert lines[5].split()[:2] == ["False", "True"]


#: Stand-ins for NVIDIA's modules, shaped as cuda-bench 0.3.0 lays them out.
FAKE_NVIDIA = {
    "_decorators.py": """
        def make_register(get_register):
            def register(fn):
                return get_register()(fn)
            return register
        class _Axis:
            pass
        axis = _Axis()
        option = _Axis()
    """,
    "_paths.py": """
        def _get_cuda_major_version():
            return 12
        def _format_supported_cuda_versions():
            return "12, 13"
        def get_nvbench_prefix(cuda_major=None):
            return "prefix"
    """,
    "cu12/__init__.py": "",
    "cu12/_nvbench.py": """
        class State: pass
        class Benchmark: pass
        class CudaStream: pass
        class Launch: pass
        class Timer: pass
        class NVBenchRuntimeError(RuntimeError): pass
        def run_all_benchmarks(argv): return ("ran", argv)
        def register(fn): return ("registered", fn)
        def _test_cpp_exception(): pass
        def _test_py_exception(): pass
    """,
}


@pytest.fixture
def fake_nvidia(tmp_path: Path) -> Path:
    for name, text in FAKE_NVIDIA.items():
        path = tmp_path / "bench" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path / "bench"


def test_the_runner_names_bind_as_nvidias_init_binds_them(fake_nvidia: Path) -> None:
    done = _python(
        f"""
        import cuda.bench as bench
        bench.__path__.append({str(fake_nvidia)!r})  # NVIDIA's files beside ours
        print(bench.State.__name__, bench.State.__module__, bench.Benchmark.__module__)
        print(bench.run_all_benchmarks(["-d", "0"]))
        print(type(bench.axis).__module__, bench.get_nvbench_prefix())
        print(bench.register("f"))
        bench._register = lambda fn: ("override", fn)  # NVIDIA's hook for its tests
        print(bench.register("g"))
        print(bench._nvbench.__name__, callable(bench._test_cpp_exception))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "State cuda.bench cuda.bench",
        "('ran', ['-d', '0'])",
        "cuda.bench._decorators prefix",
        "('registered', 'f')",
        "('override', 'g')",
        "cuda.bench.cu12._nvbench True",
    ]


def test_a_missing_extension_gets_nvidias_message(fake_nvidia: Path) -> None:
    (fake_nvidia / "cu12" / "_nvbench.py").unlink()
    done = _python(
        f"""
        import cuda.bench as bench
        bench.__path__.append({str(fake_nvidia)!r})
        bench.State
        """
    )
    assert "No cuda-bench extension found for CUDA 12.x" in done.stderr


def test_commands_say_in_one_line_when_nvidias_files_replaced_ours(gpu_dir: Path) -> None:
    done = _python(
        f"""
        import importlib.util, sys, types
        import cuda.bench
        # NVIDIA's results/__init__.py (no marker) over our package directory.
        spec = importlib.util.find_spec("cuda.bench.results")
        fake = types.ModuleType("cuda.bench.results")
        fake.__file__ = spec.origin
        fake.__path__ = list(spec.submodule_search_locations)
        sys.modules["cuda.bench.results"] = fake
        from cuda.bench.cli import json_summary
        sys.exit(json_summary.main([{str(gpu_dir / "gpu_ref.json")!r}]))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1
    assert "replaced by cuda-bench's: cuda/bench/results/__init__.py" in done.stderr
    assert "--no-deps . (from the nvbench-tools checkout's root)" in done.stderr
    assert "copy_bench" in done.stdout


def test_commands_say_nothing_when_our_files_are_in_place(gpu_dir: Path) -> None:
    from cuda.bench.cli._common import shadow_notice

    assert shadow_notice() is None
