"""The gate's statistics: which level runs are typical, and the band one new run is held to.

**Typical runs.** A level's runs are repeated runs of one build, but a run now and then is
far off (a machine hiccup that reverts at the next run: the change-point detector calls it
an outlier, not a change, and leaves it in the level). The sample standard deviation is
not robust: one run 10 % off among 20 runs of 1 % noise makes it about 2.3 %, which hides
every 5 % step behind the widened band. So the reference runs are screened with the Hampel
identifier (Hampel 1974; Davies & Gather 1993, "The identification of multiple
outliers", JASA 88): a run whose log median lies more than :data:`HAMPEL_K` robust
standard deviations (``1.4826 * MAD``) from the level's median is left out. The cut is wide
on purpose: a normal level practically never loses a run, and a level with skewed,
heavy-tailed run-to-run noise keeps most of its slow runs (those are its noise, which the
band must cover); what goes is a run many times the level's typical spread away. Levels
of fewer than :data:`MIN_RUNS_TO_SCREEN` runs are kept whole (their MAD says too little).

**The band for one new run.** The question is a prediction: is the new run's log median
``y`` where ``R`` runs ``x_1 .. x_R`` of the level predict it? With ``s`` the level's
run-to-run standard deviation of the log medians (between-run drift and within-run
sampling error together) and ``x̄`` their mean, ``y - x̄`` has standard deviation
``s * sqrt(1 + 1/R)``, and the ``1 - alpha`` prediction interval of one new run is

    ``x̄ ± P``, ``P = t_{R-1}(1 - alpha/2) * s * sqrt(1 + 1/R)``

(the normal-theory prediction interval for one future observation: Hahn & Meeker,
*Statistical Intervals*, 1991, section 4.5; ``alpha`` is the calibration's target
false-change rate per state, 1 %). ``s`` comes from the comparison's A/A calibration of the
level runs (:mod:`cuda.bench.compare.calibrate`): ``sqrt(noise_floor^2 + within^2)``, never
less than the state's moderated spread (*The least spread*, below).

The comparison decides a row by its ``ci`` interval ``[d - h, d + h]`` of ``d = y - x̄``
(``h`` from the level's runs over their number and the new run's samples) against the
band ``±B``: SLOW when ``d - h > B``. The gate sets ``B = max(tolerance, P - h_e)``, with
``h_e = sqrt((t_{R-1}(c) * s)^2 / R + (z(c) * within)^2)`` the half-width the interval
is expected to have at the ``ci`` confidence ``c``; so SLOW (FAST) holds when the new run
lies outside the prediction interval (``d > P``: drift is ruled out at rate ``alpha``) and
its interval lies wholly beyond the ``[ci] tolerance`` (a change of practical size).
Holding the interval against the whole prediction bound instead (``d - h > P``) counts
the level's uncertainty twice and misses steps of several standard deviations
(``python/benchmarks/gate_quality.py`` measures both).

**Clock modes.** A GPU whose SM clock switches between modes from run to run moves the
times of a level's runs but not their cycles (time times clock). Where every reference run
of a state recorded its mean SM clock, ``s`` is instead the standard deviation of the runs'
log cycle centers (median time times mean clock, as the ``ci`` method scales summaries;
:func:`cycle_spreads`), never below its moderated value among the states' cycle spreads
(*The least spread*): the band then
covers the code's drift, and a run in the other clock mode is the comparison's AMBG
``clock_change_explains_time`` (its time moved, its cycles did not), never SLOW, since
the ``ci`` method requires the time and cycle intervals to agree.

**SAME.** The band ``B`` is narrower than the prediction bound, so an interval inside it
is not yet evidence that the change is small: a run that looks unchanged may come from a
changed build whose drift happened to hide it. SAME needs the prediction interval of the
change itself, ``d ± P``, to lie inside ``±[ci] max_tolerance`` (two one-sided tests,
Schuirmann 1987, on the prediction): else the row is AMBG ``too_noisy_to_judge``. A
quiet level (``P`` well below the cap) loses nothing; a level whose runs spread too
widely (two clock modes, say) is never called SAME on the strength of one run.

**The least spread.** From few runs a state's spread can come out far below its true one
by chance (all of four runs in one clock mode), and a band that narrow flags the next run
in the other mode. The states of one machine tell how far to trust each one's spread:
their sample variances set an empirical-Bayes prior (Smyth 2004, moderated variances;
:mod:`cuda.bench.compare.variance_prior`) and each state's band is never narrower than its
posterior (moderated) spread. States that share one noise pull a lucky state up to the
shared spread; states whose spreads differ far beyond what their runs' number explains
(an H200's memory-bound kernels at 0.01-0.1 %, its launch-bound ones at 2 %) keep near
their own, so a quiet state's 3 % regression is SLOW. The median of the states' floors,
the least drift before 2026-11-28, gave every quiet state of that H200 a band of ±4.6 %.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import msgspec
import numpy as np

from ..compare.bootstrap import MAD_TO_SD, normal_quantile, student_t_quantile
from ..compare.model import Reason, Status, Verdict
from ..compare.variance_prior import moderated_spreads

if TYPE_CHECKING:
    from ..compare.calibrate import Calibration
    from ..compare.model import Row
    from ..compare.thresholds import Thresholds

__all__ = [
    "HAMPEL_K",
    "MIN_RUNS_TO_SCREEN",
    "BandKey",
    "cycle_spreads",
    "equivalent",
    "one_new_run",
    "typical_runs",
]

#: Robust standard deviations from the level's median beyond which a run is not typical.
HAMPEL_K: Final = 8.0
#: Fewest runs of a level for the screen (fewer are kept whole).
MIN_RUNS_TO_SCREEN: Final = 5

#: A row's state: benchmark, device, state key, occurrence.
BandKey = tuple[str, int | None, str, int]


def typical_runs(logs: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Which runs of a level (log medians) the Hampel identifier keeps (module docstring)."""
    values = np.asarray(logs, dtype=np.float64)
    keep = np.ones(values.shape, dtype=bool)
    if values.size < MIN_RUNS_TO_SCREEN:
        return keep
    center = float(np.median(values))
    spread = MAD_TO_SD * float(np.median(np.abs(values - center)))
    if not spread > 0.0:
        return keep
    keep &= np.abs(values - center) <= HAMPEL_K * spread
    return keep


