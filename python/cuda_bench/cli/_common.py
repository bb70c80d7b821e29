"""What every command-line front end shares: error handling and exit statuses."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import NoReturn

from .._deps import MissingDependencyError
from .._errors import CompareError, ResultFormatError

__all__ = [
    "EXIT_FAILED_CHECK",
    "EXIT_OK",
    "EXIT_USAGE",
    "ArgumentParser",
    "UsageError",
    "prog_name",
    "run",
]

EXIT_OK = 0
#: A ``--fail-on`` condition holds.
EXIT_FAILED_CHECK = 1
#: Usage error or unusable input.
EXIT_USAGE = 2


class UsageError(Exception):
    """A command-line problem the user must fix; printed as one line, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with our error convention: one ``prog: error: ...`` line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None, prog: str) -> int:
    """Call ``main`` and turn expected failures into one line on stderr and exit status 2.

    Bad input files, missing optional packages, usage problems and I/O errors are things
    a user can act on from one line; a traceback would only bury the message.
    """

    def show_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: object = None,
        line: str | None = None,
    ) -> None:
        # One line per warning, like errors; the Python source location is no help here.
        print(f"{prog}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            return main(argv)
    except (ResultFormatError, CompareError, MissingDependencyError, UsageError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"{prog}: error: {where}{error.strerror or error}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    return EXIT_USAGE


def prog_name(default: str) -> str:
    """The name the user typed (``nvbench_compare`` or ``nvbench-compare``)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name and not name.endswith(".py") and name != "__main__.py" else default
