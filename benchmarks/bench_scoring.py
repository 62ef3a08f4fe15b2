"""Scoring speed and accounting against a loopback judge server (a process of its own).

Prints, each measured in this one run (the machine is noisy: read the ratios, not the absolutes):

1. throughput at concurrency C = 64 against a server with a fixed, non-blocking latency L per
   request, for each L: the ideal is C / L; the runner's rate is measured over its sending phase
   (first request to last answer, as the server saw them) and end to end (``score_datasets`` wall,
   dataset loading and statistics included). Target: sending-phase rate >= 0.9 x ideal.
2. at L = 0: the runner (``score_datasets``: plan, send, parse, statistics) against a bare aiohttp
   loop (``peers_driver.bare_aiohttp``: the same prompts, a semaphore of C, no scoring logic),
   interleaved rounds, medians. Target >= 0.5 (lm-eval's rate; see ``bench_peers.py``).
3. request counts of a six-dataset ``dhp score`` run: expected (unique prompts x repeats) vs actual
   (what the server saw), for ``--mode expected`` (all items) and ``--mode paper`` (5 repeats).
4. peak memory (max RSS, from ``os.wait4``) of the full six-dataset ``dhp score`` CLI run. Target < 500 MB.
5. statistics for 100 judges x 6 datasets (``bench_stats.run``). Target < 2 s.

Datasets: built with ``dhp build --sources SOURCES --allow-fewer`` (SOURCES: $DHP_SOURCES or
../shared/sources); the throughput runs use synthetic summeval folders (tests/support/tiny_data).
Usage: ``.venv/bin/python benchmarks/bench_scoring.py [--latency 0.5,0.2] [--paper-limit 20]``.
Exits non-zero only on a crash; each target prints PASS or MISS.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dhp.judge import EndpointJudge  # noqa: E402
from dhp.scoring.data import load_local  # noqa: E402
from dhp.scoring.prompts import load_template, render_context  # noqa: E402
from dhp.scoring.run import ScoreConfig, score_datasets  # noqa: E402
from dhp.spec import BENCHMARK, get_dataset  # noqa: E402
from tests.support.loopback import ServerHandle, spawned_server  # noqa: E402
from tests.support.tiny_data import write_tiny_dataset  # noqa: E402

C = 64
SUMMEVAL_REQUESTS_PER_ITEM = 4 * 13  # 4 metrics x (original + 12 perturbations)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def dhp_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("HF_HUB_OFFLINE", None)  # the judge client refuses every URL under it
    return env


def tiny_summeval(root: Path, n_requests: int) -> Path:
    items = max(2, math.ceil(n_requests / SUMMEVAL_REQUESTS_PER_ITEM))
    data = root / f"tiny-{items}"
    if not data.exists():
        write_tiny_dataset(data, get_dataset("summeval"), n_items=items)
    return data


def prompts_of(data: Path, names: list[str], limit: int | None = None) -> list[str]:
    """Every prompt the runner sends for these datasets (one per text and metric), in plan order."""
    out: list[str] = []
    for name in names:
        spec = get_dataset(name)
        d = load_local(spec, data / name)
        templates = {m: load_template(spec, m, None) for m in spec.metric_names}
        for item in d.items[:limit] if limit else d.items:
            ctx = render_context(spec, item.context)
            texts = [item.original] + [
                d.perturbed[p][item.id] for p in spec.perturbation_ids if item.id in d.perturbed.get(p, {})
            ]
            for m in spec.metric_names:
                out.extend(templates[m].render(t, ctx) for t in texts)
    return out


def run_runner(srv: ServerHandle, data: Path, out: Path) -> tuple[float, dict[str, float]]:
    srv.stats(reset=True)
    cfg = ScoreConfig(
        judge=EndpointJudge(name="bench", endpoints=(srv.url,), model="fake-judge"),
        out=out, datasets="summeval", data=str(data), n_boot=0, concurrency=C, use_cache=False, progress=False,
    )  # fmt: skip
    t0 = time.perf_counter()
    score_datasets(cfg)
    return time.perf_counter() - t0, srv.stats()


async def bare_loop(url: str, prompts: list[str]) -> float:
    """Wall seconds of the bare aiohttp loop of ``bench_peers.py`` (a semaphore of C, no scoring logic)."""
    from peers_driver import bare_aiohttp

    t0 = time.perf_counter()
    ok = await bare_aiohttp(url, prompts, C)
    assert ok == len(prompts), (ok, len(prompts))
    return time.perf_counter() - t0


def throughput(tmp: Path, latencies: list[float], rounds: int, seconds: float) -> None:
    print(f"== 1. throughput at concurrency {C} (ideal = C / L) ==")
    for lat in latencies:
        ideal = C / lat
        data = tiny_summeval(tmp, int(ideal * seconds))  # about `seconds` of ideal sending
        with spawned_server(lat) as srv:
            send_ratios, wall_ratios = [], []
            for _ in range(rounds):
                wall, st = run_runner(srv, data, tmp / "out")
                span = st["last_at"] - st["first_at"]
                send_ratios.append(st["requests"] / span / ideal)
                wall_ratios.append(st["requests"] / wall / ideal)
                # a finite run cannot reach C/L: the probe goes alone first, and the last round is partial
                n = int(st["requests"])
                cap = n / ((1 + math.ceil((n - 1) / C)) * lat) / ideal
                print(f"  L={lat:g}s: {n} requests, max in flight {st['max_inflight']}; "
                      f"sending {n / span:.1f} req/s ({send_ratios[-1]:.3f} x ideal {ideal:.0f}; "
                      f"this workload's cap {cap:.3f}), end to end {n / wall:.1f} req/s ({wall_ratios[-1]:.3f} x ideal)")
        best = max(send_ratios)
        print(f"  L={lat:g}s: best sending ratio {best:.3f}, median {statistics.median(send_ratios):.3f}, "
              f"best end-to-end ratio {max(wall_ratios):.3f}  target >= 0.9: {verdict(best >= 0.9)}")


def versus_bare(tmp: Path, n: int, rounds: int) -> None:
    print(f"== 2. zero latency: runner vs a bare aiohttp loop (C={C}, same prompts) ==")
    data = tiny_summeval(tmp, n)
    prompts = prompts_of(data, ["summeval"])
    runner, bare = [], []
    with spawned_server(0.0) as srv:
        for i in range(rounds):
            srv.stats(reset=True)
            wall_b = asyncio.run(bare_loop(srv.url, prompts))
            bare.append(len(prompts) / wall_b)
            wall_r, st = run_runner(srv, data, tmp / "out")
            span = st["last_at"] - st["first_at"]
            runner.append(st["requests"] / span)
            print(f"  round {i + 1}: bare {bare[-1]:.1f} req/s, runner {runner[-1]:.1f} req/s sending "
                  f"({st['requests'] / wall_r:.1f} end to end), ratio {runner[-1] / bare[-1]:.3f}")
    ratio = statistics.median(runner) / statistics.median(bare)
    print(f"  median: bare {statistics.median(bare):.1f} req/s, runner {statistics.median(runner):.1f} req/s; "
          f"ratio {ratio:.3f}  target >= 0.5: {verdict(ratio >= 0.5)}")


def build(tmp: Path, sources: Path) -> Path:
    out = tmp / "built"
    subprocess.run(
        [sys.executable, "-m", "dhp", "build", "--sources", str(sources), "--allow-fewer", "--no-progress",
         "--out", str(out)],
        check=True, cwd=REPO, env=dhp_env(), capture_output=True, text=True,
    )  # fmt: skip
    return out


def cli_score(srv: ServerHandle, data: Path, out: Path, *extra: str) -> tuple[int, float, float]:
    """Run `dhp score` on all six datasets; (status, wall seconds, max RSS in MB) of that child alone."""
    cmd = [sys.executable, "-m", "dhp", "score", "--endpoint", srv.url, "--judge-name", "bench", "--data", str(data),
           "--out", str(out), "--concurrency", str(C), "--no-progress", *extra]  # fmt: skip
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=dhp_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        assert proc.stderr is not None
        print(proc.stderr.read().decode()[-2000:], file=sys.stderr)
    return proc.returncode, wall, usage.ru_maxrss / 1024.0


def counts_and_memory(tmp: Path, sources: Path, paper_limit: int) -> None:
    print("== 3. request counts of a six-dataset run, and 4. peak memory ==")
    t0 = time.perf_counter()
    data = build(tmp, sources)
    print(f"  built six datasets in {time.perf_counter() - t0:.1f} s")
    names = list(BENCHMARK)
    with spawned_server(0.0) as srv:
        for mode, repeats, limit in (("expected", 1, None), ("paper", 5, paper_limit)):
            prompts = prompts_of(data, names, limit)
            expected = len(set(prompts)) * repeats
            srv.stats(reset=True)
            extra = ["--mode", mode] + (["--limit", str(limit)] if limit else [])
            rc, wall, rss = cli_score(srv, data, tmp / f"out-{mode}", *extra)
            actual = srv.stats()["requests"]
            scope = "all items" if limit is None else f"first {limit} items of each dataset"
            print(f"  --mode {mode} ({scope}, {repeats} request(s) per prompt): {len(prompts)} text scores, "
                  f"{len(set(prompts))} unique prompts; expected {expected} requests, actual {actual}; "
                  f"exit {rc}, {wall:.1f} s  {verdict(rc == 0 and actual == expected)}")
            if mode == "expected":
                print(f"  peak memory (max RSS of the dhp score process, six datasets, all items, 1000 bootstrap "
                      f"replicates): {rss:.0f} MB  target < 500 MB: {verdict(rc == 0 and rss < 500)}")


def stats_time() -> None:
    import bench_stats

    t = bench_stats.run(100, n_boot=0)
    print(f"== 5. statistics: 100 judges x 6 datasets in {t:.2f} s  target < 2 s: {verdict(t < 2.0)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency", default="0.5,0.2", help="comma-separated latencies L in seconds")
    ap.add_argument("--rounds", type=int, default=2, help="throughput runs per latency")
    ap.add_argument("--seconds", type=float, default=40.0, help="ideal sending time of each throughput run")
    ap.add_argument("--bare-requests", type=int, default=3000)
    ap.add_argument("--bare-rounds", type=int, default=3)
    ap.add_argument("--paper-limit", type=int, default=20, help="items per dataset in the paper-mode count")
    default_sources = os.environ.get("DHP_SOURCES") or str(REPO.parent / "shared" / "sources")
    ap.add_argument("--sources", type=Path, default=Path(default_sources))
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: throughput,bare,counts,stats")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    print(f"bench_scoring: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="dhp-bench-") as tmp:
        if "throughput" not in skip:
            throughput(Path(tmp), [float(x) for x in args.latency.split(",")], args.rounds, args.seconds)
        if "bare" not in skip:
            versus_bare(Path(tmp), args.bare_requests, args.bare_rounds)
        if "counts" not in skip:
            counts_and_memory(Path(tmp), args.sources, args.paper_limit)
        if "stats" not in skip:
            stats_time()
    return 0


if __name__ == "__main__":
    sys.exit(main())
