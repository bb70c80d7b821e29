"""The gate's warnings when tonight's file holds names crafted to look like its own text.

The gate rebuilds its reference runs on tonight's file (:mod:`cuda.bench.history.gate`), so
what the comparison says of a reference state's name it also says of tonight's; the gate
leaves the reference side's copy out. Which side a warning concerns is the engine's to
say: benchmark and state names come from the file, and one that reads like the reference
side's wording must not silence the warning about tonight's file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from cuda.bench.history.archive import ingest
from cuda.bench.history.gate import gate
from cuda.bench.history.synthetic import HistoryNoise, commit_ids, generate, write_history
from cuda.bench.results.synthetic import SyntheticConfig

RUNS = 6
#: Archived runs that lack ``Elements=2048`` of ``bench_01``: its level is shorter.
LACKING = 2
#: bench_00's name in every run: it begins as the reference runs' own warnings begin.
RUN_LIKE = "reference run 'nightly"
#: Tonight's names of one state per benchmark, neither beginning with its device.
STATE_LIKE = "Elements=1024: reference state 'x'"
PLAIN = "Elements=1024 renamed"


def _edit(path: Path, *, tonight: bool, lacking: bool) -> None:
    document = json.loads(path.read_text())
    first, second = document["benchmarks"]
    first["name"] = RUN_LIKE
    if tonight:
        first["states"][0]["name"] = PLAIN
        second["states"][0]["name"] = STATE_LIKE
    if lacking:
        second["states"] = [s for s in second["states"] if "Elements=2048" not in s["name"]]
    path.write_text(json.dumps(document))


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=4, runs=RUNS + 1, seed=7)
    config = SyntheticConfig(benchmarks=2, states=2, samples=50)
    paths = write_history(tmp_path_factory.mktemp("runs"), history, config, seed=2)
    commits = commit_ids(RUNS, seed=9)
    root = tmp_path_factory.mktemp("archive") / "archive"
    for order, path in enumerate(paths[:RUNS]):
        _edit(path, tonight=False, lacking=order < LACKING)
        ingest(root, path, commit=commits[order], date=f"2026-05-{order + 1:02d}", order=order)
    _edit(paths[RUNS], tonight=True, lacking=False)
    return gate(root, paths[RUNS]).comparison.warnings


def _named(warnings: tuple[str, ...], name: str) -> list[str]:
    return [line for line in warnings if repr(name) in line and "does not begin with" in line]


def test_a_state_named_like_the_reference_side_keeps_its_warning(
    gated: tuple[str, ...],
) -> None:
    """Tonight's state ``Elements=1024: reference state 'x'`` does not begin with its
    device: its one warning (``bench_01: compare state ...``) was dropped with the
    reference copy's, as the gate told the two apart by finding ": reference state " in
    the line."""
    lines = _named(gated, STATE_LIKE)
    assert len(lines) == 1, gated
    assert lines[0].startswith("bench_01: compare state "), lines


def test_a_benchmark_named_like_a_reference_run_keeps_its_warning(
    gated: tuple[str, ...],
) -> None:
    """Benchmark ``reference run 'nightly``: its compare state's warning begins with the
    benchmark's name, and was dropped as a line beginning with "reference run '"."""
    lines = _named(gated, PLAIN)
    assert len(lines) == 1, gated
    assert lines[0].startswith(f"{RUN_LIKE}: compare state "), lines


def test_the_reference_sides_own_warnings_are_left_out(gated: tuple[str, ...]) -> None:
    """The reference copies of the two renamed states, and the reference runs that lack
    the state of a shorter level (the design: it uses the runs its level has), say nothing
    about tonight's file."""
    assert not [line for line in gated if "reference state " in line and "compare" not in line]
    assert not [line for line in gated if "lacks, skipped or has no timings" in line], gated
    kept = f"{RUN_LIKE}: compare state "
    assert not [line for line in gated if line.startswith("reference run ") and kept not in line]


def test_runs_gated_together_keep_every_runs_warnings(tmp_path: Path) -> None:
    """Two of tonight's runs gated together: the gate kept only the comparison of the run
    whose name sorts first, so what the other's file showed (a state not naming its
    device) was said nowhere."""
    history = generate(HistoryNoise("iid", run_sigma=0.003), series=4, runs=RUNS + 2, seed=7)
    config = SyntheticConfig(benchmarks=2, states=2, samples=50)
    paths = write_history(tmp_path / "runs", history, config, seed=2)
    commits = commit_ids(RUNS, seed=9)
    root = tmp_path / "archive"
    for order, path in enumerate(paths[:RUNS]):
        ingest(root, path, commit=commits[order], date=f"2026-05-{order + 1:02d}", order=order)
    clean, renamed = paths[RUNS], paths[RUNS + 1]
    assert str(clean) < str(renamed)
    document = json.loads(renamed.read_text())
    document["benchmarks"][1]["states"][0]["name"] = PLAIN
    renamed.write_text(json.dumps(document))
    alone = gate(root, renamed).comparison.warnings
    together = gate(root, [clean, renamed]).comparison.warnings
    assert len(_named(alone, PLAIN)) == 1, alone
    assert _named(together, PLAIN) == _named(alone, PLAIN), together
    assert len(together) == len(set(together))
