"""Headless Chromium for the leaderboard's browser tests: Debian's ``chromium`` driven by Playwright
(``executable_path``), one browser per test module, the same flags and timeout everywhere."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("DHP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
TIMEOUT_MS = 90_000  # generous: the test machine is shared; nothing here is a timing assertion
#: the marks of a browser test module (``pytestmark = BROWSER_MARKS``)
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and shutil.which("chromium") is None,
        reason="Debian's chromium is not installed (apt-get install chromium, or `make browser`)",
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    exe = CHROMIUM if Path(CHROMIUM).exists() else str(shutil.which("chromium"))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()
