"""Evaluation requests and their state machine, kept in a :class:`~dhp.leaderboard.board.stores.Store`.

One JSON file per request, ``<id>.json``. States::

    PENDING --claim--> RUNNING --finish--> FINISHED
                          \\----fail-----> FAILED
    RUNNING (stale, worker died) --requeue--> PENDING

Every transition is a compare-and-swap on the file's bytes, so two workers never run the same
request: both may read PENDING, only one swap succeeds. Requests hold no secret: the judge record
(:mod:`dhp.inference.judge`) refuses URLs with credentials, and API keys and the HF token live only in the
worker's environment.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from pydantic import Field, ValidationError, model_validator

from dhp.errors import first_validation_problem
from dhp.leaderboard.board.stores import Store
from dhp.leaderboard.submissions.validation import Existing, Submission, judge_key
from dhp.naming import judge_slug
from dhp.secrets import hide_hosts

__all__ = [
    "InvalidTransition",
    "QueuedRequest",
    "RequestQueue",
    "State",
    "hash_user",
    "parse_request",
    "utcnow",
]


class State(str, Enum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"


_ALLOWED: Mapping[State, frozenset[State]] = {
    State.PENDING: frozenset({State.RUNNING}),
    State.RUNNING: frozenset({State.FINISHED, State.FAILED, State.PENDING}),
    State.FINISHED: frozenset(),
    State.FAILED: frozenset({State.PENDING}),
}


#: The judge fields of request files written before :mod:`dhp.inference.judge` (upgraded on reading).
_FLAT_FIELDS = ("judge_name", "endpoint_url", "protocol", "model", "hf_model_id", "revision")


def _flat_fields_to_judge(old: dict[str, Any]) -> dict[str, Any]:
    """Flat ``judge_name`` / ``endpoint_url`` / ``protocol`` / ... fields -> the judge record."""
    flat = {k: old.pop(k, None) for k in _FLAT_FIELDS}
    if flat["protocol"] == "builtin":
        judge: dict[str, Any] = {"kind": "builtin", "name": flat["judge_name"], "control": flat["model"]}
    else:
        judge = {"kind": "endpoint", "name": flat["judge_name"], "endpoints": [flat["endpoint_url"]],
                 "protocol": flat["protocol"], "model": flat["model"], "hf_model_id": flat["hf_model_id"],
                 "revision": flat["revision"]}  # fmt: skip
    return {**old, "judge": judge}


def _show_host_to_publish_host(old: dict[str, Any]) -> dict[str, Any]:
    """A request's ``show_host`` flag -> its endpoint judge's ``publish_host``."""
    show = bool(old.pop("show_host"))
    record = old.get("judge")
    if isinstance(record, dict) and record.get("kind") == "endpoint":
        old["judge"] = {**record, "publish_host": bool(record.get("publish_host")) or show}
    return old


#: Older request layouts, oldest first, each as (a field only that layout has, its step to the next
#: one). A file is upgraded by every step whose mark it has, in this order; the last gives today's.
REQUEST_UPGRADES: tuple[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]], ...] = (
    ("judge_name", _flat_fields_to_judge),  # before dhp.inference.judge: the judge had no record
    ("show_host", _show_host_to_publish_host),  # before show_host became the judge's publish_host
)


#: what reasons stored before answers went unquoted (dhp.inference.http) quoted of an endpoint's body
_QUOTED_ANSWER = re.compile(
    r"""\b(answered text|titled) (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?:\.\.\.)?"""
)


class InvalidTransition(RuntimeError):
    """A state change the state machine does not allow (e.g. FINISHED -> RUNNING)."""


def utcnow() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def hash_user(user: str) -> str:
    """A stable pseudonym for a submitter (OAuth name, session or IP), so none is stored in clear."""
    return hashlib.sha256(f"dhp-leaderboard|{user}".encode()).hexdigest()[:16]


class QueuedRequest(Submission):
    """One queued evaluation: a :class:`~dhp.leaderboard.submissions.validation.Submission` (the judge, handed
    whole to the scorer, and how to score it) plus its queue state. Files written before the judge
    had one description (flat ``judge_name`` / ``endpoint_url`` / ``protocol`` / ``model`` / ...
    fields) or before ``show_host`` became the judge's ``publish_host`` are upgraded on reading."""

    id: str
    submitter: str = ""  # hash_user(...) of who submitted
    datasets: str = "all"
    state: State = State.PENDING
    created_at: str
    updated_at: str
    worker: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    reason: str | None = None  # why it FAILED (scrubbed stderr tail)
    results: tuple[str, ...] = Field(default_factory=tuple)  # results-store paths written

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """A request file of an older layout -> today's, through :data:`REQUEST_UPGRADES` in order."""
        if not isinstance(data, dict):
            return data
        for mark, step in REQUEST_UPGRADES:
            if mark in data:
                data = step(dict(data))
        return data

    @property
    def path(self) -> str:
        return f"{self.id}.json"

    @property
    def host(self) -> str:
        """Where the judge is reached: the endpoint host, "Inference Providers (<provider>)", or "built-in"."""
        provider = self.judge.provider_name
        return f"Inference Providers ({provider})" if provider else min(self.judge.hosts, default="built-in")

    @property
    def public_host(self) -> str:
        """The host as the public Queue tab shows it: an endpoint's only when the submitter chose to."""
        return self.host if self.judge.shown_hosts == self.judge.hosts else "hidden"

    @property
    def public_reason(self) -> str:
        """The failure reason as the public Queue tab shows it: a hidden host hidden in it too (a
        reason stored before hosts were hidden on failing included), and no endpoint's words that a
        reason stored before answers went unquoted held (``text '...'``, ``titled '...'``)."""
        reason = _QUOTED_ANSWER.sub(r"\1 [not shown]", self.reason or "")
        if not reason or self.public_host != "hidden":
            return reason
        return hide_hosts(reason, self.judge.urls)

    @property
    def key(self) -> tuple[str, ...]:
        return judge_key(self.judge, self.mode)

    def to_bytes(self) -> bytes:
        return (self.model_dump_json(indent=2) + "\n").encode()

    def transition(self, new: State, **changes: object) -> QueuedRequest:
        if new not in _ALLOWED[self.state]:
            raise InvalidTransition(f"request {self.id}: {self.state.value} -> {new.value} is not allowed")
        return self.model_copy(update={"state": new, "updated_at": utcnow(), **changes})


