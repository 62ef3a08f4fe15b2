"""End-to-end tests in headless Debian chromium, driven by Playwright (no fixed sleeps)."""

from __future__ import annotations

import csv
import io
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.spec import BENCHMARK
from tests.leaderboard.conftest import write_results
from tests.support.tiny_data import write_tiny_dataset

CHROMIUM = os.environ.get("DHP_CHROMIUM", "/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and shutil.which("chromium") is None,
        reason="Debian's chromium is not installed (apt-get install chromium, or `make browser`)",
    ),
]
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
TIMEOUT_MS = 30_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dhp.leaderboard.app import AppConfig, build_app, launch

    root = tmp_path_factory.mktemp("site")
    write_results(root / "results", n_items=25, n_boot=20)
    (root / "results" / "garbage.json").write_text("{ this is not a result")
    data = root / "data"
    for spec in BENCHMARK.values():
        write_tiny_dataset(data, spec)
    cfg = AppConfig.local(root, refresh_s=1.0)
    demo = build_app(cfg)
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "root": root, "data": data}
    finally:
        demo.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    exe = CHROMIUM if Path(CHROMIUM).exists() else str(shutil.which("chromium"))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any, site: dict[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.goto(site["url"])
    yield pg
    ctx.close()


def _cell(pg: Any, row: int, col: int) -> Any:
    """The cell shown at display position (row, col), 0-based; the header is aria row 1."""
    return pg.locator(
        f"#leaderboard-table [role=gridcell][aria-rowindex='{row + 2}'][aria-colindex='{col + 1}']"
    )


def test_page_loads_with_table_and_bad_file_warning(page: Any) -> None:
    from playwright.sync_api import expect

    table = page.locator("#leaderboard-table")
    expect(table).to_contain_text("Strong Llama 70B")
    expect(table).to_contain_text("Weak Phi-2")
    expect(page.locator("#leaderboard-table th[title='Overall D_avg^EW']")).to_be_visible()
    expect(page.locator("#problems")).to_contain_text("garbage.json")
    expect(_cell(page, 0, 0)).to_have_text("Strong Llama 70B")  # sorted by overall, best first
    # significant cells are marked green, weak ones red
    expect(_cell(page, 0, 1)).to_have_css("background-color", "rgb(212, 237, 218)")
    expect(_cell(page, 2, 1)).to_have_css("background-color", "rgb(248, 215, 218)")
    page.screenshot(path="/tmp/dhp-leaderboard-main.png", full_page=True)


def test_sorting_with_the_column_menu(page: Any) -> None:
    from playwright.sync_api import expect

    header = page.locator("#leaderboard-table th[title='Overall D_avg^EW']")
    expect(_cell(page, 0, 0)).to_have_text("Strong Llama 70B")
    header.hover()
    header.locator("button[aria-label='Open cell menu']").click(force=True)
    page.get_by_role("menuitem", name="Sort ascending").click()
    expect(_cell(page, 0, 0)).to_have_text("Weak Phi-2")
    expect(_cell(page, 2, 0)).to_have_text("Strong Llama 70B")


def test_filters_search_toggle_and_csv(page: Any) -> None:
    from playwright.sync_api import expect

    table = page.locator("#leaderboard-table")
    expect(table).to_contain_text("Strong Llama 70B")
    page.locator("#filter-families").get_by_label("llama").uncheck()
    expect(table).not_to_contain_text("Strong Llama 70B")
    expect(table).to_contain_text("Mid Qwen 7B")
    page.locator("#filter-families").get_by_label("llama").check()
    expect(table).to_contain_text("Strong Llama 70B")

    page.locator("#filter-sizes").get_by_label("unknown").uncheck()  # Qwen's size is parsed from "7B"
    page.locator("#filter-sizes").get_by_label("3-10B").uncheck()
    expect(table).not_to_contain_text("Mid Qwen 7B")
    page.locator("#filter-sizes").get_by_label("3-10B").check()
    expect(table).to_contain_text("Mid Qwen 7B")

    page.locator("#search textarea, #search input").first.fill("qwen")
    expect(table).not_to_contain_text("Strong Llama 70B")
    expect(table).to_contain_text("Mid Qwen 7B")

    page.locator("#filter-datasets").get_by_label("summeval", exact=True).uncheck()
    expect(page.locator("#leaderboard-table th[title='summeval D_avg^EW']")).to_have_count(0)
    page.locator("#weighted input").uncheck()
    expect(page.locator("#leaderboard-table th[title='sumpubmed D_avg']")).to_be_visible()
    expect(page.locator("#leaderboard-table th[title='Overall D_avg']")).to_be_visible()

    with page.expect_download() as dl:
        page.locator("#csv").click()
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["Judge"] for r in rows] == ["Mid Qwen 7B"]
    assert "sumpubmed D_avg" in rows[0] and "summeval D_avg" not in rows[0]
    assert "sumpubmed D_avg^EW" not in rows[0]


