"""dhp's inference layer beside peer harnesses and bare clients, on the same prompts and the same server.

The 2,028 prompts of a 39-item summeval run (4 metrics x (original + 12 perturbations) per item),
each sent once by every client: one user message, ``max_tokens`` 8, temperature 0, ``logprobs``
with ``top_logprobs`` 20, concurrency C = 64, against ``tests/scoring/fake_server.py`` run as a
process of its own, with a fixed non-blocking latency L per request (ideal rate C / L) and at
L = 0 (client-bound). Each client runs in a fresh process (``peers_driver.py``); rounds are
interleaved (every client once per round) and the median of the rounds is reported, with its ratio
to the bare aiohttp loop measured in the same run (and to C / L where L > 0).

Clients: ``dhp`` (``dhp.inference``: pool with cache and coalescing + the OpenAI backend, as
``dhp score`` sends), lm-evaluation-harness ``local-chat-completions``, Inspect AI ``openai-api``
(default logging), bare ``AsyncOpenAI``, bare ``huggingface_hub`` ``AsyncInferenceClient``, and a
bare aiohttp loop. The peers are no dependency of the project: ``--install`` puts them into a
separate virtual environment (``--venv``, default ``.bench-venv``, gitignored); without it, peers
whose environment is missing are skipped (said so).

Targets: dhp >= 0.95 x C / L at L = 0.2, and >= 0.5 x the bare aiohttp loop at L = 0.
Usage: ``.venv/bin/python benchmarks/bench_peers.py [--install] [--rounds 3] [--latency 0.2,0]``.
The machine is shared and noisy: read the ratios of one run, not the absolute rates.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_scoring import prompts_of, tiny_summeval  # noqa: E402

from tests.support.loopback import ServerHandle, spawned_server  # noqa: E402

C = 64
N_PROMPTS = 2028
DRIVER = REPO / "benchmarks" / "peers_driver.py"
PEER_PACKAGES = ("lm-eval[api]", "inspect-ai", "openai", "huggingface_hub", "aiohttp")
#: client -> (label, runs in the peers' environment?)
CLIENTS: dict[str, tuple[str, bool]] = {
    "dhp": ("dhp (dhp.inference: pool + cache + aiohttp backend)", False),
    "lmeval": ("lm-eval local-chat-completions", True),
    "inspect": ("Inspect AI openai-api (default logging)", True),
    "openai": ("bare AsyncOpenAI loop", True),
    "hub": ("bare huggingface_hub AsyncInferenceClient loop", True),
    "aiohttp": ("bare aiohttp loop", False),
}


def install(venv: Path) -> None:
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, *PEER_PACKAGES], check=True)


def peer_versions(py: Path) -> str:
    code = (
        "import importlib.metadata as m\n"
        "print(', '.join(f'{p} {m.version(p)}' for p in ('lm_eval', 'inspect_ai', 'openai', 'huggingface_hub')))"
    )
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or out.stderr.strip()[-200:]


@dataclass(frozen=True)
class Run:
    """One client's run: rates on the server's clock and the client's, CPU per request, import time."""

    rate: float  # answered / (last answer out - first request in), as the server saw them
    wall_rate: float  # requests / the client's set-up-to-close wall time (imports excluded)
    cpu_us: float  # the client's CPU (user + system) per request, set-up to close
    import_s: float
    partial: bool = False  # stopped at --peer-timeout: the rate is of what was answered by then


def _drained(srv: ServerHandle, deadline_s: float = 30.0) -> dict[str, Any]:
    """The server's counters once every request it accepted has been answered (or the deadline passed)."""
    end = time.monotonic() + deadline_s
    while True:
        st = srv.stats()
        if st["inflight"] == 0 or time.monotonic() > end:
            return st
        time.sleep(0.05)


def _server_rate(st: dict[str, Any]) -> float | None:
    span = (st["last_at"] or 0.0) - (st["first_at"] or 0.0)
    return st["answered"] / span if st["answered"] and span > 0 else None