def parse_request(data: bytes | str, source: str = "<request>") -> QueuedRequest:
    """Validate a request document (pure)."""
    try:
        return QueuedRequest.model_validate_json(data)
    except ValidationError as e:
        raise ValueError(f"{source}: invalid request {first_validation_problem(e)}") from e


def new_request(
    sub: Submission, submitter: str, datasets: str = "all", now: str | None = None
) -> QueuedRequest:
    ts = now or utcnow()
    stamp = ts.replace("-", "").replace(":", "").replace("Z", "")
    rid = f"{stamp}-{judge_slug(sub.judge_name)[:40]}-{secrets.token_hex(3)}"
    return QueuedRequest(
        **dict(sub),
        id=rid,
        submitter=submitter,
        datasets=datasets,
        created_at=ts,
        updated_at=ts,
    )


class RequestQueue:
    """The requests store seen as a queue."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[str, QueuedRequest | None, str | None]] = {}

    def load(self) -> tuple[list[QueuedRequest], list[str]]:
        """All requests (oldest first) and the problems of unreadable files (reported, skipped)."""
        listing = self.store.list(".json")
        reqs: list[QueuedRequest] = []
        problems: list[str] = []
        fresh: dict[str, tuple[str, QueuedRequest | None, str | None]] = {}
        for path, version in listing.items():
            cached = self._cache.get(path)
            if cached is None or cached[0] != version:
                try:
                    req: QueuedRequest | None = parse_request(self.store.read(path), source=path)
                    err = None
                except FileNotFoundError:
                    continue
                except ValueError as e:  # not JSON, not UTF-8, or not a request
                    req, err = None, str(e)
                except OSError as e:  # unreadable (permissions, an I/O error): named, not fatal
                    req, err = None, f"{path}: cannot read it ({e.strerror or type(e).__name__})"
                cached = (version, req, err)
            fresh[path] = cached
            if cached[1] is not None:
                reqs.append(cached[1])
            elif cached[2]:
                problems.append(cached[2])
        self._cache = fresh
        reqs.sort(key=lambda r: (r.created_at, r.id))
        return reqs, problems

    def unreadable(self) -> dict[str, str]:
        """The request files of the last :meth:`load` that could not be read as requests: path -> why."""
        return {path: err for path, (_, req, err) in self._cache.items() if req is None and err}

    def get(self, request_id: str) -> QueuedRequest:
        return parse_request(self.store.read(f"{request_id}.json"), source=request_id)

    def submit(self, req: QueuedRequest) -> QueuedRequest:
        if not self.store.create(req.path, req.to_bytes(), message=f"queue {req.judge_name}"):
            raise RuntimeError(f"request {req.id} exists already")
        return req

    def _swap(self, old: QueuedRequest, raw: bytes, new: QueuedRequest, message: str) -> bool:
        return self.store.compare_and_swap(old.path, raw, new.to_bytes(), message=message)

    def claim_next(self, worker: str) -> QueuedRequest | None:
        """Atomically take the oldest PENDING request (PENDING -> RUNNING), or None if none is left."""
        reqs, _ = self.load()
        for r in reqs:
            if r.state is not State.PENDING:
                continue
            try:
                raw = self.store.read(r.path)
            except FileNotFoundError:
                continue
            current = parse_request(raw, r.path)
            if current.state is not State.PENDING:
                continue
            running = current.transition(State.RUNNING, worker=worker, started_at=utcnow(), reason=None)
            if self._swap(current, raw, running, f"claim {current.id} ({worker})"):
                return running
        return None

    def _update(self, req: QueuedRequest, new: State, message: str, **changes: object) -> QueuedRequest:
        for _ in range(5):
            raw = self.store.read(req.path)
            current = parse_request(raw, req.path)
            if current.state is not req.state or current.worker != req.worker:
                raise InvalidTransition(
                    f"request {req.id} changed under us: now {current.state.value} (worker {current.worker})"
                )
            updated = current.transition(new, **changes)
            if self._swap(current, raw, updated, message):
                return updated
        raise RuntimeError(f"request {req.id}: could not record {new.value}")

    def finish(self, req: QueuedRequest, results: tuple[str, ...]) -> QueuedRequest:
        return self._update(req, State.FINISHED, f"finish {req.id}", finished_at=utcnow(), results=results)

    def release(self, req: QueuedRequest) -> QueuedRequest:
        """Give a claimed (RUNNING) request back to the queue (PENDING): its worker was stopped before
        it ended, by Ctrl-C or SIGTERM, and another (or the same, restarted) runs it from the start."""
        return self._update(req, State.PENDING, f"release {req.id}", worker=None, started_at=None)

    def fail(self, req: QueuedRequest, reason: str) -> QueuedRequest:
        """Mark ``req`` FAILED with ``reason``, its endpoint's host hidden unless the submitter
        published it: every failure reason passes here, so none can name a hidden host."""
        if req.public_host == "hidden":
            reason = hide_hosts(reason, req.judge.urls)
        return self._update(req, State.FAILED, f"fail {req.id}", finished_at=utcnow(), reason=reason[-2000:])

    def requeue_stale(self, max_age_s: float, now: dt.datetime | None = None) -> list[str]:
        """RUNNING requests started more than ``max_age_s`` ago (their worker died) -> PENDING."""
        now = now or dt.datetime.now(dt.timezone.utc)
        done: list[str] = []
        reqs, _ = self.load()
        for r in reqs:
            if r.state is not State.RUNNING or not r.started_at:
                continue
            started = dt.datetime.fromisoformat(r.started_at.replace("Z", "+00:00"))
            if (now - started).total_seconds() > max_age_s:
                try:
                    self._update(r, State.PENDING, f"requeue {r.id}", worker=None, started_at=None)
                    done.append(r.id)
                except (InvalidTransition, RuntimeError):
                    continue
        return done

    def existing(self) -> list[Existing]:
        """Queued, running and finished requests, for duplicate checks (failed ones may be resubmitted)."""
        reqs, _ = self.load()
        return [
            Existing(r.judge_name, r.key, f"request {r.id} ({r.state.value})")
            for r in reqs
            if r.state is not State.FAILED
        ]

    def count_recent(self, submitter: str, window_s: float, now: dt.datetime | None = None) -> int:
        now = now or dt.datetime.now(dt.timezone.utc)
        reqs, _ = self.load()
        n = 0
        for r in reqs:
            if r.submitter != submitter:
                continue
            created = dt.datetime.fromisoformat(r.created_at.replace("Z", "+00:00"))
            if (now - created).total_seconds() < window_s:
                n += 1
        return n
