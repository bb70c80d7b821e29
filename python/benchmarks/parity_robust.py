"""Status agreement of ``nvbench_compare --method robust`` with NVIDIA's ``nvbench-compare-robust``.

Both tools compare the same inputs with the same preset; every table row of upstream's
``--display explain`` output is matched to our JSON report row of the same benchmark, device
section and axis values, and the status and reason alias are compared. Inputs: the real
NVBench files in ``../shared/data`` (when present) and synthetic pairs with known changes and
every noise shape (log-normal, bimodal clocks, heavy tails, a throttled compare run, timer
quantization), with and without side files, under each preset.

    python -m venv /tmp/upstream && /tmp/upstream/bin/pip install 'cuda-bench[tools]==0.3.0'
    python python/benchmarks/parity_robust.py --upstream-bin /tmp/upstream/bin

Target: 100 % agreement on matched rows. Known, intentional differences (CPU-only benchmarks,
which upstream cannot compare; missing or empty side files) are listed in the README; inputs
that exercise them are not part of this check.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PRESETS = ("default", "strict", "permissive")
RowKey = tuple[str, str, tuple[str, ...], int]


def _cell(text: str) -> str:
    """Axis cell text made comparable: upstream's tabulate re-prints numeric-looking cells
    (``1.2346e+05`` becomes ``123460``), so numbers compare at NVBench's 5 digits."""
    try:
        return f"{float(text):.5g}"
    except ValueError:
        return text


@dataclass(frozen=True)
class Verdict:
    status: str
    alias: str


def upstream_rows(binary: Path, ref: Path, cmp: Path, preset: str) -> dict[RowKey, Verdict]:
    """Parse upstream's explain tables: (benchmark, section, axis cells, occurrence) → verdict."""
    done = subprocess.run(
        [str(binary), "--display", "explain", "--no-color", "--preset", preset, str(ref), str(cmp)],
        capture_output=True,
        text=True,
        check=True,
    )
    rows: dict[RowKey, Verdict] = {}
    seen: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    benchmark = section = ""
    bounds: list[int] | None = None
    for line in done.stdout.splitlines():
        if line.startswith("# "):
            benchmark, section = line[2:].strip(), ""
        elif line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("|--"):
            # Interval cells contain '/', and pipes are replaced by upstream: split at the
            # divider's column bounds rather than on '|'.
            bounds = [index for index, char in enumerate(line) if char == "|"]
        elif line.startswith("|") and bounds is not None:
            cells = [line[a + 1 : b].strip() for a, b in itertools.pairwise(bounds)]
            axes = tuple(_cell(cell) for cell in cells[:-7])
            key = (benchmark, section, axes)
            rows[(*key, seen[key])] = Verdict(cells[-1].split()[-1], cells[-3])
            seen[key] += 1
        elif not line.startswith("|"):
            bounds = None
    return rows


def our_rows(ref: Path, cmp: Path, preset: str) -> dict[RowKey, Verdict]:
    """Our verdicts from the JSON report, keyed like :func:`upstream_rows`; our SKIP
    (skipped in both runs) counts as upstream's ``????``."""
    from cuda.bench.compare.methods.robust import upstream_status

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cuda.bench.compare",
            "--method",
            "robust",
            "--preset",
            preset,
            "--json",
            "-",
            str(ref),
            str(cmp),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    rows: dict[RowKey, Verdict] = {}
    seen: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    for row in report["rows"]:
        section = _section_title(row)
        axes = tuple(_cell(axis["display"]) for axis in row["axes"])
        key = (row["benchmark"], section, axes)
        rows[(*key, seen[key])] = Verdict(upstream_status(row["status"]), row["reason_alias"])
        seen[key] += 1
    return rows


def _section_title(row: dict[str, object]) -> str:
    ref = f"[{row['ref_device']}] {row['ref_device_name'] or ''}".rstrip()
    cmp = f"[{row['cmp_device']}] {row['cmp_device_name'] or ''}".rstrip()
    if row["ref_device"] is None and row["cmp_device"] is None:
        return ""
    return ref if ref == cmp else f"{ref} vs. {cmp}"


