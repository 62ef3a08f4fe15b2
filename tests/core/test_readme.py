"""Every code block of the README and of docs/ that claims to run as written does.

A block claims it with the line ``<!-- runs -->`` right before its ```` ```bash ```` fence. Each one
runs in a fresh empty folder, under ``bash -euo pipefail``, with ``dhp`` meaning this checkout's
package (a shim on PATH), offline (``HF_HUB_OFFLINE=1``); it must exit 0 without a traceback. The
docs' links to other pages and images must resolve too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dhp.data.dataset_io import read_build_info

REPO = Path(__file__).resolve().parents[2]
PAGES = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
MARK = "<!-- runs -->"
_BLOCK = re.compile(r"^<!-- runs -->\n```bash\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def runnable_blocks(text: str) -> list[str]:
    """The bodies of the blocks marked to run; a mark not followed by a bash block is an error."""
    blocks = _BLOCK.findall(text)
    marks = re.findall(f"^{re.escape(MARK)}$", text, re.MULTILINE)
    assert len(marks) == len(blocks), f"a '{MARK}' line not right before a ```bash block"
    return blocks


def _blocks() -> list[tuple[str, int, str]]:
    return [
        (p.relative_to(REPO).as_posix(), i, b)
        for p in PAGES
        for i, b in enumerate(runnable_blocks(p.read_text()))
    ]


def _run(block: str, where: Path) -> subprocess.CompletedProcess[str]:
    shim = where / ".bin"
    shim.mkdir()
    (shim / "dhp").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dhp "$@"\n', encoding="utf-8")
    (shim / "dhp").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(PATH=f"{shim}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1",
               HF_HOME=str(where / ".hf"), NO_COLOR="1")  # fmt: skip
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=where, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def test_the_pages_mark_runnable_blocks() -> None:
    found = {page for page, _, _ in _blocks()}
    assert {"README.md", "docs/method.md"} <= found  # docs/task-files.md: tests/task/test_task.py runs it


def test_a_mark_without_a_bash_block_is_caught() -> None:
    assert runnable_blocks(f"{MARK}\n```bash\necho one\n```\n") == ["echo one\n"]
    with pytest.raises(AssertionError, match="not right before"):
        runnable_blocks(f"{MARK}\n\n```bash\necho one\n```\n")


@pytest.mark.parametrize(
    ("page", "index", "block"), _blocks(), ids=lambda v: v if isinstance(v, str) and "\n" not in v else None
)
def test_a_block_runs_as_written(page: str, index: int, block: str, tmp_path: Path) -> None:
    res = _run(block, tmp_path)
    assert res.returncode == 0 and "Traceback" not in res.stderr, (
        f"{page} block {index}:\n{res.stdout[-2000:]}{res.stderr[-3000:]}"
    )
    for info in tmp_path.rglob("build_info.json"):  # a built example declares no perturbation it cannot make
        empty = [p.id for p in read_build_info(info.parent).perturbations if p.rows == 0]
        assert empty == [], f"{page} block {index}: {info.parent.name} builds no rows for {empty}"


def test_a_failing_block_fails(tmp_path: Path) -> None:
    assert _run("dhp spec --datasets nope\n", tmp_path).returncode == 2


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [t for t in _LINK.findall(text) if "://" not in t and not (page.parent / t).exists()]
    assert missing == []


#: the line before a command block that cannot run here, with the reason
NOT_RUN = re.compile(r"^<!-- not run: \S.*\S -->$")
_FENCE = re.compile(r"^```(bash|console|sh|shell)$")


def command_blocks_without_a_reason(text: str) -> list[str]:
    """The first lines of the command blocks of ``text`` marked neither to run nor with why they cannot."""
    lines = text.splitlines()
    bare = []
    for i, line in enumerate(lines):
        before = lines[i - 1] if i else ""
        if _FENCE.match(line) and before != MARK and not NOT_RUN.match(before):
            bare.append(lines[i + 1] if i + 1 < len(lines) else line)
    return bare


def test_every_command_block_runs_or_says_why_it_cannot() -> None:
    """A command shown in the README or docs runs as written (``<!-- runs -->``, above), or the line
    before it says why it cannot run in a fresh folder offline (``<!-- not run: REASON -->``)."""
    for page in PAGES:
        assert command_blocks_without_a_reason(page.read_text(encoding="utf-8")) == [], page.name


def test_a_command_block_without_a_reason_is_caught() -> None:
    assert command_blocks_without_a_reason("```console\n$ dhp x\n```\n") == ["$ dhp x"]
    assert command_blocks_without_a_reason("<!-- not run: needs a GPU -->\n```bash\nmake x\n```\n") == []
    assert command_blocks_without_a_reason(f"{MARK}\n```bash\ndhp spec\n```\n") == []
    assert command_blocks_without_a_reason("<!-- not run:  -->\n```bash\nmake x\n```\n") == ["make x"]
