"""``--html PATH``: the comparison as one self-contained, offline HTML page.

>>> from cuda.bench.report.html import render_html, write_html
>>> page = render_html(comparison, plot_limit=200)       # doctest: +SKIP
>>> write_html(compare_many(base, {"a": a, "b": b}), "report.html", plots=200)  # doctest: +SKIP

The page has the summary at the top (the verdict line, counts per status, geometric mean,
worst regressions, ambiguous reasons), then a table of every row that sorts by any column
and filters by status, benchmark and text, and for the most changed rows an inline SVG of
both sides' sample distributions and of the effect interval against the tolerance band.
Modules: :mod:`.data` (the page's JSON data), :mod:`.distributions` (what a plot holds),
:mod:`.summary` (the static top), :mod:`.page` (the file); ``assets/`` holds the inline
stylesheet and script. An N-way comparison (:class:`~cuda.bench.compare.many.MultiComparison`)
gets the same page with one row per state and a change and status column per candidate
(:mod:`.matrix_data`, :mod:`.matrix_summary`).
"""

from .data import DEFAULT_PLOT_LIMIT, page_data
from .distributions import DEFAULT_PLOT_POINTS
from .page import render_html, write_html

__all__ = ["DEFAULT_PLOT_LIMIT", "DEFAULT_PLOT_POINTS", "page_data", "render_html", "write_html"]
