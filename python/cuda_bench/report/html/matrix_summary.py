"""The top of the N-way HTML report: the inputs, the correction, one line per candidate.

Per candidate: its counts per status (buttons that show only that status of that
candidate), the geometric mean of candidate/baseline with its interval
(:func:`~cuda.bench.compare.suite.suite_summary`, the text the pairwise reports print),
the expected false flags and the ``--fail-on`` outcome; above them the interval level of
each pair and the level its changes were confirmed at after the correction over the
candidates. Built from the values
the pairwise summary (:mod:`.summary`) shows, with its helpers; static and escaped.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from ..._untrusted import visible
from ...compare.exit_policy import FailOn, normalize_conditions
from ...compare.many import Correction, MultiComparison
from ...compare.model import Comparison, Status
from ...compare.suite import suite_summary
from ..document import suite_change_text, unpaired_warnings
from .badges import status_badge
from .summary import count_list, failure_facts

__all__ = ["correction_text", "matrix_heading", "matrix_title", "render_matrix_summary"]


def _title_parts(
    multi: MultiComparison, states: int | None
) -> tuple[str, list[tuple[Status, str]], str]:
    """The title's words before its verdict, the verdict's (status, words) parts, the rest."""
    if states is None:
        states = len(multi.matrix())
    slow = sum(candidate.comparison.counts[Status.SLOW] for candidate in multi.candidates)
    fast = sum(candidate.comparison.counts[Status.FAST] for candidate in multi.candidates)
    if slow or fast:
        parts = [
            (status, f"{count} {status.value}")
            for status, count in ((Status.SLOW, slow), (Status.FAST, fast))
            if count
        ]
    else:
        parts = [(Status.SAME, "no confirmed changes")]
    plural = "s" if states != 1 else ""
    # Names are untrusted: control characters and bidi overrides shown as escapes.
    names = ", ".join(map(visible, multi.names))
    return f"{visible(multi.baseline)} vs. {names}: ", parts, f" in {states} state{plural}"


def matrix_title(multi: MultiComparison, states: int | None = None) -> str:
    """``base vs. a, b: 3 SLOW, 1 FAST in 40 states`` (cells of every candidate), plain
    text for the page's ``<title>``; ``states`` when the caller has counted the matrix
    already."""
    head, parts, tail = _title_parts(multi, states)
    return head + ", ".join(text for _, text in parts) + tail


def matrix_heading(multi: MultiComparison, states: int | None = None) -> str:
    """:func:`matrix_title` as the page's ``<h1>``, each verdict part with its badge."""
    head, parts, tail = _title_parts(multi, states)
    verdict = ", ".join(status_badge(status, text) for status, text in parts)
    return f"<h1>{escape(head)}{verdict}{escape(tail)}</h1>"


def correction_text(multi: MultiComparison) -> str:
    """The interval level of each pair, and the level its changes were confirmed at."""
    count = multi.family_size
    nominal = f"{multi.confidence * 100:g}%"
    if multi.correction is Correction.NONE or count <= 1:
        text = f"no correction: each pair's intervals and verdicts at {nominal}"
    else:
        text = (
            f"{multi.correction.value.capitalize()} over {count} candidates: each pair's "
            f"intervals at {nominal}, its FAST/SLOW confirmed at "
            f"{multi.pair_confidence * 100:.4g}%, so that the {count} change calls of a "
            f"state hold together at {nominal}"
        )
    methods = {candidate.comparison.method for candidate in multi.candidates}
    if methods != {"ci"}:
        text += " (the correction applies to the ci method only)"
    return text


def _inputs(multi: MultiComparison) -> str:
    first = multi.candidates[0].comparison
    text = f"Baseline <strong>{escape(visible(multi.baseline))}</strong>"
    files = dict.fromkeys(path for pair in first.inputs for path in pair.ref)
    if files:
        text += f" (<code>{escape(visible(', '.join(files)))}</code>)"
    text += f"; method <code>{escape(first.method)}</code>, preset "
    text += f"<code>{escape(first.preset)}</code>"
    if first.filters:
        text += f", filters <code>{escape(visible(' '.join(first.filters)))}</code>"
    text += f". Interval level: {escape(correction_text(multi))}."
    return f'<p class="inputs">{text}</p>'


def _suite(comparison: Comparison) -> str:
    change = suite_summary(comparison)
    parts = [escape(suite_change_text(change)) if change is not None else "n/a"]
    suite = comparison.suite
    if suite is not None and suite.expected_false_flags is not None:
        parts.append(
            escape(
                f"expected false flags {suite.expected_false_flags:.2f} of {suite.flag_rows} row(s)"
            )
        )
    return "<br>".join(parts)


def _candidate_row(
    position: int, name: str, comparison: Comparison, conditions: tuple[FailOn, ...]
) -> str:
    files = dict.fromkeys(path for pair in comparison.inputs for path in pair.cmp)
    label = f"<strong>{escape(visible(name))}</strong>"
    if files:
        label += f'<br><code class="files">{escape(visible(", ".join(files)))}</code>'
    outcome = "".join(f"<div>{value}</div>" for _, value in failure_facts(comparison, conditions))
    return (
        f'<tr data-candidate="{position}"><th scope="row">{label}</th>'
        f"<td>{count_list(comparison.counts, position)}</td>"
        f"<td>{_suite(comparison)}</td><td>{outcome or '—'}</td></tr>"
    )


def _warnings(multi: MultiComparison) -> str:
    notes: list[str] = []
    for candidate in multi.candidates:
        comparison = candidate.comparison
        found = [
            f"{side} file {path} has no counterpart" for side, path in comparison.unpaired_files
        ]
        found += list(unpaired_warnings(comparison))
        notes += [f"{candidate.name}: {note}" for note in found]
    if not notes:
        return ""
    items = "".join(f"<li>{escape(visible(note))}</li>" for note in notes)
    return f'<section class="warnings"><h2>Warnings</h2><ul>{items}</ul></section>'


def render_matrix_summary(
    multi: MultiComparison,
    fail_on: str | Iterable[FailOn | str] = (),
    states: int | None = None,
) -> str:
    """The summary block (a ``<header>`` element) of the N-way page; ``states`` as in
    :func:`matrix_title`."""
    conditions = normalize_conditions(fail_on)
    rows = "".join(
        _candidate_row(position, candidate.name, candidate.comparison, conditions)
        for position, candidate in enumerate(multi.candidates)
    )
    table = (
        '<table class="candidates"><thead><tr><th scope="col">Candidate</th>'
        '<th scope="col">Cells per status</th>'
        f'<th scope="col">Geometric mean of candidate/{escape(visible(multi.baseline))}</th>'
        f'<th scope="col">--fail-on</th></tr></thead><tbody>{rows}</tbody></table>'
    )
    parts = [matrix_heading(multi, states), _inputs(multi), table, _warnings(multi)]
    return f'<header class="summary">{"".join(part for part in parts if part)}</header>'
