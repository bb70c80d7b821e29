"""A result file whose name holds a byte that is no UTF-8 (Python reads it as a lone
surrogate): the JSON and HTML reports of ``nvbench_compare`` failed with a traceback
(UnicodeEncodeError, exit 1, which CI reads as a regression) where CSV and markdown wrote."""

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
