"""The history's static dashboard: an index page and one page per benchmark, no server.

Layout of ``OUT_DIR``::

    index.html              the last run, the latest gate (``report --gate``), recent events
                            and regressions, the benchmarks with their series
    history.css, history.js the style and the script every benchmark page shares
    bench/<k>.html          one page per benchmark: a panel per series
    bench/<k>.js            that benchmark's data, loaded by its page only

Everything works from ``file://``: browsers block ``fetch()`` of local files, so a page
gets its data from a ``<script src>`` that calls ``nvbenchHistory(...)`` with the data as a
JSON literal (escaped as in the comparison report, :func:`.page.embed_json`). A benchmark's
data is read only when its page opens, and a series' chart (inline SVG) is drawn only
when its panel scrolls into view, so a thousand series stay responsive. Text from the
archive reaches the index through :func:`html.escape` and the benchmark pages through
``textContent`` only.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping, Sequence
from html import escape as _html_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ..._errors import stdin_hint
from ..._io import write_owned
from ..._json_input import loads
from ..._read_small import read_small
from ..._untrusted import visible
from ...compare.model import Status
from ...compare.records import SCHEMA_VERSION
from ...history._gate_result import GATE_TOOL
from ..format import format_duration
from ..history import counted, no_change_text, ratio_text, short_commit, too_short_text
from .badges import status_badge
from .page import asset_text, embed_json

if TYPE_CHECKING:
    from ...history.changepoint import SeriesScan
    from ...history.model import ConfirmedChange
    from ...history.series import HistoryView

__all__ = ["RECENT_LIMIT", "GateSummary", "read_gate_report", "site_writes", "write_site"]

#: A page or data file of one benchmark, as :func:`write_site` names them.
_PAGE_NAME: Final = re.compile(r"[0-9]{4,}\.(?:html|js)")
#: The files :func:`write_site` writes at the top of the site, and its pages' folder.
_INDEX: Final = "index.html"
_STYLE: Final = "history.css"
_SCRIPT: Final = "history.js"
_PAGES: Final = "bench"
#: Rows of the index's table of recent regressions.
RECENT_LIMIT: Final = 50


#: As the comparison page's (:func:`.page._page`): nothing but the site's own style sheet
#: and scripts, no inline script, no form, no base: text from an archive fed by untrusted
#: result files can never run as code, even if a page's escaping had a hole.
_POLICY: Final = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def escape(text: str) -> str:
    """Text from the archive for HTML: control characters written as visible escapes (as
    every other output shows them; a browser would hide them), then HTML-escaped."""
    return _html_escape(visible(text))


def _head(title: str, prefix: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(_POLICY)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{escape(title)}</title>\n"
        f'<link rel="stylesheet" href="{prefix}{_STYLE}">\n</head>\n<body>\n'
    )


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], css: str) -> str:
    """An HTML table; cells are HTML already (the caller escapes)."""
    head = "".join(f"<th>{escape(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>\n" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody></table>\n'


def _status(status: str) -> str:
    """A status as its badge (shape and code, :mod:`.badges`), so it reads without an
    emoji font and without colour."""
    try:
        known = Status(status)
    except ValueError:
        return f'<span class="status">{escape(status)}</span>'
    return f'<span class="status {known.name.lower()}">{status_badge(known)}</span>'


def _benchmarks(view: HistoryView) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for position, one in enumerate(view.series):
        groups.setdefault(one.benchmark, []).append(position)
    return dict(sorted(groups.items()))


class GateSummary(msgspec.Struct, frozen=True):
    """What the index shows of a gate's JSON report (``nvbench-history gate --json``)."""

    #: The report's file name and the run(s) it gated, as the report names them.
    source: str
    runs: tuple[str, ...]
    #: Rows per status, in the report's order, zeros left out.
    counts: tuple[tuple[str, int], ...]
    #: The archive runs the gate's levels held (the report's ``archive.runs``); ``None`` for
    #: a gate report written before it named them.
    archive_runs: tuple[str, ...] | None = None


