"""``nvbench_compare ab`` (the paired A/B runner) and ``nvbench_compare --paired``, driven by a
stand-in for an NVBench executable (``_ab_standin.py``) that drifts with time."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _cli_helpers import assert_usage_error, console_command, run_main
from cuda.bench.cli.compare import main
from cuda.bench.compare.calibration_file import load_calibration

STANDIN = Path(__file__).with_name("_ab_standin.py")
#: ``ab`` without warm-up runs: the stand-in has no cold start, and most tests count its runs.
AB = ("ab", "--warmup", "0")


def standin(counter: Path, *options: str) -> str:
    """The stand-in as one command argument (shell-quoted words)."""
    words = [sys.executable, str(STANDIN), "--counter", str(counter), *options]
    return shlex.join(words)


def manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text())


def test_rounds_order_and_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "series"
    counter = tmp_path / "count"
    result = run_main(
        main,
        capsys,
        *AB,
        "--rounds",
        "4",
        "--out",
        out,
        "--json",
        tmp_path / "r.json",
        standin(counter, "--samples", "40", "--states", "2"),
        standin(counter, "--samples", "40", "--states", "2", "--change", "1.2"),
        "--",
        "-b",
        "copy",
    )
    assert result.code == 0, result.err
    data = manifest(out)
    assert [item["first"] for item in data["rounds"]] == ["ref", "cmp", "ref", "cmp"]
    assert data["bench_args"] == ["-b", "copy"]
    for item in data["rounds"]:
        sides = [run["side"] for run in item["runs"]]
        assert sides == [item["first"], "cmp" if item["first"] == "ref" else "ref"]
        for run in item["runs"]:
            assert run["status"] == "ok" and run["exit_code"] == 0
            assert run["command"][-4:] == ["-b", "copy", "--jsonbin", str(out / run["json"])]
            assert run["start"] <= run["end"]
            assert (out / run["json"]).is_file()
    # Runs happen in manifest order: the counter's "time" of each run file's run.
    assert int(counter.read_text()) == 8
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["method"] == "paired"
    assert report["design"] == {
        "paired": True,
        "rounds": 4,
        "order": "alternate",
        "seed": None,
        "first": ["ref", "cmp", "ref", "cmp"],
    }
    assert report["inputs"][0]["ref"][1].endswith("round-02/ref.json")
    assert "- Method: paired (preset default); 4 paired rounds, order alternate" in result.out


def test_random_order_is_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cuda.bench.cli._ab_runner import balanced_order

    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2")
    result = run_main(
        main, capsys, *AB, "--rounds", "4", "--order", "random", "--seed", "11",
        "--out", out, "--json", tmp_path / "r.json", exe, exe,
    )  # fmt: skip
    assert result.code == 0, result.err
    expected = balanced_order(4, "random", 11)
    assert [item["first"] for item in manifest(out)["rounds"]] == expected
    design = json.loads((tmp_path / "r.json").read_text())["design"]
    assert (design["order"], design["seed"], design["first"]) == ("random", 11, expected)
    assert "; 4 paired rounds, order random, seed 11\n" in result.out


def test_random_order_is_balanced_and_seeded() -> None:
    from cuda.bench.cli._ab_runner import balanced_order

    orders = {tuple(balanced_order(8, "random", seed)) for seed in range(20)}
    assert len(orders) > 5
    for order in orders:
        assert order.count("ref") == order.count("cmp") == 4
    assert balanced_order(8, "random", 3) == balanced_order(8, "random", 3)


def test_odd_rounds_and_missing_executable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exe = standin(tmp_path / "c")
    result = run_main(main, capsys, *AB, "--rounds", "3", exe, exe)
    assert_usage_error(result, "--rounds", "even")
    missing = str(tmp_path / "no-such-bench")
    result = run_main(main, capsys, *AB, "--out", tmp_path / "o", missing, exe)
    assert_usage_error(result, "REF_EXE", "no-such-bench")
    result = run_main(main, capsys, *AB, "--out", tmp_path / "o", exe, "nvbench-not-installed-x")
    assert_usage_error(result, "CMP_EXE", "nvbench-not-installed-x")
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        (("--json", "."), "--json"),
        (("--markdown", "no-such-dir/r.md"), "--markdown"),
        (("--aa", "--write-calibration", "."), "--write-calibration"),
        (("--aa", "--write-calibration", "no-such-dir/c.json"), "--write-calibration"),
    ],
)
def test_an_unwritable_output_stops_before_any_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    options: tuple[str, ...],
    needle: str,
) -> None:
    # Report and calibration paths were checked only after every round had run (hours of
    # benchmarks), and --write-calibration's error did not name the option.
    monkeypatch.chdir(tmp_path)
    counter = tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2")
    commands = (exe,) if "--aa" in options else (exe, exe)
    result = run_main(main, capsys, *AB, "--rounds", "2", "--out", "o", *options, *commands)
    assert_usage_error(result, needle)
    assert not counter.exists()  # no run started
    assert not (tmp_path / "o").exists()


def test_no_round_or_calibration_goes_inside_a_history_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` and ``--write-calibration`` inside an nvbench-history archive were made and
    written there (every other writing command refuses such paths)."""
    archive = tmp_path / "archive"
    archive.mkdir()
    marker = '{"format": "nvbench-history-archive", "version": 1}\n'
    (archive / "nvbench-archive.json").write_text(marker)
    exe = standin(tmp_path / "c")
    result = run_main(main, capsys, *AB, "--out", archive / "rounds", exe, exe)
    assert_usage_error(result, "--out", "inside the archive")
    calibration = archive / "cal.json"
    result = run_main(
        main, capsys, *AB, "--aa", "--write-calibration", calibration, "--out", tmp_path / "o", exe
    )
    assert_usage_error(result, "--write-calibration", "inside the archive")
    assert sorted(path.name for path in archive.iterdir()) == ["nvbench-archive.json"]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("option", "problem"),
    [
        ("--fail-at", "exited with status 3"),
        ("--no-json-at", "wrote no JSON file"),
        ("--garbage-at", "unreadable JSON"),
    ],
)
def test_failing_run_stops_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, problem: str
) -> None:
    out, counter = tmp_path / "s", tmp_path / "c"
    # Invocation 3 is round 2's second run: the compare side (round 2 starts with cmp).
    bad = standin(counter, "--samples", "30", "--states", "2", option, "3")
    result = run_main(main, capsys, *AB, "--rounds", "4", "--out", out, bad, bad)
    assert_usage_error(result, "round 2 ref", problem, "--resume")
    if option == "--fail-at":
        assert "out of memory" in result.err  # the stderr tail
        assert "out of memory" in (out / "round-02" / "ref.stderr").read_text()
    data = manifest(out)
    assert [item["complete"] for item in data["rounds"]] == [True, False]
    assert data["rounds"][1]["runs"][1]["status"] == "failed"


