"""Judge pages served like the table (issue 37): ``GET /dhp/judge`` answers bytes drawn once per version
of the judge's results by child processes, and a page being drawn holds up no other page."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.judge_pages import JudgePages
from dhp.leaderboard.page.service import AppConfig, BoardService
from tests.leaderboard.conftest import write_results

WAIT_S = 300  # generous: the machine is shared; nothing here is a timing assertion


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dhp.leaderboard.page import serving
    from dhp.leaderboard.page.app import build_app, launch

    root = tmp_path_factory.mktemp("judge-pages")
    write_results(root / "results", datasets=("summeval", "wmt22-de-en"), n_items=20)
    cfg = AppConfig.local(root, judge_pages_ahead=False)  # every page drawn when first asked for
    be = BoardService(cfg)
    demo = build_app(cfg, be)
    port = _free_port()
    launch(demo, port=port, block=False)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "be": be, "pages": serving.judge_pages(be), "root": root}
    finally:
        demo.close()


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def _page(app: dict[str, Any], name: str, dataset: str | None = None) -> dict[str, Any]:
    q = {"name": name} | ({"dataset": dataset} if dataset else {})
    for _ in range(WAIT_S):  # the first scan of the results: the route answers {"loading": true} meanwhile
        status, _, body = _get(app["url"] + "dhp/judge?" + urllib.parse.urlencode(q))
        assert status == 200, body
        page: dict[str, Any] = json.loads(body)
        if not page.get("loading"):
            return page
        app["be"].report()  # waits for the scan
    raise AssertionError("the results were never read")


def test_the_judge_route_answers_the_whole_page_as_it_opens(app: dict[str, Any]) -> None:
    page = _page(app, "Mid Qwen 7B")
    assert "Mid Qwen 7B" in page["info"]
    assert page["bars"].startswith('<svg class="dhp-figure"') and 'role="img"' in page["bars"]
    assert page["summary"]["headers"][0] == "Dataset" and len(page["summary"]["data"]) == 2
    assert page["datasets"] == ["summeval", "wmt22-de-en"]
    first = page["first"]
    assert first["dataset"] == "summeval" and "Where it fails on summeval" in first["detail"]
    assert first["choices"] and set(first["misses"]) == {pid for _, pid in first["choices"]}
    assert first["csv"]["url"].startswith("dhp/csv/dhp-misses-")
    status, _, csv = _get(app["url"] + first["csv"]["url"])  # the CSV of every miss is served
    assert status == 200 and csv.startswith(b"perturbation,")
    other = _page(app, "Mid Qwen 7B", "wmt22-de-en")
    assert other["dataset"] == "wmt22-de-en" and "Where it fails on wmt22-de-en" in other["detail"]
    assert _page(app, "Mid Qwen 7B", "nosuch") == {"dataset": "nosuch", "missing": True}
    assert _page(app, "nosuch")["has_results"] is False


def test_a_page_is_drawn_once_per_version_and_revalidated(app: dict[str, Any]) -> None:
    url = app["url"] + "dhp/judge?" + urllib.parse.urlencode({"name": "Weak Phi-2"})
    _page(app, "Weak Phi-2")
    drawn = app["pages"].rendered
    status, headers, body = _get(url, {"Accept-Encoding": "gzip"})
    assert (
        status == 200 and headers["Content-Encoding"] == "gzip" and json.loads(gzip.decompress(body))["name"]
    )
    assert _get(url, {"If-None-Match": headers["ETag"]})[0] == 304
    assert app["pages"].rendered == drawn  # from the bytes kept, not drawn again
    # a new version of one of its files: the page is drawn again (once)
    f = app["root"] / "results" / "weak-phi-2" / "summeval@v1.json"
    f.write_text(f.read_text() + "\n")
    app["be"].report(max_age_s=0)
    assert _get(url)[0] == 200 and _get(url)[0] == 200
    assert app["pages"].rendered == drawn + 1


class _Gate:
    """A store read that waits while the gate is shut, for the files of one judge."""

    def __init__(self, store: LocalStore, held: str) -> None:
        self.store, self.held = store, held
        self.open = threading.Event()
        self.waiting = threading.Event()

    def read(self, path: str) -> bytes:
        if path.startswith(self.held):
            self.waiting.set()
            assert self.open.wait(WAIT_S)
        return self.store.read(path)


def test_a_page_being_drawn_holds_up_no_other(tmp_path: Path) -> None:
    results = write_results(tmp_path / "results", datasets=("summeval",), n_items=20)
    be = BoardService(AppConfig.local(tmp_path))
    gate = _Gate(LocalStore(results), "strong-llama-70b/")
    pages = JudgePages(be.judge_results, gate.read, None, tmp_path)
    try:
        slow = pages.get("Strong Llama 70B")  # its files cannot be read until the gate opens
        assert gate.waiting.wait(WAIT_S)
        other = pages.get("Mid Qwen 7B")  # drawn by the other renderer meanwhile
        assert "Mid Qwen 7B" in json.loads(other.result(WAIT_S).raw)["info"]
        assert pages.get("Mid Qwen 7B").done()  # and kept: answered at once
        assert not slow.done()
        gate.open.set()
        assert "Strong Llama 70B" in json.loads(slow.result(WAIT_S).raw)["info"]
    finally:
        gate.open.set()
        pages.close()


def test_a_reader_overtaking_the_background_gets_the_page_drawn_once(tmp_path: Path) -> None:
    results = write_results(tmp_path / "results", datasets=("summeval",), n_items=20)
    be = BoardService(AppConfig.local(tmp_path))
    pages = JudgePages(be.judge_results, LocalStore(results).read, None, tmp_path)
    try:
        pages.prerender(be.judges())  # queued in the background...
        asked = pages.get("Weak Phi-2")  # ...and asked for by a reader: ahead of the queue, the same page
        assert "Weak Phi-2" in json.loads(asked.result(WAIT_S).raw)["info"]
        for name in be.judges():
            pages.get(name).result(WAIT_S)
        assert pages.rendered == len(be.judges())
    finally:
        pages.close()
