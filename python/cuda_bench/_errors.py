"""Every exception and warning type of the package, in one import-cheap module.

The command-line front ends catch these before any heavy module is loaded, so this file
must stay free of third-party imports. Users import them from ``cuda.bench.results`` and
``cuda.bench.compare``.
"""

from __future__ import annotations

import errno
import os
from typing import Final

__all__ = [
    "CompareError",
    "CompareInputError",
    "ConfigError",
    "FilterError",
    "NVBenchFormatWarning",
    "OutsideSideFileError",
    "ResultFileNotFoundError",
    "ResultFormatError",
    "SideFileError",
    "UnusableSideFileNameError",
]


class ResultFormatError(ValueError):
    """An NVBench result file cannot be read.

    The message names the file and, where one applies, the JSON path of the problem
    (``$.benchmarks[0].states[3].name``), so one line is enough to find it.
    """

    def __init__(self, file: str | None, problem: str, json_path: str | None = None) -> None:
        self.file = file
        self.problem = problem
        self.json_path = json_path
        text = problem if json_path is None else f"{problem} at {json_path}"
        super().__init__(text if file is None else f"{file}: {text}")


#: Why a result file is empty, as every reader words it: NVBench opens its JSON output
#: before the run and writes it at the end.
EMPTY_RESULT_WHY: Final = "NVBench leaves an empty JSON file when a run crashes"


def missing_file_problem(path: str | os.PathLike[str]) -> str:
    """Why ``path``, which names no file, names none: a link that leads nowhere (dangling,
    or one of a loop of links) is told as such, since ``ls`` shows it there; ``-`` with the
    way to read standard input (:func:`stdin_hint`)."""
    if os.path.islink(path):
        return "a link to no file (dangling, or a loop of links)"
    return f"no such file{stdin_hint(path)}"


def stdin_hint(path: str | os.PathLike[str]) -> str:
    """What a reader adds where ``path``, which names no file, is ``-``: the tools take no
    ``-`` for standard input (that is what it means for their outputs), but read a pipe
    through its path, ``/dev/stdin``. Empty for any other path."""
    return " (to read standard input, give /dev/stdin)" if os.fspath(path) == "-" else ""


class ResultFileNotFoundError(ResultFormatError, FileNotFoundError):
    """An NVBench result file does not exist.

    A :class:`FileNotFoundError` (so an :class:`OSError`) as Python code expects of a
    missing file, and a :class:`ResultFormatError` as the command-line tools report it.
    """

    def __init__(self, file: str) -> None:
        problem = missing_file_problem(file)
        super().__init__(file, problem)
        self.errno = errno.ENOENT
        self.strerror = problem
        self.filename = file

    # One line, as every ResultFormatError reads ("<file>: no such file"), not OSError's.
    __str__ = ValueError.__str__

    def __reduce__(self) -> tuple[type[ResultFileNotFoundError], tuple[str]]:
        return type(self), (self.filename,)


class SideFileError(ResultFormatError):
    """A ``--jsonbin`` side file exists but cannot be used (wrong size, unreadable, mismatch)."""


class OutsideSideFileError(SideFileError):
    """A side file's recorded path leads outside the JSON file's directory tree: not read,
    whether or not anything is there (the tools treat the state as one without samples)."""


class UnusableSideFileNameError(OutsideSideFileError):
    """A side file's recorded name is no path the system takes (a NUL character, a name
    too long): like one leading outside, not read, and the state is one without samples."""


class NVBenchFormatWarning(UserWarning):
    """Something in a result file is unusual but readable (unknown version, duplicates)."""


class CompareError(ValueError):
    """A comparison cannot be carried out as asked; the message says why in one line."""


class CompareInputError(CompareError):
    """The inputs do not fit together (devices, directories, missing files, ...)."""


class ConfigError(CompareError):
    """A threshold configuration (preset name, TOML file) is invalid."""


class FilterError(CompareError):
    """A ``-b``/``-a`` filter or a device selection is malformed or matches nothing."""

    def __init__(self, message: str) -> None:
        # The filter quoted as typed, but an absurd number (``X[pow2]=<400 digits>``)
        # shortened: one line.
        from ._untrusted import shortened_numbers

        super().__init__(shortened_numbers(message))
