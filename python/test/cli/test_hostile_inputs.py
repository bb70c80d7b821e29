"""Result files as an attacker would write them, through every command (docs/security.md).

Every command must end with exit status 0 or 1 and correct output, or with one line on
stderr naming the file and exit status 2: never a traceback, never a file read outside the
input's directory tree, never a write outside the outputs named, never a name that drives
the terminal or hides part of a markdown report.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterator, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _cli_helpers import (
    Result,
    assert_drawn_as_text,
    assert_no_controls,
    assert_no_markdown_controls,
    run_main,
)
from cuda.bench.cli import compare as compare_cli
from cuda.bench.cli import json_summary as json_summary_cli
from cuda.bench.cli import walltime as walltime_cli

Main = Callable[[Sequence[str] | None], int]

#: Every C0 control, DEL, a few C1 controls, the line separators and a bidi override.
CONTROLS = "".join(map(chr, range(0x20))) + "\x7f\x85\x9b\u2028\u2029\u202e"
#: Terminal attacks: an OSC title change, a colour, a cursor move and a carriage return.
TERMINAL = "x\x1b]0;pwned\x07\x1b[31mred\x1b[2J\rcover"
#: Markdown and HTML that would hide or restyle text on GitHub.
MARKUP = "copy\n<!-- <img src=x onerror=alert(1)> | *a* _b_ [l](javascript:x) `c` $m$ ~~s~~ #"
#: A recognisable value for secret side files: it must never appear in an output.
SECRET_VALUE = 987.654


def _load(gpu_dir: Path, name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((gpu_dir / name).read_text())
    return document


def _write_run(directory: Path, gpu_dir: Path, name: str, document: dict[str, Any]) -> Path:
    """``document`` as ``directory/NAME.json`` with a copy of the real run's side files."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = name.removesuffix(".json")
    source = "gpu_ref" if "ref" in stem else "gpu_cmp"
    for suffix in ("-bin", "-freqs-bin"):
        if not (directory / f"{source}.json{suffix}").exists():
            shutil.copytree(
                gpu_dir / f"{source}.json{suffix}", directory / f"{source}.json{suffix}"
            )
    path = directory / name
    path.write_text(json.dumps(document))
    return path


def _summaries(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            yield from state["summaries"] or []


def _rename(document: dict[str, Any], text: str) -> dict[str, Any]:
    """Every benchmark, axis value and state name made hostile with ``text``."""
    renamed = copy.deepcopy(document)
    for number, bench in enumerate(renamed["benchmarks"]):
        bench["name"] = f"{text}{number}"
        for state in bench["states"]:
            for value in state["axis_values"]:
                if value["type"] == "string":
                    value["value"] = text + value["value"]
            state["name"] = state["name"] + " " + text
    for device in renamed.get("devices") or []:
        device["name"] = text + device["name"]
    return renamed


def _ingest(
    capsys: pytest.CaptureFixture[str], archive: Path, *arguments: Any, commit: str = "c0"
) -> Result:
    """``nvbench-history ingest --archive ARCHIVE --commit COMMIT ARGUMENTS...``."""
    from cuda.bench.cli import history as history_cli

    return run_main(
        history_cli.main, capsys, "ingest", "--archive", archive, "--commit", commit, *arguments
    )


def _one_line_error(result: Result, *needles: str) -> None:
    assert result.code == 2, (result.code, result.err[-2000:])
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err and "error:" in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


# ---------------------------------------------------------------------------------------
# Side files outside the JSON file's tree (item 1)
# ---------------------------------------------------------------------------------------


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret"
    secret.mkdir()
    np.full(2000, SECRET_VALUE, dtype="<f4").tofile(secret / "key.bin")
    return secret / "key.bin"


def _pointing(document: dict[str, Any], filename: str) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    for summary in _summaries(changed):
        if summary["tag"].startswith("nv/json/bin:") or summary["tag"].startswith(
            "nv/json/freqs-bin:"
        ):
            summary["data"][0]["value"] = filename
    return changed


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_side_files_outside_the_tree_are_refused(
    how: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = _secret(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    if how == "absolute":
        name = str(secret)
    elif how == "dotdot":
        name = "../secret/key.bin"
    else:
        (run / "inside.bin").symlink_to(secret)
        name = "inside.bin"
    ref = _write_run(run, gpu_dir, "ref.json", _load(gpu_dir, "gpu_ref.json"))
    cmp = _write_run(run, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), name))
    page = tmp_path / "out.html"
    result = run_main(
        compare_cli.main, capsys, ref, cmp, "--json", "-", "--html", page, "--color", "never"
    )
    assert result.code in (0, 1), result.err
    assert "outside the JSON file's directory tree" in result.err
    # The recorded name, resolved against the JSON file's folder, and the JSON file.
    assert f" (recorded in {cmp}): " in result.err, result.err
    assert "Traceback" not in result.err
    # The secret's values reach no output; the states fell back to their summaries.
    report = result.json()
    assert report["rows"], "the states are still compared from their summaries"
    needle = f"{SECRET_VALUE:g}"[:6]
    assert needle not in result.out and needle not in page.read_text()
    # Asked for, the same file is read.
    allowed = run_main(compare_cli.main, capsys, ref, cmp, "--json", "-", "--side-files-anywhere")
    assert "outside the JSON file's directory tree" not in allowed.err
    assert os.environ.get("NVBENCH_SIDE_FILES_ANYWHERE") is None, "the option leaked"


#: Recorded side-file names no system takes as a path: os.path and open raise ValueError
#: (embedded NUL) or OSError ENAMETOOLONG on them (a traceback and exit 1 before).
UNUSABLE_NAMES = {"nul": "x\x00y.bin", "too-long": "a" * 5000}


@pytest.mark.parametrize("kind", sorted(UNUSABLE_NAMES))
def test_a_side_file_name_that_is_no_path_is_not_read(
    kind: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like a path leading out: one folded warning naming the JSON file, the states compared
    from their summaries; never a traceback and exit 1, which CI reads as a regression."""
    run = tmp_path / "run"
    ref = _write_run(run, gpu_dir, "ref.json", _load(gpu_dir, "gpu_ref.json"))
    name = UNUSABLE_NAMES[kind]
    cmp = _write_run(run, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), name))
    for arguments in ((ref, cmp), ("--method", "robust", ref, cmp), (ref, cmp, cmp)):
        result = run_main(compare_cli.main, capsys, *arguments, "--json", "-", "--color", "never")
        assert result.code in (0, 1), result.err
        assert "Traceback" not in result.err
        assert f" (recorded in {cmp}): " in result.err, result.err
        assert "no usable paths" in result.err, result.err
        assert result.json()["rows"], "the states are still compared from their summaries"
        # A name of thousands of characters is shown cut.
        assert all(len(line) < 600 for line in result.err.splitlines())
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    ingested = _ingest(capsys, tmp_path / "archive", "--samples", "100", cmp)
    assert ingested.code == 0, ingested.err
    assert "no usable path" in ingested.err and "archived from its summaries" in ingested.err
    assert "Traceback" not in ingested.err


def test_an_empty_side_file_name_is_told(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A side-file summary recording ``filename: ""`` fell back to the summaries without a
    word (the reader itself calls the field invalid)."""
    run = tmp_path / "run"
    ref = _write_run(run, gpu_dir, "ref.json", _load(gpu_dir, "gpu_ref.json"))
    cmp = _write_run(run, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), ""))
    result = run_main(compare_cli.main, capsys, ref, cmp, "--json", "-", "--color", "never")
    assert result.code in (0, 1), result.err
    assert f"'' (recorded in {cmp}): " in result.err, result.err
    assert "side files are no usable paths" in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert result.json()["rows"]


