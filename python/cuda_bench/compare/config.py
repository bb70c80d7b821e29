"""Threshold configuration: named presets, strict TOML files, and ``--dump-config``.

A config file (TOML, version 1, the format of NVIDIA's ``nvbench-compare-robust``)::

    version = 1

    [preset]
    name = "strict"          # base preset; an explicit preset argument wins over it

    [same]
    center_relative = 0.004  # overrides the base preset's value

Resolution (:func:`resolve_thresholds`): the base preset is the explicit ``preset``
argument, else the file's ``[preset] name``, else ``default``; the file's values then
override the base. Validation is strict: unknown tables and keys are rejected, numbers
must be finite ints or floats (not booleans or strings) within their range, and every
message names the offending key and the file.

The accepted keys are data (:data:`SCHEMA`): a new method adds its keys there, e.g.
``ConfigKey("ci", "confidence", "ci_confidence", maximum=1.0)``, plus the field in
:class:`~.thresholds.Thresholds`. Version-1 files stay valid because keys are only ever
added. :func:`dump_config` writes every schema key, so its output always loads back to
the same thresholds.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Mapping
from typing import Any, Final, cast

import msgspec

from .._errors import stdin_hint
from .._read_small import read_small
from .errors import ConfigError
from .thresholds import MAX_CALIBRATED_TOLERANCE, PRESET_NAMES, PRESETS, Thresholds

__all__ = [
    "CONFIG_VERSION",
    "DEFAULT_PRESET",
    "SCHEMA",
    "ComparisonConfig",
    "ConfigKey",
    "checked_thresholds",
    "dump_config",
    "load_config",
    "loads_config",
    "parse_config",
    "resolve_thresholds",
]

CONFIG_VERSION: Final = 1
DEFAULT_PRESET: Final = "default"


class ConfigKey(msgspec.Struct, frozen=True):
    """One accepted TOML key: ``[table] key`` sets :class:`Thresholds` attribute ``field``.

    ``table`` may be dotted (``bulk.rare_support``). Values must lie within
    ``[minimum, maximum]`` (``None``: unbounded); ``integer`` keys reject fractions.
    """

    table: str
    key: str
    field: str
    minimum: float | None = 0.0
    maximum: float | None = None
    integer: bool = False

    @property
    def path(self) -> str:
        """The dotted name used in messages, e.g. ``same.center_relative``."""
        return f"{self.table}.{self.key}"


#: Every threshold key a config file may set, in ``--dump-config`` order.
SCHEMA: Final[tuple[ConfigKey, ...]] = (
    ConfigKey("clear_gap", "relative", "clear_gap_relative"),
    ConfigKey("same", "center_relative", "same_center_relative"),
    ConfigKey("same", "overlap_fraction", "same_overlap_fraction", maximum=1.0),
    ConfigKey("same", "relative_dispersion_ceiling", "same_relative_dispersion_ceiling"),
    ConfigKey("bulk", "sample_coverage", "bulk_sample_coverage", maximum=1.0),
    ConfigKey("bulk", "support_coverage", "bulk_support_coverage", maximum=1.0),
    ConfigKey("bulk.rare_support", "sample_fraction", "bulk_rare_sample_fraction", maximum=1.0),
    ConfigKey(
        "bulk.rare_support",
        "max_removed_sample_fraction",
        "bulk_rare_max_removed_fraction",
        maximum=1.0,
    ),
    ConfigKey("ci", "tolerance", "ci_tolerance", maximum=1.0),
    ConfigKey("ci", "max_tolerance", "ci_max_tolerance", maximum=1.0),
    ConfigKey("ci", "confidence", "ci_confidence", minimum=0.5, maximum=0.9999),
    ConfigKey("ci", "resamples", "ci_resamples", minimum=100, maximum=1_000_000, integer=True),
    ConfigKey("ci", "seed", "ci_seed", maximum=2**53, integer=True),
    ConfigKey("ci", "t_correction", "ci_t_correction", maximum=1, integer=True),
)

_PRESET_TABLE: Final = "preset"


def _tables() -> dict[str, list[ConfigKey]]:
    """Schema keys grouped by table, tables in first-appearance order."""
    tables: dict[str, list[ConfigKey]] = {}
    for entry in SCHEMA:
        tables.setdefault(entry.table, []).append(entry)
    return tables


class ComparisonConfig(msgspec.Struct, frozen=True):
    """A validated config file: an optional base preset and threshold overrides.

    ``overrides`` are ``(Thresholds field, value)`` pairs in schema order; ``source`` names
    the file for messages.
    """

    preset: str | None = None
    overrides: tuple[tuple[str, float], ...] = ()
    source: str | None = None

    def apply(self, base: Thresholds) -> Thresholds:
        """``base`` with this config's values."""
        return base.replace(**dict(self.overrides)) if self.overrides else base


