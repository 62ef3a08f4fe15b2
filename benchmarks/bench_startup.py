"""Start-up of ``dhp score``: seconds from launch to the first request its judge server receives.

Each run launches ``dhp score`` (a process of its own, ``python -m dhp score --endpoint URL ...``)
against the loopback fake judge server (:mod:`tests.support.loopback`, a process of its own) and
reads, on the server's clock, when the first judge request arrived (``first_at``; the monotonic
clock is the machine's, so the launch time taken here compares with it). Beside it, in the same
rounds, a bare aiohttp loop (``peers_driver.py aiohttp``: import aiohttp, post one request) gives the
floor of any Python client on this machine. Rounds interleave the two; medians (and min, max).

Then one ``python -X importtime -m dhp score ...`` of the same command, stopped as soon as its
first request arrived (so its import lines are those made before it), prints the imports that cost
most: the top-level ones by cumulative time, the single modules by their own time, and whether
pandas (or ``pyarrow.dataset``) was loaded by then. The load average is printed before and after: read
the ratio to the bare loop, which the machine's load moves less than the absolutes.

Data: a tiny SummEval folder written here (``--items``, default 20), or ``--data FOLDER`` (a
``dhp build`` output; ``--datasets`` as ``dhp score`` takes it). Target: the median under 1.5 s on
a quiet machine (issue 38).

``--compare CHECKOUT`` times the same command from another checkout in the same rounds (before and
after a change, on the same load).

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_startup.py [--runs 7] [--items 20]
[--data FOLDER --datasets all] [--compare CHECKOUT]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from dhp.spec import get_dataset  # noqa: E402
from tests.support.loopback import ServerHandle, spawned_server  # noqa: E402
from tests.support.tiny_data import write_tiny_dataset  # noqa: E402

TARGET_S = 1.5
MODEL = "fake-judge"  # the fake server's model name (given, so no /v1/models request comes first)


def _env(repo: Path = REPO) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("HF_HUB_OFFLINE", None)  # the judge client refuses every URL under it
    return env


def score_command(url: str, data: Path, datasets: str, out: Path, *python_flags: str) -> list[str]:
    return [
        sys.executable,
        *python_flags,
        "-m",
        "dhp",
        "score",
        "--endpoint",
        url,
        "--model",
        MODEL,
        "--judge-name",
        "startup",
        "--data",
        str(data),
        "--datasets",
        datasets,
        "--n-boot",
        "0",
        "--no-cache",
        "--no-progress",
        "--out",
        str(out),
    ]


def bare_command(url: str, prompts: Path) -> list[str]:
    return [sys.executable, str(REPO / "benchmarks" / "peers_driver.py"), "aiohttp", url, str(prompts), "1"]


def first_request_s(
    srv: ServerHandle, cmd: list[str], repo: Path = REPO
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Seconds from the launch of ``cmd`` (with ``repo`` first on the path) to the first judge request
    the server received."""
    srv.stats(reset=True)
    t0 = time.monotonic()
    done = subprocess.run(cmd, cwd=repo, env=_env(repo), capture_output=True, text=True, timeout=600)
    first = srv.stats(reset=True)["first_at"]
    if done.returncode != 0 or first is None:
        raise RuntimeError(f"{cmd[2:4]} failed (exit {done.returncode}): {done.stderr[-800:]}")
    return first - t0, done


def traced_until_first_request(srv: ServerHandle, cmd: list[str]) -> str:
    """``cmd`` run with ``-X importtime`` and stopped as soon as the server received its first judge
    request: the import lines it wrote to stderr are the imports made before that request."""
    srv.stats(reset=True)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=err, text=True)
        deadline = time.monotonic() + 600
        while srv.stats()["first_at"] is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the traced run sent no request (exit {proc.wait()})")
            time.sleep(0.01)
        proc.kill()
        proc.wait()
        err.seek(0)
        return err.read()


