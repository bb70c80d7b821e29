"""One run, whatever its bytes: :func:`cuda.bench.results._identity.measurement_digest`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cuda.bench.results import BenchmarkResult
from cuda.bench.results._identity import measurement_digest


def _copies(gpu_dir: Path, tmp_path: Path) -> list[Path]:
    """gpu_ref.json with its side files, then the same run with CRLF line ends, written
    again by ``json.dump`` (keys and spacing changed), and pretty-printed."""
    for name in ("gpu_ref.json", "gpu_ref.json-bin", "gpu_ref.json-freqs-bin"):
        source = gpu_dir / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    original = tmp_path / "gpu_ref.json"
    text = original.read_text()
    crlf = tmp_path / "crlf.json"
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    document = json.loads(text)
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps(document, separators=(",", ":"), sort_keys=True))
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(document, indent=7))
    return [original, crlf, compact, pretty]


def test_copies_of_one_run_have_one_digest(gpu_dir: Path, tmp_path: Path) -> None:
    digests = {measurement_digest(BenchmarkResult(path)) for path in _copies(gpu_dir, tmp_path)}
    assert len(digests) == 1


def test_different_runs_have_different_digests(gpu_dir: Path, tmp_path: Path) -> None:
    ref = measurement_digest(BenchmarkResult(gpu_dir / "gpu_ref.json"))
    assert ref != measurement_digest(BenchmarkResult(gpu_dir / "gpu_cmp.json"))
    # One summary value changed in the last digit is another run.
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    nudged = json.loads(json.dumps(document))
    for summary in nudged["benchmarks"][0]["states"][0]["summaries"]:
        if summary["tag"] == "nv/cold/time/gpu/median":
            value = float(summary["data"][0]["value"])
            summary["data"][0]["value"] = repr(value * (1 + 2**-50))
    (tmp_path / "a.json").write_text(json.dumps(document))
    (tmp_path / "b.json").write_text(json.dumps(nudged))
    assert measurement_digest(BenchmarkResult(tmp_path / "a.json")) != measurement_digest(
        BenchmarkResult(tmp_path / "b.json")
    )


def test_a_copy_without_its_side_files_is_the_same_run(gpu_dir: Path, tmp_path: Path) -> None:
    alone = tmp_path / "alone.json"
    shutil.copy(gpu_dir / "gpu_ref.json", alone)
    assert measurement_digest(BenchmarkResult(alone)) == measurement_digest(
        BenchmarkResult(gpu_dir / "gpu_ref.json")
    )


def test_a_field_the_reader_does_not_keep_still_tells_runs_apart(
    gpu_dir: Path, tmp_path: Path
) -> None:
    # The digest names runs in archives for good: it must not depend on which fields this
    # version's reader keeps (a field it drops today may be one it reads tomorrow).
    document = json.loads((gpu_dir / "gpu_ref_nosidecar.json").read_text())
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(document))
    document["benchmarks"][0]["states"][0]["x_note"] = "measured on a hot day"
    noted = tmp_path / "noted.json"
    noted.write_text(json.dumps(document))
    assert measurement_digest(BenchmarkResult(plain)) != measurement_digest(BenchmarkResult(noted))


def test_byte_identical_files_are_told_without_holding_every_one(tmp_path: Path) -> None:
    """A folder of many same-size files: each one's bytes were kept until its group was
    decided (twelve 2 MiB copies held 24 MiB at once). Hashed one at a time, and only the
    files whose side-file names are looked for read again, one at a time."""
    import tracemalloc

    from cuda.bench.results._identity import written_together

    size = 2 << 20
    text = b'{"x": "' + b"a" * size + b'", "f": "run11.json-bin/0.bin"}'
    paths = [tmp_path / f"run{number:02}.json" for number in range(12)]
    for path in paths:
        path.write_bytes(text)
    tracemalloc.start()
    try:
        found = written_together(paths)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    kept = tmp_path / "run11.json"  # the file whose side-file names are its own
    assert found == {path: kept for path in paths if path != kept}
    assert peak < 3 * size, peak