def test_reader_argument_reads_side_files_anywhere(tmp_path: Path, gpu_dir: Path) -> None:
    from cuda.bench.results import BenchmarkResult, SideFileError

    secret = _secret(tmp_path)
    path = _write_run(
        tmp_path / "run",
        gpu_dir,
        "cmp.json",
        _pointing(_load(gpu_dir, "gpu_cmp.json"), str(secret)),
    )
    state = BenchmarkResult(path)["copy_bench"][0]
    with pytest.raises(SideFileError, match="outside the JSON file's directory tree"):
        _ = state.samples
    allowed = BenchmarkResult(path, side_files_anywhere=True)["copy_bench"][0]
    assert allowed.samples is not None and float(allowed.samples[0]) == pytest.approx(SECRET_VALUE)


def test_ingest_archives_a_run_with_outside_side_files_from_its_summaries(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing outside the tree is read; the run is archived from its summaries with a
    warning, as a run whose side files are missing (it stopped, exit 2, which also made a
    CI artifact moved away from its absolute --jsonbin paths unusable)."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")

    secret = _secret(tmp_path)
    archive = tmp_path / "archive"
    for number, name in enumerate((str(secret), "/home/ci/build/gone/0.bin")):
        run = _write_run(
            tmp_path / f"run{number}",
            gpu_dir,
            "cmp.json",
            _pointing(_load(gpu_dir, "gpu_cmp.json"), name),
        )
        result = _ingest(capsys, archive, "--samples", "100", run, commit=f"c{number}")
        assert result.code == 0, result.err
        assert "leads outside the JSON file's directory tree; not read" in result.err
        assert "archived from its summaries" in result.err and "Traceback" not in result.err
        assert len(result.err.splitlines()) <= 4 and "more side file(s) not used" in result.err


def test_an_absolute_side_file_path_finds_the_side_files_beside_the_json(
    tmp_path: Path, gpu_dir: Path
) -> None:
    """NVBench run with an absolute --jsonbin path, its artifact moved: the side files lie
    in ``<json>-bin/`` beside the JSON, where the re-anchoring rule now looks for them."""
    from cuda.bench.results import BenchmarkResult

    run = tmp_path / "artifact"
    document = _load(gpu_dir, "gpu_cmp.json")
    for summary in _summaries(document):
        for datum in summary.get("data", []):
            if datum["name"] == "filename":
                datum["value"] = "/home/ci/build/" + datum["value"]
    path = _write_run(run, gpu_dir, "gpu_cmp.json", document)
    state = BenchmarkResult(path)["copy_bench"][0]
    assert state.samples is not None and state.sample_file is not None
    assert str(state.sample_file).startswith(str(run))


def test_a_link_out_of_the_tree_is_refused_without_naming_its_target(
    tmp_path: Path, gpu_dir: Path
) -> None:
    # The message reached reports: it named where a link on the machine leads.
    from cuda.bench.results import BenchmarkResult, SideFileError

    secret = _secret(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "inside.bin").symlink_to(secret)
    path = _write_run(
        run, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), "inside.bin")
    )
    with pytest.raises(SideFileError) as refused:
        _ = BenchmarkResult(path)["copy_bench"][0].samples
    assert "inside.bin" in str(refused.value) and str(secret) not in str(refused.value)
    assert "secret" not in str(refused.value)


# ---------------------------------------------------------------------------------------
# Names as untrusted text (items 2, 3; CSV)
# ---------------------------------------------------------------------------------------


@pytest.fixture
def hostile_pair(tmp_path: Path, gpu_dir: Path) -> tuple[Path, Path]:
    text = CONTROLS + TERMINAL + MARKUP
    ref = _write_run(
        tmp_path / "run", gpu_dir, "ref.json", _rename(_load(gpu_dir, "gpu_ref.json"), text)
    )
    cmp = _write_run(
        tmp_path / "run", gpu_dir, "cmp.json", _rename(_load(gpu_dir, "gpu_cmp.json"), text)
    )
    return ref, cmp


