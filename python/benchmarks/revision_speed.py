"""This checkout's ``nvbench_compare`` against the same program at an earlier git revision,
on the inputs of ``compare_speed.py``: what a change did to speed, measured directly.

A speed-up or slow-down judged from two ``compare_speed.py`` tables is a ratio of ratios
taken minutes or days apart, while these machines change speed by up to 2x every few
seconds; it can be off by a fifth. Here both programs run in the same interleaved rounds
(A B, then B A, ...), each run a fresh process of a regular install (``pip install .``
into a temporary virtual environment: the revision from ``git archive``, this checkout as
it is on disk), and the figure of merit is the median of the per-round ratios
checkout / revision: 1.10x means this checkout takes 10 % longer.

    python python/benchmarks/revision_speed.py --revision e620dee [--rounds 7]
        [--keep /tmp/cmpspeed] [--scenarios wide,bulk,small] [--methods robust,default]
        [--jobs auto,1]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tarfile
import tempfile
from pathlib import Path

from _harness import Command, compare_commands, regular_install, run_command
from compare_speed import SCENARIOS, TITLES, child_environment, generate

REPOSITORY = Path(__file__).resolve().parents[2]


def export_revision(revision: str, directory: Path) -> Path:
    """The tree of ``revision`` written into ``directory`` (``git archive``)."""
    archive = directory / "revision.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(REPOSITORY), "archive", "--format=tar", revision],
            stdout=out,
            check=True,
        )
    tree = directory / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def time_against_revision(
    revision: Command,
    checkout: Command,
    command_args: list[str],
    rounds: int,
    env: dict[str, str],
    heading: str,
    revision_name: str,
) -> None:
    """One untimed run of each (bytecode, page cache), then interleaved rounds; prints the
    medians and the median of the per-round ratios checkout / revision."""
    for command in (revision, checkout):
        run_command(command, command_args, env)
    result = compare_commands(revision, checkout, command_args, rounds, env)
    ratios = result.ratios
    print(
        f"{heading}:\n"
        f"  {revision_name} {statistics.median(m.seconds for m in result.a):.3f} s, "
        f"checkout {statistics.median(m.seconds for m in result.b):.3f} s; "
        f"checkout / {revision_name}: {statistics.median(ratios):.3f}x "
        f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--revision", required=True, help="git revision to time against")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None, help="inputs directory (reused)")
    parser.add_argument("--scenarios", default="wide,bulk,small")
    parser.add_argument("--methods", default="robust,default")
    parser.add_argument("--jobs", default="auto,1")
    args = parser.parse_args()
    scenarios = [name for name in args.scenarios.split(",") if name]
    unknown = sorted(set(scenarios) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(unknown)}")

    with tempfile.TemporaryDirectory(prefix="revision-speed-") as scratch:
        root = Path(scratch)
        tree = export_revision(args.revision, root)
        before = regular_install(root / "revision", tree)
        after = regular_install(root / "checkout")
        if before is None or after is None:
            raise SystemExit("revision_speed: pip install failed (offline?)")
        inputs = args.keep or root / "inputs"
        env = child_environment(root / "pycache")
        revision = Command(f"nvbench_compare @ {args.revision}", before, "cuda.bench.compare")
        checkout = Command("nvbench_compare (checkout)", after, "cuda.bench.compare")
        print(f"rounds: {args.rounds}; ratios are checkout / {args.revision}\n")
        for name in scenarios:
            ref, cmp = generate(name, inputs / name)
            for method in args.methods.split(","):
                for jobs in args.jobs.split(","):
                    options = ["--no-color", "-j", jobs]
                    if method != "default":
                        options += ["--method", method]
                    command_args = [*options, str(ref), str(cmp)]
                    heading = f"{TITLES[name]} — {' '.join(options[1:])}"
                    time_against_revision(
                        revision, checkout, command_args, args.rounds, env, heading, args.revision
                    )


if __name__ == "__main__":
    main()
