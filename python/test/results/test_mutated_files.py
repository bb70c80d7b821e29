"""Property: a real result file with any one part changed — a value replaced by any JSON
value, a key removed, or its bytes cut or overwritten — reads as a result or fails with
:class:`ResultFormatError` (one line naming the file in the tools), never another
exception. The same holds for :func:`cuda.bench.compare.compare` against the unchanged
file, which may also refuse the pair with :class:`CompareError` ("nothing was compared":
its documented refusal of inputs without common states).

Examples are bounded and use ``tmp_path`` only, so the test stays fast and xdist-safe.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED_DATA, real_path
from cuda.bench._errors import CompareError
from cuda.bench.compare import compare
from cuda.bench.results import BenchmarkResult, ResultFormatError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: The real files mutated: GPU runs with side files, one without, and a CPU-only run.
SOURCES = (
    ("nvbench-format-examples/gpu", "gpu_ref.json"),
    ("nvbench-format-examples/gpu", "gpu_ref_nosidecar.json"),
    ("nvbench-format-examples/cpu", "cpu_run1.json"),
)

_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["1e308", "-1", "0", "nan", "inf", "../../etc/passwd", "/dev/zero"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@functools.cache
def _document(path: Path) -> tuple[Any, tuple[tuple[Any, ...], ...]]:
    """The decoded file and the path (keys and indices) of every value in it."""
    document = json.loads(path.read_text())
    places: list[tuple[Any, ...]] = []

    def walk(node: Any, where: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                places.append((*where, key))
                walk(child, (*where, key))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                places.append((*where, index))
                walk(child, (*where, index))

    walk(document, ())
    return document, tuple(places)


def _mutated(document: Any, where: tuple[Any, ...], value: Any, delete: bool) -> Any:
    copy = json.loads(json.dumps(document))
    node = copy
    for step in where[:-1]:
        node = node[step]
    if delete and isinstance(node, dict):
        del node[where[-1]]
    else:
        node[where[-1]] = value
    return copy


def _read_everything(path: Path) -> None:
    result = BenchmarkResult(path)
    for bench in result.benchmarks:
        for state in bench:
            _ = (state.summaries, state.axis_values, state.device, state.is_skipped)
            _ = (state.samples, state.frequencies)


def _outcomes(shared: Path, directory: Path, name: str, path: Path) -> None:
    """Read ``path`` and compare it with the unchanged file: only the allowed outcomes."""
    original = shared / directory / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warnings are allowed; exceptions are the test
        with contextlib.suppress(ResultFormatError):
            _read_everything(path)
        with contextlib.suppress(ResultFormatError, CompareError):
            compare(original, path)


@pytest.fixture
def sources() -> Path:
    for folder, name in SOURCES:
        real_path(f"{folder}/{name}")
    return SHARED_DATA


def _place(tmp_path: Path, shared: Path, folder: str, name: str) -> Path:
    """A directory in ``tmp_path`` holding the run's side files; the mutated JSON goes
    beside them under the original name, so its side files resolve as the real file's."""
    target = tmp_path / folder.replace("/", "_")
    if not target.exists():
        target.mkdir()
        for side in (f"{name}-bin", f"{name}-freqs-bin"):
            if (shared / folder / side).is_dir():
                shutil.copytree(shared / folder / side, target / side)
    return target / name


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_changed_value_reads_or_fails_cleanly(
    data: st.DataObject, sources: Path, tmp_path: Path
) -> None:
    folder, name = data.draw(st.sampled_from(SOURCES))
    document, places = _document(sources / folder / name)
    where = places[data.draw(st.integers(0, len(places) - 1))]
    delete = data.draw(st.booleans())
    value = None if delete else data.draw(_JSON_VALUES)
    path = _place(tmp_path, sources, folder, name)
    path.write_text(json.dumps(_mutated(document, where, value, delete)))
    _outcomes(sources, Path(folder), name, path)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_changed_bytes_read_or_fail_cleanly(
    data: st.DataObject, sources: Path, tmp_path: Path
) -> None:
    folder, name = data.draw(st.sampled_from(SOURCES))
    raw = (sources / folder / name).read_bytes()
    at = data.draw(st.integers(0, len(raw) - 1))
    how = data.draw(st.sampled_from(["truncate", "overwrite", "insert"]))
    patch = data.draw(st.binary(min_size=1, max_size=8))
    if how == "truncate":
        changed = raw[:at]
    elif how == "overwrite":
        changed = raw[:at] + patch + raw[at + len(patch) :]
    else:
        changed = raw[:at] + patch + raw[at:]
    path = _place(tmp_path, sources, folder, name)
    path.write_bytes(changed)
    _outcomes(sources, Path(folder), name, path)
