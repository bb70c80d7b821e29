"""Value records that leave some fields out of equality, hashing and the repr."""

from __future__ import annotations

import pickle

import msgspec
import numpy as np
import pytest
from cuda.bench.compare.evidence import BulkData, SideEvidence
from cuda.bench.compare.match import DevicePair
from cuda.bench.compare.model import Effect, Reason, Row, Status, Verdict
from cuda.bench.results import BenchmarkResultDevice


def _row(**changes: object) -> Row:
    row = Row(
        benchmark="copy",
        key="Elements=1024",
        occurrence=0,
        axis_values=(),
        verdict=Verdict(Status.SAME, Reason.SAME_CONFIRMED_BY_CYCLES, "same"),
        ref=None,
        cmp=None,
    )
    return msgspec.structs.replace(row, **changes)


def test_rows_differ_by_what_they_say_not_by_the_states_behind_them() -> None:
    plain = _row()
    linked = _row(ref_state=object(), cmp_state=object())
    assert plain == linked and hash(plain) == hash(linked)
    assert "ref_state=" not in repr(linked) and "benchmark='copy'" in repr(linked)
    assert plain != _row(key="Elements=2048")
    assert plain != _row(verdict=Verdict(Status.SLOW, Reason.CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES))
    assert len({plain, linked, _row(occurrence=1)}) == 2


def test_effect_draws_are_not_part_of_the_effect() -> None:
    effect = Effect(1.1, 1.05, 1.15, 0.95)
    with_draws = msgspec.structs.replace(effect, draws=np.arange(3.0))
    # Arrays do not compare to a bool: only a record that leaves them out can be equal.
    assert effect == with_draws and hash(effect) == hash(with_draws)
    assert "draws" not in repr(with_draws)
    assert effect != msgspec.structs.replace(effect, tolerance=0.01)


def test_side_evidence_ignores_its_lazy_bulk_data() -> None:
    first = SideEvidence(clock_rate=1.5e9, bulk=BulkData.from_arrays([1e-5, 2e-5]))
    second = SideEvidence(clock_rate=1.5e9)
    assert first == second and "bulk" not in repr(first)
    assert first != SideEvidence(clock_rate=1.4e9)


def test_device_pairs_hash_by_position_and_ids() -> None:
    info = BenchmarkResultDevice(0, "GPU", {"sm_count": 108})
    other = BenchmarkResultDevice(0, "GPU", {"sm_count": 80})
    with pytest.raises(TypeError):
        hash(info)  # the recorded fields are a dict
    first = DevicePair(0, 0, 0, ref_info=info, cmp_info=info)
    second = DevicePair(0, 0, 0, ref_info=other, cmp_info=other)
    assert first == second and hash(first) == hash(second)
    assert first != DevicePair(1, 0, 0) and first.ref_name == "GPU"


def test_records_are_frozen_and_pickle() -> None:
    row = _row(ref_state=None)
    with pytest.raises(AttributeError):
        row.key = "other"  # type: ignore[misc]  # (frozen: checked at run time)
    assert pickle.loads(pickle.dumps(row)) == row
    assert row != ("copy",) and row.__eq__(object()) is NotImplemented
