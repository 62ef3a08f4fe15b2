"""Endpoint judges against the protocol-faithful fake server on loopback (OpenAI chat and TGI)."""

from __future__ import annotations

import math
import re
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from scipy import stats as sps

from dhp.inference.judge import EndpointJudge, HubJudge, published
from dhp.inference.pool import RetryPolicy
from dhp.inference.protocol import CapabilityError, FatalJudgeError
from dhp.scoring.config import ScoreConfig
from dhp.scoring.result_files import read_result
from dhp.scoring.results import Result
from dhp.scoring.run import score_datasets
from dhp.spec import get_dataset
from tests.scoring.fake_server import Answer, FakeJudgeServer, judged_text
from tests.scoring.helpers import pair_row, run_dhp, write_pairs

AE = get_dataset("answer-equivalence")
PIDS = AE.perturbation_ids  # 9 perturbations, one metric
N = 20
#: per perturbation: how many items the scripted judge scores lower (negative: higher)
K = dict(zip(PIDS, (0, -5, 2, 3, 4, 5, 6, 7, 8), strict=True))
FAST = RetryPolicy(backoff_base=0.01, backoff_cap=0.05, timeout=5.0)
_MARK = re.compile(r"answer (\d+) .*?(?:\[(\w+)\])?\.$")


