"""The one wrapper around every backend: cache, concurrency, retries, timeouts, replicas.

:class:`Pool` takes one or more replicas of a judge or generator (backends implementing
:class:`dhp.inference.protocol.Backend`) and gives :meth:`Pool.submit`: request in, output or
:class:`RequestFailure` out. The scorer and the builder's LLM perturber both send through it, so
both get the one retry policy below and the one hardened cache.

* **Cache** — outputs are looked up and stored by content address (:mod:`dhp.inference.cache`);
  a request keeps its concurrency slot until its output is committed (writes are batched per
  event-loop iteration), so answered-but-uncached requests never exceed those in flight.
* **One request per content address** — identical requests (same cache key: two perturbations
  that produced the same text, say) submitted while the first is in flight wait for its outcome
  instead of being sent again, so a run sends each unique prompt once (per repeat). Off
  (``coalesce=False``) for built-in judges, whose requests carry no prompt.
* **Concurrency** — at most ``concurrency`` requests in flight over all replicas (a semaphore that
  is not held while a request waits to retry).
* **Retries** — transient errors (429, 5xx, timeouts, reset connections, truncated JSON) are retried
  up to ``max_retries`` times with exponential backoff and full jitter (seeded ``random.Random``);
  a ``Retry-After`` from a server keeps requests off that replica until it has passed.
* **Accounting** — :attr:`Pool.stats` counts every request; :meth:`Pool.submit` also
  counts into the caller's :class:`Tally` (one dataset's share while datasets overlap), and
  each attempt sent (a retry, on whichever replica, is one more) is handed to the tally's
  ``on_send`` before it leaves.
* **Timeout** — each attempt is bounded by ``timeout`` seconds (``asyncio.timeout``: no extra task).
* **Replicas** — each request goes to the replica with the fewest outstanding requests; requests
  of one prompt-prefix group (same item and metric) stay on one replica while it is not much busier
  than the least busy one, so servers with prefix caches reuse the shared prefix. A replica that
  fails ``set_aside_after`` times in a row is set aside for a cool-down that doubles each time,
  as long as another replica is there to take its load (a lone replica just backs off).
* **Errors** — :class:`PermanentJudgeError` fails one request without retry;
  :class:`FatalJudgeError` and :class:`CapabilityError` stop the run (they propagate), and so does
  a long run of requests failing one after another with transient errors after all their retries
  (the endpoint is down: stop, resume later). A permanent error is the endpoint's answer about
  one request: it does not count towards that run (it ends it).
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from dhp.inference.cache import ResponseCache
from dhp.inference.protocol import (
    Backend,
    FatalJudgeError,
    JudgeOutput,
    PermanentJudgeError,
    RawText,
    Request,
    RequestFailure,
    TransientJudgeError,
)

__all__ = ["Pool", "PoolStats", "RetryPolicy", "Tally"]

log = logging.getLogger("dhp.inference")

R = TypeVar("R", bound=Request)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    backoff_base: float = 0.5  # seconds; attempt k waits U(0, min(cap, base * 2**k))
    backoff_cap: float = 30.0
    timeout: float = 120.0  # per attempt
    retry_after_cap: float = 300.0  # never wait longer than this on a server's Retry-After
    set_aside_after: int = 3  # consecutive failures before a replica is set aside
    set_aside_seconds: float = 30.0  # first cool-down; doubles up to set_aside_max
    set_aside_max: float = 600.0
    abort_after_failed_requests: int = 50  # this many requests in a row failing after retries stop the run


@dataclass(frozen=True)
class PoolStats:
    sent: int = 0  # attempts that reached a backend (successful or not)
    cached: int = 0  # requests answered from the cache (or by an identical request in flight)
    retries: int = 0
    failed: int = 0  # requests that ended without an output
    set_aside: int = 0  # times a replica was set aside

    def minus(self, other: PoolStats) -> PoolStats:
        return PoolStats(
            sent=self.sent - other.sent,
            cached=self.cached - other.cached,
            retries=self.retries - other.retries,
            failed=self.failed - other.failed,
            set_aside=self.set_aside - other.set_aside,
        )


class Tally:
    """Counters of one share of a pool's requests (one dataset of a run), kept beside the pool's own.

    Several shares may be in flight at once (a run sends the next dataset's requests while the
    last ones of the previous dataset are answered), so a share's counts cannot be taken as
    differences of the pool's totals: :meth:`Pool.submit` counts into the tally it is given.

    ``on_send``, when set, is called with the tally each time an attempt is counted in ``sent``,
    before the request leaves (a cost ledger records it there, so that a kill loses none: issue 35).
    """

    __slots__ = ("cached", "completion_tokens", "failed", "on_send", "prompt_tokens", "retries", "sent")

    def __init__(self) -> None:
        self.sent = self.cached = self.retries = self.failed = 0
        # tokens the endpoint reported for the answers it sent (None: it reported none of that kind)
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.on_send: Callable[[Tally], None] | None = None

    def add_usage(self, out: JudgeOutput) -> None:
        """Add the tokens an answer from the endpoint cost, when it reported them."""
        usage = out.usage if isinstance(out, RawText) else None
        if usage is None:
            return
        if usage.prompt is not None:
            self.prompt_tokens = (self.prompt_tokens or 0) + usage.prompt
        if usage.completion is not None:
            self.completion_tokens = (self.completion_tokens or 0) + usage.completion

    def snapshot(self) -> PoolStats:
        return PoolStats(self.sent, self.cached, self.retries, self.failed)


_NOBODY = Tally()  # the share of requests submitted without a tally (counted in the pool's totals only)


class _Replica(Generic[R]):
    __slots__ = (
        "available_at",
        "consecutive_failures",
        "cooldown",
        "failures",
        "index",
        "judge",
        "outstanding",
        "sent",
    )

    def __init__(self, judge: Backend[R], index: int, cooldown: float) -> None:
        self.judge = judge
        self.index = index
        self.outstanding = 0
        self.consecutive_failures = 0
        self.available_at = 0.0
        self.cooldown = cooldown
        self.sent = 0
        self.failures = 0


class Pool(Generic[R]):
    def __init__(
        self,
        replicas: Sequence[Backend[R]],
        *,
        identity: str,
        model: str | None = None,
        cache: ResponseCache | None = None,
        concurrency: int = 8,
        policy: RetryPolicy | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        coalesce: bool = True,
    ) -> None:
        if not replicas:
            raise ValueError("a pool needs at least one replica")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.identity = identity
        self.model = model
        self.cache = cache
        self.policy = policy or RetryPolicy()
        self.concurrency = concurrency
        self.coalesce = coalesce  # False where requests differ beyond their cache key (prompt-less built-ins)
        self._replicas = [_Replica(j, i, self.policy.set_aside_seconds) for i, j in enumerate(replicas)]
        self._sem = asyncio.Semaphore(concurrency)
        self._rng = random.Random(f"backoff|{seed}")
        self._clock = clock
        self._sleep = sleep
        self._affinity: dict[str, _Replica[R]] = {}
        self._slack = max(1, concurrency // (2 * len(self._replicas)))
        # plain counters (no object per event); `stats` gives a frozen snapshot
        self._total = Tally()
        self._set_aside = 0
        self._failed_in_a_row = 0
        self._retry_announced = False  # the first retry of the run is logged: no silent minute of retries
        self._in_flight: dict[str, asyncio.Future[JudgeOutput | RequestFailure]] = {}

    # -- accounting ---------------------------------------------------------------------------
    @property
    def stats(self) -> PoolStats:
        t = self._total
        return PoolStats(t.sent, t.cached, t.retries, t.failed, self._set_aside)

    # -- replica choice -----------------------------------------------------------------------
    async def _acquire(self, request: R) -> _Replica[R]:
        if len(self._replicas) == 1:  # the common case: no choice to make (and no group to name)
            only = self._replicas[0]
            while only.available_at > self._clock():
                await self._sleep(max(only.available_at - self._clock(), 0.001))
            only.outstanding += 1
            return only
        group = request.group
        while True:
            now = self._clock()
            ready = [r for r in self._replicas if r.available_at <= now]
            if ready:
                least = min(r.outstanding for r in ready)
                sticky = self._affinity.get(group)
                if sticky is not None and sticky in ready and sticky.outstanding <= least + self._slack:
                    chosen = sticky
                else:
                    chosen = min(ready, key=lambda r: (r.outstanding, r.sent, r.index))
                self._affinity[group] = chosen
                chosen.outstanding += 1
                return chosen
            wait = min(r.available_at for r in self._replicas) - now
            await self._sleep(max(wait, 0.001))

    def _release_failed(self, r: _Replica[R], retry_after: float | None, reason: str) -> None:
        r.outstanding -= 1
        r.failures += 1
        r.consecutive_failures += 1
        now = self._clock()
        if retry_after is not None:
            r.available_at = max(
                r.available_at, now + min(max(retry_after, 0.0), self.policy.retry_after_cap)
            )
        others_ready = any(o is not r and o.available_at <= now for o in self._replicas)
        if r.consecutive_failures >= self.policy.set_aside_after and others_ready:
            r.available_at = max(r.available_at, now + r.cooldown)
            log.warning(
                "replica %s set aside for %.0f s after %d consecutive failures (last: %s)",
                r.judge.label,
                r.cooldown,
                r.consecutive_failures,
                reason,
            )
            r.cooldown = min(r.cooldown * 2.0, self.policy.set_aside_max)
            r.consecutive_failures = self.policy.set_aside_after - 1  # one more failure sets it aside again
            self._set_aside += 1

    def _release_ok(self, r: _Replica[R]) -> None:
        r.outstanding -= 1
        if r.consecutive_failures:
            r.consecutive_failures = 0
            r.cooldown = self.policy.set_aside_seconds

    def _backoff(self, attempt: int) -> float:
        return self._rng.uniform(0.0, min(self.policy.backoff_cap, self.policy.backoff_base * 2.0**attempt))

    # -- the one entry point ------------------------------------------------------------------
    async def submit(self, request: R, tally: Tally = _NOBODY) -> JudgeOutput | RequestFailure:
        """The request's output (from the cache, an identical request in flight, or a backend) or its failure.

        Counted in :attr:`stats` and, when given, in ``tally`` (the caller's share of the requests).
        """
        key = request.cache_key(self.identity, self.model)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self._total.cached += 1
                tally.cached += 1
                return hit
        if not self.coalesce:
            return await self._send(request, key, tally)
        pending = self._in_flight.get(key)
        if pending is not None:  # the same request is in flight: share its outcome, send nothing
            out = await asyncio.shield(pending)
            self._total.cached += 1
            tally.cached += 1
            return out
        fut: asyncio.Future[JudgeOutput | RequestFailure] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = fut
        try:
            out = await self._send(request, key, tally)
        except asyncio.CancelledError:
            fut.cancel()
            raise
        except Exception as e:
            fut.set_exception(e)
            fut.exception()  # retrieved here, so a failure nobody shared is not reported as unhandled
            raise
        else:
            fut.set_result(out)
            return out
        finally:
            del self._in_flight[key]

    async def _call(self, replica: _Replica[R], request: R) -> JudgeOutput:
        if sys.version_info >= (3, 11):
            async with asyncio.timeout(self.policy.timeout):  # a deadline, not a task of its own
                return await replica.judge(request)
        return await asyncio.wait_for(replica.judge(request), timeout=self.policy.timeout)  # pragma: no cover

    async def _send(self, request: R, key: str, tally: Tally) -> JudgeOutput | RequestFailure:
        attempt = 0
        while True:
            await self._sem.acquire()
            try:
                out = await self._attempt(request, tally)
            except TransientJudgeError as err:
                self._sem.release()
                last = err
            except PermanentJudgeError as e:  # this request cannot succeed: no retry
                self._sem.release()
                self._failed_in_a_row = (
                    0  # the endpoint answered: it is up, whatever it thought of the request
                )
                return self._failure(RequestFailure(e.reason, e.message), tally)
            except BaseException:
                self._sem.release()
                raise
            else:
                self._failed_in_a_row = 0
                if self.cache is None:
                    self._sem.release()
                else:  # the slot is freed once the output is committed (end of this loop iteration)
                    self.cache.store(key, self.identity, self.model, out, on_commit=self._sem.release)
                return out
            attempt += 1
            if attempt > self.policy.max_retries:
                return self._given_up(RequestFailure(last.reason, last.message), tally)
            self._total.retries += 1
            tally.retries += 1
            self._announce_retry(last)
            await self._sleep(self._backoff(attempt))

    def _announce_retry(self, err: TransientJudgeError) -> None:
        if not self._retry_announced:
            self._retry_announced = True
            log.warning("retrying failed requests, up to %d times each (first: %s: %s)",
                        self.policy.max_retries, err.reason, " ".join(err.message.split())[:200])  # fmt: skip

    async def _attempt(self, request: R, tally: Tally) -> JudgeOutput:
        """One attempt on the chosen replica; a timeout is a transient error, a permanent one a failure output."""
        replica = await self._acquire(request)
        replica.sent += 1
        self._total.sent += 1
        tally.sent += 1
        try:
            if tally.on_send is not None:  # recorded before the request leaves: a kill cannot lose it
                tally.on_send(tally)
            out = await self._call(replica, request)
        except (asyncio.TimeoutError, TimeoutError):
            err = TransientJudgeError("timeout", f"no answer within {self.policy.timeout:g} s")
        except TransientJudgeError as e:
            err = e
        except BaseException:
            self._release_ok(
                replica
            )  # permanent (the request's fault), fatal or cancelled: not the replica's
            raise
        else:
            self._release_ok(replica)
            tally.add_usage(out)
            return out
        self._release_failed(replica, err.retry_after, err.reason)
        raise err

    def _failure(self, failure: RequestFailure, tally: Tally) -> RequestFailure:
        self._total.failed += 1
        tally.failed += 1
        return failure

    def _given_up(self, failure: RequestFailure, tally: Tally) -> RequestFailure:
        """A request whose transient errors outlasted its retries: a long run of them means the endpoint is down."""
        self._failure(failure, tally)
        self._failed_in_a_row += 1
        if self._failed_in_a_row >= self.policy.abort_after_failed_requests:
            raise FatalJudgeError(
                "endpoint-down",
                f"{self._failed_in_a_row} requests in a row failed (last: {failure.reason}: {failure.message})",
            )
        return failure

    async def aclose(self) -> None:
        for r in self._replicas:
            await r.judge.aclose()