#: The most bytes of a gate report read (``report --gate``), a regular file or a pipe.
_MAX_GATE_REPORT_BYTES: Final = 1 << 30


def read_gate_report(path: str | os.PathLike[str]) -> GateSummary:
    """The summary of the gate report at ``path``; :class:`ValueError` (naming the file)
    for a file that is not an ``nvbench-tools.compare`` JSON report."""
    where = os.fspath(path)
    try:
        # A comparison report holds a few kilobytes a row: a large suite's is far beyond
        # the small inputs' limit (a config, a calibration), and within this one.
        data = read_small(path, _MAX_GATE_REPORT_BYTES)
    except OSError as error:
        hint = stdin_hint(where) if isinstance(error, FileNotFoundError) else ""
        raise ValueError(
            f"{where}: cannot read the gate report ({error.strerror or error}){hint}"
        ) from None
    try:
        document = loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{where}: not a gate report ({error})") from None
    counts = document.get("counts") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("schema") != "nvbench-tools.compare"
        or not isinstance(counts, dict)
        or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts.values()
        )
    ):
        raise ValueError(f"{where}: not a gate report (nvbench-history gate --json)")
    if "schema_version" not in document:
        raise ValueError(f"{where}: not a gate report (no schema_version)")
    version = document["schema_version"]
    said = repr(version) if len(repr(version)) <= 20 else f"{repr(version)[:20]}..."
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(
            f"{where}: not a gate report (schema_version {said} is no positive whole number)"
        )
    if version > SCHEMA_VERSION:
        # A newer format may count its rows differently: not shown as if it were this one.
        raise ValueError(
            f"{where}: a gate report of schema_version {said}, newer than this "
            f"nvbench-tools reads ({SCHEMA_VERSION}); upgrade nvbench-tools"
        )
    tool = document.get("tool")
    name = tool.get("name") if isinstance(tool, dict) else None
    if name != GATE_TOOL:
        # nvbench_compare's reports share the schema but gated no archive.
        program = f"written by {name!r}" if isinstance(name, str) else "no program named"
        raise ValueError(f"{where}: not a gate report ({program}; nvbench-history gate --json)")
    runs: list[str] = []
    for pair in document.get("inputs") or ():
        if isinstance(pair, dict):
            runs.extend(str(one) for one in pair.get("cmp") or () if isinstance(one, str))
    shown = tuple((str(status), n) for status, n in counts.items() if n)
    return GateSummary(Path(path).name, tuple(runs), shown, _archive_runs(where, document))


def _archive_runs(where: str, document: dict[str, Any]) -> tuple[str, ...] | None:
    """The report's ``archive.runs``; ``None`` where it has no ``archive`` (written before
    gates named their archive runs); :class:`ValueError` where it is not a list of names."""
    if document.get("archive") is None:
        return None
    archive = document["archive"]
    runs = archive.get("runs") if isinstance(archive, dict) else None
    if not isinstance(runs, list) or not all(isinstance(run, str) for run in runs):
        raise ValueError(f"{where}: not a gate report (its archive.runs is no list of runs)")
    return tuple(runs)


def _last_run(view: HistoryView) -> str:
    when, commit = max(
        ((one.dates[-1], one.commits[-1]) for one in view.series), key=lambda item: item[0]
    )
    return (
        f'<p class="last-run">Last run: {escape(when.date().isoformat())}, commit '
        f"<code>{escape(short_commit(commit))}</code>.</p>\n"
    )


def _gate(gate: GateSummary | None) -> str:
    if gate is None:
        return ""
    counts = ", ".join(f"{_status(status)} {n}" for status, n in gate.counts) or "no rows"
    runs = ", ".join(f"<code>{escape(run)}</code>" for run in gate.runs)
    return (
        f'<p class="latest-gate">Latest gate ({escape(gate.source)}'
        f"{': ' + runs if runs else ''}): {counts}.</p>\n"
    )


