"""A simulated CPU machine that switches between two speeds, and A/A-calibrated comparisons
on it (the calibrated scenario of ``verdict_quality.py``).

The machine runs at full speed or ``slowdown`` times slower, switching after phases of
exponentially distributed length (mean ``phase`` seconds), as the real CPU pair in
``../shared/data/nvbench-format-examples/cpu`` shows. A run of the suite measures its
states one after another, ``samples`` samples each; a sample's time is the work it does
(its base time with 1 % log-normal jitter) stretched by the speed of the phases it falls
in. Short states fall in one phase (their level jumps between runs), long ones span
several (they drift within the run).

A study draws, per scenario, four A/A calibration runs, then a reference and a compare
run whose work is scaled by the scenario's shift, and decides every state with ``ci``:
calibrated as ``nvbench_compare calibrate`` would (per-state floors from the four runs),
without a calibration, and calibrated without the cap (``[ci] max_tolerance`` = 100 %,
the behaviour before the cap existed).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import _null_groups
import numpy as np
from cuda.bench.compare.calibrate import Calibration, pooled_floors, state_floor
from cuda.bench.compare.evidence import MeasurementKind, SideEvidence
from cuda.bench.compare.methods import get_method, row_evidence
from cuda.bench.compare.model import Status, Verdict
from cuda.bench.compare.runs import StateIdentity
from cuda.bench.compare.thresholds import PRESETS

#: Shifts of the compare run's work (fractions); each is simulated faster and slower.
SHIFTS = (0.05, 0.10, 0.20, 0.50)
CALIBRATION_RUNS = 4


@dataclass(frozen=True)
class Machine:
    phase: float = 2.0  # mean phase length, seconds
    slowdown: float = 2.0  # the slow mode takes this many times longer

    def timeline(self, rng: np.random.Generator, span: float) -> tuple[np.ndarray, np.ndarray]:
        """Phase boundaries (wall seconds) and the work done by each boundary, covering
        at least ``span`` seconds of work."""
        count = max(16, int(2 * self.slowdown * span / self.phase) + 16)
        lengths = rng.exponential(self.phase, count)
        slow_first = rng.random() < 0.5
        speeds = np.where((np.arange(count) % 2 == 0) == slow_first, 1.0 / self.slowdown, 1.0)
        wall = np.concatenate(([0.0], np.cumsum(lengths)))
        work = np.concatenate(([0.0], np.cumsum(lengths * speeds)))
        return wall, work


def simulate_run(
    rng: np.random.Generator,
    machine: Machine,
    base_times: np.ndarray,
    samples: int,
    factor: float,
) -> list[np.ndarray]:
    """One run of the suite: float32 sample times per state, measured in order."""
    work = base_times[:, None] * factor * rng.lognormal(0.0, 0.01, (base_times.size, samples))
    ends = np.cumsum(work.ravel())
    wall, done = machine.timeline(rng, float(ends[-1]))
    start = rng.uniform(0.0, 10.0 * machine.phase)  # the run starts somewhere in the day
    offset = float(np.interp(start, wall, done))
    finished = np.interp(offset + np.concatenate(([0.0], ends)), done, wall)
    durations = np.diff(finished).reshape(base_times.size, samples)
    return [row.astype(np.float32) for row in durations]


def _evidence(times: np.ndarray) -> SideEvidence:
    return SideEvidence.from_samples(times, kind=MeasurementKind.CPU_ONLY)


def scenario_names() -> list[str]:
    names = ["A/A"]
    for size in SHIFTS:
        names += [f"-{size:.0%}", f"+{size:.0%}"]
    return names


def _factor(name: str) -> float:
    if name == "A/A":
        return 1.0
    size = float(name[1:-1]) / 100.0
    return 1.0 - size if name[0] == "-" else 1.0 + size


#: The variants decided per state: (label, calibrated, max_tolerance).
VARIANTS = (
    ("ci, calibrated (cap 5 %)", True, None),
    ("ci, calibrated, no cap", True, 1.0),
    ("ci, no calibration", False, None),
)


NULL_VARIANT = "ci, no calibration, empirical null (20 states per comparison)"


def run_study(
    states: int, samples: int, seed: int, machine: Machine | None = None
) -> dict[str, dict[str, Counter[str]]]:
    """``{variant: {scenario: statuses}}`` over ``states`` states per scenario."""
    machine = machine or Machine()
    rng = np.random.default_rng(np.random.SeedSequence([seed, 15]))
    ci = get_method("ci")
    default = PRESETS["default"]
    tallies: dict[str, dict[str, Counter[str]]] = {label: {} for label, _, _ in VARIANTS}
    tallies[NULL_VARIANT] = {}
    for name in scenario_names():
        base = np.exp(rng.uniform(math.log(5e-6), math.log(2e-3), states))
        aa = [simulate_run(rng, machine, base, samples, 1.0) for _ in range(CALIBRATION_RUNS)]
        ref = simulate_run(rng, machine, base, samples, 1.0)
        cmp = simulate_run(rng, machine, base, samples, _factor(name))
        # As ``calibrate`` does: each state's floor, pooled with the machine's.
        found = [
            state_floor(
                StateIdentity("b", 0, None, str(i), 0), [_evidence(r[i]) for r in aa], default, 0.01
            )
            for i in range(states)
        ]
        floors, machine_floor = pooled_floors([f for f in found if f is not None], 0.01)
        calibration = Calibration((), 0.01, floors, machine_floor=machine_floor)
        uncalibrated: list[Verdict] = []
        for index in range(states):
            floor = calibration.floor_for(StateIdentity("b", 0, None, str(index), 0))
            ref_ev, cmp_ev = _evidence(ref[index]), _evidence(cmp[index])
            for label, calibrated, cap in VARIANTS:
                thresholds = default if cap is None else default.replace(ci_max_tolerance=cap)
                if calibrated:
                    thresholds = calibration.widened(thresholds, floor)
                verdict = ci.decide(row_evidence(ref_ev, cmp_ev, thresholds))
                tally = tallies[label].setdefault(name, Counter())
                tally[verdict.status.value] += 1
                tally[f"reason:{verdict.reason.value}"] += 1
                if not calibrated:
                    uncalibrated.append(verdict)
        # The uncalibrated verdicts again, 20 states measured one after another per
        # comparison, with the empirical null across them (_null_groups).
        tally = tallies[NULL_VARIANT].setdefault(name, Counter())
        for verdict in _null_groups.in_comparisons(uncalibrated):
            tally[verdict.status.value] += 1
            tally[f"reason:{verdict.reason.value}"] += 1
    return tallies


def study_rows(tallies: dict[str, dict[str, Counter[str]]]) -> list[dict[str, object]]:
    """One row per variant: the rates the table shows (fractions)."""
    rows: list[dict[str, object]] = []
    fast, slow, same = Status.FAST.value, Status.SLOW.value, Status.SAME.value
    for label, scenarios in tallies.items():
        row: dict[str, object] = {"variant": label}
        aa = scenarios["A/A"]
        total = sum(aa[s.value] for s in Status)
        row["aa_false_change"] = (aa[fast] + aa[slow]) / total
        row["aa_same"] = aa[same] / total
        wrong = shifted = 0
        for size in SHIFTS:
            same_count = detected = trials = 0
            for sign in "-+":
                cell = scenarios[f"{sign}{size:.0%}"]
                right, other = (fast, slow) if sign == "-" else (slow, fast)
                n = sum(cell[s.value] for s in Status)
                same_count += cell[same]
                detected += cell[right]
                wrong += cell[other]
                trials += n
            shifted += trials
            row[f"same_{size}"] = same_count / trials
            row[f"detect_{size}"] = detected / trials
        row["wrong"] = wrong / shifted
        rows.append(row)
    return rows


def study_table(rows: Sequence[dict[str, object]]) -> str:
    header = (
        "| variant | FC on A/A | SAME on A/A | "
        + " | ".join(f"SAME / detected ±{size:.0%}" for size in SHIFTS)
        + " | wrong direction |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]

    def pct(value: object) -> str:
        assert isinstance(value, float)
        return f"{value * 100:.1f}"

    for row in rows:
        cells = " | ".join(
            f"{pct(row[f'same_{size}'])} / {pct(row[f'detect_{size}'])}" for size in SHIFTS
        )
        lines.append(
            f"| {row['variant']} | {pct(row['aa_false_change'])} | {pct(row['aa_same'])} | "
            f"{cells} | {pct(row['wrong'])} |"
        )
    return "\n".join(lines) + "\n"
