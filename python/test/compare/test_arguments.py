"""A library comparison refuses arguments that are not what they must be, each with one
TypeError or ValueError naming the parameter, before any file is read: ``filters="reduce"``
failed with "not enough values to unpack", ``ref_devices=0`` with "'int' object is not
iterable", ``method=None`` and ``compare_many(base, [cand])`` with AttributeErrors, and
``jobs=1.5`` or ``jobs=nan`` were accepted.

Real input: ``nvbench-format-examples/gpu``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda.bench.compare import (
    CompareError,
    Thresholds,
    compare,
    compare_many,
    compare_paired,
    compare_paired_directory,
    compare_variants,
)
from cuda.bench.compare.calibrate import calibrate
from cuda.bench.compare.filters import FilterPlan


def _field(name: str) -> str:
    return rf"thresholds\.{name} must be "


BAD: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"filters": "copy_bench"}, TypeError, "filters must be a FilterPlan or a list of"),
    ({"filters": {"benchmark": "copy_bench"}}, TypeError, "filters must be a FilterPlan"),
    ({"filters": [("benchmark",)]}, TypeError, "filters: each item must be a"),
    ({"filters": ["benchmark"]}, TypeError, "filters: each item must be a"),
    ({"method": None}, TypeError, "method must be a method's name"),
    ({"method": 3}, TypeError, "method must be a method's name"),
    ({"jobs": "2"}, TypeError, "jobs must be an int or None"),
    ({"jobs": 1.5}, TypeError, "jobs must be an int or None"),
    ({"jobs": math.nan}, TypeError, "jobs must be an int or None"),
    ({"jobs": True}, TypeError, "jobs must be an int or None"),
    ({"jobs": 0}, CompareError, "jobs must be at least 1"),
    ({"ref_devices": 0}, TypeError, "ref_devices must be 'all', a device id list"),
    ({"cmp_devices": 0}, TypeError, "cmp_devices must be 'all', a device id list"),
    # Iterable by type, not by value: 'iteration over a 0-d array' named no parameter.
    ({"ref_devices": np.array(0)}, TypeError, "ref_devices must be 'all', a device id list"),
    ({"ref_devices": ["0"]}, TypeError, "ref_devices: each device must be an int"),
    ({"ref_devices": [True]}, TypeError, "ref_devices: each device must be an int"),
    ({"cmp_devices": [-1]}, CompareError, "cmp_devices: device ids are at least 0"),
    # Taken as true or false before: "yes" compared differing devices, None refused them.
    ({"ignore_devices": "yes"}, TypeError, "ignore_devices must be True or False, got 'yes'"),
    ({"ignore_devices": "no"}, TypeError, "ignore_devices must be True or False, got 'no'"),
    ({"ignore_devices": None}, TypeError, "ignore_devices must be True or False, got None"),
    ({"ignore_devices": 1}, TypeError, "ignore_devices must be True or False, got 1"),
    # Thresholds passed in are held to the config file's rule (test_config.py): unchecked,
    # a NaN tolerance made every row AMBG silently, a confidence of 1.5 failed in the
    # bootstrap with "p must be in the range", {} with an AttributeError.
    ({"thresholds": {}}, TypeError, "thresholds must be a Thresholds"),
    ({"thresholds": "strict"}, TypeError, "thresholds must be a Thresholds"),
    ({"thresholds": Thresholds(ci_tolerance=math.nan)}, CompareError, _field("ci_tolerance")),
    ({"thresholds": Thresholds(ci_tolerance=-1)}, CompareError, _field("ci_tolerance")),
    ({"thresholds": Thresholds(ci_confidence=1.5)}, CompareError, _field("ci_confidence")),
    ({"thresholds": Thresholds(ci_resamples=0)}, CompareError, _field("ci_resamples")),
    ({"thresholds": Thresholds(ci_resamples=2000.5)}, CompareError, _field("ci_resamples")),
    ({"thresholds": Thresholds(ci_seed=-1)}, CompareError, _field("ci_seed")),
]


def _id(given: dict[str, Any]) -> str:
    """The test's name: a Thresholds by its values that are not the defaults."""
    ((name, value),) = given.items()
    if isinstance(value, Thresholds):
        changed = {
            field: getattr(value, field)
            for field in Thresholds.__dataclass_fields__
            if getattr(value, field) != getattr(Thresholds(), field)
            or getattr(value, field) != getattr(value, field)
        }
        return f"{name}=Thresholds({changed})"
    return repr(given)


