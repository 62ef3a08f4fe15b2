"""Leaderboard speed with 500 judges x 6 datasets (3000 result files): page load and filtering.

Prints, in seconds:

* cold scan: first read + parse of every results file (once per app process; later loads reuse it);
* rank ranges: every file's joint-bootstrap replicates (:mod:`dhp.leaderboard.board.rankjob`, a child
  process, in the background: the rows never wait for them);
* page load (server): what a page load computes — re-list the store, build/reuse the table, apply
  the default view, render it as row strings and a CSV (``BoardService.render_parts``) and hand the rows
  to Gradio's ``HTML`` component as JSON; first time, then from the render cache;
* filter (server): one filter change (family, dataset, search, unweighted toggle) end to end;
* survey reweighting: D^EW recomputed from the stored p-values of all 3000 results;
* with ``--browser`` (needs Debian's chromium): the real page load in headless chromium, timed in the
  page each animation frame: when Gradio had built the page and sent its load request, when that
  was answered, and when the table was drawn (``--loads`` times, a short pause between); and a filter
  (two family clicks) until the table has changed (``--filters`` times, the clicks undone between);
  medians, with min-max. ``--compare`` alternates the same timings with every row drawn at once
  (``--chunk 0``, the layout the page had before it drew rows in chunks) and with a one-component
  Gradio page (what Gradio itself costs on this machine now), so the ratios hold under any load.
  ``--trace FILE`` also writes a Chrome performance trace of one load and one filter (open it in
  chrome://tracing or Perfetto).

* with ``--readers N`` (issues 20, 31): N concurrent readers against the app served on loopback, each
  making the requests Chromium makes with a warm cache (the page ``GET /``, the table's default view
  ``GET /dhp/view``, then one family filter, another view), from one asyncio loop of aiohttp in a
  child process (about 1 ms of CPU a reader: it measures the server, not itself); p50, p95 and max
  of the whole reader, the errors (must be 0), the server's CPU a reader and the load average;
* with ``--cold-start [N]``: ``dhp leaderboard`` started on the store (N times), timed to its page
  answering, the first rows of its table and the rank ranges filled in, with the server's CPU seconds
  by the first rows (the cold start's cost whatever runs beside it) and the load average;
  ``--cold-start-only`` stops there. The server is ``python -m dhp`` run in the current folder: run
  the benchmark from another checkout's root to time that checkout's server on the same files.

The generated judges are real results of a few skill levels, re-labelled per judge (a family and a
size the filters know); every ``--continuous-every``-th judge has continuous (expected-mode) scores
on 40 items, so its perturbations have <= 50 pairs without ties and their D (and rank replicates)
come from the exact Wilcoxon test. ``--smoke``: tiny inputs, every part run (the tests).

Usage: ``python benchmarks/bench_leaderboard.py [--judges 500] [--items 100] [--browser [--compare]]
[--readers 100] [--cold-start] [--smoke]``. Targets: 100 readers p95 under 2 s with 0 errors; first
rows within 10 s of the start.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import re
import shutil
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gradio as gr

from dhp.inference.judge import EndpointJudge
from dhp.leaderboard.board import table
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.app import build_app, launch
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.leaderboard.submissions.survey import derive_weights, get_task, reweighted_summaries, tally
from dhp.scoring.result_files import dump_result
from dhp.scoring.results import JudgeInfo, Result
from dhp.spec import DATASET_NAMES
from dhp.types import EndpointProtocol
from tests.leaderboard.factory import make_result

FAMILIES = ("llama", "qwen", "mistral", "gemma", "phi", "gpt")
SIZES = (0.5, 1.5, 3, 7, 8, 13, 14, 32, 70, 72)
SKILLS = (0.05, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3)
#: Every this-many-th judge has continuous (expected-mode) scores on few items: every perturbation then
#: has <= 50 pairs without ties, its D comes from the exact Wilcoxon test, and so do its rank replicates.
CONTINUOUS_EVERY = 5
CONTINUOUS_ITEMS = 40


def _templates(n_items: int, skills: tuple[float, ...]) -> dict[tuple[str, bool, float], Result]:
    """Real results (the project's own statistics) per dataset, score kind and skill: rounded 1-5
    scores on ``n_items`` items, or continuous scores on ``CONTINUOUS_ITEMS`` (exact tests)."""
    out = {}
    for ds in DATASET_NAMES:
        for cont in (False, True):
            for skill in skills:
                n = min(n_items, CONTINUOUS_ITEMS) if cont else n_items
                out[ds, cont, skill] = make_result(
                    f"template-{skill}", ds, skill=skill, n_items=n, continuous=cont, mode="expected"
                )
    return out


def generate(
    root: Path,
    n_judges: int,
    n_items: int,
    continuous_every: int = CONTINUOUS_EVERY,
    skills: tuple[float, ...] = SKILLS,
) -> int:
    """n_judges x 6 result files, each a real result (of a few skill levels) re-labelled per judge
    with a family, a size and a model id the board's filters know. Returns how many files have a
    perturbation whose D comes from the exact test."""
    rng = random.Random(0)
    templates = _templates(n_items, skills)
    exact = 0
    for j in range(n_judges):
        fam, size = rng.choice(FAMILIES), rng.choice(SIZES)
        cont = continuous_every > 0 and j % continuous_every == continuous_every - 1
        name = f"{fam}-{size:g}b-judge-{j:03d}"
        judge = EndpointJudge(
            name=name, endpoints=("https://judge.example.org/v1",), protocol=EndpointProtocol.OPENAI,
            model=f"{fam}-{size:g}b", hf_model_id=f"org/{fam}-{size:g}B-Instruct", n_params=size * 1e9,
        )  # fmt: skip
        for ds in DATASET_NAMES:
            tpl = templates[ds, cont, rng.choice(skills)]
            info = JudgeInfo.of(judge, model=judge.model, settings={})
            res = tpl.model_copy(update={"judge": info})
            exact += any(m.test_method == "exact" for p in res.perturbations for m in p.metrics.values())
            out = root / name / f"{ds}@v1.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(dump_result(res), encoding="utf-8")
    return exact


def timed(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--judges", type=int, default=500, help="judges on the board (each scored on the six datasets)"
    )
    ap.add_argument("--items", type=int, default=100, help="items per dataset in each result's stored scores")
    ap.add_argument("--browser", action="store_true", help="also time the page in headless chromium")
    ap.add_argument("--loads", type=int, default=5, help="browser page loads to time")
    ap.add_argument("--filters", type=int, default=3, help="browser filters to time")
    ap.add_argument("--trace", help="write a Chrome trace of one page load and one filter here")
    ap.add_argument(
        "--chunk", type=int, default=AppConfig.board_chunk, help="table rows drawn at once (0: all)"
    )
    ap.add_argument(
        "--compare",
        action="store_true",
        help="with --browser: also time every row drawn at once, alternating",
    )
    ap.add_argument("--keep", help="write the results here and keep them")
    ap.add_argument(
        "--readers", type=int, default=0, help="concurrent readers making a browser's requests (0: none)"
    )
    ap.add_argument(
        "--judge-readers", type=int, default=0,
        help="concurrent readers each opening a different judge's page (0: none)",
    )  # fmt: skip
    ap.add_argument(
        "--first-visits", type=int, default=0,
        help="concurrent first-time visitors, each fetching every request of a page load with a cold cache",
    )  # fmt: skip
    ap.add_argument("--server-only", action="store_true", help="skip the in-process server timings")
    ap.add_argument(
        "--continuous-every", type=int, default=CONTINUOUS_EVERY,
        help="every N-th judge has continuous scores on few items, so exact tests (0: none)",
    )  # fmt: skip
    ap.add_argument(
        "--cold-start", nargs="?", type=int, const=1, default=0, metavar="N",
        help="time `dhp leaderboard` from its start to the first rows and to the rank ranges (N times)",
    )  # fmt: skip
    ap.add_argument(
        "--cold-start-only", action="store_true",
        help="with --cold-start: stop after it (no in-process timings; the results are kept with --keep)",
    )  # fmt: skip
    ap.add_argument(
        "--smoke", action="store_true", help="tiny inputs: every part runs, quickly (for the tests)"
    )
    args = ap.parse_args()
    if args.smoke:  # 20 items: fewer than 14 with ties would take scipy's (slow) exact permutation test
        args.judges, args.items = min(args.judges, 4), min(args.items, 20)
        args.judge_readers = min(args.judge_readers, 3)
        args.first_visits = min(args.first_visits, 3)
        args.readers, args.loads, args.filters = (
            min(args.readers, 3),
            min(args.loads, 1),
            min(args.filters, 1),
        )

    root = _results_store(args)
    results = root / "results"
    cfg = AppConfig(
        results=LocalStore(results), requests=LocalStore(root / "requests"), votes=LocalStore(root / "votes"),
        board_chunk=args.chunk,
    )  # fmt: skip
    if _cold_starts(args, root):  # --cold-start-only: nothing else
        return 0
    be = BoardService(cfg)
    t0 = time.perf_counter()
    rep = be.report()
    print(f"cold scan (parse every file, once per process): {time.perf_counter() - t0:.2f} s, "
          f"{len(rep.results)} results, {len(rep.problems)} problems")  # fmt: skip
    t0 = time.perf_counter()
    be.frame()
    print(f"first table build:                              {time.perf_counter() - t0:.3f} s")
    t0 = time.perf_counter()
    be.view(wait_ranks=True)
    print(f"rank ranges (replicates of every file, a child process): {time.perf_counter() - t0:.2f} s")

    if not args.server_only:
        bench_server(be, rep)
    if args.readers:
        bench_readers(cfg, be, args.readers)
    if args.judge_readers:
        bench_judge_pages(cfg, be, args.judge_readers)
    if args.first_visits:
        bench_first_visits(cfg, be, args.first_visits)
    if args.browser:
        bench_browser(cfg, be, (args.loads, args.filters), args.trace, args.compare)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def _results_store(args: argparse.Namespace) -> Path:
    """The folder of the results store (``--keep``'s, made once, or a temporary one), generated where
    it has none yet."""
    root = Path(args.keep or tempfile.mkdtemp(prefix="dhp-bench-lb-"))
    results = root / "results"
    if not results.exists():
        t0 = time.perf_counter()
        skills = SKILLS[:2] if args.smoke else SKILLS
        exact = generate(results, args.judges, args.items, args.continuous_every, skills)
        print(
            f"generated {args.judges} judges x {len(DATASET_NAMES)} datasets in {time.perf_counter() - t0:.1f} s "
            f"({exact} files with exact-test D: continuous scores on {CONTINUOUS_ITEMS} items)"
        )
    size_mb = sum(p.stat().st_size for p in results.rglob("*.json")) / 1e6
    print(f"results store: {sum(1 for _ in results.rglob('*.json'))} files, {size_mb:.0f} MB")
    return root


def _cold_starts(args: argparse.Namespace, root: Path) -> bool:
    """``--cold-start N``'s cold starts; True when the benchmark ends there (``--cold-start-only``)."""
    for _ in range(args.cold_start):
        bench_cold_start(root)
    if not (args.cold_start and args.cold_start_only):
        return False
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return True


def bench_cold_start(root: Path) -> None:
    """``dhp leaderboard`` started on ``root``: seconds from the start to its page answering, to the
    first rows of the table (``GET /dhp/view``) and to the rank ranges filled in."""
    import json
    import subprocess
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [sys.executable, "-m", "dhp", "leaderboard", "--results", str(root / "results"), "--requests",
           str(root / "requests"), "--port", str(port)]  # fmt: skip
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the command prints its URL once the page answers
            if "DHP leaderboard on" in line:
                break
        up = time.perf_counter() - t0
        rows = ranks = cpu = math.nan
        while math.isnan(ranks) and time.perf_counter() - t0 < 3600:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/dhp/view", timeout=60) as r:
                got = json.loads(r.read())
            if not got["loading"] and math.isnan(rows) and json.loads(got["board"])["rows"]:
                rows, cpu = time.perf_counter() - t0, _cpu_seconds(proc.pid)
            if not got["loading"] and not got["status"]:
                ranks = time.perf_counter() - t0
            time.sleep(0.2)  # a poll of a benchmark: the server is not waited on otherwise
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    print(f"cold start of `dhp leaderboard`: page answers {up:.1f} s, first rows {rows:.1f} s ({cpu:.2f} s "
          f"of the server's CPU by then), rank ranges {ranks:.1f} s after the start (load average "
          f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end)")  # fmt: skip


def _cpu_seconds(pid: int) -> float:
    """The CPU seconds (user and system, all its threads, not its children) process ``pid`` has used:
    what a cold start costs whatever the load beside it (Linux; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_server(be: BoardService, rep: Any) -> None:
    """Page load, filters and survey reweighting on the server side."""
    board_component = gr.HTML()
    fams = be.families()

    def page_load() -> Any:
        be.report(max_age_s=0)  # list the store afresh every time
        parts, _csv = be.render_parts(families=fams, sizes=list(table.SIZE_BUCKETS))
        return board_component.postprocess(parts.payload(be.cfg.board_chunk))

    t, payload = timed(page_load, repeat=1)
    print(
        f"page load (server: list, view, HTML+CSV, serialise): {t:.3f} s  ({len(payload) / 1e6:.2f} MB of rows)"
    )
    t, payload = timed(page_load)
    print(f"page load (server) again, view from the cache:       {t:.3f} s")

    filters: dict[str, Callable[[], Any]] = {
        "family filter": lambda: be.render_parts(families=["llama", "qwen"]),
        "dataset filter": lambda: be.render_parts(datasets=["summeval", "wmt22-de-en"]),
        "search": lambda: be.render_parts(search="qwen-7b; gemma"),
        "unweighted toggle": lambda: be.render_parts(weighted=False),
    }
    for label, f in filters.items():
        t, _ = timed(lambda f=f: board_component.postprocess(f()[0].payload(100)), repeat=1)  # type: ignore[misc]
        print(f"filter (server) {label:<18} first time         {t:.3f} s")

    task = get_task("summarization")
    version = derive_weights(tally([]), 0)
    from dhp.leaderboard.submissions.survey import Ballot

    ballots = [
        Ballot(task=task.id, voter=str(i), answers={x.id: "fluency" for x in task.issues}, created_at="t")
        for i in range(5)
    ]
    version = derive_weights(tally(ballots), len(ballots))
    t, _ = timed(lambda: reweighted_summaries(rep.results, version), repeat=1)
    print(f"survey reweighting of all results (once per vote change): {t:.2f} s")


def _spread(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.2f} s (min {min(xs):.2f}, max {max(xs):.2f}, n={len(xs)})"


@dataclass(frozen=True)
class Variant:
    label: str
    port: int
    page: Any


def serve_variants(cfg: AppConfig, be: BoardService, compare: bool) -> list[tuple[str, gr.Blocks, int]]:
    """The app as configured and (``compare``) again with every row drawn at once, both over ``be``'s
    parsed results; each on its own loopback port."""
    chunks = [("rows drawn in chunks", cfg.board_chunk)] + (
        [("all rows drawn at once", 0)] if compare else []
    )
    out = []
    for label, chunk in chunks:
        variant_be = BoardService(replace(cfg, board_chunk=chunk))
        variant_be.index = be.index  # share the parsed results (one cold scan)
        variant_be.ranks = be.ranks  # and the rank replicates
        demo = build_app(variant_be.cfg, variant_be)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        launch(demo, port=port, block=False)
        out.append((label, demo, port))
    if compare:  # what Gradio itself costs here and now: a page of one HTML component and its load event
        with gr.Blocks() as floor:
            board = gr.HTML(elem_id="leaderboard-table")
            floor.load(lambda: FLOOR_TABLE, None, board, queue=False)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        floor.launch(server_port=port, prevent_thread_lock=True)
        out.append((FLOOR, floor, port))
    return out


FLOOR = "a one-component Gradio page (the floor)"
FLOOR_TABLE = '<table><tbody><tr><td class="judge"><a>judge</a></td></tr></tbody></table>'


def _load(v: Variant) -> dict[str, float]:
    """One page load, timed in the page (seconds since navigation start, each animation frame
    polled): the Gradio page up (search box), its load request sent and answered, the table drawn."""
    v.page.goto(f"http://127.0.0.1:{v.port}/", wait_until="commit")
    out = v.page.wait_for_function(LOADED, polling="raf", timeout=60_000).json_value()
    return {k: float(x) / 1000 for k, x in out.items()}


def _filter_once(v: Variant, fam: str) -> float:
    """Untick two families (``fam`` and qwen) until the table has changed; then tick them again."""
    from playwright.sync_api import expect

    fams = v.page.locator("#filter-families")
    if not fams.is_visible():
        v.page.locator("#filters").get_by_text("Filters and columns").click()  # collapsed by default
    before = v.page.locator(FIRST).first.inner_text()
    t0 = float(v.page.evaluate("() => performance.now()"))
    fams.get_by_label(fam, exact=True).uncheck()
    fams.get_by_label("qwen", exact=True).uncheck()
    # the new table is in the page: no qwen judge left (a DOM query each animation frame;
    # Playwright's own text matching over 500 rows would cost seconds of its own)
    took = (float(v.page.wait_for_function(NO_QWEN, polling="raf", timeout=60_000).json_value()) - t0) / 1000
    fams.get_by_label(fam, exact=True).check()  # undo, untimed
    fams.get_by_label("qwen", exact=True).check()
    expect(v.page.locator(FIRST).first).to_have_text(before, timeout=60_000)
    v.page.wait_for_timeout(300)
    return took


def _measure(
    variants: list[Variant], runs: tuple[int, int]
) -> tuple[dict[str, list[dict[str, float]]], dict[str, list[float]], str]:
    """Page loads, then filters, each round alternating over the variants (same machine load for all)."""
    loads: dict[str, list[dict[str, float]]] = {v.label: [] for v in variants}
    for _ in range(runs[0]):
        for v in variants:
            loads[v.label].append(_load(v))
            v.page.wait_for_timeout(300)
    fam = "gpt" if "gpt" not in variants[0].page.locator(FIRST).first.inner_text() else "llama"
    took: dict[str, list[float]] = {v.label: [] for v in variants}
    for _ in range(runs[1]):
        for v in variants:
            if v.label != FLOOR:
                took[v.label].append(_filter_once(v, fam))
    return loads, took, fam


def _print_variants(
    variants: list[Variant], loads: dict[str, list[dict[str, float]]], took: dict[str, list[float]]
) -> None:
    for v in variants:
        print(f"[{v.label}]")
        for key, what in LOAD_STEPS.items():
            print(f"  browser page load, {what:<45} {_spread([x[key] for x in loads[v.label]])}")
        if took[v.label]:
            print(f"  browser filter (two clicks until the table changed):        {_spread(took[v.label])}")


def bench_browser(
    cfg: AppConfig, be: BoardService, runs: tuple[int, int], trace: str | None, compare: bool
) -> None:
    """Page loads and filters in headless chromium; with ``compare``, alternating with all rows drawn."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or "/usr/bin/chromium"
    apps = serve_variants(cfg, be, compare)
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=exe, args=args)
            variants = [Variant(label, port, b.new_page(viewport={"width": 1400, "height": 1000}))
                        for label, _, port in apps]  # fmt: skip
            loads, took, fam = _measure(variants, runs)
            _print_variants(variants, loads, took)
            if compare:
                _ratios(loads, took)
            if trace:
                b.start_tracing(page=variants[0].page, path=trace, screenshots=True)
                _load(variants[0])
                variants[0].page.wait_for_timeout(300)
                _filter_once(variants[0], fam)
                b.stop_tracing()
                print(f"Chrome trace of one load and one filter: {trace}")
            b.close()
    finally:
        for _, demo, _ in apps:
            demo.close()


def _ratios(loads: dict[str, list[dict[str, float]]], took: dict[str, list[float]]) -> None:
    new, old = list(loads)[:2]
    load_ratio = statistics.median(x["drawn"] for x in loads[old]) / statistics.median(
        x["drawn"] for x in loads[new]
    )
    filter_ratio = statistics.median(took[old]) / statistics.median(took[new])
    print(f"[{old}] / [{new}], medians: page load x{load_ratio:.1f}, filter x{filter_ratio:.1f}")


FIRST = "#leaderboard-table tbody tr td.judge"
NO_QWEN = """() => {
  const names = [...document.querySelectorAll('#leaderboard-table td.judge a')].map(a => a.textContent);
  return names.length > 0 && names.every(n => !n.startsWith('qwen-')) && performance.now();
}"""
#: In the page, each animation frame until the table shows: when the Gradio page was up (search box),
#: when its load request (the first ``dhp/view``) was sent and answered, and the table drawn.
LOADED = """() => {
  const td = document.querySelector('#leaderboard-table tbody tr td.judge');
  if (!td || !td.textContent.trim()) return false;
  const req = performance.getEntriesByType('resource').find(e => e.name.includes('/dhp/view'));
  return {sent: req ? req.startTime : 0, answered: req ? req.responseEnd : 0,
          drawn: performance.now()};
}"""
LOAD_STEPS = {"sent": "its load request sent (Gradio page built):", "answered": "its load request answered:",
              "drawn": "the table drawn (navigation until it shows):"}  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Concurrent readers, making a browser's requests (issue 31)
#: What a reader's browser asks for, its cache warm (Gradio's scripts, styles and fonts are cached:
#: ``serving.StaticCache``), as Chromium was seen to ask: the page, the table's default view with the
#: page's lists (``GET /dhp/view``; the page load is no Gradio event), then one filter (two families),
#: another view of the table.
FILTER_FAMILIES = ["llama", "qwen"]


async def _reader(session: Any, url: str, view: str) -> tuple[float, ...]:
    """One reader: the page, its load (the default view), one filter. Returns the wall time to the
    page's HTML, to the page loaded with its table, and to the filter's table."""
    import json

    t0 = time.perf_counter()
    async with session.get(url) as r:
        r.raise_for_status()
        await r.read()
    t1 = time.perf_counter()
    async with session.get(f"{url}dhp/view") as r:
        r.raise_for_status()
        got = json.loads(await r.text())
        if "board" not in got or not got["page"]["families"]:
            raise RuntimeError("the page load has no table or no families")
    t2 = time.perf_counter()
    async with session.get(f"{url}dhp/view", params={"v": view}) as r:
        r.raise_for_status()
        rows = json.loads(json.loads(await r.text())["board"])["rows"]
        shown = [m.group(1) for row in rows if (m := re.search(r'data-judge="([^"]*)"', row))]
        if any(not name.startswith(tuple(FILTER_FAMILIES)) for name in shown):
            raise RuntimeError(f"the filtered table is not the filter's: {shown[:3]}")
    return t1 - t0, t2 - t0, time.perf_counter() - t0


def _readers(url: str, view: str, n: int) -> tuple[list[tuple[float, ...]], list[str], float]:
    """``n`` readers at once from one asyncio loop (run in a child process: the server keeps its own)."""
    import asyncio

    import aiohttp

    async def run() -> tuple[list[tuple[float, ...]], list[str], float]:
        errors: list[str] = []
        times: list[tuple[float, ...]] = []
        conn = aiohttp.TCPConnector(limit=0)  # a browser per reader: no client-side queue
        headers = {"Accept-Encoding": "gzip, deflate, br"}
        timeout = aiohttp.ClientTimeout(total=300)
        async with aiohttp.ClientSession(connector=conn, headers=headers, timeout=timeout) as session:

            async def one(i: int) -> None:
                try:
                    times.append(await _reader(session, url, view))
                except Exception as e:  # counted and printed: the benchmark's verdict, not swallowed
                    errors.append(f"{type(e).__name__}: {e}")

            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return times, errors, time.perf_counter() - t0

    return asyncio.run(run())


def _p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20, method="inclusive")[18] if len(xs) > 1 else xs[0]


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_readers(cfg: AppConfig, be: BoardService, n: int) -> None:
    """``n`` concurrent readers (one asyncio loop in a child process) against the app on loopback."""
    import json
    import multiprocessing

    from dhp.leaderboard.page.serving import default_inputs

    (_, demo, port), *_ = serve_variants(cfg, be, compare=False)
    url = f"http://127.0.0.1:{port}/"
    inputs = default_inputs(be)
    inputs[3] = FILTER_FAMILIES
    view = json.dumps(inputs)
    _readers(url, view, 1)  # warm: the views rendered, as after the first visitor
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        cpu0, load0 = _cpu(os.getpid()), os.getloadavg()[0]
        times, errors, wall = pool.apply(_readers, (url, view, n))
        cpu, load1 = _cpu(os.getpid()) - cpu0, os.getloadavg()[0]
    demo.close()
    parts = ["page HTML", "+ table and lists (page loaded)", "+ family filter (whole reader)"]
    print(f"{n} concurrent readers making a browser's requests (aiohttp); all done in {wall:.2f} s; "
          f"errors {len(errors)}; server CPU {1000 * cpu / n:.1f} ms a reader; load average {load0:.1f} -> {load1:.1f}")  # fmt: skip
    for i, label in enumerate(parts):
        xs = [t[i] for t in times]
        if xs:
            print(
                f"  {label:<38} p50 {statistics.median(xs):.2f} s, p95 {_p95(xs):.2f} s, max {max(xs):.2f} s"
            )
    for e in sorted(set(errors))[:5]:
        print(f"  error: {e}")


