"""``nvbench_compare`` options about what the tables and reports show, and the checks that
a run compared something and may write where it was told to.

Kept apart from :mod:`.compare` (the program's steps) so that each stays small; nothing
here imports the engine at module level, so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from ..compare.choices import DEFAULT_METHOD, METHOD_NAMES
from ._common import UsageError

if TYPE_CHECKING:
    from ..compare.exit_policy import FailOn
    from ..compare.model import Comparison
    from ..report.colors import StatusStyle
    from ..report.document import DocumentOptions

__all__ = [
    "METHOD_HELP",
    "SORT_CHOICES",
    "add_markdown_limit_argument",
    "add_table_arguments",
    "check_output_paths",
    "document_options",
    "method_help",
    "nothing_compared",
]

#: ``--sort`` choices (:class:`cuda.bench.report.tables.RowOrder`), as text for ``--help``.
SORT_CHOICES: Final = ("change", "name")

#: One line per decision method for ``--method``'s help (a test keeps it in step with
#: :data:`cuda.bench.compare.choices.METHOD_NAMES`).
METHOD_HELP: Final = {
    "ci": "bootstrap confidence interval of the change held against a tolerance band; "
    "uses several runs per side and calibrations",
    "robust": "decides exactly like NVIDIA's nvbench-compare-robust",
}


def method_help() -> str:
    """The help text of ``--method``: every method with what it does, the default marked."""
    listed = "; ".join(
        f"{name}{' (default)' if name == DEFAULT_METHOD else ''}: {METHOD_HELP[name]}"
        for name in METHOD_NAMES
    )
    return f"decision method, one of {', '.join(METHOD_NAMES)} -- {listed}"


def add_table_arguments(group: argparse._ArgumentGroup) -> None:
    """``--show-skipped``, ``--only-changed`` and ``--sort`` (tables only; counts, reports
    and ``--fail-on`` always see every row)."""
    group.add_argument(
        "--show-skipped",
        action="store_true",
        help=(
            "list the states the benchmark skipped in both runs (SKIP) in the tables; "
            "by default the summary counts them by skip reason"
        ),
    )
    group.add_argument(
        "--only-changed",
        action="store_true",
        help="tables show only FAST, SLOW, ????, ADDED and REMOVED rows (hide SAME and AMBG)",
    )
    group.add_argument(
        "--sort",
        choices=SORT_CHOICES,
        help=(
            "order of the rows in each table: change (most slowed down first) or name "
            "(state name); default: as in the result files"
        ),
    )


def _markdown_limit(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of characters or 'none', got {text!r}"
        ) from None
    if value < 1000:
        raise argparse.ArgumentTypeError(f"must be at least 1000 characters, got {text!r}")
    return value


def add_markdown_limit_argument(group: argparse._ArgumentGroup) -> None:
    """``--markdown-limit N|none`` (default: a GitHub comment's 65,536 characters)."""
    group.add_argument(
        "--markdown-limit",
        metavar="N|none",
        type=_markdown_limit,
        default=65_536,
        help=(
            "longest --markdown report in characters: headline, counts and regressions "
            "first, then as many benchmarks as fit, and a line saying how many rows were "
            "left out (default: %(default)s, what a GitHub comment holds; none: no limit)"
        ),
    )


def document_options(
    args: argparse.Namespace, style: StatusStyle, fail_on: tuple[FailOn, ...] = ()
) -> DocumentOptions:
    """The terminal document's options from the command line."""
    from ..report.document import DocumentOptions

    return DocumentOptions(
        display=args.display,
        style=style,
        min_change=args.threshold_diff / 100.0,
        fail_on=fail_on,
        show_skipped=args.show_skipped,
        only_changed=args.only_changed,
        order=args.sort,
    )


def check_output_paths(outputs: Iterable[tuple[str, str | None]], args: argparse.Namespace) -> None:
    """Raise :class:`UsageError` for a report ``(option, path)`` or ``--plot-output`` that
    cannot be written without creating a directory (``-`` and ``None`` are skipped);
    checked before any comparison, so a typo costs no time."""
    from .._io import check_destination

    for option, path in [*outputs, ("--plot-output", args.plot_output)]:
        if path is None or path == "-" or not path:
            continue
        try:
            check_destination(path)
        except OSError as error:
            raise UsageError(f"{option}: {path}: {error.strerror or error}") from None


def _names(paths: Iterable[str]) -> str:
    return ", ".join(f"'{os.path.basename(path)}'" for path in paths)


def nothing_compared(comparison: Comparison) -> str | None:
    """Why ``comparison`` compared nothing (one line), or ``None`` when it compared a state.

    A comparison compares something when some row has two sides that the benchmark did
    not skip. States on one side only (ADDED/REMOVED) are differences ``--fail-on
    missing`` must see, but alone they compare nothing: a compare file without benchmarks
    would otherwise pass every gate.
    """
    from ..compare.model import Status
    from ..compare.skipped import skip_reasons

    counts = comparison.counts
    removed, added, skipped = counts[Status.REMOVED], counts[Status.ADDED], counts[Status.SKIP]
    if len(comparison.rows) > removed + added + skipped:
        return None
    ref = [path for pair in comparison.inputs for path in pair.ref]
    cmp = [path for pair in comparison.inputs for path in pair.cmp]
    selected = " selected" if comparison.filters else ""
    if removed or added:
        if removed and not added and not skipped:
            return (
                f"nothing was compared: {_names(cmp)} contain(s) no{selected} benchmarks "
                f"({removed} state(s) of {_names(ref)} have no counterpart)"
            )
        if added and not removed and not skipped:
            return (
                f"nothing was compared: {_names(ref)} contain(s) no{selected} benchmarks "
                f"({added} state(s) of {_names(cmp)} have no counterpart)"
            )
        return (
            f"nothing was compared: no{selected} state was measured in both "
            f"{_names(ref)} and {_names(cmp)} ({removed} only in the reference, {added} "
            f"only in the compare run, {skipped} skipped in both)"
        )
    if skipped:
        reasons = "; ".join(f"{count}: {text}" for text, count in skip_reasons(comparison))
        return (
            f"nothing was compared: all {skipped} state(s) were skipped by the benchmark in "
            f"both runs ({reasons})"
        )
    if comparison.unpaired_files and not comparison.inputs:
        return (
            "nothing was compared: no reference file has a compare file of the same name "
            f"({len(comparison.unpaired_files)} unpaired file(s))"
        )
    if comparison.benchmarks:
        return "nothing was compared: the selected benchmarks have no states"
    return f"nothing was compared: {_names(ref)} and {_names(cmp)} contain no benchmarks"