@pytest.mark.parametrize(("given", "error", "said"), BAD, ids=[_id(bad[0]) for bad in BAD])
def test_compare_refuses_a_bad_argument_naming_it(
    gpu_dir: Path, given: dict[str, Any], error: type[Exception], said: str
) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    with pytest.raises(error, match=f"^{said}"):
        compare(ref, cmp, **given)
    if "cmp_devices" not in given:
        with pytest.raises(error, match=f"^{said}"):
            compare_many(ref, {"new": cmp}, **given)


def test_filters_come_in_every_form_compare_documents(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    items = [("benchmark", "copy_bench"), ("axis", "T=F32")]
    expected = compare(ref, cmp, filters=FilterPlan.from_args(items)).rows
    assert expected and len(expected) < len(compare(ref, cmp).rows)
    for form in (items, tuple(items), [list(item) for item in items]):
        assert compare(ref, cmp, filters=form).rows == expected  # type: ignore[arg-type]
    assert compare(ref, cmp, filters=[]).rows == compare(ref, cmp, filters=None).rows
    by_text = compare(ref, cmp, ref_devices="0", cmp_devices="0")
    by_ids = compare(ref, cmp, ref_devices=(0,), cmp_devices=[0])
    assert [(row.key, row.ref_device) for row in by_ids.rows] == [
        (row.key, row.ref_device) for row in by_text.rows
    ]
    # Any iterable of ids, as the call took before it was checked (a numpy array of them).
    by_array = compare(ref, cmp, ref_devices=np.array([0]), cmp_devices={0})  # type: ignore[arg-type]
    assert by_array.rows == by_ids.rows


def test_compare_many_takes_a_mapping_of_candidates(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    with pytest.raises(TypeError, match=r"^candidates must map each candidate's name"):
        compare_many(ref, [cmp])  # type: ignore[arg-type]
    with pytest.raises(CompareError, match=r"^cmp_devices: 'other' is no candidate"):
        compare_many(ref, {"new": cmp}, cmp_devices={"other": "0"})
    with pytest.raises(CompareError, match=r"^correction must be 'bonferroni' or 'none'"):
        compare_many(ref, {"new": cmp}, correction="holm")


def test_a_numpy_bool_is_a_flag(gpu_dir: Path) -> None:
    # A flag read from an array or a DataFrame is NumPy's bool: refused before ("must be True
    # or False, got np.True_"); a 0-d array or an int still is.
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    as_numpy = compare(ref, cmp, ignore_devices=np.True_)
    assert as_numpy.rows == compare(ref, cmp, ignore_devices=True).rows
    assert compare(ref, cmp, ignore_devices=np.False_).rows == compare(ref, cmp).rows
    with pytest.raises(TypeError, match=r"^ignore_devices must be True or False, got array"):
        compare(ref, cmp, ignore_devices=np.array(True))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^ignore_devices must be True or False, got np\.int"):
        compare(ref, cmp, ignore_devices=np.int64(1))  # type: ignore[arg-type]


def test_compare_paired_and_variants_pass_ignore_devices_on_checked(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    with pytest.raises(TypeError, match=r"^ignore_devices must be True or False, got 'yes'$"):
        compare_paired([ref], [cmp], ignore_devices="yes")
    with pytest.raises(TypeError, match=r"^ignore_devices must be True or False, got 1$"):
        compare_variants(ref, "T", baseline="F32", ignore_devices=1)


def test_compare_variants_takes_the_filters_compare_takes(gpu_dir: Path) -> None:
    run = gpu_dir / "gpu_ref.json"
    with pytest.raises(TypeError, match=r"^filters must be a FilterPlan"):
        compare_variants(run, "T", baseline="F32", filters="copy_bench")  # type: ignore[arg-type]
    listed = compare_variants(run, "T", baseline="F32", filters=[("benchmark", "copy_bench")])
    planned = compare_variants(
        run, "T", baseline="F32", filters=FilterPlan.from_args([("benchmark", "copy_bench")])
    )
    assert [c.comparison.rows for c in listed.candidates] == [
        c.comparison.rows for c in planned.candidates
    ]


def test_calibrate_checks_the_thresholds_compare_checks(gpu_dir: Path) -> None:
    runs = [gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"]
    with pytest.raises(TypeError, match=r"^thresholds must be a Thresholds"):
        calibrate(runs, thresholds={})  # type: ignore[arg-type]
    with pytest.raises(CompareError, match=r"^thresholds\.ci_resamples must be >= 100"):
        calibrate(runs, thresholds=Thresholds(ci_resamples=0))


class _BytesPath:
    """A path-like object whose path is bytes, which the readers refuse."""

    def __fspath__(self) -> bytes:
        return b"gpu_ref.json"

    def __repr__(self) -> str:
        return "_BytesPath()"


#: Runs no reader takes: unchecked, one in a list failed with "'NoneType' object has no
#: attribute 'path'" in the check for repeated runs, one alone with pathlib's "expected
#: str, bytes or os.PathLike object", which named no parameter and listed bytes.
NO_RUNS: list[object] = [None, 3, 2.5, b"gpu_cmp.json", bytearray(b"x"), {"run": "a.json"}]
RUN_FORMS = r"must be a path \(str or os\.PathLike\) or a loaded BenchmarkResult"


@pytest.mark.parametrize("bad", [*NO_RUNS, _BytesPath()], ids=repr)
def test_a_run_that_is_no_run_is_refused_naming_its_side(gpu_dir: Path, bad: object) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    given = re.escape(repr(bad))
    for call, said in [
        (lambda: compare(bad, cmp), "ref"),  # type: ignore[arg-type]
        (lambda: compare(ref, bad), "cmp"),  # type: ignore[arg-type]
        (lambda: compare_many(bad, {"new": cmp}), "base"),  # type: ignore[arg-type]
        (lambda: compare_many(ref, {"new": bad}), r"candidates\['new'\]"),  # type: ignore[dict-item]
        (lambda: compare_variants(bad, "T"), "source"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(
            TypeError, match=rf"^{said} {RUN_FORMS}, or a list of them .*; got {given}$"
        ):
            call()
    for call, said in [
        (lambda: compare([ref, bad], cmp), r"ref\[1\]"),  # type: ignore[list-item]
        (lambda: compare(ref, [cmp, bad]), r"cmp\[1\]"),  # type: ignore[list-item]
        (lambda: compare_many(ref, {"new": (cmp, bad)}), r"candidates\['new'\]\[1\]"),
        (lambda: compare_variants([ref, bad], "T"), r"source\[1\]"),  # type: ignore[list-item]
        (lambda: compare_paired([ref, cmp], [cmp, bad]), r"cmp\[1\]"),  # type: ignore[list-item]
        (lambda: calibrate([ref, bad]), r"runs\[1\]"),  # type: ignore[list-item]
    ]:
        with pytest.raises(TypeError, match=rf"^{said} {RUN_FORMS}; got {given}$"):
            call()
    with pytest.raises(
        TypeError,
        match=rf"^directory must be a path \(str or os\.PathLike\) to a directory written by "
        rf"'nvbench_compare ab'; got {given}$",
    ):
        compare_paired_directory(bad)  # type: ignore[arg-type]


def test_a_list_inside_a_list_of_runs_is_refused(gpu_dir: Path) -> None:
    ref, cmp = gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"
    with pytest.raises(TypeError, match=rf"^cmp\[1\] {RUN_FORMS}; got \[Posix"):
        compare([ref, cmp], [cmp, [ref]])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=rf"^ref\[0\] {RUN_FORMS}; got \("):
        compare_paired([(ref,), cmp], [cmp, ref])  # type: ignore[list-item]
