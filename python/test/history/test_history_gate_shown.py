"""What a gate row shows of its sides where the archive holds summaries only (runs ingested
without ``--samples``): the centers its Change is the ratio of, and no interval the archive
cannot back (``history/_gate_shown.py``).

Before, every such row was shown from both sides' means (mean ± stdev, the reference's low
end at ``center / 1000``: 0.048 ns for a state whose minimum is 39 ns) with
``cmp_source`` ``"mean"``, beside a Change made of the medians (-18.4 % beside centers 10.8 %
apart), although the gated file has quartiles and side files.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.cli.history import main
from cuda.bench.compare import compare
from cuda.bench.compare.model import Status
from cuda.bench.history._names import display_state_name
from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

ARCHIVED = 8
COMMITS = commit_ids(ARCHIVED + 1, seed=4)


def _json_rows(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {(row["benchmark"], row["key"]): row for row in document["rows"]}


def _stored_medians(archive: Path) -> dict[tuple[str, str], float]:
    import pyarrow.parquet as pq

    out = {}
    for path in archive.glob("states/**/*.parquet"):
        table = pq.read_table(path).to_pylist()
        for row in table:
            if row["median"] is not None:
                out[(row["benchmark"], display_state_name(row["state_name"]))] = row["median"]
    return out


def _consistent(row: dict[str, Any]) -> None:
    """The shown centers are those the Change is the ratio of."""
    assert row["cmp_center"] / row["ref_center"] == pytest.approx(row["effect_ratio"], rel=1e-6)
    assert row["frac_diff"] == pytest.approx(row["effect_ratio"] - 1.0, rel=1e-6)


def test_a_summaries_archive_shows_the_medians_of_the_real_cpu_runs(
    cpu_dir: Path, tmp_path: Path
) -> None:
    """The user's report: cpu_run1 archived without --samples, cpu_run2 gated. Each row
    shows cpu_run2 as nvbench_compare shows it (its summaries), the archived median as the
    reference, their ratio as the Change, and no reference interval the archive lacks."""
    archive = tmp_path / "archive"
    argv = ["ingest", "--archive", str(archive), "--commit", "c1", str(cpu_dir / "cpu_run1.json")]
    assert main(argv) == 0
    report = tmp_path / "gate.json"
    argv = ["gate", "--archive", str(archive), str(cpu_dir / "cpu_run2.json"), "--json"]
    assert main([*argv, str(report)]) == 0
    rows = _json_rows(report)
    plain = {
        (row.benchmark, row.key): row
        for row in compare(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json", method="ci")
    }
    medians = _stored_medians(archive)
    decided = [key for key, row in rows.items() if row["ref_center"] is not None]
    assert ("tiny", "") in decided and len(decided) >= 3
    for key in decided:
        row, alone = rows[key], plain[key]
        assert alone.cmp is not None and alone.cmp.interval is not None
        assert row["cmp_source"] == alone.cmp.source.value != "mean"
        assert row["cmp_center"] == pytest.approx(alone.cmp.center, rel=1e-12)
        assert (row["cmp_lo"], row["cmp_hi"]) == pytest.approx(
            (alone.cmp.interval.lo, alone.cmp.interval.hi), rel=1e-12
        )
        assert row["ref_source"] == "summary"
        assert row["ref_center"] == pytest.approx(medians[key], rel=1e-6)
        # The archive holds no minimum or quartiles of the run: no interval, no spread.
        assert row["ref_lo"] is None and row["ref_hi"] is None and row["ref_spread"] is None
        _consistent(row)
    document = json.loads(report.read_text(encoding="utf-8"))
    assert any("without an interval" in note for note in document["notes"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ...]:
    history = generate(
        HistoryNoise("iid", run_sigma=0.003),
        series=2,
        runs=ARCHIVED + 1,
        steps=(0.05, 0.0),
        step_at=ARCHIVED,
        seed=5,
    )
    config = SyntheticConfig(benchmarks=1, states=2, samples=200)
    return write_history(tmp_path_factory.mktemp("runs"), history, config, seed=3)


def _archive(root: Path, runs: tuple[Path, ...], samples: tuple[int, ...]) -> Path:
    for order, path in enumerate(runs[:ARCHIVED]):
        ingest(
            root,
            path,
            commit=COMMITS[order],
            date=f"2026-04-{1 + order:02d}T03:00:00Z",
            order=order,
            samples=samples[order % len(samples)],
        )
    return root


@pytest.mark.parametrize(
    ("samples", "intervals"),
    [((0,), False), ((0, 64), False), ((64,), True)],
    ids=["summaries", "some-samples", "samples"],
)
def test_nightly_runs_show_the_centers_of_their_change(
    runs: tuple[Path, ...],
    tmp_path: Path,
    samples: tuple[int, ...],
    intervals: bool,
) -> None:
    """Eight nightly runs archived without samples, with samples every other night, or
    every night: the gated run is shown from its quartiles in each (never mean ± stdev), the
    reference as the geometric mean of its runs' medians, the Change their ratio; the
    reference has an interval (minimum to third quartile) only where every run has one."""
    archive = _archive(tmp_path / "archive", runs, samples)
    found = gate(archive, runs[ARCHIVED])
    assert {row.status for row in found.comparison.rows} == {Status.SLOW, Status.SAME}
    for row in found.comparison.rows:
        assert row.ref is not None and row.cmp is not None
        effect = row.verdict.effect
        assert effect is not None and row.ref.center is not None and row.cmp.center is not None
        assert row.cmp.source.value == "summary" and row.cmp.interval is not None
        assert row.cmp.center == pytest.approx(row.cmp.mean, rel=0.05)
        assert row.cmp.center / row.ref.center == pytest.approx(effect.ratio, rel=1e-6)
        assert row.ref.source.value == "summary"
        assert (row.ref.interval is not None) is intervals
        if row.ref.interval is not None:
            assert row.ref.interval.lo > row.ref.center / 2  # a minimum, not center / 1000
    notes = found.comparison.settings.get("notes", ())
    assert any("without an interval" in note for note in notes) is not intervals


def test_a_removed_state_shows_its_archived_median(cpu_dir: Path, tmp_path: Path) -> None:
    """A state the gated run lacks is REMOVED, its reference the latest archived run's:
    shown as its median (without the interval the archive lacks), not as mean ± stdev
    with a low end of center / 1000."""
    archive = tmp_path / "archive"
    argv = ["ingest", "--archive", str(archive), "--commit", "c1", str(cpu_dir / "cpu_run1.json")]
    assert main(argv) == 0
    tonight = tmp_path / "tonight"
    tonight.mkdir()
    shutil.copytree(cpu_dir / "cpu_run2.json-bin", tonight / "cpu_run2.json-bin")
    document = json.loads((cpu_dir / "cpu_run2.json").read_text(encoding="utf-8"))
    document["benchmarks"] = [one for one in document["benchmarks"] if one["name"] != "tiny"]
    (tonight / "cpu_run2.json").write_text(json.dumps(document), encoding="utf-8")
    found = gate(archive, tonight / "cpu_run2.json")
    removed = [row for row in found.comparison.rows if row.status is Status.REMOVED]
    assert [row.benchmark for row in removed] == ["tiny"]
    ref = removed[0].ref
    assert ref is not None and ref.center is not None
    assert ref.center == pytest.approx(_stored_medians(archive)[("tiny", "")], rel=1e-6)
    assert ref.source.value == "summary" and ref.interval is None
    assert not math.isclose(ref.center, ref.mean or 0.0, rel_tol=1e-3)
