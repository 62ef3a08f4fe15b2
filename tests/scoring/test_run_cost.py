"""Run cost (issue 20): the tokens an endpoint reports are summed into the result's timing, None
where it reports none; against the protocol-faithful fake server on loopback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dhp.inference.http import openai_usage, tgi_usage
from dhp.inference.pool import Pool, RetryPolicy, Tally
from dhp.inference.protocol import JudgeOutput, RawText, SamplingParams, TokenUsage, TransientJudgeError
from dhp.scoring.cost import CostLedger, read_total
from dhp.scoring.judge_io import JudgeRequest
from dhp.scoring.result_files import parse_result
from dhp.scoring.results import Timing
from dhp.scoring.run import score_datasets
from tests.scoring.fake_server import FakeJudgeServer, judged_text
from tests.scoring.test_endpoints import _cfg, _only, ae_data, scripted

__all__ = ["ae_data"]  # the module-scoped data fixture, shared with test_endpoints


def test_openai_usage_is_summed_over_the_requests_sent(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data)))
        prompts = [e.body["messages"][-1]["content"] for e in srv.log]
    assert r.timing.requests_sent == len(prompts) > 0
    # the fake server reports a prompt's words as its prompt tokens and one completion token
    assert r.timing.prompt_tokens == sum(len(p.split()) for p in prompts)
    assert r.timing.completion_tokens == len(prompts)
    assert all("answer" in judged_text(p) for p in prompts)


def test_tgi_reports_generated_tokens_only(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, protocol="tgi")))
        n = len(srv.log)
    assert r.timing.completion_tokens == n  # details.generated_tokens, one per answer
    assert r.timing.prompt_tokens is None  # TGI reports no prompt tokens without decoder_input_details


def test_usage_parsing_never_guesses() -> None:
    assert openai_usage({"usage": {"prompt_tokens": 12, "completion_tokens": 3}}) == TokenUsage(12, 3)
    assert openai_usage({"usage": {"prompt_tokens": 12}}) == TokenUsage(12, None)
    assert openai_usage({"choices": []}) is None
    assert openai_usage({"usage": {"prompt_tokens": "12", "completion_tokens": True}}) is None
    assert tgi_usage({"generated_tokens": 4, "prefill": []}) == TokenUsage(None, 4)
    assert tgi_usage({"generated_tokens": 4, "prefill": [{"id": 1}, {"id": 2}]}) == TokenUsage(2, 4)
    assert tgi_usage(None) is None


def test_results_without_token_counts_still_read() -> None:
    assert Timing.model_validate({"wall_seconds": 1.0}).prompt_tokens is None
    from tests.leaderboard.factory import make_result

    doc = json.loads(make_result("old", "summeval", n_items=5).model_dump_json())
    del doc["timing"]["prompt_tokens"], doc["timing"]["completion_tokens"]  # a 1.2 file written before
    r = parse_result(json.dumps(doc))
    assert r.timing.prompt_tokens is None and r.timing.completion_tokens is None


@pytest.mark.parametrize("protocol", ["openai"])
def test_cached_answers_cost_no_tokens(protocol: str, ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        first = _only(score_datasets(_cfg(srv.url, tmp_path / "a", ae_data, cache=tmp_path / "cache")))
        again = _only(score_datasets(_cfg(srv.url, tmp_path / "b", ae_data, cache=tmp_path / "cache")))
    assert first.timing.prompt_tokens and first.timing.requests_sent > 0
    assert again.timing.requests_sent == 0 and again.timing.prompt_tokens is None


def test_a_resumed_run_keeps_the_cost_of_every_invocation(ae_data: Path, tmp_path: Path) -> None:
    """The same run twice (the second answered from the cache, as a run resumed after a kill whose
    result was already written): the result keeps the first invocation's requests, in
    ``all_invocations``, beside the last invocation's own counts (it was rewritten with 0 sent)."""
    with FakeJudgeServer(scripted) as srv:
        first = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data)))
        again = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data)))
        sent = len(srv.log)
    assert first.timing.requests_sent == sent > 0
    assert first.timing.all_invocations is not None and first.timing.all_invocations.invocations == 1
    assert again.timing.requests_sent == 0 and again.timing.requests_cached == sent
    every = again.timing.all_invocations
    assert every is not None and (every.invocations, every.requests_sent) == (2, sent)
    assert every.prompt_tokens == first.timing.prompt_tokens
    from dhp.scoring.report import _requests

    assert _requests(again) == f"0 sent, {sent} cached (last of 2 invocations; {sent} sent in all)"


