"""``--output-dir DIR`` of an N-way comparison: the matrix reports plus a folder per candidate.

Layout::

    DIR/summary.md, summary.csv     one line per candidate: counts, geometric mean
    DIR/<matrix reports>            whatever the caller's matrix renderers write
    DIR/report.html                 the N-way HTML page, when asked for
    DIR/<candidate>/highlights.md   the pair's verdict, counts, geometric mean, --fail-on
    DIR/<candidate>/highlights.csv  the same as one CSV line (the summary's line)
    DIR/<candidate>/regressions.md  its SLOW rows, largest change first (the document's
    DIR/<candidate>/regressions.csv table; the CSV report's columns and cells)
    DIR/<candidate>/improvements.md its FAST rows, largest improvement first
    DIR/<candidate>/improvements.csv
    DIR/<candidate>/report.json     the pair's full JSON report

The per-candidate files are the pairwise writers' output on ``multi[name]`` (the CSV
report's columns, the markdown report's headline, the document's tables), so a pair
directory reads like a pairwise comparison's. ``<candidate>`` is the name made safe as a
directory name (:func:`safe_dir_name`). Every file is written atomically; ``DIR`` is
created when missing (its parent must exist), never emptied.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from .._io import write_owned
from .._untrusted import markdown_inline, markdown_link_text, visible
from ..compare.exit_policy import FailOn, evaluate, normalize_conditions
from ..compare.many import MultiComparison
from ..compare.model import Comparison, Row, Status
from ..compare.records import flat_columns, flat_records
from ..compare.suite import suite_summary
from .colors import EMOJI, STATUS_EMOJI
from .csv_report import csv_document
from .document import DocumentOptions, failure_text, render_table_block, suite_change_text
from .html.data import STATUS_ORDER
from .json_report import render_json
from .markdown_report import headline
from .tables import judged_change

__all__ = [
    "CANDIDATE_FILES",
    "HIGHLIGHT_COLUMNS",
    "MatrixRenderer",
    "candidate_folders",
    "highlight_record",
    "output_dir_files",
    "safe_dir_name",
    "write_output_dir",
]

#: Renders one matrix report of an N-way comparison (JSON, CSV, markdown ...) as text.
MatrixRenderer = Callable[[MultiComparison], str]

#: Files of ``DIR`` itself: a candidate's folder never takes one of these names.
_TOP_FILES: Final = frozenset({"summary.md", "summary.csv", "report.html"})

#: Files of each candidate's folder, in the order they are written.
CANDIDATE_FILES: Final = (
    "highlights.md",
    "highlights.csv",
    "regressions.md",
    "regressions.csv",
    "improvements.md",
    "improvements.csv",
    "report.json",
)

#: Longest folder name kept from a candidate name (file systems allow 255 bytes).
_MAX_NAME: Final = 100

#: Columns of ``highlights.csv`` and ``summary.csv``.
HIGHLIGHT_COLUMNS: Final = (
    "candidate",
    "baseline",
    "directory",
    "rows",
    *(f"count.{status.name.lower()}" for status in STATUS_ORDER),
    "geomean",
    "geomean_lo",
    "geomean_hi",
    "geomean_confidence",
    "geomean_rows",
    "correction",
    "pair_confidence",
    "failed_conditions",
)


def safe_dir_name(name: str, taken: Iterable[str] = ()) -> str:
    """``name`` as one safe folder name: every character but letters, digits, ``.``, ``_``
    and ``-`` becomes ``_``, leading and trailing dots go (no ``..``, no hidden folder),
    at most 100 characters; ``-2``, ``-3`` ... when it would equal a name in ``taken``."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")[:_MAX_NAME].strip(".") or "_"
    used = {entry.casefold() for entry in taken}
    chosen, suffix = cleaned, 2
    while chosen.casefold() in used:
        chosen, suffix = f"{cleaned}-{suffix}", suffix + 1
    return chosen


def candidate_folders(names: Iterable[str], reserved: Iterable[str] = ()) -> list[str]:
    """The folder of each candidate ``names`` (in order): safe, and none equal to a file
    of ``DIR`` itself or to ``reserved`` (the caller's matrix report names)."""
    taken = set(_TOP_FILES) | set(reserved)
    folders: list[str] = []
    for name in names:
        folder = safe_dir_name(name, taken)
        taken.add(folder)
        folders.append(folder)
    return folders


def output_dir_files(
    directory: str | os.PathLike[str],
    names: Iterable[str],
    matrix_reports: Iterable[str] = (),
    *,
    html: bool = False,
) -> list[Path]:
    """Every file :func:`write_output_dir` writes into ``directory`` for candidates
    ``names`` (none: only the files of ``DIR`` itself): a caller can check them before it
    compares anything."""
    root = Path(directory)
    reports = list(matrix_reports)
    top = ["summary.md", "summary.csv", *reports, *(["report.html"] if html else [])]
    return [root / name for name in top] + [
        root / folder / name
        for folder in candidate_folders(names, reports)
        for name in CANDIDATE_FILES
    ]


