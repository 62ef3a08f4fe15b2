"""End-to-end tests in headless Debian chromium, driven by Playwright (no fixed sleeps)."""

from __future__ import annotations

import csv
import io
import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.spec import BENCHMARK
from tests.leaderboard.browser import BROWSER_MARKS, TIMEOUT_MS
from tests.leaderboard.conftest import write_results
from tests.leaderboard.factory import HOSTILE_NAMES, write_crowd
from tests.support.tiny_data import write_tiny_dataset

pytestmark = BROWSER_MARKS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

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


@pytest.fixture()
def page(browser: Any, site: dict[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.goto(site["url"])
    yield pg
    ctx.close()


# screenshots are kept under $DHP_SCREENSHOTS where it is set; else in a temporary folder removed at exit
_SHOTS_TMP = tempfile.TemporaryDirectory(prefix="dhp-shots-")
SHOTS = (
    Path(os.environ["DHP_SCREENSHOTS"]) / "dhp-leaderboard-shots"
    if os.environ.get("DHP_SCREENSHOTS")
    else Path(_SHOTS_TMP.name)
)


def _shot(pg: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def _rows(pg: Any) -> Any:
    return pg.locator("#leaderboard-table tbody tr")


def _judges(pg: Any) -> list[str]:
    return [str(t) for t in pg.locator("#leaderboard-table tbody td.judge a").all_inner_texts()]


#: The texts (labels, titles) drawn over a plot's figure: Gradio's floating plot label covered the top
#: panel's title on a phone. Elements holding the figure itself are not counted.
TEXT_OVER_IMAGE = """(sel) => {
  const img = document.querySelector(`${sel} svg.dhp-figure`);
  const r = img.getBoundingClientRect();
  const hits = [];
  for (const el of document.querySelectorAll('label, span, p, h1, h2, h3, h4, button')) {
    if (el.contains(img) || !el.textContent.trim()) continue;
    const b = el.getBoundingClientRect();
    if (b.width && b.height && b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top) {
      hits.push(el.textContent.trim().slice(0, 60));
    }
  }
  return hits;
}"""


#: A figure's smallest text as shown, in CSS px: an inline SVG (text kept as text, named for screen
#: readers), so its smallest font-size (in viewBox units) times the shown width over the viewBox width
#: is what is read; each text's size as the browser computes it is checked too.
FIGURE_TEXT_PX = """(sel) => {
  const svg = document.querySelector(`${sel} svg.dhp-figure`);
  if (!svg) return {vector: false};
  const box = svg.viewBox.baseVal;
  const texts = Array.from(svg.querySelectorAll('text'));
  const sizes = texts.map(t => parseFloat(t.getAttribute('font-size')));
  const shown = svg.getBoundingClientRect().width;
  const name = svg.getAttribute('aria-label') || '';
  return {vector: true, texts: sizes.length, px: Math.min(...sizes) * shown / box.width, shown: shown,
          named: svg.getAttribute('role') === 'img' && name.length > 0
                 && svg.querySelector(':scope > title')?.textContent === name};
}"""
#: Readable: the smallest text of a judge-page figure, as shown (the 700 px PNGs shrunk on a phone: 4-5 px;
#: matplotlib's SVG: 10 px).
MIN_FIGURE_TEXT_PX = 11.0


def _plots_clear(pg: Any) -> None:
    """Each judge-page figure has its title above it, no text drawn over it, and its text readable."""
    from playwright.sync_api import expect

    for plot, title in (("#judge-bars", "Discernment per perturbation"), ("#judge-dist", "Response style")):
        expect(pg.locator(f"{plot} svg.dhp-figure")).to_be_visible()
        assert pg.evaluate(TEXT_OVER_IMAGE, plot) == [], plot
        text = pg.evaluate(FIGURE_TEXT_PX, plot)
        assert text["vector"] and text["texts"] > 5 and text["named"], (plot, text)
        assert MIN_FIGURE_TEXT_PX <= text["px"] <= 20, (plot, text)
        head = pg.locator(f"{plot}-title")
        expect(head).to_contain_text(title)
        img, box = pg.locator(f"{plot} svg.dhp-figure").bounding_box(), head.bounding_box()
        assert img is not None and box is not None and box["y"] + box["height"] <= img["y"], (plot, box, img)


def _summary_compact(pg: Any, width: int) -> None:
    """The judge page's per-dataset table: a one-line header row (it was ~160 px tall, with words
    broken: "Coverag e"), and its last column reachable by scrolling the table, not cut off."""
    from playwright.sync_api import expect

    head = pg.locator("#judge-summary thead tr").first
    expect(head).to_contain_text("Coverage")
    box = head.bounding_box()
    assert box is not None and box["height"] < 60, box
    last = pg.locator("#judge-summary thead th").filter(has_text="Version").first
    last.scroll_into_view_if_needed()
    cell = last.bounding_box()
    assert cell is not None and cell["x"] >= 0 and cell["x"] + cell["width"] <= width + 1, cell


def _th(pg: Any, key: str) -> Any:
    return pg.locator(f"#leaderboard-table th[data-sort^='{key}|']")


def test_page_loads_with_ranked_table_and_bad_file_warning(page: Any) -> None:
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1440, "height": 900})
    table = page.locator("#leaderboard-table")
    expect(table).to_contain_text("Strong Llama 70B")
    expect(page.locator("#problems")).to_contain_text("garbage.json")
    assert _judges(page) == ["Strong Llama 70B", "Mid Qwen 7B", "Weak Phi-2"]  # ranked by Overall
    assert page.locator("#leaderboard-table tbody td.rank").all_inner_texts() == ["1", "2", "3"]
    overall = _th(page, "Overall D_avg^EW")
    expect(overall).to_contain_text("Overall ▼")  # the default order, with its arrow
    assert "Mean D_avg" in (overall.get_attribute("title") or "")
    assert "level-balanced" in (_th(page, "summeval D_avg^EW").get_attribute("title") or "")
    assert "worst" in (_th(page, "summeval D_min^EW").get_attribute("title") or "")
    expect(page.locator("#filter-datasets")).to_be_hidden()  # filters collapsed
    expect(table).not_to_contain_text("Protocol")  # metadata columns off by default
    cell = page.locator("#leaderboard-table tbody tr").first.locator("td.num").nth(1)  # SummEval D avg
    expect(cell).to_have_text(re.compile(r"^\d+\.\d\d\s*\[-?\d+\.\d\d, -?\d+\.\d\d\]$"))
    box = cell.bounding_box()
    assert (
        box is not None and box["x"] + box["width"] <= 1440 and box["y"] < 900
    )  # first score column in view
    colours = page.eval_on_selector_all(
        "#leaderboard-table td", "tds => tds.map(td => getComputedStyle(td).backgroundColor)"
    )
    assert not {c for c in colours} & {
        "rgb(212, 237, 218)",
        "rgb(248, 215, 218)",
    }  # averages are not coloured
    _shot(page, "main-1440")


def test_header_click_sorts_with_an_arrow_and_the_csv_follows(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
    _th(page, "Judge").click()  # names: A to Z first
    expect(_th(page, "Judge")).to_contain_text("▲")
    expect(_th(page, "Overall D_avg^EW")).not_to_contain_text("▼")
    expect(page.locator("#leaderboard-table tbody tr").first).to_contain_text("Mid Qwen 7B")
    _th(page, "Judge").click()  # again: the other way
    expect(_th(page, "Judge")).to_contain_text("▼")
    expect(page.locator("#leaderboard-table tbody tr").first).to_contain_text("Weak Phi-2")
    _th(page, "summeval D_min^EW").click()  # numbers: best first
    expect(_th(page, "summeval D_min^EW")).to_contain_text("▼")
    shown = _judges(page)
    with page.expect_download() as dl:
        page.locator("#csv").click()
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
    assert [r["Judge"] for r in rows] == shown
    assert "summeval D_avg^EW low" in rows[0] and "Overall D_avg^EW high" in rows[0]


def test_filters_search_toggle_and_csv(page: Any) -> None:
    from playwright.sync_api import expect

    table = page.locator("#leaderboard-table")
    expect(table).to_contain_text("Strong Llama 70B")
    page.locator("#filters").get_by_text("Filters and columns").click()
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

    # unticking and re-ticking a dataset keeps its place
    order = page.locator("#leaderboard-table th.ds").all_inner_texts()
    page.locator("#filter-datasets").get_by_label("summeval", exact=True).uncheck()
    expect(_th(page, "summeval D_avg^EW")).to_have_count(0)
    page.locator("#filter-datasets").get_by_label("summeval", exact=True).check()
    expect(_th(page, "summeval D_avg^EW")).to_have_count(1)
    assert page.locator("#leaderboard-table th.ds").all_inner_texts() == order

    page.locator("#search textarea, #search input").first.fill("qwen")
    expect(table).not_to_contain_text("Strong Llama 70B")
    expect(table).to_contain_text("Mid Qwen 7B")
    page.locator("#filter-datasets").get_by_label("summeval", exact=True).uncheck()
    page.locator("#weighted input").uncheck()
    expect(_th(page, "sumpubmed D_avg")).to_be_visible()
    expect(_th(page, "Overall D_avg")).to_be_visible()

    with page.expect_download() as dl:
        page.locator("#csv").click()
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["Judge"] for r in rows] == ["Mid Qwen 7B"]
    assert "sumpubmed D_avg" in rows[0] and "summeval D_avg" not in rows[0]
    assert "sumpubmed D_avg^EW" not in rows[0]
    page.locator("#search textarea, #search input").first.fill("gpt-4o")
    expect(table.locator(".dhp-empty")).to_contain_text("No judge matches “gpt-4o”")
    page.locator("#search textarea, #search input").first.fill("")
    expect(table.locator(".dhp-empty")).to_have_count(0)
    for name in BENCHMARK:  # summeval is unticked already
        box = page.locator("#filter-datasets").get_by_label(name, exact=True)
        if box.is_checked():
            box.uncheck()
    expect(table.locator(".dhp-empty")).to_contain_text("No dataset is ticked")


def test_a_late_reply_never_overwrites_a_newer_view(page: Any) -> None:
    """Replies to quick clicks can arrive out of order (the server renders views on several threads):
    the table ends on the last click, never on an earlier click's slower reply."""
    from playwright.sync_api import expect

    expect(page.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
    page.locator("#filters").get_by_text("Filters and columns").click()
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r"/dhp/view\?v="), hold_the_first)
    answered = int(page.evaluate("() => window.dhpViewsAnswered"))
    page.locator("#weighted input").uncheck()  # its reply is held back: unweighted, SummEval shown
    page.locator("#filter-datasets").get_by_label("summeval", exact=True).uncheck()
    expect(_th(page, "sumpubmed D_avg")).to_be_visible()
    assert len(held) == 1
    with page.expect_response(lambda r: r.request == held[0].request):
        held[0].continue_()
    page.wait_for_function(f"() => window.dhpViewsAnswered >= {answered + 2}")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expect(_th(page, "summeval D_avg")).to_have_count(0)
    expect(_th(page, "sumpubmed D_avg")).to_be_visible()


