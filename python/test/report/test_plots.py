"""``cuda.bench.report.plots``: what the figures show, and the file handling around them.

Figures are checked through their artists (bars and their colours, lines and their styles,
tick labels, titles), which is what a reader sees, and rendered to PNG to prove they draw.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import matplotlib

# Tests never open windows, whatever the machine has.
matplotlib.use("Agg")

import msgspec
import numpy as np
import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.filters import FilterPlan
from cuda.bench.compare.model import Comparison, Effect, Status
from cuda.bench.report import plots
from cuda.bench.report.plots import along, style
from cuda.bench.results import (
    BenchmarkResult,
    DeviceSpec,
    Int64Axis,
    Pow2Axis,
    ResultBuilder,
    StringAxis,
)
from cuda.bench.results.synthetic import SyntheticConfig, write_pair
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: Whether effects record their equivalence band (methods that use one fill it in).
HAS_TOLERANCE = "tolerance" in set(Effect.__struct_fields__)


# ---------------------------------------------------------------------------------------------
# Helpers


def assert_png(path: Path) -> None:
    """A complete PNG that decodes to a non-empty RGB(A) image."""
    import matplotlib.image

    assert path.read_bytes()[:8] == PNG_MAGIC
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    assert image.shape[2] in (3, 4)


def only_axes(figure: Figure) -> Axes:
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert len(visible) == 1
    return visible[0]


def suptitle(figure: Figure) -> str:
    """The figure's title: ``Figure.get_suptitle`` arrived in matplotlib 3.8 and the plot
    extra allows 3.7, whose figure keeps it only as ``_suptitle``."""
    if hasattr(figure, "get_suptitle"):
        return str(figure.get_suptitle())
    title = getattr(figure, "_suptitle", None)
    return "" if title is None else str(title.get_text())


def bar_colors(ax: Axes) -> list[str]:
    return [to_hex(patch.get_facecolor()) for patch in ax.containers[0]]


def ytick_texts(ax: Axes) -> list[str]:
    return [label.get_text() for label in ax.get_yticklabels()]


def example_comparison() -> Comparison:
    return compare(EXAMPLES / "ref.json", EXAMPLES / "cmp.json", method="robust")


def with_effects(comparison: Comparison, tolerance: float | None = 0.005) -> Comparison:
    """Every row given a made-up effect interval around its change (as method ci would)."""
    rows = []
    for row in comparison.rows:
        change = row.frac_diff
        if change is None:
            rows.append(row)
            continue
        extra = {"tolerance": tolerance} if HAS_TOLERANCE else {}
        effect = Effect(
            ratio=1 + change, lo=1 + change - 0.004, hi=1 + change + 0.006, confidence=0.95, **extra
        )
        verdict = msgspec.structs.replace(row.verdict, effect=effect)
        rows.append(msgspec.structs.replace(row, verdict=verdict))
    return msgspec.structs.replace(comparison, rows=tuple(rows))


def write_grid_pair(directory: Path, slow_factor: float = 1.2) -> tuple[Path, Path]:
    """A two-device pair whose ``grid`` benchmark has three axes (one string), so series
    must be keyed by the other axes, and a ``flat`` benchmark without ``Elements``.

    On device 0, ``Block=256 Mode=a Elements=2^12`` is ``slow_factor`` slower in cmp.
    """
    rng = np.random.default_rng(7)
    paths = []
    for side in ("ref", "cmp"):
        builder = ResultBuilder(devices=[DeviceSpec.h100(0), DeviceSpec.a100(1)])
        grid = builder.benchmark(
            "grid",
            axes=[
                Pow2Axis("Elements", [10, 12, 14]),
                Int64Axis("Block", [128, 256]),
                StringAxis("Mode", ["a", "b"]),
            ],
        )
        for device in (0, 1):
            for exponent in (10, 12, 14):
                for block in (128, 256):
                    for mode in ("a", "b"):
                        base = 1e-6 * 2 ** (exponent - 10) * (1.5 if mode == "b" else 1.0)
                        if (side, device, block, mode, exponent) == ("cmp", 0, 256, "a", 12):
                            base *= slow_factor
                        times = base * rng.lognormal(0.0, 0.005, 300)
                        grid.state(
                            {"Elements": 2**exponent, "Block": block, "Mode": mode},
                            device=device,
                            gpu_times=times,
                            frequencies=np.full(300, 1.7e9),
                        )
        flat = builder.benchmark("flat", axes=[Int64Axis("N", [1, 2])])
        for device in (0, 1):
            for n in (1, 2):
                flat.state(
                    {"N": n},
                    device=device,
                    gpu_times=1e-5 * n * rng.lognormal(0.0, 0.005, 300),
                    frequencies=np.full(300, 1.7e9),
                )
        path = directory / f"{side}.json"
        builder.write(path, jsonbin=True)
        paths.append(path)
    return paths[0], paths[1]


# ---------------------------------------------------------------------------------------------
# Summary plot


def test_summary_bars_follow_rows_with_status_colours(tmp_path: Path) -> None:
    comparison = example_comparison()
    drawn, notes = plots.summary_figures(comparison)
    assert notes == []
    assert len(drawn) == 1
    chart, figure = drawn[0].chart, drawn[0].figure
    assert [bar.row for bar in chart.bars] == list(comparison.rows)
    ax = figure.axes[0]
    expected = [plots.STATUS_PLOT_COLORS[row.status] for row in comparison.rows]
    assert bar_colors(ax) == expected
    widths = [patch.get_width() for patch in ax.containers[0]]
    assert widths == pytest.approx([row.frac_diff for row in comparison.rows])
    # The known changes of the example data: one SLOW (red), one FAST (green).
    assert bar_colors(ax).count(plots.STATUS_PLOT_COLORS[Status.SLOW]) == 1
    assert bar_colors(ax).count(plots.STATUS_PLOT_COLORS[Status.FAST]) == 1
    labels = ytick_texts(ax)
    assert labels[0] == "reduce [0] T=F32 Elements=2^16"
    assert all("[0]" in label for label in labels)
    assert "NVIDIA H100 80GB HBM3" in suptitle(figure)
    path = plots.save_figure(figure, tmp_path / "summary.png")
    assert_png(path)


def test_summary_labels_name_the_device_on_two_device_runs(gpu_dir: Path, tmp_path: Path) -> None:
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    drawn, _ = plots.summary_figures(comparison)
    ax = drawn[0].figure.axes[0]
    labels = ytick_texts(ax)
    # Upstream's labels omit the device, so both devices' rows read the same.
    assert len(set(labels)) == len(labels)
    assert "copy_bench [0] T=F32 Elements=2^20 Layout=contiguous" in labels
    assert "copy_bench [1] T=F32 Elements=2^20 Layout=contiguous" in labels
    title = suptitle(drawn[0].figure)
    assert "[0] NVIDIA H100 80GB HBM3" in title and "[1] NVIDIA A100-SXM4-80GB" in title
    # The four skipped states have no change: counted in the title, not drawn.
    assert len(labels) == 20
    assert "not drawn: 4 SKIP" in title
    colors = dict(zip(labels, bar_colors(ax), strict=True))
    red, green = plots.STATUS_PLOT_COLORS[Status.SLOW], plots.STATUS_PLOT_COLORS[Status.FAST]
    assert colors["copy_bench [0] T=F32 Elements=2^20 Layout=contiguous"] == red
    assert colors["copy_bench [0] T=F64 Elements=2^16 Layout=contiguous"] == green
    assert_png(plots.save_figure(drawn[0].figure, tmp_path / "gpu.png"))


def test_summary_moves_pinned_axes_to_the_title(gpu_dir: Path) -> None:
    plan = FilterPlan.from_args([("benchmark", "copy_bench"), ("axis", "T=F32")])
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", filters=plan)
    drawn, _ = plots.summary_figures(comparison, filters=plan)
    labels = ytick_texts(drawn[0].figure.axes[0])
    assert labels and not any("T=" in label for label in labels)
    assert "T=F32" in suptitle(drawn[0].figure)
    # Without an explicit plan the comparison's own filters say the same.
    again, _ = plots.summary_figures(comparison)
    assert ytick_texts(again[0].figure.axes[0]) == labels


def test_summary_list_filter_keeps_the_axis_in_labels(gpu_dir: Path) -> None:
    plan = FilterPlan.from_args([("axis", "T=[F32,F64]")])
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json", filters=plan)
    charts, _ = plots.summary_charts(comparison)
    assert all("T=" in bar.label for bar in charts[0].bars)


def test_summary_threshold_hides_small_changes() -> None:
    comparison = example_comparison()
    charts, _ = plots.summary_charts(comparison, min_change=0.05)
    assert [bar.status for bar in charts[0].bars] == [Status.SLOW, Status.FAST]
    assert "10 below --threshold-diff" in charts[0].subtitle


def test_summary_draws_effect_intervals_and_tolerance(tmp_path: Path) -> None:
    comparison = with_effects(example_comparison())
    drawn, _ = plots.summary_figures(comparison)
    chart, figure = drawn[0].chart, drawn[0].figure
    assert chart.confidence == 0.95
    assert chart.tolerance == (0.005 if HAS_TOLERANCE else None)
    bar = chart.bars[0]
    assert bar.interval == pytest.approx((bar.change - 0.004, bar.change + 0.006))
    ax = figure.axes[0]
    error_bars = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    assert len(error_bars) == 1
    segments = error_bars[0].lines[2][0].get_segments()
    assert len(segments) == len(chart.bars)
    # Each error bar spans exactly the interval, even though it is not centred on the bar.
    (x0, _), (x1, _) = segments[0]
    assert (min(x0, x1), max(x0, x1)) == pytest.approx(bar.interval)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "95% CI of the effect" in legend
    assert ("tolerance ±0.5%" in legend) is HAS_TOLERANCE
    assert_png(plots.save_figure(figure, tmp_path / "ci.png"))


def test_summary_without_effects_has_no_error_bars() -> None:
    drawn, _ = plots.summary_figures(example_comparison())
    ax = drawn[0].figure.axes[0]
    assert not [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    assert drawn[0].chart.tolerance is None


def test_summary_dark(tmp_path: Path) -> None:
    drawn, _ = plots.summary_figures(example_comparison(), dark=True)
    figure = drawn[0].figure
    assert to_hex(figure.get_facecolor()) == "#000000"
    assert to_hex(figure.axes[0].get_facecolor()) == "#000000"
    assert to_hex(figure.axes[0].get_yticklabels()[0].get_color()) == "#ffffff"
    path = plots.save_figure(figure, tmp_path / "dark.png")
    import matplotlib.image

    image = matplotlib.image.imread(path)
    assert image[2, 2, :3].max() < 0.05  # the saved corner is black too


def test_summary_on_old_files_without_quartiles(upstream_2021_dir: Path, tmp_path: Path) -> None:
    comparison = compare(upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json")
    drawn, _ = plots.summary_figures(comparison)
    labels = ytick_texts(drawn[0].figure.axes[0])
    assert "simple [0]" in labels and "simple [1]" in labels
    assert len(labels) == len(set(labels))
    assert "38 SKIP" in suptitle(drawn[0].figure)
    assert_png(plots.save_figure(drawn[0].figure, tmp_path / "old.png"))


def test_summary_one_figure_per_input_pair(tmp_path: Path) -> None:
    ref_dir, cmp_dir = tmp_path / "ref", tmp_path / "cmp"
    config = SyntheticConfig(benchmarks=1, states=3, samples=100)
    for prefix in ("a_", "b_"):
        pair = write_pair(tmp_path / "gen", config, seed=3, prefix=prefix)
        for source, target in ((pair.ref[0], ref_dir), (pair.cmp[0], cmp_dir)):
            target.mkdir(exist_ok=True)
            result = BenchmarkResult(source)
            result.write(target / f"{prefix}bench.json")
    comparison = compare(ref_dir, cmp_dir)
    drawn, _ = plots.summary_figures(comparison)
    assert [plot.chart.pair for plot in drawn] == [0, 1]
    assert "a_bench.json" in drawn[0].chart.title and "b_bench.json" in drawn[1].chart.title


def test_summary_of_an_empty_comparison_is_a_note() -> None:
    comparison = msgspec.structs.replace(example_comparison(), rows=())
    drawn, notes = plots.summary_figures(comparison)
    assert drawn == [] and len(notes) == 1


# ---------------------------------------------------------------------------------------------
# Plot along an axis


def along_lines(figure: Figure) -> list[tuple[str, str, str]]:
    """(label, line style, colour) of every data line of the figure's one axes."""
    ax = figure.axes[0]
    return [
        (str(line.get_label()), str(line.get_linestyle()), to_hex(line.get_color()))
        for line in ax.get_lines()
    ]


