"""The comparison document ``nvbench_compare`` prints: sections of tables, then ``# Summary``.

Layout (GitHub markdown; blank lines as shown)::

    # <benchmark>

    ## [0] <device>                 or  ## [0] A vs. [1] B; none for CPU-only benchmarks

    | axis ... | Ref | Cmp | Change | Status |
    ...

    # Summary

    - Total Matches: 24
      - Unchanged   (SAME, ...): 18
      ...

A benchmark heading is printed for every selected benchmark, even when ``--threshold-diff``
(:attr:`DocumentOptions.min_change`) or the filters leave it without rows; a device
section without displayed rows is left out. The summary always counts every row.

:func:`cuda.bench.compare.suite.suite_summary` gives the suite-level numbers (geometric mean
of the changes, its interval when the method provides one, expected false flags).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Final

import msgspec

from .._numbers import number_text
from .._untrusted import visible
from ..compare.exit_policy import FailOn, Failure, evaluate
from ..compare.model import Comparison, Reason, Row, Section, Status
from ..compare.skipped import skip_reasons
from ..compare.suite import DRIFT_REASONS, SuiteSummary, suite_summary
from ..compare.warning_tags import WarningKind
from .colors import EMOJI, STATUS_MEANING, StatusStyle
from .format import RATIO_DECIMALS, RATIO_DECIMALS_MOST, distinct_decimals, format_percent
from .tables import (
    Display,
    RowOrder,
    change_text,
    render_comparison_table,
    row_label,
    table_legend,
    table_rows,
    visible_rows,
)

__all__ = [
    "COMPARE_TOOL",
    "FAILED_ROWS_SHOWN",
    "WORST_REGRESSIONS",
    "DocumentOptions",
    "benchmark_sections",
    "comparison_notes",
    "design_text",
    "displayed_rows",
    "failure_text",
    "reason_legend",
    "regression_text",
    "render_document",
    "render_summary",
    "render_table_block",
    "selection_text",
    "skipped_lines",
    "suite_change_text",
    "tool_name",
    "unpaired_warnings",
    "worst_regressions",
]

#: How many rows a ``Failed:`` line names before it says "and N more".
FAILED_ROWS_SHOWN: Final = 10
#: How many regressions the summary lists.
WORST_REGRESSIONS: Final = 3

#: Statuses of matched rows, in summary order.
#: The codes of the comparison's own drift reasons (a gate's ``history_too_short`` is not one).
_RUN_DRIFT_CODES: Final = frozenset(reason.value for reason in DRIFT_REASONS)
#: A gate's code for a row whose level holds too few runs to measure its drift.
_HISTORY_TOO_SHORT: Final = Reason.HISTORY_TOO_SHORT.value

_MATCHED_ORDER: Final = (Status.SAME, Status.FAST, Status.SLOW, Status.AMBG, Status.UNKNOWN)


class DocumentOptions(msgspec.Struct, frozen=True):
    """What the document shows.

    ``min_change`` hides rows whose relative change is below it (a fraction: the CLI's
    ``--threshold-diff 5`` is ``0.05``); it never changes the counts. ``fail_on`` lists
    ``--fail-on`` conditions to report on in the summary. States the benchmark skipped in
    both runs are left out of the tables unless ``show_skipped``; ``only_changed`` keeps
    FAST, SLOW, ``????``, ADDED and REMOVED rows only; ``order`` sorts the rows of each
    table (``None``: the result files' order). None of these changes the summary's counts.
    """

    display: Display = Display.INTERVALS
    style: StatusStyle = EMOJI
    min_change: float = 0.0
    fail_on: tuple[FailOn, ...] = ()
    show_skipped: bool = False
    only_changed: bool = False
    order: RowOrder | None = None

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "display", Display(self.display))
        if self.order is not None:
            msgspec.structs.force_setattr(self, "order", RowOrder(self.order))
        if not (math.isfinite(self.min_change) and self.min_change >= 0.0):
            raise ValueError(f"min_change must be a finite fraction >= 0, got {self.min_change}")


# ---------------------------------------------------------------------------------------
# Suite-level numbers
# ---------------------------------------------------------------------------------------


def suite_change_text(change: SuiteSummary) -> str:
    """``0.996 (-0.4%) over 20 rows`` or, with an interval, ``... [0.990, 1.002] at 95%``.

    When rows are AMBG because their runs drift, no suite-wide change is claimed: the text
    says so and what the interval covers instead of a confidence level.
    """
    # More decimals where three would write both ends of the interval alike; a ratio that
    # would round to 0.000 (a state 1e15 times faster) in scientific notation, never zero.
    decimals = RATIO_DECIMALS
    if change.lo is not None and change.hi is not None:
        decimals = distinct_decimals(change.lo, change.hi, RATIO_DECIMALS, RATIO_DECIMALS_MOST)
    ratio = _ratio(change.ratio, decimals)
    text = f"{ratio} ({format_percent(change.ratio - 1.0, signed=True)})"
    rows = f"over {change.rows} row{'s' if change.rows != 1 else ''}"
    if not change.claims_change:
        text += (
            f" {rows}, not a suite-wide change: {change.drift_rows} of {change.rows} row(s) "
            f"are AMBG {_drift_cause(change.drift_reasons)}"
        )
        if change.lo is not None and change.hi is not None:
            covers = (
                "sampling noise and the drift between the runs given"
                if change.interval_covers == "sampling+runs"
                else "sampling noise within the runs only, not drift between runs"
            )
            interval = f"[{_ratio(change.lo, decimals)}, {_ratio(change.hi, decimals)}]"
            text += f"; the interval {interval} covers {covers}"
        return text
    if change.lo is not None and change.hi is not None:
        text += f" [{_ratio(change.lo, decimals)}, {_ratio(change.hi, decimals)}]"
        if change.confidence is not None:
            text += f" at {change.confidence * 100:g}% confidence"
    return f"{text} {rows}"


def _ratio(value: float, decimals: int) -> str:
    return number_text(value, decimals, keep_small=True)


def _drift_cause(reasons: tuple[tuple[str, int], ...]) -> str:
    """Why the drift rows are AMBG, in words true of their codes (``reasons``), which follow.

    The drift codes (:data:`~..compare.suite.DRIFT_REASONS`) say their runs drift; a gate
    counts a row it made AMBG ``history_too_short`` under that code (its level holds too
    few runs to measure the drift: the cause its rows and reason list name). Other codes
    (a report written before that, which counted such rows under the drift their few runs
    suggested) get words that claim less.
    """
    codes = ", ".join(f"{code}: {count}" for code, count in reasons)
    found = {code for code, _ in reasons}
    drift = "their runs drift, within a run or between runs"
    short = "the archive holds too few runs of their current level to measure its drift"
    if found and found <= _RUN_DRIFT_CODES:
        cause = f"because {drift}"
    elif found == {_HISTORY_TOO_SHORT}:
        cause = f"because {short}"
    elif found <= _RUN_DRIFT_CODES | {_HISTORY_TOO_SHORT}:
        cause = f"because {drift}, or {short}"
    else:
        cause = "because drift within or between runs may explain their levels"
    return f"{cause} ({codes})" if codes else cause


def worst_regressions(comparison: Comparison, count: int = WORST_REGRESSIONS) -> tuple[Row, ...]:
    """Up to ``count`` SLOW rows, largest change first.

    The change is the effect estimate when the verdict has one, else the plain relative
    change of the centers.
    """

    def size(row: Row) -> float:
        effect = row.verdict.effect
        if effect is not None:
            return effect.ratio - 1.0
        change = row.frac_diff
        return -math.inf if change is None else change

    slow = comparison.rows_with((Status.SLOW,))
    return tuple(sorted(slow, key=size, reverse=True)[:count])


def regression_text(row: Row) -> str:
    """How much a row changed: ``+4.9% (>= +1.4%)``, or the effect and its interval."""
    if row.verdict.effect is not None:
        return change_text(row)
    size = format_percent(row.frac_diff, signed=True)
    bound = change_text(row)
    return f"{size} ({bound})" if bound else size


#: The program a report names when the comparison names none (:func:`tool_name`).
COMPARE_TOOL: Final = "nvbench_compare"


def tool_name(comparison: Comparison) -> str:
    """The program that made the comparison, as its reports name it: a gate names itself
    (``settings["tool"]``), so that its headline and JSON report (which ``nvbench-history
    report --gate`` reads) are not taken for an ``nvbench_compare`` run."""
    tool = comparison.settings.get("tool")
    return tool if isinstance(tool, str) and tool else COMPARE_TOOL


#: The longest note a summary shows (:func:`comparison_notes`).
_NOTE_CHARACTERS: Final = 2000


def comparison_notes(comparison: Comparison) -> tuple[str, ...]:
    """What the comparison's maker asked its summaries to say (``settings["notes"]``: the
    gate's states held before a candidate change, the runs it gated together), as plain
    text: each renderer escapes it (it names commits and files, which are untrusted)."""
    notes = comparison.settings.get("notes", ())
    if not isinstance(notes, tuple | list):
        return ()
    # A note quotes commits and labels of any length: capped, so that a report that must
    # fit a limit (a PR comment) keeps room for its rows.
    return tuple(
        note if len(note) <= _NOTE_CHARACTERS else note[: _NOTE_CHARACTERS - 1] + "…"
        for note in notes
        if isinstance(note, str) and note
    )


def reason_legend(rows: Sequence[Row]) -> list[tuple[str, str, str]]:
    """``(alias, code, meaning)`` of every reason of ``rows``, by alias: what the table's
    short codes stand for, in ``--display explain``."""
    reasons = {row.reason for row in rows}
    return sorted((reason.alias, reason.value, reason.message) for reason in reasons)


def unpaired_warnings(comparison: Comparison) -> tuple[str, ...]:
    """The comparison's warnings without those that only repeat an unpaired file (listed
    apart). Which lines those are the engine says, never their text: it quotes the file's
    name, and a benchmark's warnings begin with its name; either may read like the other."""
    told = comparison.warnings_of(WarningKind.UNPAIRED_FILE)
    return tuple(text for text in comparison.warnings if text not in told)


