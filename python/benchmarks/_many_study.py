"""The A/A/A/A study of :mod:`verdict_quality`: false alarms of an N-way matrix.

A baseline and K = 3 candidates are simulated from one build (same states, same noise
shape, each its own runs with their own run-to-run drift), written as NVBench files with
side files, and compared with :func:`cuda.bench.compare.compare_many`, once with the
Bonferroni confirmation of the ``ci`` change calls and once without. Two scenarios:

* ``A/A/A/A``: every candidate from the baseline's distribution. Counted: the share of
  cells (state x candidate) that are FAST or SLOW, and the share of states with at least
  one FAST or SLOW cell (the family-wise rate the adjustment controls);
* ``shifted``: candidate 1 is 5 % faster, candidate 2 5 % slower, candidate 3 unchanged.
  Counted: the share of shifted cells flagged in the right direction (detection), and the
  false alarms of the unchanged candidate beside them.

Files go to a temporary directory removed afterwards.
"""

from __future__ import annotations

import math
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _simulate import NOMINAL_CLOCK, SHAPES, simulate_side, upper_bound
from cuda.bench.compare import compare_many
from cuda.bench.compare.model import Status
from cuda.bench.compare.thresholds import PRESETS
from cuda.bench.results import DeviceSpec, Int64Axis, ResultBuilder

#: Candidates of the shifted scenario: name -> cycle factor.
SHIFTED = {"fast5": 0.95, "slow5": 1.05, "same": 1.0}
#: Candidates of the A/A/A/A scenario.
AA = {"a1": 1.0, "a2": 1.0, "a3": 1.0}
CORRECTIONS = ("bonferroni", "none")
CHANGES = (Status.FAST, Status.SLOW)


@dataclass(frozen=True)
class ManySettings:
    states: int
    samples: int
    runs: int
    drift: float
    clock_drift: float
    seed: int
    resamples: int | None = None


def _write(path: Path, times: np.ndarray, clocks: np.ndarray) -> Path:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
    bench = builder.benchmark("aa", axes=[Int64Axis("S", list(range(times.shape[0])))])
    for index in range(times.shape[0]):
        bench.state({"S": index}, device=0, gpu_times=times[index], frequencies=clocks[index])
    builder.write(path, jsonbin=True)
    return path


def _side(
    directory: Path,
    name: str,
    rng: np.random.Generator,
    shape_name: str,
    base_cycles: np.ndarray,
    factor: float,
    settings: ManySettings,
) -> list[Path]:
    shape = SHAPES[shape_name]
    simulated = simulate_side(
        rng, shape, base_cycles, settings.runs, settings.samples, factor, 1.0, settings
    )
    return [
        _write(directory / f"{name}_{run}.json", times, clocks)
        for run, (times, clocks) in enumerate(simulated)
    ]


def _sources(paths: list[Path]) -> Path | list[Path]:
    return paths if len(paths) > 1 else paths[0]


def run_scenario(
    shape_name: str, scenario: str, settings: ManySettings
) -> dict[str, dict[str, dict[str, int]]]:
    """Status counts per correction and candidate for one scenario (``A/A/A/A`` or
    ``shifted``), plus per correction the number of states with any FAST/SLOW cell."""
    candidates = AA if scenario == "A/A/A/A" else SHIFTED
    block = [settings.seed, list(SHAPES).index(shape_name), settings.runs, len(scenario)]
    rng = np.random.default_rng(np.random.SeedSequence(block))
    base_times = np.exp(rng.uniform(math.log(5e-6), math.log(2e-3), settings.states))
    base_cycles = base_times * NOMINAL_CLOCK
    thresholds = PRESETS["default"]
    if settings.resamples is not None:
        thresholds = thresholds.replace(ci_resamples=settings.resamples)
    out: dict[str, dict[str, dict[str, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="nvbench-many-") as temp:
        directory = Path(temp)
        base = _side(directory, "base", rng, shape_name, base_cycles, 1.0, settings)
        sides = {
            name: _side(directory, name, rng, shape_name, base_cycles, factor, settings)
            for name, factor in candidates.items()
        }
        for correction in CORRECTIONS:
            many = compare_many(
                _sources(base),
                {name: _sources(paths) for name, paths in sides.items()},
                correction=correction,
                method="ci",
                thresholds=thresholds,
            )
            counts = {
                name: dict(Counter(row.status.value for row in many[name].rows))
                for name in candidates
            }
            flagged = sum(
                any(cell is not None and cell.status in CHANGES for cell in line.cells)
                for line in many.matrix()
            )
            counts["(states)"] = {"any_change": flagged, "states": settings.states}
            out[correction] = counts
    return out


def run_study(
    shapes: Iterable[str], runs: Sequence[int], states: int, samples: int, seed: int, **extra: Any
) -> list[dict[str, Any]]:
    """Rows of the study: one per shape, runs per side and correction."""
    rows: list[dict[str, Any]] = []
    for shape in shapes:
        for run_count in runs:
            settings = ManySettings(
                states=states, samples=samples, runs=run_count, seed=seed, **extra
            )
            aa = run_scenario(shape, "A/A/A/A", settings)
            shifted = run_scenario(shape, "shifted", settings)
            for correction in CORRECTIONS:
                rows.append(_row(shape, run_count, correction, aa[correction], shifted[correction]))
    return rows


def _share(counts: dict[str, int], statuses: Iterable[Status]) -> tuple[int, int]:
    return sum(counts.get(status.value, 0) for status in statuses), sum(counts.values())


def _row(
    shape: str,
    runs: int,
    correction: str,
    aa: dict[str, dict[str, int]],
    shifted: dict[str, dict[str, int]],
) -> dict[str, Any]:
    changes = cells = 0
    for name in AA:
        found, total = _share(aa[name], CHANGES)
        changes, cells = changes + found, cells + total
    hits, shifted_cells = 0, 0
    for name, status in (("fast5", Status.FAST), ("slow5", Status.SLOW)):
        found, total = _share(shifted[name], (status,))
        hits, shifted_cells = hits + found, shifted_cells + total
    beside, beside_cells = _share(shifted["same"], CHANGES)
    states = aa["(states)"]
    return {
        "shape": shape,
        "runs": runs,
        "correction": correction,
        "aa_cells": cells,
        "aa_cell_false_change": changes / cells if cells else math.nan,
        "aa_cell_false_change_ub95": upper_bound(changes, cells),
        "aa_state_any_change": states["any_change"] / states["states"],
        "detect_5": hits / shifted_cells if shifted_cells else math.nan,
        "unchanged_beside_shifts_false_change": beside / beside_cells if beside_cells else math.nan,
    }


def study_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a markdown table (rates in %)."""

    def pct(value: float) -> str:
        return "n/a" if math.isnan(value) else f"{value * 100:.1f}"

    lines = [
        "| shape, runs per side | correction | A/A cells FAST/SLOW | its 95 % bound | "
        "states with any FAST/SLOW | ±5 % detected | unchanged beside shifts flagged |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['shape']}, {row['runs']} | {row['correction']} | "
            f"{pct(row['aa_cell_false_change'])} | {pct(row['aa_cell_false_change_ub95'])} | "
            f"{pct(row['aa_state_any_change'])} | {pct(row['detect_5'])} | "
            f"{pct(row['unchanged_beside_shifts_false_change'])} |"
        )
    return "\n".join(lines) + "\n"
