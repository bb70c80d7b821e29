"""What the commands under NVIDIA's names share (``nvbench-compare-robust``,
``nvbench-compare-legacy``, ``nvbench-plot-bwutil``; docs/coinstall.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ..compare.methods import Method
    from .compare import StatusRule

__all__ = ["NVIDIA_ERROR", "compat_note", "print_compat_help", "run_compatible", "wants_help"]

#: NVIDIA's compare scripts exit 1 for every error they report themselves.
NVIDIA_ERROR: Final = 1


def compat_note(nvidia_name: str, ours: str, *, shared: bool = True) -> str:
    """The first paragraph of each such command's ``--help``; ``shared``: cuda-bench installs
    a console script of the same name."""
    note = (
        f"The entry point compatible with NVIDIA's {nvidia_name} (cuda-bench): its options, "
        f"defaults and exit statuses, on nvbench-tools' engine ({ours})."
    )
    if shared:
        note += (
            f" Where cuda-bench is installed after nvbench-tools, the {nvidia_name} on PATH "
            "is NVIDIA's (docs/coinstall.md)."
        )
    return note


def wants_help(argv: Sequence[str] | None) -> bool:
    """Whether the arguments ask for ``--help`` (before ``--``, as argparse reads them)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    for argument in arguments:
        if argument == "--":
            return False
        if argument in ("-h", "--help"):
            return True
    return False


def print_compat_help(
    parser: argparse.ArgumentParser,
    note: str,
    statuses: str | None = None,
    helps: Mapping[str, str | None] | None = None,
) -> int:
    """``--help`` of a compatible entry point: the note, then the parser's own help, its
    closing lines saying the entry point's own ``statuses`` where given (nvbench_compare's
    "1 when a --fail-on condition holds, 2 for usage or input errors" is not NVIDIA's);
    ``helps``: the options (by ``dest``) that do something else here, with what they do
    (``None``: refused here, left out of the help)."""
    for action in parser._actions:
        if helps is not None and action.dest in helps:
            changed = helps[action.dest]
            action.help = argparse.SUPPRESS if changed is None else changed
    parser.description = f"{note}\n\n{parser.description or ''}".strip()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if statuses is not None:
        import textwrap

        parser.epilog = textwrap.fill(statuses, width=80)  # raw text: wrapped here
    parser.print_help()
    return 0


def run_compatible(
    argv: Sequence[str] | None,
    *,
    prog: str,
    nvidia_name: str,
    ours: str,
    forced: Sequence[str],
    status: StatusRule | None = None,
    method: Method | None = None,
    statuses: str | None = None,
    helps: Mapping[str, str | None] | None = None,
) -> int:
    """``nvbench_compare`` with the options ``forced`` (``--method robust``, ...) under
    NVIDIA's command name: its ``--help`` note, ``status`` as the exit status rule, and
    NVIDIA's error status 1 where ``run`` reports an input or usage error; ``method`` decides
    the rows in place of ``--method`` (NVIDIA's legacy rule, which is no ``--method`` choice);
    ``statuses``: the exit statuses its ``--help`` ends with; ``helps``: the options whose
    help says something else here (:func:`print_compat_help`)."""
    from . import compare
    from ._common import EXIT_USAGE, run
    from ._compare_outputs import exit_status

    arguments = list(sys.argv[1:] if argv is None else argv)
    if wants_help(arguments):
        # Through run(): a help that cannot be written (> /dev/full) is an error, not 0.
        shown = run(
            lambda _: print_compat_help(
                compare.build_parser(prog), compat_note(nvidia_name, ours), statuses, helps
            ),
            None,
            prog,
        )
        return NVIDIA_ERROR if shown == EXIT_USAGE else shown
    rule = exit_status if status is None else status
    finished: list[int] = []

    def flow(args: Sequence[str] | None) -> int:
        code = compare._main(args, rule, prog, method)
        finished.append(code)
        return code

    code = run(flow, [*forced, *arguments], prog)
    # Only an error run() caught is NVIDIA's 1: a legacy failure count may be 2 as well.
    return NVIDIA_ERROR if not finished and code == EXIT_USAGE else code
