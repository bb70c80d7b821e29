"""Quality of the history's change-point detection, side by side with Apache Otava 0.8.0.

    python python/benchmarks/history_quality.py              # default sizes (a few minutes)
    python python/benchmarks/history_quality.py --quick      # a smoke test (under a minute)
    python python/benchmarks/history_quality.py --scale 10000  # also time 10,000 x 200 runs
    python python/benchmarks/history_quality.py --json quality.json
    python python/benchmarks/history_quality.py --no-single --multi-series 500  # the second table

A second table (``--multi-series``, default 500 series per scenario, 50 with ``--quick``)
judges histories like real ones (:func:`cuda.bench.history.synthetic.generate_multi`):
three steps per series of 3, 5 and 10 % at least 20 runs apart, on a slow linear trend
of up to +-5 % over the series; the same trend alone (any change or creep reported is a
false alarm); a creep of 3 % over 40 runs alone (the shares reported as a change and as a
creep, for information).

Histories come from :mod:`cuda.bench.history.synthetic`: series of 200 runs of per-run
medians with run-to-run noise of 1 % (log standard deviation; see that module for the
shapes: iid, log-normal, AR(1) drift with rho 0.5, bimodal clocks 3 % apart, outliers),
either pure noise or with one step of 1, 2, 3, 5 or 10 % (slower on even series, faster on
odd ones) at a run drawn uniformly between runs 20 and 180.

Methods, all fed the same per-run medians (no samples):

* ``ours``: the calibrated scan of :mod:`cuda.bench.history.changepoint` and each change
  confirmed by the bootstrap of :mod:`cuda.bench.history.confirm` (tolerance 1 %), each
  series judged on its own (the figures per series the targets are stated for);
* ``ours+BH``: :func:`cuda.bench.history.detect` over all series of a noise shape at once
  (Benjamini-Hochberg at 5 % across series before confirmation);
* ``otava``: ``otava.analysis.compute_change_points`` of apache-otava 0.8.0 with its default
  settings (window 50, p 0.001, magnitude 0), run in its own virtual environment, which
  this script creates on first use under ``$XDG_CACHE_HOME/nvbench-tools`` (``--otava-venv``
  to choose another, ``--no-otava`` to skip);
* ``otava p=...`` (``--calibrate-otava``): Otava at the largest p-value ``10^-k`` that gives
  it at most 1 % false alarms on pure-noise series of the same shape drawn independently
  of the evaluation sets: its recall at a false-alarm rate like ours.

Columns: ``FA`` the share of pure-noise series with at least one change or creep (target
<= 1 %),
``FA95`` its one-sided 95 % upper bound (Wilson); ``R<s>`` recall of steps of size ``s``:
a change in the right direction within 5 runs of the true step (target >= 95 % for steps of
at least 3x the noise, i.e. 3, 5 and 10 % here); ``loc2`` the share of those found within 2
runs (target: all), ``extra`` changes elsewhere per step series. ``s`` the method's time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from cuda.bench.compare.model import Status
from cuda.bench.history import ConfirmConfig, RunSeries, ScanConfig, detect, scan
from cuda.bench.history.detect import adjusted, confirmed_changes
from cuda.bench.history.synthetic import (
    NOISE_KINDS,
    HistoryNoise,
    MultiStepHistory,
    SyntheticHistory,
    generate,
    generate_multi,
)

STEPS = (0.01, 0.02, 0.03, 0.05, 0.10)
RUNS = 200
OTAVA = "apache-otava==0.8.0"

# Runs inside Otava's environment: medians in, change points (index, forward change %) out.
_OTAVA_SCRIPT = """
import json, sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
import numpy as np
from otava.analysis import compute_change_points

def one(max_pvalue, row):
    points, _ = compute_change_points(list(map(float, row)), max_pvalue=max_pvalue)
    return [(int(p.index), float(p.stats.forward_change_percent())) for p in points]

if __name__ == "__main__":
    medians = np.load(sys.argv[1])
    with ProcessPoolExecutor(int(sys.argv[3])) as pool:
        found = list(pool.map(partial(one, float(sys.argv[4])), medians, chunksize=32))
    with open(sys.argv[2], "w") as out:
        json.dump(found, out)
