"""The N-way matrix as text: one table per benchmark and device, one row per state.

Layout (GitHub markdown, as the pairwise document)::

    # <benchmark>

    ## [0] <device>

    | axis ... | <baseline> | <a> | <a> status | <b> | <b> status | Best |

    # Summary

    | Candidate | Geometric mean | SAME | FAST | SLOW | ... |

The baseline column shows the baseline's center with its timing interval (``intervals``
display) or the center alone (``simple``); each candidate's change column is the pairwise
``Change`` cell (the effect with its confidence interval, :func:`.tables.change_text`) and
its status column the pairwise status label. ``Best`` names the fastest contender
(:attr:`~cuda.bench.compare.many.MatrixRow.best`), ``tie: a, b`` when intervals overlap,
``all tie`` when the baseline and every candidate do, ``undecided`` when a contender has
no interval to rank it by (:func:`best_text`: the same words in the HTML report). The
summary's table is the footer
per candidate: the geometric mean of its changes with the interval (the pairwise
comparison's suite summary) and its status counts.

:func:`render_matrix_document` is what the terminal shows, :func:`render_matrix_markdown`
the ``--markdown`` report. Both are pure functions of the comparison and the options.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import msgspec

from .._untrusted import markdown_inline, visible
from ..compare.exit_policy import FailOn
from ..compare.many import MatrixRow, MultiComparison
from ..compare.many_gate import ManyOutcome, evaluate_many
from ..compare.model import Row, SideEstimate, Status
from ..compare.suite import suite_summary
from .colors import EMOJI, StatusStyle
from .document import DocumentOptions, suite_change_text
from .format import format_duration
from .intervals import CompactInterval, align_compact_intervals, compact_interval
from .table import COLOURED, MARKDOWN, Align, Table, render_table
from .tables import Display, axis_cell, change_text, is_visible

__all__ = [
    "MATRIX_DISPLAYS",
    "best_label",
    "best_text",
    "matrix_sections",
    "matrix_table",
    "render_matrix_document",
    "render_matrix_markdown",
    "render_matrix_summary",
    "shown_states",
]

#: The ``--display`` layouts the matrix has (the others are pairwise only).
MATRIX_DISPLAYS: Final = (Display.INTERVALS.value, Display.SIMPLE.value)

#: Statuses in the order the footer counts them.
_COUNT_ORDER: Final = (
    Status.SAME,
    Status.FAST,
    Status.SLOW,
    Status.AMBG,
    Status.UNKNOWN,
    Status.ADDED,
    Status.REMOVED,
    Status.SKIP,
)
_CHANGED: Final = frozenset(
    {Status.FAST, Status.SLOW, Status.UNKNOWN, Status.ADDED, Status.REMOVED}
)


def best_label(best: Sequence[str], contenders: int) -> str:
    """The words of a ``Best`` cell, the same in every output that shows one (terminal,
    markdown, HTML): the fastest contender's name; ``tie: a, b`` for the contenders whose
    intervals overlap the fastest one's; ``all tie`` when that is all ``contenders`` (the
    baseline and every candidate); ``undecided`` when no winner can be named (a candidate
    compared has no interval, or the baseline lacks the state)."""
    if not best:
        return "undecided"
    if len(best) == 1:
        return best[0]
    return "all tie" if len(best) == contenders else "tie: " + ", ".join(best)


def best_text(line: MatrixRow) -> str:
    """The ``Best`` cell of ``line`` (:func:`best_label`)."""
    return best_label(line.best, 1 + len(line.cells))


# ---------------------------------------------------------------------------------------
# Which states a table shows


def _cells(line: MatrixRow) -> list[Row]:
    return [cell for cell in line.cells if cell is not None]


def _change(row: Row) -> float | None:
    effect = row.verdict.judged_effect
    if effect is not None:
        return effect.ratio - 1.0
    return row.frac_diff


def _largest_change(line: MatrixRow) -> float:
    changes = [change for change in map(_change, _cells(line)) if change is not None]
    finite = [change for change in changes if math.isfinite(change)]
    return max(finite, default=-math.inf)


def shown_states(lines: Sequence[MatrixRow], options: DocumentOptions) -> list[MatrixRow]:
    """The states a table shows under the pairwise table options, applied to every
    candidate: a state is kept when some candidate's row would be (``--threshold-diff``,
    ``--only-changed``; states skipped by every pair only with ``--show-skipped``), in
    ``--sort`` order (``change``: the largest slowdown of any candidate first)."""
    kept = []
    for line in lines:
        rows = _cells(line)
        if not options.show_skipped and all(row.status is Status.SKIP for row in rows):
            continue
        if options.only_changed and not any(row.status in _CHANGED for row in rows):
            continue
        if not any(is_visible(row, options.min_change) for row in rows):
            continue
        kept.append(line)
    if options.order is None:
        return kept
    if options.order.value == "name":
        return sorted(kept, key=lambda line: (line.state.key, line.state.occurrence))
    return sorted(kept, key=lambda line: -_largest_change(line))


# ---------------------------------------------------------------------------------------
# Tables


def _axis_names(lines: Sequence[MatrixRow]) -> list[str]:
    names: dict[str, None] = {}
    for line in lines:
        names.update(dict.fromkeys(value.name for value in line.axis_values))
    return list(names)


def _baseline_compact(side: SideEstimate | None) -> CompactInterval | None:
    if side is None or side.center is None:
        return None
    interval = side.interval
    parts = None
    if interval is not None:
        parts = compact_interval(interval.lo, interval.center, interval.hi)
    return parts if parts is not None else compact_interval(None, side.center, None)


def _baseline_cells(lines: Sequence[MatrixRow], display: Display) -> list[str]:
    if display is Display.SIMPLE:
        return [
            ""
            if line.baseline is None or line.baseline.center is None
            else format_duration(line.baseline.center)
            for line in lines
        ]
    return align_compact_intervals([_baseline_compact(line.baseline) for line in lines])


def matrix_table(
    many: MultiComparison, lines: Sequence[MatrixRow], options: DocumentOptions
) -> Table:
    """The table of ``lines`` (one benchmark and device) as data. Axis and input names
    (untrusted) get their control characters shown, so a coloured table lets none pass."""
    axes = _axis_names(lines)
    headers = [*map(visible, axes), visible(many.baseline)]
    align = [Align.RIGHT] * len(axes) + [Align.RIGHT]
    columns: list[list[str]] = [[axis_cell(line, name) for line in lines] for name in axes]
    columns.append(_baseline_cells(lines, options.display))
    for position, name in enumerate(many.names):
        cells = [line.cells[position] for line in lines]
        headers += [visible(name), f"{visible(name)} status"]
        align += [Align.RIGHT, Align.CENTER]
        columns.append(["" if cell is None else change_text(cell) for cell in cells])
        columns.append(["" if cell is None else options.style.label(cell.status) for cell in cells])
    headers.append("Best")
    align.append(Align.LEFT)
    columns.append([visible(best_text(line)) for line in lines])
    return Table.of(headers, list(zip(*columns, strict=True)), align)


def _legend(many: MultiComparison, display: Display, text: Callable[[str], str]) -> str:
    baseline = "center and timing interval [-a, +b]" if display is Display.INTERVALS else "center"
    level = f"{many.confidence * 100:g}%"
    adjusted = (
        f" (FAST/SLOW confirmed at {many.pair_confidence * 100:.4g}%: the {level} level "
        f"{many.correction.value}-corrected over {many.family_size} candidates)"
        if many.pair_confidence != many.confidence
        else ""
    )
    return (
        f"{text(many.baseline)}: the baseline's {baseline}; per candidate: change against the "
        f"baseline with its {level} confidence interval{adjusted} and its status; Best: the "
        "fastest; tie: the contenders whose intervals overlap the fastest one's (all tie: "
        "every one); undecided: a contender has no interval."
    )


def matrix_sections(
    lines: Sequence[MatrixRow],
) -> list[tuple[str, list[tuple[str, list[MatrixRow]]]]]:
    """``(benchmark heading, [(device title, lines), ...])`` in matrix order."""
    groups: dict[tuple[str, str], dict[int | None, list[MatrixRow]]] = {}
    for line in lines:
        groups.setdefault((line.state.input, line.state.benchmark), {}).setdefault(
            line.state.device, []
        ).append(line)
    inputs = {line.state.input for line in lines if line.state.input}
    sections = []
    for (source, benchmark), devices in groups.items():
        heading = f"{benchmark} ({source})" if len(inputs) > 1 and source else benchmark
        sections.append((heading, [(_device_title(found), found) for found in devices.values()]))
    return sections


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _device_title(lines: Sequence[MatrixRow]) -> str:
    """``[0] H100`` for the section's device; where candidates ran on other devices than
    the baseline (``--col Device``), ``[0] H100 (baseline) vs. [1] A100``."""
    base: str | None = None
    others: dict[int, str] = {}
    for line in lines:
        for row in _cells(line):
            device = row.ref_device if row.ref_device is not None else row.cmp_device
            if device is None:
                continue
            name = row.ref_device_name if row.ref_device is not None else row.cmp_device_name
            if base is None:
                base_device = device
                base = f"[{device}] {name or ''}".rstrip()
            if row.cmp_device is not None and row.cmp_device != base_device:
                others.setdefault(
                    row.cmp_device, f"[{row.cmp_device}] {row.cmp_device_name or ''}".rstrip()
                )
    if base is None:
        return ""
    if not others:
        return base
    return f"{base} (baseline) vs. {', '.join(others.values())}"


def _section_blocks(
    many: MultiComparison,
    lines: Sequence[MatrixRow],
    options: DocumentOptions,
    *,
    markdown: bool = False,
) -> list[tuple[int, str]]:
    """``(states shown, text)`` of each benchmark's block; ``markdown``: headings and cells
    escaped for a markdown renderer (names are untrusted text)."""
    blocks = []
    text = markdown_inline if markdown else visible
    fmt = MARKDOWN if markdown else COLOURED
    for heading, devices in matrix_sections(lines):
        out = [f"# {text(heading)}\n\n"]
        count = 0
        for title, found in devices:
            shown = shown_states(found, options)
            if not shown:
                continue
            count += len(shown)
            if title:
                out.append(f"## {text(title)}\n\n")
            out.append(f"{render_table(matrix_table(many, shown, options), fmt)}\n")
        if count:
            blocks.append((count, "".join(out)))
    return blocks


# ---------------------------------------------------------------------------------------
# Summary


def _count_header(status: Status, style: StatusStyle) -> str:
    return StatusStyle(ansi=False, emoji=style.emoji).label(status)


def _geomean_text(many: MultiComparison, position: int) -> str:
    change = suite_summary(many.candidates[position].comparison)
    return "" if change is None else suite_change_text(change)


def _best_counts(
    lines: Sequence[MatrixRow], names: Sequence[str], text: Callable[[str], str]
) -> str:
    wins = dict.fromkeys(names, 0)
    ties = undecided = 0
    for line in lines:
        if all(row.status is Status.SKIP for row in _cells(line)):
            continue  # nothing measured: no contest
        if not line.best:
            undecided += 1
        elif len(line.best) > 1:
            ties += 1
        else:
            wins[line.best[0]] = wins.get(line.best[0], 0) + 1
    parts = [f"{text(name)} {count}" for name, count in wins.items()]
    return f"{', '.join(parts)}; tie {ties}; undecided {undecided}"


def _outcome_lines(outcome: ManyOutcome, text: Callable[[str], str]) -> list[str]:
    if not outcome.conditions:
        return []
    names = ",".join(condition.value for condition in outcome.conditions)
    gate = ", ".join(text(name) for name in outcome.gate)  # names the user gave: text
    lines = []
    for item in outcome.candidates:
        if not item.failed:
            continue
        causes = "; ".join(
            f"{failure.condition.option}: {failure.count}" for failure in item.outcome.failures
        )
        role = "" if item.gates else " (not gating)"
        lines.append(f"- Failed{role}: {text(item.name)}: {causes}")
    if not outcome.failed:
        lines.append(f"- Passed: --fail-on {names} (gate: {gate})")
    return lines


def render_matrix_summary(
    many: MultiComparison,
    options: DocumentOptions | None = None,
    *,
    fail_on: Iterable[FailOn | str] = (),
    gate: Iterable[str] | None = None,
    markdown: bool = False,
) -> str:
    """The ``# Summary`` block: the footer per candidate, the best counts, settings,
    warnings and the ``--fail-on`` outcome per candidate (ends with a newline).
    Names (untrusted: ``--col`` takes them from the file) have their control characters
    shown; ``markdown``: escaped for a markdown renderer as well."""
    options = options or DocumentOptions()
    text = markdown_inline if markdown else visible
    lines = many.matrix()
    headers = ["Candidate", "Geometric mean vs. baseline"]
    headers += [_count_header(status, options.style) for status in _COUNT_ORDER]
    rows = []
    for position, candidate in enumerate(many.candidates):
        counts = candidate.comparison.counts
        rows.append(
            [
                visible(candidate.name),
                _geomean_text(many, position),
                *(str(counts[status]) for status in _COUNT_ORDER),
            ]
        )
    table = Table.of(headers, rows, [Align.LEFT, Align.LEFT] + [Align.RIGHT] * len(_COUNT_ORDER))
    first = many.candidates[0].comparison
    level = f"{many.confidence * 100:g}%"
    if many.pair_confidence != many.confidence:
        level += (
            f" intervals; FAST/SLOW confirmed at {many.pair_confidence * 100:.4g}% per "
            f"candidate, so at {level} for the {many.family_size} candidates together "
            f"({many.correction.value})"
        )
    out = [
        "# Summary",
        "",
        f"- Baseline: {text(many.baseline)}; {_count(len(lines), 'state')}; "
        f"{_count(len(many.candidates), 'candidate')}",
        "",
        render_table(table, MARKDOWN if markdown else COLOURED).rstrip("\n"),
        "",
        f"- Columns: {_legend(many, options.display, text)}",
        f"- Best: {_best_counts(lines, (many.baseline, *many.names), text)}",
        f"- Confidence: {level}",
        f"- Method: {first.method} (preset {first.preset})",
    ]
    hidden = len(lines) - len(shown_states(lines, options))
    if hidden:
        out.append(
            f"- Hidden: {hidden} state(s) skipped by the benchmark in every pair "
            "(--show-skipped) or left out by --only-changed/--threshold-diff; the counts see "
            "every state"
        )
    if first.filters:
        out.append(f"- Filters: {text(' '.join(first.filters))}")
    for candidate in many.candidates:
        for warning in candidate.comparison.warnings:
            out.append(f"- Warning ({text(candidate.name)}): {text(warning)}")
    out += _outcome_lines(evaluate_many(many, fail_on, gate=gate), text)
    return "\n".join(out) + "\n"


def render_matrix_document(
    many: MultiComparison,
    options: DocumentOptions | None = None,
    *,
    fail_on: Iterable[FailOn | str] = (),
    gate: Iterable[str] | None = None,
) -> str:
    """What the terminal shows: the benchmark sections, then the summary."""
    options = options or DocumentOptions()
    blocks = _section_blocks(many, many.matrix(), options)
    summary = render_matrix_summary(many, options, fail_on=fail_on, gate=gate)
    return "".join(text for _, text in blocks) + summary


def render_matrix_markdown(
    many: MultiComparison,
    options: DocumentOptions | None = None,
    *,
    fail_on: Iterable[FailOn | str] = (),
    gate: Iterable[str] | None = None,
    limit: int | None = None,
) -> str:
    """The ``--markdown`` report: a headline, the summary (footer per candidate first),
    then as many benchmark sections as fit in ``limit`` characters (``None``: all), and
    a line saying how many states were left out. Statuses carry their emoji."""
    options = msgspec.structs.replace(options or DocumentOptions(), style=EMOJI)
    names = ", ".join(map(markdown_inline, many.names))
    head = f"## nvbench_compare: {markdown_inline(many.baseline)} vs. {names}\n\n"
    summary = render_matrix_summary(many, options, fail_on=fail_on, gate=gate, markdown=True)
    summary = summary.replace("# Summary", "### Summary", 1) + "\n### All states\n\n"
    blocks = _section_blocks(many, many.matrix(), options, markdown=True)
    text = head + summary
    left_out = 0
    for count, block in blocks:
        shifted = block.replace("\n## ", "\n##### ").replace("# ", "#### ", 1)
        if left_out or (limit is not None and len(text) + len(shifted) + 200 > limit):
            left_out += count
            continue
        text += shifted
    if left_out:
        text += (
            f"{left_out} state(s) left out to stay within {limit} characters "
            "(--markdown-limit); the JSON and CSV reports have every state.\n"
        )
    return text
