"""The optional parts of the install and what each brings: a missing one is a one-line error naming it.

``pip install dhp-bench`` (from a clone: ``pip install -e .``) is the core (scoring a judge, downloading the datasets); the builder, the
report's plots, the leaderboard and local judges come with extras. :data:`EXTRAS` mirrors
``[project.optional-dependencies]`` in pyproject.toml (tests/core/test_dependencies.py checks they
agree): the distributions of each extra, whose top-level module names are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["COMMAND_EXTRA", "EXTRAS", "clone_root", "install_command", "missing_extra", "require"]

EXTRAS: Mapping[str, tuple[str, ...]] = {
    "build": (
        "datasets",
        "pandas",
        "typo",
        "jinja2",
        "pysbd",
        "wordfreq",
        "lemminflect",
        "pycountry",
        "faker",
        "rapidfuzz",
    ),
    "report": ("matplotlib",),
    "board": ("gradio", "pandas", "matplotlib", "packaging", "starlette", "brotli", "httptools"),
    "local": ("torch", "transformers"),
}

#: the extra a command needs first, where a module is in several extras (pandas: build and board)
COMMAND_EXTRA: Mapping[str, str] = {
    "build": "build",
    "task": "build",
    "show": "build",
    "report": "report",
    "compare": "report",  # they read results through dhp.scoring.report, which draws the plots
    "misses": "report",
    "stability": "report",
    "robustness": "report",
    "leaderboard": "board",
    "worker": "board",
    "space": "board",
}


def missing_extra(error: ModuleNotFoundError, command: str) -> str | None:
    """The line saying which extra brings the module ``error`` misses, or None when no extra does (a bug)."""
    top = (error.name or "").split(".")[0]
    extras = [name for name, dists in EXTRAS.items() if top in dists]
    if not extras:
        return None
    wanted = COMMAND_EXTRA.get(command)
    extra = wanted if wanted is not None and wanted in extras else extras[0]
    return f"needs {top}, which the core install leaves out: {install_command(extra)}"


def clone_root() -> Path | None:
    """The clone this package runs from (an editable install, or ``python -m dhp`` in a checkout): the
    folder holding its pyproject.toml, or None for an installed package."""
    root = Path(__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    try:
        named = pyproject.is_file() and 'name = "dhp-bench"' in pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    return root if named else None


def install_command(extra: str) -> str:
    """The command that adds ``extra`` where this package runs from: ``pip install -e '.[extra]'`` in a
    clone (run in its folder), else ``pip install 'dhp-bench[extra]'``."""
    root = clone_root()
    if root is None:
        return f"pip install 'dhp-bench[{extra}]'"
    here = Path.cwd().resolve() == root
    return f"pip install -e '.[{extra}]'" + ("" if here else f" (in {root})")


def require(extra: str) -> None:
    """A :class:`ModuleNotFoundError` for the first module of ``extra`` that is not installed (before a
    command starts work that would need it half-way)."""
    import importlib.util

    for module in EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
