"""What a result cost over every invocation that worked on it (issue 27).

A run killed and started again (its cache answers what was already asked) writes its result in
the last invocation, whose own counts say nothing of the requests sent before each kill. So every
invocation keeps a ledger beside the result while it sends: a hidden JSON-lines file
``<out>/<judge>/.<result file name>.cost.jsonl`` (hidden and not ``.json``: no reader of results
lists it), one line per snapshot of one invocation's counts (its id, requests sent, cached,
retries, failed, tokens, wall seconds), appended every :data:`EVERY` finished requests and when
the result is written. The last line of each invocation is its cost; a line torn by a kill is not
JSON and is passed over (the snapshot before it stands). The result's ``timing.all_invocations``
is the sum over the ledger's invocations and their count.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from dhp.inference.pool import Tally
from dhp.scoring.results import InvocationsCost

__all__ = ["EVERY", "CostLedger", "ledger_path"]

#: Finished requests between two snapshots of an invocation's counts.
EVERY = 25


def ledger_path(result: Path) -> Path:
    """The ledger of the result file at ``result``."""
    return result.with_name(f".{result.name}.cost.jsonl")


@dataclass
class CostLedger:
    """One invocation's snapshots in the ledger of one result."""

    path: Path
    t0: float
    sends: bool = True  # False for built-in judges: they send nothing
    invocation: str = field(default_factory=lambda: f"{os.getpid()}-{time.time_ns()}")
    _done: int = 0

    def tick(self, tally: Tally) -> None:
        """One more request finished: a snapshot every :data:`EVERY`."""
        self._done += 1
        if self._done % EVERY == 0:
            self.record(tally)

    def record(self, tally: Tally) -> None:
        line = {
            "invocation": self.invocation,
            "sent": tally.sent if self.sends else 0,
            "cached": tally.cached,
            "retries": tally.retries,
            "failed": tally.failed,
            "prompt_tokens": tally.prompt_tokens,
            "completion_tokens": tally.completion_tokens,
            "wall_seconds": round(time.monotonic() - self.t0, 3),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line, sort_keys=True) + "\n")

    def total(self, tally: Tally) -> InvocationsCost:
        """This invocation's final snapshot recorded, then the sum over every invocation's last."""
        self.record(tally)
        return read_total(self.path)


def _add(a: int | None, b: object) -> int | None:
    return a if not isinstance(b, int) else (a or 0) + b


def read_total(path: Path) -> InvocationsCost:
    """The sum of each invocation's last snapshot in the ledger at ``path``."""
    last: dict[str, dict[str, object]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:  # torn by a kill mid-write: the invocation's previous snapshot stands
            continue
        if isinstance(line, dict) and isinstance(line.get("invocation"), str):
            last[line["invocation"]] = line
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
