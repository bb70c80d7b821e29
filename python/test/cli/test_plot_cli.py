"""Plots from the command line: ``nvbench_compare --plot/--plot-along`` and ``nvbench-histogram``.

Checks the files written (valid PNGs, names from templates, ``-copy-N``), that no window can
open (Agg backend, ``plt.show`` never called) unless asked for, the notes on stderr, the
usage errors, and the install hint when matplotlib is missing.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import compare as compare_cli
from cuda.bench.cli import histogram as histogram_cli
from cuda.bench.report import plots
from matplotlib.figure import Figure

_REPO = Path(__file__).resolve().parents[3]
_EXAMPLES = _REPO / "python" / "examples" / "data"
_HISTOGRAM_SCRIPT = _REPO / "python" / "scripts" / "nvbench_histogram.py"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_compare(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(compare_cli.main, capsys, *args)


def run_histogram(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(histogram_cli.main, capsys, *args)


def assert_png(path: Path) -> None:
    import matplotlib.image

    assert path.is_file(), path
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert matplotlib.image.imread(path).shape[0] > 100


@pytest.fixture(autouse=True)
def no_windows(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Record (and refuse) any plt.show(); start every test without a display."""
    shown: list[object] = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append((a, k)))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    yield shown
    plt.close("all")


@pytest.fixture()
def gpu(gpu_dir: Path) -> tuple[Path, Path]:
    return gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json"


@pytest.fixture()
def example() -> tuple[Path, Path]:
    return _EXAMPLES / "ref.json", _EXAMPLES / "cmp.json"


# ---------------------------------------------------------------------------------------------
# nvbench_compare --plot


