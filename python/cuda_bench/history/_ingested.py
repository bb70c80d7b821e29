"""What one ingest did (:class:`Ingested`), as :func:`.archive.ingest` returns it."""

from __future__ import annotations

import msgspec

__all__ = ["Ingested"]


class Ingested(msgspec.Struct, frozen=True):
    """What one ingest did: the run's content hash, partition and whether it was new."""

    run: str
    machine: str
    month: str
    states: int
    added: bool
    #: States that record a sample-times side file which is missing or empty: archived
    #: from their summaries, without a median interval (and without samples).
    missing_samples: int = 0
    #: Benchmarks of the run that hold no state (``"states": null`` or empty), in file
    #: order: the run is archived without them.
    without_states: tuple[str, ...] = ()
    #: One line per side file that exists but holds values the comparison does not use
    #: (zero, negative, NaN, infinite), or whose summary records it with 0 values: its state
    #: is archived without its samples.
    unusable_side_files: tuple[str, ...] = ()
    #: States whose samples were stored (0 when none were asked for, or the run has no
    #: usable side file: a run written without NVBench's ``--jsonbin``).
    sampled_states: int = 0
