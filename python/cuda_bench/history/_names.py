"""State names as ``nvbench_compare`` shows them, from the names NVBench stored; lists of
names in one line (:func:`brief_names`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["NAMES_SHOWN", "brief_names", "display_state_name", "short_commit"]

#: Benchmark names an error line lists before "and N more".
NAMES_SHOWN: Final = 10


#: Characters of a commit hash shown (as ``git log --abbrev=12``), and of any other label.
_HASH_SHOWN: Final = 12
_LABEL_SHOWN: Final = 40
#: A hash: hex digits beyond the 12 shown, with a letter (an all-digit label, a date
#: stamp such as 20261130020000, is no hash: cut at 12 two stamps of a minute read alike).
_HASH: Final = re.compile(r"(?=[0-9]*[a-fA-F])[0-9a-fA-F]{13,}")


def short_commit(commit: str) -> str:
    """A commit as the reports and the archive's messages show it: a hash by its first 12
    digits, as git abbreviates; any other label (``--commit "fix perf regression"``, a tag,
    a date stamp) whole, up to 40 characters; a longer one keeps its start and its end
    (where build numbers differ) around ``…``. Cutting every label at 12 showed ``fix perf
    reg`` and made two labels that share 12 characters one."""
    if _HASH.fullmatch(commit):
        return commit[:_HASH_SHOWN]
    if len(commit) > _LABEL_SHOWN:
        half = (_LABEL_SHOWN - 1) // 2
        return f"{commit[:half]}…{commit[-(_LABEL_SHOWN - 1 - half) :]}"
    return commit


def brief_names(names: Iterable[str], shown: int = NAMES_SHOWN) -> str:
    """``a, b, c`` sorted, the first ``shown`` of them and ``and N more``; ``none``."""
    ordered = sorted(set(names))
    text = ", ".join(ordered[:shown]) or "none"
    if len(ordered) > shown:
        text += f" and {len(ordered) - shown} more"
    return text


#: The archive's token of a power-of-two axis, ``Elements[pow2]=16`` (NVBench's ``-a``
#: syntax; its JSON's state name says ``Elements=2^16``).
_POW2_TOKEN: Final = re.compile(r"(^|\s)([^\s=\[\]]+)\[pow2\]=(\d+)(?=\s|$)")
#: The name NVBench stores for a GPU state without axes: its device only.
_DEVICE_ONLY: Final = re.compile(r"Device=\d+")


def display_state_name(state_name: str) -> str:
    """A stored state name as ``nvbench_compare`` shows it: ``Elements[pow2]=16`` becomes
    ``Elements=2^16``; every other token stays as NVBench wrote it. A state without axes,
    stored under its device alone (``Device=0``, the archive's key, as NVIDIA's reader names
    it), has no name to show: the device has its own column, and ``nvbench_compare`` shows
    no axis columns for it."""
    if _DEVICE_ONLY.fullmatch(state_name):
        return ""
    return _POW2_TOKEN.sub(r"\1\2=2^\3", state_name)
