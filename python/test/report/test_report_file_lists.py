"""The input files of a row as a list (``ref_files``, ``cmp_files``): with several runs per
side the old ``ref_file`` joins their names with ``, ``, which a name holding a comma makes
impossible to split back (docs/report-schema.md)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cuda.bench.compare import compare
from cuda.bench.compare.model import Comparison
from cuda.bench.report.csv_report import render_csv
from cuda.bench.report.json_report import render_json
from cuda.bench.results.synthetic import SyntheticConfig, write_run

#: Names a reader must get back whole: a comma (the old field's separator), a semicolon
#: (what joins other lists in CSV), a quote, a formula start, a terminal escape.
REF_NAMES = ("a, b.json", "=c;d.json")
CMP_NAMES = ('e "x".json', "f\x1b[31m.json")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Comparison, list[str], list[str]]:
    root = tmp_path_factory.mktemp("lists")
    config = SyntheticConfig(benchmarks=1, states=2, samples=60)
    refs, cmps = [], []
    for seed, (ref_name, cmp_name) in enumerate(zip(REF_NAMES, CMP_NAMES, strict=True)):
        write_run(root / ref_name, config, seed=seed, run=seed)
        write_run(root / cmp_name, config, seed=seed, side="cmp", run=seed)
        refs.append(str(root / ref_name))
        cmps.append(str(root / cmp_name))
    return compare(refs, cmps, method="ci"), refs, cmps


def test_json_rows_list_each_sides_files(runs: tuple[Comparison, list[str], list[str]]) -> None:
    comparison, refs, cmps = runs
    data = json.loads(render_json(comparison))
    assert data["rows"]
    for row in data["rows"]:
        assert row["ref_files"] == refs and row["cmp_files"] == cmps
        assert row["ref_files"] == data["inputs"][row["pair"]]["ref"]
        # Kept for older readers, as it was.
        assert row["ref_file"] == ", ".join(refs) and row["cmp_file"] == ", ".join(cmps)


def test_csv_writes_each_list_as_a_json_array_that_reads_back(
    runs: tuple[Comparison, list[str], list[str]],
) -> None:
    comparison, refs, cmps = runs
    records = list(csv.DictReader(io.StringIO(render_csv(comparison))))
    assert records
    for record in records:
        assert json.loads(record["ref_files"]) == refs
        assert json.loads(record["cmp_files"]) == cmps
        # Shown, not obeyed, by a terminal that prints the CSV: the escape is written out.
        assert "\x1b" not in record["cmp_files"] and "\\u001b" in record["cmp_files"]


def test_csv_writes_the_lists_after_every_column_it_had_before(
    runs: tuple[Comparison, list[str], list[str]],
) -> None:
    # Added within schema version 2: a reader that takes the CSV's columns by position
    # (`cut -d, -f80`, a spreadsheet formula) must find each earlier column where it was.
    # Among the row fields, the lists moved every axis, threshold and suite column by two.
    comparison, _, _ = runs
    header = next(csv.reader(io.StringIO(render_csv(comparison))))
    assert header[-2:] == ["ref_files", "cmp_files"], header
    before = header.index("failed_conditions")
    assert header[before + 1].startswith("axis."), header
