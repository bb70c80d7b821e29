"""The process-running half of ``nvbench_compare ab``: rounds, runs, manifest, stopping.

A series is ``R`` rounds; round ``r`` runs the reference and the compare command back to
back, the side that goes first alternating (``ref`` in odd rounds) or, with ``--order
random``, a balanced random order (a seeded shuffle of ``R/2`` rounds of each). Each run
is ``COMMAND... BENCH_ARGS... --jsonbin DIR/round-NN/SIDE.json`` with standard output and
error kept next to it (``SIDE.stdout``, ``SIDE.stderr``). After every run the manifest
(:mod:`cuda.bench.compare.paired_inputs`) is rewritten whole (written to a temporary file
and renamed), so an interrupted series is analysable and resumable.

Before the first round still to run, each command runs ``--warmup`` times (``DIR/warmup/
SIDE-K.json``; recorded in the manifest, never analysed): the first process on a cold machine
(driver start-up, caches) can be far slower than the rest, and without a warm-up it falls
in round 1's first slot, which ``--order alternate`` always gives the reference (what it did
on a real GPU: docs/multi-run.md). A resumed series warms up again: the machine may have gone
cold in between.

A run counts when it exits with status 0 within ``--run-timeout`` and leaves a JSON file
that reads as an NVBench result. Children start in their own session: Ctrl-C in the
terminal reaches the runner only, which finishes the current run and then stops (a second
Ctrl-C ends the current run at once). Nothing here parses arguments or prints the report.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..compare.paired_inputs import MANIFEST_NAME, MANIFEST_SCHEMA, MANIFEST_VERSION

__all__ = ["RunFailure", "Series", "SeriesOutcome", "StopFlag", "balanced_order", "run_series"]

SIDES: Final = ("ref", "cmp")
#: ``--order`` schemes (:func:`balanced_order`).
ORDERS: Final = ("alternate", "random")
#: Lines of a failed run's standard error quoted in its one-line message.
_TAIL_CHARACTERS: Final = 200


def balanced_order(rounds: int, order: str, seed: int | None) -> list[str]:
    """The side that goes first in each round: ``alternate`` (ref, cmp, ref, ...) or
    ``random`` (each side first in half the rounds, shuffled by ``seed``)."""
    if order == "alternate":
        return [SIDES[index % 2] for index in range(rounds)]
    firsts = [SIDES[0]] * (rounds // 2) + [SIDES[1]] * (rounds - rounds // 2)
    random.Random(seed).shuffle(firsts)
    return firsts


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class StopFlag:
    """Set by the SIGINT handler: ``requested`` after one Ctrl-C, ``urgent`` after two."""

    requested: bool = False
    urgent: bool = False

    def interrupt(self) -> None:
        if self.requested:
            self.urgent = True
        self.requested = True


@dataclass(frozen=True)
class RunFailure:
    """A run that did not count: its round, side, what went wrong and its stderr file."""

    round: int
    side: str
    problem: str
    stderr: Path

    def line(self) -> str:
        tail = ""
        with contextlib.suppress(OSError):
            text = self.stderr.read_text(encoding="utf-8", errors="replace").strip()
            if text:
                last = " ".join(text.splitlines()[-1].split())[-_TAIL_CHARACTERS:]
                tail = f"; stderr ends: {last}"
        where = f"round {self.round}" if self.round else "warm-up"
        return f"{where} {self.side}: {self.problem} (stderr in {self.stderr}){tail}"


@dataclass
class Series:
    """A series of rounds and its manifest (the runner's whole state)."""

    directory: Path
    ref_command: list[str]
    cmp_command: list[str]
    bench_args: list[str]
    rounds: int
    order: str
    seed: int | None
    run_timeout: float | None
    keep_going: bool
    aa: bool
    firsts: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    #: Runs of each command before the rounds (not analysed), and their records.
    warmup: int = 0
    warmup_records: list[dict[str, Any]] = field(default_factory=list)

    def manifest(self) -> dict[str, Any]:
        return {
            "schema": MANIFEST_SCHEMA,
            "schema_version": MANIFEST_VERSION,
            "aa": self.aa,
            "ref_command": self.ref_command,
            "cmp_command": self.cmp_command,
            "bench_args": self.bench_args,
            "rounds_planned": self.rounds,
            "order": self.order,
            "seed": self.seed,
            "run_timeout": self.run_timeout,
            "keep_going": self.keep_going,
            "firsts": self.firsts,
            "warmup": self.warmup,
            "warmup_runs": self.warmup_records,
            "rounds": self.records,
        }

    def save(self) -> None:
        path = self.directory / MANIFEST_NAME
        temporary = path.with_name(f".{MANIFEST_NAME}.tmp")
        temporary.write_text(json.dumps(self.manifest(), indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)

    @classmethod
    def from_manifest(cls, directory: Path, data: dict[str, Any]) -> Series:
        """The series a manifest describes (for ``--resume``); ``ValueError`` naming the
        first field that does not describe one. Each field is held to what ``ab`` writes:
        the manifest may have been edited by hand or come from elsewhere, and a value taken
        loosely changes the series (``"aa": "no"`` read as true turned an A/B series into
        an A/A one; ``"bench_args": "--x"`` passed ``- - x``; an empty command ended in a
        traceback)."""
        ref_command = _words(data, "ref_command", empty=False)
        cmp_command = _words(data, "cmp_command", empty=False)
        aa = _flag(data, "aa")
        if aa and ref_command != cmp_command:
            raise ValueError("'aa' is true but 'ref_command' and 'cmp_command' differ")
        rounds = _whole(data, "rounds_planned", least=2)
        if rounds % 2:
            raise ValueError(f"'rounds_planned' is {rounds}, not an even number")
        order = data.get("order")
        if order not in ORDERS:
            raise ValueError(f"'order' is {order!r}; expected one of {', '.join(ORDERS)}")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"'seed' is {seed!r}, not a whole number or null")
        timeout = data.get("run_timeout")
        if timeout is not None and not (
            isinstance(timeout, int | float)
            and not isinstance(timeout, bool)
            and 0 < timeout < math.inf
        ):
            raise ValueError(f"'run_timeout' is {timeout!r}, not a positive number of seconds")
        firsts = data.get("firsts")
        if (
            not isinstance(firsts, list)
            or len(firsts) != rounds
            or any(side not in SIDES for side in firsts)
        ):
            raise ValueError("manifest's 'firsts' does not match its rounds")
        records, warmup_records = data.get("rounds"), data.get("warmup_runs", [])
        if not isinstance(records, list) or not isinstance(warmup_records, list):
            raise ValueError("'rounds' or 'warmup_runs' is not a list")
        _check_records(records, rounds)
        return cls(
            directory=directory,
            ref_command=ref_command,
            cmp_command=cmp_command,
            bench_args=_words(data, "bench_args", empty=True),
            rounds=rounds,
            order=order,
            seed=seed,
            run_timeout=None if timeout is None else float(timeout),
            keep_going=_flag(data, "keep_going"),
            aa=aa,
            firsts=list(firsts),
            records=records,
            warmup=_whole(data, "warmup", least=0, default=0),
            warmup_records=warmup_records,
        )

    def finished(self) -> int:
        """Rounds whose two runs both counted."""
        return sum(1 for record in self.records if record.get("complete"))


def _check_records(records: list[Any], rounds: int) -> None:
    """The rounds run so far, as the resumed runner reads them: objects numbered 1 ..
    ``rounds``, each complete round once (a round run again replaces an incomplete one)."""
    complete: set[int] = set()
    for record in records:
        number = record.get("round") if isinstance(record, dict) else None
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not 1 <= number <= rounds
            or not isinstance(record.get("complete", False), bool)
            or not isinstance(record.get("runs", []), list)
        ):
            raise ValueError(f"a round of 'rounds' is {_short(record)}; not one 'ab' writes")
        if record.get("complete"):
            if number in complete:
                raise ValueError(f"'rounds' holds round {number} twice")
            complete.add(number)


