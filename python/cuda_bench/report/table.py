"""Tables: a :class:`Table` value (headers, rows, alignments) rendered by :func:`render_table`
in a :class:`TableFormat` — GitHub pipe tables or NVBench's own markdown layout.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from enum import Enum

import msgspec

from .._untrusted import markdown_inline, visible

__all__ = [
    "COLOURED",
    "GITHUB",
    "MARKDOWN",
    "NVBENCH",
    "STATUS_SGR",
    "Align",
    "Table",
    "TableFormat",
    "WidthMeasure",
    "coloured_cell",
    "display_width",
    "escape_cell",
    "markdown_cell",
    "render_nvbench_table",
    "render_table",
    "strip_ansi",
    "visible_cell",
]


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------

# CSI sequences (colours, cursor) and OSC sequences (hyperlinks), which take no columns.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_ZERO_WIDTH_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc"})


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences."""
    return _ANSI.sub("", text)


def display_width(text: str) -> int:
    """Terminal columns ``text`` occupies: ANSI codes take none, wide characters two.

    East-Asian wide and full-width characters (which include emoji such as 🔵) count 2,
    combining marks, format characters (zero-width joiner, variation selectors) and
    control characters 0, everything else 1. Emoji joined by a zero-width joiner count
    as the sum of their parts, which overestimates what some terminals draw.
    """
    # Tables measure every cell. Printable ASCII (no escape codes, no control characters)
    # is one column per character; other texts repeat (status labels), so are remembered.
    if text.isascii() and text.isprintable():
        return len(text)
    return _measured_width(text)


@functools.lru_cache(maxsize=4096)
def _measured_width(text: str) -> int:
    """:func:`display_width` of a text that is not plain printable ASCII."""
    width = 0
    for char in strip_ansi(text):
        if unicodedata.category(char) in _ZERO_WIDTH_CATEGORIES:
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _utf8_width(text: str) -> int:
    """Length in UTF-8 bytes, NVBench's notion of a string's width."""
    return len(text.encode("utf-8"))


#: The colours status cells carry (:data:`.colors.STATUS_ANSI` and its reset, a test keeps
#: the two in step): the only escape sequences a table lets through. Every other control
#: character, in names above all, is written as a visible escape.
STATUS_SGR = frozenset(
    {"\x1b[34m", "\x1b[32m", "\x1b[31m", "\x1b[90m", "\x1b[33m", "\x1b[36m"}
    | {"\x1b[35m", "\x1b[37m", "\x1b[39m"}
)


def escape_cell(text: str) -> str:
    """A cell safe inside a pipe table: ``|`` → ``\\|``; control characters (line breaks,
    escape sequences) → visible escapes (``\\n``, ``\\x1b``)."""
    if "|" not in text and text.isprintable():  # nearly every cell: nothing to escape
        return text
    return visible(text).replace("|", "\\|")


def coloured_cell(text: str) -> str:
    """:func:`escape_cell` for a table whose status cells carry colours: the status colours
    (:data:`STATUS_SGR`) pass, nothing else does. Names in such a table are made
    :func:`~.._untrusted.visible` where they enter it, so they carry none."""
    if "|" not in text and text.isprintable():
        return text
    return visible(text, STATUS_SGR).replace("|", "\\|")


def visible_cell(text: str) -> str:
    """A cell of a table that is not escaped for markdown (NVBench's own layout): control
    characters still become visible escapes, so nothing in a name drives the terminal."""
    return text if text.isprintable() else visible(text)


def markdown_cell(text: str) -> str:
    """A cell of a table meant for a markdown renderer: :func:`.._untrusted.markdown_inline`
    (HTML and markdown syntax shown as text, ``|`` escaped), status colours dropped."""
    return markdown_inline(_ANSI.sub("", text) if "\x1b" in text else text)


class Align(Enum):
    """Horizontal alignment of a column (done with spaces)."""

    LEFT = "left"
    RIGHT = "right"
    CENTER = "center"


