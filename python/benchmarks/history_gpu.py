"""`detect` and `gate` night by night over a real GPU history with one known change.

    python python/benchmarks/history_gpu.py DIR                   # DIR/run-01.json ...
    python python/benchmarks/history_gpu.py DIR --changed-from 16 --json gpu.json

Record the history on a GPU machine with ``python/benchmarks/gpu_history/record.sh`` (NVIDIA's
``cuda-bench`` and CuPy there; 30 runs of three kernels at 7 sizes, saxpy doing 3 % more work
from run 16 on; about 4 minutes on an H200). The runs are read as they are; nothing here
needs a GPU.

The truth comes from the data: per state, the median log median of the runs from
``--changed-from`` on against that of the runs before, in units of the run-to-run noise
(``1.4826 MAD`` of the first differences over ``sqrt(2)``); a state is *shifted* where that
exceeds 5 and the change 1 % (a kernel doing 3 % more work moves by less where launch
latency dominates).

Printed:

* ``detect`` over every prefix of the history (6 runs to all), the states scanned together
  as an archive's are: per prefix, the shifted states reported as a change or a candidate
  within one run of the change, or as a creep starting there (a history recorded with a
  ramp, ``record.sh`` with ``TO``), and every other report;
* ``gate`` night by night: run ``k`` (and the pair ``k, k+1``) against an archive of runs
  ``1 .. k-1``, then run ``k`` ingested. Unchanged states before the change: SAME, AMBG and
  false FAST or SLOW; shifted states on the first changed night: SLOW; every state from two
  nights after the change on (the change is then in the archive as a candidate or a
  change, so a FAST or SLOW is false); for a creep (``--changed-to``), from two nights after
  its last run on.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from cuda.bench.compare.bootstrap import MAD_TO_SD
from cuda.bench.compare.model import Status
from cuda.bench.history import RunSeries, detect
from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.results import BenchmarkResult, ResultFormatError

#: Shifted: the change in run-to-run noise units and in relative size.
MIN_Z = 5.0
MIN_CHANGE = 0.01


def _medians(paths: list[Path]) -> dict[str, list[float]]:
    """Each state's per-run median GPU time (``benchmark state-name``), in run order."""
    out: dict[str, list[float]] = {}
    for path in paths:
        for benchmark in BenchmarkResult(path).benchmarks:
            for state in benchmark.states:
                median = state.float_value("nv/cold/time/gpu/median")
                if state.is_skipped or median is None:
                    continue
                out.setdefault(f"{benchmark.name} {state.key}", []).append(median)
    return out


def _shifted(medians: dict[str, list[float]], first: int) -> dict[str, float]:
    """The states whose level moved at run ``first`` (1-based), with their change."""
    out = {}
    for name, values in medians.items():
        logs = np.log(values)
        diffs = np.diff(logs)
        noise = MAD_TO_SD * float(np.median(np.abs(diffs - np.median(diffs)))) / math.sqrt(2.0)
        change = float(np.median(logs[first - 1 :]) - np.median(logs[: first - 1]))
        if abs(change) > max(MIN_Z * noise, math.log1p(MIN_CHANGE)):
            out[name] = math.expm1(change)
    return out


def _detect_by_prefix(medians: dict[str, list[float]], first: int, shifted: set[str]) -> list[str]:
    lines = []
    names = sorted(medians)
    runs = min(len(v) for v in medians.values())
    for prefix in range(6, runs + 1):
        found = detect([RunSeries(name, np.asarray(medians[name][:prefix])) for name in names])
        at = first - 1  # 0-based index of the first changed run
        hits = {c.series for c in found.changes if c.series in shifted and abs(c.index - at) <= 1}
        early = {
            c.series for c in found.candidates if c.series in shifted and abs(c.index - at) <= 1
        }
        # A recorded creep (record.sh with TO) starts at the first changed run.
        creeps = {c.series for c in found.creeps if c.series in shifted and abs(c.first - at) <= 1}
        labelled = [("change", c) for c in found.changes] + [
            ("candidate", c) for c in found.candidates
        ]
        other = [
            (c.series, f"{kind} @{c.index + 1}")
            for kind, c in labelled
            if not (c.series in shifted and abs(c.index - at) <= 1)
        ] + [
            (c.series, f"creep @{c.first + 1}-{c.end}")
            for c in found.creeps
            if not (c.series in shifted and abs(c.first - at) <= 1)
        ]
        lines.append(
            f"| {prefix} | {len(hits)} | {len(early)} | {len(creeps)} | {len(other)} | "
            + ", ".join(f"{s} {where}" for s, where in other)
            + " |"
        )
    return lines


