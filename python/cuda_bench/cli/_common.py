"""What every command-line front end shares: error handling and exit statuses."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NoReturn

from .._deps import MissingDependencyError
from .._errors import CompareError, ResultFormatError
from .._untrusted import SIDE_FILES_ANYWHERE, visible
from ._interrupts import watching_interrupts
from ._stdout import named_stdout

__all__ = [
    "COINSTALL_REPAIR",
    "EXIT_FAILED_CHECK",
    "EXIT_OK",
    "EXIT_USAGE",
    "FOLDER_INPUTS_HELP",
    "STDOUT",
    "ArgumentParser",
    "UsageError",
    "add_version_argument",
    "package_version",
    "percentage",
    "positive_int",
    "prog_name",
    "run",
    "shadow_notice",
    "tolerance_percentage",
    "utf8_stdio",
    "write_stdout",
    "writing_output",
]

#: The path that means standard output.
STDOUT: Final = "-"
#: How nvbench-walltime, nvbench-histogram and nvbench-plot-bwutil take their inputs
#: (``._input_guard.result_files_read_once``), after the kind of JSON file each reads.
FOLDER_INPUTS_HELP: Final = (
    "or directories (their non-empty *.json files, byte-identical ones read once: NVBench's "
    "--json file beside --jsonbin); a run given twice (the same file, or a copy of it) is "
    "refused"
)

EXIT_OK = 0
#: A ``--fail-on`` condition holds.
EXIT_FAILED_CHECK = 1
#: Usage error or unusable input.
EXIT_USAGE = 2


class UsageError(Exception):
    """A command-line problem the user must fix; printed as one line, exit status 2."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, given the terminal width without importing :mod:`shutil`.

    argparse makes a formatter for every option it adds, and its width lookup imports
    shutil (and with it the compression modules), which a comparison otherwise never needs.
    The width is the one :func:`shutil.get_terminal_size` would give: ``$COLUMNS``, else
    the terminal's, else 80; minus 2, as argparse takes it.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns() -> int:
    """Columns of the terminal, as :func:`shutil.get_terminal_size` reports them."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class ArgumentParser(argparse.ArgumentParser):
    """argparse with our error convention: one ``prog: error: ...`` line, exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        # ``--thresh 5`` silently meaning ``--threshold-diff`` would break the day an
        # option starting the same way is added: options are spelt out.
        kwargs.update(allow_abbrev=False)  # whoever calls: abbreviations stay off
        super().__init__(*args, **kwargs)
        self._given: tuple[str, ...] = ()
        #: The parser that hands this one its words (a command's parser), and the words it
        #: was given: ``--archive=A trend`` leaves ``--archive=A`` with the outer parser, and
        #: the command's parser, missing it, can still say that options follow the command.
        self._outer: tuple[ArgumentParser, tuple[str, ...]] | None = None

    # argparse's own signature is overloaded on the namespace type; this one is what the
    # tools call.
    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # Kept for error(): the words a mistyped option is looked for in.
        self._given = tuple(sys.argv[1:] if args is None else args)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command in action.choices.values():
                    if isinstance(command, ArgumentParser):
                        command._outer = (self, self._given)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if message.startswith(("unrecognized arguments", "the following arguments are")):
            from ._option_hints import unknown_option_hint

            listed = message.partition(":")[2] if message.startswith("unrecognized") else None
            hint = unknown_option_hint(self, self._given, listed=listed)
            if not hint:
                from ._option_hints import command_after_options_hint

                # ``--archive=A trend``: the command's parser misses the option the outer
                # one was left with (two up for ``baseline check``), or the outer one
                # cannot place it.
                hint = command_after_options_hint(self, self._given)
                outer = self._outer
                while not hint and outer is not None:
                    # An option nobody knows before the command is said as such, not moved.
                    hint = unknown_option_hint(*outer) or command_after_options_hint(*outer)
                    outer = outer[0]._outer
            message += hint
        elif "invalid choice" in message:
            from ._option_hints import command_after_options_hint

            message += command_after_options_hint(self, self._given)
        # argparse quotes the words typed: control characters shown, not obeyed.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {visible(message)}\n")


def package_version() -> str:
    """The installed distribution's version (package metadata), else the source tree's."""
    from importlib import metadata

    try:
        return metadata.version("nvbench-tools")
    except metadata.PackageNotFoundError:
        from .._tools_version import __version__

        return __version__


