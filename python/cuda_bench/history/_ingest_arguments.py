"""The arguments of a library ingest (:func:`.archive.ingest` and its kin), checked for what
they are before any file is read: each problem is one TypeError or ValueError naming the
parameter.

The command line's values are text and integers by construction (argparse), so only a
library caller meets these; without them a float ``order`` was stored truncated (and
passed the one-place-per-commit check first), a NaN or ``True`` failed deep in pyarrow, and
a commit or tag that is not text failed with an AttributeError.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._argument_checks import whole_number
from ._run_checks import ArchiveError, check_labels

__all__ = ["LIBRARY_LABELS", "check_run_labels", "checked_ingest_arguments"]

#: How a library ingest names the labels in :func:`._run_checks.check_labels`' refusals.
LIBRARY_LABELS = ("commit", "branch", "tags")


def _text(value: object, parameter: str, what: str) -> str:
    """``value``, refused unless it is text."""
    if not isinstance(value, str):
        raise TypeError(f"{parameter} must be text ({what}), got {value!r}")
    return value


def _optional_text(value: object, parameter: str, what: str) -> str | None:
    return None if value is None else _text(value, parameter, what)


def _checked_tags(tags: object) -> dict[str, str]:
    if tags is None:
        return {}
    if not isinstance(tags, Mapping):
        raise TypeError(
            f"tags must be a mapping of text to text ({{'driver': '580.65'}}), got {tags!r}"
        )
    for key, value in tags.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"tags: each key must be non-empty text, got {key!r}")
        if not isinstance(value, str):
            raise TypeError(f"tags[{key!r}] must be text, got {value!r}")
    return dict(tags)


def checked_ingest_arguments(
    commit: object,
    date: object,
    order: object,
    branch: object,
    tags: object,
    samples: object,
) -> tuple[int | None, dict[str, str], int]:
    """Refuse arguments of an ingest that are not what they must be (module docstring);
    the ``order`` (``None`` or an int), the ``tags`` (a dict) and the ``samples`` (an int).

    The command line's own refusals keep their option names: a value it can give (a
    control character in a label, an order beyond int64) is worded as before.
    """
    label = _text(commit, "commit", "the benchmarked code's commit")
    _optional_text(date, "date", "an ISO 8601 date")
    named = _optional_text(branch, "branch", "the runs' branch")
    labels = _checked_tags(tags)
    count = whole_number(samples, "samples must be an int (the samples stored per state)")
    if count < 0:
        raise ArchiveError(f"samples must be at least 0 (0: summaries only), got {count}")
    place = None
    if order is not None:
        place = whole_number(
            order, "order must be an int (the commit's place in first-parent order)"
        )
        if place < 0:
            raise ArchiveError(
                f"order {place} is no first-parent position (git rev-list --count "
                "--first-parent counts from 0); nothing written"
            )
    check_labels(label, named, labels, LIBRARY_LABELS)
    return place, labels, count


def check_run_labels(commit: object, date: object) -> None:
    """Refuse a ``commit`` or ``date`` of :func:`.archive.check_new_run` that is not text,
    and a commit holding a control character (:func:`._run_checks.check_labels`)."""
    label = _text(commit, "commit", "the benchmarked code's commit")
    _optional_text(date, "date", "an ISO 8601 date")
    check_labels(label, None, {}, LIBRARY_LABELS)
