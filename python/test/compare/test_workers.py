"""Rows computed in forked worker processes: the same answer as one process."""

from __future__ import annotations

import errno
import math
import os
import pickle
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from cuda.bench.compare import engine, execution, workers
from cuda.bench.compare.api import compare, job_count
from cuda.bench.compare.errors import CompareError
from cuda.bench.compare.model import Effect, Reason, Status, Verdict
from cuda.bench.compare.suite import SuiteAccumulator
from cuda.bench.compare.workers import can_fork, fork_dispatch, fork_map, split_evenly
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

needs_fork = pytest.mark.skipif(not can_fork(), reason="forked workers run on Linux only")


@pytest.mark.parametrize(("size", "parts"), [(0, 3), (1, 4), (7, 3), (10, 2), (9, 9), (5, 1)])
def test_split_evenly_keeps_order_and_balances(size: int, parts: int) -> None:
    items = list(range(size))
    chunks = split_evenly(items, parts)
    assert [item for chunk in chunks for item in chunk] == items
    assert len(chunks) == max(1, min(parts, size))
    if size:
        lengths = [len(chunk) for chunk in chunks]
        assert min(lengths) >= 1 and max(lengths) - min(lengths) <= 1


def _pid_and_squares(chunk: Sequence[int]) -> tuple[int, list[int]]:
    return os.getpid(), [value * value for value in chunk]


@needs_fork
def test_fork_map_gives_the_serial_answer_and_uses_children() -> None:
    chunks = split_evenly(list(range(30)), 3)
    results = fork_map(_pid_and_squares, chunks)
    assert [squares for _, squares in results] == [_pid_and_squares(c)[1] for c in chunks]
    assert results[0][0] == os.getpid()
    children = [pid for pid, _ in results[1:]]
    assert all(pid != os.getpid() for pid in children) and len(set(children)) == 2


@needs_fork
def test_a_childs_exception_is_raised_in_the_parent() -> None:
    def work(chunk: Sequence[int]) -> int:
        if 7 in chunk:
            raise ValueError(f"bad chunk starting at {chunk[0]}")
        return sum(chunk)

    with pytest.raises(ValueError, match="bad chunk starting at 5"):
        fork_map(work, split_evenly(list(range(10)), 2))


@needs_fork
def test_the_first_failing_chunk_wins_as_in_a_serial_loop() -> None:
    def work(chunk: Sequence[int]) -> int:
        raise KeyError(chunk[0])

    with pytest.raises(KeyError) as raised:
        fork_map(work, split_evenly(list(range(9)), 3))
    assert raised.value.args == (0,)


@needs_fork
def test_a_result_that_cannot_be_pickled_is_computed_again_in_the_parent() -> None:
    parent = os.getpid()

    def work(chunk: Sequence[int]) -> object:
        if os.getpid() == parent:
            return (os.getpid(), list(chunk))
        return lambda: None  # a child's answer pickle refuses

    results = fork_map(work, split_evenly(list(range(6)), 2))
    assert results == [(parent, [0, 1, 2]), (parent, [3, 4, 5])]


@needs_fork
def test_a_child_that_dies_is_replaced_by_the_parent() -> None:
    parent = os.getpid()

    def work(chunk: Sequence[int]) -> tuple[int, int]:
        if os.getpid() != parent:
            os._exit(3)
        return os.getpid(), sum(chunk)

    assert fork_map(work, split_evenly(list(range(6)), 2)) == [(parent, 3), (parent, 12)]


def _refuse(*_: object) -> int:
    raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")


