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

import os
from collections.abc import Callable, Sequence

import msgspec

from .._untrusted import markdown_html, markdown_inline, visible
from ..compare.exit_policy import evaluate
from ..compare.model import Comparison, Row, Section, Status
from ..compare.suite import suite_summary
from .colors import EMOJI, STATUS_EMOJI
from .document import (
    DocumentOptions,
    benchmark_sections,
    comparison_notes,
    displayed_rows,
    failure_text,
    render_table_block,
    selection_text,
    skipped_lines,
    suite_change_text,
    tool_name,
    unpaired_warnings,
)
from .format import format_percent

__all__ = ["GITHUB_COMMENT_LIMIT", "headline", "headline_parts", "render_markdown_report"]

#: The most characters a GitHub issue or pull-request comment holds; ``--markdown`` fits
#: its report into it unless told otherwise (``--markdown-limit``).
GITHUB_COMMENT_LIMIT = 65_536


#: (status, singular, plural) in the order the counts line lists them.
_COUNT_WORDS: tuple[tuple[Status, str, str], ...] = (
    (Status.SLOW, "regression", "regressions"),
    (Status.FAST, "improvement", "improvements"),
    (Status.SAME, "unchanged", "unchanged"),
    (Status.AMBG, "ambiguous", "ambiguous"),
    (Status.UNKNOWN, "unknown", "unknown"),
    (Status.ADDED, "added", "added"),
    (Status.REMOVED, "removed", "removed"),
    (Status.SKIP, "skipped", "skipped"),
)


def _words(status: Status, count: int) -> str:
    for candidate, singular, plural in _COUNT_WORDS:
        if candidate is status:
            return f"{count} {singular if count == 1 else plural}"
    raise KeyError(status)


def headline_parts(comparison: Comparison) -> tuple[Status, str]:
    """The status whose mark leads the headline (the worst outcome), and the words after it."""
    counts = comparison.counts
    total = len(comparison.rows)
    states = f"({total} state{'s' if total != 1 else ''})"
    slow, fast = counts[Status.SLOW], counts[Status.FAST]
    ambiguous, unknown = counts[Status.AMBG], counts[Status.UNKNOWN]
    missing = counts[Status.ADDED] + counts[Status.REMOVED] + len(comparison.unpaired_files)
    if slow:
        mark = Status.SLOW
        parts = [_words(Status.SLOW, slow)]
        if fast:
            parts.append(_words(Status.FAST, fast))
    elif fast:
        mark = Status.FAST
        parts = [_words(Status.FAST, fast), "no regressions"]
    elif total == 0:
        mark = Status.UNKNOWN
        parts = ["nothing compared"]
    elif ambiguous or unknown or missing:
        mark = Status.AMBG
        parts = ["no confirmed changes"]
    else:
        mark = Status.SAME
        parts = ["no significant changes"]
    if ambiguous:
        parts.append(_words(Status.AMBG, ambiguous))
    if unknown:
        parts.append(_words(Status.UNKNOWN, unknown))
    if missing:
        parts.append(f"{missing} missing")
    return mark, f"{tool_name(comparison)}: {', '.join(parts)} {states}"


def headline(comparison: Comparison) -> str:
    """One line that says what happened, with the emoji of the worst outcome first."""
    mark, text = headline_parts(comparison)
    return f"### {STATUS_EMOJI[mark]} {text}"


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
    """Free text for one markdown line: no line breaks, no HTML, no markdown syntax (it
    may quote names from the result files, which are untrusted)."""
    return markdown_inline(text)


def _inline(text: str) -> str:
    """Text for inline code: backticks inside would end it early, and a line break would
    let the next line start a block (an HTML comment hides the rest of the report)."""
    return visible(text).replace("`", "'")


class _Block(msgspec.Struct, frozen=True):
    """Lines of the report that are kept or left out together, and the rows they show."""

    lines: tuple[str, ...]
    rows: tuple[Row, ...] = ()

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


def _largest(count: int, make: Callable[[int], _Block], budget: int) -> _Block | None:
    """``make(n)`` for the largest ``n`` in ``1..count`` whose block fits ``budget``
    characters (blocks grow with ``n``), or ``None`` when not even one row fits."""
    lo, hi = 0, count
    best: _Block | None = None
    while lo < hi:
        middle = (lo + hi + 1) // 2
        block = make(middle)
        if block.size <= budget:
            lo, best = middle, block
        else:
            hi = middle - 1
    return best


