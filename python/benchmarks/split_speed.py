"""What splitting a comparison over processes buys: ``nvbench_compare -j 1`` against
``-j N`` (default 2) on the same inputs, in interleaved rounds (A B, then B A, ...), each
run a fresh process; the figure of merit is the median of the per-round time ratios.

Inputs (generated, seeded; reused from ``--keep DIR``): ``wide`` is 20 benchmarks x 500
states without side files (~145 MB of JSON per file, split by benchmark), ``bulk`` one
benchmark of 1,000 states x 10,000 samples with side files (split by row).

    python python/benchmarks/split_speed.py [--rounds 7] [--keep /tmp/splitspeed]
        [--scenarios wide,bulk] [--jobs 2] [--method robust]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _harness import Command, compare_commands, ours_python, report

SCENARIOS: dict[str, tuple[str, str]] = {
    "wide": (
        "benchmarks=20, states=500, samples=100",
        "seed=3, random_shifts=50, jsonbin=False",
    ),
    "bulk": (
        "benchmarks=1, states=1000, samples=10_000",
        "seed=3, random_shifts=20",
    ),
}


def generate(name: str, directory: Path) -> tuple[Path, Path]:
    ref, cmp = directory / "ref.json", directory / "cmp.json"
    if not (ref.exists() and cmp.exists()):
        directory.mkdir(parents=True, exist_ok=True)
        config, options = SCENARIOS[name]
        code = (
            "from cuda.bench.results.synthetic import SyntheticConfig, write_pair\n"
            f"write_pair({str(directory)!r}, SyntheticConfig({config}), {options})\n"
        )
        subprocess.run([ours_python(), "-c", code], check=True)
    return ref, cmp


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    parser.add_argument("--keep", type=Path, help="generate into (and reuse) this directory")
    parser.add_argument("--scenarios", default="wide,bulk", help="comma list of scenarios")
    parser.add_argument("--jobs", default="2", help="the -j of the split runs (default 2)")
    parser.add_argument("--method", default="robust", help="decision method (default robust)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="splitspeed-"))
    for name in args.scenarios.split(","):
        ref, cmp = generate(name, root / name)
        fixed = ("--no-color", "--method", args.method)
        one = Command("-j 1", ours_python(), "cuda.bench.compare", fixed_args=(*fixed, "-j", "1"))
        split = Command(
            f"-j {args.jobs}",
            ours_python(),
            "cuda.bench.compare",
            fixed_args=(*fixed, "-j", args.jobs),
        )
        result = compare_commands(one, split, [str(ref), str(cmp)], args.rounds)
        report(f"{name}: {args.method}, -j 1 against -j {args.jobs}", one, split, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
