"""Why a row got its status: the catalogue of reasons every method gives.

Each reason has a canonical code (NVIDIA's codes for what ``robust`` shares with their
tool), a short alias for tables and a message. Kept apart from :mod:`.model` so that the
catalogue grows without the value types; :mod:`.model` re-exports :class:`Reason`.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Reason"]


class Reason(str, Enum):
    """Why a row got its status: canonical code, short display alias, message.

    The codes of the ``robust`` method are NVIDIA's canonical reason codes, so scripts
    written against ``nvbench-compare-robust`` output keep working. ``internal`` reasons are
    intermediate steps of a decision and never end up on a row.
    """

    alias: str
    message: str
    internal: bool

    def __new__(cls, code: str, alias: str, message: str, internal: bool = False) -> Reason:
        member = str.__new__(cls, code)
        member._value_ = code
        member.alias = alias
        member.message = message
        member.internal = internal
        return member

    def __str__(self) -> str:
        return str(self.value)

    # -- unusable input (????) --------------------------------------------------------------
    #: SKIP when both runs skipped the state, ``????`` when one did (NVIDIA's tool shows
    #: both as ``????``).
    STATE_SKIPPED = ("state_skipped", "state-skip", "state was skipped")
    GPU_TIMING_SUMMARIES_MISSING = (
        "gpu_timing_summaries_missing",
        "summ-miss",
        "timing summaries are missing",
    )
    TIMING_CENTER_MISSING = ("timing_center_missing", "center-miss", "timing center is missing")
    TIMING_CENTER_NONFINITE = (
        "timing_center_nonfinite",
        "center-nonfin",
        "timing center is not finite",
    )
    TIMING_CENTER_NONPOSITIVE = (
        "timing_center_nonpositive",
        "center-nonpos",
        "timing center is not positive",
    )
    # -- clear gap (FAST/SLOW) and its confirmation ----------------------------------------
    MISSING_INTERVAL = (
        "missing_interval",
        "int-miss",
        "comparable timing intervals could not be built",
    )
    NO_CLEAR_GAP = (
        "no_clear_gap",
        "no-gap",
        "timing intervals are not separated by a clear gap",
        True,
    )
    CLEAR_GAP_CONFIRMED_BY_BULK_CYCLES = (
        "clear_gap_confirmed_by_bulk_cycles",
        "bc-gap",
        "clear timing gap, confirmed by the per-sample cycle intervals",
    )
    BULK_CYCLE_GAP_NOT_CONFIRMED = (
        "bulk_cycle_gap_not_confirmed",
        "bc-gap-miss",
        "clear timing gap, but the per-sample cycle intervals do not confirm it",
    )
    BULK_CYCLE_DATA_UNUSABLE = (
        "bulk_cycle_data_unusable",
        "bc-bad",
        "sample time and frequency files are present but unusable for cycles",
    )
    CLEAR_GAP_CONFIRMED_BY_SUMMARY_CYCLES = (
        "clear_gap_confirmed_by_summary_cycles",
        "sc-gap",
        "clear timing gap, confirmed by intervals scaled with the mean SM clock",
    )
    SUMMARY_CYCLE_GAP_NOT_CONFIRMED = (
        "summary_cycle_gap_not_confirmed",
        "sc-gap-miss",
        "clear timing gap, but intervals scaled with the mean SM clock do not confirm it",
    )
    MISSING_CLOCK_RATE = (
        "missing_clock_rate",
        "clk-miss",
        "clear timing gap, but no SM clock summaries to confirm it",
    )
    INVALID_CLOCK_RATE = (
        "invalid_clock_rate",
        "clk-bad",
        "SM clock summaries are invalid, so the decision cannot be confirmed",
    )
    # -- SAME path --------------------------------------------------------------------------
    NOISE_UNAVAILABLE = (
        "noise_unavailable",
        "noise-miss",
        "relative dispersion is unavailable, negative or not finite",
    )
    CENTERS_NOT_CLOSE = (
        "centers_not_close",
        "centers-far",
        "timing centers are too far apart to call them the same",
    )
    WEAK_INTERVAL_OVERLAP = (
        "weak_interval_overlap",
        "weak-overlap",
        "timing intervals overlap too little to call them the same",
    )
    NOISE_TOO_HIGH = (
        "noise_too_high",
        "noise-high",
        "relative dispersion is too high to call them the same",
    )
    SAME_SUMMARY = (
        "same_summary",
        "sum-same",
        "timing centers are close and the intervals overlap well",
        True,
    )
    SAME_WITHOUT_CLOCK_RATE = (
        "same_without_clock_rate",
        "same-no-clk",
        "timing centers are close and the intervals overlap well; no SM clock summaries",
    )
    SAME_CONFIRMED_BY_CYCLES = (
        "same_confirmed_by_cycles",
        "sc-same",
        "timing and SM-clock-scaled intervals both support same",
    )
    CYCLE_SAME_NOT_CONFIRMED = (
        "cycle_same_not_confirmed",
        "sc-same-miss",
        "intervals scaled with the mean SM clock do not support same",
    )
    BULK_DATA_UNAVAILABLE = (
        "bulk_data_unavailable",
        "bulk-miss",
        "per-sample time data are unavailable",
        True,
    )
    BULK_TIME_DATA_UNUSABLE = (
        "bulk_time_data_unusable",
        "bt-bad",
        "per-sample time data are empty or unusable",
    )
    BULK_TIME_SAME = (
        "bulk_time_same",
        "bt-same",
        "per-sample times cover each other (nearest-neighbour test)",
        True,
    )
    BULK_CYCLE_SAME = (
        "bulk_cycle_same",
        "bc-same",
        "per-sample cycles cover each other (nearest-neighbour test)",
        True,
    )
    BULK_TIME_SUPPORT_MISMATCH = (
        "bulk_time_support_mismatch",
        "bt-sup-miss",
        "per-sample times do not cover each other",
    )
    BULK_CYCLE_SUPPORT_MISMATCH = (
        "bulk_cycle_support_mismatch",
        "bc-sup-miss",
        "per-sample cycles do not cover each other",
    )
    BULK_TIME_SAME_WITHOUT_CYCLES = (
        "bulk_time_same_without_cycles",
        "bt-same-no-cyc",
        "per-sample times cover each other; no cycle data",
    )
    BULK_TIME_SAME_CONFIRMED_BY_SUMMARY_CYCLES = (
        "bulk_time_same_confirmed_by_summary_cycles",
        "bt-same-sc",
        "per-sample times cover each other and SM-clock-scaled intervals confirm same",
    )
    BULK_SAME = (
        "bulk_same",
        "bulk-same",
        "per-sample times and cycles both cover each other",
    )
    # -- ours: matching -------------------------------------------------------------------
    STATE_ADDED = ("state_added", "added", "state exists only in the compare run")
    STATE_REMOVED = ("state_removed", "removed", "state exists only in the reference run")
    # -- ours: CPU-only measurements (robust method) ---------------------------------------
    CLEAR_GAP_CPU_ONLY = (
        "clear_gap_cpu_only",
        "cpu-gap",
        "clear timing gap, but a CPU-only measurement has no SM clock to confirm it",
    )
    MEASUREMENT_KIND_MISMATCH = (
        "measurement_kind_mismatch",
        "kind-diff",
        "one side is a GPU measurement and the other CPU-only; they cannot be compared",
    )
    # -- ours: method ci (confidence interval of the ratio against a tolerance band) --------
    CI_SAME = (
        "ci_same",
        "ci-same",
        "time and cycle ratio intervals lie inside the tolerance band",
    )
    CI_SAME_WITHOUT_CYCLES = (
        "ci_same_without_cycles",
        "ci-same-no-cyc",
        "time ratio interval lies inside the tolerance band; no SM clock data",
    )
    CI_SAME_IN_TIME = (
        "ci_same_in_time",
        "ci-same-t",
        "time ratio interval lies inside the band; the cycle interval is too wide to tell",
    )
    CI_SAME_IN_CYCLES = (
        "ci_same_in_cycles",
        "ci-same-c",
        "cycle ratio interval lies inside the band; the time interval is too wide to tell",
    )
    CI_CHANGE_CONFIRMED_BY_CYCLES = (
        "ci_change_confirmed_by_cycles",
        "ci-gap-cyc",
        "time and cycle ratio intervals lie beyond the tolerance band, same direction",
    )
    CI_CHANGE_WITHOUT_CYCLES = (
        "ci_change_without_cycles",
        "ci-gap-no-cyc",
        "time ratio interval lies beyond the tolerance band; no SM clock data",
    )
    CI_CHANGE_IN_CYCLES = (
        "ci_change_in_cycles",
        "ci-gap-c",
        "cycle ratio interval lies beyond the band; the time interval is too wide to tell",
    )
    CLOCK_CHANGE_EXPLAINS_TIME = (
        "clock_change_explains_time",
        "clk-explains",
        "time changed beyond the band but cycles did not: an SM clock change, not the code",
    )
    CI_CYCLES_DISAGREE = (
        "ci_cycles_disagree",
        "ci-cyc-diff",
        "time and cycle ratio intervals reach different verdicts",
    )
    CI_CYCLES_UNCONFIRMED = (
        "ci_cycles_unconfirmed",
        "ci-cyc-edge",
        "the time verdict is not confirmed: the cycle interval crosses a band edge",
    )
    CI_STRADDLES_TOLERANCE = (
        "ci_straddles_tolerance",
        "ci-edge",
        "the ratio interval crosses one edge of the tolerance band",
    )
    CI_WIDER_THAN_TOLERANCE = (
        "ci_wider_than_tolerance",
        "ci-wide",
        "the ratio interval is wider than the tolerance band: too noisy to tell",
    )
    CI_CHANGE_NOT_FAMILY_WIDE = (
        "ci_change_not_family_wide",
        "ci-gap-family",
        "the change lies beyond the band at the nominal level but not at the family-wise "
        "level over the N-way comparison's candidates",
    )
    CI_MEDIAN_MEAN_DISAGREE = (
        "ci_median_mean_disagree",
        "ci-mean-diff",
        "from summaries only, the median and mean ratio intervals reach different verdicts",
    )
    RUN_NOT_STATIONARY = (
        "run_not_stationary",
        "run-drift",
        "a single run drifts within itself, so drift between runs cannot be told from a "
        "change; use several interleaved runs or a calibration",
    )
    RUN_DRIFT_UNMEASURED = (
        "run_drift_unmeasured",
        "drift-unmeasured",
        "one run per side: the run-to-run drift this state's spread allows is not measured "
        "and could explain the result; paired runs (nvbench_compare ab), several runs per "
        "side or a calibration would decide it",
    )
    RUN_DRIFT_ACROSS_STATES = (
        "run_drift_across_states",
        "drift-states",
        "one run per side: the states of this comparison scatter more than their runs "
        "explain (drift between the runs), and with that scatter allowed for the result is "
        "undecided; paired runs (nvbench_compare ab), several runs per side or a calibration "
        "would decide it",
    )
    CLOCK_DIFFERS = (
        "clock_differs",
        "clk-differs",
        "the runs' mean SM clocks differ on a state whose times spread wider than that: a "
        "mean clock does not describe every sample, so no cycles verdict; side files with "
        "per-sample clocks (--jsonbin) or runs at a fixed clock decide it",
    )
    TOO_NOISY_TO_JUDGE = (
        "too_noisy_to_judge",
        "too-noisy",
        "the calibrated run-to-run noise of this state needs a tolerance above [ci] "
        "max_tolerance, so it cannot be judged on this machine; more runs per side, more "
        "samples per run or a quieter machine help",
    )
    TOO_FEW_SAMPLES = (
        "too_few_samples",
        "few-samples",
        "a side has fewer samples than any distribution-free 95% interval for its center "
        "needs (6; compare.methods.minimum)",
    )
    INVALID_SAMPLE_COUNT = (
        "invalid_sample_count",
        "count-bad",
        "a side records a sample count that is no count (an integer from 0 to 2^63 - 1): "
        "a damaged file, on which no interval may rest",
    )
    EFFECT_UNAVAILABLE = (
        "effect_unavailable",
        "eff-miss",
        "no ratio interval: no sample times, and no quartiles or stdev with a sample count",
    )
    # -- ours: nvbench-history gate -----------------------------------------------------------
    HISTORY_TOO_SHORT = (
        "history_too_short",
        "hist-short",
        "the archive holds too few runs of this state's current level to measure run-to-run "
        "drift, so the gate cannot decide; ingest more runs",
    )
    GATE_RUNS_DISAGREE = (
        "gate_runs_disagree",
        "runs-differ",
        "the new build's runs reach different verdicts against the archived level (one of "
        "them may be an outlier run), so the gate cannot decide; gate more runs",
    )
    # -- ours: paired A/B rounds (nvbench_compare ab / --paired) ---------------------------
    PAIRED_TOO_FEW_ROUNDS = (
        "paired_too_few_rounds",
        "pr-few",
        "fewer than two rounds hold this state in both runs, so no round-to-round jitter "
        "can be measured; run more rounds",
    )
    PAIRED_ROUNDS_INCOMPLETE = (
        "paired_rounds_incomplete",
        "pr-gaps",
        "some rounds lack this state (missing, skipped or without timings) in one of their "
        "runs, so the runs cannot be paired by round",
    )
    PAIRED_CHANGE_WITHIN_FLOOR = (
        "paired_change_within_floor",
        "pr-floor",
        "the paired change clears the tolerance band but not the state's A/A noise floor "
        "(the jitter of one round's change): rounds disagree too much to call it",
    )
    PAIRED_SAME_WITHIN_FLOOR = (
        "paired_same_within_floor",
        "pr-same-floor",
        "the rounds jitter too much to show the change is inside the tolerance band, but "
        "the interval lies inside the state's own A/A floor (its upper confidence bound): "
        "no change this machine can resolve; the message names that band",
    )
    # -- NVIDIA's legacy rule (nvbench-compare-legacy; compare.methods.legacy) ------------
    LEGACY_WITHIN_NOISE = (
        "legacy_within_noise",
        "lg-same",
        "the means differ by no more than the smaller recorded relative standard deviation "
        "(NVIDIA's legacy rule; not evidence that nothing changed)",
    )
    LEGACY_BEYOND_NOISE = (
        "legacy_beyond_noise",
        "lg-diff",
        "the means differ by more than the smaller recorded relative standard deviation "
        "(NVIDIA's legacy rule; not evidence beyond run-to-run variation)",
    )
    LEGACY_NOISE_UNKNOWN = (
        "legacy_noise_unknown",
        "lg-noise",
        "no run records a usable relative standard deviation (null means infinite, and a "
        "smaller one of 0 leaves nothing to compare with), so NVIDIA's legacy rule cannot tell",
    )
    LEGACY_SUMMARIES_MISSING = (
        "legacy_summaries_missing",
        "lg-miss",
        "a run lacks the mean or the relative standard deviation summary the legacy rule "
        "reads (NVIDIA's legacy script leaves such a state out of its table)",
    )
