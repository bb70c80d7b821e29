"""The NVBench JSON document as typed records (msgspec structs).

One schema serves both directions: the reader decodes files into these records and the
writer encodes them back. Field order is NVBench's key order (spec §3-§5), so encoding a
decoded document reproduces the file's layout. Keys that only some format generations
write default to ``UNSET`` and are omitted again on encoding, which keeps a round trip
lossless; arrays that NVBench writes as ``null`` when empty default to ``None`` and are
written as ``null``.

Structs are keyword-only so that required keys (``benchmarks``, ``states``) can sit at their
place in NVBench's key order. They are declared ``gc=False``: they only hold strings, numbers
and lists of other structs, so they can never form reference cycles, and skipping the cycle
collector makes decoding large files markedly faster.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

__all__ = [
    "SETTING_FIELDS",
    "UNSET",
    "AxisDef",
    "AxisValue",
    "AxisValueDef",
    "Benchmark",
    "Datum",
    "Document",
    "JsonVersion",
    "LegacyAxisDef",
    "LegacyState",
    "Meta",
    "MetaVersion",
    "NvbenchVersion",
    "RawValue",
    "Setting",
    "SlimSummary",
    "State",
    "Summary",
    "UnsetType",
]

#: A value as NVBench stores it: a string-encoded number (current files), a native number
#: (files before mid-2021) or ``null``.
RawValue = str | int | float | None

#: A run setting such as ``timeout``: a native number, or ``null`` for NaN/inf.
Setting = int | float | None | UnsetType

#: The run settings benchmarks and states record (spec §3.4), in key order.
SETTING_FIELDS = (
    "min_samples",
    "min_time",
    "max_noise",
    "cold_warmup_runs",
    "cold_max_warmup_walltime",
    "batch_target_time",
    "skip_time",
    "timeout",
)


class Datum(msgspec.Struct, gc=False, kw_only=True):
    """One ``data[]`` entry of a summary: ``{"name", "type", "value"}``."""

    name: str
    type: str
    value: RawValue = None


class Summary(msgspec.Struct, gc=False, kw_only=True):
    """One summary of a state (spec §5.1). Absent keys stay absent."""

    tag: str
    name: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    hint: str | UnsetType = UNSET
    # NVBench writes a string (the reason); some writers a JSON boolean (NVIDIA's reader
    # takes both).
    hide: str | bool | UnsetType = UNSET
    data: list[Datum] | UnsetType | None = UNSET


class AxisValue(msgspec.Struct, gc=False, kw_only=True):
    """One ``states[].axis_values[]`` entry (spec §4.2). Some writers name the value by its
    ``input_string`` instead (NVIDIA's reader takes that too)."""

    name: str
    type: str
    value: RawValue = None
    input_string: str | UnsetType = UNSET


class AxisValueDef(msgspec.Struct, gc=False, kw_only=True):
    """One ``axes[].values[]`` entry (spec §4.1). Type axes have ``is_active``, no ``value``."""

    input_string: str
    description: str | UnsetType = UNSET
    value: RawValue | UnsetType = UNSET
    is_active: bool | UnsetType = UNSET


class AxisDef(msgspec.Struct, gc=False, kw_only=True):
    """One ``benchmarks[].axes[]`` entry (spec §4.1)."""

    name: str
    type: str
    flags: str | UnsetType = UNSET
    values: list[AxisValueDef] | None = None


class State(msgspec.Struct, gc=False, kw_only=True):
    """One ``benchmarks[].states[]`` entry (spec §3.5)."""

    name: str
    min_samples: Setting = UNSET
    min_time: Setting = UNSET
    max_noise: Setting = UNSET
    cold_warmup_runs: Setting = UNSET
    cold_max_warmup_walltime: Setting = UNSET
    batch_target_time: Setting = UNSET
    skip_time: Setting = UNSET
    timeout: Setting = UNSET
    device: int | UnsetType | None = UNSET
    type_config_index: int | UnsetType | None = UNSET
    axis_values: list[AxisValue] | None = None
    summaries: list[Summary] | None = None
    is_skipped: bool = False
    skip_reason: str | UnsetType = UNSET


class LegacyAxisValue(msgspec.Struct, gc=False, kw_only=True):
    """An axis value of the unversioned map layout (spec §11.3)."""

    type: str
    value: RawValue = None


class LegacyState(msgspec.Struct, gc=False, kw_only=True):
    """A state of the unversioned, pre-2021-12-25 map layout (spec §11.3)."""

    device: int | UnsetType | None = UNSET
    type_config_index: int | UnsetType | None = UNSET
    min_samples: Setting = UNSET
    min_time: Setting = UNSET
    max_noise: Setting = UNSET
    skip_time: Setting = UNSET
    timeout: Setting = UNSET
    axis_values: dict[str, LegacyAxisValue] | None = None
    summaries: dict[str, dict[str, Any]] | None = None
    is_skipped: bool = False
    skip_reason: str | UnsetType = UNSET


class LegacyAxisDef(msgspec.Struct, gc=False, kw_only=True):
    """An axis of the unversioned map layout: the name is the key of the ``axes`` object."""

    type: str
    flags: str | UnsetType = UNSET
    values: list[AxisValueDef] | None = None


class Benchmark(msgspec.Struct, gc=False, kw_only=True):
    """One ``benchmarks[]`` entry (spec §3.4). ``states`` is required."""

    name: str
    index: int | UnsetType = UNSET
    min_samples: Setting = UNSET
    min_time: Setting = UNSET
    max_noise: Setting = UNSET
    cold_warmup_runs: Setting = UNSET
    cold_max_warmup_walltime: Setting = UNSET
    batch_target_time: Setting = UNSET
    skip_time: Setting = UNSET
    timeout: Setting = UNSET
    devices: list[int] | None = None
    axes: list[AxisDef] | dict[str, LegacyAxisDef] | None = None
    states: list[State] | dict[str, LegacyState] | None


class JsonVersion(msgspec.Struct, gc=False, kw_only=True):
    """``meta.version.json``: the file format version."""

    major: int | UnsetType = UNSET
    minor: int | UnsetType = UNSET
    patch: int | UnsetType = UNSET
    string: str | UnsetType = UNSET


class NvbenchVersion(msgspec.Struct, gc=False, kw_only=True):
    """``meta.version.nvbench``: the library that wrote the file."""

    major: int | UnsetType = UNSET
    minor: int | UnsetType = UNSET
    patch: int | UnsetType = UNSET
    string: str | UnsetType = UNSET
    git_branch: str | UnsetType = UNSET
    git_sha: str | UnsetType = UNSET
    git_version: str | UnsetType = UNSET
    git_is_dirty: bool | UnsetType = UNSET


class MetaVersion(msgspec.Struct, gc=False, kw_only=True):
    """``meta.version``."""

    json: JsonVersion | UnsetType = UNSET
    nvbench: NvbenchVersion | UnsetType = UNSET


class Meta(msgspec.Struct, gc=False, kw_only=True):
    """``meta`` (spec §3.2)."""

    argv: list[str] | UnsetType | None = UNSET
    version: MetaVersion | UnsetType = UNSET


class Document(msgspec.Struct, gc=False, kw_only=True):
    """A whole NVBench JSON document (spec §3.1). ``benchmarks`` is required."""

    meta: Meta | UnsetType = UNSET
    devices: list[dict[str, Any]] | UnsetType | None = UNSET
    benchmarks: list[Benchmark] | None


# -- what the reader decodes instead ----------------------------------------------------------
# A read mode changes how one field is decoded: a state's ``summaries`` (kept as raw JSON, or
# slim) or a benchmark's ``states`` (kept in the file). The reader derives those decoding
# types from the records above (``_parse.states_type``, ``_parse.document_type``); the one
# record of its own is the slim summary.


class SlimSummary(msgspec.Struct, gc=False, kw_only=True):
    """A summary without its names, hint and description: what a comparison reads (tags
    and values), cheaper to decode. Deliberately not a :class:`Summary`: code that
    reads the missing fields fails instead of taking them for absent."""

    tag: str
    data: tuple[Datum, ...] | UnsetType | None = UNSET