def _index(
    view: HistoryView, pages: dict[str, str], tool_version: str, gate: GateSummary | None
) -> str:
    changes = view.reported_changes()
    events = view.reported_events(changes)
    by_key = {one.key: one for one in view.series}
    parts = [_head("nvbench-history", ""), "<h1>Benchmark history</h1>\n"]
    parts.append(
        f'<p class="counts">{len(view.series)} series in {counted(len(pages), "benchmark")}; '
        f"{counted(len(events), 'event')}, "
        f"{counted(len(changes), 'confirmed change')}.</p>\n"
    )
    if view.series:
        parts.append(_last_run(view))
    parts.append(_gate(gate))
    parts.append("<h2>Events</h2>\n")
    if events:
        rows = [
            (
                f"<code>{escape(short_commit(event.commit))}</code>",
                _status(event.status.value),
                str(len(event.series)),
                escape(ratio_text(event.ratio, event.ratio_lo, event.ratio_hi)),
                ", ".join(
                    f'<a href="{pages[bench]}">{escape(bench)}</a>'
                    for bench in dict.fromkeys(by_key[key].benchmark for key in event.series)
                ),
            )
            for event in events
        ]
        parts.append(
            _table(
                ("Commit", "Status", "States", "Median ratio [95% CI]", "Benchmarks"),
                rows,
                "events",
            )
        )
    else:
        # Not "No change points confirmed" of series too short to test (a clean bill).
        parts.append(f"<p>{escape(no_change_text(view))}</p>\n")
    recent: list[tuple[Any, ConfirmedChange]] = sorted(
        (
            (view.series[p].dates[change.index], change)
            for p, change in changes
            if change.status.value == "SLOW"
        ),
        key=lambda item: item[0],
        reverse=True,
    )[:RECENT_LIMIT]
    parts.append("<h2>Recent regressions</h2>\n")
    if recent:
        regressions: list[tuple[str, ...]] = []
        for when, change in recent:
            one = by_key[change.series]
            regressions.append(
                (
                    escape(when.date().isoformat()),
                    f'<a href="{pages[one.benchmark]}">{escape(one.benchmark)}</a>',
                    escape(one.device_text),
                    escape(one.state),
                    f"<code>{escape(short_commit(change.commit))}</code>",
                    escape(ratio_text(change.ratio, change.ratio_lo, change.ratio_hi)),
                )
            )
        parts.append(
            _table(
                ("Date", "Benchmark", "Device", "State", "Commit", "Ratio [95% CI]"),
                regressions,
                "regressions",
            )
        )
    elif view.detection.too_short() == len(view.series):
        parts.append(f"<p>{escape(no_change_text(view))}</p>\n")
    else:
        parts.append("<p>No regressions.</p>\n")
    parts.append(_creeps(view, pages))
    parts.append(_candidates(view, pages))
    parts.append("<h2>Benchmarks</h2>\n")
    listing = []
    scanned = {key: scan.scanned for key, scan in view.detection.scans}  # once, not per row
    for bench, members in _benchmarks(view).items():
        listing.append(
            (
                f'<a href="{pages[bench]}">{escape(bench)}</a>',
                str(len(members)),
                _changed_cell(view, members, scanned),
            )
        )
    parts.append(_table(("Benchmark", "Series", "Series with changes"), listing, "benchmarks"))
    short = too_short_text(view)
    if short:
        parts.append(f"<p>Series with changes counts the series tested: {escape(short)}.</p>\n")
    parts.append(
        f"<footer>nvbench-history {escape(tool_version)}; false-discovery rate "
        f"{view.detection.fdr:g}, tolerance {view.detection.tolerance:g}.</footer>\n"
        "</body>\n</html>\n"
    )
    return "".join(parts)


