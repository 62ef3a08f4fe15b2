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
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_scoring import prompts_of, tiny_summeval  # noqa: E402

from tests.support.loopback import spawned_server  # noqa: E402

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


def run_client(py: Path, client: str, url: str, prompts: Path) -> tuple[float, float] | None:
    """(requests per second, client CPU microseconds per request) of one run, or None (failed: said why)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("HF_HUB_OFFLINE", None)  # huggingface_hub's client refuses every URL under it
    proc = subprocess.run(
        [str(py), str(DRIVER), client, url, str(prompts), str(C)], capture_output=True, text=True, env=env, cwd=REPO
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        print(f"    {client}: FAILED (exit {proc.returncode}) {(proc.stderr or proc.stdout)[-600:]}")
        return None
    doc = json.loads(lines[-1])
    n = float(doc["n"])
    return n / float(doc["seconds"]), 1e6 * float(doc["cpu"]) / n


def measure(latency: float, clients: list[str], pythons: dict[str, Path], prompts: Path, rounds: int) -> None:
    ideal = C / latency if latency > 0 else None
    head = f"L = {latency:g} s (ideal C/L = {ideal:.0f}/s)" if ideal else "L = 0 (client-bound)"
    print(f"== {head}: {N_PROMPTS} requests, C = {C}, {rounds} interleaved rounds ==", flush=True)
    rates: dict[str, list[float]] = {c: [] for c in clients}
    cpus: dict[str, list[float]] = {c: [] for c in clients}
    with spawned_server(latency) as srv:
        for r in range(rounds):
            for client in clients:
                got = run_client(pythons[client], client, srv.url, prompts)
                if got is not None:
                    rates[client].append(got[0])
                    cpus[client].append(got[1])
            print(f"  round {r + 1}: " + ", ".join(f"{c} {rates[c][-1]:.0f}/s" for c in clients if rates[c]), flush=True)
    med = {c: statistics.median(v) for c, v in rates.items() if v}
    cpu = {c: statistics.median(v) for c, v in cpus.items() if v}
    bare = med.get("aiohttp")
    head = f"  {'client':<52} {'req/s':>8} {'x bare':>7}" + (f" {'x C/L':>6}" if ideal else "")
    print(head + f" {'CPU us/req':>10} {'x bare':>7}")
    for c in clients:
        if c not in med:
            print(f"  {CLIENTS[c][0]:<52} {'failed':>8}")
            continue
        row = f"  {CLIENTS[c][0]:<52} {med[c]:>8.0f} " + (f"{med[c] / bare:>7.3f}" if bare else f"{'-':>7}")
        if ideal:
            row += f" {med[c] / ideal:>6.3f}"
        row += f" {cpu[c]:>10.0f} " + (f"{cpu[c] / cpu['aiohttp']:>7.2f}" if "aiohttp" in cpu else f"{'-':>7}")
        print(row)
    if "dhp" in med:
        if ideal:
            ok = med["dhp"] / ideal >= 0.95
            print(f"  target dhp >= 0.95 x C/L: {med['dhp'] / ideal:.3f} {'PASS' if ok else 'MISS'}")
        elif bare:
            ok = med["dhp"] / bare >= 0.5
            print(f"  target dhp >= 0.5 x bare aiohttp: {med['dhp'] / bare:.3f} {'PASS' if ok else 'MISS'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--install", action="store_true", help="create --venv with the peers from PyPI first")
    ap.add_argument("--venv", type=Path, default=REPO / ".bench-venv", help="the peers' virtual environment")
    ap.add_argument("--latency", default="0.2,0", help="comma-separated server latencies L in seconds")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is reported)")
    ap.add_argument("--clients", default=",".join(CLIENTS), help=f"comma-separated subset of {','.join(CLIENTS)}")
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
            measure(lat, clients, pythons, prompts_file, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
