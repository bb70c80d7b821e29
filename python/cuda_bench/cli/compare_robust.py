"""``nvbench-compare-robust``: NVIDIA's command name for ``nvbench_compare --method robust``.

Every option of NVIDIA's robust script exists in ``nvbench_compare`` with the same meaning
and default; this entry point selects the robust method and gives NVIDIA's exit statuses:
0 when the comparison completed, 1 when it could not (a bad input, a usage problem found
after parsing), 2 for what argparse rejects. ``--fail-on`` still works and then exits 1 when
a condition holds, as it does in ``nvbench_compare``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final

from ._common import prog_name
from ._compare_outputs import method_help
from ._compat import run_compatible

__all__ = ["console_main", "main"]

PROG: Final = "nvbench-compare-robust"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-compare-robust``; returns the exit status."""
    return run_compatible(
        argv,
        prog=prog_name(PROG),
        nvidia_name=PROG,
        ours="nvbench_compare --method robust",
        forced=("--method", "robust"),
        statuses=(
            "Exit status (NVIDIA's): 0 when the comparison completed, 1 for an error found "
            "after the arguments were parsed (a missing or bad file, a bad filter) and when "
            "a --fail-on condition holds, 2 for what argparse rejects."
        ),
        helps={"method": method_help(default="robust")},
    )


def console_main() -> int:
    """The program itself, in a process tuned for one run (as ``nvbench_compare``)."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
