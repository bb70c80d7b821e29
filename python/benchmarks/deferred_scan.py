"""What finding each benchmark's states costs in the by-benchmark reader's first pass
(``-b`` comparisons and comparisons split by benchmark): ``scan`` (decode the headers and
search the file's bytes for each benchmark's raw states) against the decode alone, in
interleaved pairs (A B, then B A, ...); the figure of merit is the median of the per-pair
time ratios.

Inputs (generated, seeded, without side files): ``small`` 4 benchmarks x 50 states,
``wide`` 20 benchmarks x 500 states.

    python python/benchmarks/deferred_scan.py [--pairs 21] [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
from cuda.bench.results._deferred import scan
from cuda.bench.results._parse import document_type
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

SCENARIOS = {"small": (4, 50), "wide": (20, 500)}
_DECODER = msgspec.json.Decoder(document_type(msgspec.Raw))


def decode_only(path: Path) -> None:
    document = _DECODER.decode(path.read_bytes())
    del document


def timed(function: Callable[[Path], object], path: Path) -> float:
    start = time.perf_counter()
    function(path)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--pairs", type=int, default=21)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="deferred-scan-"))
    for name, (benchmarks, states) in SCENARIOS.items():
        config = SyntheticConfig(benchmarks=benchmarks, states=states, samples=30)
        path = write_pair(root / name, config, seed=1, jsonbin=False).ref[0]
        scanned = scan(path)
        assert scanned is not None and len(scanned[1]) == benchmarks
        ratios, scans, decodes = [], [], []
        for index in range(args.pairs):
            if index % 2:
                b, a = timed(scan, path), timed(decode_only, path)
            else:
                a, b = timed(decode_only, path), timed(scan, path)
            ratios.append(b / a)
            scans.append(b)
            decodes.append(a)
        print(
            f"{name}: {path.stat().st_size / 1e6:.1f} MB, {benchmarks} benchmarks: "
            f"decode {statistics.median(decodes) * 1e3:.2f} ms, "
            f"scan {statistics.median(scans) * 1e3:.2f} ms, "
            f"scan/decode median {statistics.median(ratios):.3f} ({args.pairs} pairs)"
        )


if __name__ == "__main__":
    main()
