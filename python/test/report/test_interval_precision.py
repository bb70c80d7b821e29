"""Very narrow intervals (timings, changes, ratios): enough decimals that an interval never
reads as a single value."""

from __future__ import annotations

import pytest
from cuda.bench.compare.model import Effect, SuiteSummary
from cuda.bench.report.document import suite_change_text
from cuda.bench.report.format import distinct_decimals
from cuda.bench.report.history import ratio_text
from cuda.bench.report.intervals import format_interval_compact
from cuda.bench.report.tables import effect_text


@pytest.mark.parametrize(
    ("center", "below", "above", "expected"),
    [
        # Sub-picosecond spreads read "[0.000, 0.000] ns": no width at all.
        (93.837e-6, 0.4e-12, 0.2e-12, "93.837 us [-0.0004, +0.0002] ns"),
        (2.5e-3, 0.03e-12, 0.01e-12, "2.500 ms [-0.00003, +0.00001] ns"),
        (800e-9, 0.4e-12, 0.2e-12, "800.000 [-0.0004, +0.0002] ns"),
        # From a picosecond up, as before.
        (93.837e-6, 1e-12, 0.7e-12, "93.837 us [-0.001, +0.001] ns"),
        (93.837e-6, 0.4e-9, 0.2e-9, "93.837 us [-0.4, +0.2] ns"),
    ],
)
def test_a_tiny_spread_shows_a_digit(
    center: float, below: float, above: float, expected: str
) -> None:
    assert format_interval_compact(center - below, center, center + above) == expected


def test_a_spread_below_a_femtosecond_is_written_in_the_centers_unit() -> None:
    # Float rounding, not a measurement: zeros in the center's unit (as for no spread), not
    # zeros in nanoseconds beside a center in microseconds.
    center = 93.837e-6
    assert format_interval_compact(center - 1e-19, center, center + 1e-19) == (
        "93.837 [0.000, 0.000] us"
    )
    assert format_interval_compact(center, center, center) == "93.837 [0.000, 0.000] us"


def test_distinct_decimals_adds_what_tells_the_ends_apart() -> None:
    assert distinct_decimals(4.3, 5.6, 1, 4) == 1
    assert distinct_decimals(4.12, 4.14, 1, 4) == 2
    assert distinct_decimals(-0.0004, 0.0003, 1, 4) == 4  # "-0.000" is "+0.000"
    # Ends alike even at the most decimals, or equal: the usual decimals.
    assert distinct_decimals(1.0, 1.0 + 1e-9, 3, 6) == 3
    assert distinct_decimals(2.0, 2.0, 1, 4) == 1


@pytest.mark.parametrize(
    ("ratio", "lo", "hi", "expected"),
    [
        (1.049, 1.043, 1.056, "+4.9% [+4.3, +5.6]"),
        # Both ends read "+0.0" (a change interval of no width): more decimals.
        (1.00002, 0.99999, 1.00004, "+0.002% [-0.001, +0.004]"),
        (1.0413, 1.0412, 1.0414, "+4.13% [+4.12, +4.14]"),
    ],
)
def test_the_change_interval_never_reads_as_one_value(
    ratio: float, lo: float, hi: float, expected: str
) -> None:
    assert effect_text(Effect(ratio, lo, hi, 0.95)) == expected


def test_history_ratios_never_read_as_one_value() -> None:
    assert ratio_text(1.052, 1.041, 1.063) == "1.052 [1.041, 1.063]"
    # "1.000 [1.000, 1.000]" before.
    assert ratio_text(1.00002, 0.99998, 1.00005) == "1.0000 [1.0000, 1.0001]"


def test_the_geometric_mean_interval_never_reads_as_one_value() -> None:
    wide = SuiteSummary(0.996, 20, lo=0.990, hi=1.002, confidence=0.95, basis="bootstrap")
    assert suite_change_text(wide) == "0.996 (-0.4%) [0.990, 1.002] at 95% confidence over 20 rows"
    narrow = SuiteSummary(1.00001, 3, lo=0.99999, hi=1.00002, confidence=0.95, basis="bootstrap")
    assert suite_change_text(narrow).startswith("1.00001 (+0.0%) [0.99999, 1.00002] at 95%")


def test_a_suite_ratio_far_below_one_is_written_not_zero() -> None:
    """A state 1e15 times faster: the geometric mean read "0.000 (-100.0%) [0.000, 0.000]"
    (re-trial); the large side was already in scientific notation."""
    tiny = SuiteSummary(1e-15, 1, lo=5e-16, hi=2e-15, confidence=0.95, basis="bootstrap")
    text = suite_change_text(tiny)
    assert text.startswith("1.000e-15 (-100.0%) [5.000e-16, 2.000e-15]"), text
    assert "0.000 " not in text
