"""The package's stages import downward only.

``STAGES`` is the one list of the stages, lowest first. A module belongs to the stage whose
prefix names it most precisely (``dhp.builder.cli`` is in ``cli``, ``dhp.builder.build`` in
``builder``); the root package ``dhp`` (its ``__init__``) is named exactly, not as a prefix. Every
``import`` and ``from ... import`` in every module under ``dhp/`` counts, at module level, inside
functions and under ``if TYPE_CHECKING:`` alike, so a lazy import cannot hide an upward arrow.
A module may import its own stage or a lower one; every module must belong to a stage.

Why this order: ``core`` is the vocabulary (types, the declared benchmark, errors, names,
weights, the install's extras); ``inference`` talks to judges (``dhp.inference.judge`` is the judge
record its registry builds backends from); the ``builder`` makes datasets; ``scoring`` reads them and scores a judge; the ``task``
file (schema, catalogue, starter) uses both to build and score a user's own dataset; the
``leaderboard`` shows results; ``cli`` is the ``dhp`` command and its subcommands (including
``dhp show``), which may reach anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from dhp.cli import STAGES as CLI_MODULES

ROOT = Path(__file__).resolve().parents[2]

STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "core",
        (
            "dhp",
            "dhp.types",
            "dhp.errors",
            "dhp.spec",
            "dhp.naming",
            "dhp.weights",
            "dhp.secrets",
            "dhp.fsutil",
            "dhp.records",
            "dhp.render",
            "dhp.dataset_cards",
            "dhp.extras",
        ),
    ),
    ("inference", ("dhp.inference",)),
    ("builder", ("dhp.builder",)),
    ("scoring", ("dhp.scoring",)),
    ("task", ("dhp.task",)),
    ("leaderboard", ("dhp.leaderboard",)),
    (
        "cli",
        # the modules that register subcommands are named once, in dhp.cli.STAGES
        ("dhp.cli", "dhp.__main__", "dhp.builder.show", *CLI_MODULES),
    ),
)


def stage_of(module: str, stages: tuple[tuple[str, tuple[str, ...]], ...] = STAGES) -> int | None:
    """Index in ``stages`` of the most precise prefix naming ``module``; ``None`` if none does."""
    named = [
        (len(p), index)
        for index, (_, prefixes) in enumerate(stages)
        for p in prefixes
        if module == p or ("." in p and module.startswith(p + "."))
    ]
    return max(named)[1] if named else None


def _module_name(path: Path, top: Path) -> str:
    parts = list(path.relative_to(top).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, top: Path) -> bool:
    rel = Path(*name.split("."))
    return (top / rel).with_suffix(".py").is_file() or (top / rel / "__init__.py").is_file()


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_pkg: bool, top: Path) -> Iterator[str]:
    """The package modules one import statement loads (``from X import y`` loads X.y if a module)."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    else:
        if node.level:
            base = module.split(".") if is_pkg else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        yield source
        for a in node.names:
            if _is_module(f"{source}.{a.name}", top):
                yield f"{source}.{a.name}"


def imports(top: Path, package: str = "dhp") -> Iterator[tuple[str, str, int]]:
    """``(importer, imported, line)`` for every import of ``package`` in every module under ``top``."""
    for path in sorted((top / package).rglob("*.py")):
        module = _module_name(path, top)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _targets(node, module, path.name == "__init__.py", top):
                if target == package or target.startswith(package + "."):
                    yield module, target, node.lineno


def upward_imports(top: Path, stages: tuple[tuple[str, tuple[str, ...]], ...] = STAGES) -> list[str]:
    """One line per import that runs up the stack, or whose module belongs to no stage."""
    problems = []
    for module, target, line in imports(top):
        here, there = stage_of(module, stages), stage_of(target, stages)
        if here is None or there is None:
            problems.append(f"{module}:{line}: {module if here is None else target} belongs to no stage")
        elif there > here:
            problems.append(
                f"{module}:{line} ({stages[here][0]}) imports {target} ({stages[there][0]}), a higher stage"
            )
    return problems


def test_every_module_belongs_to_a_stage() -> None:
    modules = [_module_name(p, ROOT) for p in sorted((ROOT / "dhp").rglob("*.py"))]
    assert len(modules) > 50
    assert [m for m in modules if stage_of(m) is None] == []


def test_the_package_imports_downward_only() -> None:
    found = list(imports(ROOT))
    assert len(found) > 300  # the walk sees the package's imports, function-level ones included
    assert upward_imports(ROOT) == []


def test_the_task_file_imports_builder_and_scorer_at_module_level() -> None:
    """The task stage sits above builder and scorer, so nothing hides its imports in functions."""
    tree = ast.parse((ROOT / "dhp" / "task.py").read_text(encoding="utf-8"))
    top_level = {n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)}
    nested = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) and n not in top_level
    ]
    assert nested == []


def _write(top: Path, rel: str, text: str) -> None:
    path = top / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "statement",
    [
        "from dhp.cli import UserError\n",
        "def f():\n    from dhp.task import folder_spec\n",
        "def f():\n    import dhp.scoring.run\n",
        "from .. import cli\n",
        "from dhp import task\n",
    ],
)
def test_an_upward_import_is_caught(tmp_path: Path, statement: str) -> None:
    for rel in ["dhp/__init__.py", "dhp/cli.py", "dhp/task.py", "dhp/builder/__init__.py"]:
        _write(tmp_path, rel, "")
    _write(tmp_path, "dhp/scoring/__init__.py", "")
    _write(tmp_path, "dhp/scoring/run.py", "from dhp.builder import build\n")
    _write(tmp_path, "dhp/builder/build.py", "from dhp.errors import UserError\n")
    assert upward_imports(tmp_path) == []
    _write(tmp_path, "dhp/builder/build.py", statement)
    problems = upward_imports(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith("dhp.builder.build:") and "(builder) imports" in problems[0]


def test_a_module_in_no_stage_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "dhp/__init__.py", "")
    _write(tmp_path, "dhp/newplace.py", "import dhp\n")
    assert upward_imports(tmp_path) == ["dhp.newplace:1: dhp.newplace belongs to no stage"]
