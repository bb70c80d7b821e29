"""Verdict quality of paired A/B rounds against one run per side and unpaired runs, under drift.

    python python/benchmarks/paired_quality.py             # the table of docs/multi-run.md
    python python/benchmarks/paired_quality.py --quick     # a rough look in a minute or two
    python python/benchmarks/paired_quality.py --json results.json

A simulated machine runs a reference and a compare build in 8 rounds, the side that goes
first alternating (16 runs in time order). Every state's sample cycles are its base cost
times the machine's **common-mode drift** at the run's time, times a small per-run, per-state
jitter (0.2 %, what pairing cannot cancel), times the within-run noise; times are cycles /
SM clock. Drift scenarios (log drift ``D(t)`` over the run index ``t``):

* ``quiet``: no drift;
* ``sinusoid``: ``0.04 sin(2 pi t / P + phi)``, period ``P`` uniform in 32..96 runs (the
  16 runs see a sixth to a half of a period);
* ``random walk``: steps ``N(0, 0.6 %)`` per run;
* ``steps``: one or two level steps of ±3 % at random runs;
* ``two speeds``: a CPU that switches between two speed modes 4 % apart, the mode kept from
  one run to the next with probability 0.85;
* ``real nightly``: 16 consecutive points of a real nightly benchmark history (TigerBeetle,
  runs 16-70 and 96-130 between its annotated level shifts,
  ``../shared/data/history-real/tigerbeetle``, normalised by the window's median): real
  run-to-run variation that is not common-mode between neighbouring runs at all, the case
  pairing cannot help with and must not cry wolf on.

Within-run noise: log-normal (2 % per sample), bimodal SM clocks (30 % of the samples at
85 % clock: times bimodal, cycles not), and real sample shapes (the sample times of the
real NVBench run ``../shared/data/nvbench-format-examples/gpu/gpu_ref.json``, resampled
around the state's level). Clocks are recorded (per-sample frequencies, as ``--jsonbin``
writes them) or not (times only).

Per configuration, states are A/A (no change) or changed by ±1, 2, 3, 5 %. Each is decided
by (a) ``ci`` on one run per side (round 1's runs), (b) ``ci`` on all 8 runs per side
analysed unpaired (hierarchical bootstrap, today's ``--ref ... --cmp ...``), (c) the paired
method (``nvbench_compare ab``). Columns: ``FC`` false FAST/SLOW on A/A, ``SAME`` on A/A,
detection (the right direction) per change size, ``jit`` the median within-round jitter
(the paired A/A floor), ``>=3j`` the paired detection of changes of at least three times
it (that are also beyond the ±1 % tolerance) and ``S/chg`` the share of the changes beyond
the tolerance (2, 3, 5 %) that the paired method calls SAME (inside a state's floor band).
Targets for (c): FC <= 1 %, SAME >= 90 %, ``>=3j`` >= 95 %, and at least twice (b)'s
detection at 2-3 % under drift.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from cuda.bench.compare.evidence import SideEvidence
from cuda.bench.compare.methods import row_evidence
from cuda.bench.compare.methods.ci import CI
from cuda.bench.compare.methods.paired import PairedMethod
from cuda.bench.compare.model import Status
from cuda.bench.compare.paired import PairedDesign, round_changes, slot_floor
from cuda.bench.compare.runs import with_runs
from cuda.bench.compare.thresholds import PRESETS

ROUNDS = 8
SIZES = (0.01, 0.02, 0.03, 0.05)
JITTER = 0.002
CLOCK = 1.5e9
TOLERANCE = float(PRESETS["default"].ci_tolerance)
_SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

Drift = Callable[[np.random.Generator, int], np.ndarray]


def _sinusoid(rng: np.random.Generator, runs: int) -> np.ndarray:
    period, phase = rng.uniform(32, 96), rng.uniform(0, 2 * math.pi)
    return 0.04 * np.sin(2 * math.pi * np.arange(runs) / period + phase)


def _walk(rng: np.random.Generator, runs: int) -> np.ndarray:
    return np.cumsum(rng.normal(0.0, 0.006, runs))


def _steps(rng: np.random.Generator, runs: int) -> np.ndarray:
    drift = np.zeros(runs)
    for _ in range(rng.integers(1, 3)):
        drift[rng.integers(1, runs) :] += rng.choice([-0.03, 0.03])
    return drift


def _two_speeds(rng: np.random.Generator, runs: int) -> np.ndarray:
    mode, modes = int(rng.integers(0, 2)), []
    for _ in range(runs):
        modes.append(mode)
        if rng.random() > 0.85:
            mode = 1 - mode
    return 0.04 * np.array(modes, dtype=float)


def _nightly_traces() -> list[np.ndarray] | None:
    path = _SHARED / "history-real" / "tigerbeetle" / "series.json"
    if not path.is_file():
        return None
    values = np.array(json.loads(path.read_text())["series"]["tigerbeetle"]["values"])
    return [np.log(values[start:stop]) for start, stop in ((16, 71), (96, 131))]


def _nightly(traces: list[np.ndarray]) -> Drift:
    def drift(rng: np.random.Generator, runs: int) -> np.ndarray:
        trace = traces[int(rng.integers(0, len(traces)))]
        start = int(rng.integers(0, len(trace) - runs + 1))
        window = trace[start : start + runs]
        return window - np.median(window)

    return drift


def _real_shapes() -> list[np.ndarray] | None:
    """Per state of the real GPU run, its sample times over their median (log)."""
    path = _SHARED / "nvbench-format-examples" / "gpu" / "gpu_ref.json"
    if not path.is_file():
        return None
    from cuda.bench.compare.evidence import side_evidence
    from cuda.bench.results import BenchmarkResult

    shapes = []
    for bench in BenchmarkResult(path).benchmarks:
        for state in bench:
            if state.is_skipped or not state.tags:
                continue
            times = side_evidence(state, warn=lambda message: None).bulk.ordered_times()
            if times is not None and len(times) >= 50:
                logs = np.log(np.asarray(times, dtype=float))
                shapes.append(logs - np.median(logs))
    return shapes or None


@dataclass(frozen=True)
class Config:
    name: str
    drift: Drift
    noise: str = "lognormal"
    clocks: bool = True
    drifting: bool = True


@dataclass
class Tally:
    aa: list[Status] = field(default_factory=list)
    found: dict[float, list[bool]] = field(default_factory=dict)
    big: list[bool] = field(default_factory=list)  # paired: changes >= 3 jitter and band
    same_changed: list[bool] = field(default_factory=list)  # changes beyond the band: SAME?

    def add(self, shift: float, status: Status) -> None:
        if shift == 0.0:
            self.aa.append(status)
            return
        right = Status.SLOW if shift > 0 else Status.FAST
        self.found.setdefault(abs(shift), []).append(status is right)
        if abs(shift) > TOLERANCE:
            self.same_changed.append(status is Status.SAME)


def _run(
    rng: np.random.Generator,
    base: float,
    level: float,
    noise: str,
    clocks: bool,
    samples: int,
    shapes: list[np.ndarray] | None,
    shape: int,
) -> SideEvidence:
    if noise == "real" and shapes is not None:
        chosen = shapes[shape % len(shapes)]
        log_noise = rng.choice(chosen, size=samples)
    else:
        log_noise = rng.normal(0.0, 0.02, samples)
    cycles = base * CLOCK * np.exp(level + log_noise)
    clock = np.full(samples, CLOCK) * (1.0 + 0.001 * rng.standard_normal(samples))
    if noise == "bimodal":
        clock[rng.random(samples) < 0.3] *= 0.85
    return SideEvidence.from_samples(cycles / clock, clock if clocks else None)


def simulate(
    config: Config,
    machines: int,
    states: int,
    samples: int,
    seed: int,
    shapes: Any,
    rounds: int = ROUNDS,
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    firsts = tuple("ref" if r % 2 == 0 else "cmp" for r in range(rounds))
    paired = PairedMethod(PairedDesign(rounds, firsts, order="alternate"))  # type: ignore[arg-type]
    thresholds = PRESETS["default"]
    tallies = {"a": Tally(), "b": Tally(), "c": Tally()}
    jitters: list[float] = []
    shifts = [0.0] * states + [sign * size for size in SIZES for sign in (1, -1)] * (states // 4)
    for _ in range(machines):
        drift = config.drift(rng, 2 * rounds)
        for index, shift in enumerate(shifts):
            base = math.exp(rng.uniform(math.log(5e-6), math.log(5e-4)))
            runs: dict[str, list[SideEvidence]] = {"ref": [], "cmp": []}
            for r in range(rounds):
                for slot, side in enumerate((firsts[r], "cmp" if firsts[r] == "ref" else "ref")):
                    level = drift[2 * r + slot] + JITTER * rng.standard_normal()
                    level += math.log1p(shift) if side == "cmp" else 0.0
                    runs[side].append(
                        _run(rng, base, level, config.noise, config.clocks, samples, shapes, index)
                    )
            ref, cmp = runs["ref"], runs["cmp"]
            single = row_evidence(ref[0], cmp[0], thresholds)
            several = row_evidence(
                with_runs(ref[0], ref[1:]), with_runs(cmp[0], cmp[1:]), thresholds
            )
            tallies["a"].add(shift, CI.decide(single).status)
            tallies["b"].add(shift, CI.decide(several).status)
            status = paired.decide(several).status
            tallies["c"].add(shift, status)
            changes = round_changes(ref, cmp, thresholds)
            if not isinstance(changes, type(None)) and hasattr(changes, "time"):
                jitter = slot_floor(changes.time, firsts)[0]  # type: ignore[arg-type]
                if shift == 0.0:
                    jitters.append(jitter)
                elif abs(shift) >= max(3 * jitter, 1.5 * TOLERANCE):
                    right = Status.SLOW if shift > 0 else Status.FAST
                    tallies["c"].big.append(status is right)
    return {"tallies": tallies, "jitter": float(np.median(jitters)) if jitters else float("nan")}


def _rate(values: list[Any], predicate: Callable[[Any], bool]) -> float:
    return sum(predicate(v) for v in values) / len(values) if values else float("nan")


def row_figures(result: dict[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {"jitter": result["jitter"]}
    for key, tally in result["tallies"].items():
        figures[key] = {
            "fc": _rate(tally.aa, lambda s: s.is_change),
            "same": _rate(tally.aa, lambda s: s is Status.SAME),
            "found": {f"{size:.0%}": _rate(tally.found.get(size, []), bool) for size in SIZES},
        }
        if key == "c":
            figures[key]["big"] = _rate(tally.big, bool)
            figures[key]["same_changed"] = _rate(tally.same_changed, bool)
    return figures


def _percent(value: float) -> str:
    return "  n/a" if math.isnan(value) else f"{value * 100:5.1f}"


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    head = ["configuration", "jit"]
    for key in "abc":
        head += [f"{key} FC", f"{key} SAME"] + [f"{key} {s:.0%}" for s in SIZES]
    head += ["c >=3j", "c S/chg"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, figures in rows:
        cells = [name, f"{figures['jitter'] * 100:.2f}"]
        for key in "abc":
            part = figures[key]
            cells += [_percent(part["fc"]), _percent(part["same"])]
            cells += [_percent(part["found"][f"{s:.0%}"]) for s in SIZES]
        cells += [_percent(figures["c"]["big"]), _percent(figures["c"]["same_changed"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets(
    rows: list[tuple[str, dict[str, Any]]], drifting: dict[str, bool], rounds: int = ROUNDS
) -> str:
    """One line per configuration: the paired method's figures against the targets."""
    lines = [
        f"Targets for c (paired, {rounds} rounds): FC <= 1 %, SAME >= 90 %, >=3j >= 95 %, "
        "2-3 % detections >= 2x b's under drift"
    ]
    for name, figures in rows:
        c, b = figures["c"], figures["b"]
        found_c = sum(c["found"][size] for size in ("2%", "3%"))
        found_b = sum(b["found"][size] for size in ("2%", "3%"))
        ratio = found_c / found_b if found_b > 0 else math.inf
        checks = [
            ("FC", c["fc"] <= 0.01),
            ("SAME", c["same"] >= 0.90),
            (">=3j", math.isnan(c["big"]) or c["big"] >= 0.95),
        ]
        if drifting.get(name, False):
            # c can find at most all of them: where b finds more than half, x2 cannot be had.
            ceiling = 2.0 / found_b if found_b > 0 else math.inf
            reach = "" if ceiling >= 2.0 else f" (unreachable: at most x{ceiling:.2f})"
            checks.append((f"2-3% x{ratio:.2f} of b{reach}", ratio >= 2.0))
        verdict = ", ".join(f"{label} {'ok' if good else 'MISSED'}" for label, good in checks)
        lines.append(f"  {name}: {verdict}")
    return "\n".join(lines)


