"""The kernels of ``record.sh``: copy, saxpy and sum at 7 sizes, timed with NVIDIA's
``cuda-bench`` (its ``cuda.bench``, not this project's; run on the GPU machine only).
``AA_SLOW=1.03`` makes saxpy do 3 % more work under the same state name."""

import os
import sys

import cuda.bench as nb
import cupy as cp

SIZES = [2**e for e in (12, 16, 19, 21, 23, 25, 27)]  # 4K .. 128M float32 elements

_saxpy = cp.ElementwiseKernel(
    "float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "aa_saxpy"
)
_copy = cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "aa_copy")


def _stream(launch_or_state):
    return cp.cuda.ExternalStream(launch_or_state.get_stream().__cuda_stream__()[1])


def _setup(state, n_in, n_out):
    n = state.get_int64("Elements")
    state.add_element_count(n)
    state.add_global_memory_reads(4 * n * n_in)
    state.add_global_memory_writes(4 * n_out)
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    return n, x, y


def bench_copy(state):
    n, x, _ = _setup(state, 1, 0)
    state.add_global_memory_writes(4 * n)
    out = cp.empty_like(x)

    def launcher(launch):
        with _stream(launch):
            _copy(x, out)

    with _stream(state):
        _copy(x, out)
    cp.cuda.Device().synchronize()
    state.exec(launcher, batched=False)


SLOW = float(os.environ.get("AA_SLOW", "1"))


def bench_saxpy(state):
    n, _, _ = _setup(state, 2, 0)
    state.add_global_memory_writes(4 * n)
    work = round(n * SLOW)
    x = cp.arange(work, dtype=cp.float32)
    y = cp.ones(work, dtype=cp.float32)
    out = cp.empty_like(x)
    a = cp.float32(1.5)

    def launcher(launch):
        with _stream(launch):
            _saxpy(a, x, y, out)

    with _stream(state):
        _saxpy(a, x, y, out)
    cp.cuda.Device().synchronize()
    state.exec(launcher, batched=False)


def bench_sum(state):
    _, x, _ = _setup(state, 1, 1)
    res = cp.empty((), dtype=cp.float32)

    def launcher(launch):
        with _stream(launch):
            cp.sum(x, out=res)

    with _stream(state):
        cp.sum(x, out=res)
    cp.cuda.Device().synchronize()
    state.exec(launcher, batched=False, sync=True)


if __name__ == "__main__":
    for fn in (bench_copy, bench_saxpy, bench_sum):
        nb.register(fn).add_int64_axis("Elements", SIZES)
    nb.run_all_benchmarks(sys.argv)
