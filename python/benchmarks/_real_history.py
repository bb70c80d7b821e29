"""Real annotated histories of ``../shared/data/history-real`` and the TCPD metrics.

Loaders for the three data sets (see that folder's README for their sources and licences)
and the two scores of the Turing Change Point Dataset benchmark (van den Burg & Williams
2020, *An Evaluation of Change Point Detection Algorithms*), written here from the
definitions in the data's README:

* every set of change points, reported or annotated, also holds index 0;
* ``TP(S, T)``: the points of ``T`` with a reported point within the margin ``M`` (5),
  each reported point used at most once;
* precision ``|TP(S, union of annotations)| / |S|``, recall the mean over annotators of
  ``|TP(S, T_k)| / |T_k|``, F1 their harmonic mean;
* cover: the mean over annotators of ``(1/n) sum_A |A| max_A' |A n A'| / |A u A'|`` over
  the segments ``A`` of the annotation and ``A'`` of the report.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Annotated",
    "cover",
    "data_root",
    "f1_score",
    "firefox",
    "tcpd",
    "tcpd_published",
    "tigerbeetle",
]

MARGIN = 5


@dataclass(frozen=True)
class Annotated:
    """One real series and the change points people marked on it."""

    name: str
    values: tuple[float, ...]
    #: Changes to find (first run of the new level, 0-based).
    changes: tuple[int, ...]
    #: Groups of indices that describe one change (any of them counts as finding it).
    same: tuple[tuple[int, ...], ...] = ()
    #: Indices whose report is neither a hit nor an "other" (unvalidated alerts, outliers).
    neutral: tuple[int, ...] = ()


def data_root() -> Path | None:
    """``../shared/data/history-real`` from the checkout, or ``$NVBENCH_TOOLS_SHARED_DATA``."""
    env = os.environ.get("NVBENCH_TOOLS_SHARED_DATA")
    candidates = [Path(env) / "history-real"] if env else []
    candidates.append(
        Path(__file__).resolve().parents[2].parent / "shared" / "data" / "history-real"
    )
    return next((path for path in candidates if path.is_dir()), None)


def tigerbeetle(root: Path) -> Annotated:
    data = json.loads((root / "tigerbeetle" / "series.json").read_text())
    values = tuple(float(v) for v in data["series"]["tigerbeetle"]["values"])
    return Annotated(
        "tigerbeetle",
        values,
        tuple(data["annotation_level_shifts"]),
        neutral=tuple(data["outliers"]),
    )


def firefox(root: Path) -> list[Annotated]:
    folder = root / "firefox"
    labels = json.loads((folder / "labels.json").read_text())
    out = []
    for name, label in sorted(labels.items()):
        rows = [line.split("\t") for line in (folder / f"{name}.tsv").read_text().splitlines()]
        values = tuple(float(row[1]) for row in rows if row and row[0].strip())
        changes = tuple(label["changes"])
        # The README's note: the speedometer step at 117/121 is one change (two alerts).
        same = (changes,) if len(changes) == 2 and changes[1] - changes[0] <= MARGIN else ()
        neutral = tuple(label["unvalidated_alerts"]) + tuple(label["invalid_alerts"])
        out.append(Annotated(f"firefox/{name}", values, changes, same, neutral))
    return out


def tcpd(root: Path) -> tuple[dict[str, tuple[float, ...]], dict[str, list[list[int]]]]:
    """The 30 univariate series (``input.json``) and their five annotators' points."""
    folder = root / "tcpd"
    series = json.loads((folder / "input.json").read_text())["series"]
    notes = json.loads((folder / "annotations.json").read_text())
    values = {name: tuple(float(v) for v in one["values"]) for name, one in series.items()}
    annotations = {name: [list(points) for points in notes[name].values()] for name in values}
    return values, annotations


def tcpd_published(root: Path, names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each method's published default F1 and cover averaged over ``names``."""
    folder = root / "tcpd" / "published"
    f1 = json.loads((folder / "default_f1_uni_full.json").read_text())
    cov = json.loads((folder / "default_cover_uni_full.json").read_text())
    methods = sorted({method for name in names for method in f1.get(name, {})})
    out = {}
    for method in methods:
        f = [f1[name][method] for name in names if f1.get(name, {}).get(method) is not None]
        c = [cov[name][method] for name in names if cov.get(name, {}).get(method) is not None]
        if len(f) == len(names) and len(c) == len(names):
            out[method] = (sum(f) / len(f), sum(c) / len(c))
    return out


def _true_positives(reported: Sequence[int], truth: Sequence[int], margin: int) -> int:
    """Points of ``truth`` with an unused reported point within ``margin`` (greedy, nearest)."""
    unused = sorted(set(reported))
    hits = 0
    for point in sorted(set(truth)):
        near = [p for p in unused if abs(p - point) <= margin]
        if near:
            unused.remove(min(near, key=lambda p: abs(p - point)))
            hits += 1
    return hits


def f1_score(
    reported: Sequence[int], annotations: Sequence[Sequence[int]], margin: int = MARGIN
) -> float:
    shown = sorted({0, *reported})
    union = sorted({0, *(p for points in annotations for p in points)})
    precision = _true_positives(shown, union, margin) / len(shown)
    recall = sum(
        _true_positives(shown, sorted({0, *points}), margin) / len({0, *points})
        for points in annotations
    ) / len(annotations)
    if precision + recall == 0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def _segments(points: Sequence[int], runs: int) -> list[tuple[int, int]]:
    bounds = sorted({0, *(p for p in points if 0 < p < runs), runs})
    return list(itertools.pairwise(bounds))


def cover(reported: Sequence[int], annotations: Sequence[Sequence[int]], runs: int) -> float:
    mine = _segments(reported, runs)
    total = 0.0
    for points in annotations:
        score = 0.0
        for low, high in _segments(points, runs):
            best = 0.0
            for a, b in mine:
                inter = max(0, min(high, b) - max(low, a))
                if inter:
                    union = max(high, b) - min(low, a)
                    best = max(best, inter / union)
            score += (high - low) * best
        total += score / runs
    return total / len(annotations)
