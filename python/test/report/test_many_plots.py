"""Plots of N-way comparisons: ``--plot-along`` with one line per contender, and the heat
map of log ratios. Data shaping is checked directly; figures through their artists and by
rendering them."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from cuda.bench.compare import compare_many, compare_variants
from cuda.bench.compare.many import MultiComparison
from cuda.bench.compare.model import Status
from cuda.bench.report import plots
from cuda.bench.report.plots.along_many import many_along_charts, many_along_figures
from cuda.bench.report.plots.heatmap import (
    MAX_ROW_LABELS,
    cell_log_ratio,
    heatmap_chart,
    heatmap_figure,
)
from cuda.bench.results import DeviceSpec, Pow2Axis, ResultBuilder, StringAxis

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: Impl factors against ``base``.
FACTORS = {"base": 1.0, "fast": 0.8, "slow": 1.25}


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> MultiComparison:
    """``--col Impl`` of a run with Impl x Elements x Mode on one device."""
    rng = np.random.default_rng(2)
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
    bench = builder.benchmark(
        "kern",
        axes=[
            StringAxis("Impl", list(FACTORS)),
            Pow2Axis("Elements", [10, 12, 14]),
            StringAxis("Mode", ["a", "b"]),
        ],
    )
    for impl, factor in FACTORS.items():
        for exponent in (10, 12, 14):
            for mode in ("a", "b"):
                base = 1e-6 * 2 ** (exponent - 10) * factor * (2.0 if mode == "b" else 1.0)
                bench.state(
                    {"Impl": impl, "Elements": 2**exponent, "Mode": mode},
                    device=0,
                    gpu_times=base * rng.lognormal(0.0, 0.004, 300),
                    frequencies=np.full(300, 1.7e9),
                )
    path = tmp_path_factory.mktemp("many_plots") / "run.json"
    builder.write(path, jsonbin=True)
    return compare_variants(path, "Impl")


def test_along_charts_have_one_line_per_contender(many: MultiComparison) -> None:
    charts, notes = many_along_charts(many, "Elements")
    assert notes == []
    (chart,) = charts
    assert (chart.benchmark, chart.device, chart.axis, chart.pow2) == ("kern", 0, "Elements", True)
    assert chart.names == ("Impl=base", "Impl=fast", "Impl=slow")
    assert [series.label for series in chart.series] == ["Mode=a", "Mode=b"]
    for series in chart.series:
        assert [line.name for line in series.lines] == list(chart.names)
        assert [line.is_baseline for line in series.lines] == [True, False, False]
        base, fast, slow = series.lines
        for line in series.lines:
            assert [point.x for point in line.points] == [2.0**10, 2.0**12, 2.0**14]
            assert all(p.band is not None and p.band.lo < p.center < p.band.hi for p in line.points)
        assert all(point.status is None for point in base.points)
        assert {point.status for point in fast.points} == {Status.FAST}
        for b, f, s in zip(base.points, fast.points, slow.points, strict=True):
            assert f.center / b.center == pytest.approx(0.8, rel=0.03)
            assert s.center / b.center == pytest.approx(1.25, rel=0.03)


def test_along_notes_for_unusable_axes(many: MultiComparison) -> None:
    charts, notes = many_along_charts(many, "Mode")
    assert charts == []
    assert any("non-numeric values of axis 'Mode'" in note for note in notes)
    charts, notes = many_along_charts(many, "Nope")
    assert charts == [] and any("has no axis 'Nope'" in note for note in notes)


def test_along_figure_draws_and_saves(many: MultiComparison, tmp_path: Path) -> None:
    (plot,), _ = many_along_figures(many, "Elements")
    ax = plot.figure.axes[0]
    styles = sorted(line.get_linestyle() for line in ax.get_lines())
    assert styles == ["-", "-", "-", "-", "--", "--"]  # 2 series x (baseline + 2 candidates)
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[:3] == ["Impl=base (baseline)", "Impl=fast", "Impl=slow"]
    path = plots.save_figure(plot.figure, tmp_path / "along.png")
    assert path.read_bytes()[:8] == PNG_MAGIC


def test_heatmap_data(many: MultiComparison) -> None:
    chart = heatmap_chart(many)
    assert chart.columns == ("Impl=fast", "Impl=slow")
    assert chart.baseline == "Impl=base"
    assert len(chart.rows) == 6 and chart.rows[0] == "kern [0] Elements=2^10 Mode=a"
    for values, flags in zip(chart.values, chart.flags, strict=True):
        fast, slow = values
        assert fast is not None and slow is not None
        assert fast == pytest.approx(math.log2(0.8), abs=0.03)
        assert slow == pytest.approx(math.log2(1.25), abs=0.03)
        assert flags == (True, True)
    assert chart.scale == pytest.approx(max(abs(v) for r in chart.values for v in r if v))


def test_cell_log_ratio_without_a_row_or_an_estimate(many: MultiComparison) -> None:
    assert cell_log_ratio(None) is None
    row = many["Impl=slow"].rows[0]
    effect = row.verdict.judged_effect
    assert effect is not None
    assert cell_log_ratio(row) == pytest.approx(math.log2(effect.ratio))
    import msgspec

    assert cell_log_ratio(msgspec.structs.replace(row, cmp=None)) is None


def test_heatmap_renders_to_png_and_svg(many: MultiComparison, tmp_path: Path) -> None:
    figure = heatmap_figure(many)
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Impl=fast", "Impl=slow"]
    assert len(ax.get_yticklabels()) == 6
    png = plots.save_figure(figure, tmp_path / "heat.png")
    assert png.read_bytes()[:8] == PNG_MAGIC
    svg = plots.save_figure(heatmap_figure(many, dark=True), tmp_path / "heat.svg")
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_heatmap_of_many_states_drops_row_labels(tmp_path: Path) -> None:
    from cuda.bench.results.synthetic import SyntheticConfig, write_pair

    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=1, states=MAX_ROW_LABELS + 10, samples=50)
    )
    many = compare_many(pair.ref[0], {"a": pair.cmp[0], "b": pair.cmp[0]})
    figure = heatmap_figure(many)
    ax = figure.axes[0]
    assert "states (matrix order)" in ax.get_ylabel()
    assert all(not t.get_text().startswith("synthetic") for t in ax.get_yticklabels())
