"""Scoring speed and accounting of a full six-dataset run against a loopback judge server (a process of its own).

Prints, each measured in this one run (the machine is noisy: read the ratios, not the absolutes):

1. throughput at concurrency C = 64 of the runner (``score_datasets`` on the six built datasets,
   all items, ``--mode auto``, 1000 bootstrap replicates, no cache) beside the bare aiohttp loop of
   ``bench_peers.py`` (the same prompts, a semaphore of C, no scoring logic), against a server with
   a fixed, non-blocking latency L per request, interleaved rounds, medians. Both rates are taken
   on the server's clock (first request in to last answer out: the same boundary for both; imports
   and loading before, statistics after the last answer excluded); the runner's end-to-end rate
   (``score_datasets`` wall) and both CPU times per request (this process's, all threads: loading,
   planning, parsing and statistics included for the runner) are printed beside. Targets: runner >= 0.95 x C/L at L = 0.2, and
   >= 0.5 x the bare loop at L = 0 (lm-eval's rate; see ``bench_peers.py``).
2. request counts of a six-dataset ``dhp score`` run: expected (unique prompts x repeats) vs actual
   (what the server saw), for ``--mode expected`` (all items) and ``--mode paper`` (5 repeats).
3. peak memory (max RSS, from ``os.wait4`` in a small launcher process: see :data:`LAUNCHER`) of the
   full six-dataset ``dhp score`` CLI run. Target < 500 MB.
4. statistics for 100 judges x 6 datasets (``bench_stats.run``). Target < 2 s.

Datasets: built with ``dhp build --sources SOURCES --allow-fewer`` (SOURCES: $DHP_SOURCES or
../shared/sources).
Usage: ``.venv/bin/python benchmarks/bench_scoring.py [--latency 0.2,0] [--rounds 3] [--skip counts,stats]``;
``--only memory [--data DATA]`` runs the ``--mode expected`` run of parts 2 and 3 alone.
Exits non-zero only on a crash; each target prints PASS or MISS.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dhp.inference.judge import EndpointJudge  # noqa: E402
from dhp.scoring.config import ScoreConfig  # noqa: E402
from dhp.scoring.data import load_local  # noqa: E402
from dhp.scoring.prompts import load_template, render_context  # noqa: E402
from dhp.scoring.run import score_datasets  # noqa: E402
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


def server_rate(st: dict[str, Any]) -> float:
    """Requests answered per second on the server's clock: first request in to last answer out."""
    return float(st["answered"]) / (float(st["last_at"]) - float(st["first_at"]))


def cpu_seconds() -> float:
    """This process's CPU time (user + system, all threads): the fake server's is not in it."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_runner(srv: ServerHandle, data: Path, names: list[str], out: Path) -> tuple[float, dict[str, Any]]:
    """One in-process ``score_datasets`` run (1000 bootstrap replicates, no cache); its wall time and the server's counters."""
    srv.stats(reset=True)
    cfg = ScoreConfig(
        judge=EndpointJudge(name="bench", endpoints=(srv.url,), model="fake-judge"),
        out=out, datasets=",".join(names), data=str(data), concurrency=C, use_cache=False, progress=False,
    )  # fmt: skip
    t0 = time.perf_counter()
    score_datasets(cfg)
    return time.perf_counter() - t0, srv.stats()


def run_bare(srv: ServerHandle, prompts: list[str]) -> dict[str, Any]:
    """The bare aiohttp loop of ``bench_peers.py`` (a semaphore of C, no scoring logic): the server's counters."""
    from peers_driver import bare_aiohttp

    srv.stats(reset=True)
    ok = asyncio.run(bare_aiohttp(srv.url, prompts, C))
    assert ok == len(prompts), (ok, len(prompts))
    return srv.stats()


def throughput(data: Path, names: list[str], latencies: list[float], rounds: int, out: Path) -> None:
    """The runner beside the bare loop, same prompts, same server, interleaved rounds; medians and ratios."""
    prompts = prompts_of(data, names)
    n = len(set(prompts))
    print(
        f"== 1. throughput: {len(names)} dataset(s), {n} requests, C = {C}, runner beside a bare aiohttp loop =="
    )
    for lat in latencies:
        runner, bare, ends, cpu_r, cpu_b = [], [], [], [], []
        with spawned_server(lat) as srv:
            for r in range(rounds):
                c0 = cpu_seconds()
                bare.append(server_rate(run_bare(srv, prompts)))
                c1 = cpu_seconds()
                wall, st = run_runner(srv, data, names, out)
                cpu_b.append(1e6 * (c1 - c0) / n)
                cpu_r.append(1e6 * (cpu_seconds() - c1) / n)
                assert st["answered"] == n, (st["answered"], n)
                runner.append(server_rate(st))
                ends.append(n / wall)
                print(f"  L={lat:g}s round {r + 1}: bare {bare[-1]:.0f}/s ({cpu_b[-1]:.0f} CPU us/req), runner "
                      f"{runner[-1]:.0f}/s ({cpu_r[-1]:.0f} CPU us/req; end to end {ends[-1]:.0f}/s, max in flight "
                      f"{st['max_inflight']})", flush=True)  # fmt: skip
        med_r, med_b = statistics.median(runner), statistics.median(bare)
        line = (
            f"  L={lat:g}s median: runner {med_r:.0f}/s, bare {med_b:.0f}/s, runner/bare {med_r / med_b:.3f}"
        )
        line += f"; CPU us/req runner {statistics.median(cpu_r):.0f}, bare {statistics.median(cpu_b):.0f}"
        if lat > 0:
            ideal = C / lat
            cap = n / (math.ceil(n / C) * lat) / ideal  # a finite run ends with a partial round
            ok = med_r / ideal >= 0.95
            line += f"; runner {med_r / ideal:.3f} x C/L (cap {cap:.3f}, bare {med_b / ideal:.3f})"
            line += f"  target >= 0.95 x C/L: {verdict(ok)}"
        else:
            line += f"  target >= 0.5 x bare: {verdict(med_r / med_b >= 0.5)}"
        print(
            line + f"; end to end {statistics.median(ends):.0f}/s (loading and statistics included)",
            flush=True,
        )