# ---------------------------------------------------------------------------------------------
# Judge pages (issue 37): readers each opening a different judge's page
async def _judge_reader(session: Any, url: str, name: str) -> tuple[float, ...]:
    """One reader following a ``?judge=`` link (a tap on a name): the page, its load (the default
    view), the judge's page (``GET /dhp/judge``). Returns the wall time to each."""
    import json

    t0 = time.perf_counter()
    async with session.get(url, params={"judge": name}) as r:
        r.raise_for_status()
        await r.read()
    t1 = time.perf_counter()
    async with session.get(f"{url}dhp/view") as r:
        r.raise_for_status()
        await r.read()
    t2 = time.perf_counter()
    async with session.get(f"{url}dhp/judge", params={"name": name}) as r:
        r.raise_for_status()
        page = json.loads(await r.text())
        if (
            page.get("name") != name
            or not page.get("has_results")
            or "Where it fails" not in page["first"]["detail"]
        ):
            raise RuntimeError(f"the judge page of {name!r} is not its page: {str(page)[:200]}")
    return t1 - t0, t2 - t0, time.perf_counter() - t0


def _judge_crowd(url: str, names: list[str]) -> tuple[list[tuple[float, ...]], list[str], float]:
    """A reader per name, all at once, from one asyncio loop (run in a child process)."""
    import asyncio

    import aiohttp

    async def run() -> tuple[list[tuple[float, ...]], list[str], float]:
        errors: list[str] = []
        times: list[tuple[float, ...]] = []
        conn = aiohttp.TCPConnector(limit=0)
        headers = {"Accept-Encoding": "gzip, deflate, br"}
        async with aiohttp.ClientSession(
            connector=conn, headers=headers, timeout=aiohttp.ClientTimeout(total=600)
        ) as session:

            async def one(name: str) -> None:
                try:
                    times.append(await _judge_reader(session, url, name))
                except Exception as e:  # counted and printed: the benchmark's verdict
                    errors.append(f"{type(e).__name__}: {e}")

            t0 = time.perf_counter()
            await asyncio.gather(*(one(n) for n in names))
            return times, errors, time.perf_counter() - t0

    return asyncio.run(run())