"""


@dataclass(frozen=True)
class Found:
    """One method's change points of one series: ``(index, +1 slower / -1 faster)``, and
    how many creeps it reported (ours: as the scan found them, before confirmation)."""

    changes: tuple[tuple[int, int], ...]
    creeps: int = 0


@dataclass
class Row:
    noise: str
    method: str
    false_alarm: float
    false_alarm_upper: float
    recall: dict[str, float]
    within_two: float
    extra: float
    seconds: float


def wilson_upper(hits: int, total: int, z: float = 1.645) -> float:
    """One-sided upper confidence bound of a proportion (Wilson 1927)."""
    if total == 0:
        return math.nan
    p = hits / total
    center = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return (center + spread) / (1 + z * z / total)


# ---------------------------------------------------------------------------------------------
# Methods


def _series(history: SyntheticHistory | MultiStepHistory) -> list[RunSeries]:
    return [RunSeries(f"series{i:05d}", row) for i, row in enumerate(history.medians)]


def ours_per_series(
    history: SyntheticHistory | MultiStepHistory, workers: int, *, pool_correlation: bool = True
) -> list[Found]:
    logs = np.log(history.medians)
    scans = scan(logs, ScanConfig(workers=workers, pool_correlation=pool_correlation))
    confirm = ConfirmConfig()
    series = _series(history)
    runs = history.medians.shape[1]
    out = []
    every_run = np.arange(runs)
    for position, result in enumerate(scans):
        # detect's own confirmation of a series' changes, without the false-discovery control.
        numbers = [(number, 0.0) for number in range(len(result.changes))]
        confirmed = confirmed_changes(
            adjusted(series[position], result), result, position, numbers, every_run, confirm
        )
        kept = tuple(
            (change.index, 1 if change.status is Status.SLOW else -1) for change, _ in confirmed
        )
        out.append(Found(kept, len(result.creeps)))
    return out


def ours_with_fdr(history: SyntheticHistory | MultiStepHistory, workers: int) -> list[Found]:
    series = _series(history)
    detection = detect(series, ScanConfig(workers=workers))
    by_key: dict[str, list[tuple[int, int]]] = {one.key: [] for one in series}
    for change in detection.changes:
        by_key[change.series].append((change.index, 1 if change.status is Status.SLOW else -1))
    creeps = [creep.series for creep in detection.creeps]
    return [Found(tuple(by_key[one.key]), creeps.count(one.key)) for one in series]


def otava_python(venv: Path) -> str | None:
    """Otava's interpreter, installing it into ``venv`` on first use; ``None`` if impossible."""
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import otava.analysis"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    print(f"installing {OTAVA} into {venv} ...", file=sys.stderr)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", OTAVA],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"could not install Otava: {done.stderr.strip()[-300:]}", file=sys.stderr)
            return None
    return str(python) if subprocess.run(check, capture_output=True).returncode == 0 else None


def otava(
    history: SyntheticHistory | MultiStepHistory,
    python: str,
    workers: int,
    max_pvalue: float = 0.001,
) -> list[Found]:
    with tempfile.TemporaryDirectory() as scratch:
        medians, found, script = (Path(scratch) / name for name in ("m.npy", "f.json", "o.py"))
        np.save(medians, history.medians)
        script.write_text(_OTAVA_SCRIPT)
        command = [python, str(script), str(medians), str(found), str(workers), str(max_pvalue)]
        subprocess.run(command, check=True)
        rows = json.loads(found.read_text())
    return [Found(tuple((index, 1 if pct > 0 else -1) for index, pct in row)) for row in rows]


# ---------------------------------------------------------------------------------------------
# Scoring


def score(
    noise: str,
    method: str,
    null: Sequence[Found],
    stepped: Sequence[Found],
    history: SyntheticHistory,
    seconds: float,
) -> Row:
    # A creep on pure noise is as false as a change.
    alarms = sum(1 for found in null if found.changes or found.creeps)
    recall: dict[str, float] = {}
    close = hits_total = extra = 0
    for size in STEPS:
        hits = members = 0
        for position, found in enumerate(stepped):
            if not math.isclose(abs(math.log(history.factor[position])), math.log1p(size)):
                continue
            members += 1
            at = int(history.step_at[position])
            direction = 1 if history.factor[position] > 1 else -1
            near = [i for i, sign in found.changes if abs(i - at) <= 5 and sign == direction]
            extra += sum(1 for i, _ in found.changes if abs(i - at) > 5)
            if near:
                hits += 1
                close += min(abs(i - at) for i in near) <= 2
        recall[f"{size:.0%}"] = hits / members if members else math.nan
        hits_total += hits
    return Row(
        noise=noise,
        method=method,
        false_alarm=alarms / len(null),
        false_alarm_upper=wilson_upper(alarms, len(null)),
        recall=recall,
        within_two=close / hits_total if hits_total else math.nan,
        extra=extra / len(stepped),
        seconds=seconds,
    )


def calibrated_pvalue(
    noise: HistoryNoise, series: int, python: str, workers: int, seed: int
) -> float | None:
    """The largest ``10^-k`` (k = 3..12) at which Otava alarms on at most 1 % of pure-noise
    series drawn independently of the evaluation sets; ``None`` if none does."""
    calibration = generate(noise, series=series, runs=RUNS, seed=seed + 7)
    for exponent in range(3, 13):
        found = otava(calibration, python, workers, 10.0**-exponent)
        if sum(1 for one in found if one.changes) <= 0.01 * series:
            return 10.0**-exponent
    return None


