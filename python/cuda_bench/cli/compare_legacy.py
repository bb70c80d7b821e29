"""``nvbench-compare-legacy``: NVIDIA's command name for its original ``nvbench_compare``
script: the ``--display legacy`` table with that script's statuses and exit status.

The statuses follow NVIDIA's legacy rule (:mod:`cuda.bench.compare.methods.legacy`): a state
is FAST or SLOW when the relative difference of the means, ``|cmp - ref| / ref``, exceeds
the smaller relative standard deviation the runs record, SAME when it does not, ``????``
when no usable deviation is recorded. ``nvbench_compare --display legacy`` shows the same
table with nvbench-tools' verdicts (``--method``). The exit status is the number of
failures NVIDIA's script counts (:func:`legacy_failure_count` says how it counts them). A
status above 255 wraps as the operating system wraps it, as NVIDIA's does. Input and usage
errors exit 1, as NVIDIA's script does.
"""

from __future__ import annotations

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
    """Whether NVIDIA's legacy rule makes ``row`` a failure (FAST or SLOW there), whatever
    method decided the row."""
    from ..compare.methods.legacy import legacy_verdict
    from ..compare.model import Status

    if row.ref is None or row.cmp is None:
        return False
    return legacy_verdict(row.ref, row.cmp).status in (Status.FAST, Status.SLOW)


def legacy_failure_count(comparison: Comparison) -> int:
    """How many failures NVIDIA's legacy script counts for the comparison's states.

    That script walks a benchmark's states once per device the benchmark ran on, each time
    over all its states (their names, which carry ``Device=N``, pair them), so on a file of
    two devices every failing state is counted twice: 4 on the two-GPU example pair, whose
    2 changed states are on one device. The count here does the same, so that scripts
    comparing the exit status with a number see NVIDIA's. NVIDIA's script stops on
    CPU-only benchmarks (they name no device); here each of their failing states counts
    once, so that every FAST or SLOW the table shows is in the count.
    """
    devices: dict[tuple[int, str], set[int]] = {}
    for row in comparison.rows:
        if row.cmp_device is not None:
            devices.setdefault((row.pair, row.benchmark), set()).add(row.cmp_device)
    return sum(
        len(devices.get((row.pair, row.benchmark), ())) if row.cmp_device is not None else 1
        for row in comparison.rows
        if legacy_failed(row)
    )


def _legacy_status(comparison: Comparison, fail_on: tuple[FailOn, ...], prog: str) -> int:
    return legacy_failure_count(comparison)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-compare-legacy``; returns the exit status (the failure count)."""
    from ..compare.methods.legacy import LEGACY
    from ._compare_parser import FAIL_ON_CHOICES

    return run_compatible(
        argv,
        prog=prog_name(PROG),
        nvidia_name=PROG,
        ours=(
            "the nvbench_compare --display legacy table with NVIDIA's legacy statuses; "
            "nvbench_compare --display legacy shows our verdicts there"
        ),
        forced=("--display", "legacy"),
        status=_legacy_status,
        method=LEGACY,
        statuses=(
            "Exit status (NVIDIA's): the number of failures NVIDIA's original script counts "
            "(FAST or SLOW states by its legacy rule, once per device of their benchmark; "
            "above 255 it wraps), whatever --fail-on says; 1 for an input error, 2 for what "
            "argparse rejects."
        ),
        helps={
            "method": None,  # refused: NVIDIA's legacy rule decides
            "display": (
                "table layout: legacy (means and relative stdevs; the default here), "
                "intervals, simple or explain"
            ),
            "fail_on": (
                f"name the rows matching a condition (a comma list of "
                f"{', '.join(FAIL_ON_CHOICES)}) in the summary and reports; it does not set "
                "the exit status here, which is the legacy failure count; repeatable"
            ),
        },
    )


def console_main() -> int:
    """The program itself, in a process tuned for one run (as ``nvbench_compare``)."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