def _changed_cell(view: HistoryView, members: list[int], scanned: dict[str, bool]) -> str:
    """A benchmark's count of series with changes: of its series too short to test (the
    scan tested nothing; ``scanned`` by series key) no count, ``-`` where that is all of
    them, as ``trend`` shows them (a ``0`` said they were tested and found clean)."""
    changed = sum(1 for p in members if view.changes_of(p))
    untested = sum(1 for p in members if not scanned[view.series[p].key])
    if not untested:
        return str(changed)
    if untested == len(members) and not changed:
        return "-"
    return f"{changed} ({untested} too short to test)"


def _candidates(view: HistoryView, pages: dict[str, str]) -> str:
    """Changes too recent to confirm (docs/history-detection.md#candidates); empty if none."""
    rows = []
    for position, candidate in enumerate(view.candidates):
        if candidate is None:
            continue
        one = view.series[position]
        rows.append(
            (
                f'<a href="{pages[one.benchmark]}">{escape(one.benchmark)}</a>',
                escape(one.device_text),
                escape(one.state),
                f"<code>{escape(short_commit(candidate.commit))}</code>",
                _status(candidate.status.value),
                escape(ratio_text(candidate.ratio, candidate.ratio_lo, candidate.ratio_hi)),
                str(candidate.runs_after),
                str(candidate.runs_to_decide),
            )
        )
    if not rows:
        return ""
    headers = (
        "Benchmark",
        "Device",
        "State",
        "Commit",
        "So far",
        "Ratio [95% CI]",
        "Runs",
        "To decide",
    )
    return "<h2>Candidates (too recent to confirm)</h2>\n" + _table(headers, rows, "candidates")


def _creeps(view: HistoryView, pages: dict[str, str]) -> str:
    """Changes that took many runs (docs/history-detection.md#creeps); empty if none."""
    rows = []
    for position, creep in view.reported_creeps():
        one = view.series[position]
        rows.append(
            (
                f'<a href="{pages[one.benchmark]}">{escape(one.benchmark)}</a>',
                escape(one.device_text),
                escape(one.state),
                f"<code>{escape(short_commit(creep.first_commit))}</code>",
                f"<code>{escape(short_commit(creep.end_commit))}</code>",
                _status(creep.status.value),
                escape(ratio_text(creep.ratio, creep.ratio_lo, creep.ratio_hi)),
            )
        )
    if not rows:
        return ""
    headers = ("Benchmark", "Device", "State", "From", "To", "Status", "Ratio [95% CI]")
    return "<h2>Creeps (changes over several runs)</h2>\n" + _table(headers, rows, "creeps")


def _number(value: float) -> float | None:
    return value if value == value and abs(value) != float("inf") else None


def _bench_data(
    view: HistoryView, scans: Mapping[str, SeriesScan], bench: str, members: Sequence[int]
) -> dict[str, Any]:
    commits: dict[str, int] = {}
    series = []
    for position in members:
        one = view.series[position]
        level = view.levels[position]
        scan = scans[one.key]
        lo, hi = one.median_bounds()
        series.append(
            {
                "state": visible(one.state),
                "device": one.device,
                "deviceText": visible(one.device_text),
                "machine": visible(one.machine),
                "commits": [commits.setdefault(commit, len(commits)) for commit in one.commits],
                "dates": [when.date().isoformat() for when in one.dates],
                "median": one.medians.tolist(),
                # Each run's own interval; null for a run stored without one.
                "lo": lo,
                "hi": hi,
                "changes": [
                    {
                        "index": change.index,
                        "status": change.status.value,
                        "ratio": ratio_text(change.ratio, change.ratio_lo, change.ratio_hi),
                    }
                    for change in view.changes_of(position)
                ],
                "creeps": [
                    {
                        "first": creep.first,
                        "end": creep.end,
                        "status": creep.status.value,
                        "ratio": ratio_text(creep.ratio, creep.ratio_lo, creep.ratio_hi),
                    }
                    for creep in view.creeps_of(position)
                ],
                # The level's interval: nulls for too few runs for one (history/_level.py).
                "level": [level.since, level.median, *level.bounds()],
                "levelText": format_duration(level.median),
                "falseAlarm": scan.false_alarm_rate,
                # Too few runs to test: the page says so, not "no change".
                "scanned": scan.scanned,
                "smallest": _number(scan.smallest_change),
            }
        )
    return {
        "benchmark": visible(bench),
        "commits": [visible(commit) for commit in commits],
        "series": series,
        "fewestRuns": view.detection.fewest_runs,
    }


