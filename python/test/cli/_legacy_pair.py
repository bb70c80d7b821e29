"""A synthetic pair of NVBench files whose states sit on the edges of NVIDIA's legacy rule
(one benchmark per case, one state each, one device): the mean and relative standard
deviation summaries are set as NVBench writes them (strings; ``null`` for infinite)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from cuda.bench.results._builder import ResultBuilder
from cuda.bench.results._devices import DeviceSpec

MEAN = "nv/cold/time/gpu/mean"
NOISE = "nv/cold/time/gpu/stdev/relative"

#: case -> (ref mean, ref noise, cmp mean, cmp noise, NVIDIA's status).
CASES: dict[str, tuple[str, str | None, str, str | None, str]] = {
    "slow": ("1e-05", "0.01", "1.05e-05", "0.02", "SLOW"),
    "fast": ("1e-05", "0.04", "9.7e-06", "0.02", "FAST"),
    "same": ("1e-05", "0.02", "1.01e-05", "0.05", "SAME"),
    "equal_to_noise": ("1.0", "0.25", "1.25", "0.5", "SAME"),  # <=, exactly representable
    "ref_noise_null": ("1e-05", None, "1.01e-05", "0.005", "SLOW"),
    "both_noise_null": ("1e-05", None, "2e-05", None, "????"),
    "zero_noise": ("1e-05", "0", "1.1e-05", "0.05", "????"),  # the smaller noise is 0
}


def _write(path: Path, side: int) -> None:
    builder = ResultBuilder(devices=[DeviceSpec.h100(0)])
    times = 1e-5 * np.exp(np.random.default_rng(side).normal(0.0, 0.01, 200))
    for name in CASES:
        builder.benchmark(name).state(None, gpu_times=times)
    builder.write(path, jsonbin=False)
    document = json.loads(path.read_text(encoding="utf-8"))
    for bench in document["benchmarks"]:
        values = CASES[bench["name"]][2 * side : 2 * side + 2]
        for summary in bench["states"][0]["summaries"]:
            for tag, value in zip((MEAN, NOISE), values, strict=True):
                if summary["tag"] == tag:
                    summary["data"][0]["value"] = value
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


def write_legacy_pair(directory: Path) -> tuple[Path, Path]:
    """``ref.json`` and ``cmp.json`` in ``directory`` (statuses: :data:`CASES`)."""
    ref, cmp = directory / "ref.json", directory / "cmp.json"
    _write(ref, 0)
    _write(cmp, 1)
    return ref, cmp
