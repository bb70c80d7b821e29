"""Lazy per-sample data of one side of a row: the ``--jsonbin`` side files behind
:class:`BulkData`, read only when a decision asks, validated, sorted once and cached.

Side files (compare.md §2). A side file that is not recorded, recorded with 0 values,
missing or empty is *unavailable*: decisions fall back to the summaries (0 sample times,
which NVBench never records, is told in a warning). One that exists but holds the wrong
number of values (a recorded count no file has included: 0 or fewer sample times, fewer
than 0 SM clocks, beyond int64, :class:`SideFile` ``broken_count``), or non-finite or
non-positive values, is *unusable*: the decision step that wanted it answers AMBG instead
of silently falling back. Either case is reported once through the ``warn`` callback, in
one line naming the file. As in NVIDIA's tool, when a state records different counts (each
one a file can have) for its sample times and its frequencies the two cannot be paired, and
both are treated as unavailable.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from .._lazy import numpy as np

from ..results._errors import UnusableSideFileNameError
from ..results._sidecar import anywhere_by_default, load_float32, shown_name
from ..results._tools_api import SideFileError, SubBenchmarkState
from .bulk import (
    CheckedValues,
    CyclesOverflow,
    OrderedValues,
    SortedSamples,
    UnusableBulkData,
    check_recorded_summaries,
    checked_frequencies,
    checked_values,
    cycle_products,
    ordered_cycles,
    ordered_times,
    recorded_count_text,
    sort_samples,
    unusable_samples_line,
)
from .side_warnings import SideFileProblem, side_file_warning

__all__ = ["NO_BULK", "BulkData", "BulkSource", "SideFile", "Warn"]

#: Receives one-line warnings (a side file that cannot be used, ...).
Warn = Callable[[str], None]


def _ignore(message: str) -> None:
    """Default warning sink of hand-built evidence (tests, synthetic data)."""


# ---------------------------------------------------------------------------------------------
# Bulk data


class BulkSource(Protocol):
    """Where one family of per-sample values comes from (a side file, or memory)."""

    @property
    def path(self) -> str | None:
        """The resolved file (reports name it); ``None`` when there is none."""

    @property
    def shown(self) -> str | None:
        """The file as the user would spell it: the JSON file's path as the user gave it,
        joined to the rest (``r/run.json-bin/0.bin``); ``None`` when there is none."""

    @property
    def named(self) -> str | None:
        """The file as warnings name it, with the JSON file that records it
        (``r/run.json-bin/0.bin (recorded in r/run.json)``); ``None`` when there is none."""

    def available(self) -> bool:
        """Values exist: recorded, found and non-empty (checked once, may warn)."""

    def load(self) -> npt.NDArray[Any]:
        """The raw values in sample order; raises :class:`UnusableBulkData`."""


class _ArraySource:
    """Values already in memory (tests, synthetic data, other adapters)."""

    __slots__ = ("_values",)

    def __init__(self, values: npt.ArrayLike) -> None:
        array = np.asarray(values)
        self._values = array if array.dtype == np.float32 else array.astype(np.float64)

    @property
    def path(self) -> str | None:
        return None

    @property
    def shown(self) -> str | None:
        return None

    @property
    def named(self) -> str | None:
        return None

    def available(self) -> bool:
        return self._values.size > 0

    def load(self) -> npt.NDArray[Any]:
        return self._values


class SideFile:
    """A ``--jsonbin`` side file recorded in a state: located once, read once.

    The results layer's resolver locates the recorded name (compare.md §2 order); the file
    is then read here with the recorded count, so that it is located and read once.
    """

    __slots__ = (
        "_broken",
        "_count",
        "_frequencies",
        "_recorded",
        "_refused",
        "_resolved",
        "_size",
        "_state",
        "_text",
        "_warn",
    )

    def __init__(
        self,
        state: SubBenchmarkState,
        recorded: str,
        count: object,
        *,
        frequencies: bool,
        warn: Warn,
        broken_count: bool = False,
    ) -> None:
        self._state = state
        self._recorded = recorded
        self._count = count
        #: The recorded count is one no file of values has (0 or fewer sample times, fewer
        #: than 0 clocks, beyond int64): the file is unavailable where it is missing or
        #: empty (the warning names the count), unusable where it holds values.
        self._broken = broken_count
        self._frequencies = frequencies
        self._warn = warn
        self._resolved = False
        #: The located file as text (what pathlib would print), ``None`` when not found.
        self._text: str | None = None
        #: The file's size when the lookup already had it, else ``None``.
        self._size: int | None = None
        #: Why the recorded file is not read although it exists: it lies outside the JSON
        #: file's directory tree (:func:`~cuda.bench.results._sidecar.resolve_side_file`).
        self._refused: SideFileError | None = None

    def _resolve(self) -> str | None:
        if not self._resolved:
            origin = self._state.benchmark.source
            source = origin.path
            if source is not None:
                found = _next_to(source, self._recorded, origin.anywhere)
                if found is not None:
                    self._text, self._size = found
                else:
                    # The results layer's resolver (compare.md §2 order, and only inside
                    # the JSON file's tree unless asked), given the recorded name directly:
                    # SubBenchmarkState.sample_file would look it up again.
                    try:
                        located = origin.side_file(self._recorded)
                    except SideFileError as error:
                        located, self._refused = None, error
                    self._text = None if located is None else str(located)
            self._resolved = True
        return self._text

    @property
    def path(self) -> str | None:
        return self._resolve()

    @property
    def shown(self) -> str | None:
        path = self._resolve()
        return None if path is None else self._state.benchmark.source.shown(path)

    @property
    def named(self) -> str | None:
        shown = self.shown
        return None if shown is None else self._state.benchmark.source.named(shown)

    def _where(self) -> str:
        what = "SM clock file" if self._frequencies else "sample time file"
        return f"{what} of {state_place(self._state)}"

    def available(self) -> bool:
        path = self._resolve()
        origin = self._state.benchmark.source
        if self._refused is not None:
            unusable = isinstance(self._refused, UnusableSideFileNameError)
            # The reader's line names the file as every line here does (:meth:`_tell`).
            self._tell(
                f"{self._refused}; {self._where()} uses its summaries",
                SideFileProblem.NO_PATH if unusable else SideFileProblem.OUTSIDE,
            )
            return False
        if path is None:
            folder = origin.side_directory(self._recorded)
            if folder is not None:
                # A FIFO, socket or device there is not read either (a FIFO would block).
                directory = folder.is_dir()
                what = "is a directory, not a file" if directory else "is not a regular file"
                self._tell(
                    f"{self._where()} {what}; using its summaries",
                    SideFileProblem.DIRECTORY if directory else SideFileProblem.NOT_REGULAR,
                    origin.shown(folder),
                )
                return False
            if self._broken:
                self._tell_count()
            else:
                text = f"{self._where()} not found; using its summaries"
                self._tell(text, SideFileProblem.MISSING)
            return False
        if self._size is not None:
            empty = self._size == 0
        else:
            try:
                empty = os.path.getsize(path) == 0
            except OSError:
                empty = True
        if empty and self._broken:
            self._tell_count()
        elif empty:
            self._tell(
                f"{self._where()} is empty; using its summaries", SideFileProblem.EMPTY, self.shown
            )
        return not empty

    def _tell_count(self) -> None:
        """The recorded count that no file of values has, where no file contradicts it."""
        text = f"{recorded_count_text(self._count)}; using its summaries"
        self._tell(text, SideFileProblem.BAD_COUNT)

    def _tell(self, text: str, problem: SideFileProblem, found: str | None = None) -> None:
        """Warn about this side file (:func:`.side_warnings.side_file_warning`): ``text``
        after the file as every side-file line names it, ``found`` (what stands where it
        was looked for, as the user would spell it), else the recorded name resolved
        against the JSON file's folder as given, and the JSON file that records it
        (``r/run.json-bin/0.bin (recorded in r/run.json): ...``). A refusal of the reader
        (:attr:`_refused`) names it so already."""
        origin = self._state.benchmark.source
        if self._refused is None:
            side = found if found is not None else origin.recorded(self._recorded)
            text = f"{origin.named(side)}: {text}"
        # A folded line names at most 80 characters of each name (one that is no path may
        # be thousands long).
        folded = found if found is not None else origin.recorded(shown_name(self._recorded))
        self._warn(side_file_warning(text, self._state, problem, folded))

    def load(self) -> npt.NDArray[Any]:
        path = self._resolve()
        if path is None:
            raise UnusableBulkData("not found")
        if self._broken:
            # The file holds values (available() said so) that its record cannot describe:
            # the wrong size, unusable as any other (compare.md 2).
            size = self._size
            if size is None:
                try:
                    size = os.path.getsize(path)
                except OSError as error:
                    raise UnusableBulkData(f"cannot read side file: {error.strerror}") from error
            problem = f"{recorded_count_text(self._count)}, but it holds {size} bytes"
            raise UnusableBulkData(problem)
        count = self._count
        if not isinstance(count, int):  # a broken record, handled above; for the type check
            raise UnusableBulkData(recorded_count_text(count))
        try:
            values = load_float32(path, count)
        except SideFileError as error:
            raise UnusableBulkData(error.problem) from error
        if values is None:
            raise UnusableBulkData("is empty")
        values.flags.writeable = False
        return values


def state_place(state: SubBenchmarkState) -> str:
    """``benchmark / state`` as the side-file warnings name a state."""
    return f"{state.benchmark.name} / {state.state_name or '(no axes)'}"


def _next_to(json_path: Path, recorded: str, anywhere: bool | None) -> tuple[str, int] | None:
    """``(path, size)`` of a side file found where current NVBench puts it, else ``None``.

    The first rule of :func:`~cuda.bench.results._sidecar.resolve_side_file` (relative to
    the JSON file's directory) with one ``stat`` on strings: a comparison looks up thousands
    of side files and pathlib costs more than the lookup. Only names whose joined text is
    exactly what pathlib would make take this path; ``None`` sends the caller to the full
    resolver, which tries this rule again and then the others (and refuses a file outside
    the JSON file's tree: a link there found here is left to it, unless ``anywhere``).
    """
    if os.sep != "/" or os.altsep is not None or recorded.startswith("/"):
        return None
    if "" in (parts := recorded.split("/")) or "." in parts or ".." in parts:
        return None  # pathlib would normalize these (or leave the JSON's tree): keep its text
    directory = os.path.dirname(str(json_path))
    candidate = directory + recorded if directory.endswith("/") else f"{directory}/{recorded}"
    inside_only = not (anywhere_by_default() if anywhere is None else anywhere)
    try:
        # Without "..", the file lies inside the JSON file's tree unless a link below the
        # directory leads out: lstat sees the file's own link, and each folder between is
        # checked (one for NVBench's layout) — cheaper than resolving the whole path.
        status = os.lstat(candidate) if inside_only else os.stat(candidate)
        if inside_only and any(
            stat.S_ISLNK(os.lstat(f"{directory}/{'/'.join(parts[: depth + 1])}").st_mode)
            for depth in range(len(parts) - 1)
        ):
            return None  # the full resolver follows the link and checks where it leads
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(status.st_mode):
        return None  # a link (inside_only) goes to the full resolver too
    return candidate, status.st_size


_NOT_LOADED: Any = object()


class BulkData:
    """Lazy per-sample data of one side: sample times, SM clock frequencies, cycles.

    Nothing is read at construction. :meth:`has_times` / :meth:`has_frequencies` tell
    whether the data are *available* (see the module docstring); :meth:`times` and
    :meth:`cycles` load, validate and sort on first use and return ``None`` when the data
    are unavailable or *unusable* (then one warning names the file). Results are cached.
    """

    __slots__ = (
        "_checked_frequencies",
        "_checked_times",
        "_cycle_values",
        "_cycles",
        "_frequencies",
        "_frequencies_ok",
        "_recorded_summaries",
        "_rejected",
        "_sorted_times",
        "_times",
        "_times_ok",
        "_warn",
    )

    def __init__(
        self,
        times: BulkSource | None = None,
        frequencies: BulkSource | None = None,
        *,
        warn: Warn | None = None,
        recorded_summaries: tuple[float | None, float | None, float | None] = (None, None, None),
    ) -> None:
        self._times = times
        self._frequencies = frequencies
        # The state's recorded min, max and mean time, which its sample times must match.
        self._recorded_summaries = recorded_summaries
        self._warn: Warn = _ignore if warn is None else warn
        self._rejected: str | None = None
        # Without a source every answer is known now: the caches start final and never
        # change, so that one empty instance (:data:`NO_BULK`) can serve every state.
        empty = times is None and frequencies is None
        self._times_ok: bool | None = False if empty else None
        self._frequencies_ok: bool | None = False if empty else None
        initial = None if empty else _NOT_LOADED
        self._checked_times: CheckedValues | None = initial
        self._sorted_times: SortedSamples | None = initial
        self._checked_frequencies: CheckedValues | None = initial
        self._cycle_values: CheckedValues | None = initial
        self._cycles: SortedSamples | None = initial

    @classmethod
    def from_arrays(
        cls,
        times: npt.ArrayLike | None = None,
        frequencies: npt.ArrayLike | None = None,
        *,
        warn: Warn | None = None,
    ) -> BulkData:
        """Bulk data held in memory; an empty or ``None`` array is unavailable."""
        return cls(
            None if times is None else _ArraySource(times),
            None if frequencies is None else _ArraySource(frequencies),
            warn=warn,
        )

    @property
    def sample_file(self) -> str | None:
        return None if self._times is None else self._times.path

    @property
    def frequency_file(self) -> str | None:
        return None if self._frequencies is None else self._frequencies.path

    def has_times(self) -> bool:
        """Sample times are available (they may still turn out unusable when loaded)."""
        if self._times_ok is None:
            self._times_ok = self._times is not None and self._times.available()
        return self._times_ok

    def has_frequencies(self) -> bool:
        """SM clock frequencies are available (they may still turn out unusable)."""
        if self._frequencies_ok is None:
            self._frequencies_ok = self._frequencies is not None and self._frequencies.available()
        return self._frequencies_ok

    @property
    def rejected(self) -> str | None:
        """Why a side file that exists was not used (the first problem found), or ``None``."""
        return self._rejected

    def _unusable(self, source: BulkSource | None, what: str, problem: str) -> None:
        named = None if source is None else source.named
        where = what if named is None else named
        if self._rejected is None:
            self._rejected = f"{what}: {problem}"
        self._warn(unusable_samples_line(where, problem))

    def _times_checked(self) -> CheckedValues | None:
        """The sample times loaded and validated, or ``None`` (one warning names the file
        when they exist but cannot be used)."""
        if self._checked_times is _NOT_LOADED:
            result: CheckedValues | None = None
            if self.has_times():
                assert self._times is not None  # has_times() says so
                try:
                    result = checked_values(self._times.load())
                    check_recorded_summaries(result, *self._recorded_summaries)
                except UnusableBulkData as error:
                    result = None
                    self._unusable(self._times, "sample times", str(error))
            self._checked_times = result
        return self._checked_times

    def times(self) -> SortedSamples | None:
        """Sample times sorted (float32), or ``None`` when unavailable or unusable."""
        if self._sorted_times is _NOT_LOADED:
            values = self.ordered_times()
            # Validated already: sorting a copy cannot fail.
            self._sorted_times = None if values is None else sort_samples(values)
        return self._sorted_times

    def cycle_values(self) -> npt.NDArray[Any] | None:
        """Cycles per sample (time x frequency, float64) in measurement order, or ``None``.

        ``None`` when times or frequencies are unavailable or unusable, or cannot be
        paired (one warning names the file). The arrays in measurement order stay cached
        with the evidence (the ``ci`` method needs them too); the engine releases them
        (:meth:`release`) once a row is decided.
        """
        checked = self._cycles_checked()
        return None if checked is None else checked.values

    def _cycles_checked(self) -> CheckedValues | None:
        if self._cycle_values is _NOT_LOADED:
            result: CheckedValues | None = None
            frequencies = self._paired_frequencies()
            times = self._times_checked()
            if frequencies is not None and times is not None:
                try:
                    # Checks the products: those of non-float32 factors may overflow.
                    result = cycle_products(times.values, frequencies.values)
                except CyclesOverflow as error:
                    self._unusable(self._times, "sample times", str(error))
                except UnusableBulkData as error:
                    self._unusable(self._frequencies, "SM clock frequencies", str(error))
            self._cycle_values = result
        return self._cycle_values

    def _paired_frequencies(self) -> CheckedValues | None:
        """Frequencies that pair with usable times (:func:`~.bulk.checked_frequencies`), or
        ``None`` (one warning names the file when they exist but cannot be used)."""
        if self._checked_frequencies is _NOT_LOADED:
            result: CheckedValues | None = None
            times = self._times_checked()
            if times is not None and self.has_frequencies():
                assert self._frequencies is not None  # has_frequencies() says so
                try:
                    result = checked_frequencies(times, self._frequencies.load())
                except UnusableBulkData as error:
                    self._unusable(self._frequencies, "SM clock frequencies", str(error))
            self._checked_frequencies = result
        return self._checked_frequencies

    def unsorted_times(self) -> OrderedValues | None:
        """The sample times for tests that need no sort (:func:`~.bulk.unsorted_coverage`),
        or ``None`` when :meth:`times` is ``None``."""
        checked = self._times_checked()
        return None if checked is None else ordered_times(checked, self._sort_times)

    def unsorted_cycles(self) -> OrderedValues | None:
        """The cycles for tests that need no sort, or ``None`` when :meth:`cycles` is ``None``.

        float32 factors (what side files hold) give float32 products without building the
        float64 ones: such products cannot overflow, so they are usable exactly when the
        factors are.
        """
        frequencies = self._paired_frequencies()
        if frequencies is None:
            return None
        times = self._times_checked()
        assert times is not None  # paired frequencies exist
        if times.values.dtype == np.float32 and frequencies.values.dtype == np.float32:
            return ordered_cycles(times, frequencies, self._sort_cycles)
        cycles = self._cycles_checked()
        return None if cycles is None else ordered_times(cycles, self._sort_cycles)

    def _sort_times(self) -> SortedSamples:
        times = self.times()
        assert times is not None  # only asked for once the times were validated
        return times

    def _sort_cycles(self) -> SortedSamples:
        cycles = self.cycles()
        assert cycles is not None  # only asked for once the cycles were validated
        return cycles

    def cycles(self) -> SortedSamples | None:
        """Cycles per sample sorted (see :meth:`cycle_values`), or ``None``."""
        if self._cycles is _NOT_LOADED:
            values = self.cycle_values()
            # A sorted copy: the measurement order stays with cycle_values().
            self._cycles = None if values is None else sort_samples(values)
        return self._cycles

    def ordered_times(self) -> npt.NDArray[Any] | None:
        """Sample times validated, in measurement order (unsorted, as stored), or ``None``
        when they are unavailable or unusable (then one warning names the file).

        What :meth:`times` sorts; what needs no order (the ``ci`` bootstrap, which sorts
        only near the median) or the measurement order (its drift check) takes them so.
        """
        checked = self._times_checked()
        return None if checked is None else checked.values

    def ordered_frequencies(self) -> npt.NDArray[Any] | None:
        """SM clock frequencies in measurement order, or ``None`` when :meth:`cycles` cannot
        be built."""
        if self.cycle_values() is None:
            return None
        frequencies = self._paired_frequencies()
        assert frequencies is not None  # the cycles were built from them
        return frequencies.values

    def release(self) -> None:
        """Drop every loaded array (they are read again if asked for).

        Evidence caches what a decision loaded so that the decision and the estimates of
        a row share one read and one sort; release it once the row is done when many
        rows stay alive.
        """
        if self._times is None and self._frequencies is None:
            return  # nothing was loaded, and the caches hold the final answers
        self._checked_times = _NOT_LOADED
        self._sorted_times = _NOT_LOADED
        self._checked_frequencies = _NOT_LOADED
        self._cycle_values = _NOT_LOADED
        self._cycles = _NOT_LOADED


#: The bulk data of a state without side files, shared: it never loads, warns or changes.
NO_BULK: Final = BulkData()