@pytest.mark.parametrize("color", ["never", "always"])
def test_terminal_output_shows_control_characters(
    color: str, hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = hostile_pair
    result = run_main(compare_cli.main, capsys, ref, cmp, "--color", color)
    assert result.code in (0, 1), result.err
    if color == "never":
        assert_no_controls(result.out)
    else:  # only the status colours pass
        sgr = re.compile(r"\x1b\[(?:3[1-7]|39|90)m")
        assert_no_controls(sgr.sub("", result.out))
    assert_no_controls(result.err)
    assert "\\x1b]0;pwned\\x07" in result.out  # shown, as text
    assert "\\r" in result.out


def test_paired_output_shows_control_characters(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``--paired`` printed the comparison's warnings (which quote state names) raw.
    runs = []
    for name in ("gpu_ref.json", "gpu_cmp.json"):
        document = _rename(_load(gpu_dir, name), TERMINAL)
        for bench in document["benchmarks"]:
            for state in bench["states"]:  # a name the engine warns about, quoting it
                state["name"] = TERMINAL + state["name"]
        runs.append(_write_run(tmp_path / "run", gpu_dir, name, document))
        # A second round: another run (another command line), not the file again, which
        # is refused as a run given twice.
        document["meta"]["argv"].append("--round=2")
        runs.append(_write_run(tmp_path / "run", gpu_dir, f"2{name}", document))
    ref, ref2, cmp, cmp2 = runs
    result = run_main(
        compare_cli.main,
        capsys,
        *("--paired", "--ref", ref, "--ref", ref2, "--cmp", cmp, "--cmp", cmp2),
    )
    assert result.code in (0, 1), result.err
    assert "warning" in result.err and "\\x1b]0;pwned" in result.err
    assert_no_controls(result.out)
    assert_no_controls(result.err)


@pytest.mark.parametrize("main", [json_summary_cli.main, walltime_cli.main])
def test_summaries_show_control_characters(
    main: Main, hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(main, capsys, hostile_pair[1])
    assert result.code == 0, result.err
    assert_no_markdown_controls(result.out)  # markdown: the tools' own word joiners allowed
    assert_no_controls(result.err)


def test_history_trend_shows_control_characters(
    tmp_path: Path, hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli import history as history_cli

    archive = tmp_path / "archive"
    for number, run in enumerate(hostile_pair):
        done = _ingest(capsys, archive, run, commit=f"c{number}")
        assert done.code == 0, done.err
    result = run_main(history_cli.main, capsys, "trend", "--archive", archive)
    assert result.code == 0, result.err
    assert_no_controls(result.out)
    assert_no_controls(result.err)


class _Text(HTMLParser):
    """The text and the tags of rendered HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: set[str] = set()
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


@pytest.mark.parametrize("candidates", [1, 2], ids=["pairwise", "n-way"])
def test_markdown_shows_hostile_names_as_text(
    candidates: int, hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    ref, cmp = hostile_pair
    others = [cmp] * candidates
    if candidates > 1:
        others = [cmp, cmp.with_name("cmp2.json")]
        shutil.copy(cmp, others[1])
    result = run_main(compare_cli.main, capsys, ref, *others, "--markdown", "-")
    assert result.code in (0, 1), result.err
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(result.out)
    parsed = _Text()
    parsed.feed(html)
    # Nothing raw: no comment, no image, no link, no emphasis or code from a name.
    assert not parsed.comments
    assert parsed.tags <= {
        "h2", "h3", "h4", "h5", "p", "table", "thead", "tbody", "tr", "th", "td", "details",
        "summary", "ul", "li", "sub", "code", "strong",
    }, parsed.tags  # fmt: skip
    text = "".join(parsed.text)
    # The names show as written (control characters as their escapes), every part of
    # them, in the tables and headings after the first one too.
    shown = MARKUP.replace("\n", "\\n")
    assert text.count(shown) >= 2, shown


def test_column_candidates_named_by_the_file_are_text(
    hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # --col takes the candidates' names from the file's axis values: the summary's
    # baseline, best counts and warnings and the markdown headline name them too.
    markdown_it = pytest.importorskip("markdown_it")
    ref, _ = hostile_pair
    terminal = run_main(compare_cli.main, capsys, ref, "--col", "Layout", "--color", "never")
    assert terminal.code in (0, 1), terminal.err
    assert_no_controls(terminal.out)
    assert "\\x1b]0;pwned\\x07" in terminal.out.split("# Summary")[1]
    result = run_main(compare_cli.main, capsys, ref, "--col", "Layout", "--markdown", "-")
    assert result.code in (0, 1), result.err
    assert_no_markdown_controls(result.out)
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(result.out)
    parsed = _Text()
    parsed.feed(html)
    assert not parsed.comments
    assert parsed.tags <= {
        "h2", "h3", "h4", "h5", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li",
    }, parsed.tags  # fmt: skip
    text = "".join(parsed.text)
    shown = MARKUP.replace("\n", "\\n")
    assert text.count(shown) >= 4, text


def test_output_dir_summary_shows_column_names_as_text(
    hostile_pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    ref, _ = hostile_pair
    out = tmp_path / "out"
    result = run_main(compare_cli.main, capsys, ref, "--col", "Layout", "--output-dir", out)
    assert result.code in (0, 1), result.err
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert_no_markdown_controls(summary)
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(summary)
    parsed = _Text()
    parsed.feed(html)
    assert not parsed.comments
    # The headline's names and the candidate's link to its highlights, nothing from a name.
    assert parsed.tags <= {
        "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "a", "code",
    }, parsed.tags  # fmt: skip
    text = "".join(parsed.text)
    assert text.count(MARKUP.replace("\n", "\\n")) == 2, text  # the headline's baseline, the link


def test_csv_text_cells_never_start_a_formula(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv

    ref = _write_run(
        tmp_path / "run",
        gpu_dir,
        "ref.json",
        _rename(_load(gpu_dir, "gpu_ref.json"), "=cmd|' /C calc'!A0"),
    )
    cmp = _write_run(
        tmp_path / "run",
        gpu_dir,
        "cmp.json",
        _rename(_load(gpu_dir, "gpu_cmp.json"), "=cmd|' /C calc'!A0"),
    )
    result = run_main(compare_cli.main, capsys, ref, cmp, "--csv", "-")
    assert result.code in (0, 1), result.err
    rows = list(csv.DictReader(result.out.splitlines()))
    assert rows
    cells = [cell for row in rows for cell in row.values() if cell]
    assert not [cell for cell in cells if cell[0] in "=+@"], "a cell would run as a formula"
    # Numbers stay numbers, negative ones included.
    negatives = [cell for cell in cells if cell.startswith("-")]
    assert negatives and all(float(cell) < 0 for cell in negatives)
    assert any(cell.startswith("'=cmd") for cell in cells)


# ---------------------------------------------------------------------------------------
# Limits and crafted values (items 7 to 10, 12)
# ---------------------------------------------------------------------------------------


def _deeply_nested(gpu_dir: Path, tmp_path: Path, depth: int) -> Path:
    """A real result with one more field nested ``depth`` arrays deep, as ``deep.json``."""
    text = (gpu_dir / "gpu_ref.json").read_text().rstrip()
    deep = tmp_path / "deep.json"
    deep.write_text(text[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}")
    return deep


def test_deep_nesting_is_one_line(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = _deeply_nested(gpu_dir, tmp_path, 5000)
    for main, args in [
        (compare_cli.main, [gpu_dir / "gpu_ref.json", deep]),
        (json_summary_cli.main, [deep]),
        (walltime_cli.main, [deep]),
    ]:
        _one_line_error(run_main(main, capsys, *args), "deep.json", "nested too deeply")


def test_deep_nesting_is_one_line_where_the_output_guard_reads_it_first(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An output that exists already makes the guard decode every input JSON file for the
    # side files it records (before the reader): it decodes with the same depth-safe
    # decoder as the small inputs, so the reader's one line comes, not a RecursionError.
    deep = _deeply_nested(gpu_dir, tmp_path, 100_000)
    out = tmp_path / "summary.md"
    out.write_text("kept\n")
    result = run_main(json_summary_cli.main, capsys, deep, "-o", out)
    _one_line_error(result, "deep.json", "nested too deeply")
    assert out.read_text() == "kept\n"


def test_deep_nesting_in_a_manifest_or_calibration_is_one_line(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The ab manifest (nvbench_compare --paired DIR) and a calibration file were decoded
    # without #29's nesting limit: a RecursionError traceback.
    deep = "[" * 100_000 + "]" * 100_000
    series = tmp_path / "series"
    series.mkdir()
    (series / "manifest.json").write_text(deep)
    result = run_main(compare_cli.main, capsys, "--paired", series)
    _one_line_error(result, "manifest.json", "nested too deeply")
    calibration = tmp_path / "calibration.json"
    calibration.write_text(deep)
    pair = (gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    result = run_main(compare_cli.main, capsys, *pair, "--calibration", calibration)
    _one_line_error(result, "calibration.json", "nested too deeply")


@pytest.mark.parametrize("nested", ["[", "{a="], ids=["arrays", "inline-tables"])
def test_deep_nesting_in_a_config_is_one_line(
    nested: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --config FILE.toml (often committed beside the benchmarks): tomllib recurses per
    # nested array or inline table, and its RecursionError ended the run with a traceback
    # and exit status 1, which CI reads as a regression.
    closing = "]" if nested == "[" else "}"
    config = tmp_path / "deep.toml"
    config.write_text(f"version = 1\nx = {nested * 50_000}1{closing * 50_000}\n")
    pair = (gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    result = run_main(compare_cli.main, capsys, *pair, "--config", config)
    _one_line_error(result, "deep.toml", "nested too deeply")


def test_deep_nesting_in_an_archive_is_one_line_or_left_out(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An archive comes from elsewhere (a CI cache, an artifact): its marker and the device
    # lists of its runs were decoded without a nesting limit, a RecursionError traceback.
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from cuda.bench.cli import history as history_cli

    deep = "[" * 100_000
    archive = tmp_path / "archive"
    assert _ingest(capsys, archive, gpu_dir / "gpu_ref.json").code == 0
    (runs,) = archive.glob("runs/*/*/*.parquet")
    table = pq.read_table(runs)
    column = table.schema.get_field_index("devices")
    pq.write_table(table.set_column(column, "devices", pa.array([deep] * len(table))), runs)
    result = run_main(history_cli.main, capsys, "trend", "--archive", archive)
    assert result.code == 0, result.err  # the device names are left out, not the runs
    assert "copy_bench" in result.out
    (archive / "nvbench-archive.json").write_text(deep)
    result = run_main(history_cli.main, capsys, "trend", "--archive", archive)
    _one_line_error(result, "nvbench-archive.json", "nested too deeply")


def test_a_default_figure_name_inside_an_archive_is_refused(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without a display and an output path a figure goes to its default name in the
    # working directory; where that lies in an archive, the file would join ingest's.
    pytest.importorskip("matplotlib")
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli import histogram as histogram_cli

    archive = tmp_path / "archive"
    assert _ingest(capsys, archive, gpu_dir / "gpu_ref.json").code == 0
    before = sorted(archive.rglob("*"))
    monkeypatch.chdir(archive / "runs")
    monkeypatch.setenv("MPLBACKEND", "agg")  # no display
    result = run_main(histogram_cli.main, capsys, gpu_dir / "gpu_ref.json")
    _one_line_error(result, "nvbench_histogram.png", "inside the archive", "default file name")
    assert sorted(archive.rglob("*")) == before


def test_a_deeply_nested_file_named_like_a_marker_marks_no_archive(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every command looks for an archive marker above its outputs: a file of that name
    # nested too deeply (it fits the 4 KiB a marker may take) is no marker, not a traceback.
    (tmp_path / "nvbench-archive.json").write_text("[" * 4000)
    out = tmp_path / "reports" / "summary.md"
    out.parent.mkdir()
    result = run_main(json_summary_cli.main, capsys, gpu_dir / "gpu_ref.json", "-o", out)
    assert result.code == 0, result.err
    assert out.read_text(encoding="utf-8").startswith("#")


def test_deep_nesting_in_a_gate_report_is_a_value_error(tmp_path: Path) -> None:
    # nvbench-history report --gate FILE (a CI artifact, shown on a published site): a
    # RecursionError escaped where a ValueError naming the file is the contract.
    from cuda.bench.report.html.history_site import read_gate_report

    gate = tmp_path / "gate.json"
    gate.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match=r"gate\.json: not a gate report.*nested too deeply"):
        read_gate_report(gate)


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (999, "schema_version 999, newer than this"),
        (10**400, r"schema_version 10000000000000000000\.\.\., newer"),
        ("2", "schema_version '2' is no positive whole number"),
        (None, "schema_version None is no positive"),
        (True, "schema_version True is no positive"),
        (0, "schema_version 0 is no positive"),
        ("absent", r"not a gate report \(no schema_version\)"),
    ],
)
def test_a_gate_report_of_an_unknown_schema_version_is_refused(
    tmp_path: Path, version: object, message: str
) -> None:
    """The site's index showed a gate report's counts whatever its schema_version said."""
    from cuda.bench.history._gate_result import GATE_TOOL
    from cuda.bench.report.html.history_site import read_gate_report

    document: dict[str, object] = {
        "schema": "nvbench-tools.compare",
        "schema_version": version,
        "tool": {"name": GATE_TOOL},
        "counts": {"SLOW": 1},
    }
    if version == "absent":
        del document["schema_version"]
    gate = tmp_path / "gate.json"
    gate.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=message):
        read_gate_report(gate)
    # A negative count was shown on the index as it was (SAME -5).
    document["schema_version"] = 2
    document["counts"] = {"SAME": -5}
    gate.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="not a gate report"):
        read_gate_report(gate)
    document["counts"] = {"SLOW": 1}
    gate.write_text(json.dumps(document))
    assert read_gate_report(gate).counts == (("SLOW", 1),)


def test_a_manifest_that_is_not_a_regular_file_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A link planted as an ab directory's manifest (to /dev/zero, say) was read without
    # bound, as #29 refused for result files.
    series = tmp_path / "series"
    series.mkdir()
    (series / "manifest.json").symlink_to("/dev/zero")
    result = run_main(compare_cli.main, capsys, "--paired", series)
    _one_line_error(result, "manifest.json", "not a regular file")


@pytest.mark.parametrize("number", [[], "x", 1.5, True])
def test_a_manifest_round_that_is_not_a_number_is_one_line(
    number: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # int() of a crafted round number: a TypeError (or silent truncation) before.
    from cuda.bench.compare.paired_inputs import MANIFEST_SCHEMA, MANIFEST_VERSION

    runs = [{"side": side, "status": "ok", "json": f"{side}.json"} for side in ("ref", "cmp")]
    rounds = [{"round": number, "first": "ref", "runs": runs}] * 2
    series = tmp_path / "series"
    series.mkdir()
    manifest = {"schema": MANIFEST_SCHEMA, "schema_version": MANIFEST_VERSION, "rounds": rounds}
    (series / "manifest.json").write_text(json.dumps(manifest))
    result = run_main(compare_cli.main, capsys, "--paired", series)
    _one_line_error(result, "series", "round")


def test_a_manifest_run_linked_out_of_its_directory_is_not_read(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A link planted in an ab directory led the paired analysis to files elsewhere; as
    # for side files, what a manifest names is read only inside its directory tree.
    from cuda.bench.compare.paired_inputs import MANIFEST_SCHEMA, MANIFEST_VERSION

    series = tmp_path / "series"
    series.mkdir()
    rounds = []
    for number in (1, 2):
        folder = series / f"round-{number:02d}"
        folder.mkdir()
        shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", folder / "ref.json")
        (folder / "cmp.json").symlink_to(gpu_dir / "gpu_ref_nosidecar.json")
        runs = [
            {"side": side, "status": "ok", "json": f"{folder.name}/{side}.json"}
            for side in ("ref", "cmp")
        ]
        rounds.append({"round": number, "first": "ref", "runs": runs})
    manifest = {"schema": MANIFEST_SCHEMA, "schema_version": MANIFEST_VERSION, "rounds": rounds}
    (series / "manifest.json").write_text(json.dumps(manifest))
    result = run_main(compare_cli.main, capsys, "--paired", series)
    _one_line_error(result, "round-01/cmp.json", "outside")


@pytest.mark.parametrize(
    ("runs", "message"),
    [
        ([("ref", "ok"), ("reff", "ok")], "side is 'reff'"),
        ([("ref", "ok"), ("cmp", "done")], "status 'done'"),
        ([("ref", "ok"), ("cmp", "ok"), ("cmp", "ok")], "runs 'cmp' twice"),
        ("round 1", "round 1 is there twice"),
    ],
)
def test_a_manifest_run_of_no_known_side_or_status_is_one_line(
    runs: list[tuple[str, str]] | str,
    message: str,
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A round whose run named neither side (or a status the runner never writes) was left
    # out as if unfinished: three rounds compared as two, exit 0, nothing said.
    from cuda.bench.compare.paired_inputs import MANIFEST_SCHEMA, MANIFEST_VERSION

    series = tmp_path / "series"
    series.mkdir()
    rounds = []
    for number in (1, 2, 3):
        folder = series / f"round-{number:02d}"
        folder.mkdir()
        for side in ("ref", "cmp"):
            shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", folder / f"{side}.json")
        sides = runs if number == 2 and isinstance(runs, list) else [("ref", "ok"), ("cmp", "ok")]
        records = [
            {"side": side, "status": status, "json": f"{folder.name}/{side[:3]}.json"}
            for side, status in sides
        ]
        # "round 1": the second round numbered as the first (a hand edit or a merge).
        label = 1 if number == 2 and runs == "round 1" else number
        rounds.append({"round": label, "first": "ref", "runs": records})
    manifest = {"schema": MANIFEST_SCHEMA, "schema_version": MANIFEST_VERSION, "rounds": rounds}
    (series / "manifest.json").write_text(json.dumps(manifest))
    result = run_main(compare_cli.main, capsys, "--paired", series)
    _one_line_error(result, "series", message)


@pytest.mark.parametrize("size", [10**10, 2**63 - 1])
def test_side_file_size_is_checked_against_the_file(
    size: int, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _load(gpu_dir, "gpu_cmp.json")
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            if state["summaries"]:
                state["summaries"] = [
                    s for s in state["summaries"] if not s["tag"].startswith("nv/json/freqs")
                ]
    for summary in _summaries(document):
        if summary["tag"].startswith("nv/json/bin:"):
            summary["data"][1]["value"] = str(size)
    cmp = _write_run(tmp_path / "run", gpu_dir, "cmp.json", document)
    result = run_main(compare_cli.main, capsys, gpu_dir / "gpu_ref.json", cmp, "--color", "never")
    assert result.code == 0, result.err
    assert f"expected {4 * size}" in result.err and "Traceback" not in result.err


@pytest.mark.parametrize(
    ("value", "unusable"),
    [
        ("1e308", True),
        ("1.7976931348623157e308", True),
        ("-1e308", True),
        ("inf", True),
        ("nan", True),
        ("5e-324", True),  # below float32: no NVBench time
        ("-0.0", True),
    ],
)
def test_times_at_the_edges_of_float64(
    value: str, unusable: bool, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _load(gpu_dir, "gpu_ref_nosidecar.json")
    for summary in _summaries(document):
        if (
            summary["tag"].startswith("nv/cold/time/gpu/")
            and summary["data"][0]["type"] == "float64"
        ):
            summary["data"][0]["value"] = value
    cmp = tmp_path / "edge.json"
    cmp.write_text(json.dumps(document))
    ref = gpu_dir / "gpu_ref_nosidecar.json"
    for args in [(ref, cmp), (cmp, ref)]:
        result = run_main(compare_cli.main, capsys, *args, "--fail-on", "slow", "--json", "-")
        assert result.code in (0, 1), result.err
        assert "Traceback" not in result.err and "RuntimeWarning" not in result.err
        statuses = {row["status"] for row in result.json()["rows"]}
        if unusable:
            assert not statuses & {"FAST", "SLOW", "SAME"}, statuses


def test_endless_input_is_refused(capsys: pytest.CaptureFixture[str], gpu_dir: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    result = run_main(compare_cli.main, capsys, "/dev/zero", gpu_dir / "gpu_ref.json")
    _one_line_error(result, "/dev/zero")


def _one_sample(document: dict[str, Any], scale: float) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    for summary in _summaries(changed):
        tag = summary["tag"]
        data = summary["data"][0]
        if tag.endswith("sample_size"):
            data["value"] = "1"
        elif "/time/" in tag and "stdev" not in tag and data["type"] == "float64":
            data["value"] = repr(float(data["value"]) * scale)
        elif "stdev" in tag or "/iqr" in tag or "/ir/" in tag:
            data["value"] = "0.0"
    for bench in changed["benchmarks"]:
        for state in bench["states"]:
            if state["summaries"]:
                state["summaries"] = [
                    s for s in state["summaries"] if not s["tag"].startswith("nv/json/")
                ]
    return changed


@pytest.mark.parametrize("method", ["ci", "robust"])
def test_one_sample_per_side_is_never_a_change(
    method: str, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _load(gpu_dir, "gpu_ref.json")
    ref = tmp_path / "ref.json"
    cmp = tmp_path / "cmp.json"
    ref.write_text(json.dumps(_one_sample(document, 1.0)))
    cmp.write_text(json.dumps(_one_sample(document, 1.025)))
    result = run_main(
        compare_cli.main, capsys, ref, cmp, "--method", method, "--fail-on", "slow", "--json", "-"
    )
    assert result.code == 0, result.err
    rows = [row for row in result.json()["rows"] if row["status"] != "SKIP"]
    assert rows and {row["status"] for row in rows} == {"AMBG"}
    assert {row["reason_code"] for row in rows} == {"too_few_samples"}


def test_states_named_without_device_are_matched(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _load(gpu_dir, "gpu_ref.json")
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            state["name"] = state["name"].replace("Device=", "Dev=")
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document))
    expected = run_main(
        compare_cli.main, capsys, gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", "--json", "-"
    )
    result = run_main(compare_cli.main, capsys, ref, gpu_dir / "gpu_cmp.json", "--json", "-")
    assert result.code in (0, 1), result.err
    counts = result.json()["counts"]
    assert counts == expected.json()["counts"]
    assert "does not begin with 'Device=0'" in result.err


def test_a_state_on_a_device_the_benchmark_does_not_list_is_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No device pair holds such a state, so no row can show it: one warning line naming
    the file, the benchmark and the state, instead of a silent REMOVED/ADDED."""
    from cuda.bench.results.synthetic import SyntheticConfig, write_run

    config = SyntheticConfig(benchmarks=1, states=4, samples=50)
    ref, cmp = tmp_path / "ref.json", tmp_path / "cmp.json"
    write_run(ref, config, seed=3)
    write_run(cmp, config, seed=3, side="cmp")
    document = json.loads(cmp.read_text())
    stray = document["benchmarks"][0]["states"][1]
    stray["device"] = 7
    cmp.write_text(json.dumps(document))
    result = run_main(compare_cli.main, capsys, ref, cmp, "--color", "never")
    assert result.code == 0, result.err
    told = [line for line in result.err.splitlines() if "device 7" in line]
    assert len(told) == 1, result.err
    for needle in (str(cmp), "'bench_00'", repr(stray["name"]), "warning:", "left out"):
        assert needle in told[0], told[0]
    # A filter that leaves the state out leaves its warning out too.
    assert stray["name"] == "Device=0 Elements=2048"
    filtered = run_main(compare_cli.main, capsys, ref, cmp, "-a", "Elements=1024")
    assert filtered.code == 0, filtered.err
    assert "device 7" not in filtered.err


# ---------------------------------------------------------------------------------------
# Outputs (items 4 to 6, 13)
# ---------------------------------------------------------------------------------------


def _many(tmp_path: Path, gpu_dir: Path) -> tuple[Path, Path]:
    base = tmp_path / "base.json"
    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", base)
    other = tmp_path / "cand.json"
    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", other)
    return base, other


def test_output_dir_replaces_a_planted_link_instead_of_writing_through(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, other = _many(tmp_path, gpu_dir)
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "summary.md").symlink_to(victim)
    result = run_main(compare_cli.main, capsys, base, other, other, "--output-dir", out)
    assert result.code in (0, 1), result.err
    assert victim.read_text() == "keep me"
    assert not (out / "summary.md").is_symlink() and (out / "summary.md").is_file()


def test_output_dir_never_replaces_an_input(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _many(tmp_path, gpu_dir)
    matrix = tmp_path / "matrix.json"
    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", matrix)
    before = matrix.read_bytes()
    monkeypatch.chdir(tmp_path)
    result = run_main(
        compare_cli.main, capsys, "base.json", "matrix.json", "cand.json", "--output-dir", "."
    )
    _one_line_error(result, "matrix.json")
    assert matrix.read_bytes() == before


def test_read_only_report_is_not_replaced(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    report.write_text("{}")
    report.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    ref = gpu_dir / "gpu_ref_nosidecar.json"
    cmp = gpu_dir / "gpu_cmp.json"  # a separate run: one compared with itself is warned of
    result = run_main(compare_cli.main, capsys, ref, cmp, "--json", report)
    _one_line_error(result, "report.json", "read-only")
    assert report.read_text() == "{}"


def test_history_site_links_and_stale_pages(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli import history as history_cli

    archive = tmp_path / "archive"
    for number in range(2):
        run = gpu_dir / ("gpu_ref.json", "gpu_cmp.json")[number]
        done = _ingest(capsys, archive, run, commit=f"c{number}")
        assert done.code == 0, done.err
    site = tmp_path / "site"
    (site / "bench").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (site / "index.html").symlink_to(victim)
    (site / "bench" / "9999.html").write_text("stale")
    (site / "bench" / "notes.txt").write_text("mine")
    result = run_main(history_cli.main, capsys, "report", "--archive", archive, "--html", site)
    assert result.code == 0, result.err
    assert victim.read_text() == "keep me"
    index = (site / "index.html").read_text()
    assert "Content-Security-Policy" in index
    assert not (site / "bench" / "9999.html").exists()
    assert (site / "bench" / "notes.txt").read_text() == "mine"
    # A missing parent is reported, not created.
    missing = run_main(
        history_cli.main, capsys, "report", "--archive", archive, "--html", tmp_path / "no" / "site"
    )
    _one_line_error(missing, "no")
    assert not (tmp_path / "no").exists()


def test_histogram_shows_control_characters(
    tmp_path: Path, hostile_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli import histogram as histogram_cli

    image = tmp_path / "h.png"
    result = run_main(histogram_cli.main, capsys, hostile_pair[1], "-o", image, "--max-states", "2")
    assert result.code == 0, result.err
    assert_no_controls(result.out)
    assert_drawn_as_text(result, image)


def test_an_abandoned_ingest_temporary_is_removed(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    import subprocess
    import sys

    from cuda.bench.history._temporary import temporary_path

    archive = tmp_path / "archive"
    first = _ingest(capsys, archive, gpu_dir / "gpu_ref.json")
    assert first.code == 0, first.err
    # What a killed ingest leaves: a temporary of a process that no longer runs.
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    folder = next(path for path in (archive / "states").rglob("*") if path.is_dir())
    stale = temporary_path(folder, "x").with_name(
        re.sub(r"-[0-9]+\.", f"-{child.stdout.strip()}.", temporary_path(folder, "x").name, count=1)
    )
    stale.write_bytes(b"half")
    mine = temporary_path(folder, "y")  # a live writer's (this process): kept
    mine.write_bytes(b"busy")
    second = _ingest(capsys, archive, gpu_dir / "gpu_cmp.json")
    assert second.code == 0, second.err
    assert not stale.exists() and mine.exists()
    # A missing parent of a new archive is reported, not created.
    missing = _ingest(capsys, tmp_path / "no" / "archive", gpu_dir / "gpu_ref.json")
    _one_line_error(missing, "does not exist")
    assert not (tmp_path / "no").exists()


def test_a_report_over_a_read_only_special_file_names_it(
    gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc")
    ref = gpu_dir / "gpu_ref_nosidecar.json"
    cmp = gpu_dir / "gpu_cmp.json"  # a separate run: one compared with itself is warned of
    result = run_main(compare_cli.main, capsys, ref, cmp, "--html", "/proc/self/status")
    _one_line_error(result, "/proc/self/status")
    assert ".tmp" not in result.err


def test_history_gate_on_times_beyond_float32(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    from cuda.bench.cli import history as history_cli

    archive = tmp_path / "archive"
    document = _load(gpu_dir, "gpu_ref_nosidecar.json")
    for number in range(3):
        run = tmp_path / f"run{number}.json"
        changed = copy.deepcopy(document)
        changed["benchmarks"][0]["states"][0]["summaries"][1]["data"][0]["value"] = str(number)
        run.write_text(json.dumps(changed))
        done = _ingest(capsys, archive, run, commit=f"c{number}")
        assert done.code == 0, done.err
    huge = copy.deepcopy(document)
    for summary in _summaries(huge):
        if (
            summary["tag"].startswith("nv/cold/time/gpu/")
            and summary["data"][0]["type"] == "float64"
        ):
            summary["data"][0]["value"] = "1e308"
    candidate = tmp_path / "huge.json"
    candidate.write_text(json.dumps(huge))
    result = run_main(
        history_cli.main, capsys, "gate", "--archive", archive, "--fail-on", "slow", candidate
    )
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err
    assert "Regression  (🔴 SLOW, compare is slower): 0" in result.out
    assert "Passed: --fail-on slow" in result.out


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_an_outside_side_file_is_refused_whether_or_not_it_exists(
    how: str, tmp_path: Path, gpu_dir: Path
) -> None:
    """A result file from a pull request could probe the CI machine: a path outside the
    tree that existed was "outside ...; not read", one that did not was "not found", and
    both messages reach the published report. Now the answer does not depend on it."""
    from cuda.bench.results import BenchmarkResult, SideFileError

    secret = _secret(tmp_path)
    missing = secret.with_name("no-such-key.bin")
    messages = []
    for number, target in enumerate((secret, missing)):
        run = tmp_path / f"run{number}"
        run.mkdir()
        if how == "absolute":
            name = str(target)
        elif how == "dotdot":
            name = f"../secret/{target.name}"
        else:
            (run / "inside.bin").symlink_to(target)
            name = "inside.bin"
        path = _write_run(run, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), name))
        with pytest.raises(SideFileError) as refused:
            _ = BenchmarkResult(path)["copy_bench"][0].samples
        messages.append(str(refused.value).replace(str(run), "RUN").replace(target.name, "T"))
    assert messages[0] == messages[1]
    assert "outside the JSON file's directory tree; not read" in messages[0]


def test_a_state_listed_twice_is_named_in_a_warning(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state the compare file holds twice (the second 30 % slower) was matched by its
    order and the copy called ADDED without a word."""
    document = _load(gpu_dir, "gpu_ref_nosidecar.json")
    states = document["benchmarks"][0]["states"]
    states.append(copy.deepcopy(states[0]))
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(document))
    result = run_main(compare_cli.main, capsys, gpu_dir / "gpu_ref_nosidecar.json", twice)
    assert result.code == 0, result.err
    lines = [line for line in result.err.splitlines() if "appears more than once" in line]
    assert len(lines) == 1 and "compare" in lines[0] and "copy_bench" in lines[0], result.err
    assert "Elements=2^16" in lines[0]


@pytest.mark.parametrize("name", [b"\\ud800", b"\xed\xa0\x80"], ids=["escaped", "raw"])
def test_a_side_file_name_that_is_no_path_is_one_line_with_an_existing_output(
    name: bytes, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A side-file name holding a lone surrogate can be no path. The output guard, which
    reads the names an input records when an output file already exists, passed it on to
    path resolution: a UnicodeEncodeError traceback and exit 1 (a regression, to CI)."""
    path = _write_run(tmp_path, gpu_dir, "cmp.json", _pointing(_load(gpu_dir, "gpu_cmp.json"), "N"))
    path.write_bytes(path.read_bytes().replace(b'"N"', b'"' + name + b'"'))
    before = path.read_bytes()
    existing = tmp_path / "summary.md"
    existing.write_text("kept\n")
    result = run_main(json_summary_cli.main, capsys, path, "-o", existing)
    _one_line_error(result, "cmp.json")
    assert existing.read_text() == "kept\n"
    assert path.read_bytes() == before


def test_a_json_entry_of_a_folder_that_is_no_regular_file_is_named(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A named pipe or a dangling link named *.json in a folder was left out without a
    # word: two folders compared as if it were not there, a side's runs one fewer.
    ref, cmp = tmp_path / "ref", tmp_path / "cmp"
    for folder in (ref, cmp):
        folder.mkdir()
    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", ref / "run.json")
    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", cmp / "run.json")
    os.mkfifo(ref / "fifo.json")
    (ref / "link.json").symlink_to(tmp_path / "nowhere.json")
    (ref / "sub.json").mkdir()  # a folder is a folder: subfolders are not read
    result = run_main(compare_cli.main, capsys, ref, cmp)
    assert result.code == 0, result.err
    assert f"reference file '{ref / 'fifo.json'}' is not a regular file but a named pipe" in (
        result.err
    )
    assert f"reference file '{ref / 'link.json'}' is a link to no file" in result.err
    assert "sub.json" not in result.err
    result = run_main(compare_cli.main, capsys, "--ref", ref, "--cmp", cmp)
    # As runs of a side they are read, and the reader's one line names one of them.
    _one_line_error(result, str(ref))
    assert "link.json: a link to no file" in result.err or "fifo.json: not a regular" in (
        result.err
    )
