"""The lazily imported numpy stands for the real module."""

from __future__ import annotations

import sys

import numpy
import pytest
from cuda.bench._lazy import LazyModule


def test_attributes_come_from_the_module_and_are_kept() -> None:
    lazy = LazyModule("numpy")
    assert "numpy" in repr(lazy)
    assert lazy.sort is numpy.sort
    assert lazy.float64 is numpy.float64
    assert "sort" in vars(lazy)  # looked up once, then an ordinary attribute


def test_the_import_waits_for_the_first_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "json", raising=False)
    lazy = LazyModule("json")
    assert "json" not in sys.modules
    assert lazy.dumps([1]) == "[1]"
    assert "json" in sys.modules


def test_missing_attributes_and_modules_raise_as_usual() -> None:
    with pytest.raises(AttributeError):
        _ = LazyModule("numpy").no_such_function
    with pytest.raises(ModuleNotFoundError):
        _ = LazyModule("no_such_module_anywhere").anything