class WidthMeasure(Enum):
    """How a table measures text when padding it."""

    #: Terminal columns (:func:`display_width`): ANSI codes ignored, emoji two wide.
    DISPLAY = "display"
    #: UTF-8 bytes, as NVBench's C++ printer measures ``std::string`` lengths.
    UTF8_BYTES = "utf8_bytes"


class TableFormat(msgspec.Struct, frozen=True):
    """How :func:`render_table` lays out a table."""

    measure: WidthMeasure = WidthMeasure.DISPLAY
    #: Escape ``|`` (and flatten line breaks) in headers and cells. Control characters are
    #: always written as visible escapes.
    escape: bool = True
    #: Escape every markdown and HTML special character (a table for a markdown renderer,
    #: whose cells may hold untrusted names).
    markdown: bool = False
    #: Let the status colours (:data:`STATUS_SGR`) through; every other escape sequence is
    #: shown as text in any case.
    colours: bool = False
    #: Write ``:---``/``---:``/``:---:`` in the divider so renderers align columns too.
    alignment_markers: bool = False


#: GitHub-flavoured pipe table, padded for reading as text, safe for any cell text.
GITHUB = TableFormat()
#: :data:`GITHUB` for a markdown renderer (a PR comment, a report file): every cell's
#: markdown and HTML escaped, as names from result files are untrusted text.
MARKDOWN = TableFormat(markdown=True)
#: :data:`GITHUB` whose status cells may carry their colours.
COLOURED = TableFormat(colours=True)
#: Exactly what NVBench's markdown printer writes (spec §8.2); no escaping.
NVBENCH = TableFormat(measure=WidthMeasure.UTF8_BYTES, escape=False)


class Table(msgspec.Struct, frozen=True):
    """A table as data: headers, rows of cell text, and per-column alignments.

    ``header_align`` defaults to ``align``. Rows shorter than the header are padded with
    empty cells; longer rows are an error.
    """

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[Align, ...]
    header_align: tuple[Align, ...] | None = None

    def __post_init__(self) -> None:
        columns = len(self.headers)
        if len(self.align) != columns:
            raise ValueError(f"{len(self.align)} alignments for {columns} columns")
        if self.header_align is not None and len(self.header_align) != columns:
            raise ValueError(f"{len(self.header_align)} header alignments for {columns} columns")
        for row in self.rows:
            if len(row) > columns:
                raise ValueError(f"a row has {len(row)} cells for {columns} columns")

    @classmethod
    def of(
        cls,
        headers: Sequence[str],
        rows: Sequence[Sequence[str]],
        align: Sequence[Align] | Align = Align.LEFT,
        header_align: Sequence[Align] | Align | None = None,
    ) -> Table:
        """Build a table from any sequences; a single :class:`Align` applies to all columns."""
        count = len(headers)
        aligns = (align,) * count if isinstance(align, Align) else tuple(align)
        if isinstance(header_align, Align):
            header_aligns: tuple[Align, ...] | None = (header_align,) * count
        else:
            header_aligns = None if header_align is None else tuple(header_align)
        return cls(
            headers=tuple(headers),
            rows=tuple(tuple(row) for row in rows),
            align=aligns,
            header_align=header_aligns,
        )


def _pad(text: str, width: int, used: int, align: Align) -> str:
    """``text`` (measuring ``used``) padded with spaces to ``width``."""
    gap = max(width - used, 0)
    if align is Align.RIGHT:
        return " " * gap + text
    if align is Align.CENTER:
        left = gap // 2
        return " " * left + text + " " * (gap - left)
    return text + " " * gap


def _divider(width: int, align: Align, markers: bool) -> str:
    """The divider cell of a column ``width`` wide, with alignment colons if asked."""
    dashes = width + 2
    if not markers:
        return "-" * dashes
    if align is Align.LEFT:
        return ":" + "-" * (dashes - 1)
    if align is Align.RIGHT:
        return "-" * (dashes - 1) + ":"
    return ":" + "-" * (dashes - 2) + ":"


