"""nvbench-tools: read, compare and summarize NVBench results.

``cuda.bench`` is also the package of NVIDIA's cuda-bench, whose wheel writes this same
file. Where cuda-bench is installed, NVIDIA's benchmark runner resolves here lazily, from
NVIDIA's own modules and with their behaviour (``cuda.bench.register``, ``axis``, ``option``,
``State``, ``run_all_benchmarks``, ...; docs/coinstall.md); without it those names raise an
ImportError saying how to install it. ``import cuda.bench`` stays cheap either way.
"""

from typing import Any, Final

from . import _coinstall
from ._tools_version import __version__ as __version__

#: Marks this ``__init__`` as nvbench-tools' (read by the co-install check).
_NVBENCH_TOOLS_PACKAGE: Final = True

#: Overrides the runner's ``register`` (a hook NVIDIA's package has for its tests).
_register: Any = None


def __getattr__(name: str) -> Any:
    return _coinstall.runner_attribute(globals(), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_coinstall.RUNNER_NAMES})
