"""``nvbench-walltime``, ``nvbench-histogram`` and ``nvbench-plot-bwutil`` given an
``--output`` that cannot be written (a path under a file, ``/proc``) said only
``PATH: Not a directory``: the line now names the option, as ``nvbench-history`` names its
outputs (``cli/_common.writing_output``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from _cli_helpers import assert_usage_error, run_main


def _main(tool: str) -> Callable[[Sequence[str] | None], int]:
    if tool != "nvbench-walltime":
        pytest.importorskip("matplotlib")
    from cuda.bench.cli import histogram, plot_bwutil, walltime

    mains = {
        "nvbench-walltime": walltime.main,
        "nvbench-histogram": histogram.main,
        "nvbench-plot-bwutil": plot_bwutil.main,
    }
    return mains[tool]


@pytest.mark.parametrize("tool", ["nvbench-walltime", "nvbench-histogram", "nvbench-plot-bwutil"])
def test_an_output_that_cannot_be_written_names_the_option(
    tool: str,
    gpu_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MPLBACKEND", "agg")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    output = blocker / "out.png"
    result = run_main(_main(tool), capsys, gpu_dir / "gpu_ref.json", "--output", output)
    assert_usage_error(result, f"--output: {output}: cannot be written (")
    assert blocker.read_text() == "not a folder\n"
