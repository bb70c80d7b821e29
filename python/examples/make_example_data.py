"""Write the example NVBench results in ``python/examples/data/`` (made by our own writer).

Two runs of a made-up ``reduce``/``scan`` benchmark suite on one H100, with ``--jsonbin``
side files: ``ref.json`` and ``cmp.json``. The compare run has two known changes, which
``nvbench_compare`` should find and nothing else:

* ``reduce`` ``T=F64 Elements=2^24``: 6 % slower;
* ``scan`` ``Elements=2^20``: 9 % faster.

Samples follow the physics NVBench sees: a cycle count per sample with 1 % log-normal jitter,
an SM clock near 1.755 GHz, and GPU time = cycles / clock, rounded like CUDA events report
it. The same seed always gives byte-identical files::

    python python/examples/make_example_data.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from cuda.bench.results import DeviceSpec, Pow2Axis, ResultBuilder, TypeAxis

SAMPLES = 2000
CLOCK_HZ = 1.755e9
#: (benchmark, axis values) → factor applied to the compare run's times.
CHANGES = {
    ("reduce", ("F64", 24)): 1.06,
    ("scan", ("I32", 20)): 0.91,
}


def _measurement(
    rng: np.random.Generator, base_seconds: float, factor: float
) -> tuple[np.ndarray, np.ndarray]:
    cycles = base_seconds * CLOCK_HZ * factor * rng.lognormal(0.0, 0.01, SAMPLES)
    clocks = CLOCK_HZ + rng.normal(0.0, 2e6, SAMPLES)
    # CUDA events report float32 milliseconds.
    times = (cycles / clocks * 1e3).astype(np.float32).astype(np.float64) / 1e3
    return times, clocks


def write_run(path: Path, *, side: str, seed: int) -> None:
    rng = np.random.default_rng([seed, 0 if side == "ref" else 1])
    builder = ResultBuilder(
        devices=[DeviceSpec.h100(0)], argv=["./example_bench", "--jsonbin", path.name]
    )
    suites = {
        "reduce": (TypeAxis("T", ["F32", "F64"]), (1.0, 1.9)),
        "scan": (TypeAxis("T", ["I32", "I64"]), (1.3, 2.4)),
    }
    for name, (type_axis, type_cost) in suites.items():
        bench = builder.benchmark(name, axes=[type_axis, Pow2Axis("Elements", [16, 20, 24])])
        for type_value, cost in zip(
            ("F32", "F64") if name == "reduce" else ("I32", "I64"), type_cost, strict=False
        ):
            for exponent in (16, 20, 24):
                elements = 2**exponent
                base = 2.5e-6 + cost * elements * 4 / 2.0e12
                factor = CHANGES.get((name, (type_value, exponent)), 1.0) if side == "cmp" else 1.0
                times, clocks = _measurement(rng, base, factor)
                bench.state(
                    {"T": type_value, "Elements": elements},
                    gpu_times=times,
                    cpu_times=times + 4.1e-6,
                    frequencies=clocks,
                    element_count=elements,
                    global_memory_bytes=elements * (8 if type_value.endswith("64") else 4),
                    batch_mean=float(np.mean(times)) * 0.97,
                    batch_count=SAMPLES,
                )
    builder.write(path, jsonbin=True)


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent / "data"
    target.mkdir(parents=True, exist_ok=True)
    write_run(target / "ref.json", side="ref", seed=2026)
    write_run(target / "cmp.json", side="cmp", seed=2026)
    print(f"wrote {target / 'ref.json'} and {target / 'cmp.json'} (with side files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