def render_table(table: Table, fmt: TableFormat = GITHUB) -> str:
    """Render ``table`` as a pipe table, one ``\\n``-terminated line per row.

    Every cell gets one space either side; columns are padded to the widest header or cell
    (as ``fmt.measure`` counts). Centred text gets ``floor(pad / 2)`` spaces on the left.
    The divider is ``-`` repeated ``width + 2`` (with ``:`` markers if ``fmt`` asks). A
    table without columns renders as the empty string.
    """
    columns = len(table.headers)
    if columns == 0:
        return ""
    rows = [
        list(row) + [""] * (columns - len(row)) if len(row) < columns else row for row in table.rows
    ]
    header_align = table.header_align or table.align
    measure = display_width if fmt.measure is WidthMeasure.DISPLAY else _utf8_width
    clean: Callable[[str], str]
    if fmt.markdown:
        clean = markdown_cell
    elif fmt.escape:
        clean = coloured_cell if fmt.colours else escape_cell
    else:
        clean = visible_cell
    # Column by column: a comparison table has ten thousand rows, and nearly every column
    # holds plain ASCII, which str.ljust/rjust pad in C.
    headers: list[str] = []
    padded: list[list[str]] = []
    widths: list[int] = []
    for column, header in enumerate(table.headers):
        header_text = header if clean is None else clean(header)
        header_used = measure(header_text)
        texts, used, plain = _column_cells([row[column] for row in rows], measure, clean)
        width = max(header_used, max(used, default=0))
        widths.append(width)
        headers.append(_pad(header_text, width, header_used, header_align[column]))
        padded.append(_pad_column(texts, used, width, table.align[column], plain))
    out = ["|" + "".join(f" {cell} |" for cell in headers) + "\n"]
    out.append(
        "|"
        + "".join(
            _divider(width, align, fmt.alignment_markers) + "|"
            for width, align in zip(widths, table.align, strict=True)
        )
        + "\n"
    )
    out.extend("| " + " | ".join(line) + " |\n" for line in zip(*padded, strict=True))
    return "".join(out)


def _column_cells(
    cells: list[str], measure: Callable[[str], int], clean: Callable[[str], str] | None
) -> tuple[list[str], list[int], bool]:
    """A column's cells as written (``clean``: escaped), what each measures, and whether
    all are plain ASCII (nothing to escape, one column or byte per character)."""
    # One test of the joined text answers for every cell (line breaks cannot hide in it:
    # they are not printable).
    joined = "".join(cells)
    if joined.isascii() and joined.isprintable() and _nothing_to_escape(joined, clean):
        return cells, list(map(len, cells)), True
    texts = cells if clean is None else [clean(cell) for cell in cells]
    return texts, [measure(text) for text in texts], False


def _nothing_to_escape(text: str, clean: Callable[[str], str] | None) -> bool:
    """Whether ``clean`` leaves printable ASCII ``text`` as it is."""
    if clean is None or clean is visible_cell:
        return True  # printable ASCII: no control character to show
    if clean is markdown_cell:
        return markdown_inline(text) == text
    return "|" not in text


def _pad_column(
    texts: list[str], used: list[int], width: int, align: Align, plain: bool
) -> list[str]:
    """The cells of a column padded to ``width`` (``used``: what each measures; ``plain``:
    each measures its length)."""
    if plain and align is Align.RIGHT:
        return [text.rjust(width) for text in texts]
    if plain and align is Align.LEFT:
        return [text.ljust(width) for text in texts]
    return [_pad(text, width, count, align) for text, count in zip(texts, used, strict=True)]


def render_nvbench_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table exactly as NVBench's markdown printer writes it (spec §8.2).

    Headers centred (``floor(pad / 2)`` spaces left), cells right-aligned, widths in UTF-8
    bytes, ``-`` dividers, no escaping. Missing cells are empty. No columns → ``""``.
    """
    table = Table.of(headers, rows, align=Align.RIGHT, header_align=Align.CENTER)
    return render_table(table, NVBENCH)
