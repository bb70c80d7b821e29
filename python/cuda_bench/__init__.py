"""nvbench-tools: read, compare and summarize NVBench results.

``cuda.bench`` is also the package of NVIDIA's cuda-bench, whose wheel writes this same
file. Where cuda-bench is installed, NVIDIA's benchmark runner resolves here lazily, from
NVIDIA's own modules and with their behaviour (``cuda.bench.register``, ``axis``, ``option``,
``State``, ``run_all_benchmarks``, ...; docs/coinstall.md); without it those names raise an
ImportError saying how to install it. ``import cuda.bench`` stays cheap either way.
"""

from typing import Any, Final

#: Marks this ``__init__`` as nvbench-tools' (read by the co-install check).
_NVBENCH_TOOLS_PACKAGE: Final = True

#: Overrides the runner's ``register`` (a hook NVIDIA's package has for its tests).
_register: Any = None


def __getattr__(name: str) -> Any:
    # Imported here, not above: ``import cuda.bench`` (every command's --help) stays small.
    if name == "__version__":
        from ._tools_version import __version__

        return __version__
    from ._coinstall import runner_attribute

    return runner_attribute(globals(), name)


def __dir__() -> list[str]:
    from ._coinstall import RUNNER_NAMES

    return sorted({*globals(), "__version__", *RUNNER_NAMES})
