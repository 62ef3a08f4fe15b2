"""Leaderboard speed with 500 judges x 6 datasets (3000 result files): page load and filtering.

Prints, in seconds:

* cold scan: first read + parse of every results file (once per app process; later loads reuse it),
  with each file's joint-bootstrap replicates for the rank ranges (:mod:`dhp.leaderboard.ranks`);
* page load (server): what a page load computes — re-list the store, build/reuse the table, apply
  the default view, render it as row strings and a CSV (``Backend.render_parts``) and hand the rows
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

* with ``--readers N`` (issue 20): N concurrent readers against the app served on loopback, each
  through Gradio's own client (``gradio_client``): the page's HTML (``GET /``), a client connected
  (it fetches the page's config, as a browser does), the page-load event, then one filter (a family
  filter, the board's own event); p50, p95 and max of the whole reader, and the errors (must be 0).

Usage: ``python benchmarks/bench_leaderboard.py [--judges 500] [--items 100] [--browser [--compare]]
[--readers 100]``. Target: page load and filter under 1 s.
"""

from __future__ import annotations

import argparse
import random
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

from dhp.leaderboard import table
from dhp.leaderboard.app import AppConfig, Backend, build_app, launch
from dhp.leaderboard.stores import LocalStore
from dhp.leaderboard.survey import derive_weights, get_task, reweighted_summaries, tally
from dhp.scoring.results import Summary, dump_result
from dhp.spec import DATASET_NAMES
from tests.leaderboard.factory import make_result

FAMILIES = ("llama", "qwen", "mistral", "gemma", "phi", "gpt")
SIZES = (0.5, 1.5, 3, 7, 8, 13, 14, 32, 70, 72)


def generate(root: Path, n_judges: int, n_items: int) -> None:
    """n_judges x 6 result files: one real result per dataset, re-labelled and re-scored per judge."""
    rng = random.Random(0)
    templates = {ds: make_result("template", ds, skill=0.5, n_items=n_items) for ds in DATASET_NAMES}
    for j in range(n_judges):
        fam, size = rng.choice(FAMILIES), rng.choice(SIZES)
        name = f"{fam}-{size:g}b-judge-{j:03d}"
        for ds, tpl in templates.items():
            s = tpl.summary
            k = rng.uniform(0.2, 1.8)
            summary = Summary(
                d_avg=(s.d_avg or 0) * k, d_min=(s.d_min or 0) * k * 0.6,
                d_avg_ew=(s.d_avg_ew or 0) * k, d_min_ew=(s.d_min_ew or 0) * k * 0.5,
            )  # fmt: skip
            judge = tpl.judge.model_copy(
                update={"name": name, "hf_model_id": f"org/{fam}-{size:g}B-Instruct"}
            )
            res = tpl.model_copy(update={"judge": judge, "summary": summary})
            out = root / name / f"{ds}@v1.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(dump_result(res), encoding="utf-8")


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
        "--readers", type=int, default=0, help="concurrent readers through gradio_client (0: none)"
    )
    ap.add_argument("--server-only", action="store_true", help="skip the in-process server timings")
    args = ap.parse_args()

    root = Path(args.keep or tempfile.mkdtemp(prefix="dhp-bench-lb-"))
    results = root / "results"
    if not results.exists():
        t0 = time.perf_counter()
        generate(results, args.judges, args.items)
        print(
            f"generated {args.judges} judges x {len(DATASET_NAMES)} datasets in {time.perf_counter() - t0:.1f} s"
        )
    size_mb = sum(p.stat().st_size for p in results.rglob("*.json")) / 1e6
    print(f"results store: {sum(1 for _ in results.rglob('*.json'))} files, {size_mb:.0f} MB")

    cfg = AppConfig(
        results=LocalStore(results), requests=LocalStore(root / "requests"), votes=LocalStore(root / "votes"),
        board_chunk=args.chunk,
    )  # fmt: skip
    be = Backend(cfg)
    t0 = time.perf_counter()
    rep = be.report()
    print(f"cold scan (parse every file, once per process): {time.perf_counter() - t0:.2f} s, "
          f"{len(rep.results)} results, {len(rep.problems)} problems")  # fmt: skip
    t0 = time.perf_counter()
    be.frame()
    print(f"first table build:                              {time.perf_counter() - t0:.3f} s")

    if not args.server_only:
        bench_server(be, rep)
    if args.readers:
        bench_readers(cfg, be, args.readers)
    if args.browser:
        bench_browser(cfg, be, (args.loads, args.filters), args.trace, args.compare)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def bench_server(be: Backend, rep: Any) -> None:
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
    from dhp.leaderboard.survey import Ballot

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