class _Details:
    """The folded ``<details>`` block of one benchmark, whole or cut to its first rows."""

    def __init__(
        self,
        comparison: Comparison,
        pair: int,
        name: str,
        sections: tuple[Section, ...],
        options: DocumentOptions,
    ) -> None:
        rows = [row for section in sections for row in section.rows]
        heading = markdown_html(_heading(comparison, pair, name))
        self._summary = f"{heading}: {_benchmark_counts(rows)}"
        self._tables = [
            (section.title, shown)
            for section in sections
            if (shown := displayed_rows(section.rows, options))
        ]
        self._options = options
        self.rows = sum(len(shown) for _, shown in self._tables)
        # What a block without rows says, once (``cut`` runs once per budget tried).
        self._empty = "" if self.rows else _no_rows(rows, options)
        self.full = self.cut(self.rows)

    def cut(self, limit: int) -> _Block:
        """The block with at most ``limit`` table rows, in order."""
        block = [f"<details><summary>{self._summary}</summary>", ""]
        left = limit
        rows: list[Row] = []
        for title, shown in self._tables:
            if left <= 0:
                break
            if title:
                block += [f"##### {markdown_inline(title)}", ""]
            table = render_table_block(shown[:left], self._options, markdown=True)
            block += [table.rstrip(), ""]
            rows += shown[:left]
            left -= len(shown)
        if self._empty:
            block += [self._empty, ""]
        block += ["</details>", ""]
        return _Block(tuple(block), tuple(rows))

    def fitted(self, budget: int) -> _Block | None:
        """The block with as many leading rows as fit ``budget`` characters, if any fit."""
        return _largest(self.rows, self.cut, budget)


def _no_rows(rows: Sequence[Row], options: DocumentOptions) -> str:
    """What an empty block says: which options hid its ``rows`` (the summary counts them)."""
    why = []
    if options.min_change > 0.0 and any(row.status is not Status.SKIP for row in rows):
        percent = format_percent(options.min_change, decimals=2)
        why.append(f"--threshold-diff hides the rows that changed less than {percent}")
    if options.only_changed and any(row.status in (Status.SAME, Status.AMBG) for row in rows):
        why.append("--only-changed hides SAME and AMBG rows")
    if not options.show_skipped and any(row.status is Status.SKIP for row in rows):
        why.append("--show-skipped lists the skipped states")
    return f"No rows to show ({'; '.join(why)})." if why else "No rows to show."


def _regressions_block(rows: Sequence[Row], options: DocumentOptions, count: int) -> _Block:
    table = render_table_block(rows[:count], options, identity=True, markdown=True).rstrip()
    return _Block((table,), tuple(rows[:count]))


def render_markdown_report(
    comparison: Comparison,
    options: DocumentOptions | None = None,
    *,
    limit: int | None = GITHUB_COMMENT_LIMIT,
) -> str:
    """The PR-comment report of ``comparison`` (GitHub markdown, ends with a newline).

    ``options`` are those of the terminal document (:class:`.document.DocumentOptions`):
    the layout of the per-benchmark tables and the rows they hide (``min_change``,
    ``show_skipped``, ``only_changed``, ``order``); its ``fail_on`` conditions that hold
    are listed right under the headline. Statuses always carry their emoji, whatever the
    options' style. The report holds at most ``limit`` characters (``None``: no limit):
    the headline, counts and regressions come first, then as many benchmarks as fit, and
    a last paragraph says how many rows were left out.
    """
    options = msgspec.structs.replace(options or DocumentOptions(), style=EMOJI)
    head: list[str] = [headline(comparison), "", _counts_line(comparison)]
    change = suite_summary(comparison)
    if change is not None:
        head += ["", f"Geometric mean of compare/reference times: {suite_change_text(change)}"]
    outcome = evaluate(comparison, options.fail_on)
    if outcome.failed:
        head.append("")
        head += [
            f"❌ **Failed** `{_inline(failure_text(f, comparison))}`" for f in outcome.failures
        ]
    elif outcome.conditions:
        names = ",".join(condition.value for condition in outcome.conditions)
        head += ["", f"✅ Passed `--fail-on {names}`"]
    for note in comparison_notes(comparison):
        head += ["", f"**Note:** {_text(note)}"]
    head += ["", "#### Regressions", ""]
    regressions = displayed_rows(comparison.rows_with((Status.SLOW,)), options)
    if regressions:
        regression_table = render_table_block(
            regressions, options, identity=True, markdown=True
        ).rstrip()
    else:
        regression_table = "No regressions."

    details = [
        _Details(comparison, pair, name, tuple(sections), options)
        for pair, name, sections in benchmark_sections(comparison)
    ]

    tail = _tail(comparison, options)
    lines = [*head, regression_table, "", "#### All results", ""]
    lines += [line for block in details for line in block.full.lines]
    lines += tail
    text = "\n".join(lines) + "\n"
    if limit is None or len(text) <= limit:
        return text
    return _shortened(head, regressions, details, tail, options, limit)


