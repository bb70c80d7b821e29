"""Names from result files are untrusted text: how every renderer writes them.

Benchmark, state, axis and device names come from files a pull request or a CI artifact
may have crafted. Written raw they can move a terminal's cursor or retitle its window
(ANSI/OSC escape sequences, ``\\r``), open an HTML comment that swallows the rest of a PR
comment, or run as a formula when a CSV file is opened in a spreadsheet. Each output kind
has one function here:

* :func:`visible` — terminal and plain text: every control character (C0, DEL, C1), the
  Unicode line and paragraph separators, the bidirectional overrides and marks, which
  reorder what a reader sees, and the characters that show nothing (zero-width space,
  byte order mark...) become visible escapes (``\\x1b``, ``\\n``, ``\\u202e``); our own
  status colours (``keep``) may pass.
* :func:`markdown_inline` — a markdown cell or heading: :func:`visible`, then every
  character CommonMark gives a meaning to is backslash-escaped, so a renderer with raw
  HTML enabled shows the text as written and hides none of it; and a word joiner (U+2060,
  which shows nothing) goes where GitHub would make a mention, an issue reference or a
  link of plain text (``@\u2060octocat``, ``\\#\u20601``, ``https:\u2060//``,
  ``www\u2060.``), which no backslash prevents: GitHub finds them in the rendered text.
  :func:`markdown_html` is the same for text inside an HTML block of a markdown file.
* :func:`csv_text` — a CSV text cell: :func:`visible` (a cell a terminal shows, through
  ``cat`` or ``--csv -``, moves no cursor), then one that begins with ``=``, ``+``, ``-``
  or ``@`` (what spreadsheet programs evaluate) gets a leading ``'``.
* :func:`json_names` — a list of names in one text cell: a JSON array, which no name can
  break as a separator-joined list, with what :func:`visible` escapes as JSON escapes.
* :func:`json_text` — ``json.dumps`` keeping non-ASCII text as it is, but a lone surrogate
  (how Python reads a file name's byte that is no UTF-8) as its ``\\u`` escape, so that
  the report can be written as UTF-8 at all.
* :func:`utf8_text` — text kept as it is but for a lone surrogate, written as the escape
  :func:`visible` shows it with (``\\udcff``): for a store that holds UTF-8 only (an
  archive's ``source`` column) and for any report text on its way to a file.

Text a user gives on a command line for a store to keep (an archive's commit, branch and
tags) is refused instead when it holds a control character: :func:`control_character`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from types import MappingProxyType
from typing import Any, Final

__all__ = [
    "SIDE_FILES_ANYWHERE",
    "control_character",
    "csv_text",
    "json_names",
    "json_text",
    "markdown_html",
    "markdown_inline",
    "markdown_link_text",
    "shortened_numbers",
    "utf8_text",
    "visible",
]

#: The environment variable ``--side-files-anywhere`` sets (to ``1``): side files are read
#: outside the JSON file's directory tree as well (:mod:`cuda.bench.results._sidecar`). An
#: environment variable so that the processes a comparison is split over inherit it.
SIDE_FILES_ANYWHERE = "NVBENCH_SIDE_FILES_ANYWHERE"

#: What :func:`visible` escapes: C0 controls, DEL, C1 controls, line and paragraph
#: separators, the bidirectional embeddings, overrides, isolates and marks, the characters
#: that show nothing (soft hyphen, zero-width space and joiners, word joiner and invisible
#: operators, byte order mark, Hangul fillers, the combining grapheme joiner, Khmer's
#: invisible vowels, variation selectors, interlinear annotation marks, musical format
#: characters, tag characters) and every other format character, private-use, surrogate
#: or unassigned code point (:func:`_hidden`): two names that differ only by them would
#: look identical.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
#: Of those, the ones Python counts as printable (``str.isprintable``'s fast path misses them).
_PRINTABLE_HIDDEN = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u202a-\u202e\u2066-\u2069\u3164\ufe00-\ufe0f"
    "\uffa0\U000e0100-\U000e01ef]"
)
#: Of :data:`_UNSAFE`, what breaks a line or reorders what a reader sees: C0 controls, DEL, C1
#: controls, the line and paragraph separators and the bidirectional controls (marks,
#: embeddings, overrides, isolates). No label a user gives an archive holds one
#: (:func:`control_character`).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
#: Unicode categories escaped wherever they occur: format, private use, surrogates, unassigned.
_HIDDEN_CATEGORIES: Final = frozenset({"Cf", "Co", "Cs", "Cn"})
_NAMED: Final = MappingProxyType({"\n": "\\n", "\r": "\\r", "\t": "\\t"})
#: SGR sequences (colours), the only escape sequences a caller may let through.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
#: ASCII punctuation that means something inside a line of CommonMark or GitHub markdown
#: (escapes, code, emphasis, links and images, HTML and entities, table cells,
#: strikethrough, a heading's closing ``#``s, math); a backslash before any ASCII
#: punctuation makes it literal. Line-start syntax (lists, quotes) cannot occur: the text
#: always follows ``| `` or ``# ``.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_<>&|~#$])")
#: Brackets only make a link or an image where ``](`` or ``][`` follow each other: escaped
#: there, and ``[0]`` or ``[-0.1, +0.2]`` stay as they are.
_LINK_JOIN = re.compile(r"\](?=[(\[])")
#: In a link's text every bracket is escaped too: a bare ``]`` would end the text early.
_LINK_TEXT_SPECIAL = re.compile(r"([\\`*_<>&|~#$\[\]])")
#: Where GitHub turns plain text into a notification, a reference or a link once the
#: markdown is rendered (so a backslash before it changes nothing): a mention or team
#: mention (``@octocat``, ``@org/team``) and an e-mail address (``a@b.example``) at ``@``,
#: an issue reference at ``#`` (``#1``, ``owner/repo#1``) and ``GH-1``, an autolink at
#: ``://`` (``https://``, ``ftp://``) and ``www.``. A word joiner goes after each match.
_REFERENCE = re.compile(r"[@#]|:(?=//)|(?i:www)(?=\.)|(?i:gh-)(?=\d)")
#: The word joiner (U+2060): it shows nothing and breaks no line, but no GitHub pattern
#: reads across it.
_JOINER: Final = "\u2060"
#: An escaped underscore between two letters or digits, where CommonMark never reads it
#: as emphasis.
_INNER_UNDERSCORE = re.compile(r"(?<=[^\W_])\\_(?=[^\W_])")
#: A number no NVBench file holds (an int64 has at most 19 digits, a ``%.5g`` float fewer):
#: a message shows its first :data:`_NUMBER_HEAD` digits (:func:`shortened_numbers`).
_LONG_NUMBER = re.compile(r"\d{41,}")
_NUMBER_HEAD: Final = 20
#: Characters that make a spreadsheet evaluate a cell (OWASP's CSV injection list; its
#: tab and carriage return never start a :func:`visible` text).
_FORMULA_START = ("=", "+", "-", "@")


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _hidden(text: str) -> str:
    """``text`` with the characters of :data:`_UNSAFE` and of :data:`_HIDDEN_CATEGORIES`
    escaped (the categories need a look per character: no pattern names them)."""
    import unicodedata  # here: only text that is not plainly printable gets this far

    return "".join(
        _escape(char)
        if _UNSAFE.match(char) or unicodedata.category(char) in _HIDDEN_CATEGORIES
        else char
        for char in text
    )


def control_character(text: str) -> str | None:
    """The first control character of ``text`` (:data:`_CONTROL`: C0, DEL, C1, a line or
    paragraph separator, a bidirectional control) as :func:`visible` writes it (``\\x1b``,
    ``\\n``, ``\\u202e``), or ``None`` when it holds none. For labels given on a command
    line (a commit, a branch, a tag) that a store would keep for good: a newline or an
    escape sequence there is a mistake, not a name."""
    found = _CONTROL.search(text)
    return None if found is None else _escape(found[0])


def visible(text: str, keep: Collection[str] = ()) -> str:
    """``text`` with control characters written as visible escapes (``\\x1b[31m`` stays
    four visible characters plus ``[31m``), except the SGR sequences listed in ``keep``."""
    # isprintable() is False for every character escaped but those of _PRINTABLE_HIDDEN.
    if text.isprintable() and not _PRINTABLE_HIDDEN.search(text):
        return text
    if not keep:
        return _hidden(text)
    out: list[str] = []
    position = 0
    for match in _SGR.finditer(text):
        if match[0] in keep:
            out.append(_hidden(text[position : match.start()]))
            out.append(match[0])
            position = match.end()
    out.append(_hidden(text[position:]))
    return "".join(out)


def markdown_inline(text: str) -> str:
    """``text`` for one line of markdown (a table cell, a heading, a list item): visible
    control characters, and every markdown or HTML special character backslash-escaped.

    Word characters, spaces and non-ASCII letters are written as they are, so ordinary
    names read the same; ``_`` between two word characters is left alone as well
    (CommonMark never reads it as emphasis there), which keeps ``copy_bench`` readable.
    """
    shown = visible(text)
    escaped = _LINK_JOIN.sub(r"\\]", _MARKDOWN_SPECIAL.sub(r"\\\1", shown))
    # Undo the escape of an underscore inside a word: ``a\_b`` -> ``a_b``.
    return _no_references(_INNER_UNDERSCORE.sub("_", escaped))


def markdown_link_text(text: str) -> str:
    """``text`` as the text of a markdown link ``[text](target)``: visible control
    characters and every markdown, HTML and bracket character backslash-escaped, no
    mention, reference or autolink (:func:`markdown_inline`)."""
    return _no_references(_LINK_TEXT_SPECIAL.sub(r"\\\1", visible(text)))


def markdown_html(text: str) -> str:
    """``text`` inside an HTML block of a markdown file (``<summary>...</summary>``, which
    GitHub renders as HTML, not markdown): visible control characters, HTML-escaped, and
    no mention, reference or autolink (:func:`markdown_inline`)."""
    import html  # here: the markdown report is its only user

    # The joiners before the escape: ``&#x27;`` must stay an entity.
    return html.escape(_no_references(visible(text)))


def _no_references(text: str) -> str:
    """``text`` with a word joiner after each place GitHub would make a mention, an issue
    reference or a link of (:data:`_REFERENCE`)."""
    if not _REFERENCE.search(text):
        return text
    return _REFERENCE.sub(lambda found: found[0] + _JOINER, text)


def json_names(names: Iterable[str]) -> str:
    """Names as one JSON array text, ``["a, b.json", "c.json"]``, for a single text cell
    (the CSV report's lists of input files): unlike names joined with a separator, it reads
    back (``json.loads``) to exactly the names whatever they hold. Every character
    :func:`visible` would escape is written as a JSON ``\\uXXXX`` escape, so the text hides
    and moves nothing in a terminal and still reads back."""
    text = json.dumps(list(names), ensure_ascii=False)
    if text.isprintable() and not _PRINTABLE_HIDDEN.search(text):
        return text
    return "".join(char if visible(char) == char else _json_escape(char) for char in text)


#: A lone UTF-16 surrogate: Python's ``surrogateescape`` stand-in for a byte of a file
#: name that is no UTF-8 (``os.listdir``, ``sys.argv``), which UTF-8 cannot encode.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def utf8_text(text: str) -> str:
    """``text`` that encodes as UTF-8: each lone surrogate (a file name's byte that is no
    UTF-8, as ``os.listdir`` and ``sys.argv`` give it) written as its escape ``\\udcff``,
    as :func:`visible` shows it; every other character is kept. Inside a JSON string the
    escape reads back to the same string."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def json_text(value: object, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)`` whose text encodes as UTF-8: a
    lone surrogate is written as its JSON ``\\uXXXX`` escape (:func:`utf8_text`), which
    reads back (``json.loads``) to the same string. A report of a folder holding a file
    name with a byte that is no UTF-8 failed with a traceback (UnicodeEncodeError) when
    written."""
    return utf8_text(json.dumps(value, ensure_ascii=False, **options))


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def csv_text(text: str) -> str:
    """A text cell for CSV that spreadsheet programs show as text, never evaluate, and
    terminals show without obeying: control characters as :func:`visible` escapes."""
    shown = visible(text)
    return "'" + shown if shown.startswith(_FORMULA_START) else shown


def shortened_numbers(text: str) -> str:
    """``text`` with every run of more than 40 digits (an axis value or a pow2 exponent no
    NVBench run has, from a crafted file or a mistyped ``-a``) written as its first 20
    digits, ``…`` and its length (``99999999999999999999… (400 digits)``): one message
    line, not screens of digits. For names and values quoted in a message, never for a
    path (a file is named whole)."""
    return _LONG_NUMBER.sub(
        lambda found: f"{found[0][:_NUMBER_HEAD]}… ({len(found[0])} digits)", text
    )
