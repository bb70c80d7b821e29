"""Ctrl-C while a command runs: ``interrupted`` and exit status 130, whatever a library in
the middle of its work made of the :class:`KeyboardInterrupt` (DuckDB raises ``RuntimeError:
Query interrupted`` in its place, or drops it when the query ends anyway)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Sequence

import pytest
from cuda.bench.cli._common import run


def _interrupted(capsys: pytest.CaptureFixture[str], main: object) -> None:
    assert run(main, [], "tool") == 130  # type: ignore[arg-type]
    assert capsys.readouterr().err == "tool: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupt_turned_into_another_error_is_an_interrupt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def main(argv: Sequence[str] | None) -> int:
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None
        return 0

    _interrupted(capsys, main)


def test_an_interrupt_a_library_dropped_is_an_interrupt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def main(argv: Sequence[str] | None) -> int:
        # Dropped, as DuckDB does when the query ends before it looks.
        with contextlib.suppress(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        return 0

    _interrupted(capsys, main)


def test_ctrl_c_in_a_duckdb_query_is_an_interrupt(capsys: pytest.CaptureFixture[str]) -> None:
    """``nvbench-history gate`` interrupted in a query ended with DuckDB's ``RuntimeError:
    Query interrupted`` traceback and exit status 1."""
    duckdb = pytest.importorskip("duckdb", reason="DuckDB: pip install '.[history]'")

    def main(argv: Sequence[str] | None) -> int:
        connection = duckdb.connect()
        connection.execute("SET enable_progress_bar = false")
        timer = threading.Timer(0.3, signal.raise_signal, [signal.SIGINT])
        # raise_signal from another thread: Python runs the handler in the main thread.
        timer.start()
        try:
            # Seconds of work, which DuckDB stops; should it miss the interrupt, the query
            # still ends (the interrupt is one all the same).
            connection.execute("SELECT count(*) FROM range(200000000) t(x) WHERE x % 7 = 3")
        finally:
            timer.cancel()
            connection.close()
        return 0

    _interrupted(capsys, main)


def test_a_handler_of_the_caller_is_left_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """Where SIGINT is not Python's default (a caller's handler, or ignored), it stays so."""
    seen: list[int] = []

    def mine(signum: int, frame: object) -> None:
        seen.append(signum)

    def main(argv: Sequence[str] | None) -> int:
        assert signal.getsignal(signal.SIGINT) is mine
        signal.raise_signal(signal.SIGINT)
        return 0

    previous = signal.signal(signal.SIGINT, mine)
    try:
        assert run(main, [], "tool") == 0
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]
    assert capsys.readouterr().err == ""
