"""Write NVBench result documents: the JSON file and its ``--jsonbin`` side files.

The JSON text is what ``json.dumps(to_builtins(doc), indent=2, ensure_ascii=False) + "\\n"``
gives (spec §2.1), produced through msgspec's encoder because Python's indenting encoder is
pure Python and an order of magnitude slower on large documents. The two differ only in
how they spell some native floats (msgspec writes ``1e-7`` and ``0.00001`` where Python writes
``1e-07`` and ``1e-05``), so such floats are spliced in pre-encoded with Python's spelling.
Non-finite native floats become ``null``, as NVBench writes them (§2.2).

Side files follow §7: ``<base>-bin/<k>.bin`` for sample times and ``<base>-freqs-bin/<k>.bin``
for SM clocks, raw little-endian float32, with separate counters in state order, referenced by
summaries placed right after the state's cold (or CPU-only) summaries (§5.3.6).

Writes are all-or-nothing as far as the file system allows: side files go to fresh temporary
directories and the JSON to a temporary file; nothing visible changes until everything has
been produced, then the directories and the file are renamed into place. Readers never see a
partially written JSON file. The input document is never modified.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import msgspec
import numpy as np
import numpy.typing as npt

from ._errors import check_flag, check_path
from ._schema import SETTING_FIELDS, Benchmark, Datum, Document, State, Summary

__all__ = [
    "FREQS_FILE_TAG",
    "SIDE_FILE_TAG_PREFIXES",
    "BulkProvider",
    "encode_document",
    "sample_freqs_file_summary",
    "sample_times_file_summary",
    "write_document",
]

#: ``(benchmark index, state index) -> (sample times | None, frequencies | None)``. Called
#: once per state in document order, so it may load lazily.
BulkProvider = Callable[[int, int], tuple[npt.ArrayLike | None, npt.ArrayLike | None]]

#: Tags of the summaries that reference side files (§7.4).
TIMES_FILE_TAG_PREFIX = "nv/json/bin:"
FREQS_FILE_TAG = "nv/json/freqs-bin:nv/cold/sample_freqs"
SIDE_FILE_TAG_PREFIXES = (TIMES_FILE_TAG_PREFIX, "nv/json/freqs-bin:")

_COLD_TIMES_TAG = "nv/json/bin:nv/cold/sample_times"
_CPU_ONLY_TIMES_TAG = "nv/json/bin:nv/cpu_only/sample_times"
_NOT_NEEDED = "Not needed in table."


def _file_data(filename: str, size: int) -> list[Datum]:
    return [
        Datum(name="filename", type="string", value=filename),
        Datum(name="size", type="int64", value=str(size)),
    ]


def sample_times_file_summary(filename: str, size: int, *, cpu_only: bool = False) -> Summary:
    """The summary referencing a sample-times side file (§7.4; §5.3.1 row 28, §5.3.3 row 15)."""
    return Summary(
        tag=_CPU_ONLY_TIMES_TAG if cpu_only else _COLD_TIMES_TAG,
        name="Sample Times File",
        description="Binary file containing sample times as little-endian float32.",
        hint="file/sample_times",
        hide=_NOT_NEEDED,
        data=_file_data(filename, size),
    )


def sample_freqs_file_summary(filename: str, size: int) -> Summary:
    """The summary referencing an SM-clock side file (§7.4; §5.3.1 row 29)."""
    return Summary(
        tag=FREQS_FILE_TAG,
        name="Sample Frequencies File",
        description="Binary file containing sample frequencies as little-endian float32.",
        hint="file/sample_freqs",
        hide=_NOT_NEEDED,
        data=_file_data(filename, size),
    )


# ---------------------------------------------------------------------------------------------
# JSON text


@dataclass
class _FloatSpelling:
    """Per-call cache of Python's spelling of the native floats msgspec spells differently."""

    cache: dict[float, Any] = field(default_factory=dict)

    def fix(self, value: Any) -> Any:
        if type(value) is not float or not math.isfinite(value):
            return value
        # -0.0 == 0.0 as a dict key, so a cached 0.0 would come back for -0.0; zeros are
        # spelled alike by both encoders anyway and need no fixing.
        if value == 0.0:
            return value
        try:
            return self.cache[value]
        except KeyError:
            pass
        python = float.__repr__(value).encode()
        fixed = value if msgspec.json.encode(value) == python else msgspec.Raw(python)
        self.cache[value] = fixed
        return fixed

    def struct(self, record: Any, names: tuple[str, ...]) -> Any:
        """``record`` with the floats of the named fields respelled (copied only if needed)."""
        changes = {}
        for name in names:
            value = getattr(record, name, None)
            fixed = self.fix(value)
            if fixed is not value:
                changes[name] = fixed
        return msgspec.structs.replace(record, **changes) if changes else record

    def deep(self, value: Any) -> Any:
        """Respell every float anywhere inside ``value``; unchanged parts are shared."""
        if type(value) is float:
            return self.fix(value)
        if isinstance(value, msgspec.Struct):
            changes = {}
            for name in value.__struct_fields__:
                item = getattr(value, name)
                fixed = self.deep(item)
                if fixed is not item:
                    changes[name] = fixed
            return msgspec.structs.replace(value, **changes) if changes else value
        if isinstance(value, list):
            items = [self.deep(item) for item in value]
            changed = any(new is not old for new, old in zip(items, value, strict=True))
            return items if changed else value
        if isinstance(value, dict):
            entries = {key: self.deep(item) for key, item in value.items()}
            changed = any(entries[key] is not item for key, item in value.items())
            return entries if changed else value
        return value


