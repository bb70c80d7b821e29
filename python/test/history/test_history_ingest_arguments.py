"""A library ingest refuses arguments that are not what they must be, each in one
TypeError or ValueError naming the parameter, before anything is read or written: a float
``order`` was stored truncated (past the one-place-per-commit check, so every later read
warned that the place was held by two commits), a NaN or ``True`` failed deep in pyarrow,
and a commit or tags that are not text failed with an AttributeError.

Real input: ``nvbench-format-examples/gpu``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyarrow", reason="the archive needs pyarrow: pip install '.[history]'")
pytest.importorskip("duckdb", reason="the archive needs DuckDB: pip install '.[history]'")

from _ingest_refusal import archive_files
from cuda.bench.history.archive import check_new_run, ingest, ingest_new_run, query

BAD: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"order": 1.5}, TypeError, "order must be an int"),
    ({"order": math.nan}, TypeError, "order must be an int"),
    ({"order": True}, TypeError, "order must be an int"),
    ({"order": "1"}, TypeError, "order must be an int"),
    ({"order": -1}, ValueError, "order -1 is no first-parent position"),
    ({"commit": 123}, TypeError, "commit must be text"),
    ({"commit": None}, TypeError, "commit must be text"),
    ({"branch": 5}, TypeError, "branch must be text"),
    ({"date": 5}, TypeError, "date must be text"),
    ({"tags": {"a": 1}}, TypeError, r"tags\['a'\] must be text"),
    ({"tags": {1: "a"}}, TypeError, "tags: each key must be non-empty text"),
    ({"tags": {"": "a"}}, TypeError, "tags: each key must be non-empty text"),
    ({"tags": ["a"]}, TypeError, "tags must be a mapping"),
    ({"samples": "3"}, TypeError, "samples must be an int"),
    ({"samples": 2.0}, TypeError, "samples must be an int"),
    ({"samples": -1}, ValueError, "samples must be at least 0"),
]


@pytest.mark.parametrize(("given", "error", "said"), BAD, ids=[repr(bad[0]) for bad in BAD])
@pytest.mark.parametrize("call", [ingest, ingest_new_run], ids=["ingest", "ingest_new_run"])
def test_a_bad_argument_is_refused_naming_it(
    tmp_path: Path,
    gpu_dir: Path,
    call: Any,
    given: dict[str, Any],
    error: type[Exception],
    said: str,
) -> None:
    archive = tmp_path / "archive"
    ingest(archive, gpu_dir / "gpu_ref.json", commit="c1", order=1, date="2026-01-01")
    before = archive_files(archive)
    arguments: dict[str, Any] = {"commit": "c2", "order": 2, **given}
    for target in (archive, tmp_path / "fresh"):
        with pytest.raises(error, match=f"^{said}"):
            call(target, gpu_dir / "gpu_cmp.json", **arguments)
    assert archive_files(archive) == before and not (tmp_path / "fresh").exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [({"commit": 123}, "commit must be text"), ({"date": 20260101}, "date must be text")],
)
def test_check_new_run_refuses_labels_that_are_not_text(
    tmp_path: Path, gpu_dir: Path, given: dict[str, Any], said: str
) -> None:
    with pytest.raises(TypeError, match=f"^{said}"):
        check_new_run(tmp_path / "archive", gpu_dir / "gpu_ref.json", **{"commit": "c", **given})


def test_a_numpy_integer_order_is_stored_as_that_order(tmp_path: Path, gpu_dir: Path) -> None:
    archive = tmp_path / "archive"
    ingest(archive, gpu_dir / "gpu_ref.json", commit="c1", order=np.int64(7), samples=np.int32(0))
    connection = query(archive)
    try:
        assert connection.execute('SELECT "order" FROM runs').fetchall() == [(7,)]
    finally:
        connection.close()
