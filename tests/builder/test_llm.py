"""The LLM perturber against a real HTTP server on 127.0.0.1 (OpenAI-compatible and TGI shapes)."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dhp.builder.build import LLM_ATTEMPTS, BuildOptions, build_dataset
from dhp.builder.perturb.base import FAILED_VALIDATION, NotApplicable, Perturbed
from dhp.builder.perturb.llm import InvalidOutput, LLMJob, LLMPerturber, LLMSettings, validate_output
from dhp.builder.perturb.registry import build_prompt
from dhp.builder.sources import SourceLocator
from dhp.data.dataset_io import read_not_applicable, read_pairs
from dhp.spec import BENCHMARK
from dhp.types import Operation

MODEL = "test-org/fake-perturber-7b"
_TEXT = re.compile(r"\n\n(?:Story Ending|Summary|Answer|Translation):\n\n(.*)\n\nRevised ", re.DOTALL)


@dataclass
class FakeEndpoint:
    """Scripted endpoint: per prompt, attempt 1 adds a preamble, attempt 2 echoes the text unchanged,
    attempt 3 returns a valid edit. Texts containing 'NEVER' only ever get commentary."""

    attempts: Counter[str] = field(default_factory=Counter)
    auth: list[str | None] = field(default_factory=list)
    paths: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, prompt: str) -> str:
        m = _TEXT.search(prompt)
        assert m, prompt
        text = m.group(1)
        with self.lock:
            self.attempts[prompt] += 1
            n = self.attempts[prompt]
        if "NEVER" in text:
            return text.replace("NEVER", "Never") + "\nNote: I changed one word."
        if n == 1:
            return "Sure! Here is the revised text:\n" + text
        if n == 2:
            return text
        words = text.split()
        words[-1] = "Zorvania."
        return "Revised Story Ending: " + " ".join(words)


def _handler(ep: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def _send(self, obj: Any) -> None:
            body = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            ep.paths[self.path] += 1
            if self.path == "/v1/models":
                self._send({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "tgi"}]})
            elif self.path == "/info":
                self._send({"model_id": MODEL, "max_input_tokens": 4096})
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            ep.paths[self.path] += 1
            ep.auth.append(self.headers.get("Authorization"))
            req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/v1/chat/completions":
                assert req["model"] == MODEL and req["messages"][0]["role"] == "user"
                assert {"temperature", "top_p", "max_tokens", "seed"} <= set(req)
                text = ep.answer(req["messages"][0]["content"])
                self._send(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": MODEL,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                )
            elif self.path == "/generate":
                assert req["parameters"]["do_sample"] is True and "seed" in req["parameters"]
                self._send({"generated_text": ep.answer(req["inputs"])})
            else:
                self.send_error(404)

    return H


@pytest.fixture
def endpoint() -> Iterator[tuple[str, FakeEndpoint]]:
    ep = FakeEndpoint()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(ep))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", ep
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _job(text: str, op: Operation = Operation.FICTIONAL_ENTITIES) -> LLMJob:
    spec = BENCHMARK["story-cloze"]
    p = next(p for p in spec.perturbations if p.operation is op)
    prompt = build_prompt(spec, p, text)
    return LLMJob(prompt.text, prompt.label, text, op, seed=11)


def test_prompt_has_the_paper_shape() -> None:
    spec = BENCHMARK["summeval"]
    prompt = build_prompt(spec, spec.perturbation("word_fictional_ne_minor"), "SUMMARY_HERE").text
    assert prompt.startswith(
        "You will be given one summary written for an article. Your task is to adjust the summary"
    )
    assert "Adjustment: Please substitute only one critical named entity within the summary" in prompt
    assert "Adjustment Steps:\n\n1. " in prompt and "\n\n4. " in prompt
    assert prompt.endswith("Summary:\n\nSUMMARY_HERE\n\nRevised Summary:")
    for p in spec.perturbations:
        if p.operation in (
            Operation.FICTIONAL_ENTITIES,
            Operation.GRAMMATICAL_ERRORS,
            Operation.REWRITE_INSERT,
        ):
            assert "Adjustment:" in build_prompt(spec, p, "x").text
    major = build_prompt(spec, spec.perturbation("sent_rewrite_insert_major"), "x").text
    assert "several (two or more) sentences" in major
    assert "without copying any run of eight or more words" in major  # issue 36: the validator's rules, asked


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("Sure! Here it is: Tom went home.", "preamble"),
        ("Tom went  home.", "unchanged"),
        ("Tom went to Zorvania.\nExplanation: I replaced home.", "commentary"),
        ("Adjustment Steps: 1. Tom went to Zorvania.", "echoes"),
        ("Tom went to Zorvania. " * 10, "length"),
    ],
)
def test_validation_rejects(raw: str, reason: str) -> None:
    with pytest.raises(InvalidOutput, match=reason):
        validate_output(raw, _job("Tom went home."))


def test_validation_cleans_label_and_quotes() -> None:
    assert (
        validate_output('Revised Story Ending: "Tom went to Zorvania."', _job("Tom went home."))
        == "Tom went to Zorvania."
    )


def test_openai_retries_invalid_outputs_and_caches(
    endpoint: tuple[str, FakeEndpoint], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, ep = endpoint
    monkeypatch.setenv("DHP_PERTURBER_API_KEY", "sk-secret-123")
    perturber = LLMPerturber(LLMSettings(url=url + "/v1"), tmp_path / "cache.sqlite")
    jobs = [_job("Tom went home."), _job("Ann saw a NEVER cat.", Operation.GRAMMATICAL_ERRORS)]
    out = perturber.run(jobs)
    ok, bad = out
    assert isinstance(ok, Perturbed) and ok.text == "Tom went Zorvania."
    assert ok.generator == f"llm:{MODEL}"
    assert (
        ok.settings["attempts"] == 3 and ok.settings["model"] == MODEL and ok.settings["protocol"] == "openai"
    )
    assert isinstance(bad, NotApplicable) and "commentary" in bad.reason
    assert perturber.calls == 3 + 3  # three outputs, the third valid; then the hopeless one spends its three
    assert set(ep.auth) == {"Bearer sk-secret-123"}
    perturber.close()
    assert b"sk-secret-123" not in (tmp_path / "cache.sqlite").read_bytes()
    again = LLMPerturber(LLMSettings(url=url, model=MODEL), tmp_path / "cache.sqlite")
    assert again.run(jobs) == out and again.calls == 0
    again.close()


def test_tgi_protocol(endpoint: tuple[str, FakeEndpoint], tmp_path: Path) -> None:
    url, ep = endpoint
    perturber = LLMPerturber(LLMSettings(url=url, protocol="tgi"), tmp_path / "c.sqlite")
    [res] = perturber.run([_job("Tom went home.")])
    perturber.close()
    assert (
        isinstance(res, Perturbed) and res.generator == f"llm:{MODEL}" and res.settings["protocol"] == "tgi"
    )
    assert ep.paths["/generate"] == 3 and ep.paths["/info"] == 1


def test_build_with_endpoint_then_rebuild_makes_no_calls(
    endpoint: tuple[str, FakeEndpoint], locator: SourceLocator, tmp_path: Path
) -> None:
    url, _ = endpoint
    spec = BENCHMARK["story-cloze"]
    llm_ids = [p.id for p in spec.perturbations if p.method.value == "llm"]
    first = LLMPerturber(LLMSettings(url=url), tmp_path / "cache.sqlite")
    r1 = build_dataset(spec, locator, tmp_path / "a", BuildOptions(perturber=first, progress=False))
    first.close()
    # issue 28, one output budget: the endpoint's first two outputs per prompt are invalid in form, the third
    # is valid in form and the validator checks it inside the same budget: 3 model outputs a row, never 9
    # (format retries x validator attempts), and build_info counts them
    checked = {pid: r1.info.perturbation(pid).checked for pid in llm_ids}
    assert first.calls == sum(checked.values()) == LLM_ATTEMPTS * 100 * len(llm_ids)
    rows = read_pairs(r1.folder, [pid for pid in llm_ids if r1.info.perturbation(pid).rows])
    assert rows  # some items end in a name, where "Zorvania." is a valid fictional entity
    na = [x for x in read_not_applicable(r1.folder) if x.perturbation in llm_ids]
    assert len(rows) + len(na) == 100 * len(llm_ids)
    assert all(x.reason.startswith(FAILED_VALIDATION) for x in na)  # "Zorvania." is rarely a valid edit
    for pid in llm_ids:
        p = r1.info.perturbation(pid)
        assert (
            p.passed == p.rows and p.checked <= 100 * LLM_ATTEMPTS and p.failed_validation == p.not_applicable
        )
    for row in rows:
        perturbed, raw_settings = row["perturbed"], row["generator_settings"]
        assert perturbed is not None and raw_settings is not None
        assert row["generator"] == f"llm:{MODEL}" and perturbed.endswith("Zorvania.")
        settings = json.loads(raw_settings)
        assert (
            settings["model"] == MODEL and settings["attempts"] == 3 and len(settings["prompt_sha256"]) == 64
        )
    card = (r1.folder / "README.md").read_text()
    assert f"llm:{MODEL}" in card and "No LLM was used" not in card
    second = LLMPerturber(LLMSettings(url=url), tmp_path / "cache.sqlite")
    r2 = build_dataset(spec, locator, tmp_path / "b", BuildOptions(perturber=second, progress=False))
    second.close()
    assert second.calls == 0
    for f in sorted((r1.folder / "data").glob("*.parquet")):
        assert f.read_bytes() == (r2.folder / "data" / f.name).read_bytes()


# -- issue 36: the LLM path reaches 100 rewriting rows where the model answers, within the 3-output budget ----------
_FIRST = ["Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gwen", "Hugo", "Iris", "Jack"]
_LAST_NAMES = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Petrov",
    "Almeida",
    "Novak",
    "Haddad",
    "Kowal",
    "Reyes",
]
_CLUBS = ["Arsenal", "Valencia", "Porto", "Celtic", "Ajax"]
_DAYS = ["Monday", "Tuesday", "Saturday", "Sunday"]


def _summary(k: int) -> tuple[str, list[tuple[str, str]]]:
    """A three-sentence summary and, for its first two sentences, a restatement in other words."""
    first, last = _FIRST[k % 10], _LAST_NAMES[k // 10 % 10]
    club, day, n, m = _CLUBS[k % 5], _DAYS[k % 4], 2 + k % 3, 10 + k % 20
    s1 = f"{first} {last} scored {n} goals for {club} on {day}."
    s2 = f"The young forward has now played {m} games this season."
    pairs = [
        (s1, f"On {day}, {last} found the net {n} times for {club}."),
        (s2, f"So far this season, the young forward has appeared in {m} matches."),
    ]
    return f"{s1} {s2} Fans were delighted with the result.", pairs


@dataclass
class RewritingEndpoint(FakeEndpoint):
    """Answers a rewriting prompt first with a restatement that adds a fact (the validator rejects it), then with the text and one (minor) or two (major) real restatements inserted."""

    def answer(self, prompt: str) -> str:
        m = _TEXT.search(prompt)
        assert m, prompt
        text = m.group(1)
        with self.lock:
            self.attempts[prompt] += 1
            n = self.attempts[prompt]
        pairs = next(pairs for k in range(100) for t, pairs in [_summary(k)] if t == text)
        if n == 1:  # a fact the sentence lacks ("last year"): only issue 36's validator rejects it
            return text.replace(pairs[0][0], f"{pairs[0][0]} {pairs[0][1][:-1]} last year.", 1)
        for s, para in pairs[: 2 if "two or more" in prompt else 1]:
            text = text.replace(s, f"{s} {para}", 1)
        return text


def test_llm_rewriting_reaches_every_item_within_the_output_budget(tmp_path: Path) -> None:
    import yaml

    from dhp.task.build_task import build_task
    from dhp.task.file import load_task

    (tmp_path / "data").mkdir()
    rows = [{"id": f"s{k}", "summary": _summary(k)[0]} for k in range(100)]
    (tmp_path / "data" / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    task = {
        "name": "match-reports",
        "source": {"path": "data/s.jsonl"},
        "judged": "summary",
        "select": {"n": 100, "seed": 0},
        "metrics": [{"name": "fluency", "definition": "Well-formed, grammatical sentences."}],
        "perturbations": ["sent_rewrite_insert"],
        "weights": "equal",
    }
    (tmp_path / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    ep = RewritingEndpoint()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(ep))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        perturber = LLMPerturber(
            LLMSettings(url=f"http://127.0.0.1:{server.server_address[1]}"), tmp_path / "c.db"
        )
        report = build_task(
            load_task(tmp_path / "task.yaml"),
            tmp_path / "out",
            BuildOptions(perturber=perturber, progress=False),
        )
        perturber.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    for sev in ("minor", "major"):
        p = report.info.perturbation(f"sent_rewrite_insert_{sev}")
        # the first output of every row is rejected by the validator (an added fact), the second kept
        assert (p.rows, p.passed, p.checked, p.not_applicable) == (100, 100, 200, 0), (sev, p)
    assert perturber.calls == 400