def test_a_run_killed_by_a_signal_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run the kernel killed (the OOM killer, a segfault) read "exited with status -9":
    # subprocess's negative return code, no status any shell or NVBench prints.
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    killed = shlex.join([sys.executable, "-c", code])
    result = run_main(main, capsys, *AB, "--rounds", "2", "--out", tmp_path / "s", killed, killed)
    assert_usage_error(result, "round 1 ref", "was killed by signal 9 (SIGKILL)")
    assert "status -9" not in result.err


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, exited and not yet reaped, does not)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.is_dir() and Path("/proc/self/stat").exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_processes_a_run_leaves_behind_are_stopped_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A benchmark script that starts a helper in the background left it running beside the
    # next run (the other build's) and after ab ended.
    pids = tmp_path / "pids"
    command = standin(
        tmp_path / "c", "--samples", "30", "--states", "2", "--leave-child", str(pids)
    )
    result = run_main(main, capsys, *AB, "--rounds", "2", "--out", tmp_path / "s", command, command)
    assert result.code in (0, 1), result.err
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 4
    deadline = time.monotonic() + 5.0
    while any(map(_running, started)) and time.monotonic() < deadline:
        time.sleep(0.05)  # init reaps them
    assert not any(map(_running, started))
    for where in ("round 1 ref", "round 1 cmp", "round 2 cmp", "round 2 ref"):
        assert f"{where}: the command left processes running after it exited" in result.err
    runs = [run for item in manifest(tmp_path / "s")["rounds"] for run in item["runs"]]
    assert [run["strays_stopped"] for run in runs] == [True] * 4
    assert all(run["status"] == "ok" for run in runs)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_an_exited_process_not_yet_reaped_is_no_stray() -> None:
    from cuda.bench.cli._ab_runner import _group_alive

    child = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    deadline = time.monotonic() + 10.0
    while _group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _group_alive(child.pid)
    assert Path(f"/proc/{child.pid}/stat").exists()  # a zombie until waited for
    child.wait()
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert _group_alive(sleeper.pid)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_run_that_leaves_nothing_behind_says_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = standin(tmp_path / "c", "--samples", "30", "--states", "2")
    result = run_main(main, capsys, *AB, "--rounds", "2", "--out", tmp_path / "s", command, command)
    assert "left processes running" not in result.err
    runs = [run for item in manifest(tmp_path / "s")["rounds"] for run in item["runs"]]
    assert [run["strays_stopped"] for run in runs] == [False] * 4


