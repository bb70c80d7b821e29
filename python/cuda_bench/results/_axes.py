"""Axis declarations of a :class:`~._builder.ResultBuilder` benchmark, as NVBench writes them.

One frozen class per axis kind: :class:`Int64Axis`, :class:`Pow2Axis` (declared by its
exponents), :class:`Float64Axis`, :class:`StringAxis` and :class:`TypeAxis` (of
:class:`TypeValue`). Each normalizes its values once and turns a value into what the
document holds for it: the axis definition (spec §4.1), a state's ``axis_values`` entry
(§4.2) and its token in the state name (§4.3).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import cast

import numpy as np

from .._numbers import INT64_MAX, INT64_MIN
from ._schema import AxisDef, AxisValue, AxisValueDef
from ._values import format_float64, format_int64

__all__ = [
    "Axis",
    "AxisInput",
    "Float64Axis",
    "Int64Axis",
    "Pow2Axis",
    "StringAxis",
    "TypeAxis",
    "TypeValue",
    "check_int64",
    "native_float",
]

#: A value of one axis as callers name it: int for int64 (the actual value, also for pow2
#: axes), float for float64, str for string axes and for type axes (the input string).
AxisInput = int | float | str


#: Built-in type-axis descriptions NVBench writes for its own type strings (§4.1).
_BUILTIN_TYPE_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "I8": "int8_t",
        "I16": "int16_t",
        "I32": "int32_t",
        "I64": "int64_t",
        "U8": "uint8_t",
        "U16": "uint16_t",
        "U32": "uint32_t",
        "U64": "uint64_t",
        "F32": "float",
        "F64": "double",
    }
)


def check_int64(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{what} must be an int, got {value!r}")
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        raise ValueError(f"{what} {number} does not fit in int64")
    return number


def _float_key(value: float) -> Hashable:
    # NaN never equals itself; give all NaNs one key so a NaN axis value can be found.
    return "nan" if math.isnan(value) else value


def _printf_g5(value: float) -> str:
    """C ``printf("%.5g")``, used by NVBench for float axis input strings and names."""
    return f"{value:.5g}"


def native_float(value: float) -> float | None:
    """A native JSON double as NVBench writes it: non-finite values become ``null`` (§2.2)."""
    number = float(value)
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class _Axis:
    name: str
    _positions: dict[Hashable, int] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    @property
    def kind(self) -> str:
        raise NotImplementedError

    @property
    def flags(self) -> str:
        return ""

    @property
    def size(self) -> int:
        raise NotImplementedError

    def index_of(self, value: AxisInput) -> int:
        raise NotImplementedError

    def value_at(self, index: int) -> AxisInput:
        raise NotImplementedError

    def value_def(self, index: int) -> AxisValueDef:
        raise NotImplementedError

    def state_value(self, index: int) -> AxisValue:
        raise NotImplementedError

    def name_token(self, index: int) -> str:
        raise NotImplementedError

    def definition(self) -> AxisDef:
        return AxisDef(
            name=self.name,
            type=self.kind,
            flags=self.flags,
            values=[self.value_def(i) for i in range(self.size)],
        )

    def _index(self, keys: Sequence[Hashable]) -> None:
        """Record each value's position; called once the values are normalized."""
        positions: dict[Hashable, int] = {}
        for index, key in enumerate(keys):
            if key in positions:
                raise ValueError(
                    f"axis {self.name!r} repeats the value {key!r}; states could not be told apart"
                )
            positions[key] = index
        if not positions:
            raise ValueError(f"axis {self.name!r} has no values")
        object.__setattr__(self, "_positions", positions)

    def _lookup(self, key: Hashable) -> int:
        try:
            return self._positions[key]
        except KeyError:
            raise ValueError(f"{key!r} is not a value of axis {self.name!r}") from None


@dataclass(frozen=True)
class Int64Axis(_Axis):
    """A plain int64 axis (``flags: ""``)."""

    values: Sequence[int]

    def __post_init__(self) -> None:
        values = tuple(check_int64(v, f"axis {self.name!r} value") for v in self.values)
        object.__setattr__(self, "values", values)
        self._index(values)

    @property
    def kind(self) -> str:
        return "int64"

    @property
    def size(self) -> int:
        return len(self.values)

    def index_of(self, value: AxisInput) -> int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"axis {self.name!r} takes int values, got {value!r}")
        return self._lookup(int(value))

    def value_at(self, index: int) -> AxisInput:
        return self.values[index]

    def value_def(self, index: int) -> AxisValueDef:
        value = self.values[index]
        return AxisValueDef(input_string=str(value), description="", value=value)

    def state_value(self, index: int) -> AxisValue:
        return AxisValue(name=self.name, type="int64", value=format_int64(self.values[index]))

    def name_token(self, index: int) -> str:
        return str(self.values[index])