def assert_series_lines(figure: Figure, series: int) -> None:
    """Two lines per series: reference dashed, compare solid, in the same colour."""
    lines = along_lines(figure)
    assert len(lines) == 2 * series
    for ref, cmp in zip(lines[0::2], lines[1::2], strict=True):
        assert ref[1] == "--" and cmp[1] == "-"
        assert ref[2] == cmp[2]
        assert ref[0].endswith("ref") and cmp[0].endswith("cmp")
    assert len({line[2] for line in lines}) == series


def test_along_keys_series_by_the_other_axes(gpu_dir: Path, tmp_path: Path) -> None:
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    drawn, notes = plots.along_figures(comparison, "Elements")
    assert [(p.chart.benchmark, p.chart.cmp_device) for p in drawn] == [
        ("copy_bench", 0),
        ("copy_bench", 1),
    ]
    # misc has no Elements axis: a note, not an abort.
    assert any("'misc' has no axis 'Elements'" in note for note in notes)
    for plot in drawn:
        # T x Layout minus the skipped F64 strided states: three combinations of the other
        # axes, each a line over both Elements values (upstream draws 12 one-point series).
        labels = [series.label for series in plot.chart.series]
        assert labels == [
            "T=F32 Layout=contiguous",
            "T=F32 Layout=strided",
            "T=F64 Layout=contiguous",
        ]
        assert all(len(series.points) == 2 for series in plot.chart.series)
        assert_series_lines(plot.figure, 3)
        ax = plot.figure.axes[0]
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["2^16", "2^20"]
        assert "copy_bench" in ax.get_title()
        assert_png(plots.save_figure(plot.figure, tmp_path / f"along{plot.chart.cmp_device}.png"))
    assert "[0] NVIDIA H100 80GB HBM3" in drawn[0].figure.axes[0].get_title()
    assert "[1] NVIDIA A100-SXM4-80GB" in drawn[1].figure.axes[0].get_title()
    # The changed states are named next to their points, in their status colour.
    texts = {t.get_text(): to_hex(t.get_color()) for t in drawn[0].figure.axes[0].texts}
    assert texts["SLOW +4.9%"] == plots.STATUS_PLOT_COLORS[Status.SLOW]
    assert texts["FAST -10.0%"] == plots.STATUS_PLOT_COLORS[Status.FAST]


