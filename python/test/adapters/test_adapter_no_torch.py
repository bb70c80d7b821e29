"""The torch adapter without torch: it imports, and its functions say how to install torch.

torch is hidden by ``sys.modules["torch"] = None``, which makes every ``import torch`` fail
with ``ModuleNotFoundError`` exactly as on a machine without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cuda.bench._deps import MissingDependencyError

# From a checkout only: the package is not on PyPI, where the name could be anyone's.
HINT = "python -m pip install '.[torch]' (from the nvbench-tools checkout's root)"


def run(code: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_adapter_imports_and_hints_without_torch(tmp_path: Path) -> None:
    out = run(
        """
        import sys
        sys.modules["torch"] = None  # as if torch were not installed
        import cuda.bench.adapters.torch as adapter
        from cuda.bench._deps import MissingDependencyError
        for call in (
            lambda: adapter.measurements_to_result([], "out.json"),
            lambda: adapter.measurement_samples([]),
            lambda: adapter.cuda_device_spec(0),
        ):
            try:
                call()
            except MissingDependencyError as error:
                print(error)
            else:
                print("no error")
        """,
        tmp_path,
    )
    lines = out.splitlines()
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("torch is needed for converting torch.utils.benchmark results")
        assert line.endswith(HINT)
    assert list(tmp_path.iterdir()) == []


def test_importing_the_adapters_does_not_import_torch(tmp_path: Path) -> None:
    out = run(
        """
        import sys
        import cuda.bench.adapters.torch, cuda.bench.adapters.samples
        print("torch" in sys.modules)
        """,
        tmp_path,
    )
    assert out.strip() == "False"


def test_missing_torch_in_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cuda.bench.adapters import torch as adapter

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match=re.escape(HINT)):
        adapter.measurements_to_result([], tmp_path / "r.json")
    # MissingDependencyError is an ImportError, so `except ImportError` catches it too.
    assert issubclass(MissingDependencyError, ImportError)


def test_plain_samples_need_no_torch(tmp_path: Path) -> None:
    out = run(
        """
        import sys
        sys.modules["torch"] = None
        from cuda.bench.adapters.samples import samples_to_result
        result = samples_to_result({"b": [1e-3, 2e-3, 3e-3]}, "r.json", argv=["x"])
        print(result["b"][0].sample_count)
        """,
        tmp_path,
    )
    assert out.strip() == "3"
