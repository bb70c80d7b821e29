"""Reading a result for a comparison: summaries slim (tags and values) and, for a comparison
split over processes, benchmark by benchmark. The same contents as the usual reader; what
was skipped is decoded when asked for."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from _reader_helpers import REAL_FILES, contents
from cuda.bench.results import BenchmarkResult, NVBenchFormatWarning, ResultFormatError
from cuda.bench.results.synthetic import SyntheticConfig, write_pair


def _deferred(path: Path) -> BenchmarkResult:
    result = BenchmarkResult._read_by_benchmark(path)
    assert result is not None
    return result


@pytest.fixture(scope="module")
def three_benchmarks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deferred")
    pair = write_pair(root, SyntheticConfig(benchmarks=3, states=4, samples=30), seed=7)
    return pair.ref[0]


@pytest.mark.parametrize("reader", ["_read_by_benchmark", "_read_slim"])
@pytest.mark.parametrize("relative", REAL_FILES)
def test_it_reads_what_the_usual_reader_reads(
    shared_data: Path, relative: str, reader: str
) -> None:
    path = shared_data / relative
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        usual, read = BenchmarkResult(path, lazy=False), getattr(BenchmarkResult, reader)(path)
    assert read is not None
    assert read.devices == usual.devices and read.meta == usual.meta
    assert [b.name for b in read.benchmarks] == [b.name for b in usual.benchmarks]
    assert [b.axes for b in read.benchmarks] == [b.axes for b in usual.benchmarks]
    assert contents(read) == contents(usual) and contents(usual)
    assert read.document == usual.document


def test_slim_states_read_their_names_from_the_file_when_asked(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    usual = BenchmarkResult(path, lazy=False)
    result = BenchmarkResult._read_slim(path)
    assert result is not None
    bench, tag = result.benchmarks[2], "nv/cold/time/gpu/mean"
    state = bench[1]
    assert state.get_value(tag) == usual.benchmarks[2][1].get_value(tag)
    assert not hasattr(state._raw.summaries[0], "name") and bench._slim
    assert state.summaries == usual.benchmarks[2][1].summaries  # the file is read again
    assert not bench._slim and bench[1] is state
    # Another benchmark takes its names from the same second reading.
    assert result.benchmarks[0][3].summaries == usual.benchmarks[0][3].summaries


def test_a_slim_result_whose_file_went_away_or_changed_says_so(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    gone = BenchmarkResult._read_slim(path)
    changed = BenchmarkResult._read_slim(path)
    assert gone is not None and changed is not None
    path.unlink()
    assert gone.benchmarks[0][0].get_value("nv/cold/time/gpu/mean") is not None
    with pytest.raises(ResultFormatError, match="no such file"):
        _ = gone.benchmarks[0][0].summaries
    doc = json.loads(three_benchmarks.read_text())
    del doc["benchmarks"][1]["states"][0]
    path.write_text(json.dumps(doc))
    with pytest.raises(ResultFormatError, match="changed since it was read"):
        _ = changed.benchmarks[1][0].summaries


def test_a_file_the_slim_reader_refuses_is_left_to_the_usual_reader(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    broken = _broken(three_benchmarks, tmp_path, "state field")
    assert BenchmarkResult._read_slim(broken) is None  # the usual reader words it
    (tmp_path / "empty.json").write_bytes(b"")
    assert BenchmarkResult._read_slim(tmp_path / "empty.json") is None
    assert BenchmarkResult._read_slim(tmp_path / "missing.json") is None


def test_a_benchmark_is_decoded_when_first_used_and_only_then(three_benchmarks: Path) -> None:
    result = _deferred(three_benchmarks)
    benches = result.benchmarks
    # The header is there without decoding a state.
    assert [bench.name for bench in benches] == ["bench_00", "bench_01", "bench_02"]
    assert benches[1].devices == [0] and benches[1].axes[0].name == "Elements"
    assert not any(bench._is_decoded for bench in benches)
    assert benches[1][2].state_name == "Device=0 Elements=3072"
    assert [bench._is_decoded for bench in benches] == [False, True, False]


def test_a_state_handed_out_early_decodes_its_benchmark_and_is_the_one_it_holds(
    three_benchmarks: Path,
) -> None:
    result = _deferred(three_benchmarks)
    bench = result.benchmarks[2]
    early = bench._state_at(3)
    again = bench._state_at(3)
    assert early is again and not bench._is_decoded
    assert early.benchmark is bench and early.position == 3  # without decoding
    assert not bench._is_decoded
    usual = BenchmarkResult(three_benchmarks, lazy=False).benchmarks[2][3]
    assert early.summaries == usual.summaries  # the first use decodes the benchmark
    assert bench._is_decoded and bench[3] is early
    assert bench._state_at(1) is bench[1]


def test_a_state_beyond_the_states_read_says_the_file_changed(three_benchmarks: Path) -> None:
    bench = _deferred(three_benchmarks).benchmarks[0]
    ghost = bench._state_at(9)  # as if another process had seen ten states
    with pytest.raises(ResultFormatError, match="the file changed while it was read"):
        _ = ghost.state_name


@pytest.mark.parametrize("reader", ["_read_by_benchmark", "_read_slim"])
def test_a_file_that_changes_while_it_is_decoded_is_left_to_the_usual_reader(
    three_benchmarks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    from cuda.bench.results import _deferred

    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    name = "_DEFERRED_DECODER" if reader == "_read_by_benchmark" else "_SLIM_DECODER"
    decoder = getattr(_deferred, name)

    class Rewriting:
        """Decodes the map it is given, while another version replaces the file."""

        def decode(self, data: object) -> object:
            other = tmp_path / "other.json"
            other.write_bytes(three_benchmarks.read_bytes())
            other.replace(path)
            return decoder.decode(data)

    monkeypatch.setattr(_deferred, name, Rewriting())
    assert getattr(BenchmarkResult, reader)(path) is None
    monkeypatch.setattr(_deferred, name, decoder)
    assert getattr(BenchmarkResult, reader)(path) is not None


@pytest.mark.parametrize(
    "content", [b"", b"  \n", b'{"benchmarks": [', b"[1, 2]", b'{"benchmarks": 3}']
)
def test_a_file_it_cannot_read_so_is_left_to_the_usual_reader(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(content)
    assert BenchmarkResult._read_by_benchmark(path) is None
    assert BenchmarkResult._read_by_benchmark(tmp_path / "missing.json") is None
    assert BenchmarkResult._read_by_benchmark(tmp_path) is None


def _broken(source: Path, tmp_path: Path, change: str) -> Path:
    doc = json.loads(source.read_text())
    state = doc["benchmarks"][1]["states"][2]
    if change == "state field":
        state["device"] = "zero"
    elif change == "summary name":
        state["summaries"][3]["name"] = 5
    else:
        state["summaries"][3]["data"] = "not a list"
    path = tmp_path / f"{change.replace(' ', '_')}.json"
    path.write_text(json.dumps(doc))
    return path


def _usual_summaries_error(path: Path) -> str:
    """What the usual reader says when the broken state's summaries are used."""
    state = BenchmarkResult(path, lazy=False).benchmarks[1][2]
    with pytest.raises(ResultFormatError) as usual:
        _ = state.summaries
    return str(usual.value)


