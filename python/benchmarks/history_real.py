"""Change points on real annotated histories: ours beside Apache Otava 0.8.0.

    python python/benchmarks/history_real.py                       # everything (a minute)
    python python/benchmarks/history_real.py --otava-python /tmp/otava/bin/python
    python python/benchmarks/history_real.py --no-otava --json real.json

Data: ``../shared/data/history-real`` (or ``$NVBENCH_TOOLS_SHARED_DATA/history-real``; the
script says so and stops where it is absent): TigerBeetle's nightly benchmark (level shifts at
15, 71, 95 as marked in Otava's own test; 10 is an outlier), three Firefox performance series
with their sheriffs' labels (``firefox/labels.json``: validated changes to find; unvalidated
alerts neither count for nor against), and the 30 univariate series of the Turing Change
Point Dataset (TCPD) with their five annotators each.

Methods, each fed the series' values in run order:

* ``ours``: :func:`cuda.bench.history.detect` at its defaults, one series at a time (its
  confirmed changes); ``ours+cand`` adds the candidates it reports at the end of a series;
* ``otava``: ``otava.analysis.compute_change_points`` of apache-otava 0.8.0 at its
  defaults (window 50, p 0.001), and ``otava w30`` (window 30, p 0.01, minimum change 5 %,
  the setting of Otava's TigerBeetle test). Otava runs in its own interpreter
  (``--otava-python``, default ``/tmp/otava/bin/python``); where it is not installed the
  script prints one line saying so and reports ours alone.

Per annotated series: ``found`` annotated changes with a reported change within 5 runs,
``missed``, and ``other`` reports farther than 5 runs from every annotated change (neutral
points — outliers, unvalidated alerts — excluded). TCPD: F1 and cover (the benchmark's
definitions, margin 5; :mod:`_real_history`) averaged over the 30 series that the
published default tables score for every method, beside those published figures.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from _real_history import (
    MARGIN,
    Annotated,
    cover,
    data_root,
    f1_score,
    firefox,
    tcpd,
    tcpd_published,
    tigerbeetle,
)
from cuda.bench.history import RunSeries, detect

Finder = Callable[[Sequence[Sequence[float]]], list[list[int]]]

_OTAVA_SCRIPT = """
import json, sys
from otava.analysis import compute_change_points
rows = json.load(open(sys.argv[1]))
window, pvalue, magnitude = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
out = []
for row in rows:
    points, _ = compute_change_points(
        [float(v) for v in row], window_len=window, max_pvalue=pvalue, min_magnitude=magnitude
    )
    out.append(sorted(int(p.index) for p in points))
