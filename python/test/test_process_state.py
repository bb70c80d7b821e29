"""A library call leaves the process as it found it; only the program's entry points tune it.

``compare()``, the reader in every mode and ``cli.compare.main(argv)`` called in-process
must not pause, freeze or re-tune the caller's garbage collector, nor touch the C allocator;
``console_main`` (the console scripts, ``python -m cuda.bench.compare``) runs in
:func:`cuda.bench.cli._process.tuned_process`.
"""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cuda.bench.cli import compare as cli
from cuda.bench.cli._process import tuned_process
from cuda.bench.compare import compare
from cuda.bench.results import BenchmarkResult
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"

GcState = tuple[bool, tuple[int, ...], int]


def gc_state() -> GcState:
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two benchmarks with side files, one state 30 % slower."""
    root = tmp_path_factory.mktemp("process")
    written = write_pair(
        root,
        SyntheticConfig(benchmarks=2, states=4, samples=200),
        seed=5,
        shifts={("bench_01", "Device=0 Elements=2048"): 1.3},
    )
    return written.ref[0], written.cmp[0]


@pytest.fixture
def untouchable_collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Records every call that would change the collector's process-wide state."""
    calls: list[str] = []
    for name in ("disable", "enable", "freeze", "unfreeze", "set_threshold"):
        original = getattr(gc, name)

        def spy(*args: object, _name: str = name, _original: object = original) -> object:
            calls.append(_name)
            return _original(*args)  # type: ignore[operator]

        monkeypatch.setattr(gc, name, spy)
    yield calls


@contextlib.contextmanager
def unusual_collector() -> Iterator[GcState]:
    """A collector set up as no default would have it, restored afterwards. Nothing is
    frozen: frozen objects that die leave the count, so only 0 stays put for sure."""
    saved = gc_state()
    gc.set_threshold(1234, 7, 9)
    try:
        yield gc_state()
    finally:
        gc.set_threshold(*saved[1])
        (gc.enable if saved[0] else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_compare_leaves_the_collector_as_it_found_it(
    pair: tuple[Path, Path], enabled: bool
) -> None:
    with unusual_collector():
        (gc.enable if enabled else gc.disable)()
        before = gc_state()
        for options in ({}, {"filters": [("benchmark", "bench_01")]}, {"method": "ci"}):
            comparison = compare(*pair, jobs=1, **options)
            assert comparison.rows
            assert gc_state() == before, options


@pytest.mark.parametrize(
    "options",
    [{}, {"filters": [("benchmark", "bench_01")]}, {"method": "ci"}, {"method": "robust"}],
)
def test_compare_never_pauses_the_collector(
    pair: tuple[Path, Path], untouchable_collector: list[str], options: dict[str, object]
) -> None:
    # Pausing and resuming leaves the state as it was, but for the duration of the call
    # another thread of the caller's would run without its collector.
    assert compare(*pair, jobs=1, **options).rows
    assert untouchable_collector == []


@pytest.mark.parametrize("lazy", [True, False])
def test_reading_never_pauses_the_collector(
    pair: tuple[Path, Path], untouchable_collector: list[str], lazy: bool
) -> None:
    result = BenchmarkResult.from_json(pair[0], lazy=lazy)
    state = next(iter(result.benchmarks[0]))
    assert state.summaries and state.samples is not None
    assert untouchable_collector == []


def test_main_in_process_leaves_the_process_as_it_found_it(
    pair: tuple[Path, Path],
    untouchable_collector: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with unusual_collector() as before:
        untouchable_collector.clear()
        status = cli.main(["--no-color", "--method", "robust", *map(str, pair)])
        assert gc_state() == before
        assert untouchable_collector == []
    assert status == 0, capsys.readouterr().err
    assert "SLOW" in capsys.readouterr().out


def test_console_main_runs_in_the_tuned_process(
    pair: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    entered: list[GcState] = []

    @contextlib.contextmanager
    def recording() -> Iterator[None]:
        entered.append(gc_state())
        yield

    monkeypatch.setattr("cuda.bench.cli._process.tuned_process", recording)
    monkeypatch.setattr(sys, "argv", ["nvbench_compare", "--no-color", *map(str, pair)])
    assert cli.console_main() == 0
    assert len(entered) == 1
    assert "SLOW" in capsys.readouterr().out


def test_tuned_process_pauses_the_collector_and_freezes_what_the_run_built() -> None:
    with unusual_collector():
        gc.enable()
        frozen = gc.get_freeze_count()
        with tuned_process():
            assert not gc.isenabled()
            built = [[index] for index in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(built)
        gc.disable()
        with tuned_process():
            pass
        assert not gc.isenabled()  # as it was before


def tracked_containers() -> int:
    return sum(1 for item in gc.get_objects() if type(item) in (list, tuple, dict))


def test_a_comparisons_decoded_records_leave_the_collector_little_to_walk(
    tmp_path: Path,
) -> None:
    # The caller's collector runs during and after compare(): every container it tracks
    # is walked by each full collection. The decoded summaries are tuples of untracked
    # records, which the collector stops tracking.
    written = write_pair(
        tmp_path, SyntheticConfig(benchmarks=2, states=100, samples=50), seed=1, jsonbin=False
    )
    gc.collect()
    before = tracked_containers()
    comparison = compare(written.ref[0], written.cmp[0], method="robust", jobs=1)
    gc.collect()
    assert len(comparison.rows) == 200
    # A few per row (rows, states, evidence); decoded as lists, a state's summaries added
    # more than sixty.
    assert tracked_containers() - before < 10 * len(comparison.rows)


def test_the_package_does_not_reach_into_the_interpreter_with_ctypes() -> None:
    # Nothing in the package may call into the interpreter or the C library through
    # ctypes (mallopt, PyObject_GetBuffer, ...): the by-benchmark reader finds where each
    # benchmark's states lie by searching the mapped bytes, not by buffer addresses.
    users = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(import ctypes|from ctypes\b)", path.read_text(), re.MULTILINE)
        or re.search(r"\bctypes\.", path.read_text())
    )
    assert users == []


def test_main_in_process_gives_the_streams_their_encoding_back() -> None:
    """Every command writes UTF-8 while it runs (emoji, names of any script on a console of
    another encoding); a program calling ``main(argv)`` under ``LC_ALL=C`` kept stdout and
    stderr in UTF-8 with 'replace' for the rest of its life."""
    import os
    import subprocess

    script = (
        "import sys\n"
        "from cuda.bench.cli import history\n"
        "def state():\n"
        "    return [(s.encoding, s.errors) for s in (sys.stdout, sys.stderr)]\n"
        "before = state()\n"
        "history.main(['trend', '--archive', '/nonexistent/archive'])\n"
        "print(before == state(), before, state(), file=sys.stderr)\n"
    )
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("True"), done.stderr
