"""The judge pool: concurrency, retries with jittered backoff, Retry-After, replicas, cache."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.pool import Pool, RetryPolicy, Tally
from dhp.inference.protocol import (
    FatalJudgeError,
    JudgeOutput,
    PermanentJudgeError,
    RawText,
    RequestFailure,
    SamplingParams,
    ScoreDistribution,
    TokenAlternatives,
    TransientJudgeError,
    content_key,
    output_from_json,
    output_to_json,
)
from dhp.scoring.judge_io import JudgeRequest


def req(i: int = 0, group: str = "g", repeat: int = 0) -> JudgeRequest:
    return JudgeRequest(
        "d", group, "m", "original", f"text {i}", {}, f"prompt {i}", SamplingParams(0.0, 8), repeat
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, d: float) -> None:
        self.sleeps.append(d)
        self.now += d
        await asyncio.sleep(0)


class Scripted:
    """Raises the queued errors, then answers; records calls and peak concurrency."""

    def __init__(self, label: str = "r", errors: list[Exception] | None = None) -> None:
        self.label = label
        self.errors = list(errors or [])
        self.calls: list[JudgeRequest] = []
        self.in_flight = 0
        self.peak = 0

    async def __call__(self, request: JudgeRequest) -> JudgeOutput:
        self.calls.append(request)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            if self.errors:
                raise self.errors.pop(0)
            return RawText("4")
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        return None


def pool(*replicas: Scripted, clock: FakeClock | None = None, **kw: object) -> Pool[JudgeRequest]:
    clock = clock or FakeClock()
    policy = RetryPolicy(**{k: v for k, v in kw.items() if k in RetryPolicy.__dataclass_fields__})  # type: ignore[arg-type]
    rest = {k: v for k, v in kw.items() if k not in RetryPolicy.__dataclass_fields__}
    return Pool(list(replicas), identity="j", policy=policy, clock=clock, sleep=clock.sleep, **rest)  # type: ignore[arg-type]


async def test_concurrency_is_bounded() -> None:
    j = Scripted()
    p = pool(j, concurrency=3)
    outs = await asyncio.gather(*(p.submit(req(i, group=str(i))) for i in range(40)))
    assert all(isinstance(o, RawText) for o in outs)
    assert j.peak == 3 and p.stats.sent == 40


async def test_transient_errors_retry_with_jittered_exponential_backoff() -> None:
    clock = FakeClock()
    j = Scripted(errors=[TransientJudgeError("http-503")] * 4)
    p = pool(j, clock=clock, backoff_base=1.0, backoff_cap=5.0, seed=7)
    out = await p.submit(req())
    assert isinstance(out, RawText) and p.stats.retries == 4 and p.stats.sent == 5
    assert len(clock.sleeps) == 4
    for k, d in enumerate(clock.sleeps, start=1):
        assert 0.0 <= d <= min(5.0, 2.0**k)
    clock2 = FakeClock()
    p2 = pool(
        Scripted(errors=[TransientJudgeError("http-503")] * 4),
        clock=clock2,
        backoff_base=1.0,
        backoff_cap=5.0,
        seed=7,
    )
    await p2.submit(req())
    assert clock2.sleeps == clock.sleeps  # seeded jitter


async def test_retries_are_bounded() -> None:
    j = Scripted(errors=[TransientJudgeError("timeout")] * 10)
    p = pool(j, max_retries=2)
    out = await p.submit(req())
    assert out == RequestFailure("timeout") and len(j.calls) == 3 and p.stats.failed == 1


async def test_retry_after_keeps_requests_off_the_replica() -> None:
    clock = FakeClock()
    j = Scripted(errors=[TransientJudgeError("http-429", retry_after=7.0)])
    p = pool(j, clock=clock, backoff_base=0.001)
    out = await p.submit(req())
    assert isinstance(out, RawText)
    assert clock.now >= 7.0  # the second attempt waited for Retry-After, not just the backoff


async def test_permanent_error_is_not_retried_and_fatal_propagates() -> None:
    j = Scripted(errors=[PermanentJudgeError("http-400", "prompt too long")])
    p = pool(j)
    assert await p.submit(req()) == RequestFailure("http-400", "prompt too long")
    assert len(j.calls) == 1 and p.stats.failed == 1
    p2 = pool(Scripted(errors=[FatalJudgeError("http-401")]))
    with pytest.raises(FatalJudgeError):
        await p2.submit(req())


async def test_a_long_run_of_failures_stops_the_run() -> None:
    p = pool(
        Scripted(errors=[TransientJudgeError("http-500")] * 10), abort_after_failed_requests=3, max_retries=0
    )
    assert isinstance(await p.submit(req(1)), RequestFailure)
    assert isinstance(await p.submit(req(2)), RequestFailure)
    with pytest.raises(FatalJudgeError, match="3 requests in a row failed"):
        await p.submit(req(3))
    assert p.stats.failed == 3


async def test_refused_requests_are_failures_but_never_mean_the_endpoint_is_down() -> None:
    """A 400 is the endpoint's answer about one request (the capability wave may meet many at once)."""
    p = pool(
        Scripted(errors=[PermanentJudgeError("http-400")] * 10), abort_after_failed_requests=3, max_retries=0
    )
    outs = [await p.submit(req(i)) for i in range(10)]
    assert outs == [RequestFailure("http-400")] * 10 and p.stats.failed == 10
    # ... and they end a run of transient failures: two 500s, a 400, two 500s do not stop a run at 3
    errors: list[Exception] = [TransientJudgeError("http-500")] * 2 + [PermanentJudgeError("http-400")]
    p2 = pool(Scripted(errors=errors * 2), abort_after_failed_requests=3, max_retries=0)
    outs2 = [await p2.submit(req(i)) for i in range(6)]
    assert [o.reason for o in outs2 if isinstance(o, RequestFailure)] == [
        "http-500",
        "http-500",
        "http-400",
    ] * 2


