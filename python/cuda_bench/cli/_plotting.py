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

__all__ = ["FigureSink", "check_image_path", "refuse_default_figures"]


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


def _window_pyplot(
    any_output: bool, environ: Mapping[str, str] | None
) -> tuple[ModuleType | None, str]:
    """``pyplot`` when the figures open in windows, else ``None`` and why they go to files
    (the module doc's rule)."""
    if any_output:
        return None, "other plots of this run go to files"
    if not plots.has_display(environ):
        return None, "no display"
    pyplot = plots.interactive_backend()
    if pyplot is None:
        return None, "matplotlib has no interactive backend here"
    return pyplot, ""


def refuse_default_figures(
    defaults: Iterable[tuple[str, str]],
    *,
    any_output: bool,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Before any work: ``defaults`` are the ``(what, default)`` of the figures a sink
    (:meth:`FigureSink.choose` with ``any_output``) will get without an output path, each
    with the file name it then goes to (a template when its fields come from the figure).
    When that sink writes files, a default name inside an ``nvbench-history`` archive (the
    working directory may lie in one; the archive is ingest's only) is a
    :class:`~._common.UsageError`, as a named output there is."""
    from ._input_guard import default_outputs_in_archives, refuse_default_outputs_in_archives

    inside = default_outputs_in_archives([(f"the {what}", name) for what, name in defaults])
    # The archive lookup first: probing for a window creates a pyplot figure.
    if inside and _window_pyplot(any_output, environ)[0] is None:
        refuse_default_outputs_in_archives(inside)


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
        pyplot, why = _window_pyplot(any_output, environ)
        if pyplot is not None:
            return cls(prog, pyplot)
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
        say(f"{prog}: {kind}: {visible(message)}")

    def notes(self, notes: Iterable[str]) -> None:
        for note in notes:
            self._say(self._prog, "note", note)

    def emit(self, figure: Figure, path: str | None, default: str, what: str) -> None:
        """Keep ``figure`` for the window, or write it to ``path`` (``default`` when None).

        Both were checked before any work: a named path with the command's other outputs,
        the default by :func:`refuse_default_figures`."""
        if self._pyplot is not None:
            self._shown += 1
            return
        target, warning = self._paths.claim(path if path is not None else default)
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
