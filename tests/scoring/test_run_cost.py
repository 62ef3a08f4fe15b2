"""Run cost (issue 20): the tokens an endpoint reports are summed into the result's timing, None
where it reports none; against the protocol-faithful fake server on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dhp.inference.http import openai_usage, tgi_usage
from dhp.inference.types import TokenUsage
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