async def test_a_tally_counts_its_share_beside_the_pool_totals() -> None:
    p = pool(
        Scripted(errors=[TransientJudgeError("http-503"), PermanentJudgeError("http-400")]), concurrency=4
    )
    a, b = Tally(), Tally()
    await asyncio.gather(p.submit(req(1), a), p.submit(req(2), b), p.submit(req(3), b), p.submit(req(4)))
    assert (a.sent + b.sent, a.retries + b.retries, a.failed + b.failed) == (4, 1, 1)  # req(4): no tally
    assert p.stats.sent == 5 and p.stats.retries == 1 and p.stats.failed == 1
    assert b.snapshot().sent == b.sent and a.sent >= 1


async def test_least_outstanding_spreads_groups_and_keeps_a_group_together() -> None:
    a, b = Scripted("a"), Scripted("b")
    p = pool(a, b, concurrency=8)
    await asyncio.gather(*(p.submit(req(i, group=f"g{i}")) for i in range(40)))
    assert len(a.calls) == len(b.calls) == 20
    a2, b2 = Scripted("a"), Scripted("b")
    p2 = pool(a2, b2, concurrency=2)
    for i in range(6):  # one group at a time: it stays on one replica
        await p2.submit(req(i, group="same"))
    assert sorted((len(a2.calls), len(b2.calls))) == [0, 6]


async def test_a_failing_replica_is_set_aside_while_another_works() -> None:
    clock = FakeClock()
    bad = Scripted("bad", errors=[TransientJudgeError("http-503")] * 100)
    good = Scripted("good")
    p = pool(
        bad, good, clock=clock, set_aside_after=2, set_aside_seconds=60.0, backoff_base=0.001, concurrency=1
    )
    outs = [await p.submit(req(i, group=f"g{i}")) for i in range(20)]
    assert all(isinstance(o, RawText) for o in outs)
    assert len(bad.calls) == 2 and len(good.calls) == 20 and p.stats.set_aside == 1
    # a lone replica is never set aside: it only backs off
    lone = Scripted("lone", errors=[TransientJudgeError("http-503")] * 5)
    p3 = pool(lone, set_aside_after=2, backoff_base=0.001)
    assert isinstance(await p3.submit(req()), RawText) and p3.stats.set_aside == 0


