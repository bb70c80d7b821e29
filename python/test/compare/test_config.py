"""Threshold configuration: presets, strict TOML version 1, precedence, --dump-config."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from cuda.bench.compare import config as config_module
from cuda.bench.compare.config import (
    SCHEMA,
    ComparisonConfig,
    ConfigKey,
    checked_thresholds,
    dump_config,
    load_config,
    loads_config,
    parse_config,
    resolve_thresholds,
)
from cuda.bench.compare.errors import ConfigError
from cuda.bench.compare.thresholds import PRESETS, Thresholds

DEFAULT_DUMP = """\
version = 1

[preset]
name = "default"

[clear_gap]
relative = 0.005

[same]
center_relative = 0.005
overlap_fraction = 0.5
relative_dispersion_ceiling = 0.02

[bulk]
sample_coverage = 0.97
support_coverage = 0.8

[bulk.rare_support]
sample_fraction = 0.001
max_removed_sample_fraction = 0.01

[ci]
tolerance = 0.01
max_tolerance = 0.05
confidence = 0.95
resamples = 2000
seed = 0
t_correction = 0
"""


def write(tmp_path: Path, text: str, name: str = "thresholds.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Presets and precedence


def test_defaults_without_preset_or_config() -> None:
    assert resolve_thresholds() == ("default", PRESETS["default"])


@pytest.mark.parametrize("name", ["default", "strict", "permissive"])
def test_each_preset_resolves_to_its_thresholds(name: str) -> None:
    assert resolve_thresholds(name) == (name, PRESETS[name])


def test_preset_values_are_upstreams() -> None:
    strict, permissive = PRESETS["strict"], PRESETS["permissive"]
    assert (strict.clear_gap_relative, strict.same_center_relative) == (0.01, 0.0025)
    assert (strict.bulk_sample_coverage, strict.bulk_rare_max_removed_fraction) == (0.995, 0.005)
    assert (permissive.same_overlap_fraction, permissive.bulk_support_coverage) == (0.25, 0.6)


def test_unknown_preset_argument() -> None:
    with pytest.raises(ConfigError, match="unknown comparison preset 'fast'"):
        resolve_thresholds("fast")


def test_config_preset_is_the_base_and_values_override_it(tmp_path: Path) -> None:
    path = write(tmp_path, 'version = 1\n[preset]\nname = "strict"\n[same]\ncenter_relative = 1\n')
    name, thresholds = resolve_thresholds(config=path)
    assert name == "strict"
    assert thresholds == PRESETS["strict"].replace(same_center_relative=1.0)


def test_explicit_preset_wins_over_the_config_preset(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, 'version = 1\n[preset]\nname = "strict"\n'))
    name, thresholds = resolve_thresholds("permissive", config)
    assert (name, thresholds) == ("permissive", PRESETS["permissive"])


def test_config_values_override_an_explicit_preset(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "version = 1\n[bulk.rare_support]\nsample_fraction = 0\n"))
    name, thresholds = resolve_thresholds("permissive", config)
    assert name == "permissive"
    assert thresholds == PRESETS["permissive"].replace(bulk_rare_sample_fraction=0.0)


def test_config_without_preset_uses_default() -> None:
    config = loads_config("version = 1\n[clear_gap]\nrelative = 0.02\n")
    assert config == ComparisonConfig(None, (("clear_gap_relative", 0.02),))
    assert resolve_thresholds(config=config) == ("default", Thresholds(clear_gap_relative=0.02))


def test_integers_become_floats() -> None:
    config = loads_config("version = 1\n[same]\noverlap_fraction = 1\n")
    value = dict(config.overrides)["same_overlap_fraction"]
    assert value == 1.0 and isinstance(value, float)


# ---------------------------------------------------------------------------------------------
# Validation messages (each one upstream prints, plus the file name)

INVALID = [
    ("foo = 1\nbar = 2\nversion = 1\n", "unknown top-level config key(s): bar, foo"),
    ("[same]\ncenter_relative = 0.1\n", "comparison config must specify integer version = 1"),
    ('version = "1"\n', "comparison config must specify integer version = 1"),
    ("version = 1.0\n", "comparison config must specify integer version = 1"),
    ("version = true\n", "comparison config must specify integer version = 1"),
    ("version = 2\n", "unsupported comparison config version 2; expected 1"),
    ("version = 1\nsame = 3\n", "config table [same] must be a TOML table"),
    ('version = 1\npreset = "x"\n', "config table [preset] must be a TOML table"),
    ("version = 1\n[bulk]\nfoo = 1\nbar = 2\n", "unknown config key(s) in [bulk]: bar, foo"),
    (
        "version = 1\n[bulk]\nrare_support = 1\n",
        "config table [bulk.rare_support] must be a TOML table",
    ),
    (
        "version = 1\n[bulk.rare_support]\nfoo = 1\n",
        "unknown config key(s) in [bulk.rare_support]: foo",
    ),
    ("version = 1\n[same.deeper]\nx = 1\n", "unknown config key(s) in [same]: deeper"),
    ('version = 1\n[preset]\nother = "x"\n', "unknown config key(s) in [preset]: other"),
    ("version = 1\n[preset]\nname = 3\n", "config value 'preset.name' must be a string"),
    ('version = 1\n[preset]\nname = "fast"\n', "unknown comparison preset 'fast'"),
    (
        'version = 1\n[same]\ncenter_relative = "0.1"\n',
        "config value 'same.center_relative' must be a finite number",
    ),
    (
        "version = 1\n[same]\ncenter_relative = true\n",
        "config value 'same.center_relative' must be a finite number",
    ),
    (
        "version = 1\n[same]\ncenter_relative = [1]\n",
        "config value 'same.center_relative' must be a finite number",
    ),
    (
        "version = 1\n[same]\ncenter_relative = nan\n",
        "config value 'same.center_relative' must be finite",
    ),
    (
        "version = 1\n[same]\ncenter_relative = inf\n",
        "config value 'same.center_relative' must be finite",
    ),
    (
        "version = 1\n[same]\ncenter_relative = -inf\n",
        "config value 'same.center_relative' must be finite",
    ),
    (
        "version = 1\n[same]\ncenter_relative = 1e400\n",
        "config value 'same.center_relative' must be finite",
    ),
    (
        "version = 1\n[same]\ncenter_relative = -0.1\n",
        "config value 'same.center_relative' must be >= 0",
    ),
    (
        "version = 1\n[same]\noverlap_fraction = 1.5\n",
        "config value 'same.overlap_fraction' must be <= 1",
    ),
    ("version = 1\n[clear_gap]\nrelative = -1\n", "config value 'clear_gap.relative' must be >= 0"),
    (
        "version = 1\n[bulk]\nsample_coverage = 1.01\n",
        "config value 'bulk.sample_coverage' must be <= 1",
    ),
    (
        "version = 1\n[bulk]\nsupport_coverage = -0.5\n",
        "config value 'bulk.support_coverage' must be >= 0",
    ),
    (
        "version = 1\n[bulk.rare_support]\nmax_removed_sample_fraction = 2\n",
        "config value 'bulk.rare_support.max_removed_sample_fraction' must be <= 1",
    ),
    # Order: top-level keys, version, [preset], then tables and keys in schema order.
    ("version = 2\nfoo = 1\n", "unknown top-level config key(s): foo"),
    (
        'version = 1\n[same]\ncenter_relative = -1\n[preset]\nname = "fast"\n',
        "unknown comparison preset 'fast'",
    ),
    (
        "version = 1\n[same]\ncenter_relative = -1\nbad = 1\n",
        "unknown config key(s) in [same]: bad",
    ),
    (
        "version = 1\n[same]\noverlap_fraction = -1\ncenter_relative = -1\n",
        "config value 'same.center_relative' must be >= 0",
    ),
    ("version = 1\n[bulk]\nfoo = 1\n[same]\nbad = 1\n", "unknown config key(s) in [same]: bad"),
    (
        "version = 1\n[bulk]\nsample_coverage = -1\n[bulk.rare_support]\nbad = 1\n",
        "config value 'bulk.sample_coverage' must be >= 0",
    ),
]


@pytest.mark.parametrize(("text", "message"), INVALID)
def test_invalid_configs_name_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: {message}"


def test_parse_config_rejects_a_non_table() -> None:
    with pytest.raises(ConfigError, match=r"^comparison config must be a TOML table$"):
        parse_config([1, 2])


def test_parse_error_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "version = 1\n[same\n")
    with pytest.raises(
        ConfigError, match=r"^failed to parse comparison config '.*thresholds.toml': "
    ):
        load_config(path)


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(ConfigError, match=r"^failed to read comparison config '.*missing.toml': "):
        load_config(missing)
    with pytest.raises(ConfigError, match="failed to read comparison config"):
        load_config(tmp_path)  # a directory


def test_non_utf8_text_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfeversion = 1\n")
    with pytest.raises(ConfigError, match=r"failed to parse comparison config .*not UTF-8"):
        load_config(path)


def test_empty_preset_table_and_empty_tables_are_fine() -> None:
    config = loads_config("version = 1\n[preset]\n[bulk]\n[bulk.rare_support]\n")
    assert config == ComparisonConfig()


def test_missing_toml_parser_on_python_310(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "version_info", (3, 10, 0))
    monkeypatch.setitem(sys.modules, "tomli", None)
    with pytest.raises(ConfigError, match=r"requires Python 3\.11\+ or the tomli package"):
        loads_config("version = 1\n")


def test_tomli_is_used_on_python_310(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tomli")
    monkeypatch.setattr(sys, "version_info", (3, 10, 0))
    assert loads_config('version = 1\n[preset]\nname = "strict"\n').preset == "strict"


# ---------------------------------------------------------------------------------------------
# --dump-config


def test_dump_default_layout() -> None:
    assert dump_config("default", PRESETS["default"]) == DEFAULT_DUMP


def test_dump_shows_the_base_preset_and_effective_values(tmp_path: Path) -> None:
    path = write(
        tmp_path, 'version = 1\n[preset]\nname = "permissive"\n[same]\ncenter_relative = 1\n'
    )
    text = dump_config(*resolve_thresholds(config=path))
    assert 'name = "permissive"' in text
    assert "center_relative = 1.0\n" in text  # repr of the float, not the TOML int
    assert "overlap_fraction = 0.25\n" in text


@pytest.mark.parametrize("name", ["default", "strict", "permissive"])
def test_dump_and_load_round_trip(name: str) -> None:
    thresholds = PRESETS[name].replace(same_center_relative=1.5e-5, bulk_sample_coverage=1.0 / 3)
    config = loads_config(dump_config(name, thresholds))
    assert config.preset == name
    assert resolve_thresholds(config=config) == (name, thresholds)
    assert resolve_thresholds(name, config) == (name, thresholds)


def test_dump_lists_every_schema_key_once() -> None:
    text = dump_config("default", PRESETS["default"])
    for entry in SCHEMA:
        assert text.count(f"\n{entry.key} = ") == 1
        assert f"[{entry.table}]" in text


# ---------------------------------------------------------------------------------------------
# Extensibility: a new method adds keys without breaking version-1 files


@dataclasses.dataclass(frozen=True)
class WithDemo(Thresholds):
    demo_confidence: float = 0.95
    demo_resamples: float = 2000.0


def test_a_new_table_is_one_schema_line(monkeypatch: pytest.MonkeyPatch) -> None:
    extended = (
        *SCHEMA,
        ConfigKey("demo", "confidence", "demo_confidence", maximum=1.0),
        ConfigKey("demo", "resamples", "demo_resamples", minimum=1, integer=True),
    )
    monkeypatch.setattr(config_module, "SCHEMA", extended)
    # Version-1 files without the new table stay valid...
    assert loads_config("version = 1\n[same]\ncenter_relative = 0.004\n").overrides == (
        ("same_center_relative", 0.004),
    )
    # ...and the new keys are validated like the old ones.
    config = loads_config("version = 1\n[demo]\nconfidence = 0.99\nresamples = 500\n")
    assert config.apply(WithDemo()) == WithDemo(demo_confidence=0.99, demo_resamples=500.0)
    with pytest.raises(ConfigError, match=r"'demo\.confidence' must be <= 1"):
        loads_config("version = 1\n[demo]\nconfidence = 2\n")
    with pytest.raises(ConfigError, match=r"'demo\.resamples' must be an integer"):
        loads_config("version = 1\n[demo]\nresamples = 2.5\n")
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) in \[demo\]: level"):
        loads_config("version = 1\n[demo]\nlevel = 2\n")
    text = dump_config("default", WithDemo())
    assert text.endswith("\n[demo]\nconfidence = 0.95\nresamples = 2000\n")
    assert loads_config(text).apply(WithDemo(demo_confidence=0.5)) == WithDemo()


# ---------------------------------------------------------------------------------------------
# Thresholds passed in directly: the config file's rule, not a second one. Unchecked,
# Thresholds(ci_tolerance=nan) made every row AMBG without a word, ci_tolerance=-1 ran,
# ci_confidence=1.5 and ci_resamples=0 failed deep in the bootstrap with numpy's words, and
# thresholds={} with an AttributeError.

#: Values a caller might set, good and bad for one key or another.
CANDIDATES: list[object] = [
    float("nan"),
    float("inf"),
    -1,
    -0.5,
    0,
    0.3,
    0.5,
    0.9999,
    1,
    1.5,
    99,
    100,
    150.5,
    2000,
    2**53 + 2,
    True,
    "0.5",
]


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and value != value:
        return "nan"
    if value == float("inf"):
        return "inf"
    return repr(value)


@pytest.mark.parametrize("entry", SCHEMA, ids=lambda entry: entry.field)
def test_direct_thresholds_follow_the_config_files_rule(entry: ConfigKey) -> None:
    for value in CANDIDATES:
        text = f"version = 1\n[{entry.table}]\n{entry.key} = {_toml_value(value)}\n"
        try:
            loads_config(text)
        except ConfigError as error:
            file_says: str | None = str(error).removeprefix(f"config value {entry.path!r} ")
        else:
            file_says = None
        given = dataclasses.replace(Thresholds(), **{entry.field: value})
        try:
            checked = checked_thresholds(given)
        except (TypeError, ValueError) as error:
            expected = TypeError if isinstance(value, bool | str) else ConfigError
            assert type(error) is expected, (entry.field, value, error)
            assert str(error) == (
                f"thresholds.{entry.field} {file_says} (config value {entry.path!r}), got {value!r}"
            )
        else:
            assert file_says is None, (entry.field, value)
            assert checked is given


def test_direct_thresholds_must_be_thresholds() -> None:
    for wrong in ({}, {"ci_tolerance": 0.01}, "strict", 0.01):
        with pytest.raises(TypeError, match=r"^thresholds must be a Thresholds .* got "):
            checked_thresholds(wrong)


def test_the_values_no_file_sets_are_checked_too() -> None:
    for field, value in [
        ("ci_change_confidence", 1.0),
        ("ci_change_confidence", float("nan")),
        ("ci_calibrated_tolerance", -0.1),
        ("ci_noise_floor", float("inf")),
        ("ci_drift_measured", 0.5),
    ]:
        with pytest.raises(ConfigError, match=rf"^thresholds\.{field} must be .*, got "):
            checked_thresholds(dataclasses.replace(Thresholds(), **{field: value}))
    # What an N-way comparison of many candidates sets passes.
    level = Thresholds(ci_change_confidence=1 - 0.05 / 10**6)
    assert checked_thresholds(level) is level


def test_numpy_numbers_come_back_as_python_numbers() -> None:
    np = pytest.importorskip("numpy")
    given = Thresholds(ci_resamples=np.int64(200), ci_tolerance=np.float32(0.02))
    checked = checked_thresholds(given)
    assert type(checked.ci_resamples) is int and checked.ci_resamples == 200
    assert type(checked.ci_tolerance) is float and checked.ci_tolerance == float(np.float32(0.02))
    assert checked_thresholds(PRESETS["strict"]) is PRESETS["strict"]
