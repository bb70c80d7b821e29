"""Refuse an output path that names one of the run's inputs, before any work is done.

A report, plot or calibration written over a result file, one of its side files or the
calibration it reads would destroy the evidence it was made from (and atomic writes
replace even a read-only file). The inputs are the given files, every file under a given
directory, and the side files each input JSON file records. Files are compared by
identity (device and inode), so links and other spellings of a path are caught too.

No output goes inside an ``nvbench-history`` archive either (:func:`refuse_outputs_in_archive`):
the archive holds only what ingest writes, and a report over its marker breaks it. Nor does
a figure's default file name (:func:`refuse_default_outputs_in_archives`), refused as early.
And no run is given twice (:func:`refuse_repeated_runs`): the commands that read several
runs (the history gate and baseline check, walltime, histogram, plot-bwutil) refuse a copy;
the last three take their files through :func:`result_files_read_once`. A folder's
byte-identical files are one run, read once, with a note (:func:`print_read_once`).
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .._archive_marker import archive_containing
from .._json_input import loads
from .._special_files import open_regular
from ._common import UsageError, print_note, print_warning

__all__ = [
    "check_outputs_against_inputs",
    "default_outputs_in_archives",
    "holds_result",
    "print_read_once",
    "refuse_default_outputs_in_archives",
    "refuse_outputs_in_archive",
    "refuse_repeated_runs",
    "result_files_read_once",
]

#: A field of a summary's ``data`` that names a side file.
_FILENAME = "filename"
#: A ``--plot-along-output`` template field: any text may stand in its place.
_FIELD = re.compile(r"\{[a-z_]+\}")


def _recorded_names(data: bytes) -> Iterator[str]:
    """Every side-file name a JSON document records: the string ``value`` of each object
    whose ``name`` is ``filename``, wherever it is and however its keys are ordered or
    escaped (the reader decodes the document, so a textual scan for NVBench's own layout
    would miss a name the reader follows). A document that does not decode (malformed, or
    nested too deeply) is not read as a result, so records nothing. The standard decoder
    accepts every document the reader's (msgspec) does, with the same values, so it misses
    no name the reader follows; it also accepts some the reader refuses (a lone surrogate
    in a string), whose names may be no path (:func:`_side_files` skips them)."""
    try:
        document = loads(data)
    except ValueError:
        return
    pending = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            value = node.get("value")
            if node.get("name") == _FILENAME and isinstance(value, str):
                yield value
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)


def _result_bytes(path: Path) -> bytes | None:
    """The bytes of ``path`` where the reader would read it as a result, else ``None``:
    without blocking and regular files only (a named pipe in a folder given held the input
    check in ``open`` for good: it reads every ``*.json`` of the folders), and not a file
    larger than any result or one that cannot begin JSON, which the reader refuses unread."""
    # Here: most runs write no file that exists already, and never get this far.
    from ..results._parse import may_hold_result

    try:
        with open_regular(path) as stream:
            if not may_hold_result(stream.fileno(), os.fstat(stream.fileno()).st_size):
                return None
            return stream.read()
    except OSError:
        return None


def _side_files(json_path: Path) -> Iterator[Path]:
    from ..results._sidecar import resolve_side_file
    from ..results._tools_api import SideFileError

    data = _result_bytes(json_path)
    if data is None:  # what the reader refuses unread names no side file
        return
    for filename in _recorded_names(data):
        try:
            found = resolve_side_file(json_path, filename)
        except SideFileError:
            continue  # outside the JSON file's tree: never read, so never an input
        except ValueError:
            # No path at all (a lone surrogate, which the reader's decoder refuses, or a
            # NUL): it names no file, so no output can be it.
            continue
        if found:
            yield found


def _input_files(inputs: Iterable[str]) -> Iterator[Path]:
    """Every file the run reads: given files, files under given directories, and the side
    files the JSON files among them record."""
    for text in inputs:
        path = Path(text)
        if path.is_dir():
            for folder, _, names in os.walk(path):
                for name in names:
                    found = Path(folder, name)
                    yield found
                    if name.endswith(".json"):
                        yield from _side_files(found)
        elif path.is_file():
            yield path
            if path.suffix == ".json":
                yield from _side_files(path)


def holds_result(path: str) -> bool:
    """Whether the existing file ``path`` holds NVBench results: a JSON object whose
    ``benchmarks`` is a list of objects with ``states`` (what NVBench writes; no report of
    these tools has that shape). Read only what the reader would read."""
    data = _result_bytes(Path(path))
    if data is None or b'"benchmarks"' not in data:  # a report (most outputs): no decoding
        return False
    try:
        document = loads(data)
    except ValueError:
        return False
    benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
    return (
        isinstance(benchmarks, list)
        and bool(benchmarks)
        and all(isinstance(one, dict) and "states" in one for one in benchmarks)
    )


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = _FIELD.split(os.path.abspath(template))
    return re.compile(".+".join(re.escape(part) for part in parts) + r"\Z")


def refuse_outputs_in_archive(archive: str, outputs: Iterable[tuple[str, str | None]]) -> None:
    """The archive is input only: refuse any ``(option, path)`` output at or under it
    (symbolic links resolved; ``-`` is standard output), or under any other archive (a
    history command reading one archive wrote over another's marker)."""
    paths = [(option, path) for option, path in outputs if path and path != "-"]
    for option, path in paths:
        _refuse_under(archive, option, path)
    _refuse_outputs_in_archives(paths, [])


def _refuse_under(archive: str, option: str, path: str) -> None:
    root = os.path.realpath(archive)
    target = os.path.realpath(path)
    if target == root or os.path.commonpath([root, target]) == root:
        raise UsageError(
            f"{option} {path}: inside the archive {archive}; the archive holds only what "
            "ingest writes: write reports elsewhere"
        )


def _fixed_part(template: str) -> str:
    """Where a template's files go: the folder before its first field (the working
    directory when the field comes first); a path without a field is itself."""
    if not _FIELD.search(template):
        return template
    return os.path.dirname(template.split("{", 1)[0]) or os.curdir


def _refuse_outputs_in_archives(
    outputs: Iterable[tuple[str, str]], templates: Iterable[tuple[str, str]]
) -> None:
    """Refuse an output, or a template's fixed folder, inside any archive: the directory
    tree of an ``nvbench-archive.json`` marker, found by walking up from the path."""
    fixed = [(option, _fixed_part(template)) for option, template in templates]
    for option, path in [*outputs, *fixed]:
        archive = archive_containing(path)
        if archive is not None:
            _refuse_under(archive, option, path)


def default_outputs_in_archives(outputs: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """The outputs the user did not name, ``(what, name)``, that lie inside an archive, each
    as ``(what, name, archive)``: ``name`` is a default file name (relative: the working
    directory may lie in an archive), or a template of one whose fields the run fills in
    (its fixed folder is looked up)."""
    found = []
    for what, name in outputs:
        archive = archive_containing(_fixed_part(name))
        if archive is not None:
            found.append((what, name, archive))
    return found


def refuse_default_outputs_in_archives(found: Iterable[tuple[str, str, str]]) -> None:
    """Refuse the outputs the user did not name that :func:`default_outputs_in_archives`
    found inside an archive, ``(what, name, archive)``. The message names ``name``, as the
    user will find it in the working directory, and says it is the default (the user typed
    no such name)."""
    for what, name, archive in found:
        raise UsageError(
            f"{what} {name} (its default file name): inside the archive {archive}; the "
            "archive holds only what ingest writes: name the output elsewhere or run outside it"
        )


def check_outputs_against_inputs(
    outputs: Iterable[tuple[str, str | None]],
    inputs: Iterable[str | None],
    templates: Iterable[tuple[str, str | None]] = (),
) -> None:
    """Raise :class:`UsageError` when an output ``(option, path)`` is one of the input
    files (or a ``(option, template)`` of plot file names could expand to one), holds
    NVBench results (:func:`holds_result`), or lies inside an ``nvbench-history`` archive.

    Only outputs that exist as regular files can be inputs, so the inputs are listed only
    then: a run writing new files costs nothing here.
    """
    paths = [(option, path) for option, path in outputs if path and path != "-"]
    shapes = [(option, template) for option, template in templates if template]
    _refuse_outputs_in_archives(paths, shapes)
    existing = [
        (option, path, identity)
        for option, path in paths
        if (identity := _identity(path)) is not None
    ]
    patterns = [
        (option, template, _template_pattern(template))
        for option, template in shapes
        if _FIELD.search(template)
    ]
    existing += [
        (option, template, identity)
        for option, template in shapes
        if not _FIELD.search(template) and (identity := _identity(template))
    ]
    if not existing and not patterns:
        return
    for source in _input_files(text for text in inputs if text):
        identity = _identity(source)
        for option, path, output in existing:
            if identity == output:
                raise UsageError(f"{option}: '{path}' is the input file '{source}'")
        if identity is None:
            continue
        for option, template, pattern in patterns:
            for spelling in {os.path.abspath(source), os.path.realpath(source)}:
                if pattern.match(spelling):
                    raise UsageError(
                        f"{option}: '{template}' could write over the input file '{source}'"
                    )
    for option, path, _ in existing:
        if holds_result(path):
            # A result that is no input either: most often one meant as an input that
            # an option took as its file name (``--markdown ref.json cmp.json new.json``).
            raise UsageError(
                f"{option}: '{path}' holds NVBench results; not written over (did {option} "
                "take a result file meant as an input? give the output a new file name)"
            )


def refuse_repeated_runs(paths: Sequence[str], verb: str) -> None:
    """Refuse one run given twice: the same file, a link to it or a copy (told by its
    measurements, not its bytes: CRLF line ends or a JSON tool's rewrite is the same run;
    :mod:`cuda.bench.results._identity`). It would agree with itself, so the runs'
    agreement that ``gate`` and ``baseline check`` rest on would be void (and walltime,
    histogram and plot-bwutil would count or draw it twice). Paths that are not files, or
    not results, are left to the reader's error."""
    from ..results._identity import repeated_run
    from ..results._tools_api import BenchmarkResult, ResultFormatError

    results: list[BenchmarkResult] = []
    for path in paths:
        if not os.path.isfile(path):
            continue
        try:
            # Read for its measurements only: what the reader says of the file, the
            # command says when it reads it for its work.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results.append(BenchmarkResult(path))
        except (OSError, ResultFormatError):
            continue
    repeat = repeated_run(results)
    if repeat is not None:
        raise UsageError(f"{repeat.describe()}: a run is given twice; {verb} distinct runs")


def result_files_read_once(
    prog: str, inputs: Sequence[str | os.PathLike[str]], output: str | None
) -> list[Path]:
    """The result files ``nvbench-walltime``, ``nvbench-histogram`` and
    ``nvbench-plot-bwutil`` read of ``inputs`` (files and folders), each run once: a
    folder's byte-identical files are one run (NVBench's ``--json`` file beside its
    ``--jsonbin`` one; :func:`~cuda.bench.report.walltime.find_result_files`), a note on
    stderr naming each one left out. A run given twice otherwise (the same file, or a
    copy) is refused, as it would be counted or drawn twice; and ``--output`` (``output``)
    may be none of the files read or left out, nor their side files (those files only, not
    every file of a folder: a report written beside the results is no input of the next)."""
    from ..report.walltime import find_result_files

    copies: dict[Path, Path] = {}
    left_out: dict[Path, str] = {}
    files = find_result_files(inputs, copies, left_out)
    for entry, why in left_out.items():
        # An empty file is a run that crashed: a warning, as a run missing from the figure.
        print_warning(prog, f"{entry}: {why}")
    print_read_once(prog, copies.items())
    refuse_repeated_runs([str(path) for path in files], "give")
    check_outputs_against_inputs([("--output", output)], map(str, [*files, *copies]))
    return files


def print_read_once(
    prog: str, copies: Iterable[tuple[str | os.PathLike[str], str | os.PathLike[str]]]
) -> None:
    """A note on stderr for each ``(copy, kept)``: a file of a folder left out as a
    byte-identical copy of ``kept``, which was read in its place
    (:func:`~cuda.bench.report.walltime.same_run_note`; the folders of
    :func:`result_files_read_once` and of ``nvbench_compare``'s inputs), each file once."""
    from ..report.walltime import same_run_note

    for copy, kept in dict.fromkeys((os.fspath(copy), os.fspath(kept)) for copy, kept in copies):
        print_note(prog, same_run_note(copy, kept))