def serve_variants(cfg: AppConfig, be: Backend, compare: bool) -> list[tuple[str, gr.Blocks, int]]:
    """The app as configured and (``compare``) again with every row drawn at once, both over ``be``'s
    parsed results; each on its own loopback port."""
    chunks = [("rows drawn in chunks", cfg.board_chunk)] + (
        [("all rows drawn at once", 0)] if compare else []
    )
    out = []
    for label, chunk in chunks:
        variant_be = Backend(replace(cfg, board_chunk=chunk))
        variant_be.index = be.index  # share the parsed results: one cold scan
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
    cfg: AppConfig, be: Backend, runs: tuple[int, int], trace: str | None, compare: bool
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
#: when its load request (the first ``run/predict``) was sent and answered, and the table drawn.
LOADED = """() => {
  const td = document.querySelector('#leaderboard-table tbody tr td.judge');
  if (!td || !td.textContent.trim()) return false;
  const req = performance.getEntriesByType('resource').find(e => e.name.includes('/gradio_api/run/predict'));
  return {sent: req ? req.startTime : 0, answered: req ? req.responseEnd : 0,
          drawn: performance.now()};
}"""
LOAD_STEPS = {"sent": "its load request sent (Gradio page built):", "answered": "its load request answered:",
              "drawn": "the table drawn (navigation until it shows):"}  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Concurrent readers through Gradio's own client (issue 20)
def _filter_endpoint(client: Any) -> tuple[str, dict[str, Any]]:
    """The board's family-filter event (the 4th of the board's listeners, see ``ui.wire_board``) and
    its arguments: every view input at its default, one family chosen."""
    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    board = [k for k, v in api.items() if any(p["label"] == "Model family" for p in v["parameters"])]
    name = board[3]
    kwargs: dict[str, Any] = {}
    for p in api[name]["parameters"]:
        value = p.get("parameter_default") if p.get("parameter_has_default") else ""
        if p["label"] == "Model family":
            value = ["llama", "qwen"]
        kwargs[p["parameter_name"]] = value
    return name, kwargs


def _reader(url: str, endpoint: str, kwargs: dict[str, Any]) -> tuple[float, float, float]:
    """One reader: the page and a client on it (the page load: HTML, config, API info), the page-load
    event, one filter. Returns the wall time to the page loaded, to the load event, to the filter."""
    import httpx
    from gradio_client import Client

    t0 = time.perf_counter()
    httpx.get(url, timeout=300).raise_for_status()
    client = Client(url, verbose=False, httpx_kwargs={"timeout": 300})
    t1 = time.perf_counter()
    client.predict(api_name="/page_load")
    t2 = time.perf_counter()
    client.predict(api_name=endpoint, **kwargs)
    return t1 - t0, t2 - t0, time.perf_counter() - t0


def _readers(
    url: str, endpoint: str, kwargs: dict[str, Any], n: int
) -> tuple[list[tuple[float, ...]], list[str], float]:
    """``n`` readers at once, one thread each (run in a child process: the server keeps its own)."""
    from concurrent.futures import ThreadPoolExecutor

    errors: list[str] = []
    times: list[tuple[float, ...]] = []

    def one(_: int) -> None:
        try:
            times.append(_reader(url, endpoint, kwargs))
        except Exception as e:  # counted and printed: the benchmark's verdict, not swallowed
            errors.append(f"{type(e).__name__}: {e}")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=n) as pool:
        list(pool.map(one, range(n)))
    return times, errors, time.perf_counter() - t0


def _p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20, method="inclusive")[18] if len(xs) > 1 else xs[0]


def bench_readers(cfg: AppConfig, be: Backend, n: int) -> None:
    """``n`` concurrent readers (threads of a child process) against the app on loopback."""
    import multiprocessing

    from gradio_client import Client

    (_, demo, port), *_ = serve_variants(cfg, be, compare=False)
    url = f"http://127.0.0.1:{port}/"
    endpoint, kwargs = _filter_endpoint(Client(url, verbose=False))
    _reader(url, endpoint, kwargs)  # warm: the view cache as after the first visitor
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        times, errors, wall = pool.apply(_readers, (url, endpoint, kwargs, n))
    demo.close()
    parts = ["page (HTML + client)", "+ page-load event", "+ family filter (whole reader)"]
    print(f"{n} concurrent readers through gradio_client ({endpoint} for the filter); all done in {wall:.2f} s; "
          f"errors {len(errors)}")  # fmt: skip
    for i, label in enumerate(parts):
        xs = [t[i] for t in times]
        if xs:
            print(
                f"  {label:<32} p50 {statistics.median(xs):.2f} s, p95 {_p95(xs):.2f} s, max {max(xs):.2f} s"
            )
    for e in sorted(set(errors))[:5]:
        print(f"  error: {e}")


if __name__ == "__main__":
    sys.exit(main())
