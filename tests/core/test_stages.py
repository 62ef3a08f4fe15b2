"""The package's stages import downward only, and its folders are the stages.

``STAGES`` is the one order of the stages, lowest first. A module's stage is its folder: the first
part below ``dhp`` (``dhp.builder.perturb.rules`` is in ``builder``, ``dhp.cli.score`` in ``cli``); the
package's own top-level modules (``dhp.types``, ``dhp.spec``, ...) and ``dhp`` itself are ``core``, and
``dhp.__main__`` (``python -m dhp``) is the command line. A folder that is not a stage is reported.
Every ``import`` and ``from ... import`` in every module under ``dhp/`` counts, at module level, inside
functions and under ``if TYPE_CHECKING:`` alike, so a lazy import cannot hide an upward arrow.

Why this order: ``core`` is the vocabulary (types, the declared benchmark and its operations' facts,
errors, names, weights, the install's extras); ``data`` is the dataset format the builder writes and
everyone reads; ``inference`` talks to judges; the ``builder`` makes datasets; ``scoring`` reads them
and scores a judge; ``task`` reads (without the builder) and builds a user's own dataset; the
``leaderboard`` shows results; ``cli`` is the ``dhp`` command, which may reach anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STAGES: tuple[str, ...] = ("core", "data", "inference", "builder", "scoring", "task", "leaderboard", "cli")
#: the leaderboard's parts, in the same rule: a part imports its own or a lower one
PARTS: dict[str, tuple[str, ...]] = {"leaderboard": ("board", "submissions", "page", "deploy")}
#: modules named by their own name, not by their folder
EXACT: dict[str, str] = {
    "dhp.__main__": "cli",
}


def stage_of(module: str, top: Path = ROOT) -> int | None:
    """Index in :data:`STAGES` of ``module``'s stage (its folder below ``dhp``); ``None`` if none."""
    if module in EXACT:
        return STAGES.index(EXACT[module])
    parts = module.split(".")
    if parts[0] != "dhp":
        return None
    if len(parts) == 1 or ((top / "dhp" / parts[1]).with_suffix(".py").is_file() and len(parts) == 2):
        return STAGES.index("core")
    return STAGES.index(parts[1]) if parts[1] in STAGES else None


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


def upward_imports(top: Path) -> list[str]:
    """One line per import that runs up the stack, or whose module belongs to no stage."""
    problems = []
    for module, target, line in imports(top):
        here, there = stage_of(module, top), stage_of(target, top)
        if here is None or there is None:
            problems.append(f"{module}:{line}: {module if here is None else target} belongs to no stage")
        elif there > here:
            problems.append(
                f"{module}:{line} ({STAGES[here]}) imports {target} ({STAGES[there]}), a higher stage"
            )
    return problems


def part_of(module: str) -> tuple[str, int] | None:
    """``(stage, index of its part)`` for a module inside a stage with parts; ``None`` otherwise."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in PARTS:
        return None
    order = PARTS[parts[1]]
    return (parts[1], order.index(parts[2])) if parts[2] in order else (parts[1], -1)


def upward_parts(top: Path) -> list[str]:
    """One line per import from a part of a stage up to a higher part of it (or a module in no part)."""
    problems = []
    for module, target, line in imports(top):
        here, there = part_of(module), part_of(target)
        if here is None or there is None or here[0] != there[0]:
            continue
        if here[1] < 0 or there[1] < 0 or there[1] > here[1]:
            problems.append(f"{module}:{line} imports {target}: not a lower part of {here[0]}")
    return problems


def reaches(top: Path, *starts: str) -> set[str]:
    """Every package module that importing any of ``starts`` can load, following every import statement
    (lazy ones included) and the ``__init__`` of each package on the way. The tree is read once."""
    edges: dict[str, set[str]] = {}
    for module, target, _ in imports(top):
        edges.setdefault(module, set()).add(target)
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        m = todo.pop()
        parts = m.split(".")
        for name in [".".join(parts[:i]) for i in range(1, len(parts) + 1)]:
            if name not in seen:
                seen.add(name)
                todo.extend(edges.get(name, ()))
    return seen


def test_every_module_belongs_to_a_stage() -> None:
    modules = [_module_name(p, ROOT) for p in sorted((ROOT / "dhp").rglob("*.py"))]
    assert len(modules) > 50
    assert [m for m in modules if stage_of(m) is None] == []
    assert {STAGES[i] for m in modules if (i := stage_of(m)) is not None} == set(STAGES)


def test_the_package_imports_downward_only() -> None:
    found = list(imports(ROOT))
    assert len(found) > 300  # the walk sees the package's imports, function-level ones included
    assert upward_imports(ROOT) == []
    assert upward_parts(ROOT) == []


def test_an_upward_part_is_caught(tmp_path: Path) -> None:
    _write(tmp_path, "dhp/__init__.py", "")
    _write(tmp_path, "dhp/leaderboard/__init__.py", "")
    _write(tmp_path, "dhp/leaderboard/board/__init__.py", "")
    _write(tmp_path, "dhp/leaderboard/page/__init__.py", "")
    _write(tmp_path, "dhp/leaderboard/page/ui.py", "from dhp.leaderboard.board import table\n")
    _write(tmp_path, "dhp/leaderboard/board/table.py", "")
    assert upward_parts(tmp_path) == []
    _write(tmp_path, "dhp/leaderboard/board/table.py", "def f():\n    from dhp.leaderboard.page import ui\n")
    assert upward_parts(tmp_path) == [
        "dhp.leaderboard.board.table:2 imports dhp.leaderboard.page: not a lower part of leaderboard",
        "dhp.leaderboard.board.table:2 imports dhp.leaderboard.page.ui: not a lower part of leaderboard",
    ]


@pytest.mark.parametrize("stage", ["scoring", "leaderboard"])
def test_scorer_and_board_never_load_the_builder(stage: str) -> None:
    """Not even through another stage (the task file's reader, the data format): the builder's
    offline generator, its lexicon and word lists stay out of a scoring run and the Space's page."""
    modules = [_module_name(p, ROOT) for p in sorted((ROOT / "dhp" / stage).rglob("*.py"))]
    loaded = sorted(b for b in reaches(ROOT, *modules) if b.startswith("dhp.builder"))
    assert loaded == []


def test_commands_are_registered_by_name() -> None:
    """No command module is loaded by a computed name (a failing one would be skipped, not seen)."""
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "dhp").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
        and not (
            node.args and isinstance(node.args[0], ast.JoinedStr) and "faker" in ast.unparse(node.args[0])
        )
    ]
    assert calls == []