def measure(
    kind: str,
    null_series: int,
    step_series: int,
    workers: int,
    otava_exe: str | None,
    seed: int,
    calibrate_otava: bool = False,
) -> list[Row]:
    noise = HistoryNoise(kind)  # type: ignore[arg-type]
    null = generate(noise, series=null_series, runs=RUNS, seed=seed)
    stepped = generate(
        noise,
        series=step_series * len(STEPS),
        runs=RUNS,
        steps=STEPS,
        both_directions=True,
        seed=seed + 1,
    )
    methods = [("ours", ours_per_series), ("ours+BH", ours_with_fdr)]
    rows = []
    for name, method in methods:
        start = time.perf_counter()
        found_null, found_steps = method(null, workers), method(stepped, workers)
        elapsed = time.perf_counter() - start
        rows.append(score(kind, name, found_null, found_steps, stepped, elapsed))
    if otava_exe is not None:
        start = time.perf_counter()
        found_null, found_steps = (
            otava(null, otava_exe, workers),
            otava(stepped, otava_exe, workers),
        )
        elapsed = time.perf_counter() - start
        rows.append(score(kind, "otava", found_null, found_steps, stepped, elapsed))
    if otava_exe is not None and calibrate_otava:
        pvalue = calibrated_pvalue(noise, null_series, otava_exe, workers, seed)
        if pvalue is not None:
            start = time.perf_counter()
            found_null = otava(null, otava_exe, workers, pvalue)
            found_steps = otava(stepped, otava_exe, workers, pvalue)
            elapsed = time.perf_counter() - start
            name = f"otava p={pvalue:.0e}"
            rows.append(score(kind, name, found_null, found_steps, stepped, elapsed))
    return rows


# ---------------------------------------------------------------------------------------------
# Histories like real ones: several steps per series, slow trends, creep

MULTI_STEPS = (0.03, 0.05, 0.10)
#: Total drift of the slow trends (drawn in +-this over 200 runs) and size of the creep.
TREND = 0.05
CREEP = 0.03


@dataclass
class MultiRow:
    noise: str
    method: str
    trend_alarm: float
    trend_alarm_upper: float
    creep_alarm: float
    creep_found: float
    recall: dict[str, float]
    extra: float
    seconds: float


def measure_multi(
    kind: str, series: int, workers: int, otava_exe: str | None, seed: int
) -> list[MultiRow]:
    """Pure noise with a slow trend (alarms: false), noise with a creep of 3 % over 40
    runs (alarms shown, no target), and three steps per series (3, 5, 10 %) on a trend."""
    noise = HistoryNoise(kind)  # type: ignore[arg-type]
    trend_only = generate_multi(noise, series=series, per_series=0, trend=TREND, seed=seed + 11)
    creep_only = generate_multi(noise, series=series, per_series=0, creep=CREEP, seed=seed + 12)
    stepped = generate_multi(
        noise, series=series, steps=MULTI_STEPS, per_series=3, trend=TREND, seed=seed + 13
    )
    methods: list[tuple[str, Callable[[MultiStepHistory], list[Found]]]] = [
        ("ours", lambda h: ours_per_series(h, workers))
    ]
    if otava_exe is not None:
        methods.append(("otava", lambda h: otava(h, otava_exe, workers)))
    rows = []
    for name, method in methods:
        start = time.perf_counter()
        alarms = [bool(found.changes or found.creeps) for found in method(trend_only)]
        on_creep = method(creep_only)
        creeps = [bool(found.changes) for found in on_creep]
        found_steps = method(stepped)
        elapsed = time.perf_counter() - start
        hits, extra = step_hits(stepped, found_steps)
        rows.append(
            MultiRow(
                noise=kind,
                method=name,
                trend_alarm=sum(alarms) / series,
                trend_alarm_upper=wilson_upper(sum(alarms), series),
                creep_alarm=sum(creeps) / series,
                creep_found=sum(bool(found.creeps) for found in on_creep) / series,
                recall={f"{size:.0%}": h / n for size, (h, n) in hits.items()},
                extra=extra / series,
                seconds=elapsed,
            )
        )
    return rows


def step_hits(
    stepped: MultiStepHistory, found_steps: Sequence[Found]
) -> tuple[dict[float, list[int]], int]:
    """Per step size of ``MULTI_STEPS``, ``[found, planted]`` (a change in the right
    direction within 5 runs), and the changes more than 5 runs from every planted step."""
    hits = {size: [0, 0] for size in MULTI_STEPS}
    extra = 0
    for row, found in enumerate(found_steps):
        truth = list(zip(stepped.step_at[row], stepped.factor[row], strict=True))
        for at, factor in truth:
            size = min(MULTI_STEPS, key=lambda s: abs(math.log1p(s) - abs(math.log(factor))))
            direction = 1 if factor > 1 else -1
            hits[size][1] += 1
            hits[size][0] += any(
                abs(i - at) <= 5 and sign == direction for i, sign in found.changes
            )
        extra += sum(1 for i, _ in found.changes if all(abs(i - at) > 5 for at, _ in truth))
    return hits, extra