json.dump(out, open(sys.argv[2], "w"))
"""


def ours(candidates: bool) -> Finder:
    def find(rows: Sequence[Sequence[float]]) -> list[list[int]]:
        out = []
        for number, row in enumerate(rows):
            values = np.asarray(row, dtype=np.float64)
            detection = detect([RunSeries(f"s{number}", values)])
            found = [change.index for change in detection.changes]
            if candidates:
                found += [one.index for one in getattr(detection, "candidates", ())]
            out.append(sorted(found))
        return out

    return find


def otava(python: str, window: int, pvalue: float, magnitude: float) -> Finder:
    def find(rows: Sequence[Sequence[float]]) -> list[list[int]]:
        with tempfile.TemporaryDirectory() as scratch:
            given, found, script = (Path(scratch) / n for n in ("in.json", "out.json", "o.py"))
            given.write_text(json.dumps([list(row) for row in rows]))
            script.write_text(_OTAVA_SCRIPT)
            command = [python, str(script), str(given), str(found), str(window)]
            subprocess.run([*command, str(pvalue), str(magnitude)], check=True)
            result: list[list[int]] = json.loads(found.read_text())
        return result

    return find


def with_otava(methods: dict[str, Finder], python: str, *, skip: bool) -> dict[str, Finder]:
    """``methods`` and Apache Otava 0.8.0 (by ``python``) with its defaults and the tuned
    setting (window 30, p 0.01, 5 %), unless ``skip`` or Otava cannot be imported there
    (one line says which)."""
    if skip:
        print("Otava skipped (--no-otava)")
    elif not otava_available(python):
        print(f"Otava skipped: apache-otava 0.8.0 is not importable by {python}")
    else:
        methods = {
            **methods,
            "otava": otava(python, 50, 0.001, 0.0),
            "otava w30": otava(python, 30, 0.01, 0.05),
        }
    return methods


def otava_available(python: str) -> bool:
    try:
        done = subprocess.run([python, "-c", "import otava.analysis"], capture_output=True)
    except OSError:
        return False
    return done.returncode == 0


def judge(series: Annotated, reported: Sequence[int]) -> tuple[int, int, int]:
    """``(found, missed, other)`` within ``MARGIN`` runs."""
    groups = [tuple(g) for g in series.same]
    grouped = {p for g in groups for p in g}
    targets = groups + [(p,) for p in series.changes if p not in grouped]
    found = sum(1 for g in targets if any(abs(r - p) <= MARGIN for r in reported for p in g))
    near = [*series.changes, *series.neutral]
    other = sum(1 for r in reported if all(abs(r - p) > MARGIN for p in near))
    return found, len(targets) - found, other


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--otava-python", default="/tmp/otava/bin/python")
    parser.add_argument("--no-otava", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true", help="print each series' reports")
    args = parser.parse_args(argv)
    root = data_root()
    if root is None:
        print("history-real data not found (../shared/data/history-real): nothing to measure")
        return 0
    methods = with_otava(
        {"ours": ours(False), "ours+cand": ours(True)}, args.otava_python, skip=args.no_otava
    )
    annotated = [tigerbeetle(root), *firefox(root)]
    tcpd_values, tcpd_notes = tcpd(root)
    scored = _published_names(root, list(tcpd_values))
    published = tcpd_published(root, scored)
    results: dict[str, dict[str, object]] = {}
    print(f"data: {root}")
    header = "| method | " + " | ".join(s.name for s in annotated) + " | TCPD F1 | TCPD cover | s |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name, find in methods.items():
        start = time.perf_counter()
        reports = find([s.values for s in annotated])
        tcpd_reports = find([tcpd_values[n] for n in scored])
        elapsed = time.perf_counter() - start
        cells = []
        row: dict[str, object] = {}
        for series, reported in zip(annotated, reports, strict=True):
            found, missed, other = judge(series, reported)
            total = found + missed
            cells.append(f"{found}/{total} +{other}")
            row[series.name] = {"reported": reported, "found": found, "of": total, "other": other}
            if args.verbose:
                print(f"  {name} {series.name}: {reported}")
        f1 = statistics.mean(
            f1_score(r, tcpd_notes[n]) for n, r in zip(scored, tcpd_reports, strict=True)
        )
        cov = statistics.mean(
            cover(r, tcpd_notes[n], len(tcpd_values[n]))
            for n, r in zip(scored, tcpd_reports, strict=True)
        )
        if args.verbose:
            for n, r in zip(scored, tcpd_reports, strict=True):
                print(f"  {name} {n}: {r} (annotated {tcpd_notes[n]})")
        row.update({"tcpd_f1": f1, "tcpd_cover": cov, "seconds": elapsed})
        results[name] = row
        print(f"| {name} | " + " | ".join(cells) + f" | {f1:.3f} | {cov:.3f} | {elapsed:.1f} |")
    for method in ("binseg", "pelt", "bocpd", "wbs", "zero"):
        if method in published:
            f1, cov = published[method]
            blanks = " | ".join("" for _ in annotated)
            print(f"| TCPD published: {method} | {blanks} | {f1:.3f} | {cov:.3f} | |")
    print(
        f"found/annotated +other within {MARGIN} runs; TCPD over {len(scored)} univariate series "
        f"(F1 and cover as defined by van den Burg & Williams 2020, margin {MARGIN})"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def _published_names(root: Path, names: Sequence[str]) -> list[str]:
    """The series that the published default tables score for every method."""
    table = json.loads((root / "tcpd" / "published" / "default_f1_uni_full.json").read_text())
    return sorted(
        name
        for name in names
        if name in table
        and all(value is not None and not math.isnan(value) for value in table[name].values())
    )


if __name__ == "__main__":
    sys.exit(main())
