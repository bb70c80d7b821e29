"""Confirmation by the two-level bootstrap, Benjamini-Hochberg across series, events."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cuda.bench.compare.model import Status
from cuda.bench.history import ConfirmConfig, RunSeries, detect
from cuda.bench.history.confirm import (
    benjamini_hochberg,
    confirm_change,
    confirmation_runs,
    status_of,
)
from cuda.bench.history.synthetic import (
    HistoryNoise,
    commit_ids,
    generate,
    run_samples,
    run_series,
)


def test_benjamini_hochberg_by_hand() -> None:
    # Sorted 0.01, 0.03, 0.04, 0.2 against 0.0125, 0.025, 0.0375, 0.05: only the first.
    rejected, q = benjamini_hochberg(np.array([0.04, 0.01, 0.2, 0.03]), 0.05)
    assert rejected.tolist() == [False, True, False, False]
    assert q == pytest.approx([0.04 * 4 / 3, 0.04, 0.2, 0.04 * 4 / 3])
    # All at 0.03 of four: every step-up bound 0.0125 k passes at k = 4 (0.05).
    assert benjamini_hochberg(np.full(4, 0.03), 0.05)[0].all()
    assert benjamini_hochberg(np.zeros(0), 0.05)[0].size == 0


def _stepped(factor: float, *, sample_sigma: float = 0.02, seed: int = 0) -> RunSeries:
    history = generate(
        HistoryNoise("iid", sample_sigma=sample_sigma),
        series=1,
        runs=60,
        steps=(factor - 1.0,),
        step_at=30,
        seed=seed,
    )
    return RunSeries("s", history.medians[0], samples=run_samples(history, 0, 300))


def test_a_clear_step_is_confirmed_with_an_interval_around_it() -> None:
    series = _stepped(1.10)
    rng = np.random.default_rng(1)
    ratio = confirm_change(series, 30, 0, 60, ConfirmConfig(), rng)
    assert status_of(ratio, 0.01) is Status.SLOW
    assert ratio.ratio_lo < 1.10 < ratio.ratio_hi
    assert ratio.ratio_hi / ratio.ratio_lo < 1.03


def test_a_step_inside_the_tolerance_is_not_confirmed() -> None:
    series = _stepped(1.003)
    ratio = confirm_change(series, 30, 0, 60, ConfirmConfig(), np.random.default_rng(2))
    assert status_of(ratio, 0.01) is None


def test_within_run_noise_widens_the_interval() -> None:
    # The same medians: with samples the second level (samples within runs) adds spread.
    noisy = _stepped(1.05, sample_sigma=0.2, seed=3)
    bare = RunSeries("s", noisy.medians)
    config = ConfirmConfig()
    with_samples = confirm_change(noisy, 30, 0, 60, config, np.random.default_rng(4))
    medians_only = confirm_change(bare, 30, 0, 60, config, np.random.default_rng(4))
    assert with_samples.estimate == pytest.approx(medians_only.estimate)
    width = with_samples.hi - with_samples.lo
    assert width > 1.3 * (medians_only.hi - medians_only.lo)


def test_median_intervals_stand_in_for_samples() -> None:
    series = _stepped(1.05, sample_sigma=0.2, seed=3)
    wide = RunSeries(
        "s", series.medians, median_lo=series.medians / 1.05, median_hi=series.medians * 1.05
    )
    config = ConfirmConfig()
    bare = confirm_change(
        RunSeries("s", series.medians), 30, 0, 60, config, np.random.default_rng(5)
    )
    drawn = confirm_change(wide, 30, 0, 60, config, np.random.default_rng(5))
    assert drawn.hi - drawn.lo > bare.hi - bare.lo


def test_the_sides_stop_at_the_neighbouring_changes() -> None:
    # A second step 4 runs after the first: the after side must not reach across it.
    medians = np.ones(40)
    medians[20:] = 1.10
    medians[24:] = 1.50
    series = RunSeries("s", medians * np.exp(np.random.default_rng(6).normal(0, 0.002, 40)))
    ratio = confirm_change(series, 20, 0, 24, ConfirmConfig(), np.random.default_rng(7))
    assert ratio.ratio == pytest.approx(1.10, rel=0.01)
    with pytest.raises(ValueError):
        confirm_change(series, 24, 0, 24, ConfirmConfig(), np.random.default_rng(7))


def test_detect_groups_one_commit_into_one_event() -> None:
    commits = commit_ids(120)
    stepped = generate(HistoryNoise("iid"), series=20, runs=120, steps=(0.05,), step_at=70, seed=1)
    quiet = generate(HistoryNoise("ar1"), series=60, runs=120, seed=2)
    series = run_series(stepped, labels=commits, prefix="step") + run_series(
        quiet, labels=commits, prefix="noise"
    )
    detection = detect(series)
    true = [change for change in detection.changes if change.series.startswith("step")]
    # The false-discovery rate is controlled at 5 %: a false change among ~20 may happen.
    assert len(detection.changes) - len(true) <= 1
    assert len(true) >= 18
    assert all(abs(change.index - 70) <= 2 for change in true)
    main = detection.events[0]
    assert main.commit == commits[70] and main.status is Status.SLOW
    assert len(main.series) >= 15
    assert main.ratio_lo < 1.05 < main.ratio_hi
    assert all(change.q_value <= detection.fdr for change in detection.changes)
    assert len(detection.scans) == 80
    assert detection.change_count(Status.SLOW) == len(detection.changes)


def test_detect_controls_false_discoveries_across_series() -> None:
    # Pure noise everywhere: per-series alarms at 1 % would find one or two; with the
    # false-discovery control across the 150 series there should be none at all.
    quiet = generate(HistoryNoise("lognormal"), series=150, runs=100, seed=9)
    detection = detect(run_series(quiet))
    assert detection.changes == () and detection.events == ()


def test_series_input_is_validated() -> None:
    with pytest.raises(ValueError, match="positive"):
        RunSeries("s", np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="labels"):
        RunSeries("s", np.ones(3), labels=("a",))
    with pytest.raises(ValueError, match="sample arrays"):
        RunSeries("s", np.ones(3), samples=(np.ones(2),))
    with pytest.raises(ValueError, match="both"):
        RunSeries("s", np.ones(3), median_lo=np.ones(3))
    with pytest.raises(ValueError, match="hold"):
        RunSeries("s", np.ones(3), median_lo=np.full(3, 2.0), median_hi=np.full(3, 3.0))
    with pytest.raises(ValueError, match="unique"):
        detect([RunSeries("s", np.ones(20)), RunSeries("s", np.ones(20))])
    assert RunSeries("s", np.ones(3)).label(2) == "#2"
    assert math.isclose(float(RunSeries("s", [1, 2]).medians[1]), 2.0)  # type: ignore[arg-type]


def test_an_outlying_run_beside_a_change_is_left_out() -> None:
    history = generate(HistoryNoise("iid"), series=1, runs=60, steps=(0.05,), step_at=30, seed=8)
    medians = history.medians[0].copy()
    medians[32] *= 1.6  # one run 60 % slow, right after the change
    series = RunSeries("s", medians)
    config = ConfirmConfig(side_runs=10)
    before, after = confirmation_runs(series, 30, 0, 60, config, noise=0.01)
    assert before == list(range(20, 30)) and 32 not in after and len(after) == 9
    kept = confirm_change(series, 30, 0, 60, config, np.random.default_rng(1), noise=0.01)
    assert status_of(kept, config.tolerance) is Status.SLOW
    assert kept.ratio_lo < 1.05 < kept.ratio_hi
    polluted = confirm_change(series, 30, 0, 60, config, np.random.default_rng(1))
    assert polluted.ratio > 1.08  # what the outlier does when nothing leaves it out


def test_autocorrelated_runs_widen_the_interval() -> None:
    series = _stepped(1.05, seed=4)
    config = ConfirmConfig()
    plain = confirm_change(series, 30, 0, 60, config, np.random.default_rng(3))
    wide = confirm_change(series, 30, 0, 60, config, np.random.default_rng(3), dependence=2.0)
    assert wide.estimate == plain.estimate
    assert wide.hi - wide.lo > 1.5 * (plain.hi - plain.lo)


def test_change_count_takes_a_status_as_text() -> None:
    # Changes were counted by identity with the status: "SLOW" counted none.
    from cuda.bench.history import ConfirmedChange, Detection

    slow = ConfirmedChange("s", 5, "c5", Status.SLOW, 1.1, 1.05, 1.15, 0.001, 0.01, 5, 10, 10)
    detection = Detection((), (slow,), (), 0, 0.05, 0.01)
    assert detection.change_count("SLOW") == detection.change_count(Status.SLOW) == 1
    assert detection.change_count("fast") == 0
    with pytest.raises(ValueError, match="unknown status"):
        detection.change_count("slower")


def test_a_series_keeps_its_own_read_only_arrays() -> None:
    # The caller's array was kept: changed after the checks, a run's median became -1.
    medians, lo, hi = np.full(20, 2.0), np.full(20, 1.0), np.full(20, 3.0)
    samples = tuple(np.full(5, 2.0, dtype=np.float32) for _ in range(20))
    series = RunSeries("s", medians, samples=samples, median_lo=lo, median_hi=hi)
    given = [medians, lo, hi, *samples]
    kept = [series.medians, series.median_lo, series.median_hi, *(series.samples or ())]
    for source, own in zip(given, kept, strict=True):
        assert own is not None and not np.shares_memory(source, own)
        assert not own.flags.writeable
        source[0] = -1.0
    assert float(series.medians[0]) == 2.0 and float(series.median_lo[0]) == 1.0  # type: ignore[index]
    assert series.samples is not None and series.samples[0].dtype == np.float32
    with pytest.raises(ValueError, match="read-only"):
        series.medians[1] = -1.0


def test_detect_refuses_arguments_that_are_not_series_or_settings() -> None:
    # Each failed with an AttributeError ('missing', 'windows') deep in the detection.
    from cuda.bench.history import ScanConfig

    series = RunSeries("s", np.ones(20))
    with pytest.raises(TypeError, match=r"^series must be a sequence of RunSeries"):
        detect("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^series must be a sequence of RunSeries"):
        detect(series)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^series\[1\] must be a RunSeries"):
        detect([series, np.ones(20)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"^scan_config must be a ScanConfig"):
        detect([series], ConfirmConfig(), ScanConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^confirm_config must be a ConfirmConfig"):
        detect([series], None, ScanConfig())  # type: ignore[arg-type]
    assert detect(iter([series])).scans[0][0] == "s"  # any iterable of series


@pytest.mark.parametrize("bad", [-1.0, 0.0, math.nan, math.inf])
def test_samples_must_be_positive_times(bad: float) -> None:
    # A negative sample failed with "math domain error" in the confirmation of a change.
    samples = [np.full(5, 1.0) for _ in range(20)]
    samples[3] = np.array([1.0, bad, 1.0])
    with pytest.raises(ValueError, match=r"^series 's': run 3's samples hold a value"):
        RunSeries("s", np.ones(20), samples=tuple(samples))
    # A missing run's samples are not read.
    medians = np.ones(20)
    medians[3] = math.nan
    assert RunSeries("s", medians, samples=tuple(samples)).missing == 1
    with pytest.raises(TypeError, match=r"^key must be text"):
        RunSeries(7, np.ones(20))  # type: ignore[arg-type]
