"""End-to-end speed and peak memory of ``nvbench_compare`` against ``nvbench-compare-robust``.

Issue 3 targets: ours at least 5x faster, with a peak memory no higher than upstream's, on

* ``bulk``: 1 benchmark x 1,000 states x 10,000 samples with ``--jsonbin`` side files (sample
  times and SM clock frequencies), 20 states shifted;
* ``wide``: 20 benchmarks x 500 states, no side files (~145 MB of JSON per file);

and ``nvbench_compare --help`` in under 0.2 s (``--jobs auto``, the command line's default, is
what is timed unless ``--jobs`` says otherwise). Before each scenario it also times the floor
of our comparison, start-up plus decoding both inputs (``_decode_floor.py``), interleaved
with the comparison itself: what is left is what matching, evidence, decisions and
rendering cost (``--no-floor`` skips it). ``small`` (2 x 50 states, no side files; not
in the default ``--scenarios``) shows what a typical comparison costs: mostly start-up.

Both inputs are generated (seeded) into a temporary directory, or into ``--keep DIR`` (and
reused from there when already present). Each tool runs as a whole process, the way users
run it (``sys.executable -m cuda.bench.compare --no-color REF CMP``, upstream's
``nvbench-compare-robust --no-color REF CMP``), output discarded, in interleaved rounds (A B,
then B A, ...): these machines change speed by up to 2x every few seconds, so the figure of
merit is the median of the per-round ratios, never a ratio of two medians. Wall time counts
from spawning to exit (interpreter start and imports included); peak memory is the VmHWM
of the program's process plus the largest forked worker's peak (see
``_harness.run_command``); that counts the pages a worker shares with the program twice, so
each comparison also prints its process tree's peak with shared pages counted once (PSS,
sampled in two extra untimed runs: ``_harness.tree_peak_pss``). The memory target is met
when the first figure is no higher than upstream's, or else when the second is: several
processes share the interpreter's and numpy's pages, which the first figure counts once per
process (``memory_verdict``).

Installs: ours is timed as a regular install of this checkout (``pip install .`` into a
temporary virtual environment, as upstream is installed); an editable install starts each
program 10-20 ms later. ``--ours-install current`` times the interpreter running this
script instead (also the fallback when the install fails, e.g. offline).

Bytecode: both programs run with a private ``PYTHONPYCACHEPREFIX`` (after one untimed
warm-up run each), as installed packages do; an editable checkout under
``PYTHONDONTWRITEBYTECODE`` would otherwise recompile our modules on every run.
``--no-bytecode-cache`` keeps the environment as it is.

Upstream is ``nvbench-compare-robust`` in ``--upstream-bin DIR``, ``$NVBENCH_UPSTREAM_BIN`` or
``/tmp/upstream/bin`` (``python -m venv /tmp/upstream &&
/tmp/upstream/bin/pip install 'cuda-bench[tools]==0.3.0'``); without it only our figures
are printed.

    python python/benchmarks/compare_speed.py [--rounds 5] [--keep /tmp/cmpspeed]
        [--methods default,robust] [--scenarios bulk,wide]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import (
    Command,
    PairResult,
    compare_commands,
    ours_python,
    regular_install,
    report,
    run_command,
    tree_peak_pss,
)

SPEEDUP_TARGET = 5.0
#: The inputs the issue sets targets for; ``small`` is shown for what users meet most.
TARGET_SCENARIOS = ("bulk", "wide")
HELP_TARGET_SECONDS = 0.2

#: name -> (SyntheticConfig arguments, write_pair arguments)
SCENARIOS: dict[str, tuple[str, str]] = {
    "bulk": (
        "benchmarks=1, states=1000, samples=10_000",
        "seed=3, random_shifts=20",
    ),
    "wide": (
        "benchmarks=20, states=500, samples=100",
        "seed=3, random_shifts=50, jsonbin=False",
    ),
    "small": (
        "benchmarks=2, states=50, samples=100",
        "seed=1, random_shifts=3, jsonbin=False",
    ),
}

TITLES = {
    "bulk": "bulk: 1 benchmark x 1,000 states x 10,000 samples, side files",
    "wide": "wide: 20 benchmarks x 500 states, no side files",
    "small": "small: 2 benchmarks x 50 states, no side files (start-up dominates)",
}


def generate(name: str, directory: Path) -> tuple[Path, Path]:
    """Write one scenario's pair into ``directory`` (in a child process: keeps this one small)."""
    ref, cmp = directory / "ref.json", directory / "cmp.json"
    if ref.exists() and cmp.exists():
        print(f"{name}: reusing {directory}")
        return ref, cmp
    directory.mkdir(parents=True, exist_ok=True)
    config, options = SCENARIOS[name]
    code = (
        "from cuda.bench.results.synthetic import SyntheticConfig, write_pair\n"
        f"write_pair({str(directory)!r}, SyntheticConfig({config}), {options})\n"
    )
    started = time.perf_counter()
    subprocess.run([ours_python(), "-c", code], check=True)
    megabytes = (ref.stat().st_size + cmp.stat().st_size) / 2e6
    print(
        f"{name}: generated in {time.perf_counter() - started:.0f} s "
        f"({megabytes:.0f} MB of JSON per file)"
    )
    return ref, cmp