# ---------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------


def benchmark_sections(comparison: Comparison) -> list[tuple[int, str, list[Section]]]:
    """``(pair, benchmark, sections)`` in output order, including benchmarks without rows
    unless filters (``-b``/``-a``) were given: then a benchmark without rows is one they
    emptied, and gets no heading."""
    groups: dict[tuple[int, str], list[Section]] = (
        {} if comparison.filters else {key: [] for key in dict.fromkeys(comparison.benchmarks)}
    )
    for section in comparison.sections():
        groups.setdefault((section.pair, section.benchmark), []).append(section)
    return [(pair, name, sections) for (pair, name), sections in groups.items()]


def _benchmark_heading(comparison: Comparison, pair: int, name: str) -> str:
    if len(comparison.inputs) <= 1 or pair >= len(comparison.inputs):
        return name
    # Directory inputs: the same benchmark may come from several file pairs.
    files = comparison.inputs[pair]
    ref = ", ".join(os.path.basename(path) for path in files.ref)
    cmp = ", ".join(os.path.basename(path) for path in files.cmp)
    return f"{name} ({ref})" if ref == cmp else f"{name} ({ref} vs. {cmp})"


def displayed_rows(rows: Sequence[Row], options: DocumentOptions) -> tuple[Row, ...]:
    """The rows of a table under ``options`` (:func:`.tables.table_rows`)."""
    return table_rows(
        rows,
        options.min_change,
        show_skipped=options.show_skipped,
        only_changed=options.only_changed,
        order=options.order,
    )