def importtime(stderr: str) -> list[tuple[int, int, int, str]]:
    """``(self µs, cumulative µs, depth, module)`` of each line of ``-X importtime`` output."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cum, name = line.split(":", 1)[1].split("|")
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2  # "| a" then two spaces a level
        rows.append((int(own), int(cum), depth, name.strip()))
    return rows


def _spread(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.2f} s (min {min(xs):.2f}, max {max(xs):.2f}, n = {len(xs)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="rounds (each: one dhp score, one bare loop)")
    ap.add_argument("--items", type=int, default=20, help="items of the tiny SummEval folder")
    ap.add_argument("--data", type=Path, help="a dhp build output to score instead of the tiny folder")
    ap.add_argument("--datasets", default="summeval", help="dhp score --datasets (default: summeval)")
    ap.add_argument("--top", type=int, default=12, help="import-time lines to print")
    ap.add_argument(
        "--compare",
        type=Path,
        metavar="CHECKOUT",
        help="also time dhp score from another checkout (e.g. `git archive` of an older commit), in the same rounds",
    )
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="dhp-startup-") as tmp_name:
        tmp = Path(tmp_name)
        data = args.data
        if data is None:
            data = tmp / "data"
            write_tiny_dataset(data, get_dataset("summeval"), n_items=args.items)
        prompts = tmp / "prompts.json"
        prompts.write_text(json.dumps(["Rate this summary from 1 to 5."]), encoding="utf-8")
        dhp_s: list[float] = []
        bare_s: list[float] = []
        other_s: list[float] = []
        with spawned_server(0.0) as srv:
            first_request_s(srv, score_command(srv.url, data, args.datasets, tmp / "warm"))  # warm the disk
            for i in range(args.runs):
                dhp_s.append(
                    first_request_s(srv, score_command(srv.url, data, args.datasets, tmp / f"o{i}"))[0]
                )
                bare_s.append(first_request_s(srv, bare_command(srv.url, prompts))[0])
                if args.compare is not None:
                    cmd = score_command(srv.url, data, args.datasets, tmp / f"c{i}")
                    other_s.append(first_request_s(srv, cmd, args.compare.resolve())[0])
            traced = traced_until_first_request(
                srv, score_command(srv.url, data, args.datasets, tmp / "traced", "-X", "importtime")
            )
            srv.stats(reset=True)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    command = " ".join(["dhp", *score_command("URL", data, args.datasets, Path("OUT"))[3:]])
    print(f"\n{command}")
    print(f"dhp score, launch to first request: {_spread(dhp_s)}")
    print(f"bare aiohttp loop, launch to first request: {_spread(bare_s)}")
    ratio = statistics.median(dhp_s) / statistics.median(bare_s)
    ok = statistics.median(dhp_s) < TARGET_S
    print(
        f"ratio of the medians: {ratio:.2f} x the bare loop; target < {TARGET_S} s: {'PASS' if ok else 'MISS'}"
    )
    if other_s:
        other = statistics.median(other_s) / statistics.median(bare_s)
        print(f"dhp score from {args.compare}: {_spread(other_s)}; {other:.2f} x the bare loop")
    rows = importtime(traced)
    print(
        f"\n-X importtime of the same command, stopped at its first request ({len(rows)} modules imported):"
    )
    print("top-level imports by cumulative time")
    for _own, cum, _, name in sorted((r for r in rows if r[2] == 0), key=lambda r: -r[1])[: args.top]:
        print(f"  {cum / 1e3:8.1f} ms  {name}")
    print("single modules by their own time")
    for own, _, _, name in sorted(rows, key=lambda r: -r[0])[: args.top]:
        print(f"  {own / 1e3:8.1f} ms  {name}")
    loaded = {r[3] for r in rows}
    print(f"pandas loaded: {'pandas' in loaded}; pyarrow.dataset loaded: {'pyarrow.dataset' in loaded}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
