"""What a new user's trial of ``nvbench_compare`` found (session 13), each fixed and pinned."""

from __future__ import annotations

import json
import pickle
import shutil
import struct
from pathlib import Path

import pytest
from _cli_helpers import Result, assert_usage_error, run_main
from cuda.bench.cli.compare import main
from cuda.bench.compare.side_warnings import fold_warnings
from cuda.bench.compare.warning_tags import RepeatedStateWarning, TaggedWarning

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
REF, CMP = DATA / "ref.json", DATA / "cmp.json"


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Result:
    return run_main(main, capsys, *args)


def _rewritten(source: Path, target: Path, rewrite: bool = True) -> Path:
    """``source`` as a JSON tool rewrites it (other indentation, CRLF line ends): other
    bytes, the same run; its side files beside it. ``rewrite=False``: a plain copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(json.loads(source.read_text(encoding="utf-8")), indent=1)
    data = text.replace("\n", "\r\n").encode() if rewrite else source.read_bytes()
    target.write_bytes(data)
    for suffix in ("-bin", "-freqs-bin"):
        side = source.parent / f"{source.name}{suffix}"
        if side.is_dir():
            shutil.copytree(side, target.parent / side.name, dirs_exist_ok=True)
    return target


# -- 1. one run given twice on a side ---------------------------------------------------------


def test_the_same_run_twice_per_side_is_refused_not_decided(
    capsys: pytest.CaptureFixture[str], cpu_dir: Path
) -> None:
    """NVBench's own ``cpu_run1_plain.json`` is byte for byte ``cpu_run1.json``: two copies
    showed no drift between runs and made 4 AMBG rows FAST, exit 1."""
    result = run(
        capsys,
        "--ref", cpu_dir / "cpu_run1.json", "--ref", cpu_dir / "cpu_run1_plain.json",
        "--cmp", cpu_dir / "cpu_run2.json", "--cmp", cpu_dir / "cpu_run2_plain.json",
        "--fail-on", "fast",
    )  # fmt: skip
    assert_usage_error(
        result,
        f"{cpu_dir / 'cpu_run1_plain.json'}: a copy of {cpu_dir / 'cpu_run1.json'}",
        "given twice",
    )


def test_a_rewritten_copy_in_a_runs_directory_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    first = _rewritten(REF, runs / "a.json", rewrite=False)
    copy = _rewritten(REF, runs / "b.json")
    assert first.read_bytes() != copy.read_bytes()
    result = run(capsys, "--ref", runs, "--cmp", CMP, "--fail-on", "fast")
    assert_usage_error(result, f"{copy}: a copy of {first}", "reference run is given twice")


def test_the_same_file_twice_is_named_as_one_file(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--ref", REF, "--cmp", CMP, "--cmp", CMP)
    assert_usage_error(result, f"{CMP}: the same file as {CMP}", "compare run is given twice")


def test_a_copy_among_the_runs_of_an_n_way_input_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    copy = _rewritten(CMP, tmp_path / "copy.json")
    result = run(capsys, REF, f"new={CMP}", f"new={copy}")
    assert_usage_error(result, f"{copy}: a copy of {CMP}", "given twice")


def test_a_copy_among_paired_rounds_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ref_copy = _rewritten(REF, tmp_path / "ref2.json")
    # Not REF again on the compare side: a run on both sides is refused in a line of its
    # own (test_ab_cli.py::test_paired_input_errors).
    cmp_copy = _rewritten(CMP, tmp_path / "cmp2.json")
    result = run(
        capsys, "--paired", "--ref", REF, "--ref", ref_copy, "--cmp", CMP, "--cmp", cmp_copy
    )
    assert_usage_error(result, f"{ref_copy}: a copy of {REF}", "given twice")


def test_separate_runs_and_one_run_on_each_side_are_still_compared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only a side's own runs must be separate: a file compared with itself stays an A/A
    check, and a run on both sides is no copy within a side."""
    assert run(capsys, REF, REF).code == 0
    assert run(capsys, "--ref", REF, "--ref", CMP, "--cmp", CMP, "--cmp", REF).code == 0


# -- 2. per-sample values whose cycles overflow -----------------------------------------------


def test_sample_times_whose_cycles_overflow_are_unusable_and_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """One sample time of 3e38 s (finite in float32) times a 1.7 GHz clock is beyond
    float32: numpy's bare 'overflow encountered in cast' leaked, naming no file."""
    ref = _rewritten(REF, tmp_path / "ref.json", rewrite=False)
    sample_file = tmp_path / "ref.json-bin" / "0.bin"
    times = bytearray(sample_file.read_bytes())
    times[:4] = struct.pack("<f", 3e38)
    sample_file.write_bytes(bytes(times))
    result = run(capsys, ref, CMP)
    assert result.code == 0, result.err
    assert "encountered" not in result.err
    warned = [line for line in result.err.splitlines() if str(sample_file) in line]
    assert len(warned) == 1, result.err
    assert "its per-sample data are not used" in warned[0]


# -- 3. a state name repeated many times --------------------------------------------------


def test_a_state_repeated_many_times_is_one_warning_line_with_a_count(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every state of 'reduce' listed 5 times: one line per extra occurrence (24 lines,
    784 in the trial's file) became one line per state, with the count."""
    document = json.loads(REF.read_text(encoding="utf-8"))
    bench = document["benchmarks"][0]
    bench["states"] = bench["states"] * 5
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document), encoding="utf-8")
    for side in ("ref.json-bin", "ref.json-freqs-bin"):
        shutil.copytree(DATA / side, tmp_path / side)
    result = run(capsys, ref, CMP, "--json", "-")
    assert result.code == 0, result.err
    repeated = [line for line in result.err.splitlines() if "appears" in line]
    assert len(repeated) == 6, result.err
    name = bench["states"][0]["name"]
    assert repeated[0] == (
        f"nvbench_compare: warning: reduce: reference state {name!r} appears 5 times in the "
        "reference run; states of one name pair by their order, and 4 of them (#2 ... #5) "
        "have no counterpart"
    )
    # The reports say it as often: once per state, kept on the reference side.
    warnings = result.json()["warnings"]
    assert sum("appears" in line for line in warnings) == 6


