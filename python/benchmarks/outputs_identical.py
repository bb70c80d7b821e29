"""Render every output of ``nvbench_compare`` into a directory, or compare two such directories.

A refactoring must leave every output byte-identical. ``render OUT`` runs the command line
(``python -m cuda.bench.compare``, as users do) on each input pair with each method
(``ci``, ``robust``), each ``--display``, and ``-j 1`` as well as ``-j auto``, and stores
its standard output, standard error, exit status and the ``--json``, ``--csv`` and
``--markdown`` reports in ``OUT`` (one file per output). ``compare A B`` lists every file
that differs between two renders and exits with status 1 when any does. Typical use::

    git stash; python python/benchmarks/outputs_identical.py render /tmp/before; git stash pop
    python python/benchmarks/outputs_identical.py render /tmp/after
    python python/benchmarks/outputs_identical.py compare /tmp/before /tmp/after

Inputs: the real NVBench files in ``../shared/data`` (``gpu``, ``cpu`` and
``upstream-2021-two-gpus``; skipped with a note when absent) and generated ones
(``cuda.bench.results.synthetic``, seeded, so every render sees the same bytes): one
benchmark with side files and enough states for the by-row split, several benchmarks large
enough for the by-benchmark split, repeated runs per side, and a comparison widened by an
A/A calibration file. They are generated once into ``--inputs DIR`` (default: a directory
under the system's temporary directory) and reused. Every command runs with that directory
as its working directory and relative paths, so the outputs do not depend on where the
checkout lives.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SHARED_DATA = REPOSITORY.parent / "shared" / "data"
METHODS = ("ci", "robust")
DISPLAYS = ("intervals", "simple", "explain", "legacy")
JOBS = ("1", "auto")

#: Generated pairs: directory -> (SyntheticConfig arguments, write_pair arguments).
GENERATED: dict[str, tuple[str, str]] = {
    "synthetic-bulk": (
        "benchmarks=1, states=160, samples=2_000",
        "seed=11, random_shifts=12",
    ),
    "synthetic-wide": (
        "benchmarks=4, states=300, samples=60",
        "seed=12, random_shifts=40, jsonbin=False",
    ),
    "synthetic-runs": (
        "benchmarks=2, states=20, samples=300",
        "seed=13, random_shifts=4, ref_runs=3, cmp_runs=3",
    ),
    "synthetic-aa": (
        "benchmarks=2, states=20, samples=300",
        "seed=14, ref_runs=3, cmp_runs=1, prefix='aa_'",
    ),
}


@dataclass(frozen=True)
class Case:
    """One input pair: the command-line arguments naming its inputs."""

    name: str
    inputs: tuple[str, ...]


def _generate(inputs: Path) -> None:
    for name, (config, options) in GENERATED.items():
        directory = inputs / name
        if (directory / "done").exists():
            continue
        directory.mkdir(parents=True, exist_ok=True)
        code = (
            "from cuda.bench.results.synthetic import SyntheticConfig, write_pair\n"
            f"write_pair({str(directory)!r}, SyntheticConfig({config}), {options})\n"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
        (directory / "done").write_text("")
    calibration = inputs / "synthetic-aa" / "calibration.json"
    if not calibration.exists():
        runs = [f"synthetic-aa/aa_ref_{index}.json" for index in range(3)]
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cuda.bench.compare",
                "calibrate",
                *runs,
                "-o",
                str(calibration),
            ],
            cwd=inputs,
            check=True,
            stdout=subprocess.DEVNULL,
        )


def _cases(inputs: Path) -> list[Case]:
    cases: list[Case] = []
    shared = inputs / "shared"
    if SHARED_DATA.is_dir() and not shared.exists():
        shared.symlink_to(SHARED_DATA.resolve(), target_is_directory=True)
    examples = "shared/nvbench-format-examples"
    real = {
        "gpu": (f"{examples}/gpu/gpu_ref.json", f"{examples}/gpu/gpu_cmp.json"),
        "gpu-plain": (f"{examples}/gpu/gpu_ref_plain.json", f"{examples}/gpu/gpu_cmp_plain.json"),
        "cpu": (f"{examples}/cpu/cpu_run1.json", f"{examples}/cpu/cpu_run2.json"),
        "upstream-2021-two-gpus": (
            "shared/upstream-2021-two-gpus/ref.json",
            "shared/upstream-2021-two-gpus/cmp.json",
        ),
    }
    for name, pair in real.items():
        if all((inputs / path).is_file() for path in pair):
            cases.append(Case(name, pair))
        else:
            print(f"note: {name} skipped: {SHARED_DATA} does not hold it", file=sys.stderr)
    cases.append(Case("synthetic-bulk", ("synthetic-bulk/ref.json", "synthetic-bulk/cmp.json")))
    cases.append(Case("synthetic-wide", ("synthetic-wide/ref.json", "synthetic-wide/cmp.json")))
    runs = [
        option
        for side in ("ref", "cmp")
        for index in range(3)
        for option in (f"--{side}", f"synthetic-runs/{side}_{index}.json")
    ]
    cases.append(Case("synthetic-runs", tuple(runs)))
    cases.append(
        Case(
            "synthetic-calibrated",
            (
                "--calibration",
                "synthetic-aa/calibration.json",
                "synthetic-aa/aa_ref_0.json",
                "synthetic-aa/aa_cmp.json",
            ),
        )
    )
    return cases


def _run(inputs: Path, out: Path, stem: str, arguments: Sequence[str], reports: bool) -> None:
    command = [sys.executable, "-m", "cuda.bench.compare", *arguments]
    if reports:
        command += [
            "--json",
            str(out / f"{stem}.json"),
            "--csv",
            str(out / f"{stem}.csv"),
            "--markdown",
            str(out / f"{stem}.md"),
        ]
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment["COLUMNS"] = "120"
    done = subprocess.run(command, cwd=inputs, capture_output=True, env=environment, check=False)
    (out / f"{stem}.stdout").write_bytes(done.stdout)
    (out / f"{stem}.stderr").write_bytes(done.stderr)
    (out / f"{stem}.status").write_text(f"{done.returncode}\n")


def render(out: Path, inputs: Path) -> None:
    inputs.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    _generate(inputs)
    for case in _cases(inputs):
        for method in METHODS:
            for jobs in JOBS:
                for display in DISPLAYS:
                    stem = f"{case.name}.{method}.j{jobs}.{display}"
                    arguments = [
                        *case.inputs,
                        "--method",
                        method,
                        "-j",
                        jobs,
                        "--display",
                        display,
                        "--color",
                        "never",
                    ]
                    _run(inputs, out, stem, arguments, reports=display == DISPLAYS[0])
                stem = f"{case.name}.{method}.j{jobs}.colour"
                arguments = [*case.inputs, "--method", method, "-j", jobs, "--color", "always"]
                _run(inputs, out, stem, [*arguments, "--sort", "change", "--only-changed"], False)
        print(f"rendered {case.name}")


def compare(before: Path, after: Path) -> int:
    names = sorted(
        {path.name for path in before.iterdir()} | {path.name for path in after.iterdir()}
    )
    differing = [
        name
        for name in names
        if not (before / name).is_file()
        or not (after / name).is_file()
        or not filecmp.cmp(before / name, after / name, shallow=False)
    ]
    for name in differing:
        print(f"differs: {name}")
    print(f"{len(names) - len(differing)} of {len(names)} outputs identical")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", required=True)
    render_parser = commands.add_parser("render", help="render every output into OUT")
    render_parser.add_argument("out", type=Path, metavar="OUT")
    render_parser.add_argument(
        "--inputs",
        type=Path,
        default=Path(tempfile.gettempdir()) / "nvbench-outputs-identical-inputs",
        help="where the generated inputs are kept (default: %(default)s)",
    )
    compare_parser = commands.add_parser("compare", help="compare two renders")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    arguments = parser.parse_args()
    if arguments.command == "render":
        render(arguments.out, arguments.inputs)
        return 0
    return compare(arguments.before, arguments.after)


if __name__ == "__main__":
    sys.exit(main())
