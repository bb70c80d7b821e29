"""Compare two NVBench runs state by state: ``compare(ref, cmp) -> Comparison``.

>>> from cuda.bench.compare import compare, Status   # doctest: +SKIP
>>> result = compare("before.json", "after.json")    # doctest: +SKIP
>>> [row for row in result if row.status is Status.SLOW]   # doctest: +SKIP
>>> paired = compare_paired(["a1.json", "a2.json"], ["b1.json", "b2.json"])  # doctest: +SKIP

Names are imported on first use, so ``import cuda.bench.compare`` stays cheap for the
command line's ``--help``.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .api import compare
    from .errors import CompareError, CompareInputError, ConfigError, FilterError
    from .inputs import load_result
    from .many import Candidate, Correction, MatrixRow, MultiComparison, StateRef, compare_many
    from .model import (
        Comparison,
        Effect,
        EvidenceSource,
        InputPair,
        Interval,
        Reason,
        Row,
        Section,
        SideEstimate,
        Status,
        Verdict,
    )
    from .paired import PairedDesign
    from .paired_inputs import compare_paired, compare_paired_directory
    from .thresholds import PRESETS, Thresholds
    from .variants import compare_variants

__all__ = [
    "PRESETS",
    "Candidate",
    "CompareError",
    "CompareInputError",
    "Comparison",
    "ConfigError",
    "Correction",
    "Effect",
    "EvidenceSource",
    "FilterError",
    "InputPair",
    "Interval",
    "MatrixRow",
    "MultiComparison",
    "PairedDesign",
    "Reason",
    "Row",
    "Section",
    "SideEstimate",
    "StateRef",
    "Status",
    "Thresholds",
    "Verdict",
    "compare",
    "compare_many",
    "compare_paired",
    "compare_paired_directory",
    "compare_variants",
    "load_result",
]

_HOME: Final = MappingProxyType(
    {
        "compare": ".api",
        "load_result": ".inputs",
        "Candidate": ".many",
        "Correction": ".many",
        "MatrixRow": ".many",
        "MultiComparison": ".many",
        "StateRef": ".many",
        "compare_many": ".many",
        "compare_variants": ".variants",
        "PairedDesign": ".paired",
        "compare_paired": ".paired_inputs",
        "compare_paired_directory": ".paired_inputs",
        "CompareError": ".errors",
        "CompareInputError": ".errors",
        "ConfigError": ".errors",
        "FilterError": ".errors",
        "PRESETS": ".thresholds",
        "Thresholds": ".thresholds",
    }
)


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = importlib.import_module(_HOME.get(name, ".model"), __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
