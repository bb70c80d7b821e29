"""What the scan of one series reports (:mod:`.changepoint`): its changes, creeps, calibration."""

from __future__ import annotations

import msgspec

__all__ = ["Change", "Creep", "SeriesScan"]


class Change(msgspec.Struct, frozen=True):
    """One change point: ``index`` is the first run of the new level."""

    index: int
    #: Window (runs per side) whose statistic placed it, and the largest normalised
    #: statistic of the windows that found it there (its own or a longer one); for a change
    #: binary segmentation added between others, its CUSUM's shorter side (at most the
    #: widest window) and that CUSUM, in units of the null that accepted it (``p_value``
    #: too: the scan's, or the one recalibrated around it, :mod:`._refine`). All three are
    #: the evidence where the scan found the change; ``index`` is then its AR(1)
    #: least-squares split, at most ``window`` runs from there (:mod:`._ar1_place`).
    window: int
    statistic: float
    #: Probability that the series' null reaches ``statistic`` anywhere in the series.
    p_value: float


class Creep(msgspec.Struct, frozen=True):
    """A change the scan found that took many runs: the best linear ramp between the old and
    the new level fits it significantly better than a step (:mod:`._gradual`).

    ``first`` is the first run off the old level, ``end`` the first run at the new level (so
    ``end - first`` runs lie on the ramp); ``change`` is the scan's change inside it, whose
    ``p_value`` is the creep's.
    """

    first: int
    end: int
    change: Change


class SeriesScan(msgspec.Struct, frozen=True):
    """The scan of one series: its change points and its calibration."""

    runs: int
    changes: tuple[Change, ...]
    threshold: float
    #: The per-series false-alarm probability the threshold is calibrated to.
    false_alarm_rate: float
    #: p-value of the series' largest normalised statistic (1.0 when too short to scan).
    p_value: float
    #: Smallest relative step detectable with the configured power (``inf`` when none is).
    smallest_change: float
    #: Robust standard deviation of the residual log medians.
    noise: float
    #: ``c_w`` per scanned window (``windows`` below).
    dependence: tuple[float, ...]
    windows: tuple[int, ...]
    #: A change too recent to place (fewer than ``min_segment`` runs after it; ``window``
    #: holds the runs since), tested against the same threshold; ``None`` when there is none.
    candidate: Change | None = None
    #: Changes the scan found that are creeps (the level moved over many runs), in run order.
    creeps: tuple[Creep, ...] = ()
    #: ``c_w`` per window of the runs less their levels and the slope the levels share,
    #: which the confirmation of a change compares (:mod:`._shared_trend`); empty where
    #: there is no change or a creep (then ``dependence`` serves).
    level_dependence: tuple[float, ...] = ()
    #: The pattern taken out before the scan (:mod:`._seasonal`): ``P`` offsets of the log
    #: medians, phase ``t mod P`` from run 0 (in :func:`.detect`, of the whole series,
    #: missing runs counted, :mod:`._cycle_runs`; or of the runs with a value where only
    #: those show it), mean 0; empty where the series shows none. The changes and noise are
    #: those of the series less the pattern.
    seasonal: tuple[float, ...] = ()

    @property
    def scanned(self) -> bool:
        """Whether the scan tested the series: ``False`` for one of fewer runs than
        :attr:`.ScanConfig.fewest_runs`, of which nothing was tested (no window, no change,
        no candidate; its false-alarm rate of 0 says nothing)."""
        return bool(self.windows)