def upstream_command(explicit: str | None) -> Command | None:
    """``nvbench-compare-robust`` run by the interpreter of its own environment."""
    for directory in (explicit, os.environ.get("NVBENCH_UPSTREAM_BIN"), "/tmp/upstream/bin"):
        if not directory:
            continue
        script = Path(directory) / "nvbench-compare-robust"
        python = Path(directory) / "python"
        if script.is_file() and python.exists():
            return Command("nvbench-compare-robust", str(python), str(script), kind="script")
    return None


def child_environment(cache: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def speedup_line(result: PairResult) -> str:
    ratios = result.ratios  # upstream / ours per round
    return f"{statistics.median(ratios):.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})"


def time_help(python: str, env: dict[str, str], runs: int) -> float:
    """Median wall time of ``nvbench_compare --help`` (a fresh process each)."""
    seconds = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(
            [python, "-m", "cuda.bench.compare", "--help"],
            stdout=subprocess.DEVNULL,
            env=env,
            check=True,
        )
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds[1:])  # the first run may compile bytecode


def print_floor(
    name: str, command: Command, paths: list[str], rounds: int, env: dict[str, str]
) -> None:
    """How much of our comparison is start-up and decoding the JSON (interleaved with it):
    the rest is what matching, deciding and rendering take."""
    # Start-up plus decoding both inputs, as a comparison in one process begins.
    floor_command = Command(
        "start-up + JSON decode",
        command.python,
        str(Path(__file__).with_name("_decode_floor.py")),
        kind="script",
    )
    run_command(floor_command, paths, env)
    result = compare_commands(floor_command, command, paths, rounds, env)
    report(f"{TITLES[name]} — floor of {command.name}", floor_command, command, result)
    floor = statistics.median(m.seconds for m in result.a)
    share = statistics.median(
        a.seconds / b.seconds for a, b in zip(result.a, result.b, strict=True)
    )
    print(
        f"  start-up and JSON decoding are {share:.0%} of the comparison ({floor:.2f} s); "
        f"the rest, {1 - share:.0%}, is matching, evidence, decisions and rendering\n"
    )


def print_tree_memory(
    ours: Command, upstream: Command, paths: list[str], env: dict[str, str]
) -> tuple[float | None, float | None]:
    """The peak of each program's process tree with shared pages counted once (PSS,
    sampled; two untimed runs each, the larger kept): what workers forked with -j really
    add, which the peak above overstates by counting their shared pages twice."""
    figures: list[float | None] = []
    for command in (ours, upstream):
        peaks = [tree_peak_pss(command, paths, env) for _ in range(2)]
        known = [peak for peak in peaks if peak is not None]
        figures.append(max(known) if known else None)
    shown = [f"{figure:.1f} MiB" if figure is not None else "n/a" for figure in figures]
    print(f"  process-tree peak, shared pages once (PSS): ours {shown[0]}, upstream {shown[1]}")
    return figures[0], figures[1]


