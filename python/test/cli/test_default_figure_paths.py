"""A figure drawn without an output path goes to its default name in the working directory;
where that lies inside an ``nvbench-history`` archive the run is refused before any work,
as a named output there is (``cli/_plotting.refuse_default_figures``), not after the
comparison or the reading of the runs it would be drawn from."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from _cli_helpers import assert_usage_error, run_main

pytest.importorskip("matplotlib")

_MARKER = '{"format": "nvbench-history-archive", "version": 1}\n'


class _WorkStarted(Exception):
    """Raised by the stand-in for a command's work: the refusal came too late."""


def _no_work(*args: object, **kwargs: object) -> None:
    raise _WorkStarted("the work began before the default figure path was checked")


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An archive (its marker is enough) whose ``runs`` folder is the working directory,
    with no display: figures go to files."""
    root = tmp_path / "archive"
    (root / "runs").mkdir(parents=True)
    (root / "nvbench-archive.json").write_text(_MARKER)
    monkeypatch.chdir(root / "runs")
    monkeypatch.setenv("MPLBACKEND", "agg")
    return root


def _compare_pair(monkeypatch: pytest.MonkeyPatch, gpu: Path) -> tuple[ModuleType, list[str]]:
    from cuda.bench.cli import compare as compare_cli
    from cuda.bench.compare import api

    monkeypatch.setattr(api, "compare", _no_work)
    return compare_cli, [str(gpu / "gpu_ref.json"), str(gpu / "gpu_cmp.json")]


@pytest.mark.parametrize(
    ("flow", "options", "refused"),
    [
        ("pair", ["--plot"], "the --plot chart nvbench_compare.png"),
        (
            "pair",
            ["--plot-along", "Elements"],
            "the --plot-along figure nvbench_compare_{axis}_{benchmark}_{device}.png",
        ),
        # A named chart makes every figure a file: the along figures' default is refused.
        (
            "pair",
            ["--plot", "--plot-output", "{out}", "--plot-along", "Elements"],
            "the --plot-along figure nvbench_compare_{axis}_{benchmark}_{device}.png",
        ),
        ("many", ["--plot-along", "Elements"], "the --plot-along figure nvbench_compare_"),
        ("variants", ["--col", "T", "--plot"], "the --plot chart nvbench_compare.png"),
        ("variants", ["--col", "T", "--plot-along", "Elements"], "the --plot-along figure"),
        ("histogram", [], "the histogram nvbench_histogram.png"),
        ("bwutil", [], "the bandwidth plot "),
    ],
)
def test_a_default_figure_name_inside_an_archive_is_refused_before_any_work(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    archive: Path,
    gpu_dir: Path,
    tmp_path: Path,
    flow: str,
    options: list[str],
    refused: str,
) -> None:
    ref = str(gpu_dir / "gpu_ref.json")
    if flow == "pair":
        main, inputs = _compare_pair(monkeypatch, gpu_dir)
    elif flow in ("many", "variants"):
        from cuda.bench.cli import _compare_many, _compare_variants
        from cuda.bench.cli import compare as main

        monkeypatch.setattr(_compare_many, "many_comparison", _no_work)
        monkeypatch.setattr(_compare_variants, "variant_comparison", _no_work)
        cmp = str(gpu_dir / "gpu_cmp.json")
        inputs = [ref] if flow == "variants" else [ref, cmp, cmp.replace("gpu_cmp", "gpu_ref")]
    else:
        from cuda.bench.cli import histogram, plot_bwutil
        from cuda.bench.report import walltime

        monkeypatch.setattr(walltime, "read_result_file", _no_work)
        main, inputs = (histogram if flow == "histogram" else plot_bwutil), [ref]
    before = sorted(archive.rglob("*"))
    out = str(tmp_path / "chart.png")
    argv = [*inputs, *(out if option == "{out}" else option for option in options)]
    result = run_main(main.main, capsys, *argv)
    assert_usage_error(result, refused, f"inside the archive {archive}")
    assert sorted(archive.rglob("*")) == before
    assert not Path(out).exists()


def test_a_run_whose_figures_open_in_windows_is_not_refused(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    archive: Path,
    gpu_dir: Path,
) -> None:
    # With a display and a window backend nothing is written to the default name, so a
    # working directory inside an archive is no reason to refuse (nor was it before).
    from cuda.bench.report import plots

    monkeypatch.setenv("MPLBACKEND", "")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(plots, "interactive_backend", lambda: ModuleType("pyplot"))
    main, inputs = _compare_pair(monkeypatch, gpu_dir)
    with pytest.raises(_WorkStarted):
        main.main([*inputs, "--plot"])
    capsys.readouterr()