def bench_judge_pages(cfg: AppConfig, be: BoardService, n: int) -> None:
    """``n`` readers at once, each opening a different judge's page: first views (pages drawn when
    asked: the background drawing is off), then ``n`` other judges once the background has drawn
    every page (as on a board up for a while), and one reader alone on a page never drawn."""
    import multiprocessing

    from dhp.leaderboard.page import serving

    (_, demo, port), *_ = serve_variants(replace(cfg, judge_pages_ahead=False), be, compare=False)
    url = f"http://127.0.0.1:{port}/"
    judges = be.judges()
    step = max(1, len(judges) // (2 * n + 1))
    spread = judges[::step]  # every kind of judge (continuous ones included), none twice
    first, later, alone = spread[:n], spread[n : 2 * n], spread[2 * n : 2 * n + 1] or spread[-1:]
    rows: list[tuple[str, list[tuple[float, ...]], list[str], float, float, float]] = []
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        pool.apply(_judge_crowd, (url, [judges[0]]))  # warm: the renderers started, the page and view cached
        for label, names in (("one reader alone, a page never drawn", alone),
                             (f"{n} readers, {n} judges' pages never drawn", first)):  # fmt: skip
            cpu0, load0 = _cpu(os.getpid()), os.getloadavg()[0]
            times, errors, wall = pool.apply(_judge_crowd, (url, names))
            rows.append((label, times, errors, wall, _cpu(os.getpid()) - cpu0, load0))
        pages = serving.judge_pages(demo_backend(demo))
        t0 = time.perf_counter()
        pages.prerender(later)  # as the background does for every judge once the results are read
        while pages.pending():  # a benchmark's poll: nothing else waits on it
            time.sleep(0.2)
        took = time.perf_counter() - t0
        print(f"the background (one child at a low priority) drew {len(later)} judge pages in {took:.1f} s")
        cpu0, load0 = _cpu(os.getpid()), os.getloadavg()[0]
        times, errors, wall = pool.apply(_judge_crowd, (url, later))
        rows.append((f"{n} readers, {n} other judges' pages drawn ahead", times, errors, wall,
                     _cpu(os.getpid()) - cpu0, load0))  # fmt: skip
    demo.close()
    for label, times, errors, wall, cpu, load0 in rows:
        k = max(1, len(times) + len(errors))
        print(f"judge pages, {label}: all done in {wall:.2f} s; errors {len(errors)}; server CPU "
              f"{1000 * cpu / k:.1f} ms a reader (the drawing is in child processes); load average "
              f"{load0:.1f} -> {os.getloadavg()[0]:.1f}")  # fmt: skip
        for i, part in enumerate(["page HTML", "+ table (page loaded)", "+ judge page (whole reader)"]):
            xs = [t[i] for t in times]
            if xs:
                print(
                    f"  {part:<30} p50 {statistics.median(xs):.2f} s, p95 {_p95(xs):.2f} s, max {max(xs):.2f} s"
                )
        for e in sorted(set(errors))[:5]:
            print(f"  error: {e}")


# ---------------------------------------------------------------------------------------------
# First-time visitors (issue 37): every request of a page load, the browser's cache cold
def page_requests(url: str) -> list[str]:
    """The URLs headless Chromium fetches from the server for one page load with a cold cache, in
    order (the page, its scripts, styles and fonts, the table's view), until the table is drawn."""
    from playwright.sync_api import sync_playwright

    exe = shutil.which("chromium") or "/usr/bin/chromium"
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    seen: list[str] = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=args)
        pg = b.new_page(viewport={"width": 1400, "height": 1000})
        pg.on("request", lambda r: seen.append(r.url) if r.url.startswith(url) else None)
        pg.goto(url)
        pg.wait_for_function(LOADED, polling="raf", timeout=120_000)
        pg.wait_for_load_state("networkidle")
        b.close()
    return list(dict.fromkeys(seen))  # each once, as a cold cache fetches it


