"""Whether a comparison sets a run against itself: a compare run that is one of the
reference runs (the same file, a link to it, or a copy: the same measurements, as
:mod:`._identity` tells them). Every state then shows no change whatever the builds did.

Separate runs of one benchmark almost never have files of one size, so each pair costs a
``stat`` and only files of equal size are parsed and digested (:mod:`._identity`, imported
only then: a comparison of summaries loads no hashing machinery).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["one_run_on_both_sides"]


def one_run_on_both_sides(
    ref: Sequence[str | os.PathLike[str]], cmp: Sequence[str | os.PathLike[str]]
) -> tuple[str, str, bool] | None:
    """``(compare path, reference path, same_file)`` of the first compare file that is one
    of the reference files, named as given; ``None`` when there is none. ``same_file``:
    one file (the same name, or a link to it); else a copy. Paths that cannot be read are
    passed over (their reader's error)."""
    for compared in [os.fspath(path) for path in cmp]:
        for reference in [os.fspath(path) for path in ref]:
            try:
                same_file = os.path.samefile(reference, compared)
                same_size = os.stat(reference).st_size == os.stat(compared).st_size
            except OSError:
                continue
            if same_file or (same_size and _same_measurements(reference, compared)):
                return compared, reference, same_file
    return None


def _same_measurements(first: str, second: str) -> bool:
    from ._identity import repeated_run

    return repeated_run([first, second]) is not None
