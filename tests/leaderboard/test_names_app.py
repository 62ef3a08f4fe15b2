"""Names in every script against the running app (issue 37), submitted in headless Chromium: a whole
word of look-alike letters from another script is refused as the taken name it reads as, and two
distinct names that only a lossy folder slug made one (CJK) are both queued, each in its own folder."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.naming import judge_slug
from dhp.scoring.result_files import dump_result
from tests.leaderboard.browser import BROWSER_MARKS, TIMEOUT_MS
from tests.leaderboard.factory import make_result

pytestmark = BROWSER_MARKS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    root = tmp_path_factory.mktemp("names")
    for name, kw in (("deepseek-v3-t0-071", {}), ("oracle", {"protocol": "builtin", "model": "oracle"})):
        p = root / "results" / judge_slug(name) / "summeval@v1.json"
        p.parent.mkdir(parents=True)
        p.write_text(dump_result(make_result(name, "summeval", n_items=14, **kw)))  # type: ignore[arg-type]
    demo = build_app(AppConfig.local(root, judge_pages_ahead=False))
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "root": root}
    finally:
        demo.close()


def _submit(pg: Any, name: str, model: str) -> Any:
    def fill(sel: str, value: str) -> None:
        pg.locator(f"{sel} textarea, {sel} input").first.fill(value)

    status = pg.locator("#submit-status")
    fill("#s-name", name)
    fill("#s-contact", "me@example.org")
    fill("#s-url", "http://localhost:8000/v1")
    fill("#s-model", model)  # each submission its own judge: only its name can make it a duplicate
    pg.locator("#s-submit").click()
    return status


def test_lookalike_names_are_refused_and_distinct_cjk_names_queued(
    browser: Any, site: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        pg.goto(site["url"])
        expect(pg.locator("#leaderboard-table")).to_contain_text("deepseek-v3-t0-071")
        pg.get_by_role("tab", name="Submit").click()
        for i, (name, taken) in enumerate(
            (("ԁеерѕеек-v3-t0-071", "deepseek-v3-t0-071"), ("огасӏе", "oracle"))
        ):
            status = _submit(pg, name, f"org/lookalike-{i}")
            expect(status).to_contain_text(
                f"The judge name '{name}' reads like '{taken}'"
            )  # this one's answer
            expect(status).to_contain_text("Not queued")
        for i, name in enumerate(("评审一号", "评审二号")):
            status = _submit(pg, name, f"org/cjk-{i}")
            expect(status).to_contain_text(f"Queued {name} as request")
        pg.get_by_role("tab", name="Queue").click()
        expect(pg.locator("#queue-table")).to_contain_text("评审一号")
        expect(pg.locator("#queue-table")).to_contain_text("评审二号")
        assert len({judge_slug("评审一号"), judge_slug("评审二号")}) == 2  # and two folders for their results
    finally:
        ctx.close()


def test_stored_results_of_ascii_names_keep_their_folders(site: dict[str, Any]) -> None:
    assert (Path(site["root"]) / "results" / "deepseek-v3-t0-071" / "summeval@v1.json").is_file()
    assert judge_slug("deepseek-v3-t0-071") == "deepseek-v3-t0-071"
