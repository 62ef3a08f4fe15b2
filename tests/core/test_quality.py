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
