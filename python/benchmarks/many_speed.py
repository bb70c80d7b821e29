"""Speed of an N-way comparison against K pairwise ones (issue 18: at most about K times
the pairwise cost, each file read once).

For each scenario, two programs run in fresh interpreters, interleaved (A B, then B A, ...;
``_harness.compare_programs``), with their imports done before the clock starts:

* ``pairwise x K``: ``nvbench_compare REF CAND_i`` for each of the K candidates in turn;
* ``n-way``: ``nvbench_compare REF CAND_1 ... CAND_K`` once.

Both run the command line in process (``cuda.bench.cli.compare.main``, ``--jobs 1``,
``--no-color``, output to ``/dev/null``), so the figures include reading, comparing and
rendering but not interpreter start-up (which K separate processes would pay K times: that
would flatter the N-way run). The figure of merit is the median of the per-round ratios
``n-way / (pairwise x K)``: 1.0 means the matrix costs exactly K pairwise comparisons; below
1.0 the baseline read once pays off. ``n-way / pairwise`` (the ratio divided by K, on the
median of each) says how many pairwise comparisons the matrix costs.

Scenarios (K = 3 unless ``--k``):

* ``gpu``: the real GPU example pair (``../shared/data``), the compare file as every
  candidate;
* ``medium``: generated (``cuda.bench.results.synthetic``, seeded): 4 benchmarks x 250
  states x 1,000 samples with side files, K candidate runs, a few states shifted.

``--against TREE`` also times the N-way run of an earlier version of the package against
this checkout's, interleaved the same way: ``TREE`` holds that version's ``cuda/bench``
(e.g. ``git archive REV python/cuda_bench`` unpacked and moved to ``TREE/cuda/bench``),
put first on the child's ``sys.path``. The figure is the median of the per-round ratios
``n-way (this) / n-way (TREE)``: what a change did to the N-way run, measured directly.

    python python/benchmarks/many_speed.py [--rounds 7] [--k 3] [--keep DIR]
        [--scenarios gpu,medium] [--against TREE]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import Program, compare_programs, ours_python

REPOSITORY = Path(__file__).resolve().parents[2]
SHARED_GPU = REPOSITORY.parent / "shared" / "data" / "nvbench-format-examples" / "gpu"

_SOURCE = r"""
import contextlib, os

def setup():
    # Every module either program uses, so that imports are not timed.
    import cuda.bench.cli.compare, cuda.bench.cli._compare_many
    import cuda.bench.compare.api, cuda.bench.compare.many, cuda.bench.compare.many_gate
    import cuda.bench.report.document, cuda.bench.report.matrix, cuda.bench.report.colors

def run(arguments):
    from cuda.bench.cli.compare import main as cli
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        status = cli(["--jobs", "1", "--no-color", *arguments])
    if status != 0:
        raise SystemExit(f"nvbench_compare {' '.join(arguments)}: exit status {status}")

def main(ref, *candidates):
    MODE
"""
PAIRWISE = Program(
    "pairwise x K",
    ours_python(),
    _SOURCE.replace("MODE", "for candidate in candidates: run([ref, candidate])"),
)
NWAY = Program("n-way", ours_python(), _SOURCE.replace("MODE", "run([ref, *candidates])"))


def older_nway(tree: Path) -> Program:
    """The N-way run with the package found in ``tree`` first (``--against``)."""
    first = f"import sys\nsys.path.insert(0, {str(tree.resolve())!r})\n"
    return Program(f"n-way ({tree.name})", ours_python(), first + NWAY.source)


def generate(directory: Path, k: int) -> list[Path]:
    """The medium scenario's baseline and K candidate runs (reused when present)."""
    ref = directory / "ref.json"  # one reference run: no run number
    cands = [directory / f"cmp_{i}.json" for i in range(k)]
    if ref.exists() and all(path.exists() for path in cands):
        return [ref, *cands]
    directory.mkdir(parents=True, exist_ok=True)
    code = (
        "from cuda.bench.results.synthetic import SyntheticConfig, write_pair\n"
        f"write_pair({str(directory)!r}, SyntheticConfig(benchmarks=4, states=250, "
        f"samples=1000), seed=3, random_shifts=10, ref_runs=1, cmp_runs={k})\n"
    )
    started = time.perf_counter()
    subprocess.run([ours_python(), "-c", code], check=True)
    print(f"medium: generated in {time.perf_counter() - started:.0f} s")
    return [ref, *cands]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--k", type=int, default=3, help="number of candidates")
    parser.add_argument("--keep", type=Path, help="generate the medium inputs here, reuse them")
    parser.add_argument("--scenarios", default="gpu,medium")
    parser.add_argument(
        "--against", type=Path, help="also time this checkout's n-way run against TREE's"
    )
    args = parser.parse_args()
    if args.against is not None and not (args.against / "cuda" / "bench").is_dir():
        parser.error(f"--against: {args.against} holds no cuda/bench")
    if args.k < 2:
        parser.error("--k must be at least 2")
    scenarios = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    with tempfile.TemporaryDirectory(prefix="many_speed_") as scratch:
        root = args.keep or Path(scratch)
        for name in scenarios:
            if name == "gpu":
                if not (SHARED_GPU / "gpu_ref.json").exists():
                    print(f"gpu: skipped ({SHARED_GPU} is absent)")
                    continue
                files = [SHARED_GPU / "gpu_ref.json", *[SHARED_GPU / "gpu_cmp.json"] * args.k]
            elif name == "medium":
                files = generate(root / "medium", args.k)
            else:
                parser.error(f"unknown scenario {name!r}")
            result = compare_programs(PAIRWISE, NWAY, [str(path) for path in files], args.rounds)
            pairwise = statistics.median(m.seconds for m in result.a)
            nway = statistics.median(m.seconds for m in result.b)
            ratio = statistics.median(result.ratios)
            print(f"## {name}: K = {args.k}")
            print(f"  pairwise x K  median {pairwise * 1e3:9.1f} ms")
            print(f"  n-way         median {nway * 1e3:9.1f} ms")
            print(
                f"  median of per-round ratios n-way / (pairwise x K): {ratio:.2f} "
                f"({len(result.ratios)} interleaved rounds; min {min(result.ratios):.2f}, "
                f"max {max(result.ratios):.2f}); n-way = {ratio * args.k:.2f} pairwise "
                "comparisons"
            )
            if args.against is not None:
                older = older_nway(args.against)
                versus = compare_programs(older, NWAY, [str(path) for path in files], args.rounds)
                before = statistics.median(m.seconds for m in versus.a)
                after = statistics.median(m.seconds for m in versus.b)
                change = statistics.median(versus.ratios)
                print(f"  {older.name}  median {before * 1e3:9.1f} ms")
                print(f"  n-way (this)  median {after * 1e3:9.1f} ms")
                print(
                    f"  median of per-round ratios n-way (this) / {older.name}: {change:.2f} "
                    f"({len(versus.ratios)} interleaved rounds; min {min(versus.ratios):.2f}, "
                    f"max {max(versus.ratios):.2f})"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
