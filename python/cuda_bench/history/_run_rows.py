"""Run rows of the archive that break what ingest requires of a run's labels.

No ingest writes them (it refuses such a run); a hand edit of a ``runs`` file, or another
writer, can. :func:`create_runs_view` makes the archive's ``runs`` view (:func:`.archive.query`)
without them, so that every reader (series, gate, report, the ingest's own order checks)
sees the same runs, and says so in one warning line per problem (:class:`ArchiveRowWarning`),
naming the archive, how many runs and the first files, as the readers do for state rows
(:mod:`.series`):

* a run without a commit (null, empty or blank): ingest requires ``--commit``; read, every
  series labelled the run's point "None" (``detect --since None`` found it). Left out.
* a negative ``order``: ``order`` is the commit's first-parent position (``git rev-list
  --count --first-parent``), never negative (ingest refuses one since 2026-11-28, and the
  library's :func:`.archive.ingest` since 2026-11-29); read, the run was every series' first
  run. Left out.
* an ``order`` that two or more commits of one branch hold (ingest refuses a second commit
  at a place since 2026-11-28): which of them holds it is unknown, and an archive a CI gave
  one constant ``--order`` before then holds every run at one place, so the runs are kept
  and ordered by their dates among themselves, as before; one warning names the place and
  its files. Only where every run has an order: otherwise the series follow the dates.
* a commit of one branch at two or more orders (ingest refuses a commit's second place
  since 2026-11-28: a rebuild of an old commit given tonight's count, say): which place is
  its own is unknown, so its runs are kept at the places they were given, and the commit
  is at each of them in the series; one warning names the commit, its places and their
  files. Only where every run has an order, as above.

What is no "extreme" order: the readers only compare orders (the sort key of every series,
the ingest's equality checks), never compute with them, so every value of the int64 column
from 0 up sorts where it says, and a first-parent count has no ceiling to hold a value
against. A file whose ``order`` is not an int64 column (a float, text, an unsigned value
beyond int64) is a file of another writer: it is left out with a warning naming it
(:mod:`._archive_files`), before its rows are read.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

from ._names import short_commit

__all__ = ["ArchiveRowWarning", "create_runs_view"]


class ArchiveRowWarning(UserWarning):
    """Rows of the archive that a history command leaves out (their problem, where), or
    runs it cannot order as their ingest asked (some with ``--order``, some without; a
    place two commits hold; a commit at two places)."""


_T = TypeVar("_T")

#: Files a warning names before it says "and N more".
_SHOWN: Final = 3


def first_shown(items: Sequence[_T], say: Callable[[_T], str]) -> str:
    """The first few of ``items`` as ``say`` words each, and how many more there are: what
    an archive warning lists of the rows it names."""
    more = f" (and {len(items) - _SHOWN} more)" if len(items) > _SHOWN else ""
    return "; ".join(say(item) for item in items[:_SHOWN]) + more


def _without_commit(commit: object) -> bool:
    return not (isinstance(commit, str) and commit.strip())


def _negative(order: object) -> bool:
    return isinstance(order, int) and order < 0


#: Runs left out, by problem: (test of the row's (commit, order), the warning's words,
#: whether the file is shown with its order).
_LEFT_OUT: Final[Sequence[tuple[Callable[[object, object], bool], str, bool]]] = (
    (
        lambda commit, _: _without_commit(commit),
        "without a commit (ingest requires --commit, the commit of the benchmarked code)",
        False,
    ),
    (
        lambda _, order: _negative(order),
        "whose --order is negative (no first-parent position; ingest refuses one)",
        True,
    ),
)


def create_runs_view(
    connection: Any, archive: os.PathLike[str] | str, files: Mapping[str, str]
) -> None:
    """Create the view ``runs`` over the view ``all_runs`` of ``connection`` without the
    runs the module docstring leaves out, warning about them, about places of the order
    two commits hold and about commits at two places. ``files``: the file each run was read
    from (warnings name it)."""
    columns = {row[0] for row in connection.execute("DESCRIBE all_runs").fetchall()}
    if "commit" not in columns:  # an archive of no readable run file: an empty view
        connection.execute("CREATE VIEW runs AS SELECT * FROM all_runs")
        return
    order = '"order"' if "order" in columns else "NULL"
    branch = "branch" if "branch" in columns else "NULL"
    rows = connection.execute(
        f"SELECT run, commit, {order}, {branch} FROM all_runs ORDER BY run"
    ).fetchall()
    where = os.fspath(archive)
    left_out: set[str] = set()
    for test, problem, with_order in _LEFT_OUT:
        found = [row for row in rows if row[0] not in left_out and test(row[1], row[2])]
        if not found:
            continue
        left_out.update(str(row[0]) for row in found)
        shown = first_shown(found, functools.partial(_shown_run, files, with_order))
        warnings.warn(
            ArchiveRowWarning(f"{where}: left out {len(found)} run(s) {problem}: {shown}"),
            stacklevel=3,
        )
    kept = [row for row in rows if row[0] not in left_out]
    # Where a run has no order the series follow the dates, whatever the orders say.
    if kept and all(row[2] is not None for row in kept):
        _warn_shared_places(where, kept, files)
        _warn_commit_places(where, kept, files)
    if not left_out:
        connection.execute("CREATE VIEW runs AS SELECT * FROM all_runs")
        return
    listed = ", ".join("'" + run.replace("'", "''") + "'" for run in sorted(left_out))
    connection.execute(
        f"CREATE VIEW runs AS SELECT * FROM all_runs WHERE run IS NULL OR run NOT IN ({listed})"
    )


def _shown_run(files: Mapping[str, str], with_order: bool, row: tuple[Any, ...]) -> str:
    """A run row as a warning names it: its file, and its order where that is the problem."""
    return _file_of(files, row[0]) + (f" (--order {row[2]})" if with_order else "")


def _file_of(files: Mapping[str, str], run: object) -> str:
    """The file a warning names for ``run``: the one it was read from, else its id."""
    return files.get(str(run), f"run {str(run)[:16]}")


def _warn_shared_places(
    where: str, rows: Sequence[tuple[Any, ...]], files: Mapping[str, str]
) -> None:
    """One warning for the places of the order (``order`` on one branch) that runs of two
    or more commits hold (module docstring); ``rows``: every run's, each with an order."""
    places: dict[tuple[Any, Any], dict[str, list[str]]] = {}
    for run, commit, order, branch in rows:
        held = places.setdefault((order, branch), {})
        held.setdefault(str(commit), []).append(_file_of(files, run))
    shared = [(place, held) for place, held in places.items() if len(held) > 1]
    if not shared:
        return
    shared.sort(key=lambda item: (str(item[0][1]), item[0][0]))
    (order, branch), held = shared[0]
    on = "" if branch is None else f" on branch {branch!r}"
    shown = first_shown(list(held.items()), lambda item: f"{short_commit(item[0])} ({item[1][0]})")
    more = f"; and {len(shared) - 1} more such place(s)" if len(shared) > 1 else ""
    warnings.warn(
        ArchiveRowWarning(
            f"{where}: --order {order}{on} is held by {len(held)} commits, which ingest "
            f"refuses (a place belongs to one commit): {shown}{more}; their runs "
            "are ordered by their dates"
        ),
        stacklevel=4,
    )


