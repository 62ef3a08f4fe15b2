"""The LLM perturber sends through the shared inference layer: pool retries, Retry-After, hardened cache."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from dhp.builder.perturb.base import Perturbed
from dhp.builder.perturb.llm import LLMJob, LLMPerturber, LLMSettings
from dhp.builder.perturb.registry import build_prompt
from dhp.errors import PerturberError
from dhp.spec import BENCHMARK
from dhp.types import Operation
from tests.scoring.fake_server import Answer, FakeJudgeServer

_TEXT = re.compile(r"\n\nStory Ending:\n\n(.*)\n\nRevised ", re.DOTALL)


def edit(prompt: str) -> Answer:
    """A valid perturbation of the story ending inside the prompt: its last word replaced."""
    m = _TEXT.search(prompt)
    assert m, prompt
    words = m.group(1).split()
    words[-1] = "Zorvania."
    return Answer((" ".join(words),))


def job(text: str) -> LLMJob:
    spec = BENCHMARK["story-cloze"]
    p = next(p for p in spec.perturbations if p.operation is Operation.FICTIONAL_ENTITIES)
    prompt = build_prompt(spec, p, text)
    return LLMJob(prompt.text, prompt.label, text, Operation.FICTIONAL_ENTITIES, seed=3)


def test_retry_after_is_honoured_through_the_shared_pool(tmp_path: Path) -> None:
    with FakeJudgeServer(edit, faults=["429", "503"], retry_after="1") as srv:
        perturber = LLMPerturber(LLMSettings(url=srv.url), tmp_path / "c.sqlite")
        [res] = perturber.run([job("Tom went home.")])
        perturber.close()
    assert (
        isinstance(res, Perturbed) and res.text == "Tom went Zorvania." and res.generator == "llm:fake-judge"
    )
    assert [e.fault for e in srv.log] == ["429", "503", None]
    assert srv.log[1].at - srv.log[0].at >= 1.0  # the server's Retry-After: 1
    assert perturber.calls == 3  # two retried failures, one answer
    body = srv.log[-1].body
    assert body["model"] == "fake-judge" and body["seed"] == 3 and body["top_p"] == 0.95


def test_a_damaged_cache_entry_is_asked_again_and_replaced(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    jobs = [job("Tom went home."), job("Ann saw a cat.")]
    with FakeJudgeServer(edit) as srv:
        first = LLMPerturber(LLMSettings(url=srv.url), cache)
        out = first.run(jobs)
        first.close()
        db = sqlite3.connect(cache)
        db.execute("UPDATE responses SET output = ? WHERE rowid = 1", ('{"kind": "text", "te',))
        db.commit()
        db.close()
        second = LLMPerturber(LLMSettings(url=srv.url), cache)
        assert second.run(jobs) == out and second.calls == 1  # only the damaged answer is asked again
        second.close()
        third = LLMPerturber(LLMSettings(url=srv.url), cache)
        assert third.run(jobs) == out and third.calls == 0  # and it was replaced
        third.close()
    assert len(srv.log) == 2 + 1  # generation requests the server saw over the three runs


def test_a_foreign_cache_file_is_named_and_left_alone(tmp_path: Path) -> None:
    cache = tmp_path / "perturber.sqlite"
    cache.write_bytes(b"not a database at all, just some bytes " * 100)
    before = cache.read_bytes()
    with pytest.raises(PerturberError, match=r"perturber\.sqlite is not a usable SQLite database"):
        LLMPerturber(LLMSettings(url="http://127.0.0.1:9"), cache)
    assert cache.read_bytes() == before


def test_a_failing_endpoint_is_one_clear_error_after_the_pool_retries(tmp_path: Path) -> None:
    with FakeJudgeServer(edit, always="500") as srv:
        perturber = LLMPerturber(
            LLMSettings(url=srv.url, http_retries=1, model="fake-judge"), tmp_path / "c.sqlite"
        )
        with pytest.raises(PerturberError, match=r"http-500"):
            perturber.run([job("Tom went home.")])
        perturber.close()
    assert perturber.calls == 2 and len(srv.log) == 2


def _prompt_of(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return str(messages[-1]["content"])


def test_an_endpoint_that_always_answers_invalid_text_gets_three_outputs_per_row(tmp_path: Path) -> None:
    """The one output budget: 3 outputs per row (README), each with the next seed, then left out."""
    invalid = Answer(("Sure! Here is the revised story ending with a fictional name.",))
    rows = [job("Tom went home."), job("Ann saw a cat.")]
    with FakeJudgeServer(lambda prompt: invalid) as srv:
        perturber = LLMPerturber(LLMSettings(url=srv.url, model="fake-judge"), tmp_path / "c.sqlite")
        out = perturber.run(rows)
        perturber.close()
    assert [type(o).__name__ for o in out] == ["NotApplicable", "NotApplicable"]
    assert all("after 3 output(s): the output starts with a preamble" in str(o) for o in out)
    per_row = Counter(_prompt_of(e.body) for e in srv.log)
    assert sorted(per_row.values()) == [3, 3] and perturber.calls == 6
    seeds = sorted(e.body["seed"] for e in srv.log if _prompt_of(e.body) == rows[0].prompt)
    assert seeds == [3, 4, 5]


def test_transport_retries_do_not_spend_the_output_budget(tmp_path: Path) -> None:
    """Two 503s are the same request sent again (same seed), then the row still gets its 3 outputs."""
    invalid = Answer(("Sure! Here is the revised story ending with a fictional name.",))
    with FakeJudgeServer(lambda prompt: invalid, faults=["503", "503"], retry_after="0") as srv:
        perturber = LLMPerturber(LLMSettings(url=srv.url, model="fake-judge"), tmp_path / "c.sqlite")
        [res] = perturber.run([job("Tom went home.")])
        perturber.close()
    assert "after 3 output(s)" in str(res)
    assert [(e.fault, e.body["seed"]) for e in srv.log] == [
        ("503", 3),
        ("503", 3),
        (None, 3),
        (None, 4),
        (None, 5),
    ]


def test_a_valid_second_output_ends_the_row(tmp_path: Path) -> None:
    def second_is_valid(prompt: str) -> Answer:
        seen[0] += 1
        return edit(prompt) if seen[0] == 2 else Answer(("Sure! Here you go.",))

    seen = [0]
    with FakeJudgeServer(second_is_valid) as srv:
        perturber = LLMPerturber(LLMSettings(url=srv.url, model="fake-judge"), tmp_path / "c.sqlite")
        [res] = perturber.run([job("Tom went home.")])
        perturber.close()
    assert isinstance(res, Perturbed) and res.settings["attempts"] == 2 and len(srv.log) == 2


def test_an_output_budget_below_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PerturberError, match="at least one output per row, got 0"):
        LLMPerturber(LLMSettings(url="http://127.0.0.1:9", max_outputs=0), tmp_path / "c.sqlite")
