"""The package's own modules import nothing through the files NVIDIA's cuda-bench also
writes (docs/coinstall.md): not ``cuda/bench/results/__init__.py``, not ``__version__`` from
``cuda/bench/__init__.py``. Where cuda-bench's copies replaced ours, such an import would
break our commands; the implementation modules (``results/_tools_api.py``,
``_tools_version.py``) are ours alone."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "cuda_bench"
#: The shells over the implementation, which import it by design.
SHELLS = {PACKAGE / "__init__.py", PACKAGE / "results" / "__init__.py"}
THROUGH_SHARED_FILES = re.compile(
    r"^\s*from (?:\.\.+|cuda\.bench\.)results import [^_(]"
    r"|^\s*from (?:\.\.+|cuda\.bench\.)results import \(\s*\n?\s*[A-Za-z]"
    r"|^\s*from (?:\.\.+|cuda\.bench) import __version__"
    r"|^\s*import cuda\.bench\.results\b",
    re.MULTILINE,
)


def test_no_module_imports_through_files_cuda_bench_also_writes() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}: {match.group(0).strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in SHELLS
        for match in THROUGH_SHARED_FILES.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], (
        "import from cuda.bench.results._tools_api / cuda.bench._tools_version instead "
        f"(the #28 rewrite script does it): {offenders}"
    )


def test_the_check_sees_what_it_looks_for() -> None:
    samples = (
        "from ..results import BenchmarkResult\n",
        "    from ...results import (\n        SubBenchmarkState,\n    )\n",
        "from cuda.bench.results import ReadMode\n",
        "from .. import __version__\n",
    )
    assert all(THROUGH_SHARED_FILES.search(text) for text in samples)
    assert not THROUGH_SHARED_FILES.search("from ..results._tools_api import ReadMode\n")
    assert not THROUGH_SHARED_FILES.search("from ..results import _stats\n")