def _gate_nights(
    paths: list[Path], first: int, last: int, shifted: set[str], samples: int = 0
) -> dict[str, Counter[str]]:
    tallies: dict[str, Counter[str]] = {}
    with tempfile.TemporaryDirectory(prefix="nvbench-gpu-history-") as scratch:
        archive = Path(scratch) / "archive"
        for night, path in enumerate(paths, start=1):
            if night >= 4:
                for label, runs in (
                    ("one run", [path]),
                    ("two runs", paths[night - 1 : night + 1]),
                ):
                    if len(runs) < (1 if label == "one run" else 2):
                        continue
                    for row in gate(archive, runs).comparison:
                        name = f"{row.benchmark} {row.key}"
                        if night < first - (label == "two runs"):
                            kind = "unchanged, before"
                            key = f"{kind}: {row.status.value}"
                            if name in shifted:
                                continue
                        elif night == first and name in shifted:
                            key = f"shifted, first night: {row.status.value}"
                        elif first < night <= last + 1 and last > first and name in shifted:
                            key = f"shifted, on the ramp: {row.status.value}"
                        elif (
                            night >= last + 2
                            and name in shifted
                            and "before a candidate change" in row.verdict.message
                        ):
                            # Held to the level before a candidate not yet confirmed: the
                            # change is still pending, so a flag is no false one.
                            key = f"after, a candidate pending: {row.status.value}"
                        elif night >= last + 2:
                            key = (
                                "after: false FAST/SLOW"
                                if row.status
                                in (
                                    Status.FAST,
                                    Status.SLOW,
                                )
                                else "after: other"
                            )
                        else:
                            continue
                        tallies.setdefault(label, Counter())[key] += 1
            ingest(archive, path, commit=f"c{night:03d}", order=night, samples=samples,
                   date=f"2026-01-01T{night // 60:02d}:{night % 60:02d}:00Z")  # fmt: skip
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("directory", type=Path, help="directory of run-01.json, run-02.json ...")
    parser.add_argument("--changed-from", type=int, default=16, help="first changed run (1-based)")
    parser.add_argument(
        "--changed-to",
        type=int,
        help="last run of a creep (record.sh with TO); the gate scores no night before it",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--samples", type=int, default=0, help="ingest --samples N (stored subsamples of times)"
    )
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        print(f"history_gpu: {args.directory}: not a directory", file=sys.stderr)
        return 2
    paths = sorted(args.directory.glob("run-*.json"))
    if len(paths) < args.changed_from + 2:
        print(f"history_gpu: {args.directory}: need at least {args.changed_from + 2} runs "
              f"named run-NN.json, found {len(paths)}", file=sys.stderr)  # fmt: skip
        return 2
    copies: dict[bytes, Path] = {}
    try:
        for path in paths:
            content = path.read_bytes()
            if content in copies:
                print(f"history_gpu: {path}: the same run as {copies[content]}", file=sys.stderr)
                return 2
            copies[content] = path
        medians = _medians(paths)
    except (ResultFormatError, OSError) as error:
        print(f"history_gpu: {error}", file=sys.stderr)
        return 2
    shifted = _shifted(medians, args.changed_from)
    moved = ", ".join(f"{name} {change:+.2%}" for name, change in sorted(shifted.items()))
    print(
        f"{len(paths)} runs of {len(medians)} states; shifted from run {args.changed_from}: {moved}"
    )
    print("\n| runs | shifted, as changes | as candidates | as creeps | other reports | which |")
    print("|---|---|---|---|---|---|")
    detected = _detect_by_prefix(medians, args.changed_from, set(shifted))
    print("\n".join(detected))
    last = args.changed_from if args.changed_to is None else args.changed_to
    tallies = _gate_nights(paths, args.changed_from, last, set(shifted), args.samples)
    print("\ngate, night by night against the archive of the nights before:")
    for label, tally in tallies.items():
        print(f"  {label}: " + ", ".join(f"{key} {count}" for key, count in sorted(tally.items())))
    if args.json is not None:
        data = {"shifted": shifted, "detect": detected, "gate": tallies}
        args.json.write_text(json.dumps(data, indent=1, default=dict), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