def render_table_block(
    rows: Sequence[Row], options: DocumentOptions, *, identity: bool = False, markdown: bool = False
) -> str:
    """A table of ``rows``, a blank line, and its legend line (ends with a newline).

    The blank line keeps markdown renderers from reading the legend as a table row.
    ``markdown``: cells escaped for a markdown renderer (:func:`.tables.render_comparison_table`).
    """
    table = render_comparison_table(
        rows, options.display, options.style, identity=identity, markdown=markdown
    )
    return f"{table}\n{table_legend(rows, options.display)}\n"


def _render_sections(comparison: Comparison, options: DocumentOptions) -> list[str]:
    out: list[str] = []
    for pair, name, sections in benchmark_sections(comparison):
        shown = [(section.title, displayed_rows(section.rows, options)) for section in sections]
        if sections and not any(rows for _, rows in shown):
            continue  # every row hidden (--only-changed, --threshold-diff): no empty heading
        out.append(f"# {visible(_benchmark_heading(comparison, pair, name))}\n\n")
        for title, rows in shown:
            if not rows:
                continue
            if title:
                out.append(f"## {visible(title)}\n\n")
            out.append(render_table_block(rows, options))
            out.append("\n")
    return out


# ---------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------


def _count_line(status: Status, count: int, style: StatusStyle, width: int) -> str:
    word, meaning = STATUS_MEANING[status]
    # Colour belongs to the tables' status cells; the summary keeps only the emoji.
    label = StatusStyle(ansi=False, emoji=style.emoji).label(status)
    return f"{word.ljust(width)} ({label}, {meaning}): {count}"


