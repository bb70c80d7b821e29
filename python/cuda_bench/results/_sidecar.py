"""``--jsonbin`` side files: where they are and how to read them (spec §7, compare.md §2)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from .._arrays import Float32Array
else:
    from .._lazy import numpy as np

from .._special_files import open_nonblocking
from .._untrusted import SIDE_FILES_ANYWHERE, visible
from ._errors import OutsideSideFileError, SideFileError, UnusableSideFileNameError

__all__ = [
    "ANYWHERE_VARIABLE",
    "FREQS_TAG",
    "TIMES_TAGS",
    "SideFileRef",
    "anywhere_by_default",
    "contained",
    "load_float32",
    "named_side_file",
    "recorded_counts",
    "recorded_name",
    "resolve_side_file",
    "resolve_side_file_in",
    "side_file_directory",
]

#: Summary tags that point at side files. Times have one tag per measurement kind: cold GPU
#: first, then CPU-only (the order :class:`cuda.bench.compare.evidence.MeasurementKind` reads).
TIMES_TAGS = ("nv/json/bin:nv/cold/sample_times", "nv/json/bin:nv/cpu_only/sample_times")
FREQS_TAG = "nv/json/freqs-bin:nv/cold/sample_freqs"


#: A JSON string, escapes included (the unrolled form: a run of plain characters between
#: escapes, which the regex engine takes in one step rather than one character at a time).
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
#: What opens a summary object whose first key is ``tag``, up to the tag's opening quote.
_OPENS_SUMMARY = re.compile(rb'\{\s*"tag"\s*:\s*"\Z')
#: The rest of a side-file summary as NVBench writes it, after the tag's closing quote:
#: string-valued name keys, then ``data`` with ``filename`` and ``size`` (captured), and
#: the object's end.
_SIDE_FILE_REST = re.compile(
    rb'"\s*(?:,\s*"(?:name|description|hint|hide)"\s*:\s*' + _STRING + rb"\s*)*"
    rb',\s*"data"\s*:\s*\[\s*'
    rb'\{\s*"name"\s*:\s*"filename"\s*,\s*"type"\s*:\s*"string"\s*,\s*"value"\s*:\s*'
    + _STRING
    + rb"\s*\}\s*,\s*"
    rb'\{\s*"name"\s*:\s*"size"\s*,\s*"type"\s*:\s*"int64"\s*,\s*"value"\s*:\s*'
    rb'"(\d{1,18})"\s*\}\s*\]\s*\}',
    re.DOTALL,
)
#: The tags whose counts :func:`recorded_counts` reads, as JSON string values end.
_FREQS_VALUE = FREQS_TAG.encode() + b'"'
_TIMES_VALUE = TIMES_TAGS[0].encode() + b'"'


def recorded_counts(summaries_json: bytes) -> tuple[int, int] | None:
    """The value counts a state's cold sample-times and frequency side-file summaries
    record, read from the state's raw ``summaries`` JSON without decoding it: 0 for a
    summary it lacks, and ``(0, 0)`` when it records no frequencies (nothing to pair).
    ``None`` when a summary is not written as NVBench writes it (keys in another order, no
    ``data``, other declared types): decode the summaries to know.

    Sound as a shortcut because an unescaped quote in JSON only ever delimits a string: a
    tag found between ``{"tag": "`` and a quote is a summary's tag, and the pattern after it
    matches that summary object to its end. The first place the tag's text appears is then
    the first summary with that tag, the one the reader uses when a tag repeats: where it
    is not written so, the answer is ``None``.
    """
    frequencies = _count_at(summaries_json, _FREQS_VALUE)
    times = _count_at(summaries_json, _TIMES_VALUE)
    if not frequencies:
        # Nothing to pair; a times summary not written as NVBench writes it is still
        # decoded, so that its fields' declared types are checked at load.
        return None if frequencies is None or times is None else (0, 0)
    return None if times is None else (times, frequencies)


def _count_at(summaries_json: bytes, value: bytes) -> int | None:
    start = summaries_json.find(value)
    if start < 0:
        return 0
    if not _OPENS_SUMMARY.search(summaries_json, max(0, start - 64), start):
        return None
    rest = _SIDE_FILE_REST.match(summaries_json, start + len(value) - 1)
    return None if rest is None else int(rest[1])


@dataclass(frozen=True, slots=True)
class SideFileRef:
    """A side file as recorded in the JSON: the raw ``filename`` and the value count."""

    filename: str
    size: int


#: Set (to anything but empty or ``0``) by ``--side-files-anywhere``: side files are looked
#: up outside the JSON file's directory tree as well. An environment variable, so that the
#: processes a comparison is split over inherit the choice; a reader argument
#: (``side_files_anywhere``) decides instead where one is given.
ANYWHERE_VARIABLE = SIDE_FILES_ANYWHERE


def anywhere_by_default() -> bool:
    """Whether side files outside the JSON file's tree are read when no reader argument
    says (:data:`ANYWHERE_VARIABLE`)."""
    return os.environ.get(ANYWHERE_VARIABLE, "") not in ("", "0")


def contained(directory: str | os.PathLike[str], candidate: str | os.PathLike[str]) -> bool:
    """Whether ``candidate`` lies inside ``directory``'s tree once every link is resolved."""
    root = os.path.realpath(directory)
    found = os.path.realpath(candidate)
    return found == root or found.startswith(root.rstrip(os.sep) + os.sep)


def recorded_name(json_file: str | os.PathLike[str], filename: str) -> str:
    """The side file ``filename`` as the JSON file ``json_file`` records it, resolved against
    that file's folder as given: ``r/run.json-bin/0.bin`` for ``run.json-bin/0.bin`` recorded
    in ``r/run.json`` (an absolute name stays as it is); its control characters shown as
    escapes."""
    return os.path.join(os.path.dirname(json_file), visible(filename))


def named_side_file(side: str, json_file: str | os.PathLike[str] | None) -> str:
    """A side file ``side`` (:func:`recorded_name`, or the file found, as the user would
    spell it) as every message names it: with the JSON file that records it,
    ``r/run.json-bin/0.bin (recorded in r/run.json)``; alone where no JSON file is known."""
    return side if json_file is None else f"{side} (recorded in {os.fspath(json_file)})"


def _subject(json_file: Path | str | None, json_dir: Path, filename: str) -> str:
    """:func:`named_side_file` of ``filename``, for a JSON file known by its name or, without
    one (``None``), by its folder."""
    if json_file is None:
        return os.path.join(json_dir, visible(filename))
    return named_side_file(recorded_name(json_file, filename), json_file)


def _refuse(json_file: Path | str | None, json_dir: Path, filename: str) -> OutsideSideFileError:
    # The recorded path only: where a link on this machine leads, or what lies there, is
    # none of a result file's business (it would reach the report).
    return OutsideSideFileError(
        _subject(json_file, json_dir, filename),
        "leads outside the JSON file's directory tree; not read (--side-files-anywhere, or "
        "side_files_anywhere=True, reads side files kept elsewhere)",
    )


def resolve_side_file(
    json_path: Path, filename: str, *, anywhere: bool | None = None, label: str | None = None
) -> Path | None:
    """Locate a recorded side file, or ``None`` when it is nowhere to be found.

    Only files inside the JSON file's directory tree, after resolving links, are read: a
    result file from a pull request must not make a tool read (and publish) other files of
    the machine. One found elsewhere raises :class:`SideFileError` naming the recorded path
    resolved against the JSON file's folder and the JSON file that records it
    (:func:`named_side_file`), unless ``anywhere`` (``None``: :func:`anywhere_by_default`).

    Order (compare.md §2): an absolute path as is; relative to the JSON file's directory
    (current NVBench); the legacy layout, where the recorded path was relative to the
    benchmark's working directory and contains a ``<json name>-bin`` or
    ``<json name>-freqs-bin`` component that is re-anchored at the JSON's directory;
    relative to the parent of the JSON's directory. Never the current working directory:
    a file found there could belong to another run.

    A JSON file reached through a link (a folder a CI job staged with ``ln -s``) has its
    side files beside the file the link leads to, where NVBench wrote them: found nowhere
    beside the link, they are looked for there, in that file's tree.

    ``label``: the JSON file as its errors name it (as the user gave it; ``json_path``
    without one).
    """
    anchors = {f"{json_path.name}-bin", f"{json_path.name}-freqs-bin"}
    named = json_path if label is None else label
    found = _located(named, json_path.parent, filename, anchors, anywhere)
    if found is not None or not json_path.is_symlink():
        return found
    target = Path(os.path.realpath(json_path))
    if target.parent == Path(os.path.realpath(json_path.parent)):
        return None  # a link within its own folder: the same place, looked at already
    anchors = {f"{target.name}-bin", f"{target.name}-freqs-bin"}
    return _located(named, target.parent, filename, anchors, anywhere)


def resolve_side_file_in(
    json_dir: Path, filename: str, *, anywhere: bool | None = None
) -> Path | None:
    """:func:`resolve_side_file` for a JSON file known only by its directory (NVIDIA's
    ``SubBenchmarkResult(bench, json_dir)``): without the legacy rule, which needs the
    JSON file's name."""
    return _located(None, json_dir, filename, set(), anywhere)


def _located(
    label: Path | str | None,
    json_dir: Path,
    filename: str,
    anchors: set[str],
    anywhere: bool | None,
) -> Path | None:
    """The first candidate of :func:`_candidates` that is a file. Unless ``anywhere``, a
    candidate is checked for lying inside the tree (links resolved) *before* it is looked
    at, and one outside is never looked at: whether it exists must not change the answer,
    which a result file from a pull request could otherwise use to probe the machine (and
    publish in the report). Nothing found inside, and the recorded path itself leading out
    (absolute, ``..``, a link): refused. The last rule (the JSON's parent directory) only
    ever finds a file inside when the path names the JSON's own directory; outside, it is
    passed over, so a side file simply missing stays "missing" whatever lies next door."""
    everywhere = anywhere_by_default() if anywhere is None else anywhere
    if "\0" in filename:
        raise _no_path(label, json_dir, filename, "it holds a NUL character")
    outside = False
    try:
        for candidate, own in _candidates(json_dir, filename, anchors):
            if not everywhere and not contained(json_dir, candidate):
                outside = outside or own
                continue
            if candidate.is_file():
                return candidate
    except OSError as error:
        # A name the system refuses as a path (one too long, ENAMETOOLONG) names no file
        # of this run; like a path leading out, it is not read (not an error of the run).
        raise _no_path(label, json_dir, filename, error.strerror or str(error)) from error
    if outside:
        raise _refuse(label, json_dir, filename)
    return None


def side_file_directory(
    json_path: Path, filename: str, *, anywhere: bool | None = None
) -> Path | None:
    """Where :func:`resolve_side_file` found no file for ``filename`` because a directory
    (or another thing that is no regular file: a FIFO, a socket, a device) stands there:
    the first such candidate, in its order and within its limits (inside the JSON file's
    tree unless ``anywhere``), so that a message says what is there and not "not found".
    ``None`` when there is none (or the name is no usable path)."""
    everywhere = anywhere_by_default() if anywhere is None else anywhere
    anchors = {f"{json_path.name}-bin", f"{json_path.name}-freqs-bin"}
    if "\0" in filename:
        return None
    try:
        for candidate, _ in _candidates(json_path.parent, filename, anchors):
            # Inside the tree first: nothing outside is looked at unless asked.
            inside = everywhere or contained(json_path.parent, candidate)
            # A directory, FIFO, socket or device: there, but no regular file.
            if inside and candidate.exists() and not candidate.is_file():
                return candidate
    except OSError:
        return None
    return None


def shown_name(filename: str) -> str:
    """A recorded side-file name as a message shows it: at most 80 characters of it."""
    if len(filename) <= 80:
        return filename
    return f"{filename[:80]}... ({len(filename)} characters)"


def _no_path(
    json_file: Path | str | None, json_dir: Path, filename: str, why: str
) -> UnusableSideFileNameError:
    # At most 80 characters of the name: one too long for the system may be thousands.
    return UnusableSideFileNameError(
        _subject(json_file, json_dir, shown_name(filename)), f"is no usable path ({why}); not read"
    )


def _candidates(json_dir: Path, filename: str, anchors: set[str]) -> list[tuple[Path, bool]]:
    """Where a recorded side file may be, in :func:`resolve_side_file`'s order, each with
    whether the recorded path leads there itself (not the parent-directory rule)."""
    recorded = Path(filename)
    parts = recorded.parts
    # The legacy rule re-anchors a ``<json name>-bin`` component at the JSON's directory,
    # for an absolute path too: an artifact moved with its side files finds them there.
    anchored = [json_dir.joinpath(*parts[i:]) for i, part in enumerate(parts) if part in anchors]
    if recorded.is_absolute():
        return [(recorded, True), *((path, True) for path in anchored)]
    return [
        (json_dir / recorded, True),
        *((path, True) for path in anchored),
        (json_dir.parent / recorded, False),
    ]


def load_float32(
    path: str | os.PathLike[str], expected: int, *, label: str | None = None
) -> Float32Array | None:
    """Read a side file of ``expected`` little-endian float32 values.

    An empty file is "no data" (``None``), as NVBench writes empty files for ``--profile``
    frequency side files. A file of any other wrong size, or one that cannot be read, is
    an error naming the file: as ``label`` (the path as the user would spell it,
    :meth:`~._source._Source.shown`), else ``path``.
    """
    name = os.fspath(path) if label is None else label
    # One open and one read straight into the array, at the level of file descriptors: a
    # comparison reads thousands of these small files, and a stat by name, numpy's own
    # open or a file object cost more than the read. Checks and messages are those of a
    # stat followed by a read.
    try:
        # Without blocking: a FIFO reports size 0, "no data", as a stat did.
        descriptor = open_nonblocking(os.fspath(path), os.O_RDONLY)
    except OSError as error:
        try:
            actual_bytes = os.path.getsize(path)
        except OSError as stat_error:
            message = f"cannot read side file: {stat_error.strerror}"
            raise SideFileError(name, message) from stat_error
        if not _checked_size(name, actual_bytes, expected):
            return None
        raise SideFileError(name, f"cannot read side file: {_reason(error)}") from error
    try:
        # A count from the JSON is not trusted with memory: the file's real size is checked
        # before a buffer that large is made (10**10 recorded values would otherwise be a
        # MemoryError, 2**63 - 1 a ValueError).
        if expected > _TRUSTED_COUNT and not _checked_size(
            name, os.fstat(descriptor).st_size, expected
        ):
            return None
        # Room for one value more than recorded: a read that stops at exactly the recorded
        # size has met the end of a file of the right size, without a stat.
        buffer = np.empty(max(expected, 0) + 1, dtype="<f4")
        view = buffer.data.cast("B")
        wanted = 4 * expected
        filled = os.readv(descriptor, [view])
        if filled != wanted or filled == 0:
            # Empty, the wrong size, or a short read: decide by the file's size.
            if not _checked_size(name, os.fstat(descriptor).st_size, expected):
                return None
            while filled < wanted:
                count = os.readv(descriptor, [view[filled:wanted]])
                if not count:
                    break
                filled += count
    except OSError as error:
        raise SideFileError(name, f"cannot read side file: {_reason(error)}") from error
    finally:
        os.close(descriptor)
    values = buffer[: min(filled, wanted) // 4]  # shorter only if the file shrank meanwhile
    # A big-endian host would otherwise carry a non-native dtype into every computation.
    return values.astype(np.float32, copy=False)


#: Recorded counts up to this are allocated before the file's size is known (the fast path
#: of small files); larger ones are checked against the file's size first.
_TRUSTED_COUNT = 1 << 20


def _reason(error: OSError) -> str:
    """What the system says of ``error``, without the path it names (the message names the
    file as the user would spell it)."""
    return error.strerror or str(error)


def _checked_size(path: str | os.PathLike[str], actual_bytes: int, expected: int) -> bool:
    """``False`` for an empty file; raises :class:`SideFileError` for one that does not hold
    ``expected`` float32 values."""
    if actual_bytes == 0:
        return False
    if actual_bytes != 4 * expected:
        raise SideFileError(
            str(path),
            f"side file holds {actual_bytes} bytes, expected {4 * expected} "
            f"({expected} float32 values as recorded in the JSON)",
        )
    return True
