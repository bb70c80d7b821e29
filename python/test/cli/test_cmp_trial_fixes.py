"""What a new user's trial of the comparison side with hostile inputs found (session 13,
second trial), each fixed and pinned."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import Result, run_main

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


def _copy_run(target: Path, edit: Any = None) -> Path:
    """The example ``ref.json`` and its side files in ``target``; ``edit(document)`` changes
    the JSON (the first state's side-file summaries are ``document["benchmarks"][0]...``)."""
    target.mkdir(parents=True, exist_ok=True)
    for suffix in ("-bin", "-freqs-bin"):
        shutil.copytree(DATA / f"ref.json{suffix}", target / f"ref.json{suffix}")
    document = json.loads((DATA / "ref.json").read_text(encoding="utf-8"))
    if edit is not None:
        edit(document)
    path = target / "ref.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _first_side_file(document: dict[str, Any], field: str, value: str) -> None:
    """Set ``field`` of the first state's sample-time side-file summary to ``value``."""
    for summary in document["benchmarks"][0]["states"][0]["summaries"]:
        if summary["tag"] == "nv/json/bin:nv/cold/sample_times":
            for item in summary["data"]:
                if item["name"] == field:
                    item["value"] = value


# -- 1. nvbench-histogram stopped at one side file it does not read ---------------------------


def _histogram(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    pytest.importorskip("matplotlib")
    from cuda.bench.cli import histogram

    return run_main(histogram.main, capsys, *args)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("filename", "/etc/passwd", "leads outside the JSON file's directory tree"),
        ("filename", "../outside/0.bin", "leads outside the JSON file's directory tree"),
        ("filename", "x\x00y.bin", "is no usable path"),
        ("filename", "ref.json-bin/short.bin", "side file holds 400 bytes, expected 8000"),
    ],
)
def test_histogram_leaves_out_a_side_file_it_does_not_read(
    field: str, value: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One side file outside the JSON's tree, with no usable name or of the wrong size made
    the whole plot exit 2, where a missing or NaN one leaves its state out with a warning
    (docs/security.md, docs/plots.md) and nvbench_compare goes on from the summaries."""
    run = _copy_run(tmp_path / "run", lambda doc: _first_side_file(doc, field, value))
    # A side file of 100 values where the JSON records 2000.
    (run.parent / "ref.json-bin" / "short.bin").write_bytes(b"\0\0\x80?" * 100)
    image = tmp_path / "h.png"
    result = _histogram(capsys, run, "-o", image, "-b", "reduce", "-a", "T=F32")
    assert result.code == 0, result.err
    assert image.is_file()
    warnings = [line for line in result.err.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and said in warnings[0], result.err
    assert "Traceback" not in result.err


# -- 2. a side file that is a FIFO was "not found" ---------------------------------------------


def test_a_side_file_that_is_a_fifo_is_not_said_to_be_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO (or socket, device) where the side file should be was reported "not found",
    which sends the user looking for a file that is there; it is not read (a FIFO would
    block) and the warning says what it is, as for a directory."""
    from cuda.bench.cli.compare import main

    run = _copy_run(tmp_path / "run")
    fifo = run.parent / "ref.json-bin" / "0.bin"
    fifo.unlink()
    os.mkfifo(fifo)
    result = run_main(main, capsys, run, DATA / "cmp.json", "--no-color")
    assert result.code == 0, result.err
    lines = [line for line in result.err.splitlines() if "0.bin" in line]
    assert len(lines) == 1, result.err
    assert "not found" not in lines[0]
    assert f"{fifo} (recorded in {run}): sample time file of reduce" in lines[0]
    assert "is not a regular file; using its summaries" in lines[0]


# -- 3. an empty --fail-on condition ------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "slow,", "slow,,fast"])
def test_an_empty_fail_on_condition_is_said_in_plain_words(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """It read "unknown condition an empty condition in 'slow,'"."""
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, DATA / "ref.json", DATA / "cmp.json", "--fail-on", value)
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "unknown condition an empty" not in lines[0]
    assert f"--fail-on: an empty condition in {value!r}; expected a comma list of" in lines[0]


# -- 4. side-file count warnings that did not say which run ------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("size", "-5", "recorded with -5 values"),
        ("size", "10", "10 sample times but 2000 SM clock frequencies"),
    ],
)
def test_a_side_file_count_warning_names_the_json_file(
    field: str, value: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both runs of a pair are often ``run.json`` in two folders, recording the same side-file
    names (``run.json-bin/0.bin``): these two warnings named only that, so the user could not
    tell which run's file is wrong. Every other side-file warning names the JSON file."""
    from cuda.bench.cli.compare import main

    ref = _copy_run(tmp_path / "before", lambda doc: _first_side_file(doc, field, value))
    cmp = _copy_run(tmp_path / "after")
    result = run_main(main, capsys, ref, cmp, "--no-color")
    assert result.code == 0, result.err
    lines = [line for line in result.err.splitlines() if said in line]
    assert len(lines) == 1, result.err
    assert f"warning: {ref.parent / 'ref.json-bin/0.bin'} (recorded in {ref}): " in lines[0], lines[
        0
    ]


# -- 5. NAME=PATH with two inputs -----------------------------------------------------------------


def test_named_inputs_of_a_pair_are_told_to_be_paths(capsys: pytest.CaptureFixture[str]) -> None:
    """``nvbench_compare base=ref.json new=cmp.json`` (the README's N-way naming, with two
    inputs) said "reference input 'base=...' does not exist" of a file that is there."""
    from cuda.bench.cli.compare import main

    ref, cmp = DATA / "ref.json", DATA / "cmp.json"
    result = run_main(main, capsys, f"base={ref}", f"new={cmp}")
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "does not exist" not in lines[0]
    assert f"'base={ref}': NAME=PATH names the inputs of several candidates" in lines[0]


# -- 6. --col: a value the benchmark skipped everywhere stopped the whole matrix ---------------


def _conversion_run(target: Path) -> Path:
    """One run of a benchmark like NVBench's ``copy_type_conversion_sweep`` (axes In, Out):
    each state whose Out is narrower than its In is skipped, so ``Out=I8`` is all skipped
    but where In is I8 too, and that state is skipped as no conversion."""
    import numpy as np
    from cuda.bench.results._axes import StringAxis
    from cuda.bench.results._builder import ResultBuilder

    widths = {"I8": 1, "I32": 4, "F64": 8}
    builder = ResultBuilder()
    axes = [StringAxis("In", list(widths)), StringAxis("Out", list(widths))]
    bench = builder.benchmark("convert", axes=axes)
    rng = np.random.default_rng(0)
    for number, (source, size) in enumerate(widths.items()):
        for out, out_size in widths.items():
            values = {"In": source, "Out": out}
            if out_size < size:
                bench.state(values, skip_reason="Narrowing conversion")
            elif out == source:
                bench.state(values, skip_reason="Not a conversion")
            else:
                times = (1 + number + out_size / 8) * 1e-5 * rng.lognormal(0, 0.01, 200)
                bench.state(values, gpu_times=times, frequencies=np.full(200, 1.7e9))
    path = target / "run.json"
    builder.write(path)
    return path


def test_col_goes_on_past_a_value_the_benchmark_skipped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On NVIDIA's own copy_type_conversion_sweep (upstream-2021-two-gpus), ``--col Out
    --baseline F64`` stopped with exit 2 ("Out=I8: nothing was compared") because every
    Out=I8 state is skipped, which --col counts as the benchmark's decision (SKIP), not as
    unusable input; the other values were never shown. A value with nothing compared is now
    a warning; a matrix where no value compares anything is still an error."""
    from cuda.bench.cli.compare import main

    run = _conversion_run(tmp_path)
    result = run_main(main, capsys, run, "--col", "Out", "--baseline", "F64", "--json", "-")
    assert result.code == 0, result.err
    report = result.json()
    assert {item["name"] for item in report["candidates"]} == {"Out=I8", "Out=I32"}
    warned = [line for line in result.err.splitlines() if "Out=I8" in line]
    assert len(warned) == 1 and "warning: Out=I8: nothing was compared" in warned[0]
    # The default baseline, Out=I8, has no measured state: nothing to compare at all.
    nothing = run_main(main, capsys, run, "--col", "Out")
    assert nothing.code == 2, nothing.err
    lines = nothing.err.strip().splitlines()
    assert len(lines) == 1 and "nothing was compared" in lines[0], nothing.err


# -- 7. --display simple: two percentages side by side, one of them unexplained ----------------


def test_the_simple_legend_says_what_c_diff_is(capsys: pytest.CaptureFixture[str]) -> None:
    """``--display simple`` shows ``%C Diff`` (-9.8% for scan I32 2^20) beside ``Change``
    (-8.9%); the legend explained Span and Change but not the column that disagrees."""
    from cuda.bench.cli.compare import main

    result = run_main(
        main, capsys, DATA / "ref.json", DATA / "cmp.json", "--display", "simple", "--no-color"
    )
    assert result.code == 0, result.err
    legends = [line for line in result.out.splitlines() if line.startswith("Legend:")]
    assert legends and all(
        "%C Diff: (Cmp - Ref) / the smaller of the two centers" in line for line in legends
    ), legends[0]


# -- 8. --plot with a name of thousands of characters ------------------------------------------


def test_the_summary_plot_cuts_a_very_long_name(tmp_path: Path) -> None:
    """A result file whose benchmark name is 200,000 characters long kept ``--plot`` busy
    for over ten minutes (matplotlib lays out every character, ~3 ms each) to draw labels
    that the figure, at most 24 inches wide, cuts off after ~250 characters anyway."""
    pytest.importorskip("matplotlib")
    from cuda.bench.compare import compare
    from cuda.bench.report import plots

    name = "B" * 5000

    def rename(document: dict[str, Any]) -> None:
        document["benchmarks"][0]["name"] = name

    run = _copy_run(tmp_path / "run", rename)
    drawn, _ = plots.summary_figures(compare(run, run))
    labels = [text.get_text() for text in drawn[0].figure.axes[0].get_yticklabels()]
    long = [label for label in labels if label.startswith("BBB")]
    assert long, labels
    assert all(len(label) <= 200 and label.endswith("…") for label in long), len(long[0])
    # The heat map's rows and the along plot's title take the same cut (120 s and 75 s).
    from cuda.bench.compare import compare_many
    from cuda.bench.report.plots.heatmap import heatmap_figure

    heat = heatmap_figure(compare_many(run, {"a": run, "b": run}))
    rows = [text.get_text() for text in heat.axes[0].get_yticklabels()]
    assert rows and all(len(label) <= 200 for label in rows), max(map(len, rows))
    along, _ = plots.along_figures(compare(run, run), "Elements")
    titles = [figure.figure.axes[0].get_title() for figure in along]
    assert titles and all(len(title) <= 200 for title in titles), max(map(len, titles))


# -- 9. -b INDEX, as NVBench's own -b takes it ---------------------------------------------------


def test_a_benchmark_index_is_told_to_be_a_name_here(capsys: pytest.CaptureFixture[str]) -> None:
    """NVBench's ``-b`` takes a benchmark's name or its ``--list`` index, and the docs say
    the filters follow NVBench's rules: ``-b 0`` said only "no such benchmark"."""
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, DATA / "ref.json", DATA / "cmp.json", "-b", "0")
    assert result.code == 2, result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "-b 0: no such benchmark" in lines[0]
    assert "-b takes a benchmark's name here, not the index NVBench's --list shows" in lines[0]
