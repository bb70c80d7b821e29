"""The name of a run in an archive: what makes two result files one run.

A run is stored once, named by :func:`run_hash`, the hash of its measurements
(:func:`cuda.bench.results._identity.measurement_digest`): a copy with other bytes (CRLF line
ends, a JSON tool's rewrite) is the same run. An ingest before 2026-11-28 named runs by the
file's bytes and samples; :func:`run_hashes` gives both, and a run either names is in the
archive (:func:`archived_run`), so older archives keep refusing their own runs.

The side files are not in the name: a run archived while a side file was missing or held
zeros (archived from its summaries, with a warning) is the same run as an intact copy,
which is then refused as already archived (:func:`already_archived` says how to replace
it: no command removes a run). Putting the side files' content in the name would not
help: every run archived under the present name would then be ingested a second time
under another, in silence, unless the present name were still looked for, and that name
is the damaged run's too.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._special_files import SpecialFileError, open_regular

if TYPE_CHECKING:
    from ..results._tools_api import BenchmarkResult

__all__ = ["already_archived", "archived_run", "run_hash", "run_hashes"]


def run_hash(path: str | os.PathLike[str], result: BenchmarkResult) -> str:
    """The hash naming the run of ``path`` (read as ``result``) in an archive: its
    measurements (:func:`~cuda.bench.results._identity.measurement_digest`), so that a copy
    with other bytes (CRLF line ends, a JSON tool's rewrite) is the same run."""
    from ..results._identity import measurement_digest

    return measurement_digest(result, _file_bytes(path))


def run_hashes(path: str | os.PathLike[str], result: BenchmarkResult) -> tuple[str, str]:
    """:func:`run_hash`, and the name an ingest before 2026-11-28 gave the run (the file's
    bytes and its samples): a run either names is in the archive."""
    return _hashes(Path(path), result)


def _hashes(path: Path, result: BenchmarkResult) -> tuple[str, str]:
    from ..results._identity import measurement_digest
    from ..results._tools_api import SideFileError

    data = _file_bytes(path)  # once, for both names
    digest = hashlib.sha256(data or b"")
    for state in result.states():
        try:
            samples = state.samples
        except SideFileError:
            # As a missing side file (what the older ingest read for one it could not).
            samples = None
        if samples is not None:
            digest.update(np.ascontiguousarray(samples, dtype="<f4").tobytes())
    return measurement_digest(result, data), digest.hexdigest()


def _file_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of the run's file, read again; ``None`` where it is no regular file (a
    pipe, read once already by the reader, or what took the file's place since: a named
    pipe would hold the read up): the run's document stands in
    (:func:`~cuda.bench.results._identity.measurement_digest`)."""
    try:
        with open_regular(path) as stream:
            return stream.read()
    except SpecialFileError:
        return None


def archived_run(root: Path, digests: tuple[str, str]) -> Path | None:
    """The file of an archived run of ``root`` named by either digest."""
    return next(
        (found for one in digests for found in sorted(root.glob(f"runs/*/*/{one}.parquet"))),
        None,
    )


def already_archived(path: str | os.PathLike[str], root: Path, stored: Path) -> str:
    """The one line refusing the run of ``path`` that ``root`` holds as ``stored`` (its
    ``runs`` file), with how to replace it (module docstring): delete its files, the runs
    file first (which hides the run), then ingest it again. All of them: an ingest keeps a
    states or samples file of the run's name that it finds, so only deleting them stores
    the new copy's rows."""
    tail = stored.relative_to(root / "runs").as_posix()
    return (
        f"{os.fspath(path)}: already in the archive (run {stored.stem[:16]}); nothing "
        "written; a run is named by its JSON, not its side files: to replace it (a side "
        f"file was missing or damaged when it was ingested, say), delete runs/{tail} from "
        f"{root}, then the files of that name under states/ and samples/, and ingest it again"
    )
