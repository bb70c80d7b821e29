"""Scale of the history: ingest, one series' trend, detection over many series, archive size.

    python python/benchmarks/history_scale.py                 # defaults: a few minutes
    python python/benchmarks/history_scale.py --runs 1000 --states 1000 --long-runs 10000 \\
        --series 10000                                        # the sizes of issue #19

Figures (wall clock, one run each: figures to read, not to compare across machines):

* ingest: ``--runs`` NVBench runs of ``--states`` states (``--samples`` samples each, with
  side files; :mod:`cuda.bench.history.synthetic`) appended one by one with
  :func:`cuda.bench.history.archive.ingest`: seconds per run, and the archive's bytes per run
  (runs and states files);
* trend of one series in that archive: :func:`~cuda.bench.history.series.load_series`
  with a ``-b/-a`` filter, then :func:`~cuda.bench.history.series.examine` (detection and
  current level), as ``nvbench-history trend -b ... -a ...`` does;
* trend of one series of ``--long-runs`` runs: ``examine`` alone (in memory; ingesting that
  many runs is the ingest figure times the runs);
* detect over ``--series`` series of 200 runs (iid noise, 5 % of them with a 5 % step):
  :func:`cuda.bench.history.detect` with ``--workers`` scanning threads;
* gate: one more run (not ingested) against the archive with
  :func:`cuda.bench.history.gate.gate`, as ``nvbench-history gate`` does (detection over
  the run's series, rebuilding the current levels, the comparison).

``--ingest-samples N`` also stores ``N`` samples per state (the optional ``samples``
table); its bytes per run are printed apart, and the gate then bootstraps them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from cuda.bench.compare.filters import FilterPlan
from cuda.bench.history import ScanConfig, detect
from cuda.bench.history.archive import ingest
from cuda.bench.history.series import ArchiveSeries, examine, load_series
from cuda.bench.history.synthetic import (
    HistoryNoise,
    commit_ids,
    generate,
    run_series,
    write_history,
)
from cuda.bench.results.synthetic import SyntheticConfig

_BENCHMARKS = 10


def _bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*.parquet"))


def time_ingest(
    runs: int, states: int, samples: int, scratch: Path, stored_samples: int = 0
) -> tuple[Path, Path]:
    per_bench = max(states // _BENCHMARKS, 1)
    config = SyntheticConfig(benchmarks=_BENCHMARKS, states=per_bench, samples=samples)
    total = _BENCHMARKS * per_bench
    # One run more than ingested: the gate's new run.
    history = generate(
        HistoryNoise("iid"), series=total, runs=runs + 1, steps=(0.05,), margin=runs // 4, seed=3
    )
    start = time.perf_counter()
    paths = write_history(scratch / "runs", history, config, seed=1)
    written = time.perf_counter() - start
    archive = scratch / "archive"
    commits = commit_ids(runs, seed=3)
    day = dt.datetime(2026, 1, 1, 2, tzinfo=dt.timezone.utc)
    start = time.perf_counter()
    for order, (path, commit) in enumerate(zip(paths, commits, strict=False)):
        when = (day + dt.timedelta(days=order)).isoformat()
        ingest(archive, path, commit=commit, date=when, order=order, samples=stored_samples)
    elapsed = time.perf_counter() - start
    size = _bytes(archive)
    sampled = _bytes(archive / "samples") if (archive / "samples").exists() else 0
    print(
        f"ingest: {runs} runs x {total} states ({samples} samples each; writing the runs "
        f"took {written:.1f} s): {elapsed:.1f} s, {elapsed / runs * 1e3:.0f} ms per run; "
        f"archive {size / 1e6:.2f} MB, {(size - sampled) / runs / 1e3:.1f} kB per run "
        f"({(size - sampled) / runs / total:.0f} B per state) without the samples table"
    )
    if stored_samples:
        print(
            f"  samples table ({stored_samples} per state): {sampled / runs / 1e3:.1f} kB per "
            f"run ({sampled / runs / total:.0f} B per state)"
        )
    return archive, paths[-1]


def time_gate(archive: Path, run: Path) -> None:
    from cuda.bench.compare.model import Status
    from cuda.bench.history.gate import gate

    start = time.perf_counter()
    found = gate(archive, run)
    elapsed = time.perf_counter() - start
    counts = found.comparison.counts
    print(
        f"gate of one run against the archive ({len(found.comparison.rows)} states, "
        f"{found.reference_runs} reference runs, samples {found.with_samples}): "
        f"{elapsed:.1f} s; {counts[Status.SLOW]} SLOW, {counts[Status.SAME]} SAME, "
        f"{counts[Status.AMBG]} AMBG"
    )


def time_archive_trend(archive: Path) -> None:
    from cuda.bench.history.archive import query

    # Opening: listing and checking the archive's files, which every command does first.
    start = time.perf_counter()
    query(archive).close()
    opened = time.perf_counter() - start
    plan = FilterPlan.from_args([("benchmark", "bench_00"), ("axis", "Elements=1024")])
    start = time.perf_counter()
    series = load_series(archive, filters=plan)
    loaded = time.perf_counter() - start
    view = examine(series)
    elapsed = time.perf_counter() - start
    print(
        f"trend of one series from the archive ({series[0].runs} runs, "
        f"{len(view.detection.changes)} change(s)): {elapsed:.2f} s "
        f"({loaded:.2f} s reading the archive with DuckDB; opening it alone {opened:.2f} s)"
    )


def time_long_trend(runs: int) -> None:
    history = generate(HistoryNoise("iid"), series=1, runs=runs, steps=(0.05,), seed=5)
    day = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
    one = ArchiveSeries(
        machine="m",
        benchmark="b",
        device=0,
        state_name="s",
        axes=(),
        commits=commit_ids(runs, seed=5),
        dates=tuple(day + dt.timedelta(hours=i) for i in range(runs)),
        medians=history.medians[0],
        median_lo=None,
        median_hi=None,
    )
    start = time.perf_counter()
    view = examine([one])
    elapsed = time.perf_counter() - start
    found = len(view.detection.changes)
    print(f"trend of one series of {runs} runs (in memory): {elapsed:.2f} s, {found} change(s)")


def time_detect(series: int, workers: int) -> None:
    history = generate(
        HistoryNoise("iid"), series=series, runs=200, steps=(0.05,) + (0.0,) * 19, seed=7
    )
    inputs = run_series(history)
    start = time.perf_counter()
    found = detect(inputs, ScanConfig(workers=workers))
    elapsed = time.perf_counter() - start
    stepped = int((history.factor != 1.0).sum())
    print(
        f"detect over {series} series x 200 runs ({workers} worker thread(s)): {elapsed:.1f} s "
        f"({series / elapsed:.0f} series/s); {len(found.changes)} changes for {stepped} "
        f"stepped series, {len(found.events)} events"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--runs", type=int, default=60, help="runs to ingest")
    parser.add_argument("--states", type=int, default=200, help="states per run")
    parser.add_argument("--samples", type=int, default=100, help="samples per state")
    parser.add_argument("--long-runs", type=int, default=2000, help="runs of the long trend")
    parser.add_argument("--series", type=int, default=2000, help="series to detect over")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        "--ingest-samples", type=int, default=0, help="samples per state stored in the archive"
    )
    parser.add_argument("--no-gate", action="store_true", help="skip the gate figure")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nvbench-history-scale-") as scratch:
        archive, last = time_ingest(
            args.runs, args.states, args.samples, Path(scratch), args.ingest_samples
        )
        time_archive_trend(archive)
        if not args.no_gate:
            time_gate(archive, last)
    if args.long_runs:
        time_long_trend(args.long_runs)
    if args.series:
        time_detect(args.series, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
