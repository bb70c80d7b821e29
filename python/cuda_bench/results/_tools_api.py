"""The implementation of ``cuda.bench.results`` (nvbench-tools' reader and writer API).

``cuda/bench/results/__init__.py`` is a file NVIDIA's cuda-bench writes too; this module is
ours alone, so the package's own code imports from here and works whichever of the two
``__init__.py`` files is installed (docs/coinstall.md). The package ``cuda.bench.results``
re-exports everything below; the public classes say they live there when it is ours.

Read NVBench result files: ``BenchmarkResult`` → ``SubBenchmarkResult`` → ``SubBenchmarkState``.

>>> from cuda.bench.results import BenchmarkResult
>>> result = BenchmarkResult("bench.json")            # doctest: +SKIP
>>> state = result["copy"][0]                          # doctest: +SKIP
>>> state.summaries["nv/cold/time/gpu/mean"].value     # doctest: +SKIP
>>> state.samples                                      # doctest: +SKIP  (read lazily)

``BenchmarkResult(path, mode=ReadMode.SLIM)`` chooses how a file is read (:class:`ReadMode`).
The first pass of a benchmark-by-benchmark read can be made apart, in another process say
(:meth:`FileOutline.read`), and the result made from it (:meth:`BenchmarkResult.from_outline`).
"""

import collections.abc
import importlib
import sys
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from .. import _lazy
from . import _schema
from ._centers import Centers, SharedStateNamesWarning
from ._errors import NVBenchFormatWarning, ResultFormatError, SideFileError
from ._model import (
    AxisValueInfo,
    BenchmarkAxis,
    BenchmarkResult,
    BenchmarkResultDevice,
    BenchmarkResultSummary,
    FileOutline,
    ReadMode,
    ResultMeta,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)
from ._snapshot import FileIdentity

# The public classes below say they live here, so their annotations are resolved in this
# namespace (``typing.get_type_hints``, ``msgspec.inspect``): it has to hold what they name.
from ._values import SummaryValue as SummaryValue

if TYPE_CHECKING:
    from ._axes import Float64Axis, Int64Axis, Pow2Axis, StringAxis, TypeAxis, TypeValue
    from ._builder import BenchmarkBuilder, ResultBuilder
    from ._devices import DeviceSpec, VersionInfo
    from ._measurement import (
        BuiltResult,
        Measurement,
        StateBulk,
        StatePoint,
        UserSummary,
        buffer_size_summary,
        element_count_summary,
        global_memory_summary,
    )
    from ._writer import write_document

#: The other names the public classes' annotations use (see above); numpy's stand for its
#: modules, imported only when an annotation is resolved.
Mapping, Sequence = collections.abc.Mapping, collections.abc.Sequence
Document, Summary = _schema.Document, _schema.Summary
np, npt = _lazy.numpy, _lazy.LazyModule("numpy.typing")

# The builder and writer are for producing files; reading should not pay for importing
# them, so they load on first use.
_LAZY: Final = MappingProxyType(
    {
        "BenchmarkBuilder": "._builder",
        "BuiltResult": "._measurement",
        "DeviceSpec": "._devices",
        "Float64Axis": "._axes",
        "Int64Axis": "._axes",
        "Measurement": "._measurement",
        "Pow2Axis": "._axes",
        "ResultBuilder": "._builder",
        "StateBulk": "._measurement",
        "StatePoint": "._measurement",
        "StringAxis": "._axes",
        "TypeAxis": "._axes",
        "TypeValue": "._axes",
        "UserSummary": "._measurement",
        "VersionInfo": "._devices",
        "buffer_size_summary": "._measurement",
        "element_count_summary": "._measurement",
        "global_memory_summary": "._measurement",
        "write_document": "._writer",
    }
)

__all__ = [
    "AxisValueInfo",
    "BenchmarkAxis",
    "BenchmarkBuilder",
    "BenchmarkResult",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "BuiltResult",
    "Centers",
    "DeviceSpec",
    "FileIdentity",
    "FileOutline",
    "Float64Axis",
    "Int64Axis",
    "Measurement",
    "NVBenchFormatWarning",
    "Pow2Axis",
    "ReadMode",
    "ResultBuilder",
    "ResultFormatError",
    "ResultMeta",
    "SharedStateNamesWarning",
    "SideFileError",
    "StateAxisValue",
    "StateBulk",
    "StatePoint",
    "StringAxis",
    "SubBenchmarkResult",
    "SubBenchmarkState",
    "TypeAxis",
    "TypeValue",
    "UserSummary",
    "VersionInfo",
    "buffer_size_summary",
    "element_count_summary",
    "global_memory_summary",
    "write_document",
]


def _public_home() -> str:
    """Where the public classes say they live: ``cuda.bench.results`` when that package is
    ours (its ``__init__`` marks itself before importing this module), else this module, so
    that pickling and annotations find them where NVIDIA's files shadow ours."""
    package = sys.modules.get(__package__ or "")
    return __package__ if getattr(package, "_NVBENCH_TOOLS_RESULTS", False) else __name__


_HOME: Final = _public_home()

for _name in __all__:
    if _name not in _LAZY:
        globals()[_name].__module__ = _HOME
del _name


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home, __package__)
    # Every public name of the module, not just this one: a class's annotations name its
    # siblings (Measurement's name UserSummary), and are resolved in this namespace.
    namespaces = [globals()]
    public = sys.modules.get(_HOME)
    if public is not None and __name__ != _HOME:
        namespaces.append(vars(public))
    for sibling, where in _LAZY.items():
        if where == home:
            value = getattr(module, sibling)
            if isinstance(value, type):
                value.__module__ = _HOME
            for namespace in namespaces:
                namespace[sibling] = value
    return globals()[name]


def __dir__() -> list[str]:
    return sorted(__all__)
