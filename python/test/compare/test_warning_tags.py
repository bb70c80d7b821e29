"""Warnings carry their side and kind as data (:mod:`cuda.bench.compare.warning_tags`)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import msgspec
import pytest
from cuda.bench.compare.api import compare
from cuda.bench.compare.warning_tags import TaggedWarning, WarningKind
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

#: A compare state's name that reads like the reference side's warning.
DISGUISED = "Elements=1024: reference state 'x'"


def _rename_first_state(path: Path, name: str) -> None:
    document = json.loads(path.read_text())
    document["benchmarks"][1]["states"][0]["name"] = name
    path.write_text(json.dumps(document))


def test_the_reference_sides_warnings_are_listed_apart(tmp_path: Path) -> None:
    runs = write_pair(tmp_path, SyntheticConfig(benchmarks=2, states=2, samples=50), ref_runs=2)
    _rename_first_state(runs.ref[0], "Elements=1024 plain")
    _rename_first_state(runs.cmp[0], DISGUISED)
    second = json.loads(runs.ref[1].read_text())
    second["benchmarks"] = second["benchmarks"][1:]  # lacks bench_00's states
    runs.ref[1].write_text(json.dumps(second))

    result = compare(list(runs.ref), runs.cmp[0], method="ci")

    reference = result.reference_warnings
    assert len(reference) == 2, result.warnings
    assert reference[0].startswith("bench_01: reference state 'Elements=1024 plain'")
    assert reference[1].startswith("reference run ") and "lacks" in reference[1]
    assert set(reference) <= set(result.warnings)
    disguised = [line for line in result.warnings if repr(DISGUISED) in line]
    assert len(disguised) == 2, disguised  # it does not begin with its device; names differ
    assert all(line not in reference for line in disguised)
    # Plain strings: the reports' encoders take no string subclass.
    assert all(type(line) is str for line in (*result.warnings, *reference))
    assert msgspec.json.decode(msgspec.json.encode(result.warnings)) == list(result.warnings)


def test_a_tagged_warning_keeps_its_tags_through_pickling_and_cannot_change() -> None:
    """The split comparison pickles its rows' warnings back from child processes."""
    warning = TaggedWarning("bench: reference state 's' ...", side="reference")
    copy = pickle.loads(pickle.dumps(warning))
    assert type(copy) is TaggedWarning and copy == warning and copy.side == "reference"
    assert copy.kind is WarningKind.OTHER
    tagged = TaggedWarning("device sections of a and b differ", kind=WarningKind.DEVICE_SECTIONS)
    copy = pickle.loads(pickle.dumps(tagged))
    assert copy.kind is WarningKind.DEVICE_SECTIONS and copy.side is None
    with pytest.raises(AttributeError):
        warning.side = "compare"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del warning.side
    with pytest.raises(AttributeError):
        warning.kind = WarningKind.UNPAIRED_FILE  # type: ignore[misc]