def _words(data: dict[str, Any], name: str, *, empty: bool) -> list[str]:
    value = data.get(name)
    if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
        raise ValueError(f"{name!r} is {_short(value)}, not a list of words")
    if not value and not empty:
        raise ValueError(f"{name!r} is empty")
    return list(value)


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name)
    if not isinstance(value, bool):
        raise ValueError(f"{name!r} is {_short(value)}, not true or false")
    return value


def _whole(data: dict[str, Any], name: str, *, least: int, default: int | None = None) -> int:
    value = data.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name!r} is {_short(value)}, not a whole number of at least {least}")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class SeriesOutcome:
    """How a series ended: ``interrupted`` by Ctrl-C, or ``failure`` of a run that stopped it
    (without ``--keep-going``); ``skipped`` lists the failures ``--keep-going`` passed."""

    interrupted: bool = False
    failure: RunFailure | None = None
    skipped: tuple[RunFailure, ...] = ()


def _check_json(path: Path) -> str | None:
    """``None`` when ``path`` reads as an NVBench result, else the problem."""
    if not path.is_file():
        return "wrote no JSON file"
    from ..results._tools_api import BenchmarkResult, ReadMode

    try:
        result = BenchmarkResult(path, mode=ReadMode.SLIM, check_counts=False)
        if not result.benchmarks:
            return "wrote a JSON file without benchmarks"
    except Exception as error:  # any reader failure means the run did not count
        return f"wrote unreadable JSON ({' '.join(str(error).split())[:160]})"
    return None


