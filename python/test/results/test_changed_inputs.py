"""An input that changes between reading and use (a benchmark rewriting its output) never
crashes the reader nor mixes two versions of the file: what a result serves comes from the
bytes it read, or it raises ResultFormatError naming the file.

Every read mode is covered, directly and through the public ``compare()``; each scenario
runs in its own interpreter, since a read through a map of a truncated file would end the
process with SIGBUS rather than fail a test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cuda.bench.results import BenchmarkResult, ReadMode
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

TAG = "nv/cold/time/gpu/mean"

#: Each scenario reads ``path`` as its mode does, lets ``change(path)`` change it, then
#: uses what it read; it prints what it got as one JSON line.
_SCRIPT = """
import json, os, sys
from pathlib import Path

from cuda.bench.results import BenchmarkResult, ReadMode, ResultFormatError

path, mode, change = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
TAG = {tag!r}


def changed(path):
    data = path.read_bytes()
    if change == "truncate":  # in place: a map of the file would now fault (SIGBUS)
        with open(path, "r+b") as handle:
            handle.truncate(len(data) // 3)
    elif change == "replace":  # another file under the name, with other numbers
        new = path.with_name("new.json")
        new.write_bytes(data.replace(b'"value": "0.', b'"value": "7.'))
        os.replace(new, path)
    elif change == "rewrite":  # in place, same size, a later modification time
        path.write_bytes(data.replace(b'"value": "0.', b'"value": "7.'))
        stat = os.stat(path)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def summaries_of(states):
    return [[s.benchmark.name, s.state_name, s.get_value(TAG), s.summaries[TAG].value,
             s.summaries[TAG].name] for s in states]


def read(mode):
    if mode == "default":
        return BenchmarkResult(path)
    if mode == "lazy=False":
        return BenchmarkResult.from_json(path, lazy=False)
    return BenchmarkResult(path, mode=ReadMode(mode))


def compared(mode):
    from cuda.bench.compare import compare, execution

    ref = path.with_name("ref.json")
    if mode == "compare_split":  # split by benchmark however small the files
        execution._MIN_SPLIT_BYTES = 1
        return compare(ref, path, jobs=2)
    filters = [("benchmark", "bench_01")] if mode == "compare_by_benchmark" else None
    return compare(ref, path, filters=filters, jobs=1)


try:
    if mode.startswith("compare"):
        rows = compared(mode).rows
        changed(path)
        got = summaries_of([row.cmp_state for row in rows])
    else:
        result = read(mode)
        changed(path)
        got = summaries_of(result.states())
    print(json.dumps({{"got": got}}))
except ResultFormatError as error:
    print(json.dumps({{"error": str(error)}}))
"""

#: Whether each read mode reads parts of the file again later (which then refuses a changed
#: file) rather than keeping everything it read.
READS_LATER = {
    ReadMode.FULL: False,
    ReadMode.LAZY: False,
    ReadMode.SLIM: True,
    ReadMode.BY_BENCHMARK: True,
}
KEEPING = ("default", "lazy=False", *(m.value for m, later in READS_LATER.items() if not later))
READING_LATER = tuple(m.value for m, later in READS_LATER.items() if later)
THROUGH_COMPARE = ("compare_slim", "compare_by_benchmark", "compare_split")
CHANGES = ("truncate", "replace", "rewrite")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("changing")
    written = write_pair(root, SyntheticConfig(benchmarks=3, states=4, samples=30), seed=7)
    return written.ref[0], written.cmp[0]


def _run(pair: tuple[Path, Path], tmp_path: Path, mode: str, change: str) -> dict[str, object]:
    """The scenario's outcome, on a copy of the pair (side files included)."""
    run = tmp_path / "run"
    shutil.copytree(pair[1].parent, run)
    script = tmp_path / "scenario.py"
    script.write_text(textwrap.dedent(_SCRIPT.format(tag=TAG)))
    done = subprocess.run(
        [sys.executable, "-W", "ignore", str(script), str(run / "cmp.json"), mode, change],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # A signal (SIGBUS from a map of the truncated file) shows as a negative status.
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    outcome: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return outcome


def _original(pair: tuple[Path, Path]) -> list[list[object]]:
    """What the scenarios' ``summaries_of`` gives for every state of the unchanged file."""
    result = BenchmarkResult(pair[1], lazy=False)
    return [
        [s.benchmark.name, s.state_name, s.get_value(TAG), s.summaries[TAG].value, "GPU Time"]
        for s in result.states()
    ]


def test_every_read_mode_is_covered() -> None:
    assert set(READS_LATER) == set(ReadMode)


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("mode", KEEPING)
def test_a_result_that_kept_what_it_read_serves_the_bytes_it_read(
    pair: tuple[Path, Path], tmp_path: Path, mode: str, change: str
) -> None:
    outcome = _run(pair, tmp_path, mode, change)
    assert outcome.get("got") == _original(pair), outcome


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("mode", READING_LATER + THROUGH_COMPARE)
def test_what_is_read_later_refuses_a_changed_file(
    pair: tuple[Path, Path], tmp_path: Path, mode: str, change: str
) -> None:
    if mode == "compare_split":
        from cuda.bench.compare.workers import can_fork

        if not can_fork():
            pytest.skip("a comparison is split over processes only where it can fork")
    outcome = _run(pair, tmp_path, mode, change)
    message = str(outcome.get("error"))
    assert message.startswith(str(tmp_path / "run" / "cmp.json") + ": "), outcome
    assert "changed since it was read" in message


@pytest.mark.parametrize("mode", READING_LATER)
def test_an_unchanged_file_is_read_later_as_before(
    pair: tuple[Path, Path], tmp_path: Path, mode: str
) -> None:
    outcome = _run(pair, tmp_path, mode, "none")
    assert outcome.get("got") == _original(pair), outcome
