"""What the reader tests share: the real files every reader must read alike, and what they
compare of two results."""

from __future__ import annotations

from cuda.bench.results import BenchmarkResult

#: Real NVBench files under ``../shared/data`` of each layout the readers handle.
REAL_FILES = (
    "nvbench-format-examples/gpu/gpu_ref.json",
    "nvbench-format-examples/cpu/cpu_run1.json",
    "upstream-2021-two-gpus/ref.json",  # the unversioned map layout
)


def contents(result: BenchmarkResult) -> list[object]:
    """Every state's identity, skip status, axis values (stored and typed) and summaries
    (metadata and typed data), in file order."""
    return [
        (
            state.benchmark.name,
            state.position,
            state.state_name,
            state.device,
            state.is_skipped,
            state.skip_reason,
            [(value.name, value.type, value.value, value.typed) for value in state.axis_values],
            state.summaries,
        )
        for state in result.states()
    ]
