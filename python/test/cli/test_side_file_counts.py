"""A sample-times side file recorded with 0 values (``"size": "0"``) was passed over without
a word; other side-file problems are warnings naming the JSON file. NVBench records no
side-file summary for a measurement without samples and at least one sample time for any
other (spec 5.3.1, 6.8), so 0 sample times is a broken record: a warning of its own. A file
that holds values under such a count (0, negative, beyond int64) is present with the wrong
size: unusable (compare.md 2; ``ci`` uses the summaries, ``robust`` answers AMBG); one that is
missing or empty is unavailable. An SM clock file of 0 values is what ``--profile`` writes
(spec 5.3.1) and stays silent.
nvbench-histogram and nvbench-history ingest say it in the same words, naming the side file
as every side-file line does (``DIR/X.json-bin/0.bin (recorded in DIR/X.json): ...``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _cli_helpers import Result, run_main

_TIMES = {"cpu": "nv/json/bin:nv/cpu_only/sample_times", "gpu": "nv/json/bin:nv/cold/sample_times"}


def _with_count(source: Path, target: Path, tag: str, count: str) -> Path:
    """``source`` and its side files copied to ``target``'s folder, the first summary with
    ``tag`` recording ``count`` values (the file's text edited: NVBench's own layout)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-bin", "-freqs-bin"):
        folder = source.parent / f"{source.name}{suffix}"
        if folder.is_dir():
            shutil.copytree(folder, target.parent / f"{source.name}{suffix}")
    text = source.read_text(encoding="utf-8")
    start = text.index(f'"{tag}"')
    size = re.compile(r'"name": "size",\s*"type": "int64",\s*"value": "(\d+)"').search(text, start)
    assert size is not None
    target.write_text(text[: size.start(1)] + count + text[size.end(1) :], encoding="utf-8")
    return target


def _compare(capsys: pytest.CaptureFixture[str], ref: Path, cmp: Path) -> Result:
    from cuda.bench.cli.compare import main

    result = run_main(main, capsys, ref, cmp, "--no-color")
    assert result.code in (0, 1), result.err
    return result


def _lines(result: Result, needle: str) -> list[str]:
    return [line for line in result.err.splitlines() if needle in line]