@needs_fork
@pytest.mark.parametrize("call", ["fork", "pipe"])
def test_work_whose_child_cannot_be_made_is_done_here(
    monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    # A process limit or too little memory refuses fork(), a descriptor limit pipe(): the
    # work is this process's then, not an error.
    monkeypatch.setattr(workers.os, call, _refuse)
    parent = os.getpid()
    chunks = split_evenly(list(range(9)), 3)
    assert fork_map(_pid_and_squares, chunks) == [(parent, _pid_and_squares(c)[1]) for c in chunks]
    assert fork_dispatch(_square_where, list(range(6)), 3) == [
        (parent, False, item * item) for item in range(6)
    ]


def _square_where(item: int, remote: bool) -> tuple[int, bool, int]:
    import time

    time.sleep(0.005)  # long enough for every process to get some
    return os.getpid(), remote, item * item


@needs_fork
def test_fork_dispatch_gives_the_serial_answer_and_shares_the_items(tmp_path: Path) -> None:
    # Each process waits (10 s at most) after its first item until all three have taken
    # one: the queue is shared, so on a busy machine one process could take every item
    # before another had started.
    def met(item: int, remote: bool) -> tuple[int, bool, int]:
        (tmp_path / str(os.getpid())).touch()
        deadline = time.monotonic() + 10.0
        while len(list(tmp_path.iterdir())) < 3 and time.monotonic() < deadline:
            time.sleep(0.002)
        return _square_where(item, remote)

    items = list(range(40))
    results = fork_dispatch(met, items, 3)
    assert [square for _, _, square in results] == [item * item for item in items]
    pids = {pid for pid, _, _ in results}
    assert os.getpid() in pids and len(pids) >= 2
    # Only children are told that their results leave the process.
    assert all(remote == (pid != os.getpid()) for pid, remote, _ in results)


@needs_fork
def test_a_slower_process_takes_fewer_items() -> None:
    import time

    parent = os.getpid()

    def work(item: int, remote: bool) -> int:
        if os.getpid() == parent:
            time.sleep(0.05)  # a process on a busy CPU
        return os.getpid()

    pids = fork_dispatch(work, list(range(20)), 2)
    assert pids.count(parent) <= 3


@needs_fork
def test_fork_dispatch_raises_the_first_failing_item_in_order() -> None:
    import time

    parent = os.getpid()

    def work(item: int, remote: bool) -> int:
        if item == 1:
            time.sleep(0.1)  # fails last, but comes first
            raise ValueError(f"item {item}")
        if item == 6:
            raise KeyError(item)
        return item

    with pytest.raises(ValueError, match="item 1"):
        fork_dispatch(work, list(range(10)), 2)
    assert os.getpid() == parent


@needs_fork
def test_items_a_child_does_not_deliver_are_computed_here() -> None:
    parent = os.getpid()

    def dies(item: int, remote: bool) -> tuple[int, int]:
        if os.getpid() != parent:
            os._exit(3)
        return os.getpid(), item

    assert fork_dispatch(dies, list(range(6)), 2) == [(parent, item) for item in range(6)]

    def unpicklable(item: int, remote: bool) -> object:
        return (lambda: None) if remote else (os.getpid(), item)

    assert fork_dispatch(unpicklable, list(range(6)), 2) == [(parent, i) for i in range(6)]


@needs_fork
def test_many_items_are_handed_out_in_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "_MAX_ENTRIES", 4)  # the queue holds four entries
    items = list(range(15))
    results = fork_dispatch(_square_where, items, 2)
    assert [square for _, _, square in results] == [item * item for item in items]
    # Runs of four consecutive items: one process per run.
    for start in range(0, 15, 4):
        assert len({pid for pid, _, _ in results[start : start + 4]}) == 1


def test_fork_dispatch_stays_here_for_one_process_or_item() -> None:
    assert fork_dispatch(_square_where, [3], 4) == [(os.getpid(), False, 9)]
    assert fork_dispatch(_square_where, [1, 2], 1) == [
        (os.getpid(), False, 1),
        (os.getpid(), False, 4),
    ]


def test_with_another_thread_alive_everything_runs_here() -> None:
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not can_fork()
        results = fork_map(_pid_and_squares, split_evenly(list(range(8)), 2))
    finally:
        release.set()
        thread.join()
    assert {pid for pid, _ in results} == {os.getpid()}


def test_job_count_needs_rows_with_side_files_to_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    assert job_count(2, 0) == 1
    assert job_count(2, 63) == 1
    assert job_count(2, 128) == 2
    assert job_count(8, 200) == 3
    assert job_count(1, 10_000) == 1
    monkeypatch.setattr(execution, "available_cpus", lambda: 16)
    assert job_count(None, 100_000) == 4  # auto: one per CPU, at most four
    monkeypatch.setattr(execution, "available_cpus", lambda: 1)
    assert job_count(None, 100_000) == 1
    with pytest.raises(CompareError, match="at least 1"):
        job_count(0, 100)


def test_compare_refuses_fewer_than_one_job_even_where_it_would_not_fork(tmp_path: Path) -> None:
    pair = write_pair(
        tmp_path,
        SyntheticConfig(benchmarks=1, states=2, samples=20),
        seed=1,
        ref_runs=2,
        cmp_runs=2,
    )
    with pytest.raises(CompareError, match="jobs must be at least 1, got 0"):
        compare(list(pair.ref), list(pair.cmp), jobs=0)  # several runs: always one process


