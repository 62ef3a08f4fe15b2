"""Choosing a judge in the browser (issue 20): rank ranges, the Compare tab with the size plot, and the
judge page's misses, length tertiles and run cost. Headless Debian chromium driven by Playwright, as
tests/leaderboard/test_browser.py (no fixed sleeps); screenshots at 1440 and 390 px."""

from __future__ import annotations

import os
import re
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.scoring.result_files import dump_result, read_result
from tests.leaderboard.browser import BROWSER_MARKS, TIMEOUT_MS
from tests.leaderboard.conftest import ALL, write_results
from tests.leaderboard.factory import make_result
from tests.leaderboard.judge_data import point_at, write_summeval

pytestmark = BROWSER_MARKS
# screenshots are kept under $DHP_SCREENSHOTS where it is set; else in a temporary folder removed at exit
_SHOTS_TMP = tempfile.TemporaryDirectory(prefix="dhp-shots-")
SHOTS = (
    Path(os.environ["DHP_SCREENSHOTS"]) / "dhp-leaderboard-shots"
    if os.environ.get("DHP_SCREENSHOTS")
    else Path(_SHOTS_TMP.name)
)
N_ITEMS = 24


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _with_lengths(path: Path) -> None:
    """Give a synthetic result the original-text lengths results record since schema 1.2."""
    r = read_result(path)
    assert r.scores is not None
    words = tuple(10 + 3 * i for i in range(len(r.scores.item_ids)))
    path.write_text(
        dump_result(r.model_copy(update={"scores": r.scores.model_copy(update={"original_words": words})}))
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    root = tmp_path_factory.mktemp("site")
    results = write_results(root / "results", n_items=N_ITEMS, n_boot=50)
    for ds in ALL:
        r = make_result(
            "random", ds, skill=0.0, n_items=N_ITEMS, protocol="builtin", model="random", n_boot=50
        )
        p = results / "random" / f"{ds}@v1.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(dump_result(r))
    for f in results.rglob("*.json"):
        _with_lengths(f)
    data = write_summeval(root / "data", N_ITEMS)  # the texts the judge page shows for missed pairs
    point_at(results, data)
    demo = build_app(AppConfig.local(root, refresh_s=1.0, data=str(data)))
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "root": root}
    finally:
        demo.close()


def _page(browser: Any, site: dict[str, Any], width: int) -> tuple[Any, Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    mobile = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=mobile, has_touch=mobile)
    pg = ctx.new_page()
    pg.goto(site["url"])
    return ctx, pg


def _shot(pg: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def _pick(pg: Any, elem_id: str, name: str) -> None:
    from playwright.sync_api import expect

    box = pg.locator(f"#{elem_id} input")
    box.click()
    pg.locator(f"#{elem_id}").get_by_role("option", name=name, exact=True).click()
    expect(box).to_have_value(name)


def _broken_cells(pg: Any, selector: str) -> list[str]:
    """The texts of the cells under ``selector`` drawn on more than one line (a number or word cut)."""
    return list(
        pg.evaluate(
            """sel => [...document.querySelectorAll(sel)].filter(c => {
                const r = document.createRange(); r.selectNodeContents(c);
                return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1;
            }).map(c => c.innerText)""",
            selector,
        )
    )


def _open_tab(pg: Any, name: str) -> None:
    """Click a tab; on a phone Gradio folds the later tabs into its overflow menu ("...")."""
    tab = pg.get_by_role("tab", name=name)
    if not tab.is_visible():
        pg.locator(".overflow-menu button, button.overflow-menu").first.click()
        tab = (
            pg.locator(".overflow-dropdown")
            .get_by_role("button", name=name)
            .or_(pg.locator(".overflow-dropdown").get_by_text(name, exact=True))
        )
    tab.first.click()


@pytest.mark.parametrize("width", [1440, 390])
def test_compare_tab_and_size_plot(browser: Any, site: dict[str, Any], width: int) -> None:
    from playwright.sync_api import expect

    ctx, pg = _page(browser, site, width)
    try:
        expect(pg.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
        ranks = [t.strip() for t in pg.locator("#leaderboard-table tbody td.rank").all_inner_texts()]
        assert any(re.fullmatch(r"\d+(–\d+)?", r) for r in ranks), ranks
        # the rank ranges drawn are the joint bootstrap's (the BoardService's view of the same store)
        from dhp.leaderboard.board.table import RANK
        from dhp.leaderboard.page.service import AppConfig, BoardService

        view = BoardService(AppConfig.local(site["root"])).view()
        assert [r for r in ranks if r[0].isdigit()] == [r for r in view[RANK] if r[0].isdigit()]
        _open_tab(pg, "Compare")
        expect(pg.locator("#size-plot svg")).to_be_visible()
        _pick(pg, "compare-a", "Strong Llama 70B")
        _pick(pg, "compare-b", "Weak Phi-2")
        pg.locator("#compare-go").click()
        out = pg.locator("#compare-result")
        expect(out).to_contain_text("Strong Llama 70B (A) vs Weak Phi-2 (B)")
        expect(out).to_contain_text("summeval")
        expect(out.locator("table").first).to_contain_text("d_avg_ew")
        assert "| A |" not in out.inner_text()  # rendered as tables, not raw markdown
        assert re.search(r"d_avg_ew\s+\+\d+\.\d\d\s+\[\+\d+\.\d\d, \+\d+\.\d\d\]\s+A", out.inner_text())
        assert _broken_cells(pg, "#compare-result th, #compare-result td:not(:first-child)") == []
        img = pg.locator("#size-plot svg").bounding_box()
        assert img is not None and img["x"] >= 0 and img["x"] + img["width"] <= width + 1
        _shot(pg, f"compare-{width}")
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [1440, 390])
def test_judge_page_shows_misses_tertiles_and_run_cost(
    browser: Any, site: dict[str, Any], width: int
) -> None:
    from playwright.sync_api import expect

    ctx, pg = _page(browser, site, width)
    try:
        pg.goto(site["url"] + "?judge=Weak+Phi-2")
        detail = pg.locator("#judge-detail")
        expect(detail).to_contain_text("Where it fails on")
        expect(detail).to_contain_text(f"of {N_ITEMS}")
        expect(detail).to_contain_text("short")
        expect(detail).to_contain_text("long")
        expect(detail).to_contain_text("Run cost:")
        expect(detail).to_contain_text("tokens:")
        expect(detail.locator("table").first).to_contain_text("char_typo_minor")
        misses = pg.locator("#judge-misses")
        expect(misses).to_contain_text(f"of {N_ITEMS}")
        expect(misses.locator("del").first).to_have_text("clearly")  # marked as dhp show marks them
        expect(misses.locator("ins").first).to_contain_text("vaguely-")
        expect(pg.locator("#judge-misses-csv")).to_contain_text(".csv")
        assert _broken_cells(pg, "#judge-detail th, #judge-detail td") == []
        box = misses.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width + 1  # no sideways scrolling
        misses.scroll_into_view_if_needed()
        _shot(pg, f"judge-detail-{width}")
        # another perturbation picked: its own misses
        pick = pg.locator("#judge-miss-pick input")
        pick.click()
        options = pg.locator("#judge-miss-pick").get_by_role("option")
        second = options.nth(1).inner_text().split(" (")[0]
        options.nth(1).click()
        expect(misses).to_contain_text(second)
    finally:
        ctx.close()