def test_keep_going_skips_the_round_and_resume_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2", "--fail-at", "2")
    result = run_main(main, capsys, *AB, "--rounds", "4", "--keep-going", "--out", out, exe, exe)
    assert result.code == 0, result.err
    assert "round 2 cmp: exited with status 3" in result.err
    assert "round skipped (--keep-going)" in result.err
    assert "; 3 paired rounds, order alternate" in result.out
    # The skipped round is run again by --resume (the stand-in fails only once).
    result = run_main(main, capsys, "ab", "--resume", out)
    assert result.code == 0, result.err
    assert "; 4 paired rounds, order alternate" in result.out
    assert [item["round"] for item in manifest(out)["rounds"]] == [1, 2, 3, 4]


def test_keep_going_shows_a_failed_run_s_stderr_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The warning quoted the run's stderr tail raw: its colours and title changes reached
    # the terminal (the error line without --keep-going was already escaped).
    out, counter = tmp_path / "s", tmp_path / "c"
    noisy = "\x1b]0;pwned\x07\x1b[31mCUDA error\x1b[0m"
    options = ("--samples", "30", "--states", "2", "--fail-at", "2", "--fail-text", noisy)
    exe = standin(counter, *options)
    result = run_main(main, capsys, *AB, "--rounds", "4", "--keep-going", "--out", out, exe, exe)
    assert result.code == 0, result.err
    assert "round skipped (--keep-going)" in result.err
    assert "\\x1b]0;pwned\\x07\\x1b[31mCUDA error" in result.err
    assert "\x1b" not in result.err and "\x07" not in result.err


