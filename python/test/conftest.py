"""Shared fixtures: where the real NVBench files live, and a skip when they are absent."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

_REPO = Path(__file__).resolve().parents[2]


def _shared_data_dir() -> Path:
    override = os.environ.get("NVBENCH_TOOLS_SHARED_DATA")
    if override:
        return Path(override)
    return _REPO.parent / "shared" / "data"


SHARED_DATA = _shared_data_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (real files written by NVBench), read in place."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real NVBench files not available: {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def gpu_dir(shared_data: Path) -> Path:
    return shared_data / "nvbench-format-examples" / "gpu"


@pytest.fixture(scope="session")
def cpu_dir(shared_data: Path) -> Path:
    return shared_data / "nvbench-format-examples" / "cpu"


@pytest.fixture(scope="session")
def upstream_2021_dir(shared_data: Path) -> Path:
    return shared_data / "upstream-2021-two-gpus"


@pytest.fixture
def engine_forks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[int]]]:
    """Each call of the comparison engine's fork_map (first passes) and fork_dispatch
    (benchmarks): how many pieces of work it got and the pids that did them.

    Splitting is forced however small the input (the real thresholds are megabytes)."""
    from cuda.bench.compare import api

    monkeypatch.setattr(api, "_MIN_SPLIT_BYTES", 1)
    monkeypatch.setattr(api, "_MIN_PARALLEL_FIRST_PASS_BYTES", 1)
    calls: list[tuple[int, list[int]]] = []
    real_map, real_dispatch = api.fork_map, api.fork_dispatch

    def map_spy(work: Callable[[Any], Any], chunks: Sequence[Any]) -> list[Any]:
        results = real_map(lambda chunk: (os.getpid(), work(chunk)), chunks)
        calls.append((len(chunks), [pid for pid, _ in results]))
        return [result for _, result in results]

    def dispatch_spy(
        work: Callable[[Any, bool], Any], items: Sequence[Any], processes: int
    ) -> list[Any]:
        results = real_dispatch(
            lambda item, remote: (os.getpid(), work(item, remote)), items, processes
        )
        calls.append((processes, [pid for pid, _ in results]))
        return [result for _, result in results]

    monkeypatch.setattr(api, "fork_map", map_spy)
    monkeypatch.setattr(api, "fork_dispatch", dispatch_spy)
    return calls