def test_along_on_generated_three_axis_data(tmp_path: Path) -> None:
    ref, cmp = write_grid_pair(tmp_path)
    comparison = compare(ref, cmp)
    drawn, notes = plots.along_figures(comparison, "Elements")
    assert len(drawn) == 2  # grid on two devices; flat skipped
    assert notes == ["--plot-along: benchmark 'flat' has no axis 'Elements'; skipped"]
    for plot in drawn:
        assert [s.label for s in plot.chart.series] == [
            # First-seen order: NVBench varies the first axis fastest.
            "Block=128 Mode=a",
            "Block=256 Mode=a",
            "Block=128 Mode=b",
            "Block=256 Mode=b",
        ]
        assert all([p.x for p in s.points] == [1024, 4096, 16384] for s in plot.chart.series)
        assert_series_lines(plot.figure, 4)
        assert_png(plots.save_figure(plot.figure, tmp_path / f"{plot.chart.device_pair}.png"))
    slow = [p for s in drawn[0].chart.series for p in s.points if p.status is Status.SLOW]
    assert len(slow) == 1 and slow[0].x == 4096


def test_along_a_string_axis_is_skipped_with_a_note(tmp_path: Path) -> None:
    ref, cmp = write_grid_pair(tmp_path)
    drawn, notes = plots.along_charts(compare(ref, cmp), "Mode")
    assert drawn == []
    assert any("'grid' has non-numeric values of axis 'Mode'" in note for note in notes)
    assert notes[-1] == "--plot-along: no benchmark has usable values of axis 'Mode'; no figure"


def test_along_pinned_and_constant_axes_go_to_the_title(tmp_path: Path) -> None:
    ref, cmp = write_grid_pair(tmp_path)
    plan = FilterPlan.from_args([("benchmark", "grid"), ("axis", "Mode=b")])
    comparison = compare(ref, cmp, filters=plan)
    charts, _ = plots.along_charts(comparison, "Elements", filters=plan)
    assert [s.label for s in charts[0].series] == ["Block=128", "Block=256"]
    assert charts[0].fixed == "Mode=b"
    figures, _ = plots.along_figures(comparison, "Elements", filters=plan)
    assert "Mode=b" in figures[0].figure.axes[0].get_title()
    assert_series_lines(figures[0].figure, 2)


