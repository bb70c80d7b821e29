"""A file of the archive whose column of ours has another type than the ingest writes (a
hand edit or another tool's rewrite: ``order`` as a float, text or an unsigned number, a
state's ``mean`` as text) is left out with one warning line naming it and the column, by
every command that reads the archive, which goes on with the rest (issue #26, item 6).
Before, DuckDB took each column's type from the first file in path order: a mistyped first
file retyped the column for every run in silence (an ``order`` of 2.5 was read, text orders
sort "10" before "2"), and a later file whose value the first one's type could not hold
made every command fail on the whole archive (one line, exit 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _history_calls import THREE_RUNS as RUNS
from _history_calls import readers_warnings, runs_per_series, three_runs


@pytest.fixture(scope="module")
def whole(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return three_runs(gpu_dir, tmp_path_factory.mktemp("types"))


@pytest.fixture(scope="module")
def sampled(gpu_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`whole` with up to 8 samples per state."""
    return three_runs(gpu_dir, tmp_path_factory.mktemp("sampled"), samples=8)


def _retyped(
    whole: Path, tmp_path: Path, commit: str, table: str, column: str, kind: object, value: object
) -> Path:
    """A copy of ``whole`` whose ``table`` file of the run of ``commit`` has ``value`` of the
    pyarrow type ``kind`` (a type, or its factory's name) in ``column`` on every row; the
    path of that file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    archive = tmp_path / "archive"
    shutil.copytree(whole, archive)
    for stored in sorted(archive.glob("runs/*/*/*.parquet")):
        if pq.read_table(stored).column("commit")[0].as_py() == commit:
            (path,) = archive.glob(f"{table}/*/*/{stored.name}")
            found = pq.read_table(path)
            typed = pa.array(
                [value] * found.num_rows, getattr(pa, kind)() if isinstance(kind, str) else kind
            )
            field = found.schema.get_field_index(column)
            pq.write_table(found.set_column(field, column, typed), path)
            return path
    raise AssertionError(f"no run of {commit}")


@pytest.mark.parametrize(
    ("commit", "table", "column", "kind", "value", "said"),
    [
        # The first file: the column was DOUBLE for every run, in silence.
        (RUNS[2][1], "runs", "order", "float64", 2.5, "DOUBLE, not INT64"),
        # A later file: "Could not convert string 'two' to INT64", exit 2 for the archive.
        (RUNS[1][1], "runs", "order", "string", "two", "BYTE_ARRAY (UTF8), not INT64"),
        (RUNS[1][1], "runs", "order", "uint64", 2**64 - 1, "INT64 (UINT_64), not INT64"),
        (RUNS[1][1], "states", "mean", "string", "x", "BYTE_ARRAY (UTF8), not DOUBLE"),
        (RUNS[2][1], "states", "samples", "float64", 2.5, "DOUBLE, not INT64"),
    ],
    ids=["order-float-first", "order-text", "order-unsigned", "mean-text", "samples-float"],
)
def test_a_file_with_a_column_of_another_type_is_left_out_naming_it(
    whole: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    commit: str,
    table: str,
    column: str,
    kind: str,
    value: object,
    said: str,
) -> None:
    path = _retyped(whole, tmp_path, commit, table, column, kind, value)
    out = tmp_path / "out"
    line = f"{path.as_posix()}: column {column} is {said} as the ingest writes; left out"
    tonight = gpu_dir / "gpu_cmp_plain.json"
    for warned in readers_warnings(path.parents[3], tonight, out, capsys):
        # One line: the run's file of the other table is there, so no "has no ... file".
        assert len(warned) == 1 and warned[0].endswith(line), warned
    assert runs_per_series(out) == {2}


_AXES = (
    "LIST of GROUP (name BYTE_ARRAY (UTF8), type BYTE_ARRAY (UTF8), value BYTE_ARRAY (UTF8), "
    "int_value INT64, float_value DOUBLE)"
)


@pytest.mark.parametrize(
    ("commit", "table", "column", "element", "said"),
    [
        # The first file: a traceback (exit 1) reading each axis as a string.
        (RUNS[2][1], "states", "axes", "x=1", "LIST of BYTE_ARRAY (UTF8)"),
        # The first file: KeyError 'value', exit 1.
        (RUNS[2][1], "states", "axes", {"name": "x"}, "LIST of GROUP (name BYTE_ARRAY (UTF8))"),
        # A later file: "Conversion Error", exit 2 for the whole archive.
        (RUNS[1][1], "states", "axes", "x=1", "LIST of BYTE_ARRAY (UTF8)"),
        (RUNS[1][1], "samples", "times", "x", "LIST of BYTE_ARRAY (UTF8)"),
        (RUNS[1][1], "runs", "tags", ("k", 1), "MAP of BYTE_ARRAY (UTF8) to INT64"),
    ],
    ids=["axes-text-first", "axes-name-only-first", "axes-text", "times-text", "tags-int"],
)
def test_a_file_with_a_nested_column_of_another_type_is_left_out_naming_it(
    sampled: Path,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    commit: str,
    table: str,
    column: str,
    element: object,
    said: str,
) -> None:
    import pyarrow as pa

    # The type checked was the top level (a list, a map) alone.
    value = [element]
    if isinstance(element, dict):
        kind = pa.list_(pa.struct([(name, pa.string()) for name in element]))
    elif isinstance(element, tuple):
        kind = pa.map_(pa.string(), pa.int64())
    else:
        kind = pa.list_(pa.string())
    path = _retyped(sampled, tmp_path, commit, table, column, kind, value)
    text = "BYTE_ARRAY (UTF8)"
    written = {"axes": _AXES, "times": "LIST of FLOAT", "tags": f"MAP of {text} to {text}"}
    line = f"{path.as_posix()}: column {column} is {said}, not {written[column]} as the ingest"
    out = tmp_path / "out"
    for warned in readers_warnings(path.parents[3], gpu_dir / "gpu_cmp_plain.json", out, capsys):
        assert len(warned) == 1 and warned[0].endswith(f"{line} writes; left out"), warned
    # A run whose samples file is left out stays in the series, from its summaries.
    assert runs_per_series(out) == {3 if table == "samples" else 2}


def test_the_types_a_file_must_have_are_those_the_ingest_writes(
    gpu_dir: Path, tmp_path: Path
) -> None:
    # The readers' words for each column's type, against a file of each table the ingest
    # wrote: a column whose type changed there would leave every new file out.
    import duckdb
    from cuda.bench.history._archive_files import WRITTEN, _schemas
    from cuda.bench.history.archive import ingest

    archive = tmp_path / "archive"
    ingest(archive, gpu_dir / "gpu_ref.json", commit="c1", order=1, branch="main", samples=8)
    connection = duckdb.connect(":memory:")
    for table, written in WRITTEN.items():
        (path,) = (one.as_posix() for one in archive.glob(f"{table}/*/*/*.parquet"))
        assert _schemas(connection, [path], table) == {path: dict(written)}, table
