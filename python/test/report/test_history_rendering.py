"""How ``nvbench-history trend`` shows its series: the text table's interval cells and the
plot's panel titles."""

from __future__ import annotations

import datetime as dt

import msgspec
import numpy as np
import pytest
from cuda.bench.history.series import ArchiveSeries, HistoryView, examine
from cuda.bench.report.history import trend_text


def _series(
    benchmark: str, state_name: str, level: float, *, intervals: bool, runs: int = 30
) -> ArchiveSeries:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    medians = level * np.exp(np.random.default_rng(3).normal(0.0, 0.01, runs))
    return ArchiveSeries(
        machine="m",
        benchmark=benchmark,
        device=0,
        state_name=state_name,
        axes=(),
        commits=tuple(f"c{i:04d}" for i in range(runs)),
        dates=tuple(start + dt.timedelta(days=i) for i in range(runs)),
        medians=medians,
        median_lo=medians * 0.998 if intervals else None,
        median_hi=medians * 1.003 if intervals else None,
        run_ids=tuple(f"r{i}" for i in range(runs)),
        device_name="NVIDIA H200",
    )


def _column(table: str, header: str) -> list[str]:
    lines = [line for line in table.splitlines() if line.startswith("|")]
    index = [cell.strip() for cell in lines[0].split("|")].index(header)
    return [line.split("|")[index] for line in lines[2:]]


def test_a_last_run_without_an_interval_leaves_no_blank_slot() -> None:
    # One series' last run has no interval (stored without samples): its cell read
    # " 2.564                  us", a gap where the brackets of the other rows are.
    view = examine(
        [
            _series("a", "Elements=1", 93.8e-6, intervals=True),
            _series("b", "Elements=2", 2.56e-6, intervals=False),
        ]
    )
    with_interval, without = _column(trend_text(view), "Last run")
    assert "[" in with_interval and "[" not in without
    assert "  us" not in without and without.split()[-1] == "us"
    # The centers still end in one column.
    assert with_interval.index(".") == without.index(".")


def test_median_bounds_are_plain_numbers_and_none_for_a_run_without_an_interval() -> None:
    assert _series("b", "Elements=2", 1.0, intervals=False, runs=3).median_bounds() == (None, None)
    one = msgspec.structs.replace(
        _series("a", "Elements=1", 1.0, intervals=True, runs=3),
        median_lo=np.array([0.9, np.nan, 1.0]),
        median_hi=np.array([1.1, np.nan, 1.2]),
    )
    lo, hi = one.median_bounds()
    assert lo == [0.9, None, 1.0] and hi == [1.1, None, 1.2]
    assert all(type(value) is float for value in [*lo, *hi] if value is not None)


def _title_view(benchmark: str, state_name: str) -> HistoryView:
    return examine([_series(benchmark, state_name, 1e-3, intervals=False)])


@pytest.mark.parametrize(
    ("benchmark", "state_name"),
    [
        (
            "a_long_templated_benchmark<$cub::DeviceRadixSort$, float, 1024>",
            " ".join(f"Axis{i}[pow2]={i + 10}" for i in range(8)) + " Layout=$x^2$",
        ),
        ("x" * 400, "Elements=1"),  # one word much wider than the panel
    ],
)
def test_trend_plot_titles_show_the_whole_name_inside_the_figure(
    benchmark: str, state_name: str
) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib")
    from cuda.bench.report.plots.history import trend_figure
    from matplotlib.text import Text

    view = _title_view(benchmark, state_name)
    figure = trend_figure(view, [0])
    figure.canvas.draw()
    (axis,) = figure.axes
    title = axis.get_title(loc="left")
    # Every character of the name, in order: wrapped, never cut.
    one = view.series[0]
    name = f"{one.benchmark} {one.device_text} {one.state}"
    assert title.replace("\n", "").replace(" ", "") == name.replace(" ", "")
    assert "$" not in name or "$" in title
    text = next(
        child
        for child in axis.get_children()
        if isinstance(child, Text) and child.get_text() == title
    )
    assert not text.get_parse_math()  # "$...$" stays text, not mathtext
    box = text.get_window_extent()
    assert box.x0 >= 0.0 and box.x1 <= figure.bbox.width
    assert box.y1 <= figure.bbox.height
    # The panel keeps room for its points: the wrapped title does not squeeze it flat.
    assert axis.get_window_extent().height >= 0.5 * 2.2 * figure.dpi
