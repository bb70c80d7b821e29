"""Render every output of an N-way ``nvbench_compare BASE CAND1 CAND2 ...`` into a
directory, or compare two such directories: the N-way counterpart of
``outputs_identical.py`` (whose docstring says how the two are used around a change).

``render OUT`` runs the command line (``python -m cuda.bench.compare``) on each case with
each method (``ci``, ``robust``), both matrix ``--display`` layouts, ``-j 1`` and
``-j auto``, with ``--correction none`` as well as the default, and stores its standard
output, standard error, exit status, the ``--json``, ``--csv`` and ``--markdown`` matrix
reports and every file ``--output-dir`` writes (the HTML report among them) in ``OUT``.
``compare A B`` lists every file that differs and exits with status 1 when any does::

    git stash; python python/benchmarks/many_outputs_identical.py render /tmp/before
    git stash pop; python python/benchmarks/many_outputs_identical.py render /tmp/after
    python python/benchmarks/many_outputs_identical.py compare /tmp/before /tmp/after

Cases: the real files of ``../shared/data`` (skipped with a note when absent): the GPU
pair (with and without side files) and the CPU pair; generated ones
(``cuda.bench.results.synthetic``, seeded): one baseline with side files against three
candidate runs; the same with a baseline whose side files are partly missing, truncated
or corrupt (every candidate must report them as before); several runs per input; and
directories of files. Inputs are generated once into ``--inputs DIR`` and reused; every
command runs there with relative paths.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from outputs_identical import SHARED_DATA
from outputs_identical import compare as compare_renders

METHODS = ("ci", "robust")
DISPLAYS = ("intervals", "simple")
JOBS = ("1", "auto")
CORRECTIONS = ("bonferroni", "none")


def _write(directory: Path, config: str, options: str) -> None:
    code = (
        "from cuda.bench.results.synthetic import SyntheticConfig, write_pair\n"
        f"write_pair({str(directory)!r}, SyntheticConfig({config}), {options})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _damage(source: Path, target: Path) -> None:
    """A copy of ``source`` whose baseline side files are partly missing or unusable."""
    shutil.copytree(source, target)
    times = sorted((target / "ref.json-bin").glob("*.bin"), key=lambda p: int(p.stem))
    freqs = sorted((target / "ref.json-freqs-bin").glob("*.bin"), key=lambda p: int(p.stem))
    times[0].unlink()  # missing
    times[1].write_bytes(times[1].read_bytes()[:-8])  # wrong size
    data = bytearray(times[2].read_bytes())
    data[0:4] = b"\x00\x00\x80\xbf"  # -1.0f: not positive
    times[2].write_bytes(bytes(data))
    times[3].write_bytes(b"")  # empty
    freqs[4].write_bytes(freqs[4].read_bytes()[:-4])  # frequencies of the wrong size
    freqs[5].unlink()


def _generate(inputs: Path) -> None:
    bulk = inputs / "many-bulk"
    if not (bulk / "done").exists():
        bulk.mkdir(parents=True, exist_ok=True)
        _write(
            bulk,
            "benchmarks=2, states=40, samples=800",
            "seed=21, random_shifts=8, ref_runs=1, cmp_runs=3",
        )
        (bulk / "done").write_text("")
    damaged = inputs / "many-damaged"
    if not (damaged / "done").exists():
        shutil.rmtree(damaged, ignore_errors=True)
        _damage(bulk, damaged)
        (damaged / "done").write_text("")
    runs = inputs / "many-runs"
    if not (runs / "done").exists():
        runs.mkdir(parents=True, exist_ok=True)
        _write(
            runs,
            "benchmarks=2, states=12, samples=300",
            "seed=22, random_shifts=4, ref_runs=2, cmp_runs=4",
        )
        (runs / "done").write_text("")
    folders = inputs / "many-dirs"
    if not (folders / "done").exists():
        for index, seed in enumerate((23, 24)):
            part = folders / f"part{index}"
            part.mkdir(parents=True, exist_ok=True)
            _write(
                part,
                "benchmarks=1, states=15, samples=200",
                f"seed={seed}, random_shifts=3, ref_runs=1, cmp_runs=2",
            )
        for side in ("ref", "cmp_0", "cmp_1"):
            (folders / side).mkdir(exist_ok=True)
            for index in range(2):
                part = folders / f"part{index}"
                target = folders / side / f"bench{index}.json"
                shutil.copy(part / f"{side}.json", target)
                for suffix in ("-bin", "-freqs-bin"):
                    sidecar = part / f"{side}.json{suffix}"
                    if sidecar.is_dir():
                        shutil.copytree(sidecar, folders / side / f"bench{index}.json{suffix}")
        (folders / "done").write_text("")


def _cases(inputs: Path) -> dict[str, tuple[str, ...]]:
    cases: dict[str, tuple[str, ...]] = {}
    shared = inputs / "shared"
    if SHARED_DATA.is_dir() and not shared.exists():
        shared.symlink_to(SHARED_DATA.resolve(), target_is_directory=True)
    gpu = "shared/nvbench-format-examples/gpu"
    cpu = "shared/nvbench-format-examples/cpu"
    real = {
        "gpu": (
            f"base={gpu}/gpu_ref.json",
            f"cmp={gpu}/gpu_cmp.json",
            f"plain={gpu}/gpu_cmp_plain.json",
            f"same={gpu}/gpu_ref_nosidecar.json",
        ),
        "cpu": (f"{cpu}/cpu_run1.json", f"{cpu}/cpu_run2.json", f"{cpu}/cpu_run2_plain.json"),
    }
    for name, arguments in real.items():
        if all((inputs / argument.split("=", 1)[-1]).is_file() for argument in arguments):
            cases[name] = arguments
        else:
            print(f"note: {name} skipped: {SHARED_DATA} does not hold it", file=sys.stderr)
    for name in ("many-bulk", "many-damaged"):
        cases[name] = (
            f"{name}/ref.json",
            *(f"{name}/cmp_{index}.json" for index in range(3)),
        )
    cases["many-runs"] = (
        "base=many-runs/ref_0.json",
        "base=many-runs/ref_1.json",
        "a=many-runs/cmp_0.json",
        "a=many-runs/cmp_1.json",
        "b=many-runs/cmp_2.json",
        "b=many-runs/cmp_3.json",
    )
    cases["many-dirs"] = ("many-dirs/ref", "many-dirs/cmp_0", "many-dirs/cmp_1")
    return cases


def _run(inputs: Path, out: Path, stem: str, arguments: Sequence[str]) -> None:
    folder = out / f"{stem}.dir"
    command = [
        sys.executable,
        "-m",
        "cuda.bench.compare",
        *arguments,
        "--json",
        str(out / f"{stem}.json"),
        "--csv",
        str(out / f"{stem}.csv"),
        "--markdown",
        str(out / f"{stem}.md"),
        "--output-dir",
        str(folder),
    ]
    environment = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    environment["COLUMNS"] = "120"
    done = subprocess.run(command, cwd=inputs, capture_output=True, env=environment, check=False)
    (out / f"{stem}.stdout").write_bytes(done.stdout)
    (out / f"{stem}.stderr").write_bytes(done.stderr.replace(str(out).encode(), b"OUT"))
    (out / f"{stem}.status").write_text(f"{done.returncode}\n")
    if folder.is_dir():  # flattened, so that ``compare`` sees every file
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                relative = path.relative_to(folder).as_posix().replace("/", "~")
                shutil.copyfile(path, out / f"{stem}.dir~{relative}")
        shutil.rmtree(folder)


def render(out: Path, inputs: Path) -> None:
    inputs.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    _generate(inputs)
    for name, case in _cases(inputs).items():
        for method in METHODS:
            for jobs in JOBS:
                for display in DISPLAYS:
                    for correction in CORRECTIONS:
                        if method == "robust" and correction != CORRECTIONS[0]:
                            continue  # robust has no interval level to correct
                        if name == "many-runs" and method == "robust":
                            continue  # robust refuses several runs
                        stem = f"{name}.{method}.j{jobs}.{display}.{correction}"
                        arguments = [
                            *case,
                            "--method",
                            method,
                            "-j",
                            jobs,
                            "--display",
                            display,
                            "--correction",
                            correction,
                            "--color",
                            "never",
                        ]
                        _run(inputs, out, stem, arguments)
        print(f"rendered {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    commands = parser.add_subparsers(dest="command", required=True)
    render_parser = commands.add_parser("render", help="render every output into OUT")
    render_parser.add_argument("out", type=Path, metavar="OUT")
    render_parser.add_argument(
        "--inputs",
        type=Path,
        default=Path(tempfile.gettempdir()) / "nvbench-many-outputs-identical-inputs",
        help="where the generated inputs are kept (default: %(default)s)",
    )
    compare_parser = commands.add_parser("compare", help="compare two renders")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    arguments = parser.parse_args()
    if arguments.command == "render":
        render(arguments.out, arguments.inputs)
        return 0
    return compare_renders(arguments.before, arguments.after)


if __name__ == "__main__":
    sys.exit(main())