@dataclass(frozen=True)
class Pow2Axis(_Axis):
    """A power-of-two int64 axis (``flags: "pow2"``), declared by its exponents like NVBench.

    States name the *actual* value (``2**e``), as ``axis_values`` and ``state.get_int64`` do.
    """

    exponents: Sequence[int]

    def __post_init__(self) -> None:
        exponents = tuple(check_int64(e, f"axis {self.name!r} exponent") for e in self.exponents)
        for exponent in exponents:
            # 2**63 does not fit in int64; NVBench's own range check allows it but overflows.
            if not 0 <= exponent <= 62:
                raise ValueError(f"pow2 exponent {exponent} of axis {self.name!r} not in 0..62")
        object.__setattr__(self, "exponents", exponents)
        self._index([1 << e for e in exponents])

    @property
    def kind(self) -> str:
        return "int64"

    @property
    def flags(self) -> str:
        return "pow2"

    @property
    def size(self) -> int:
        return len(self.exponents)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(1 << e for e in self.exponents)

    def index_of(self, value: AxisInput) -> int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"axis {self.name!r} takes int values (2**e), got {value!r}")
        return self._lookup(int(value))

    def value_at(self, index: int) -> AxisInput:
        return 1 << self.exponents[index]

    def value_def(self, index: int) -> AxisValueDef:
        exponent = self.exponents[index]
        return AxisValueDef(
            input_string=str(exponent),
            description=f"2^{exponent} = {1 << exponent}",
            value=1 << exponent,
        )

    def state_value(self, index: int) -> AxisValue:
        return AxisValue(
            name=self.name, type="int64", value=format_int64(1 << self.exponents[index])
        )

    def name_token(self, index: int) -> str:
        return f"2^{self.exponents[index]}"


@dataclass(frozen=True)
class Float64Axis(_Axis):
    """A float64 axis; names and input strings use ``%.5g``, ``axis_values`` the full value."""

    values: Sequence[float]

    def __post_init__(self) -> None:
        values = []
        for value in self.values:
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise TypeError(f"axis {self.name!r} takes float values, got {value!r}")
            values.append(float(value))
        object.__setattr__(self, "values", tuple(values))
        self._index([_float_key(v) for v in values])

    @property
    def kind(self) -> str:
        return "float64"

    @property
    def size(self) -> int:
        return len(self.values)

    def index_of(self, value: AxisInput) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise TypeError(f"axis {self.name!r} takes float values, got {value!r}")
        return self._lookup(_float_key(float(value)))

    def value_at(self, index: int) -> AxisInput:
        return self.values[index]

    def value_def(self, index: int) -> AxisValueDef:
        value = self.values[index]
        return AxisValueDef(
            input_string=_printf_g5(value), description="", value=native_float(value)
        )

    def state_value(self, index: int) -> AxisValue:
        return AxisValue(name=self.name, type="float64", value=format_float64(self.values[index]))

    def name_token(self, index: int) -> str:
        return _printf_g5(self.values[index])


@dataclass(frozen=True)
class StringAxis(_Axis):
    """A string axis; the value is also the input string and the name token."""

    values: Sequence[str]

    def __post_init__(self) -> None:
        values = tuple(self.values)
        for value in values:
            if not isinstance(value, str):
                raise TypeError(f"axis {self.name!r} takes str values, got {value!r}")
        object.__setattr__(self, "values", values)
        self._index(values)

    @property
    def kind(self) -> str:
        return "string"

    @property
    def size(self) -> int:
        return len(self.values)

    def index_of(self, value: AxisInput) -> int:
        if not isinstance(value, str):
            raise TypeError(f"axis {self.name!r} takes str values, got {value!r}")
        return self._lookup(value)

    def value_at(self, index: int) -> AxisInput:
        return self.values[index]

    def value_def(self, index: int) -> AxisValueDef:
        value = self.values[index]
        return AxisValueDef(input_string=value, description="", value=value)

    def state_value(self, index: int) -> AxisValue:
        return AxisValue(name=self.name, type="string", value=self.values[index])

    def name_token(self, index: int) -> str:
        return self.values[index]


@dataclass(frozen=True)
class TypeValue:
    """One value of a type axis.

    ``description=None`` picks NVBench's built-in long name for ``I8`` .. ``F64`` (``float``
    for ``F32``) and ``""`` otherwise. Inactive values (excluded by ``-a T=...``) are listed
    in the axis but produce no states; they keep their ``type_config_index`` slot.
    """

    input_string: str
    description: str | None = None
    active: bool = True

    @property
    def resolved_description(self) -> str:
        if self.description is not None:
            return self.description
        return _BUILTIN_TYPE_DESCRIPTIONS.get(self.input_string, "")


@dataclass(frozen=True)
class TypeAxis(_Axis):
    """A type axis. Values are :class:`TypeValue` or plain input strings (active)."""

    values: Sequence[TypeValue | str]

    def __post_init__(self) -> None:
        values = tuple(v if isinstance(v, TypeValue) else TypeValue(v) for v in self.values)
        object.__setattr__(self, "values", values)
        self._index([v.input_string for v in values])

    @property
    def type_values(self) -> tuple[TypeValue, ...]:
        # __post_init__ already turned every plain string into a TypeValue.
        return cast(tuple[TypeValue, ...], self.values)

    @property
    def kind(self) -> str:
        return "type"

    @property
    def size(self) -> int:
        return len(self.values)

    def index_of(self, value: AxisInput) -> int:
        if not isinstance(value, str):
            raise TypeError(f"type axis {self.name!r} takes input strings, got {value!r}")
        index = self._lookup(value)
        if not self.type_values[index].active:
            raise ValueError(f"type {value!r} of axis {self.name!r} is inactive: no states")
        return index

    def value_at(self, index: int) -> AxisInput:
        return self.type_values[index].input_string

    def value_def(self, index: int) -> AxisValueDef:
        value = self.type_values[index]
        return AxisValueDef(
            input_string=value.input_string,
            description=value.resolved_description,
            is_active=value.active,
        )

    def state_value(self, index: int) -> AxisValue:
        # Type axes appear as "string" in axis_values (§4.2).
        return AxisValue(name=self.name, type="string", value=self.type_values[index].input_string)

    def name_token(self, index: int) -> str:
        return self.type_values[index].input_string


#: Any axis declaration, in the order :meth:`ResultBuilder.benchmark` takes them.
Axis = Int64Axis | Pow2Axis | Float64Axis | StringAxis | TypeAxis
