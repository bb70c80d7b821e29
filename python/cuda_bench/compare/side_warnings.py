"""Warnings about side files that go unread, folded per JSON file and problem.

A run copied without its ``--jsonbin`` directories (or with them outside the JSON file's
directory tree, which is refused) would otherwise give one warning per state and file:
2,000 lines for a 1,000-state pair. Each such warning is a :class:`SideFileWarning`, a
string that also carries the JSON file, the problem and the recorded name, so that the
collector folds them (:func:`fold_warnings`) without reading the text back: per JSON file,
problem and folder (a run's sample-time and SM-clock files lie in folders of their own), a
warning alone in its group keeps its detailed line; a larger group becomes one line with
the count and the first and last names. A state name listed many times in one run is folded likewise
(:class:`~.warning_tags.RepeatedStateWarning`): one line per state with the count.
"""

from __future__ import annotations

import enum
import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from .warning_tags import FrozenText, RepeatedStateWarning

if TYPE_CHECKING:
    from ..results._tools_api import SubBenchmarkState

__all__ = ["SideFileProblem", "SideFileWarning", "fold_warnings", "side_file_warning"]


class SideFileProblem(enum.Enum):
    """Why a recorded side file is not read; the value is what a group of several such
    files says after their count (the line names the first and last files before it)."""

    MISSING = "side files are missing; their states use their summaries"
    OUTSIDE = (
        "side files lead outside the JSON file's directory tree and are not read; their "
        "states use their summaries (--side-files-anywhere, or side_files_anywhere=True, "
        "reads side files kept elsewhere)"
    )
    EMPTY = "side files are empty; their states use their summaries"
    DIRECTORY = "side files are directories, not files; their states use their summaries"
    NOT_REGULAR = "side files are not regular files; their states use their summaries"
    BAD_COUNT = (
        "side files are recorded with no values or a negative count; their states use their "
        "summaries"
    )
    NO_PATH = "side files are no usable paths; not read; their states use their summaries"


class SideFileWarning(FrozenText):
    """One warning line (the string itself) about one side file of ``source``.

    A string, so that every warning sink and list takes it as it is; immutable like the
    string. ``source`` names the JSON file that records ``name`` (as given by the user);
    ``name`` is the side file as the line names it (the recorded name resolved against the
    JSON file's folder as given, :meth:`~cuda.bench.results._source._Source.recorded`).
    """

    source: str
    problem: SideFileProblem
    name: str

    def __new__(
        cls, text: str, *, source: str, problem: SideFileProblem, name: str
    ) -> SideFileWarning:
        self = super().__new__(cls, text)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "problem", problem)
        object.__setattr__(self, "name", name)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # The split comparison pickles its rows' warnings back from child processes.
        return (
            _rebuild,
            (str(self), self.source, self.problem, self.name),
        )


def side_file_warning(
    text: str, state: SubBenchmarkState, problem: SideFileProblem, name: str
) -> str:
    """``text``, about the side file ``name`` of ``state``, as a :class:`SideFileWarning`
    that the collector folds with the same problem's warnings about the same JSON file;
    plain where the result has no file name."""
    source = state.benchmark.source.label
    if source is None:
        return text
    return SideFileWarning(text, source=source, problem=problem, name=name)


def _rebuild(text: str, source: str, problem: SideFileProblem, name: str) -> SideFileWarning:
    return SideFileWarning(text, source=source, problem=problem, name=name)


def _names(first: str, last: str) -> str:
    """``a/0.bin ... 19.bin``: the last name without the folder it shares with the first
    (a group's names share their folder: :func:`_fold_key`)."""
    return first if first == last else f"{first} ... {posixpath.basename(last)}"


def fold_warnings(messages: Iterable[str]) -> list[str]:
    """``messages`` with the side-file warnings of each (JSON file, problem) as one line,
    and the :class:`~.warning_tags.RepeatedStateWarning` lines of each state as one.

    The line takes the place of the group's first warning; other messages keep their
    order. A warning alone in its group keeps its own, more detailed line.
    """
    items = list(messages)
    groups: dict[tuple[object, ...], list[str]] = {}
    for item in items:
        key = _fold_key(item)
        if key is not None:
            groups.setdefault(key, []).append(item)
    folded: list[str] = []
    for item in items:
        key = _fold_key(item)
        if key is None:
            folded.append(item)
            continue
        members = groups.pop(key, None)
        if members is None:
            continue  # told in its group's line already
        if len(members) == 1:
            # A state's own line keeps its side tag; a side file's is plain, as it was.
            folded.append(item if isinstance(item, RepeatedStateWarning) else str(item))
        elif isinstance(item, RepeatedStateWarning):
            folded.append(RepeatedStateWarning.folded(cast(list[RepeatedStateWarning], members)))
        else:
            folded.append(_side_files_line(cast(list[SideFileWarning], members)))
    return folded


def _fold_key(item: str) -> tuple[object, ...] | None:
    """What ``item`` folds with: the warnings of one group share it; ``None``: not folded."""
    if isinstance(item, SideFileWarning):
        # Per folder too: the line names the first and last file of its group, and a run's
        # sample-time files (X.json-bin) and SM-clock files (X.json-freqs-bin) missing
        # together read as one range of clock files, the missing sample times unsaid.
        return ("side file", item.source, item.problem, posixpath.dirname(item.name))
    if isinstance(item, RepeatedStateWarning):
        return ("repeated state", item.benchmark, item.side, item.state)
    return None


def _side_files_line(members: list[SideFileWarning]) -> str:
    """One line for the side-file warnings of one JSON file and problem, the files named
    as each of their lines names one: ``r/a.json-bin/0.bin ... 19.bin (recorded in
    r/a.json): 20 side files are missing; ...``."""
    from ..results._sidecar import named_side_file

    first = members[0]
    # States may record the same name (a hand-edited file): the first and last names.
    names = list(dict.fromkeys(member.name for member in members))
    side = named_side_file(_names(names[0], names[-1]), first.source)
    return f"{side}: {len(members)} {first.problem.value}"
