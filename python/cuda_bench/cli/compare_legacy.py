"""``nvbench-compare-legacy``: NVIDIA's command name for its original ``nvbench_compare``
script, here ``nvbench_compare --display legacy`` with that script's exit status.

NVIDIA's script exits with the number of failures it counts (:func:`legacy_failure_count`
says how it counts them): a state fails when
the relative difference of the mean GPU times, ``|cmp - ref| / ref``, exceeds the smaller of
the two runs' relative standard deviations (the one present when only one is; a state with
neither is unknown, not a failure). The table and its statuses are nvbench-tools' (the
method ``--method`` names, ``ci`` by default); only the exit status follows NVIDIA's rule, so
scripts that test it keep working. A status above 255 wraps as the operating system wraps
it, as NVIDIA's does. Input and usage errors exit 1, as NVIDIA's script does.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from ._common import prog_name
from ._compat import run_compatible

if TYPE_CHECKING:
    from ..compare.exit_policy import FailOn
    from ..compare.model import Comparison, Row

__all__ = ["console_main", "legacy_failed", "legacy_failure_count", "main"]

PROG: Final = "nvbench-compare-legacy"


def legacy_failed(row: Row) -> bool:
    """Whether NVIDIA's legacy script counts ``row`` as a failure (FAST or SLOW there)."""
    if row.ref is None or row.cmp is None:
        return False
    ref, cmp = row.ref.mean, row.cmp.mean
    if ref is None or cmp is None or not (math.isfinite(ref) and math.isfinite(cmp)) or ref == 0:
        return False
    noises = [n for n in (row.ref.stdev_relative, row.cmp.stdev_relative) if n]
    if not noises:
        return False  # "unknown": no noise to compare the difference with
    return abs((cmp - ref) / ref) > min(noises)


def legacy_failure_count(comparison: Comparison) -> int:
    """How many failures NVIDIA's legacy script counts for the comparison's states.

    That script walks a benchmark's states once per device the benchmark ran on, each time
    over all its states (their names, which carry ``Device=N``, pair them), so on a file of
    two devices every failing state is counted twice: 4 on the two-GPU example pair, whose
    2 changed states are on one device. The count here does the same, so that scripts
    comparing the exit status with a number see NVIDIA's; CPU-only benchmarks (no device)
    count nothing there, and here.
    """
    devices: dict[tuple[int, str], set[int]] = {}
    for row in comparison.rows:
        if row.cmp_device is not None:
            devices.setdefault((row.pair, row.benchmark), set()).add(row.cmp_device)
    return sum(
        len(devices.get((row.pair, row.benchmark), ()))
        for row in comparison.rows
        if legacy_failed(row)
    )


def _legacy_status(comparison: Comparison, fail_on: tuple[FailOn, ...], prog: str) -> int:
    return legacy_failure_count(comparison)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-compare-legacy``; returns the exit status (the failure count)."""
    return run_compatible(
        argv,
        prog=prog_name(PROG),
        nvidia_name=PROG,
        ours="nvbench_compare --display legacy",
        forced=("--display", "legacy"),
        status=_legacy_status,
    )


def console_main() -> int:
    """The program itself, in a process tuned for one run (as ``nvbench_compare``)."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
