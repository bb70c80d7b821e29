"""numpy array types shared by annotations.

Import it under ``typing.TYPE_CHECKING`` only: importing this module imports numpy, which
the package otherwise loads on first use (:mod:`._lazy`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "Float32Array", "FloatArray", "IntArray"]

FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