@pytest.mark.parametrize(
    ("kind", "name", "other"),
    [("cpu", "cpu_run1.json", "cpu_run2.json"), ("gpu", "gpu_ref.json", "gpu_cmp.json")],
)
def test_sample_times_recorded_with_0_values_are_a_warning_naming_the_json_file(
    kind: str,
    name: str,
    other: str,
    shared_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The GPU state records 2000 SM clocks beside its 0 sample times: silent too, as the
    counts differ only because one is 0."""
    folder = shared_data / "nvbench-format-examples" / kind
    ref = _with_count(folder / name, tmp_path / "before" / name, _TIMES[kind], "0")
    result = _compare(capsys, ref, folder / other)
    lines = _lines(result, "recorded with 0 values")
    assert len(lines) == 1, result.err
    assert lines[0].startswith(
        f"nvbench_compare: warning: {ref.parent}/{name}-bin/0.bin (recorded in {ref}): "
    ), lines[0]
    assert re.search(r", but it holds \d+ bytes; its per-sample data are not used$", lines[0])


@pytest.mark.parametrize("count", ["0", "-1", str(2**70)])
def test_a_sample_times_file_that_keeps_its_values_under_a_wrong_count_is_unusable(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], count: str
) -> None:
    """The file keeps its 2000 values: robust warned "... using its summaries" and said SAME
    (2^70: "... sample times but 2000 SM clock frequencies"). Present with the wrong size,
    it is unusable: robust AMBG ``bulk_time_data_unusable`` as for a file of NaNs, ci from
    the summaries with the file named as rejected; one warning either way."""
    from cuda.bench.cli.compare import main

    ref = _with_count(
        gpu_dir / "gpu_ref.json", tmp_path / "r" / "gpu_ref.json", _TIMES["gpu"], count
    )
    first = ("-b", "copy_bench", "-a", "T=F32", "-a", "Elements=2^16", "-a", "Layout=contiguous")
    rows = {}
    for method in ("robust", "ci"):
        devices = ("--reference-devices", "0", "--compare-devices", "0")
        args = (ref, gpu_dir / "gpu_cmp.json", "--method", method, *devices, *first)
        result = run_main(main, capsys, *args, "--no-color", "--json", "-")
        assert result.code == 0, result.err
        (row,) = result.json()["rows"]
        rows[method] = row
        lines = _lines(result, f"recorded with {count} values")
        assert len(lines) == 1, result.err
        assert lines[0].endswith(", but it holds 8000 bytes; its per-sample data are not used")
    assert (rows["robust"]["status"], rows["robust"]["reason_code"]) == (
        "AMBG",
        "bulk_time_data_unusable",
    )
    assert rows["ci"]["status"] == "SAME"
    assert "reference side file rejected" in rows["ci"]["evidence_source"]


@pytest.mark.parametrize("count", ["1.5", "-0.5"])
def test_a_size_that_is_no_count_is_as_broken_as_a_wrong_count(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], count: str
) -> None:
    """A fraction where NVBench writes an int64 (text there is refused with the file): the
    summary was set aside with "records no usable count (1.5); using its summaries", and
    robust said SAME from the summaries of a file whose record is broken (a folded line
    called such files "no usable paths"). Now as 0, -1 or 2^70: present with values,
    unusable (robust AMBG); missing, unavailable, both in the count's words."""
    from cuda.bench.cli.compare import main

    ref = _with_count(
        gpu_dir / "gpu_ref.json", tmp_path / "r" / "gpu_ref.json", _TIMES["gpu"], count
    )
    first = ("-b", "copy_bench", "-a", "T=F32", "-a", "Elements=2^16", "-a", "Layout=contiguous")
    devices = ("--reference-devices", "0", "--compare-devices", "0")
    args = (ref, gpu_dir / "gpu_cmp.json", "--method", "robust", *devices, *first)
    result = run_main(main, capsys, *args, "--no-color", "--json", "-")
    assert result.code == 0, result.err
    (row,) = result.json()["rows"]
    assert (row["status"], row["reason_code"]) == ("AMBG", "bulk_time_data_unusable")
    (line,) = _lines(result, "recorded with size ")
    assert line.endswith(
        ", no count of values, but it holds 8000 bytes; its per-sample data are not used"
    ), line
    (ref.parent / "gpu_ref.json-bin" / "0.bin").unlink()
    result = run_main(main, capsys, *args, "--no-color")
    (line,) = _lines(result, "recorded with size ")
    assert line.endswith(", no count of values; using its summaries"), line


def test_sample_times_recorded_with_0_values_of_a_missing_file_are_unavailable(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _with_count(gpu_dir / "gpu_ref.json", tmp_path / "r" / "gpu_ref.json", _TIMES["gpu"], "0")
    (ref.parent / "gpu_ref.json-bin" / "0.bin").unlink()
    result = _compare(capsys, ref, gpu_dir / "gpu_cmp.json")
    lines = _lines(result, "recorded with 0 values")
    assert len(lines) == 1, result.err
    assert lines[0].endswith("recorded with 0 values; using its summaries"), lines[0]


def test_sm_clocks_recorded_with_0_values_stay_silent(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--profile``: the clock file is written with 0 values; the sample times are used."""
    ref = _with_count(
        gpu_dir / "gpu_ref.json",
        tmp_path / "before" / "gpu_ref.json",
        "nv/json/freqs-bin:nv/cold/sample_freqs",
        "0",
    )
    result = _compare(capsys, ref, gpu_dir / "gpu_cmp.json")
    assert not _lines(result, "recorded with 0 values"), result.err
    assert not _lines(result, "gpu_ref.json-freqs-bin/0.bin"), result.err


def test_histogram_says_sample_times_recorded_with_0_values(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said as 'no sample times (run without --jsonbin, or its side files are missing)'
    before: the run was made with --jsonbin, and the side file is there."""
    pytest.importorskip("matplotlib")
    from cuda.bench.cli.histogram import main

    ref = _with_count(gpu_dir / "gpu_ref.json", tmp_path / "gpu_ref.json", _TIMES["gpu"], "0")
    result = run_main(main, capsys, ref, "-o", tmp_path / "h.png")
    assert result.code == 0, result.err
    lines = _lines(result, "recorded with 0 values")
    assert len(lines) == 1, result.err
    assert lines[0].startswith(
        f"nvbench-histogram: note: {tmp_path}/gpu_ref.json-bin/0.bin (recorded in {ref}): "
        "recorded with 0 values ('copy_bench Device=0 "
    ), lines[0]
    assert lines[0].endswith("); left out"), lines[0]
    assert "--jsonbin" not in result.err and "missing" not in result.err, result.err


def test_ingest_says_sample_times_recorded_with_0_values(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Counted among 'states record side files that are missing or empty' before."""
    pytest.importorskip("pyarrow")
    from cuda.bench.cli.history import main

    ref = _with_count(gpu_dir / "gpu_ref.json", tmp_path / "gpu_ref.json", _TIMES["gpu"], "0")
    archive = tmp_path / "archive"
    result = run_main(
        main, capsys, "ingest", "--archive", archive, "--commit", "c0", "--samples", "50", ref
    )
    assert result.code == 0, result.err
    lines = _lines(result, "recorded with 0 values")
    assert len(lines) == 1, result.err
    assert lines[0].startswith(
        f"nvbench-history: warning: {tmp_path}/gpu_ref.json-bin/0.bin (recorded in {ref}): "
        "recorded with 0 values: benchmark 'copy_bench' device 0 state "
    ), lines[0]
    assert lines[0].endswith("is archived from its summaries"), lines[0]
    assert "missing or empty" not in result.err, result.err
