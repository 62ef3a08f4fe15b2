"""Nothing of the private split leaks from the Space (issue 39).

The real Space app (``run_space``, as a Space's ``app.py`` runs it) in Space mode against the recorded Hub
replay: its stores are Hub datasets, its worker (``DHP_RUN_WORKER=1``) downloads the private split from a
private dataset repository with the token and scores each submission on both splits. A user signs in with
Hugging Face in headless Chromium and submits a judge by Hub model id through the form; the queue and the
worker score it through a loopback replay of the Inference Providers router. Then every page, route and
CSV the board serves is fetched (the page, the default view and the view with the private split's columns,
their CSVs, the judge page and its dataset part, the misses CSV, Gradio's config, every tab's HTML), every
file of the results, requests and votes repositories and the app's and worker's log are read: no text of
the private split that the public split does not hold (originals, perturbed texts, item ids), and not the
seed, appears in any of them.

The splits are built from the embedded sample's SummEval (``other-texts``: the public items, each with
another reference summary, so the private originals are texts the public split does not hold; its item ids
are the public ones, so no item id is private here: a ``disjoint`` split's would be checked alike).
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from dhp.data.private import SEED_ENV
from dhp.inference.hub import ROUTER_URL_ENV
from dhp.leaderboard.board.table import SIZE_BUCKETS
from dhp.spec import DATASET_NAMES
from tests.builder.hub_replay import REPLAY_TOKEN, HubReplay, replay_hub
from tests.leaderboard.browser import ARGS, BROWSER_MARKS, CHROMIUM, TIMEOUT_MS
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.support.serving import build_sample_split, wait_served

pytestmark = [*BROWSER_MARKS, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SEED = "leak-test-private-seed-8c7b6a5f4e3d2c1b"
DATASET = "summeval"
JUDGE = "Judge 7B via novita"
PRIVATE_COLUMNS = ["Caveats", "D_avg", "D_min", "Private split"]  # the Columns choice with the private split
WINDOW = 40  # characters of a private text looked for, every 20 characters along it


def _strings(folder: Path) -> list[dict[str, Any]]:
    """Every row of every parquet file under ``folder``."""
    return [row for f in sorted(folder.rglob("*.parquet")) for row in pq.read_table(f).to_pylist()]


def private_only(public: Path, private: Path) -> tuple[set[str], set[str]]:
    """The private split's texts the public split does not hold, as ``WINDOW``-character pieces (a piece
    the public split or the articles hold is not private), and its item ids the public split lacks."""
    pub_rows, priv_rows = _strings(public), _strings(private)
    corpus = "\n".join(str(v) for row in pub_rows for v in row.values())
    corpus += "\n" + "\n".join(str(row.get("article", "")) for row in priv_rows)  # the articles are public
    for f in public.rglob("*"):
        if f.is_file() and f.suffix in (".jsonl", ".json", ".md"):
            corpus += "\n" + f.read_text(encoding="utf-8")
    pieces: set[str] = set()
    for row in priv_rows:
        for col in ("original", "perturbed"):
            text = str(row[col])
            for i in range(0, max(1, len(text) - WINDOW + 1), 20):
                piece = text[i : i + WINDOW]
                if len(piece) == WINDOW and piece not in corpus:
                    pieces.add(piece)
    ids = {str(row["id"]) for row in priv_rows} - {str(row["id"]) for row in pub_rows}
    return pieces, ids


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_APP = "from dhp.leaderboard.deploy.space import run_space\nrun_space()\n"


def _space_env(hub: HubReplay, port: int, tmp: Path, router: str, public: Path) -> dict[str, str]:
    """A Space with ``hf_oauth: true`` (what Spaces set), pointed at the replay, with the variables and
    secrets an operator sets, the private split's among them; and, an operator's slip, the seed too."""
    return {
        "PATH": os.environ.get("PATH", ""), "HOME": str(tmp / "home"), "HF_HOME": str(tmp / "home" / "hf"),
        "PYTHONPATH": str(ROOT), "SYSTEM": "spaces", "SPACE_ID": "acme/board", "SPACE_AUTHOR_NAME": "acme",
        "OAUTH_CLIENT_ID": "replay-client", "OAUTH_CLIENT_SECRET": "replay-client-secret",
        "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": hub.endpoint, "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_DISABLE_XET": "1", "HF_TOKEN": REPLAY_TOKEN, "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False", "DHP_HUB_TIMEOUT": "10",
        "DHP_REFRESH_S": "2", "DHP_WORKER_POLL_S": "2", ROUTER_URL_ENV: router,
        "DHP_RUN_WORKER": "1", "DHP_WORKER_DATA": str(public), "DHP_LEADERBOARD_DATA": str(public),
        "DHP_PRIVATE_REPO": "acme/dhp-private", "DHP_WORKER_PRIVATE_DATA": str(tmp / "private-download"),
        SEED_ENV: SEED,
    }  # fmt: skip


@pytest.fixture
def space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    from huggingface_hub import HfApi

    public, private = tmp_path / "public", tmp_path / "private"
    monkeypatch.setenv(SEED_ENV, SEED)
    build_sample_split(public, DATASET)
    build_sample_split(private, DATASET, "--split", "private")
    monkeypatch.delenv(SEED_ENV)
    with (
        replay_hub(monkeypatch, tmp_path) as hub,
        FakeJudgeServer(hashed_answer, model="test-org/judge-7b:novita") as router,
    ):
        api = HfApi(endpoint=hub.endpoint)
        api.create_repo("acme/dhp-private", repo_type="dataset", private=True)
        api.upload_folder(folder_path=private, repo_id="acme/dhp-private", repo_type="dataset")
        hub.state.private_tokens = frozenset({REPLAY_TOKEN})  # as the Hub: a private repository needs it
        port = _free_port()
        log_path = tmp_path / "space.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen([sys.executable, "-c", _APP], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                    env=_space_env(hub, port, tmp_path, router.url, public), start_new_session=True)  # fmt: skip
            try:
                wait_served(port, proc, log_path, 300)
                yield {"url": f"http://127.0.0.1:{port}", "hub": hub, "log": log_path, "public": public,
                       "private": private, "router": router}  # fmt: skip
            finally:
                os.killpg(proc.pid, signal.SIGTERM)  # the app and the worker it started
                proc.wait(timeout=60)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as r:
        return str(r.read().decode("utf-8", errors="replace"))


def _view(base: str, columns: list[str] | None) -> dict[str, Any]:
    """The default view (``None``, with the page's lists), or every judge with these columns."""
    for _ in range(600):
        got = json.loads(_get(f"{base}/dhp/view"))
        if not got.get("loading"):
            break
        time.sleep(1)
    if columns is None:
        return dict(got)
    inputs = [
        "default",
        True,
        list(DATASET_NAMES),
        got["page"]["families"],
        list(SIZE_BUCKETS),
        columns,
        "",
        "",
    ]
    return dict(json.loads(_get(f"{base}/dhp/view?v={urllib.parse.quote(json.dumps(inputs))}")))


def _csv_row(text: str) -> dict[str, str]:
    """The judge's row of a CSV the board served."""
    (row,) = [r for r in csv.DictReader(io.StringIO(text)) if r["Judge"] == JUDGE]
    return row


def _judge_page(base: str, dataset: str | None = None) -> dict[str, Any]:
    q = f"name={urllib.parse.quote(JUDGE)}" + (f"&dataset={dataset}" if dataset else "")
    return dict(json.loads(_get(f"{base}/dhp/judge?{q}")))


def _sign_in_and_submit(b: Any, url: str) -> Any:
    from playwright.sync_api import expect

    page = b.new_page(viewport={"width": 1440, "height": 900})
    page.goto(url + "/login/huggingface")  # what the Sign-in button opens
    page.wait_for_url(url + "/**")
    page.locator("button[role=tab]:has-text('Submit')").first.click()
    for sel, value in (("#s-name", JUDGE), ("#s-contact", "alice@example.org"), ("#s-hf", "test-org/judge-7b"),
                       ("#s-provider", "novita")):  # fmt: skip
        page.locator(f"{sel} textarea, {sel} input").first.fill(value)
    page.locator("#s-submit").click()
    expect(page.locator("#submit-status")).to_contain_text("Queued", timeout=TIMEOUT_MS)
    page.locator("button[role=tab]:has-text('Leaderboard')").first.click()
    expect(page.locator("#leaderboard-table")).to_contain_text(JUDGE, timeout=600_000)
    return page


def _served(space: dict[str, Any], page: Any) -> dict[str, str]:
    """Everything the board serves a visitor after the judge's row is in: name -> text."""
    base = space["url"]
    got: dict[str, str] = {"/": _get(base + "/"), "/config": _get(base + "/config")}
    for cols in (None, PRIVATE_COLUMNS):
        deadline = time.monotonic() + 300
        while True:  # the differences are made in the background: until the judge's is in
            view = _view(base, cols)
            got[f"/dhp/view {cols}"] = json.dumps(view, ensure_ascii=False)
            got[f"csv {cols}"] = _get(f"{base}/{view['csv']['url']}")
            if cols is None or _csv_row(got[f"csv {cols}"])[f"{DATASET} public-private"]:
                break
            assert time.monotonic() < deadline, (
                "the judge's public - private difference was not made in 300 s"
            )
            time.sleep(1)
    head, part = _judge_page(base), _judge_page(base, DATASET)
    got["/dhp/judge"], got["/dhp/judge&dataset"] = (json.dumps(x, ensure_ascii=False) for x in (head, part))
    for p in (head.get("first") or {}, part):
        if p.get("csv"):
            got[f"misses csv {p['csv']['url']}"] = _get(f"{base}/{p['csv']['url']}")
    # the Columns choice in the page: the reader's way to the private columns (the browser asks dhp/view)
    from playwright.sync_api import expect

    page.locator("#filters").get_by_text("Filters and columns").click()
    page.locator("#filter-columns").get_by_label("Private split", exact=True).check()
    expect(page.locator("#leaderboard-table th.private").first).to_contain_text("private split")
    expect(page.locator("#leaderboard-table")).to_contain_text("fits")
    got["tab Leaderboard with the private columns"] = page.content()
    page.goto(base + "/?judge=" + urllib.parse.quote(JUDGE))
    page.wait_for_timeout(3000)
    for tab in ("Leaderboard", "Judge", "Compare", "Queue", "Submit", "Survey", "About"):
        loc = page.locator(f"button[role=tab]:has-text('{tab}')")
        if loc.count():
            loc.first.click()
            page.wait_for_timeout(1500)
            got[f"tab {tab}"] = page.content()
    return got


def _repo_files(hub: HubReplay) -> dict[str, str]:
    """Every file of every commit of the Space's stores (results, requests, votes)."""
    out: dict[str, str] = {}
    for name, repo in hub.state.repos.items():
        if name == "acme/dhp-private":
            continue  # the private split itself
        for commit in repo.commits.values():
            for path, data in commit.files.items():
                out[f"{name}/{path}@{commit.oid[:8]}"] = data.decode("utf-8", errors="replace")
    return out


def _readable(text: str) -> str:
    """A text and what a reader sees of it: HTML unescaped, tags dropped, JSON escapes read."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    try:
        decoded = json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        decoded = ""
    return "\n".join((text, plain, html.unescape(decoded), html.unescape(re.sub(r"<[^>]+>", "", decoded))))


def test_no_private_text_item_id_or_seed_leaves_the_space(space: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    hub: HubReplay = space["hub"]
    hub.state.oauth_user = "alice"
    pieces, ids = private_only(space["public"], space["private"])
    assert len(pieces) > 100  # the private split holds texts of its own (its items are public: other-texts)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _sign_in_and_submit(b, space["url"])
            served = _served(space, page)
        finally:
            b.close()
    results = [p for p in _repo_files(hub) if p.startswith("acme/dhp-results/")]
    assert any("~private-" in p for p in results), results  # the judge was scored on the private split
    assert "private split" in served[f"/dhp/view {PRIVATE_COLUMNS}"].lower()
    assert "Private split" in served["/dhp/judge"]
    row = _csv_row(served[f"csv {PRIVATE_COLUMNS}"])  # its private D, difference and flag are shown
    assert row[f"{DATASET} private"] and row[f"{DATASET} public-private"] and row[f"{DATASET} fits"]
    everything = {**served, **_repo_files(hub), "space log": space["log"].read_text(errors="replace")}
    public_pieces = {str(r["perturbed"])[:WINDOW] for r in _strings(space["public"])}
    seen = {name: _readable(text) for name, text in everything.items()}
    assert any(pc in t for pc in public_pieces for t in seen.values())  # the pages do show texts
    for name, text in seen.items():
        assert SEED not in text, f"the seed is in {name}"
        leaked = sorted(pc for pc in pieces if pc in text)
        assert not leaked, f"private text in {name}: {leaked[:3]}"
        assert not [i for i in ids if i in text], f"a private item id is in {name}"
