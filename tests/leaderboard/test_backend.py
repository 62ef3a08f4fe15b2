"""The app's logic without a browser: submissions (validation, duplicates, rate limit), views."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.inference.judge import HubJudge
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.app import build_app
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.leaderboard.submissions.validation import ValidationError


def _cfg(root: Path, results: Path, **kw: object) -> AppConfig:
    return AppConfig(
        results=LocalStore(results),
        requests=LocalStore(root / "requests"),
        votes=LocalStore(root / "votes"),
        **kw,  # type: ignore[arg-type]
    )


def _form(**over: str) -> dict[str, str | None]:
    f: dict[str, str | None] = {
        "judge_name": "New judge", "endpoint_url": "https://judge.example.org/v1", "protocol": "openai",
        "model": "org/new-model", "hf_model_id": "", "revision": "", "mode": "expected", "contact": "me@x.org",
    }  # fmt: skip
    f.update(over)
    return f


PUBLIC = lambda host: ["93.184.216.34"]  # noqa: E731


def test_submit_queue_duplicates_and_rate_limit(tmp_path: Path, results_dir: Path) -> None:
    off_space = BoardService(_cfg(tmp_path, results_dir, mode="space", resolver=PUBLIC, sign_in=False))
    with pytest.raises(ValidationError, match="outside a Hugging Face Space"):
        off_space.submit(_form(), None)
    be = BoardService(_cfg(tmp_path, results_dir, mode="space", resolver=PUBLIC, rate_limit=2, sign_in=True))
    with pytest.raises(ValidationError, match="Sign in"):
        be.submit(_form(), None)
    msg = be.submit(_form(), "hf:alice")
    assert "PENDING" in msg
    with pytest.raises(ValidationError, match="already submitted") as e:
        be.submit(_form(judge_name="Another"), "hf:alice")
    assert "request" in e.value.message
    # the same model as an existing leaderboard row
    with pytest.raises(ValidationError, match="leaderboard row 'Mid Qwen 7B'"):
        be.submit(
            _form(judge_name="Copy", model="Qwen/Qwen2-7B-Instruct", hf_model_id="Qwen/Qwen2-7B-Instruct"),
            "hf:bob",
        )
    with pytest.raises(ValidationError, match="taken"):
        be.submit(_form(judge_name="strong llama 70b", model="x/y"), "hf:bob")
    be.submit(_form(judge_name="Second", model="org/second"), "hf:alice")
    with pytest.raises(ValidationError, match="Rate limit"):
        be.submit(_form(judge_name="Third", model="org/third"), "hf:alice")
    df, problems = be.queue_frame()
    assert list(df["State"]) == ["PENDING", "PENDING"] and not problems
    assert set(df["Host"]) == {"hidden"}  # the submitters did not choose to show it
    be.submit({**_form(judge_name="Shown", model="org/shown"), "publish_host": True}, "hf:carol")
    assert be.queue_frame()[0].set_index("Judge").loc["Shown", "Host"] == "judge.example.org"
    with pytest.raises(ValidationError, match="private"):
        BoardService(_cfg(tmp_path, results_dir, mode="space", resolver=lambda h: ["10.0.0.1"])).submit(
            _form(judge_name="Zed", model="z/z"), "hf:z"
        )


def test_a_hub_model_id_is_queued_and_shown_with_its_provider(tmp_path: Path, results_dir: Path) -> None:
    be = BoardService(_cfg(tmp_path, results_dir, mode="space", resolver=PUBLIC, sign_in=True))
    hub = _form(
        judge_name="Hub judge", endpoint_url="", model="", hf_model_id="org/hub-7b", provider="novita"
    )
    assert "PENDING" in be.submit(hub, "hf:alice")
    row = be.queue_frame()[0].set_index("Judge").loc["Hub judge"]
    assert (row["Model"], row["Host"], row["Protocol"]) == (
        "org/hub-7b",
        "Inference Providers (novita)",
        "hub",
    )
    with pytest.raises(ValidationError, match="already submitted"):
        be.submit({**hub, "judge_name": "Same again"}, "hf:bob")
    assert "PENDING" in be.submit({**hub, "judge_name": "Auto routed", "provider": "auto"}, "hf:bob")
    (req,) = [r for r in be.queue.load()[0] if r.judge.name == "Hub judge"]
    assert req.judge == HubJudge(name="Hub judge", model_id="org/hub-7b", provider="novita")


def test_views_and_weights_versions(tmp_path: Path, results_dir: Path) -> None:
    be = BoardService(_cfg(tmp_path, results_dir, survey_min_ballots=2))
    v = be.view()
    assert list(v["Judge"]) == ["Strong Llama 70B", "Mid Qwen 7B", "Weak Phi-2"]
    assert be.judges() == ["Mid Qwen 7B", "Strong Llama 70B", "Weak Phi-2"]
    assert [r.result.dataset.name for r in be.judge_results("Weak Phi-2")][:2] == ["summeval", "sumpubmed"]
    choices = be.weights_choices()
    assert [c[1] for c in choices] == ["default"] and "0 ballots so far" in be.survey_status()
    from dhp.leaderboard.submissions.survey import get_task

    task = get_task("summarization")
    be.vote("summarization", {i.id: "relevance" for i in task.issues}, "ip:1.2.3.4")
    assert [c[1] for c in be.weights_choices()] == ["default"]  # one ballot is not enough
    in_use = be.weights_frame()["Weights in use"]  # what the board uses: the defaults, still
    assert all(s.endswith("(default; the survey's weights are offered from 2 ballots)") for s in in_use)
    assert "1 ballot so far; they become selectable at 2" in be.survey_status()
    with pytest.raises(ValueError, match="need 2 ballots"):
        be.view(weights="survey")
    be.vote("summarization", {i.id: "relevance" for i in task.issues}, "ip:5.6.7.8")
    assert "2 ballots" in be.weights_choices()[1][0]
    before = be.view(weights="default")
    after = be.view(weights="survey")
    assert not before["summeval D_avg^EW"].equals(after["summeval D_avg^EW"])  # recomputed D^EW
    assert before["story-cloze D_avg^EW"].tolist() == pytest.approx(after["story-cloze D_avg^EW"].tolist())
    unweighted = [
        be.view(weights=w, weighted=False)["summeval D_avg"].tolist() for w in ("default", "survey")
    ]
    assert unweighted[0] == pytest.approx(unweighted[1])  # votes change only D^EW
    wf = be.weights_frame()
    assert any(
        s.endswith("or relevance 1.00 when the survey's weights are chosen") for s in wf["Weights in use"]
    )


def test_build_app_constructs(tmp_path: Path, results_dir: Path) -> None:
    demo = build_app(_cfg(tmp_path, results_dir, mode="space"))
    assert demo is not None


def test_render_is_cached_and_its_csv_is_the_view(tmp_path: Path, results_dir: Path) -> None:
    from dhp.leaderboard.board import table
    from dhp.leaderboard.page import board_html
    from tests.leaderboard.conftest import write_results

    be = BoardService(_cfg(tmp_path, results_dir, list_ttl_s=0.0))
    cells, path = be.render(families=["qwen", "phi"])
    view = be.view(families=["qwen", "phi"])
    assert cells == board_html.view_html(view)
    assert Path(path).read_text(encoding="utf-8") == table.to_csv(view)
    again, path2 = be.render(families=["qwen", "phi"])
    assert again is cells and path2 == path  # from the cache, same file
    Path(path).unlink()  # pruned meanwhile: written again
    assert be.render(families=["qwen", "phi"])[1] == path and Path(path).is_file()
    other, path3 = be.render(families=["llama"])
    assert "Strong Llama 70B" in other and "Mid Qwen" not in other and path3 != path
    write_results(
        results_dir, judges=(("New Qwen 14B", 0.6, "Qwen/Qwen2-14B", None),), datasets=("summeval",)
    )
    fresh, _ = be.render(families=["qwen", "phi"])  # new results: a new render
    assert "New Qwen 14B" in fresh
    assert be.judges()[0] == "Mid Qwen 7B" and "New Qwen 14B" in be.judges()


def test_no_event_shows_progress_on_the_table(tmp_path: Path, results_dir: Path) -> None:
    """Gradio's front end deep-copies every component with a loading status, cell by cell, on each
    status change of any event; the 500-judge table (or the Tabs holding it) among them made a
    filter take seconds. Progress goes elsewhere, and the family filter (set by page load and
    timer) re-renders on the user's input only, not on ``change``."""
    demo = build_app(_cfg(tmp_path, results_dir))
    config = demo.get_config_file()
    ids = {c.get("props", {}).get("elem_id"): c["id"] for c in config["components"]}
    heavy = {ids["leaderboard-table"], ids["tabs"]}
    board_deps = [d for d in config["dependencies"] if heavy & set(d["outputs"])]
    assert len(board_deps) >= 11  # load, tick, refresh, 7 filters, sort, a judge link
    for dep in board_deps:
        assert dep["show_progress_on"] and not heavy & set(dep["show_progress_on"]), dep["targets"]
    assert (ids["filter-families"], "change") not in [
        tuple(t) for d in config["dependencies"] for t in d["targets"]
    ]


