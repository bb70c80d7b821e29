"""Refuse an output path that names one of the run's inputs, before any work is done.

A report, plot or calibration written over a result file, one of its side files or the
calibration it reads would destroy the evidence it was made from (and atomic writes
replace even a read-only file). The inputs are the given files, every file under a given
directory, and the side files each input JSON file records. Files are compared by
identity (device and inode), so links and other spellings of a path are caught too.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from ._common import UsageError

__all__ = ["check_outputs_against_inputs"]

#: A recorded side-file name in an NVBench JSON file (``"name": "filename"`` with its
#: string ``value``); a cheap scan that needs no decoding of the whole file.
_RECORDED = re.compile(
    rb'"name"\s*:\s*"filename"\s*,\s*"type"\s*:\s*"string"\s*,\s*"value"\s*:\s*'
    rb'("[^"\\]*(?:\\.[^"\\]*)*")'
)
#: A ``--plot-along-output`` template field: any text may stand in its place.
_FIELD = re.compile(r"\{[a-z_]+\}")


def _side_files(json_path: Path) -> Iterator[Path]:
    # Here: most runs write no file that exists already, and never get this far.
    import json

    from ..results._sidecar import resolve_side_file
    from ..results._tools_api import SideFileError

    try:
        data = json_path.read_bytes()
    except OSError:
        return
    for match in _RECORDED.finditer(data):
        try:
            filename = json.loads(match[1])
        except ValueError:
            continue
        if not isinstance(filename, str):
            continue
        try:
            found = resolve_side_file(json_path, filename)
        except SideFileError:
            continue  # outside the JSON file's tree: never read, so never an input
        if found:
            yield found


def _input_files(inputs: Iterable[str]) -> Iterator[Path]:
    """Every file the run reads: given files, files under given directories, and the side
    files the JSON files among them record."""
    for text in inputs:
        path = Path(text)
        if path.is_dir():
            for folder, _, names in os.walk(path):
                for name in names:
                    found = Path(folder, name)
                    yield found
                    if name.endswith(".json"):
                        yield from _side_files(found)
        elif path.is_file():
            yield path
            if path.suffix == ".json":
                yield from _side_files(path)


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = _FIELD.split(os.path.abspath(template))
    return re.compile(".+".join(re.escape(part) for part in parts) + r"\Z")


def check_outputs_against_inputs(
    outputs: Iterable[tuple[str, str | None]],
    inputs: Iterable[str | None],
    templates: Iterable[tuple[str, str | None]] = (),
) -> None:
    """Raise :class:`UsageError` when an output ``(option, path)`` is one of the input
    files (or a ``(option, template)`` of plot file names could expand to one).

    Only outputs that exist as regular files can be inputs, so the inputs are listed only
    then: a run writing new files costs nothing here.
    """
    existing = [
        (option, path, identity)
        for option, path in outputs
        if path and path != "-" and (identity := _identity(path)) is not None
    ]
    patterns = [
        (option, template, _template_pattern(template))
        for option, template in templates
        if template and _FIELD.search(template)
    ]
    existing += [
        (option, template, identity)
        for option, template in templates
        if template and not _FIELD.search(template) and (identity := _identity(template))
    ]
    if not existing and not patterns:
        return
    for source in _input_files(text for text in inputs if text):
        identity = _identity(source)
        for option, path, output in existing:
            if identity == output:
                raise UsageError(f"{option}: '{path}' is the input file '{source}'")
        if identity is None:
            continue
        for option, template, pattern in patterns:
            for spelling in {os.path.abspath(source), os.path.realpath(source)}:
                if pattern.match(spelling):
                    raise UsageError(
                        f"{option}: '{template}' could write over the input file '{source}'"
                    )
