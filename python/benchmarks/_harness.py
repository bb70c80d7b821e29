"""Shared machinery of the speed benchmarks: interleaved A/B timing in fresh processes.

These machines change speed (up to 2x) every few seconds, so two programs are never timed
in separate blocks. Each round runs A B B A (alternating which goes first), every run in a
fresh interpreter that reports its own wall time and peak memory; the figure of merit is
the median of the per-round ratios B/A, which cancels the slow phases both programs share.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Measurement", "Program", "compare_programs", "find_upstream_python", "report"]

#: Run inside the child. The snippet's optional ``setup()`` (imports) runs untimed, then
#: ``main()`` is timed. Peak memory is the process's VmHWM, which (unlike getrusage's
#: ru_maxrss, kept across exec on Linux) starts afresh in the new program.
_CHILD = r"""
import json, sys, time
source = sys.argv[1]
scope = {}
exec(compile(source, "<benchmark>", "exec"), scope)
if "setup" in scope:
    scope["setup"]()
start = time.perf_counter()
scope["main"](*sys.argv[2:])
seconds = time.perf_counter() - start
with open("/proc/self/status") as status:
    peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "peak_mib": peak_kib / 1024}))
"""


@dataclass(frozen=True)
class Program:
    """A named snippet defining ``main(*args)``, run by ``python``."""

    name: str
    python: str
    source: str


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mib: float


def run_once(program: Program, args: Sequence[str]) -> Measurement:
    done = subprocess.run(
        [program.python, "-c", _CHILD, program.source, *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return Measurement(figures["seconds"], figures["peak_mib"])


@dataclass(frozen=True)
class PairResult:
    a: list[Measurement]
    b: list[Measurement]

    @property
    def ratios(self) -> list[float]:
        """Per-round time ratio B/A (how many times slower B is)."""
        return [b.seconds / a.seconds for a, b in zip(self.a, self.b, strict=False)]


def compare_programs(a: Program, b: Program, args: Sequence[str], rounds: int) -> PairResult:
    """Time ``a`` and ``b`` in interleaved rounds (A B, then B A, ...) on the same input."""
    first: list[Measurement] = []
    second: list[Measurement] = []
    for round_index in range(rounds):
        if round_index % 2 == 0:
            first.append(run_once(a, args))
            second.append(run_once(b, args))
        else:
            second.append(run_once(b, args))
            first.append(run_once(a, args))
    return PairResult(first, second)


def report(title: str, a: Program, b: Program, result: PairResult) -> dict[str, float]:
    """Print one block of figures and return them (for the README/closing note)."""
    median_a = statistics.median(m.seconds for m in result.a)
    median_b = statistics.median(m.seconds for m in result.b)
    ratio = statistics.median(result.ratios)
    peak_a = max(m.peak_mib for m in result.a)
    peak_b = max(m.peak_mib for m in result.b)
    print(f"## {title}")
    print(f"  {a.name:<28} median {median_a * 1e3:9.1f} ms   peak {peak_a:8.1f} MiB")
    print(f"  {b.name:<28} median {median_b * 1e3:9.1f} ms   peak {peak_b:8.1f} MiB")
    print(
        f"  median of per-round ratios {b.name}/{a.name}: {ratio:.2f}x "
        f"({len(result.ratios)} interleaved rounds; min {min(result.ratios):.2f}x, "
        f"max {max(result.ratios):.2f}x)"
    )
    return {
        "a_seconds": median_a,
        "b_seconds": median_b,
        "ratio": ratio,
        "a_peak_mib": peak_a,
        "b_peak_mib": peak_b,
    }


def find_upstream_python(explicit: str | None = None) -> str | None:
    """The interpreter of a virtual environment with NVIDIA's ``cuda-bench==0.3.0``.

    Both packages provide ``cuda.bench``, so upstream lives in its own environment:
    ``--upstream-python``, ``$NVBENCH_UPSTREAM_PYTHON``, or ``/tmp/upstream/bin/python``.
    Create one with: ``python -m venv /tmp/upstream &&
    /tmp/upstream/bin/pip install 'cuda-bench[tools]==0.3.0'``.
    """
    for candidate in (
        explicit,
        os.environ.get("NVBENCH_UPSTREAM_PYTHON"),
        "/tmp/upstream/bin/python",
    ):
        if candidate and Path(candidate).exists():
            probe = subprocess.run(
                [candidate, "-c", "import cuda.bench.results"], capture_output=True, check=False
            )
            if probe.returncode == 0:
                return candidate
    return None


def ours_python() -> str:
    """The interpreter running the benchmark (it must have nvbench-tools installed)."""
    return sys.executable or shutil.which("python3") or "python3"
