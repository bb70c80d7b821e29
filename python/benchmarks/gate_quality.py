"""Error rates of ``nvbench-history gate`` on synthetic histories with known truth.

    python python/benchmarks/gate_quality.py                  # about 15 s per noise shape
    python python/benchmarks/gate_quality.py --noise iid ar1 --states 40 --samples-table 64
    python python/benchmarks/gate_quality.py --trials 40 --new-runs 2   # gate RUN1 RUN2

Per noise shape of :mod:`cuda.bench.history.synthetic` (run-to-run noise ``--sigma``, 1 %
by default): a history of ``--runs`` nightly runs of ``--states`` states without changes is
written in NVBench format and ingested; then ``--trials`` new runs are gated against it,
each drawn from the same noise (unchanged) and, separately, the same run with every state
``--step`` slower (5 %). ``clock-modes`` adds whole runs at one of two SM clock modes 3 %
apart (the clocks are recorded, the cycles do not move) over iid drift. With
``--new-runs N`` each trial gates N such runs together (``gate RUN1.json ... RUNN.json``).
Printed per shape: the share of unchanged states called FAST or SLOW (false changes; the
gate targets at most 1 % per state), called SAME, and AMBG; the share of slowed states
called SLOW (recall) and SAME (missed as unchanged); then every verdict by status and
reason, which says where the rest went.
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from cuda.bench.compare.model import Reason, Status
from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import (
    NOISE_KINDS,
    HistoryNoise,
    SyntheticHistory,
    commit_ids,
    generate,
    write_history,
)
from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_run

_BENCHMARKS = 2
#: Beyond the history noise shapes: whole runs at one of two SM clock modes 3 % apart
#: (times move, cycles do not), over 1 % iid drift of the cycles.
CLOCK_MODES = "clock-modes"
_CLOCK_GAP = 0.03


def _write(
    kind: str, history: SyntheticHistory, config: SyntheticConfig, directory: Path
) -> tuple[Path, ...]:
    """The history's runs as NVBench files; under ``clock-modes`` every run is throttled
    by the clock gap with probability one half (the clock summaries record it)."""
    if kind != CLOCK_MODES:
        return write_history(directory, history, config, seed=3)
    keys = state_keys(config)
    directory.mkdir(parents=True, exist_ok=True)
    relative = history.medians / np.exp(np.mean(np.log(history.medians), axis=1, keepdims=True))
    slow = np.random.default_rng(29).random(history.runs) < 0.5
    paths = []
    for run in range(history.runs):
        path = directory / f"run_{run:04d}.json"
        shifts = {key: float(relative[i, run]) for i, key in enumerate(keys)}
        throttle = _CLOCK_GAP / (1.0 + _CLOCK_GAP) if slow[run] else 0.0
        write_run(path, config, seed=3, run=run, shifts=shifts, throttle=throttle)
        paths.append(path)
    return tuple(paths)


def measure(
    kind: str,
    sigma: float,
    states: int,
    runs: int,
    trials: int,
    step: float,
    samples_table: int,
    scratch: Path,
    max_runs: int = 20,
    new_runs: int = 1,
) -> tuple[Counter[tuple[Status, Reason]], Counter[tuple[Status, Reason]], float]:
    per_bench = max(states // _BENCHMARKS, 1)
    total = per_bench * _BENCHMARKS
    fresh = trials * new_runs
    shape = "iid" if kind == CLOCK_MODES else kind
    made = generate(HistoryNoise(shape, run_sigma=sigma), series=total, runs=runs + fresh, seed=13)
    medians = np.concatenate(
        [made.medians, made.medians[:, runs:] * (1.0 + step)], axis=1
    )  # the slowed copies of the trial runs come last
    history = SyntheticHistory(medians, made.step_at, made.factor, made.noise, made.seed)
    config = SyntheticConfig(benchmarks=_BENCHMARKS, states=per_bench, samples=200)
    paths = _write(kind, history, config, scratch / kind / "runs")
    archive = scratch / kind / "archive"
    commits = commit_ids(runs, seed=13)
    day = dt.datetime(2026, 1, 1, 2, tzinfo=dt.timezone.utc)
    for order in range(runs):
        when = (day + dt.timedelta(days=order)).isoformat()
        ingest(archive, paths[order], commit=commits[order], date=when, order=order,
               samples=samples_table)  # fmt: skip
    unchanged: Counter[tuple[Status, Reason]] = Counter()
    slowed: Counter[tuple[Status, Reason]] = Counter()
    start = time.perf_counter()
    for trial in range(trials):
        first = runs + trial * new_runs
        for counts, chosen in (
            (unchanged, paths[first : first + new_runs]),
            (slowed, paths[first + fresh : first + fresh + new_runs]),
        ):
            found = gate(archive, list(chosen), max_runs=max_runs).comparison
            counts.update((row.status, row.reason) for row in found)
    return unchanged, slowed, (time.perf_counter() - start) / (2 * trials * new_runs)


def _share(counts: Counter[tuple[Status, Reason]], *statuses: Status) -> str:
    total = sum(counts.values())
    hits = sum(n for (status, _), n in counts.items() if status in statuses)
    return f"{hits / total:.1%}" if total else "n/a"


def _reasons(counts: Counter[tuple[Status, Reason]]) -> str:
    """Every status and reason with its share, most frequent first."""
    total = sum(counts.values())
    return ", ".join(
        f"{status.value} {reason.value} {n / total:.1%}"
        for (status, reason), n in counts.most_common()
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    kinds = [*NOISE_KINDS, CLOCK_MODES]
    parser.add_argument("--noise", nargs="+", choices=kinds, default=kinds)
    parser.add_argument("--sigma", type=float, default=0.01, help="run-to-run noise (log sd)")
    parser.add_argument("--states", type=int, default=40)
    parser.add_argument("--runs", type=int, default=30, help="archived runs")
    parser.add_argument("--trials", type=int, default=10, help="new runs gated per shape")
    parser.add_argument("--step", type=float, default=0.05)
    parser.add_argument("--samples-table", type=int, default=0, help="ingest --samples N")
    parser.add_argument("--max-runs", type=int, default=20, help="gate --max-runs")
    parser.add_argument(
        "--new-runs", type=int, default=1, help="runs of the new build gated together"
    )
    args = parser.parse_args(argv)
    print(
        f"{args.states} states, {args.runs} archived runs, {args.trials} new runs per shape, "
        f"{args.sigma:.1%} run-to-run noise, steps of {args.step:.0%}, samples table "
        f"{args.samples_table or 'none'}, gate --max-runs {args.max_runs}, "
        f"{args.new_runs} new run(s) gated together"
    )
    print("| noise | false FAST/SLOW | SAME | AMBG | recall (SLOW) | slowed called SAME | s/run |")
    print("|---|---|---|---|---|---|---|")
    breakdown = []
    with tempfile.TemporaryDirectory(prefix="nvbench-gate-quality-") as scratch:
        for kind in args.noise:
            unchanged, slowed, seconds = measure(
                kind,
                args.sigma,
                args.states,
                args.runs,
                args.trials,
                args.step,
                args.samples_table,
                Path(scratch),
                args.max_runs,
                args.new_runs,
            )
            print(
                f"| {kind} | {_share(unchanged, Status.FAST, Status.SLOW)} | "
                f"{_share(unchanged, Status.SAME)} | {_share(unchanged, Status.AMBG)} | "
                f"{_share(slowed, Status.SLOW)} | {_share(slowed, Status.SAME)} | "
                f"{seconds:.2f} |"
            )
            breakdown.append(f"{kind} unchanged: {_reasons(unchanged)}")
            breakdown.append(f"{kind} slowed: {_reasons(slowed)}")
    print("\nVerdicts by status and reason:")
    print("\n".join(breakdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
