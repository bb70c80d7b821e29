"""History of benchmark runs: change points with calibrated error rates.

Install the archive's packages with ``python -m pip install '.[history]'`` from the
nvbench-tools checkout's root (pyarrow and DuckDB); change-point detection itself needs only numpy.

* :func:`detect` over many :class:`RunSeries` (per-run medians, optionally per-run samples
  or median intervals): the calibrated scan of :mod:`.changepoint`, Benjamini-Hochberg
  control across series, the two-level bootstrap confirmation and events by commit
  (:mod:`.confirm`), as one :class:`Detection`, with the :class:`Candidate` changes too
  recent to confirm and the :class:`ConfirmedCreep` changes that took many runs
  (``docs/history-detection.md``);
* :func:`scan` for the scan alone over an ``(S, N)`` array of log medians;
* :mod:`.archive`: the append-only Parquet archive of runs (``ingest``), queried in process
  with DuckDB (``query``);
* :mod:`.synthetic` for histories with known change points.
"""

from __future__ import annotations

from .changepoint import Change, Creep, ScanConfig, SeriesScan, scan
from .confirm import ConfirmConfig
from .detect import detect
from .model import Candidate, ConfirmedChange, ConfirmedCreep, Detection, Event, RunSeries

__all__ = [
    "Candidate",
    "Change",
    "ConfirmConfig",
    "ConfirmedChange",
    "ConfirmedCreep",
    "Creep",
    "Detection",
    "Event",
    "RunSeries",
    "ScanConfig",
    "SeriesScan",
    "detect",
    "scan",
]