def test_the_task_builder_imports_builder_at_module_level() -> None:
    """The task stage sits above the builder, so nothing hides its imports in functions."""
    tree = ast.parse((ROOT / "dhp" / "task" / "build_task.py").read_text(encoding="utf-8"))
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
        "from dhp.cli import main\n",
        "def f():\n    from dhp.task.file import folder_spec\n",
        "def f():\n    import dhp.scoring.run\n",
        "from .. import cli\n",
        "from dhp import task\n",
    ],
)
def test_an_upward_import_is_caught(tmp_path: Path, statement: str) -> None:
    for rel in ["dhp/__init__.py", "dhp/errors.py", "dhp/cli/__init__.py", "dhp/task/__init__.py"]:
        _write(tmp_path, rel, "")
    _write(tmp_path, "dhp/task/file.py", "")
    _write(tmp_path, "dhp/builder/__init__.py", "")
    _write(tmp_path, "dhp/scoring/__init__.py", "")
    _write(tmp_path, "dhp/scoring/run.py", "from dhp.builder import build\n")
    _write(tmp_path, "dhp/builder/build.py", "from dhp.errors import UserError\n")
    assert upward_imports(tmp_path) == []
    _write(tmp_path, "dhp/builder/build.py", statement)
    problems = upward_imports(tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith("dhp.builder.build:") and "(builder) imports" in problems[0]


def test_a_folder_in_no_stage_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "dhp/__init__.py", "")
    _write(tmp_path, "dhp/newplace/__init__.py", "import dhp\n")
    assert upward_imports(tmp_path) == ["dhp.newplace:1: dhp.newplace belongs to no stage"]


def test_reaches_follows_lazy_imports_and_packages(tmp_path: Path) -> None:
    _write(tmp_path, "dhp/__init__.py", "")
    _write(tmp_path, "dhp/scoring/__init__.py", "")
    _write(tmp_path, "dhp/scoring/run.py", "def f():\n    from dhp.task.file import x\n")
    _write(tmp_path, "dhp/task/__init__.py", "from dhp.task import build_task\n")
    _write(tmp_path, "dhp/task/file.py", "")
    _write(tmp_path, "dhp/task/build_task.py", "import dhp.builder.cards\n")
    _write(tmp_path, "dhp/builder/__init__.py", "")
    _write(tmp_path, "dhp/builder/cards.py", "")
    assert "dhp.builder.cards" in reaches(tmp_path, "dhp.scoring.run")


def reexports(top: Path) -> list[str]:
    """Names a module's ``__all__`` lists but imports from elsewhere (a package's ``__init__`` aside): a
    re-export gives one name two homes, so it is spelled at the module that defines it."""
    found = []
    for path in sorted((top / "dhp").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            a.asname or a.name: n.module for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names
        }
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                listed = [e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)]
                module = _module_name(path, top)
                found += [
                    f"{module} lists {name}, defined in {imported[name]}"
                    for name in listed
                    if name in imported
                ]
    return found


def test_no_module_re_exports_a_name() -> None:
    assert reexports(ROOT) == []


def test_a_re_export_is_caught(tmp_path: Path) -> None:
    _write(tmp_path, "dhp/__init__.py", "from dhp.errors import UserError\n__all__ = ['UserError']\n")
    _write(tmp_path, "dhp/errors.py", "class UserError(Exception): ...\n__all__ = ['UserError']\n")
    _write(
        tmp_path, "dhp/types.py", "from dhp.errors import UserError\n__all__ = ['Spec']\nclass Spec: ...\n"
    )
    assert reexports(tmp_path) == []
    _write(
        tmp_path,
        "dhp/types.py",
        "from dhp.errors import UserError\n__all__ = ['Spec', 'UserError']\nclass Spec: ...\n",
    )
    assert reexports(tmp_path) == ["dhp.types lists UserError, defined in dhp.errors"]
