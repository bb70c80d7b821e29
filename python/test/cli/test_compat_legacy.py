"""``nvbench-compare-legacy`` shows NVIDIA's legacy statuses and exits with its failure
count: on a synthetic pair on the rule's edges (always), and state by state against
NVIDIA's own script on that pair and the real two-GPU pairs (``NVBENCH_UPSTREAM_BIN``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_helpers import run_main
from _legacy_pair import CASES, write_legacy_pair
from conftest import real_path, upstream_tool
from cuda.bench.cli import compare, compare_legacy

STATUS = re.compile(r"(SAME|FAST|SLOW|AMBG|\?\?\?\?)\s*\|\s*$")


def statuses(markdown: str, *, first_section: bool) -> dict[str, list[str]]:
    """Benchmark -> the statuses of its table rows, in order. NVIDIA's script prints every
    state once per device of the benchmark: ``first_section`` keeps its first pass."""
    found: dict[str, list[str]] = {}
    bench, section = "", 0
    for line in markdown.splitlines():
        if line.startswith("# "):
            bench, section = line[2:].strip(), 0
        elif line.startswith("## "):
            section += 1
        elif (
            line.startswith("|")
            and (match := STATUS.search(line))
            and (not first_section or section <= 1)
        ):
            found.setdefault(bench, []).append(match.group(1))
    return found


@pytest.fixture
def legacy_pair(tmp_path: Path) -> tuple[Path, Path]:
    return write_legacy_pair(tmp_path)


def test_legacy_statuses_follow_nvidias_rule(
    legacy_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(compare_legacy.main, capsys, *legacy_pair, "--color", "never")
    expected = {name: [case[-1]] for name, case in CASES.items()}
    assert statuses(result.out, first_section=False) == expected
    # slow, fast, ref_noise_null; a recorded noise of 0 leaves none (once counted as SLOW).
    assert result.code == 3, result.err
    assert "Method: legacy" in result.out


def test_display_legacy_of_nvbench_compare_keeps_our_verdicts(
    legacy_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(compare.main, capsys, *legacy_pair, "--display", "legacy")
    assert result.code == 0, result.err
    assert "Method: ci" in result.out
    # Ours: a 1% difference is no evidence of a change at 1-5% noise; NVIDIA's rule says SLOW.
    assert statuses(result.out, first_section=False)["ref_noise_null"] != ["SLOW"]


def test_legacy_refuses_another_method(
    legacy_pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_main(compare_legacy.main, capsys, *legacy_pair, "--method", "ci")
    assert result.code == 1
    assert "nvbench_compare --method ci" in result.err


def test_legacy_counts_cpu_only_failures_once(
    cpu_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # NVIDIA's script stops on CPU-only files; ours applies the rule to the CPU-only mean
    # and noise the table shows. host_sort Elements=2^16 spin: -48.41% against 13.85%.
    runs = cpu_dir / "cpu_run1.json", cpu_dir / "cpu_run2.json"
    result = run_main(compare_legacy.main, capsys, *runs, "--color", "never")
    assert statuses(result.out, first_section=False) == {
        "host_sort": ["SAME", "FAST", "SAME"],
        "tiny": ["SAME"],
    }
    assert result.code == 1, result.err


# -- against NVIDIA's script ------------------------------------------------------------------


def _both(ref: Path, cmp: Path) -> tuple[subprocess.CompletedProcess[str], ...]:
    theirs = [str(upstream_tool("nvbench-compare-legacy")), "--no-color", str(ref), str(cmp)]
    ours = [sys.executable, "-m", "cuda.bench.cli.compare_legacy", "--no-color", str(ref), str(cmp)]
    return tuple(
        subprocess.run(command, capture_output=True, text=True, check=False)
        for command in (theirs, ours)
    )


@pytest.mark.parametrize(
    "pair",
    [
        ("nvbench-format-examples/gpu/gpu_ref.json", "nvbench-format-examples/gpu/gpu_cmp.json"),
        ("upstream-2021-two-gpus/ref.json", "upstream-2021-two-gpus/cmp.json"),
        ("nvbench-format-examples/gpu/gpu_ref.json", "nvbench-format-examples/gpu/gpu_ref.json"),
    ],
    ids=["gpu", "upstream-2021", "gpu-self"],
)
def test_legacy_gives_nvidias_statuses_on_real_pairs(pair: tuple[str, str]) -> None:
    theirs, ours = _both(real_path(pair[0]), real_path(pair[1]))
    assert ours.returncode == theirs.returncode, ours.stderr
    expected = statuses(theirs.stdout, first_section=True)
    assert expected  # NVIDIA's tables were found
    assert statuses(ours.stdout, first_section=False) == expected


def test_legacy_gives_nvidias_statuses_on_the_rules_edges(
    legacy_pair: tuple[Path, Path],
) -> None:
    theirs, ours = _both(*legacy_pair)
    assert ours.returncode == theirs.returncode == 3, ours.stderr
    assert statuses(ours.stdout, first_section=False) == statuses(theirs.stdout, first_section=True)
