"""Load speed and peak memory of ``cuda.bench.results``: ours against NVIDIA's cuda-bench 0.3.0.

Two inputs, generated with our synthetic writer:

* ``wide``: 20 benchmarks x 500 states, no side files (the JSON alone is ~150 MB);
* ``bulk``: 1 benchmark x 1,000 states x 10,000 samples, with ``--jsonbin`` side files.

Imports happen before the clock starts (``import cuda.bench.results`` is timed on its own
at the end). Each program runs in a fresh interpreter, interleaved with the other
(A B, B A, ...); the
printed ratio is the median of the per-round ratios. Upstream lives in its own virtual
environment because both packages provide ``cuda.bench``::

    python -m venv /tmp/upstream && /tmp/upstream/bin/pip install 'cuda-bench[tools]==0.3.0'
    python python/benchmarks/load_speed.py --upstream-python /tmp/upstream/bin/python

Without upstream it prints our figures only. ``--rounds`` sets the number of rounds.
Also printed: what decoding costs with the standard library's ``json`` versus msgspec,
which is why msgspec is a core dependency.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _harness import Program, compare_programs, find_upstream_python, ours_python, report, run_once

OURS_LOAD = """
def setup():
    import cuda.bench.results

def main(path):
    from cuda.bench.results import BenchmarkResult
    result = BenchmarkResult(path)
    assert sum(len(bench) for bench in result.benchmarks) > 0
"""

OURS_LOAD_ALL_SAMPLES = """
def setup():
    import cuda.bench.results
    import numpy  # imported on first use by ours, at import by upstream: untimed for both

def main(path):
    from cuda.bench.results import BenchmarkResult
    result = BenchmarkResult(path)
    total = sum(state.samples.size for state in result.states() if state.samples is not None)
    assert total > 0
"""

UPSTREAM_LOAD = """
def setup():
    import cuda.bench.results

def main(path):
    from cuda.bench.results import BenchmarkResult
    result = BenchmarkResult.from_json(path)
    assert sum(len(bench) for bench in result.values()) > 0
"""

STDLIB_JSON = """
def main(path):
    import json
    with open(path, "rb") as stream:
        json.loads(stream.read())
"""

MSGSPEC_TYPED = """
def setup():
    import cuda.bench.results._parse

def main(path):
    from cuda.bench.results._parse import read_document
    read_document(path)
"""


def generate(directory: Path) -> tuple[Path, Path]:
    from cuda.bench.results.synthetic import SyntheticConfig, write_run

    wide = directory / "wide.json"
    bulk = directory / "bulk.json"
    started = time.perf_counter()
    write_run(wide, SyntheticConfig(benchmarks=20, states=500, samples=100), seed=1, jsonbin=False)
    write_run(bulk, SyntheticConfig(benchmarks=1, states=1000, samples=10_000), seed=2)
    print(
        f"generated inputs in {time.perf_counter() - started:.1f} s: "
        f"wide.json {wide.stat().st_size / 1e6:.0f} MB; bulk.json "
        f"{bulk.stat().st_size / 1e6:.1f} MB + {len(list((directory / 'bulk.json-bin').iterdir()))}"
        " sample files + frequency files"
    )
    return wide, bulk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--upstream-python", help="python of a venv with cuda-bench==0.3.0")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="generate into (and keep) this directory")
    args = parser.parse_args()
    upstream = find_upstream_python(args.upstream_python)
    ours = ours_python()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        wide, bulk = generate(directory)
        ours_load = Program("ours (nvbench-tools)", ours, OURS_LOAD)
        ours_all = Program("ours + every sample read", ours, OURS_LOAD_ALL_SAMPLES)
        figures = {}
        if upstream is None:
            print("NVIDIA's cuda-bench not found (see --upstream-python); our figures only")
            for title, path in (("wide: 20 x 500, no side files", wide), ("bulk", bulk)):
                measured = [run_once(ours_load, [str(path)]) for _ in range(args.rounds)]
                best = sorted(m.seconds for m in measured)[len(measured) // 2]
                print(
                    f"## {title}: median {best * 1e3:.1f} ms, peak "
                    f"{max(m.peak_mib for m in measured):.1f} MiB"
                )
            return 0
        theirs = Program("NVIDIA cuda-bench 0.3.0", upstream, UPSTREAM_LOAD)
        print(f"ours: {ours}\nupstream: {upstream}\n")
        figures["wide"] = report(
            "20 benchmarks x 500 states, no side files (load)",
            ours_load,
            theirs,
            compare_programs(ours_load, theirs, [str(wide)], args.rounds),
        )
        figures["bulk"] = report(
            "1 benchmark x 1,000 states x 10,000 samples, side files (load; ours lazy)",
            ours_load,
            theirs,
            compare_programs(ours_load, theirs, [str(bulk)], args.rounds),
        )
        figures["bulk_all"] = report(
            "same, ours reading every sample and frequency file too",
            ours_all,
            theirs,
            compare_programs(ours_all, theirs, [str(bulk)], args.rounds),
        )
        stdlib = Program("stdlib json.loads (decode only)", ours, STDLIB_JSON)
        typed = Program("msgspec typed decode", ours, MSGSPEC_TYPED)
        figures["decoder"] = report(
            "decoder choice on wide.json (why msgspec is a dependency)",
            typed,
            stdlib,
            compare_programs(typed, stdlib, [str(wide)], max(3, args.rounds // 2)),
        )
    targets = (
        ("no side files >= 3x faster", figures["wide"]["ratio"] >= 3),
        ("side files (lazy) >= 10x faster", figures["bulk"]["ratio"] >= 10),
        (
            "peak memory no higher (wide)",
            figures["wide"]["a_peak_mib"] <= figures["wide"]["b_peak_mib"],
        ),
        (
            "peak memory no higher (bulk)",
            figures["bulk"]["a_peak_mib"] <= figures["bulk"]["b_peak_mib"],
        ),
    )
    print("\ntargets:")
    for name, met in targets:
        print(f"  [{'met' if met else 'MISSED'}] {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
