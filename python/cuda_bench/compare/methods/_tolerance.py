"""The tolerance band one row of the ``ci`` method is held to.

``[ci] tolerance`` is the change of practical size. An A/A calibration raises it per state
to what that state's run-to-run noise needs (:mod:`..calibrate`), but SAME must keep
meaning "no change of practical size": the band never grows beyond ``[ci]
max_tolerance`` (never below ``[ci] tolerance`` either), and a state that needs more
cannot be judged (AMBG ``too_noisy_to_judge``, with :func:`too_noisy_text`).
"""

from __future__ import annotations

from typing import Final

import msgspec

from ..thresholds import MAX_CALIBRATED_TOLERANCE, Thresholds

__all__ = ["TOO_NOISY_ADVICE", "RowTolerance", "row_tolerance", "too_noisy_text"]


#: The end of a ``too_noisy_to_judge`` message: what helps (:func:`too_noisy_text`). The gate
#: replaces it where its level has too few runs, the cause then (history/_gate_short.py).
TOO_NOISY_ADVICE: Final = (
    "cannot be judged on this machine; more runs per side, more samples per run or a quieter "
    "machine help"
)


class RowTolerance(msgspec.Struct, frozen=True):
    """The band of one row: ``needed`` is ``[ci] tolerance`` or, raised by a calibration,
    the state's calibrated tolerance; ``cap`` is ``[ci] max_tolerance`` (never below
    ``[ci] tolerance``); ``used`` the smaller of the two, the band SAME is held to."""

    used: float
    needed: float
    cap: float
    noise_floor: float
    calibrated: float | None

    @property
    def too_noisy(self) -> bool:
        """The state needs a wider band than the cap allows: it cannot be judged SAME."""
        return self.needed > self.cap


def row_tolerance(thresholds: Thresholds) -> RowTolerance:
    """The band of a row whose thresholds a calibration may have raised (module docstring)."""
    base = float(thresholds.ci_tolerance)
    calibrated = float(thresholds.ci_calibrated_tolerance)
    needed = max(base, calibrated)
    cap = max(base, float(thresholds.ci_max_tolerance))
    return RowTolerance(
        used=min(needed, cap),
        needed=needed,
        cap=cap,
        noise_floor=float(thresholds.ci_noise_floor),
        calibrated=calibrated if calibrated > base else None,
    )


def too_noisy_text(band: RowTolerance) -> str:
    """The start of a ``too_noisy_to_judge`` message: floor, tolerance needed, what helps."""
    more = " or more" if band.needed >= MAX_CALIBRATED_TOLERANCE else ""
    return (
        f"run-to-run noise floor {band.noise_floor:.2%} (calibration) needs a tolerance of "
        f"±{band.needed:.2%}{more}, above the cap ±{band.cap:.2%} ([ci] max_tolerance): "
        + TOO_NOISY_ADVICE
    )
