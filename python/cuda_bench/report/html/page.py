"""The HTML page: summary, embedded data, inline style and script, in one file.

The page fetches nothing: the stylesheet and the script (``assets/``) are inlined, the
data is a ``<script type="application/json">`` element, and a Content-Security-Policy
allows no source at all besides that one style and that one script (by hash), so even an
injected ``<script>`` or a stray URL could not run or load. Everything from the inputs
is escaped: text in the summary with :func:`html.escape`, the data as JSON whose ``<``,
``>`` and ``&`` are written as ``\\u003c``, ``\\u003e`` and ``\\u0026``; the script puts
it into the page with ``textContent`` only.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable
from html import escape
from importlib import resources
from types import MappingProxyType
from typing import Any, Final

from ..._tools_version import __version__
from ..._untrusted import json_text
from ...compare.exit_policy import FailOn
from ...compare.many import MultiComparison
from ...compare.model import Comparison
from .data import DEFAULT_PLOT_LIMIT, page_data
from .distributions import DEFAULT_PLOT_POINTS
from .summary import render_summary, title_text

__all__ = ["DATA_ELEMENT_ID", "asset_text", "embed_json", "render_html", "write_html"]

#: The ``id`` of the element that holds the page's data.
DATA_ELEMENT_ID: Final = "nvbench-data"

_JSON_ESCAPES: Final = MappingProxyType(
    str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
)


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element (no ``</script>``, no
    ``<!--``) and parses back to the same value."""
    text = json_text(data, allow_nan=False, separators=(",", ":"))
    return text.translate(_JSON_ESCAPES)


def asset_text(name: str) -> str:
    """A file of the package's ``assets`` folder, as text."""
    return (resources.files(__package__) / "assets" / name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    value = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{value}'"


def render_html(
    subject: Comparison | MultiComparison,
    *,
    fail_on: str | Iterable[FailOn | str] = (),
    plot_limit: int = DEFAULT_PLOT_LIMIT,
    plot_points: int = DEFAULT_PLOT_POINTS,
) -> str:
    """The self-contained HTML report of a comparison, or of an N-way comparison.

    Every row is in the table (N-way: every state, a column pair per candidate); the first
    ``plot_limit`` rows (N-way: cells) of :func:`.plot_order` (changed ones, largest change
    first, then ambiguous ones) carry a plot of their sample distributions (``plot_points``
    order statistics per side) and effect interval. ``fail_on`` conditions are reported as
    in the other reports (N-way: per candidate).
    """
    if plot_limit < 0 or plot_points < 2:
        raise ValueError("plot_limit must be >= 0 and plot_points >= 2")
    if isinstance(subject, MultiComparison):
        from .matrix_data import matrix_page_data
        from .matrix_summary import matrix_title, render_matrix_summary

        data = matrix_page_data(subject, plot_limit=plot_limit, plot_points=plot_points)
        states = len(data["rows"])
        return _page(
            matrix_title(subject, states), render_matrix_summary(subject, fail_on, states), data
        )
    return _page(
        title_text(subject),
        render_summary(subject, fail_on),
        page_data(subject, plot_limit=plot_limit, plot_points=plot_points),
    )


def write_html(
    subject: Comparison | MultiComparison,
    path: str | os.PathLike[str],
    *,
    plots: int = DEFAULT_PLOT_LIMIT,
    fail_on: str | Iterable[FailOn | str] = (),
    plot_points: int = DEFAULT_PLOT_POINTS,
) -> None:
    """Write :func:`render_html` of ``subject`` to ``path`` atomically (``-``: standard
    output); ``plots`` is ``plot_limit``."""
    from ..._io import write_text

    text = render_html(subject, fail_on=fail_on, plot_limit=plots, plot_points=plot_points)
    write_text(path, text)


def _page(title: str, summary: str, data: Any) -> str:
    """The page around a summary block and the table's data."""
    style = asset_text("report.css")
    script = asset_text("report.js")
    policy = (
        f"default-src 'none'; style-src {_digest(style)}; script-src {_digest(script)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta name="generator" content="nvbench_compare {escape(__version__)}">\n'
        f"<title>{escape(title)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        f"{summary}\n"
        '<main id="results">\n'
        "<noscript><p>The table of every row needs JavaScript; its data is in the "
        f"<code>{DATA_ELEMENT_ID}</code> element of this file.</p></noscript>\n"
        "</main>\n"
        f'<script type="application/json" id="{DATA_ELEMENT_ID}">{embed_json(data)}</script>\n'
        f"<script>{script}</script>\n"
        "</body>\n</html>\n"
    )
