"""Reading an A/A calibration file (schema ``nvbench-tools.calibration``, version 1; see
``docs/calibration.md``): every field checked, and a file no calibration could have written
(negative spreads, a tolerance past the cap, a state listed twice) refused with one line
naming the file and the field."""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any

from .._errors import stdin_hint
from .._json_input import loads
from .._read_small import read_small
from .calibrate import (
    CALIBRATION_SCHEMA,
    CALIBRATION_VERSION,
    MAX_TOLERANCE,
    Calibration,
    MethodRate,
    StateFloor,
)
from .errors import ConfigError
from .runs import StateIdentity

__all__ = ["load_calibration", "loads_calibration"]


class _Invalid(Exception):
    pass


def _field(data: dict[str, Any], name: str, kinds: tuple[type, ...], nullable: bool = False) -> Any:
    if name not in data:
        raise _Invalid(f"missing field '{name}'")
    value = data[name]
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise _Invalid(f"field '{name}' has the wrong type ({type(value).__name__})")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Invalid(f"field '{name}' is not finite")
    return value


def _check_state(state: StateFloor, before: set[StateIdentity[str]]) -> None:
    """A state no calibration could have written: negative spreads, fewer than two runs, a
    tolerance past the cap, or a second entry for one state (which would silently win)."""
    spreads = (state.spread, state.within, state.noise_floor, state.paired_floor or 0.0)
    if min(spreads) < 0 or state.tolerance < 0 or not state.center > 0:
        raise _Invalid("a spread, floor, tolerance or center is negative (or the center 0)")
    if state.runs < 2 or not 1 <= state.degrees_of_freedom < state.runs:
        raise _Invalid(f"{state.runs} runs and {state.degrees_of_freedom} degrees of freedom")
    if state.tolerance > MAX_TOLERANCE:
        raise _Invalid(f"tolerance {state.tolerance} is past the cap {MAX_TOLERANCE}")
    if state.identity in before:
        raise _Invalid(f"a second entry for {state.benchmark} {state.key}")
    before.add(state.identity)


def _parse(data: object) -> Calibration:
    if not isinstance(data, dict):
        raise _Invalid("not a JSON object")
    schema = data.get("schema")
    if schema != CALIBRATION_SCHEMA:
        found = "no 'schema' field" if schema is None else f"schema {str(schema)!r}"
        raise _Invalid(
            f"not a calibration file ({found}, expected '{CALIBRATION_SCHEMA}'; "
            "'nvbench_compare calibrate' writes one)"
        )
    version = data.get("schema_version")
    if version != CALIBRATION_VERSION:
        raise _Invalid(
            f"unsupported calibration schema_version {version!r}; expected {CALIBRATION_VERSION}"
        )
    number = (int, float)
    runs = _field(data, "runs", (list,))
    target = float(_field(data, "target_false_change_rate", number))
    if not 0.0 < target < 1.0:
        raise _Invalid(f"target_false_change_rate {target} is not between 0 and 1")
    states = []
    seen: set[StateIdentity[str]] = set()
    for index, item in enumerate(_field(data, "states", (list,))):
        if not isinstance(item, dict):
            raise _Invalid(f"states[{index}] is not an object")
        try:
            states.append(
                StateFloor(
                    benchmark=_field(item, "benchmark", (str,)),
                    benchmark_occurrence=_field(item, "benchmark_occurrence", (int,)),
                    device=_field(item, "device", (int,), nullable=True),
                    key=_field(item, "key", (str,)),
                    occurrence=_field(item, "occurrence", (int,)),
                    runs=_field(item, "runs", (int,)),
                    center=float(_field(item, "center", number)),
                    spread=float(_field(item, "spread", number)),
                    within=float(_field(item, "within", number)),
                    noise_floor=float(_field(item, "noise_floor", number)),
                    degrees_of_freedom=_field(item, "degrees_of_freedom", (int,)),
                    tolerance=float(_field(item, "tolerance", number)),
                )
            )
            paired = item.get("paired_floor")
            if paired is not None:
                paired = float(_field(item, "paired_floor", number))
                states[-1] = dataclasses.replace(states[-1], paired_floor=paired)
            _check_state(states[-1], seen)
        except _Invalid as problem:
            raise _Invalid(f"states[{index}]: {problem}") from None
    rates = []
    for index, item in enumerate(data.get("rates", [])):
        if not isinstance(item, dict):
            raise _Invalid(f"rates[{index}] is not an object")
        try:
            rates.append(
                MethodRate(
                    method=_field(item, "method", (str,)),
                    preset=_field(item, "preset", (str,)),
                    pairs=_field(item, "pairs", (int,)),
                    same=_field(item, "same", (int,)),
                    fast=_field(item, "fast", (int,)),
                    slow=_field(item, "slow", (int,)),
                    ambiguous=_field(item, "ambiguous", (int,)),
                    unknown=_field(item, "unknown", (int,)),
                )
            )
            counts = (rates[-1].pairs, rates[-1].same, rates[-1].fast, rates[-1].slow)
            if min(*counts, rates[-1].ambiguous, rates[-1].unknown) < 0:
                raise _Invalid("a count is negative")
        except _Invalid as problem:
            raise _Invalid(f"rates[{index}]: {problem}") from None
    machine = data.get("machine_noise_floor")
    if machine is not None:
        machine = float(_field(data, "machine_noise_floor", number))
        if machine < 0:
            raise _Invalid("machine_noise_floor is negative")
    return Calibration(
        runs=tuple(str(run) for run in runs),
        target_rate=target,
        states=tuple(states),
        rates=tuple(rates),
        machine_floor=machine,
    )


def loads_calibration(text: str, *, source: str | None = None) -> Calibration:
    """Parse calibration JSON; :class:`ConfigError` names ``source`` and the problem."""
    label = source if source is not None else "<string>"
    try:
        data = loads(text)
    except ValueError as error:
        raise ConfigError(f"{label}: not a calibration file (not valid JSON: {error})") from None
    try:
        parsed = _parse(data)
    except _Invalid as problem:
        raise ConfigError(f"{label}: {problem}") from None
    return dataclasses.replace(parsed, source=source)


def load_calibration(path: str | os.PathLike[str]) -> Calibration:
    """Read a calibration file written by ``nvbench_compare calibrate``."""
    label = os.fspath(path)
    try:
        text = read_small(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        hint = stdin_hint(label) if isinstance(error, FileNotFoundError) else ""
        raise ConfigError(f"failed to read calibration '{label}': {reason}{hint}") from None
    return loads_calibration(text, source=label)
