"""A module of ``benchmarks/`` loaded by its path, for the tests that call its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as the module ``dhp_NAME`` (by path: an installed distribution may own the
    top-level name ``benchmarks``), registered in ``sys.modules`` so that its dataclasses find it."""
    module_name = f"dhp_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