def _tail(comparison: Comparison, options: DocumentOptions) -> list[str]:
    """Reasons, skipped states, warnings and the footer line."""
    out: list[str] = []
    reasons = [
        (status, comparison.reason_summaries(status)) for status in (Status.AMBG, Status.UNKNOWN)
    ]
    skipped = skipped_lines(comparison, options, bullet="")
    if any(found for _, found in reasons) or skipped:
        title = "Ambiguous, unknown and skipped" if skipped else "Ambiguous and unknown"
        out += [f"#### {title} results", ""]
        for status, found in reasons:
            for reason, count, text in found:
                message = _text(text)
                out.append(
                    f"- {STATUS_EMOJI[status]} `{reason.value}` ({reason.alias}): {count} — "
                    f"{message}"
                )
        if skipped:
            first, *groups = skipped
            out.append(f"- {STATUS_EMOJI[Status.SKIP]} {_text(first)}")
            out += [f"  - {_text(line.strip())}" for line in groups]
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
    chosen = selection_text(comparison)
    if chosen:
        footer += f", filters `{_inline(chosen)}`"
    if inputs:
        footer += f"; {inputs}"
    out.append(f"<sub>{footer}</sub>")
    return out


def _shortened(
    head: list[str],
    regressions: Sequence[Row],
    details: list[_Details],
    tail: list[str],
    options: DocumentOptions,
    limit: int,
) -> str:
    """The report cut to ``limit`` characters: head, regressions, then what fits."""
    # Regressions appear in their own table and again in their benchmark's: a row counts
    # as shown when it is shown anywhere.
    total = len({id(row) for row in regressions} | {id(r) for d in details for r in d.full.rows})

    def note(shown: int, kept: int = len(regressions)) -> str:
        cut = "" if kept == len(regressions) else f" (regressions: {kept} of {len(regressions)})"
        return (
            f"**{total - shown} of {total} table rows left out**{cut} to fit {limit:,} "
            "characters (`--markdown-limit`); the JSON and CSV reports (`--json`, `--csv`) "
            "have them all."
        )

    # The closing paragraph and the blank line before it; its counts have at most as many
    # digits as ``total`` and ``len(regressions)``, which note(0, 0) already spells out
    # except for the kept regressions' count.
    reserve = len(note(0, 0)) + len(str(len(regressions))) + 2
    budget = limit - reserve - sum(len(line) + 1 for line in head)
    fitted = None
    if regressions:
        fitted = _largest(
            len(regressions),
            lambda count: _regressions_block(regressions, options, count),
            max(budget, 0),
        )
    out = list(head)
    shown_rows: set[int] = set()
    if fitted is not None:
        out += fitted.lines
        shown_rows.update(id(row) for row in fitted.rows)
    elif regressions:
        out.append("The regressions table does not fit; see the JSON and CSV reports.")
    else:
        out.append("No regressions.")
    out.append("")
    # Counted again from what is written: each line and its newline.
    budget = limit - reserve - sum(len(line) + 1 for line in out)
    tail_block = _Block(tuple(tail))
    keep_tail = tail_block.size <= budget
    if keep_tail:
        budget -= tail_block.size
    heading = _Block(("#### All results", ""))
    budget -= heading.size
    shown: list[str] = []
    for block in details:
        whole = block.full
        if whole.size <= budget:
            shown += whole.lines
            shown_rows.update(id(row) for row in whole.rows)
            budget -= whole.size
            continue
        # The first benchmark that does not fit shows its leading rows; later ones none,
        # so what is shown is always a prefix of the report.
        part = block.fitted(budget)
        if part is not None:
            shown += part.lines
            shown_rows.update(id(row) for row in part.rows)
        break
    if shown:
        out += [*heading.lines, *shown]
    if keep_tail:
        out += tail
    out += ["", note(len(shown_rows), 0 if fitted is None else len(fitted.rows))]
    return "\n".join(out) + "\n"
