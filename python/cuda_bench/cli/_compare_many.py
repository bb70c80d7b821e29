"""``nvbench_compare BASE CAND1 CAND2 ...``: one baseline against several candidates.

Three or more positional inputs (or ``--names``) switch ``nvbench_compare`` to the N-way
flow: :func:`many_comparison` builds the :class:`~cuda.bench.compare.many.MultiComparison`
from the command line, :func:`render_many_texts` renders the matrix (terminal, ``--json``,
``--csv``, ``--markdown``), and the exit status follows ``--fail-on`` for the candidates
``--gate`` names (all by default). With exactly two positional inputs nothing here runs.

Inputs and names:

- ``PATH``: a file or a directory (paired by file name with the baseline's, as in a
  pairwise comparison); its name is the file stem (:func:`~.many.default_names`).
- ``NAME=PATH``: the same input named ``NAME``. Text before the first ``=`` is a name only
  when it holds no path separator, so a file whose name has ``=`` in it is given with a
  directory (``./a=b.json``), or with ``--names``, under which every positional is a path
  as written.
- A name given more than once gathers several runs of one input (in order, the first is
  the primary run), as repeated ``--ref``/``--cmp`` do for a pairwise comparison; with
  ``--runs`` every input is a list of runs, a directory standing for its ``.json`` files
  as with ``--ref DIR``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from .._untrusted import visible
from ._common import UsageError, print_warning, say, writing_output

if TYPE_CHECKING:
    from ..compare.exit_policy import FailOn
    from ..compare.filters import FilterPlan
    from ..compare.many import MultiComparison
    from ..compare.thresholds import Thresholds
    from ._compare_outputs import Output

__all__ = [
    "CORRECTION_CHOICES",
    "NamedInputs",
    "add_many_arguments",
    "is_many",
    "many_comparison",
    "named_inputs",
    "render_many_texts",
    "run_many",
]

#: ``--correction`` choices (:class:`cuda.bench.compare.many.Correction`), as text.
CORRECTION_CHOICES: Final = ("bonferroni", "none")
#: ``--display`` layouts of the matrix (:data:`cuda.bench.report.matrix.MATRIX_DISPLAYS`).
_MATRIX_DISPLAYS: Final = ("intervals", "simple")
#: Names a candidate never has but a plot often does (``--plot out.png`` typed for ``trend``'s).
_IMAGE_SUFFIXES: Final = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
_NWAY_ONLY: Final = ("--names", "--gate", "--correction", "--runs", "--output-dir")


def add_many_arguments(parser: argparse.ArgumentParser) -> None:
    """The further positional candidates and the N-way options."""
    parser.add_argument(
        "more",
        nargs="*",
        metavar="CAND",
        help=(
            "further candidates: with three or more inputs the first is the baseline and "
            "every other one is compared with it (NAME=PATH names an input)"
        ),
    )
    group = parser.add_argument_group(
        "several candidates (BASE CAND1 CAND2 ...)",
        "One baseline against each candidate, state by state, in one matrix with a Best "
        "column. Inputs are PATH or NAME=PATH (a name given twice gathers runs of one input).",
    )
    group.add_argument(
        "--names",
        metavar="BASE,A,...",
        help=(
            "names of the inputs in order (default: file stems); every positional is then "
            "a path as written; with two inputs, a matrix of one candidate"
        ),
    )
    group.add_argument(
        "--gate",
        metavar="NAME[,NAME]",
        action="append",
        default=[],
        help="candidates whose --fail-on conditions set the exit status (default: all)",
    )
    group.add_argument(
        "--correction",
        choices=CORRECTION_CHOICES,
        help=(
            "ci: confirm each FAST/SLOW at a level adjusted over the candidates, so that a "
            "state's change calls hold together at the nominal level; SAME and the "
            "intervals stay pairwise (default: bonferroni)"
        ),
    )
    group.add_argument(
        "--output-dir",
        metavar="DIR",
        help="write the matrix reports (matrix.json, matrix.csv, matrix.md), summary.md/.csv, "
        "report.html, and per candidate a folder with its highlights, regressions and "
        "improvements (markdown and CSV) and JSON report to DIR (created; its parent must exist)",
    )
    group.add_argument(
        "--runs",
        action="store_true",
        help="every input is a list of runs: a directory stands for its .json files",
    )


def is_many(args: argparse.Namespace) -> bool:
    """Whether the command line asks for the N-way flow; N-way options without it are a
    usage error."""
    if args.more or args.names is not None:
        return True
    given = [
        option
        for option, value in zip(
            _NWAY_ONLY,
            (args.names, args.gate, args.correction, args.runs, args.output_dir),
            strict=True,
        )
        if value
    ]
    if given:
        raise UsageError(
            f"{given[0]} needs several candidates: BASE CAND1 CAND2 ... (or --names with two "
            "inputs)"
        )
    return False


def _pairwise_only(args: argparse.Namespace) -> None:
    """Options of the pairwise flow that the matrix does not have."""
    found = [
        option
        for option, value in (
            ("--ref", args.ref_runs),
            ("--cmp", args.cmp_runs),
            ("--bulk-debug-python", args.bulk_debug_python),
            ("--plot", args.plot),
            ("--plot-output", args.plot_output),
        )
        if value
    ]
    if found:
        hint = (
            "; give a side's runs as NAME=PATH repeated, or --runs with directories"
            if found[0] in ("--ref", "--cmp")
            else ""
        )
        images = [str(one) for one in args.more if str(one).lower().endswith(_IMAGE_SUFFIXES)]
        if found[0] == "--plot" and images:
            # `--plot out.png` reads the image's name as one more candidate.
            hint = (
                f"; --plot takes no path: '{visible(images[0])}' was read as an input; "
                "name the image with --plot-output PATH"
            )
        raise UsageError(
            f"{found[0]} is for a comparison of two inputs, not with several candidates{hint}"
        )
    if args.display not in _MATRIX_DISPLAYS:
        raise UsageError(
            f"--display {args.display} is for a comparison of two inputs; the matrix of "
            f"several candidates shows {' or '.join(_MATRIX_DISPLAYS)}"
        )


class NamedInputs:
    """The baseline and the candidates: names with their sources (a path, or a list of
    runs), in command-line order."""

    def __init__(self, items: list[tuple[str, str | list[str]]]) -> None:
        self.items = items

    @property
    def baseline(self) -> tuple[str, str | list[str]]:
        return self.items[0]

    @property
    def candidates(self) -> dict[str, str | list[str]]:
        return dict(self.items[1:])

    @property
    def paths(self) -> list[str]:
        return [
            path
            for _, source in self.items
            for path in ([source] if isinstance(source, str) else source)
        ]


def _split(token: str) -> tuple[str | None, str]:
    name, separator, path = token.partition("=")
    if not separator or not name or "/" in name or os.sep in name:
        return None, token
    if not path:
        raise UsageError(f"'{token}': NAME=PATH needs a path after '='")
    return name, path


def named_inputs(args: argparse.Namespace) -> NamedInputs:
    """The inputs of the command line, named (module docstring); one-line usage errors."""
    from ..compare.many import default_names

    tokens = [token for token in (args.ref, args.cmp, *args.more) if token is not None]
    if args.names is not None:
        names: list[str | None] = [name.strip() for name in args.names.split(",")]
        if len(names) != len(tokens):
            raise UsageError(f"--names gives {len(names)} names for {len(tokens)} inputs")
        if any(not name for name in names):
            raise UsageError(f"--names: empty name in '{args.names}'")
        paths = tokens
    else:
        split = [_split(token) for token in tokens]
        names = [name for name, _ in split]
        paths = [path for _, path in split]
    for name, path in zip(names, paths, strict=True):
        if name is not None and "," in name:
            raise UsageError(f"input name '{name}' has a comma (--gate lists names with commas)")
        literal = f"{name}={path}"
        missing = name is not None and args.names is None and not os.path.exists(path)
        if missing and os.path.exists(literal):
            raise UsageError(f"'{literal}' is read as NAME=PATH; write './{literal}' for the file")
    defaults = default_names(paths)
    taken = {name for name in names if name is not None}
    grouped: dict[str, list[str]] = {}
    for name, path, default in zip(names, paths, defaults, strict=True):
        if name is None:
            name, suffix = default, 2
            while name in taken or name in grouped:
                name, suffix = f"{default}-{suffix}", suffix + 1
        grouped.setdefault(name, []).append(path)
    if len(grouped) < 2:
        raise UsageError("several candidates need a baseline and at least one candidate")
    items: list[tuple[str, str | list[str]]] = [
        (name, runs if len(runs) > 1 or args.runs else runs[0]) for name, runs in grouped.items()
    ]
    return NamedInputs(items)


def many_comparison(
    args: argparse.Namespace,
    inputs: NamedInputs,
    *,
    preset: str,
    thresholds: Thresholds,
    filters: FilterPlan,
) -> MultiComparison:
    """The N-way comparison the command line asks for (every pairwise option applies to
    each pair: method, thresholds, filters, devices, calibration, jobs)."""
    from ..compare.filters import parse_device_selection
    from ..compare.many import Correction, compare_many
    from ..compare.methods import DEFAULT_METHOD

    base_name, base = inputs.baseline
    return compare_many(
        base,
        inputs.candidates,
        base_name=base_name,
        correction=Correction(args.correction or Correction.BONFERRONI.value),
        method=args.method or DEFAULT_METHOD,
        preset=preset,
        thresholds=thresholds,
        filters=filters,
        ref_devices=parse_device_selection(args.reference_devices, "--reference-devices"),
        cmp_devices=parse_device_selection(args.compare_devices, "--compare-devices"),
        ignore_devices=args.ignore_devices,
        calibration=args.calibration,
        jobs=args.jobs,
    )


def render_many_texts(
    many: MultiComparison,
    args: argparse.Namespace,
    outputs: Sequence[Output],
    fail_on: tuple[FailOn, ...],
    gate: tuple[str, ...] | None,
) -> list[tuple[str, str]]:
    """``(target, text)`` of everything to write (files first, standard output last)."""
    from ..report.colors import color_enabled, status_style
    from ..report.matrix import render_matrix_document, render_matrix_markdown
    from ._compare_outputs import STDOUT, document_options

    options = document_options(args, status_style(color_enabled(args.color, sys.stdout)))
    texts: list[tuple[str, str]] = []
    for output in outputs:
        if output.option == "--json":
            from ..report.matrix_records import render_many_json

            text = render_many_json(many, fail_on=fail_on, gate=gate)
        elif output.option == "--csv":
            from ..report.matrix_records import render_many_csv

            text = render_many_csv(many, fail_on=fail_on)
        elif output.option == "--html":
            from ..report.html import render_html

            text = render_html(many, fail_on=fail_on, plot_limit=args.html_plots)
        else:
            text = render_matrix_markdown(
                many, options, fail_on=fail_on, gate=gate, limit=args.markdown_limit
            )
        texts.append((output.path, text))
    if not any(output.path == STDOUT for output in outputs):
        texts.append((STDOUT, render_matrix_document(many, options, fail_on=fail_on, gate=gate)))
    texts.sort(key=lambda item: item[0] == STDOUT)
    return texts


def run_many(
    args: argparse.Namespace,
    prog: str,
    *,
    preset: str,
    thresholds: Thresholds,
    filters: FilterPlan,
    write_stdout: Callable[[str], None],
) -> int:
    """The N-way flow after the options common to both flows were checked; returns the
    exit status."""
    _pairwise_only(args)
    from ._many_outputs import check_output_directory

    check_output_directory(args)
    inputs = named_inputs(args)
    from ._compare_outputs import check_output_paths, fail_on_conditions, requested_outputs
    from ._input_guard import check_outputs_against_inputs

    outputs = requested_outputs(args)
    reports = [(output.option, output.path) for output in outputs]
    check_outputs_against_inputs(
        [*reports, ("--heatmap", args.heatmap)],
        [*inputs.paths, args.calibration, args.config],
        [("--plot-along-output", args.plot_along_output)],
    )
    # After the input check: a report over a (read-only) input is named as that.
    check_output_paths(reports, args)
    names = tuple(name for name, _ in inputs.items[1:])
    from ._many_outputs import refuse_output_directory_inputs

    refuse_output_directory_inputs(args, names, [*inputs.paths, args.calibration, args.config])
    from ._compare_many_plots import check_many_default_figures

    check_many_default_figures(args)
    fail_on = fail_on_conditions(args)
    from ..compare.errors import ConfigError
    from ..compare.many_gate import parse_gate

    try:
        gate = parse_gate(args.gate, names) if args.gate else None
    except ConfigError as error:
        raise UsageError(str(error)) from None

    many = many_comparison(args, inputs, preset=preset, thresholds=thresholds, filters=filters)
    deliver_many(many, args, prog, outputs, fail_on, gate, write_stdout)
    from ._compare_many_plots import make_many_plots

    make_many_plots(args, many, prog)
    return many_exit_status(many, fail_on, gate, prog)


def deliver_many(
    many: MultiComparison,
    args: argparse.Namespace,
    prog: str,
    outputs: Sequence[Output],
    fail_on: tuple[FailOn, ...],
    gate: tuple[str, ...] | None,
    write_stdout: Callable[[str], None],
) -> None:
    """Tell each pair's warnings, refuse a pair that compared nothing, and write the
    matrix's texts (terminal, ``--json``, ``--csv``, ``--markdown``, ``--html``) and
    ``--output-dir``."""
    from .._io import write_text
    from ._compare_outputs import STDOUT, nothing_compared
    from ._input_guard import print_read_once
    from ._many_outputs import refuse_output_directory_inputs

    # The candidates of --col are known only now: checked before anything is printed.
    compared = [
        source
        for candidate in many.candidates
        for pair in candidate.comparison.inputs
        for source in (*pair.ref, *pair.cmp)
    ]
    refuse_output_directory_inputs(args, many.names, compared)
    print_read_once(prog, (pair for one in many.candidates for pair in one.comparison.read_once))
    # A warning every one of several candidates has (the baseline's, or the input's own:
    # --col reads one file) is told once, for all of them.
    told = [candidate.comparison.warnings for candidate in many.candidates]
    shared = set.intersection(*map(set, told)) if len(told) > 1 else set()
    for warning in dict.fromkeys(line for lines in told for line in lines if line in shared):
        print_warning(prog, f"all candidates: {warning}")
    empties: list[str] = []
    for candidate in many.candidates:
        for warning in candidate.comparison.warnings:
            if warning not in shared:
                print_warning(prog, f"{candidate.name}: {warning}")
        empty = nothing_compared(candidate.comparison)
        if empty is not None:
            if args.col is None:
                raise UsageError(f"{candidate.name}: {empty}")
            empties.append(f"{candidate.name}: {empty}")
    # --col: a value the benchmark skipped wherever it compares is its SKIP column (the
    # benchmark's decision, as each skipped variant is); only a matrix of nothing stops.
    if empties and len(empties) == len(many.candidates):
        raise UsageError(empties[0])
    for empty in empties:
        print_warning(prog, empty)
    for target, text in render_many_texts(many, args, outputs, fail_on, gate):
        if target == STDOUT:
            write_stdout(text)
        else:
            write_text(target, text)
    if args.output_dir is not None:
        from ._many_outputs import write_output_directory

        with writing_output("--output-dir", args.output_dir):
            write_output_directory(many, args, fail_on, gate)


def many_exit_status(
    many: MultiComparison, fail_on: tuple[FailOn, ...], gate: tuple[str, ...] | None, prog: str
) -> int:
    """1 when a ``--fail-on`` condition holds for a gated candidate (told on stderr)."""
    from ..compare.many_gate import evaluate_many

    outcome = evaluate_many(many, fail_on, gate=gate)
    if outcome.failed:
        causes = "; ".join(
            f"{item.name}: "
            + ", ".join(f"{f.condition.option}: {f.count}" for f in item.outcome.failures)
            for item in outcome.failing
        )
        say(f"{prog}: failed ({causes}); the summary names the candidates")
    return outcome.exit_status