class _VersionAction(argparse.Action):
    """``--version``: reads the package metadata only when asked (it costs an import)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def add_version_argument(parser: argparse.ArgumentParser) -> None:
    """``--version``: print ``PROG VERSION`` (nvbench-tools' version) and exit 0."""
    parser.add_argument(
        "--version", action=_VersionAction, help="show the nvbench-tools version and exit"
    )


class _SideFilesAnywhereAction(argparse.Action):
    """``--side-files-anywhere``: read side files outside the JSON file's directory tree.

    Set as an environment variable, so the processes a comparison is split over read
    files the same way; :func:`run` puts the variable back as it was when it returns."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        os.environ[SIDE_FILES_ANYWHERE] = "1"
        setattr(namespace, self.dest, True)


def add_side_files_argument(parser: argparse.ArgumentParser) -> None:
    """``--side-files-anywhere``: follow side-file names that lead out of the JSON file's
    directory tree (refused by default: result files may come from untrusted places)."""
    parser.add_argument(
        "--side-files-anywhere",
        action=_SideFilesAnywhereAction,
        help="read --jsonbin side files wherever a result file's names lead (default: only "
        "inside the JSON file's directory tree; see docs/security.md)",
    )


def non_negative_int(text: str) -> int:
    """An argparse type: an integer of at least 0 (``--html-plots 0``: no plots)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def directory_path(text: str) -> str:
    """An argparse type: a directory's path, never empty (an unset ``"$ARCHIVE"`` would
    otherwise name the working directory)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a directory, got an empty path")
    return text


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


@contextlib.contextmanager
def writing_output(option: str, path: str | None) -> Iterator[None]:
    """Around the writing of the output ``option`` names at ``path``: an :class:`OSError`
    (a directory no one may write, such as ``/proc``; a full disk) becomes one line naming
    the option and the path, as the checks before the work do, and the file the error
    names where it is another (a page of a site). With no ``path`` (the option not given:
    stdout, or a default name the write words itself) errors pass as they are."""
    try:
        yield
    except OSError as error:
        if path is None:
            raise
        named = error.filename
        inner = ""
        if named is not None and os.path.abspath(os.fspath(named)) != os.path.abspath(path):
            inner = f"{os.fspath(named)}: "
        raise UsageError(
            f"{option}: {path}: cannot be written ({inner}{error.strerror or error})"
        ) from None


def say(line: str) -> None:
    """``line`` on stderr, or nowhere when stderr cannot be written (``2>/dev/full``, a
    closed pipe): the exit status must still be the command's, never the 1 of an escaped
    OSError, which CI reads as a regression found. A closed stderr (``2>&-``) leaves
    ``sys.stderr`` ``None``, which ``print`` takes for standard output: the line is dropped,
    never mixed into the output (``detect --json - 2>&-`` wrote its warnings into the JSON)."""
    stderr = sys.stderr
    if stderr is None:
        return
    with contextlib.suppress(OSError, ValueError):
        print(line, file=stderr, flush=True)


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None, prog: str) -> int:
    """Call ``main`` and turn expected failures into one line on stderr and exit status 2.

    Bad input files, missing optional packages, usage problems and I/O errors are things
    a user can act on from one line; a traceback would only bury the message.
    """
    # Emoji and names of any script on a console of another encoding, as every command
    # writes them (``LC_ALL=C``, ``en_US.ISO-8859-1``): never an encoding error. For this
    # run only: a program calling ``main(argv)`` gets its streams back as they were.
    with utf8_stdio():
        return _run(main, argv, prog)


def _run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None, prog: str) -> int:

    def show_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: object = None,
        line: str | None = None,
    ) -> None:
        # One line per warning, like errors; the Python source location is no help here.
        # Messages quote names from result files: control characters shown, not obeyed.
        say(f"{prog}: warning: {visible(str(message))}")

    notice = shadow_notice()
    if notice is not None:
        # NVIDIA's cuda-bench replaced shared files: this tool imports only modules it does
        # not ship and runs on, but the user's ``import cuda.bench.results`` is not ours.
        say(f"{prog}: warning: {notice}")
    anywhere = os.environ.get(SIDE_FILES_ANYWHERE)
    try:
        with watching_interrupts() as interrupts:
            status = EXIT_USAGE
            try:
                with warnings.catch_warnings(), named_stdout():
                    warnings.showwarning = show_warning
                    status = main(argv)
            except BaseException:
                if not interrupts.seen:
                    raise
            if interrupts.seen:
                # Ctrl-C, whatever a library made of it (._interrupts): an interrupted run.
                raise KeyboardInterrupt
            return status
    except (ResultFormatError, CompareError, MissingDependencyError, UsageError) as error:
        say(f"{prog}: error: {visible(str(error))}")
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        say(f"{prog}: error: {visible(f'{where}{error.strerror or error}')}")
    except MemoryError:
        # A crafted size (a sparse JSON file of gigabytes, a side file recorded with billions
        # of values) under a memory limit: exit 1 would read as a failed --fail-on check.
        say(
            f"{prog}: error: out of memory reading the inputs "
            "(a file far larger than NVBench writes?)"
        )
    except KeyboardInterrupt:
        say(f"{prog}: interrupted")
        return 130
    finally:
        # --side-files-anywhere sets it for this run only (tests call main in-process).
        if anywhere is None:
            os.environ.pop(SIDE_FILES_ANYWHERE, None)
        else:
            os.environ[SIDE_FILES_ANYWHERE] = anywhere
    return EXIT_USAGE


def print_warning(prog: str, text: str) -> None:
    """``PROG: warning: TEXT`` on stderr as one line: warnings quote names from result
    files, so control characters (a line break, a tab, a carriage return included) are
    shown as their escapes, as stdout shows the same names, not obeyed nor folded."""
    say(f"{prog}: warning: {visible(text)}")


def print_note(prog: str, text: str) -> None:
    """``PROG: note: TEXT`` on stderr as one line, shown as :func:`print_warning` shows it."""
    say(f"{prog}: note: {visible(text)}")


def prog_name(default: str) -> str:
    """The name the user typed (``nvbench_compare`` or ``nvbench-compare``)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    # ``python -c`` sets argv[0] to "-c" (so do pytest-xdist's workers): no program name.
    typed = name and not name.startswith("-") and not name.endswith(".py")
    return name if typed else default


def percent_number(text: str) -> float:
    """The number of a percentage as typed: ``2`` and ``2%`` are both 2 (``float``'s
    ``ValueError`` for anything else)."""
    return float(text.strip().removesuffix("%"))


def percentage(text: str) -> float:
    """A finite, non-negative percentage (as given, not a fraction; ``2%`` is 2 too)."""
    try:
        value = percent_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0.0):
        raise argparse.ArgumentTypeError(f"must be a finite non-negative percentage, got {text!r}")
    return value


