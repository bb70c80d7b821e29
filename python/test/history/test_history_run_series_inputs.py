"""What :class:`RunSeries` takes: masked arrays, pandas columns with gaps, labels, the
interval confidence; each wrong input refused with a TypeError or ValueError naming it,
never read as something else."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from cuda.bench.history import RunSeries


def test_a_masked_median_is_a_missing_run() -> None:
    # The mask was dropped: the masked 2e-3 became a real run.
    masked = np.ma.masked_array([1e-3, 2e-3, 3e-3], mask=[0, 1, 0])
    series = RunSeries("s", masked)
    assert series.missing == 1 and math.isnan(float(series.medians[1]))
    assert series.medians[[0, 2]].tolist() == [1e-3, 3e-3]
    # A masked value that is no time is not read at all.
    assert RunSeries("s", np.ma.masked_array([1e-3, -5.0], mask=[0, 1])).missing == 1
    with pytest.raises(ValueError, match="every run is missing"):
        RunSeries("s", np.ma.masked_array([1e-3, 2e-3], mask=[1, 1]))


def test_masked_intervals_and_samples_are_no_values() -> None:
    medians = np.array([2.0, 2.0, 2.0])
    lo = np.ma.masked_array([1.0, 1.0, 1.0], mask=[0, 1, 0])
    hi = np.ma.masked_array([3.0, 3.0, 3.0], mask=[0, 1, 0])
    series = RunSeries("s", medians, median_lo=lo, median_hi=hi)
    assert series.median_lo is not None and series.median_hi is not None
    assert math.isnan(float(series.median_lo[1])) and math.isnan(float(series.median_hi[1]))
    # A masked sample (here one that is no time) is left out of its run.
    one = np.ma.masked_array(np.array([2.0, -1.0, 2.5], dtype=np.float32), mask=[0, 1, 0])
    kept = RunSeries("s", medians, samples=(one, np.array([2.0]), np.array([2.0])))
    assert kept.samples is not None
    assert kept.samples[0].tolist() == [2.0, 2.5] and kept.samples[0].dtype == np.float32


def test_a_pandas_column_with_gaps_has_missing_runs() -> None:
    pd = pytest.importorskip("pandas")
    # An object column holding pd.NA failed with "float() argument ... NAType".
    for column in (pd.Series([1e-3, pd.NA, 2e-3]), pd.Series([1e-3, None, 2e-3], dtype=object)):
        series = RunSeries("s", column)
        assert series.missing == 1 and series.medians[[0, 2]].tolist() == [1e-3, 2e-3]


@pytest.mark.parametrize(
    ("argument", "given"),
    [
        ("medians", ["1e-3", "2e-3"]),
        ("medians", [True, True]),
        ("medians", np.array([1e-3, "x"], dtype=object)),
        ("median_lo", ["a", "b"]),
        ("run 1's samples", None),
    ],
)
def test_values_that_are_not_numbers_are_refused_naming_them(argument: str, given: object) -> None:
    # Text was read as numbers ("1e-3" became 0.001), booleans as 1.0.
    arrays: dict[str, object] = {"medians": [2.0, 2.0]}
    if argument == "median_lo":
        arrays.update(median_lo=given, median_hi=[3.0, 3.0])
    elif argument == "medians":
        arrays["medians"] = given
    else:
        arrays["samples"] = (np.array([2.0]), np.array(["2.0"]))
    with pytest.raises(TypeError, match=rf"^series 's': {argument} must be numbers"):
        RunSeries("s", **arrays)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("labels", "error", "message"),
    [
        ("x" * 4, TypeError, "labels must be a sequence of str"),
        (b"abcd", TypeError, "labels must be a sequence of str"),
        ({"a", "b", "c", "d"}, TypeError, "labels must be a sequence of str"),
        (7, TypeError, "labels must be a sequence of str"),
        (tuple(range(4)), TypeError, r"labels must be str \(run 0's label is int"),
        (["a", "b", None, "d"], TypeError, r"labels must be str \(run 2's label is NoneType"),
        (("a", "b"), ValueError, "2 labels, 4 runs"),
    ],
)
def test_labels_are_one_text_per_run(labels: object, error: type, message: str) -> None:
    # A string was taken as one label per character; ints and None were accepted and a
    # change's commit (a str field) became an int.
    with pytest.raises(error, match=rf"^series 's': {message}"):
        RunSeries("s", np.ones(4), labels=labels)  # type: ignore[arg-type]


def test_labels_are_kept_as_a_tuple_of_text() -> None:
    given = np.array(["c0", "c1", "c2"])
    series = RunSeries("s", np.ones(3), labels=given)  # type: ignore[arg-type]
    assert series.labels == ("c0", "c1", "c2")
    assert all(type(label) is str for label in series.labels)
    assert RunSeries("s", np.ones(3), labels=["a", "b", "c"]).label(1) == "b"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("confidence", "error", "message"),
    [
        ("0.9", TypeError, r"interval_confidence must be a number in \(0, 1\), got str"),
        (True, TypeError, r"interval_confidence must be a number in \(0, 1\), got bool"),
        (None, TypeError, r"interval_confidence must be a number in \(0, 1\), got NoneType"),
        (math.nan, ValueError, r"interval_confidence must lie in \(0, 1\), got nan"),
        (1.0, ValueError, r"interval_confidence must lie in \(0, 1\), got 1.0"),
        (-0.5, ValueError, r"interval_confidence must lie in \(0, 1\), got -0.5"),
    ],
)
def test_interval_confidence_is_a_number_between_0_and_1(
    confidence: object, error: type, message: str
) -> None:
    # Text failed with "'<' not supported between instances of 'float' and 'str'".
    with pytest.raises(error, match=rf"^series 's': {message}"):
        RunSeries("s", np.ones(4), interval_confidence=confidence)  # type: ignore[arg-type]
    kept = RunSeries("s", np.ones(4), interval_confidence=np.float32(0.5))  # type: ignore[arg-type]
    assert type(kept.interval_confidence) is float and kept.interval_confidence == 0.5


def test_interval_confidence_takes_a_decimal_as_the_medians_do() -> None:
    # Decimal medians were taken and a Decimal confidence refused ("must be a number").
    kept = RunSeries("s", np.ones(4), interval_confidence=Decimal("0.9"))  # type: ignore[arg-type]
    assert type(kept.interval_confidence) is float and kept.interval_confidence == 0.9
    with pytest.raises(ValueError, match=r"^series 's': interval_confidence must lie in"):
        RunSeries("s", np.ones(4), interval_confidence=Decimal("NaN"))  # type: ignore[arg-type]


def _full_series(key: str = "s", **changed: object) -> RunSeries:
    medians = np.array([2.0, math.nan, 2.5, 3.0])
    arrays: dict[str, object] = {
        "medians": medians,
        "samples": tuple(np.full(3, value, dtype=np.float32) for value in (2.0, 1.0, 2.5, 3.0)),
        "median_lo": np.array([1.5, math.nan, 2.0, 2.5]),
        "median_hi": np.array([2.5, math.nan, 3.0, 3.5]),
        "labels": ("a", "b", "c", "d"),
    }
    arrays.update(changed)
    return RunSeries(key, **arrays)  # type: ignore[arg-type]


def test_series_compare_by_value_and_hash_alike() -> None:
    # == raised "truth value of an array is ambiguous" (also after pickle or deepcopy) and
    # hash() "unhashable type: 'numpy.ndarray'".
    import copy
    import pickle

    series = _full_series()
    twins = [
        _full_series(medians=np.array([2.0, math.nan, 2.5, 3.0])),
        pickle.loads(pickle.dumps(series)),
        copy.deepcopy(series),
        # Another NaN's bits, and samples of another float type with the same values.
        _full_series(medians=np.array([2.0, -math.nan, 2.5, 3.0])),
        _full_series(samples=tuple(np.full(3, v) for v in (2.0, 1.0, 2.5, 3.0))),
    ]
    for twin in twins:
        assert series == twin and (series != twin) is False
        assert hash(series) == hash(twin)
    assert len({series, *twins}) == 1 and {series: 1}[twins[0]] == 1
    others = [
        _full_series("t"),
        _full_series(medians=np.array([2.0, 2.2, 2.5, 3.0])),
        _full_series(samples=None),
        _full_series(samples=tuple(np.full(2, v) for v in (2.0, 1.0, 2.5, 3.0))),
        _full_series(median_lo=None, median_hi=None),
        _full_series(median_hi=np.array([2.5, math.nan, 3.0, 3.6])),
        _full_series(labels=None),
        _full_series(labels=("a", "b", "c", "e")),
        _full_series(interval_confidence=0.9),
    ]
    for other in others:
        assert series != other and (series == other) is False
    assert series != "s" and series != (series.key, series.medians)
    assert series.observed()[0] == series.observed()[0]


def test_labels_from_a_pandas_column_or_index_are_taken() -> None:
    """The commits beside the medians in a DataFrame: taken before the label checks, refused
    by them as no sequence (review)."""
    pd = pytest.importorskip("pandas")
    commits = [f"c{run}" for run in range(12)]
    for labels in (pd.Series(commits), pd.Index(commits), np.array(commits)):
        series = RunSeries("s", np.full(12, 1e-3), labels=labels)
        assert series.labels == tuple(commits)
        assert all(type(label) is str for label in series.labels)


def test_numbers_of_other_types_in_an_object_array_are_numbers() -> None:
    """A SQL NUMERIC column arrives as Decimals: read before, refused as "not numbers" by the
    first version of the checks (review)."""
    from fractions import Fraction

    medians = np.array([Decimal("0.001"), Fraction(1, 1000), None], dtype=object)
    series = RunSeries("s", medians)
    assert series.medians[:2].tolist() == [0.001, 0.001] and np.isnan(series.medians[2])


def test_a_run_s_samples_leave_out_their_gaps() -> None:
    """None and pandas.NA in a run's samples are no values, left out as masked ones are
    (the re-trial: "run 0's samples hold a value that is no finite positive time"); a NaN
    sample time is a bad value, refused as before."""
    pd = pytest.importorskip("pandas")
    medians = np.array([1e-3, np.nan, 2e-3])
    rest = (np.array([]), np.array([2e-3]))
    for gap in (pd.Series([1e-3, pd.NA]), np.array([1e-3, None], dtype=object)):
        series = RunSeries("s", medians, samples=(gap, *rest))
        assert series.samples is not None and series.samples[0].tolist() == [1e-3]
    with pytest.raises(ValueError, match="run 0's samples hold a value"):
        RunSeries("s", medians, samples=(np.array([1e-3, np.nan]), *rest))
