"""Decision thresholds and the named presets (compare.md §3)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

__all__ = ["MAX_CALIBRATED_TOLERANCE", "PRESETS", "PRESET_NAMES", "Thresholds", "preset"]

#: Largest tolerance a calibration gives a state (a factor of 2): a state noisier than that
#: cannot be compared one run against one run at all, and bigger numbers would only look
#: precise. A calibrated tolerance this large means "at least this much".
MAX_CALIBRATED_TOLERANCE: Final = 1.0


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Every number a decision method consults. All fractions: 0.005 means 0.5 %.

    The first eight are NVIDIA's robust thresholds under their TOML names
    (``clear_gap.relative`` is :attr:`clear_gap_relative`, and so on); the ``ci_*`` ones
    belong to the ``ci`` method (``[ci] tolerance`` is :attr:`ci_tolerance`, ...). The
    last four are no settings: an N-way comparison sets :attr:`ci_change_confidence`
    (:mod:`.many`), a calibration the other three per state (:mod:`.calibrate`).

    A comparison checks the thresholds it is given against a config file's ranges
    (:func:`~.config.checked_thresholds`); the object itself takes any values, as the
    comparison's own steps set some beyond them (a family-wise level above 0.9999).
    """

    #: Minimum relative gap between the two intervals for FAST/SLOW.
    clear_gap_relative: float = 0.005
    #: Maximum relative difference of the centers for SAME; also the bulk log tolerance.
    same_center_relative: float = 0.005
    #: Minimum overlap of the intervals, as a fraction of the narrower one, for SAME.
    same_overlap_fraction: float = 0.5
    #: Maximum relative dispersion for SAME when no bulk samples decide.
    same_relative_dispersion_ceiling: float = 0.02
    #: Minimum share of samples with a close neighbour on the other side (bulk SAME).
    bulk_sample_coverage: float = 0.97
    #: Minimum share of distinct values with a close neighbour (bulk SAME).
    bulk_support_coverage: float = 0.80
    #: Values seen in fewer than this share of samples are rare (support filter).
    bulk_rare_sample_fraction: float = 0.001
    #: The rare-value filter is skipped if it would remove more than this share of samples.
    bulk_rare_max_removed_fraction: float = 0.01
    # -- method ci (``[ci]``) ---------------------------------------------------------------
    #: Half-width of the equivalence band: SAME inside ``[1/(1+t), 1+t]``, FAST/SLOW beyond.
    ci_tolerance: float = 0.01
    #: Two-sided confidence level of the ratio intervals.
    ci_confidence: float = 0.95
    #: Bootstrap draws per interval (an integer; typed float like every threshold).
    ci_resamples: float = 2000
    #: Seed of the bootstrap, an integer (mixed with each row's data: rows draw independently).
    ci_seed: float = 0
    #: 1: widen the run-level part of multi-run intervals by t/z (few runs); 0: do not.
    ci_t_correction: float = 0
    #: Most tolerance a calibration may give a state (never below ``ci_tolerance``): a state
    #: whose run-to-run noise needs more cannot be judged (AMBG ``too_noisy_to_judge``).
    ci_max_tolerance: float = 0.05
    # -- set by an N-way comparison, not configurable ----------------------------------------
    #: The level a FAST/SLOW verdict must also hold at (0: :attr:`ci_confidence`, no second
    #: check). :func:`~.many.compare_many` raises it to the family-wise level over its
    #: candidates; SAME and the reported intervals stay at :attr:`ci_confidence`.
    ci_change_confidence: float = 0.0
    # -- set per state from an A/A calibration, not configurable ----------------------------
    #: The tolerance the state's run-to-run noise needs (0: no calibration raised it).
    ci_calibrated_tolerance: float = 0.0
    #: The state's run-to-run noise floor measured by the calibration (log units).
    ci_noise_floor: float = 0.0
    #: 1: a calibration measured this state's run-to-run drift, so a single-run verdict
    #: adds no drift term of its own (:mod:`.drift`); 0: nothing measured it.
    ci_drift_measured: float = 0.0

    def replace(self, **changes: float) -> Thresholds:
        """A copy with some values changed."""
        return dataclasses.replace(self, **changes)


PRESETS: Final = MappingProxyType(
    {
        "default": Thresholds(),
        "strict": Thresholds(
            clear_gap_relative=0.01,
            same_center_relative=0.0025,
            same_overlap_fraction=0.75,
            same_relative_dispersion_ceiling=0.01,
            bulk_sample_coverage=0.995,
            bulk_support_coverage=0.90,
            bulk_rare_sample_fraction=0.001,
            bulk_rare_max_removed_fraction=0.005,
            ci_confidence=0.99,
            ci_t_correction=1,
        ),
        "permissive": Thresholds(
            clear_gap_relative=0.0025,
            same_center_relative=0.01,
            same_overlap_fraction=0.25,
            same_relative_dispersion_ceiling=0.05,
            bulk_sample_coverage=0.90,
            bulk_support_coverage=0.60,
            bulk_rare_sample_fraction=0.001,
            bulk_rare_max_removed_fraction=0.02,
            ci_confidence=0.90,
        ),
    }
)

PRESET_NAMES: Final = tuple(PRESETS)


def preset(name: str) -> Thresholds:
    """The thresholds of a named preset; ``KeyError`` names the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(
            f"unknown comparison preset {name!r} (known: {', '.join(PRESET_NAMES)})"
        ) from None
