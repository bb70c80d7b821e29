"""``nvbench_compare`` options about what the tables, reports and plots show, the checks
that a run compared something and may write where it was told to, and the rendering of
the requested reports.

Kept apart from :mod:`.compare` (the program's steps) so that each stays small; nothing
here imports the engine at module level, so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, NamedTuple

from .._deps import install_hint
from ..compare.choices import DEFAULT_METHOD, METHOD_NAMES
from ._common import STDOUT, UsageError, say

if TYPE_CHECKING:
    from ..compare.exit_policy import FailOn
    from ..compare.model import Comparison
    from ..report.colors import StatusStyle
    from ..report.document import DocumentOptions

__all__ = [
    "METHOD_HELP",
    "SORT_CHOICES",
    "STDOUT",
    "Output",
    "add_markdown_limit_argument",
    "add_plot_arguments",
    "add_table_arguments",
    "check_output_paths",
    "document_options",
    "exit_status",
    "fail_on_conditions",
    "method_help",
    "nothing_compared",
    "render_texts",
    "requested_outputs",
]

_STDOUT = STDOUT

#: ``--sort`` choices (:class:`cuda.bench.report.tables.RowOrder`), as text for ``--help``.
SORT_CHOICES: Final = ("change", "name")

#: One line per decision method for ``--method``'s help (a test keeps it in step with
#: :data:`cuda.bench.compare.choices.METHOD_NAMES`).
METHOD_HELP: Final = MappingProxyType(
    {
        "ci": "bootstrap confidence interval of the change held against a tolerance band; "
        "uses several runs per side and calibrations",
        "robust": "decides exactly like NVIDIA's nvbench-compare-robust",
    }
)


def method_help(default: str = DEFAULT_METHOD) -> str:
    """The help text of ``--method``: every method with what it does, ``default`` marked."""
    listed = "; ".join(
        f"{name}{' (default)' if name == default else ''}: {METHOD_HELP[name]}"
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
    from .._io import check_writable, probe_folder

    figures = [("--plot-output", args.plot_output), ("--heatmap", getattr(args, "heatmap", None))]
    for option, path in [*outputs, *figures]:
        if path is None or path == "-" or not path:
            continue
        try:
            check_writable(path)
        except OSError as error:
            raise UsageError(f"{option}: {path}: {error.strerror or error}") from None
    template = getattr(args, "plot_along_output", None)
    if template:
        # The directories before the first field are known now; a missing one would
        # otherwise be found only after the comparison.
        fixed = os.path.dirname(template.split("{", 1)[0])
        if fixed and not os.path.isdir(fixed):
            raise UsageError(f"--plot-along-output: directory '{fixed}' does not exist")
        try:
            probe_folder(fixed or ".")
        except OSError as error:
            raise UsageError(f"--plot-along-output: {error.filename}: {error.strerror}") from None


def check_output_file(option: str, path: str) -> None:
    """Raise :class:`UsageError` naming ``option`` when the file ``path`` cannot be written
    (a directory, in a directory that does not exist or takes no new file, read-only:
    :func:`~cuda.bench._io.check_writable`): for commands that work long before they
    write (``calibrate -o``, ``ab --write-calibration``)."""
    from .._io import check_writable

    try:
        check_writable(path)
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


# ---------------------------------------------------------------------------------------
# The reports to write


class Output(NamedTuple):
    """A report to write: the option that asked for it and its path."""

    option: str
    path: str


def fail_on_conditions(args: argparse.Namespace) -> tuple[FailOn, ...]:
    """The ``--fail-on`` conditions of every occurrence of the option, each once, in the
    order given."""
    return tuple(dict.fromkeys(c for group in args.fail_on for c in group))


def exit_status(comparison: Comparison, fail_on: tuple[FailOn, ...], prog: str) -> int:
    """1 when a ``--fail-on`` condition holds for ``comparison`` (its causes told on
    stderr), else 0."""
    from ..compare.exit_policy import evaluate

    outcome = evaluate(comparison, fail_on)
    if outcome.failed:
        causes = "; ".join(
            f"{failure.condition.option}: {failure.count}" for failure in outcome.failures
        )
        say(f"{prog}: failed ({causes}); the summary names the rows")
    return outcome.exit_status


def _names_stdout(path: str) -> bool:
    """Whether ``path`` is this process's standard output under another name
    (``/dev/stdout``, ``/proc/self/fd/1``, or the file stdout is redirected to): such a
    report is one on stdout, as ``-`` is, so that the tables do not follow it there and a
    second report there is refused (``--json /dev/stdout | jq`` got the JSON, then the
    tables)."""
    if path == _STDOUT or not path:
        return False
    try:
        named, out = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False  # no such file yet, or no real stdout (captured): not stdout
    return (named.st_dev, named.st_ino) == (out.st_dev, out.st_ino)


def requested_outputs(args: argparse.Namespace) -> list[Output]:
    """The requested reports; at most one on stdout, no path twice, no directory."""
    outputs = [
        Output(f"--{option}", _STDOUT if _names_stdout(path) else path)
        for option in ("json", "csv", "markdown", "html")
        if (path := getattr(args, option)) is not None
    ]
    debug = args.bulk_debug_python
    if debug is not None:
        # Upstream's spelling of standard output is "stdout" in any case.
        path = _STDOUT if debug.lower() == "stdout" else debug
        outputs.append(Output("--bulk-debug-python", path))
    to_stdout = [output.option for output in outputs if output.path == _STDOUT]
    if len(to_stdout) > 1:
        raise UsageError(
            f"only one report can go to standard output, got {' and '.join(to_stdout)}"
        )
    seen: dict[str, str] = {}
    for output in outputs:
        if output.path == _STDOUT:
            continue
        if not output.path:
            raise UsageError(f"{output.option} needs a file path or '-'")
        if os.path.isdir(output.path):
            raise UsageError(f"{output.option}: '{output.path}' is a directory")
        real = os.path.realpath(output.path)
        if real in seen:
            raise UsageError(f"{seen[real]} and {output.option} both write '{output.path}'")
        seen[real] = output.option
    return outputs


def render_texts(
    comparison: Comparison,
    args: argparse.Namespace,
    outputs: Sequence[Output],
    fail_on: tuple[FailOn, ...],
) -> list[tuple[str, str]]:
    """``(target, text)`` of everything to write, rendered before anything is written."""
    # Each report's renderer is imported only when asked for: imports are most of the
    # time of a small comparison.
    from ..report.colors import color_enabled, status_style
    from ..report.document import render_document

    min_change = args.threshold_diff / 100.0
    style = status_style(color_enabled(args.color, sys.stdout))
    options = document_options(args, style, fail_on)
    texts: list[tuple[str, str]] = []
    appended = ""
    for output in outputs:
        if output.option == "--bulk-debug-python":
            from ..report.bulk_debug import render_bulk_debug

            text = render_bulk_debug(comparison, min_change)
            if output.path == _STDOUT:
                appended = text  # after the document, as upstream prints it
                continue
        elif output.option == "--json":
            from ..report.json_report import render_json

            text = render_json(comparison, fail_on=fail_on)
        elif output.option == "--html":
            from ..report.html import render_html

            text = render_html(comparison, fail_on=fail_on, plot_limit=args.html_plots)
        elif output.option == "--csv":
            from ..report.csv_report import render_csv

            text = render_csv(comparison, fail_on=fail_on)
        else:
            from ..report.markdown_report import render_markdown_report

            text = render_markdown_report(comparison, options, limit=args.markdown_limit)
        texts.append((output.path, text))
    if not any(output.path == _STDOUT and not appended for output in outputs):
        texts.append((_STDOUT, render_document(comparison, options) + appended))
    # Files first and stdout last: a failing write then leaves no misleading output.
    texts.sort(key=lambda item: item[0] == _STDOUT)
    return texts


# ---------------------------------------------------------------------------------------
# Plot options (checked and drawn in cli._compare_plots)


def _axis_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a non-empty axis name")
    return text.strip()


def _along_template(text: str) -> str:
    """A valid ``--plot-along-output`` template (checked here: no matplotlib needed)."""
    from ..report.plots import check_template

    try:
        check_template(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_plot_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        f"plots, which need matplotlib: {install_hint('plot')}",
        "Plots open in windows when no plot output path is given and a display exists; "
        "otherwise every plot of the run goes to a file (defaults in the current directory, "
        "named on stderr).",
    )
    group.add_argument(
        "--plot",
        action="store_true",
        help="bar chart of the change of every row, coloured by status (one per input pair)",
    )
    group.add_argument(
        "--plot-output",
        metavar="PATH",
        help="write the --plot chart to PATH (png, svg, pdf, ... by extension)",
    )
    group.add_argument(
        "--plot-along",
        metavar="AXIS",
        type=_axis_name,
        help=(
            "time against the numeric axis AXIS on log-log axes, one line per combination "
            "of the other axes, reference dashed, compare solid, with noise bands; one "
            "figure per benchmark and device pair (benchmarks without AXIS are skipped)"
        ),
    )
    group.add_argument(
        "--plot-along-output",
        metavar="TEMPLATE",
        type=_along_template,
        help=(
            "write the --plot-along figures to TEMPLATE, with fields {benchmark}, {device} "
            "(compare device id), {axis} and {pair} (device pair position), e.g. "
            "'plots/{benchmark}_{device}.png'"
        ),
    )
    group.add_argument("--dark", action="store_true", help="black background for the plots")
