"""The run order an ingest may give a commit (``--order``): checks that write nothing.

Series follow ``--order`` (the commit's place in first-parent order) when every run has
one, else the runs' dates (the readers warn when some runs have one and some not). So an
archive whose runs all have an order takes no run without one (one such run switched every
series to date order for good: the archive is append-only), and one whose runs have none
takes no run with one (it would change no series, and make every reader warn). An archive
already mixed takes either. Within one branch a place belongs to one commit and a commit
has one place; either mix-up would reorder the series by the runs' dates, silently (a CI
that passes a constant, a count that restarted, or a rebuild of an old commit given
tonight's count). A second run of one commit shares its place; each branch has its own
first-parent order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._numbers import INT64_MAX
from ._run_checks import ArchiveError

__all__ = ["check_order", "check_order_range"]


def check_order_range(order: int) -> None:
    """Refuse a negative order, which is no first-parent position (the readers leave a run
    of one out: :mod:`._run_rows`; the command line's ``--order`` takes none), and one the
    archive's int64 column cannot hold (an OverflowError, with a traceback, when the run's
    table was built)."""
    if order < 0:
        raise ArchiveError(
            f"--order {order} is no first-parent position (git rev-list --count "
            "--first-parent counts from 0); nothing written"
        )
    if order > INT64_MAX:
        raise ArchiveError(
            f"--order {order} is beyond the archive's int64 order (at most {INT64_MAX}); "
            "nothing written"
        )


def _check_order_given(connection: Any, path: Path, order: int | None) -> None:
    """Refuse a run without ``order`` into an archive whose runs all have one, and one with
    ``order`` into an archive whose runs have none (module docstring)."""
    total, ordered = connection.execute('SELECT count(*), count("order") FROM runs').fetchone()
    if not total:
        return
    if order is None and ordered == total:
        raise ArchiveError(
            f"{path}: the archive's runs all carry --order (their commit's place in "
            "first-parent order) and this run has none: give it --order (git rev-list "
            "--count --first-parent HEAD); without it every series would follow the runs' "
            "dates from now on; nothing written"
        )
    if order is not None and not ordered:
        raise ArchiveError(
            f"{path}: --order {order}, but none of the archive's runs carries --order, so its "
            "series follow the runs' dates (--order orders them only when every run has "
            "one): ingest without --order, or start a new archive to order by commit; "
            "nothing written"
        )


def check_order(
    connection: Any, path: Path, order: int | None, commit: str, branch: str | None
) -> None:
    """Refuse ``order`` (``None``: no ``--order``) where the archive's runs are otherwise
    (all with an order, or all without), and for ``commit`` on ``branch`` when another
    commit of the branch holds it, or when the commit already holds another place on the
    branch (module docstring); ``connection``: :func:`~.archive.query` of the archive."""
    _check_order_given(connection, path, order)
    if order is None:
        return
    where = f" on branch {branch!r}" if branch is not None else ""
    holder = connection.execute(
        'SELECT commit FROM runs WHERE "order" = ? AND commit <> ? '
        "AND branch IS NOT DISTINCT FROM ? ORDER BY date LIMIT 1",
        [order, commit, branch],
    ).fetchone()
    if holder is not None:
        raise ArchiveError(
            f"{path}: --order {order} already belongs to commit {holder[0]!r}{where}; each commit "
            "needs its own place in the order (git rev-list --count --first-parent); "
            "nothing written"
        )
    held = connection.execute(
        'SELECT "order" FROM runs WHERE commit = ? AND "order" <> ? '
        "AND branch IS NOT DISTINCT FROM ? ORDER BY date LIMIT 1",
        [commit, order, branch],
    ).fetchone()
    if held is not None:
        raise ArchiveError(
            f"{path}: commit {commit!r} already has --order {held[0]}{where}, not {order}; a "
            "commit has one place in the order (git rev-list --count --first-parent); "
            "nothing written"
        )