def _fix_summaries(spelling: _FloatSpelling, summaries: list[Summary] | None) -> Any:
    # The bulk of a document: only data values can be native floats (pre-2021 files), so
    # only they are looked at.
    if not summaries:
        return summaries
    result: list[Summary] | None = None
    for position, summary in enumerate(summaries):
        data = summary.data
        if not isinstance(data, list):
            continue
        fixed_data = [spelling.struct(d, ("value",)) for d in data]
        if any(new is not old for new, old in zip(fixed_data, data, strict=True)):
            if result is None:
                result = list(summaries)
            result[position] = msgspec.structs.replace(summary, data=fixed_data)
    return summaries if result is None else result


def _fix_state(spelling: _FloatSpelling, state: Any) -> Any:
    if not isinstance(state, State):
        return spelling.deep(state)  # legacy map layout: small, walk it all
    fixed = spelling.struct(state, SETTING_FIELDS)
    changes: dict[str, Any] = {}
    axis_values = spelling.deep(state.axis_values)
    if axis_values is not state.axis_values:
        changes["axis_values"] = axis_values
    summaries = _fix_summaries(spelling, state.summaries)
    if summaries is not state.summaries:
        changes["summaries"] = summaries
    return msgspec.structs.replace(fixed, **changes) if changes else fixed


def _fix_benchmark(spelling: _FloatSpelling, benchmark: Benchmark) -> Benchmark:
    fixed = spelling.struct(benchmark, SETTING_FIELDS)
    changes: dict[str, Any] = {}
    axes = spelling.deep(benchmark.axes)
    if axes is not benchmark.axes:
        changes["axes"] = axes
    original = benchmark.states
    if isinstance(original, list):
        listed = [_fix_state(spelling, s) for s in original]
        if any(new is not old for new, old in zip(listed, original, strict=True)):
            changes["states"] = listed
    elif isinstance(original, dict):
        keyed = {name: _fix_state(spelling, s) for name, s in original.items()}
        if any(keyed[name] is not s for name, s in original.items()):
            changes["states"] = keyed
    return cast(Benchmark, msgspec.structs.replace(fixed, **changes)) if changes else fixed


def _with_python_float_spelling(document: Document) -> Document:
    spelling = _FloatSpelling()
    changes: dict[str, Any] = {}
    for name in ("meta", "devices"):
        value = getattr(document, name)
        fixed = spelling.deep(value)
        if fixed is not value:
            changes[name] = fixed
    if document.benchmarks:
        benchmarks = [_fix_benchmark(spelling, b) for b in document.benchmarks]
        if any(new is not old for new, old in zip(benchmarks, document.benchmarks, strict=True)):
            changes["benchmarks"] = benchmarks
    return msgspec.structs.replace(document, **changes) if changes else document


def encode_document(document: Document) -> bytes:
    """The JSON text of ``document`` exactly as NVBench lays it out (§2.1), as UTF-8 bytes."""
    compact = msgspec.json.encode(_with_python_float_spelling(document))
    return msgspec.json.format(compact, indent=2) + b"\n"


# ---------------------------------------------------------------------------------------------
# Side files


def _is_side_file_summary(summary: Summary) -> bool:
    return summary.tag.startswith(SIDE_FILE_TAG_PREFIXES)