async def test_cache_answers_without_a_request(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    j = Scripted()
    p = pool(j, cache=cache)
    first = await p.submit(req())
    again = await p.submit(req())
    other_repeat = await p.submit(req(repeat=1))
    assert first == again == other_repeat == RawText("4")
    assert len(j.calls) == 2 and p.stats.cached == 1
    assert cache.journal_mode() == "wal" and len(cache) == 2
    cache.close()


def test_outputs_round_trip_through_json() -> None:
    outs: list[JudgeOutput] = [
        RawText("Score: 4", (TokenAlternatives(" 4", -0.1, ((" 4", -0.1), (" 3", -2.5))),), "stop"),
        RawText("", None),
        ScoreDistribution(((1.0, 0.1), (5.0, 0.9))),
    ]
    for o in outs:
        assert output_from_json(output_to_json(o)) == o


def test_cache_key_covers_judge_model_prompt_sampling_and_repeat() -> None:
    base = req()
    keys = {
        base.cache_key("j", "m"),
        base.cache_key("j2", "m"),
        base.cache_key("j", "m2"),
        req(1).cache_key("j", "m"),
        req(repeat=1).cache_key("j", "m"),
        JudgeRequest("d", "g", "m", "original", "t", {}, "prompt 0", SamplingParams(1.0, 8)).cache_key(
            "j", "m"
        ),
    }
    assert len(keys) == 6
    # the item metadata is not part of the address: same prompt, same answer
    moved = JudgeRequest("other", "x", "y", "z", "t", {}, "prompt 0", SamplingParams(0.0, 8))
    assert moved.cache_key("j", "m") == base.cache_key("j", "m")


def test_cache_key_is_the_json_content_address_of_earlier_versions() -> None:
    """Keys are assembled with orjson but hash exactly json.dumps(sort_keys, ensure_ascii=False): old caches stay valid."""
    prompts = [
        "plain",
        "",
        'tab\t"q" back\\slash \x00\x01\x1f\x7f é 漢字 \u2028 \U0001f600',
        "lone \ud800 surrogate",
    ]
    samplings = [
        SamplingParams(0.0, 8, True, 20),
        SamplingParams(1.0, 32, seed=7),
        SamplingParams(0.7, 300, seed=3, top_p=0.95),
    ]
    for prompt in prompts:
        for s in samplings:
            for model in ("m", None, "ünï"):
                payload = json.dumps(
                    {"judge": 'J "x"', "model": model, "prompt": prompt, "sampling": s.to_dict(), "repeat": 2},
                    sort_keys=True, ensure_ascii=False,
                )  # fmt: skip
                old = hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()
                assert content_key('J "x"', model, prompt, s, 2) == old


async def test_cache_commits_in_batches_and_frees_slots_only_once_committed(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    reader = sqlite3.connect(tmp_path / "c.sqlite")
    answered = 0
    seen: list[int] = []

    class Checked(Scripted):
        async def __call__(self, request: JudgeRequest) -> JudgeOutput:
            committed = reader.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            seen.append(answered - committed + self.in_flight + 1)  # slots in use, this request included
            out = await super().__call__(request)
            return out

    j = Checked()
    p = pool(j, cache=cache, concurrency=4)

    async def one(i: int) -> JudgeOutput | RequestFailure:
        nonlocal answered
        out = await p.submit(req(i))
        answered += 1
        return out

    outs = await asyncio.gather(*(one(i) for i in range(40)))
    assert all(o == RawText("4") for o in outs) and len(j.calls) == 40
    assert max(seen) <= 4  # answered-but-uncommitted outputs never exceed the free slots
    assert cache.commits < 40 and len(cache) == 40  # several answers per transaction
    reader.close()
    cache.close()


async def test_a_failed_commit_is_raised_by_the_next_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    p = pool(Scripted(), cache=cache)

    def disk_full() -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(cache, "flush", disk_full)
    assert await p.submit(req(1)) == RawText("4")
    await asyncio.sleep(0)  # the commit runs at the end of the loop iteration, and fails
    with pytest.raises(CacheError, match=r"cannot write \(database or disk is full\)"):
        await p.submit(req(2))
    monkeypatch.undo()
    with pytest.raises(CacheError, match="cannot write"):  # and closing says so too
        cache.close()
