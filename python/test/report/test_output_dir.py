"""``--output-dir`` of an N-way comparison: the summary, the matrix reports, and per candidate
a folder with its highlights, regressions and improvements written by the pairwise writers."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import msgspec
import pytest
from _html_helpers import page_blob, write_hostile_pair
from cuda.bench.compare.many import Correction, MultiComparison, compare_many
from cuda.bench.compare.model import Status
from cuda.bench.compare.records import flat_columns
from cuda.bench.report.json_report import render_json
from cuda.bench.report.output_dir import (
    HIGHLIGHT_COLUMNS,
    safe_dir_name,
    write_output_dir,
)

PAIR_FILES = {
    "highlights.md",
    "highlights.csv",
    "regressions.md",
    "regressions.csv",
    "improvements.md",
    "improvements.csv",
    "report.json",
}


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> MultiComparison:
    ref, cmp = write_hostile_pair(tmp_path_factory.mktemp("output-dir"))
    return compare_many(ref, {"a": cmp, "..": ref, "x/../y": cmp}, base_name="base")


def _csv_rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a", "a"),
        ("..", "_"),
        (".", "_"),
        ("../../etc", "_.._etc"),
        ("x/../y", "x_.._y"),
        (".hidden", "hidden"),
        ("a b\\c:d", "a_b_c_d"),
        ("", "_"),
        ("é", "_"),
    ],
)
def test_safe_dir_name_is_one_plain_component(name: str, expected: str) -> None:
    chosen = safe_dir_name(name)
    assert chosen == expected
    assert os.sep not in chosen and chosen not in (".", "..") and not chosen.startswith(".")


def test_safe_dir_name_makes_clashes_unique() -> None:
    assert safe_dir_name("a/b", taken={"a_b"}) == "a_b-2"
    assert safe_dir_name("A_B", taken={"a_b", "a_b-2"}) == "A_B-3"  # case-insensitive systems
    assert len(safe_dir_name("n" * 500)) == 100


def test_every_candidate_gets_a_safe_folder_inside_the_directory(
    multi: MultiComparison, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    written = write_output_dir(multi, out)
    folders = sorted(path.name for path in out.iterdir() if path.is_dir())
    assert folders == ["_", "a", "x_.._y"]
    assert {path.name for path in (out / "a").iterdir()} == PAIR_FILES
    # Nothing escaped the directory, and every file written is listed.
    assert all(path.resolve().is_relative_to(out.resolve()) for path in written)
    on_disk = {path for path in out.rglob("*") if path.is_file()}
    assert on_disk == set(written)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_pair_folders_hold_the_pairwise_reports_of_their_candidate(
    multi: MultiComparison, tmp_path: Path
) -> None:
    write_output_dir(multi, tmp_path, fail_on="slow")
    pair = multi["a"]
    report = (tmp_path / "a" / "report.json").read_text(encoding="utf-8")
    assert report == render_json(pair, fail_on="slow")
    regressions = _csv_rows(tmp_path / "a" / "regressions.csv")
    assert list(regressions[0]) == flat_columns(pair)
    assert {row["status"] for row in regressions} == {"SLOW"}
    assert len(regressions) == pair.counts[Status.SLOW]
    changes = [float(row["effect_ratio"]) for row in regressions]
    assert changes == sorted(changes, reverse=True)  # largest regression first
    improvements = _csv_rows(tmp_path / "a" / "improvements.csv")
    assert len(improvements) == pair.counts[Status.FAST] and improvements[0]["status"] == "FAST"
    markdown = (tmp_path / "a" / "regressions.md").read_text(encoding="utf-8")
    assert markdown.count("🔴 SLOW |") == pair.counts[Status.SLOW]
    # A candidate without regressions says so, and its CSV has the header only.
    assert "No regressions." in (tmp_path / "_" / "regressions.md").read_text(encoding="utf-8")
    assert _csv_rows(tmp_path / "_" / "regressions.csv") == []


def test_highlights_and_summary_give_counts_and_geometric_mean(
    multi: MultiComparison, tmp_path: Path
) -> None:
    write_output_dir(multi, tmp_path, fail_on="slow")
    summary = _csv_rows(tmp_path / "summary.csv")
    assert list(summary[0]) == list(HIGHLIGHT_COLUMNS)
    assert [row["candidate"] for row in summary] == ["a", "..", "x/../y"]
    assert [row["directory"] for row in summary] == ["a", "_", "x_.._y"]
    for row, name in zip(summary, multi.names, strict=True):
        counts = multi[name].counts
        assert int(row["count.slow"]) == counts[Status.SLOW]
        assert int(row["count.same"]) == counts[Status.SAME]
        assert float(row["pair_confidence"]) == multi.pair_confidence
        assert float(row["geomean_lo"]) <= float(row["geomean"]) <= float(row["geomean_hi"])
        own = _csv_rows(tmp_path / row["directory"] / "highlights.csv")
        assert own == [row]
    assert [row["failed_conditions"] for row in summary] == ["slow", "", "slow"]
    text = (tmp_path / "a" / "highlights.md").read_text(encoding="utf-8")
    assert "Geometric mean of a/base times: 1.04" in text and "❌ **Failed**" in text
    index = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| [x/../y](x_.._y/highlights.md) | 3 |" in index and "(_/highlights.md)" in index
    levels = (
        f"Intervals at 95%; FAST/SLOW confirmed at {multi.pair_confidence * 100:.4g}% per pair "
        "(bonferroni over 3 candidates, 95% per state)."
    )
    assert levels in text and levels in index
    plain = msgspec.structs.replace(multi, correction=Correction.NONE, pair_confidence=0.95)
    write_output_dir(plain, tmp_path / "plain")
    index = (tmp_path / "plain" / "summary.md").read_text(encoding="utf-8")
    assert "Intervals at 95% (none over 3 candidates)." in index and "FAST/SLOW" not in index


def test_matrix_reports_and_html_are_written_beside_the_summary(
    multi: MultiComparison, tmp_path: Path
) -> None:
    def matrix_json(given: MultiComparison) -> str:
        return json.dumps({"states": len(given.matrix())})

    write_output_dir(multi, tmp_path, matrix_reports={"matrix.json": matrix_json}, html_plots=2)
    assert json.loads((tmp_path / "matrix.json").read_text()) == {"states": len(multi.matrix())}
    blob = page_blob((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert blob["layout"] == "matrix" and len(blob["plots"]) == 2
    for bad in ("../matrix.json", "summary.csv", ".hidden.json", "a/b.json"):
        with pytest.raises(ValueError, match="plain file name"):
            write_output_dir(multi, tmp_path / "other", matrix_reports={bad: matrix_json})
    assert not (tmp_path / "other").exists()  # checked before anything is written


def test_a_candidate_named_like_a_report_gets_its_own_folder(tmp_path: Path) -> None:
    ref, cmp = write_hostile_pair(tmp_path)
    multi = compare_many(ref, {"summary.md": cmp, "matrix.json": ref})
    write_output_dir(multi, tmp_path / "out", matrix_reports={"matrix.json": lambda m: "{}"})
    out = tmp_path / "out"
    assert (out / "summary.md").is_file() and (out / "matrix.json").is_file()
    assert {path.name for path in out.iterdir() if path.is_dir()} == {
        "summary.md-2",
        "matrix.json-2",
    }


def test_existing_files_are_replaced_whole_and_a_missing_parent_is_an_error(
    multi: MultiComparison, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "report.json").write_text("old", encoding="utf-8")
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    write_output_dir(multi, tmp_path)
    assert (tmp_path / "a" / "report.json").read_text(encoding="utf-8").startswith("{")
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"  # never emptied
    assert not [path for path in tmp_path.rglob(".*") if path.is_file()]  # no temporaries
    with pytest.raises(FileNotFoundError):
        write_output_dir(multi, tmp_path / "missing" / "out")
