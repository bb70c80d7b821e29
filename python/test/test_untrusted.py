"""Names from result files as untrusted text: what :func:`visible` shows as escapes."""

from __future__ import annotations

import pytest
from cuda.bench._untrusted import (
    csv_text,
    markdown_html,
    markdown_inline,
    markdown_link_text,
    utf8_text,
    visible,
)

#: Characters that change or hide what a reader sees without being seen themselves.
INVISIBLE = {
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200e": "left-to-right mark",
    "\u200f": "right-to-left mark",
    "\u061c": "Arabic letter mark",
    "\u2060": "word joiner",
    "\ufeff": "byte order mark",
    "\u00ad": "soft hyphen",
    "\u202e": "right-to-left override",
    "\u2066": "left-to-right isolate",
    "\u2028": "line separator",
    "\x1b": "escape",
    "\x85": "next line (C1)",
    "\U000e0020": "tag space",
    "\u3164": "Hangul filler",
    "\u034f": "combining grapheme joiner",
    "\ufe0f": "variation selector",
    "\U000e0100": "variation selector supplement",
    "\ufffb": "interlinear annotation terminator",
    "\u0378": "unassigned",
    "\ue000": "private use",
}


@pytest.mark.parametrize("char", sorted(INVISIBLE), ids=sorted(INVISIBLE.values()))
def test_invisible_characters_become_visible_escapes(char: str) -> None:
    # Two benchmarks "bom" and "\ufeffbom" looked identical in every output.
    shown = visible(f"bench{char}mark")
    assert char not in shown and shown.startswith("bench\\") and shown.endswith("mark")
    assert char not in markdown_inline(f"bench{char}mark")
    assert char not in csv_text(f"bench{char}mark")


def test_ordinary_names_are_written_as_they_are() -> None:
    for name in ("copy_bench", "Elements=2^20", "Ünïcödé 名前 ✓", "a b\u00a0c"):
        assert visible(name) == name


def test_escapes_are_unambiguous_beyond_the_basic_plane() -> None:
    assert visible("a\U000e0020b") == "a\\U000e0020b"
    assert visible("a\u3164b") == "a\\u3164b"


def test_link_text_escapes_every_bracket_so_the_text_cannot_end_early() -> None:
    assert markdown_link_text("a]b") == "a\\]b"
    assert markdown_link_text("[x](javascript:y)") == "\\[x\\](javascript:y)"
    # The escape character shown as the text \x1b, its backslash escaped in turn.
    assert markdown_link_text("<b>*\x1b[31m") == "\\<b\\>\\*\\\\x1b\\[31m"
    assert markdown_link_text("copy_bench") == "copy\\_bench"


def test_json_names_read_back_whole_and_hide_nothing() -> None:
    # A list of file names in one CSV cell: joined with ", " (or ";") a name holding the
    # separator could not be split back; JSON array text reads back to the very names.
    import json

    from cuda.bench._untrusted import json_names
    from hypothesis import given, settings
    from hypothesis import strategies as st

    hostile = ["a, b.json", "c;d", '"q"\\', "caf\u00e9", *INVISIBLE, "\U0001f600", "\ud800"]
    for names in ([], hostile, [" ".join(hostile)]):
        text = json_names(names)
        assert json.loads(text) == names
        assert visible(text) == text and csv_text(text) == text, text

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.text()))
    def reads_back(names: list[str]) -> None:
        text = json_names(names)
        assert json.loads(text) == names and visible(text) == text

    reads_back()


def test_json_text_escapes_lone_surrogates_only() -> None:
    """A lone surrogate (a file name's byte that is no UTF-8) could not be encoded, so the
    report was never written; other non-ASCII text stays as it is."""
    import json

    from cuda.bench._untrusted import json_text

    value = {"name": "x\udcff µs 🔥", "n": 1}
    text = json_text(value, indent=2)
    text.encode("utf-8")  # raised UnicodeEncodeError before
    assert "\\udcff" in text and "µs 🔥" in text
    assert json.loads(text) == value


def test_utf8_text_writes_a_lone_surrogate_as_the_escape_visible_shows() -> None:
    name = "u\udcff.json"  # os.fsdecode(b"u\xff.json")
    assert utf8_text(name) == visible(name) == "u\\udcff.json"
    utf8_text(name).encode("utf-8")
    # Every other character is kept, control characters included: that is visible's job.
    assert utf8_text("a\x1b\u202e名.json") == "a\x1b\u202e名.json"


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("@octocat", "@\u2060octocat"),
        ("@nvidia/gpu-team", "@\u2060nvidia/gpu-team"),
        ("mail a@b.example", "mail a@\u2060b.example"),
        ("issue #1, owner/repo#2", "issue \\#\u20601, owner/repo\\#\u20602"),
        ("GH-3 gh-4 GH-x", "GH-\u20603 gh-\u20604 GH-x"),
        ("https://evil.example/x", "https:\u2060//evil.example/x"),
        ("WWW.evil.example", "WWW\u2060.evil.example"),
        ("copy_bench Elements=2^20", "copy_bench Elements=2^20"),
    ],
)
def test_markdown_makes_no_mention_reference_or_link_of_a_name(name: str, written: str) -> None:
    # GitHub finds them in the rendered text, so backslashes do nothing against them.
    assert markdown_inline(name) == written
    assert markdown_link_text(name).replace("\\_", "_") == written
    assert markdown_html(name) == written.replace("\\#", "#")


def test_markdown_html_keeps_its_entities_whole() -> None:
    # The joiner goes in before the escape: "&#x27;" is no issue reference.
    assert markdown_html("it's #1 <b>") == "it&#x27;s #\u20601 &lt;b&gt;"
    # A name's own word joiner is shown as its escape, never taken for one of ours.
    assert markdown_inline("@\u2060x") == "@\u2060\\\\u2060x"