def _effect_verdict(ratio: float, draws: np.ndarray | None) -> Verdict:
    lo, hi = (
        (ratio * 0.99, ratio * 1.01)
        if draws is None
        else tuple(np.exp(np.quantile(draws, [0.025, 0.975])))
    )
    effect = Effect(ratio, lo, hi, 0.95, tolerance=0.01, draws=draws)
    return Verdict(Status.SAME, Reason.CI_SAME, effect=effect)


def test_merged_accumulators_give_the_suite_of_one() -> None:
    rng = np.random.default_rng(5)
    verdicts = [
        _effect_verdict(
            ratio, None if index % 3 == 0 else math.log(ratio) + 0.01 * rng.standard_normal(500)
        )
        for index, ratio in enumerate(rng.uniform(0.9, 1.1, 12))
    ]
    whole = SuiteAccumulator()
    for verdict in verdicts:
        whole.absorb(verdict)
    first, second = SuiteAccumulator(), SuiteAccumulator()
    for verdict in verdicts[:5]:
        first.absorb(verdict)
    for verdict in verdicts[5:]:
        second.absorb(verdict)
    first.merge(second)
    expected, merged = whole.summary(), first.summary()
    assert expected is not None and merged is not None
    assert (merged.ratio, merged.rows, merged.flag_rows) == (
        expected.ratio,
        expected.rows,
        expected.flag_rows,
    )
    assert merged.lo == pytest.approx(expected.lo, rel=1e-12)
    assert merged.hi == pytest.approx(expected.hi, rel=1e-12)
    assert merged.expected_false_flags == pytest.approx(expected.expected_false_flags, rel=1e-12)
    # Merging into an empty accumulator copies, whatever the other one holds.
    empty = SuiteAccumulator()
    empty.merge(whole)
    assert empty.summary() == expected


@pytest.fixture
def chunk_counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many chunks each call of the engine's fork_map got (it still does the work)."""
    counts: list[int] = []
    real_fork_map = execution.fork_map

    def spy(work, chunks, **hooks):  # type: ignore[no-untyped-def]
        counts.append(len(chunks))
        return real_fork_map(work, chunks, **hooks)

    monkeypatch.setattr(execution, "fork_map", spy)
    return counts


@pytest.fixture(scope="module")
def bulk_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("workers")
    pair = write_pair(
        root, SyntheticConfig(benchmarks=2, states=80, samples=300), seed=4, random_shifts=12
    )
    # One broken side file: its warning must come out once, in place.
    bins = sorted((root / "cmp.json-bin").iterdir())
    bins[100].write_bytes(b"")
    return pair.ref[0], pair.cmp[0]


@needs_fork
@pytest.mark.parametrize("method", ["ci", "robust"])
def test_rows_from_workers_equal_rows_from_one_process(
    bulk_pair: tuple[Path, Path], method: str, chunk_counts: list[int]
) -> None:
    ref, cmp = bulk_pair
    serial = compare(ref, cmp, method=method, jobs=1)
    assert chunk_counts == []  # one process: no fork_map at all
    parallel = compare(ref, cmp, method=method, jobs=2)
    assert chunk_counts == [2]
    assert parallel.rows == serial.rows
    assert [row.status for row in parallel.rows].count(Status.SLOW) >= 1
    assert parallel.warnings == serial.warnings and len(serial.warnings) == 1
    # Rows from the child are linked to this process's states again: the very objects of
    # the results this comparison loaded, not copies.
    for row in parallel.rows:
        for state in (row.ref_state, row.cmp_state):
            assert state is not None and state.benchmark[state.position] is state
    assert len({id(row.ref_state.benchmark.source) for row in parallel.rows}) == 1  # type: ignore[union-attr]
    half = len(parallel.rows) // 2
    assert pickle.loads(pickle.dumps(parallel.rows[half].verdict)) == serial.rows[half].verdict
    if serial.suite is not None:
        assert parallel.suite is not None
        assert parallel.suite.ratio == serial.suite.ratio
        assert parallel.suite.lo == pytest.approx(serial.suite.lo, rel=1e-9)
        assert parallel.suite.hi == pytest.approx(serial.suite.hi, rel=1e-9)


@needs_fork
def test_workers_decide_from_evidence_gathered_before_they_fork(
    bulk_pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, chunk_counts: list[int]
) -> None:
    # A child that read the decoded documents itself would copy the pages it touches
    # (reference counts): it gets each row's evidence from the parent instead, and only
    # decides. Every state's evidence is built here, none in a child.
    parent = os.getpid()
    built_in: list[int] = []
    real_side_evidence = engine.side_evidence

    def side_evidence(state, *, warn):  # type: ignore[no-untyped-def]
        built_in.append(os.getpid())
        return real_side_evidence(state, warn=warn)

    monkeypatch.setattr(engine, "side_evidence", side_evidence)
    ref, cmp = bulk_pair
    comparison = compare(ref, cmp, method="robust", jobs=2)
    assert chunk_counts == [2]
    assert built_in == [parent] * (2 * len(comparison.rows))