def test_a_bad_state_field_is_reported_as_the_usual_reader_does_when_used(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = _broken(three_benchmarks, tmp_path, "state field")
    with pytest.raises(ResultFormatError) as usual:
        BenchmarkResult(path, lazy=False)
    result = _deferred(path)
    assert len(result.benchmarks[0]) == 4  # other benchmarks are unaffected
    with pytest.raises(ResultFormatError) as deferred:
        len(result.benchmarks[1])
    assert str(deferred.value) == str(usual.value)
    assert "$.benchmarks[1].states[2].device" in str(deferred.value)


def test_a_bad_summary_is_reported_as_the_usual_reader_does_when_its_state_is_used(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = _broken(three_benchmarks, tmp_path, "summary")
    usual = _usual_summaries_error(path)
    bench = _deferred(path).benchmarks[1]
    assert bench[1].summaries  # its neighbours read fine
    with pytest.raises(ResultFormatError) as deferred:
        _ = bench[2].summaries
    assert str(deferred.value) == usual
    assert "$.benchmarks[1].states[2].summaries[3].data" in str(deferred.value)


def test_states_are_decoded_slim_and_completed_when_names_are_asked_for(
    three_benchmarks: Path,
) -> None:
    usual = BenchmarkResult(three_benchmarks, lazy=False).benchmarks[1]
    bench = _deferred(three_benchmarks).benchmarks[1]
    state = bench[2]
    tag = "nv/cold/time/gpu/mean"
    # What a comparison reads comes from records without names, hints and descriptions.
    assert state.get_value(tag) == usual[2].get_value(tag)
    assert bench._states_span is not None
    assert not hasattr(state._raw.summaries[0], "description")
    summary = state.summaries[tag]  # asks for names: the benchmark is decoded in full
    assert bench._states_span is None and bench[2] is state
    assert summary == usual[2].summaries[tag] and summary.name == "GPU Time"
    assert state.get_value(tag) == usual[2].get_value(tag)
    assert [s.summaries for s in bench] == [s.summaries for s in usual]


def test_a_bad_summary_name_shows_only_when_names_are_asked_for(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = _broken(three_benchmarks, tmp_path, "summary name")
    usual = _usual_summaries_error(path)
    # A comparison never reads names: its values are there (the usual reader refuses the
    # state's summaries as a whole).
    good = BenchmarkResult(three_benchmarks).benchmarks[1][2]
    state = _deferred(path).benchmarks[1][2]
    tag = "nv/cold/time/gpu/mean"
    assert state.get_value(tag) == good.get_value(tag) is not None
    with pytest.raises(ResultFormatError) as deferred:
        _ = state.summaries
    assert str(deferred.value) == usual
    assert "$.benchmarks[1].states[2].summaries[3].name" in str(deferred.value)


def test_states_are_found_when_the_same_text_comes_earlier_in_the_file(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    # Where a benchmark's states lie is found by searching the file for their text: an
    # earlier field that starts the same, or has the very same text, or a benchmark with
    # the same states as the one before it, must still give every benchmark its states.
    document = json.loads(three_benchmarks.read_bytes())
    first, second, third = document["benchmarks"]
    third["states"] = second["states"]
    first_states = first.pop("states")
    first["x-near"] = first_states[:-1]  # unknown fields, before "states" in the file
    first["x-copy"] = first_states
    first["states"] = first_states
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    text = path.read_text()
    assert text.count(json.dumps(first_states)) == 2
    assert text.count(json.dumps(first_states)[:300]) >= 3 and len(first_states) > 1
    usual, read = BenchmarkResult(path, lazy=False), _deferred(path)
    assert contents(read) == contents(usual) and contents(usual)
    assert read.document == usual.document
