"""A first visit (issue 37): the page's stylesheets come as one immutable, compressed file; headless
Chromium with a cold cache makes 54 requests for the board, 88 before."""

from __future__ import annotations

import contextlib
import gzip
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.leaderboard.page.first_visit import BUNDLE_PREFIX, PageBundle, frontend_dir, page_bundle, page_files
from tests.leaderboard.browser import BROWSER_MARKS, TIMEOUT_MS
from tests.leaderboard.conftest import write_results

_IMMUTABLE = "public, max-age=31536000, immutable"


@contextlib.contextmanager
def _served(root: Path) -> Iterator[tuple[Any, str]]:
    """The board app over ``root``'s generated results, launched on a free loopback port: (app, URL)."""
    from dhp.leaderboard.page.app import build_app, launch
    from dhp.leaderboard.page.service import AppConfig

    write_results(root / "results")
    demo = build_app(AppConfig.local(root, judge_pages_ahead=False))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    launch(demo, port=port, block=False)
    try:
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _served(tmp_path_factory.mktemp("first-visit")) as (_, url):
        yield url


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def test_the_page_links_one_stylesheet_made_of_gradios_files_immutable_and_compressed(site: str) -> None:
    """The page links the bundle where Gradio linked its stylesheet, and each stylesheet the modules ask
    for as a disabled link; the bundle is those files' bytes, in that order, each after a comment naming
    it; it is sent brotli- or gzip-compressed (made once) as asked, immutable, and a revalidation is a 304."""
    import brotli

    _, _, page = _get(site)
    text = page.decode("utf-8")
    bundle = re.findall(
        rf'<link rel="stylesheet" href="\./assets/({BUNDLE_PREFIX}[0-9a-f]{{16}}\.css)">', text
    )
    disabled = re.findall(r'<link rel="stylesheet" href="\./assets/([\w.-]+\.css)" disabled>', text)
    assert len(bundle) == 1 and len(disabled) >= 20, (bundle, len(disabled))
    assert 'crossorigin href="./assets/index-' not in text.split("</head>")[0].split(bundle[0])[0][-200:]
    assets = frontend_dir() / "assets"
    want = "".join(f"/* {f} */\n{(assets / f).read_text(encoding='utf-8')}\n" for f in disabled).encode()
    status, h, br = _get(site + "assets/" + bundle[0], **{"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and h["cache-control"] == _IMMUTABLE and h["content-encoding"] == "br"
    assert h["content-type"].startswith("text/css") and brotli.decompress(br) == want
    status, h, gz = _get(site + "assets/" + bundle[0], **{"Accept-Encoding": "gzip"})
    assert status == 200 and h["content-encoding"] == "gzip" and gzip.decompress(gz) == want
    assert _get(site + "assets/" + bundle[0], **{"If-None-Match": h["etag"]})[0] == 304
    # an asset of Gradio's, through the same layer: immutable, the file's own bytes
    script = re.search(r'<link rel="modulepreload" crossorigin href="\./assets/([\w.-]+\.js)">', text)
    assert script is not None
    status, h, br = _get(site + "assets/" + script[1], **{"Accept-Encoding": "br"})
    assert status == 200 and h["cache-control"] == _IMMUTABLE
    assert brotli.decompress(br) == (assets / script[1]).read_bytes()


def test_an_unknown_build_leaves_the_page_as_gradio_made_it(tmp_path: Path) -> None:
    """A front end of another shape (no entry, no component table) gives no bundle; a page without
    Gradio's stylesheet link is not changed."""
    (tmp_path / "assets").mkdir()
    assert page_files(tmp_path, ["markdown"]) is None
    (tmp_path / "index.html").write_text(
        '<script type="module" crossorigin src="./assets/index-a.js"></script>'
        '<link rel="stylesheet" crossorigin href="./assets/index-a.css">'
    )
    (tmp_path / "assets" / "index-a.js").write_text("export{}")
    assert page_files(tmp_path, ["markdown"]) is None and page_bundle({}, tmp_path) is None
    (tmp_path / "assets" / "index-a.css").write_text("a{}")
    b = PageBundle(tmp_path / "assets", "index-a.css", [])
    assert b.inject(b"<html><head></head></html>") == b"<html><head></head></html>"
    got = b.inject(b'<head><link rel="stylesheet" crossorigin href="./assets/index-a.css"></head>')
    assert got.count(b"<link") == 2 and b'index-a.css" disabled>' in got and b.name.encode() in got


def _browser_test(fn: Any) -> Any:
    for mark in reversed(BROWSER_MARKS):
        fn = mark(fn)
    return fn


@_browser_test
def test_a_first_visit_asks_for_one_stylesheet_and_54_files(browser: Any, site: str) -> None:
    """Headless Chromium, cold cache, until the table shows: the page, the bundle, Gradio's theme, its
    two font files, its scripts and the table's view; no other stylesheet (the disabled links are not
    fetched). Each module's styles still apply, and the board's own style still comes after them (its
    ``.info-text`` colour wins over Gradio's rule of the same specificity, as before; linked at the end
    of the body, the bundle won)."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    seen: list[str] = []
    pg = ctx.new_page()
    pg.on("request", lambda r: seen.append(r.url[len(site) :]) if r.url.startswith(site) else None)
    try:
        pg.goto(site)
        expect(pg.locator("#leaderboard-table td.judge").first).to_be_visible(timeout=TIMEOUT_MS)
        pg.wait_for_load_state("networkidle")
        rules = pg.evaluate(
            f"""() => Array.from(document.styleSheets).filter(s => (s.href || '').includes('{BUNDLE_PREFIX}'))
                .map(s => s.cssRules.length)"""
        )
        colour = pg.evaluate(
            """() => { const e = document.querySelector('.info-text'), g = document.querySelector('.gradio-container');
                const probe = document.createElement('span'); probe.style.color = getComputedStyle(g).getPropertyValue('--dhp-sub');
                g.appendChild(probe); const want = getComputedStyle(probe).color; probe.remove();
                return [getComputedStyle(e).color, want] }"""
        )
    finally:
        ctx.close()
    styles = [u for u in seen if ".css" in u]
    assert (
        len(styles) == 2 and any(BUNDLE_PREFIX in u for u in styles) and any("theme.css" in u for u in styles)
    )
    assert len(rules) == 1 and rules[0] > 500  # Gradio's page style (149 rules) and the modules'
    assert colour[0] == colour[1], colour
    assert len(seen) == len(set(seen)) and len(seen) <= 60, (len(seen), seen)  # 88 before


def test_the_page_is_drawn_by_the_browser_even_where_a_space_asks_for_ssr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Space may set GRADIO_SSR_MODE=true; a page rendered by Gradio's Node server would bypass the
    page's caching and its one stylesheet, so the board always renders in the browser."""
    monkeypatch.setenv("GRADIO_SSR_MODE", "true")
    with _served(tmp_path) as (demo, url):
        assert demo.ssr_mode is False
        _, _, page = _get(url)
        assert BUNDLE_PREFIX in page.decode("utf-8")
