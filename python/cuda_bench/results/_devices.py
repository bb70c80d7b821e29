"""What a built document says about the machine and NVBench: :class:`DeviceSpec` (the
device fields of spec §3.3) and :class:`VersionInfo` (``meta.version.nvbench``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._schema import NvbenchVersion

__all__ = ["DeviceSpec", "VersionInfo"]


@dataclass(frozen=True)
class DeviceSpec:
    """The 19 device fields of §3.3. Defaults describe an H100 80GB HBM3 (spec Example A).

    ``global_memory_bus_bandwidth=None`` derives it as NVBench does:
    ``2 * global_memory_bus_peak_clock_rate * (global_memory_bus_width // 8)``.
    """

    id: int = 0
    name: str = "NVIDIA H100 80GB HBM3"
    sm_version: int = 900
    ptx_version: int = 900
    sm_default_clock_rate: int = 1_980_000_000
    number_of_sms: int = 132
    max_blocks_per_sm: int = 32
    max_threads_per_sm: int = 2048
    max_threads_per_block: int = 1024
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    global_memory_size: int = 84_929_347_584
    global_memory_bus_peak_clock_rate: int = 2_619_000_000
    global_memory_bus_width: int = 5120
    global_memory_bus_bandwidth: int | None = None
    l2_cache_size: int = 52_428_800
    shared_memory_per_sm: int = 233_472
    shared_memory_per_block: int = 49_152
    ecc_state: bool = True

    @classmethod
    def h100(cls, id: int = 0) -> DeviceSpec:
        """An NVIDIA H100 80GB HBM3 (SM 9.0, 132 SMs, 1980 MHz, 3.35 TB/s)."""
        return cls(id=id)

    @classmethod
    def a100(cls, id: int = 0) -> DeviceSpec:
        """An NVIDIA A100-SXM4-80GB (SM 8.0, 108 SMs, 1410 MHz, 2.04 TB/s)."""
        return cls(
            id=id,
            name="NVIDIA A100-SXM4-80GB",
            sm_version=800,
            ptx_version=800,
            sm_default_clock_rate=1_410_000_000,
            number_of_sms=108,
            global_memory_size=84_974_239_744,
            global_memory_bus_peak_clock_rate=1_593_000_000,
            l2_cache_size=41_943_040,
            shared_memory_per_sm=167_936,
        )

    @property
    def peak_bandwidth(self) -> int:
        """Bytes/s: the stored bandwidth, or NVBench's formula when none was given."""
        if self.global_memory_bus_bandwidth is not None:
            return self.global_memory_bus_bandwidth
        return 2 * self.global_memory_bus_peak_clock_rate * (self.global_memory_bus_width // 8)

    def to_json(self) -> dict[str, Any]:
        """The device object in NVBench's key order."""
        return {
            "id": self.id,
            "name": self.name,
            "sm_version": self.sm_version,
            "ptx_version": self.ptx_version,
            "sm_default_clock_rate": self.sm_default_clock_rate,
            "number_of_sms": self.number_of_sms,
            "max_blocks_per_sm": self.max_blocks_per_sm,
            "max_threads_per_sm": self.max_threads_per_sm,
            "max_threads_per_block": self.max_threads_per_block,
            "registers_per_sm": self.registers_per_sm,
            "registers_per_block": self.registers_per_block,
            "global_memory_size": self.global_memory_size,
            "global_memory_bus_peak_clock_rate": self.global_memory_bus_peak_clock_rate,
            "global_memory_bus_width": self.global_memory_bus_width,
            "global_memory_bus_bandwidth": self.peak_bandwidth,
            "l2_cache_size": self.l2_cache_size,
            "shared_memory_per_sm": self.shared_memory_per_sm,
            "shared_memory_per_block": self.shared_memory_per_block,
            "ecc_state": self.ecc_state,
        }


@dataclass(frozen=True)
class VersionInfo:
    """``meta.version.nvbench``; defaults name the NVBench build the spec describes."""

    major: int = 0
    minor: int = 1
    patch: int = 0
    git_branch: str = "main"
    git_sha: str = "66212f1da71cc9afb2894a46fa8f234cbdd6c0d8"
    git_version: str = "66212f1"
    git_is_dirty: bool = False

    def to_schema(self) -> NvbenchVersion:
        return NvbenchVersion(
            major=self.major,
            minor=self.minor,
            patch=self.patch,
            string=f"{self.major}.{self.minor}.{self.patch}",
            git_branch=self.git_branch,
            git_sha=self.git_sha,
            git_version=self.git_version,
            git_is_dirty=self.git_is_dirty,
        )
