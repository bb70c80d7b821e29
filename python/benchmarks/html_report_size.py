"""Size and render time of the HTML report (``--html``) for large synthetic comparisons.

    python python/benchmarks/html_report_size.py [--rows 5000] [--samples 1000]

Writes a synthetic pair (:mod:`cuda.bench.results.synthetic`: benchmarks of 500 states,
``--samples`` samples each with side files, 8 % of the states shifted by 10 %), compares it
with each method and prints the page's size, how it divides between the rows, the texts
(messages and device names, each stored once) and the plots, and the render time (wall
clock, one run: a figure to read, not to compare).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from cuda.bench.compare import compare
from cuda.bench.report.html import DEFAULT_PLOT_LIMIT, render_html
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

_STATES = 500


def _part(data: object) -> float:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("--rows", type=int, default=5000, help="states (multiple of 500)")
    parser.add_argument("--samples", type=int, default=1000, help="samples per state")
    parser.add_argument("--plots", type=int, default=DEFAULT_PLOT_LIMIT, help="--html-plots")
    args = parser.parse_args()
    benchmarks = max(1, args.rows // _STATES)
    rows = benchmarks * _STATES
    with tempfile.TemporaryDirectory() as directory:
        pair = write_pair(
            Path(directory),
            SyntheticConfig(benchmarks=benchmarks, states=_STATES, samples=args.samples),
            seed=5,
            random_shifts=rows * 8 // 100,
        )
        print(f"{rows} rows, {args.samples} samples per state, at most {args.plots} plots")
        print("method   size MB  rows MB  texts MB  plots MB  plots  render s")
        for method in ("ci", "robust"):
            comparison = compare(pair.ref[0], pair.cmp[0], method=method, jobs=None)
            start = time.perf_counter()
            page = render_html(comparison, plot_limit=args.plots)
            seconds = time.perf_counter() - start
            match = re.search(r'id="nvbench-data">(.*?)</script>', page)
            assert match is not None
            data = json.loads(match.group(1))
            size = len(page.encode()) / 1e6
            print(
                f"{method:<8} {size:7.2f}  {_part(data['rows']):7.2f}  "
                f"{_part(data['texts']):8.2f}  {_part(data['plots']):8.2f}  "
                f"{len(data['plots']):5d}  {seconds:8.2f}"
            )


if __name__ == "__main__":
    main()
