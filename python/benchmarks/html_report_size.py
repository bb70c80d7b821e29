"""Size and render time of the HTML report (``--html``) for large synthetic comparisons.

    python python/benchmarks/html_report_size.py [--rows 5000] [--samples 1000] [--candidates K]

Writes a synthetic pair (:mod:`cuda.bench.results.synthetic`: benchmarks of 500 states,
``--samples`` samples each with side files, 8 % of the states shifted by 10 %), compares it
with each method and prints the page's size, how it divides between the rows, the texts
(messages and device names, each stored once) and the plots, and the render time (wall
clock, one run: a figure to read, not to compare). With ``--candidates K`` (K >= 2) it
writes K candidates instead, each with its own 8 % of states shifted, and measures the
N-way page of :func:`~cuda.bench.compare.many.compare_many` (its cells are a part of
their own).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

import numpy as np
from cuda.bench.compare import compare
from cuda.bench.compare.many import MultiComparison, compare_many
from cuda.bench.compare.model import Comparison
from cuda.bench.report.html import DEFAULT_PLOT_LIMIT, render_html
from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_pair, write_run

_STATES = 500


def _part(data: object) -> float:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()) / 1e6


def _measure(method: str, subject: Comparison | MultiComparison, plots: int) -> None:
    start = time.perf_counter()
    page = render_html(subject, plot_limit=plots)
    seconds = time.perf_counter() - start
    match = re.search(r'id="nvbench-data">(.*?)</script>', page)
    assert match is not None
    data = json.loads(match.group(1))
    size = len(page.encode()) / 1e6
    cells = f"{_part(data['cells']):8.2f}  " if "cells" in data else ""
    print(
        f"{method:<8} {size:7.2f}  {_part(data['rows']):7.2f}  {cells}"
        f"{_part(data['texts']):8.2f}  {_part(data['plots']):8.2f}  "
        f"{len(data['plots']):5d}  {seconds:8.2f}"
    )


def _many(
    directory: Path, config: SyntheticConfig, count: int, rows: int
) -> tuple[Path, dict[str, Path]]:
    """A baseline and ``count`` candidates, each with its own 8 % of states shifted."""
    base = directory / "base.json"
    write_run(base, config, seed=5)
    keys = state_keys(config)
    rng = np.random.default_rng(5)
    candidates: dict[str, Path] = {}
    for index in range(count):
        chosen = rng.choice(len(keys), size=rows * 8 // 100, replace=False)
        shifts = {keys[int(i)]: float(rng.choice((0.9, 1.1))) for i in chosen}
        path = directory / f"cand{index + 1}.json"
        write_run(path, config, seed=5, side="cmp", run=index, shifts=shifts)
        candidates[path.stem] = path
    return base, candidates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("--rows", type=int, default=5000, help="states (multiple of 500)")
    parser.add_argument("--samples", type=int, default=1000, help="samples per state")
    parser.add_argument("--plots", type=int, default=DEFAULT_PLOT_LIMIT, help="--html-plots")
    parser.add_argument("--candidates", type=int, default=1, help="N-way with K candidates")
    args = parser.parse_args()
    benchmarks = max(1, args.rows // _STATES)
    rows = benchmarks * _STATES
    config = SyntheticConfig(benchmarks=benchmarks, states=_STATES, samples=args.samples)
    with tempfile.TemporaryDirectory() as directory:
        if args.candidates >= 2:
            base, candidates = _many(Path(directory), config, args.candidates, rows)
            print(
                f"{rows} states x {args.candidates} candidates, {args.samples} samples per "
                f"state, at most {args.plots} plots"
            )
            print("method   size MB  rows MB  cells MB  texts MB  plots MB  plots  render s")
            for method in ("ci", "robust"):
                _measure(
                    method, compare_many(base, candidates, method=method, jobs=None), args.plots
                )
            return
        pair = write_pair(Path(directory), config, seed=5, random_shifts=rows * 8 // 100)
        print(f"{rows} rows, {args.samples} samples per state, at most {args.plots} plots")
        print("method   size MB  rows MB  texts MB  plots MB  plots  render s")
        for method in ("ci", "robust"):
            comparison = compare(pair.ref[0], pair.cmp[0], method=method, jobs=None)
            _measure(method, comparison, args.plots)


if __name__ == "__main__":
    main()
