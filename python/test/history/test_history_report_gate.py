"""``nvbench-history report --gate``: the gate report shown on an archive's index is a gate
of that archive.

Before, the index showed any gate report's counts as its archive's "latest gate": a CI job
that builds several archives (one per GPU model) could publish one archive's regression on
another's dashboard, or hide it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, ingest_on_day, run_history
from cuda.bench.cli.history import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"


def _ingest(archive: Path, *names: str) -> None:
    """The example runs ``names``, as commits c1, c2, ... on days 1, 2, ..."""
    ingest_days(archive, [(EXAMPLES / name, f"c{n}") for n, name in enumerate(names, start=1)])


def _report(
    capsys: pytest.CaptureFixture[str], archive: Path, site: Path, gate: Path | str, *more: str
) -> tuple[int, list[str]]:
    """``report --html site --gate gate``: its exit status and the lines of its stderr."""
    capsys.readouterr()
    code, _, err = run_history(
        capsys, "report", "--archive", archive, "--html", site, "--gate", gate, *more
    )
    return code, err.strip().splitlines()


@pytest.fixture
def gated(tmp_path: Path) -> tuple[Path, Path]:
    """An archive of the example's reference and compare runs, and the gate report of the
    compare run against it (its levels hold the reference run: a gated run is never its
    own reference)."""
    archive = tmp_path / "archive"
    _ingest(archive, "ref.json", "cmp.json")
    gate = tmp_path / "gate.json"
    argv = ["gate", "--archive", str(archive), str(EXAMPLES / "cmp.json"), "--json", str(gate)]
    assert main(argv) == 0
    return archive, gate


def test_a_gate_report_names_the_archive_runs_its_levels_held(gated: tuple[Path, Path]) -> None:
    archive, gate = gated
    document = json.loads(gate.read_text())
    runs = document["archive"]["runs"]
    # One run (the reference's), named as the archive names it: a Parquet file holds it.
    assert len(runs) == 1 and any(archive.rglob(f"*{runs[0]}*"))


def test_report_shows_its_own_archives_gate(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive, gate = gated
    site = tmp_path / "site"
    assert _report(capsys, archive, site, gate) == (0, [])
    assert 'class="latest-gate"' in (site / "index.html").read_text()


def test_report_refuses_another_archives_gate(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gate = gated
    other = tmp_path / "other"
    _ingest(other, "cmp.json")  # not the run the gate's level held
    site = tmp_path / "site"
    code, err = _report(capsys, other, site, gate)
    assert code == 2
    assert len(err) == 1 and "gate.json: the gate of another archive" in err[0]
    assert str(other) in err[0] and not site.exists()


@pytest.mark.parametrize("archive", [{"runs": "abc"}, {"runs": [1]}, [], "x"])
def test_a_gate_report_whose_archive_is_no_list_of_runs_is_refused(
    gated: tuple[Path, Path], tmp_path: Path, archive: object, capsys: pytest.CaptureFixture[str]
) -> None:
    own, gate = gated
    document = json.loads(gate.read_text())
    document["archive"] = archive
    gate.write_text(json.dumps(document))
    code, err = _report(capsys, own, tmp_path / "site", gate)
    assert code == 2
    assert len(err) == 1 and "not a gate report (its archive.runs is no list of runs)" in err[0]


def test_a_gate_report_of_before_is_shown_unchecked(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Reports written before gates named their runs have no archive field: still shown.
    _, gate = gated
    document = json.loads(gate.read_text())
    del document["archive"]
    gate.write_text(json.dumps(document))
    other = tmp_path / "other"
    _ingest(other, "cmp.json")
    assert _report(capsys, other, tmp_path / "site", gate)[0] == 0


def test_runs_of_a_gate_partly_absent_are_a_warning(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run left out (an unreadable file of the archive) leaves the gate this archive's.
    archive, gate = gated
    document = json.loads(gate.read_text())
    document["archive"]["runs"].append("f" * 64)
    gate.write_text(json.dumps(document))
    code, err = _report(capsys, archive, tmp_path / "site", gate)
    assert code == 0
    assert len(err) == 1 and "1 of the 2 runs its levels held are not among the runs" in err[0]


def test_the_own_gate_is_shown_whatever_the_selection(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The check compared the gate's runs with those of the series the report selected: with
    # -b or --device leaving out the gate's states it called the archive's own gate another's.
    archive = tmp_path / "archive"
    _ingest(archive, "ref.json", "cmp.json")
    ingest_on_day(archive, gpu_dir / "gpu_ref.json", "c3", 3)  # another machine's run
    gate = tmp_path / "gate.json"
    argv = ["gate", "--archive", str(archive), str(EXAMPLES / "cmp.json"), "--json", str(gate)]
    assert main(argv) == 0
    benchmark = json.loads((gpu_dir / "gpu_ref.json").read_text())["benchmarks"][0]["name"]
    assert _report(capsys, archive, tmp_path / "site", gate, "-b", benchmark) == (0, [])


def test_an_empty_gate_path_is_refused(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An unset "$GATE" said ": cannot read the gate report (...)", naming nothing.
    archive, _ = gated
    site = tmp_path / "site"
    code, err = _report(capsys, archive, site, "")
    assert code == 2
    assert len(err) == 1 and "--gate needs a path" in err[0] and not site.exists()


def test_a_gate_report_in_a_linked_pages_folder_is_never_written_over(
    gated: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # With OUT_DIR/bench a link elsewhere, a gate report kept there under a page's name is
    # safe: the site writes nothing through a linked pages folder (write_site refuses it).
    archive, gate = gated
    pages = tmp_path / "pages"
    pages.mkdir()
    site = tmp_path / "site"
    site.mkdir()
    (site / "bench").symlink_to(pages)
    kept = pages / "0000.html"
    kept.write_bytes(gate.read_bytes())
    code, err = _report(capsys, archive, site, site / "bench" / "0000.html")
    assert code == 2
    assert len(err) == 1 and "not written through" in err[0], err
    assert kept.read_bytes() == gate.read_bytes() and sorted(pages.iterdir()) == [kept]
