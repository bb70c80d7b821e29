"""Run dates read back from the archive as microseconds, not as DuckDB's date objects.

The archive stores a run's date as a UTC timestamp (``TIMESTAMP WITH TIME ZONE``). DuckDB
before 2.0 hands such a value to Python only through ``pytz``, which neither this package nor
DuckDB installs: without it every command that read a date failed ("Required module 'pytz'
failed to import", measured with DuckDB 1.0.0 to 1.4.2, 2026-11-29), and the ``history``
extra allows DuckDB 1.0. DuckDB also gives the date in the reader's own time zone, so a date
near year 9999 read east of UTC came back as text. So the queries ask for ``epoch_us(date)``
(:data:`DATE_MICROS`) and this module makes the UTC datetime: the same on every DuckDB and in
every time zone.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

__all__ = ["DATE_MICROS", "date_problem", "run_date"]

#: The SQL of a run's date as whole microseconds since 1970-01-01 UTC (``{column}``: the
#: column, as the query names it).
DATE_MICROS: Final = "epoch_us({column})"

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def run_date(micros: object) -> dt.datetime | None:
    """The UTC datetime of ``micros`` (:data:`DATE_MICROS`); ``None`` for a missing date
    and for one Python cannot hold (before year 1 or after 9999: an ingest before
    2026-11-28 stored such dates)."""
    if not isinstance(micros, int) or isinstance(micros, bool):
        return None
    try:
        return _EPOCH + dt.timedelta(microseconds=micros)
    except OverflowError:
        return None


def date_problem(micros: object) -> str:
    """Why :func:`run_date` gives no date for ``micros``, in a few words."""
    if not isinstance(micros, int) or isinstance(micros, bool):
        return "missing"
    return "after year 9999" if micros > 0 else "before year 1"