# ---------------------------------------------------------------------------------------------
# Validation


class _Invalid(Exception):
    """A schema violation; turned into a ConfigError that names the file."""


def _is_table(value: object) -> bool:
    return isinstance(value, Mapping)


def _reject_unknown(table: Mapping[str, Any], allowed: set[str], where: str | None) -> None:
    unknown = sorted(str(key) for key in table if key not in allowed)
    if not unknown:
        return
    if where is None:
        raise _Invalid(f"unknown top-level config key(s): {', '.join(unknown)}")
    raise _Invalid(f"unknown config key(s) in [{where}]: {', '.join(unknown)}")


def _refusal(entry: ConfigKey, raw: object) -> tuple[type[Exception], str] | None:
    """What is wrong with ``raw`` as the value of ``entry`` (``None``: nothing): the error
    type (``TypeError`` for a value of the wrong kind) and the words after the name. The one
    rule for a config file's values and for :class:`Thresholds` passed in directly
    (:func:`checked_thresholds`)."""
    # bool is an int subclass, but `true` is never a meaningful threshold.
    if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
        return TypeError, f"must be {'an integer' if entry.integer else 'a finite number'}"
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        return ValueError, "must be finite"
    if entry.integer and not value.is_integer():
        return ValueError, "must be an integer"
    if entry.minimum is not None and value < entry.minimum:
        return ValueError, f"must be >= {entry.minimum:g}"
    if entry.maximum is not None and value > entry.maximum:
        return ValueError, f"must be <= {entry.maximum:g}"
    return None


def _number(entry: ConfigKey, raw: object) -> float:
    problem = _refusal(entry, raw)
    if problem is not None:
        raise _Invalid(f"config value {entry.path!r} {problem[1]}")
    return float(cast(float, raw))  # a real number: _refusal checked it


def _lookup(data: Mapping[str, Any], dotted: str) -> object:
    node: object = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _validate(data: object) -> ComparisonConfig:
    if not _is_table(data):
        raise _Invalid("comparison config must be a TOML table")
    assert isinstance(data, Mapping)
    tables = _tables()
    roots = {name.split(".")[0] for name in tables}
    _reject_unknown(data, {"version", _PRESET_TABLE, *roots}, None)

    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Invalid(f"comparison config must specify integer version = {CONFIG_VERSION}")
    if version != CONFIG_VERSION:
        raise _Invalid(
            f"unsupported comparison config version {version}; expected {CONFIG_VERSION}"
        )

    preset: str | None = None
    if _PRESET_TABLE in data:
        table = data[_PRESET_TABLE]
        if not _is_table(table):
            raise _Invalid(f"config table [{_PRESET_TABLE}] must be a TOML table")
        _reject_unknown(table, {"name"}, _PRESET_TABLE)
        if "name" in table:
            name = table["name"]
            if not isinstance(name, str):
                raise _Invalid(f"config value '{_PRESET_TABLE}.name' must be a string")
            if name not in PRESETS:
                raise _Invalid(f"unknown comparison preset {name!r}")
            preset = name

    overrides: list[tuple[str, float]] = []
    for name, entries in tables.items():
        table = _lookup(data, name)
        if table is None:
            continue
        if not _is_table(table):
            raise _Invalid(f"config table [{name}] must be a TOML table")
        assert isinstance(table, Mapping)
        children = {
            other[len(name) + 1 :].split(".")[0] for other in tables if other.startswith(f"{name}.")
        }
        _reject_unknown(table, {entry.key for entry in entries} | children, name)
        for entry in entries:
            if entry.key in table:
                value = _number(entry, table[entry.key])
                overrides.append((entry.field, int(value) if entry.integer else value))
    return ComparisonConfig(preset=preset, overrides=tuple(overrides))


def parse_config(data: object, *, source: str | None = None) -> ComparisonConfig:
    """Validate an already decoded TOML document (a mapping); ``source`` names it in errors."""
    try:
        config = _validate(data)
    except _Invalid as problem:
        raise ConfigError(f"{source}: {problem}" if source else str(problem)) from None
    return ComparisonConfig(config.preset, config.overrides, source)


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(
                "TOML config support requires Python 3.11+ or the tomli package"
            ) from None
    return tomllib.loads(text)


def loads_config(text: str, *, source: str | None = None) -> ComparisonConfig:
    """Parse and validate TOML text."""
    label = source if source is not None else "<string>"
    try:
        data = _toml_loads(text)
    except ConfigError:
        raise
    except ValueError as error:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError(f"failed to parse comparison config {label!r}: {error}") from None
    except RecursionError:
        # tomllib recurses once per nested array or inline table: a few hundred kilobytes
        # of ``[`` would otherwise end the program with a traceback (and exit status 1).
        raise ConfigError(
            f"failed to parse comparison config {label!r}: TOML nested too deeply"
        ) from None
    return parse_config(data, source=source)


