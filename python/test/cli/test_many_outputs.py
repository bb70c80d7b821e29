"""``--html`` and ``--output-dir`` of ``nvbench_compare BASE C1 C2 ...`` and ``--col``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli import compare as cli
from cuda.bench.results.synthetic import SyntheticConfig, state_keys, write_run


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(cli.main, capsys, *args)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    directory = tmp_path_factory.mktemp("many-outputs")
    config = SyntheticConfig(benchmarks=1, states=4, samples=100)
    ref, cmp = directory / "ref.json", directory / "cmp.json"
    write_run(ref, config, seed=3)
    write_run(cmp, config, seed=3, side="cmp", shifts={state_keys(config)[0]: 1.3})
    return ref, cmp


def _blob(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    start = text.index('id="nvbench-data">') + len('id="nvbench-data">')
    data: dict[str, Any] = json.loads(text[start : text.index("</script>", start)])
    return data


def test_html_and_output_dir_of_several_candidates(
    capsys: pytest.CaptureFixture[str], inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    ref, cmp = inputs
    page, out = tmp_path / "m.html", tmp_path / "out"
    result = run(
        capsys,
        ref,
        f"a={cmp}",
        f"b={ref}",
        "--html",
        page,
        "--html-plots",
        "1",
        "--output-dir",
        out,
        "--fail-on",
        "slow",
    )
    assert result.code == 1, result.err
    blob = _blob(page)
    assert blob["layout"] == "matrix" and len(blob["plots"]) == 1
    matrix = json.loads((out / "matrix.json").read_text())
    assert matrix["schema"] == "nvbench-tools.compare-many"
    assert {record["candidate"] for record in matrix["rows"]} == {"a", "b"}
    assert "candidate" in (out / "matrix.csv").read_text().splitlines()[0].split(",")
    assert (out / "matrix.md").is_file() and (out / "report.html").is_file()
    regressions = (out / "a" / "regressions.csv").read_text().splitlines()
    assert len(regressions) == 2  # the header and the one slower state
    assert (out / "b" / "regressions.csv").read_text().count("\n") == 1
    assert json.loads((out / "b" / "report.json").read_text())["schema"] == (
        "nvbench-tools.compare"
    )


def test_output_dir_of_variants(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    out, page = tmp_path / "variants", tmp_path / "variants.html"
    result = run(
        capsys, gpu_dir / "gpu_ref.json", "--col", "T", "--output-dir", out, "--html", page
    )
    assert result.code == 0, result.err
    assert _blob(page)["layout"] == "matrix"
    assert (out / "T_F64" / "highlights.md").is_file()
    assert json.loads((out / "matrix.json").read_text())["baseline"] == "T=F32"


def test_output_dir_needs_several_candidates(
    capsys: pytest.CaptureFixture[str], inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    ref, cmp = inputs
    assert_usage_error(
        run(capsys, ref, cmp, "--output-dir", tmp_path / "out"), "--output-dir needs several"
    )
    assert not (tmp_path / "out").exists()


def test_a_missing_parent_is_one_error_line_and_status_two(
    capsys: pytest.CaptureFixture[str], inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    ref, cmp = inputs
    target = tmp_path / "missing" / "out"
    result = run(capsys, ref, cmp, ref, "--output-dir", target)
    # Refused before anything is compared: nothing on standard output either.
    assert_usage_error(result, "--output-dir", "does not exist")
    assert not target.exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert_usage_error(
        run(capsys, ref, cmp, ref, "--output-dir", afile), "--output-dir", "not a directory"
    )
    assert afile.read_text() == "x"


@pytest.fixture
def refuse_to_compare(monkeypatch: pytest.MonkeyPatch) -> None:
    """The N-way and --col comparisons fail the test if they are reached."""
    from cuda.bench.cli import _compare_many, _compare_variants

    def reached(*args: object, **kwargs: object) -> None:
        raise AssertionError("compared before the output directory was checked")

    monkeypatch.setattr(_compare_many, "many_comparison", reached)
    monkeypatch.setattr(_compare_variants, "variant_comparison", reached)


@pytest.mark.usefixtures("refuse_to_compare")
@pytest.mark.parametrize("place", ["matrix.json", "b/report.json", "summary.md"])
def test_output_dir_refuses_to_replace_an_input_before_comparing(
    capsys: pytest.CaptureFixture[str],
    inputs: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    place: str,
) -> None:
    ref, cmp = inputs
    victim = tmp_path / place
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(cmp.read_bytes())
    monkeypatch.chdir(tmp_path)
    result = run(capsys, f"base={ref}", f"a={cmp}", f"b={place}", "--output-dir", ".")
    assert_usage_error(result, "--output-dir", f"is the input file '{place}'")
    assert victim.read_bytes() == cmp.read_bytes()


@pytest.mark.usefixtures("refuse_to_compare")
def test_output_dir_of_variants_refuses_its_input_as_a_report_before_comparing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run(tmp_path / "matrix.csv", SyntheticConfig(benchmarks=1, states=4), seed=3)
    before = (tmp_path / "matrix.csv").read_bytes()
    monkeypatch.chdir(tmp_path)
    result = run(capsys, "matrix.csv", "--col", "Elements", "--output-dir", ".")
    assert_usage_error(result, "--output-dir", "is the input file 'matrix.csv'")
    assert (tmp_path / "matrix.csv").read_bytes() == before


def test_output_dir_of_variants_refuses_its_input_in_a_candidate_folder_before_printing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder of the candidate Elements=2048 (known once the file is read).
    source = tmp_path / "Elements_2048" / "report.json"
    source.parent.mkdir()
    write_run(source, SyntheticConfig(benchmarks=1, states=4), seed=3)
    before = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    result = run(capsys, source.relative_to(tmp_path), "--col", "Elements", "--output-dir", ".")
    assert_usage_error(result, "--output-dir", "is the input file 'Elements_2048/report.json'")
    assert source.read_bytes() == before
    assert not (tmp_path / "summary.md").exists()


def test_an_output_directory_that_cannot_be_written_names_the_option(
    capsys: pytest.CaptureFixture[str], gpu_dir: Path, tmp_path: Path
) -> None:
    # A candidate's folder taken by a file: "o/x: File exists", naming no option.
    from _cli_helpers import run_main
    from cuda.bench.cli.compare import main

    out = tmp_path / "o"
    out.mkdir()
    (out / "x").write_text("")
    runs = [gpu_dir / name for name in ("gpu_ref.json", "gpu_cmp.json", "gpu_ref_nosidecar.json")]
    result = run_main(main, capsys, "--names", "base,x,y", *runs, "--output-dir", out)
    # The tables came out first (the folder is written after them).
    assert result.code == 2 and result.err.endswith(
        f"error: --output-dir: {out}: cannot be written ({out / 'x'}: File exists)\n"
    )