#: A state in the archive: benchmark, device, state name (without ``Device=``).
StateKey = tuple[str, int | None, str]


def cycle_spreads(
    runs: Mapping[StateKey, Sequence[str]],
    stored: Mapping[tuple[str, str, int | None, str], Sequence[Any]],
) -> dict[StateKey, float]:
    """Per state, the standard deviation of the log cycle centers (stored median times mean
    SM clock, fields 0 and 6 of ``stored[(run, *state)]``) of its reference ``runs``, where
    there are two or more and every one recorded a clock (module docstring)."""
    out = {}
    for state, chosen in runs.items():
        found = [stored.get((run, *state)) for run in chosen]
        centers = [
            float(one[0]) * float(one[6])
            for one in found
            if one is not None and one[0] is not None and one[6] is not None
        ]
        if len(centers) < 2 or len(centers) < len(chosen) or not min(centers) > 0:
            continue
        out[state] = float(np.std(np.log(centers), ddof=1))
    return out


def one_new_run(
    calibration: Calibration,
    thresholds: Thresholds,
    cycles: Mapping[StateKey, float] | None = None,
) -> tuple[Calibration, dict[BandKey, float]]:
    """``calibration`` with each state's tolerance the band ``B`` for one new run, and each
    state's prediction bound ``P`` (log units) for :func:`equivalent` (module docstring);
    ``cycles`` are the states' cycle spreads (:func:`cycle_spreads`)."""
    rate = calibration.target_rate
    confidence = float(thresholds.ci_confidence)
    z = normal_quantile(0.5 + confidence / 2.0)
    # Each state's run-to-run spread: its drift and its within-run error together, never
    # below its moderated spread (module docstring, *The least spread*).
    own = [math.hypot(state.noise_floor, state.within) for state in calibration.states]
    least = moderated_spreads(own, [state.degrees_of_freedom for state in calibration.states])
    of_state = {(state.benchmark, state.device, state.key): state for state in calibration.states}
    measured = {key: value for key, value in (cycles or {}).items() if key in of_state}
    in_cycles = dict(
        zip(
            measured,
            moderated_spreads(
                list(measured.values()), [of_state[key].degrees_of_freedom for key in measured]
            ),
            strict=True,
        )
    )
    states = []
    bounds: dict[BandKey, float] = {}
    for state, spread, floor in zip(calibration.states, own, least, strict=True):
        runs = state.runs
        spread = max(spread, floor)
        named = (state.benchmark, state.device, state.key)
        if named in measured:
            spread = max(measured[named], in_cycles[named], state.within)
        bound = (
            student_t_quantile(1.0 - rate / 2.0, runs - 1) * spread * math.sqrt(1.0 + 1.0 / runs)
        )
        expected = math.hypot(
            student_t_quantile(0.5 + confidence / 2.0, runs - 1) * spread / math.sqrt(runs),
            z * state.within,
        )
        band = max(0.0, bound - expected)
        states.append(dataclasses.replace(state, tolerance=math.expm1(min(band, 50.0))))
        key = (state.benchmark, state.device, state.key, state.occurrence)
        bounds[key] = max(bound, bounds.get(key, 0.0))
    return dataclasses.replace(calibration, states=tuple(states)), bounds


def equivalent(row: Row, bounds: dict[BandKey, float], cap: float, rate: float) -> Row:
    """``row``, a SAME row made AMBG ``too_noisy_to_judge`` when the prediction interval of
    its change reaches beyond ``±cap`` (module docstring)."""
    verdict = row.verdict
    if verdict.status is not Status.SAME or verdict.effect is None:
        return row
    bound = bounds.get((row.benchmark, row.ref_device, row.key, row.occurrence))
    if bound is None:
        return row
    effects = [verdict.effect] + ([] if verdict.cycle_effect is None else [verdict.cycle_effect])
    changes = [abs(math.log(effect.ratio)) for effect in effects if effect.ratio > 0]
    change = max(changes, default=math.inf)
    edge = math.log1p(cap)
    if change + bound <= edge:
        return row
    message = (
        f"one new run against this level predicts the change only to ±{math.expm1(bound):.2%} "
        f"({1.0 - rate:.0%} prediction interval from the level's run-to-run spread); with "
        f"the change {math.expm1(change):+.2%} that reaches beyond the cap ±{cap:.2%} "
        f"([ci] max_tolerance): cannot be called SAME from one run; the comparison said "
        f"{verdict.text}"
    )
    return msgspec.structs.replace(
        row,
        verdict=Verdict(
            Status.AMBG,
            Reason.TOO_NOISY_TO_JUDGE,
            message,
            verdict.severity,
            verdict.effect,
            verdict.cycle_effect,
        ),
    )
