"""``nvbench-json-summary``, ``nvbench-walltime``, ``nvbench-histogram`` and the comparison's
CSV and plot outputs with crafted result files: outputs never replace an input, and names
are written as text in every output kind (markdown, CSV, terminal, plots)."""

from __future__ import annotations

import copy
import csv
import json
import os
import shutil
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import (
    Result,
    assert_drawn_as_text,
    assert_no_controls,
    assert_usage_error,
    run_main,
)
from cuda.bench.cli import compare as compare_cli
from cuda.bench.cli import json_summary as json_summary_cli
from cuda.bench.cli import walltime as walltime_cli

Main = Callable[[Sequence[str] | None], int]

#: Terminal attacks: an OSC title change, a colour, a screen clear and a carriage return.
TERMINAL = "x\x1b]0;pwned\x07\x1b[31mred\x1b[2J\rcover"
#: Markdown and HTML that would hide, restyle or split text on GitHub.
MARKUP = "<script>alert(1)</script> <!-- a|b `c` [l](javascript:x) **s** ~~t~~"
#: What a spreadsheet would run.
FORMULA = "=cmd|' /C calc'!A0"


def _load(gpu_dir: Path, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((gpu_dir / name).read_text())
    return document


def _hostile(document: dict[str, Any], text: str) -> dict[str, Any]:
    """Benchmark, device, axis, axis value (string axes) and summary names made ``text``-ish."""
    renamed = copy.deepcopy(document)
    for number, bench in enumerate(renamed["benchmarks"]):
        bench["name"] = f"{text}{number}"
        names = {axis["name"]: f"{text}{axis['name']}" for axis in bench["axes"]}
        for axis in bench["axes"]:
            axis["name"] = names[axis["name"]]
        for state in bench["states"]:
            for value in state["axis_values"]:
                value["name"] = names[value["name"]]
                if value["type"] == "string":
                    value["value"] = text + value["value"]
            for summary in state["summaries"] or []:
                if summary.get("name") == "GPU Time":
                    summary["name"] = text + "GPU Time"
    for device in renamed.get("devices") or []:
        device["name"] = text + device["name"]
    return renamed


def _write_run(directory: Path, gpu_dir: Path, name: str, document: dict[str, Any]) -> Path:
    """``document`` as ``directory/name``, beside a copy of the real run's side files."""
    directory.mkdir(parents=True, exist_ok=True)
    source = "gpu_ref" if "ref" in name else "gpu_cmp"
    for suffix in ("-bin", "-freqs-bin"):
        target = directory / f"{source}.json{suffix}"
        if not target.exists():
            shutil.copytree(gpu_dir / f"{source}.json{suffix}", target)
            for path in [target, *target.iterdir()]:
                path.chmod(0o755 if path.is_dir() else 0o644)
    path = directory / name
    path.write_text(json.dumps(document))
    return path


def _pair(tmp_path: Path, gpu_dir: Path, text: str) -> tuple[Path, Path]:
    ref, cmp = (_hostile(_load(gpu_dir, f"gpu_{n}.json"), text) for n in ("ref", "cmp"))
    return (
        _write_run(tmp_path / "run", gpu_dir, "ref.json", ref),
        _write_run(tmp_path / "run", gpu_dir, "cmp.json", cmp),
    )


# ---------------------------------------------------------------------------------------
# An output never replaces an input
# ---------------------------------------------------------------------------------------


def _spellings(path: Path, tmp_path: Path) -> dict[str, str]:
    link = tmp_path / f"link{path.suffix}"
    link.symlink_to(path)
    return {
        "same": str(path),
        "dot": f"./{os.path.relpath(path, tmp_path)}",
        "dotdot": f"{path.parent.name}/../{path.parent.name}/{path.name}",
        "absolute": str(path.resolve()),
        "link": str(link),
    }


@pytest.mark.parametrize("spelling", ["same", "dot", "dotdot", "absolute", "link"])
@pytest.mark.parametrize("tool", ["json-summary", "walltime", "walltime-dir", "histogram"])
def test_output_that_is_an_input_is_refused(
    tool: str,
    spelling: str,
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    # A result file named like an image: the one input nvbench-histogram could write over.
    name = "ref.png" if tool == "histogram" else "ref.json"
    inp = _write_run(tmp_path / "wt", gpu_dir, name, _load(gpu_dir, "gpu_ref.json"))
    before = inp.read_bytes()
    output = _spellings(inp, tmp_path)[spelling]
    given = "wt" if tool == "walltime-dir" else str(inp.relative_to(tmp_path))
    main: Main
    if tool == "json-summary":
        main = json_summary_cli.main
    elif tool.startswith("walltime"):
        main = walltime_cli.main
    else:
        pytest.importorskip("matplotlib")
        from cuda.bench.cli import histogram as histogram_cli

        main = histogram_cli.main
    result = run_main(main, capsys, "-o", output, given)
    assert_usage_error(result, "--output", "is the input file")
    assert inp.read_bytes() == before


@pytest.mark.parametrize("tool", ["json-summary", "walltime"])
def test_output_beside_the_inputs_is_still_written(
    tool: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A report written into the results directory is not an input of the next run.
    inp = _write_run(tmp_path / "wt", gpu_dir, "run.json", _load(gpu_dir, "gpu_ref.json"))
    out = tmp_path / "wt" / "report.md"
    main: Main = json_summary_cli.main if tool == "json-summary" else walltime_cli.main
    given = inp if tool == "json-summary" else inp.parent
    for _ in range(2):
        result = run_main(main, capsys, "-o", out, given)
        assert result.code == 0, result.err
    assert out.read_text(encoding="utf-8").startswith("#")


def _reordered_side_file_fields(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every side-file summary's fields written in another key order
    (``value``, ``type``, ``name``) and ``filename`` spelt with a JSON escape: the same
    JSON object, so the reader follows the same side files."""
    reordered = copy.deepcopy(document)
    for bench in reordered["benchmarks"]:
        for state in bench["states"]:
            for summary in state["summaries"] or []:
                summary["data"] = [
                    {"value": datum["value"], "type": datum["type"], "name": datum["name"]}
                    for datum in summary["data"]
                ]
    return reordered


def test_a_side_file_recorded_in_another_key_order_is_an_input(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JSON objects are unordered: the reader reads these side files all the same, so a
    # report over one of them would replace the evidence it is made from.
    document = _reordered_side_file_fields(_load(gpu_dir, "gpu_ref.json"))
    text = json.dumps(document).replace('"filename"', '"\\u0066ilename"')
    ref = _write_run(tmp_path / "run", gpu_dir, "gpu_ref.json", document)
    ref.write_text(text)
    cmp = _write_run(tmp_path / "run", gpu_dir, "gpu_cmp.json", _load(gpu_dir, "gpu_cmp.json"))
    side = tmp_path / "run" / "gpu_ref.json-bin" / "0.bin"
    before = side.read_bytes()
    assert run_main(compare_cli.main, capsys, ref, cmp).code == 0  # its side files are read
    result = run_main(compare_cli.main, capsys, ref, cmp, "--csv", side)
    assert_usage_error(result, "--csv", "is the input file")
    assert side.read_bytes() == before


# ---------------------------------------------------------------------------------------
# CSV: no formula, no control character; benign names as they were
# ---------------------------------------------------------------------------------------


def _csv_cells(text: str) -> list[str]:
    rows = list(csv.reader(text.splitlines()))
    assert len(rows) > 1
    return [cell for row in rows for cell in row if cell]


def _safe_csv(text: str) -> list[str]:
    assert_no_controls(text)
    cells = _csv_cells(text)
    assert not [cell for cell in cells if cell[0] in "=+@\t\r"], "a cell would run as a formula"
    negatives = [cell for cell in cells if cell.startswith("-")]
    assert all(float(cell) < 0 for cell in negatives), negatives  # numbers stay numbers
    return cells


def test_summary_csv_guards_formulas_and_shows_controls(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, _ = _pair(tmp_path, gpu_dir, FORMULA + TERMINAL)
    result = run_main(json_summary_cli.main, capsys, "--format", "csv", ref)
    assert result.code == 0, result.err
    cells = _safe_csv(result.out)
    assert any(cell.startswith("'=cmd") and "\\x1b]0;pwned\\x07" in cell for cell in cells)
    header = next(csv.reader(result.out.splitlines()))
    assert "'" + FORMULA + "x\\x1b]0;pwned\\x07\\x1b[31mred\\x1b[2J\\rcoverT" in header


@pytest.mark.parametrize("many", [False, True], ids=["pairwise", "n-way"])
def test_comparison_csv_shows_controls(
    many: bool, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = _pair(tmp_path, gpu_dir, FORMULA + TERMINAL)
    others = [cmp, ref] if many else [cmp]
    result = run_main(compare_cli.main, capsys, ref, *others, "--csv", "-")
    assert result.code in (0, 1), result.err
    cells = _safe_csv(result.out)
    assert any("\\x1b]0;pwned\\x07" in cell for cell in cells)
    assert any(cell.startswith("'=cmd") for cell in cells)


# ---------------------------------------------------------------------------------------
# Markdown: names shown as written, no markup, no extra cells
# ---------------------------------------------------------------------------------------


class _Rendered(HTMLParser):
    """Tags, text, comments and cells per table row of rendered markdown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.text: list[str] = []
        self.comments: list[str] = []
        self.cells: list[list[int]] = []  # per table: cells of each row

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "table":
            self.cells.append([])
        elif tag == "tr":
            self.cells[-1].append(0)
        elif tag in ("td", "th"):
            self.cells[-1][-1] += 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def _rendered(markdown: str) -> _Rendered:
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    parsed = _Rendered()
    parsed.feed(html)
    return parsed


def _markdown_shows(markdown: str, shown: str, tables: int) -> None:
    assert_no_controls(markdown)
    parsed = _rendered(markdown)
    assert not parsed.comments
    assert parsed.tags <= {"h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td"}, (
        parsed.tags
    )
    assert len(parsed.cells) >= tables
    for rows in parsed.cells:  # a "|" in a name adds no cell
        assert len(set(rows)) == 1, rows
    assert "".join(parsed.text).count(shown) >= 2, shown


@pytest.mark.parametrize(("tool", "tables"), [("json-summary", 2), ("walltime", 4)])
def test_markdown_reports_show_names_as_text(
    tool: str, tables: int, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, _ = _pair(tmp_path, gpu_dir, MARKUP + TERMINAL)
    main = json_summary_cli.main if tool == "json-summary" else walltime_cli.main
    result = run_main(main, capsys, ref)
    assert result.code == 0, result.err
    shown = MARKUP + "x\\x1b]0;pwned\\x07\\x1b[31mred\\x1b[2J\\rcover"
    _markdown_shows(result.out, shown, tables=tables)
    headings = [line for line in result.out.splitlines() if line.startswith("#")]
    assert all("<script>" not in line for line in headings), headings


# ---------------------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("plot", ["--plot", "--heatmap", "--plot-along", "--plot-along-many"])
def test_compare_plots_show_controls(
    plot: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    ref, cmp = _pair(tmp_path, gpu_dir, TERMINAL)
    image = tmp_path / "x.png"
    if plot == "--plot":
        arguments: list[str | Path] = [ref, cmp, "--plot", "--plot-output", image]
    elif plot == "--plot-along":
        arguments = [ref, cmp, "--plot-along", TERMINAL + "Elements", "--plot-along-output", image]
    else:  # candidates named by crafted file names, too
        other = cmp.with_name("c\x1b[2Jd.json")
        shutil.copy(cmp, other)
        arguments = [ref, cmp, other]
        if plot == "--heatmap":
            arguments += ["--heatmap", image]
        else:
            arguments += ["--plot-along", TERMINAL + "Elements", "--plot-along-output", image]
    result: Result = run_main(compare_cli.main, capsys, *arguments)
    assert result.code in (0, 1), result.err
    assert_drawn_as_text(result, image)


def test_histogram_legend_shows_controls_in_file_names(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli import histogram as histogram_cli

    # A directory's file names are the legend's labels, and an artifact chooses them.
    ref = _write_run(
        tmp_path / "run", gpu_dir, "ref\x1b[2J\x07.json", _load(gpu_dir, "gpu_ref.json")
    )
    image = tmp_path / "h.png"
    result = run_main(histogram_cli.main, capsys, ref.parent, "-o", image, "--max-states", "2")
    assert result.code == 0, result.err
    assert_drawn_as_text(result, image)


def test_histogram_names_its_output_as_text(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "wrote the histogram to ..." sent an escape sequence in the output's name to the
    terminal raw (every other line escapes names)."""
    pytest.importorskip("matplotlib")
    from cuda.bench.cli import histogram as histogram_cli

    image = tmp_path / "a\x1b[31mred.png"
    ref = gpu_dir / "gpu_ref.json"
    result = run_main(histogram_cli.main, capsys, ref, "-o", image, "--max-states", "2")
    assert result.code == 0, result.err
    assert image.exists() and "wrote the histogram" in result.err
    assert "\x1b" not in result.err and "\\x1b" in result.err, result.err


# ---------------------------------------------------------------------------------------
# Terminal tables
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("many", [False, True], ids=["pairwise", "n-way"])
def test_coloured_terminal_tables_show_colours_in_axis_names(
    many: bool, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The status colours a coloured table lets through must not pass in a name: an axis
    # name is a column header.
    ref, cmp = _pair(tmp_path, gpu_dir, TERMINAL)
    others = [cmp, ref] if many else [cmp]
    result = run_main(compare_cli.main, capsys, ref, *others, "--color", "always")
    assert result.code in (0, 1), result.err
    header = next(line for line in result.out.splitlines() if "coverElements" in line)
    assert "x\\x1b]0;pwned\\x07\\x1b[31mred\\x1b[2J\\rcoverElements" in header, header


@pytest.mark.parametrize("option", ["--markdown", "--html", "--csv", "--json"])
def test_a_result_file_an_option_took_as_its_output_is_not_written_over(
    option: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nvbench_compare --markdown ref.json cmp.json new.json``: the option takes ref.json
    as its file name, the other two are compared, and the result file was replaced by the
    report with exit 0 (a new user's first-hour trial). A file holding NVBench results is
    never an output; a report over an earlier report still is."""
    ref = _write_run(tmp_path / "r", gpu_dir, "ref.json", _load(gpu_dir, "gpu_ref.json"))
    cmp = _write_run(tmp_path / "r", gpu_dir, "cmp.json", _load(gpu_dir, "gpu_cmp.json"))
    new = _write_run(tmp_path / "r", gpu_dir, "new.json", _load(gpu_dir, "gpu_cmp.json"))
    before = ref.read_bytes()
    result = run_main(compare_cli.main, capsys, option, ref, cmp, new)
    assert_usage_error(result, option, "holds NVBench results; not written over")
    assert ref.read_bytes() == before
    report = tmp_path / "report.out"
    for _ in range(2):  # the second run writes over the first one's report
        assert run_main(compare_cli.main, capsys, cmp, new, option, report).code == 0
    assert report.stat().st_size > 0


def test_one_input_left_says_which_option_took_the_other(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--markdown ref.json cmp.json`` said only "expected two inputs ..., got 1"."""
    ref = _write_run(tmp_path / "r", gpu_dir, "ref.json", _load(gpu_dir, "gpu_ref.json"))
    cmp = _write_run(tmp_path / "r", gpu_dir, "cmp.json", _load(gpu_dir, "gpu_cmp.json"))
    result = run_main(compare_cli.main, capsys, "--markdown", ref, cmp)
    assert_usage_error(result, "got 1", f"(--markdown took '{ref}' as its file name")
    # Written with '=', the file was named on purpose: "takes the word after it" was wrong.
    result = run_main(compare_cli.main, capsys, f"--markdown={ref}", cmp)
    assert_usage_error(result, "got 1", f"(--markdown= names '{ref}', a file of results")
    assert "word after it" not in result.err
