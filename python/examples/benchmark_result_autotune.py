"""Autotune a kernel with ``torch.utils.benchmark``; let ``nvbench_compare``'s verdicts pick.

The kernel is the squared distance ``sum((x - y)**2)`` of two long vectors, computed in
chunks so the ``x - y`` temporary never has to hold the whole vector. The chunk size is the
tuning knob: tiny chunks pay Python and dispatch overhead per chunk, huge chunks make the
temporary fall out of the caches, and in between there is usually a plateau where several
sizes are equally good.

Each candidate is timed with ``torch.utils.benchmark.Timer``: ``blocked_autorange`` first,
which also picks how many executions one timed run needs, then single runs (``timeit``) in
interleaved rounds (A B C, B C A, ...) so that slow drifts of the machine hit every candidate
alike; torch's ``env`` tag names the candidate. The measurements go to one NVBench result
per candidate (``cuda.bench.adapters.torch``), which are read back with
``cuda.bench.results``. The fastest median is the provisional best; every other candidate is
then compared against it with ``cuda.bench.compare.compare`` (the engine of
``nvbench_compare``):

* SLOW versus the best: clearly slower.
* AMBG because of a clear gap that could not be confirmed in SM-clock cycles (reasons
  ``clear_gap_cpu_only``, ``missing_clock_rate``; only with ``--method robust``): also
  counted as slower, and marked so. The ``robust`` method never calls a gap FAST/SLOW
  without clock data, because across two separate runs a host that changed speed looks like
  a code change. Here all candidates are timed interleaved in one process, so a speed change
  hits them alike. (The default ``ci`` method decides such gaps itself, from a confidence
  interval of the ratio.)
* SAME, or AMBG for any other reason: not distinguishable from the best.

The best is a clear winner only when every other candidate is slower; otherwise the
indistinguishable ones are listed and any of them is a fine choice.

With a CUDA build of torch and a GPU present, the kernel runs on the GPU (``--device``).

    python benchmark_result_autotune.py                # a few seconds per candidate
    python benchmark_result_autotune.py --quick        # small sizes, under a few seconds
    nvbench_compare autotune-results/chunk_65536.json autotune-results/chunk_4194304.json
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

LABEL = "chunked_sq_dist"


def chunked_sq_dist(x: Any, y: Any, chunk: int) -> Any:
    """``sum((x - y)**2)``, one chunk of the ``x - y`` temporary at a time."""
    total = x.new_zeros(())
    for start in range(0, x.numel(), chunk):
        difference = x[start : start + chunk] - y[start : start + chunk]
        total += difference.dot(difference)
    return total


@dataclass(frozen=True)
class Candidate:
    chunk: int

    @property
    def env(self) -> str:
        return f"chunk={self.chunk}"

    @property
    def file_name(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]", "_", self.env) + ".json"


#: AMBG reasons that mean "a clear gap, not confirmed in SM-clock cycles" (see above).
UNCONFIRMED_GAP_REASONS = frozenset({"clear_gap_cpu_only", "missing_clock_rate"})


@dataclass(frozen=True)
class Verdict:
    candidate: Candidate
    median: float
    status: str  # the comparison's status versus the best, or "best"
    reason: str

    @property
    def unconfirmed_gap(self) -> bool:
        return self.status == "AMBG" and self.reason in UNCONFIRMED_GAP_REASONS

    @property
    def slower(self) -> bool:
        """Clearly slower than the best (module docstring)."""
        return self.status == "SLOW" or self.unconfirmed_gap


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument(
        "--quick", action="store_true", help="small problem and short timings (for tests)"
    )
    parser.add_argument("--size", type=int, help="vector length (default 2^22, quick 2^18)")
    parser.add_argument(
        "--chunks",
        help="comma list of chunk sizes (default: powers of four from 2^10 up to the size)",
    )
    parser.add_argument(
        "--rounds", type=int, help="interleaved rounds of timing (default 20, quick 8)"
    )
    parser.add_argument(
        "--min-run-time",
        type=float,
        help="seconds of the first round's blocked_autorange (default 0.2, quick 0.02)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where to run: auto uses CUDA when torch has it and a GPU is present",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=Path("autotune-results"),
        help="where the NVBench files go (default: ./autotune-results)",
    )
    parser.add_argument("--method", help="decision method (default: the library's default)")
    parser.add_argument("--preset", help="threshold preset (default, strict, permissive)")
    args = parser.parse_args(argv)
    size = args.size or (1 << 18 if args.quick else 1 << 22)
    if args.chunks:
        chunks = [int(text) for text in args.chunks.split(",")]
    else:
        chunks = [1 << exponent for exponent in range(10, size.bit_length(), 2)]
    if len(chunks) < 2 or min(chunks) < 1:
        parser.error("need at least two positive chunk sizes")
    args.size = size
    args.candidates = [Candidate(chunk) for chunk in dict.fromkeys(chunks)]
    args.rounds = max(1, args.rounds or (8 if args.quick else 20))
    args.min_run_time = args.min_run_time or (0.02 if args.quick else 0.2)
    return args


def choose_device(torch: Any, wanted: str) -> str:
    has_cuda = torch.cuda.is_available()
    if wanted == "cuda" and not has_cuda:
        raise SystemExit("--device cuda: torch cannot use a CUDA device here")
    if wanted == "cpu" or not has_cuda:
        if wanted == "auto":
            why = (
                f"torch {torch.__version__} is a CPU-only build"
                if torch.version.cuda is None
                else "no CUDA device is present"
            )
            print(f"No GPU timing: {why}; timing on the CPU.")
        return "cpu"
    print(f"Timing on {torch.cuda.get_device_name(0)}.")
    return "cuda"


def measure(torch: Any, args: argparse.Namespace, device: str) -> list[Any]:
    """Every candidate's measurements: one blocked_autorange, then interleaved timeit rounds.

    The adapter merges them into one state per candidate (replicates of one task).
    """
    from torch.utils.benchmark import Timer

    generator = torch.Generator().manual_seed(0)
    x = torch.randn(args.size, generator=generator).to(device)
    y = torch.randn(args.size, generator=generator).to(device)
    expected = (x - y).pow(2).sum()
    timers = []
    for candidate in args.candidates:
        # A wrong kernel must never win: check each configuration before timing it.
        got = chunked_sq_dist(x, y, candidate.chunk)
        if not torch.allclose(got, expected, rtol=1e-3):
            raise SystemExit(f"{candidate.env} computes {got.item()}, expected {expected.item()}")
        timers.append(
            Timer(
                "chunked_sq_dist(x, y, chunk)",
                globals={
                    "chunked_sq_dist": chunked_sq_dist,
                    "x": x,
                    "y": y,
                    "chunk": candidate.chunk,
                },
                label=LABEL,
                sub_label=f"n={args.size}",
                description=str(x.dtype).removeprefix("torch."),
                env=candidate.env,
                num_threads=args.threads,
            )
        )
    # Round 0: blocked_autorange picks, per candidate, how many executions one timed run
    # needs so that timer overhead does not matter; its runs are samples too.
    measurements = [timer.blocked_autorange(min_run_time=args.min_run_time) for timer in timers]
    numbers = [measurement.number_per_run for measurement in measurements]
    count = len(timers)
    for round_number in range(1, args.rounds):
        # One run per candidate per round, the order rotated so that no candidate always runs
        # first (warm caches, clock boost) and drifts of the machine hit all of them alike.
        for position in range(count):
            index = (round_number + position) % count
            measurements.append(timers[index].timeit(numbers[index]))
    return measurements


def write_results(
    args: argparse.Namespace, measurements: list[Any], device: str
) -> dict[Candidate, Path]:
    from cuda.bench.adapters.torch import group_by_env, measurements_to_result

    by_env = {candidate.env: candidate for candidate in args.candidates}
    paths: dict[Candidate, Path] = {}
    for env, group in group_by_env(measurements).items():
        candidate = by_env[str(env)]
        path = args.output_dir / candidate.file_name
        measurements_to_result(
            group, path, device=0 if device == "cuda" else None, argv=[sys.argv[0], candidate.env]
        )
        paths[candidate] = path
    return paths


def decide(
    args: argparse.Namespace, paths: dict[Candidate, Path]
) -> tuple[Candidate, list[Verdict]]:
    """The provisional best by median, and every candidate's verdict against it."""
    from cuda.bench.compare import compare
    from cuda.bench.results import BenchmarkResult

    medians: dict[Candidate, float] = {}
    for candidate, path in paths.items():
        centers = BenchmarkResult(path).centers(np.median)[LABEL]
        (median,) = centers.values()  # one state per file: the candidate's
        if median is None:
            raise SystemExit(f"{path} holds no samples")
        medians[candidate] = float(median)
    best = min(medians, key=medians.__getitem__)
    options = {
        key: value for key, value in (("method", args.method), ("preset", args.preset)) if value
    }
    verdicts = []
    for candidate in sorted(medians, key=medians.__getitem__):
        if candidate == best:
            verdicts.append(Verdict(candidate, medians[candidate], "best", ""))
            continue
        comparison = compare(paths[best], paths[candidate], **options)
        (row,) = comparison.rows
        verdicts.append(Verdict(candidate, medians[candidate], str(row.status), str(row.reason)))
    return best, verdicts


