"""Shared fixtures: where the real NVBench files live, and a skip when they are absent; torch
or one skip reason without it; skipped tests summarised by reason at the end of a run."""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, Final

import pytest

_REPO = Path(__file__).resolve().parents[2]


def _shared_data_dir() -> Path:
    override = os.environ.get("NVBENCH_TOOLS_SHARED_DATA")
    if override:
        return Path(override)
    return _REPO.parent / "shared" / "data"


SHARED_DATA = _shared_data_dir()

#: What the tests read of each real data set (a folder under the shared data): a fixture of
#: the folder skips unless all of it is there, so an empty or partial copy of the data
#: (``NVBENCH_TOOLS_SHARED_DATA`` pointing at the wrong folder) skips rather than fails.
DATA_SETS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "nvbench-format-examples/gpu": (
            *(
                f"gpu_{side}{suffix}"
                for side in ("ref", "cmp")
                for suffix in (
                    ".json",
                    ".json-bin",
                    ".json-freqs-bin",
                    ".md",
                    ".csv",
                    "_plain.json",
                )
            ),
            "gpu_ref_nosidecar.json",
        ),
        "nvbench-format-examples/cpu": tuple(
            f"cpu_run{run}{suffix}"
            for run in (1, 2)
            for suffix in (".json", ".json-bin", ".md", ".csv", "_plain.json")
        ),
        "upstream-2021-two-gpus": ("ref.json", "cmp.json"),
    }
)


def absent_reason(path: Path) -> str:
    """The skip reason of a test whose real file (or folder) ``path`` is absent."""
    return (
        f"real NVBench files not available: {path} is absent"
        " (set NVBENCH_TOOLS_SHARED_DATA to where they are)"
    )


def real_path(relative: str | Path) -> Path:
    """``relative`` under the shared data, or a skip of the calling test naming what is absent:
    the data set (:data:`DATA_SETS`) that ``relative`` is or lies in, its first missing file,
    or ``relative`` itself."""
    within = Path(relative).as_posix()
    for folder, names in DATA_SETS.items():
        if within == folder or within.startswith(f"{folder}/"):
            for path in (SHARED_DATA / folder, *(SHARED_DATA / folder / name for name in names)):
                if not path.exists():
                    pytest.skip(absent_reason(path))
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(absent_reason(path))
    return path


#: The benchmark scripts, which some tests import to run their studies small.
BENCHMARKS: Final = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark_module(
    monkeypatch: pytest.MonkeyPatch, name: str, *loaded: str
) -> Iterator[ModuleType]:
    """For a fixture to ``yield from``: ``python/benchmarks/<name>.py`` imported, and after
    the test it and the benchmark modules it ``loaded`` forgotten, so that each test imports
    them against the code as it is then."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    yield importlib.import_module(name)
    for module in (name, *loaded):
        sys.modules.pop(module, None)


def upstream_tool(name: str) -> Path:
    """NVIDIA's command-line tool ``name`` in ``NVBENCH_UPSTREAM_BIN`` (.ci/run installs
    cuda-bench there), or a skip of the calling test saying what is missing."""
    directory = os.environ.get("NVBENCH_UPSTREAM_BIN")
    if not directory:
        pytest.skip("NVBENCH_UPSTREAM_BIN is not set (directory of NVIDIA's cuda-bench tools)")
    binary = Path(directory) / name
    if not binary.is_file():
        pytest.skip(f"{binary} does not exist")
    return binary


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (real files written by NVBench), read in place.
    Tests reading a file under it get it through :func:`real_path` or a data set's fixture,
    which skip when that file is absent (an existing but empty folder skips too)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(absent_reason(SHARED_DATA))
    return SHARED_DATA


@pytest.fixture(scope="session")
def gpu_dir() -> Path:
    return real_path("nvbench-format-examples/gpu")


@pytest.fixture(scope="session")
def cpu_dir() -> Path:
    return real_path("nvbench-format-examples/cpu")


@pytest.fixture(scope="session")
def upstream_2021_dir() -> Path:
    return real_path("upstream-2021-two-gpus")


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
        # The processes take items from a common queue, so on a busy machine this one could
        # take them all before a child had started (CI, 2026-11-29: three benchmarks, one
        # pid). Each process that takes an item waits (10 s at most) until every process
        # has taken one, so that the tests see the work shared whatever the load.
        with tempfile.TemporaryDirectory(prefix="nvbench-forks-") as meeting:
            takers = min(processes, len(items))

            def met(item: Any, remote: bool) -> tuple[int, Any]:
                Path(meeting, str(os.getpid())).touch()
                deadline = time.monotonic() + 10.0
                while len(os.listdir(meeting)) < takers and time.monotonic() < deadline:
                    time.sleep(0.002)
                return os.getpid(), work(item, remote)

            results = real_dispatch(met, items, processes)
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
