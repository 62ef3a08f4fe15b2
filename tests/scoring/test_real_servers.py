"""A real OpenAI-compatible server (`transformers serve`) and the in-process local judge, with a tiny
random model built on the spot. The model's outputs are garbage: parsing and coverage must cope."""

from __future__ import annotations

import math
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dhp.inference.judge import EndpointJudge
from dhp.inference.local import LocalModel
from dhp.inference.protocol import SamplingParams, ScoreDistribution, token_score
from dhp.scoring.config import ScoreConfig
from dhp.scoring.judge_io import JudgeRequest
from dhp.scoring.result_files import read_result
from dhp.scoring.run import score_datasets
from tests.scoring.helpers import run_dhp
from tests.scoring.tiny_model import build_tiny_model
from tests.support.loopback import stop_process

pytestmark = pytest.mark.slow
TRANSFORMERS_CLI = Path(sys.executable).with_name("transformers")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_model(tmp_path_factory.mktemp("tinymodel") / "tiny-llama")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def serve_url(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`transformers serve <tiny model>` on 127.0.0.1, ready when /health answers."""
    cli = TRANSFORMERS_CLI if TRANSFORMERS_CLI.exists() else shutil.which("transformers")
    if cli is None:
        pytest.skip("the `transformers` command is not installed (the `local` extra with [serving])")
    port = _free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    with log.open("w") as fh:
        proc = subprocess.Popen(
            [
                str(cli),
                "serve",
                str(tiny_model),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--device",
                "cpu",
                "--default-seed",
                "0",
            ],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    try:
        while True:  # readiness by polling /health, never a fixed sleep
            if proc.poll() is not None:
                pytest.fail(f"transformers serve exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"transformers serve not ready after 180 s:\n{log.read_text()[-3000:]}")
            time.sleep(0.25)
        yield url
    finally:
        stop_process(proc, grace=20)


def _serve_args(url: str, model: Path, data: Path, out: Path, *extra: str) -> list[str]:
    return [
        "score",
        "--endpoint",
        url,
        "--model",
        str(model),
        "--judge-name",
        "tiny-serve",
        "--data",
        str(data),
        "--datasets",
        "answer-equivalence",
        "--limit",
        "3",
        "--max-tokens",
        "4",
        "--n-boot",
        "0",
        "--out",
        str(out),
        *extra,
    ]


def test_transformers_serve_garbage_is_counted_not_scored(
    serve_url: str, tiny_model: Path, tiny_root: Path, tmp_path: Path
) -> None:
    # `transformers serve` ignores `logprobs` silently: auto mode must notice and sample instead
    proc = run_dhp(
        *_serve_args(serve_url, tiny_model, tiny_root, tmp_path, "--samples", "2"),
        env={"HF_HUB_OFFLINE": "0"},
        timeout=300,
    )
    assert "no log-probabilities" in proc.stderr
    r = read_result(Path(proc.stdout.strip()))  # written even when the garbage got no D at all
    no_d = all(pr.d is None for pr in r.perturbations)
    assert proc.returncode == (1 if no_d else 0), proc.stderr  # a run without any D fails, and says so
    assert ("no perturbation got a D" in proc.stderr) == no_d
    assert r.scoring.mode == "sample" and r.judge.model == str(tiny_model)
    cov = r.coverage
    assert cov.expected_scores == 3 * 10 and cov.failed == 0
    assert cov.parsed_scores + cov.unparsed == cov.expected_scores
    assert cov.outputs == 2 * cov.expected_scores
    assert cov.unparsed_outputs == sum(cov.unparsed_reasons.values()) > 0  # garbage, with reasons
    assert (
        r.timing.requests_sent == cov.outputs + 8
    )  # + the first wave (--concurrency 8), which settled the mode
    for pr in r.perturbations:
        assert pr.metrics["answer_quality"].n_pairs <= 3
        assert pr.d is None or math.isfinite(pr.d)


def test_transformers_serve_expected_mode_is_refused(
    serve_url: str, tiny_model: Path, tiny_root: Path, tmp_path: Path
) -> None:
    proc = run_dhp(
        *_serve_args(serve_url, tiny_model, tiny_root, tmp_path, "--mode", "expected"),
        env={"HF_HUB_OFFLINE": "0"},
    )
    assert proc.returncode == 2
    assert "no token log-probabilities" in proc.stderr and "--mode sample" in proc.stderr
    assert not list(tmp_path.rglob("*.json"))


def test_transformers_serve_paper_mode(
    serve_url: str, tiny_model: Path, tiny_root: Path, tmp_path: Path
) -> None:
    cfg = ScoreConfig(
        judge=EndpointJudge(name="tiny-serve", endpoints=(serve_url,), model=str(tiny_model)),
        out=tmp_path,
        datasets="answer-equivalence",
        data=str(tiny_root),
        mode="paper",
        repeats=2,
        limit=2,
        max_tokens=3,
        n_boot=0,
    )
    (path,) = score_datasets(cfg)
    r = read_result(path)
    assert r.scoring.mode == "paper" and r.coverage.outputs == 2 * 10 * 2 and r.coverage.failed == 0
    assert r.judge.settings["temperature"] == 0.0


def test_model_discovery_follows_what_the_server_lists(
    serve_url: str, tiny_root: Path, tmp_path: Path
) -> None:
    """Discovery takes the one model ``/v1/models`` lists, and refuses with a hint to ``--model`` otherwise.

    `transformers serve` changed between releases: before 5.x it listed only Hub-cache models (none here),
    newer releases list the folder they serve. Either way the CLI must do what the discovery rule says.
    """
    listed = [m.get("id") for m in httpx.get(f"{serve_url}/v1/models", timeout=10).json().get("data", [])]
    proc = run_dhp(
        "score",
        "--endpoint",
        serve_url,
        "--judge-name",
        "x",
        "--data",
        str(tiny_root),
        "--datasets",
        "answer-equivalence",
        "--limit",
        "1",
        "--max-tokens",
        "4",
        "--n-boot",
        "0",
        "--out",
        str(tmp_path),
        env={"HF_HUB_OFFLINE": "0"},
        timeout=300,
    )
    if len(listed) == 1:
        assert "--model" not in proc.stderr, proc.stderr  # discovered, not refused
        (result,) = tmp_path.rglob(
            "*.json"
        )  # scored with the listed model (whether its garbage got a D or not)
        assert read_result(result).judge.model == listed[0]
    else:
        assert proc.returncode == 2 and "--model" in proc.stderr
        assert not list(tmp_path.rglob("*.json"))


# -- the local backend, in process -------------------------------------------------------------
async def test_local_judge_gives_exact_score_probabilities(tiny_model: Path) -> None:
    import torch

    judge = LocalModel(str(tiny_model))
    await judge.load()
    req = JudgeRequest(
        "answer-equivalence",
        "q0",
        "answer_quality",
        "original",
        "An answer.",
        {},
        "Rate this answer. Score:",
        SamplingParams(0.0, 1, logprobs=True),
        scale=(1, 5),
    )
    out = await judge(req)
    assert isinstance(out, ScoreDistribution)
    assert [s for s, _ in out.probs] == [1.0, 2.0, 3.0, 4.0, 5.0]
    # recompute by hand: softmax of the last position, summed over the tokens of each score
    from transformers import AutoModelForCausalLM, AutoTokenizer, BatchEncoding

    tok = AutoTokenizer.from_pretrained(tiny_model)
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    enc = tok.apply_chat_template(
        [{"role": "user", "content": req.prompt}],
        add_generation_prompt=True,
        return_dict=True,
        return_tensors="pt",
    )
    assert isinstance(enc, BatchEncoding)
    with torch.no_grad():
        p = torch.softmax(model(**enc).logits[0, -1].float(), -1)
    texts = [t for t in (tok.decode([i]) for i in range(len(tok))) if isinstance(t, str)]
    assert len(texts) == len(tok)  # one text per token id
    for score, prob in out.probs:
        ids = [i for i, t in enumerate(texts) if token_score(t) == score]
        assert len(ids) == 2  # "4" and " 4": both count
        assert prob == pytest.approx(float(p[ids].sum()), rel=1e-5)
    await judge.aclose()


def test_local_judge_end_to_end(tiny_model: Path, tiny_root: Path, tmp_path: Path) -> None:
    proc = run_dhp(
        "score",
        "--local",
        str(tiny_model),
        "--judge-name",
        "tiny-local",
        "--data",
        str(tiny_root),
        "--datasets",
        "answer-equivalence",
        "--limit",
        "4",
        "--n-boot",
        "0",
        "--out",
        str(tmp_path),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    r = read_result(Path(proc.stdout.strip()))
    assert r.judge.kind == "local" and r.judge.protocol == "local" and r.scoring.mode == "expected"
    assert r.coverage.coverage == 1.0  # exact probabilities: every text gets a score
    assert r.scores is not None
    vals = [v for v in r.scores.original["answer_quality"] if v is not None]
    assert len(vals) == 4 and all(1.0 < v < 5.0 for v in vals) and len(set(vals)) == 4
