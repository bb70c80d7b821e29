"""Whether a comparison sets a run against itself: a compare run that is one of the
reference runs (the same file, a link to it, or a copy: the same measurements, as
:mod:`._identity` tells them, so a copy with CRLF line ends or re-indented is one too).
Every state then shows no change whatever the builds did.

The same file (or a link to it) costs a few ``stat`` calls. A copy is told by the files'
digests (each file parsed once more, :mod:`._identity`, imported only then), which a
caller asks for only where it has cause: ``nvbench_compare`` where every decided row has
one center on both sides (a run compared with itself always does; two separate runs rarely
do), and always for several runs a side and for paired rounds, where the runs are few.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._tools_api import BenchmarkResult

__all__ = ["one_run_on_both_sides", "runs_on_both_sides", "same_run_warning"]


def one_run_on_both_sides(
    ref: Sequence[BenchmarkResult | str | os.PathLike[str]],
    cmp: Sequence[BenchmarkResult | str | os.PathLike[str]],
    *,
    copies: bool = True,
) -> tuple[str, str, bool] | None:
    """The first of :func:`runs_on_both_sides`, or ``None``."""
    found = runs_on_both_sides(ref, cmp, copies=copies)
    return found[0] if found else None


def runs_on_both_sides(
    ref: Sequence[BenchmarkResult | str | os.PathLike[str]],
    cmp: Sequence[BenchmarkResult | str | os.PathLike[str]],
    *,
    copies: bool = True,
) -> list[tuple[str, str, bool]]:
    """``(compare run, reference run, same_file)`` for each compare run that is one of the
    reference runs (its first such), each named as given (a result by its label).
    ``same_file``: one file (the same name, or a link to it); else a copy, looked for only
    with ``copies`` (the caller's cheap evidence may rule copies out). Runs are results
    read from files or paths of files; a result built in memory, and a path that cannot be
    read, are passed over. A copy is told by the digest of each file (each parsed once
    more), asked only for files of one size or, for results, whose first measured states
    agree; a path not read yet is always digested."""
    named = [[_named(run) for run in side] for side in (ref, cmp)]
    digests: dict[str, str | None] = {}
    found: list[tuple[str, str, bool]] = []
    for compared_name, compared_path, compared in named[1]:
        for reference_name, reference_path, reference in named[0]:
            if compared_path is None or reference_path is None:
                continue
            try:
                same_file = os.path.samefile(reference_path, compared_path)
                same_size = os.stat(reference_path).st_size == os.stat(compared_path).st_size
            except OSError:
                continue
            if not same_file:
                if not copies:
                    continue
                alike = same_size or _first_measured(reference) == _first_measured(compared)
                if not alike:
                    continue
                first, second = (_digest(path, digests) for path in (reference_path, compared_path))
                if first is None or first != second:
                    continue
            found.append((compared_name, reference_name, same_file))
            break
    return found


def same_run_warning(found: tuple[str, str, bool]) -> str:
    """The warning line a comparison gives for a finding of :func:`runs_on_both_sides`."""
    compared, reference, same_file = found
    relation = "the same file as" if same_file else "a copy of"
    return (
        f"compare run {compared} is {relation} reference run {reference} (the same "
        "measurements): a run compared with itself shows no change; compare separate runs"
    )


def _named(
    run: BenchmarkResult | str | os.PathLike[str],
) -> tuple[str, str | None, BenchmarkResult | str]:
    if isinstance(run, str | os.PathLike):
        path = os.fspath(run)
        return path, path, path
    if run.path is None:
        return run.label or "", None, run
    path = os.fspath(run.path)
    return run.label or path, path, run


def _first_measured(run: BenchmarkResult | str) -> Any:
    """The first measured state's name and summary values; ``None`` for a path not read
    yet (which is digested, :func:`_digest`) and for a run that measured nothing."""
    if isinstance(run, str):
        return None
    for state in run.states():
        if not state.is_skipped:
            return state.name(), [(tag, state.get_value(tag)) for tag in state.tags]
    return None


def _digest(path: str, digests: dict[str, str | None]) -> str | None:
    if path not in digests:
        from ._identity import file_digest

        digests[path] = file_digest(path)
    return digests[path]
