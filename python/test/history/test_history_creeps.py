"""Changes that take many runs (creeps) are reported as creeps, with where they began and ended."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from pathlib import Path

import msgspec.structs
import numpy as np
import pytest
from conftest import real_path
from cuda.bench.compare.model import Status
from cuda.bench.history import RunSeries, ScanConfig, detect
from cuda.bench.history._gradual import LINE_F_99, creep_ramp, transition_rss
from cuda.bench.history._robust import robust_scores
from cuda.bench.history._shapes import steps_and_creeps
from cuda.bench.history.series import ArchiveSeries, examine
from cuda.bench.report.history import detect_report, detect_text, trend_text

_DOC = Path(__file__).resolve().parents[3] / "docs" / "history-schema.md"


def _creep(seed: int, *, size: float = 1.08, start: int = 80, length: int = 30) -> np.ndarray:
    """200 runs of 1 % noise whose level rises by ``size`` over ``length`` runs."""
    logs = np.random.default_rng(seed).normal(0.0, 0.01, 200)
    logs += np.clip((np.arange(200) - start) / length, 0.0, 1.0) * math.log(size)
    return np.exp(logs)


def test_a_creep_is_reported_with_its_ramp_and_size() -> None:
    whole = 0
    for seed in range(12):
        found = detect([RunSeries("s", _creep(seed))])
        for creep in found.creeps:
            # The level left 1.0 at run 80 and reached 1.08 at run 110; a creep the scan
            # saw as a step and a creep lies within the ramp.
            assert 75 <= creep.first < creep.end <= 115, creep
            assert creep.status is Status.SLOW and 0 < creep.q_value <= 0.05
            assert creep.first_commit == f"#{creep.first}"
            if abs(creep.first - 81) <= 5 and abs(creep.end - 110) <= 5:
                whole += 1
                assert creep.ratio_lo < 1.08 * 1.005 and creep.ratio_hi > 1.08 * 0.995, creep
        # A creep is never also a change inside its own ramp.
        assert not any(
            creep.first <= change.index <= creep.end
            for creep in found.creeps
            for change in found.changes
        )
    # Before creeps were reported, such a series gave nothing in most seeds: the change
    # the scan found was set aside as a trend or a creep, silently.
    assert whole >= 9


def test_a_step_is_not_a_creep_and_a_trend_is_neither() -> None:
    logs = np.random.default_rng(4).normal(0.0, 0.01, 200)
    stepped = detect([RunSeries("s", np.exp(logs + np.where(np.arange(200) >= 90, 0.08, 0.0)))])
    assert [change.index for change in stepped.changes] == [90] and not stepped.creeps
    trends = [
        RunSeries(
            f"t{seed}",
            np.exp(
                np.random.default_rng(seed).normal(0.0, 0.01, 200)
                + np.linspace(0.0, math.log(1.15), 200)
            ),
        )
        for seed in range(30)
    ]
    found = detect(trends, ScanConfig(workers=2))
    assert not found.creeps and not found.changes


def test_a_line_through_the_window_is_no_creep_but_a_ramp_between_levels_is() -> None:
    rng = np.random.default_rng(8)
    line = np.linspace(0.0, 1.0, 60) + 0.05 * rng.standard_normal(60)
    assert creep_ramp(line, 5) is None
    ramp = np.clip((np.arange(60) - 20) / 20, 0.0, 1.0) + 0.05 * rng.standard_normal(60)
    found = creep_ramp(ramp, 5)
    assert found is not None
    start, length = found
    assert abs(start - 20) <= 2 and abs(length - 20) <= 3


def _line_gain(values: np.ndarray) -> np.ndarray:
    x = np.arange(values.shape[1]) - (values.shape[1] - 1) / 2.0
    centred = values - values.mean(axis=1, keepdims=True)
    residual = centred - np.outer(centred @ x / (x @ x), x)
    ramp = transition_rss(values, 5)[1]
    gain: np.ndarray = (np.einsum("ij,ij->i", residual, residual) - ramp) / (
        ramp / (values.shape[1] - 4)
    )
    return gain


@pytest.mark.parametrize(("runs", "slope"), [(20, 0.3), (40, 0.06), (80, 0.0)])
def test_the_line_critical_value_holds_a_true_line_to_about_one_percent(
    runs: int, slope: float
) -> None:
    # Part of the simulation behind LINE_F_99 (its docstring): a true line in independent
    # noise beats the critical value in about 1 % of windows at most.
    rng = np.random.default_rng(runs)
    values = rng.standard_normal((3000, runs)) + slope * np.arange(runs)
    assert float(np.mean(_line_gain(values) > LINE_F_99)) < 0.015


def test_creeps_after_missing_runs_keep_their_indices() -> None:
    medians = _creep(0)
    medians[[10, 40, 95]] = np.nan
    (creep,) = detect([RunSeries("s", medians)]).creeps
    assert abs(creep.first - 81) <= 5 and abs(creep.end - 110) <= 5, creep
    assert creep.first_commit == f"#{creep.first}" and creep.end_commit == f"#{creep.end}"
    assert not np.isnan(medians[creep.first]) and not np.isnan(medians[creep.end])


def _archive_series(medians: np.ndarray) -> ArchiveSeries:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    return ArchiveSeries(
        machine="m",
        benchmark="b",
        device=0,
        state_name="Elements[pow2]=16",
        axes=(),
        commits=tuple(f"c{i:04d}" for i in range(medians.size)),
        dates=tuple(start + dt.timedelta(days=i) for i in range(medians.size)),
        medians=medians * 1e-3,
        median_lo=None,
        median_hi=None,
        run_ids=tuple(f"r{i}" for i in range(medians.size)),
        device_name="NVIDIA H200",
    )


def _documented(heading: str) -> set[str]:
    lines = _DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    names = set()
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        match = re.match(r"^\| `([^`]+)` \|", line)
        if match:
            names.add(match.group(1))
    return names


def test_reports_show_the_creep_and_the_current_level_starts_after_it() -> None:
    view = examine([_archive_series(_creep(0, start=150, length=30))])
    (creep,) = view.detection.creeps
    (level,) = view.levels
    # The current level is the new one alone: from the creep's end, not its ramp.
    assert level.since == creep.end and level.median > 1.07e-3
    assert "creep SLOW" in trend_text(view)
    text = detect_text(view)
    assert "Creep from" in text and "[0] NVIDIA H200" in text and "Elements=2^16" in text
    assert "1 creep over several runs" in text
    report = json.loads(json.dumps(detect_report(view, tool_version="0")))
    (record,) = report["creeps"]
    assert set(record) == _documented("### Creep fields")
    assert record["first"] == creep.first and record["end"] == creep.end
    assert record["state"] == "Elements=2^16" and record["device_name"] == "NVIDIA H200"
    end_date = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=creep.end)
    assert record["end_date"] == end_date.isoformat()
    assert report["series"][0]["level_runs"] == 200 - creep.end


def test_tigerbeetles_creep_is_reported_and_its_steps_stay_changes() -> None:
    data = json.loads(real_path("history-real/tigerbeetle/series.json").read_text())
    values = np.asarray(data["series"]["tigerbeetle"]["values"], dtype=np.float64)
    found = detect([RunSeries("tigerbeetle", values)])
    indices = [change.index for change in found.changes]
    for annotated in data["annotation_level_shifts"]:
        assert any(abs(index - annotated) <= 5 for index in indices), (annotated, indices)
    # Its level rises by about 5 % between runs 97 and 145 (docs/history-detection.md).
    (creep,) = found.creeps
    assert 97 <= creep.first < creep.end <= 150 and creep.end - creep.first >= 10
    assert creep.status is Status.SLOW and 1.02 < creep.ratio < 1.08


def test_the_dashboard_index_lists_creeps_and_candidates_with_their_device(tmp_path: Path) -> None:
    from cuda.bench.report.html.history_site import write_site

    crept = _archive_series(_creep(0, start=100, length=30))
    recent = _archive_series(np.r_[_creep(1, size=1.0)[:197], _creep(1, size=1.0)[197:] * 1.05])
    recent = msgspec.structs.replace(recent, benchmark="c", state_name="<b>=1")
    view = examine([crept, recent])
    assert len(view.detection.creeps) == 1 and view.candidates[1] is not None
    page = (write_site(view, tmp_path / "site", tool_version="t")).read_text(encoding="utf-8")
    creeps = page[page.index("Creeps (changes over several runs)") :]
    creeps = creeps[: creeps.index("</table>")]
    (creep,) = view.detection.creeps
    assert f"<code>c{creep.first:04d}</code>" in creeps and "NVIDIA H200" in creeps
    candidates = page[page.index("Candidates (too recent to confirm)") :]
    candidates = candidates[: candidates.index("</table>")]
    # The device, and a state name rendered as text.
    assert "<td>[0] NVIDIA H200</td>" in candidates and "&lt;b&gt;=1" in candidates


def test_the_detect_table_of_candidates_shows_device_and_state_as_compare_does() -> None:
    # Before, it showed the stored name (Elements[pow2]=16) and no device.
    recent = _archive_series(np.r_[_creep(1, size=1.0)[:197], _creep(1, size=1.0)[197:] * 1.05])
    text = detect_text(examine([recent]))
    table = text[text.index("Candidate commit") :]
    row = next(line for line in table.splitlines() if line.startswith("| b "))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:4] == ["b", "[0] NVIDIA H200", "Elements=2^16", "c0197"], cells


def _ramps(seed: int, *ramps: tuple[int, int]) -> np.ndarray:
    """200 runs of 1 % noise with a rise of 8 % (log 0.08) over each ``(start, length)``."""
    logs = np.random.default_rng(seed).normal(0.0, 0.01, 200)
    for start, length in ramps:
        logs += np.clip((np.arange(200) - start) / length, 0.0, 1.0) * 0.08
    return np.exp(logs)


def test_a_creep_has_levels_of_several_runs_on_both_sides() -> None:
    # A ramp from run 1: it once came out with one run of the old level, and an interval
    # far too narrow to hold the true rise.
    reported = 0
    for seed in range(6):
        for creep in detect([RunSeries("s", _ramps(seed, (1, 30)))]).creeps:
            reported += 1
            assert creep.runs_before >= 5 and creep.runs_after >= 5, creep
            assert creep.ratio_lo <= math.exp(0.08) <= creep.ratio_hi, creep
    assert reported >= 4


def test_creeps_side_by_side_are_each_measured_on_their_own_levels() -> None:
    # Each creep's new level used to reach into the next creep's ramp: both came out near
    # +11 % for two rises of 8.3 %.
    measured = 0
    for seed in range(8):
        creeps = detect([RunSeries("s", _ramps(seed, (40, 30), (85, 30)))]).creeps
        if len(creeps) != 2:
            continue
        measured += 1
        assert creeps[0].end <= creeps[1].first
        for creep in creeps:
            assert creep.ratio_lo <= math.exp(0.08) <= creep.ratio_hi, creep
    assert measured >= 2


def test_a_recent_creep_is_no_candidate_and_the_level_starts_after_it() -> None:
    # The runs after a creep that ended at run 190 once made a candidate against the level
    # before the creep (+5 %), and the current level was those few runs.
    view = examine([_archive_series(_ramps(1, (165, 25)))])
    (creep,) = view.detection.creeps
    assert not view.detection.candidates
    assert view.levels[0].since == creep.end
    assert view.detection.scans[0][1].candidate is None


def test_two_changes_inside_one_ramp_make_one_creep() -> None:
    # A scan with a narrower null (the garrote's, docs/history-detection-record.md) placed changes
    # at 170 and 178 inside the rise of runs 165..190. Judged in a window cut at its
    # neighbour, 170 saw only the ramp's first half and passed for a step; 178, cut at 170,
    # saw no old level and was set aside; so a step at 170 was reported, with a candidate
    # against it at 196, instead of the creep.
    logs = np.log(_ramps(1, (165, 25)))
    scores = robust_scores(logs[None, :], 5)[0]
    # The correlation the scan estimated for this series, 0.14.
    found = [(170, 10, 4.6), (178, 5, 25.5)]
    steps, creeps = steps_and_creeps(found, scores, 40, 0.14, 5, logs)
    assert steps == []
    ((first, end, (index, _, _)),) = creeps
    assert index == 170 and 160 <= first <= 168 and 188 <= end <= 194


def test_a_step_beside_a_creep_is_not_judged_with_its_ramp() -> None:
    # A 4 % step at 75 and a rise of 8 % over runs 91..116, the scan's changes at 75, 93
    # and 115: the two inside the ramp make one creep, the weaker merged away. Judged again
    # without the weaker, 75's window reached into the ramp and the step was lost (in 24
    # of 120 such series); the creep's change and its ramp now still bound that window.
    rng = np.random.default_rng(0)
    t = np.arange(200)
    logs = rng.normal(0.0, 0.01, 200) + math.log(1.04) * (t >= 75)
    logs += 0.08 * np.clip((t - 91) / 25, 0.0, 1.0)
    scores = robust_scores(logs[None, :], 5)[0]
    found = [(75, 10, 7.65), (93, 10, 16.8), (115, 10, 13.0)]
    steps, creeps = steps_and_creeps(found, scores, 40, 0.2, 5, logs)
    assert [index for index, _, _ in steps] == [75]
    ((first, end, _),) = creeps
    assert 88 <= first <= 96 and 110 <= end <= 120


def test_a_creep_does_not_count_as_noise() -> None:
    # The noise was measured around the changes only: a creep of 8 % made it five times
    # the run-to-run noise, which also turned off the confirmation's outlier filter.
    creeping = detect([RunSeries("c", _ramps(0, (80, 30)))])
    assert creeping.creeps
    noise = creeping.scans[0][1].noise
    assert 0.007 < noise < 0.013, noise


def test_the_trend_plot_shades_the_creep_and_starts_the_level_at_its_first_run() -> None:
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib")
    from cuda.bench.report.plots.history import trend_figure
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Polygon, Rectangle

    view = examine([_archive_series(_ramps(0, (80, 30)))])
    (creep,) = view.detection.creeps
    (axis,) = trend_figure(view, [0]).axes
    shaded = [
        patch.get_path().transformed(patch.get_patch_transform()).vertices[:, 0]
        if isinstance(patch, Rectangle)
        else patch.get_xy()[:, 0]
        for patch in axis.patches
        if isinstance(patch, (Polygon, Rectangle))
    ]
    assert any(min(x) == creep.first - 1 and max(x) == creep.end for x in shaded), shaded
    # The current level's band began a fraction of a run late (placed in axes units
    # against runs - 1 while the axis spans runs): now at half a run before its first.
    (band,) = [c for c in axis.collections if isinstance(c, PolyCollection)]
    starts = band.get_paths()[0].vertices[:, 0]
    assert min(starts) == view.levels[0].since - 0.5


def test_a_step_with_a_missed_step_inside_the_reach_is_kept() -> None:
    # The scan placed a 5 % step at 132 with its 10-run window but missed a 3 % one at 111,
    # on a 3.7 % trend: over the full reach (92..172) a line through both steps fits better
    # than the one step, and 12 of 40 such changes were set aside. On the runs the placing
    # window compared, the step is plain.
    t = np.arange(200)
    kept = 0
    for seed in range(40):
        logs = np.random.default_rng(seed).normal(0.0, 0.01, 200)
        logs += math.log(1.03) * (t >= 111) + math.log(1.05) * (t >= 132) + 0.037 * t / 199
        scores = robust_scores(logs[None, :], 5)[0]
        steps, _ = steps_and_creeps([(132, 10, 8.0), (178, 5, 30.0)], scores, 40, 0.1, 5, logs)
        kept += 132 in [index for index, _, _ in steps]
    assert kept >= 37, kept


def test_the_second_judgement_leaves_a_creep_a_creep() -> None:
    # A rise of 6 % over runs 70..100 whose knee the scan placed with its 5-run window: over
    # the full reach a ramp fits, so it is a creep. The second judgement, on the 10 runs a
    # side of the knee, used to call it a step in 3 of 100 series.
    t = np.arange(200)
    steps = creeps = 0
    for seed in range(100):
        logs = np.random.default_rng(seed).normal(0.0, 0.01, 200)
        logs += 0.06 * np.clip((t - 70) / 30, 0.0, 1.0)
        scores = robust_scores(logs[None, :], 5)[0]
        kept, found = steps_and_creeps([(71, 5, 8.0)], scores, 40, 0.0, 5, logs)
        steps += bool(kept)
        creeps += bool(found)
    assert steps == 0 and creeps >= 95, (steps, creeps)


@pytest.mark.parametrize("runs", [3, 7, 200])
def test_the_trend_plot_ticks_whole_runs(runs: int) -> None:
    # A history of 3 runs had x ticks at -0.5, 0.5, 1.5 ("run 0.5").
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib")
    from cuda.bench.report.plots.history import trend_figure

    view = examine([_archive_series(np.exp(np.random.default_rng(1).normal(0, 0.01, runs)))])
    (axis,) = trend_figure(view, [0]).axes
    ticks = [tick for tick in axis.get_xticks() if -0.5 <= tick <= runs - 0.5]
    assert ticks and all(float(tick).is_integer() for tick in ticks), ticks