def test_plot_output_writes_a_png_without_a_window(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    no_windows: list[object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Even with a display, an output path means no window.
    monkeypatch.setenv("DISPLAY", ":0")
    target = tmp_path / "out" / "summary.png"
    target.parent.mkdir()
    result = run_compare(capsys, *gpu, "--method", "robust", "--plot", "--plot-output", target)
    assert result.code == 0, result.err
    assert result.out.startswith("# copy_bench")  # the table still prints
    assert result.err == ""
    assert_png(target)
    assert matplotlib.get_backend().lower() == "agg"
    assert no_windows == []
    assert [p.name for p in target.parent.iterdir()] == ["summary.png"]  # no temp files


def test_plot_without_display_writes_the_default_file(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    tmp_path: Path,
    no_windows: list[object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_compare(capsys, *example, "--plot", "--dark")
    assert result.code == 0, result.err
    assert_png(tmp_path / "nvbench_compare.png")
    assert "no display: wrote the --plot chart to nvbench_compare.png" in result.err
    assert no_windows == []


def test_plot_with_a_display_shows_one_window_per_figure(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[Figure] = []
    shown: list[int] = []

    def figure(**kwargs: object) -> Figure:
        made.append(Figure(**kwargs))  # type: ignore[arg-type]
        return made[-1]

    fake = SimpleNamespace(figure=figure, show=lambda: shown.append(len(made)))
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(plots, "interactive_backend", lambda: fake)
    monkeypatch.chdir(tmp_path)
    result = run_compare(capsys, *gpu, "--plot", "--plot-along", "Elements")
    assert result.code == 0, result.err
    assert len(made) == 3  # one summary, two along (copy_bench on two devices)
    assert shown == [3]  # one blocking show() at the end
    assert list(tmp_path.iterdir()) == []


def test_a_display_without_gui_backend_falls_back_to_files(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_windows: list[object],
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(plots, "interactive_backend", lambda: None)
    monkeypatch.chdir(tmp_path)
    result = run_compare(capsys, *example, "--plot")
    assert result.code == 0, result.err
    assert "no interactive backend" in result.err
    assert_png(tmp_path / "nvbench_compare.png")
    assert no_windows == []


# ---------------------------------------------------------------------------------------------
# nvbench_compare --plot-along


def test_plot_along_template_names_one_file_per_benchmark_and_device(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    template = str(tmp_path / "along" / "{benchmark}-{device}-{axis}-{pair}.png")
    (tmp_path / "along").mkdir()
    result = run_compare(capsys, *gpu, "--plot-along", "Elements", "--plot-along-output", template)
    assert result.code == 0, result.err
    names = sorted(p.name for p in (tmp_path / "along").iterdir())
    assert names == ["copy_bench-0-Elements-0.png", "copy_bench-1-Elements-1.png"]
    for name in names:
        assert_png(tmp_path / "along" / name)
    # misc has no Elements axis: skipped with a note, the run still succeeds.
    assert "benchmark 'misc' has no axis 'Elements'; skipped" in result.err
    assert matplotlib.get_backend().lower() == "agg"


def test_an_n_way_plot_along_notes_a_benchmark_without_the_axis_once(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    # The note came once per device of the benchmark (twice on these two-GPU runs).
    template = str(tmp_path / "{benchmark}-{device}.png")
    result = run_compare(
        capsys, *gpu, gpu[0], "--plot-along", "Ratio", "--plot-along-output", template
    )
    assert result.code == 0, result.err
    assert result.err.count("benchmark 'copy_bench' has no axis 'Ratio'; skipped") == 1


@pytest.mark.parametrize(("value", "text"), [(1e300, "1e+300"), (5e-324, "4.9407e-324")])
def test_plot_along_a_float_axis_value_at_the_ends_of_the_floats(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    value: float,
    text: str,
) -> None:
    # misc's Ratio 123456.789 made 1e300 (or 5e-324) in both runs: an overflow warning,
    # then "ValueError: Axis limits cannot be NaN or Inf", exit 1, after the JSON report.
    pair = []
    for side, path in zip(("ref", "cmp"), gpu, strict=True):
        document = json.loads(path.read_text())
        misc = next(bench for bench in document["benchmarks"] if bench["name"] == "misc")
        for axis in misc["axes"]:
            for entry in axis["values"]:
                if entry.get("value") == 123456.789:
                    entry["value"], entry["input_string"] = value, repr(value)
        for state in misc["states"]:
            for entry in state["axis_values"]:
                if entry["name"] == "Ratio" and entry["value"] == "123456.789":
                    entry["value"] = repr(value)
                    state["name"] = state["name"].replace("1.2346e+05", text)
        pair.append(tmp_path / f"{side}.json")
        pair[-1].write_text(json.dumps(document))
    template = str(tmp_path / "p_{device}.png")
    result = run_compare(
        capsys, *pair, "-b", "misc", "--plot-along", "Ratio", "--plot-along-output", template
    )
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "overflow" not in result.err, result.err
    for device in (0, 1):
        assert_png(tmp_path / f"p_{device}.png")


def test_plot_along_field_values_are_sanitized(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import numpy as np
    from cuda.bench.results import DeviceSpec, Pow2Axis, ResultBuilder

    for side in ("ref", "cmp"):
        builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
        bench = builder.benchmark("copy<T>::run", axes=[Pow2Axis("Elements{io}", [10, 12])])
        for exponent in (10, 12):
            bench.state(
                {"Elements{io}": 2**exponent},
                gpu_times=np.linspace(1e-6, 1.1e-6, 50) * exponent,
                frequencies=np.full(50, 1.7e9),
            )
        builder.write(tmp_path / f"{side}.json")
    result = run_compare(
        capsys,
        tmp_path / "ref.json",
        tmp_path / "cmp.json",
        "--plot-along",
        "Elements{io}",
        "--plot-along-output",
        str(tmp_path / "{benchmark}.{axis}.png"),
    )
    assert result.code == 0, result.err
    assert_png(tmp_path / "copy_T_run.Elements_io.png")


def test_same_output_path_twice_gets_copy_n(
    capsys: pytest.CaptureFixture[str], gpu: tuple[Path, Path], tmp_path: Path
) -> None:
    (tmp_path / "along-copy-1.png").write_bytes(b"left by an earlier run")
    result = run_compare(
        capsys,
        *gpu,
        "--plot-along",
        "Elements",
        "--plot-along-output",
        str(tmp_path / "along.png"),
    )
    assert result.code == 0, result.err
    assert_png(tmp_path / "along.png")
    assert_png(tmp_path / "along-copy-2.png")
    assert (tmp_path / "along-copy-1.png").read_bytes() == b"left by an earlier run"
    warnings = [line for line in result.err.splitlines() if "warning:" in line]
    assert len(warnings) == 1
    assert "along.png' was already written in this run" in warnings[0]
    assert "along-copy-2.png" in warnings[0]


def test_mixed_plot_outputs_all_go_to_files(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_windows: list[object],
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.chdir(tmp_path)
    result = run_compare(
        capsys,
        *gpu,
        "--plot",
        "--plot-along",
        "Elements",
        "--plot-along-output",
        "along_{device}.png",
    )
    assert result.code == 0, result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "along_0.png",
        "along_1.png",
        "nvbench_compare.png",
    ]
    assert "other plots of this run go to files: wrote the --plot chart" in result.err
    assert no_windows == []


def test_plot_and_threshold_diff(
    capsys: pytest.CaptureFixture[str], example: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "big.svg"
    result = run_compare(
        capsys, *example, "--threshold-diff", "5", "--plot", "--plot-output", target
    )
    assert result.code == 0, result.err
    text = target.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text


# ---------------------------------------------------------------------------------------------
# Usage errors: one line, exit 2, before any comparison output


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--plot-output", "x.png"], ["--plot-output requires --plot"]),
        (["--plot-along-output", "x.png"], ["--plot-along-output requires --plot-along"]),
        (["--plot-along", " "], ["--plot-along", "non-empty axis name"]),
        (
            ["--plot-along", "N", "--plot-along-output", "{bench}.png"],
            ["--plot-along-output", "supports template fields", "got {bench}"],
        ),
        (
            ["--plot-along", "N", "--plot-along-output", "{benchmark.png"],
            ["template is invalid"],
        ),
        (["--plot", "--plot-output", "x.xyz"], ["--plot-output", "'.xyz'"]),
        (["--plot", "--plot-output", ""], ["--plot-output needs a file path"]),
        # Before, a PNG file named "-" was written into the working directory.
        (["--plot", "--plot-output", "-"], ["--plot-output: '-' is not an image path"]),
        (["--plot-along", "Elements", "--plot-along-output", "-"], ["'-' is not an image path"]),
        (
            ["--plot", "--plot-output", "same.png", "--markdown", "same.png"],
            ["--markdown and --plot-output both write 'same.png'"],
        ),
    ],
)
def test_plot_usage_errors(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needles: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_compare(capsys, *example, *args)
    assert_usage_error(result, *needles)
    assert result.out == ""
    assert list(tmp_path.iterdir()) == []


def test_plot_output_directory_is_an_error(
    capsys: pytest.CaptureFixture[str], example: tuple[Path, Path], tmp_path: Path
) -> None:
    result = run_compare(capsys, *example, "--plot", "--plot-output", tmp_path)
    assert_usage_error(result, "is a directory")


def _hide_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import matplotlib`` fail the way it does when it is not installed."""
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_missing_matplotlib_is_a_one_line_hint(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hide_matplotlib(monkeypatch)
    result = run_compare(capsys, *example, "--plot")
    assert_usage_error(
        result,
        "matplotlib is needed",
        "python -m pip install '.[plot]' (from the nvbench-tools checkout's root)",
    )
    assert result.out == ""  # checked before the comparison runs


def test_missing_matplotlib_histogram(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hide_matplotlib(monkeypatch)
    result = run_histogram(capsys, *example, "-o", "x.png")
    assert_usage_error(result, "matplotlib is needed", "pip install '.[plot]' (from the nvbench-")


def test_without_plot_options_matplotlib_is_not_needed(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _hide_matplotlib(monkeypatch)
    result = run_compare(capsys, *example)
    assert result.code == 0, result.err


# ---------------------------------------------------------------------------------------------
# nvbench-histogram


def test_histogram_typical_call(
    capsys: pytest.CaptureFixture[str],
    gpu: tuple[Path, Path],
    tmp_path: Path,
    no_windows: list[object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    target = tmp_path / "hist.png"
    result = run_histogram(capsys, *gpu, "-b", "copy_bench", "-a", "T=F32", "-o", target)
    assert result.code == 0, result.err
    # One line saying where the picture went (issue #28), nothing else.
    assert (
        result.out == "" and result.err == f"nvbench-histogram: wrote the histogram to {target}\n"
    )
    assert_png(target)
    assert matplotlib.get_backend().lower() == "agg"
    assert no_windows == []


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[plots.HistogramPlot]:
    """Every figure the histogram command makes (it still makes and saves them)."""
    figures: list[plots.HistogramPlot] = []
    original = plots.histogram_figure

    def spy(*args: object, **kwargs: object) -> plots.HistogramPlot:
        figures.append(original(*args, **kwargs))  # type: ignore[arg-type]
        return figures[-1]

    monkeypatch.setattr(plots, "histogram_figure", spy)
    return figures


@pytest.mark.parametrize("kind", ["ecdf", "kde"])
def test_histogram_draws_both_files_per_state(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    tmp_path: Path,
    kind: str,
    captured: list[plots.HistogramPlot],
) -> None:
    target = tmp_path / f"{kind}.png"
    result = run_histogram(capsys, *example, "--kind", kind, "--log-x", "-b", "scan", "-o", target)
    assert result.code == 0, result.err
    assert_png(target)
    (plot,) = captured
    assert len(plot.states) == 6
    for ax in (ax for ax in plot.figure.axes if ax.get_visible()):
        labels = [str(line.get_label()) for line in ax.get_lines()]
        assert [label for label in labels if not label.startswith("_")] == [
            "ref.json",
            "cmp.json",
        ]
        assert ax.get_xscale() == "log"


def test_histogram_caps_states_with_a_note(
    capsys: pytest.CaptureFixture[str], example: tuple[Path, Path], tmp_path: Path
) -> None:
    result = run_histogram(capsys, *example, "--max-states", "4", "-o", tmp_path / "h.png")
    assert result.code == 0, result.err
    assert "drew the first 4 of 12 states" in result.err
    assert_png(tmp_path / "h.png")


def test_histogram_notes_and_skips_states_without_side_files(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    result = run_histogram(
        capsys,
        gpu_dir / "gpu_ref.json",
        gpu_dir / "gpu_ref_nosidecar.json",
        "-b",
        "misc",
        "-o",
        tmp_path / "h.png",
    )
    assert result.code == 0, result.err
    assert "gpu_ref_nosidecar.json: 8 states have no sample times" in result.err
    assert_png(tmp_path / "h.png")


def test_histogram_same_file_names_get_their_directory(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    tmp_path: Path,
    captured: list[plots.HistogramPlot],
) -> None:
    for run in ("run1", "run2"):
        (tmp_path / run).mkdir()
        source = example[0] if run == "run1" else example[1]
        # Same JSON name in both directories; side-file paths stay as recorded.
        shutil.copy(source, tmp_path / run / "bench.json")
        for suffix in ("-bin", "-freqs-bin"):
            side = source.parent / f"{source.name}{suffix}"
            shutil.copytree(side, tmp_path / run / side.name)
    result = run_histogram(
        capsys,
        tmp_path / "run1" / "bench.json",
        tmp_path / "run2" / "bench.json",
        "-b",
        "scan",
        "-a",
        "T=I32",
        "-o",
        tmp_path / "h.png",
    )
    assert result.code == 0, result.err
    assert result.err == f"nvbench-histogram: wrote the histogram to {tmp_path / 'h.png'}\n"
    assert_png(tmp_path / "h.png")
    legend = captured[0].figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["run1/bench.json", "run2/bench.json"]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        ([], ["no input files"]),
        (["{ref}", "-b", "nope", "-o", "h.png"], ["-b nope: no such benchmark"]),
        (["{ref}", "-a", "T=F99", "-o", "h.png"], ["T=F99"]),
        (["{ref}", "-o", "h.txt"], ["--output", "'.txt'"]),
        (["{ref}", "--kind", "violin"], ["invalid choice"]),
        (["{ref}", "--max-states", "0"], ["positive integer"]),
        (["{ref}", "-o", "-"], ["'-' is not an image path"]),
        (["missing.json", "-o", "h.png"], ["missing.json", "no such file"]),
        (["{old}", "-o", "h.png"], ["no selected state has sample times"]),
    ],
)
def test_histogram_errors(
    capsys: pytest.CaptureFixture[str],
    example: tuple[Path, Path],
    upstream_2021_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needles: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    filled = [arg.format(ref=example[0], old=upstream_2021_dir / "ref.json") for arg in args]
    result = run_histogram(capsys, *filled)
    assert result.code == 2, result.err
    errors = [line for line in result.err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "Traceback" not in result.err
    for needle in needles:
        assert needle in errors[0], errors[0]
    assert list(tmp_path.iterdir()) == []


def test_histogram_script_and_entry_point(example: tuple[Path, Path], tmp_path: Path) -> None:
    env_python = sys.executable
    target = tmp_path / "script.png"
    done = subprocess.run(
        [env_python, str(_HISTOGRAM_SCRIPT), *map(str, example), "-b", "reduce", "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"},
    )
    assert done.returncode == 0, done.stderr
    assert_png(target)
    installed = shutil.which("nvbench-histogram", path=str(Path(sys.executable).parent))
    if installed is None:
        pytest.skip("nvbench-histogram is not installed")
    helped = subprocess.run([installed, "--help"], capture_output=True, text=True, check=False)
    assert helped.returncode == 0 and "--kind" in helped.stdout


@pytest.mark.slow
def test_make_plot_images_regenerates_the_committed_set(tmp_path: Path) -> None:
    script = _REPO / "python" / "examples" / "make_plot_images.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "DISPLAY": ":0"},  # a display must not matter
    )
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in (_REPO / "docs" / "images").glob("*.png"))
    assert made == committed
    for name in made:
        assert_png(tmp_path / name)
    # Every image is shown in docs/plots.md.
    doc = (_REPO / "docs" / "plots.md").read_text()
    assert all(f"(images/{name})" in doc for name in made)


def _broken_side_files(source: Path, target: Path, value: float, names: list[str]) -> Path:
    """A copy of ``source`` and its side files in ``target``, the sample-times files
    ``names`` (all when empty) overwritten with ``value`` (their size kept)."""
    import numpy as np

    shutil.copy(source, target / source.name)
    for suffix in ("-bin", "-freqs-bin"):
        shutil.copytree(Path(f"{source}{suffix}"), target / f"{source.name}{suffix}")
    for side in sorted((target / f"{source.name}-bin").iterdir()):
        if not names or side.name in names:
            count = side.stat().st_size // 4
            np.full(count, value, dtype=np.float32).tofile(side)
    return target / source.name


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (math.nan, "holds non-finite values"),
        (math.inf, "holds non-finite values"),
        (0.0, "holds non-positive or non-finite values"),
        (-1e-6, "holds non-positive or non-finite values"),
    ],
)
def test_histogram_warns_of_and_leaves_out_unusable_side_files(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path, value: float, problem: str
) -> None:
    # The trial: an all-NaN (zero, negative, inf) side file drew an empty panel, exit 0,
    # without a word; nvbench_compare names the file and does not use it.
    path = _broken_side_files(gpu_dir / "gpu_ref.json", tmp_path, value, ["0.bin"])
    out = tmp_path / "h.png"
    result = run_histogram(capsys, path, "-b", "copy_bench", "-o", out)
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if ": warning: " in line]
    side = tmp_path / "gpu_ref.json-bin" / "0.bin"
    assert len(warnings) == 1, result.err
    assert warnings[0].endswith(
        f": warning: {side} (recorded in {path}): {problem}; its per-sample data are not used"
    )
    assert "drew the first" not in result.err
    assert_png(out)
    # With no usable state left: one error line, exit 2.
    all_bad = tmp_path / "all"
    all_bad.mkdir()
    path = _broken_side_files(gpu_dir / "gpu_ref.json", all_bad, value, [])
    result = run_histogram(capsys, path, "-b", "copy_bench", "-o", out)
    assert result.code == 2
    errors = [line for line in result.err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and "usable sample times" in errors[0]
    assert "Traceback" not in result.err