# --- issue 35: every request in the ledger before it leaves --------------------------------------
class _Server:
    """Replicas of one judge that, as each attempt arrives, read the ledger from disk as a later
    invocation would after a kill at that moment: it must already hold every attempt received."""

    def __init__(self, ledger: Path, errors: int) -> None:
        self.ledger, self.errors, self.received, self.short = ledger, errors, 0, 0

    def replica(self, label: str) -> Any:
        async def judge(request: JudgeRequest) -> JudgeOutput:
            self.received += 1
            if read_total(self.ledger).requests_sent != self.received:
                self.short += 1
            await asyncio.sleep(0)
            if self.errors:
                self.errors -= 1
                raise TransientJudgeError("http-503")
            return RawText("4", usage=TokenUsage(3, 1))

        judge.label = label  # type: ignore[attr-defined]
        judge.aclose = _aclose  # type: ignore[attr-defined]
        return judge


async def _aclose() -> None:
    return None


def _req(i: int) -> JudgeRequest:
    return JudgeRequest(
        "d", f"g{i}", "m", "original", f"text {i}", {}, f"prompt {i}", SamplingParams(0.0, 8), 0
    )


async def test_every_attempt_is_in_the_ledger_before_the_server_has_it(tmp_path: Path) -> None:
    path = tmp_path / ".r.json.cost.jsonl"
    srv = _Server(path, errors=5)  # retried attempts are requests the server received too
    pool = Pool([srv.replica("a"), srv.replica("b")], identity="j", concurrency=4,
                policy=RetryPolicy(backoff_base=0.0))  # fmt: skip
    tally = Tally()
    ledger = CostLedger.of(tally, path, 0.0)
    assert CostLedger.of(tally, path, 0.0) is ledger  # bound once (the probe's wave, then the dataset)
    with pytest.raises(ValueError):
        CostLedger.of(tally, tmp_path / "other", 0.0)
    first = read_total(path)
    assert (first.invocations, first.requests_sent) == (1, 0)  # in the ledger before its first request
    twice = [_req(i) for i in range(30)] + [_req(0)] * 3  # coalesced or cached: not sent
    outs = await asyncio.gather(*(pool.submit(r, tally) for r in twice))
    assert all(isinstance(o, RawText) for o in outs)
    assert srv.short == 0 and srv.received == tally.sent == pool.stats.sent == 35
    total = ledger.total(tally)
    assert (total.invocations, total.requests_sent, total.prompt_tokens) == (1, 35, 90)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1  # compacted: a line per invocation
    again = Tally()
    CostLedger.of(again, path, 0.0).total(again)  # a later invocation, all cached
    assert (read_total(path).invocations, read_total(path).requests_sent) == (2, 35)


async def test_a_builtin_judge_writes_no_line_per_request(tmp_path: Path) -> None:
    path = tmp_path / ".r.json.cost.jsonl"
    srv = _Server(path, errors=0)
    pool = Pool([srv.replica("a")], identity="j", concurrency=4)
    tally = Tally()
    ledger = CostLedger.of(tally, path, 0.0, sends=False)
    await asyncio.gather(*(pool.submit(_req(i), tally) for i in range(10)))
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1 and tally.sent == 10
    total = ledger.total(tally)
    assert (total.invocations, total.requests_sent) == (1, 0)


def test_a_ledger_line_is_the_json_of_the_snapshot(tmp_path: Path) -> None:
    tally = Tally()
    tally.sent, tally.cached, tally.retries, tally.failed, tally.completion_tokens = 7, 2, 1, 1, 40
    ledger = CostLedger(tmp_path / "l", 0.0, invocation='odd "id"\\')
    line = ledger.line(tally)
    doc = json.loads(line)
    assert line == json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n"  # what json.dumps writes
    assert doc == {"invocation": 'odd "id"\\', "sent": 7, "cached": 2, "retries": 1, "failed": 1,
                   "prompt_tokens": None, "completion_tokens": 40, "wall_seconds": doc["wall_seconds"]}  # fmt: skip
    assert isinstance(doc["wall_seconds"], float) and doc["wall_seconds"] > 0


def test_an_invocation_after_a_torn_line_keeps_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / ".r.json.cost.jsonl"
    torn = '{"invocation": "1", "sent": 4}\n{"invocation": "1", "sent": 9'  # killed mid-write
    path.write_text(torn, encoding="utf-8")
    CostLedger.of(Tally(), path, 0.0)  # its first line, and nothing else before a kill
    total = read_total(path)
    assert (total.invocations, total.requests_sent) == (2, 4)
