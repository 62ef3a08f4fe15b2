"""The optional parts of the install and what each brings: a missing one is a one-line error naming it.

``pip install dhp-bench`` is the core (scoring a judge, downloading the datasets); the builder, the
report's plots, the leaderboard and local judges come with extras. :data:`EXTRAS` mirrors
``[project.optional-dependencies]`` in pyproject.toml (tests/core/test_dependencies.py checks they
agree): the distributions of each extra, whose top-level module names are the same.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["COMMAND_EXTRA", "EXTRAS", "missing_extra", "require"]

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
    "board": ("gradio", "pandas", "matplotlib", "packaging", "starlette"),
    "local": ("torch", "transformers"),
}

#: the extra a command needs first, where a module is in several extras (pandas: build and board)
COMMAND_EXTRA: Mapping[str, str] = {
    "build": "build",
    "task": "build",
    "show": "build",
    "report": "report",
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
    extra = COMMAND_EXTRA.get(command) if COMMAND_EXTRA.get(command) in extras else extras[0]
    return f"needs {top}, which the core install leaves out: pip install 'dhp-bench[{extra}]'"


def require(extra: str) -> None:
    """A :class:`ModuleNotFoundError` for the first module of ``extra`` that is not installed (before a
    command starts work that would need it half-way)."""
    import importlib.util

    for module in EXTRAS[extra]:
        if importlib.util.find_spec(module) is None:
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)
