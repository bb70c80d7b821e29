"""Read an NVBench result file with ``cuda.bench.results``: digest, centers, pandas, a plot.

    python read_results.py results.json                 # digest and per-state medians
    python read_results.py results.json -o times.png    # plus a plot of the sample spread
    python read_results.py results.json --csv states.csv

The file can be any NVBench ``--json``/``--jsonbin`` output (GPU or CPU-only) or one written
by this package. Side files (``--jsonbin``) are found next to the JSON and read lazily, the
first time a state's ``samples`` are used; without them the medians come out as ``n/a``.
Needs pandas for the DataFrame part and matplotlib for ``-o``
(``python -m pip install '.[plot]'`` from the nvbench-tools checkout's root).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from cuda.bench.report.format import format_duration
from cuda.bench.results import (
    BenchmarkResult,
    ResultFormatError,
    SharedStateNamesWarning,
    SubBenchmarkResult,
)

#: The mean-time summary of each measurement kind, as NVBench names it.
MEAN_TAGS = ("nv/cold/time/gpu/mean", "nv/cpu_only/time/cpu/mean")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("file", type=Path, metavar="FILE.json", help="NVBench JSON result")
    parser.add_argument("-o", "--output", type=Path, help="save a plot of the samples here")
    parser.add_argument("--csv", type=Path, help="write the per-state table (pandas) as CSV")
    return parser.parse_args(argv)


def describe_benchmark(result: BenchmarkResult, bench: SubBenchmarkResult) -> list[str]:
    axes = ", ".join(axis.name for axis in bench.axes) or "no axes"
    skipped = sum(state.is_skipped for state in bench)
    where = (
        "CPU-only"
        if bench.is_cpu_only
        else "devices " + ", ".join(f"[{d}] {result.devices[d].name}" for d in bench.devices)
    )
    lines = [f"{bench.name}: {len(bench)} states ({skipped} skipped), axes {axes}; {where}"]
    # Centers from the per-sample side files: any estimator works, the median is robust.
    # Keys are state.name(); center_key (Device=<id> <name> where devices share names)
    # reaches each state's own value.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SharedStateNamesWarning)
        medians = bench.centers(np.median)
    for state in bench:
        key, median = state.center_key, medians[state.center_key]
        if state.is_skipped:
            text = f"skipped: {state.skip_reason}"
        else:
            samples = state.sample_count
            text = f"median {format_duration(None if median is None else float(median))}"
            text += f", {samples} samples" if samples is not None else ""
        lines.append(f"  {key or '(no axes)'}: {text}")
    return lines


def digest(result: BenchmarkResult) -> None:
    meta = result.meta
    print(f"{result.label}: JSON format {meta.json_version}, NVBench {meta.nvbench_version}")
    print(f"  command line: {' '.join(meta.argv)}")
    if result.devices:
        for device in result.devices.values():
            sms = device.get("number_of_sms")
            print(f"  device [{device.id}] {device.name}, {sms} SMs")
    else:
        print("  no GPU devices (CPU-only run)")
    for bench in result.benchmarks:
        for line in describe_benchmark(result, bench):
            print(line)


def dataframe_part(result: BenchmarkResult, csv: Path | None) -> None:
    frame = result.to_dataframe()  # needs pandas; raises a one-line install hint otherwise
    print(f"\nto_dataframe(): {len(frame)} rows x {len(frame.columns)} columns")
    mean = next((tag for tag in MEAN_TAGS if tag in frame.columns), None)
    if mean is not None:
        shown = frame[["benchmark", "state", mean]].dropna(subset=[mean])
        fastest = shown.sort_values(mean).head(3)
        print(f"fastest states by {mean}:")
        for row in fastest.itertuples(index=False):
            print(f"  {row.benchmark} [{row.state}]: {format_duration(float(row[2]))}")
    if csv is not None:
        frame.to_csv(csv, index=False)
        print(f"wrote {csv}")


def plot(result: BenchmarkResult, output: Path) -> None:
    """Per benchmark: each state's samples as min-to-max whisker, Q1-to-Q3 box and median dot."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    benchmarks = [bench for bench in result.benchmarks if any(s.samples is not None for s in bench)]
    if not benchmarks:
        print("no samples to plot (the file has no --jsonbin side files)")
        return
    heights = [max(1.5, 0.35 * len(bench)) for bench in benchmarks]
    figure, axes = plt.subplots(
        len(benchmarks), 1, figsize=(9, sum(heights) + 1), height_ratios=heights, squeeze=False
    )
    for axis, bench in zip(axes[:, 0], benchmarks, strict=True):
        labels = []
        for row, state in enumerate(s for s in bench if s.samples is not None):
            samples = np.asarray(state.samples, dtype=np.float64)
            low, q1, median, q3, high = np.percentile(samples, [0, 25, 50, 75, 100])
            axis.hlines(row, low, high, color="0.6", linewidth=1)
            axis.hlines(row, q1, q3, color="tab:blue", linewidth=6)
            axis.plot([median], [row], "o", color="black", markersize=3)
            name = state.state_name
            labels.append(name if len(name) <= 48 else name[:45] + "...")
        axis.set_yticks(range(len(labels)), labels, fontsize=7)
        axis.invert_yaxis()
        # Log scale: states of one benchmark often differ by orders of magnitude.
        axis.set_xscale("log")
        axis.set_xlabel("time per sample [s]")
        axis.set_title(bench.name, fontsize=9)
    figure.tight_layout()
    figure.savefig(output, dpi=100)
    plt.close(figure)
    print(f"wrote {output}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = BenchmarkResult(args.file)
    except (ResultFormatError, OSError) as error:
        # A missing file or one that is not NVBench JSON: one line, as the tools say it.
        print(f"{Path(sys.argv[0]).name}: error: {error}", file=sys.stderr)
        return 2
    digest(result)
    try:
        dataframe_part(result, args.csv)
        if args.output is not None:
            plot(result, args.output)
    except ImportError as error:
        print(f"{Path(sys.argv[0]).name}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
