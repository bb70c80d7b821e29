"""Extreme figures in every report: a crafted file's 1e30-times-slower state, a 3e-15 s
center, a 1e-300 Hz clock. They read in scientific notation, in the tables, the markdown,
HTML and CSV reports and the verdict messages, never as dozens of digits that widen the
column, nor as ``0.000`` or ``inf`` for a finite nonzero value."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from cuda.bench._numbers import log_ratio_percent, magnitude_text, number_text, percent_text
from cuda.bench.cli import compare as compare_cli

_STATE = "Device=0 T=F32 Elements=2^16 Layout=contiguous"
_TIMES = tuple(f"nv/cold/time/gpu/{name}" for name in ("min", "q1", "median", "q3", "max", "mean"))
_FILTERS = ("-b", "copy_bench", "-a", "T=F32", "-a", "Elements=2^16", "-a", "Layout=contiguous")
#: Sixteen digits in a row: no figure of a report is written with that many.
_LONG_NUMBER = re.compile(r"\d{16,}")
_SCIENTIFIC = r"\d\.\d+e[+-]\d+"


def _summaries(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    bench = next(b for b in document["benchmarks"] if b["name"] == "copy_bench")
    state = next(s for s in bench["states"] if s["name"] == _STATE)
    return {summary["tag"]: summary["data"][0] for summary in state["summaries"]}


def _pair(gpu_dir: Path, tmp_path: Path, factor: float, clock: float | None = None) -> list[Path]:
    """The real GPU run against itself with one state's compare times ``factor`` times as
    long, and its compare clock ``clock`` Hz where given."""
    paths = []
    for name, scale in (("ref", 1.0), ("cmp", factor)):
        document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
        summaries = _summaries(document)
        for tag in _TIMES:
            summaries[tag]["value"] = repr(float(summaries[tag]["value"]) * scale)
        if clock is not None and name == "cmp":
            summaries["nv/cold/sm_clock_rate/mean"]["value"] = repr(clock)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document))
        paths.append(path)
    return paths


def _reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pair: list[Path], *args: str
) -> dict[str, str]:
    """stdout and the markdown, HTML and CSV reports' text, and the first row's JSON."""
    out = {kind: tmp_path / f"report.{kind}" for kind in ("md", "html", "csv", "json")}
    options = [f"--{'markdown' if k == 'md' else k}={path}" for k, path in out.items()]
    code = compare_cli.main([*map(str, pair), *_FILTERS, "--no-color", *options, *args])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    texts = {kind: path.read_text() for kind, path in out.items()}
    texts["stdout"] = stdout
    texts["message"] = json.loads(texts["json"])["rows"][0]["reason_message"]
    with (tmp_path / "report.csv").open(newline="") as handle:
        texts["csv_message"] = next(csv.DictReader(handle))["reason_message"]
    return texts


@pytest.mark.parametrize("method", ["robust", "ci"])
def test_a_state_1e30_times_slower_reads_in_scientific_notation(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str
) -> None:
    # It read "3181608294734859985747968.000 [...] s" and "+99999999999999771178981581127680.0%"
    # (the robust reason "clear gap of 96439058071452058171635719471104.00%").
    texts = _reports(capsys, tmp_path, _pair(gpu_dir, tmp_path, 1e30), "--method", method)
    cell = rf"{_SCIENTIFIC} \[-{_SCIENTIFIC}, \+{_SCIENTIFIC}\] s"
    for kind in ("stdout", "md"):
        assert re.search(cell, texts[kind]), texts[kind]
        assert re.search(rf"\+{_SCIENTIFIC}%", texts[kind])
    for kind in ("stdout", "md", "message", "csv_message"):
        assert not _LONG_NUMBER.search(texts[kind]), texts[kind]
    assert re.search(rf"{_SCIENTIFIC}%", texts["message"])
    assert texts["message"] == texts["csv_message"]
    # The HTML page's cells are the tables' (its data also holds the numbers to sort by).
    assert re.search(cell, texts["html"]) and "3181608294734859985747968" not in texts["html"]


def test_a_femtosecond_center_is_no_zero_and_no_change_is_infinite(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Compare times 1e-9 of the reference's: a 3e-15 s center read "0.000 ns"; the ci
    # message's interval of the means "[-100.00%, +inf%]".
    pair = _pair(gpu_dir, tmp_path, 1e-9)
    texts = _reports(capsys, tmp_path, pair, "--method", "ci", "--display", "explain")
    assert re.search(rf"\[{_SCIENTIFIC} / {_SCIENTIFIC} / {_SCIENTIFIC}\] s", texts["stdout"])
    assert "0.000 ns" not in texts["stdout"]
    assert "inf" not in texts["message"]
    assert re.search(rf"\+{_SCIENTIFIC}%", texts["message"])


def test_a_clock_of_1e300_or_1e_minus_300_hz_is_no_zero_and_no_long_number(
    gpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for clock in (1e-300, 1e300):
        pair = _pair(gpu_dir, tmp_path, 1.5, clock)
        message = _reports(capsys, tmp_path, pair, "--method", "robust")["message"]
        # No clock runs at either (1 MHz to 100 GHz): named invalid, in few digits.
        assert "SM clock summaries are invalid" in message, message
        assert "0.0 MHz" not in message and not _LONG_NUMBER.search(message), message


# ---------------------------------------------------------------------------------------
# The shared number text
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [
        (12.3456, 3, "12.346"),
        (999999.0, 1, "999999.0"),
        (1e6, 1, "1.0e+06"),
        (3.1816e24, 3, "3.182e+24"),
        (2.2e22, 0, "2.2e+22"),
        (math.inf, 2, "inf"),
    ],
)
def test_magnitude_text_is_fixed_then_scientific(
    value: float, decimals: int, expected: str
) -> None:
    assert magnitude_text(value, decimals) == expected


def test_number_text_keeps_small_values_where_asked() -> None:
    assert number_text(-3e-15, 3) == "0.000"  # rounds to zero: no sign
    assert number_text(-3e-15, 3, keep_small=True) == "-3.000e-15"
    assert number_text(1e-300 / 1e6, 1, keep_small=True) == "1.0e-306"
    assert number_text(0.0, 1, keep_small=True, signed=True) == "+0.0"
    assert number_text(-1e31, 1, signed=True) == "-1.0e+31"


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [
        (0.0123, "+1.23%"),
        (9999.0, "+999900.00%"),
        (1e30, "+1.00e+32%"),
        (-0.5, "-50.00%"),
        (1e307, "+1.00e+309%"),  # ratio * 100 overflows the floats
        (-1.7976931348623157e308, "-1.80e+310%"),
    ],
)
def test_percent_text_never_overflows(ratio: float, expected: str) -> None:
    assert percent_text(ratio, 2, signed=True) == expected


def test_log_ratio_percent_reads_beyond_the_float_range() -> None:
    assert log_ratio_percent(math.log(2.0), 2) == "+100.00%"
    assert log_ratio_percent(-math.inf, 2) == "-100.00%"
    assert log_ratio_percent(math.inf, 2) == "+inf%"
    assert log_ratio_percent(math.log(1e30), 2) == "+1.00e+32%"
    # exp(800) overflows: the percentage is written from the logarithm.
    text = log_ratio_percent(800.0, 2)
    match = re.fullmatch(r"\+(\d\.\d\d)e\+(\d+)%", text)
    assert match is not None, text
    log10 = math.log10(float(match[1])) + int(match[2])
    assert log10 == pytest.approx(800.0 / math.log(10.0) + 2.0, abs=0.003)


def test_a_change_just_below_zero_keeps_its_sign_in_the_ci_messages() -> None:
    """``[-0.22%, -0.00%]`` (an interval that excludes zero) read ``[-0.22%, +0.00%]`` once
    the messages went through the shared number text."""
    from cuda.bench._numbers import log_ratio_percent

    assert log_ratio_percent(math.log1p(-2.2e-6), 2) == "-0.00%"
    assert log_ratio_percent(0.0, 2) == "+0.00%"
    assert log_ratio_percent(math.log1p(0.0123), 2) == "+1.23%"
    assert log_ratio_percent(math.log(1e30), 2) == "+1.00e+32%"
