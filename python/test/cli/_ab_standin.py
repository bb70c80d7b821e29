"""A stand-in for an NVBench executable, for the tests of ``nvbench_compare ab``.

``python _ab_standin.py --counter FILE [--change F] [--drift A] [...] --jsonbin PATH``
writes an NVBench JSON file with side files through ``cuda.bench.results``' writer. Every
invocation bumps the shared counter in FILE (its "time"); the machine drifts with that time
(a sinusoid of amplitude A, common to whichever build runs), and ``--change F`` multiplies
the cost of every other state by F (the known change). Misbehaviour on demand:
``--fail-at K`` exits 3 on invocation K (after writing ``--fail-text`` to stderr),
``--no-json-at K`` exits 0 without writing, ``--garbage-at K`` writes a file that is not
JSON, ``--sleep S`` sleeps before writing; ``--bench-name`` names the benchmark;
``--leave-child FILE`` starts a ``sleep`` that outlives the run (its process id appended to
FILE), as a benchmark script that starts a helper in the background would.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--jsonbin", required=True)
    parser.add_argument("--counter", required=True)
    parser.add_argument("--change", type=float, default=1.0)
    parser.add_argument("--drift", type=float, default=0.04)
    parser.add_argument("--speed", type=float, default=0.15)
    parser.add_argument("--states", type=int, default=6)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--fail-at", type=int, default=-1)
    parser.add_argument("--no-json-at", type=int, default=-1)
    parser.add_argument("--garbage-at", type=int, default=-1)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--fail-text", default="standin: simulated CUDA error: out of memory")
    parser.add_argument("--bench-name", help="the benchmark's name in the JSON written")
    parser.add_argument("--leave-child", help="start a sleep that outlives the run")
    # Per-run, per-state jitter (log standard deviation) that is not common-mode.
    parser.add_argument("--jitter", type=float, default=0.0)
    # The first run of a cold machine: its times multiplied by this.
    parser.add_argument("--cold", type=float, default=1.0)
    parser.add_argument("-b", dest="bench", default=None)  # a BENCH_ARG, recorded only
    args = parser.parse_args()

    counter = Path(args.counter)
    count = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(count + 1))
    if count == args.fail_at:
        print(args.fail_text, file=sys.stderr)
        return 3
    if args.sleep:
        time.sleep(args.sleep)
    if count == args.no_json_at:
        return 0
    target = Path(args.jsonbin)
    if count == args.garbage_at:
        target.write_text("{ this is not json")
        return 0

    from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_run

    config = SyntheticConfig(benchmarks=1, states=args.states, samples=args.samples)
    drift = 1.0 + args.drift * math.sin(args.speed * count)
    if count == 0:
        drift *= args.cold
    noise = random.Random(count)
    shifts = {
        key: drift
        * (args.change if index % 2 == 0 else 1.0)
        * math.exp(noise.gauss(0.0, args.jitter) if args.jitter else 0.0)
        for index, key in enumerate(state_keys(config))
    }
    write_run(target, config, seed=7, side="ref", run=count, shifts=shifts)
    if args.leave_child:
        import subprocess

        child = subprocess.Popen(
            ["sleep", "60"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with open(args.leave_child, "a", encoding="utf-8") as pids:
            pids.write(f"{child.pid}\n")
    if args.bench_name is not None:
        import json

        document = json.loads(target.read_text())
        document["benchmarks"][0]["name"] = args.bench_name
        target.write_text(json.dumps(document))
    return 0


if __name__ == "__main__":
    sys.exit(main())
