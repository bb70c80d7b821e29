"""``nvbench-compare-robust``: NVIDIA's command name for ``nvbench_compare --method robust``.

Every option of NVIDIA's robust script exists in ``nvbench_compare`` with the same meaning
and default; this entry point selects the robust method and gives NVIDIA's exit statuses:
0 when the comparison completed, 1 when it could not (a bad input, a usage problem found
after parsing), 2 for what argparse rejects. ``--fail-on`` still works and then exits 1 when
a condition holds, as it does in ``nvbench_compare``.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Final

from ._common import EXIT_USAGE, prog_name, run
from ._compat import compat_note, print_compat_help, wants_help

__all__ = ["console_main", "main"]

PROG: Final = "nvbench-compare-robust"
#: NVIDIA's robust script exits 1 for every error it reports itself.
NVIDIA_ERROR: Final = 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-compare-robust``; returns the exit status."""
    from . import compare

    arguments = list(sys.argv[1:] if argv is None else argv)
    prog = prog_name(PROG)
    if wants_help(arguments):
        note = compat_note("nvbench-compare-robust", "nvbench_compare --method robust")
        return print_compat_help(compare.build_parser(prog), note)
    flow = functools.partial(compare._main, prog=prog)
    status = run(flow, ["--method", "robust", *arguments], prog)
    return NVIDIA_ERROR if status == EXIT_USAGE else status


def console_main() -> int:
    """The program itself, in a process tuned for one run (as ``nvbench_compare``)."""
    from ._process import tuned_process

    with tuned_process():
        return main()


if __name__ == "__main__":
    sys.exit(console_main())