def test_resume_continues_a_stopped_series(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2", "--fail-at", "4")
    result = run_main(main, capsys, *AB, "--rounds", "4", "--out", out, exe, exe)
    assert result.code == 2
    assert [item["complete"] for item in manifest(out)["rounds"]] == [True, True, False]
    result = run_main(main, capsys, "ab", "--resume", out, "--json", tmp_path / "r.json")
    assert result.code == 0, result.err
    assert all(item["complete"] for item in manifest(out)["rounds"])
    assert int(counter.read_text()) == 4 + 1 + 4  # rounds 1-2, the failure, rounds 3-4 again
    assert json.loads((tmp_path / "r.json").read_text())["design"]["rounds"] == 4
    result = run_main(main, capsys, "ab", "--resume", out, exe)
    assert_usage_error(result, "--resume")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("ref_command", [], "'ref_command' is empty"),
        ("ref_command", None, "'ref_command' is None, not a list of words"),
        ("ref_command", "python x", "not a list of words"),
        ("bench_args", "--x", "'bench_args' is '--x', not a list of words"),
        ("aa", "no", "'aa' is 'no', not true or false"),
        ("aa", True, "'aa' is true but 'ref_command' and 'cmp_command' differ"),
        ("keep_going", "false", "'keep_going' is 'false', not true or false"),
        ("rounds_planned", "4", "'rounds_planned' is '4', not a whole number of at least 2"),
        ("order", "sideways", "'order' is 'sideways'; expected one of alternate, random"),
        ("seed", "x", "'seed' is 'x', not a whole number or null"),
        ("warmup", -3, "'warmup' is -3, not a whole number of at least 0"),
        ("warmup", "2", "not a whole number"),
        ("run_timeout", -1, "'run_timeout' is -1, not a positive number of seconds"),
        ("rounds", [{"round": "1", "complete": True}], "a round of 'rounds' is"),
        ("rounds", [7], "a round of 'rounds' is 7"),
    ],
)
def test_resume_holds_a_manifest_to_what_ab_writes(
    field: str, value: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A hand-edited manifest was read loosely: an empty command ended in a traceback (exit
    # 1, read by CI as a regression), "aa": "no" counted as true and ran an A/B series as
    # A/A (no gate, a calibration file written), "bench_args": "--x" passed "- - x".
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2", "--fail-at", "4")
    other = standin(counter, "--samples", "30", "--states", "2", "--change", "1.05")
    result = run_main(main, capsys, *AB, "--rounds", "4", "--out", out, exe, other)
    assert result.code == 2
    data = manifest(out)
    data[field] = value
    (out / "manifest.json").write_text(json.dumps(data))
    runs = int(counter.read_text())
    result = run_main(main, capsys, "ab", "--resume", out)
    assert_usage_error(result, f"--resume '{out}'", message)
    assert int(counter.read_text()) == runs  # nothing was run


def test_run_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exe = standin(tmp_path / "c", "--sleep", "30")
    started = time.monotonic()
    result = run_main(
        main,
        capsys,
        *AB,
        "--rounds",
        "2",
        "--run-timeout",
        "0.3",
        "--out",
        tmp_path / "s",
        exe,
        exe,
    )
    assert_usage_error(result, "round 1 ref", "timed out after 0.3 s")
    assert time.monotonic() - started < 10


def test_ctrl_c_stops_after_the_current_run_and_analyses(tmp_path: Path) -> None:
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2", "--sleep", "0.3")
    command = console_command("nvbench_compare", "cuda.bench.compare")
    child = subprocess.Popen(
        [*command, *AB, "--rounds", "8", "--out", str(out), exe, exe],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait for two finished rounds
        if (out / "manifest.json").exists() and sum(
            item["complete"] for item in manifest(out)["rounds"]
        ) >= 2:
            break
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 0, stderr
    assert "stopping after the current run" in stderr
    assert "--resume" in stderr
    data = manifest(out)
    finished = sum(item["complete"] for item in data["rounds"])
    assert 2 <= finished < 8
    # The run in progress was finished, not killed: every recorded run succeeded.
    assert all(run["status"] == "ok" for item in data["rounds"] for run in item["runs"])
    assert f"; {finished} paired rounds, order alternate" in stdout


@pytest.mark.slow
def test_paired_finds_a_change_the_unpaired_analysis_calls_ambg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Acceptance: ±8 % drift over 16 runs, 3 % slower on every other state."""
    out, counter = tmp_path / "s", tmp_path / "c"
    drift = ("--drift", "0.08", "--speed", "0.15", "--samples", "60")
    result = run_main(
        main,
        capsys,
        *AB,
        "--out",
        out,
        "--json",
        tmp_path / "paired.json",
        standin(counter, *drift),
        standin(counter, *drift, "--change", "1.03"),
    )
    assert result.code == 0, result.err
    rows = json.loads((tmp_path / "paired.json").read_text())["rows"]
    assert [row["status"] for row in rows] == ["SLOW", "SAME"] * 3
    for row in rows[::2]:
        assert row["effect_ci_lo"] > 1.01 and row["effect_ci_hi"] < 1.05
    runs = [(out / f"round-{r:02d}") for r in range(1, 9)]
    unpaired = run_main(
        main,
        capsys,
        *[a for r in runs for a in ("--ref", r / "ref.json")],
        *[a for r in runs for a in ("--cmp", r / "cmp.json")],
        "--json",
        "-",
    )
    assert {row["status"] for row in unpaired.json()["rows"]} == {"AMBG"}
    # The same runs given by position: the same verdicts, the order unknown.
    by_position = run_main(
        main,
        capsys,
        "--paired",
        *[a for r in runs for a in ("--ref", r / "ref.json")],
        *[a for r in runs for a in ("--cmp", r / "cmp.json")],
        "--json",
        "-",
        "--fail-on",
        "slow",
    )
    assert by_position.code == 1
    report = by_position.json()
    assert [row["status"] for row in report["rows"]] == ["SLOW", "SAME"] * 3
    assert report["design"]["order"] is None and report["design"]["first"] is None


def test_same_names_the_floor_band_it_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rounds that jitter by about 1.4 % (1 % per run, not common-mode) cannot show a state
    inside ±1 %, but inside its own floor band; the row and the terminal name that band."""
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "40", "--states", "4", "--jitter", "0.01")
    result = run_main(
        main, capsys, *AB, "--out", out, "--json", tmp_path / "r.json",
        "--display", "explain", exe, exe,
    )  # fmt: skip
    assert result.code == 0, result.err
    rows = json.loads((tmp_path / "r.json").read_text())["rows"]
    # A/A: never a change; a state whose floor band would pass [ci] max_tolerance (±5 %)
    # stays AMBG.
    assert {row["status"] for row in rows} <= {"SAME", "AMBG"}
    floored = [row for row in rows if row["reason_code"] == "paired_same_within_floor"]
    assert len(floored) >= 2, [row["reason_message"] for row in rows]
    for row in rows:
        assert (row["status"] == "SAME") == ("within its ±" in row["reason_message"])
    for row in floored:
        band = row["effect_tolerance"]
        assert 0.01 < band <= 0.05
        assert f"within its ±{band:.2%} floor" in row["reason_message"]
        assert row["effect_ci_lo"] < 1 / 1.01 or row["effect_ci_hi"] > 1.01
    assert "pr-same-floor" in result.out or "paired_same_within_floor" in result.out


@pytest.mark.slow
def test_aa_summary_shows_control_characters_in_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The A/A summary listed the noisiest states by name, raw: a benchmark name from a
    # result file could retitle the terminal.
    out, counter = tmp_path / "aa", tmp_path / "c"
    name = "copy\x1b]0;pwned\x07\x1b[2J"
    exe = standin(counter, "--samples", "40", "--states", "2", "--bench-name", name)
    result = run_main(main, capsys, *AB, "--aa", "--rounds", "2", "--out", out, exe)
    assert result.code == 0, result.err
    assert "noisiest:" in result.out
    assert "copy\\x1b]0;pwned\\x07\\x1b[2J" in result.out
    assert "\x1b" not in result.out + result.err and "\x07" not in result.out + result.err


def test_aa_writes_a_calibration_that_comparisons_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, counter = tmp_path / "aa", tmp_path / "c"
    exe = standin(counter, "--samples", "40", "--states", "4")
    result = run_main(main, capsys, *AB, "--aa", "--rounds", "6", "--out", out, exe)
    assert result.code == 0, result.err
    assert "paired test: 0.00% false changes" in result.out
    assert "A/A floor" in result.out
    path = out / "nvbench_calibration.json"
    calibration = load_calibration(path)
    assert calibration.rates[0].method == "paired"
    assert calibration.rates[0].false_changes == 0
    assert all(state.paired_floor is not None for state in calibration.states)
    assert len(calibration.runs) == 12
    # A paired comparison uses the paired floors (made larger here, so that they show) ...
    data = json.loads(path.read_text())
    for state in data["states"]:
        state["paired_floor"] = 0.25
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps(data))
    result = run_main(main, capsys, "--paired", out, "--calibration", wide, "--json", "-")
    assert result.code == 0, result.err
    messages = [row["reason_message"] for row in result.json()["rows"]]
    assert all("A/A floor 28.40% (calibration)" in message for message in messages), messages
    # ... a single-run comparison the single-run tolerances.
    one = out / "round-01"
    result = run_main(main, capsys, one / "ref.json", one / "cmp.json", "--calibration", path)
    assert result.code == 0, result.err
    # A calibration without paired floors is named, not silently used.
    plain = tmp_path / "plain.json"
    run_main(
        main,
        capsys,
        "calibrate",
        "-o",
        plain,
        *[out / f"round-0{r}" / "ref.json" for r in (1, 2, 3)],
    )
    result = run_main(main, capsys, "--paired", out, "--calibration", plain)
    assert result.code == 0, result.err
    assert "has no paired floors" in result.err


def test_paired_comparisons_warn_only_where_the_calibration_is_unused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 'ab --calibration' and '--paired DIR --calibration' warned that 'paired' ignores an
    # 'ab --aa' calibration (on stderr and in the report) while every row used its floors.
    aa, ab, counter = tmp_path / "aa", tmp_path / "ab", tmp_path / "c"
    exe = standin(counter, "--samples", "40", "--states", "3")
    assert run_main(main, capsys, *AB, "--aa", "--rounds", "4", "--out", aa, exe).code == 0
    data = json.loads((aa / "nvbench_calibration.json").read_text())
    for state in data["states"]:
        state["paired_floor"] = 0.25  # large enough to show in every row
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps(data))
    runs = (*AB, "--rounds", "4", "--out", ab, "--calibration", wide, "--json", "-", exe, exe)
    for args in (runs, ("--paired", ab, "--calibration", wide, "--json", "-")):
        result = run_main(main, capsys, *args)
        assert result.code == 0, result.err
        report = result.json()
        assert report["rows"] and all(
            "(calibration)" in row["reason_message"] for row in report["rows"]
        )
        assert "ignores" not in result.err, result.err
        assert not any("ignores" in warning for warning in report["warnings"])
    # States the file lacks are named: they use their own floor.
    data["states"] = data["states"][1:]
    wide.write_text(json.dumps(data))
    result = run_main(main, capsys, "--paired", ab, "--calibration", wide, "--json", "-")
    assert result.code == 0, result.err
    expected = f"{wide} has no paired floor for 1 of 3 compared state(s)"
    assert any(warning.startswith(expected) for warning in result.json()["warnings"])
    # A method that does ignore it still says so.
    one = ab / "round-01"
    args = (one / "ref.json", one / "cmp.json", "--method", "robust", "--calibration", wide)
    result = run_main(main, capsys, *args)
    assert result.code == 0, result.err
    assert "'robust' ignores it" in result.err