def highlight_record(
    multi: MultiComparison,
    name: str,
    directory: str,
    fail_on: str | Iterable[FailOn | str] = (),
) -> dict[str, Any]:
    """The :data:`HIGHLIGHT_COLUMNS` of one candidate."""
    comparison = multi[name]
    counts = comparison.counts
    change = suite_summary(comparison)
    outcome = evaluate(comparison, fail_on)
    record: dict[str, Any] = {
        "candidate": name,
        "baseline": multi.baseline,
        "directory": directory,
        "rows": len(comparison.rows),
        **{f"count.{status.name.lower()}": counts[status] for status in STATUS_ORDER},
        "correction": str(multi.correction),
        "pair_confidence": multi.pair_confidence,
        "failed_conditions": ";".join(f.condition.value for f in outcome.failures),
    }
    if change is not None:
        record.update(
            geomean=change.ratio,
            geomean_lo=change.lo,
            geomean_hi=change.hi,
            geomean_confidence=change.confidence,
            geomean_rows=change.rows,
        )
    return record


def _highlights_md(multi: MultiComparison, name: str, conditions: tuple[FailOn, ...]) -> str:
    comparison = multi[name]
    counts = comparison.counts
    lines = [
        headline(comparison),
        "",
        f"Candidate `{_code(name)}` against baseline `{_code(multi.baseline)}`.",
        "",
        " · ".join(
            f"{STATUS_EMOJI[status]} {counts[status]} {status.value}"
            for status in STATUS_ORDER
            if counts[status] or status in (Status.SLOW, Status.FAST, Status.SAME)
        ),
    ]
    change = suite_summary(comparison)
    if change is not None:
        lines += [
            "",
            f"Geometric mean of {markdown_inline(name)}/{markdown_inline(multi.baseline)} "
            f"times: {suite_change_text(change)}",
        ]
    lines += [
        "",
        _levels_text(multi),
    ]
    outcome = evaluate(comparison, conditions)
    for failure in outcome.failures:
        failed = _code(failure_text(failure, comparison))
        lines += ["", f"❌ **Failed** `{failed}`"]
    if outcome.conditions and not outcome.failed:
        lines += ["", f"✅ Passed `--fail-on {','.join(c.value for c in outcome.conditions)}`"]
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    """Text for inline code: no line break, no backtick to end it early (names may come
    from file names in an artifact)."""
    return visible(text).replace("`", "'")


def _ranked(comparison: Comparison, status: Status) -> tuple[Row, ...]:
    """The rows of ``status``, largest change first (improvements: largest drop first)."""
    sign = -1.0 if status is Status.SLOW else 1.0

    def key(row: Row) -> float:
        change = judged_change(row)
        return sign * change if change is not None else float("inf")

    return tuple(sorted(comparison.rows_with((status,)), key=key))


def _rows_md(comparison: Comparison, status: Status, title: str, name: str) -> str:
    rows = _ranked(comparison, status)
    lines = [f"### {STATUS_EMOJI[status]} {title} of `{_code(name)}` ({len(rows)})", ""]
    if rows:
        options = DocumentOptions(style=EMOJI)
        lines.append(render_table_block(rows, options, identity=True, markdown=True).rstrip())
    else:
        lines.append(f"No {title.lower()}.")
    return "\n".join(lines) + "\n"


def _rows_csv(comparison: Comparison, status: Status, conditions: tuple[FailOn, ...]) -> str:
    order = {id(row): rank for rank, row in enumerate(_ranked(comparison, status))}
    records = flat_records(comparison, conditions)
    chosen = sorted(
        (rank, record)
        for row, record in zip(comparison.rows, records, strict=True)
        if (rank := order.get(id(row))) is not None
    )
    return csv_document(flat_columns(comparison), (record for _, record in chosen))


def _check_name(name: str) -> None:
    if name in _TOP_FILES or safe_dir_name(name) != name:
        raise ValueError(f"matrix report name {name!r} is not a plain file name like matrix.json")


