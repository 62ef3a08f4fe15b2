"""pyproject.toml declares exactly what the code imports.

The package's imports (read with `ast`, including `importlib.import_module("literal...")`) are mapped to
their distributions and compared with `[project.dependencies]` (and the non-dev extras, for the
lazily imported `local` judge); the tests' imports may also come from the `dev` extra. Every runtime
dependency must be imported somewhere in the package, so nothing stale is installed for users.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

REPO = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("dhp",)
FIRST_PARTY = frozenset({"dhp", "tests"})


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    """'gradio[oauth]>=6,<7' -> 'gradio' (PEP 508: the name comes first)."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert m, requirement
    return _canonical(m.group(1))


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_requirement_name(r) for r in project["dependencies"]}
    extras = {k: {_requirement_name(r) for r in v} for k, v in project["optional-dependencies"].items()}
    return runtime, extras


def _literal_prefix(node: ast.expr) -> str | None:
    """The leading literal text of a str constant or f-string (enough for the top-level module)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _literal_prefix(node.values[0])
    return None


def _imported_names(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and (prefix := _literal_prefix(node.args[0]))
        ):
            yield prefix


def third_party_modules(folders: tuple[str, ...]) -> dict[str, set[str]]:
    """Top-level third-party module -> the files importing it."""
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            for name in _imported_names(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                top = name.split(".")[0]
                if top and top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                    found.setdefault(top, set()).add(path.relative_to(REPO).as_posix())
    return found


@functools.cache
def _distributions() -> dict[str, list[str]]:
    """Top-level module -> installed distributions providing it (slow: read once)."""
    return dict(md.packages_distributions())


def _undeclared(modules: dict[str, set[str]], allowed: set[str]) -> list[str]:
    dists = _distributions()
    problems = []
    for module, files in sorted(modules.items()):
        owners = {_canonical(d) for d in dists.get(module, [])}
        if not owners:
            problems.append(f"{module} (imported by {sorted(files)[0]}): not installed, no distribution")
        elif not owners & allowed:
            problems.append(f"{module} (imported by {sorted(files)[0]}): from {sorted(owners)}, not declared")
    return problems


def test_every_package_import_is_declared() -> None:
    runtime, extras = _declared()
    allowed = runtime | {d for k, v in extras.items() if k != "dev" for d in v}
    assert not _undeclared(third_party_modules(PACKAGE_FOLDERS), allowed)


def test_every_test_import_is_declared() -> None:
    runtime, extras = _declared()
    allowed = runtime | {d for v in extras.values() for d in v}
    assert not _undeclared(third_party_modules(("tests",)), allowed)


def test_every_runtime_dependency_is_imported() -> None:
    runtime, _ = _declared()
    dists = _distributions()
    used = {_canonical(d) for m in third_party_modules(PACKAGE_FOLDERS) for d in dists.get(m, [])}
    assert sorted(runtime - used) == [], "declared but never imported by the package"


def test_the_import_walk_sees_dynamic_imports() -> None:
    """The checks above can fail: a literal import_module is an import (Faker's name lists)."""
    modules = third_party_modules(PACKAGE_FOLDERS)
    assert "faker" in modules and "dhp/builder/perturb/lexicon.py" in modules["faker"]
    assert _undeclared({"faker": {"x.py"}}, set()) == [
        "faker (imported by x.py): from ['faker'], not declared"
    ]


def test_the_lock_pins_every_declared_dependency_within_its_range() -> None:
    """requirements/lock.txt (what CI and `make test` install) pins each dependency of the package and its
    extras to one version that pyproject's compatible range admits: a stale lock fails here, not in CI."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    pins: dict[str, Version] = {}
    for line in (REPO / "requirements" / "lock.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line}"
            pins[_canonical(name)] = Version(version)
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for spec in [
        *project["dependencies"],
        *(r for rs in project["optional-dependencies"].values() for r in rs),
    ]:
        req = Requirement(spec)
        name = _canonical(req.name)
        assert name in pins, f"{name} is not in requirements/lock.txt: run `make lock`"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"lock pins {name}=={pins[name]}, outside {req.specifier}"
        )


def _core_closure() -> set[str]:
    """The distributions `pip install dhp-bench` installs: the runtime dependencies and theirs (no extras)."""
    from packaging.requirements import Requirement

    runtime, _ = _declared()
    seen: set[str] = set()
    todo = sorted(runtime)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_canonical(req.name))
    return seen


def _outside_the_core() -> list[str]:
    """Top-level modules of the extras' distributions that the core install does not bring."""
    _, extras = _declared()
    core = _core_closure()
    wanted = {d for k, v in extras.items() if k != "dev" for d in v} - core
    return sorted(m for m, ds in _distributions().items() if {_canonical(d) for d in ds} & wanted)


#: makes the modules of argv[1] (comma-separated) unimportable, as in the core install
_BLOCK = """
import sys
blocked = set(sys.argv[1].split(","))
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Blocker())
"""

#: runs `dhp ARGS` without those modules
_WITHOUT = (
    _BLOCK
    + """
from dhp.cli import main
sys.exit(main(sys.argv[2:]))
"""
)


#: imports every dhp module with the modules of argv[1] unimportable; prints "module missing" per failure
_IMPORT_ALL = (
    _BLOCK
    + """
import importlib, pkgutil
import dhp
for m in pkgutil.walk_packages(dhp.__path__, "dhp."):
    if not m.name.endswith("__main__"):
        try:
            importlib.import_module(m.name)
        except ModuleNotFoundError as e:
            print(m.name, e.name)
"""
)


def test_only_the_board_and_the_report_import_an_extra_at_import_time() -> None:
    """The import graph: without the extras every module imports (the builder's generator, the report's
    plots and local judges import theirs lazily), but the board's and `dhp.scoring.report` (matplotlib)."""
    import subprocess

    res = subprocess.run([sys.executable, "-c", _IMPORT_ALL, ",".join(_outside_the_core())], cwd=REPO,
                         capture_output=True, text=True, timeout=300, check=True)  # fmt: skip
    failing = dict(line.split() for line in res.stdout.splitlines())
    assert failing, "the check must see the board's imports fail"
    assert {m for m in failing if not m.startswith("dhp.leaderboard.")} == {"dhp.scoring.report"}
    assert failing["dhp.scoring.report"] == "matplotlib"


def test_the_extras_table_is_pyprojects() -> None:
    """dhp.extras (the one-line errors' table) lists each extra's distributions as pyproject does."""
    from dhp.extras import EXTRAS

    _, extras = _declared()
    assert {k: set(v) for k, v in EXTRAS.items()} == {k: v for k, v in extras.items() if k != "dev"}


@pytest.mark.slow  # `dhp` runs with the extras blocked (~10 s)
def test_the_core_install_scores_a_judge_and_names_the_extra_of_the_rest(tmp_path: Path) -> None:
    """Without the extras' modules (the gradio board, the offline generator, matplotlib, torch),
    `dhp score --judge lexical` works, and each command that needs an extra fails with one line
    naming it, before writing anything."""
    import subprocess

    from dhp.spec import BENCHMARK
    from tests.support.tiny_data import write_tiny_dataset

    blocked = _outside_the_core()
    assert {"gradio", "wordfreq", "lemminflect", "faker", "matplotlib", "datasets"} <= set(blocked)
    write_tiny_dataset(tmp_path / "data", BENCHMARK["summeval"], n_items=12, seed=1)

    def dhp(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", _WITHOUT, ",".join(blocked), *args], cwd=REPO,
                              capture_output=True, text=True, timeout=300)  # fmt: skip

    scored = dhp("score", "--judge", "lexical", "--data", str(tmp_path / "data"), "--datasets", "summeval",
                 "--n-boot", "0", "--out", str(tmp_path / "results"))  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    assert list((tmp_path / "results" / "lexical").glob("summeval@*.json"))
    for args, extra in (
        (("build", "--out", str(tmp_path / "built"), "--datasets", "summeval", "--sample-fallback"), "build"),
        (("report", str(tmp_path / "results"), "--out", str(tmp_path / "report")), "report"),
        (("leaderboard", "--results", str(tmp_path / "results")), "board"),
        (("space", "init", str(tmp_path / "space")), "board"),
    ):
        res = dhp(*args)
        assert res.returncode == 2, res.stderr
        (line,) = res.stderr.strip().splitlines()
        assert line.startswith(f"dhp {args[0]}: error: needs ") and line.endswith(
            f"pip install -e '.[{extra}]'"  # run in the clone: the command that works there
        )
    assert not any((tmp_path / d).exists() for d in ("built", "report", "space"))
