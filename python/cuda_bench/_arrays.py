"""numpy array types shared by annotations.

Import it under ``typing.TYPE_CHECKING`` in a module that loads numpy on first use
(:mod:`._lazy`): importing this module imports numpy. A module that imports numpy anyway
(the history's) imports it at run time, so that ``typing.get_type_hints`` resolves its
annotations.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "Float32Array", "FloatArray", "IntArray"]

FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
