"""The top of the HTML report: verdict, counts, suite numbers, worst regressions, reasons.

Static, escaped HTML built from the values the other reports print (the markdown headline,
:func:`~cuda.bench.compare.suite.suite_summary`, :func:`~..document.worst_regressions`,
``--fail-on`` outcomes); nothing is recomputed here, and it reads without JavaScript.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from ..._untrusted import visible
from ...compare.exit_policy import FailOn, evaluate, normalize_conditions
from ...compare.model import Comparison, Status
from ...compare.suite import suite_summary
from ..colors import STATUS_MEANING
from ..document import (
    comparison_notes,
    design_text,
    failure_text,
    regression_text,
    selection_text,
    suite_change_text,
    unpaired_warnings,
    worst_regressions,
)
from ..markdown_report import headline_parts
from ..tables import row_label
from .badges import FAILED_SHAPE, PASSED_SHAPE, icon_svg, status_badge
from .data import STATUS_ORDER

__all__ = ["count_list", "failure_facts", "render_summary", "title_heading", "title_text"]

#: Statuses whose count is shown even when zero: the answer "none" is news too.
_ALWAYS_COUNTED = frozenset({Status.SLOW, Status.FAST, Status.SAME})


def title_text(comparison: Comparison) -> str:
    """The one-line verdict of the markdown report, without its heading marks and emoji
    (the page's ``<title>``: a browser tab without an emoji font would show a box)."""
    return headline_parts(comparison)[1]


def title_heading(comparison: Comparison) -> str:
    """The verdict as the page's ``<h1>``: the worst outcome's badge, then the words."""
    mark, text = headline_parts(comparison)
    return f"<h1>{status_badge(mark)} {escape(text)}</h1>"


def count_list(counts: Mapping[Status, int], candidate: int | None = None) -> str:
    """The counts per status as buttons that show only that status (of ``candidate``, the
    position of an N-way report's candidate, when given)."""
    target = "" if candidate is None else f' data-candidate="{candidate}"'
    items = []
    for status in STATUS_ORDER:
        count = counts.get(status, 0)
        if not count and status not in _ALWAYS_COUNTED:
            continue
        word, meaning = STATUS_MEANING[status]
        items.append(
            f'<li><button type="button" class="count st-{status.name.lower()}" '
            f'data-status="{escape(status.value)}"{target} '
            f'title="{escape(meaning)}; show only these">'
            f'<span class="count-n">{count}</span> '
            f'<span class="count-label">{status_badge(status)}</span> '
            f'<span class="count-word">{escape(word)}</span></button></li>'
        )
    return f'<ul class="counts">{"".join(items)}</ul>'


def failure_facts(comparison: Comparison, fail_on: tuple[FailOn, ...]) -> list[tuple[str, str]]:
    """``("Failed", html)`` per ``--fail-on`` condition that holds, else ``("Passed", html)``
    when conditions were given."""
    facts: list[tuple[str, str]] = []
    outcome = evaluate(comparison, fail_on)
    for failure in outcome.failures:
        text = failure_text(failure, comparison)
        facts.append(
            ("Failed", f'<span class="failed">{icon_svg(FAILED_SHAPE)} {escape(text)}</span>')
        )
    if outcome.conditions and not outcome.failed:
        names = ",".join(condition.value for condition in outcome.conditions)
        facts.append(
            (
                "Passed",
                f'<span class="passed">{icon_svg(PASSED_SHAPE)} '
                f"{escape(f'--fail-on {names}')}</span>",
            )
        )
    return facts


def _facts(comparison: Comparison, fail_on: tuple[FailOn, ...]) -> str:
    facts: list[tuple[str, str]] = []
    design = design_text(comparison, sides=True)
    if design:
        facts.append(("Design", escape(design)))
    change = suite_summary(comparison)
    if change is not None:
        facts.append(("Geometric mean of compare/reference", escape(suite_change_text(change))))
    suite = comparison.suite
    if suite is not None and suite.expected_false_flags is not None:
        facts.append(
            (
                "Expected false flags",
                escape(
                    f"{suite.expected_false_flags:.2f} of {suite.flag_rows} row(s) would be "
                    "FAST/SLOW by chance if nothing had changed"
                ),
            )
        )
    facts += failure_facts(comparison, fail_on)
    if not facts:
        return ""
    body = "".join(f"<dt>{escape(name)}</dt><dd>{value}</dd>" for name, value in facts)
    return f'<dl class="facts">{body}</dl>'


def _worst(comparison: Comparison) -> str:
    worst = worst_regressions(comparison)
    if not worst:
        return ""
    positions = {id(row): index for index, row in enumerate(comparison.rows)}
    items = "".join(
        f'<li><a href="#row-{positions[id(row)]}" data-row="{positions[id(row)]}">'
        f"{escape(row_label(row, comparison))}</a>: {escape(regression_text(row))}</li>"
        for row in worst
    )
    return f'<section class="worst"><h2>Worst regressions</h2><ol>{items}</ol></section>'


def _reasons(comparison: Comparison) -> str:
    items = [
        f"<li>{status_badge(status)} <code>{escape(reason.value)}</code> "
        f"({escape(reason.alias)}): {count} — {escape(text)}</li>"
        for status in (Status.AMBG, Status.UNKNOWN)
        for reason, count, text in comparison.reason_summaries(status)
    ]
    if not items:
        return ""
    return (
        '<section class="reasons"><h2>Ambiguous and unknown results</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )


def _warnings(comparison: Comparison) -> str:
    notes = [f"{side} file {path} has no counterpart" for side, path in comparison.unpaired_files]
    notes += list(unpaired_warnings(comparison))
    if not notes:
        return ""
    items = "".join(f"<li>{escape(visible(note))}</li>" for note in notes)
    return f'<section class="warnings"><h2>Warnings</h2><ul>{items}</ul></section>'


def _notes(comparison: Comparison) -> str:
    notes = comparison_notes(comparison)
    if not notes:
        return ""
    items = "".join(f"<li>{escape(visible(note))}</li>" for note in notes)
    return f'<section class="notes"><h2>Notes</h2><ul>{items}</ul></section>'


def _inputs(comparison: Comparison) -> str:
    pairs = "; ".join(
        f"<code>{escape(visible(', '.join(pair.ref)))}</code> vs. "
        f"<code>{escape(visible(', '.join(pair.cmp)))}</code>"
        for pair in comparison.inputs
    )
    text = f"Method <code>{escape(comparison.method)}</code>, preset "
    text += f"<code>{escape(comparison.preset)}</code>"
    chosen = selection_text(comparison)
    if chosen:
        text += f", filters <code>{escape(visible(chosen))}</code>"
    if pairs:
        text += f"; {pairs}"
    return f'<p class="inputs">{text}</p>'


def render_summary(comparison: Comparison, fail_on: str | Iterable[FailOn | str] = ()) -> str:
    """The summary block (a ``<header>`` element); ``fail_on`` as ``--fail-on`` takes it."""
    conditions = normalize_conditions(fail_on)
    parts = [
        title_heading(comparison),
        _inputs(comparison),
        count_list(comparison.counts),
        _facts(comparison, conditions),
        _notes(comparison),
        _worst(comparison),
        _reasons(comparison),
        _warnings(comparison),
    ]
    return f'<header class="summary">{"".join(part for part in parts if part)}</header>'