def _is_cpu_only(benchmark: Benchmark, summaries: list[Summary]) -> bool:
    for summary in summaries:
        if summary.tag.startswith("nv/cpu_only/") or summary.tag == _CPU_ONLY_TIMES_TAG:
            return True
        if summary.tag.startswith("nv/cold/") or summary.tag == _COLD_TIMES_TAG:
            return False
    return not benchmark.devices


def _insert_position(kept: list[Summary], removed_at: int | None) -> int:
    """Where side-file summaries go: after the cold/CPU-only rows (§5.3.6)."""
    last = None
    for index, summary in enumerate(kept):
        if summary.tag.startswith(("nv/cold/", "nv/cpu_only/")):
            last = index
    if last is not None:
        return last + 1
    if removed_at is not None:
        return removed_at
    for index, summary in enumerate(kept):
        if summary.tag.startswith("nv/batch/"):
            return index
    return len(kept)


def _float32_samples(values: npt.ArrayLike, what: str, where: str) -> npt.NDArray[np.float32]:
    data = np.asarray(values)
    if data.ndim != 1:
        raise ValueError(f"{what} of {where} must be 1-D, got shape {data.shape}")
    return np.ascontiguousarray(data, dtype="<f4")


@dataclass
class _SideFiles:
    """Temporary side-file directories being filled, with their counters."""

    directory: Path
    base: str
    token: str
    created: dict[str, Path] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)

    def final(self, suffix: str) -> Path:
        return self.directory / f"{self.base}{suffix}"

    def write(self, suffix: str, values: npt.NDArray[np.float32]) -> str:
        """Write the next ``<k>.bin`` of ``<base><suffix>``; returns the JSON-relative name."""
        temporary = self.created.get(suffix)
        if temporary is None:
            temporary = self.directory / f".{self.base}{suffix}.tmp-{self.token}"
            os.mkdir(temporary)
            self.created[suffix] = temporary
        number = self.counters.get(suffix, 0)
        self.counters[suffix] = number + 1
        values.tofile(temporary / f"{number}.bin")
        # Always "/" so the JSON reads the same on every platform (§7.4).
        return f"{self.base}{suffix}/{number}.bin"

    def discard(self) -> None:
        for temporary in self.created.values():
            shutil.rmtree(temporary, ignore_errors=True)
        self.created.clear()

    def commit(self) -> None:
        """Swap each filled temporary directory into place, dropping the previous one."""
        for suffix, temporary in list(self.created.items()):
            final = self.final(suffix)
            retired = None
            if os.path.lexists(final):
                retired = self.directory / f".{self.base}{suffix}.old-{self.token}"
                os.rename(final, retired)
            try:
                os.rename(temporary, final)
            except BaseException:
                if retired is not None:
                    os.rename(retired, final)
                raise
            del self.created[suffix]
            if retired is not None:
                shutil.rmtree(retired, ignore_errors=True)


_TIMES_SUFFIX = "-bin"
_FREQS_SUFFIX = "-freqs-bin"


def _attach_side_files(
    document: Document, bulk: BulkProvider | None, files: _SideFiles | None
) -> Document:
    """A copy of ``document`` whose side-file summaries match the files written to ``files``.

    Old side-file summaries are always removed; new ones are added only when ``files`` and
    ``bulk`` are given and the state has samples.
    """
    benchmarks: list[Benchmark] = []
    changed_any = False
    for bench_index, benchmark in enumerate(document.benchmarks or []):
        if not isinstance(benchmark.states, list):
            benchmarks.append(benchmark)  # legacy map layout: no side files exist there
            continue
        states: list[State] = []
        changed = False
        for state_index, state in enumerate(benchmark.states):
            new_state = _state_with_side_files(
                benchmark, bench_index, state_index, state, bulk, files
            )
            changed = changed or new_state is not state
            states.append(new_state)
        if changed:
            changed_any = True
            benchmarks.append(msgspec.structs.replace(benchmark, states=states))
        else:
            benchmarks.append(benchmark)
    if not changed_any:
        return document
    return msgspec.structs.replace(document, benchmarks=benchmarks)


