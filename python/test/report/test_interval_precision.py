"""Very narrow intervals (timings, changes, ratios): enough decimals that an interval never
reads as a single value."""

from __future__ import annotations

import pytest
from cuda.bench.report.intervals import format_interval_compact


@pytest.mark.parametrize(
    ("center", "below", "above", "expected"),
    [
        # Sub-picosecond spreads read "[-0.000, +0.000] ns": no width at all.
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
        "93.837 [-0.000, +0.000] us"
    )
    assert format_interval_compact(center, center, center) == "93.837 [-0.000, +0.000] us"