def build(tmp: Path, sources: Path) -> Path:
    out = tmp / "built"
    subprocess.run(
        [sys.executable, "-m", "dhp", "build", "--sources", str(sources), "--allow-fewer", "--no-progress",
         "--out", str(out)],
        check=True, cwd=REPO, env=dhp_env(), capture_output=True, text=True,
    )  # fmt: skip
    return out


#: ``python -c LAUNCHER FILE CMD...``: runs CMD, writes its max RSS (KB, from ``os.wait4``) to FILE and
#: exits with its status. The peak is read from this small process, not from the benchmark's: a child
#: spawned (vfork, then exec) by a process takes that process's peak RSS as its own ``ru_maxrss`` when
#: larger (Linux records the address space exec leaves), so after the throughput part (``score_datasets``
#: in this process) a child started from here "peaked" at this process's 514 MB, not at its own 390.
LAUNCHER = """import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def cli_score(srv: ServerHandle, data: Path, out: Path, *extra: str) -> tuple[int, float, float]:
    """Run `dhp score` on all six datasets; (status, wall seconds, max RSS in MB) of that child alone."""
    cmd = [sys.executable, "-m", "dhp", "score", "--endpoint", srv.url, "--judge-name", "bench", "--data", str(data),
           "--out", str(out), "--concurrency", str(C), "--no-progress", *extra]  # fmt: skip
    maxrss = out.with_name(out.name + ".maxrss")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, str(maxrss), *cmd], cwd=REPO, env=dhp_env(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)  # fmt: skip
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stderr.decode()[-2000:], file=sys.stderr)
    return proc.returncode, wall, int(maxrss.read_text()) / 1024.0


def counts_and_memory(tmp: Path, data: Path, paper_limit: int, paper: bool = True) -> None:
    """Parts 2 and 3; ``paper=False``: the ``--mode expected`` run alone (its count and the peak memory)."""
    print("== 2. request counts of a six-dataset run, and 3. peak memory ==")
    names = list(BENCHMARK)
    runs = (("expected", 1, None), ("paper", 5, paper_limit))
    with spawned_server(0.0) as srv:
        for mode, repeats, limit in runs if paper else runs[:1]:
            prompts = prompts_of(data, names, limit)
            expected = len(set(prompts)) * repeats
            srv.stats(reset=True)
            extra = ["--mode", mode] + (["--limit", str(limit)] if limit else [])
            rc, wall, rss = cli_score(srv, data, tmp / f"out-{mode}", *extra)
            actual = srv.stats()["requests"]
            scope = "all items" if limit is None else f"first {limit} items of each dataset"
            print(
                f"  --mode {mode} ({scope}, {repeats} request(s) per prompt): {len(prompts)} text scores, "
                f"{len(set(prompts))} unique prompts; expected {expected} requests, actual {actual}; "
                f"exit {rc}, {wall:.1f} s  {verdict(rc == 0 and actual == expected)}"
            )
            if mode == "expected":
                print(
                    f"  peak memory (max RSS of the dhp score process, six datasets, all items, 1000 bootstrap "
                    f"replicates): {rss:.0f} MB  target < 500 MB: {verdict(rc == 0 and rss < 500)}"
                )


def stats_time() -> None:
    import bench_stats

    t = bench_stats.run(100, n_boot=0)
    print(f"== 4. statistics: 100 judges x 6 datasets in {t:.2f} s  target < 2 s: {verdict(t < 2.0)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency", default="0.2,0", help="comma-separated latencies L in seconds")
    ap.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds per latency (the median is reported)"
    )
    ap.add_argument(
        "--datasets", default=",".join(BENCHMARK), help="the throughput part's datasets (built ones)"
    )
    ap.add_argument("--paper-limit", type=int, default=20, help="items per dataset in the paper-mode count")
    default_sources = os.environ.get("DHP_SOURCES") or str(REPO.parent / "shared" / "sources")
    ap.add_argument("--sources", type=Path, default=Path(default_sources))
    ap.add_argument(
        "--data", type=Path, help="six datasets built before (`dhp build --out DATA`): no build here"
    )
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: throughput,counts,stats")
    ap.add_argument(
        "--only",
        choices=("memory",),
        help="memory: only the full six-dataset --mode expected run (its request count and peak memory)",
    )
    args = ap.parse_args()
    skip = {"throughput", "stats"} if args.only == "memory" else set(args.skip.split(","))
    print(f"bench_scoring: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="dhp-bench-") as tmp:
        data = args.data
        if data is None and not {"throughput", "counts"} <= skip:
            t0 = time.perf_counter()
            data = build(Path(tmp), args.sources)
            print(f"built six datasets in {time.perf_counter() - t0:.1f} s", flush=True)
        if "throughput" not in skip:
            names = [d for d in args.datasets.split(",") if d]
            throughput(
                data, names, [float(x) for x in args.latency.split(",")], args.rounds, Path(tmp) / "out"
            )
        if "counts" not in skip:
            counts_and_memory(Path(tmp), data, args.paper_limit, paper=args.only != "memory")
        if "stats" not in skip:
            stats_time()
    return 0


if __name__ == "__main__":
    sys.exit(main())