def _warn_commit_places(
    where: str, rows: Sequence[tuple[Any, ...]], files: Mapping[str, str]
) -> None:
    """One warning for the commits of a branch whose runs hold two or more places of the
    order (module docstring); ``rows``: every run's, each with an order."""
    commits: dict[tuple[str, Any], dict[Any, list[str]]] = {}
    for run, commit, order, branch in rows:
        held = commits.setdefault((str(commit), branch), {})
        held.setdefault(order, []).append(_file_of(files, run))
    twice = sorted(
        (item for item in commits.items() if len(item[1]) > 1),
        key=lambda item: (str(item[0][1]), min(item[1]), item[0][0]),
    )
    if not twice:
        return
    (commit, branch), held = twice[0]
    on = "" if branch is None else f" on branch {branch!r}"
    places = sorted(held)
    listed = ", ".join(str(order) for order in places[:-1]) + f" and {places[-1]}"
    shown = first_shown(places, lambda order: f"--order {order} ({held[order][0]})")
    more = f"; and {len(twice) - 1} more such commit(s)" if len(twice) > 1 else ""
    warnings.warn(
        ArchiveRowWarning(
            f"{where}: commit {short_commit(commit)}{on} is at --order {listed}, which ingest "
            f"refuses (a commit has one place): {shown}{more}; its runs are kept at the "
            "places they were given, so the series show the commit at each"
        ),
        stacklevel=4,
    )
