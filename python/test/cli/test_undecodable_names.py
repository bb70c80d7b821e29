"""A result file whose name holds a byte that is no UTF-8 (Python reads it as a lone
surrogate): the JSON and HTML reports of ``nvbench_compare`` failed with a traceback
(UnicodeEncodeError, exit 1, which CI reads as a regression) where CSV and markdown wrote;
later the ``--fail-on missing`` line of an unpaired such file did the same."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from _cli_helpers import run_main
from cuda.bench.cli.compare import main

pytestmark = pytest.mark.skipif(
    sys.platform == "darwin" or sys.getfilesystemencoding() != "utf-8",
    reason="needs a file system that takes any bytes in a name (Linux)",
)

#: ``x\xff.json``: the name's byte 0xff is no UTF-8.
NAME = os.fsdecode(b"x\xff.json")


def test_json_and_html_reports_of_an_undecodable_name_are_written(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for side, source in (("ref", "gpu_ref.json"), ("cmp", "gpu_cmp.json")):
        (tmp_path / side).mkdir()
        shutil.copy(gpu_dir / source, tmp_path / side / NAME)
    monkeypatch.chdir(tmp_path)
    result = run_main(main, capsys, "ref", "cmp", "--json", "o.json", "--html", "o.html")
    assert result.code == 0, result.err
    report = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))
    assert report["rows"][0]["ref_files"] == [os.path.join("ref", NAME)]
    assert "\\udcff" in (tmp_path / "o.html").read_text(encoding="utf-8")


def test_every_report_names_an_unpaired_undecodable_file_as_its_escape(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The ``--fail-on missing`` line quoted the file name raw: the HTML page failed with a
    # traceback (UnicodeEncodeError, exit 1), N-way's page and folder as well.
    source = (gpu_dir / "gpu_ref_nosidecar.json").read_bytes()
    for side in ("a", "b", "c"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "x.json").write_bytes(source)
    (tmp_path / "a" / NAME).write_bytes(source + b"\n\n")  # not a copy read once
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    two = ["--markdown", "o.md", "--csv", "o.csv", "--json", "o.json", "--html", "o.html"]
    result = run_main(main, capsys, "a", "b", "--fail-on", "missing", *two)
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    shown = "a/x\\udcff.json"
    assert f"reference file {shown} (unpaired)" in result.out
    for name in ("o.md", "o.html"):
        assert shown in (tmp_path / name).read_text(encoding="utf-8"), name
    json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))
    (tmp_path / "o.csv").read_text(encoding="utf-8")
    many = ["a", "b", "c", "--fail-on", "missing"]
    result = run_main(main, capsys, *many, "--html", "n.html", "--output-dir", "out")
    assert result.code == 1, result.err
    assert shown in (tmp_path / "n.html").read_text(encoding="utf-8")
    written = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert len(written) > 4
    texts = {path.name: path.read_text(encoding="utf-8") for path in written}
    assert shown in texts["report.html"] and shown in texts["highlights.md"]


def test_history_ingest_stores_an_undecodable_file_name_as_its_escape(
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pyarrow refused the lone surrogate in the runs table's ``source``: a traceback, exit 1.
    pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
    pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")
    import pyarrow.parquet as pq
    from cuda.bench.cli.history import main as history_main

    shutil.copy(gpu_dir / "gpu_ref_nosidecar.json", tmp_path / NAME)
    (tmp_path / "ar").mkdir()
    monkeypatch.chdir(tmp_path)
    result = run_main(history_main, capsys, "ingest", "--archive", "ar", "--commit", "c1", NAME)
    assert result.code == 0, result.err
    assert "x\\udcff.json" in result.out
    (runs,) = (tmp_path / "ar" / "runs").rglob("*.parquet")
    assert pq.read_table(runs).column("source").to_pylist() == ["x\\udcff.json"]
    result = run_main(history_main, capsys, "trend", "--archive", "ar")
    assert result.code == 0, result.err