def load_config(path: str | os.PathLike[str]) -> ComparisonConfig:
    """Read, parse and validate a TOML config file; :class:`ConfigError` names the file."""
    label = os.fspath(path)
    try:
        raw = read_small(path)
    except OSError as error:
        reason = error.strerror or str(error)
        hint = stdin_hint(label) if isinstance(error, FileNotFoundError) else ""
        raise ConfigError(f"failed to read comparison config {label!r}: {reason}{hint}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"failed to parse comparison config {label!r}: not UTF-8 text ({error.reason} "
            f"at byte {error.start})"
        ) from None
    return loads_config(text, source=label)


# ---------------------------------------------------------------------------------------------
# Resolution and dump


def resolve_thresholds(
    preset: str | None = None,
    config: ComparisonConfig | str | os.PathLike[str] | None = None,
) -> tuple[str, Thresholds]:
    """The base preset name and the effective thresholds.

    Base preset: ``preset`` if given, else the config's ``[preset] name``, else
    ``default``; the config's values override it. ``config`` may be a path.
    """
    if config is not None and not isinstance(config, ComparisonConfig):
        config = load_config(config)
    name = preset
    if name is None and config is not None:
        name = config.preset
    if name is None:
        name = DEFAULT_PRESET
    if name not in PRESETS:
        raise ConfigError(f"unknown comparison preset {name!r} (known: {', '.join(PRESET_NAMES)})")
    thresholds = PRESETS[name]
    if config is not None:
        thresholds = config.apply(thresholds)
    return name, thresholds


#: The fields no config file sets (an N-way comparison sets the first, a calibration the
#: others), held to the same rule where a caller passes :class:`Thresholds` of its own.
_DERIVED: Final[tuple[ConfigKey, ...]] = (
    ConfigKey("", "", "ci_change_confidence", maximum=1.0),
    ConfigKey("", "", "ci_calibrated_tolerance", maximum=MAX_CALIBRATED_TOLERANCE),
    ConfigKey("", "", "ci_noise_floor"),
    ConfigKey("", "", "ci_drift_measured", maximum=1, integer=True),
)


def checked_thresholds(thresholds: object, parameter: str = "thresholds") -> Thresholds:
    """``thresholds`` if it is a :class:`Thresholds` whose every value a config file could
    hold (:data:`SCHEMA`: ``ci_confidence`` from 0.5 to 0.9999, ``ci_resamples`` an integer
    of at least 100, no NaN, ...); else a TypeError (not a Thresholds, a value that is no
    number) or a :class:`ConfigError` (a ValueError) naming the field. Values of other
    number types (numpy's) come back as Python ints and floats, as a config file gives
    them."""
    if not isinstance(thresholds, Thresholds):
        raise TypeError(
            f"{parameter} must be a Thresholds (cuda.bench.compare.Thresholds(...), "
            f"PRESETS[name] or its .replace(...)) or None; got {thresholds!r}"
        )
    plain: dict[str, float] = {}
    for entry in (*SCHEMA, *_DERIVED):
        raw = getattr(thresholds, entry.field)
        problem = _refusal(entry, raw)
        if problem is None and entry.field == "ci_change_confidence" and raw == 1.0:
            problem = ValueError, "must be < 1 (0: no family-wise level)"
        if problem is not None:
            kind, words = problem
            where = f" (config value {entry.path!r})" if entry.table else ""
            text = f"{parameter}.{entry.field} {words}{where}, got {raw!r}"
            raise TypeError(text) if kind is TypeError else ConfigError(text)
        if type(raw) not in (int, float):
            plain[entry.field] = int(raw) if entry.integer else float(raw)
    return thresholds.replace(**plain) if plain else thresholds


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _toml_number(entry: ConfigKey, value: float) -> str:
    if entry.integer:
        return str(int(value))
    return repr(float(value))


def dump_config(preset_name: str, thresholds: Thresholds) -> str:
    """The effective configuration as TOML text (ends with a newline).

    ``[preset] name`` is the *base* preset; every schema key follows with its effective
    value, one table at a time, floats as Python ``repr``. Loading the text back gives the
    same thresholds.
    """
    lines = [
        f"version = {CONFIG_VERSION}",
        "",
        f"[{_PRESET_TABLE}]",
        f"name = {_toml_string(preset_name)}",
    ]
    for table, entries in _tables().items():
        lines += ["", f"[{table}]"]
        lines += [
            f"{entry.key} = {_toml_number(entry, getattr(thresholds, entry.field))}"
            for entry in entries
        ]
    return "\n".join(lines) + "\n"