def run_client(py: Path, client: str, srv: ServerHandle, prompts: Path, cap_s: float) -> Run | None:
    """One run of one client in a fresh process, at most ``cap_s`` seconds; None when it failed (said why)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("HF_HUB_OFFLINE", None)  # huggingface_hub's client refuses every URL under it
    srv.stats(reset=True)
    cmd = [str(py), str(DRIVER), client, srv.url, str(prompts), str(C)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=cap_s)
    except subprocess.TimeoutExpired:
        st = _drained(srv)
        rate = _server_rate(st)
        print(
            f"    {client}: stopped at --peer-timeout {cap_s:g} s with {st['answered']} of {N_PROMPTS} answered"
        )
        return None if rate is None else Run(rate, math.nan, math.nan, math.nan, partial=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    rate = _server_rate(_drained(srv))
    if proc.returncode != 0 or not lines or rate is None:
        print(f"    {client}: FAILED (exit {proc.returncode}) {(proc.stderr or proc.stdout)[-600:]}")
        return None
    doc = json.loads(lines[-1])
    n = float(doc["n"])
    return Run(rate, n / float(doc["seconds"]), 1e6 * float(doc["cpu"]) / n, float(doc["import_s"]))


def _row(c: str, runs: list[Run], bare: Run | None, ideal: float | None) -> str:
    rate = statistics.median(r.rate for r in runs)
    full = [r for r in runs if not r.partial]
    mark = "*" if len(full) < len(runs) else " "
    row = f"  {CLIENTS[c][0]:<50} {rate:>7.0f}{mark} " + (
        f"{rate / bare.rate:>6.3f}" if bare else f"{'-':>6}"
    )
    if ideal:
        row += f" {rate / ideal:>6.3f}"
    if not full:
        return row + f" {'(stopped at --peer-timeout)':>34}"
    wall, cpu = statistics.median(r.wall_rate for r in full), statistics.median(r.cpu_us for r in full)
    imp = statistics.median(r.import_s for r in full)
    return (
        row
        + f" {wall:>8.0f} {imp:>7.2f} {cpu:>8.0f} "
        + (f"{cpu / bare.cpu_us:>6.2f}" if bare else f"{'-':>6}")
    )


def _median_run(runs: list[Run]) -> Run | None:
    """The field-wise median of complete runs (None when there is none)."""
    full = [r for r in runs if not r.partial]
    if not full:
        return None
    med = statistics.median
    return Run(med(r.rate for r in full), med(r.wall_rate for r in full), med(r.cpu_us for r in full),
               med(r.import_s for r in full))  # fmt: skip


def measure(
    latency: float, clients: list[str], pythons: dict[str, Path], prompts: Path, rounds: int, cap: float
) -> None:
    ideal = C / latency if latency > 0 else None
    head = f"L = {latency:g} s (ideal C/L = {ideal:.0f}/s)" if ideal else "L = 0 (client-bound)"
    print(f"== {head}: {N_PROMPTS} requests, C = {C}, {rounds} interleaved rounds ==", flush=True)
    runs: dict[str, list[Run]] = {c: [] for c in clients}
    with spawned_server(latency) as srv:
        for r in range(rounds):
            for client in clients:
                got = run_client(pythons[client], client, srv, prompts, cap)
                if got is not None:
                    runs[client].append(got)
            print(
                f"  round {r + 1}: " + ", ".join(f"{c} {runs[c][-1].rate:.0f}/s" for c in clients if runs[c]),
                flush=True,
            )
    bare = _median_run(runs.get("aiohttp") or [])
    print(f"  {'client':<50} {'req/s':>8} {'x bare':>6}" + (f" {'x C/L':>6}" if ideal else "")
          + f" {'wall/s':>8} {'import':>7} {'CPU us':>8} {'x bare':>6}")  # fmt: skip
    for c in clients:
        print(_row(c, runs[c], bare, ideal) if runs[c] else f"  {CLIENTS[c][0]:<50} {'failed':>8}")
    if runs.get("dhp"):
        dhp = statistics.median(r.rate for r in runs["dhp"])
        if ideal:
            print(
                f"  target dhp >= 0.95 x C/L: {dhp / ideal:.3f} {'PASS' if dhp / ideal >= 0.95 else 'MISS'}"
            )
        elif bare:
            print(
                f"  target dhp >= 0.5 x bare aiohttp: {dhp / bare.rate:.3f} {'PASS' if dhp / bare.rate >= 0.5 else 'MISS'}"
            )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", action="store_true", help="create --venv with the peers from PyPI first")
    ap.add_argument("--venv", type=Path, default=REPO / ".bench-venv", help="the peers' virtual environment")
    ap.add_argument("--latency", default="0.2,0", help="comma-separated server latencies L in seconds")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is reported)")
    ap.add_argument(
        "--peer-timeout",
        type=float,
        default=120.0,
        help="seconds one client run may take; a slower one is stopped and its rate is of what it got answered",
    )
    ap.add_argument(
        "--clients", default=",".join(CLIENTS), help=f"comma-separated subset of {','.join(CLIENTS)}"
    )
    args = ap.parse_args()
    if args.install:
        install(args.venv)
    peer_py = args.venv / "bin" / "python"
    clients = [c for c in args.clients.split(",") if c]
    unknown = [c for c in clients if c not in CLIENTS]
    if unknown:
        ap.error(f"unknown clients {unknown}; valid: {', '.join(CLIENTS)}")
    if not peer_py.exists():
        skipped = [c for c in clients if CLIENTS[c][1]]
        print(f"no peers' environment at {args.venv} (run with --install): skipping {', '.join(skipped)}")
        clients = [c for c in clients if not CLIENTS[c][1]]
    pythons = {c: (peer_py if CLIENTS[c][1] else Path(sys.executable)) for c in clients}
    print(f"bench_peers: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    if peer_py.exists():
        print(f"peers: {peer_versions(peer_py)}")
    with tempfile.TemporaryDirectory(prefix="dhp-peers-") as tmp:
        data = tiny_summeval(Path(tmp), N_PROMPTS)
        prompts = prompts_of(data, ["summeval"])
        assert len(prompts) == N_PROMPTS, len(prompts)
        prompts_file = Path(tmp) / "prompts.json"
        prompts_file.write_text(json.dumps(prompts))
        for lat in (float(x) for x in args.latency.split(",")):
            measure(lat, clients, pythons, prompts_file, args.rounds, args.peer_timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
