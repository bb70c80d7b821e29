"""The environment fingerprint of a run: the archive's ``machine`` partition, and what the
gate and ``baseline check`` hold runs of one environment by.

GPU name, SM version and count, default SM and memory clocks, ECC, NVBench version; driver
and CUDA versions are not in NVBench's files (they can come as tags). A CPU-only run has no
devices, so its fingerprint is that of its NVBench version alone.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ..results._tools_api import BenchmarkResult

__all__ = ["DEVICE_FIELDS", "machine_fingerprint"]

#: The fields of a device the fingerprint (and the archive's ``devices`` column) holds.
DEVICE_FIELDS: Final = (
    "name",
    "sm_version",
    "number_of_sms",
    "sm_default_clock_rate",
    "global_memory_bus_peak_clock_rate",
    "ecc_state",
)


def machine_fingerprint(result: BenchmarkResult) -> str:
    """The environment fingerprint of ``result`` (the archive's ``machine`` partition)."""
    devices = sorted(
        {
            device.id: device for bench in result.values() for device in bench.device_info.values()
        }.items()
    )
    described = [[device.get(name) for name in DEVICE_FIELDS] for _, device in devices]
    text = json.dumps([described, result.meta.nvbench_version], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
