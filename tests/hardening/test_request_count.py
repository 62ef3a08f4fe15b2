"""A run sends each unique prompt once per repeat: identical prompts in flight are coalesced."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dhp.inference.judge import BuiltinJudge, EndpointJudge
from dhp.inference.pool import Pool
from dhp.inference.protocol import FatalJudgeError, JudgeOutput, RawText, RequestFailure, SamplingParams
from dhp.scoring.config import ScoreConfig
from dhp.scoring.judge_io import JudgeRequest
from dhp.scoring.run import score_datasets
from dhp.spec import get_dataset
from dhp.types import ControlJudge
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.scoring.helpers import pair_row, write_pairs

AE = get_dataset("answer-equivalence")


def _req(prompt: str, repeat: int = 0) -> JudgeRequest:
    return JudgeRequest("d", "i", "m", "original", "t", {}, prompt, SamplingParams(0.0, 8), repeat)


class Gated:
    """Answers once released; counts calls."""

    label = "gated"

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.release = asyncio.Event()
        self.fail = fail

    async def __call__(self, request: JudgeRequest) -> JudgeOutput:
        self.calls.append(request.prompt)
        await self.release.wait()
        if self.fail:
            raise FatalJudgeError("http-401", "refused")
        return RawText(f"answer to {request.prompt}")

    async def aclose(self) -> None:
        return None


async def test_identical_requests_in_flight_are_sent_once() -> None:
    judge = Gated()
    pool = Pool([judge], identity="j", concurrency=8)
    tasks = [asyncio.ensure_future(pool.submit(_req(p))) for p in ("a", "a", "b", "a")]
    tasks.append(asyncio.ensure_future(pool.submit(_req("a", repeat=1))))  # another repeat: its own request
    while len(judge.calls) < 3:
        await asyncio.sleep(0)
    judge.release.set()
    outs = await asyncio.gather(*tasks)
    assert sorted(judge.calls) == ["a", "a", "b"]
    assert [o.text for o in outs if isinstance(o, RawText)] == ["answer to a"] * 2 + ["answer to b"] + [
        "answer to a"
    ] * 2
    assert pool.stats.sent == 3 and pool.stats.cached == 2


async def test_a_fatal_error_reaches_every_waiter_and_coalescing_can_be_off() -> None:
    judge = Gated(fail=True)
    pool = Pool([judge], identity="j", concurrency=8)
    tasks = [asyncio.ensure_future(pool.submit(_req("a"))) for _ in range(3)]
    while not judge.calls:
        await asyncio.sleep(0)
    judge.release.set()
    outs = await asyncio.gather(*tasks, return_exceptions=True)
    assert len(judge.calls) == 1 and all(isinstance(o, FatalJudgeError) for o in outs)

    plain = Gated()
    plain.release.set()
    pool2 = Pool([plain], identity="j", concurrency=8, coalesce=False)
    outs2: list[JudgeOutput | RequestFailure] = await asyncio.gather(
        *(pool2.submit(_req("a")) for _ in range(3))
    )
    assert len(plain.calls) == 3 and len(outs2) == 3


def test_duplicate_texts_cost_one_request_each(tmp_path: Path) -> None:
    """Two perturbations that produced the same text for an item: one request for both (none extra)."""
    pids = AE.perturbation_ids
    rows = []
    for i in range(6):
        original = f"Answer {i} explains the topic in full detail."
        for j, pid in enumerate(pids):
            same = j in (0, 1)  # the first two perturbations give the same text
            text = original[:-1] + (" [dup]." if same else f" [{pid}].")
            rows.append(pair_row("answer-equivalence", f"q{i}", pid, original, text, question=f"Q{i}?"))
    write_pairs(tmp_path / "data", "answer-equivalence", rows)
    with FakeJudgeServer(hashed_answer) as srv:
        cfg = ScoreConfig(
            judge=EndpointJudge(name="dup", endpoints=(srv.url,)),
            out=tmp_path / "out", datasets="answer-equivalence", data=str(tmp_path / "data"), n_boot=0,
            concurrency=16, progress=False,
        )  # fmt: skip
        paths = score_datasets(cfg)
    prompts = [e.body["messages"][0]["content"] for e in srv.log]
    assert len(prompts) == len(set(prompts)) == 6 * (1 + len(pids) - 1)
    from dhp.scoring.result_files import read_result

    r = read_result(paths[0])
    assert r.coverage.coverage == 1.0 and r.coverage.outputs == 6 * (1 + len(pids))
    assert r.scores is not None
    assert r.scores.perturbed[pids[0]] == r.scores.perturbed[pids[1]]  # both got the one answer


@pytest.mark.parametrize("judge", ["random", "oracle"])
def test_builtin_judges_are_not_coalesced(judge: str, tmp_path: Path) -> None:
    rows = [
        pair_row(
            "answer-equivalence", f"q{i}", pid, f"Answer {i} in full.", f"Answer {i} [{pid}].", question="Q?"
        )
        for i in range(12)
        for pid in AE.perturbation_ids
    ]
    write_pairs(tmp_path / "data", "answer-equivalence", rows)
    cfg = ScoreConfig(
        judge=BuiltinJudge(name=judge, control=ControlJudge(judge)), out=tmp_path / "out",
        datasets="answer-equivalence", data=str(tmp_path / "data"), n_boot=0, progress=False,
    )  # fmt: skip
    from dhp.scoring.result_files import read_result

    r = read_result(score_datasets(cfg)[0])
    # every text got its own output (none shared, none from a cache), and a built-in judge sends no request
    assert r.timing.requests_cached == 0 and r.coverage.outputs == 12 * (1 + len(AE.perturbation_ids))
    assert r.timing.requests_sent == 0
    assert (r.scores is not None and len(set(r.scores.original["answer_quality"])) > 1) or judge == "oracle"
