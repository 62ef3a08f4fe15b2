"""Short functions in the package. Lint and strict typing (ruff, mypy) are not tests: `make test` runs them
once beside the suite (`make lint typecheck` alone), rather than on one of the suite's workers."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PACKAGE_FOLDERS = ("dhp",)
MAX_FUNCTION_LINES = 60


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function in the package longer than ``limit`` lines."""
    import ast

    found: list[str] = []
    for folder in PACKAGE_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                    n = node.end_lineno - node.lineno + 1
                    if n > limit:
                        found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({n} lines)")
    return found


def test_no_function_in_the_package_is_longer_than_60_lines(tmp_path: Path) -> None:
    assert long_functions(REPO) == []
    # the check can fail: a 61-line function is reported
    (tmp_path / "dhp").mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    (tmp_path / "dhp" / "long.py").write_text(f"def f() -> None:\n{body}", encoding="utf-8")
    assert long_functions(tmp_path) == ["dhp/long.py:1 f (61 lines)"]


def shared_class_names(root: Path) -> dict[str, list[str]]:
    """Class names defined in more than one module of ``root/dhp``, with where (issue 38: one word,
    one thing: two ``Backend`` and two ``Request`` classes meant different things)."""
    import ast

    where: dict[str, list[str]] = {}
    for path in sorted((root / "dhp").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(root)))
    return {name: files for name, files in where.items() if len(files) > 1}


def test_no_two_classes_in_the_package_share_a_name(tmp_path: Path) -> None:
    assert shared_class_names(REPO) == {}
    for i in (1, 2):  # the check catches a shared name
        (tmp_path / "dhp" / f"m{i}").mkdir(parents=True)
        (tmp_path / "dhp" / f"m{i}" / "x.py").write_text("class Backend:\n    pass\n")
    assert shared_class_names(tmp_path) == {"Backend": ["dhp/m1/x.py", "dhp/m2/x.py"]}
