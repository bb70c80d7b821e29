"""Small frozen views of a result's parts: devices, metadata, summaries, axes and a
state's axis values; each stands for one record of :mod:`._schema`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _schema as s
from ._frozen_dict import FrozenDict
from ._values import SummaryValue

__all__ = [
    "AxisValueInfo",
    "BenchmarkAxis",
    "BenchmarkResultDevice",
    "BenchmarkResultSummary",
    "ResultMeta",
    "StateAxisValue",
]


class _ItemAccess:
    """``obj["field"]`` for frozen dataclasses whose upstream counterparts were dicts."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)


def _read_only(data: Mapping[str, Any]) -> FrozenDict[str, Any]:
    """``data`` as a read-only dict of its own (:mod:`._frozen_dict`)."""
    return FrozenDict(data)


@dataclass(frozen=True, slots=True)
class BenchmarkResultDevice:
    """A CUDA device of the run: ``id``, ``name`` and every recorded field in ``data``
    (read-only, a copy of the mapping given)."""

    id: int
    name: str
    data: Mapping[str, Any] = field(repr=False, compare=True)

    def __post_init__(self) -> None:
        # The reader's own read-only dicts are taken as they are (one for every summary).
        if type(self.data) is not FrozenDict:
            object.__setattr__(self, "data", _read_only(self.data))

    def __reduce__(self) -> tuple[Callable[..., BenchmarkResultDevice], tuple[Any, ...]]:
        # Pickled by the contents, in a plain dict.
        return self.__class__, (self.id, self.name, dict(self.data))

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True, slots=True)
class ResultMeta:
    """``meta`` of a result file: the command line and the versions that wrote it."""

    argv: tuple[str, ...] = ()
    json_version: str | None = None
    nvbench_version: str | None = None
    git_branch: str | None = None
    git_sha: str | None = None
    git_version: str | None = None
    git_is_dirty: bool | None = None


@dataclass(frozen=True, slots=True)
class BenchmarkResultSummary:
    """One summary of a state: metadata plus ``data`` (value name → typed value; read-only,
    a copy of the mapping given)."""

    tag: str
    name: str | None
    hint: str | None
    hide: str | bool | None
    description: str | None
    data: Mapping[str, SummaryValue]

    def __post_init__(self) -> None:
        # The reader's own read-only dicts are taken as they are (one for every summary).
        if type(self.data) is not FrozenDict:
            object.__setattr__(self, "data", _read_only(self.data))

    def __reduce__(self) -> tuple[Callable[..., BenchmarkResultSummary], tuple[Any, ...]]:
        # Pickled by the contents, in a plain dict.
        fields = (self.tag, self.name, self.hint, self.hide, self.description)
        return self.__class__, (*fields, dict(self.data))

    @property
    def value(self) -> SummaryValue:
        """The entry named ``value`` (NVBench's measurements have exactly that one)."""
        return self.data.get("value")

    @property
    def is_hidden(self) -> bool:
        """NVBench hides a summary from tables when the ``hide`` key is present at all
        (its text is a reason, maybe empty); a boolean ``hide`` says it outright."""
        return self.hide is not None and self.hide is not False

    def __getitem__(self, key: str) -> SummaryValue:
        return self.data[key]

    def get(self, key: str, default: SummaryValue = None) -> SummaryValue:
        return self.data.get(key, default)


@dataclass(frozen=True, slots=True)
class AxisValueInfo(_ItemAccess):
    """One declared value of an axis (``axes[].values[]``)."""

    input_string: str
    description: str
    value: SummaryValue
    is_active: bool = True


@dataclass(frozen=True, slots=True)
class BenchmarkAxis(_ItemAccess):
    """An axis declared by a benchmark (``axes[]``)."""

    name: str
    type: str
    flags: str
    values: tuple[AxisValueInfo, ...]

    @property
    def is_pow2(self) -> bool:
        return self.flags == "pow2"

    @property
    def key(self) -> str:
        """Name with flags as NVBench's ``--axis`` writes it, e.g. ``Elements[pow2]``."""
        return f"{self.name}[{self.flags}]" if self.flags else self.name


@dataclass(frozen=True, slots=True)
class StateAxisValue(_ItemAccess):
    """One axis value of a state: ``value`` is the stored text, ``typed`` the Python value."""

    name: str
    type: str
    value: str
    typed: SummaryValue
    flags: str = ""
    axis_type: str = ""

    @property
    def is_pow2(self) -> bool:
        return self.flags == "pow2"

    @property
    def input_string(self) -> str:
        """The value as NVBench's CLI takes it: exponent for pow2, ``%.5g`` for floats."""
        typed = self.typed
        if self.flags == "pow2" and isinstance(typed, int) and typed > 0:
            return str(typed.bit_length() - 1)
        if isinstance(typed, float):
            return f"{typed:.5g}"
        return self.value

    def __reduce__(self) -> tuple[Callable[..., StateAxisValue], tuple[Any, ...]]:
        # Rows computed in another process come back pickled with their axis values: the
        # constructor and the fields pickle faster than a slotted dataclass's default
        # state.
        return self.__class__, (
            self.name,
            self.type,
            self.value,
            self.typed,
            self.flags,
            self.axis_type,
        )


def _optional(value: Any) -> Any:
    return None if value is s.UNSET else value


def _text(value: int | float | None) -> str:
    if value is None:
        return ""
    from ._values import format_raw

    return format_raw(value)


def shortened(text: str, limit: int = 60, *, keep_end: bool = False) -> str:
    """``repr(text)`` for a ``repr`` of a view, kept short: a text longer than ``limit``
    shows its first ``limit`` characters (its last, with ``keep_end``: a path's file name)
    and its length, so a view of a name of megabytes prints in a line."""
    if len(text) <= limit:
        return repr(text)
    if keep_end:
        return f"...{text[-limit:]!r} ({len(text)} characters)"
    return f"{text[:limit]!r}... ({len(text)} characters)"
