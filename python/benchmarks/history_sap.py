"""SAP HANA's annotated performance histories: ours and Apache Otava 0.8.0, per series type.

A check on real histories the detector was not built from (nothing here chose a constant):
SAP's *Performance Regression Data Set* (small), 25 series of time measurements from SAP
HANA's own regression testing, each judged by SAP's engineers as a regression (with the last
run before it) or as one of four kinds of no regression: stable, spike, high deviation,
build-dependent. Its data are not in ``../shared`` (licence CC-BY-4.0; never copied into
this repository): fetch ``github.com/SAP/performance-regression-data-set`` at commit
``1dcc06061dca4f97f1b786dd8a9cefce96ef98b4`` (later commits keep only the labels) and give
its ``hana/small_2021`` folder::

    python python/benchmarks/history_sap.py --data PATH/hana/small_2021

Each row of a series is one measurement; rows of one build (its ``GHC`` number) are
measurements of the same code. Two readings are scored:

* **rows**: every row a run, as the rows stand;
* **builds**: the median of each build's rows a run (builds in the order they first
  appear), the unit a nightly history archives: one value per commit. The annotated change
  is moved to the build of its first slower row.

A regression is found when a method reports a change within 5 runs of it
(``history_real.judge``); every report in a series judged to hold no regression is an
"other".
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _real_history import MARGIN, Annotated
from history_real import Finder, judge, ours, with_otava

__all__ = ["SapSeries", "by_build", "read_data_set"]

#: SAP's label of a series with a regression (written "regression" in the file; compared
#: without case); the others (stable, spike, high deviation, build-dependent) hold none.
REGRESSION = "regression"


@dataclass(frozen=True)
class SapSeries:
    """One series: its label and, for a regression, the first slower row (0-based)."""

    name: str
    kind: str
    values: tuple[float, ...]
    builds: tuple[str, ...]
    change: int | None

    def measurements(self) -> Annotated:
        changes = () if self.change is None else (self.change,)
        return Annotated(f"{self.name} {self.kind}", self.values, changes)


def read_data_set(folder: Path) -> list[SapSeries]:
    """The series ``dataset_details.csv`` lists, with their labels.

    The details give, per file, the ``Type`` and the ``Change Point``: "the last index before
    the regression" in the 1-based ``Index`` column, so the first slower row's 0-based
    position is that same number."""
    details = folder / "dataset_details.csv"
    with details.open(newline="") as stream:
        rows = list(csv.DictReader(stream, delimiter=";"))
    found = []
    for row in rows:
        kind, name = row["Type"].strip(), row["Dataset"].strip()
        with (folder / name).open(newline="") as stream:
            records = list(csv.DictReader(stream))
        indices = [int(record["Index"]) for record in records]
        if indices != list(range(1, len(records) + 1)):
            raise ValueError(f"{name}: Index is not 1, 2, 3, ...: the labels would not line up")
        change = None
        if kind.lower() == REGRESSION:
            change = int(row["Change Point"])
            if not 0 < change < len(records):
                raise ValueError(f"{name}: change point {change} outside its {len(records)} rows")
        found.append(
            SapSeries(
                name=Path(name).stem,
                kind=kind,
                values=tuple(float(record["Measurement"]) for record in records),
                builds=tuple(record["GHC"].strip() for record in records),
                change=change,
            )
        )
    return sorted(found, key=lambda series: series.name)


def by_build(series: SapSeries) -> Annotated:
    """The median of each build's rows, builds in the order they first appear; the change
    moved to the build of its first slower row."""
    order: dict[str, list[float]] = {}
    for build, value in zip(series.builds, series.values, strict=True):
        order.setdefault(build, []).append(value)
    names = list(order)
    values = tuple(statistics.median(order[name]) for name in names)
    changes = () if series.change is None else (names.index(series.builds[series.change]),)
    return Annotated(f"{series.name} {series.kind}", values, changes)


def _score(
    methods: dict[str, Finder], annotated: Sequence[Annotated], kinds: Sequence[str]
) -> dict[str, dict[str, list[int]]]:
    """Per method, per kind: ``[found, annotated, other]`` summed over the kind's series."""
    table: dict[str, dict[str, list[int]]] = {}
    for name, find in methods.items():
        reports = find([series.values for series in annotated])
        per_kind = table.setdefault(name, {})
        for series, kind, reported in zip(annotated, kinds, reports, strict=True):
            found, missed, other = judge(series, reported)
            total = per_kind.setdefault(kind, [0, 0, 0])
            total[0] += found
            total[1] += found + missed
            total[2] += other
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--data", type=Path, required=True, help="the hana/small_2021 folder")
    parser.add_argument("--otava-python", default="/tmp/otava/bin/python")
    parser.add_argument("--no-otava", action="store_true")
    args = parser.parse_args(argv)
    data = read_data_set(args.data)
    methods = with_otava({"ours": ours(False)}, args.otava_python, skip=args.no_otava)
    kinds = [series.kind for series in data]
    labels = sorted(set(kinds), key=lambda kind: (kind.lower() != REGRESSION, kind))
    counts = {kind: kinds.count(kind) for kind in labels}
    header = "| reading | method | " + " | ".join(f"{k} ({counts[k]})" for k in labels)
    print(f"data: {args.data} ({len(data)} series)")
    print(header + " | all |")
    print("|" + "---|" * (header.count("|") + 1))
    for reading, annotated in (
        ("rows", [series.measurements() for series in data]),
        ("builds", [by_build(series) for series in data]),
    ):
        for method, per_kind in _score(methods, annotated, kinds).items():
            cells = [f"{f}/{n} +{o}" for f, n, o in (per_kind[kind] for kind in labels)]
            found, total, other = (sum(c[i] for c in per_kind.values()) for i in range(3))
            cells.append(f"{found}/{total} +{other}")
            print(f"| {reading} | {method} | " + " | ".join(cells) + " |")
    print(f"found/annotated +other within {MARGIN} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
