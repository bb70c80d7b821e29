"""The consumer-GPU study of :mod:`verdict_quality`: drift between runs that one run cannot see.

A model of what real NVBench files from a laptop GeForce RTX 4060 under WSL2 show
(docs/ci-method.md, "Run-to-run drift"): kernels of 15-100 µs, 1,000 samples a state,
an interquartile range of 8-50 % of the median, a long lower tail (3 % of the samples
10-35 % faster than the body), a GPU timer that ticks in steps of 1.024 µs (every sample
and every median on that lattice), an SM clock steady at 2.58 GHz, and medians that move
between runs of the same binary: each run multiplies a state's level by
``exp(N(0, d))`` with ``d`` drawn per state from 1-3 % (so runs differ by ±2-6 %).

Scenarios: ``A/A`` (same binary), ``±5 %``/``±10 %``/``±20 %`` (the compare level
scaled), and ``clock dip`` (A/A on wide 16 µs states, IQR 44-46 %, where one compare run
has 40 % of its samples at 78 % clock, a mean clock of 2.35 GHz instead of 2.58, and its
median 4.7 % off). Each state is decided with its side files (per-sample times and
clocks) and from the summaries alone, by ``robust`` and ``ci`` with one run per side and
by ``ci`` with three runs per side (which measure the drift).
"""

from __future__ import annotations

import json
import math
import multiprocessing
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import _null_groups
import numpy as np
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods import get_method, row_evidence
from cuda.bench.compare.model import Status, Verdict
from cuda.bench.compare.runs import with_runs
from cuda.bench.compare.thresholds import PRESETS

TICK = 1.024e-6
CLOCK = 2.58e9
SAMPLES = 1000
#: Share of samples in the long lower tail, and how much faster they run.
TAIL_FRACTION = 0.03
TAIL_FACTOR = (0.65, 0.9)
#: Per-state run-to-run drift (log sd of a run's level) is drawn from this range.
DRIFT_RANGE = (0.01, 0.03)
#: The clock dip: share of samples at the lower clock, its ratio, and the run's level.
DIP_FRACTION = 0.4
DIP_CLOCK = 0.78
DIP_LEVEL = 1.047
SHIFTS = (0.05, 0.10, 0.20)
#: (method, runs per side) columns.
COLUMNS = (("robust", 1), ("ci", 1), ("ci", 3))


@dataclass(frozen=True)
class Scenario:
    name: str
    factor: float = 1.0
    dip: bool = False

    @property
    def direction(self) -> Status | None:
        if self.factor > 1.0:
            return Status.SLOW
        if self.factor < 1.0:
            return Status.FAST
        return None


def scenarios() -> list[Scenario]:
    found = [Scenario("A/A"), Scenario("clock dip", dip=True)]
    for size in SHIFTS:
        found += [Scenario(f"-{size:.0%}", 1.0 - size), Scenario(f"+{size:.0%}", 1.0 + size)]
    return found


def simulate_run(
    rng: np.random.Generator, base: float, iqr: float, level: float, dip: bool
) -> tuple[np.ndarray, np.ndarray]:
    """One run of one state: float32 times on the timer lattice and per-sample clocks."""
    sigma = iqr / 1.349  # the log-normal's IQR is ~1.349 sigma of its median
    times = base * level * np.exp(sigma * rng.standard_normal(SAMPLES))
    tail = rng.random(SAMPLES) < TAIL_FRACTION
    times[tail] *= rng.uniform(*TAIL_FACTOR, int(tail.sum()))
    clocks = CLOCK * (1.0 + 0.001 * rng.standard_normal(SAMPLES))
    if dip:
        clocks[rng.random(SAMPLES) < DIP_FRACTION] *= DIP_CLOCK
    ticks = np.maximum(1.0, np.rint(times / TICK))
    return (ticks * TICK).astype(np.float32), clocks.astype(np.float32)


def _side(
    rng: np.random.Generator,
    base: float,
    iqr: float,
    drift: float,
    factor: float,
    runs: int,
    dip: bool,
) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for index in range(runs):
        level = factor * math.exp(drift * rng.standard_normal())
        dipped = dip and index == 0
        out.append(simulate_run(rng, base, iqr, level * (DIP_LEVEL if dipped else 1.0), dipped))
    return out


def _evidence(runs: Sequence[tuple[np.ndarray, np.ndarray]], bulk: bool) -> SideEvidence:
    sides = [SideEvidence.from_samples(t, f, bulk=bulk) for t, f in runs]
    return with_runs(sides[0], sides[1:])


