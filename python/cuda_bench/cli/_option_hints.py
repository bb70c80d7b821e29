"""The option a mistyped one was probably meant to be, for a usage error's line.

Abbreviations are off (:class:`._common.ArgumentParser`), so ``--archiv`` is no option; but
argparse checks required options before it reports unknown ones, so ``trend --archiv A``
said only "the following arguments are required: --archive", and an unknown option after a
subcommand is reported by the top parser, which does not know the subcommand's options.
These functions find the option-like words nobody knows and the nearest known option
(:func:`difflib.get_close_matches`), for the error line to name.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence

__all__ = ["command_after_options_hint", "unknown_option_hint"]


def unknown_option_hint(
    parser: argparse.ArgumentParser, given: Sequence[str], *, listed: str | None = None
) -> str:
    """``" (--archiv is no option; did you mean --archive?)"`` for an option-like word of
    ``given`` that neither ``parser`` nor the subcommand ``given`` names knows: the first
    with a near option, else the first; ``""`` where every option is known. Where the
    error line lists the words argparse did not take (``listed``, "unrecognized
    arguments: ..."), only those are looked at, and only a suggestion is worth adding."""
    known = _known_options(parser, given)
    unknown: list[str] = []
    for word in given:
        if word == "--":
            break
        name = word.split("=", 1)[0]
        if name in ("-", "--"):
            name = word  # '--=x' names no option '--': show the word as typed
        if not _looks_like_option(name) or name in known or _attached_value(name, known):
            continue
        if listed is not None and word not in listed.split():
            continue
        unknown.append(name)
    for name in unknown:
        meant = _nearest(name, known)
        if meant is not None:
            return f" ({_shown(name)} is no option; did you mean {meant}?)"
    if unknown and listed is None:
        return f" ({_shown(unknown[0])} is no option)"
    return ""


def command_after_options_hint(parser: argparse.ArgumentParser, given: Sequence[str]) -> str:
    """``" (the command comes first: nvbench-history trend --archive A)"`` where ``given``
    puts option words before a command name: ``--archive A trend`` (as git and docker take
    global options) made argparse call ``A`` an invalid command and say nothing of why.
    ``""`` where no command name follows an option-like word."""
    commands = _commands(parser)
    if not commands or not given or not _looks_like_option(given[0]):
        return ""
    place = next((i for i, word in enumerate(given) if word == "--" or word in commands), None)
    if place is None or given[place] == "--":
        return ""
    # The command and the commands it holds (``baseline check``): options go after all.
    end = place + 1
    inner = _commands(commands[given[place]])
    while inner and end < len(given) and given[end] in inner:
        inner = _commands(inner[given[end]])
        end += 1
    moved = [*given[place:end], *given[:place], *given[end:]]
    known = _known_options(parser, moved)
    for i, word in enumerate(moved):
        name, equals, value = word.partition("=")
        if _looks_like_option(name) and name not in known and not _attached_value(name, known):
            # A typo moved is still a typo: show the line that would run. An option the
            # command has nothing near to is not moved: no line would run
            # (``--archive=A baseline check``: check takes no --archive).
            meant = _nearest(name, known)
            if meant is None:
                return ""
            moved[i] = meant + equals + value
    return f" (the command comes first, then its options: {parser.prog} {_quoted(moved)})"


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands ``parser`` holds, by name (``{}`` for none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and action.choices:
            return dict(action.choices)
    return {}


def _quoted(words: Sequence[str]) -> str:
    # As a shell would take it back, control characters inert.
    import shlex

    return " ".join(shlex.quote(word) if word.isprintable() else repr(word) for word in words)


def _shown(name: str) -> str:
    # The word as the user typed it; repr keeps control characters inert.
    return name if name.isprintable() else repr(name)


def _attached_value(word: str, known: set[str]) -> bool:
    """``-bcopy``: a short option with its value attached, which argparse takes."""
    return not word.startswith("--") and word[:2] in known


def _nearest(name: str, known: set[str]) -> str | None:
    """The one option ``name`` begins (an abbreviation), else the closest by spelling.

    Names are compared without their dashes, which every option shares (with them,
    ``--tresh`` came nearest to ``--ref``); 0.7 of the characters in common keeps a
    dropped or swapped letter (``--archiv``, ``--jsn``) and leaves unrelated words alone."""
    begun = [option for option in known if option.startswith(name) and name.startswith("--")]
    if len(begun) == 1:
        return begun[0]
    bare = {option.lstrip("-"): option for option in known}
    close = difflib.get_close_matches(name.lstrip("-"), sorted(bare), n=1, cutoff=0.7)
    return bare[close[0]] if close else None


def _looks_like_option(word: str) -> bool:
    if len(word) < 2 or not word.startswith("-"):
        return False
    try:
        float(word)  # a negative number is a value, not an option
    except ValueError:
        return True
    return False


def _known_options(parser: argparse.ArgumentParser, given: Sequence[str]) -> set[str]:
    """The option strings of ``parser`` and of each subcommand ``given`` names in turn."""
    known: set[str] = set()
    current: argparse.ArgumentParser | None = parser
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        following: argparse.ArgumentParser | None = None
        for action in current._actions:
            known.update(action.option_strings)
            choices = action.choices if isinstance(action, argparse._SubParsersAction) else None
            if choices:
                following = next((choices[w] for w in given if w in choices), following)
                if following is None:
                    # No command named: an option of any of them is no unknown option
                    # (``nvbench-history --archive=A`` was told --archive is none).
                    for command in choices.values():
                        for inner in command._actions:
                            known.update(inner.option_strings)
        current = following
    return known
