"""What every comparison does before it matches a single state: start the interpreter,
import the reader and decode each input, as ``nvbench_compare -j 1`` does (each file whole,
with slim summaries: tags and values).

``compare_speed.py`` times this against the comparison itself: what remains is the part of
a comparison that matching, deciding and rendering can still make faster.

    python python/benchmarks/_decode_floor.py REF.json CMP.json
"""

from __future__ import annotations

import sys

from cuda.bench.cli._process import tuned_process
from cuda.bench.compare.api import load_result
from cuda.bench.results import ReadMode


def main(paths: list[str]) -> int:
    # In the process the command runs in (tuned_process), the comparison's own reading.
    with tuned_process():
        results = [load_result(path, mode=ReadMode.SLIM) for path in paths]
        states = sum(len(bench) for result in results for bench in result.benchmarks)
    return 0 if states else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
