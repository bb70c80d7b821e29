"""The SAP HANA study's reading of SAP's data set (``history_sap.py``): its labels line up
with the rows, and a build's rows become one run with the change moved to its build. The
data themselves are not in ``../shared``; these tests write files in SAP's layout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from conftest import benchmark_module


@pytest.fixture
def sap(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    yield from benchmark_module(monkeypatch, "history_sap", "history_real", "_real_history")


def _write(folder: Path, name: str, rows: list[tuple[str, float]]) -> None:
    lines = ["Index,GHC,Measurement"]
    lines += [f"{i},{build},{value}" for i, (build, value) in enumerate(rows, start=1)]
    (folder / name).write_text("\n".join(lines) + "\n")


def _data_set(folder: Path) -> None:
    # Build 2's rows straddle nothing: the regression's first slower row is row 5 (1-based),
    # so SAP's "last index before" is 4, the first row of build 3.
    rows = [("10", 1.0), ("10", 1.1), ("20", 1.0), ("20", 0.9), ("30", 2.0), ("30", 2.1)]
    _write(folder, "0000.csv", rows)
    _write(folder, "0001.csv", [("1", 5.0), ("1", 5.0), ("2", 5.0)])
    (folder / "dataset_details.csv").write_text(
        "Type;Dataset;Change Point\nregression;0000.csv;4\nStable;0001.csv;0\n"
    )


def test_the_change_is_the_first_slower_row_and_moves_to_its_build(
    sap: ModuleType, tmp_path: Path
) -> None:
    _data_set(tmp_path)
    regression, stable = sap.read_data_set(tmp_path)
    assert (regression.kind, stable.kind) == ("regression", "Stable")
    assert regression.values[regression.change] == 2.0
    assert regression.values[regression.change - 1] == 0.9
    assert regression.measurements().changes == (4,)
    assert stable.change is None and stable.measurements().changes == ()
    builds = sap.by_build(regression)
    assert builds.values == (1.05, 0.95, 2.05)
    assert builds.changes == (2,)
    assert sap.by_build(stable).values == (5.0, 5.0)


def test_rows_out_of_order_or_a_change_beyond_the_rows_are_refused(
    sap: ModuleType, tmp_path: Path
) -> None:
    _data_set(tmp_path)
    (tmp_path / "0000.csv").write_text("Index,GHC,Measurement\n2,1,1.0\n1,1,1.0\n")
    with pytest.raises(ValueError, match="Index is not 1, 2, 3"):
        sap.read_data_set(tmp_path)
    _data_set(tmp_path)
    (tmp_path / "dataset_details.csv").write_text(
        "Type;Dataset;Change Point\nregression;0000.csv;6\n"
    )
    with pytest.raises(ValueError, match="change point 6 outside its 6 rows"):
        sap.read_data_set(tmp_path)
