"""GitHub makes mentions (which notify people and teams), issue references and links of
plain text after the markdown is rendered, so the backslash escapes of the markdown
writers did not stop them: a benchmark named ``@octocat see https://evil.example/login
and www.evil.example #1`` and a device ``@nvidia/gpu-team`` pinged, linked and
referenced from every markdown report. The writers now put a word joiner (U+2060) where
GitHub would read one; the names still read the same."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import assert_no_markdown_controls, run_main, without_reference_joiners
from cuda.bench.cli import compare as compare_cli
from cuda.bench.cli import json_summary as json_summary_cli
from cuda.bench.cli import walltime as walltime_cli

BENCHMARK = "@octocat see https://evil.example/login and www.evil.example #1 GH-2 a@b.example"
DEVICE = "@nvidia/gpu-team"
#: What GitHub would turn into a mention, an e-mail or issue link, or an autolink.
LIVE = re.compile(r"@\w|#\d|://|(?i:www)\.|(?i:gh)-\d")


def _runs(tmp_path: Path, gpu_dir: Path) -> tuple[Path, Path]:
    """The real run renamed, and a copy of it 50 % slower (a regression in every row)."""
    document: dict[str, Any] = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    document["benchmarks"][0]["name"] = BENCHMARK
    document["devices"][0]["name"] = DEVICE
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document))
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            for summary in state["summaries"] or []:
                if summary["tag"].startswith("nv/cold/time/gpu/"):
                    for data in summary["data"]:
                        if data["type"] == "float64":
                            data["value"] = str(float(data["value"]) * 1.5)
    cmp = tmp_path / "cmp.json"
    cmp.write_text(json.dumps(document))
    return ref, cmp


def _assert_no_references(markdown: str, *, names: tuple[str, ...]) -> None:
    assert_no_markdown_controls(markdown)
    assert LIVE.findall(markdown) == []
    # The names read as written once the joiners (which show nothing) are left out.
    plain = without_reference_joiners(markdown).replace("\\#", "#")
    for name in names:
        assert name in plain, name
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    assert LIVE.findall(html) == []
    # No link made of a name (summary.md links each candidate's own highlights).
    assert [href for href in re.findall(r'href="([^"]*)"', html) if "evil" in href] == []


def test_comparison_reports_make_no_mention_reference_or_link(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = _runs(tmp_path, gpu_dir)
    report = tmp_path / "r.md"
    result = run_main(compare_cli.main, capsys, ref, cmp, "--markdown", report)
    assert result.code == 0, result.err
    text = report.read_text(encoding="utf-8")
    # In the regression table, in the <details><summary> heading and the device heading.
    assert "<details><summary>@\u2060octocat" in text
    _assert_no_references(text, names=(BENCHMARK, DEVICE))

    out = tmp_path / "out"
    out.mkdir()
    second = tmp_path / "cmp2.json"
    second.write_bytes(cmp.read_bytes())
    result = run_main(compare_cli.main, capsys, ref, cmp, second, "--output-dir", out)
    assert result.code == 0, result.err
    written = {
        path.relative_to(out).as_posix(): path.read_text(encoding="utf-8")
        for path in out.rglob("*.md")
    }
    assert {"matrix.md", "summary.md", "cmp/highlights.md", "cmp/regressions.md"} <= set(written)
    for text in written.values():
        _assert_no_references(text, names=())
    _assert_no_references(written["matrix.md"], names=(BENCHMARK, DEVICE))
    _assert_no_references(written["cmp/regressions.md"], names=(BENCHMARK,))


@pytest.mark.parametrize("main", [json_summary_cli.main, walltime_cli.main])
def test_summaries_make_no_mention_reference_or_link(
    main: Any, tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, _ = _runs(tmp_path, gpu_dir)
    result = run_main(main, capsys, ref)
    assert result.code == 0, result.err
    _assert_no_references(result.out, names=(BENCHMARK, DEVICE))


def test_history_gate_markdown_makes_no_mention_reference_or_link(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
    pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")
    from cuda.bench.cli import history as history_cli

    ref, cmp = _runs(tmp_path, gpu_dir)
    archive, report = tmp_path / "ar", tmp_path / "gate.md"
    archive.mkdir()
    ingest = ["ingest", "--archive", archive, "--commit", "c1", ref]
    assert run_main(history_cli.main, capsys, *ingest).code == 0
    gate = ["gate", "--archive", archive, "--min-runs", "1", cmp, "--markdown", report]
    result = run_main(history_cli.main, capsys, *gate)
    assert result.code == 0, result.err
    _assert_no_references(report.read_text(encoding="utf-8"), names=(BENCHMARK, DEVICE))
