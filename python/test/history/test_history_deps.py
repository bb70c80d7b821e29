"""Without the [history] extra the archive says how to install it; detection needs none of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cuda.bench._deps import MissingDependencyError
from cuda.bench.history.archive import ingest, query


@pytest.mark.parametrize("missing", ["pyarrow", "duckdb"])
def test_missing_extra_gives_an_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # makes ``import missing`` fail
    # The checkout form only: the package is not on PyPI, where the name could be anyone's.
    hint = r"python -m pip install '\.\[history\]' \(from the nvbench-tools checkout's root\)$"
    with pytest.raises(MissingDependencyError, match=hint) as raised:
        if missing == "pyarrow":
            ingest(tmp_path / "archive", tmp_path / "run.json", commit="c0")
        else:
            (tmp_path / "archive").mkdir()
            (tmp_path / "archive" / "nvbench-archive.json").write_text(
                '{"format": "nvbench-history-archive", "version": 1}'
            )
            query(tmp_path / "archive")
    assert "nvbench-tools[" not in str(raised.value)
    assert not (tmp_path / "archive" / "runs").exists()


def test_importing_the_history_does_not_import_the_extra() -> None:
    import subprocess

    code = (
        "import sys, cuda.bench.history, cuda.bench.history.archive, "
        "cuda.bench.history.gate, cuda.bench.history.baseline, cuda.bench.cli.history; "
        "print([m for m in ('pyarrow', 'duckdb') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_baseline_check_needs_no_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cuda.bench.cli.history import main
    from cuda.bench.history.synthetic import HistoryNoise, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    for missing in ("pyarrow", "duckdb"):
        monkeypatch.setitem(sys.modules, missing, None)
    history = generate(HistoryNoise("iid", run_sigma=0.002), series=2, runs=3, seed=1)
    runs = write_history(tmp_path, history, SyntheticConfig(benchmarks=1, states=2), seed=1)
    assert main(["baseline", "check", *map(str, runs)]) == 0
