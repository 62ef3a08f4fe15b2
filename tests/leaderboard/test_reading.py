"""Reading the board (issue 37), in headless Chromium at 390x844 and 1440x900: every text at least 11 px
and 4.5:1 on its background; the size plot named for screen readers and readable without a hover; the
caveats of the datasets in view only; the CSV and the page agreeing on every cell (the baselines' Rank
included); on a phone the judge, Overall and two datasets in view."""

from __future__ import annotations

import csv
import io
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from dhp.scoring.result_files import dump_result
from dhp.spec import BENCHMARK
from tests.leaderboard.browser import BROWSER_MARKS, TIMEOUT_MS
from tests.leaderboard.factory import make_result, write_crowd

pytestmark = BROWSER_MARKS
PARTIAL = "Partial Judge"  # no interval on summeval only: its caveat names that dataset


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    root = tmp_path_factory.mktemp("reading")
    write_crowd(root / "results", n=40)
    for ds in BENCHMARK:
        r = make_result(PARTIAL, ds, skill=0.7, n_items=20, n_boot=0 if ds == "summeval" else 10, n_params=9e9,
                        hf_model_id="org/partial-9B", model="org/partial-9B")  # fmt: skip
        p = root / "results" / "partial-judge" / f"{ds}@v1.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(dump_result(r))
    demo = build_app(AppConfig.local(root, judge_pages_ahead=False))
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@pytest.fixture(params=[390, 1440], ids=["phone", "wide"])
def page(request: pytest.FixtureRequest, browser: Any, site: str) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    width: int = request.param
    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": 844 if phone else 900}, is_mobile=phone,
                              has_touch=phone, accept_downloads=True)  # fmt: skip
    pg = ctx.new_page()
    pg.goto(site)
    expect(pg.locator("#leaderboard-table tbody tr").first).to_be_visible()
    pg.dhp_width = width
    yield pg
    ctx.close()


#: Every text node shown under ``root`` whose font is under 11 px or whose contrast with the first
#: opaque background behind it is under 4.5:1 (WCAG AA): [text, px, ratio, where].
ILLEGIBLE = """(root) => {
  const rgba = c => { const v = (c.match(/[\\d.]+/g) || [0, 0, 0, 0]).map(Number); return v.length < 4 ? [...v, 1] : v; };
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bgOf = el => {
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const bad = [];
  const walk = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const el = t.parentElement;
    if (!t.textContent.trim() || !el || el.closest('svg, script, style')) continue;
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (!r.width || !r.height || s.visibility === 'hidden') continue;
    const fg = rgba(s.color), bg = bgOf(el);
    const mixed = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const [hi, lo] = [lum(mixed), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05), px = parseFloat(s.fontSize);
    if (px < 11 || ratio < 4.5) bad.push([t.textContent.trim().slice(0, 40), px, Math.round(ratio * 100) / 100,
      `${el.tagName}.${el.className} in #${(el.closest('[id]') || {}).id}`]);
  }
  return bad;
}"""


def _open_tab(pg: Any, name: str) -> None:
    tab = pg.get_by_role("tab", name=name)
    if not tab.is_visible():  # a phone folds the later tabs into Gradio's overflow menu
        pg.locator(".overflow-menu button, button.overflow-menu").first.click()
        tab = (
            pg.locator(".overflow-dropdown")
            .get_by_role("button", name=name)
            .or_(pg.locator(".overflow-dropdown").get_by_text(name, exact=True))
        )
    tab.first.click()


def test_every_text_is_at_least_11_px_and_4_5_to_1(page: Any) -> None:
    from playwright.sync_api import expect

    pg = page
    assert pg.evaluate(ILLEGIBLE, "#tab-leaderboard") == []  # baselines, caveats, the survey's note
    _open_tab(pg, "Compare")
    expect(pg.locator("#size-plot figure.dhp-size svg").first).to_be_visible()
    pg.locator("#size-plot details summary").click()
    expect(pg.locator("#size-plot .dhp-points tbody tr").first).to_be_visible()
    assert pg.evaluate(ILLEGIBLE, "#size-plot") == []  # the front's sizes and D were 1.91:1
    _open_tab(pg, "Survey")
    expect(pg.locator("#survey-status")).to_contain_text("ballot")
    assert pg.evaluate(ILLEGIBLE, "#tab-survey") == []


def test_the_size_plot_is_named_and_every_point_readable_without_a_hover(page: Any) -> None:
    from playwright.sync_api import expect

    pg = page
    _open_tab(pg, "Compare")
    svg = pg.locator("#size-plot figure.dhp-size svg").first  # the plot (not an icon of Gradio's)
    expect(svg).to_be_visible()
    name = svg.evaluate(
        "s => s.getAttribute('aria-label') || (s.querySelector(':scope > title') || {}).textContent"
    )
    assert name and "parameter count" in name and "Pareto front" in name, name
    assert svg.evaluate("s => s.firstElementChild.tagName") == "title"  # its accessible name, for any reader
    hovered = [t.split(": ")[0] for t in svg.locator("title").all_text_contents() if "B parameters" in t]
    pg.locator("#size-plot details summary").click()  # a tap on a phone
    rows = pg.locator("#size-plot .dhp-points tbody tr")
    expect(rows.first).to_be_visible()
    listed = [r.split("\t")[0] for r in rows.all_inner_texts()]
    assert sorted(listed) == sorted(hovered) and PARTIAL in listed  # every point, named without a hover


