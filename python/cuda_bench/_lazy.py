"""numpy, imported on first use.

Importing numpy is a large share of a small comparison's time (README, "Speed"), and a
comparison decided from summaries never touches an array. Modules that need numpy only
inside functions bind ``np`` to :data:`numpy` below at run time (and to the real module
for type checkers), so the import happens when an array is first made.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LazyModule", "numpy"]


class LazyModule:
    """Stands for the module ``name``; imports it when an attribute is first asked for.

    Each attribute is looked up once and then kept on this object, so later accesses cost
    what an attribute of a module costs.
    """

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self.__dict__["_lazy_name"])
        value = getattr(module, attribute)
        self.__dict__[attribute] = value
        return value

    def __repr__(self) -> str:
        return f"<lazily imported module {self.__dict__['_lazy_name']!r}>"


#: ``numpy``, imported when first used.
numpy = LazyModule("numpy")
