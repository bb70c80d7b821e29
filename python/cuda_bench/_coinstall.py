"""Living beside NVIDIA's cuda-bench in one environment (docs/coinstall.md).

Both distributions install the package ``cuda.bench``. NVIDIA's holds the benchmark runner
(``register``, ``axis``, ``option``, ``State``, ``run_all_benchmarks``, ... from its
extension module ``cuda.bench.cuNN._nvbench``) and its own result reader; ours holds the
reader, comparison and report tools. A few files have the same path in both wheels
(``cuda/bench/__init__.py``, ``cuda/bench/results/__init__.py``, their stubs, ``py.typed``,
``cuda/bench/scripts/*``); whichever was installed last is on disk.

:func:`runner_attribute` makes ``cuda.bench.register`` and the rest of NVIDIA's runner names
resolve from NVIDIA's own modules when our ``cuda/bench/__init__.py`` is the one on disk,
bound the way NVIDIA's ``__init__`` binds them, without importing anything of NVIDIA's until
a name is asked for. (Where the shared files are NVIDIA's, our commands say so:
``cuda.bench.cli._common.shadow_notice``.)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, MutableMapping
from typing import Any, Final

__all__ = ["RUNNER_NAMES", "runner_attribute"]

#: Names NVIDIA's extension module provides (bound into ``cuda.bench`` on first use).
_EXTENSION_NAMES: Final = (
    "Benchmark",
    "CudaStream",
    "Launch",
    "NVBenchRuntimeError",
    "State",
    "Timer",
    "run_all_benchmarks",
)
_EXTENSION_TEST_NAMES: Final = ("_test_cpp_exception", "_test_py_exception")
_DECORATOR_NAMES: Final = ("axis", "option")
_PATH_NAMES: Final = (
    "get_nvbench_cmake_dir",
    "get_nvbench_include_dir",
    "get_nvbench_library_dir",
    "get_nvbench_prefix",
)

#: NVIDIA's public runner names, as ``cuda.bench`` offers them when cuda-bench is installed.
RUNNER_NAMES: Final = tuple(
    sorted((*_EXTENSION_NAMES, *_DECORATOR_NAMES, *_PATH_NAMES, "register"))
)


def _nvidia_module(module: str, wanted: str) -> Any:
    """``cuda.bench.<module>`` of NVIDIA's wheel, or a clear error when it is not installed."""
    full = f"cuda.bench.{module}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as error:
        if error.name != full:
            raise
        raise ImportError(
            f"cuda.bench.{wanted} is NVIDIA's benchmark runner, from the cuda-bench package, "
            "which is not installed: python -m pip install '.[runner]' "
            "(from the nvbench-tools checkout's root)",
            name=full,
        ) from None


def _load_extension(namespace: MutableMapping[str, Any]) -> Any:
    """NVIDIA's extension for the CUDA major version in use, its names bound into
    ``namespace`` (the ``cuda.bench`` module) as NVIDIA's ``__init__`` binds them."""
    loaded = namespace.get("_nvbench")
    if loaded is not None:
        return loaded
    paths = _nvidia_module("_paths", "State")
    major = paths._get_cuda_major_version()
    full = f"cuda.bench.cu{major}._nvbench"
    try:
        module = importlib.import_module(full)
    except ImportError as error:
        # NVIDIA's message for the same failure.
        raise ImportError(
            f"No cuda-bench extension found for CUDA {major}.x. "
            "This wheel may not include support for your CUDA version. "
            f"Supported CUDA versions: {paths._format_supported_cuda_versions()}. "
            f"Original error: {error}"
        ) from error
    package = namespace["__name__"]
    for name in _EXTENSION_NAMES:
        value = getattr(module, name)
        value.__module__ = package
        namespace[name] = value
    for name in _EXTENSION_TEST_NAMES:
        namespace[name] = getattr(module, name)
    namespace["_nvbench"] = module
    return module


def runner_attribute(namespace: MutableMapping[str, Any], name: str) -> Any:
    """The value of NVIDIA's runner name ``name`` for the module whose globals are
    ``namespace``, bound there so the next access is plain; AttributeError for other names."""
    if name in _DECORATOR_NAMES:
        value = getattr(_nvidia_module("_decorators", name), name)
    elif name in _PATH_NAMES:
        value = getattr(_nvidia_module("_paths", name), name)
    elif name == "register":
        decorators = _nvidia_module("_decorators", name)

        def get_register() -> Callable[..., Any]:
            # ``cuda.bench._register`` overrides the extension's, as in NVIDIA's package.
            override = namespace.get("_register")
            if override is not None:
                return override  # type: ignore[no-any-return]
            return _load_extension(namespace).register  # type: ignore[no-any-return]

        value = decorators.make_register(get_register)
        value.__module__ = namespace["__name__"]
    elif name == "_nvbench":
        return _load_extension(namespace)
    elif name in _EXTENSION_NAMES or name in _EXTENSION_TEST_NAMES:
        _load_extension(namespace)
        return namespace[name]
    else:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    namespace[name] = value
    return value