def synthetic_inputs(directory: Path) -> Iterator[tuple[str, Path, Path]]:
    from cuda.bench.results.synthetic import (
        BimodalClocks,
        HeavyTailNoise,
        LogNormalNoise,
        SyntheticConfig,
        write_pair,
    )

    cases = {
        "lognormal 1%": dict(shape=LogNormalNoise(0.01)),
        "lognormal 3%": dict(shape=LogNormalNoise(0.03)),
        "bimodal clocks": dict(shape=BimodalClocks()),
        "heavy tails": dict(shape=HeavyTailNoise()),
        "0.5 us timer quantization": dict(shape=LogNormalNoise(0.01), timer_resolution=5e-7),
    }
    for seed, (name, options) in enumerate(cases.items()):
        config = SyntheticConfig(benchmarks=2, states=40, samples=2000, **options)  # type: ignore[arg-type]
        for jsonbin in (True, False):
            label = f"{name}, {'side files' if jsonbin else 'summaries only'}"
            target = directory / f"case{seed}_{int(jsonbin)}"
            pair = write_pair(
                target,
                config,
                seed=seed,
                random_shifts=16,
                shift_factors=(0.9, 0.98, 0.995, 1.005, 1.02, 1.1),
                jsonbin=jsonbin,
            )
            yield label, pair.ref[0], pair.cmp[0]
    throttled = write_pair(
        directory / "throttled",
        SyntheticConfig(benchmarks=1, states=40, samples=2000),
        seed=99,
        throttle=0.05,
    )
    yield "compare run throttled 5% (same cycles)", throttled.ref[0], throttled.cmp[0]


def real_inputs(shared: Path) -> Iterator[tuple[str, Path, Path]]:
    gpu = shared / "nvbench-format-examples" / "gpu"
    old = shared / "upstream-2021-two-gpus"
    if gpu.is_dir():
        yield "real: gpu_ref vs gpu_cmp", gpu / "gpu_ref.json", gpu / "gpu_cmp.json"
        yield (
            "real: gpu_ref_nosidecar vs gpu_cmp",
            gpu / "gpu_ref_nosidecar.json",
            gpu / "gpu_cmp.json",
        )
    if old.is_dir():
        yield "real: upstream-2021 ref vs cmp", old / "ref.json", old / "cmp.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--upstream-bin", help="directory with nvbench-compare-robust")
    parser.add_argument(
        "--shared-data",
        type=Path,
        default=Path(__file__).resolve().parents[3] / "shared" / "data",
        help="real NVBench files (default: ../shared/data beside the checkout)",
    )
    args = parser.parse_args()
    directory = args.upstream_bin or os.environ.get("NVBENCH_UPSTREAM_BIN") or "/tmp/upstream/bin"
    binary = Path(directory) / "nvbench-compare-robust"
    if not binary.is_file():
        print(f"nvbench-compare-robust not found in {directory}; see --upstream-bin")
        return 2
    total_rows = total_agree = 0
    disagreements: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        inputs = [*real_inputs(args.shared_data), *synthetic_inputs(Path(scratch))]
        print(f"{'input':<44} {'preset':<11} {'rows':>5} {'status':>8} {'reason':>8}")
        for label, ref, cmp in inputs:
            for preset in PRESETS:
                theirs = upstream_rows(binary, ref, cmp, preset)
                ours = our_rows(ref, cmp, preset)
                matched = sorted(set(theirs) & set(ours))
                same_status = sum(theirs[key].status == ours[key].status for key in matched)
                same_reason = sum(theirs[key] == ours[key] for key in matched)
                total_rows += len(matched)
                total_agree += same_status
                unmatched = len(set(theirs) ^ set(ours))
                note = f"  ({unmatched} rows unmatched)" if unmatched else ""
                print(
                    f"{label:<44} {preset:<11} {len(matched):>5} "
                    f"{same_status / max(1, len(matched)):>8.1%} "
                    f"{same_reason / max(1, len(matched)):>8.1%}{note}"
                )
                for key in matched:
                    if theirs[key] != ours[key]:
                        disagreements.append(
                            f"{label} [{preset}] {key}: upstream {theirs[key]}, ours {ours[key]}"
                        )
    print(
        f"\nstatus agreement on matched rows: {total_agree}/{total_rows} "
        f"= {total_agree / max(1, total_rows):.2%}"
    )
    for line in disagreements[:50]:
        print("  disagreement:", line)
    return 0 if total_agree == total_rows else 1


if __name__ == "__main__":
    sys.exit(main())