def test_along_on_old_files(upstream_2021_dir: Path, tmp_path: Path) -> None:
    comparison = compare(upstream_2021_dir / "ref.json", upstream_2021_dir / "cmp.json")
    drawn, notes = plots.along_figures(comparison, "BlockSize")
    assert [p.chart.benchmark for p in drawn] == ["copy_sweep_grid_shape"] * 2
    for plot in drawn:
        assert [s.label for s in plot.chart.series] == [
            "NumBlocks=2^6",
            "NumBlocks=2^8",
            "NumBlocks=2^10",
        ]
        assert_series_lines(plot.figure, 3)
    assert len(notes) == 4  # the other four benchmarks have no BlockSize
    assert_png(plots.save_figure(drawn[0].figure, tmp_path / "old.png"))


def test_along_leaves_out_values_a_log_axis_cannot_show(upstream_2021_dir: Path) -> None:
    comparison = compare(
        upstream_2021_dir / "ref.json",
        upstream_2021_dir / "cmp.json",
        filters=[("benchmark", "single_float64_axis")],
    )
    charts, notes = plots.along_charts(comparison, "Duration")
    assert len(charts) == 2
    assert all(point.x > 0 for chart in charts for s in chart.series for point in s.points)
    assert any("1 state with Duration <= 0 left out" in note for note in notes)


def test_along_bands_use_intervals_and_stay_positive() -> None:
    comparison = example_comparison()
    charts, _ = plots.along_charts(comparison, "Elements")
    points = [p for chart in charts for s in chart.series for p in s.points]
    assert points
    for point in points:
        for band, center in ((point.ref_band, point.ref), (point.cmp_band, point.cmp)):
            assert band is not None
            assert 0 < band.lo <= center <= band.hi


def test_band_falls_back_to_noise_and_clips() -> None:
    from cuda.bench.compare.model import SideEstimate

    wide = SideEstimate(center=1e-3, noise=2.5)
    band = along._band(1e-3, wide)
    assert band == plots.Band(1e-6, 3.5e-3)
    assert along._band(1e-3, SideEstimate(center=1e-3, noise=math.inf)) is None


def test_template_fields_of_an_along_chart(gpu_dir: Path) -> None:
    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    charts, _ = plots.along_charts(comparison, "Elements")
    assert charts[1].template_fields == {
        "benchmark": "copy_bench",
        "device": "1",
        "axis": "Elements",
        "pair": "1",
    }


# ---------------------------------------------------------------------------------------------
# Histograms


def test_collect_samples_keeps_inputs_apart(gpu_dir: Path) -> None:
    results = [
        ("gpu_ref.json", BenchmarkResult(gpu_dir / "gpu_ref.json")),
        ("gpu_cmp.json", BenchmarkResult(gpu_dir / "gpu_cmp.json")),
    ]
    plan = FilterPlan.from_args([("benchmark", "copy_bench"), ("axis", "T=F32")])
    states, notes = plots.collect_samples(results, filters=plan)
    assert notes == []
    assert len(states) == 8  # 2 Elements x 2 Layout x 2 devices
    for state in states:
        assert [label for label, _ in state.samples] == ["gpu_ref.json", "gpu_cmp.json"]
        ref, cmp = (samples for _, samples in state.samples)
        assert not np.array_equal(ref, cmp)
    assert states[0].device == "[0] NVIDIA H100 80GB HBM3"
    assert states[0].title == (
        "copy_bench [0] NVIDIA H100 80GB HBM3\nT=F32 Elements=2^16 Layout=contiguous"
    )


def test_collect_samples_notes_states_without_side_files(gpu_dir: Path) -> None:
    results = [
        ("gpu_ref.json", BenchmarkResult(gpu_dir / "gpu_ref.json")),
        ("nosidecar", BenchmarkResult(gpu_dir / "gpu_ref_nosidecar.json")),
    ]
    states, notes = plots.collect_samples(results)
    assert len(states) == 20  # the active states of gpu_ref
    assert all([label for label, _ in s.samples] == ["gpu_ref.json"] for s in states)
    # The 4 states the benchmark skipped get no note (issue #30): only the 20 measured
    # states whose side files the nosidecar copy lacks.
    assert len(notes) == 1
    assert notes[0].startswith("nosidecar: 20 states have no sample times")
    assert "skipped" not in notes[0]


def histogram_lines(figure: Figure) -> list[list[str]]:
    return [
        [
            str(line.get_label())
            for line in ax.get_lines()
            if not str(line.get_label()).startswith("_")
        ]
        for ax in figure.axes
        if ax.get_visible()
    ]


@pytest.mark.parametrize("kind", ["ecdf", "kde"])
def test_histogram_overlays_two_labelled_distributions(
    kind: str, gpu_dir: Path, tmp_path: Path
) -> None:
    results = [
        ("gpu_ref.json", BenchmarkResult(gpu_dir / "gpu_ref.json")),
        ("gpu_cmp.json", BenchmarkResult(gpu_dir / "gpu_cmp.json")),
    ]
    plan = FilterPlan.from_args([("benchmark", "copy_bench"), ("axis", "T=F32")])
    states, _ = plots.collect_samples(results, filters=plan)
    plot = plots.histogram_figure(states, kind=kind)
    assert plot.dropped == 0 and len(plot.states) == 8
    per_axes = histogram_lines(plot.figure)
    assert per_axes == [["gpu_ref.json", "gpu_cmp.json"]] * 8
    legend = plot.figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["gpu_ref.json", "gpu_cmp.json"]
    colors = [
        [
            to_hex(line.get_color())
            for line in ax.get_lines()
            if not str(line.get_label()).startswith("_")
        ]
        for ax in plot.figure.axes
        if ax.get_visible()
    ]
    assert all(pair[0] != pair[1] for pair in colors)
    assert len({tuple(pair) for pair in colors}) == 1  # a file keeps its colour
    assert_png(plots.save_figure(plot.figure, tmp_path / f"{kind}.png"))


