"""What a result cost over every invocation that worked on it (issues 27 and 35).

A run killed and started again (its cache answers what was already asked) writes its result in
the last invocation, whose own counts say nothing of the requests sent before each kill. So every
invocation keeps a ledger beside the result: a hidden JSON-lines file
``<out>/<judge>/.<result file name>.cost.jsonl`` (hidden and not ``.json``: no reader of results
lists it), one line per snapshot of one invocation's counts (its id, requests sent, cached,
retries, failed, tokens, wall seconds).

An invocation's first line is written when it starts on the result, before its first request
(:meth:`CostLedger.of`); then one line each time a request is sent, written before the request
leaves (the dataset's :class:`~dhp.inference.pool.Tally` calls the ledger where it counts
``sent``: every HTTP attempt, a retry and a request to any replica included; a cached or
coalesced answer sends nothing); and a last one when the result is written. Each line is one
``write()`` to a file descriptor opened for appending, with no buffer in Python: once it returns
the line is in the kernel and outlives a SIGKILL of the process (not a power cut: no fsync). So
whatever moment a kill lands, the ledger holds every request the server may have received: never
fewer than the server's count, more only by the requests counted as the kill landed that had not
reached the wire yet (at most one per concurrency slot). Tokens come with answers: a line carries
those of the answers in by then, so a kill loses only the tokens (and wall time) after the
invocation's last send. A line costs 3-6 µs per request sent, beside the pool's own 20 µs
without HTTP (``benchmarks/bench_cost_ledger.py``) and a request's milliseconds. Built-in judges send nothing: their invocations write only the first and
last lines.

The last line of each invocation is its cost; a line torn by a kill is not JSON and is passed over
(the one before it stands). The result's ``timing.all_invocations`` is the sum over the ledger's
invocations and their count; once it is taken, the ledger is rewritten (atomically) with one line
per invocation, so that it does not keep a line per request.
"""

from __future__ import annotations

import json
import os
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dhp.inference.pool import Tally
from dhp.scoring.results import InvocationsCost

__all__ = ["CostLedger", "ledger_path", "read_total"]


def ledger_path(result: Path) -> Path:
    """The ledger of the result file at ``result``."""
    return result.with_name(f".{result.name}.cost.jsonl")


@dataclass
class CostLedger:
    """One invocation's snapshots in the ledger of one result (see the module's docstring)."""

    path: Path
    t0: float
    sends: bool = True  # False for built-in judges: they send nothing
    invocation: str = field(default_factory=lambda: f"{os.getpid()}-{time.time_ns()}")
    _fd: int = field(default=-1, repr=False)
    _close: Callable[[], object] | None = field(default=None, repr=False)
    _quoted: str = field(default="", repr=False)  # the invocation as a JSON string

    def __post_init__(self) -> None:
        self._quoted = json.dumps(self.invocation)

    @classmethod
    def of(cls, tally: Tally, path: Path, t0: float, *, sends: bool = True) -> CostLedger:
        """The ledger of the requests counted in ``tally``: on the first call, a new one, bound to the
        tally (it records each request the tally counts as sent) with its first line written; on the
        next, the same one."""
        bound = tally.on_send
        if isinstance(bound, CostLedger):
            if bound.path != path:
                raise ValueError(f"this tally's requests are recorded in {bound.path}, not {path}")
            return bound
        ledger = cls(path, t0, sends)
        ledger.record(tally)  # the invocation is in the ledger before its first request
        tally.on_send = ledger
        return ledger

    def __call__(self, tally: Tally) -> None:
        """A request of ``tally`` is about to leave: record it (the tally's ``on_send``)."""
        if self.sends:
            self.record(tally)

    def record(self, tally: Tally) -> None:
        """Append a snapshot of ``tally``: one unbuffered ``write()`` of one line."""
        if self._fd < 0:
            self._open()
        os.write(self._fd, self.line(tally).encode())

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        self._fd, self._close = fd, weakref.finalize(self, os.close, fd)  # closed too if the run fails
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a line torn by a kill: ours starts afresh
            os.write(fd, b"\n")

    def line(self, tally: Tally) -> str:
        """``tally``'s snapshot as a ledger line: what :func:`json.dumps` writes (keys sorted, compact),
        formatted by hand, as it is written once per request."""
        sent = tally.sent if self.sends else 0
        prompt, completion = _json_int(tally.prompt_tokens), _json_int(tally.completion_tokens)
        return (
            f'{{"cached":{tally.cached},"completion_tokens":{completion},"failed":{tally.failed},'
            f'"invocation":{self._quoted},"prompt_tokens":{prompt},"retries":{tally.retries},'
            f'"sent":{sent},"wall_seconds":{round(time.monotonic() - self.t0, 3)!r}}}\n'
        )

    def total(self, tally: Tally) -> InvocationsCost:
        """This invocation's final snapshot recorded, then the sum over every invocation's last
        (the ledger compacted to those lines)."""
        self.record(tally)
        if self._close is not None:
            self._close()
        self._fd, self._close = -1, None
        last = _last_lines(self.path)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("".join(json.dumps(x, sort_keys=True) + "\n" for x in last.values()), encoding="utf-8")
        os.replace(tmp, self.path)  # a kill leaves the whole ledger, old or compacted
        return _sum(last)


def _json_int(n: int | None) -> str:
    return "null" if n is None else str(n)


def _add(a: int | None, b: object) -> int | None:
    return a if not isinstance(b, int) else (a or 0) + b


def _last_lines(path: Path) -> dict[str, dict[str, object]]:
    """Each invocation's last snapshot in the ledger at ``path``, in the order they first appear."""
    last: dict[str, dict[str, object]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:  # torn by a kill mid-write: the invocation's previous snapshot stands
            continue
        if isinstance(line, dict) and isinstance(line.get("invocation"), str):
            last[line["invocation"]] = line
    return last


def _sum(last: dict[str, dict[str, object]]) -> InvocationsCost:
    sent, wall = 0, 0.0
    prompt: int | None = None
    completion: int | None = None
    for line in last.values():
        sent += int(line.get("sent", 0))  # type: ignore[call-overload]
        wall += float(line.get("wall_seconds", 0.0))  # type: ignore[arg-type]
        prompt, completion = (
            _add(prompt, line.get("prompt_tokens")),
            _add(completion, line.get("completion_tokens")),
        )
    return InvocationsCost(
        invocations=len(last),
        requests_sent=sent,
        prompt_tokens=prompt,
        completion_tokens=completion,
        wall_seconds=round(wall, 3),
    )


def read_total(path: Path) -> InvocationsCost:
    """The sum of each invocation's last snapshot in the ledger at ``path``."""
    return _sum(_last_lines(path))
