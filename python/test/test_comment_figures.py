"""Comments say why, not how fast: measured figures of speed or memory ("a third of the
decode", "several times slower", "40 ms") belong to the benchmarks and the README's
"Speed" section, where they are measured again; in a comment they go stale unseen.

The check reads every comment and docstring of the package and flags speed words next to
a multiple or a fraction, and amounts of time or memory. Examples in double backquotes
(how a cell is formatted) are not figures.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Final

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"

_SPEED = r"\b(faster|slower|cheaper|costlier|quicker|costs?|takes?|time|speed|decod\w*|memory)\b"
_FRACTION = r"(half|third|quarter|fifth|sixth|tenth|twentieth|fiftieth|hundredth)"
_MULTIPLE = r"(several|a few|two|three|four|five|ten|\d+(\.\d+)?)"

#: What a measured figure looks like in prose.
FIGURES: Final = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b{_MULTIPLE} ?(times|\u00d7|x)\s+(as\s+)?{_SPEED}",
        rf"{_SPEED}\W+(\w+\W+){{0,6}}?(about |roughly |only )?(a|one|two|three) {_FRACTION}s?\b",
        rf"\b(a|one|two|three) {_FRACTION}s?\b(\W+\w+){{0,6}}?\W+{_SPEED}",
        r"\b\d+(\.\d+)? ?% (faster|slower|cheaper|of the (time|decod\w*|run))",
        r"\b\d+(\.\d+)? ?(ms|µs|MiB|MB|GB|GiB)\b",
    )
)

#: Flagged texts that are not measured figures, or not yet moved, by file: why each stays.
ALLOWED: Final = MappingProxyType(
    {
        "compare/_coverage_fast.py": "32 MiB is the size bound of the table, not a measurement",
        "results/_devices.py": "device names of the synthetic results (80GB)",
    }
)


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """Every comment and docstring of ``path`` with its line, code in double backquotes
    removed."""
    source = path.read_text()
    found: list[tuple[int, str]] = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                found.append((node.body[0].lineno, docstring))
    for line, text in found:
        yield line, re.sub(r"``.*?``", "", " ".join(text.split()))


def _figure(text: str) -> str | None:
    for pattern in FIGURES:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


def test_comments_hold_no_measured_figures() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in ALLOWED:
            continue
        for line, text in _texts(path):
            figure = _figure(text)
            if figure is not None:
                offenders.append(f"{name}:{line}: {figure!r}")
    assert offenders == []


def test_the_check_knows_a_figure() -> None:
    for text in (
        "decoding the names is a third of the decode",
        "a struct costs a tenth of a frozen dataclass",
        "a whole-text search is several times slower",
        "importing numpy takes 120 ms",
        "this is 12 % faster",
    ):
        assert _figure(text) is not None, text
    for text in (
        "the median of the third quartile",
        "``2.300 ms [-63, +89] us`` shows the spread",
        "sorting float32 values is faster than float64 ones",
    ):
        assert _figure(re.sub(r"``.*?``", "", text)) is None, text


def test_every_allowed_file_still_needs_it() -> None:
    """An exception whose file is gone or no longer has a figure leaves the list."""
    stale = [
        name
        for name in ALLOWED
        if not (PACKAGE / name).exists()
        or not any(_figure(text) for _, text in _texts(PACKAGE / name))
    ]
    assert stale == []
