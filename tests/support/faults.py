"""The fault matrix: one scoring run per fault against the loopback fake judge server.

Each case injects one kind of fault (HTTP 429 with Retry-After, 503 bursts, connection resets,
timeouts, truncated JSON, empty completions, garbage text, missing log-probabilities, an endpoint
that is down) into a small answer-equivalence run and records how the run ended: completed, with
its accounting (requests sent, retries, failed and unparsed scores, coverage), or failed, with
the error message that names the cause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dhp.inference.judge import EndpointJudge
from dhp.inference.pool import RetryPolicy
from dhp.inference.protocol import JudgeError
from dhp.scoring.config import RunError, ScoreConfig
from dhp.scoring.result_files import read_result
from dhp.scoring.run import score_datasets
from dhp.spec import get_dataset
from tests.scoring.fake_server import Answer, FakeJudgeServer, hashed_answer, judged_text
from tests.support.tiny_data import write_tiny_dataset

DATASET = "answer-equivalence"
ITEMS = 4
TEXTS = ITEMS * (1 + len(get_dataset(DATASET).perturbation_ids))  # scores expected (one metric)
# timeout: long enough that an answer is never late on a loaded machine (parallel workers: 0.5 s was, and the
# run counted extra retries), short enough for the two requests that never answer
POLICY = RetryPolicy(backoff_base=0.01, backoff_cap=0.05, timeout=2.0, max_retries=6)


def first_item(prompt: str) -> bool:
    """Whether the prompt judges one of the first item's texts (its original or a perturbed version)."""
    return judged_text(prompt) in _FIRST_ITEM


_FIRST_ITEM: set[str] = set()


@dataclass(frozen=True)
class Case:
    name: str
    injected: str
    server: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    script: Callable[[str], Answer] = hashed_answer


@dataclass
class Outcome:
    case: str
    injected: str
    status: str  # "completed" or "failed"
    requests_seen: int = 0
    sent: int = 0
    retries: int = 0
    failed: int = 0
    unparsed: int = 0
    coverage: float = 0.0
    reasons: str = ""
    error: str = ""


def _empty_for_first(prompt: str) -> Answer:
    return Answer((), {}) if first_item(prompt) else hashed_answer(prompt)


def _garbage_for_first(prompt: str) -> Answer:
    return (
        Answer(
            (
                "lorem",
                " ipsum",
                " ###",
            )
        )
        if first_item(prompt)
        else Answer(("Score", ":", " 4"))
    )


CASES: tuple[Case, ...] = (
    Case("429 + Retry-After", "3 x 429, Retry-After: 1", {"faults": ["429"] * 3, "retry_after": "1"}),
    Case("503 burst", "5 x 503 in a row", {"faults": ["503"] * 5}),
    Case("connection reset", "3 connections closed mid-request", {"faults": ["reset"] * 3}),
    Case("timeout", "2 requests never answered (timeout 2 s)", {"faults": ["hang"] * 2}),
    Case("truncated JSON", "3 bodies cut short", {"faults": ["truncated"] * 3}),
    Case("empty completion", f"item 1 of {ITEMS}: empty text, no tokens", {}, {}, _empty_for_first),
    Case(
        "garbage text",
        f"item 1 of {ITEMS}: 'lorem ipsum ###' (paper mode)",
        {},
        {"mode": "paper", "repeats": 2},
        _garbage_for_first,
    ),
    Case(
        "logprobs missing, --mode expected",
        "logprobs ignored by the server",
        {"logprobs": False},
        {"mode": "expected"},
    ),
    Case(
        "logprobs missing, --mode auto",
        "logprobs ignored by the server",
        {"logprobs": False},
        {"mode": "auto", "samples": 2},
    ),
    Case(
        "endpoint down",
        "every request 503 (2 retries)",
        {"always": "503"},
        {"policy": replace(POLICY, max_retries=2)},
    ),
    Case(
        "endpoint dies mid-run",
        "500 after 15 answers (0 retries)",
        {"fail_after": 15},
        {"policy": replace(POLICY, max_retries=0, abort_after_failed_requests=8), "concurrency": 1},
    ),
)


def write_data(root: Path) -> Path:
    folder = write_tiny_dataset(root, get_dataset(DATASET), n_items=ITEMS)
    from dhp.scoring.data import load_local

    loaded = load_local(get_dataset(DATASET), folder)
    first = loaded.items[0]
    _FIRST_ITEM.clear()
    _FIRST_ITEM.update(
        [first.original, *(per[first.id] for per in loaded.perturbed.values() if first.id in per)]
    )
    return root


def run_case(case: Case, data: Path, out: Path) -> Outcome:
    with FakeJudgeServer(case.script, **case.server) as srv:
        cfg = ScoreConfig(
            judge=EndpointJudge(name=f"faults {case.name}".replace("+", "").replace(",", ""),
                                endpoints=(srv.url,)),
            out=out, datasets=DATASET, data=str(data), n_boot=0, concurrency=4, policy=POLICY, progress=False,
            max_failure_rate=0.0,
        )  # fmt: skip
        cfg = replace(cfg, **case.config)
        try:
            paths = score_datasets(cfg)
        except (RunError, JudgeError) as e:
            return Outcome(
                case.name,
                case.injected,
                "failed",
                requests_seen=srv.requests,
                error=f"{type(e).__name__}: {e}",
            )
    r = read_result(paths[0])
    cov = r.coverage
    reasons = ", ".join(f"{k}: {v}" for k, v in {**cov.unparsed_reasons, **cov.failure_reasons}.items())
    return Outcome(
        case.name, case.injected, "completed", requests_seen=srv.requests, sent=r.timing.requests_sent,
        retries=r.timing.retries, failed=cov.failed, unparsed=cov.unparsed, coverage=cov.coverage,
        reasons=f"mode {r.scoring.mode}" + (f"; {reasons}" if reasons else ""),
    )  # fmt: skip


def table(outcomes: list[Outcome]) -> str:
    head = (
        "| fault | injected | outcome | server saw | sent | retries | failed | unparsed | coverage | detail |"
    )
    lines = [head, "|" + "---|" * 10]
    for o in outcomes:
        detail = o.error if o.status == "failed" else o.reasons
        lines.append(
            f"| {o.case} | {o.injected} | {o.status} | {o.requests_seen} | {o.sent} | {o.retries} | {o.failed} | "
            f"{o.unparsed} | {o.coverage:.3f} | {detail[:160]} |"
        )
    return "\n".join(lines)