def memory_verdict(
    figures: dict[str, float], ours_pss: float | None, upstream_pss: float | None
) -> tuple[bool, str]:
    """Whether our peak memory is no higher than upstream's, and on which figure.

    The high-water figure is exact, but adds a forked worker's peak to its parent's, so
    every page they share (the interpreter, numpy, whatever was loaded before the fork)
    counts twice. When it says no and the process-tree PSS peaks were sampled, those
    decide: they count a shared page once, which is what the machine has to provide.
    """
    if figures["a_peak_mib"] <= figures["b_peak_mib"]:
        return True, "high-water marks"
    if ours_pss is None or upstream_pss is None:
        return False, "high-water marks"
    return (
        ours_pss <= upstream_pss,
        "process-tree PSS; the high-water sum counts shared pages twice",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--upstream-bin", help="directory holding nvbench-compare-robust")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per pair")
    parser.add_argument("--keep", type=Path, help="generate into (and reuse) this directory")
    parser.add_argument(
        "--scenarios", default="bulk,wide", help="comma list of: " + ", ".join(SCENARIOS)
    )
    parser.add_argument(
        "--methods",
        default="default,robust",
        help="our decision methods to time, comma list ('default': no --method option)",
    )
    parser.add_argument(
        "--jobs",
        default="auto",
        help="our -j/--jobs values to time, comma list (default: auto, the command line's)",
    )
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="skip timing start-up plus JSON decoding alone against our comparison",
    )
    parser.add_argument(
        "--ours-install",
        choices=("regular", "current"),
        default="regular",
        help="time a regular install of this checkout (default) or this interpreter's",
    )
    parser.add_argument("--help-runs", type=int, default=15)
    parser.add_argument("--no-bytecode-cache", action="store_true")
    args = parser.parse_args()
    scenarios = [name for name in args.scenarios.split(",") if name]
    unknown = [name for name in scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")

    from cuda.bench.compare.choices import DEFAULT_METHOD

    methods = list(dict.fromkeys(args.methods.split(",")))
    if "default" in methods and DEFAULT_METHOD in methods:
        methods.remove(DEFAULT_METHOD)  # the same program twice
    upstream = upstream_command(args.upstream_bin)
    outcome: list[tuple[str, bool]] = []
    with tempfile.TemporaryDirectory(prefix="compare_speed_") as scratch:
        root = args.keep or Path(scratch)
        cache = None if args.no_bytecode_cache else Path(scratch) / "pycache"
        env = child_environment(cache)
        inputs = {name: generate(name, root / name) for name in scenarios}
        python = ours_python()
        if args.ours_install == "regular":
            installed = regular_install(Path(scratch) / "ours")
            if installed is None:
                print("regular install of this checkout failed; timing this interpreter's")
            else:
                python = installed
        ours = {
            (method, jobs): Command(
                (
                    f"nvbench_compare ({DEFAULT_METHOD})"
                    if method == "default"
                    else f"nvbench_compare --method {method}"
                )
                + ("" if jobs == "auto" else f" -j {jobs}"),
                python,
                "cuda.bench.compare",
                fixed_args=("--no-color", "--jobs", jobs)
                + (() if method == "default" else ("--method", method)),
            )
            for method in methods
            for jobs in dict.fromkeys(args.jobs.split(","))
        }
        if upstream is None:
            print("\nnvbench-compare-robust not found (see --upstream-bin); our figures only")
        else:
            upstream = Command(
                upstream.name, upstream.python, upstream.target, "script", ("--no-color",)
            )
        print(f"\nours: {python}")
        print(f"upstream: {upstream.python + ' ' + upstream.target if upstream else '-'}")
        print(f"bytecode cache: {cache or 'as the environment says'}; rounds: {args.rounds}\n")
        for name, (ref, cmp) in inputs.items():
            if not args.no_floor:
                print_floor(name, next(iter(ours.values())), [str(ref), str(cmp)], args.rounds, env)
            for command in ours.values():
                paths = [str(ref), str(cmp)]
                run_command(command, paths, env)  # warm-up: bytecode, page cache
                if upstream is None:
                    runs = [run_command(command, paths, env) for _ in range(args.rounds)]
                    print(
                        f"## {TITLES[name]}\n  {command.name}: median "
                        f"{statistics.median(m.seconds for m in runs):.2f} s, peak "
                        f"{max(m.peak_mib for m in runs):.0f} MiB\n"
                    )
                    continue
                run_command(upstream, paths, env)
                result = compare_commands(command, upstream, paths, args.rounds, env)
                figures = report(f"{TITLES[name]} — {command.name}", command, upstream, result)
                print(f"  speedup (median of per-round upstream/ours): {speedup_line(result)}")
                ours_pss, upstream_pss = print_tree_memory(command, upstream, paths, env)
                fast = figures["ratio"] >= SPEEDUP_TARGET
                lean, basis = memory_verdict(figures, ours_pss, upstream_pss)
                print(
                    f"  target >= {SPEEDUP_TARGET:g}x: {'met' if fast else 'MISSED'}; "
                    f"peak <= upstream's: {'met' if lean else 'MISSED'} ({basis})\n"
                )
                if name in TARGET_SCENARIOS:
                    label = f"{name}, {command.name}"
                    outcome.append((f"{label}: >= {SPEEDUP_TARGET:g}x faster", fast))
                    outcome.append((f"{label}: peak memory no higher", lean))
        help_seconds = time_help(python, env, args.help_runs)
        help_met = help_seconds < HELP_TARGET_SECONDS
        print(
            f"## nvbench_compare --help: median {help_seconds * 1e3:.0f} ms over "
            f"{args.help_runs} runs (target < {HELP_TARGET_SECONDS * 1e3:.0f} ms): "
            f"{'met' if help_met else 'MISSED'}"
        )
        outcome.append(("--help under 0.2 s", help_met))
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)
    print("\ntargets:")
    for label, met in outcome:
        print(f"  [{'met' if met else 'MISSED'}] {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