def run_scenario(job: tuple[Scenario, int, int]) -> dict[str, Any]:
    """Simulate and decide every state of one scenario; returns tallies by cell key."""
    scenario, states, seed = job
    rng = np.random.default_rng(np.random.SeedSequence([seed, *scenario.name.encode()]))
    thresholds = PRESETS["default"]
    tallies: dict[str, dict[str, Counter[str]]] = {}
    single: dict[bool, list[Verdict]] = {True: [], False: []}
    for _ in range(states):
        if scenario.dip:
            base, iqr = 16e-6 * rng.uniform(0.9, 1.1), rng.uniform(0.44, 0.46)
        else:
            base = math.exp(rng.uniform(math.log(15e-6), math.log(100e-6)))
            iqr = rng.uniform(0.08, 0.50)
        drift = rng.uniform(*DRIFT_RANGE)
        ref = _side(rng, base, iqr, drift, 1.0, 3, False)
        cmp = _side(rng, base, iqr, drift, scenario.factor, 3, scenario.dip)
        for bulk in (True, False):
            for name, runs in COLUMNS:
                verdict = get_method(name).decide(
                    row_evidence(
                        _evidence(ref[:runs], bulk), _evidence(cmp[:runs], bulk), thresholds
                    )
                )
                key = json.dumps([scenario.name, bulk, name, runs])
                cell = tallies.setdefault(key, {"statuses": Counter(), "reasons": Counter()})
                cell["statuses"][verdict.status.value] += 1
                if verdict.status is Status.AMBG:
                    cell["reasons"][verdict.reason.value] += 1
                if name == "ci" and runs == 1:
                    single[bulk].append(verdict)
    # One run per side again, 20 states per comparison with the empirical null across them.
    for bulk, verdicts in single.items():
        key = json.dumps([scenario.name, bulk, "ci+null", 1])
        cell = tallies.setdefault(key, {"statuses": Counter(), "reasons": Counter()})
        for verdict in _null_groups.in_comparisons(verdicts):
            cell["statuses"][verdict.status.value] += 1
            if verdict.status is Status.AMBG:
                cell["reasons"][verdict.reason.value] += 1
    return {key: {k: dict(v) for k, v in cell.items()} for key, cell in tallies.items()}


def run_study(states: int, seed: int, processes: int) -> dict[str, Any]:
    jobs = [(scenario, states, seed) for scenario in scenarios()]
    results: dict[str, Any] = {}
    if processes > 1:
        with multiprocessing.Pool(processes) as pool:
            for part in pool.imap_unordered(run_scenario, jobs):
                results.update(part)
    else:
        for job in jobs:
            results.update(run_scenario(job))
    return results


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 100:.1f}"


def study_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (side files, method, runs): A/A, clock dip and detection rates."""
    cells: dict[tuple[bool, str, int], dict[str, Any]] = {}
    for key, value in results.items():
        name, bulk, method, runs = json.loads(key)
        cells.setdefault((bulk, method, runs), {})[name] = value
    rows = []
    for (bulk, method, runs), data in sorted(cells.items(), key=lambda item: (not item[0][0],)):
        row: dict[str, Any] = {"side_files": bulk, "method": method, "runs": runs}
        for label, name in (("aa", "A/A"), ("dip", "clock dip")):
            statuses = data.get(name, {}).get("statuses", {})
            total = sum(statuses.values())
            change = statuses.get("FAST", 0) + statuses.get("SLOW", 0)
            row[f"{label}_false_change"] = change / total if total else math.nan
            row[f"{label}_same"] = statuses.get("SAME", 0) / total if total else math.nan
            reasons = Counter(data.get(name, {}).get("reasons", {}))
            row[f"{label}_ambg_reasons"] = dict(reasons.most_common(3))
            row[f"{label}_states"] = total
        wrong = shifted = 0
        for size in SHIFTS:
            hits = trials = 0
            for sign in "-+":
                scenario = Scenario(f"{sign}{size:.0%}", 1.0 + (size if sign == "+" else -size))
                statuses = data.get(scenario.name, {}).get("statuses", {})
                assert scenario.direction is not None
                right = scenario.direction.value
                other = "SLOW" if right == "FAST" else "FAST"
                hits += statuses.get(right, 0)
                wrong += statuses.get(other, 0)
                trials += sum(statuses.values())
                shifted += sum(statuses.values())
            row[f"detect_{size}"] = hits / trials if trials else math.nan
        row["wrong"] = wrong / shifted if shifted else math.nan
        rows.append(row)
    return rows


def _reasons(reasons: dict[str, int], total: int) -> str:
    if not total:
        return ""
    return ", ".join(f"{reason} {count / total:.0%}" for reason, count in reasons.items())


def study_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| side files | method, runs per side | A/A FC | A/A SAME | A/A AMBG reasons | "
        "clock dip FC | clock dip AMBG reasons | detected ±5 / ±10 / ±20 % | wrong |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        detect = " / ".join(_pct(row[f"detect_{size}"]) for size in SHIFTS)
        lines.append(
            f"| {'yes' if row['side_files'] else 'no'} | {row['method']}, {row['runs']} | "
            f"{_pct(row['aa_false_change'])} | {_pct(row['aa_same'])} | "
            f"{_reasons(row['aa_ambg_reasons'], row['aa_states'])} | "
            f"{_pct(row['dip_false_change'])} | "
            f"{_reasons(row['dip_ambg_reasons'], row['dip_states'])} | {detect} | "
            f"{_pct(row['wrong'])} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    print(study_table(study_rows(run_study(count, 20260, 1))))
