"""A nightly benchmark history end to end: ingest, detect, trend, gate, baseline, publish.

    python history_nightly.py WORKDIR

It needs the ``[history]`` extra (pyarrow and DuckDB): ``python -m pip install '.[history]'``
from the nvbench-tools checkout's root.

Generates a history in NVBench format (two benchmarks of three states, 60 nightly runs; three
states get 6 % slower from the 42nd night on) and tonight's run (one more state 5 % slower),
then runs each ``nvbench-history`` step on it as a nightly job would, printing every command
and its output: the README's walkthrough is this script's output. Nights, their files and
``--order`` count from 0 alike: night 41 (the 42nd, the step's first) is
``runs/run_0041.json``, ingested with ``--order 41``; nights 0-59 are archived and tonight
is night 60. Writes only under WORKDIR (runs/, bench-archive/, site/, gate.md); exits 0, or
2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

NIGHTS = 60  # nights 0 .. NIGHTS - 1 are archived; tonight is night NIGHTS
STEP_NIGHT = 41  # the 42nd night (numbered from 0, as the files and --order are)
# Series (benchmark x state, in document order) that step at STEP_NIGHT, and tonight's.
STEPPED = (0, 1, 3)
TONIGHT_SLOWER = 5


def _history(root: Path) -> tuple[Path, ...]:
    import numpy as np
    from cuda.bench.history.synthetic import HistoryNoise, SyntheticHistory, generate, write_history
    from cuda.bench.results.synthetic import SyntheticConfig

    steps = tuple(0.06 if series in STEPPED else 0.0 for series in range(6))
    made = generate(
        HistoryNoise("iid", run_sigma=0.004),
        series=6,
        runs=NIGHTS + 1,
        steps=steps,
        step_at=STEP_NIGHT,
        seed=11,
    )
    medians = np.array(made.medians)
    medians[TONIGHT_SLOWER, NIGHTS] *= 1.05
    history = SyntheticHistory(medians, made.step_at, made.factor, made.noise, made.seed)
    config = SyntheticConfig(benchmarks=2, states=3, samples=400)
    return write_history(root / "runs", history, config, seed=7)


def _call(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``nvbench-history ARGV`` in ``cwd``: its exit status and what it printed."""
    from cuda.bench.cli.history import main

    out = io.StringIO()
    here = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = main(argv)
    finally:
        os.chdir(here)
    return status, out.getvalue()


def _say(text: str) -> None:
    """Print ``text``; where the reader has gone (``| head``), print nothing more but go on
    with the walkthrough, so its files are still written (the standard library's advice
    for a closed pipe: standard output onto the null device)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _show(argv: list[str], cwd: Path) -> int:
    _say(f"$ nvbench-history {shlex.join(argv)}")
    status, text = _call(argv, cwd)
    _say(f"{text}(exit status {status})\n")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("workdir", type=Path, help="an empty or missing directory")
    args = parser.parse_args(argv)
    root: Path = args.workdir
    if root.exists() and any(root.iterdir()):
        print(
            f"history_nightly.py: {root}: not an empty directory (a run before left its "
            "archive there): remove it, or name a new directory",
            file=sys.stderr,
        )
        return 2
    try:
        import duckdb  # noqa: F401
        import pyarrow  # noqa: F401
    except ModuleNotFoundError as error:
        print(
            f"history_nightly.py: needs pyarrow and DuckDB ({error.name} is missing): "
            "python -m pip install '.[history]' (from the nvbench-tools checkout's root)",
            file=sys.stderr,
        )
        return 2
    except ImportError as error:  # installed, but not importable: the reason says why
        print(f"history_nightly.py: importing pyarrow or DuckDB failed: {error}", file=sys.stderr)
        return 2
    from cuda.bench.history.synthetic import commit_ids

    paths = _history(root)
    commits = commit_ids(NIGHTS + 1, seed=11)
    first = dt.datetime(2026, 9, 1, 2, tzinfo=dt.timezone.utc)
    for night in range(NIGHTS):
        when = (first + dt.timedelta(days=night)).isoformat()
        argv_night = [
            "ingest", "--archive", "bench-archive", "--commit", commits[night],
            "--date", when, "--order", str(night), "--samples", "64",
            "--tag", "gpu_driver=580.95", str(paths[night].relative_to(root)),
        ]  # fmt: skip
        if night == NIGHTS - 1:
            _say(
                f"# nights 0-{night - 1} (runs/run_0000.json .. {paths[night - 1].name}, "
                f"--order 0 .. {night - 1}) were ingested the same way; night {night}:"
            )
            status = _show(argv_night, root)
        else:
            status = _call(argv_night, root)[0]
        if status != 0:
            return 2
    tonight = str(paths[NIGHTS].relative_to(root))
    steps = [
        ["detect", "--archive", "bench-archive", "--json", "changes.json"],
        ["trend", "--archive", "bench-archive", "-b", "bench_00"],
        [
            "gate", "--archive", "bench-archive", tonight, "--fail-on", "slow",
            "--markdown", "gate.md", "--display", "simple", "--no-color",
        ],
        ["baseline", "check", *(str(p.relative_to(root)) for p in paths[NIGHTS - 3 : NIGHTS])],
        ["report", "--archive", "bench-archive", "--html", "site"],
    ]  # fmt: skip
    for step in steps:
        if step[0] == "gate":
            _say(f"# tonight: night {NIGHTS}, {tonight}, gated before it is ingested")
        status = _show(step, root)
        if status not in (0, 1):
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
