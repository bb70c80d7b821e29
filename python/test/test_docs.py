"""The README and docs/ keep working: every relative link resolves (to a file, and to a heading
where it names one), and every block marked runnable runs and prints what the page shows.

A block is runnable when the line before its opening fence is ``<!-- runnable -->``; it runs
from a temporary directory holding a copy of ``python/examples`` (so the README's paths, which
start at the repository root, work there and nothing is written into the checkout), as
``bash`` for ``sh`` blocks and the running Python for ``python`` blocks, with the installed
package's console scripts on PATH. The next block marked ``<!-- output -->`` is what it
must print (stdout and stderr together, in order); a line ``...`` there stands for any
number of lines left out.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```+|~~~+)")
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"""(?:href|src)=["']([^"']+)["']""")


def _outside_fences(text: str) -> Iterator[str]:
    """The lines of ``text`` outside its fenced code blocks (the fence lines left out too)."""
    fence = ""
    for line in text.splitlines():
        opened = _FENCE.match(line.lstrip())
        if fence:
            if opened and opened.group(1).startswith(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield line


def _prose(text: str) -> str:
    """``text`` without its fenced code blocks and inline code (links there are not links)."""
    return "\n".join(re.sub(r"`[^`]*`", "", line) for line in _outside_fences(text))


def _links(path: Path) -> list[str]:
    text = _prose(path.read_text())
    return [*_LINK.findall(text), *_HTML_LINK.findall(text)]


def _broken_links(path: Path) -> list[str]:
    broken = []
    for target in _links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in _heading_anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    return broken


def _heading_anchors(path: Path) -> set[str]:
    """Anchors of ``path``'s headings, their inline code kept as GitHub keeps its text."""
    seen: dict[str, int] = {}
    found = set()
    for line in _outside_fences(path.read_text()):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert _broken_links(page) == []


def test_the_docs_index_names_every_page() -> None:
    """docs/README.md says what each page is for: a page added later (coinstall, security,
    history-detection were) must get its entry, or a reader of the index never finds it."""
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for target in re.findall(r"\]\(([^)]+)\)", index)}
    pages = {page.name for page in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert sorted(pages - linked) == []


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## The `ci` method: why\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#the-ci-method-why) [b](missing.md) [c](other.md#nowhere)\n"
        "[d](#here) [e](https://example.org/x) `[f](ignored.md)`\n\n## Here\n\n"
        "```sh\n[g](inside-code.md)\n```\n"
    )
    assert _broken_links(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading with anchor #nowhere",
    ]


# ---------------------------------------------------------------------------------------------
# Runnable blocks


class Block(NamedTuple):
    page: str
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    output: str | None  # what it must print, or None where the page shows nothing


def _blocks(path: Path) -> list[Block]:
    """The runnable blocks of ``path``, each with the output block that follows it."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    index = 0
    pending: tuple[int, str, str] | None = None
    marker = ""
    while index < len(lines):
        line = lines[index]
        if line.strip() in ("<!-- runnable -->", "<!-- output -->"):
            marker = line.strip()
            index += 1
            continue
        opened = _FENCE.match(line)
        if opened:
            fence, language = opened.group(1), line[len(opened.group(1)) :].strip()
            end = index + 1
            while end < len(lines) and not lines[end].startswith(fence):
                end += 1
            body = "\n".join(lines[index + 1 : end])
            if marker == "<!-- runnable -->":
                if pending is not None:
                    found.append(Block(path.name, pending[0], pending[1], pending[2], None))
                pending = (index + 1, language, body)
            elif marker == "<!-- output -->" and pending is not None:
                found.append(Block(path.name, pending[0], pending[1], pending[2], body))
                pending = None
            marker = ""
            index = end + 1
            continue
        if line.strip():
            marker = ""
        index += 1
    if pending is not None:
        found.append(Block(path.name, pending[0], pending[1], pending[2], None))
    return found


def _matches(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected`` with each ``...`` line standing for any lines."""
    pattern = "".join(
        r"(?:.*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"[ \t]*\n"
        for line in expected.splitlines()
    )
    text = "".join(f"{line.rstrip()}\n" for line in actual.rstrip().splitlines())
    return re.fullmatch(pattern + r"(?:.*\n)*?" * expected.endswith("..."), text) is not None


def test_the_output_check_reads_ellipses() -> None:
    assert _matches("a\n...\nd", "a\nb\nc\nd\n")
    assert _matches("...\nc", "a\nb\nc\n")
    assert _matches("a\n...", "a\nb\n")
    assert _matches("a  \nb", "a\nb  \n")  # trailing blanks do not count
    assert not _matches("a\nd", "a\nb\nd\n")
    assert not _matches("a\n...\nd", "a\nb\nc\n")
    assert not _matches("a", "a\nb\n")


def test_the_block_reader_pairs_each_runnable_block_with_its_output(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- runnable -->\n```sh\necho hi\n```\n\n<!-- output -->\n```\nhi\n```\n\n"
        "```sh\nnot marked\n```\n\n<!-- runnable -->\n```python\nprint(1)\n```\n"
    )
    assert _blocks(page) == [
        Block("page.md", 2, "sh", "echo hi", "hi"),
        Block("page.md", 16, "python", "print(1)", None),
    ]


RUNNABLE = [block for page in PAGES for block in _blocks(page)]


def test_the_readme_has_runnable_blocks_with_outputs() -> None:
    readme = [block for block in RUNNABLE if block.page == "README.md"]
    assert len(readme) >= 5
    assert all(block.output is not None for block in readme)


def test_the_readme_stays_short_and_keeps_its_commands() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    # .ci/run takes the test command from the block after this marker.
    command = text.split("<!-- test-command -->\n```sh\n", 1)[1].split("\n```", 1)[0]
    assert "python -m pytest" in command
    assert "<!-- run-command -->\n```sh\n" in text


def _needs(block: Block) -> str | None:
    """Why ``block`` cannot run here, or None."""
    if "history" in block.code:
        for module in ("pyarrow", "duckdb"):
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed (python -m pip install -e '.[history]')"
    return None


@pytest.mark.slow
@pytest.mark.parametrize(
    "block", RUNNABLE, ids=[f"{block.page}:{block.line}" for block in RUNNABLE]
)
def test_runnable_block_runs_and_prints_what_the_page_shows(block: Block, tmp_path: Path) -> None:
    reason = _needs(block)
    if reason:
        pytest.skip(reason)
    shutil.copytree(REPO / "python" / "examples", tmp_path / "python" / "examples")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
    }
    if block.language == "python":
        command = [sys.executable, "-c", block.code]
    else:
        assert block.language in ("sh", "bash", "console"), block.language
        command = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    if block.output is not None:
        assert _matches(block.output, done.stdout), done.stdout