def configurations(quick: bool) -> list[Config]:
    configs = [
        Config("quiet, log-normal", lambda rng, n: np.zeros(n), drifting=False),
        Config("sinusoid ±4 %, log-normal", _sinusoid),
        Config("sinusoid ±4 %, bimodal clocks", _sinusoid, noise="bimodal"),
        Config("sinusoid ±4 %, bimodal, no clocks", _sinusoid, noise="bimodal", clocks=False),
        Config("random walk, log-normal", _walk),
        Config("steps ±3 %, log-normal", _steps),
        Config("two speeds 4 %, log-normal", _two_speeds),
    ]
    if _real_shapes_available():
        configs.append(Config("sinusoid ±4 %, real samples", _sinusoid, noise="real"))
    traces = _nightly_traces()
    if traces is not None:
        configs.append(Config("real nightly (TigerBeetle)", _nightly(traces)))
    return configs[:3] if quick else configs


def _real_shapes_available() -> bool:
    return (_SHARED / "nvbench-format-examples" / "gpu" / "gpu_ref.json").is_file()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="fewer machines and configurations")
    parser.add_argument("--machines", type=int, help="simulated machines per configuration")
    parser.add_argument("--states", type=int, default=24, help="A/A states per machine")
    parser.add_argument("--samples", type=int, default=100, help="samples per run")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds (even)")
    parser.add_argument("--only", metavar="TEXT", help="configurations whose name holds TEXT")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args(argv)
    machines = args.machines or (3 if args.quick else 10)
    shapes = _real_shapes()
    rows = []
    started = time.monotonic()
    for index, config in enumerate(configurations(args.quick)):
        if args.only and args.only not in config.name:
            continue
        result = simulate(
            config, machines, args.states, args.samples, args.seed + index, shapes, args.rounds
        )
        rows.append((config.name, row_figures(result)))
        print(f"{config.name}: done at {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(
        f"{args.rounds} rounds, {machines} machines x ({args.states} A/A + {args.states // 4 * 8} "
        f"changed states), {args.samples} samples per run; a = one run per side (ci), "
        f"b = {args.rounds} runs per side unpaired (ci), c = paired; rates in %"
    )
    print(table(rows))
    print()
    drifting = {config.name: config.drifting for config in configurations(args.quick)}
    print(targets(rows, drifting, args.rounds))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(rows), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
