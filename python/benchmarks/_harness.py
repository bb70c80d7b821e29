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

__all__ = [
    "Command",
    "Measurement",
    "Program",
    "compare_commands",
    "compare_programs",
    "find_upstream_python",
    "report",
    "run_command",
    "tree_peak_pss",
]

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


def report(
    title: str, a: Program | Command, b: Program | Command, result: PairResult
) -> dict[str, float]:
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


def regular_install(directory: Path, checkout: Path | None = None, extras: str = "") -> str | None:
    """The interpreter of a new virtual environment in ``directory`` with ``checkout``
    (default: this one) installed as users install it (``pip install .``, not editable;
    with ``extras``, e.g. ``history``: ``pip install '.[history]'``), or ``None`` when
    that fails (offline, say).

    An editable install starts each program about 10-20 ms later (its import hook loads
    pathlib and friends before anything else runs) than the regular install upstream is
    timed as; on a comparison of half a second that is 2-4 % of the figure.
    """
    if checkout is None:
        checkout = Path(__file__).resolve().parents[2]
    python = directory / "bin" / "python"
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", str(directory)], check=True, capture_output=True
        )
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                f"{checkout}[{extras}]" if extras else str(checkout),
            ],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return str(python)


# ---------------------------------------------------------------------------------------------
# Whole commands (a program as its users run it: interpreter start, imports, output)

#: Runs a command-line program in this interpreter, as ``python -m MODULE`` or
#: ``python SCRIPT`` would, and writes the process's VmHWM to a report file when it ends.
#: The program's own exit status is passed on. VmHWM starts afresh at exec, so it is the
#: peak of this program alone (``ru_maxrss`` of a child would carry the spawning
#: process's peak across exec). Without /proc, ``ru_maxrss`` is the fallback. Worker
#: processes the program forks count too: the largest one's peak is added (pages they
#: share with the program count twice, so this errs high).
_COMMAND_WRAPPER = r"""
import os, runpy, sys
report, kind, target = sys.argv[1:4]
sys.argv = [target, *sys.argv[4:]]
status = 0
try:
    if kind == "module":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")
except SystemExit as exit:
    code = exit.code
    status = code if isinstance(code, int) else (0 if code is None else 1)
finally:
    import resource
    sys.stdout.flush()
    try:
        with open("/proc/self/status") as lines:
            peak_kib = next(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))
    except OSError:
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_kib += resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(report, "w") as out:
        out.write(str(peak_kib))
sys.exit(status)
"""


@dataclass(frozen=True)
class Command:
    """A command-line program: ``python -m module`` (``kind="module"``) or a script file."""

    name: str
    python: str
    target: str
    kind: str = "module"
    fixed_args: tuple[str, ...] = ()


def run_command(
    command: Command, args: Sequence[str], env: dict[str, str] | None = None
) -> Measurement:
    """Wall time (from spawning to exit, so interpreter start and imports count) and peak
    memory of one run; standard output is discarded, a non-zero exit status is an error."""
    import tempfile
    import time

    with tempfile.NamedTemporaryFile("r", suffix=".peak") as report_file:
        argv = [
            command.python,
            "-c",
            _COMMAND_WRAPPER,
            report_file.name,
            command.kind,
            command.target,
            *command.fixed_args,
            *args,
        ]
        started = time.perf_counter()
        done = subprocess.run(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(
                f"{command.name} exited with {done.returncode}: {done.stderr.strip()[-2000:]}"
            )
        peak_kib = int(report_file.read() or 0)
    return Measurement(seconds, peak_kib / 1024)


def tree_peak_pss(
    command: Command, args: Sequence[str], env: dict[str, str] | None = None
) -> float | None:
    """Peak memory of one run's whole process tree in MiB, counting shared pages once:
    the largest sum of the processes' PSS (proportional set size), sampled about every
    millisecond; ``None`` without ``/proc``.

    :func:`run_command`'s figure adds the largest worker's peak to the program's, so the
    pages a forked worker shares with its parent count twice there; PSS splits each shared
    page among the processes mapping it. Sampling may miss a peak shorter than a sample,
    and reading the processes' page tables slows them, so this run is not timed.
    """
    import time

    if not Path("/proc/self/smaps_rollup").exists():
        return None
    argv = [command.python, "-c", _COMMAND_WRAPPER, os.devnull, command.kind, command.target]
    process = subprocess.Popen(
        [*argv, *command.fixed_args, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    peak_kib = 0
    while process.poll() is None:
        peak_kib = max(peak_kib, sum(map(_pss_kib, _process_tree(process.pid))))
        time.sleep(0.001)
    if process.returncode != 0:
        raise RuntimeError(f"{command.name} exited with {process.returncode}")
    return peak_kib / 1024


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (those alive while listed)."""
    tree = [pid]
    for parent in tree:  # grows while walked: children of children are visited too
        try:
            for task in os.listdir(f"/proc/{parent}/task"):
                with open(f"/proc/{parent}/task/{task}/children") as children:
                    tree.extend(int(child) for child in children.read().split())
        except OSError:
            continue  # ended meanwhile
    return tree


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass  # ended meanwhile
    return 0


def compare_commands(
    a: Command,
    b: Command,
    args: Sequence[str],
    rounds: int,
    env: dict[str, str] | None = None,
) -> PairResult:
    """Run ``a`` and ``b`` on the same arguments in interleaved rounds (A B, then B A, ...)."""
    first: list[Measurement] = []
    second: list[Measurement] = []
    for round_index in range(rounds):
        if round_index % 2 == 0:
            first.append(run_command(a, args, env))
            second.append(run_command(b, args, env))
        else:
            second.append(run_command(b, args, env))
            first.append(run_command(a, args, env))
    return PairResult(first, second)
