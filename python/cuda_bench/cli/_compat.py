"""What the commands under NVIDIA's names share (``nvbench-compare-robust``,
``nvbench-compare-legacy``, ``nvbench-plot-bwutil``; docs/coinstall.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["compat_note", "print_compat_help", "wants_help"]


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


def print_compat_help(parser: argparse.ArgumentParser, note: str) -> int:
    """``--help`` of a compatible entry point: the note, then the parser's own help."""
    parser.description = f"{note}\n\n{parser.description or ''}".strip()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.print_help()
    return 0