def test_repeated_state_warnings_fold_after_pickling() -> None:
    """The split comparison sends its rows' warnings back pickled: they must still fold,
    and the folded line keeps its side (the history gate leaves the reference's out)."""
    lines = [
        pickle.loads(pickle.dumps(RepeatedStateWarning("b", "compare", "s", number)))
        for number in (3, 2, 4)
    ]
    (folded,) = fold_warnings(lines)
    assert folded == (
        "b: compare state 's' appears 4 times in the compare run; states of one name pair "
        "by their order, and 3 of them (#2 ... #4) have no counterpart"
    )
    assert isinstance(folded, TaggedWarning) and folded.side == "compare"
    (alone,) = fold_warnings(lines[:1])
    assert alone.endswith("its #3 has no counterpart") and alone is lines[0]


# -- 4. outputs inside a history archive --------------------------------------------------


@pytest.mark.parametrize(
    ("option", "where"),
    [
        ("--json", "nvbench-archive.json"),  # the marker itself: the archive would be gone
        ("--markdown", "report.md"),
        ("--csv", "runs/machine=0/report.csv"),  # deeper in the tree
        ("--html", "states/report.html"),
    ],
)
def test_an_output_inside_a_history_archive_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, where: str
) -> None:
    archive = tmp_path / "archive"
    marker = archive / "nvbench-archive.json"
    (archive / "runs" / "machine=0").mkdir(parents=True)
    (archive / "states").mkdir()
    marker.write_text('{"format": "nvbench-history-archive", "version": 1}\n')
    before = sorted(path.relative_to(archive) for path in archive.rglob("*"))
    output = archive / where
    result = run(capsys, REF, CMP, option, output)
    assert_usage_error(result, f"{option} {output}: inside the archive {archive}")
    assert sorted(path.relative_to(archive) for path in archive.rglob("*")) == before
    assert marker.read_text() == '{"format": "nvbench-history-archive", "version": 1}\n'


def test_an_output_beside_an_archive_or_reached_by_a_link_into_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "nvbench-archive.json").write_text(
        '{"format": "nvbench-history-archive", "version": 1}\n'
    )
    (tmp_path / "link").symlink_to(archive)
    result = run(capsys, REF, CMP, "--json", tmp_path / "link" / "out.json")
    assert_usage_error(result, "inside the archive")
    beside = tmp_path / "report.json"
    assert run(capsys, REF, CMP, "--json", beside).code == 0
    assert beside.stat().st_size > 0


def test_a_file_named_like_the_marker_that_is_none_makes_no_archive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A report once written as ``out/nvbench-archive.json`` (or any file of that name that
    is not an archive's marker) made ``out/`` and everything under it refuse every output
    as "inside the archive", though no history command took it for an archive."""
    out = tmp_path / "out"
    out.mkdir()
    first = run(capsys, REF, CMP, "--json", out / "nvbench-archive.json")
    assert first.code == 0, first.err
    again = run(capsys, REF, CMP, "--json", out / "nvbench-archive.json")
    assert again.code == 0, again.err
    (out / "sub").mkdir()
    assert run(capsys, REF, CMP, "--markdown", out / "sub" / "r.md").code == 0
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "nvbench-archive.json").write_text("{}")
    assert run(capsys, REF, CMP, "--json", tmp_path / "home" / "r.json").code == 0


# -- 5. messages ----------------------------------------------------------------------------


def test_ab_help_names_the_command_that_writes_a_calibration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run(capsys, "ab", "--help")
    assert result.code == 0
    text = " ".join(result.out.split())
    assert "ab calibrate" not in text
    # The file ab's paired rows use is ab --aa's; calibrate's holds no paired floor.
    assert "A/A calibration file written by 'nvbench_compare ab --aa'" in text
    assert "'nvbench_compare calibrate' has none" in text


def test_a_benchmark_listed_twice_is_told_in_a_command_line_users_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = json.loads(REF.read_text(encoding="utf-8"))
    document["benchmarks"].append(document["benchmarks"][0])
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document), encoding="utf-8")
    result = run(capsys, ref, CMP, "--no-color")
    lines = [line for line in result.err.splitlines() if "more than once" in line]
    assert len(lines) == 1, result.err
    assert "mapping" not in lines[0] and "BenchmarkResult" not in lines[0]
    assert lines[0] == (
        f"nvbench_compare: warning: {ref}: benchmark 'reduce' appears more than once; every "
        "occurrence is read (a look-up by its name finds the first)"
    )


def test_a_side_file_that_is_a_directory_is_said_to_be_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ref = _rewritten(REF, tmp_path / "ref.json", rewrite=False)
    text = ref.read_text(encoding="utf-8")
    ref.write_text(text.replace('"ref.json-bin/0.bin"', '"ref.json-bin"', 1), encoding="utf-8")
    result = run(capsys, ref, CMP, "--no-color")
    assert result.code == 0, result.err
    lines = [line for line in result.err.splitlines() if "ref.json-bin" in line]
    assert len(lines) == 1, result.err
    assert "not found" not in lines[0]
    assert (
        f"{tmp_path / 'ref.json-bin'} (recorded in {ref}): sample time file of reduce" in (lines[0])
    )
    assert "is a directory, not a file; using its summaries" in lines[0]
