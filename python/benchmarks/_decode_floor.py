"""What every comparison does before it matches a single state: start the interpreter,
import the reader and decode each input whole, as ``nvbench_compare`` does.

``compare_speed.py`` times this against the comparison itself: what remains is the part of
a comparison that matching, deciding and rendering can still make faster.

    python python/benchmarks/_decode_floor.py REF.json CMP.json
"""

from __future__ import annotations

import gc
import sys

from cuda.bench.cli.compare import _keep_freed_memory
from cuda.bench.compare.api import load_result


def main(paths: list[str]) -> int:
    # As the command does: the collector paused, malloc told to keep what is freed, and
    # what was built left to the system at exit (not freed object by object).
    gc.disable()
    _keep_freed_memory()
    # The comparison's own call: every summary decoded in one pass from a map of the file.
    results = [load_result(path, lazy=False) for path in paths]
    gc.freeze()
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
