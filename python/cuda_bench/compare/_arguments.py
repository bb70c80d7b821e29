"""The arguments a comparison takes as the command line does, each checked once for every
library function that takes it (:func:`~.api.compare`, :func:`~.many.compare_many`,
:func:`~.variants.compare_variants`, the history's ``load_series`` and ``gate``).

Each problem is one TypeError (a value of the wrong kind) or ValueError (a
:class:`~.errors.CompareError`: a value of the right kind that names nothing) naming the
parameter. Without them ``filters="reduce"`` failed with "not enough values to unpack",
``ref_devices=0`` with "'int' object is not iterable", ``method=None`` with an
AttributeError deep in the engine, and ``jobs=1.5`` or ``jobs=nan`` were accepted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from .._argument_checks import whole_number
from ..results._errors import is_text_path
from ..results._tools_api import BenchmarkResult
from .errors import CompareError
from .filters import FilterPlan, parse_device_selection
from .methods import Method, get_method

if TYPE_CHECKING:
    from .filter_arguments import FilterItem

__all__ = [
    "DeviceSelection",
    "checked_jobs",
    "checked_method",
    "checked_path",
    "checked_run",
    "checked_source",
    "device_selection",
    "filter_plan",
    "run_list",
]

_Run = TypeVar("_Run")

#: ``"all"``, ``"0"``, ``"1,0"`` (as ``--reference-devices`` takes them) or device ids.
DeviceSelection = str | Sequence[int] | None

_FILTER_FORMS = (
    "a FilterPlan or a list of ('benchmark', NAME) and ('axis', SPEC) pairs in command-line "
    "order, e.g. [('benchmark', 'copy'), ('axis', 'T=F32')]"
)


def filter_plan(
    filters: FilterPlan | Sequence[FilterItem] | None, parameter: str = "filters"
) -> FilterPlan:
    """``filters`` as a plan: a :class:`~.filters.FilterPlan`, ``None`` (no filter) or
    ``-b``/``-a`` items in command-line order."""
    if isinstance(filters, FilterPlan):
        return filters
    if filters is None:
        return FilterPlan()
    if isinstance(filters, str | bytes | Mapping) or not isinstance(filters, Sequence):
        raise TypeError(f"{parameter} must be {_FILTER_FORMS}; got {filters!r}")
    for item in filters:
        if (
            isinstance(item, str)
            or not isinstance(item, Sequence)
            or len(item) != 2
            or not all(isinstance(part, str) for part in item)
        ):
            raise TypeError(f"{parameter}: each item must be a (kind, text) pair, got {item!r}")
    return FilterPlan.from_args([(kind, value) for kind, value in filters])


def device_selection(selection: object, parameter: str, option: str) -> tuple[int, ...] | None:
    """``selection`` as device ids in order (``None``: every device); text is read as the
    command line's ``option`` reads it, and names that option in its errors."""
    if selection is None:
        return None
    if isinstance(selection, str):
        return parse_device_selection(selection, option)
    # Any iterable of ids (a numpy array of them too), as the call took before it was
    # checked; a mapping or bytes is no list of ids.
    if isinstance(selection, bytes | Mapping) or not isinstance(selection, Iterable):
        raise TypeError(
            f"{parameter} must be 'all', a device id list as text ('1,0') or a sequence of "
            f"device ids; got {selection!r}"
        )
    try:
        given = list(selection)
    except TypeError:  # iterable by type, not by value (a numpy array of no dimension)
        raise TypeError(
            f"{parameter} must be 'all', a device id list as text ('1,0') or a sequence of "
            f"device ids; got {selection!r}"
        ) from None
    ids = []
    for device in given:
        number = whole_number(device, f"{parameter}: each device must be an int")
        if number < 0:
            raise CompareError(f"{parameter}: device ids are at least 0, got {device}")
        ids.append(number)
    return tuple(ids)


def checked_jobs(jobs: object) -> int | None:
    """``jobs`` (``None``: one process per available CPU, up to four), an int of at least
    1."""
    if jobs is None:
        return None
    number = whole_number(jobs, "jobs must be an int or None")
    if number < 1:
        raise CompareError(f"jobs must be at least 1, got {jobs}")
    return number


def checked_method(method: object) -> Method:
    """``method`` as a method: a name (``"ci"``) or an object with the methods'
    ``name``, ``description`` and ``decide``."""
    if isinstance(method, str):
        return get_method(method)
    if not isinstance(method, Method):
        raise TypeError(
            "method must be a method's name ('ci', 'robust', ...) or an object with name, "
            f"description and decide(row); got {method!r}"
        )
    return method


#: What one run may be, as the refusals say it (bytes are no path here: the readers refuse
#: them, so they are not named).
_RUN_FORMS = "a path (str or os.PathLike) or a loaded BenchmarkResult"


def checked_path(path: object, parameter: str, what: str) -> None:
    """A TypeError naming ``parameter`` unless ``path`` is a path (``what`` says of what);
    without it ``None`` reached pathlib, whose words named no parameter and listed bytes,
    which the readers refuse."""
    if not is_text_path(path):
        raise TypeError(f"{parameter} must be a path (str or os.PathLike) to {what}; got {path!r}")


def checked_run(run: object, parameter: str) -> None:
    """A TypeError naming ``parameter`` unless ``run`` is one run: a path or a loaded
    result."""
    if not (isinstance(run, BenchmarkResult) or is_text_path(run)):
        raise TypeError(f"{parameter} must be {_RUN_FORMS}; got {run!r}")


def checked_source(source: object, parameter: str) -> None:
    """A TypeError naming ``parameter`` (and the position, ``ref[2]``) unless ``source`` is
    what a comparison takes for one side: a run (:func:`checked_run`; a path may name a
    directory) or a list or tuple of them. Unchecked, ``[a, None]`` failed with an
    AttributeError deep in the check for repeated runs, and ``None`` alone with pathlib's
    words, or read as an empty result."""
    if isinstance(source, list | tuple):
        for index, item in enumerate(source):
            checked_run(item, f"{parameter}[{index}]")
    elif not (isinstance(source, BenchmarkResult) or is_text_path(source)):
        raise TypeError(
            f"{parameter} must be {_RUN_FORMS}, or a list of them (several runs); got {source!r}"
        )


def run_list(runs: Iterable[_Run], parameter: str, what: str) -> list[_Run]:
    """``runs``, a list of runs (files or loaded results), as a list; one run given alone
    is refused: its path, as text, was read as a list of one-character paths."""
    if isinstance(runs, str | bytes | os.PathLike | BenchmarkResult) or not isinstance(
        runs, Iterable
    ):
        raise TypeError(f"{parameter} must be a list of runs ({what}), got {runs!r}")
    return list(runs)
