"""Read NVBench result files: ``BenchmarkResult`` → ``SubBenchmarkResult`` → ``SubBenchmarkState``.

>>> from cuda.bench.results import BenchmarkResult
>>> result = BenchmarkResult("bench.json")            # doctest: +SKIP
>>> state = result["copy"][0]                          # doctest: +SKIP
>>> state.summaries["nv/cold/time/gpu/mean"].value     # doctest: +SKIP
>>> state.samples                                      # doctest: +SKIP  (read lazily)
"""

from ._errors import NVBenchFormatWarning, ResultFormatError, SideFileError
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
    "BenchmarkResult",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "NVBenchFormatWarning",
    "ResultFormatError",
    "ResultMeta",
    "SideFileError",
    "StateAxisValue",
    "SubBenchmarkResult",
    "SubBenchmarkState",
]

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