def _reason_lines(comparison: Comparison, status: Status, indent: str) -> list[str]:
    found = comparison.reason_summaries(status)
    if not found:
        return []
    lines = [f"{indent}- Reasons:"]
    lines += [
        f"{indent}  - {reason.value}: {count} ({_one_line(text)})" for reason, count, text in found
    ]
    return lines


def _one_line(text: str) -> str:
    # A line break, tab or carriage return in a quoted name is shown as its escape, as in
    # the tables, never folded into a space.
    return visible(text)


def skipped_lines(
    comparison: Comparison, options: DocumentOptions | None = None, bullet: str = "- "
) -> list[str]:
    """``N states skipped by the benchmark in both runs``, then one line per skip reason
    with its count; nothing when no state was skipped in both runs. Says whether the
    tables under ``options`` list them."""
    reasons = skip_reasons(comparison)
    if not reasons:
        return []
    options = options or DocumentOptions()
    total = sum(count for _, count in reasons)
    if not options.show_skipped:
        where = "not in the tables; --show-skipped lists them"
    elif options.only_changed:
        where = "not in the tables: --only-changed hides them"
    else:
        where = "listed in the tables"
    states = "state" if total == 1 else "states"
    lines = [f"{bullet}Skipped: {total} {states} skipped by the benchmark in both runs ({where})"]
    lines += [f"  {bullet}{count}: {_one_line(reason)}" for reason, count in reasons]
    return lines


def failure_text(failure: Failure, comparison: Comparison, limit: int = FAILED_ROWS_SHOWN) -> str:
    """``--fail-on slow: 1 row(s): copy_bench [0] T=F32 ...`` for one failed condition."""
    names = [row_label(row, comparison) for row in failure.rows]
    names += [f"{side} file {visible(path)} (unpaired)" for side, path in failure.unpaired_files]
    shown = "; ".join(names[:limit])
    if len(names) > limit:
        shown += f"; and {len(names) - limit} more"
    rows = len(failure.rows)
    parts = [f"{rows} row(s)"] if rows else []
    if failure.unpaired_files:
        parts.append(f"{len(failure.unpaired_files)} unpaired file(s)")
    return f"{failure.condition.option}: {', '.join(parts)}: {shown}"


