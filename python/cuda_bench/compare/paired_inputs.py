"""The inputs of a paired comparison: runs by round, a runner's manifest, and the call.

``compare_paired(ref_runs, cmp_runs)`` pairs ``ref_runs[r]`` with ``cmp_runs[r]``;
``compare_paired_directory(DIR)`` reads the rounds ``nvbench_compare ab`` left in ``DIR``
(its ``manifest.json``: which rounds finished, which side went first). Both check that the
two sides have as many runs and that every run holds the same states, then compare with
the ``paired`` method (:mod:`.methods.paired`) through :func:`.api.compare`, so statuses,
reasons, thresholds, presets, reports and ``--fail-on`` are those of any comparison. The
comparison's ``settings["design"]`` records the design (the report's ``design``).

The manifest is JSON (schema ``nvbench-tools.ab-manifest``, version 1, documented in
``docs/multi-run.md``); the runner writes it after every run, so an interrupted series can
be analysed and resumed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from .._json_input import loads
from .._read_small import read_small
from ..results._sidecar import contained
from ..results._tools_api import BenchmarkResult
from ._arguments import checked_path, checked_source, run_list
from .calibrate import Calibration, MethodRate, StateFloor
from .calibration_file import load_calibration
from .errors import CompareInputError, ConfigError
from .model import Comparison, Reason
from .paired import ORDERS, PairedDesign
from .thresholds import Thresholds

__all__ = [
    "MANIFEST_NAME",
    "MANIFEST_SCHEMA",
    "MANIFEST_VERSION",
    "FinishedRound",
    "PairedCalibration",
    "aa_calibration",
    "check_shared_states",
    "compare_paired",
    "compare_paired_directory",
    "finished_rounds",
    "paired_calibration",
    "read_manifest",
]

MANIFEST_NAME: Final = "manifest.json"
MANIFEST_SCHEMA: Final = "nvbench-tools.ab-manifest"
MANIFEST_VERSION: Final = 1


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of a runner's directory; :class:`CompareInputError` names the problem."""
    path = Path(directory) / MANIFEST_NAME
    try:
        # The directory may come from elsewhere (a CI artifact): a link planted as its
        # manifest (to /dev/zero, say) is read only up to a bound, as other small inputs.
        data = loads(read_small(path).decode("utf-8"))
    except FileNotFoundError:
        raise CompareInputError(
            f"'{directory}' holds no {MANIFEST_NAME}: not a directory written by "
            "'nvbench_compare ab'"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        if isinstance(error, CompareInputError):
            raise
        reason = getattr(error, "strerror", None) or error  # an OSError's, without "[Errno N]"
        raise CompareInputError(f"cannot read '{path}': {reason}") from None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        raise CompareInputError(f"'{path}' is not an ab manifest (schema {MANIFEST_SCHEMA})")
    if data.get("schema_version") != MANIFEST_VERSION:
        raise CompareInputError(
            f"'{path}': unsupported manifest schema_version {data.get('schema_version')!r}"
        )
    if not isinstance(data.get("rounds"), list):
        raise CompareInputError(f"'{path}': field 'rounds' is not a list")
    return data


@dataclass(frozen=True, slots=True)
class FinishedRound:
    """A round whose two runs both wrote readable JSON: its files and who went first."""

    index: int
    first: str
    ref: Path
    cmp: Path


def _inside(directory: Path, name: object) -> Path:
    # A manifest is input: its file names must stay inside the directory it describes.
    if (
        not isinstance(name, str)
        or not name
        or Path(name).is_absolute()
        or ".." in Path(name).parts
    ):
        raise CompareInputError(f"manifest in '{directory}' names a file outside it: {name!r}")
    path = directory / name
    # Nor through a link planted in it, as for side files (docs/security.md).
    if not contained(directory, path):
        raise CompareInputError(
            f"manifest in '{directory}': {name!r} leads outside the directory through a "
            "link; not read"
        )
    return path


def _succeeded_runs(directory: str | os.PathLike[str], runs: list[Any]) -> dict[str, Any]:
    """A round's succeeded runs by side. A round lacking a side is one the runner did not
    finish (interrupted) and is left out; a run naming neither side, with a status the
    runner never writes, or a side run twice is a broken manifest: left out silently, it
    shrank the comparison to the rounds that happened to read well."""
    seen: set[str] = set()
    ok: dict[str, Any] = {}
    for run in runs:
        side = run.get("side") if isinstance(run, dict) else None
        status = run.get("status") if isinstance(run, dict) else None
        if side not in ("ref", "cmp") or status not in ("ok", "failed"):
            raise CompareInputError(
                f"manifest in '{directory}': a run's side is {side!r} and status {status!r}; "
                "expected side 'ref' or 'cmp', status 'ok' or 'failed'"
            )
        if side in seen:
            raise CompareInputError(f"manifest in '{directory}': a round runs {side!r} twice")
        seen.add(side)
        if status == "ok":
            ok[side] = run
    return ok


def finished_rounds(directory: str | os.PathLike[str], data: dict[str, Any]) -> list[FinishedRound]:
    """The rounds of a manifest whose reference and compare runs both succeeded, in order."""
    base = Path(directory)
    found: list[FinishedRound] = []
    for item in data["rounds"]:
        if not isinstance(item, dict):
            raise CompareInputError(f"manifest in '{directory}': a round is not an object")
        runs = item.get("runs")
        if not isinstance(runs, list):
            raise CompareInputError(f"manifest in '{directory}': a round has no 'runs' list")
        ok = _succeeded_runs(directory, runs)
        if "ref" not in ok or "cmp" not in ok:
            continue
        first = item.get("first")
        if first not in ("ref", "cmp"):
            raise CompareInputError(f"manifest in '{directory}': round 'first' is {first!r}")
        number = item.get("round", len(found) + 1)
        if not isinstance(number, int) or isinstance(number, bool):
            raise CompareInputError(
                f"manifest in '{directory}': round number {number!r} is not an integer"
            )
        if any(earlier.index == number for earlier in found):
            raise CompareInputError(f"manifest in '{directory}': round {number} is there twice")
        found.append(
            FinishedRound(
                number,
                first,
                _inside(base, ok["ref"].get("json")),
                _inside(base, ok["cmp"].get("json")),
            )
        )
    return found


def check_shared_states(ref: Sequence[BenchmarkResult], cmp: Sequence[BenchmarkResult]) -> None:
    """Both sides have as many runs, and every run holds the same states; else
    :class:`CompareInputError` naming the first run that differs."""
    from .runs import state_index

    if len(ref) != len(cmp):
        raise CompareInputError(
            f"--paired needs as many reference as compare runs (one pair per round), got "
            f"{len(ref)} and {len(cmp)}"
        )
    runs = [*ref, *cmp]
    if not runs:
        raise CompareInputError("--paired needs at least one round")
    expected = set(state_index(runs[0]))
    for run in runs[1:]:
        found = set(state_index(run))
        if found != expected:
            extra, lacking = len(found - expected), len(expected - found)
            raise CompareInputError(
                f"paired runs must hold the same states: '{run.label}' has {extra} state(s) "
                f"'{runs[0].label}' lacks and lacks {lacking} of its states"
            )


@dataclass(frozen=True, slots=True)
class PairedCalibration(Calibration):
    """A calibration as the ``paired`` method reads it: no band widening, each state's
    ``paired_floor`` passed as the calibrated noise floor (:mod:`.methods.paired`)."""

    def widened(self, thresholds: Thresholds, state: StateFloor | None) -> Thresholds:
        if state is None or state.paired_floor is None:
            return thresholds
        return thresholds.replace(ci_noise_floor=state.paired_floor)

    def covers(self, state: StateFloor | None) -> bool:
        return state is not None and state.paired_floor is not None

    def coverage_warning(self, method: str, compared: int, covered: int) -> str | None:
        where = self.source or "the calibration"
        if method != "paired":
            return f"{where} gives only the paired method's A/A floors; '{method}' ignores it"
        # A file without any paired floor is named once, by compare_paired.
        if covered < compared and any(state.paired_floor is not None for state in self.states):
            return (
                f"{where} has no paired floor for {compared - covered} of {compared} compared "
                "state(s); they use their own A/A floor"
            )
        return None


def paired_calibration(calibration: Calibration) -> PairedCalibration:
    """``calibration`` as a paired comparison uses it (:class:`PairedCalibration`)."""
    return PairedCalibration(
        runs=calibration.runs,
        target_rate=calibration.target_rate,
        states=calibration.states,
        rates=calibration.rates,
        source=calibration.source,
        machine_floor=calibration.machine_floor,
    )


def _refuse_one_run_on_both_sides(
    ref: Sequence[str | os.PathLike[str] | BenchmarkResult],
    cmp: Sequence[str | os.PathLike[str] | BenchmarkResult],
) -> None:
    """A paired comparison of a run with itself is refused: a round whose two runs are one
    (a manifest edited to name one file twice, a path typed twice) changes by exactly
    nothing and narrows the rounds' spread, so its SLOW rows read AMBG or SAME."""
    from ..results._identity import runs_on_both_sides

    found = runs_on_both_sides(ref, cmp)
    if found:
        one = found[0]
        raise CompareInputError(
            f"compare run {one.path} is {one.relation} reference run {one.first} (the same "
            "measurements): paired rounds need separate runs of each build"
        )


#: What each list of :func:`compare_paired` holds.
_ROUNDS: Final = "one per round, in round order"


def compare_paired(
    ref: Sequence[str | os.PathLike[str] | BenchmarkResult],
    cmp: Sequence[str | os.PathLike[str] | BenchmarkResult],
    *,
    design: PairedDesign | None = None,
    calibration: Calibration | str | os.PathLike[str] | None = None,
    warn_calibration: list[str] | None = None,
    **options: Any,
) -> Comparison:
    """Compare runs paired by round (module docstring); ``options`` go to
    :func:`.api.compare` (``preset``, ``thresholds``, ``filters``, ...; not ``method``)."""
    from .api import compare
    from .inputs import load_result
    from .methods.paired import PairedMethod

    if "method" in options:
        raise ConfigError("a paired comparison uses the 'paired' method")
    if design is not None and not isinstance(design, PairedDesign):
        raise TypeError(f"design must be a PairedDesign or None, got {design!r}")
    ref, cmp = run_list(ref, "ref", _ROUNDS), run_list(cmp, "cmp", _ROUNDS)
    checked_source(ref, "ref")
    checked_source(cmp, "cmp")
    _refuse_one_run_on_both_sides(ref, cmp)
    ref_results = [load_result(source) for source in ref]
    cmp_results = [load_result(source) for source in cmp]
    check_shared_states(ref_results, cmp_results)
    if design is None:
        design = PairedDesign(rounds=len(ref_results))
    elif design.rounds != len(ref_results):
        raise CompareInputError(f"design of {design.rounds} rounds for {len(ref_results)} pairs")
    used = None
    if calibration is not None:
        loaded = (
            calibration if isinstance(calibration, Calibration) else load_calibration(calibration)
        )
        floors = any(state.paired_floor is not None for state in loaded.states)
        if not floors and warn_calibration is not None:
            warn_calibration.append(
                f"calibration '{loaded.source}' has no paired floors (written by "
                "'nvbench_compare calibrate', not 'ab --aa'); the paired comparison "
                "measures its own floor and does not widen its band"
            )
        used = paired_calibration(loaded)
    comparison = compare(
        ref_results, cmp_results, method=PairedMethod(design), calibration=used, **options
    )
    settings = {**comparison.settings, "design": design.to_data()}
    return msgspec.structs.replace(comparison, settings=settings)


def compare_paired_directory(
    directory: str | os.PathLike[str], **options: Any
) -> tuple[Comparison, list[FinishedRound]]:
    """Compare the finished rounds a runner left in ``directory`` (module docstring)."""
    checked_path(directory, "directory", "a directory written by 'nvbench_compare ab'")
    data = read_manifest(directory)
    rounds = finished_rounds(directory, data)
    if len(rounds) < 2:
        raise CompareInputError(
            f"'{directory}' holds {len(rounds)} finished round(s); a paired comparison needs 2"
        )
    order = data.get("order")
    if isinstance(order, str) and order not in ORDERS:
        # A design of an order no runner writes would be reported as it stands.
        raise CompareInputError(
            f"manifest in '{directory}': 'order' is {order!r}; expected "
            f"{' or '.join(map(repr, ORDERS))}"
        )
    seed = data.get("seed")
    design = PairedDesign(
        rounds=len(rounds),
        first=tuple(item.first for item in rounds),  # type: ignore[misc]
        order=order if isinstance(order, str) else None,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
    )
    comparison = compare_paired(
        [item.ref for item in rounds], [item.cmp for item in rounds], design=design, **options
    )
    return comparison, rounds


def _ignore(message: str) -> None:
    """Side-file warnings were given once by the comparison of the same runs."""


def aa_calibration(
    directory: str | os.PathLike[str],
    comparison: Comparison,
    *,
    thresholds: Thresholds,
    filters: Any = None,
    target_rate: float = 0.01,
) -> Calibration:
    """The calibration of an A/A series (``nvbench_compare ab --aa``) in ``directory``.

    Its states' single-run tolerances come from every run of the series as from
    ``nvbench_compare calibrate`` (:func:`.calibrate.calibrate`; all runs are of one build);
    each state also gets its ``paired_floor``, the same-slot jitter of its round changes
    (:func:`.paired.slot_floor`), and the rates gain the paired test's: ``comparison`` is the
    paired A/A comparison of the same rounds, every FAST or SLOW in it a false change.
    """
    import dataclasses

    from .calibrate import calibrate
    from .evidence import side_evidence
    from .inputs import load_result
    from .model import Status
    from .paired import round_changes, slot_floor
    from .runs import state_index

    rounds = finished_rounds(directory, read_manifest(directory))
    ref = [load_result(item.ref) for item in rounds]
    cmp = [load_result(item.cmp) for item in rounds]
    from .thresholds import PRESET_NAMES

    # One method and preset: the single-run false-change rate is a comparison point here,
    # and 2R runs make R(2R - 1) pairs.
    preset = comparison.preset if comparison.preset in PRESET_NAMES else "default"
    base = calibrate(
        [*ref, *cmp],
        methods=("ci",),
        presets=(preset,),
        thresholds=thresholds,
        filters=filters,
        target_rate=target_rate,
    )
    first = tuple(item.first for item in rounds)
    ref_index = [state_index(result) for result in ref]
    cmp_index = [state_index(result) for result in cmp]
    floors: dict[Any, float] = {}
    for identity in ref_index[0]:
        found = [index.get(identity) for index in (*ref_index, *cmp_index)]
        if any(state is None or state.is_skipped or not state.tags for state in found):
            continue
        evidence = [side_evidence(state, warn=_ignore) for state in found if state is not None]
        changes = round_changes(evidence[: len(ref)], evidence[len(ref) :], thresholds)
        if not isinstance(changes, Reason):
            floors[identity.named()] = slot_floor(changes.time, first)[0]  # type: ignore[arg-type]
        for item in evidence:
            item.bulk.release()
    states = tuple(
        dataclasses.replace(state, paired_floor=floors.get(state.identity)) for state in base.states
    )
    counts = comparison.counts
    paired_rate = MethodRate(
        method="paired",
        preset=comparison.preset,
        pairs=len(rounds),
        same=counts[Status.SAME],
        fast=counts[Status.FAST],
        slow=counts[Status.SLOW],
        ambiguous=counts[Status.AMBG],
        unknown=counts[Status.UNKNOWN],
    )
    return dataclasses.replace(
        base,
        runs=tuple(str(item.ref) for item in rounds) + tuple(str(item.cmp) for item in rounds),
        states=states,
        rates=(paired_rate, *base.rates),
    )
