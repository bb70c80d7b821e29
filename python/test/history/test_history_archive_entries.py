"""What a reader of the archive says of an entry it leaves out (issue #26, item 6): one
line naming it and the problem in words a user can act on, whatever DuckDB's version."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import ingest_days, readers_warnings, runs_per_series

NAMES = ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")


@pytest.mark.parametrize("table", ["runs", "states"])
def test_a_directory_named_like_a_run_file_is_left_out_as_a_directory(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    # It was "unreadable as Parquet (IO Error: No files found that match the pattern "" LINE
    # 1: ... FROM parquet_schema(?) ^^^)": DuckDB's words for an empty glob, and its query.
    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    folder = next(archive.glob(f"{table}/*/*")) / "copied.parquet"
    folder.mkdir()
    line = f"{folder.as_posix()}: a directory, not a file; left out"
    for warned in readers_warnings(archive, gpu_dir / "gpu_cmp_plain.json", tmp_path / "o", capsys):
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(tmp_path / "o") == {3}


class _DuckDB10:
    """A connection whose failed queries raise as DuckDB 1.0 did: the error wrapped."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, parameters: Any = None) -> Any:
        import duckdb

        try:
            return self._connection.execute(sql, parameters)
        except duckdb.Error as error:
            if "pending query result" in str(error):
                raise  # DuckDB 1.0 itself
            raise duckdb.InvalidInputException(
                "Invalid Input Error: Attempting to execute an unsuccessful or closed pending "
                f"query result\nError: {error}"
            ) from None


def test_a_file_left_out_is_worded_alike_on_duckdb_1_0(gpu_dir: Path, tmp_path: Path) -> None:
    # On DuckDB 1.0 every "unreadable as Parquet" line began "(Invalid Input Error:
    # Attempting to execute an unsuccessful or closed pending query result Error: ...".
    import duckdb
    from cuda.bench.history._archive_files import readable_files

    runs = [(gpu_dir / name, f"{day:x}" * 40) for day, name in enumerate(NAMES, start=1)]
    archive = ingest_days(tmp_path / "archive", runs)
    (next(archive.glob("states/*/*")) / ("f" * 64 + ".parquet")).write_bytes(b"PAR1 junk")
    said = []
    for connection in (duckdb.connect(), _DuckDB10(duckdb.connect())):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            readable_files(connection, archive, "states")
        said.append([str(one.message) for one in caught])
    assert len(said[0]) == 1 and "unreadable as Parquet (" in said[0][0], said
    assert said[1] == said[0] and "pending query result" not in said[1][0], said
