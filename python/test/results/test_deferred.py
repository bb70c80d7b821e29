"""Reading a result for a comparison (ReadMode.SLIM: summaries slim, tags and values) and,
for a comparison split over processes, benchmark by benchmark (ReadMode.BY_BENCHMARK). The
same contents as the usual reader; what was skipped is decoded when asked for."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import msgspec
import pytest
from _reader_helpers import REAL_FILES, contents
from conftest import real_path
from cuda.bench.results import BenchmarkResult, NVBenchFormatWarning, ReadMode, ResultFormatError
from cuda.bench.results._stages import Stage
from cuda.bench.results.synthetic import SyntheticConfig, write_pair

SLIM, BY_BENCHMARK = ReadMode.SLIM, ReadMode.BY_BENCHMARK


def _deferred(path: Path) -> BenchmarkResult:
    return BenchmarkResult(path, mode=BY_BENCHMARK)


def _stages(result: BenchmarkResult) -> list[Stage]:
    return [bench._stages.stage for bench in result.benchmarks]


@pytest.fixture(scope="module")
def three_benchmarks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deferred")
    pair = write_pair(root, SyntheticConfig(benchmarks=3, states=4, samples=30), seed=7)
    return pair.ref[0]


@pytest.mark.parametrize("mode", [BY_BENCHMARK, SLIM])
@pytest.mark.parametrize("relative", REAL_FILES)
def test_it_reads_what_the_usual_reader_reads(relative: str, mode: ReadMode) -> None:
    path = real_path(relative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NVBenchFormatWarning)
        usual, read = BenchmarkResult(path, lazy=False), BenchmarkResult(path, mode=mode)
    assert set(_stages(read)) <= {Stage.RAW if mode is BY_BENCHMARK else Stage.SLIM}
    assert read.devices == usual.devices and read.meta == usual.meta
    assert [b.name for b in read.benchmarks] == [b.name for b in usual.benchmarks]
    assert [b.axes for b in read.benchmarks] == [b.axes for b in usual.benchmarks]
    assert contents(read) == contents(usual) and contents(usual)
    assert read.document == usual.document


@pytest.mark.parametrize("mode", list(ReadMode))
def test_every_mode_reads_the_same_contents_and_leaves_the_file_for_later_only_if_it_must(
    three_benchmarks: Path, mode: ReadMode
) -> None:
    usual = BenchmarkResult(three_benchmarks)
    read = BenchmarkResult.from_json(three_benchmarks, mode=mode)
    assert contents(read) == contents(usual) and read.document == usual.document
    # Once names were asked for (contents), nothing is left to read from the file.
    assert _stages(read) == [Stage.FULL] * 3
    assert (
        _stages(BenchmarkResult(three_benchmarks, mode=mode))
        == [{ReadMode.BY_BENCHMARK: Stage.RAW, ReadMode.SLIM: Stage.SLIM}.get(mode, Stage.FULL)] * 3
    )


def test_mode_decides_over_lazy(three_benchmarks: Path) -> None:
    assert _stages(BenchmarkResult(three_benchmarks, lazy=False, mode=SLIM)) == [Stage.SLIM] * 3
    states = BenchmarkResult(three_benchmarks, lazy=True, mode=ReadMode.FULL).benchmarks[0]
    assert not isinstance(states[0]._raw.summaries, msgspec.Raw)
    assert isinstance(BenchmarkResult(three_benchmarks)["bench_00"][0]._raw.summaries, msgspec.Raw)


def test_a_benchmark_made_from_a_record_leaves_the_record_as_given(
    three_benchmarks: Path,
) -> None:
    document = BenchmarkResult(three_benchmarks, mode=ReadMode.FULL).document
    record = document.benchmarks[1]
    states = record.states
    result = BenchmarkResult.from_document(document, three_benchmarks)
    assert record.states is states and len(result["bench_01"]) == len(states) == 4


def test_slim_states_read_their_names_from_the_file_when_asked(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    usual = BenchmarkResult(path, lazy=False)
    result = BenchmarkResult(path, mode=SLIM)
    bench, tag = result.benchmarks[2], "nv/cold/time/gpu/mean"
    state = bench[1]
    assert state.get_value(tag) == usual.benchmarks[2][1].get_value(tag)
    assert not hasattr(state._raw.summaries[0], "name") and bench._stages.stage is Stage.SLIM
    assert state.summaries == usual.benchmarks[2][1].summaries  # the file is read again
    assert bench._stages.stage is Stage.FULL and bench[1] is state
    # Another benchmark takes its names from the same second reading.
    assert result.benchmarks[0][3].summaries == usual.benchmarks[0][3].summaries


def test_a_slim_result_whose_file_went_away_or_changed_says_so(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    gone = BenchmarkResult(path, mode=SLIM)
    changed = BenchmarkResult(path, mode=SLIM)
    path.unlink()
    assert gone.benchmarks[0][0].get_value("nv/cold/time/gpu/mean") is not None
    with pytest.raises(ResultFormatError, match="no such file"):
        _ = gone.benchmarks[0][0].summaries
    doc = json.loads(three_benchmarks.read_text())
    del doc["benchmarks"][1]["states"][0]
    path.write_text(json.dumps(doc))
    with pytest.raises(ResultFormatError, match="changed since it was read"):
        _ = changed.benchmarks[1][0].summaries


def _same_error(path: Path, mode: ReadMode) -> None:
    """``path`` in ``mode`` is refused as the usual reader refuses it (which words it)."""
    with pytest.raises(ResultFormatError) as usual:
        BenchmarkResult(path)
    with pytest.raises(type(usual.value)) as read:
        BenchmarkResult(path, mode=mode)
    assert str(read.value) == str(usual.value)


def test_a_file_the_slim_reader_refuses_is_left_to_the_usual_reader(
    three_benchmarks: Path, tmp_path: Path
) -> None:
    _same_error(_broken(three_benchmarks, tmp_path, "state field"), SLIM)
    (tmp_path / "empty.json").write_bytes(b"")
    _same_error(tmp_path / "empty.json", SLIM)
    _same_error(tmp_path / "missing.json", SLIM)


def test_a_benchmark_is_decoded_when_first_used_and_only_then(three_benchmarks: Path) -> None:
    result = _deferred(three_benchmarks)
    benches = result.benchmarks
    # The header is there without decoding a state.
    assert [bench.name for bench in benches] == ["bench_00", "bench_01", "bench_02"]
    assert benches[1].devices == [0] and benches[1].axes[0].name == "Elements"
    assert _stages(result) == [Stage.RAW] * 3
    assert benches[1][2].state_name == "Device=0 Elements=3072"
    assert _stages(result) == [Stage.RAW, Stage.SLIM, Stage.RAW]
    assert [bench.raw_states_size is None for bench in benches] == [False, True, False]


def test_a_state_handed_out_early_decodes_its_benchmark_and_is_the_one_it_holds(
    three_benchmarks: Path,
) -> None:
    result = _deferred(three_benchmarks)
    bench = result.benchmarks[2]
    early = bench.state_at(3)
    again = bench.state_at(3)
    assert early is again and bench.raw_states_size is not None
    assert early.benchmark is bench and early.position == 3  # without decoding
    assert bench.raw_states_size is not None
    usual = BenchmarkResult(three_benchmarks, lazy=False).benchmarks[2][3]
    assert early.summaries == usual.summaries  # the first use decodes the benchmark
    assert bench.raw_states_size is None and bench[3] is early
    assert bench.state_at(1) is bench[1]
    with pytest.raises(IndexError):
        bench.state_at(4)


def test_a_state_beyond_the_states_read_says_the_file_changed(three_benchmarks: Path) -> None:
    bench = _deferred(three_benchmarks).benchmarks[0]
    ghost = bench.state_at(9)  # as if another process had seen ten states
    with pytest.raises(ResultFormatError, match="the file changed while it was read"):
        _ = ghost.state_name


@pytest.mark.parametrize("mode", [BY_BENCHMARK, SLIM])
def test_a_file_that_changes_while_it_is_decoded_is_left_to_the_usual_reader(
    three_benchmarks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: ReadMode
) -> None:
    from cuda.bench.results import _deferred, _parse

    path = tmp_path / "run.json"
    path.write_bytes(three_benchmarks.read_bytes())
    module = _deferred if mode is BY_BENCHMARK else _parse
    name = "_DEFERRED_DECODER" if mode is BY_BENCHMARK else "_SLIM_DECODER"
    decoder = getattr(module, name)

    class Rewriting:
        """Decodes the map it is given, while another version replaces the file."""

        def decode(self, data: object) -> object:
            other = tmp_path / "other.json"
            other.write_bytes(three_benchmarks.read_bytes())
            other.replace(path)
            return decoder.decode(data)

    monkeypatch.setattr(module, name, Rewriting())
    read = BenchmarkResult(path, mode=mode)
    assert _stages(read) == [Stage.FULL] * 3  # read whole, as it is now
    assert contents(read) == contents(BenchmarkResult(three_benchmarks))
    monkeypatch.setattr(module, name, decoder)
    assert Stage.FULL not in _stages(BenchmarkResult(path, mode=mode))


@pytest.mark.parametrize(
    "content", [b"", b"  \n", b'{"benchmarks": [', b"[1, 2]", b'{"benchmarks": 3}']
)
def test_a_file_it_cannot_read_so_is_left_to_the_usual_reader(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(content)
    for mode in (BY_BENCHMARK, SLIM):
        _same_error(path, mode)
        _same_error(tmp_path / "missing.json", mode)
        _same_error(tmp_path, mode)


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
    assert bench._stages.stage is Stage.SLIM
    assert not hasattr(state._raw.summaries[0], "description")
    summary = state.summaries[tag]  # asks for names: the benchmark is decoded in full
    assert bench._stages.stage is Stage.FULL and bench[2] is state
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
