"""`detect` on short histories scanned many states at a time, as a young archive holds them.

    python python/benchmarks/history_short.py              # 60 groups per case (2 minutes)
    python python/benchmarks/history_short.py --groups 20  # a rough look

Per noise shape of :mod:`cuda.bench.history.synthetic` (1 % run-to-run noise) and length
(20, 30, 50 runs): ``--groups`` groups of 21 states scanned together. ``FA``: the share of
states of pure noise with a change or a creep; ``R5``: the same noise with a 5 % step in 7 of
the 21 states 8 runs before the end, the share of those steps reported within 2 runs (a
change; 8 runs after it, no longer a candidate). The pooled correlation and its floor act
across the 21 states, which is where a short series' step once raised the floor of its own
null (``docs/history-detection-record.md``, *A real GPU history*).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from cuda.bench.history import RunSeries, detect
from cuda.bench.history.synthetic import HistoryNoise

CASES = (("iid", 0.5), ("ar1", 0.5), ("ar1", 0.8), ("bimodal", 0.5), ("outliers", 0.5))
STATES, STEPPED, STEP, BEFORE_END = 21, 7, 0.05, 8


def _case(case: int, runs: int, groups: int) -> tuple[float, float]:
    kind, rho = CASES[case]
    alarms = found = 0
    for group in range(groups):
        rng = np.random.default_rng([runs, group, case])
        logs = HistoryNoise(kind, rho=rho).draw(rng, STATES, runs)
        pure = detect([RunSeries(f"s{i}", np.exp(logs[i])) for i in range(STATES)])
        alarms += len({c.series for c in pure.changes} | {c.series for c in pure.creeps})
        at = runs - BEFORE_END
        logs[:STEPPED, at:] += STEP
        stepped = detect([RunSeries(f"s{i}", np.exp(logs[i])) for i in range(STATES)])
        found += sum(
            1 for c in stepped.changes if int(c.series[1:]) < STEPPED and abs(c.index - at) <= 2
        )
    return alarms / (STATES * groups), found / (STEPPED * groups)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--groups", type=int, default=60, help="groups of 21 states per case")
    args = parser.parse_args(argv)
    if args.groups < 1:
        parser.error("--groups must be at least 1")
    print("| noise | " + " | ".join(f"{n} runs: FA / R5" for n in (20, 30, 50)) + " |")
    print("|---|---|---|---|")
    for case, (kind, rho) in enumerate(CASES):
        cells = []
        for runs in (20, 30, 50):
            alarm, recall = _case(case, runs, args.groups)
            cells.append(f"{alarm:.1%} / {recall:.1%}")
        label = f"{kind} (rho {rho})" if kind == "ar1" else kind
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
