"""Where the figures of one command-line run go: image files, or windows.

The rule, shared by ``nvbench_compare --plot/--plot-along`` and ``nvbench-histogram``:

* when the user gave an output path for *any* plot of the run, every plot goes to a file
  (a plot without its own path goes to its default name in the current directory, and a
  note on stderr says so). One run never mixes windows and files: a script that asked for
  a file must not block on a window because it also asked for a second plot;
* without output paths, plots open in windows (``plt.show()``) when a display exists
  (``$DISPLAY``/``$WAYLAND_DISPLAY``, macOS, Windows) and matplotlib has a GUI backend;
* otherwise they go to their default file names, with a note on stderr.

In file mode the Agg backend is selected before anything can import pyplot, so no window
can open, and figures are plain :class:`matplotlib.figure.Figure` objects saved atomically.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from .._untrusted import visible
from ..report import plots
from ._common import say

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FigureSink", "check_image_path"]


def check_image_path(option: str, path: str) -> None:
    """Raise :class:`ValueError` (message starting with ``option``) for an unusable path."""
    if not path:
        raise ValueError(f"{option} needs a file path")
    if path == "-":
        # Elsewhere "-" is standard output; an image is not written there, and a file
        # named "-" is no one's intent.
        raise ValueError(f"{option}: '-' is not an image path (images are not written to stdout)")
    if os.path.isdir(path):
        raise ValueError(f"{option}: '{path}' is a directory")
    try:
        plots.image_format(path)
    except ValueError as error:
        raise ValueError(f"{option}: {error}") from None


class FigureSink:
    """Receives the figures of one run and writes or shows them (see the module doc)."""

    def __init__(
        self, prog: str, pyplot: ModuleType | None = None, why_files: str = "no display"
    ) -> None:
        self._prog = prog
        self._pyplot = pyplot
        self._why_files = why_files
        self._paths = plots.OutputPaths()
        self._shown = 0

    @classmethod
    def choose(
        cls, prog: str, *, any_output: bool, environ: Mapping[str, str] | None = None
    ) -> FigureSink:
        """Windows when no output path was given and a display exists, else files."""
        why = "other plots of this run go to files" if any_output else "no display"
        if not any_output and plots.has_display(environ):
            pyplot = plots.interactive_backend()
            if pyplot is not None:
                return cls(prog, pyplot)
            why = "matplotlib has no interactive backend here"
        plots.use_file_backend()
        return cls(prog, None, why)

    @property
    def interactive(self) -> bool:
        return self._pyplot is not None

    @property
    def factory(self) -> plots.FigureFactory | None:
        """What the plot functions should make figures with (``None``: plain figures)."""
        if self._pyplot is None:
            return None
        factory: plots.FigureFactory = self._pyplot.figure
        return factory

    @staticmethod
    def _say(prog: str, kind: str, message: str) -> None:
        say(f"{prog}: {kind}: {visible(' '.join(message.split()))}")

    def notes(self, notes: Iterable[str]) -> None:
        for note in notes:
            self._say(self._prog, "note", note)

    def emit(self, figure: Figure, path: str | None, default: str, what: str) -> None:
        """Keep ``figure`` for the window, or write it to ``path`` (``default`` when None)."""
        if self._pyplot is not None:
            self._shown += 1
            return
        target, warning = self._paths.claim(path if path is not None else default)
        if path is None:
            # A named output was checked before any work; the default name goes to the
            # working directory, which may lie inside an archive (ingest's only).
            from ._input_guard import check_outputs_against_inputs

            check_outputs_against_inputs([(f"the {what}", str(target))], [])
        if warning is not None:
            self._say(self._prog, "warning", f"{what}: {warning}")
        plots.save_figure(figure, target)
        if path is None:
            self._say(
                self._prog,
                "note",
                f"{self._why_files}: wrote the {what} to {target} (give an output path to "
                "choose the file)",
            )

    def finish(self) -> None:
        """Show the windows (blocks until they are closed); nothing to do for files."""
        if self._pyplot is not None and self._shown:
            self._pyplot.show()