def _run_once(
    series: Series, round_index: int, side: str, stop: StopFlag, warmup: int = 0
) -> tuple[dict[str, Any], RunFailure | None]:
    """One run: round ``round_index``'s run of ``side``, or with ``warmup`` > 0 that
    warm-up run of ``side`` (``round_index`` 0)."""
    folder = series.directory / ("warmup" if warmup else f"round-{round_index:02d}")
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{side}-{warmup}" if warmup else side
    json_path = folder / f"{stem}.json"
    stale_paths = (
        json_path,
        folder / f"{json_path.name}-bin",
        folder / f"{json_path.name}-freqs-bin",
    )
    for stale in stale_paths:
        if stale.is_dir():
            import shutil

            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()
    command = series.ref_command if side == "ref" else series.cmp_command
    argv = [*command, *series.bench_args, "--jsonbin", str(json_path)]
    stderr_path = folder / f"{stem}.stderr"
    record: dict[str, Any] = {
        "side": side,
        "command": argv,
        "json": f"{folder.name}/{json_path.name}",
        "stderr": f"{folder.name}/{stderr_path.name}",
        "start": _now(),
        "strays_stopped": False,
    }
    problem: str | None = None
    with (
        open(folder / f"{stem}.stdout", "wb") as out,
        open(stderr_path, "wb") as err,
    ):
        try:
            child = subprocess.Popen(
                argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True
            )
        except OSError as error:
            child = None
            problem = f"cannot start {command[0]!r}: {error.strerror or error}"
        code = None
        if child is not None:
            code, problem = _wait(child, series.run_timeout, stop)
            if problem is None and _stop_strays(child.pid):
                record["strays_stopped"] = True
    record["end"] = _now()
    record["exit_code"] = code
    if problem is None and code is not None and code < 0:
        # subprocess's negative return code: killed by that signal (OOM killer, segfault).
        problem = f"was killed by signal {-code} ({_signal_name(-code)})"
    elif problem is None and code != 0:
        problem = f"exited with status {code}"
    if problem is None:
        problem = _check_json(json_path)
    record["status"] = "ok" if problem is None else "failed"
    record["problem"] = problem
    failure = None if problem is None else RunFailure(round_index, side, problem, stderr_path)
    return record, failure


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


#: Seconds the processes a run left behind get to end on SIGTERM before SIGKILL.
_STRAY_GRACE: Final = 2.0


def _group_alive(group: int) -> bool:
    """Whether a process of ``group`` runs. Where ``/proc`` lists processes (Linux) a
    zombie does not count: a helper that ended before the run did waits there to be reaped
    by init, which may be slow or never come in a container, and is no process that runs."""
    proc = Path("/proc")
    if (proc / "self" / "stat").exists():
        for stat in proc.glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group and fields[0] not in ("Z", "X"):
                    return True
        return False
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _stop_strays(group: int) -> bool:
    """Whether processes the run started outlived it (its process group, made by
    ``start_new_session``, still has members); they are stopped, SIGTERM then SIGKILL
    after :data:`_STRAY_GRACE`: left running they would compete with the next run, the
    other build's, for the machine whose noise the rounds are there to share."""
    if not _group_alive(group):
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + _STRAY_GRACE
    while _group_alive(group):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
            break
        time.sleep(0.02)
    return True