def write_output_dir(
    multi: MultiComparison,
    directory: str | os.PathLike[str],
    *,
    matrix_reports: Mapping[str, MatrixRenderer] | None = None,
    fail_on: str | Iterable[FailOn | str] = (),
    html_plots: int | None = None,
) -> list[Path]:
    """Write the layout of the module docstring into ``directory``; returns the files
    written, in order.

    ``matrix_reports`` maps file names (``matrix.json``) to renderers of the matrix;
    ``html_plots`` not ``None`` writes ``report.html`` with that many plots. Everything is
    rendered before the first file is written, so an error leaves no partial set behind
    but the files already there. Raises :class:`FileNotFoundError` when the parent of
    ``directory`` is missing, :class:`ValueError` for a matrix report name that is not a
    plain file name.
    """
    conditions = normalize_conditions(fail_on)
    reports = dict(matrix_reports or {})
    for name in reports:
        _check_name(name)
    root = Path(directory)
    texts: list[tuple[Path, str]] = []
    highlights: list[dict[str, Any]] = []
    folders: list[Path] = []
    for name, folder in zip(multi.names, candidate_folders(multi.names, reports), strict=True):
        folders.append(root / folder)
        comparison = multi[name]
        record = highlight_record(multi, name, folder, conditions)
        highlights.append(record)
        contents = (
            _highlights_md(multi, name, conditions),
            csv_document(HIGHLIGHT_COLUMNS, [record]),
            _rows_md(comparison, Status.SLOW, "Regressions", name),
            _rows_csv(comparison, Status.SLOW, conditions),
            _rows_md(comparison, Status.FAST, "Improvements", name),
            _rows_csv(comparison, Status.FAST, conditions),
            render_json(comparison, fail_on=conditions),
        )
        texts += [
            (root / folder / file, text)
            for file, text in zip(CANDIDATE_FILES, contents, strict=True)
        ]
    top = [
        (root / "summary.md", _summary_md(multi, highlights)),
        (root / "summary.csv", csv_document(HIGHLIGHT_COLUMNS, highlights)),
    ]
    top += [(root / name, render(multi)) for name, render in reports.items()]
    if html_plots is not None:
        from .html import render_html

        page = render_html(multi, fail_on=conditions, plot_limit=html_plots)
        top.append((root / "report.html", page))
    _refuse_inputs(multi, [path for path, _ in [*top, *texts]])
    root.mkdir(exist_ok=True)
    for folder_path in folders:
        if folder_path.is_symlink():
            # Planted to make the files named below land elsewhere: never written through.
            raise FileExistsError(
                errno.EEXIST, "is a symbolic link; not written through", str(folder_path)
            )
        folder_path.mkdir(exist_ok=True)
    written: list[Path] = []
    for path, text in [*top, *texts]:
        write_owned(path, text)
        written.append(path)
    return written


def _refuse_inputs(multi: MultiComparison, targets: Sequence[Path]) -> None:
    """:class:`FileExistsError` when a file the folder would hold is one of the
    comparison's input files (``--output-dir .`` beside a ``matrix.json`` input, or a
    candidate ``sub`` beside ``sub/report.json``): replacing it would destroy the evidence."""

    def identity(path: str | Path) -> tuple[int, int] | None:
        try:
            found = os.stat(path)
        except (OSError, ValueError):
            return None
        return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None

    existing = {found: path for path in targets if (found := identity(path)) is not None}
    if not existing:
        return
    for name in multi.names:
        for pair in multi[name].inputs:
            for source in (*pair.ref, *pair.cmp):
                found = identity(source)
                target = None if found is None else existing.get(found)
                if target is not None:
                    raise FileExistsError(
                        errno.EEXIST,
                        f"is the input file '{source}'; --output-dir does not replace it",
                        str(target),
                    )


def _summary_md(multi: MultiComparison, highlights: Sequence[Mapping[str, Any]]) -> str:
    shown = (Status.SLOW, Status.FAST, Status.AMBG, Status.SAME)
    header = ["Candidate", *(f"{STATUS_EMOJI[s]} {s.value}" for s in shown), "Geometric mean"]
    lines = [
        f"### {markdown_inline(multi.baseline)} vs. "
        f"{', '.join(f'`{_code(name)}`' for name in multi.names)}",
        "",
        f"| {' | '.join(header)} |",
        f"|{'|'.join(['---'] + ['---:'] * (len(header) - 1))}|",
    ]
    for record in highlights:
        name = markdown_link_text(str(record["candidate"]))
        change = suite_summary(multi[str(record["candidate"])])
        mean = suite_change_text(change).replace("|", "\\|") if change is not None else "n/a"
        counts = [str(record[f"count.{s.name.lower()}"]) for s in shown]
        link = f"[{name}]({record['directory']}/highlights.md)"
        lines.append(f"| {' | '.join([link, *counts, mean])} |")
    lines += [
        "",
        _levels_text(multi),
    ]
    return "\n".join(lines) + "\n"


def _levels_text(multi: MultiComparison) -> str:
    """The interval level of the rows, and the level their changes were confirmed at."""
    nominal = f"{multi.confidence * 100:g}%"
    if multi.pair_confidence == multi.confidence:
        return f"Intervals at {nominal} ({multi.correction} over {multi.family_size} candidates)."
    return (
        f"Intervals at {nominal}; FAST/SLOW confirmed at {multi.pair_confidence * 100:.4g}% per "
        f"pair ({multi.correction} over {multi.family_size} candidates, {nominal} per state)."
    )
