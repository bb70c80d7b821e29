"""Temporary files of an archive write, named so that ones a killed ingest left behind are
recognised and removed by the next ingest.

A temporary name carries the host and the process that made it:
``.<stem>.<host>-<pid>.<random>.tmp``. One whose process no longer runs on this host was
abandoned (the writer was killed between writing and linking it into place); one from
another host (an archive on a shared file system) or from a live process is left alone.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from pathlib import Path

__all__ = ["only_temporaries", "remove_abandoned", "temporary_path"]

_HOST_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
_NAME = re.compile(r"\..+\.(?P<host>[A-Za-z0-9_]+)-(?P<pid>[0-9]+)\.[0-9a-f]{16}\.tmp")


def _host() -> str:
    return _HOST_UNSAFE.sub("_", socket.gethostname()) or "host"


def temporary_path(directory: Path, stem: str) -> Path:
    """A fresh hidden temporary name in ``directory`` for the file ``stem``."""
    return directory / f".{stem}.{_host()}-{os.getpid()}.{secrets.token_hex(8)}.tmp"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's process, or not a pid we can ask about: keep
    return True


def remove_abandoned(root: Path) -> int:
    """Remove the temporary files under ``root`` whose writer, on this host, is gone;
    returns how many."""
    host = _host()
    removed = 0
    for folder, _, names in os.walk(root):
        for name in names:
            found = _NAME.fullmatch(name)
            if found is None or found["host"] != host or _running(int(found["pid"])):
                continue
            try:
                os.unlink(os.path.join(folder, name))
            except FileNotFoundError:
                continue
            removed += 1
    return removed


def only_temporaries(directory: Path, stem: str) -> bool:
    """Whether ``directory`` holds nothing but temporary files of ``stem``: empty, or
    another ingest is creating the archive there (its marker not yet in place)."""
    return all(
        name.startswith(f".{stem}.") and _NAME.fullmatch(name) is not None
        for name in os.listdir(directory)
    )
