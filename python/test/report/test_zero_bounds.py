"""A zero in a signed interval is written without a sign: ``40.000 [0.000, 0.000] ns`` for
an interval of no width, not ``[-0.000, +0.000]``, whose ``-0.000`` reads as a negative
number; likewise a bound of a change interval (``[0.0, +0.1]``) and the HTML page's plot
labels (``-0.0%`` there for a change just below zero)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cuda.bench.compare.model import Effect
from cuda.bench.report.intervals import format_interval_compact
from cuda.bench.report.tables import effect_text

_REPORT_JS = (
    Path(__file__).resolve().parents[2] / "cuda_bench" / "report" / "html" / "assets" / "report.js"
)


@pytest.mark.parametrize(
    ("lower", "center", "upper", "expected"),
    [
        (93.837e-6, 93.837e-6, 93.837e-6, "93.837 [0.000, 0.000] us"),
        (40e-9, 40e-9, 40e-9, "40.000 [0.000, 0.000] ns"),
        # One end at the center: that delta alone is zero ("[-0, +50]" before).
        (1e-3, 1e-3, 1.05e-3, "1.000 ms [0, +50] us"),
        (0.95e-3, 1e-3, 1e-3, "1.000 ms [-50, 0] us"),
        # A spread below a femtosecond is written as zeros (float rounding, no measurement).
        (93.837e-6 - 1e-19, 93.837e-6, 93.837e-6 + 1e-19, "93.837 [0.000, 0.000] us"),
        # Nonzero deltas keep their signs.
        (2.3e-3 - 63e-6, 2.3e-3, 2.3e-3 + 89e-6, "2.300 ms [-63, +89] us"),
    ],
)
def test_a_zero_delta_has_no_sign(lower: float, center: float, upper: float, expected: str) -> None:
    assert format_interval_compact(lower, center, upper) == expected


def test_a_zero_bound_of_a_change_interval_has_no_sign() -> None:
    assert effect_text(Effect(1.0, 1.0, 1.0, 0.95)) == "+0.0% [0.0, 0.0]"
    assert effect_text(Effect(0.816, 0.59, 1.0, 0.95)) == "-18.4% [-41.0, 0.0]"
    assert effect_text(Effect(1.049, 1.043, 1.056, 0.95)) == "+4.9% [+4.3, +5.6]"


@pytest.mark.parametrize("markdown", [False, True])
def test_the_real_cpu_pair_shows_no_negative_zero(
    cpu_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], markdown: bool
) -> None:
    """``tiny`` of ``cpu_run2`` sits at the timer's resolution: 40 ns, every quartile."""
    from cuda.bench.cli.compare import main

    out = tmp_path / "report.md"
    extra = ["--markdown", str(out)] if markdown else []
    runs = [str(cpu_dir / "cpu_run1.json"), str(cpu_dir / "cpu_run2.json")]
    code = main([*runs, "--no-color", *extra])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    text = out.read_text(encoding="utf-8") if markdown else printed.out
    assert "40.000 [0.000, 0.000] ns" in text
    assert not re.search(r"-0\.0+\b(?!\d)", text), text


def test_the_html_page_writes_no_negative_zero_percent() -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node to run the page's script")
    source = _REPORT_JS.read_text(encoding="utf-8")
    found = re.search(r"\n( *)function fmtPct\(.*?\n\1\}\n", source, re.DOTALL)
    assert found is not None
    values = [-0.0004, 0.0004, 0.0, -0.0, -0.05, 0.05]
    calls = f"console.log(JSON.stringify({json.dumps(values)}.map((v) => fmtPct(v))));"
    script = f"{found.group(0)}\n{calls}"
    done = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == ["0.0%", "0.0%", "0.0%", "0.0%", "-5.0%", "+5.0%"]