def report(best: Candidate, verdicts: list[Verdict]) -> None:
    from cuda.bench.report.format import format_duration

    best_median = next(v.median for v in verdicts if v.candidate == best)
    rows = [("candidate", "median", "vs best", "verdict vs best", "reason")]
    for verdict in verdicts:
        change = "" if verdict.candidate == best else f"{verdict.median / best_median - 1:+.1%}"
        status = verdict.status + (" (gap*)" if verdict.unconfirmed_gap else "")
        rows.append(
            (verdict.candidate.env, format_duration(verdict.median), change, status, verdict.reason)
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    print()
    for row in rows:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print("  ".join(cells).rstrip())
    if any(verdict.unconfirmed_gap for verdict in verdicts):
        print(
            "(gap*) a clear gap without SM-clock confirmation; counted as slower because all "
            "candidates were timed interleaved in one process"
        )
    print()
    ties = [v.candidate.env for v in verdicts if v.candidate != best and not v.slower]
    if ties:
        print(
            f"No clear winner: {', '.join([best.env, *ties])} are not distinguishable "
            f"(SAME or AMBG versus {best.env}); any of them is a fine choice."
        )
    else:
        print(f"Winner: {best.env} (every other candidate is slower).")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        print(
            "This example needs PyTorch: python -m pip install '.[torch]' "
            "(from the nvbench-tools checkout's root)",
            file=sys.stderr,
        )
        return 2
    device = choose_device(torch, args.device)
    chunks = ", ".join(str(c.chunk) for c in args.candidates)
    print(
        f"Timing {LABEL} on {args.size} float32 elements, chunk sizes {chunks}, "
        f"blocked_autorange({args.min_run_time:g} s), then {args.rounds - 1} interleaved "
        "rounds of timeit."
    )
    measurements = measure(torch, args, device)
    paths = write_results(args, measurements, device)
    print(f"Wrote {len(paths)} NVBench result files to {args.output_dir}/")
    best, verdicts = decide(args, paths)
    report(best, verdicts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
