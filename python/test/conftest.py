"""Shared fixtures: where the real NVBench files live, and a skip when they are absent; torch
or one skip reason without it; skipped tests summarised by reason at the end of a run."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
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
        pytest.skip(
            f"real NVBench files not available: {SHARED_DATA} is absent"
            " (set NVBENCH_TOOLS_SHARED_DATA to where they are)"
        )
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
    """Each call of the comparison's fork_map (rows) and fork_dispatch (benchmarks): how
    many pieces of work it got and the pids that did them.

    Splitting is forced however small the input (the real thresholds are megabytes)."""
    from cuda.bench.compare import execution

    monkeypatch.setattr(execution, "_MIN_SPLIT_BYTES", 1)
    calls: list[tuple[int, list[int]]] = []
    real_map, real_dispatch = execution.fork_map, execution.fork_dispatch

    def map_spy(work: Callable[[Any], Any], chunks: Sequence[Any]) -> list[Any]:
        pids: list[int] = []
        calls.append((len(chunks), pids))  # before the work: also when a child raises
        results = real_map(lambda chunk: (os.getpid(), work(chunk)), chunks)
        pids.extend(pid for pid, _ in results)
        return [result for _, result in results]

    def dispatch_spy(
        work: Callable[[Any, bool], Any], items: Sequence[Any], processes: int
    ) -> list[Any]:
        pids: list[int] = []
        calls.append((processes, pids))  # before the work: also when a child raises
        results = real_dispatch(
            lambda item, remote: (os.getpid(), work(item, remote)), items, processes
        )
        pids.extend(pid for pid, _ in results)
        return [result for _, result in results]

    monkeypatch.setattr(execution, "fork_map", map_spy)
    monkeypatch.setattr(execution, "fork_dispatch", dispatch_spy)
    return calls


# -- PyTorch: optional for the suite, required in CI ---------------------------------------------

TORCH_ABSENT = "PyTorch is not installed (python -m pip install -e '.[torch]' to run these tests)"
REQUIRE_TORCH = "NVBENCH_TOOLS_REQUIRE_TORCH"


def import_torch() -> ModuleType:
    """torch, or a skip of the calling test (or module, when called at import) with the one
    reason :data:`TORCH_ABSENT`. With ``NVBENCH_TOOLS_REQUIRE_TORCH=1`` (``.ci/run`` sets it)
    such skips make the run fail, so a CI machine without torch cannot pass by skipping."""
    try:
        import torch
    except ModuleNotFoundError as error:
        if error.name != "torch":
            raise  # torch is there but broken: an error, not a skip
        pytest.skip(TORCH_ABSENT, allow_module_level=True)
    return torch


# -- skips by reason ------------------------------------------------------------------------------


def skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return message.removeprefix("Skipped: ")


class SkipTally:
    """Counts skipped tests by reason; prints one line per reason (not one per test, as ``-rs``
    does) and fails a run that skipped torch tests although ``NVBENCH_TOOLS_REQUIRE_TORCH=1``."""

    def __init__(self) -> None:
        self.reasons: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            self.reasons[skip_reason(report)] += 1

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:
            self.reasons[skip_reason(report)] += 1

    def torch_required_but_skipped(self) -> int:
        return self.reasons[TORCH_ABSENT] if os.environ.get(REQUIRE_TORCH) == "1" else 0

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.torch_required_but_skipped() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.reasons:
            terminalreporter.write_sep("=", "skipped, by reason (pytest -rs lists each test)")
            for reason, count in self.reasons.most_common():
                terminalreporter.write_line(f"{count:5d}  {reason}")
        missing = self.torch_required_but_skipped()
        if missing:
            terminalreporter.write_line(
                f"error: {REQUIRE_TORCH}=1 but torch is not installed: the run fails"
                f" ({missing} skipped for want of it)",
                red=True,
                bold=True,
            )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkipTally(), "nvbench-tools-skip-tally")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first, the order otherwise kept: parallel workers (``-n auto``)
    then start them together, instead of one worker ending the run on them while the others
    are idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
