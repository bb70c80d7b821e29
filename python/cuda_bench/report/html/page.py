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
import json
from collections.abc import Iterable
from html import escape
from importlib import resources
from types import MappingProxyType
from typing import Any, Final

from ... import __version__
from ...compare.exit_policy import FailOn
from ...compare.model import Comparison
from .data import DEFAULT_PLOT_LIMIT, page_data
from .distributions import DEFAULT_PLOT_POINTS
from .summary import render_summary, title_text

__all__ = ["DATA_ELEMENT_ID", "asset_text", "embed_json", "render_html"]

#: The ``id`` of the element that holds the page's data.
DATA_ELEMENT_ID: Final = "nvbench-data"

_JSON_ESCAPES: Final = MappingProxyType(
    str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
)


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element (no ``</script>``, no
    ``<!--``) and parses back to the same value."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.translate(_JSON_ESCAPES)


def asset_text(name: str) -> str:
    """A file of the package's ``assets`` folder, as text."""
    return (resources.files(__package__) / "assets" / name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    value = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{value}'"


def render_html(
    comparison: Comparison,
    *,
    fail_on: str | Iterable[FailOn | str] = (),
    plot_limit: int = DEFAULT_PLOT_LIMIT,
    plot_points: int = DEFAULT_PLOT_POINTS,
) -> str:
    """The self-contained HTML report of ``comparison``.

    Every row is in the table; the first ``plot_limit`` rows of :func:`.plot_order` (changed
    rows, largest change first, then ambiguous ones) carry a plot of their sample
    distributions (``plot_points`` order statistics per side) and effect interval.
    ``fail_on`` conditions are reported as in the other reports.
    """
    if plot_limit < 0 or plot_points < 2:
        raise ValueError("plot_limit must be >= 0 and plot_points >= 2")
    style = asset_text("report.css")
    script = asset_text("report.js")
    data = embed_json(page_data(comparison, plot_limit=plot_limit, plot_points=plot_points))
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
        f"<title>{escape(title_text(comparison))}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        f"{render_summary(comparison, fail_on)}\n"
        '<main id="results">\n'
        "<noscript><p>The table of every row needs JavaScript; its data is in the "
        f"<code>{DATA_ELEMENT_ID}</code> element of this file.</p></noscript>\n"
        "</main>\n"
        f'<script type="application/json" id="{DATA_ELEMENT_ID}">{data}</script>\n'
        f"<script>{script}</script>\n"
        "</body>\n</html>\n"
    )