async def _http_get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, path: str) -> int:
    """One GET on an open keep-alive connection (HTTP/1.1, the body by Content-Length or chunked);
    returns the body's size as sent. Raises on a status other than 200."""
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n".encode()
    )
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    if head[0].split()[1] != "200":
        raise RuntimeError(f"{path}: {head[0]}")
    fields = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
    if "content-length" in fields:
        return len(await reader.readexactly(int(fields["content-length"])))
    size = 0
    while (chunk := int((await reader.readline()).strip(), 16)) > 0:  # chunked
        size += len(await reader.readexactly(chunk + 2)) - 2
    await reader.readline()
    return size


def _visitors(urls: list[str], n: int) -> tuple[list[float], list[int], list[str], float, float]:
    """``n`` first-time visitors at once, each fetching ``urls`` (the page first, then the rest over
    six keep-alive connections, as a browser does) with no cache; returns each visitor's wall time and
    bytes. A plain HTTP/1.1 client on asyncio streams: aiohttp cost about twice the server's CPU a
    request, on the same cores."""
    from urllib.parse import urlsplit

    base = urlsplit(urls[0])
    host, port = base.hostname or "127.0.0.1", base.port or 80
    paths = [urlsplit(u)._replace(scheme="", netloc="").geturl() or "/" for u in urls]

    async def run() -> tuple[list[float], list[int], list[str], float]:
        times: list[float] = []
        sizes: list[int] = []
        errors: list[str] = []

        async def visitor() -> None:
            conns: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
            try:
                t0 = time.perf_counter()
                conns.append(await asyncio.open_connection(host, port))
                got = await _http_get(conns[0][0], conns[0][1], base.netloc, paths[0])
                conns += [await asyncio.open_connection(host, port) for _ in range(5)]
                todo = iter(paths[1:])

                async def worker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> int:
                    return sum([await _http_get(reader, writer, base.netloc, p) for p in todo])

                got += sum(await asyncio.gather(*(worker(r, w) for r, w in conns)))
                times.append(time.perf_counter() - t0)
                sizes.append(got)
            except Exception as e:  # counted and printed: the benchmark's verdict
                errors.append(f"{type(e).__name__}: {e}")
            finally:
                for _, w in conns:
                    w.close()

        t0 = time.perf_counter()
        await asyncio.gather(*(visitor() for _ in range(n)))
        return times, sizes, errors, time.perf_counter() - t0

    cpu0 = time.process_time()
    out = asyncio.run(run())
    return (*out, time.process_time() - cpu0)