def test_caveats_name_only_the_datasets_in_view(page: Any) -> None:
    from playwright.sync_api import expect

    pg = page
    row = pg.locator("#leaderboard-table tbody tr").filter(has=pg.locator(f"a.dhp-judge[title='{PARTIAL}']"))
    cav = row.locator("td.caveats" if pg.dhp_width > 600 else "td.judge .cav")
    expect(cav).to_contain_text("no interval (summeval)")
    pg.locator("#filters").get_by_text("Filters and columns").click()
    pg.locator("#filter-datasets").get_by_label("summeval", exact=True).uncheck()
    expect(pg.locator("#leaderboard-table th.ds").first).not_to_contain_text("SummEval")
    expect(cav).not_to_contain_text("no interval")  # the filtered-out dataset's note went with it
    expect(cav).to_contain_text("20/100 items")


def _page_cells(pg: Any) -> list[list[str]]:
    """The table's rows as the page draws them: Rank, Judge, then each number cell with its interval."""
    return list(
        pg.evaluate(
            """() => [...document.querySelectorAll('#leaderboard-table tbody tr')].map(tr => [
                tr.querySelector('td.rank').textContent.trim(),
                tr.querySelector('td.judge a').textContent.trim(),
                ...[...tr.querySelectorAll('td.num')].map(td => td.textContent.replace(/\\s+/g, ' ').trim()),
                ...[...tr.querySelectorAll('td.caveats')].map(td => td.textContent.trim())])"""
        )
    )


def _csv_of(pg: Any) -> list[list[str]]:
    url = pg.locator("#csv").evaluate("b => b.closest('a') ? b.closest('a').href : b.getAttribute('href')")
    if not url:  # Gradio's DownloadButton: the file's link is on the button's value
        with pg.expect_download() as got:
            pg.locator("#csv").click()
        text = open(got.value.path(), encoding="utf-8").read()  # noqa: SIM115
    else:
        text = pg.request.get(url).text()
    return list(csv.reader(io.StringIO(text)))


def test_the_csv_and_the_page_agree_on_every_cell(page: Any) -> None:
    pg = page
    more = pg.locator("#leaderboard-table .dhp-more button")
    if more.count():
        more.click()  # every row drawn
    shown = _page_cells(pg)
    rows = _csv_of(pg)
    head, body = rows[0], rows[1:]
    assert len(body) == len(shown)
    for csv_row, cells in zip(body, shown, strict=True):
        rec = dict(zip(head, csv_row, strict=True))
        assert cells[0] == rec["Rank"], (cells[0], rec["Rank"])  # "baseline: chance" in both
        assert cells[1] == rec["Judge"]
        nums = [c for c in head if " D_" in c and not c.endswith(("lo", "hi", "low", "high"))]
        for c, cell in zip([n for n in nums if "[" not in n], cells[2:], strict=False):
            assert cell.split(" [")[0] in (rec[c], "–") or (cell == "–" and rec[c] == ""), (c, cell, rec[c])


def test_the_effect_column_shows_beside_d_and_the_csv_holds_it(page: Any) -> None:
    """Issue 35: the effect, chosen under Columns, is drawn per dataset with its interval, and the CSV
    has the same numbers in the same order (every value column, intervals included)."""
    from playwright.sync_api import expect

    pg = page
    if pg.dhp_width < 600:
        pytest.skip("one width is enough: the columns are the same")
    pg.locator("#filters").get_by_text("Filters and columns").click()
    pg.locator("#filter-columns").get_by_label("effect", exact=True).check()
    expect(pg.locator("#leaderboard-table th[data-sort^='summeval effect']")).to_have_count(1)
    more = pg.locator("#leaderboard-table .dhp-more button")
    if more.count():
        more.click()
    shown = _page_cells(pg)
    rows = _csv_of(pg)
    head, body = rows[0], rows[1:]
    values = [c for c in head if (" D_" in c or c.endswith(" effect")) and f"{c} low" in head]
    assert sum(c.endswith(" effect") for c in values) == len(BENCHMARK)  # every dataset's effect
    assert len(body) == len(shown)
    for csv_row, cells in zip(body, shown, strict=True):
        rec = dict(zip(head, csv_row, strict=True))
        for c, cell in zip(values, cells[2 : 2 + len(values)], strict=True):
            bounds = f" [{rec[c + ' low']}, {rec[c + ' high']}]" if rec[c + " low"] else ""
            assert cell == ("–" if not rec[c] else rec[c] + bounds), (c, cell, rec[c], bounds)
        assert cells[2 + len(values) :] == [rec["Caveats"]]


def test_a_phone_shows_the_judge_overall_and_two_datasets(page: Any) -> None:
    pg = page
    if pg.dhp_width > 600:
        pytest.skip("the phone layout")
    wrap = pg.locator("#leaderboard-table .dhp-board-wrap").bounding_box()
    assert wrap is not None
    right = min(wrap["x"] + wrap["width"], 390)
    row = pg.locator("#leaderboard-table tbody tr:not(.baseline)").first
    for sel in ("td.judge", "td.overall"):
        box = row.locator(sel).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= right, (sel, box)
    heads = pg.locator("#leaderboard-table th.ds")
    shown = [b for b in (heads.nth(i).bounding_box() for i in range(heads.count())) if b]
    whole = [b for b in shown if b["x"] >= 0 and b["x"] + b["width"] <= right + 1]
    assert len(whole) >= 2, (right, shown[:3])  # two datasets' columns in view, unscrolled
    expect_rank = row.locator("td.judge .rk")
    assert expect_rank.is_visible() and expect_rank.inner_text().startswith(
        "rank "
    )  # its rank, under the name
