"""``nvbench-json-summary``: NVBench's result tables (markdown or CSV) from a JSON result file."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._io import write_text
from ..compare.errors import FilterError
from ..compare.filters import (
    FilterPlan,
    add_filter_arguments,
    parse_device_selection,
    seen_benchmarks,
)
from ..report.summary import SummaryView, render_csv, render_markdown, select_views
from ..results._tools_api import BenchmarkResult
from ._common import ArgumentParser, UsageError, add_version_argument, prog_name, run

__all__ = ["build_parser", "main"]

_FILTERS_DEST = "filters"


def build_parser(prog: str | None = None) -> ArgumentParser:
    """The command-line parser of ``nvbench-json-summary``."""
    parser = ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description=(
            "Print the result tables NVBench prints (its '# Benchmark Results' markdown, or "
            "its CSV) from an NVBench JSON result file."
        ),
        epilog="Exit status: 0 when the tables were written, 2 for usage or input errors (a "
        "file that cannot be read, a filter or device id that selects nothing, an output "
        "that cannot be written).",
    )
    parser.add_argument("json_path", help="NVBench JSON result file (--json or --jsonbin output)")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )
    add_version_argument(parser)
    add_filter_arguments(parser, _FILTERS_DEST, verb="show")
    parser.add_argument(
        "--devices",
        metavar="ID[,ID...]",
        help="show only these device ids (CPU-only benchmarks are not affected)",
    )
    parser.add_argument(
        "--show-hidden",
        action="store_true",
        help="also show summaries NVBench hides by default (not the side-file references)",
    )
    parser.add_argument(
        "--format",
        choices=("md", "csv"),
        default="md",
        help="md: NVBench's markdown tables (default); csv: NVBench's CSV table",
    )
    parser.set_defaults(**{_FILTERS_DEST: []})
    return parser


def _has_axis_filters(plan: FilterPlan) -> bool:
    return bool(plan.global_filters) or any(sel.filters for sel in plan.selections)


def _views(
    result: BenchmarkResult, plan: FilterPlan, devices: tuple[int, ...] | None
) -> tuple[SummaryView, ...]:
    # A -b NAME that matches nothing lists the benchmarks in the file (FilterError's text).
    plan.require_matches(seen_benchmarks([result]))
    selected = [bench for bench in result.benchmarks if plan.selects_benchmark(bench.name)]
    if devices is not None:
        present = {device for bench in selected for device in bench.devices}
        missing = [device for device in dict.fromkeys(devices) if device not in present]
        if missing and not present:
            raise UsageError("--devices: the selected benchmarks are CPU-only (no devices)")
        if missing:
            listed = ", ".join(str(device) for device in sorted(present))
            raise UsageError(
                f"--devices: no selected benchmark ran on device "
                f"{', '.join(map(str, missing))} (devices: {listed})"
            )
    return select_views(
        result,
        benchmarks=lambda bench: plan.selects_benchmark(bench.name),
        states=lambda bench, state: plan.selects_state(bench.name, state.axis_values),
        devices=devices,
        drop_empty=_has_axis_filters(plan),
    )


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(prog_name("nvbench-json-summary"))
    args = parser.parse_args(argv)
    from ._input_guard import check_outputs_against_inputs

    check_outputs_against_inputs([("--output", args.output)], [args.json_path])
    try:
        plan = FilterPlan.from_args(args.filters)
        devices = (
            None if args.devices is None else parse_device_selection(args.devices, "--devices")
        )
        result = BenchmarkResult(args.json_path)
        views = _views(result, plan, devices)
    except FilterError as error:
        raise UsageError(str(error)) from None
    if args.format == "csv":
        text = render_csv(result, views, show_hidden=args.show_hidden)
    else:
        text = render_markdown(result, views, show_hidden=args.show_hidden)
    write_text(args.output or "-", text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``nvbench-json-summary``; returns the exit status (0 ok, 2 bad usage or input)."""
    return run(_main, argv, prog_name("nvbench-json-summary"))


if __name__ == "__main__":
    sys.exit(main())
