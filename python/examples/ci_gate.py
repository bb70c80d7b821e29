"""Gate a CI job on benchmark results: compare, write a markdown report, exit 1 on regressions.

    python ci_gate.py BASE.json HEAD.json --markdown report.md --fail-on slow
    python ci_gate.py            # the example data: data/ref.json vs data/cmp.json

With the example data the compare run holds one SLOW and one FAST state, so the default
``--fail-on slow`` exits with status 1: a caught regression. Exit status: 0 passed, 1 a
``--fail-on`` condition holds, 2 the inputs could not be compared (one line on stderr).

This is what ``nvbench_compare BASE HEAD --markdown PATH --fail-on slow`` does, written out
with the library calls, for CI jobs that want to add their own logic (a waiver list, a
comment bot, several result directories). In GitHub Actions, ``$GITHUB_STEP_SUMMARY`` is the
file whose markdown appears on the run's summary page; without ``--markdown`` the report is
appended there::

    # .github/workflows/bench.yml (excerpt)
    #   - name: Benchmark gate
    #     run: python python/examples/ci_gate.py base/results.json head/results.json --fail-on slow
    #   # The same with the command line tool alone:
    #   - name: Benchmark gate (CLI)
    #     run: >
    #       nvbench_compare base/results.json head/results.json
    #       --markdown "$GITHUB_STEP_SUMMARY" --fail-on slow
    #   - name: Keep the report
    #     if: always()
    #     uses: actions/upload-artifact@v4
    #     with: {name: benchmark-report, path: report.md}
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cuda.bench.compare import CompareError, Status, compare
from cuda.bench.compare.exit_policy import evaluate, parse_fail_on
from cuda.bench.report.document import DocumentOptions
from cuda.bench.report.markdown_report import render_markdown_report
from cuda.bench.results import ResultFormatError, SideFileError

DATA = Path(__file__).resolve().parent / "data"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("ref", nargs="?", default=str(DATA / "ref.json"), help="baseline run")
    parser.add_argument("cmp", nargs="?", default=str(DATA / "cmp.json"), help="new run")
    parser.add_argument(
        "--markdown",
        metavar="PATH",
        help="write the markdown report here (default: append to $GITHUB_STEP_SUMMARY if set)",
    )
    parser.add_argument(
        "--fail-on",
        default="slow",
        help="comma list of slow, fast, ambiguous, unknown, missing (default: slow)",
    )
    parser.add_argument("--preset", help="threshold preset: default, strict or permissive")
    return parser.parse_args(argv)


def write_report(text: str, markdown: str | None) -> str | None:
    """Where the report went: ``--markdown`` (replaced) or the step summary (appended)."""
    if markdown is not None:
        Path(markdown).write_text(text, encoding="utf-8")
        return markdown
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # Other steps' output may already be there: append, never replace.
        with open(summary, "a", encoding="utf-8") as stream:
            stream.write(text)
        return summary
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prog = Path(sys.argv[0]).name
    try:
        conditions = parse_fail_on(args.fail_on)
        comparison = compare(args.ref, args.cmp, preset=args.preset)
    except (CompareError, ResultFormatError, SideFileError, OSError) as error:
        print(f"{prog}: error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2

    text = render_markdown_report(comparison, DocumentOptions(fail_on=conditions))
    where = write_report(text, args.markdown)

    counts = comparison.counts
    shown = ", ".join(f"{counts[status]} {status}" for status in Status if counts[status])
    print(f"{args.ref} vs. {args.cmp}: {shown or 'no states'}")
    if where is not None:
        print(f"markdown report: {where}")
    outcome = evaluate(comparison, conditions)
    for failure in outcome.failures:
        for row in failure.rows:
            change = row.frac_diff
            size = "" if change is None else f" ({change:+.1%})"
            print(f"FAILED {failure.condition.option}: {row.benchmark} [{row.key}]{size}")
        for side, path in failure.unpaired_files:
            print(f"FAILED {failure.condition.option}: {side} file {path} has no counterpart")
    if not outcome.failed:
        print(f"passed --fail-on {','.join(c.value for c in conditions)}")
    return outcome.exit_status


if __name__ == "__main__":
    sys.exit(main())
