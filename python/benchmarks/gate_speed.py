"""``nvbench-history gate`` of this checkout against the same program at an earlier git
revision, on an archive of many runs: what opening the archive costs a gate.

Opening an archive lists every Parquet file in it and reads each file's schema
(``history/_archive_files.py``), so its cost grows with the archive. Both programs run in
the same interleaved rounds (A B, then B A, ...), each run a fresh process of a regular
install (``pip install '.[history]'`` into a temporary virtual environment: the revision
from ``git archive``, this checkout as it is on disk); the figure of merit is the median
of the per-round ratios checkout / revision (0.80x: this checkout takes 20 % less time).
The gate is timed on one new run and on two runs of one build (``gate A B``).

    python python/benchmarks/gate_speed.py --revision 4c5219d [--runs 1500] [--states 100]
        [--rounds 7] [--keep /tmp/gatespeed]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _harness import Command, regular_install
from compare_speed import child_environment
from history_scale import time_ingest
from revision_speed import export_revision, time_against_revision


def archive_with_runs(directory: Path, runs: int, states: int) -> tuple[Path, Path, Path]:
    """An archive of ``runs`` ingested runs in ``directory`` (made once, then reused), the
    run not ingested and the last one ingested (a gate excludes it from its own level)."""
    archive = directory / "archive"
    new = directory / "runs" / f"run_{runs:04d}.json"
    last = directory / "runs" / f"run_{runs - 1:04d}.json"
    if not (archive.is_dir() and new.is_file()):
        directory.mkdir(parents=True, exist_ok=True)
        archive, made = time_ingest(runs, states, 50, directory)
        assert made == new, (made, new)
    return archive, new, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--revision", required=True, help="git revision to time against")
    parser.add_argument("--runs", type=int, default=1500, help="runs in the archive")
    parser.add_argument("--states", type=int, default=100, help="states per run")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None, help="archive directory (reused)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gate-speed-") as scratch:
        root = Path(scratch)
        tree = export_revision(args.revision, root)
        before = regular_install(root / "revision", tree, extras="history")
        after = regular_install(root / "checkout", extras="history")
        if before is None or after is None:
            raise SystemExit("gate_speed: pip install failed (offline?)")
        archive, new, last = archive_with_runs(args.keep or root / "inputs", args.runs, args.states)
        env = child_environment(root / "pycache")
        module = "cuda.bench.cli.history"
        revision = Command(f"gate @ {args.revision}", before, module)
        checkout = Command("gate (checkout)", after, module)
        print(
            f"archive: {args.runs} runs x {args.states} states; rounds: {args.rounds}; "
            f"ratios are checkout / {args.revision}\n"
        )
        for title, gated in (("one run", [new]), ("two runs of one build", [new, last])):
            command_args = ["gate", "--archive", str(archive), *map(str, gated)]
            time_against_revision(
                revision,
                checkout,
                command_args,
                args.rounds,
                env,
                f"gate of {title}",
                args.revision,
            )


if __name__ == "__main__":
    main()
