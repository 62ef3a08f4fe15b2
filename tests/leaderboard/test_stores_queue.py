"""Stores (local folder, Hub repo against a fake HfApi) and the request queue's state machine."""

from __future__ import annotations

import json
import multiprocessing as mp
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dhp.inference.judge import BuiltinJudge, EndpointJudge
from dhp.leaderboard.board.stores import HubStore, LocalStore, StoreError
from dhp.leaderboard.submissions.queue import (
    InvalidTransition,
    RequestQueue,
    State,
    hash_user,
    new_request,
    parse_request,
)
from dhp.leaderboard.submissions.validation import Submission
from dhp.types import ControlJudge, EndpointProtocol


def _sub(name: str = "judge A", model: str = "org/model") -> Submission:
    return Submission(
        judge=EndpointJudge(name=name, endpoints=("https://judge.example.org/v1",), model=model),
        mode="expected",
        contact="me@x.org",
    )


# ------------------------------------------------------------------------------------------- local
def test_local_store_roundtrip_and_listing(tmp_path: Path) -> None:
    s = LocalStore(tmp_path)
    s.write("a/b.json", b"{}")
    s.write("c.json", b"[]")
    s.write("c.txt", b"x")
    listing = s.list(".json")
    assert list(listing) == ["a/b.json", "c.json"]
    assert s.read("a/b.json") == b"{}"
    v1 = listing["c.json"]
    s.write("c.json", b"[1]")
    assert s.list()["c.json"] != v1
    with pytest.raises(FileNotFoundError):
        s.read("missing.json")
    for bad in ("../x.json", "/etc/passwd", "a/../../x.json", ""):
        with pytest.raises(StoreError):
            s.write(bad, b"")


def test_local_create_and_compare_and_swap(tmp_path: Path) -> None:
    s = LocalStore(tmp_path)
    assert s.create("r.json", b"one")
    assert not s.create("r.json", b"two")
    assert s.read("r.json") == b"one"
    assert s.compare_and_swap("r.json", b"one", b"two")
    assert not s.compare_and_swap("r.json", b"one", b"three")
    assert not s.compare_and_swap("gone.json", b"one", b"three")
    assert s.read("r.json") == b"two"
    assert not any(p.name.startswith(".r.json") for p in tmp_path.iterdir())  # no temp files left


def _claim_in_process(root: str, out: Any) -> None:
    q = RequestQueue(LocalStore(root))
    got = []
    while (r := q.claim_next(f"w{mp.current_process().pid}")) is not None:
        got.append(r.id)
    out.put(got)


def test_two_worker_processes_never_claim_the_same_request(tmp_path: Path) -> None:
    q = RequestQueue(LocalStore(tmp_path))
    ids = {q.submit(new_request(_sub(f"judge {i}", f"org/m{i}"), "u")).id for i in range(12)}
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_claim_in_process, args=(str(tmp_path), out)) for _ in range(3)]
    for p in procs:
        p.start()
    claimed = [i for _ in procs for i in out.get(timeout=60)]
    for p in procs:
        p.join(timeout=60)
    assert sorted(claimed) == sorted(ids)  # each exactly once
    reqs, problems = q.load()
    assert not problems and all(r.state is State.RUNNING for r in reqs)