def test_summary_only_rows_stay_in_one_process(tmp_path: Path, chunk_counts: list[int]) -> None:
    pair = write_pair(
        tmp_path, SyntheticConfig(benchmarks=1, states=300, samples=50), seed=2, jsonbin=False
    )
    comparison = compare(pair.ref[0], pair.cmp[0], jobs=4)
    assert chunk_counts == [] and len(comparison.rows) == 300


@needs_fork
def test_calibration_counts_and_directories_survive_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_counts: list[int]
) -> None:
    from cuda.bench.compare.calibrate import Calibration, StateFloor

    config = SyntheticConfig(benchmarks=2, states=3, samples=200)
    for name in ("a", "b"):
        write_pair(tmp_path / "ref_cmp", config, seed=3, prefix=f"{name}_", random_shifts=1)
    ref_dir, cmp_dir = tmp_path / "ref", tmp_path / "cmp"
    ref_dir.mkdir()
    cmp_dir.mkdir()
    for name in ("a", "b"):
        for side, target in (("ref", ref_dir), ("cmp", cmp_dir)):
            source = tmp_path / "ref_cmp" / f"{name}_{side}.json"
            (target / f"{name}.json").write_text(
                source.read_text().replace(
                    f"{name}_{side}.json-", f"../ref_cmp/{name}_{side}.json-"
                )
            )
    calibration = Calibration(
        runs=(),
        target_rate=0.01,
        states=(StateFloor("bench_00", 0, 0, "Elements=1024", 0, 4, 1e-5, 0.1, 0.0, 0.1, 3, 0.25),),
    )
    serial = compare(ref_dir, cmp_dir, calibration=calibration, jobs=1)
    monkeypatch.setattr(execution, "_MIN_ROWS_PER_JOB", 1)  # fork even for these few rows
    parallel = compare(ref_dir, cmp_dir, calibration=calibration, jobs=3)
    assert chunk_counts == [3, 3]  # one split per file pair
    assert parallel.rows == serial.rows and len(serial.rows) == 12
    assert parallel.warnings == serial.warnings
    assert any("no entry for 5 of 6 compared state(s)" in text for text in serial.warnings)
    assert parallel.suite is not None and serial.suite is not None
    assert (parallel.suite.ratio, parallel.suite.rows) == (serial.suite.ratio, serial.suite.rows)
    assert parallel.suite.lo == pytest.approx(serial.suite.lo, rel=1e-12)


@needs_fork
def test_children_already_collected_are_not_signalled_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Chunk 1's child reports an error; the parent raises it and stops chunk 2's child. The
    # child it already reaped must not be signalled: its pid may belong to another process.
    parent = os.getpid()
    collected: list[int] = []
    signalled: list[int] = []
    real_collect, real_kill = workers._collect, os.kill

    def collect(pid: int, pipe: object) -> object:
        collected.append(pid)
        return real_collect(pid, pipe)  # type: ignore[arg-type]

    def kill(pid: int, signal_number: int) -> None:
        if os.getpid() == parent:
            signalled.append(pid)
        real_kill(pid, signal_number)

    monkeypatch.setattr(workers, "_collect", collect)
    monkeypatch.setattr(os, "kill", kill)

    def work(chunk: Sequence[int]) -> int:
        if chunk[0] == 3:
            raise ValueError("chunk 1 fails")
        return sum(chunk)

    with pytest.raises(ValueError, match="chunk 1 fails"):
        fork_map(work, split_evenly(list(range(9)), 3))
    assert len(collected) == 1 and len(signalled) == 1
    assert signalled[0] != collected[0]


@pytest.mark.parametrize(
    ("files", "cap"),
    [
        ({"cpu.max": "150000 100000\n"}, 1),  # v2: one and a half CPUs' worth
        ({"cpu.max": "300000 100000\n"}, 3),
        ({"cpu.max": "max 100000\n"}, None),  # v2 without a limit
        ({"cpu/cpu.cfs_quota_us": "200000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2),  # v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
        ({"cpu.max": "garbage"}, None),
        ({}, None),  # no cgroup file system
    ],
)
def test_a_containers_cpu_quota_caps_the_cpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], cap: int | None
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert workers.available_cpus(str(tmp_path)) == (64 if cap is None else cap)
