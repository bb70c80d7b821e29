"""Side files that go unread are told once per JSON file and problem (issue #30 follow-up).

Before, a JSON copied without its ``--jsonbin`` directories (or with them outside its
directory tree, refused since #29) gave one long warning per state and file, on stderr and
again in the summary's and the markdown report's Warnings: 40 lines for the 20-state real
pair, 2,000 for a 1,000-state suite.
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from _cli_helpers import Result, run_main
from cuda.bench.cli.compare import main
from cuda.bench.compare import execution
from cuda.bench.compare.side_warnings import SideFileProblem, SideFileWarning, fold_warnings

PROG_WARNING = "nvbench_compare: warning: "


def _warning_lines(result: Result) -> list[str]:
    return [line for line in result.err.splitlines() if "warning:" in line]


def _alone(tmp_path: Path, gpu_dir: Path, *names: str) -> list[Path]:
    """The real runs copied without their side-file directories."""
    copies = []
    for name in names:
        target = tmp_path / name
        shutil.copyfile(gpu_dir / name, target)
        copies.append(target)
    return copies


def _side(source: str, problem: SideFileProblem, name: str, text: str = "") -> SideFileWarning:
    return SideFileWarning(text or f"{name}: detail", source=source, problem=problem, name=name)


# ---------------------------------------------------------------------------------------
# The folding itself
# ---------------------------------------------------------------------------------------


def test_fold_groups_per_json_file_and_problem_in_first_told_order() -> None:
    missing = SideFileProblem.MISSING
    messages = [
        "device sections differ",
        _side("a.json", missing, "a.json-bin/0.bin"),
        _side("b.json", missing, "b.json-bin/0.bin"),
        _side("a.json", missing, "a.json-bin/1.bin"),
        _side("a.json", SideFileProblem.EMPTY, "a.json-bin/7.bin", "a.json-bin/7.bin: empty"),
        "last",
        _side("a.json", missing, "a.json-bin/19.bin"),
    ]
    assert fold_warnings(messages) == [
        "device sections differ",
        "a.json-bin/0.bin ... 19.bin (recorded in a.json): 3 side files are missing; "
        "their states use their summaries",
        # Alone in their groups: the detailed lines stay.
        "b.json-bin/0.bin: detail",
        "a.json-bin/7.bin: empty",
        "last",
    ]


def test_fold_tells_each_folder_apart() -> None:
    """A run missing three sample-time files and its SM-clock folder was told as one range
    of clock files, "r.json-freqs-bin/0.bin ... 19.bin: 20 side files are missing", the
    missing sample times unsaid."""
    missing = SideFileProblem.MISSING
    messages = [
        _side("r.json", missing, "r.json-freqs-bin/0.bin"),
        _side("r.json", missing, "r.json-bin/3.bin"),
        _side("r.json", missing, "r.json-freqs-bin/4.bin"),
        _side("r.json", missing, "r.json-bin/5.bin"),
        _side("r.json", missing, "r.json-freqs-bin/19.bin"),
    ]
    assert [line.split(" (recorded in")[0] for line in fold_warnings(messages)] == [
        "r.json-freqs-bin/0.bin ... 19.bin",
        "r.json-bin/3.bin ... 5.bin",
    ]


def test_side_file_warning_is_an_immutable_string_that_pickles() -> None:
    warning = _side("a.json", SideFileProblem.OUTSIDE, "x.bin", "text")
    assert warning == "text" and isinstance(warning, str)
    with pytest.raises(AttributeError):
        warning.source = "b.json"  # type: ignore[misc]
    # The split comparison brings its children's warnings back pickled.
    again = pickle.loads(pickle.dumps(warning, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(again, SideFileWarning) and again == "text"
    assert (again.source, again.problem, again.name) == ("a.json", SideFileProblem.OUTSIDE, "x.bin")


# ---------------------------------------------------------------------------------------
# The commands, on the real 20-state pair copied without its side files
# ---------------------------------------------------------------------------------------


def test_compare_tells_missing_side_files_once_per_json(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cmp = _alone(tmp_path, gpu_dir, "gpu_ref.json", "gpu_cmp.json")
    markdown = tmp_path / "report.md"
    result = run_main(main, capsys, ref, cmp, "--markdown", markdown, "--color", "never")
    assert result.code in (0, 1), result.err
    assert _warning_lines(result) == [
        f"{PROG_WARNING}{tmp_path}/gpu_ref.json-bin/0.bin ... 19.bin (recorded in {ref}): 20 "
        "side files are missing; their states use their summaries",
        f"{PROG_WARNING}{tmp_path}/gpu_cmp.json-bin/0.bin ... 19.bin (recorded in {cmp}): 20 "
        "side files are missing; their states use their summaries",
    ]
    # The summary's and the markdown report's Warnings hold the same two lines.
    for text in (result.out, markdown.read_text()):
        assert text.count("side files are missing") == 2, text
        assert "not found; using its summaries" not in text


@pytest.mark.parametrize("shape", ["n-way", "paired", "runs", "split"])
def test_every_comparison_shape_folds(
    shape: str,
    tmp_path: Path,
    gpu_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ref, cmp = _alone(tmp_path, gpu_dir, "gpu_ref.json", "gpu_cmp.json")
    # Second runs: other runs, not copies (a copy on one side is refused as a run given
    # twice); another command line is enough to make them other runs.
    ref2, cmp2 = tmp_path / "ref2.json", tmp_path / "cmp2.json"
    for source, target in ((ref, ref2), (cmp, cmp2)):
        document = json.loads(source.read_text(encoding="utf-8"))
        document["meta"]["argv"].append("--run=2")
        target.write_text(json.dumps(document), encoding="utf-8")
    args: list[str | Path] = {
        "n-way": [ref, cmp, cmp2],
        "paired": ["--paired", "--ref", ref, "--ref", ref2, "--cmp", cmp, "--cmp", cmp2],
        "runs": ["--ref", ref, "--ref", ref2, "--cmp", cmp, "--cmp", cmp2],
        "split": [ref, cmp, "-j", "2"],
    }[shape]
    forks: list[int] = []
    if shape == "split":
        # Split by benchmark over two processes even for these small files: the children's
        # warnings come back pickled and must still fold.
        real_dispatch = execution.fork_dispatch

        def dispatch_spy(work, items, processes):  # type: ignore[no-untyped-def]
            forks.append(processes)
            return real_dispatch(work, items, processes)

        monkeypatch.setattr(execution, "fork_dispatch", dispatch_spy)
        monkeypatch.setattr(execution, "_MIN_SPLIT_BYTES", 1)
    result = run_main(main, capsys, *args, "--color", "never")
    assert result.code in (0, 1), result.err
    assert forks == ([2] if shape == "split" else [])
    lines = _warning_lines(result)
    assert lines and all("side files are missing" in line for line in lines), lines
    # One line per JSON file (the N-way run tells each candidate's pair apart).
    # n-way: the baseline's line is told once, for all candidates (each comparison has it).
    # paired: each JSON file's SM-clock files too, in a line of their own (its folder).
    assert len(lines) == {"n-way": 3, "paired": 8, "runs": 4, "split": 2}[shape], lines
    if shape == "paired":
        assert sum("-freqs-bin/0.bin ... 19.bin" in line for line in lines) == 4, lines
    shared = [line for line in lines if "warning: all candidates: " in line]
    assert len(shared) == (1 if shape == "n-way" else 0), lines


def test_side_files_outside_the_tree_are_told_once_per_json(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    ref, cmp = _alone(run, gpu_dir, "gpu_ref.json", "gpu_cmp.json")
    for name in ("gpu_ref", "gpu_cmp"):
        for suffix in ("-bin", "-freqs-bin"):
            (run / f"{name}.json{suffix}").symlink_to(gpu_dir / f"{name}.json{suffix}")
    result = run_main(main, capsys, ref, cmp, "--color", "never")
    assert result.code in (0, 1), result.err
    lines = _warning_lines(result)
    assert len(lines) == 2, lines
    for path, line in zip((ref, cmp), lines, strict=True):
        assert line.startswith(
            f"{PROG_WARNING}{run}/{path.stem}.json-bin/0.bin ... 19.bin (recorded in {path}): "
            "20 side files lead outside the JSON file's directory tree"
        ), line
        assert "--side-files-anywhere" in line


def test_calibrate_folds_too(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = _alone(tmp_path, gpu_dir, "gpu_ref.json", "gpu_cmp.json")
    output = tmp_path / "calibration.json"
    result = run_main(main, capsys, "calibrate", *runs, "-o", output)
    assert result.code == 0, result.err
    lines = [line for line in _warning_lines(result) if "side file" in line]
    assert len(lines) == 2 and all("20 side files are missing" in line for line in lines), lines


def test_hostile_names_in_the_folded_line_stay_escaped(
    tmp_path: Path, gpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recorded name that would drive the terminal or restyle markdown is shown as text."""
    document = json.loads((gpu_dir / "gpu_ref.json").read_text())
    for bench in document["benchmarks"]:
        for state in bench["states"]:
            for summary in state["summaries"] or []:
                if summary["tag"].startswith("nv/json/bin:"):
                    value = summary["data"][0]["value"]
                    summary["data"][0]["value"] = f"\x1b]0;pwned\x07<b>*x*</b>{value}"
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(document))
    (cmp,) = _alone(tmp_path, gpu_dir, "gpu_cmp.json")
    markdown = tmp_path / "report.md"
    result = run_main(main, capsys, ref, cmp, "--markdown", markdown, "--color", "never")
    assert result.code in (0, 1), result.err
    (line,) = [line for line in _warning_lines(result) if str(ref) in line]
    assert "20 side files are missing" in line
    assert "\x1b" not in result.err and "\x07" not in result.err
    report = markdown.read_text()
    assert "\x1b" not in report and "<b>" not in report and "20 side files are missing" in report