def test_histogram_caps_the_number_of_states(tmp_path: Path) -> None:
    results = [("ref.json", BenchmarkResult(EXAMPLES / "ref.json"))]
    states, _ = plots.collect_samples(results)
    plot = plots.histogram_figure(states, max_states=5, log_x=True)
    assert len(plot.states) == 5 and plot.dropped == len(states) - 5
    assert len([ax for ax in plot.figure.axes if ax.get_visible()]) == 5
    assert all(ax.get_xscale() == "log" for ax in plot.figure.axes if ax.get_visible())
    assert_png(plots.save_figure(plot.figure, tmp_path / "capped.png"))


def visible_tick_labels(ax: Axes, axis: str = "x") -> list[str]:
    """The tick labels a reader sees: drawn, non-empty, inside the axis's view."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = ax.get_figure()
    assert isinstance(figure, Figure)
    FigureCanvasAgg(figure).draw()
    which = ax.xaxis if axis == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    index = 0 if axis == "x" else 1
    return [
        label.get_text()
        for label in which.get_ticklabels(which="both")
        if label.get_text() and lo <= label.get_position()[index] <= hi
    ]


@pytest.mark.parametrize("kind", ["ecdf", "kde"])
def test_histogram_log_x_keeps_its_tick_labels(kind: str) -> None:
    # Sample times within less than a decade (as most states' are) hold no decade and at
    # most one minor tick of a log axis: the axis was left without a number (issue 15).
    rng = np.random.default_rng(3)
    spans = [(3.1e-6, 3.3e-6), (5.7e-6, 6.4e-6), (1.2e-10, 1.27e-10), (148.0, 156.0)]
    states = [
        plots.StateSamples(
            "bench",
            f"S={index}",
            "",
            tuple(
                (label, rng.uniform(lo, hi, 500) * shift)
                for label, shift in (("ref.json", 1.0), ("cmp.json", 1.01))
            ),
        )
        for index, (lo, hi) in enumerate(spans)
    ]
    wide = plots.StateSamples("bench", "S=wide", "", (("ref.json", np.geomspace(1e-6, 1e-3, 99)),))
    plot = plots.histogram_figure([*states, wide], kind=kind, log_x=True)
    axes = [ax for ax in plot.figure.axes if ax.get_visible()]
    assert all(ax.get_xscale() == "log" for ax in axes)
    labels = [visible_tick_labels(ax) for ax in axes]
    assert all(len(shown) >= 2 for shown in labels), labels
    assert all(text.endswith(("ns", "us", "ms", " s")) for text in labels[0]), labels[0]
    assert {"1 us", "10 us", "100 us"} <= set(labels[-1])  # decades stay decades


def test_along_plot_of_close_times_keeps_its_time_labels() -> None:
    points = tuple(
        along.AlongPoint(
            x, f"{x:g}", 3.10e-6 + 1e-9 * i, 3.12e-6 + 1e-9 * i, None, None, Status.SAME
        )
        for i, x in enumerate((1.0, 2.0, 4.0, 8.0))
    )
    chart = along.AlongChart(0, "bench", 0, 0, "", "N", True, (along.AlongSeries("", points),))
    with style.plot_style(False):
        figure = along._draw_along(chart, False, Figure)
    assert len(visible_tick_labels(only_axes(figure), "y")) >= 2


@pytest.mark.parametrize("extreme", [1e300, 5e-324])
def test_along_plot_of_axis_values_whose_range_overflows(extreme: float, tmp_path: Path) -> None:
    # A float axis value of 1e300 or 5e-324 next to 1e-7 and 1: the margins of the log
    # axis (a ratio of the ends to a power) overflowed to inf and matplotlib refused the
    # limits ("Axis limits cannot be NaN or Inf"), after an overflow warning of its own.
    points = tuple(
        along.AlongPoint(x, f"{x:g}", 3e-6 * (i + 1), 3.1e-6 * (i + 1), None, None, Status.SAME)
        for i, x in enumerate(sorted((1e-7, 1.0, extreme)))
    )
    chart = along.AlongChart(0, "bench", 0, 0, "", "N", False, (along.AlongSeries("", points),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with style.plot_style(False):
            figure = along._draw_along(chart, False, Figure)
        left, right = only_axes(figure).get_xlim()
        assert 0 < left <= min(p.x for p in points) and max(p.x for p in points) <= right
        assert math.isfinite(right)
        assert_png(plots.save_figure(figure, tmp_path / "along.png"))
    # Tick labels are thinned in logarithms: the labels of 1e-7 and 1, close together on
    # such an axis, do not both print (beside 5e-324 they printed over each other).
    assert len(visible_tick_labels(only_axes(figure), "x")) == 2


def test_along_title_puts_the_fixed_axes_on_a_second_line() -> None:
    point = along.AlongPoint(1.0, "1", 3e-6, 3e-6, None, None, Status.SAME)
    chart = along.AlongChart(
        0, "bench", 0, 0, "[0] GPU", "N", False, (along.AlongSeries("", (point,)),), "M=1"
    )
    with style.plot_style(False):
        figure = along._draw_along(chart, False, Figure)
    assert only_axes(figure).get_title() == "bench — [0] GPU\nM=1"


def test_histogram_rejects_nothing_to_draw() -> None:
    with pytest.raises(ValueError, match="no states"):
        plots.histogram_figure([])


def test_ecdf_points() -> None:
    x, y = plots.ecdf_points(np.array([3.0, 1.0, 2.0]))
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert y.tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])
    big = np.arange(100_000, dtype=np.float64)
    x, y = plots.ecdf_points(big, limit=1000)
    assert len(x) == 1000 and x[0] == 0 and x[-1] == 99_999 and y[-1] == 1.0


def test_gaussian_kde_integrates_to_one_and_peaks_at_the_mode() -> None:
    rng = np.random.default_rng(1)
    for n in (500, 50_000):  # exact and binned paths
        samples = rng.normal(5e-6, 1e-7, n)
        grid = np.linspace(4e-6, 6e-6, 2001)
        density = plots.gaussian_kde(samples, grid)
        area = float(np.sum((density[1:] + density[:-1]) / 2 * np.diff(grid)))
        assert area == pytest.approx(1.0, abs=0.01)
        assert grid[np.argmax(density)] == pytest.approx(5e-6, rel=0.01)


def test_gaussian_kde_of_identical_samples_is_a_spike() -> None:
    grid = np.linspace(0.5, 1.5, 1001)
    density = plots.gaussian_kde(np.full(50, 1.0), grid)
    assert grid[np.argmax(density)] == pytest.approx(1.0)
    assert np.all(np.isfinite(density))


@pytest.mark.parametrize("n", [50, 50_000])
def test_gaussian_kde_of_many_identical_microsecond_samples_is_a_spike(n: int) -> None:
    # Past 10,000 samples the values are binned first; numpy bins identical values over
    # [v - 0.5, v + 0.5], so 5 us samples landed in a bin at 244 us and the panel of a state
    # timed at a coarse timer's one value (nvbench-histogram --kind kde) drew nothing.
    grid = np.linspace(5e-6 - 2e-8, 5e-6 + 2e-8, 257)
    density = plots.gaussian_kde(np.full(n, 5e-6), grid)
    assert grid[np.argmax(density)] == pytest.approx(5e-6)
    area = float(np.sum((density[1:] + density[:-1]) / 2 * np.diff(grid)))
    assert area == pytest.approx(1.0, abs=0.01)


def test_unique_labels() -> None:
    assert plots.unique_labels(["a/ref.json", "b/cmp.json"]) == ["ref.json", "cmp.json"]
    assert plots.unique_labels(["x/run1/bench.json", "x/run2/bench.json"]) == [
        "run1/bench.json",
        "run2/bench.json",
    ]
    assert plots.unique_labels(["same.json", "same.json"]) == ["same.json", "same.json"]


# ---------------------------------------------------------------------------------------------
# Files, templates, display


def test_save_figure_is_atomic_and_follows_the_extension(tmp_path: Path) -> None:
    figure = Figure()
    figure.add_subplot().plot([1, 2], [3, 4])
    (tmp_path / "deep" / "dir").mkdir(parents=True)
    png = plots.save_figure(figure, tmp_path / "deep" / "dir" / "plot.png")
    assert_png(png)
    svg = plots.save_figure(figure, tmp_path / "plot.svg")
    assert svg.read_text().lstrip().startswith("<?xml")
    bare = plots.save_figure(figure, tmp_path / "plot")
    assert bare.read_bytes()[:8] == PNG_MAGIC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "plot", "plot.svg"]


def test_save_figure_gives_normal_permissions(tmp_path: Path) -> None:
    import os

    figure = Figure()
    figure.add_subplot()
    umask = os.umask(0o022)
    try:
        fresh = plots.save_figure(figure, tmp_path / "fresh.png")
    finally:
        os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o644
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"old")
    kept.chmod(0o600)
    plots.save_figure(figure, kept)
    assert kept.stat().st_mode & 0o777 == 0o600


def test_save_figure_leaves_no_partial_file(tmp_path: Path) -> None:
    class Broken(Figure):
        def savefig(self, *args: object, **kwargs: object) -> None:
            Path(str(args[0])).write_bytes(b"half")
            raise RuntimeError("disk full")

    target = tmp_path / "plot.png"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        plots.save_figure(Broken(), target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["plot.png"]


def test_image_format() -> None:
    assert plots.image_format("a.PNG") == "png"
    assert plots.image_format("a.pdf") == "pdf"
    assert plots.image_format("noext") == "png"
    with pytest.raises(ValueError, match=r"cannot write image format '\.xyz'"):
        plots.image_format("a.xyz")


def test_output_paths_copy_n(tmp_path: Path) -> None:
    paths = plots.OutputPaths()
    first, warning = paths.claim(tmp_path / "plot.png")
    assert first == tmp_path / "plot.png" and warning is None
    (tmp_path / "plot-copy-1.png").write_bytes(b"from an earlier run")
    second, warning = paths.claim(tmp_path / "plot.png")
    assert second == tmp_path / "plot-copy-2.png"  # copy-1 is on disk
    assert warning is not None and "plot-copy-2.png" in warning
    third, _ = paths.claim(tmp_path / "sub" / ".." / "plot.png")
    assert third.name == "plot-copy-3.png"
    other, warning = paths.claim(tmp_path / "other.png")
    assert other == tmp_path / "other.png" and warning is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Elements{io}", "Elements_io"),
        ("copy bench/fast", "copy_bench_fast"),
        ("..hidden..", "hidden"),
        ("-x-", "x"),
        ("", "value"),
        ("///", "value"),
        ("naïve µs", "na_ve_s"),
        ("a.b", "a_b"),
    ],
)
def test_sanitize_field(text: str, expected: str) -> None:
    assert plots.sanitize_field(text) == expected


def test_expand_template_sanitizes_every_field() -> None:
    fields = {"benchmark": "../etc/passwd", "device": "0", "axis": "Elements{io}", "pair": "1"}
    expanded = plots.expand_template("out/{benchmark}_{device}_{axis}_{pair}.png", fields)
    assert expanded == "out/etc_passwd_0_Elements_io_1.png"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "{bench}.png",
            "supports template fields {axis}, {benchmark}, {device}, {pair}; got {bench}",
        ),
        ("{}.png", "got {}"),
        ("{0}.png", "got {0}"),
        ("{device:>3}.png", "got {device:>3}"),
        ("{axis!r}.png", "got {axis!r}"),
        ("{benchmark.name}.png", "got {benchmark.name}"),
        ("{benchmark.png", "template is invalid"),
        ("benchmark}.png", "template is invalid"),
        ("", "empty"),
    ],
)
def test_check_template_rejects(template: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        plots.check_template(template)
    assert message in str(caught.value)


def test_check_template_accepts_fields_and_escaped_braces() -> None:
    plots.check_template("plots/{benchmark}-{device}-{axis}-{pair}.png")
    plots.check_template("static.png")
    assert plots.expand_template("{{x}}_{axis}.png", {"axis": "N", "benchmark": "b"}) == (
        "{x}_N.png"
    )


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", False),
        ({"DISPLAY": ":0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
        ({"DISPLAY": ""}, "linux", False),
        ({}, "darwin", True),
        ({}, "win32", True),
        ({"DISPLAY": ":0", "MPLBACKEND": "Agg"}, "linux", False),
        ({"MPLBACKEND": "pdf"}, "darwin", False),
        ({"DISPLAY": ":0", "MPLBACKEND": "TkAgg"}, "linux", True),
    ],
)
def test_has_display(environ: dict[str, str], platform: str, expected: bool) -> None:
    assert plots.has_display(environ, platform) is expected


def test_duration_tick_labels() -> None:
    assert style.duration_tick(2.5e-6) == "2.5 us"
    assert style.duration_tick(1e-3) == "1 ms"
    assert style.duration_tick(0.0) == ""
    formatter = style.duration_formatter(log=False)
    assert formatter.format_ticks([5.02e-6, 5.04e-6, 5.06e-6]) == [
        "5.02 us",
        "5.04 us",
        "5.06 us",
    ]
    assert style.duration_formatter(log=True).format_ticks([1e-7, 1e-6, 1e-2]) == [
        "100 ns",
        "1 us",
        "10 ms",
    ]


def test_duration_tick_labels_of_absurd_magnitudes_stay_short() -> None:
    # A side file holding one 3e38 s sample (float32's largest) drew the histogram's time
    # axis as 39-digit numbers run together ("799999...136 s"); samples of 1e-45 s (the
    # smallest float32) drew every tick as "0.000000 ns".
    formatter = style.duration_formatter(log=False)
    assert formatter.format_ticks([0.0, 1e38, 2e38, 3e38]) == [
        "0 s",
        "1e+38 s",
        "2e+38 s",
        "3e+38 s",
    ]
    assert formatter.format_ticks([-2e-21, 0.0, 2e-21]) == ["-2e-12 ns", "0 ns", "2e-12 ns"]


def test_thinned_labels_drop_colliding_text() -> None:
    xs = [1e-4 * k for k in range(1, 11)]
    labels = along._thinned_labels(xs, [f"{x:g}" for x in xs], width=10.0)
    assert labels[0] == "0.0001" and labels[-1] == "0.001"
    assert "" in labels
    sparse = along._thinned_labels([1.0, 16.0, 256.0], ["2^0", "2^4", "2^8"], width=10.0)
    assert sparse == ["2^0", "2^4", "2^8"]


def test_importing_plots_does_not_import_matplotlib() -> None:
    import subprocess
    import sys

    code = "import sys, cuda.bench.report.plots; print('matplotlib' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_interactive_backend_is_none_under_agg() -> None:
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    assert plots.interactive_backend() is None
    assert plt.get_fignums() == before  # the probe figure is closed again


def test_along_cpu_only_benchmark_names_its_device_cpu(cpu_dir: Path, tmp_path: Path) -> None:
    comparison = compare(cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json")
    drawn, notes = plots.along_figures(comparison, "Elements")
    assert [plot.chart.template_fields["device"] for plot in drawn] == ["cpu"]
    assert drawn[0].chart.device == ""
    assert [s.label for s in drawn[0].chart.series] == ["Mode=spin", "Mode=sleep"]
    assert_series_lines(drawn[0].figure, 2)
    assert any("'tiny' has no axis 'Elements'" in note for note in notes)
    assert_png(plots.save_figure(drawn[0].figure, tmp_path / "cpu.png"))


def test_bwutil_labels_show_control_characters() -> None:
    # Every other plot writes names through visible(); the bandwidth bars wrote theirs raw
    # (a newline split a tick label, an escape sequence drew as a box).
    from cuda.bench.report.plots.bwutil import BandwidthBar, bwutil_figure

    name = "copy\n\x1b[31mred"
    figure = bwutil_figure([BandwidthBar(f"{name} | T=F32", 0.5, name, None)])
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert labels == ["copy\\n\\x1b[31mred | T=F32"]


def test_bwutil_of_several_files_names_each_file_in_a_legend(
    gpu_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder of two runs drew two identical sets of labels, one colour, no legend: which
    # bars were which run could not be told. Names as typed (a relative folder here), and
    # drawn as text: an escape shown, "$...$" no mathtext, a leading "_" not hidden.
    import shutil

    from cuda.bench.report.plots.bwutil import bwutil_bars, bwutil_figure
    from cuda.bench.report.walltime import find_result_files, read_result_file

    runs = tmp_path / "runs"
    runs.mkdir()
    names = ["_a$x$.json", "b\x1b[31m.json"]
    for name, source in zip(names, ("gpu_ref_nosidecar.json", "gpu_cmp_plain.json"), strict=True):
        shutil.copyfile(gpu_dir / source, runs / name)
    monkeypatch.chdir(tmp_path)
    files = find_result_files(["runs"], {}, {})
    bars = bwutil_bars([read_result_file(path) for path in files])
    figure = bwutil_figure(bars)
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == [
        "runs/_a$x$.json",
        "runs/b\\x1b[31m.json",
    ]
    # Each file's bars in its legend entry's colour, and the two files' colours differ.
    patches = figure.axes[0].patches
    assert len(patches) == len(bars) == 24
    colors = [to_hex(patch.get_facecolor()) for patch in patches]
    # legend_handles from matplotlib 3.7 on; the plot extra allows 3.6 (legendHandles).
    drawn = getattr(legend, "legend_handles", None) or legend.legendHandles
    handles = [to_hex(handle.get_facecolor()) for handle in drawn]
    assert colors == [handles[0]] * 12 + [handles[1]] * 12 and handles[0] != handles[1]
    # One file: the bars keep their colour per benchmark and need no legend.
    assert bwutil_figure(bars[:12]).legends == []


def test_bwutil_long_labels_are_cut_and_widen_the_figure() -> None:
    # The bars drew every character of a name: a 20,000-character benchmark name took
    # 45 s to lay out and collapsed the bars to nothing ("axes sizes collapsed to zero"),
    # and a 110-character label squeezed them to a sliver at the default 10 inches.
    from cuda.bench.report.plots.bwutil import BandwidthBar, bwutil_figure
    from cuda.bench.report.plots.labels import LABEL_LIMIT

    bars = [BandwidthBar("x" * 20_000 + " | T=A", 0.5, "x", None)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the command would print matplotlib's as a line
        figure = bwutil_figure(bars)
        figure.canvas.draw()
    (label,) = [text.get_text() for text in figure.axes[0].get_yticklabels()]
    assert len(label) == LABEL_LIMIT and label.endswith("…")
    assert figure.get_figwidth() > 10
    # The bars keep at least half the figure's width beside a 110-character label.
    figure = bwutil_figure([BandwidthBar("b" * 100 + " | T=F32", 0.5, "b", None)])
    figure.canvas.draw()
    assert figure.axes[0].get_position().width > 0.5


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e308])
def test_bwutil_figure_never_raises_on_a_bar_of_any_float(value: float) -> None:
    # A hand-made bar of 1e308 set an infinite axis limit: matplotlib's ValueError.
    from cuda.bench.report.plots.bwutil import BandwidthBar, bwutil_figure

    bars = [BandwidthBar("b | T=A", 0.5, "b", None), BandwidthBar("b | T=B", value, "b", None)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the command would print matplotlib's as a line
        figure = bwutil_figure(bars)
        figure.canvas.draw()
    assert figure.axes[0].get_xlim() == (0.0, 100.0)


def _title_overlaps(plot: plots.HistogramPlot) -> list[tuple[int, int]]:
    """Pairs of panels whose titles overlap once drawn (Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(plot.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    figure = plot.figure
    boxes = [ax.title.get_window_extent(renderer) for ax in figure.axes if ax.get_visible()]
    return [
        (i, j)
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]


@pytest.mark.parametrize(("kind", "log_x"), [("ecdf", False), ("kde", True)])
def test_histogram_titles_break_lines_and_fit_their_panels(kind: str, log_x: bool) -> None:
    # On real data the titles read "copy_bench [0] NVIDIA H100 80GB HBM3\nT=F32 ..." with a
    # literal backslash-n (the tool's own line break escaped as if it were a name's) and
    # ran into each other; a name's own newline must still show as an escape.
    samples = np.linspace(3.0e-6, 3.3e-6, 200)
    device = "[0] NVIDIA H100 80GB HBM3"
    states = [
        plots.StateSamples(
            "copy_bench", f"T=F32 Elements=2^{n} Layout=contiguous", device, (("r", samples),)
        )
        for n in (16, 20)
    ]
    states.append(plots.StateSamples("evil\nbench", "T=F32", device, (("r", samples),)))
    decades = np.geomspace(1e-6, 1e-3, 99)  # labelled minor ticks on a log axis
    states.append(plots.StateSamples("wide", "S=1", device, (("r", decades),)))
    plot = plots.histogram_figure(states, kind=kind, log_x=log_x)
    titles = [ax.get_title() for ax in plot.figure.axes if ax.get_visible()]
    assert titles[0].split("\n") == [
        "copy_bench [0] NVIDIA H100 80GB HBM3",
        "T=F32 Elements=2^16 Layout=contiguous",
    ]
    assert all("\\n" not in title for title in titles[:2])
    assert titles[2].split("\n")[0] == "evil\\nbench [0] NVIDIA H100 80GB HBM3"
    assert _title_overlaps(plot) == []
    # One size for every tick label of a panel (minor log-axis labels were larger).
    sizes = {
        label.get_fontsize()
        for ax in plot.figure.axes
        for label in ax.xaxis.get_ticklabels(which="both")
        if label.get_text()
    }
    assert len(sizes) == 1, sizes


def test_histogram_titles_shorten_a_very_long_name() -> None:
    samples = np.linspace(3.0e-6, 3.3e-6, 200)
    long = "x" * 400
    states = [plots.StateSamples(long, f"S={n}", "", (("r", samples),)) for n in range(3)]
    plot = plots.histogram_figure(states)
    titles = [ax.get_title() for ax in plot.figure.axes]
    assert all(len(line) < 80 for title in titles for line in title.split("\n"))
    assert _title_overlaps(plot) == []
