"""An input that is a link to no file (dangling, or one of a loop of links) is told as such:
``ls`` shows it there, so "no such file" or "does not exist" sent the user looking for a
file that is listed (trial of 2026-11-29). A missing name keeps its words."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cuda.bench.cli.compare import main as compare_main
from cuda.bench.cli.json_summary import main as summary_main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "cmp.json"


def _history(argv: list[str]) -> int:
    pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
    pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")
    from cuda.bench.cli.history import main

    return main(argv)


def _inputs(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone.json")
    return {"loop": tmp_path / "loop-a", "dangling": tmp_path / "dangling"}


COMMANDS: dict[str, Callable[[Path, Path], int]] = {
    "compare": lambda path, _: compare_main([str(path), str(EXAMPLE)]),
    "json-summary": lambda path, _: summary_main([str(path)]),
    "ingest": lambda path, root: _history(
        ["ingest", "--archive", str(root / "archive"), "--commit", "c1", str(path)]
    ),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_link_to_no_file_is_told_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    path = _inputs(tmp_path)[kind]
    capsys.readouterr()
    assert COMMANDS[command](path, tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a link to no file (dangling, or a loop of links)" in err[0], err
    assert path.name in err[0]


def test_the_gate_tells_a_link_to_no_file_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "archive"
    assert _history(["ingest", "--archive", str(archive), "--commit", "c1", str(EXAMPLE)]) == 0
    capsys.readouterr()
    assert _history(["gate", "--archive", str(archive), str(_inputs(tmp_path)["loop"])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "loop-a: a link to no file" in err[0], err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_missing_name_keeps_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    capsys.readouterr()
    assert COMMANDS[command](tmp_path / "absent.json", tmp_path) == 2
    err = capsys.readouterr().err
    assert ("no such file" in err or "does not exist" in err) and "link" not in err, err
