"""Render the images of ``docs/plots.md`` from the example data in ``python/examples/data/``.

Each image is made by the same command line the documentation shows, run in process::

    python python/examples/make_plot_images.py [OUTPUT_DIR]    # default: docs/images/

The example data (``make_example_data.py``) has two known changes: ``reduce T=F64
Elements=2^24`` 6 % slower and ``scan T=I32 Elements=2^20`` 9 % faster.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from cuda.bench.cli import compare, histogram

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "python" / "examples" / "data"


def commands(out: Path) -> list[tuple[str, list[str]]]:
    """``(tool, argv)`` of every image, exactly as ``docs/plots.md`` shows them."""
    ref, cmp = str(DATA / "ref.json"), str(DATA / "cmp.json")
    return [
        ("nvbench_compare", [ref, cmp, "--plot", "--plot-output", str(out / "plot.png")]),
        (
            "nvbench_compare",
            [ref, cmp, "--plot", "--dark", "--plot-output", str(out / "plot_dark.png")],
        ),
        (
            "nvbench_compare",
            [
                ref,
                cmp,
                "--plot-along",
                "Elements",
                "--plot-along-output",
                str(out / "plot_along_{benchmark}.png"),
            ],
        ),
        (
            "nvbench-histogram",
            [ref, cmp, "-b", "scan", "-a", "T=I32", "-o", str(out / "histogram_ecdf.png")],
        ),
        (
            "nvbench-histogram",
            [
                ref,
                cmp,
                "-b",
                "reduce",
                "-a",
                "T=F64",
                "--kind",
                "kde",
                "-o",
                str(out / "histogram_kde.png"),
            ],
        ),
    ]


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else REPO / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    # Every command names its output file, so the tools select the Agg backend and no
    # window opens, whatever display this runs on.
    tools = {"nvbench_compare": compare.main, "nvbench-histogram": histogram.main}
    for tool, args in commands(out):
        # The comparison table is not part of the images; keep the terminal quiet.
        with contextlib.redirect_stdout(io.StringIO()):
            status = tools[tool](args)
        if status != 0:
            print(f"{tool} {' '.join(args)} failed with status {status}", file=sys.stderr)
            return status
    for image in sorted(out.glob("*.png")):
        print(image.relative_to(REPO) if image.is_relative_to(REPO) else image)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