# ---------------------------------------------------------------------------------------------------
# Speed (issue 31): rows first, rank ranges later; the board's bytes served once per view
def test_rows_do_not_wait_for_the_rank_replicates(tmp_path: Path, results_dir: Path) -> None:
    """The rank job is held (its reads block): the page's view comes at once, ranked by the point
    estimates under a note; released, the rank ranges are filled in and the board version moves."""
    import threading

    from dhp.leaderboard.board.rankjob import RankJob

    be = BoardService(_cfg(tmp_path, results_dir))
    gate = threading.Event()
    store = be.cfg.results

    def held(path: str) -> bytes:
        gate.wait(timeout=120)
        return store.read(path)

    be.ranks = RankJob(held)
    parts, _ = be.render_parts(wait_ranks=False)
    assert len(parts.rows) == 3 and "Rank ranges are being computed" in parts.head
    assert not be.ranks_ready() and be.board_version() % 2 == 0
    gate.set()
    ranked = be.view(wait_ranks=True)
    assert len(ranked) == 3 and be.ranks_ready() and be.board_version() % 2 == 1
    again, _ = be.render_parts(wait_ranks=False)
    assert again.rows and "Rank ranges are being computed" not in again.head


def test_the_rank_job_leaves_no_process_when_idle(
    tmp_path: Path, results_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job's child process ends when the job runs out of work (a child per job lived as long as
    its parent: every board a test made left one waiting on its pipe)."""
    from dhp.leaderboard.board import rankjob

    children: list[rankjob._Child] = []

    class Recorded(rankjob._Child):
        def __init__(self) -> None:
            super().__init__()
            children.append(self)

    monkeypatch.setattr(rankjob, "_Child", Recorded)
    be = BoardService(_cfg(tmp_path, results_dir))
    be.ranks = rankjob.RankJob(be.cfg.results.read)
    assert len(be.view(wait_ranks=True)) == 3 and be.ranks_ready()
    thread = be.ranks._thread  # None once it has closed its child and ended
    if thread is not None:
        thread.join(timeout=60)
    assert len(children) == 1 and children[0].proc.poll() == 0


def _serve(tmp_path: Path, results_dir: Path) -> tuple[object, str]:
    import socket

    from dhp.leaderboard.page.app import launch

    demo = build_app(_cfg(tmp_path, results_dir))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    launch(demo, port=port, block=False)
    return demo, f"http://127.0.0.1:{port}/"


def test_the_board_is_served_as_bytes_made_once_per_view(tmp_path: Path, results_dir: Path) -> None:
    """GET /dhp/view answers the default view with the page's lists (gzip, ETag: a revalidation is a
    304), a filtered view for the page's inputs, 400 for inputs that are not a view, and the view's
    CSV; GET / is Gradio's page, rendered once (same ETag, revalidated); fingerprinted assets are
    immutable for the browser."""
    import gzip
    import json
    import re
    import urllib.error
    import urllib.parse
    import urllib.request

    from dhp.leaderboard.page.serving import default_inputs

    demo, url = _serve(tmp_path, results_dir)
    try:

        def get(path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
            req = urllib.request.Request(url + path, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
            except urllib.error.HTTPError as e:
                return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()

        status, h, body = get("dhp/view", **{"Accept-Encoding": "gzip"})
        while status == 200 and json.loads(gzip.decompress(body))["loading"]:  # the cold scan: asked again
            status, h, body = get("dhp/view", **{"Accept-Encoding": "gzip"})
        got = json.loads(gzip.decompress(body))
        assert status == 200 and h["content-encoding"] == "gzip" and h["cache-control"] == "no-cache"
        assert len(json.loads(got["board"])["rows"]) == 3 and got["page"]["families"] == [
            "llama",
            "phi",
            "qwen",
        ]
        assert get("dhp/view", **{"If-None-Match": h["etag"]})[0] == 304
        be = BoardService(_cfg(tmp_path, results_dir))
        inputs = default_inputs(be)
        inputs[3] = ["phi"]
        status, _, body = get("dhp/view?v=" + urllib.parse.quote(json.dumps(inputs)))
        view = json.loads(body)
        assert status == 200 and "page" not in view
        names = [re.findall(r'data-judge="([^"]*)"', r) for r in json.loads(view["board"])["rows"]]
        assert names == [["Weak Phi-2"]]
        status, _, csv = get(view["csv"]["url"])
        assert status == 200 and csv.decode().splitlines()[1].split(",")[1] == "Weak Phi-2"
        assert get("dhp/view?v=" + urllib.parse.quote('["x"]'))[0] == 400
        assert get("dhp/csv/..%2Fsecret.csv")[0] == 404
        s1, h1, page = get("")
        s2, h2, _ = get("")
        assert s1 == s2 == 200 and h1["etag"] == h2["etag"] and h1["cache-control"] == "no-cache"
        assert b"gradio_config" in page and get("", **{"If-None-Match": h1["etag"]})[0] == 304
        asset = re.search(rb"(assets/[\w.-]+\.js)", page)
        assert asset is not None
        status, h, _ = get(asset[1].decode())
        assert status == 200 and "immutable" in h["cache-control"]
    finally:
        demo.close()  # type: ignore[attr-defined]


@pytest.mark.slow  # the board served by a `dhp leaderboard` process (~7-13 s)
def test_usr1_dumps_the_threads_and_the_local_board_goes_on(tmp_path: Path, results_dir: Path) -> None:
    """Each step waits on a condition (polled, with a deadline), never on a pipe or a sleep: stdout and
    stderr go to files nobody has to keep reading, so no write of the board can block or break."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from collections.abc import Callable

    def wait_for(cond: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 240
        while not cond():
            assert proc.poll() is None, f"the board ended waiting for {what}: " + err.read_text()[-2000:]
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.05)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [sys.executable, "-m", "dhp", "leaderboard", "--results", str(results_dir), "--requests",
           str(tmp_path / "requests"), "--port", str(port)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(cmd, stdout=o, stderr=e, env=env)
    try:
        wait_for(lambda: b"DHP leaderboard on" in out.read_bytes(), "the board to announce itself")
        proc.send_signal(signal.SIGUSR1)
        # the dump is written by the signal's handler; its main thread's stack ends with the entry point
        wait_for(lambda: "Thread 0x" in err.read_text() and "dhp/__main__.py" in err.read_text(), "the dump")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/dhp/view", timeout=120) as r:
            assert r.status == 200  # answered after the signal: it did not end the board
        assert proc.poll() is None
    finally:
        proc.terminate()
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # its stacks, written 20 s into its closing, say where it hangs
            proc.kill()
            proc.wait()
            pytest.fail("the board did not end within 60 s of SIGTERM: " + err.read_text()[-6000:])
    dump = err.read_text()
    assert rc == 143 and dump.rstrip().endswith("dhp leaderboard: terminated"), dump[-2000:]  # ends quietly
    assert "Traceback" not in dump and "BrokenPipeError" not in dump, dump[-2000:]
    stacks = dump.count("Thread 0x") + dump.count("Current thread 0x")
    assert stacks >= 2 and "in _serve_until_stopped" in dump, dump[-2000:]  # every thread, the main one whole


@pytest.mark.slow  # the Space app's start in a process (~5-8 s)
def test_the_space_app_with_an_unreachable_hub_says_so_in_one_line(tmp_path: Path) -> None:
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if k != "HF_TOKEN"}
    env.update(SPACE_ID="org/space", HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HUB_DISABLE_TELEMETRY="1",
               PYTHONPATH=str(Path(__file__).resolve().parents[2]), DHP_RESULTS="hf://datasets/org/r",
               DHP_REQUESTS="hf://datasets/org/q", DHP_VOTES="hf://datasets/org/v")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", "from dhp.leaderboard.page.app import main; main()"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode != 0
    lines = [x for x in out.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("dhp leaderboard: the stores: cannot reach the Hub"), (
        out.stderr
    )


_BUSY_DUMPS = """
import os, signal, sys, threading, time
from dhp.leaderboard.page.app import dump_threads_on_usr1

dump_threads_on_usr1()
assert callable(signal.getsignal(signal.SIGUSR1)), signal.getsignal(signal.SIGUSR1)
stop = threading.Event()

def churn() -> None:  # frames pushed and popped all the time, as a busy board's threads do
    def down(n: int) -> int:
        return 0 if n == 0 else down(n - 1) + 1
    while not stop.is_set():
        down(100)

threads = [threading.Thread(target=churn) for _ in range(2)]
for t in threads:
    t.start()
for _ in range(int(sys.argv[1])):
    os.kill(os.getpid(), signal.SIGUSR1)
    time.sleep(0.001)
stop.set()
for t in threads:
    t.join()
print("went on")
"""


def test_usr1_dumps_are_written_in_the_main_thread_while_other_threads_run(tmp_path: Path) -> None:
    """The dump is a Python-level handler (run with the GIL held, so no thread's frames move while they
    are read), not faulthandler's C-level one, which read them unlocked and once crashed the board
    (SIGSEGV right after the dump, CI under load). Every signal gives one whole dump, and the process
    goes on."""
    import os
    import subprocess
    import sys

    n = 40
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-c", _BUSY_DUMPS, str(n)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path, env=env)  # fmt: skip
    assert out.returncode == 0 and out.stdout.strip() == "went on", out.stderr[-2000:]
    assert out.stderr.count("Current thread 0x") == n, out.stderr[-2000:]  # one whole dump a signal
    assert out.stderr.count("in _dump_threads") == n, out.stderr[-2000:]  # written by the main thread
    assert out.stderr.count("in churn") >= n, out.stderr[-2000:]  # the other threads, in every dump


def test_a_board_slow_to_end_writes_where_it_is(capfd: pytest.CaptureFixture[str]) -> None:
    """``dhp leaderboard``'s closing is watched: past its bound, every thread's stack goes to stderr, and
    the closing goes on; a prompt one writes nothing."""
    import threading

    from dhp.cli.board import CLOSE_WATCH, _close_watched

    def watches() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == CLOSE_WATCH]

    class SlowApp:
        def close(self) -> None:  # ends once the watch has written (or after 60 s: the test then fails)
            for t in watches():
                t.join(timeout=60)

    class QuickApp:
        def close(self) -> None:
            pass

    _close_watched(QuickApp(), within_s=0.2)
    for t in watches():  # cancelled: it ends without writing
        t.join(timeout=60)
    assert "Thread 0x" not in capfd.readouterr().err and not watches()
    _close_watched(SlowApp(), within_s=0.2)
    err = capfd.readouterr().err
    assert "not closed after 0.2 s" in err and "in close" in err and "in _close_watched" in err, err[-2000:]


def test_a_signal_one_of_the_board_s_threads_receives_still_wakes_its_wait() -> None:
    """The kernel may hand SIGTERM or SIGUSR1 to any thread of the board: Python runs the handler in the main
    thread at its next bytecode, so the main thread's wait must wake. Here the signal goes to a worker thread
    on purpose (``pthread_kill``) while the main thread waits in ``_serve_until_stopped``; the handler ends
    the wait. With the old hour-long sleep this child would still be waiting when the deadline ends it."""
    import subprocess
    import sys

    code = (
        "import signal, threading\n"
        "from dhp.cli.board import _serve_until_stopped\n"
        "class Stop(Exception): pass\n"
        "def stop(signum, frame): raise Stop\n"
        "signal.signal(signal.SIGUSR2, stop)\n"
        "idle = threading.Event()\n"
        "worker = threading.Thread(target=idle.wait, daemon=True); worker.start()\n"
        "try:  # the signal may land before the wait under load: caught all the same, never an error\n"
        "    threading.Timer(0.5, signal.pthread_kill, (worker.ident, signal.SIGUSR2)).start()\n"
        "    _serve_until_stopped()\n"
        "except Stop:\n"
        "    print('woke')\n"
    )
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "woke", done.stderr[-2000:]