def _state_with_side_files(
    benchmark: Benchmark,
    bench_index: int,
    state_index: int,
    state: State,
    bulk: BulkProvider | None,
    files: _SideFiles | None,
) -> State:
    summaries = state.summaries
    if summaries is None:
        # Nothing was recorded (typically skipped before measuring): no samples to write.
        return state
    kept: list[Summary] = []
    removed_at = None
    for summary in summaries:
        if _is_side_file_summary(summary):
            if removed_at is None:
                removed_at = len(kept)
        else:
            kept.append(summary)
    added: list[Summary] = []
    if files is not None and bulk is not None:
        times, freqs = bulk(bench_index, state_index)
        where = f"benchmark {benchmark.name!r} state {state.name!r}"
        cpu_only = _is_cpu_only(benchmark, summaries)
        if times is not None:
            times32 = _float32_samples(times, "sample times", where)
            freqs32 = None if freqs is None else _float32_samples(freqs, "frequencies", where)
            if cpu_only and freqs32 is not None:
                raise ValueError(f"{where} is CPU-only and cannot have SM clock samples")
            if freqs32 is not None and freqs32.size not in (0, times32.size):
                raise ValueError(f"{where}: {freqs32.size} frequencies for {times32.size} times")
            # NVBench writes side files only for measurements with at least one sample.
            if times32.size:
                name = files.write(_TIMES_SUFFIX, times32)
                added.append(sample_times_file_summary(name, times32.size, cpu_only=cpu_only))
                if freqs32 is not None:
                    name = files.write(_FREQS_SUFFIX, freqs32)
                    added.append(sample_freqs_file_summary(name, freqs32.size))
        elif freqs is not None:
            raise ValueError(f"{where}: frequencies without sample times")
    if removed_at is None and not added:
        return state
    position = _insert_position(kept, removed_at)
    new_summaries = kept[:position] + added + kept[position:]
    return msgspec.structs.replace(state, summaries=new_summaries or None)


# ---------------------------------------------------------------------------------------------
# Writing


def _write_new_file(path: Path, payload: bytes) -> None:
    # O_EXCL on a fresh random name, mode 0o666 so the umask applies as for any new file.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(payload)


def write_document(
    path: str | os.PathLike[str],
    document: Document,
    bulk: BulkProvider | None = None,
    *,
    jsonbin: bool = True,
) -> Document:
    """Write ``document`` to ``path`` as NVBench JSON, with side files when ``jsonbin``.

    ``bulk(benchmark_index, state_index)`` returns the state's sample times (seconds) and SM
    clock frequencies (Hz, cold GPU states only), either possibly ``None``; it is called once
    per state that has summaries, in document order. Existing side-file summaries in
    ``document`` are replaced by ones for the files written now, or dropped when ``jsonbin``
    is false or ``bulk`` is ``None``. Missing parent directories are created. A ``path``
    that names a directory (an existing one, or one ending in a separator) is refused.

    Returns the document as written (``document`` itself is not modified). On any error no
    new file or directory is left behind (directories this call created are removed again)
    and existing ones are unchanged.
    """
    check_path(path, "path")
    check_flag(jsonbin, "jsonbin")
    target = Path(path)
    directory = target.parent
    base = target.name
    if not base:
        raise ValueError(f"not a file path: {path!r}")
    if _names_a_directory(os.fspath(path)):
        # Path() drops a trailing separator: "out/sub/" would become a file named "sub".
        raise ValueError(f"path {os.fspath(path)!r} names a directory; give the file's name")
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a directory")
    created = _missing_directories(directory)
    token = secrets.token_hex(6)
    files = _SideFiles(directory, base, token) if jsonbin and bulk is not None else None
    temporary = directory / f".{base}.tmp-{token}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if files is not None:
            for suffix in (_TIMES_SUFFIX, _FREQS_SUFFIX):
                final = files.final(suffix)
                if os.path.lexists(final) and not final.is_dir():
                    raise NotADirectoryError(f"side-file directory {final} exists and is not one")
        written = _attach_side_files(document, bulk, files)
        _write_new_file(temporary, encode_document(written))
        if files is not None:
            files.commit()
        os.replace(temporary, target)
    except BaseException:
        if files is not None:
            files.discard()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        for made in reversed(created):  # deepest first; only ones this call made
            with contextlib.suppress(OSError):
                os.rmdir(made)
        raise
    return written


def _names_a_directory(text: str) -> bool:
    """Whether ``text`` ends in a separator or a ``.``/``..`` component (a directory)."""
    separators = os.sep + (os.altsep or "")
    last = text.rstrip(separators)
    if last != text:
        return True
    for separator in separators:
        last = last.rpartition(separator)[2]
    return last in (".", "..")


def _missing_directories(directory: Path) -> list[Path]:
    """``directory`` and those of its parents that do not exist yet, outermost first."""
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    return missing[::-1]