def print_markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


def print_multi(rows: Sequence[MultiRow]) -> None:
    steps = [f"R{size:.0%}" for size in MULTI_STEPS]
    header = ["noise", "method", "FA trend", "FA95", "creep", "as creep", *steps, "extra", "s"]
    print_markdown(
        header,
        [
            [
                row.noise,
                row.method,
                f"{row.trend_alarm:.1%}",
                f"{row.trend_alarm_upper:.1%}",
                f"{row.creep_alarm:.1%}",
                f"{row.creep_found:.1%}",
                *(f"{row.recall[key[1:]]:.1%}" for key in steps),
                f"{row.extra:.3f}",
                f"{row.seconds:.1f}",
            ]
            for row in rows
        ],
    )


def print_table(rows: Sequence[Row]) -> None:
    steps = [f"R{size:.0%}" for size in STEPS]
    header = ["noise", "method", "FA", "FA95", *steps, "loc2", "extra", "s"]
    print_markdown(
        header,
        [
            [
                row.noise,
                row.method,
                f"{row.false_alarm:.1%}",
                f"{row.false_alarm_upper:.1%}",
                *(f"{row.recall[key[1:]]:.1%}" for key in steps),
                f"{row.within_two:.1%}",
                f"{row.extra:.3f}",
                f"{row.seconds:.1f}",
            ]
            for row in rows
        ],
    )


def time_scale(series: int, workers: int) -> None:
    history = generate(HistoryNoise("iid"), series=series, runs=RUNS, seed=99)
    logs = np.log(history.medians)
    start = time.perf_counter()
    results = scan(logs, ScanConfig(workers=workers))
    elapsed = time.perf_counter() - start
    changes = sum(len(result.changes) for result in results)
    print(
        f"\nscan of {series} series x {RUNS} runs, {workers} worker thread(s): {elapsed:.1f} s "
        f"({series / elapsed:.0f} series/s), {changes} change(s) found in pure noise"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--null-series", type=int, default=None)
    parser.add_argument("--step-series", type=int, default=None, help="per step size")
    parser.add_argument("--noise", nargs="+", choices=NOISE_KINDS, default=list(NOISE_KINDS))
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-otava", action="store_true")
    parser.add_argument(
        "--calibrate-otava",
        action="store_true",
        help="also run Otava at the p-value that gives it 1 %% false alarms (separate noise)",
    )
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "nvbench-tools"
    parser.add_argument("--otava-venv", type=Path, default=cache / "otava-0.8.0")
    parser.add_argument("--scale", type=int, default=0, help="also time a scan of this many series")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--multi-series",
        type=int,
        default=None,
        help="series per scenario of the multi-step table (0: skip it)",
    )
    parser.add_argument("--no-single", action="store_true", help="skip the one-step table")
    args = parser.parse_args(argv)
    null_series = args.null_series or (100 if args.quick else 1000)
    step_series = args.step_series or (20 if args.quick else 200)
    otava_exe = None if args.no_otava else otava_python(args.otava_venv)
    rows: list[Row] = []
    for kind in [] if args.no_single else args.noise:
        rows.extend(
            measure(
                kind,
                null_series,
                step_series,
                args.workers,
                otava_exe,
                args.seed,
                args.calibrate_otava,
            )
        )
    print(
        f"{null_series} pure-noise series and {step_series} per step size, {RUNS} runs each, "
        f"1 % run-to-run noise"
    )
    if rows:
        print_table(rows)
    multi_series = (
        args.multi_series if args.multi_series is not None else (50 if args.quick else 500)
    )
    multi: list[MultiRow] = []
    for kind in args.noise if multi_series else []:
        multi.extend(measure_multi(kind, multi_series, args.workers, otava_exe, args.seed))
    if multi:
        print(
            f"\n{multi_series} series per scenario, {RUNS} runs: slow trends of up to "
            f"+-{TREND:.0%} over the series (FA trend: any change or creep reported; target "
            f"<= 1 %), a {CREEP:.0%} creep over 40 runs (share with a change; as creep: share "
            "with a creep, before confirmation), three steps per series "
            f"(3/5/10 %, >= 20 runs apart) on such a trend (R: found within 5 runs; extra: "
            "other reports per series)"
        )
        print_multi(multi)
    if args.json is not None:
        document = {"single": [asdict(row) for row in rows], "multi": [asdict(r) for r in multi]}
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    if args.scale:
        time_scale(args.scale, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