def tolerance_percentage(text: str) -> float:
    """A tolerance in percent, as a fraction (``[ci] tolerance`` allows up to 100 %)."""
    value = percentage(text)
    if value > 100.0:
        raise argparse.ArgumentTypeError(f"must be at most 100 (percent), got {text!r}")
    return value / 100.0


# -- beside NVIDIA's cuda-bench (docs/coinstall.md) -------------------------------------------

#: The command that puts our copies of the files cuda-bench also writes back.
COINSTALL_REPAIR = (
    "python -m pip install --force-reinstall --no-deps . (from the nvbench-tools checkout's root)"
)


def _ours(module: str, marker: str) -> bool | None:
    """Whether the ``__init__.py`` of package ``module`` on disk is ours (it holds
    ``marker``); None when the package has none (removed with cuda-bench)."""
    loaded = sys.modules.get(module)
    if loaded is not None and getattr(loaded, "__file__", None) is not None:
        return bool(getattr(loaded, marker, False))
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith("__init__.py"):
        return None
    try:
        with open(spec.origin, encoding="utf-8") as handle:
            return marker in handle.read()
    except OSError:
        return None


def shadow_notice() -> str | None:
    """One line saying which of our shared files NVIDIA's cuda-bench replaced or removed,
    and the command that restores them; None when ours are in place."""
    replaced: list[str] = []
    missing: list[str] = []
    checks = (
        ("cuda.bench", "_NVBENCH_TOOLS_PACKAGE", "cuda/bench/__init__.py"),
        ("cuda.bench.results", "_NVBENCH_TOOLS_RESULTS", "cuda/bench/results/__init__.py"),
    )
    for module, marker, path in checks:
        ours = _ours(module, marker)
        if ours is None:
            missing.append(path)
        elif not ours:
            replaced.append(path)
    if not replaced and not missing:
        return None
    what = []
    if replaced:
        what.append(f"replaced by cuda-bench's: {', '.join(replaced)}")
    if missing:
        what.append(f"missing (removed with cuda-bench?): {', '.join(missing)}")
    return (
        f"nvbench-tools files {'; '.join(what)}; this tool is unaffected, but "
        f"`import cuda.bench.results` is not nvbench-tools' API; repair: {COINSTALL_REPAIR}"
    )


@contextlib.contextmanager
def utf8_stdio() -> Iterator[None]:
    """Emoji and non-ASCII names must never crash a run on a non-UTF-8 console: stdout and
    stderr write UTF-8 inside, and get their own encoding and error handler back after."""
    saved = [
        (stream, getattr(stream, "encoding", None), getattr(stream, "errors", None))
        for stream in (sys.stdout, sys.stderr)
    ]
    for stream, _, _ in saved:
        _reconfigured(stream, "utf-8", "replace")
    try:
        yield
    finally:
        for stream, encoding, errors in saved:
            if encoding is not None:
                _reconfigured(stream, encoding, errors)


def _reconfigured(stream: object, encoding: str, errors: str | None) -> None:
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return
    with contextlib.suppress(AttributeError, OSError, ValueError):
        reconfigure(encoding=encoding, errors=errors)


def write_stdout(text: str) -> None:
    from .._io import write_text

    try:
        write_text(STDOUT, text)
    except BrokenPipeError:
        # The reader left early (``| head``): not a failure of the comparison. Point stdout
        # at /dev/null so the interpreter's final flush does not complain a second time.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