def test_paired_input_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cuda.bench.results.synthetic import SyntheticConfig, write_run

    small, other = SyntheticConfig(benchmarks=1, states=2), SyntheticConfig(benchmarks=1, states=3)
    paths = []
    for index, config in enumerate((small, small, small, other)):
        paths.append(tmp_path / f"r{index}.json")
        write_run(paths[-1], config, seed=index, jsonbin=False)
    result = run_main(
        main, capsys, "--paired", "--ref", paths[0], "--ref", paths[1], "--cmp", paths[2]
    )
    assert_usage_error(result, "2 --ref and 1 --cmp")
    result = run_main(
        main,
        capsys,
        "--paired",
        "--ref",
        paths[0],
        "--ref",
        paths[1],
        "--cmp",
        paths[2],
        "--cmp",
        paths[3],
    )
    assert_usage_error(result, "same states", "r3.json")
    result = run_main(main, capsys, "--paired", tmp_path)
    assert_usage_error(result, "manifest.json")
    result = run_main(
        main, capsys, "--paired", "--method", "ci", "--ref", paths[0], "--cmp", paths[1]
    )
    assert_usage_error(result, "--method")
    # A round whose two runs are one run changed by exactly nothing: accepted before.
    result = run_main(
        main, capsys, "--paired", "--ref", paths[0], "--ref", paths[1],
        "--cmp", paths[0], "--cmp", paths[2],
    )  # fmt: skip
    assert_usage_error(result, f"compare run {paths[0]} is the same file as reference run")
    # One round has no spread to judge by: every row was AMBG, exit 0, where ab refuses it.
    result = run_main(main, capsys, "--paired", "--ref", paths[0], "--cmp", paths[1])
    assert_usage_error(result, "--paired needs at least 2 rounds")
    folder = tmp_path / "folder"
    folder.mkdir()
    result = run_main(
        main, capsys, "--paired", "--ref", folder, "--ref", folder, "--cmp", folder, "--cmp", folder
    )
    assert_usage_error(result, f"'{folder}' is a directory")
    result = run_main(main, capsys, "--paired", tmp_path / "no-such-series")
    assert_usage_error(result, f"--paired {tmp_path / 'no-such-series'}: no such file")
    crlf = tmp_path / "crlf.json"  # a copy with other bytes: told by its measurements
    crlf.write_text(json.dumps(json.loads(paths[1].read_text()), indent=3), newline="\r\n")
    assert crlf.stat().st_size != paths[1].stat().st_size
    result = run_main(
        main, capsys, "--paired", "--ref", paths[0], "--ref", paths[1],
        "--cmp", crlf, "--cmp", paths[2],
    )  # fmt: skip
    assert_usage_error(result, f"compare run {crlf} is a copy of reference run {paths[1]}")


