"""One run ingested with one reading of its file and side files, against two readings.

``nvbench-history ingest RUN.json`` checked the run (:func:`~cuda.bench.history.archive.
check_new_run`) and then ingested it (:func:`~cuda.bench.history.archive.ingest`), which
read and checked it again; a single run now takes one reading
(:func:`~cuda.bench.history.archive.ingest_new_run`). Several runs on one command line
still take two (all are checked before any is written).

Both ways ingest the same synthetic runs (``--states`` states of ``--samples`` samples
each, with side files; :mod:`cuda.bench.history.synthetic`) into two archives of their
own, in interleaved pairs (A B, then B A, ...); the figure is the median of the per-pair
ratios one reading / two readings (0.70x: 30 % less time), with the median times.

    python python/benchmarks/ingest_once.py [--states 200] [--samples 2000] [--pairs 15]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cuda.bench.history.archive import check_new_run, ingest, ingest_new_run
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

_BENCHMARKS = 10


def _twice(archive: Path, run: Path, commit: str, date: str) -> None:
    check_new_run(archive, run, commit=commit, date=date)
    ingest(archive, run, commit=commit, date=date)


def _once(archive: Path, run: Path, commit: str, date: str) -> None:
    ingest_new_run(archive, run, commit=commit, date=date)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--states", type=int, default=200, help="states per run")
    parser.add_argument("--samples", type=int, default=2000, help="samples per state")
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    per_benchmark = max(1, args.states // _BENCHMARKS)
    with tempfile.TemporaryDirectory(prefix="ingest-once-") as scratch:
        root = Path(scratch)
        history = generate(
            HistoryNoise("iid", run_sigma=0.003),
            series=_BENCHMARKS * per_benchmark,
            runs=args.pairs,
            seed=1,
        )
        config = SyntheticConfig(benchmarks=_BENCHMARKS, states=per_benchmark, samples=args.samples)
        runs = write_history(root / "runs", history, config, seed=1)
        commits = commit_ids(args.pairs, seed=2)
        ways: dict[str, Callable[[Path, Path, str, str], None]] = {"two": _twice, "one": _once}
        times: dict[str, list[float]] = {name: [] for name in ways}
        for k, run in enumerate(runs):
            order = list(ways) if k % 2 == 0 else list(reversed(ways))
            for name in order:
                start = time.perf_counter()
                ways[name](root / name, run, commits[k], f"2026-01-{k % 28 + 1:02d}")
                times[name].append(time.perf_counter() - start)
        ratios = [one / two for one, two in zip(times["one"], times["two"], strict=True)]
    print(
        f"{_BENCHMARKS * per_benchmark} states x {args.samples} samples, {args.pairs} pairs: "
        f"one reading {statistics.median(times['one']) * 1e3:.1f} ms, two readings "
        f"{statistics.median(times['two']) * 1e3:.1f} ms; median ratio one / two "
        f"{statistics.median(ratios):.2f}x (pairs {min(ratios):.2f}-{max(ratios):.2f}x)"
    )


if __name__ == "__main__":
    main()
