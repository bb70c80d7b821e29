"""What a method decides one row from: :class:`RowEvidence`, made by :func:`row_evidence`.

Here rather than in the package's ``__init__`` (which re-exports both) because the methods'
own modules use them, and the package loads those modules by name: the imports of the
package run one way (python/test/test_layers.py).
"""

from __future__ import annotations

import msgspec

from ..estimates import estimates
from ..evidence import SideEvidence
from ..model import SideEstimate
from ..runs import side_runs
from ..thresholds import Thresholds

__all__ = ["RowEvidence", "row_evidence"]


class RowEvidence(msgspec.Struct, frozen=True):
    """What a method decides one row from.

    ``ref_estimate`` and ``cmp_estimate`` are :func:`~..estimates.estimates` of the two
    sides' primary runs (the sides themselves when they have one run each): the centers,
    noise and intervals the row also shows, computed once per row.
    """

    ref: SideEvidence
    cmp: SideEvidence
    thresholds: Thresholds
    ref_estimate: SideEstimate
    cmp_estimate: SideEstimate


def row_evidence(ref: SideEvidence, cmp: SideEvidence, thresholds: Thresholds) -> RowEvidence:
    """The :class:`RowEvidence` of ``ref`` against ``cmp``, its estimates computed here."""
    ref_estimate, cmp_estimate = estimates(side_runs(ref)[0], side_runs(cmp)[0])
    return RowEvidence(ref, cmp, thresholds, ref_estimate, cmp_estimate)