def test_ab_reads_every_threshold_option_as_the_comparison_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --max-tolerance caps a paired SAME's floor band; ab accepted it and left it out.
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2")
    result = run_main(
        main, capsys, *AB, "--rounds", "2", "--out", out,
        "--json", tmp_path / "r.json", "--tolerance", "2", "--max-tolerance", "3", exe, exe,
    )  # fmt: skip
    assert result.code == 0, result.err
    thresholds = json.loads((tmp_path / "r.json").read_text())["thresholds"]
    assert thresholds["ci.tolerance"] == pytest.approx(0.02)
    assert thresholds["ci.max_tolerance"] == pytest.approx(0.03)


def test_warm_up_runs_take_the_cold_first_run_out_of_the_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first process on a cold machine is slower (measured on an H200: a reduction's
    # medians 40-75 % up in that run alone). By default each command runs once first; the
    # rounds start warm and the warm-up runs are recorded, never analysed.
    out = tmp_path / "series"
    counter = tmp_path / "count"
    exe = standin(counter, "--samples", "40", "--states", "2", "--cold", "1.6", "--drift", "0")
    result = run_main(
        main, capsys, "ab", "--rounds", "2", "--out", out, "--json", tmp_path / "r.json", exe, exe
    )
    assert result.code == 0, result.err
    data = manifest(out)
    assert data["warmup"] == 1
    assert [(run["side"], run["json"], run["status"]) for run in data["warmup_runs"]] == [
        ("ref", "warmup/ref-1.json", "ok"),
        ("cmp", "warmup/cmp-1.json", "ok"),
    ]
    assert int(counter.read_text()) == 6  # two warm-up runs, then 2 rounds of 2
    from cuda.bench.results import BenchmarkResult

    def level(path: Path) -> float:
        return max(float(np.median(state.samples)) for state in BenchmarkResult(path).states())

    cold, warm = level(out / "warmup/ref-1.json"), level(out / "round-01/ref.json")
    assert cold == pytest.approx(1.6 * warm, rel=0.05)
    inputs = json.loads((tmp_path / "r.json").read_text())["inputs"][0]
    assert not any("warmup" in path for path in [*inputs["ref"], *inputs["cmp"]])


def test_a_failing_warm_up_stops_before_the_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "series"
    exe = standin(tmp_path / "count", "--fail-at", "0")
    result = run_main(main, capsys, "ab", "--rounds", "2", "--out", out, exe, exe)
    assert result.code == 2
    assert "warm-up ref: exited with status 3" in result.err
    assert "simulated CUDA error" in result.err
    # --keep-going skips failing rounds, not a failing warm-up: not offered here.
    assert "--keep-going" not in result.err
    assert manifest(out)["rounds"] == []


def test_a_resumed_series_warms_up_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The machine may have gone cold between the stop and --resume: each command warms up
    # again, numbered on from the first invocation's warm-up runs. --warmup itself is the
    # series' option, fixed in its manifest.
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2", "--fail-at", "4")
    result = run_main(main, capsys, "ab", "--rounds", "2", "--out", out, exe, exe)
    assert result.code == 2  # runs 0-1 warm up, 2-3 are round 1, 4 fails in round 2
    result = run_main(main, capsys, "ab", "--resume", out, "--warmup", "2")
    assert_usage_error(result, "--warmup")
    result = run_main(main, capsys, "ab", "--resume", out)
    assert result.code == 0, result.err
    runs = manifest(out)["warmup_runs"]
    assert [run["json"] for run in runs] == [
        "warmup/ref-1.json",
        "warmup/cmp-1.json",
        "warmup/ref-2.json",
        "warmup/cmp-2.json",
    ]
    assert all((out / run["json"]).is_file() for run in runs)
    assert int(counter.read_text()) == 2 + 2 + 1 + 2 + 2  # warm, round 1, fail, warm, round 2


@pytest.mark.parametrize(
    "option", [["--plot"], ["--plot-along", "Elements"], ["--plot-output", "x.png"]]
)
def test_paired_refuses_plots_it_cannot_draw(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A paired comparison draws no figure: its plot options were accepted and ignored, so a
    # CI job asking for a chart got exit 0 and no file.
    from cuda.bench.results.synthetic import SyntheticConfig, write_run

    paths = []
    for index in range(2):
        paths.append(tmp_path / f"r{index}.json")
        write_run(paths[-1], SyntheticConfig(benchmarks=1, states=2), seed=index, jsonbin=False)
    result = run_main(main, capsys, "--paired", "--ref", paths[0], "--cmp", paths[1], *option)
    assert_usage_error(result, option[0])


@pytest.mark.parametrize(
    "option",
    [["--method", "robust"], ["--plot"], ["--json", "no-such-dir/r.json"]],
)
def test_ab_refuses_an_option_it_cannot_honour_before_any_run(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # These were found only after the warm-up and every round had run (hours on a real
    # benchmark), and --method blamed --paired, an option not given.
    out, counter = tmp_path / "s", tmp_path / "c"
    exe = standin(counter, "--samples", "30", "--states", "2")
    if option[0] == "--json":
        option = [option[0], str(tmp_path / option[1])]
    result = run_main(main, capsys, "ab", "--rounds", "2", "--out", out, *option, exe, exe)
    assert_usage_error(result, option[0])
    assert "--paired" not in result.err
    assert not counter.exists()
    assert not out.exists()


def test_ab_help_leaves_out_the_options_ab_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_main(main, capsys, "ab", "--help")
    assert result.code == 0
    for option in ("--method", "--plot", "--plot-along", "--col", "--gate"):
        assert f"[{option} " not in result.out and f"[{option}]" not in result.out
    assert "--tolerance" in result.out and "--fail-on" in result.out