def test_submissions_invalid_then_valid(page: Any) -> None:
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Submit").click()

    def fill(sel: str, value: str) -> None:
        page.locator(f"{sel} textarea, {sel} input").first.fill(value)

    fill("#s-name", "Evil judge")
    fill("#s-contact", "me@example.org")
    fill("#s-url", "http://169.254.169.254/latest")
    fill("#s-model", "org/model")
    page.locator("#s-submit").click()
    expect(page.locator("#submit-status")).to_contain_text("Not queued")
    expect(page.locator("#submit-status")).to_contain_text("https")

    fill("#s-name", "Random control")
    fill("#s-url", "")
    page.locator("#s-protocol input").click()
    page.get_by_role("option", name="builtin").click()
    expect(page.locator("#s-protocol input")).to_have_value("builtin")
    fill("#s-model", "random")
    page.locator("#s-submit").click()
    expect(page.locator("#submit-status")).to_contain_text("Queued")
    page.get_by_role("tab", name="Queue").click()
    expect(page.locator("#queue-table")).to_contain_text("Random control")
    expect(page.locator("#queue-table")).to_contain_text("PENDING")

    page.get_by_role("tab", name="Submit").click()
    page.locator("#s-submit").click()  # the same again: a duplicate
    expect(page.locator("#submit-status")).to_contain_text("already submitted")


def test_worker_result_appears_without_restart(page: Any, site: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    from dhp.leaderboard.queue import RequestQueue, new_request
    from dhp.leaderboard.stores import LocalStore
    from dhp.leaderboard.validation import Submission

    root: Path = site["root"]
    q = RequestQueue(LocalStore(root / "requests"))
    if not any(r.judge_name == "Random control" for r in q.load()[0]):  # when run alone
        q.submit(new_request(Submission("Random control", "", "builtin", "random", None, None, "builtin", "t"), "t"))
    expect(page.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
    cmd = [sys.executable, "-m", "dhp", "worker", "--once", "--data", str(site["data"]),
           "--requests", str(root / "requests"), "--results", str(root / "results"), "--n-boot", "20"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    # the open page picks the new row up through its timer, no reload
    expect(page.locator("#leaderboard-table")).to_contain_text("Random control")
    page.get_by_role("tab", name="Queue").click()
    expect(page.locator("#queue-table")).to_contain_text("FINISHED")


def test_judge_page_renders_plots(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#leaderboard-table")).to_contain_text("Mid Qwen 7B")
    row = next(i for i in range(3) if _cell(page, i, 0).inner_text() == "Mid Qwen 7B")
    _cell(page, row, 0).click()  # a click on a judge opens its page
    expect(page.locator("#judge-info")).to_contain_text("Mid Qwen 7B")
    expect(page.locator("#judge-bars img")).to_be_visible()
    expect(page.locator("#judge-dist img")).to_be_visible()
    expect(page.locator("#judge-summary")).to_contain_text("summeval")
    expect(page.locator("#judge-perturbations")).to_contain_text("char_typo_minor")
    page.screenshot(path="/tmp/dhp-leaderboard-judge.png", full_page=True)


def test_judge_tab_opened_directly_or_by_link(page: Any, browser: Any, site: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    expect(_cell(page, 0, 0)).to_have_text("Strong Llama 70B")
    page.get_by_role("tab", name="Judge").click()  # drawn when opened: the first judge by name
    expect(page.locator("#judge-info")).to_contain_text("Mid Qwen 7B")
    expect(page.locator("#judge-bars img")).to_be_visible()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        linked = ctx.new_page()
        linked.goto(site["url"] + "?judge=Weak%20Phi-2")
        expect(linked.locator("#judge-info")).to_contain_text("Weak Phi-2")
        expect(linked.locator("#judge-dist img")).to_be_visible()
    finally:
        ctx.close()


def test_survey_vote_updates_weights(page: Any) -> None:
    from playwright.sync_api import expect

    from dhp.leaderboard.survey import get_task

    page.get_by_role("tab", name="Survey").click()
    task = get_task("summarization")
    page.locator("#vote-summarization").click()
    expect(page.locator("#vote-status-summarization")).to_contain_text("answer every question")
    for issue in task.issues:
        page.locator(f"#vote-summarization-{issue.id}").get_by_label("Relevance").check()
    page.locator("#vote-summarization").click()
    expect(page.locator("#vote-status-summarization")).to_contain_text("ballot for Summarization is stored")
    expect(page.locator("#survey-weights")).to_contain_text("relevance: 1")