def _wait(
    child: subprocess.Popen[bytes], timeout: float | None, stop: StopFlag
) -> tuple[int | None, str | None]:
    started = time.monotonic()
    while True:
        try:
            return child.wait(timeout=0.05), None
        except subprocess.TimeoutExpired:
            pass
        late = timeout is not None and time.monotonic() - started > timeout
        if late or stop.urgent:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            if late:
                return None, f"timed out after {timeout:g} s (--run-timeout)"
            return None, "stopped by a second Ctrl-C"


def _warmup_plan(series: Series) -> list[tuple[int, str]]:
    """``(number, side)`` of the warm-up runs: each command ``series.warmup`` times (an
    A/A series has one command), numbered on from the runs of earlier invocations."""
    sides = SIDES[:1] if series.aa else SIDES
    earlier = len(series.warmup_records) // len(sides)
    return [(earlier + number, side) for number in range(1, series.warmup + 1) for side in sides]


def run_series(
    series: Series,
    stop: StopFlag,
    progress: Callable[[int, str, int, int, float], None] | None = None,
    report: Callable[[str], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> SeriesOutcome:
    """Run the rounds of ``series`` that are not complete yet (all of them when new).

    ``progress(round, side, runs_done, runs_total, elapsed)`` is called before each run;
    ``report(line)`` gets one line per run that did not count and whose round was skipped
    (``--keep-going``); without it the first such run ends the series (its outcome's
    ``failure``). ``notice(line)`` gets one line per run that left processes running,
    which were stopped (the run still counts).
    """
    done = {int(record["round"]) for record in series.records if record.get("complete")}
    series.records = [record for record in series.records if record.get("complete")]
    todo = [index for index in range(1, series.rounds + 1) if index not in done]
    warmups = _warmup_plan(series) if todo else []
    total, finished_runs = 2 * len(todo) + len(warmups), 0
    started = time.monotonic()
    skipped: list[RunFailure] = []
    for number, side in warmups:
        if stop.requested:
            return SeriesOutcome(interrupted=True)
        if progress is not None:
            progress(0, side, finished_runs, total, time.monotonic() - started)
        record, failure = _run_once(series, 0, side, stop, warmup=number)
        finished_runs += 1
        _notice_strays(record, f"warm-up {side}", notice)
        series.warmup_records.append(record)
        series.save()
        if failure is not None:
            # A command that fails to warm up fails its rounds too: stop before them.
            return SeriesOutcome(interrupted=stop.urgent, failure=failure)
    for round_index in todo:
        first = series.firsts[round_index - 1]
        sides: Sequence[str] = (first, "cmp" if first == "ref" else "ref")
        entry: dict[str, Any] = {"round": round_index, "first": first, "runs": []}
        failure = None
        for side in sides:
            if stop.requested:
                break
            if progress is not None:
                progress(round_index, side, finished_runs, total, time.monotonic() - started)
            record, failure = _run_once(series, round_index, side, stop)
            finished_runs += 1
            _notice_strays(record, f"round {round_index} {side}", notice)
            entry["runs"].append(record)
            if failure is not None:
                break
        entry["complete"] = len(entry["runs"]) == 2 and failure is None
        if entry["runs"]:
            series.records.append(entry)
            series.records.sort(key=lambda item: int(item["round"]))
            series.save()
        if failure is not None and stop.urgent:
            return SeriesOutcome(interrupted=True, skipped=tuple(skipped))
        if failure is not None:
            if not series.keep_going:
                return SeriesOutcome(failure=failure, skipped=tuple(skipped))
            if report is not None:
                report(failure.line())
            skipped.append(failure)
            finished_runs += 2 - len(entry["runs"])
        if stop.requested:
            return SeriesOutcome(interrupted=True, skipped=tuple(skipped))
    series.save()
    return SeriesOutcome(skipped=tuple(skipped))


def _notice_strays(
    record: Mapping[str, Any], where: str, notice: Callable[[str], None] | None
) -> None:
    if notice is not None and record.get("strays_stopped"):
        notice(
            f"{where}: the command left processes running after it exited; they were "
            "stopped so that they do not run beside the next run"
        )