def bench_first_visits(cfg: AppConfig, be: BoardService, n: int) -> None:
    """``n`` first-time visitors at once, each making every request of a page load (as recorded from
    headless Chromium with a cold cache), against the app on loopback."""
    import multiprocessing

    (_, demo, port), *_ = serve_variants(cfg, be, compare=False)
    url = f"http://127.0.0.1:{port}/"
    urls = page_requests(url)
    path = [u.split("?")[0] for u in urls]
    kinds = {k: sum(1 for u in path if u.endswith(ext)) for k, ext in
             (("scripts", ".js"), ("stylesheets", ".css"), ("fonts", (".woff2", ".woff", ".ttf")))}  # fmt: skip
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        pool.apply(_visitors, (urls, 1))  # warm: every response made once (as after the first visitor)
        cpu0, load0 = _cpu(os.getpid()), os.getloadavg()[0]
        times, sizes, errors, wall, gen_cpu = pool.apply(_visitors, (urls, n))
        cpu, load1 = _cpu(os.getpid()) - cpu0, os.getloadavg()[0]
    demo.close()
    kb = statistics.median(sizes) / 1e3 if sizes else math.nan
    parts = ", ".join(f"{v} {k}" for k, v in kinds.items())
    print(f"{n} first-time visitors (cold cache), each {len(urls)} requests ({parts}; the theme's stylesheet "
          f"counted), {kb:.0f} kB on the wire: all done in {wall:.2f} s; errors {len(errors)}; server CPU "
          f"{1000 * cpu / n:.1f} ms a visitor (the load generator {1000 * gen_cpu / n:.1f} ms); load average "
          f"{load0:.1f} -> {load1:.1f}")  # fmt: skip
    if times:
        print(
            f"  whole visit p50 {statistics.median(times):.2f} s, p95 {_p95(times):.2f} s, max {max(times):.2f} s"
        )
    for e in sorted(set(errors))[:5]:
        print(f"  error: {e}")


def demo_backend(demo: gr.Blocks) -> BoardService:
    from dhp.leaderboard.page.app import _BACKENDS

    return _BACKENDS[demo]


if __name__ == "__main__":
    sys.exit(main())