def test_threads_race_for_one_request(tmp_path: Path) -> None:
    q = RequestQueue(LocalStore(tmp_path))
    q.submit(new_request(_sub(), "u"))
    wins: list[str] = []
    barrier = threading.Barrier(8)

    def go(i: int) -> None:
        barrier.wait()
        r = RequestQueue(LocalStore(tmp_path)).claim_next(f"t{i}")
        if r is not None:
            wins.append(r.worker or "")

    ts = [threading.Thread(target=go, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(wins) == 1


def test_state_machine(tmp_path: Path) -> None:
    q = RequestQueue(LocalStore(tmp_path))
    req = q.submit(new_request(_sub(), hash_user("alice")))
    assert req.state is State.PENDING and req.host == "judge.example.org"
    with pytest.raises(InvalidTransition):
        req.transition(State.FINISHED)
    running = q.claim_next("w1")
    assert running is not None and running.state is State.RUNNING and running.worker == "w1"
    assert q.claim_next("w2") is None
    done = q.finish(running, ("judge-a/summeval@v1.json",))
    assert done.state is State.FINISHED and done.results == ("judge-a/summeval@v1.json",)
    with pytest.raises(InvalidTransition):
        q.fail(running, "late")  # the stored state moved on
    with pytest.raises(InvalidTransition):
        done.transition(State.RUNNING)
    again = parse_request(LocalStore(tmp_path).read(req.path))
    assert again == done


def test_fail_and_stale_requeue(tmp_path: Path) -> None:
    import datetime as dt

    q = RequestQueue(LocalStore(tmp_path))
    q.submit(new_request(_sub(), "u"))
    r = q.claim_next("w")
    assert r is not None
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    assert q.requeue_stale(3600, now=later) == [r.id]
    r2 = q.claim_next("w2")
    assert r2 is not None and r2.worker == "w2"
    failed = q.fail(r2, "boom")
    assert failed.state is State.FAILED and failed.reason == "boom"
    assert [e.where for e in q.existing()] == []  # failed requests may be resubmitted


def test_bad_request_files_are_reported_not_fatal(tmp_path: Path) -> None:
    s = LocalStore(tmp_path)
    q = RequestQueue(s)
    q.submit(new_request(_sub(), "u"))
    s.write("broken.json", b"{nope")
    s.write("wrong.json", b'{"id": 1}')
    reqs, problems = q.load()
    assert len(reqs) == 1 and len(problems) == 2
    assert q.claim_next("w") is not None


def test_rate_count(tmp_path: Path) -> None:
    q = RequestQueue(LocalStore(tmp_path))
    for i in range(3):
        q.submit(new_request(_sub(f"j{i}", f"o/m{i}"), "alice"))
    q.submit(new_request(_sub("other", "o/x"), "bob"))
    assert q.count_recent("alice", 3600) == 3
    assert q.count_recent("bob", 3600) == 1


def test_request_files_hold_no_secret(tmp_path: Path) -> None:
    q = RequestQueue(LocalStore(tmp_path))
    r = q.submit(new_request(_sub(), hash_user("alice@example.org")))
    text = (tmp_path / r.path).read_text()
    assert "alice" not in text and "key" not in text.lower()


#: Request files as the queue wrote them before the judge had one record (flat judge fields).
OLD_ENDPOINT = {
    "id": "20250101T000000-old-ep-aaaaaa", "judge_name": "Old endpoint judge", "endpoint_url": "https://judge.example.org/v1",
    "protocol": "tgi", "model": "tgi", "hf_model_id": "org/old", "revision": "r1", "mode": "paper", "contact": "c",
    "show_host": True, "submitter": "abc", "datasets": "all", "state": "PENDING", "created_at": "2025-01-01T00:00:00Z",
    "updated_at": "2025-01-01T00:00:00Z", "worker": None, "started_at": None, "finished_at": None, "reason": None,
    "results": [],
}  # fmt: skip
OLD_BUILTIN = {
    **OLD_ENDPOINT, "id": "20250101T000001-old-builtin-bbbbbb", "judge_name": "Old random", "endpoint_url": "",
    "protocol": "builtin", "model": "random", "hf_model_id": None, "revision": None, "mode": "builtin",
}  # fmt: skip


def test_request_files_of_the_flat_layout_still_load_and_upgrade(tmp_path: Path) -> None:
    s = LocalStore(tmp_path)
    for doc in (OLD_ENDPOINT, OLD_BUILTIN, {**OLD_BUILTIN, "id": "bad", "model": "psychic"}):
        s.write(f"{doc['id']}.json", json.dumps(doc, indent=2).encode())
    q = RequestQueue(s)
    (ep, bi), problems = q.load()
    assert len(problems) == 1 and "bad.json" in problems[0] and "control" in problems[0]
    assert ep.judge == EndpointJudge(
        name="Old endpoint judge",
        endpoints=("https://judge.example.org/v1",),
        protocol=EndpointProtocol.TGI,
        model="tgi",
        hf_model_id="org/old",
        revision="r1",
        publish_host=True,
    )  # fmt: skip  (show_host became the judge's publish_host)
    assert ep.mode == "paper" and ep.public_host == "judge.example.org" and ep.submitter == "abc"
    assert (
        bi.judge == BuiltinJudge(name="Old random", control=ControlJudge.RANDOM)
        and bi.public_host == "built-in"
    )
    fresh = new_request(Submission(judge=ep.judge, mode="paper", contact="c"), "u")
    assert fresh.key == ep.key  # duplicates of old requests are still found
    claimed = q.claim_next("w")
    assert claimed is not None and claimed.id == ep.id and claimed.judge == ep.judge
    rewritten = json.loads(s.read(ep.path))  # a transition writes the new layout
    assert rewritten["judge"]["kind"] == "endpoint" and "endpoint_url" not in rewritten
    assert rewritten["judge"]["publish_host"] is True and "show_host" not in rewritten


def test_request_files_with_the_judge_record_and_a_show_host_flag_load_as_the_judge_publishing_it(
    tmp_path: Path,
) -> None:
    s = LocalStore(tmp_path)
    judge = {"kind": "endpoint", "name": "Shown", "endpoints": ["https://judge.example.org/v1"], "model": "m"}
    rest = {k: v for k, v in OLD_ENDPOINT.items() if k not in ("judge_name", "endpoint_url", "protocol", "model",
                                                                  "hf_model_id", "revision", "show_host")}  # fmt: skip
    for i, show in enumerate((True, False)):
        doc = {**rest, "id": f"2025010{i}-shown", "judge": judge, "show_host": show}
        s.write(f"{doc['id']}.json", json.dumps(doc).encode())
    (shown, hidden), problems = RequestQueue(s).load()
    assert problems == [] and shown.public_host == "judge.example.org" and hidden.public_host == "hidden"
    assert isinstance(shown.judge, EndpointJudge) and shown.judge.publish_host is True


# --------------------------------------------------------------------------------------------- hub
class FakeHub:
    """The parts of HfApi that HubStore uses, with the Hub's parent_commit semantics."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.commits: list[dict[str, bytes]] = [{}]
        self.before_commit: Any = None

    @property
    def head(self) -> str:
        return f"c{len(self.commits) - 1:040d}"[-40:]

    def repo_info(self, repo_id: str, repo_type: str) -> Any:
        return SimpleNamespace(sha=self.head)

    def list_repo_tree(self, repo_id: str, repo_type: str, recursive: bool) -> list[Any]:
        files = self.commits[-1]
        return [SimpleNamespace(path=p, blob_id=str(hash(d))) for p, d in files.items()]

    def hf_hub_download(
        self, repo_id: str, filename: str, repo_type: str, revision: str | None, cache_dir: Any
    ) -> str:
        from huggingface_hub.errors import EntryNotFoundError

        idx = len(self.commits) - 1 if revision is None else int(revision.lstrip("c"))
        files = self.commits[idx]
        if filename not in files:
            raise EntryNotFoundError(f"{filename} not found")
        out = self.tmp / f"dl-{idx}-{filename.replace('/', '_')}"
        out.write_bytes(files[filename])
        return str(out)

    def create_commit(self, repo_id: str, operations: list[Any], commit_message: str, repo_type: str,
                      parent_commit: str | None) -> None:  # fmt: skip
        from huggingface_hub.errors import HfHubHTTPError

        if self.before_commit is not None:
            hook, self.before_commit = self.before_commit, None
            hook()
        if parent_commit is not None and parent_commit != self.head:
            resp = SimpleNamespace(status_code=412, headers={}, request=None)
            raise HfHubHTTPError("A commit has happened since. Please refresh and try again.", response=resp)  # type: ignore[arg-type]
        files = dict(self.commits[-1])
        for op in operations:
            data = op.path_or_fileobj
            files[op.path_in_repo] = data if isinstance(data, bytes) else Path(data).read_bytes()
        self.commits.append(files)


def test_hub_store_claims_with_parent_commit(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path)
    store = HubStore("org/requests", api=hub)
    q = RequestQueue(store)
    req = q.submit(new_request(_sub(), "u"))
    assert list(store.list()) == [req.path]
    assert not store.create(req.path, b"x")

    # Another worker claims between our read and our commit: the Hub refuses our commit (412),
    # we re-read, see RUNNING, and do not claim.
    other = RequestQueue(HubStore("org/requests", api=hub))

    def race() -> None:
        assert other.claim_next("other") is not None

    hub.before_commit = race
    assert q.claim_next("me") is None
    assert q.get(req.id).worker == "other"


def test_hub_store_retries_unrelated_conflicts(tmp_path: Path) -> None:
    hub = FakeHub(tmp_path)
    store = HubStore("org/requests", api=hub)
    store.write("a.json", b"1")
    hub.before_commit = lambda: store.write("unrelated.json", b"x")
    assert store.compare_and_swap("a.json", b"1", b"2")  # conflict on another file: retried
    assert store.read("a.json") == b"2"
    assert not store.compare_and_swap("a.json", b"1", b"3")


@pytest.mark.slow  # six real 1 s timeouts
def test_a_hub_that_never_answers_fails_a_listing_instead_of_hanging_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """huggingface_hub's own client waits forever; a hung listing would freeze the board's refresh.
    Every try really times out against a silent socket; only the backoff's waits between tries
    (1+2+4+8+8 s, huggingface_hub's own) are recorded instead of slept."""
    import socket
    import time
    import types

    import huggingface_hub
    import huggingface_hub.utils._http as hub_http
    from huggingface_hub.utils._http import default_client_factory

    from dhp.leaderboard.board.stores import bound_hub_calls

    waits: list[float] = []
    monkeypatch.setattr(hub_http, "time", types.SimpleNamespace(sleep=waits.append, time=time.time))
    silent = socket.create_server(("127.0.0.1", 0))  # accepts (the backlog) and never answers
    try:
        bound_hub_calls(1.0)
        store = HubStore(
            "acme/dhp-results",
            api=huggingface_hub.HfApi(endpoint=f"http://127.0.0.1:{silent.getsockname()[1]}"),
        )
        started = time.monotonic()
        with pytest.raises(Exception, match=r"(?i)timed? ?out"):
            store.list()
        assert time.monotonic() - started < 30  # six tries of 1 s each, not forever
        assert len(waits) >= 1 and sum(waits) < 60, waits  # then it gave up: a bounded backoff
    finally:
        huggingface_hub.set_client_factory(default_client_factory)
        silent.close()


def test_the_hub_timeout_comes_from_the_environment_or_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dhp.leaderboard.board.stores import HUB_TIMEOUT_S, StoreError, hub_timeout_from_env

    monkeypatch.delenv("DHP_HUB_TIMEOUT", raising=False)
    assert hub_timeout_from_env() == HUB_TIMEOUT_S
    monkeypatch.setenv("DHP_HUB_TIMEOUT", "12.5")
    assert hub_timeout_from_env() == 12.5
    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv("DHP_HUB_TIMEOUT", bad)
        with pytest.raises(StoreError, match="DHP_HUB_TIMEOUT"):
            hub_timeout_from_env()
