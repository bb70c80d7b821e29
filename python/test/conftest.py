"""Shared fixtures: where the real NVBench files live, and a skip when they are absent."""

from __future__ import annotations

import os
from pathlib import Path

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
