"""Settings of the change-point scan (:mod:`.changepoint` describes what each one does)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import msgspec.structs

from ._settings import checked_flag, checked_int, checked_real

__all__ = ["ScanConfig"]


class ScanConfig(msgspec.Struct, frozen=True):
    """Settings of the change-point scan (see :mod:`.changepoint`)."""

    #: Probability of one or more false change points per ``rate_runs`` runs of pure noise.
    false_alarm_rate: float = 0.01
    rate_runs: int = 200
    #: Fewest runs of a level on either side of a change.
    min_segment: int = 5
    windows: tuple[int, ...] = (5, 10, 20, 40)
    #: Block-bootstrap replicates per series and calibration pass.
    null_resamples: int = 128
    #: Independent normal series simulating the null of ``T``, once per series length.
    permutations: int = 8192
    #: Runs per bootstrap block; ``None``: ``round(2 N^(1/3))``.
    block_length: int | None = None
    #: Detection probability the smallest detectable change is stated for.
    power: float = 0.8
    seed: int = 0
    #: Threads scanning chunks of series (numpy sorts and sums release the GIL).
    workers: int = 1
    #: Pool the AR(1) correlation across the series scanned together (``False``: no
    #: series' result depends on the others).
    pool_correlation: bool = True
    #: Add the proposals of a penalised segmentation of the decorrelated scores where
    #: twenty or more series are scanned together and their correlation is pooled
    #: (:mod:`._ar1_segment`), and keep there the changes a model of the whole series keeps
    #: (:mod:`._whole_series`; ``False``: the scan's own changes and the local choice only).
    penalised_proposals: bool = True
    #: Take out a pattern that repeats every ``P`` runs where the series shows one
    #: (:mod:`._seasonal`; ``False``: the series as they are).
    seasonal: bool = True

    @property
    def fewest_runs(self) -> int:
        """The fewest runs of a series that the scan tests for a change: ``min_segment`` on
        each side of the first position a change may take (``window_geometry`` has no
        position in fewer, and the scan of such a series is empty, :attr:`SeriesScan.scanned`)."""
        return 2 * self.min_segment

    def __post_init__(self) -> None:
        # Types and finite values first (:mod:`._settings`): NaN passed `rate_runs < 1`.
        for name in ("false_alarm_rate", "power"):
            checked_real("ScanConfig", name, getattr(self, name))
        least = {"rate_runs": 1, "min_segment": 2, "null_resamples": 16, "permutations": 400}
        for name, bound in {**least, "seed": 0, "workers": 1}.items():
            checked_int("ScanConfig", name, getattr(self, name), bound)
        if self.block_length is not None:
            checked_int("ScanConfig", "block_length", self.block_length, 1)
        if isinstance(self.windows, str | bytes) or not isinstance(self.windows, Sequence):
            raise TypeError(f"ScanConfig: windows must be a tuple of ints, got {self.windows!r}")
        windows = tuple(checked_int("ScanConfig", "windows", w, 1) for w in self.windows)
        msgspec.structs.force_setattr(self, "windows", windows)
        if not 0.0 < self.false_alarm_rate < 0.5:
            raise ValueError(f"false_alarm_rate must lie in (0, 0.5), got {self.false_alarm_rate}")
        if not windows or any(w < self.min_segment for w in windows):
            raise ValueError(f"windows must be non-empty and >= min_segment ({self.min_segment})")
        if not 0.5 <= self.power < 1.0:
            raise ValueError(f"power must lie in [0.5, 1), got {self.power}")
        for name in ("pool_correlation", "penalised_proposals", "seasonal"):
            flag = checked_flag("ScanConfig", name, getattr(self, name))
            msgspec.structs.force_setattr(self, name, flag)
