"""Around the figures: atomic image files, output paths and templates, window or file.

:func:`save_figure` writes atomically (a temporary file beside the target, then a rename),
:class:`OutputPaths` gives a path used twice in one run ``-copy-N``, the
``--plot-along-output`` template helpers name the files, and :func:`has_display` /
:func:`use_file_backend` / :func:`interactive_backend` serve the command lines' choice
between a window and a file.
"""

from __future__ import annotations

import os
import re
import string
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Final

from .style import require_matplotlib

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "ALONG_FIELDS",
    "DEFAULT_DPI",
    "OutputPaths",
    "check_template",
    "expand_template",
    "has_display",
    "image_format",
    "interactive_backend",
    "sanitize_field",
    "save_figure",
    "use_file_backend",
]

#: Resolution of saved images (dots per inch), as upstream.
DEFAULT_DPI: Final = 150
#: ``--plot-along-output`` template fields.
ALONG_FIELDS: Final = ("axis", "benchmark", "device", "pair")

_FIELD_JUNK = re.compile(r"[^A-Za-z0-9_-]+")
# Backends that never open a window; MPLBACKEND set to one of them means "no display".
_FILE_BACKENDS: Final = frozenset(
    {"agg", "cairo", "pdf", "pgf", "ps", "svg", "template", "module://matplotlib_inline"}
)


def image_format(path: str | os.PathLike[str]) -> str:
    """The image format a path asks for by its extension (``png`` without one).

    Raises :class:`ValueError` for an extension matplotlib cannot write.
    """
    suffix = Path(os.fspath(path)).suffix.lower().lstrip(".")
    if not suffix:
        return "png"
    require_matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    supported = sorted(FigureCanvasBase.get_supported_filetypes())
    if suffix not in supported:
        raise ValueError(
            f"cannot write image format '.{suffix}' (supported: {', '.join(supported)})"
        )
    return suffix


def save_figure(figure: Figure, path: str | os.PathLike[str], *, dpi: int = DEFAULT_DPI) -> Path:
    """Write ``figure`` to ``path`` atomically (a temporary file beside it, then a rename).

    The format follows the extension (:func:`image_format`); a missing parent directory is
    an error, never created. Nothing half-written is ever visible under ``path``. The file gets the
    permissions a plain ``open()`` would give it (an existing file keeps its own).
    """
    from ..._io import atomic_path

    fmt = image_format(path)
    target = Path(os.fspath(path))
    with atomic_path(target, suffix=f".{fmt}") as temporary:
        figure.savefig(temporary, format=fmt, dpi=dpi, facecolor=figure.get_facecolor())
    return target


class OutputPaths:
    """Hands out output paths for one run; a path asked for twice gets ``-copy-N``.

    The first use of a path takes it (overwriting a file left by an earlier run); later
    uses get ``stem-copy-N.ext`` with the first N that is neither taken in this run nor on
    disk, and a warning saying so.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, path: str | os.PathLike[str]) -> tuple[Path, str | None]:
        """The path to write and, when it had to change, a warning."""
        wanted = Path(os.fspath(path))
        key = os.path.realpath(wanted)
        if key not in self._taken:
            self._taken.add(key)
            return wanted, None
        number = 1
        while True:
            candidate = wanted.with_name(f"{wanted.stem}-copy-{number}{wanted.suffix}")
            candidate_key = os.path.realpath(candidate)
            # The resolved path: ``sub/../x`` must count as ``x`` even when ``sub`` is absent.
            if candidate_key not in self._taken and not os.path.exists(candidate_key):
                self._taken.add(candidate_key)
                return candidate, (
                    f"'{wanted}' was already written in this run; writing '{candidate}' instead"
                )
            number += 1


def sanitize_field(text: str) -> str:
    """A template field value safe in a file name: runs of characters outside
    ``[A-Za-z0-9_-]`` become ``_``, leading and trailing ``._-`` go, empty becomes ``value``.

    >>> sanitize_field("Elements{io}")
    'Elements_io'
    >>> sanitize_field("../..")
    'value'
    """
    cleaned = _FIELD_JUNK.sub("_", text).strip("._-")
    return cleaned or "value"


def check_template(template: str, fields: Sequence[str] = ALONG_FIELDS) -> None:
    """Raise :class:`ValueError` unless ``template`` uses only ``{field}`` placeholders.

    Format specs, conversions, attribute or index access and positional ``{}`` are refused:
    file names need none of them, and a typo should fail before any work is done.
    """
    if not template:
        raise ValueError("the output template is empty")
    allowed = ", ".join(f"{{{name}}}" for name in sorted(fields))
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(f"template is invalid: {error}") from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in fields or spec or conversion:
            shown = (
                "{"
                + name
                + (f"!{conversion}" if conversion else "")
                + (f":{spec}" if spec else "")
                + "}"
            )
            raise ValueError(f"supports template fields {allowed}; got {shown}")


def expand_template(template: str, values: Mapping[str, str]) -> str:
    """``template`` with every ``{field}`` replaced by its :func:`sanitize_field` value."""
    check_template(template, tuple(values))
    return template.format_map({name: sanitize_field(value) for name, value in values.items()})


# ---------------------------------------------------------------------------------------------
# Window or file


def has_display(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether a plot window could be shown: macOS and Windows always have a desktop; other
    systems need ``$DISPLAY`` or ``$WAYLAND_DISPLAY``. ``MPLBACKEND`` naming a file-only
    backend (``agg``, ``pdf``, ...) means no window either."""
    env = os.environ if environ is None else environ
    backend = env.get("MPLBACKEND", "").strip().lower()
    if backend in _FILE_BACKENDS:
        return False
    system = sys.platform if platform is None else platform
    if system == "darwin" or system.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def use_file_backend() -> None:
    """Select the Agg backend, so that nothing drawn later can open a window.

    Done before pyplot is imported (``matplotlib.use`` switches pyplot over if it already
    was). The figures of this module need no backend to be saved; this protects against
    anything else that reaches for pyplot.
    """
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")


def interactive_backend() -> ModuleType | None:
    """``matplotlib.pyplot`` when its backend can show windows, else ``None``.

    pyplot falls back to Agg silently when no GUI toolkit is installed; then ``show()``
    would return at once and show nothing, so callers should write files instead.
    """
    require_matplotlib()
    import matplotlib.pyplot as pyplot

    probe = pyplot.figure()
    try:
        framework = type(probe.canvas).required_interactive_framework
    finally:
        pyplot.close(probe)
    return pyplot if framework is not None else None