def test_phone_layout_has_no_horizontal_scroll(browser: Any, site: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        pg = ctx.new_page()
        pg.goto(site["url"])
        expect(pg.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
        scroll = pg.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll[0] <= scroll[1], scroll  # the page body does not scroll sideways; the table box does
        overall = pg.locator("#leaderboard-table tbody tr").first.locator("td.num").first
        box = overall.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390  # judge and Overall fit on the screen
        _shot(pg, "main-390")
        pg.locator("#leaderboard-table a.dhp-judge", has_text="Weak Phi-2").click()
        expect(pg.locator("#judge-bars svg.dhp-figure")).to_be_visible()
        img = pg.locator("#judge-bars svg.dhp-figure").bounding_box()
        assert (
            img is not None and img["x"] >= 0 and img["x"] + img["width"] <= 390
        )  # the figure fits the phone
        _plots_clear(pg)  # titles above the figures, no label over the top panel's title, text readable
        _summary_compact(pg, 390)
        expect(pg.locator("#judge-detail table").first).to_be_visible()
        lines = pg.evaluate(HEADER_LINES, "#judge-detail")  # "perturbati on" and "D^ EW" were broken
        assert lines and all(n == 1 for _, n in lines), lines
        scroll = pg.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll[0] <= scroll[1], scroll
        _shot(pg, "judge-390")
    finally:
        ctx.close()


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

    fill("#s-name", "")  # several problems: all are listed, in form order
    fill("#s-contact", "")
    page.locator("#s-submit").click()
    items = page.locator("#submit-status li")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("Judge name is required")
    expect(items.nth(1)).to_contain_text("Contact is required")


def test_worker_result_appears_without_restart(page: Any, site: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    from dhp.inference.judge import BuiltinJudge
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue, new_request
    from dhp.leaderboard.submissions.validation import Submission
    from dhp.types import ControlJudge

    root: Path = site["root"]
    q = RequestQueue(LocalStore(root / "requests"))
    if not any(r.judge_name == "Random control" for r in q.load()[0]):  # when run alone
        judge = BuiltinJudge(name="Random control", control=ControlJudge.RANDOM)
        q.submit(new_request(Submission(judge=judge, mode="builtin", contact="t"), "t"))
    expect(page.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
    cmd = [sys.executable, "-m", "dhp", "worker", "--once", "--data", str(site["data"]),
           "--requests", str(root / "requests"), "--results", str(root / "results"), "--n-boot", "20"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    # the open page picks the new row up through its timer, no reload
    first = page.locator("#leaderboard-table tbody tr").first  # pinned on top, labelled as a baseline
    expect(first).to_contain_text("Random control")
    expect(first).to_contain_text("baseline: chance")
    expect(first.locator("td.rank")).to_have_text("baseline: chance")  # as the CSV has it (issue 37)
    # the built-in random judge, scored on the six datasets, is never coloured as discerning
    green = "rgb(212, 237, 218)"
    for view in ("default", "unweighted"):
        if view == "unweighted":
            page.locator("#weighted input").uncheck()
            expect(_th(page, "Overall D_avg")).to_be_visible()
        expect(first.locator("td.num")).to_have_count(13)  # Overall and 6 x (D_avg, D_min)
        colours = first.locator("td").evaluate_all(
            "tds => tds.map(td => getComputedStyle(td).backgroundColor)"
        )
        assert green not in colours, view
    first.locator("a.dhp-judge").click()
    expect(page.locator("#judge-summary")).to_contain_text("✗ no")  # not qualified on any dataset
    expect(page.locator("#judge-info")).to_contain_text("Qualified")
    page.get_by_role("tab", name="Queue").click()
    expect(page.locator("#queue-table")).to_contain_text("FINISHED")


def test_judge_link_opens_its_page_and_the_url_follows(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#leaderboard-table")).to_contain_text("Mid Qwen 7B")
    page.locator("#leaderboard-table tbody tr").first.locator(
        "td.num"
    ).first.click()  # a number: nothing opens
    _th(
        page, "Judge"
    ).click()  # a server round trip after the click: an answer to the click would be in by now
    expect(_th(page, "Judge")).to_contain_text("▲")
    expect(page.get_by_role("tab", name="Leaderboard")).to_have_attribute("aria-selected", "true")
    assert "judge=" not in page.url
    page.locator("#leaderboard-table a.dhp-judge", has_text="Mid Qwen 7B").click()
    expect(page.locator("#judge-info")).to_contain_text("Mid Qwen 7B")
    expect(page).to_have_url(re.compile(r"\?judge=Mid(\+|%20)Qwen(\+|%20)7B$"))
    expect(page.locator("#judge-bars svg.dhp-figure")).to_be_visible()
    expect(page.locator("#judge-dist svg.dhp-figure")).to_be_visible()
    expect(page.locator("#judge-summary")).to_contain_text("summeval")
    expect(page.locator("#judge-perturbations")).to_contain_text("char_typo_minor")
    _plots_clear(page)
    _summary_compact(page, 1400)
    _shot(page, "judge-1400")


def test_judge_tab_opened_directly_or_by_link(page: Any, browser: Any, site: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#leaderboard-table")).to_contain_text("Strong Llama 70B")
    page.get_by_role("tab", name="Judge").click()  # drawn when opened: the first judge by name
    expect(page.locator("#judge-info")).to_contain_text("Mid Qwen 7B")
    expect(page.locator("#judge-bars svg.dhp-figure")).to_be_visible()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        linked = ctx.new_page()
        linked.goto(site["url"] + "?judge=Weak%20Phi-2")
        expect(linked.locator("#judge-info")).to_contain_text("Weak Phi-2")
        expect(linked.locator("#judge-dist svg.dhp-figure")).to_be_visible()
        linked.goto(site["url"] + "?judge=nosuch")
        expect(linked.locator("#judge-info")).to_contain_text("Unknown judge")
        expect(linked.locator("#judge-info")).to_contain_text("nosuch")
        linked.wait_for_timeout(3000)  # a timer tick or the tab's select event must not replace the message
        expect(linked.locator("#judge-info")).to_contain_text("nosuch", timeout=1)
        for table_id in ("#judge-summary", "#judge-perturbations"):  # no placeholder "1 2 3" tables
            expect(linked.locator(table_id)).to_be_hidden(timeout=1)
    finally:
        ctx.close()


def test_survey_vote_updates_weights(page: Any) -> None:
    from playwright.sync_api import expect

    from dhp.leaderboard.submissions.survey import get_task

    page.get_by_role("tab", name="Survey").click()
    task = get_task("summarization")
    page.locator("#vote-summarization").click()
    expect(page.locator("#vote-status-summarization")).to_contain_text("answer every question")
    for issue in task.issues:
        page.locator(f"#vote-summarization-{issue.id}").get_by_label("Relevance").check()
    page.locator("#vote-summarization").click()
    expect(page.locator("#vote-status-summarization")).to_contain_text("ballot for Summarization is stored")
    expect(page.locator("#survey-weights")).to_contain_text("relevance: 1")
    expect(page.locator("#survey-status")).to_contain_text("1 ballot so far; they become selectable at 5")


def test_long_tables_are_drawn_in_chunks_and_the_csv_holds_every_row(
    browser: Any, site: dict[str, Any]
) -> None:
    """500 judges are not laid out at once: the first ``board_chunk`` rows are drawn, the rest on
    scrolling or "show all"; the CSV is the whole view. (Here a chunk of 1 row over 3 judges.)"""
    from playwright.sync_api import expect

    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    demo = build_app(AppConfig.local(site["root"], board_chunk=1))
    port = _free_port()
    launch(demo, port=port, block=False)
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    try:
        pg = ctx.new_page()
        pg.goto(f"http://127.0.0.1:{port}/")
        more = pg.locator("#leaderboard-table .dhp-more")
        expect(more).to_contain_text("Showing 1 of")  # (3 judges, and a baseline if the worker test ran)
        n = int(pg.locator("#leaderboard-table table").get_attribute("data-rows") or 0)
        expect(more).to_contain_text(f"Showing 1 of {n} judges")
        expect(_rows(pg)).to_have_count(1)
        judges = ["Strong Llama 70B", "Mid Qwen 7B", "Weak Phi-2"]
        with pg.expect_download() as dl:
            pg.locator("#csv").click()
        rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
        assert len(rows) == n >= 3 and [r["Judge"] for r in rows if r["Judge"] in judges] == judges
        pg.locator("#leaderboard-table .dhp-show-all").click()
        expect(_rows(pg)).to_have_count(n)
        expect(more).to_have_count(0)
        assert _judges(pg) == [r["Judge"] for r in rows]  # drawn in the CSV's order
        _th(pg, "Judge").click()  # a new view starts again with one chunk
        expect(_th(pg, "Judge")).to_contain_text("▲")
        expect(_rows(pg)).to_have_count(1)
        _shot(pg, "main-chunked-1440")
    finally:
        ctx.close()
        demo.close()


def _ranked_version(url: str) -> int:
    """The board version once the server's rank ranges are all in (a poll with a deadline: the server
    computes them in the background)."""
    import json
    import time
    import urllib.request

    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "dhp/view", timeout=TIMEOUT_MS / 1000) as r:
            got = json.loads(r.read())
        if not got["loading"] and not got["status"]:
            return int(got["version"])
        time.sleep(0.2)
    raise AssertionError("the rank ranges were never filled in")


#: The board version the page shows (the timer's last tick applied, or the page load).
PAGE_VERSION = "() => Number(document.querySelector('#board-version input')?.value)"


def test_a_live_refresh_keeps_the_rows_drawn_and_the_scroll_position(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """New results arriving while a reader is down (or across) the table redraw the same view: the rows
    drawn so far and the table's scroll position stay, also when the rank ranges of the new results are
    filled in by a later tick (that tick drew the view as another one: back to the top and one chunk,
    as a new family ticked by the first refresh renamed the view); another view (a header click) starts
    at the top. Every step waits on the page's state: the ticks come whenever the server is done."""
    from playwright.sync_api import expect

    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    root = tmp_path_factory.mktemp("live")
    write_results(root / "results", n_items=25, n_boot=20)
    demo = build_app(AppConfig.local(root, board_chunk=1, refresh_s=0.5))
    port = _free_port()
    launch(demo, port=port, block=False)
    url = f"http://127.0.0.1:{port}/"
    ctx = browser.new_context(viewport={"width": 700, "height": 900})  # narrow: the table scrolls across
    try:
        pg = ctx.new_page()
        pg.goto(url)
        ranked = _ranked_version(url)
        pg.wait_for_function(
            f"() => ({PAGE_VERSION})() === {ranked}", timeout=TIMEOUT_MS
        )  # no ranks redraw pending
        expect(_rows(pg)).to_have_count(1)
        pg.locator("#leaderboard-table .dhp-show-all").click()
        expect(_rows(pg)).to_have_count(3)
        wrap = pg.locator("#leaderboard-table .dhp-board-wrap")
        wrap.evaluate("w => { w.scrollLeft = 200; }")
        left = wrap.evaluate("w => w.scrollLeft")
        assert left > 0  # the box does scroll across at this width
        write_results(  # a new judge of a new family: the refresh ticks it in the family filter
            root / "results", judges=(("Fresh Gemma 9B", 0.5, "google/gemma-2-9b-it", 9e9),), n_boot=20
        )
        expect(pg.locator("#leaderboard-table")).to_contain_text("Fresh Gemma 9B")
        expect(_rows(pg)).to_have_count(4)  # all drawn before, all drawn after: not back to one chunk
        expect(wrap).to_have_js_property("scrollLeft", left)
        ranked = _ranked_version(url)  # the new results' rank ranges are in...
        assert ranked > 0
        pg.wait_for_function(f"() => ({PAGE_VERSION})() === {ranked}", timeout=TIMEOUT_MS)  # ...and redrawn
        expect(pg.locator("#leaderboard-table")).to_contain_text("Fresh Gemma 9B")
        expect(_rows(pg)).to_have_count(4)
        expect(wrap).to_have_js_property("scrollLeft", left)
        _th(pg, "Judge").click()  # another view starts again at the top, with one chunk
        expect(_rows(pg)).to_have_count(1)
        expect(wrap).to_have_js_property("scrollLeft", 0)
    finally:
        ctx.close()
        demo.close()


# -- 150 judges at 1440 px: six datasets in view, Rank/Judge/Overall fixed, headers keyboard-sortable --
@pytest.fixture(scope="module")
def crowd_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """150 realistic judges (tests.leaderboard.factory.crowd_judges: real families and sizes, alike long
    names, near-chance and partial judges, hostile names), the three baselines, and 13 requests in the
    Queue (one with a hostile name a submission may carry)."""
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    root = tmp_path_factory.mktemp("crowd")
    names = write_crowd(root / "results")
    _crowd_queue(root)
    demo = build_app(AppConfig.local(root))
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "names": names, "root": root}
    finally:
        demo.close()


@pytest.fixture(scope="module")
def crowd(crowd_site: dict[str, Any]) -> str:
    return str(crowd_site["url"])


#: A name the submission form accepts (no / < >, no link markup: dhp.naming) that Markdown would still
#: format: bold, italics, code, strike-through, a heading mark and an entity.
QUEUED_HOSTILE = "Q *b* _i_ `c` ~~s~~ #h &amp; [l] (x)"


def _crowd_queue(root: Path) -> None:
    """13 requests: pending, running, finished and failed ones with long reasons, one hostile name."""
    from dhp.inference.judge import EndpointJudge
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue, new_request
    from dhp.leaderboard.submissions.validation import Submission

    q = RequestQueue(LocalStore(root / "requests"))
    for i in range(13):
        name = QUEUED_HOSTILE if i == 5 else f"Queued judge {i:02d} with a fairly long name (70B)"
        judge = EndpointJudge(name=name, endpoints=(f"https://api{i}.judges.example.com/v1",),
                              model=f"org/judge-{i}-70b-instruct", publish_host=i % 2 == 0)  # fmt: skip
        q.submit(new_request(Submission(judge=judge, mode="expected", contact="c"), f"user{i}"))
    for i in range(4):
        claimed = q.claim_next("w")
        assert claimed is not None
        if i % 2:
            q.fail(
                claimed,
                "the endpoint answered HTTP 503 Service Unavailable to 40 of 40 requests; retry later",
            )
        else:
            q.finish(claimed, ())


def test_six_datasets_fit_at_1440_with_150_judges(browser: Any, crowd: str) -> None:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        pg = ctx.new_page()
        pg.goto(crowd)
        expect(_rows(pg).first).to_be_visible()
        heads = pg.locator("#leaderboard-table th.ds")
        expect(heads).to_have_count(6)
        view = pg.locator("#leaderboard-table .dhp-board-wrap").bounding_box()
        assert view is not None
        for i in range(6):  # every dataset's two columns inside the table's visible box, unscrolled
            box = heads.nth(i).bounding_box()
            assert box is not None and box["x"] + box["width"] <= view["x"] + view["width"], (i, box, view)
        expect(pg.locator("#leaderboard-table th").filter(has_text="Prompt spread")).to_have_count(0)
        expect(pg.locator("#leaderboard-table td.caveats").first).to_contain_text(
            "20/100 items"
        )  # shown by default
        rank = pg.locator("#leaderboard-table th.rank")
        assert rank.evaluate("e => e.scrollWidth <= e.clientWidth"), "the Rank header is cut"
        _shot(pg, "crowd-1440")
        wrap = pg.locator("#leaderboard-table .dhp-board-wrap")
        wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")  # scrolled to the end: the fixed columns stay
        for sel in ("th.rank", "th.judge", "th.overall"):
            box = pg.locator(f"#leaderboard-table {sel}").bounding_box()
            wbox = wrap.bounding_box()
            assert box is not None and wbox is not None and box["x"] >= wbox["x"] - 1, (sel, box, wbox)
        _shot(pg, "crowd-1440-scrolled")
        judge_th = _th(pg, "Judge")
        judge_th.focus()
        assert judge_th.get_attribute("role") == "button" and judge_th.get_attribute("tabindex") == "0"
        pg.keyboard.press("Enter")
        expect(_th(pg, "Judge")).to_contain_text("▲")
    finally:
        ctx.close()


def test_the_baseline_stays_under_a_search(browser: Any, crowd: str) -> None:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        pg = ctx.new_page()
        pg.goto(crowd)
        expect(_rows(pg).first).to_be_visible()
        pg.locator("#search textarea, #search input").first.fill("405b v2 #138")
        expect(_rows(pg)).to_have_count(3)  # the one match, and the two baselines
        expect(_rows(pg).filter(has_text="Llama-3.1 405B v2 #138")).to_have_count(1)
        baseline = _rows(pg).filter(has_text="random")
        expect(baseline).to_have_count(1)
        expect(baseline.locator("td.rank")).to_have_text("baseline: chance")  # as the CSV has it (issue 37)
        assert baseline.locator("td.rank").evaluate("e => e.scrollWidth <= e.clientWidth"), "baseline cut"
        pg.locator("#search textarea, #search input").first.fill("no such judge at all")
        expect(pg.locator("#leaderboard-table .dhp-empty")).to_contain_text("No judge matches")
        expect(_rows(pg)).to_have_count(2)  # said above the baselines, which stay
        expect(_rows(pg).first.locator("td.rank")).to_have_text(re.compile(r"^baseline: "))
        _shot(pg, "crowd-1440-search")
    finally:
        ctx.close()


#: How many lines each header's text takes (a header broken inside a word, "Protoco l", takes two).
HEADER_LINES = """(sel) => Array.from(document.querySelectorAll(`${sel} th`)).filter(th => th.textContent.trim())
  .map(th => {
    const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let most = 0;
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim()) continue;
      const r = document.createRange(); r.selectNodeContents(n);
      const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
      most = Math.max(most, tops.size);
    }
    return [th.textContent.trim(), most];
  })"""


def _open_tab(pg: Any, name: str, width: int) -> None:
    """Open a tab at full width (a phone's tab bar hides some behind a menu), then lay the page out at
    ``width``."""
    pg.set_viewport_size({"width": 1440, "height": 844})
    pg.get_by_role("tab", name=name).click()
    pg.set_viewport_size({"width": width, "height": 844})


def _queue_rows(root: Path) -> None:
    """Rows with long cells in the Queue (its headers broke letter by letter beside them): a pending
    judge whose submitter published its host, and a failed one with a long reason."""
    from dhp.inference.judge import EndpointJudge
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue, new_request
    from dhp.leaderboard.submissions.validation import Submission

    q = RequestQueue(LocalStore(root / "requests"))
    if any(r.judge_name.startswith("Acme") for r in q.load()[0]):
        return
    for i, name in enumerate(("Acme judge, failed run", "Acme judge with a rather long name (70B)")):
        judge = EndpointJudge(name=name, endpoints=("https://api.acme-llm.example.com/v1",),
                              model="acme/acme-judge-70b-instruct-2026-11", publish_host=True)  # fmt: skip
        req = q.submit(new_request(Submission(judge=judge, mode="expected", contact="c"), f"user{i}"))
        if i == 0:
            claimed = q.claim_next("w")
            assert claimed is not None and claimed.id == req.id
            q.fail(
                claimed,
                "the endpoint answered HTTP 503 Service Unavailable to 40 of 40 requests; retry later",
            )


@pytest.mark.parametrize("width", [390, 1440])
def test_queue_and_about_headers_keep_their_words(browser: Any, site: dict[str, Any], width: int) -> None:
    from playwright.sync_api import expect

    _queue_rows(site["root"])
    ctx = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=width < 600)
    try:
        pg = ctx.new_page()
        pg.goto(site["url"])
        _open_tab(pg, "Queue", width)
        expect(pg.locator("#queue-table")).to_contain_text("api.acme-llm.example.com")
        if width < 600:  # a phone: a card per request, each line labelled (the headers are hidden)
            expect(pg.locator("#queue-table td[data-label='Protocol']").first).to_be_visible()
        else:
            expect(pg.locator("#queue-table th").filter(has_text="Protocol").first).to_be_visible()
            lines = pg.evaluate(HEADER_LINES, "#queue-table")
            assert lines and all(n == 1 for _, n in lines), lines
        _shot(pg, f"queue-{width}")
        _open_tab(pg, "About", width)
        expect(pg.locator("#about table").first).to_be_visible()
        lines = pg.evaluate(HEADER_LINES, "#about")
        assert lines and all(n == 1 for _, n in lines), lines
        scroll = pg.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll[0] <= scroll[1], scroll  # a wide table scrolls in its own box, not the page
        _shot(pg, f"about-{width}")
    finally:
        ctx.close()


# -- issue 31: names are plain text everywhere; readable at 390 and 1440 px with 150 judges -------------
@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the issue-31 tests save their screenshots: under pytest's tmp dir (printed at the end)."""
    return tmp_path_factory.mktemp("shots")


def _save(pg: Any, shots: Path, name: str, full: bool = False) -> None:
    pg.screenshot(path=str(shots / f"{name}.png"), full_page=full)


def _loopback_only(ctx: Any) -> list[str]:
    """Route every request of ``ctx``: only the app's own server (the first loopback port asked) is
    reached, anything else is refused; returns every address asked for, to check after."""
    from urllib.parse import urlsplit

    asked: list[str] = []
    app_ports: set[int] = set()

    def guard(route: Any) -> None:
        url = urlsplit(route.request.url)
        asked.append(route.request.url)
        if url.hostname == "127.0.0.1" and (not app_ports or url.port in app_ports):
            app_ports.add(int(url.port or 80))
            route.continue_()
        else:
            route.abort()

    ctx.route("**/*", guard)
    return asked


#: Images and links in an element that do not come from the app itself: by their address.
FOREIGN = """(sel) => {
  const out = [];
  for (const root of document.querySelectorAll(sel)) {
    for (const el of root.querySelectorAll('img, a, image, iframe, object, embed, video, audio, source')) {
      const where = el.getAttribute('src') || el.getAttribute('href') || el.getAttribute('xlink:href') || '';
      if (where.startsWith('data:image/svg+xml') || where.startsWith('?judge=')
          || where.startsWith('https://huggingface.co/')) continue;
      out.push(el.outerHTML.slice(0, 120));
    }
  }
  return out;
}"""


def test_hostile_names_are_plain_text_on_every_view(
    browser: Any, crowd_site: dict[str, Any], shots: Path
) -> None:
    """A judge named ``![a](http://...)`` put an image (a tracking pixel) in its page's header for every
    visitor; ``[x](...)`` a link; ``<img src=x>`` raw HTML. Table, judge page, compare, queue and the
    submit message show each as the words typed; the page fetches nothing but its own server."""
    from urllib.parse import quote

    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    asked = _loopback_only(ctx)
    try:
        pg = ctx.new_page()
        pg.goto(crowd_site["url"])
        expect(_rows(pg).first).to_be_visible()
        pg.locator("#leaderboard-table .dhp-show-all").click()
        links = pg.locator("#leaderboard-table a.dhp-judge")
        for name in HOSTILE_NAMES:
            expect(links.filter(has_text=name)).to_have_count(1)
            assert links.filter(has_text=name).get_attribute("title") == name
        assert pg.evaluate(FOREIGN, "#leaderboard-table") == []
        for name in HOSTILE_NAMES:  # each one's page, opened by its own link: not "Unknown judge"
            pg.goto(crowd_site["url"] + "?judge=" + quote(name, safe=""))
            head = pg.locator("#judge-info h2")
            expect(head).to_have_text(name)
            expect(pg.locator("#judge-bars svg.dhp-figure")).to_be_visible()
            assert pg.evaluate(FOREIGN, "#judge-info, #judge-bars, #judge-detail, #judge-misses") == []
        _save(pg, shots, "hostile-judge-1440")
        pg.locator("#leaderboard-table").wait_for(state="attached")
        _open_tab(pg, "Compare", 1440)
        for side, name in (("compare-a", HOSTILE_NAMES[0]), ("compare-b", HOSTILE_NAMES[2])):
            box = pg.locator(f"#{side} input")
            box.click()
            box.fill(name)
            pg.locator(f"#{side}").get_by_role("option", name=name, exact=True).click()
            expect(box).to_have_value(name)
        pg.locator("#compare-go").click()
        out = pg.locator("#compare-result")
        expect(out).to_contain_text(f"{HOSTILE_NAMES[0]} (A) vs {HOSTILE_NAMES[2]} (B)")
        assert pg.evaluate(FOREIGN, "#compare-result, #size-plot") == []
        _open_tab(pg, "Queue", 1440)
        expect(pg.locator("#queue-table")).to_contain_text(QUEUED_HOSTILE)
        assert pg.evaluate(FOREIGN, "#queue-table") == []
        _open_tab(pg, "Submit", 1440)
        pg.locator("#s-name textarea, #s-name input").first.fill("S ![s](http:127.0.0.1:1?s) *b*")
        pg.locator("#s-contact textarea, #s-contact input").first.fill("me@example.org")
        pg.locator("#s-protocol input").click()
        pg.get_by_role("option", name="builtin").click()
        pg.locator("#s-model textarea, #s-model input").first.fill("lexical")  # not in the crowd yet
        pg.locator("#s-submit").click()
        status = pg.locator("#submit-status")  # refused (link markup), the name quoted as typed
        expect(status).to_contain_text("'S ![s](http:127.0.0.1:1?s) *b*' holds a link or link markup")
        assert pg.evaluate(FOREIGN, "#submit-status") == []
        assert pg.locator("#submit-status img, #submit-status a").count() == 0
        pointed = [u for u in asked if ":1/" in u or ":1?" in u or u.split("?")[0].endswith("/x")]
        assert pointed == [], pointed  # nothing fetched from where the names point
    finally:
        ctx.close()


#: WCAG contrast of an element's text on the first opaque background under it, its size and style.
LEGIBILITY = """(el) => {
  const rgba = c => { const v = c.match(/[\\d.]+/g).map(Number); return v.length < 4 ? [...v, 1] : v; };
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let bg = [255, 255, 255];
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    const c = rgba(getComputedStyle(n).backgroundColor);
    if (c[3] > 0) { bg = c; break; }
  }
  const s = getComputedStyle(el);
  const fg = rgba(s.color);
  const mixed = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
  const [hi, lo] = [lum(mixed), lum(bg)].sort((a, b) => b - a);
  const r = el.getBoundingClientRect();
  return {ratio: (hi + 0.05) / (lo + 0.05), px: parseFloat(s.fontSize), italic: s.fontStyle, shown: r.width > 0 && r.height > 0};
}"""

#: After the table box is scrolled to its right end: for the first rows' Rank, Judge and Overall cells
#: (and their headers), whether the cell itself is what is drawn at its centre (opaque, on top) and inside
#: the box's left part; and whether any judge name is cut.
PINNED = """() => {
  const wrap = document.querySelector('#leaderboard-table .dhp-board-wrap');
  wrap.scrollIntoView({block: 'start'});
  wrap.scrollLeft = wrap.scrollWidth;
  const w = wrap.getBoundingClientRect();
  const bad = [];
  const cells = [...wrap.querySelectorAll('th.rank, th.judge, th.overall')];
  const rows = [...wrap.querySelectorAll('tbody tr')].slice(0, 8);
  for (const tr of rows) cells.push(...tr.querySelectorAll('td.rank, td.judge, td.overall'));
  for (const tr of [wrap.querySelector('thead tr'), ...rows]) {  // no gap between them to see through
    // (a phone hides the Rank column and writes each rank under its name)
    const boxes = [...tr.querySelectorAll('.rank, .judge, .overall')].map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
    for (let i = 1; i < boxes.length; i++) {
      if (Math.abs(boxes[i - 1].right - boxes[i].left) > 1) bad.push(['gap', boxes[i - 1].right, boxes[i].left]);
    }
  }
  for (const c of cells) {
    const r = c.getBoundingClientRect();
    if (!r.width) continue;  // not displayed (the Rank column on a phone)
    const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 8);
    if (y > Math.min(w.bottom, window.innerHeight)) continue;
    const top = document.elementFromPoint(x, y);
    if (!top || top.closest('td, th') !== c) bad.push(['covered', c.className, c.textContent.slice(0, 30)]);
    if (r.left < w.left - 1 || r.right > w.left + w.width / 1.2) bad.push(['moved', c.className, r.left]);
  }
  const cut = [...wrap.querySelectorAll('td.judge')].filter(td => td.scrollWidth > td.clientWidth + 1)
    .map(td => td.textContent.slice(0, 40));
  return {bad, cut, scrolled: wrap.scrollLeft};
}"""


@pytest.mark.parametrize("width", [390, 1440])
def test_the_board_reads_on_a_phone_and_a_wide_screen(
    browser: Any, crowd_site: dict[str, Any], shots: Path, width: int
) -> None:
    """With 150 judges: intervals legible (contrast >= 4.5:1, >= 11 px, upright) and shown on a phone
    (they were hidden below 600 px, in 9.45 px italic grey at 1.9:1); names whole, titled, and opened by a
    tap; Rank, Judge and Overall pinned and opaque when the datasets scroll; on a phone the caveats
    under each name (Caveats was the 15th column)."""
    from playwright.sync_api import expect

    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": 844 if phone else 900}, is_mobile=phone,
                              has_touch=phone)  # fmt: skip
    try:
        pg = ctx.new_page()
        pg.goto(crowd_site["url"])
        expect(_rows(pg).first).to_be_visible()
        _save(pg, shots, f"board-{width}")
        cis = pg.locator("#leaderboard-table tbody tr:not(.baseline) .ci")
        expect(cis.first).to_be_visible()
        for i in range(5):
            read = cis.nth(i).evaluate(LEGIBILITY)
            assert (
                read["shown"] and read["ratio"] >= 4.5 and read["px"] >= 11 and read["italic"] == "normal"
            ), read
        rank = pg.locator("#leaderboard-table tbody tr:not(.baseline) td.rank").first.evaluate(LEGIBILITY)
        assert rank["ratio"] >= 4.5, rank
        names = pg.locator("#leaderboard-table tbody a.dhp-judge")
        for i in range(10):
            assert names.nth(i).get_attribute("title") == names.nth(i).inner_text()
        pinned = pg.evaluate(PINNED)
        assert pinned["scrolled"] > 0 and pinned["bad"] == [] and pinned["cut"] == [], pinned
        _save(pg, shots, f"board-{width}-scrolled")
        caveats = pg.locator("#leaderboard-table th.caveats")
        under = pg.locator("#leaderboard-table tbody tr:not(.baseline) td.judge .cav").first
        if phone:
            expect(caveats).to_be_hidden()
            expect(under).to_be_visible()
            expect(under).to_contain_text("items")
        else:
            expect(caveats).to_be_visible()
            expect(under).to_be_hidden()
        scroll = pg.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll[0] <= scroll[1], scroll
        longest = max(crowd_site["names"][:40], key=len)  # a long name: tapped, its page shows it whole
        link = pg.locator("#leaderboard-table a.dhp-judge").filter(has_text=longest).first
        link.scroll_into_view_if_needed()
        link.tap() if phone else link.click()
        expect(pg.locator("#judge-info h2")).to_have_text(longest)
        _save(pg, shots, f"judge-{width}")
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [390, 1440])
def test_the_queue_and_the_size_plot_fit_both_widths(
    browser: Any, crowd_site: dict[str, Any], shots: Path, width: int
) -> None:
    """The Queue: every request in view when scrolled down the page (2 of 13 on a phone), its Reason on
    the screen at 1440 px, no page-wide sideways scroll. The size plot: only the Pareto front labelled,
    every judge named on hover (an SVG title), an alt text naming the front ("undefined plot")."""
    from playwright.sync_api import expect

    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.compare_view import size_points
    from dhp.leaderboard.page.plots import pareto_front
    from dhp.leaderboard.page.service import AppConfig, BoardService
    from dhp.leaderboard.submissions.queue import RequestQueue

    ctx = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=width < 600)
    try:
        pg = ctx.new_page()
        pg.goto(crowd_site["url"])
        _open_tab(pg, "Queue", width)
        rows = pg.locator("#queue-table tbody tr")
        n = len(
            RequestQueue(LocalStore(crowd_site["root"] / "requests")).load()[0]
        )  # 13, or 14 after a submission
        assert n >= 13
        expect(rows).to_have_count(n)
        for i in range(n):
            box = rows.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (i, box)
            assert box["height"] < (320 if width < 600 else 90), (i, box)  # no blank gaps
        reason = pg.locator("#queue-table td[data-label='Reason']").filter(has_text="503").first
        expect(reason).to_be_visible()
        rb = reason.bounding_box()
        assert rb is not None and rb["x"] + rb["width"] <= width + 1 and rb["width"] > 100, rb
        scroll = pg.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert scroll[0] <= scroll[1], scroll
        _save(pg, shots, f"queue-{width}", full=True)

        _open_tab(pg, "Compare", width)
        fig = pg.locator("#size-plot [role='img']")
        expect(fig).to_be_visible()
        points, _ = size_points(BoardService(AppConfig.local(crowd_site["root"])).frame()[0])
        front = pareto_front(points)
        alt = fig.get_attribute("aria-label") or ""
        assert "undefined" not in alt and all(n in alt for n in front), alt
        assert len(points) > 100 and 0 < len(front) < 15
        titles = fig.locator("svg title").all_text_contents()  # every judge named on hover
        assert sorted(t.split(": ")[0] for t in titles if "B parameters" in t) == sorted(
            n for n, _, _ in points
        )
        drawn = fig.evaluate("f => [...f.querySelectorAll('svg text')].map(t => t.textContent.trim())")
        numbers = [str(k) for k in range(1, len(front) + 1)]
        assert all(k in drawn for k in numbers)  # the front numbered on the plot, no name drawn in it
        assert not [n for n, _, _ in points if any(n in t for t in drawn)]
        listed = pg.locator("#size-plot .dhp-front li").all_inner_texts()
        assert [t.rsplit(" (", 1)[0] for t in listed] == front  # and named, in order, under it
        px = pg.evaluate(
            "() => Math.min(...[...document.querySelectorAll('#size-plot svg text')].map(t => t.getBoundingClientRect().height).filter(h => h > 0))"
        )
        assert px >= 8, px  # its text readable on a phone too (about 6 px before)
        box = fig.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
        fig.scroll_into_view_if_needed()
        _save(pg, shots, f"size-{width}")
    finally:
        ctx.close()
    print(f"screenshots: {shots}")
