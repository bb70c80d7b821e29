"""``nvbench-walltime``, ``nvbench-histogram`` and ``nvbench-plot-bwutil`` refuse a result
file the other commands refuse: a summary value that is not of its declared type (the
trial's ``val_mean_abc.json`` was read by these three, exit 0, and refused by compare,
json-summary and history ingest as invalid NVBench JSON), and histogram and plot-bwutil
refuse a run given twice as walltime does."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from _cli_helpers import run_main
from cuda.bench.cli import histogram, json_summary, plot_bwutil, walltime

_MAINS: dict[str, Callable[[Sequence[str] | None], int]] = {
    "walltime": walltime.main,
    "histogram": histogram.main,
    "plot-bwutil": plot_bwutil.main,
}


def _with_value(gpu_dir: Path, target: Path, tag: str, value: str) -> Path:
    """``gpu_ref.json`` (side files too) with summary ``tag`` of its first state set to
    ``value``."""
    source = gpu_dir / "gpu_ref.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    for summary in document["benchmarks"][0]["states"][0]["summaries"]:
        if summary["tag"] == tag:
            summary["data"][0]["value"] = value
    for suffix in ("-bin", "-freqs-bin"):
        shutil.copytree(Path(f"{source}{suffix}"), target / f"{source.name}{suffix}")
    path = target / source.name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("tool", list(_MAINS))
@pytest.mark.parametrize(
    ("tag", "kind"),
    [
        ("nv/cold/time/gpu/mean", "float64"),
        ("nv/cold/sample_size", "int64"),
        ("nv/cold/time/gpu/stdev/relative", "float64"),
    ],
)
def test_a_value_not_of_its_type_is_refused_as_by_json_summary(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path, tool: str, tag: str,
    kind: str,
) -> None:  # fmt: skip
    pytest.importorskip("matplotlib")
    path = _with_value(gpu_dir, tmp_path, tag, "abc")
    reference = run_main(json_summary.main, capsys, path)
    assert reference.code == 2
    expected = f"invalid NVBench JSON: 'abc' is not a valid {kind}"
    assert expected in reference.err
    args: list[str | Path] = [path]
    if tool != "walltime":
        args += ["-o", tmp_path / "out.png"]
    result = run_main(_MAINS[tool], capsys, *args)
    assert result.code == 2, result.err
    lines = result.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err
    # The same words and JSON path as json-summary's line.
    assert lines[0].split(": error: ", 1)[1] == reference.err.split(": error: ", 1)[1].strip()
    assert not (tmp_path / "out.png").exists()


_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "data" / "ref.json"


@pytest.mark.parametrize("tool", ["histogram", "plot-bwutil"])
def test_a_run_given_twice_is_refused_as_by_walltime(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tool: str
) -> None:
    # The same file twice overlaid two identical curves (histogram) or drew every bar
    # twice (plot-bwutil); a byte copy holds the same measurements. As nvbench-walltime.
    pytest.importorskip("matplotlib")
    copy = tmp_path / "ref_copy.json"
    copy.write_bytes(_EXAMPLE.read_bytes())
    output = tmp_path / "out.png"
    for second, words in ((_EXAMPLE, "the same file as"), (copy, "a copy of")):
        result = run_main(_MAINS[tool], capsys, _EXAMPLE, second, "-o", output)
        assert result.code == 2, result.err
        lines = result.err.splitlines()
        assert len(lines) == 1 and "Traceback" not in result.err, result.err
        assert "error:" in lines[0] and "given twice" in lines[0] and words in lines[0]
        assert str(_EXAMPLE) in lines[0] and str(second) in lines[0], lines[0]
        assert not output.exists()