def render_summary(comparison: Comparison, options: DocumentOptions | None = None) -> str:
    """The ``# Summary`` block (ends with a newline)."""
    options = options or DocumentOptions()
    style = options.style
    counts = comparison.counts
    matched = sum(counts[status] for status in _MATCHED_ORDER)
    width = max(len(STATUS_MEANING[status][0]) for status in _MATCHED_ORDER)
    lines = ["# Summary", "", f"- Total Matches: {matched}"]
    for status in _MATCHED_ORDER:
        lines.append("  - " + _count_line(status, counts[status], style, width))
        if status in (Status.AMBG, Status.UNKNOWN):
            lines += _reason_lines(comparison, status, "    ")
    side_width = max(len(STATUS_MEANING[s][0]) for s in (Status.ADDED, Status.REMOVED))
    for status in (Status.ADDED, Status.REMOVED):
        lines.append("- " + _count_line(status, counts[status], style, side_width))
    lines += skipped_lines(comparison, options)

    shown = visible_rows(comparison.rows, options.min_change)
    hidden = len(comparison.rows) - len(shown)
    if hidden:
        lines.append(
            f"- Hidden: {hidden} row(s) changed less than "
            f"{format_percent(options.min_change, decimals=2)} (--threshold-diff)"
        )
    if options.only_changed:
        unchanged = sum(row.status in (Status.SAME, Status.AMBG) for row in shown)
        if unchanged:
            lines.append(f"- Hidden: {unchanged} SAME or AMBG row(s) (--only-changed)")
    change = suite_summary(comparison)
    if change is not None:
        lines.append(f"- Geometric mean compare/reference: {suite_change_text(change)}")
    suite = comparison.suite
    if suite is not None and suite.expected_false_flags is not None:
        lines.append(
            f"- Expected false flags: {suite.expected_false_flags:.2f} of {suite.flag_rows} "
            "row(s) would be FAST/SLOW by chance if nothing had changed (sampling noise as "
            "the intervals describe it)"
        )
    worst = worst_regressions(comparison)
    if worst:
        lines.append("- Worst regressions:")
        lines += [f"  - {row_label(row, comparison)}: {regression_text(row)}" for row in worst]
    if options.display is Display.EXPLAIN:
        # The codes of the rows the tables show: not those of states skipped in both runs
        # unless the tables list them (``state-skip`` was explained beside no such row).
        legend = reason_legend(displayed_rows(comparison.rows, options))
        if legend:
            lines.append("- Reason codes in the tables:")
            lines += [
                f"  - {alias}: {meaning}" + ("" if alias == code else f" ({code})")
                for alias, code, meaning in legend
            ]
    if comparison.unpaired_files:
        lines.append("- Unpaired files:")
        lines += [f"  - {side}: {visible(path)}" for side, path in comparison.unpaired_files]
    warnings = unpaired_warnings(comparison)
    if warnings:
        lines.append("- Warnings:")
        lines += [f"  - {_one_line(text)}" for text in warnings]
    design = design_text(comparison)
    lines.append(
        f"- Method: {comparison.method} (preset {comparison.preset})"
        + (f"; {design}" if design else "")
    )
    lines += [f"- Note: {_one_line(note)}" for note in comparison_notes(comparison)]
    chosen = selection_text(comparison)
    if chosen:
        lines.append(f"- Filters: {chosen}")
    if options.fail_on:
        outcome = evaluate(comparison, options.fail_on)
        if outcome.failed:
            lines += [f"- Failed: {failure_text(f, comparison)}" for f in outcome.failures]
        else:
            names = ",".join(condition.value for condition in options.fail_on)
            lines.append(f"- Passed: --fail-on {names}")
    return "\n".join(lines) + "\n"


def selection_text(comparison: Comparison) -> str:
    """What selected the compared states, as the options say it: ``-b``/``-a`` filters and
    the device choice (``--reference-devices``, ``--compare-devices``, ``--ignore-devices``),
    or, for a gate (``settings["gate_devices"]``: the devices given to it, ``None`` for
    every device), its ``--device``. Every report format names the selection with it."""
    settings = comparison.settings
    parts = list(comparison.filters)
    if "gate_devices" in settings:
        gated = settings["gate_devices"]
        if gated is not None:
            parts.append(f"--device {','.join(str(device) for device in gated)}")
        return " ".join(parts)
    for key, option in (
        ("ref_devices", "--reference-devices"),
        ("cmp_devices", "--compare-devices"),
    ):
        devices = settings.get(key)
        if devices is not None:
            parts.append(f"{option} {','.join(str(device) for device in devices)}")
    if settings.get("ignore_devices"):
        parts.append("--ignore-devices")
    return " ".join(parts)


def render_document(comparison: Comparison, options: DocumentOptions | None = None) -> str:
    """The whole document: benchmark and device sections, then the summary."""
    options = options or DocumentOptions()
    return "".join(_render_sections(comparison, options)) + render_summary(comparison, options)


def design_text(comparison: Comparison, *, sides: bool = False) -> str:
    """``8 paired rounds, order alternate`` for a paired comparison (its ``design``), with
    ``sides`` also ``; first: ref, cmp, ...``; empty for any other comparison."""
    design = comparison.settings.get("design")
    if not isinstance(design, dict):
        return ""
    order = design.get("order") or "unknown (runs paired by position)"
    seed = f", seed {design['seed']}" if design.get("seed") is not None else ""
    text = f"{design.get('rounds')} paired rounds, order {order}{seed}"
    first = design.get("first")
    if sides and isinstance(first, list) and first:
        text += f"; first: {', '.join(str(side) for side in first)}"
    return text
