"""Results of every read mode pickle, and so do comparisons of them: the records of a result
read LAZY, SLIM or BY_BENCHMARK are of decoding variants of the schema's types, which
pickle could not find by name. What a result reads later (states, summary names, side
files) is read after unpickling, from the same file, while it is unchanged."""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _reader_helpers import REAL_FILES, contents
from conftest import real_path
from cuda.bench.results import BenchmarkResult, NVBenchFormatWarning, ReadMode, ResultFormatError
from cuda.bench.results._stages import Stage

MODES = pytest.mark.parametrize("mode", list(ReadMode), ids=lambda mode: mode.value)


def _read(path: Path, mode: ReadMode) -> BenchmarkResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        return BenchmarkResult(path, mode=mode)


def _samples(result: BenchmarkResult) -> list[list[float] | None]:
    return [None if s.samples is None else s.samples.tolist() for s in result.states()]


@MODES
@pytest.mark.parametrize("relative", REAL_FILES)
def test_a_result_of_every_mode_pickles_before_and_after_use(relative: str, mode: ReadMode) -> None:
    path = real_path(relative)
    expected = _read(path, ReadMode.FULL)
    fresh = _read(path, mode)
    # Pickled with nothing used yet (states undecoded, by benchmark), then after use.
    for result in (fresh, pickle.loads(pickle.dumps(fresh))):
        copied = pickle.loads(pickle.dumps(result))
        assert contents(copied) == contents(expected)
        assert _samples(copied) == _samples(expected)
        assert copied.path == result.path and copied.label == result.label


@MODES
def test_a_state_pickles_alone_with_its_benchmark(gpu_dir: Path, mode: ReadMode) -> None:
    result = _read(gpu_dir / "gpu_ref.json", mode)
    bench = result["copy_bench"]
    pending = bench.state_at(3)  # handed out before the states are decoded (by benchmark)
    state, copied_bench = pickle.loads(pickle.dumps((pending, bench)))
    assert state.benchmark is copied_bench and copied_bench[3] is state
    assert state.state_name == bench[3].state_name
    assert state.summaries == bench[3].summaries
    assert np.array_equal(state.samples, bench[3].samples)


def test_an_unpickled_result_reads_later_parts_from_the_unchanged_file_only(
    gpu_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes((gpu_dir / "gpu_ref.json").read_bytes())
    result = _read(path, ReadMode.BY_BENCHMARK)
    assert result["misc"]._stages.stage is Stage.RAW
    data = pickle.dumps(result)
    assert pickle.loads(data)["misc"][0].state_name == result["misc"][0].state_name
    path.write_bytes(path.read_bytes() + b"\n")  # the file changed since it was read
    with pytest.raises(ResultFormatError, match="changed since it was read"):
        len(pickle.loads(data)["misc"])


@pytest.mark.parametrize("mode", [ReadMode.SLIM, ReadMode.BY_BENCHMARK], ids=["slim", "by"])
def test_a_result_unpickles_in_a_fresh_process(
    gpu_dir: Path, tmp_path: Path, mode: ReadMode
) -> None:
    # The decoding variants must be found by name where no reader has run yet.
    result = _read(gpu_dir / "gpu_ref.json", mode)
    pickled = tmp_path / "result.pickle"
    pickled.write_bytes(pickle.dumps(result))
    program = (
        "import pickle, sys\n"
        "result = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "state = result['misc'][0]\n"
        "print(len(list(result.states())), state.summaries[state.tags[0]].name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(pickled)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    state = result["misc"][0]
    expected = f"{len(list(result.states()))} {state.summaries[state.tags[0]].name}"
    assert done.stdout.strip() == expected


def test_a_comparison_pickles(gpu_dir: Path) -> None:
    # compare() reads its files SLIM: pickling a comparison, a row or a section failed.
    from cuda.bench.compare import compare

    comparison = compare(gpu_dir / "gpu_ref.json", gpu_dir / "gpu_cmp.json")
    copied = pickle.loads(pickle.dumps(comparison))
    assert [(row.benchmark, row.key, row.status) for row in copied] == [
        (row.benchmark, row.key, row.status) for row in comparison
    ]
    row = next(row for row in comparison if row.ref_state is not None)
    again = pickle.loads(pickle.dumps(row))
    assert again.ref_state is not None and again.ref_state.summaries == row.ref_state.summaries
