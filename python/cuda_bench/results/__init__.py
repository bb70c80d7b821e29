"""Read NVBench result files: ``BenchmarkResult`` → ``SubBenchmarkResult`` → ``SubBenchmarkState``.

>>> from cuda.bench.results import BenchmarkResult
>>> result = BenchmarkResult("bench.json")            # doctest: +SKIP
>>> state = result["copy"][0]                          # doctest: +SKIP
>>> state.summaries["nv/cold/time/gpu/mean"].value     # doctest: +SKIP

This file is a thin shell: NVIDIA's cuda-bench writes ``cuda/bench/results/__init__.py`` too,
so the implementation lives in :mod:`cuda.bench.results._tools_api`, a module only we ship
(docs/coinstall.md). Everything public is re-exported here.
"""

# ruff: noqa: E402  (the marker must be set before the implementation is imported)
from typing import Any as Any  # the public classes' annotations name it (see below)
from typing import Final

#: Marks this package as nvbench-tools' (read by ``_tools_api`` and the co-install check).
_NVBENCH_TOOLS_RESULTS: Final = True

# The names the public classes' annotations use are re-exported too: the classes say they
# live here, so ``typing.get_type_hints`` resolves their annotations in this namespace.
from ._tools_api import (
    AxisValueInfo as AxisValueInfo,
)
from ._tools_api import (
    BenchmarkAxis as BenchmarkAxis,
)
from ._tools_api import (
    BenchmarkResult as BenchmarkResult,
)
from ._tools_api import (
    BenchmarkResultDevice as BenchmarkResultDevice,
)
from ._tools_api import (
    BenchmarkResultSummary as BenchmarkResultSummary,
)
from ._tools_api import (
    Centers as Centers,
)
from ._tools_api import (
    Document as Document,
)
from ._tools_api import (
    FileIdentity as FileIdentity,
)
from ._tools_api import (
    FileOutline as FileOutline,
)
from ._tools_api import (
    Mapping as Mapping,
)
from ._tools_api import (
    NVBenchFormatWarning as NVBenchFormatWarning,
)
from ._tools_api import (
    ReadMode as ReadMode,
)
from ._tools_api import (
    ResultFormatError as ResultFormatError,
)
from ._tools_api import (
    ResultMeta as ResultMeta,
)
from ._tools_api import (
    Sequence as Sequence,
)
from ._tools_api import (
    SharedStateNamesWarning as SharedStateNamesWarning,
)
from ._tools_api import (
    SideFileError as SideFileError,
)
from ._tools_api import (
    StateAxisValue as StateAxisValue,
)
from ._tools_api import (
    SubBenchmarkResult as SubBenchmarkResult,
)
from ._tools_api import (
    SubBenchmarkState as SubBenchmarkState,
)
from ._tools_api import (
    Summary as Summary,
)
from ._tools_api import (
    SummaryValue as SummaryValue,
)
from ._tools_api import (
    __all__ as __all__,
)
from ._tools_api import (
    __dir__ as __dir__,
)
from ._tools_api import (
    __getattr__ as __getattr__,
)
from ._tools_api import (
    np as np,
)
from ._tools_api import (
    npt as npt,
)
