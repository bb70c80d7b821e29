"""``nvbench_compare RUN --col AXIS [--baseline VALUE]``: variants within one run.

The states of one input (a file, or one side's runs given with ``--ref``) that differ only
in ``AXIS`` are compared with the state whose ``AXIS`` has the baseline value
(:func:`cuda.bench.compare.variants.compare_variants`): one candidate per other value,
named ``AXIS=value``. ``--col Device`` compares the devices of the file.

The result is a :class:`~cuda.bench.compare.many.MultiComparison`, rendered as the matrix
of several candidates is (:func:`._compare_many.render_many_texts`: terminal, ``--json``,
``--csv``, ``--markdown``), with ``--gate``, ``--correction``, ``--plot-along`` and
``--heatmap`` as for several candidates; ``--plot`` (the pairwise bar chart) for an axis of
two values.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._common import UsageError

if TYPE_CHECKING:
    from ..compare.filters import FilterPlan
    from ..compare.many import MultiComparison
    from ..compare.thresholds import Thresholds

__all__ = [
    "check_variant_options",
    "run_variants",
    "variant_comparison",
    "variant_input",
]


def check_variant_options(args: argparse.Namespace) -> None:
    """``--baseline`` without ``--col``, and an empty axis name, are usage errors (the
    options themselves are defined with the command's, :mod:`.compare`)."""
    if args.col is None:
        raise UsageError("--baseline needs --col AXIS")
    if not args.col.strip():
        raise UsageError("--col needs an axis name")


def variant_input(args: argparse.Namespace) -> str | list[str]:
    """The one input of ``--col``: REF, or the runs of ``--ref``."""
    extra = list(getattr(args, "more", None) or ())
    if args.cmp_runs:
        raise UsageError("--col compares within one input; --cmp is for a second one")
    if args.ref_runs:
        if args.ref is not None or args.cmp is not None or extra:
            raise UsageError("give the input of --col either as REF or with --ref, not both")
        return list(args.ref_runs)
    if args.ref is None:
        raise UsageError("--col needs one input: REF (a file), or --ref RUN for each run")
    if args.cmp is not None or extra:
        raise UsageError(
            "--col compares within one input; give one file (or its runs with --ref RUN ...)"
        )
    return str(args.ref)


def variant_comparison(
    args: argparse.Namespace,
    *,
    preset: str,
    thresholds: Thresholds,
    filters: FilterPlan,
) -> MultiComparison:
    """The comparison ``--col`` asks for, with every pairwise option applied to each pair."""
    from ..compare.choices import DEFAULT_METHOD
    from ..compare.filters import parse_device_selection
    from ..compare.variants import DEVICE_AXIS, compare_variants

    ref_devices = parse_device_selection(args.reference_devices, "--reference-devices")
    cmp_devices = parse_device_selection(args.compare_devices, "--compare-devices")
    if args.col == DEVICE_AXIS and (ref_devices is not None or cmp_devices is not None):
        raise UsageError(
            "--col Device compares the devices of the file; leave --reference-devices and "
            "--compare-devices out (--baseline ID picks the baseline device)"
        )
    options: dict[str, object] = {}
    correction = getattr(args, "correction", None)
    if correction is not None:
        options["correction"] = correction
    if args.col != DEVICE_AXIS:
        options.update(ref_devices=ref_devices, cmp_devices=cmp_devices)
    return compare_variants(
        variant_input(args),
        args.col,
        baseline=args.baseline,
        filters=filters,
        method=args.method or DEFAULT_METHOD,
        preset=preset,
        thresholds=thresholds,
        ignore_devices=args.ignore_devices,
        calibration=args.calibration,
        jobs=args.jobs,
        **options,
    )


def _matrix_only(args: argparse.Namespace) -> None:
    """Options of the pairwise flow that the matrix of variants does not have."""
    if args.bulk_debug_python:
        raise UsageError("--bulk-debug-python is for a comparison of two inputs, not with --col")
    if args.display not in ("intervals", "simple"):
        raise UsageError(
            f"--display {args.display} is for a comparison of two inputs; the matrix of "
            "--col shows intervals or simple"
        )


def _gate(args: argparse.Namespace, many: MultiComparison) -> tuple[str, ...] | None:
    """``--gate`` names among the variants (all of them by default)."""
    if not args.gate:
        return None
    from ..compare.errors import ConfigError
    from ..compare.many_gate import parse_gate

    try:
        return parse_gate(args.gate, many.names)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _pairwise_plot_args(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments of the ``--plot`` chart's own :func:`._compare_plots.make_plots`."""
    return argparse.Namespace(**{**vars(args), "plot_along": None})


def _check_default_figures(args: argparse.Namespace) -> None:
    """Before any comparison, for each sink :func:`_plots` will make: a default figure name
    inside an archive is refused."""
    from ._compare_many_plots import check_many_default_figures

    if args.plot:
        from ._compare_plots import check_default_figures

        check_default_figures(_pairwise_plot_args(args))
    check_many_default_figures(args)


def _plots(args: argparse.Namespace, many: MultiComparison, prog: str) -> None:
    """``--plot-along`` and ``--heatmap`` draw every candidate; ``--plot`` (the pairwise
    bar chart) needs exactly one."""
    from ._compare_many_plots import make_many_plots

    if args.plot:
        from ._compare_plots import make_plots

        make_plots(_pairwise_plot_args(args), many.candidates[0].comparison, prog)
    make_many_plots(args, many, prog)


def run_variants(
    args: argparse.Namespace,
    prog: str,
    *,
    preset: str,
    thresholds: Thresholds,
    filters: FilterPlan,
    write_stdout: Callable[[str], None],
) -> int:
    """The ``--col`` flow after the options common to every flow were checked; returns
    the exit status (1 when a ``--fail-on`` condition holds for any candidate)."""
    from ._compare_many import deliver_many, many_exit_status
    from ._compare_outputs import check_output_paths, fail_on_conditions, requested_outputs
    from ._input_guard import check_outputs_against_inputs

    check_variant_options(args)
    _matrix_only(args)
    from ._many_outputs import check_output_directory

    check_output_directory(args)
    source = variant_input(args)
    outputs = requested_outputs(args)
    reports = [(output.option, output.path) for output in outputs]
    inputs = source if isinstance(source, list) else [source]
    check_outputs_against_inputs(
        [*reports, ("--plot-output", args.plot_output), ("--heatmap", args.heatmap)],
        [*inputs, args.calibration, args.config],
        [("--plot-along-output", args.plot_along_output)],
    )
    # After the input check: a report over a (read-only) input is named as that.
    check_output_paths(reports, args)
    from ._many_outputs import refuse_output_directory_inputs

    # The candidates (the axis values) are read with the comparison: here DIR's own files.
    refuse_output_directory_inputs(args, (), [*inputs, args.calibration, args.config])
    _check_default_figures(args)
    fail_on = fail_on_conditions(args)

    many = variant_comparison(args, preset=preset, thresholds=thresholds, filters=filters)
    if args.plot and len(many.candidates) != 1:
        raise UsageError(
            "--plot with --col needs an axis of two values (pick two with -a); "
            "--heatmap draws every candidate"
        )
    gate = _gate(args, many)
    deliver_many(many, args, prog, outputs, fail_on, gate, write_stdout)
    _plots(args, many, prog)
    return many_exit_status(many, fail_on, gate, prog)
