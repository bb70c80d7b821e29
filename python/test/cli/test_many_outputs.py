"""The N-way ``--html`` / ``--output-dir`` glue of the command line (``cli._many_outputs``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cuda.bench.cli._common import run
from cuda.bench.cli._many_outputs import add_output_dir_argument, write_many_outputs
from cuda.bench.compare.exit_policy import FailOn
from cuda.bench.compare.many import MultiComparison, compare_many
from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_run


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> MultiComparison:
    directory = tmp_path_factory.mktemp("many-outputs")
    config = SyntheticConfig(benchmarks=1, states=4, samples=100)
    ref, cmp = directory / "ref.json", directory / "cmp.json"
    write_run(ref, config, seed=3)
    write_run(cmp, config, seed=3, side="cmp", shifts={state_keys(config)[0]: 1.3})
    return compare_many(ref, {"a": cmp, "b": ref})


def _blob(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    start = text.index('id="nvbench-data">') + len('id="nvbench-data">')
    data: dict[str, Any] = json.loads(text[start : text.index("</script>", start)])
    return data


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nvbench_compare", allow_abbrev=False)
    parser.add_argument("--html")
    parser.add_argument("--html-plots", type=int, default=200)
    add_output_dir_argument(parser)
    return parser


def test_html_and_output_dir_are_written_when_given(multi: MultiComparison, tmp_path: Path) -> None:
    page, out = tmp_path / "m.html", tmp_path / "out"
    args = _parser().parse_args(
        ["--html", str(page), "--html-plots", "1", "--output-dir", str(out)]
    )
    write_many_outputs(multi, args, (FailOn.SLOW,), {"matrix.json": lambda m: "{}"})
    blob = _blob(page)
    assert blob["layout"] == "matrix" and len(blob["plots"]) == 1
    assert (out / "matrix.json").read_text() == "{}"
    assert (out / "a" / "highlights.csv").is_file() and (out / "b" / "report.json").is_file()


def test_nothing_is_written_without_the_options(multi: MultiComparison, tmp_path: Path) -> None:
    write_many_outputs(multi, _parser().parse_args([]), ())
    assert list(tmp_path.iterdir()) == []


def test_output_dir_is_not_an_abbreviation_target() -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["--output", "x"])


def test_a_missing_parent_is_one_error_line_and_status_two(
    multi: MultiComparison, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "out"

    def main(argv: Sequence[str] | None) -> int:
        write_many_outputs(multi, _parser().parse_args(list(argv or [])), ())
        return 0

    assert run(main, ["--output-dir", str(target)], "nvbench_compare") == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("nvbench_compare: error: ")
    assert "Traceback" not in error