def _bench_page(bench: str, stem: str) -> str:
    return (
        _head(f"{bench} - nvbench-history", "../")
        + f'<p><a href="../{_INDEX}">All benchmarks</a></p>\n'
        + f"<h1>{escape(bench)}</h1>\n"
        + '<main id="series"><noscript>The charts need JavaScript.</noscript></main>\n'
        + f'<script src="../{_SCRIPT}"></script>\n'
        + f'<script src="{stem}.js"></script>\n'
        + "</body>\n</html>\n"
    )


def write_site(
    view: HistoryView,
    directory: str | os.PathLike[str],
    *,
    tool_version: str,
    gate: GateSummary | None = None,
) -> Path:
    """Write the dashboard of ``view`` into ``directory`` (created); returns the index.

    ``gate``: the latest gate's result (:func:`read_gate_report`), shown on the index."""
    root = Path(directory)
    folder = root / _PAGES
    if folder.is_symlink():
        # Planted to make the pages land elsewhere: never written through.
        raise FileExistsError(errno.EEXIST, "is a symbolic link; not written through", str(folder))
    if root.exists() and not root.is_dir():
        # mkdir's own words for this are "File exists", which does not say what is wrong.
        raise NotADirectoryError(
            errno.ENOTDIR, "is not a directory (the site is a folder of pages)", str(root)
        )
    parent = root.absolute().parent
    if not root.exists() and not parent.is_dir():
        # mkdir would say "No such file or directory" of the site itself.
        raise FileNotFoundError(
            errno.ENOENT, f"directory '{parent}' does not exist (it is not created)", str(root)
        )
    root.mkdir(exist_ok=True)  # its parent must exist, as for --output-dir
    folder.mkdir(exist_ok=True)
    groups = _benchmarks(view)
    scans = dict(view.detection.scans)
    pages = {bench: f"{_PAGES}/{number:04d}.html" for number, bench in enumerate(groups)}
    write_owned(root / _STYLE, asset_text(_STYLE))
    write_owned(root / _SCRIPT, asset_text(_SCRIPT))
    stems = set()
    for number, (bench, members) in enumerate(groups.items()):
        stem = f"{number:04d}"
        stems.add(stem)
        data = embed_json(_bench_data(view, scans, bench, members))
        write_owned(folder / f"{stem}.js", f"nvbenchHistory({data});\n")
        write_owned(folder / f"{stem}.html", _bench_page(bench, stem))
    index = root / _INDEX
    write_owned(index, _index(view, pages, tool_version, gate))
    _remove_stale_pages(folder, stems)
    return index


def site_writes(directory: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether :func:`write_site` into ``directory`` may replace or remove ``path`` (links
    resolved): its index, styles and script, or a page or data file under ``bench`` (a
    link there :func:`write_site` refuses, writing nothing through it)."""
    root = os.path.realpath(directory)
    target = os.path.realpath(path)
    if os.path.dirname(target) == root:
        return os.path.basename(target) in {_INDEX, _STYLE, _SCRIPT}
    pages = os.path.join(root, _PAGES)
    return os.path.dirname(target) == pages and bool(_PAGE_NAME.fullmatch(os.path.basename(target)))


def _remove_stale_pages(folder: Path, stems: set[str]) -> None:
    """Remove the pages (and their data) an earlier, larger site left in ``folder``: only
    names this writer makes (``NNNN.html``, ``NNNN.js``), so nothing else there is touched."""
    for entry in folder.iterdir():
        if _PAGE_NAME.fullmatch(entry.name) and entry.name.split(".")[0] not in stems:
            entry.unlink()
