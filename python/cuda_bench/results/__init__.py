"""Read NVBench result files: ``BenchmarkResult`` → ``SubBenchmarkResult`` → ``SubBenchmarkState``.

>>> from cuda.bench.results import BenchmarkResult
>>> result = BenchmarkResult("bench.json")            # doctest: +SKIP
>>> state = result["copy"][0]                          # doctest: +SKIP
>>> state.summaries["nv/cold/time/gpu/mean"].value     # doctest: +SKIP
>>> state.samples                                      # doctest: +SKIP  (read lazily)
"""

from ._builder import (
    BenchmarkBuilder,
    BuiltResult,
    DeviceSpec,
    Float64Axis,
    Int64Axis,
    Measurement,
    Pow2Axis,
    ResultBuilder,
    StateBulk,
    StatePoint,
    StringAxis,
    TypeAxis,
    TypeValue,
    UserSummary,
    VersionInfo,
    buffer_size_summary,
    element_count_summary,
    global_memory_summary,
)
from ._errors import NVBenchFormatWarning, ResultFormatError, SideFileError
from ._writer import write_document
from ._model import (
    AxisValueInfo,
    BenchmarkAxis,
    BenchmarkResult,
    BenchmarkResultDevice,
    BenchmarkResultSummary,
    ResultMeta,
    StateAxisValue,
    SubBenchmarkResult,
    SubBenchmarkState,
)

__all__ = [
    "AxisValueInfo",
    "BenchmarkAxis",
    "BenchmarkBuilder",
    "BenchmarkResult",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "BuiltResult",
    "DeviceSpec",
    "Float64Axis",
    "Int64Axis",
    "Measurement",
    "NVBenchFormatWarning",
    "Pow2Axis",
    "ResultBuilder",
    "ResultFormatError",
    "ResultMeta",
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

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
