"""Verdict quality of the decision methods on simulated states with known truth.

    python python/benchmarks/verdict_quality.py            # default sizes (a few minutes)
    python python/benchmarks/verdict_quality.py --quick    # a rough look in well under a minute
    python python/benchmarks/verdict_quality.py --json results.json

Every simulated state is a pair of sides (reference, compare) of one or three runs each,
drawn from a physical model like :mod:`cuda.bench.results.synthetic`: a sample's cycle
count is the state's base cycles times a noise shape, its SM clock the nominal clock with
a small per-sample jitter, its time ``cycles / clock`` stored as float32 seconds, as
NVBench does. Runs drift: each run multiplies the cycles by ``exp(N(0, drift))`` and its
clock by ``exp(N(0, clock_drift))`` (defaults 0.2 % each), which no single run can see.

Truth per scenario:

* ``A/A``: both sides from the same distribution (only sampling noise and run drift);
* ``+-0.5 %`` ... ``+-10 %``: the compare cycles (so times) scaled by the shift;
* ``throttled``: the compare clocks 5 % lower, times 5.3 % longer, cycles unchanged (not a
  code change: the right answer is anything but FAST/SLOW).

Noise shapes: log-normal jitter (1 %), bimodal SM clocks (half the samples at 85 % clock:
times bimodal, cycles not), heavy-tailed outliers (2 % of samples up to Pareto-tailed
slower). Each state is decided with and without its side files (bulk samples and
per-sample clocks; without them only NVBench's summaries and the mean clock), by every
method and preset. ``robust`` compares one run per side only.

Columns: ``FC`` false-change rate on A/A (FAST or SLOW), ``FC95`` its one-sided 95 %
upper bound, ``SAME``/``AMBG`` rates on A/A, detection rate per shift size (correct
direction, both signs pooled), ``wrong`` the wrong-direction rate over all shifts,
``AMBG*`` the AMBG rate over all shifts, ``thr FC`` FAST/SLOW on the throttled states,
``ms`` the mean decision time (this machine's speed varies up to 2x; rough).

``ci+null`` rows: the one-run ``ci`` verdicts again, in comparisons of 20 states with the
empirical null across them (``compare.empirical_null``, as ``compare()`` applies it;
:mod:`_null_groups`): each changed scenario a minority of its comparisons;
``ci+null(common)``: every state of a comparison changed alike. The drift study, the
two-speed machine and the consumer-GPU study show the same variant.

The calibrated scenario (:mod:`_speed_modes`) simulates a CPU machine that switches
between full speed and a 2x slower mode in phases of seconds: per scenario four A/A runs
calibrate every state, then a reference and a compare run (work scaled by the shift) are
decided with the calibration, without it, and with it but without the tolerance cap.

The consumer-GPU study (:mod:`_consumer_gpu`) models real runs of a laptop GPU: a
1.024 µs timer lattice, kernels of 15-100 µs with an IQR of 8-50 % and a long lower tail,
medians that move by ±2-6 % between runs of one binary, and a run with an SM clock dip;
``robust`` and ``ci`` decide it with one run per side, ``ci`` also with three.

The A/A/A/A study (:mod:`_many_study`) measures the false alarms of an N-way matrix: a
baseline and three candidates of one build compared with ``compare_many``, with the
Bonferroni confirmation of the ``ci`` change calls and without, and the detection of
+-5 % shifts among them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import _null_groups
import msgspec
import numpy as np
from _simulate import NOMINAL_CLOCK, SHAPES, simulate_side, upper_bound
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods import get_method, row_evidence
from cuda.bench.compare.model import Reason, Status, Verdict
from cuda.bench.compare.runs import with_runs
from cuda.bench.compare.thresholds import PRESET_NAMES, PRESETS, Thresholds

#: Shift magnitudes (fractions); each is simulated faster and slower.
SHIFTS = (0.005, 0.01, 0.02, 0.05, 0.10)
THROTTLE = 0.95  # compare clock factor of the throttled scenario


@dataclass(frozen=True)
class Scenario:
    name: str
    cycle_factor: float = 1.0  # compare cycles / reference cycles
    clock_factor: float = 1.0  # compare clock / reference clock
    count: int = 200

    @property
    def direction(self) -> Status | None:
        """The correct FAST/SLOW, or None when no code change happened."""
        if self.cycle_factor > 1.0:
            return Status.SLOW
        if self.cycle_factor < 1.0:
            return Status.FAST
        return None


@dataclass(frozen=True)
class Settings:
    samples: int
    aa_states: int
    shift_states: int
    drift: float
    clock_drift: float
    seed: int
    resamples: int | None = None
    presets: tuple[str, ...] = PRESET_NAMES
    #: Override ``[ci] t_correction`` in every preset (``--t-correction 0|1``).
    t_correction: int | None = None


@dataclass
class Tally:
    statuses: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    decisions: int = 0


def scenarios(settings: Settings) -> list[Scenario]:
    found = [Scenario("A/A", count=settings.aa_states)]
    if settings.shift_states <= 0:
        return found
    for size in SHIFTS:
        found.append(Scenario(f"-{size:.1%}", 1.0 - size, count=settings.shift_states))
        found.append(Scenario(f"+{size:.1%}", 1.0 + size, count=settings.shift_states))
    found.append(Scenario("throttled", clock_factor=THROTTLE, count=settings.shift_states))
    return found


def evidence(runs: Sequence[tuple[np.ndarray, np.ndarray]], index: int, bulk: bool) -> SideEvidence:
    sides = [SideEvidence.from_samples(t[index], f[index], bulk=bulk) for t, f in runs]
    return with_runs(sides[0], sides[1:])


#: The empirical-null variants of ``ci`` with one run per side (_null_groups): changed
#: states a minority of their comparison, or every state of it changed alike.
NULL_NAMES = {"mixed": "ci+null", "whole": "ci+null(common)"}


def _without_draws(verdict: Verdict) -> Verdict:
    """``verdict`` without its bootstrap draws (kept for a whole block)."""
    effect, cycles = verdict.effect, verdict.cycle_effect
    return msgspec.structs.replace(
        verdict,
        effect=None if effect is None else msgspec.structs.replace(effect, draws=None),
        cycle_effect=None if cycles is None else msgspec.structs.replace(cycles, draws=None),
    )


def methods_for(runs: int, presets: Sequence[str] = PRESET_NAMES) -> list[tuple[str, str]]:
    names = ["ci"] if runs > 1 else ["robust", "ci"]
    return [(name, preset) for name in names for preset in presets]


def run_block(job: tuple[str, int, Settings]) -> dict[str, Any]:
    """Simulate and decide one (shape, runs) block; returns serialisable tallies."""
    shape_name, runs, settings = job
    shape = SHAPES[shape_name]
    block_seed = [settings.seed, list(SHAPES).index(shape_name), runs]
    rng = np.random.default_rng(np.random.SeedSequence(block_seed))
    methods = [
        (name, preset, get_method(name)) for name, preset in methods_for(runs, settings.presets)
    ]
    presets: dict[str, Thresholds] = dict(PRESETS)
    if settings.resamples is not None:
        presets = {k: v.replace(ci_resamples=settings.resamples) for k, v in presets.items()}
    if settings.t_correction is not None:
        presets = {k: v.replace(ci_t_correction=settings.t_correction) for k, v in presets.items()}
    tallies: dict[str, Tally] = {}
    collected: dict[tuple[bool, str], dict[str, list[Verdict]]] = {}
    for scenario in scenarios(settings):
        base_times = np.exp(rng.uniform(math.log(5e-6), math.log(2e-3), scenario.count))
        base_cycles = base_times * NOMINAL_CLOCK
        ref = simulate_side(rng, shape, base_cycles, runs, settings.samples, 1.0, 1.0, settings)
        cmp = simulate_side(
            rng,
            shape,
            base_cycles,
            runs,
            settings.samples,
            scenario.cycle_factor,
            scenario.clock_factor,
            settings,
        )
        for index in range(scenario.count):
            for bulk in (True, False):
                ref_ev, cmp_ev = evidence(ref, index, bulk), evidence(cmp, index, bulk)
                for name, preset, method in methods:
                    key = json.dumps([shape_name, runs, bulk, name, preset, scenario.name])
                    tally = tallies.setdefault(key, Tally())
                    start = time.perf_counter()
                    verdict = method.decide(row_evidence(ref_ev, cmp_ev, presets[preset]))
                    tally.seconds += time.perf_counter() - start
                    tally.decisions += 1
                    tally.statuses[verdict.status.value] += 1
                    tally.reasons[verdict.reason.value] += 1
                    if name == "ci" and runs == 1:
                        collected.setdefault((bulk, preset), {}).setdefault(
                            scenario.name, []
                        ).append(_without_draws(verdict))
    # One run per side: the same verdicts again, in comparisons of many states with the
    # empirical null across them (_null_groups).
    for (bulk, preset), by_scenario in collected.items():
        for variant, found in _null_groups.grouped(by_scenario).items():
            for scenario_name, verdicts in found.items():
                key = json.dumps(
                    [shape_name, runs, bulk, NULL_NAMES[variant], preset, scenario_name]
                )
                tally = tallies.setdefault(key, Tally())
                for verdict in verdicts:
                    tally.decisions += 1
                    tally.statuses[verdict.status.value] += 1
                    tally.reasons[verdict.reason.value] += 1
    return {
        key: {
            "statuses": dict(t.statuses),
            "reasons": dict(t.reasons),
            "seconds": t.seconds,
            "decisions": t.decisions,
        }
        for key, t in tallies.items()
    }


# ---------------------------------------------------------------------------------------------
# Report


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 100:.1f}"


def summarize(results: dict[str, Any], settings: Settings) -> tuple[str, list[dict[str, Any]]]:
    """Markdown tables (one per shape, side files and runs) and the rows behind them."""
    by_cell: dict[tuple[str, int, bool, str, str], dict[str, Any]] = {}
    for key, value in results.items():
        shape, runs, bulk, name, preset, scenario = json.loads(key)
        by_cell.setdefault((shape, runs, bulk, name, preset), {})[scenario] = value
    names = {s.name: s for s in scenarios(settings)}
    lines: list[str] = []
    rows: list[dict[str, Any]] = []
    header = (
        "| method | FC | FC95 | SAME | AMBG | "
        + " | ".join(f"±{size:.1%}" for size in SHIFTS)
        + " | wrong | AMBG* | thr FC | thr clk | ms |"
    )
    rule = "|" + "---|" * (header.count("|") - 1)
    for shape in SHAPES:
        for runs in (1, 3):
            for bulk in (True, False):
                nulls = [(name, p) for name in NULL_NAMES.values() for p in PRESET_NAMES]
                cells = [
                    (name, preset)
                    for name, preset in [*methods_for(runs), *nulls]
                    if (shape, runs, bulk, name, preset) in by_cell
                ]
                if not cells:
                    continue
                files = "with side files" if bulk else "summaries only"
                lines += ["", f"### {shape}, {runs} run(s) per side, {files}", "", header, rule]
                for name, preset in cells:
                    data = by_cell[(shape, runs, bulk, name, preset)]
                    row = _row(data, names)
                    row.update(shape=shape, runs=runs, side_files=bulk, method=name, preset=preset)
                    rows.append(row)
                    detect = " | ".join(_pct(row[f"detect_{size}"]) for size in SHIFTS)
                    lines.append(
                        f"| {name}/{preset} | {_pct(row['false_change'])} | "
                        f"{_pct(row['false_change_ub95'])} | {_pct(row['aa_same'])} | "
                        f"{_pct(row['aa_ambg'])} | {detect} | {_pct(row['wrong'])} | "
                        f"{_pct(row['shift_ambg'])} | {_pct(row['throttle_false'])} | "
                        f"{_pct(row['throttle_clock'])} | {row['ms']:.2f} |"
                    )
    return "\n".join(lines) + "\n", rows


def _row(data: dict[str, Any], names: dict[str, Scenario]) -> dict[str, Any]:
    def count(scenario: str, *statuses: str) -> tuple[int, int]:
        cell = data.get(scenario)
        if cell is None:
            return 0, 0
        found = sum(cell["statuses"].get(status, 0) for status in statuses)
        return found, sum(cell["statuses"].values())

    fast, slow, same, ambg = (s.value for s in (Status.FAST, Status.SLOW, Status.SAME, Status.AMBG))
    row: dict[str, Any] = {}
    changes, total = count("A/A", fast, slow)
    row["false_change"] = changes / total if total else math.nan
    row["false_change_ub95"] = upper_bound(changes, total)
    row["aa_same"] = count("A/A", same)[0] / total if total else math.nan
    row["aa_ambg"] = count("A/A", ambg)[0] / total if total else math.nan
    wrong = shifted = shift_ambg = 0
    for size in SHIFTS:
        hits = trials = 0
        for sign in "-+":
            scenario = names.get(f"{sign}{size:.1%}")
            if scenario is None:
                continue
            assert scenario.direction is not None
            right = scenario.direction.value
            other = slow if right == fast else fast
            hit, n = count(scenario.name, right)
            miss, _ = count(scenario.name, other)
            amb, _ = count(scenario.name, ambg)
            hits, trials = hits + hit, trials + n
            wrong, shifted, shift_ambg = wrong + miss, shifted + n, shift_ambg + amb
        row[f"detect_{size}"] = hits / trials if trials else math.nan
    row["wrong"] = wrong / shifted if shifted else math.nan
    row["shift_ambg"] = shift_ambg / shifted if shifted else math.nan
    throttled, n = count("throttled", fast, slow)
    row["throttle_false"] = throttled / n if n else math.nan
    clock_reason = data.get("throttled", {}).get("reasons", {})
    explained = clock_reason.get(Reason.CLOCK_CHANGE_EXPLAINS_TIME.value, 0)
    row["throttle_clock"] = explained / n if n else math.nan
    seconds = sum(cell["seconds"] for cell in data.values())
    decisions = sum(cell["decisions"] for cell in data.values())
    row["ms"] = seconds / decisions * 1e3 if decisions else math.nan
    row["aa_states"] = total
    return row


#: Run-to-run cycle drifts of the A/A drift study (clock drift held at the main setting).
DRIFTS = (0.0, 0.0025, 0.005, 0.01)
#: (method, preset, runs) columns of the drift study.
DRIFT_COLUMNS = (
    ("robust", "default", 1),
    ("ci", "default", 1),
    ("ci+null", "default", 1),
    ("ci", "default", 3),
    ("ci", "strict", 3),
)


def _blocks(jobs: Sequence[tuple[str, int, Settings]], processes: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            for part in pool.imap_unordered(run_block, jobs):
                results.update(part)
    else:
        for job in jobs:
            results.update(run_block(job))
    return results


def drift_study(settings: Settings, processes: int) -> tuple[str, list[dict[str, Any]]]:
    """A/A false-change and SAME rates of log-normal states against the run-to-run drift."""
    header = (
        "| cycle drift per run | "
        + " | ".join(f"{name}/{preset}, {runs} run(s)" for name, preset, runs in DRIFT_COLUMNS)
        + " |"
    )
    lines = [header, "|" + "---|" * (len(DRIFT_COLUMNS) + 1)]
    rows: list[dict[str, Any]] = []
    for drift in DRIFTS:
        study = dataclasses.replace(
            settings,
            drift=drift,
            shift_states=0,
            aa_states=min(settings.aa_states, 800),
            presets=("default", "strict"),
        )
        results = _blocks([("log-normal", runs, study) for runs in (1, 3)], processes)
        cells = []
        for name, preset, runs in DRIFT_COLUMNS:
            key = json.dumps(["log-normal", runs, True, name, preset, "A/A"])
            statuses = results[key]["statuses"]
            total = sum(statuses.values())
            changes = statuses.get("FAST", 0) + statuses.get("SLOW", 0)
            same = statuses.get("SAME", 0)
            rows.append(
                {
                    "drift": drift,
                    "method": name,
                    "preset": preset,
                    "runs": runs,
                    "false_change": changes / total,
                    "false_change_ub95": upper_bound(changes, total),
                    "aa_same": same / total,
                }
            )
            cells.append(f"FC {_pct(changes / total)} / SAME {_pct(same / total)}")
        lines.append(f"| {drift:.2%} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n", rows


def calibrated_study(states: int, samples: int, seed: int) -> tuple[str, list[dict[str, Any]]]:
    """The calibrated scenario on the two-speed machine (module docstring)."""
    import _speed_modes

    rows = _speed_modes.study_rows(_speed_modes.run_study(states, samples, seed))
    return _speed_modes.study_table(rows), rows


def consumer_study(states: int, seed: int, processes: int) -> tuple[str, list[dict[str, Any]]]:
    """The consumer-GPU drift study (module docstring; :mod:`_consumer_gpu`)."""
    import _consumer_gpu

    rows = _consumer_gpu.study_rows(_consumer_gpu.run_study(states, seed, processes))
    return _consumer_gpu.study_table(rows), rows


def many_study(
    settings: Settings, shapes: Sequence[str], runs: Sequence[int], states: int
) -> tuple[str, list[dict[str, Any]]]:
    """The A/A/A/A study (module docstring; :mod:`_many_study`)."""
    import _many_study

    rows = _many_study.run_study(
        shapes,
        runs,
        states,
        settings.samples,
        settings.seed,
        drift=settings.drift,
        clock_drift=settings.clock_drift,
        resamples=settings.resamples,
    )
    return _many_study.study_table(rows), rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a rough look")
    parser.add_argument("--samples", type=int, help="samples per run (default 2000)")
    parser.add_argument("--aa-states", type=int, help="A/A states per block (default 2000)")
    parser.add_argument("--shift-states", type=int, help="states per shift (default 200)")
    parser.add_argument("--drift", type=float, default=0.002, help="run-to-run cycle drift")
    parser.add_argument("--clock-drift", type=float, default=0.002, help="run clock drift")
    parser.add_argument("--resamples", type=int, help="override [ci] resamples")
    parser.add_argument("--shapes", help="comma list of shapes (default: all)")
    parser.add_argument("--runs", default="1,3", help="runs per side to simulate (default 1,3)")
    parser.add_argument("--presets", help="comma list of presets (default: all; --quick: default)")
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--json", metavar="PATH", help="also write the table rows as JSON")
    parser.add_argument(
        "--t-correction",
        type=int,
        choices=(0, 1),
        help="override [ci] t_correction in every preset (ablation)",
    )
    parser.add_argument(
        "--calibrated-states",
        type=int,
        help="states per scenario of the calibrated two-speed-machine study (default 400; "
        "--quick: 100; 0 skips it)",
    )
    parser.add_argument(
        "--many-states",
        type=int,
        help="states per scenario of the A/A/A/A study of N-way matrices (default 500; "
        "--quick: 100; 0 skips it)",
    )
    parser.add_argument(
        "--consumer-states",
        type=int,
        help="states per scenario of the consumer-GPU drift study (default 400; --quick: "
        "60; 0 skips it)",
    )
    parser.add_argument(
        "--many-only",
        action="store_true",
        help="run only the A/A/A/A study (with --shapes, --runs, --drift, --samples)",
    )
    parser.add_argument(
        "--no-drift-study",
        action="store_true",
        help="skip the A/A false-change rates at larger drifts (skipped by --quick)",
    )
    args = parser.parse_args(argv)
    settings = Settings(
        samples=args.samples or 2000,
        aa_states=args.aa_states or (200 if args.quick else 2000),
        shift_states=(40 if args.quick else 200)
        if args.shift_states is None
        else args.shift_states,
        drift=args.drift,
        clock_drift=args.clock_drift,
        seed=args.seed,
        resamples=args.resamples,
        t_correction=args.t_correction,
        presets=tuple(args.presets.split(","))
        if args.presets
        else (("default",) if args.quick else PRESET_NAMES),
    )
    shapes = list(SHAPES) if args.shapes is None else args.shapes.split(",")
    run_counts = [int(text) for text in args.runs.split(",")]
    jobs = [(shape, runs, settings) for shape in shapes for runs in run_counts]
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if not args.many_only:
        results = _blocks(jobs, args.jobs)
        text, rows = summarize(results, settings)
        print(
            f"# Verdict quality ({settings.samples} samples per run, drift "
            f"{settings.drift:.1%} cycles / {settings.clock_drift:.1%} clock per run, "
            f"{settings.aa_states} A/A and {settings.shift_states} states per shift and sign "
            "per block; all rates in %)"
        )
        print(text)
    drift_rows: list[dict[str, Any]] = []
    if not (args.quick or args.no_drift_study or args.many_only):
        drift_text, drift_rows = drift_study(settings, args.jobs)
        print(
            f"### A/A against run-to-run drift (log-normal, with side files, clock drift "
            f"{settings.clock_drift:.1%}; FC = false changes, rates in %)\n"
        )
        print(drift_text)
    calibrated_rows: list[dict[str, Any]] = []
    calibrated_states = args.calibrated_states
    if calibrated_states is None:
        calibrated_states = 100 if args.quick else 400
    if calibrated_states > 0 and not args.many_only:
        calibrated_text, calibrated_rows = calibrated_study(
            calibrated_states, settings.samples, settings.seed
        )
        print(
            f"### Calibrated, on a machine with two speed modes (2x slower mode, phases of "
            f"~2 s; calibration from 4 A/A runs; {calibrated_states} CPU-only states per "
            "shift and sign; rates in %)\n"
        )
        print(calibrated_text)
    consumer_rows: list[dict[str, Any]] = []
    consumer_states = args.consumer_states
    if consumer_states is None:
        consumer_states = 60 if args.quick else 400
    if consumer_states > 0 and not args.many_only:
        consumer_text, consumer_rows = consumer_study(consumer_states, settings.seed, args.jobs)
        print(
            "### Consumer GPU: drift between runs (1.024 µs timer, 15-100 µs kernels, IQR "
            "8-50 %, long lower tail, medians moving ±2-6 % between runs, 1,000 samples; "
            f"{consumer_states} states per scenario, the shifts per sign; ci and robust "
            "default presets; rates in %)\n"
        )
        print(consumer_text)
    many_rows: list[dict[str, Any]] = []
    many_states = args.many_states
    if many_states is None:
        many_states = 100 if args.quick else 500
    if many_states > 0:
        many_text, many_rows = many_study(settings, shapes, run_counts, many_states)
        print(
            f"### A/A/A/A: a baseline and 3 candidates of one build (compare_many, ci/default, "
            f"with side files; {many_states} states per scenario; the shifted scenario has "
            "candidates -5 %, +5 % and unchanged; rates in %)\n"
        )
        print(many_text)
    elapsed = time.perf_counter() - start
    print(f"Total time {elapsed:.0f} s with {args.jobs} process(es).")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            data = {
                "settings": settings.__dict__,
                "rows": rows,
                "drift_study": drift_rows,
                "calibrated_study": calibrated_rows,
                "consumer_study": consumer_rows,
                "many_study": many_rows,
            }
            json.dump(data, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
