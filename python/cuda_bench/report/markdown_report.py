"""``--markdown PATH``: a report for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

Made to be read on GitHub, most important first::

    ### 🔴 nvbench_compare: 1 regression, 1 improvement (24 states)    <- one-line verdict

    <counts>                                      one line, emoji per status
    ❌ **Failed** `--fail-on slow`: ...           when a --fail-on condition holds

    #### Regressions                              SLOW rows of every benchmark, one table

    <details><summary>copy_bench: ...</summary>  every benchmark, folded
    ...
    </details>

    #### Ambiguous results                       AMBG (and ????) reasons with counts

No ANSI codes anywhere; statuses always carry their emoji. ``--threshold-diff`` hides
rows from the tables only, as in the terminal document.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Sequence

from ..compare.exit_policy import FailOn, evaluate
from ..compare.model import Comparison, Row, Status
from ..compare.suite import suite_summary
from .colors import EMOJI, STATUS_EMOJI
from .document import (
    benchmark_sections,
    failure_text,
    suite_change_text,
    unpaired_warnings,
)
from .tables import Display, render_comparison_table, visible_rows

__all__ = ["headline", "render_markdown_report"]

_TOOL = "nvbench_compare"

#: (status, singular, plural) in the order the counts line lists them.
_COUNT_WORDS: tuple[tuple[Status, str, str], ...] = (
    (Status.SLOW, "regression", "regressions"),
    (Status.FAST, "improvement", "improvements"),
    (Status.SAME, "unchanged", "unchanged"),
    (Status.AMBG, "ambiguous", "ambiguous"),
    (Status.UNKNOWN, "unknown", "unknown"),
    (Status.ADDED, "added", "added"),
    (Status.REMOVED, "removed", "removed"),
)


def _words(status: Status, count: int) -> str:
    for candidate, singular, plural in _COUNT_WORDS:
        if candidate is status:
            return f"{count} {singular if count == 1 else plural}"
    raise KeyError(status)


def headline(comparison: Comparison) -> str:
    """One line that says what happened, with the emoji of the worst outcome first."""
    counts = comparison.counts
    total = len(comparison.rows)
    states = f"({total} state{'s' if total != 1 else ''})"
    slow, fast = counts[Status.SLOW], counts[Status.FAST]
    ambiguous, unknown = counts[Status.AMBG], counts[Status.UNKNOWN]
    missing = counts[Status.ADDED] + counts[Status.REMOVED] + len(comparison.unpaired_files)
    if slow:
        icon = STATUS_EMOJI[Status.SLOW]
        parts = [_words(Status.SLOW, slow)]
        if fast:
            parts.append(_words(Status.FAST, fast))
    elif fast:
        icon = STATUS_EMOJI[Status.FAST]
        parts = [_words(Status.FAST, fast), "no regressions"]
    elif total == 0:
        icon = STATUS_EMOJI[Status.UNKNOWN]
        parts = ["nothing compared"]
    elif ambiguous or unknown or missing:
        icon = STATUS_EMOJI[Status.AMBG]
        parts = ["no confirmed changes"]
    else:
        icon = STATUS_EMOJI[Status.SAME]
        parts = ["no significant changes"]
    if ambiguous:
        parts.append(_words(Status.AMBG, ambiguous))
    if unknown:
        parts.append(_words(Status.UNKNOWN, unknown))
    if missing:
        parts.append(f"{missing} missing")
    return f"### {icon} {_TOOL}: {', '.join(parts)} {states}"


def _counts_line(comparison: Comparison) -> str:
    counts = comparison.counts
    items = [
        f"{STATUS_EMOJI[status]} {_words(status, counts[status])}"
        for status, _, _ in _COUNT_WORDS
        if counts[status] or status in (Status.SLOW, Status.FAST, Status.SAME)
    ]
    return " · ".join(items)


def _benchmark_counts(rows: Sequence[Row]) -> str:
    counts: dict[Status, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    parts = [
        f"{STATUS_EMOJI[status]} {counts[status]}"
        for status, _, _ in _COUNT_WORDS
        if status in counts
    ]
    return " · ".join(parts) if parts else "no rows"


def _heading(comparison: Comparison, pair: int, name: str) -> str:
    if len(comparison.inputs) <= 1 or pair >= len(comparison.inputs):
        return name
    files = comparison.inputs[pair].cmp
    return f"{name} ({', '.join(os.path.basename(path) for path in files)})"


def _text(text: str) -> str:
    """Free text for one markdown line: no line breaks, no accidental HTML tags."""
    return html.escape(" ".join(text.split()), quote=False)


def _inline(text: str) -> str:
    """Text for inline code: backticks inside would end it early."""
    return text.replace("`", "'")


def render_markdown_report(
    comparison: Comparison,
    *,
    display: Display | str = Display.INTERVALS,
    min_change: float = 0.0,
    fail_on: str | Iterable[FailOn | str] = (),
) -> str:
    """The PR-comment report of ``comparison`` (GitHub markdown, ends with a newline).

    ``display`` picks the layout of the per-benchmark tables; ``min_change`` (a fraction)
    hides small changes from the tables; ``fail_on`` conditions that hold are listed right
    under the headline.
    """
    style = EMOJI
    out: list[str] = [headline(comparison), "", _counts_line(comparison)]
    change = suite_summary(comparison)
    if change is not None:
        out += ["", f"Geometric mean of compare/reference times: {suite_change_text(change)}"]
    outcome = evaluate(comparison, fail_on)
    if outcome.failed:
        out.append("")
        out += [f"❌ **Failed** `{_inline(failure_text(f, comparison))}`" for f in outcome.failures]
    elif outcome.conditions:
        names = ",".join(condition.value for condition in outcome.conditions)
        out += ["", f"✅ Passed `--fail-on {names}`"]

    regressions = visible_rows(comparison.rows_with((Status.SLOW,)), min_change)
    out += ["", "#### Regressions", ""]
    if regressions:
        out.append(render_comparison_table(regressions, display, style, identity=True).rstrip())
    else:
        out.append("No regressions.")

    out += ["", "#### All results", ""]
    for pair, name, sections in benchmark_sections(comparison):
        rows = [row for section in sections for row in section.rows]
        summary = f"{html.escape(_heading(comparison, pair, name))}: {_benchmark_counts(rows)}"
        out += [f"<details><summary>{summary}</summary>", ""]
        shown_any = False
        for section in sections:
            shown = visible_rows(section.rows, min_change)
            if not shown:
                continue
            shown_any = True
            title = section.title
            if title:
                out += [f"##### {title}", ""]
            out += [render_comparison_table(shown, display, style).rstrip(), ""]
        if not shown_any:
            out += ["No rows to show.", ""]
        out += ["</details>", ""]

    reasons = [
        (status, comparison.reason_counts(status)) for status in (Status.AMBG, Status.UNKNOWN)
    ]
    if any(found for _, found in reasons):
        out += ["#### Ambiguous and unknown results", ""]
        for status, found in reasons:
            for reason, count, row in found:
                message = _text(row.verdict.text)
                out.append(
                    f"- {STATUS_EMOJI[status]} `{reason.value}` ({reason.alias}): {count} — "
                    f"{message}"
                )
        out.append("")

    notes = [
        f"{side} file `{_inline(path)}` has no counterpart"
        for side, path in comparison.unpaired_files
    ]
    notes += [_text(text) for text in unpaired_warnings(comparison)]
    if notes:
        out += ["#### Warnings", ""]
        out += [f"- {note}" for note in notes]
        out.append("")

    inputs = "; ".join(
        f"`{_inline(', '.join(pair.ref))}` vs. `{_inline(', '.join(pair.cmp))}`"
        for pair in comparison.inputs
    )
    footer = f"Method `{comparison.method}`, preset `{comparison.preset}`"
    if comparison.filters:
        footer += f", filters `{_inline(' '.join(comparison.filters))}`"
    if inputs:
        footer += f"; {inputs}"
    out.append(f"<sub>{footer}</sub>")
    return "\n".join(out) + "\n"
