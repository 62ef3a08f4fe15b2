"""Leaderboard speed with 500 judges x 6 datasets (3000 result files): page load and filtering.

Prints, in seconds:

* cold scan: first read + parse of every results file (once per app process; later loads reuse it);
* page load (server): what a page load computes — re-list the store, build/reuse the table, apply
  the default view, render it as HTML and a CSV (``Backend.render``) and hand it to Gradio's
  ``HTML`` component; first time, then from the render cache;
* filter (server): one filter change (family, dataset, search, unweighted toggle) end to end;
* survey reweighting: D^EW recomputed from the stored p-values of all 3000 results;
* with ``--browser`` (needs Debian's chromium): the real page load in headless chromium until the
  table shows (``--loads`` times, a short pause between), and a filter (two family clicks) until the
  table has changed (``--filters`` times, the clicks undone between); medians, with min-max.
  ``--trace FILE`` also writes a Chrome performance trace of one load and one filter (open it in
  chrome://tracing or Perfetto).

Usage: ``python benchmarks/bench_leaderboard.py [--judges 500] [--items 100] [--browser]``.
Target: page load and filter under 1 s.
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
    ap.add_argument("--judges", type=int, default=500)
    ap.add_argument("--items", type=int, default=100, help="items per dataset in each result's stored scores")
    ap.add_argument("--browser", action="store_true", help="also time the page in headless chromium")
    ap.add_argument("--loads", type=int, default=5, help="browser page loads to time")
    ap.add_argument("--filters", type=int, default=3, help="browser filters to time")
    ap.add_argument("--trace", help="write a Chrome trace of one page load and one filter here")
    ap.add_argument("--keep", help="write the results here and keep them")
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
        results=LocalStore(results), requests=LocalStore(root / "requests"), votes=LocalStore(root / "votes")
    )
    be = Backend(cfg)
    t0 = time.perf_counter()
    rep = be.report()
    print(f"cold scan (parse every file, once per process): {time.perf_counter() - t0:.2f} s, "
          f"{len(rep.results)} results, {len(rep.problems)} problems")  # fmt: skip
    t0 = time.perf_counter()
    be.frame()
    print(f"first table build:                              {time.perf_counter() - t0:.3f} s")

    bench_server(be, rep)

    if args.browser:
        bench_browser(cfg, args.loads, args.filters, args.trace)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def bench_server(be: Backend, rep: Any) -> None:
    """Page load, filters and survey reweighting on the server side."""
    board_component = gr.HTML()
    fams = be.families()

    def page_load() -> Any:
        be.report(max_age_s=0)  # list the store afresh every time
        html_text, _csv = be.render(families=fams, sizes=list(table.SIZE_BUCKETS))
        return board_component.postprocess(html_text)

    t, payload = timed(page_load, repeat=1)
    print(
        f"page load (server: list, view, HTML+CSV, serialise): {t:.3f} s  ({len(payload) / 1e6:.2f} MB of HTML)"
    )
    t, payload = timed(page_load)
    print(f"page load (server) again, view from the cache:       {t:.3f} s")

    filters: dict[str, Callable[[], Any]] = {
        "family filter": lambda: be.render(families=["llama", "qwen"]),
        "dataset filter": lambda: be.render(datasets=["summeval", "wmt22-de-en"]),
        "search": lambda: be.render(search="qwen-7b; gemma"),
        "unweighted toggle": lambda: be.render(weighted=False),
    }
    for label, f in filters.items():
        t, _ = timed(lambda f=f: board_component.postprocess(f()[0]), repeat=1)  # type: ignore[misc]
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


def bench_browser(cfg: AppConfig, n_loads: int = 5, n_filters: int = 3, trace: str | None = None) -> None:
    from playwright.sync_api import expect, sync_playwright

    exe = shutil.which("chromium") or "/usr/bin/chromium"
    demo = build_app(cfg)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    launch(demo, port=port, block=False)
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=exe, args=args)
            pg = b.new_page(viewport={"width": 1400, "height": 1000})
            first = pg.locator("#leaderboard-table tbody tr td.judge").first

            def load() -> float:
                t0 = time.perf_counter()
                pg.goto(f"http://127.0.0.1:{port}/")
                expect(first).to_have_text(lambda_text_nonempty(), timeout=60_000)
                return time.perf_counter() - t0

            def filter_once(fam: str) -> float:
                fams = pg.locator("#filter-families")
                if not fams.is_visible():
                    pg.locator("#filters").get_by_text("Filters and columns").click()  # collapsed by default
                t0 = time.perf_counter()
                fams.get_by_label(fam, exact=True).uncheck()
                fams.get_by_label("qwen", exact=True).uncheck()
                # the new table is in the page: no qwen judge left (a DOM query; Playwright's own text
                # matching over 500 rows would cost seconds of its own)
                pg.wait_for_function(NO_QWEN, timeout=60_000)
                took = time.perf_counter() - t0
                fams.get_by_label(fam, exact=True).check()  # undo, untimed
                fams.get_by_label("qwen", exact=True).check()
                expect(first).to_have_text(before, timeout=60_000)
                pg.wait_for_timeout(300)
                return took

            loads = []
            for _ in range(n_loads):
                loads.append(load())
                pg.wait_for_timeout(300)
            print(f"browser page load (navigation until the table shows): {_spread(loads)}")
            before = first.inner_text()
            fam = "gpt" if "gpt" not in before else "llama"
            took = [filter_once(fam) for _ in range(n_filters)]
            print(f"browser filter (two clicks until the table changed): {_spread(took)}")
            if trace:
                b.start_tracing(page=pg, path=trace, screenshots=True)
                load()
                pg.wait_for_timeout(300)
                filter_once(fam)
                b.stop_tracing()
                print(f"Chrome trace of one load and one filter: {trace}")
            b.close()
    finally:
        demo.close()


NO_QWEN = """() => {
  const names = [...document.querySelectorAll('#leaderboard-table td.judge a')].map(a => a.textContent);
  return names.length > 0 && names.every(n => !n.startsWith('qwen-'));
}"""


def lambda_text_nonempty() -> Any:
    import re

    return re.compile(r"\S")


if __name__ == "__main__":
    sys.exit(main())