@pytest.fixture(scope="module")
def ae_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AE pairs whose texts say which item and perturbation they are; no paragraph on even items."""
    root = tmp_path_factory.mktemp("ae")
    rows = []
    for i in range(N):
        original = f"Reference answer {i:02d} explains the topic in full detail."
        paragraph = None if i % 2 == 0 else f"Paragraph about topic {i}."
        for pid in PIDS:
            rows.append(
                {
                    **pair_row(
                        "answer-equivalence",
                        f"q{i:02d}",
                        pid,
                        original,
                        original[:-1] + f" [{pid}].",
                        question=f"What is topic {i}?",
                        paragraph=paragraph,
                    ),
                    "generator_settings": '{"extra": "ignored"}',
                }
            )
    write_pairs(root, "answer-equivalence", rows, split="validation")
    return root


def scripted(prompt: str) -> Answer:
    """Original: E = 0.7*4 + 0.3*5 = 4.3. Perturbation with K = k: the first |k| items get 4.0 (k > 0)
    or 4.6 (k < 0); the others score like the original."""
    m = _MARK.search(judged_text(prompt))
    assert m is not None, judged_text(prompt)
    item, pid = int(m.group(1)), m.group(2)
    if pid is None or item >= abs(K[pid]):
        return Answer(("4",), {"4": 0.7, "5": 0.3})
    if K[pid] > 0:
        return Answer(("4",), {"4": 1.0})
    return Answer(("5",), {"4": 0.4, "5": 0.6})


def _cfg(url: str | list[str], out: Path, data: Path, **kw: object) -> ScoreConfig:
    urls = (url,) if isinstance(url, str) else tuple(url)
    protocol: Any = kw.pop("protocol", "openai")
    judge = EndpointJudge(name=str(kw.pop("name", "Scripted Judge")), endpoints=urls, protocol=protocol)
    base = ScoreConfig(
        judge=judge, out=out, datasets="answer-equivalence", data=str(data), n_boot=0, policy=FAST
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def _only(paths: list[Path]) -> Result:
    assert len(paths) == 1
    return read_result(paths[0])


@pytest.mark.parametrize("protocol", ["openai", "tgi"])
def test_scripted_judge_gives_the_analytic_D(protocol: str, ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, protocol=protocol)))
    assert r.scoring.mode == "expected" and r.judge.protocol == protocol and r.judge.model == "fake-judge"
    assert r.coverage.coverage == 1.0 and r.coverage.outputs == N * 10
    assert r.dataset.n_items == N
    for pr in r.perturbations:
        k = K[pr.id]
        ms = pr.metrics["answer_quality"]
        if k == 0:  # identical scores: no evidence
            assert ms.p == 1.0 and ms.test_method == "no-evidence" and pr.d == 0.0
        else:  # |k| tied non-zero differences: z = ±sqrt(|k|) exactly
            z = math.copysign(math.sqrt(abs(k)), k)
            assert ms.p == pytest.approx(float(sps.norm.sf(z)), rel=1e-9)
            assert pr.d == pytest.approx(math.log(sps.norm.sf(z)) / math.log(0.05), rel=1e-9)
            assert ms.n_nonzero == abs(k) and ms.n_pairs == N
        assert pr.d == pr.d_ew  # one metric
    assert r.scores is not None and r.scores.original["answer_quality"][0] == pytest.approx(4.3)
    if protocol == "tgi":
        params = srv.log[-1].body["parameters"]
        assert params["details"] is True and params["top_n_tokens"] == 5 and params["do_sample"] is False
    else:
        body = srv.log[-1].body
        assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["temperature"] == 0.0


def test_prompts_show_the_text_alone_and_work_without_paragraph(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, concurrency=1)))
    prompts = [entry.body["messages"][0]["content"] for entry in srv.log]
    for p in prompts:
        text = judged_text(p)
        if "[" in text:  # a perturbed text never appears beside its original
            assert text.split(" [")[0] + "." not in p
        item = int(_MARK.search(text).group(1))  # type: ignore[union-attr]
        assert ("Paragraph:" in p) == (item % 2 == 1)
        assert "Question:" in p and "$" not in p
    assert r.scoring.prompts["answer_quality"].template_hash.startswith("sha256:")
    assert "${text}" in r.scoring.prompts["answer_quality"].template


def test_requests_grouped_by_item_and_metric_originals_once(tiny_root: Path, tmp_path: Path) -> None:
    spec = get_dataset("summeval")
    with FakeJudgeServer() as srv:
        cfg = _cfg(srv.url, tmp_path, tiny_root, concurrency=1, limit=3, datasets="summeval")
        r = _only(score_datasets(cfg))
    groups = 1 + len(spec.perturbations)  # the original and its 12 perturbed versions
    sent = srv.log  # the capability probe is the first request; the run reuses its answer
    assert (
        len(sent) == 3 * 4 * groups and r.timing.requests_sent == len(sent) and r.timing.requests_cached == 0
    )
    # each block of 13 consecutive requests is one (item, metric): the same prompt prefix
    for b in range(0, len(sent), groups):
        block = [e.body["messages"][0]["content"] for e in sent[b : b + groups]]
        prefixes = {p.rsplit("Summary:\n\n", 1)[0] for p in block}
        assert len(prefixes) == 1
    assert r.coverage.expected_scores == 3 * 4 * groups


def test_cli_reads_the_key_from_the_environment_and_never_writes_it(ae_data: Path, tmp_path: Path) -> None:
    secret = "sk-test-9f8e7d6c5b4a"
    with FakeJudgeServer(scripted) as srv:
        proc = run_dhp(
            "score",
            "--endpoint",
            srv.url,
            "--judge-name",
            "Scripted Judge (v1)",
            "--data",
            str(ae_data),
            "--datasets",
            "answer-equivalence",
            "--out",
            str(tmp_path),
            "--n-boot",
            "50",
            env={"DHP_JUDGE_API_KEY": secret, "HF_HUB_OFFLINE": "0"},
        )
    assert proc.returncode == 0, proc.stderr
    assert {e.headers.get("Authorization") for e in srv.log} == {f"Bearer {secret}"}
    out = Path(proc.stdout.strip())
    assert out.parent == tmp_path / "scripted-judge--v1-" and out.name.startswith("answer-equivalence@local-")
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    assert secret not in proc.stdout + proc.stderr
    r = read_result(out)
    assert (
        r.judge.endpoint_hosts == () and r.summary.ci
    )  # a host is recorded only when published (publish_host)


def test_no_key_means_no_authorization_header(ae_data: Path, tmp_path: Path) -> None:
    home = tmp_path / "hf"
    home.mkdir()
    (home / "token").write_text("hf_stored_token_must_not_leak")
    with FakeJudgeServer(scripted) as srv:
        proc = run_dhp(
            "score",
            "--endpoint",
            srv.url,
            "--judge-name",
            "j",
            "--data",
            str(ae_data),
            "--datasets",
            "answer-equivalence",
            "--out",
            str(tmp_path / "o"),
            "--limit",
            "2",
            "--n-boot",
            "0",
            env={"HF_HOME": str(home), "DHP_JUDGE_API_KEY": "", "HF_TOKEN": "", "HF_HUB_OFFLINE": "0"},
        )
    assert proc.returncode == 0, proc.stderr
    assert all("Authorization" not in e.headers for e in srv.log)


def test_hf_token_is_the_fallback_key(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as srv:
        proc = run_dhp(
            "score",
            "--endpoint",
            srv.url,
            "--judge-name",
            "j",
            "--data",
            str(ae_data),
            "--datasets",
            "answer-equivalence",
            "--out",
            str(tmp_path),
            "--limit",
            "2",
            "--n-boot",
            "0",
            env={"DHP_JUDGE_API_KEY": "", "HF_TOKEN": "hf_fallback", "HF_HUB_OFFLINE": "0"},
        )
    assert proc.returncode == 0, proc.stderr
    assert {e.headers.get("Authorization") for e in srv.log} == {"Bearer hf_fallback"}


def test_hub_offline_mode_scores_local_data_against_a_loopback_endpoint(
    ae_data: Path, tmp_path: Path
) -> None:
    """Air-gapped clusters set HF_HUB_OFFLINE=1: local --data and a local endpoint need no Hub."""
    with FakeJudgeServer(scripted) as srv:
        proc = run_dhp(
            "score",
            "--endpoint",
            srv.url,
            "--judge-name",
            "j",
            "--data",
            str(ae_data),
            "--datasets",
            "answer-equivalence",
            "--out",
            str(tmp_path),
            "--limit",
            "2",
            "--n-boot",
            "0",
            env={"HF_HUB_OFFLINE": "1", "DHP_JUDGE_API_KEY": "", "HF_TOKEN": ""},
        )
    assert proc.returncode == 0, proc.stderr
    assert len(srv.log) == 2 * 10  # every text scored once (the probe's answer is reused)
    r = read_result(Path(proc.stdout.strip()))
    assert r.coverage.coverage == 1.0 and r.scoring.mode == "expected"


# -- capabilities: refuse rather than lose log-probabilities -----------------------------------
def test_expected_mode_refused_when_logprobs_are_silently_ignored(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted, logprobs=False) as srv:
        with pytest.raises(CapabilityError, match="no token log-probabilities"):
            score_datasets(_cfg(srv.url, tmp_path, ae_data, mode="expected", concurrency=8))
        # refused at the first answer: the first wave (one request per slot) went out, nothing after it
        assert 1 <= len(srv.log) <= 8 and all(e.body["logprobs"] for e in srv.log)
    assert not list(tmp_path.rglob("*.json"))


def test_auto_mode_falls_back_to_sampling(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted, logprobs=False) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, samples=3, limit=4, concurrency=8)))
    assert r.scoring.mode == "sample" and r.scoring.repeats == 3
    assert r.judge.settings["temperature"] == 1.0
    wave = [e.body for e in srv.log if e.body.get("logprobs")]  # expected's form, until the first answer
    sampled = [e.body for e in srv.log if not e.body.get("logprobs")]
    assert 1 <= len(wave) <= 8 and srv.log[0].body.get("logprobs")
    assert len(sampled) == 4 * 10 * 3 and r.timing.requests_sent == len(srv.log)  # the wave counted too
    assert {b["temperature"] for b in sampled} == {1.0} and {b["seed"] for b in sampled} == {0, 1, 2}
    assert "logprobs" not in sampled[0]
    assert r.scores is not None and r.scores.original["answer_quality"][0] == 4.0  # text "4", parsed


def test_tgi_protocol_refuses_a_non_tgi_server(ae_data: Path, tmp_path: Path) -> None:
    with (
        FakeJudgeServer(scripted, tgi=False) as srv,
        pytest.raises(CapabilityError, match="not a TGI server"),
    ):
        score_datasets(_cfg(srv.url, tmp_path, ae_data, protocol="tgi"))


def test_top_logprobs_falls_back_to_tgi_limit(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted, max_top_logprobs=5) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, limit=3, concurrency=8)))
    asked = [e.body["top_logprobs"] for e in srv.log]
    refused = asked.index(5)  # the first wave asked for 20 and was refused; then 5, each text once
    assert 1 <= refused <= 8 and set(asked[:refused]) == {20} and asked[refused:] == [5] * (3 * 10)
    assert (
        r.scoring.mode == "expected" and r.judge.settings["top_logprobs"] == 5 and r.coverage.coverage == 1.0
    )
    assert r.timing.requests_sent == len(asked) and r.timing.requests_failed == r.coverage.failed + refused


def test_tgi_details_rejected_by_the_server_are_refused(ae_data: Path, tmp_path: Path) -> None:
    # The server rejects `details`/`top_n_tokens` the way a non-TGI backend does. Expected mode
    # must refuse at the first refusal, not score without log-probabilities.
    with (
        FakeJudgeServer(scripted, always="kwargs") as srv,
        pytest.raises(CapabilityError, match="no token log-probabilities"),
    ):
        score_datasets(_cfg(srv.url, tmp_path, ae_data, protocol="tgi", mode="expected", concurrency=8))
    assert 1 <= len(srv.log) <= 8 and all(
        e.body["parameters"].get("details") for e in srv.log
    )  # the first wave


def test_tgi_paper_mode_works_on_a_server_without_details(ae_data: Path, tmp_path: Path) -> None:
    # Text-only modes ask for no details, so a /generate that is not TGI's still serves them.
    with FakeJudgeServer(lambda p: Answer(("Score: 4",)), always="kwargs") as srv:
        r = _only(
            score_datasets(_cfg(srv.url, tmp_path, ae_data, protocol="tgi", mode="paper", repeats=1, limit=2))
        )
    assert r.coverage.coverage == 1.0 and len(srv.log) == 2 * 10
    assert not any(e.body["parameters"].get("details") for e in srv.log)


def test_paper_mode_repeats_and_counts_unparsed_outputs(ae_data: Path, tmp_path: Path) -> None:
    def script(prompt: str) -> Answer:
        text = judged_text(prompt)
        if text.startswith("Reference answer 00"):
            return Answer(("I", " cannot", " rate", " this."))
        return Answer(("Score", ":", " 3" if "[" in text else " 4"))

    with FakeJudgeServer(script) as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, mode="paper", repeats=2)))
    assert r.scoring.mode == "paper" and r.scoring.repeats == 2
    assert len(srv.log) == N * 10 * 2
    assert {e.body["temperature"] for e in srv.log} == {0.0}
    cov = r.coverage
    assert cov.expected_scores == N * 10 and cov.parsed_scores == (N - 1) * 10 and cov.unparsed == 10
    assert cov.unparsed_reasons == {"refusal": 20} and cov.unparsed_outputs == 20 and cov.outputs == 400
    assert cov.unparsed_examples["refusal"][0] == "I cannot rate this."
    for pr in r.perturbations:
        assert pr.metrics["answer_quality"].n_pairs == N - 1  # item 0 dropped from every test


# -- faults -----------------------------------------------------------------------------------
def test_transient_faults_are_retried_and_retry_after_honoured(ae_data: Path, tmp_path: Path) -> None:
    faults = ["429", "503", "503", "reset", "truncated", "hang", "500"]
    policy = replace(FAST, timeout=1.0, max_retries=len(faults))  # the probe meets every fault alone
    with FakeJudgeServer(scripted, faults=list(faults), retry_after="1") as srv:
        r = _only(score_datasets(_cfg(srv.url, tmp_path, ae_data, concurrency=1, limit=3, policy=policy)))
    assert [e.fault for e in srv.log[: len(faults)]] == faults
    assert srv.log[1].at - srv.log[0].at >= 1.0  # Retry-After: 1
    assert srv.log[2].at - srv.log[1].at < 1.0  # plain backoff otherwise
    assert r.coverage.coverage == 1.0
    assert r.timing.retries == len(faults) and r.timing.requests_sent == 3 * 10 + len(faults)


def test_a_request_failing_for_good_is_counted_not_scored(ae_data: Path, tmp_path: Path) -> None:
    policy = replace(FAST, max_retries=1)

    def fault_for(prompt: str) -> str | None:
        return (
            "503"
            if judged_text(prompt).startswith("Reference answer 01 explains the topic in full detail [word")
            else None
        )

    with FakeJudgeServer(scripted, fault_for=fault_for) as srv:
        cfg = _cfg(srv.url, tmp_path, ae_data, concurrency=1, policy=policy, max_failure_rate=0.1, limit=4)
        r = _only(score_datasets(cfg))
    # item 1 x the 4 word-level perturbations: 2 attempts each, then counted as failed
    assert r.coverage.failed == 4 and r.coverage.failure_reasons == {"http-503": 4}
    assert r.timing.requests_failed == 4 and r.timing.retries == 4
    assert r.coverage.parsed_scores == 4 * 10 - 4
    for pr in r.perturbations:
        assert pr.metrics["answer_quality"].n_pairs == (3 if pr.id.startswith("word_") else 4)


def test_too_many_failures_write_no_result_and_a_rerun_resumes(ae_data: Path, tmp_path: Path) -> None:
    cfg = _cfg("http://placeholder", tmp_path, ae_data, concurrency=1, policy=replace(FAST, max_retries=0))
    with FakeJudgeServer(scripted, fail_after=57) as srv:
        with pytest.raises(FatalJudgeError, match="in a row failed"):
            score_datasets(replace(cfg, judge=cfg.judge.model_copy(update={"endpoints": (srv.url,)})))
        answered_first = {e.body["messages"][0]["content"] for e in srv.log if e.fault is None}
    assert len(answered_first) == 57 and not list(tmp_path.rglob("*.json"))
    cache = next(tmp_path.rglob("*.sqlite"))
    db = sqlite3.connect(cache)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 57
    db.close()
    with FakeJudgeServer(scripted) as srv2:
        r = _only(score_datasets(replace(cfg, judge=cfg.judge.model_copy(update={"endpoints": (srv2.url,)}))))
        second = [e.body["messages"][0]["content"] for e in srv2.log]
    assert len(second) == N * 10 - 57 and not set(second) & answered_first  # not a single repeat
    assert r.coverage.coverage == 1.0 and r.timing.requests_cached == 57


# -- replicas -----------------------------------------------------------------------------------
def test_requests_spread_over_replicas(ae_data: Path, tmp_path: Path) -> None:
    with FakeJudgeServer(scripted) as a, FakeJudgeServer(scripted) as b:
        r = _only(score_datasets(_cfg([a.url, b.url], tmp_path, ae_data, concurrency=6)))
    assert len(a.log) + len(b.log) == N * 10  # the probe's answer is reused, not asked twice
    assert min(len(a.log), len(b.log)) >= 0.25 * (N * 10)
    assert r.judge.settings["replicas"] == 2 and r.judge.endpoint_hosts == ()  # hosts unpublished by default


def test_a_failing_replica_is_set_aside(ae_data: Path, tmp_path: Path) -> None:
    policy = replace(FAST, set_aside_after=2, set_aside_seconds=60.0)
    with FakeJudgeServer(scripted) as good, FakeJudgeServer(scripted, always="503") as bad:
        r = _only(score_datasets(_cfg([good.url, bad.url], tmp_path, ae_data, concurrency=4, policy=policy)))
    assert r.coverage.coverage == 1.0
    assert len(good.log) >= N * 10 and len(bad.log) <= 2 + 4  # set aside after 2 failures (+ in flight)


# -- judges by Hub model id (Inference Providers through the HF router) ---------------------------
def test_judge_by_hub_model_id_goes_through_the_router_with_the_hf_login(
    ae_data: Path, tmp_path: Path
) -> None:
    """The router's OpenAI-compatible route, replayed on loopback: ORG/NAME:PROVIDER, the stored HF token."""
    home = tmp_path / "hf"
    home.mkdir()
    (home / "token").write_text("hf_storedLoginToken123")
    with FakeJudgeServer(scripted, model="test-org/judge-7b:novita") as srv:
        proc = run_dhp(
            "score", "--model-id", "test-org/judge-7b", "--provider", "novita", "--data", str(ae_data),
            "--datasets", "answer-equivalence", "--out", str(tmp_path / "o"), "--limit", "2", "--n-boot", "0",
            env={"DHP_HF_ROUTER_URL": srv.url, "HF_HOME": str(home), "HF_TOKEN": "",
                 "DHP_JUDGE_API_KEY": "sk-meant-for-endpoints", "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert {e.headers.get("Authorization") for e in srv.log} == {"Bearer hf_storedLoginToken123"}
    assert {e.path for e in srv.log} == {"/v1/chat/completions"} and len(srv.log) == 2 * 10
    assert {e.body["model"] for e in srv.log} == {"test-org/judge-7b:novita"}
    r = read_result(Path(proc.stdout.strip()))
    assert r.judge.name == "judge-7b" and r.judge.hf_model_id == "test-org/judge-7b"
    assert r.judge.model == "test-org/judge-7b:novita" and r.judge.judge == published(
        HubJudge(name="judge-7b", model_id="test-org/judge-7b", provider="novita")
    )
    assert r.scoring.mode == "expected" and r.coverage.coverage == 1.0
    for f in (tmp_path / "o").rglob("*"):
        if f.is_file():
            assert b"hf_storedLoginToken123" not in f.read_bytes(), f


@pytest.mark.slow  # two `dhp score` processes (~6-10 s)
def test_judge_by_hub_model_id_needs_a_token_and_a_valid_id(ae_data: Path, tmp_path: Path) -> None:
    empty = tmp_path / "hf"
    empty.mkdir()
    common = ("--data", str(ae_data), "--datasets", "answer-equivalence", "--out", str(tmp_path / "o"))
    env = {"DHP_HF_ROUTER_URL": "http://127.0.0.1:9", "HF_HOME": str(empty), "HF_TOKEN": ""}
    proc = run_dhp("score", "--model-id", "test-org/judge-7b", *common, env=env)
    assert (
        proc.returncode == 2
        and "needs a Hugging Face token" in proc.stderr
        and "Traceback" not in proc.stderr
    )
    proc = run_dhp("score", "--model-id", "not a model id", *common, env=env)
    assert proc.returncode == 2 and "ORG/NAME" in proc.stderr
