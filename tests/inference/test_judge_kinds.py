"""A judge that knows its kind: one registry builds every kind's backends, the published record is its
kind's twin type, and one parser reads flat descriptions (CLI flags, the submission form); a kind is
one class plus its backend."""

from __future__ import annotations

import pickle
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from dhp.cli import build_parser
from dhp.cli.score import _judge_config
from dhp.errors import UserError
from dhp.inference import judge as judge_module
from dhp.inference import registry as registry_module
from dhp.inference.builtin import OracleJudge, RandomJudge, make_builtin
from dhp.inference.http import HTTPBackend, OpenAIChat, TGIGenerate
from dhp.inference.judge import (
    BuiltinJudge,
    EndpointJudge,
    FieldInput,
    HubJudge,
    Judge,
    JudgeBase,
    JudgeSpecError,
    LocalJudge,
    PublishedJudge,
    dump_judge,
    judge_dict,
    judge_from_fields,
    judge_from_form,
    judge_kinds,
    parse_judge,
    parse_published,
    published,
)
from dhp.inference.local import LocalModel
from dhp.inference.protocol import Generation, RawText, Request, SamplingParams, TransientJudgeError
from dhp.inference.registry import (
    BackendOptions,
    Backends,
    BackendSetupError,
    backend,
    build_backends,
    registered_kinds,
)
from dhp.types import ControlJudge, EndpointProtocol, ScoringMode
from tests.scoring.fake_server import FakeJudgeServer

ENDPOINT = EndpointJudge(name="ep", endpoints=("http://127.0.0.1:9/v1",), model="m", publish_host=True)


def test_every_kind_of_judge_has_a_registered_backend() -> None:
    kinds = {str(t.model_fields["kind"].default) for t in judge_kinds().values()}
    assert kinds == {"builtin", "endpoint", "hub", "local"} == set(judge_kinds()) == set(registered_kinds())


def test_a_kind_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered already"):

        @backend(BuiltinJudge)
        async def again(judge: BuiltinJudge, options: BackendOptions) -> typing.Any:
            raise AssertionError("never called")


async def test_the_registry_builds_a_builtin_judge_by_its_kind() -> None:
    built = await build_backends(BuiltinJudge(name="r", control=ControlJudge.RANDOM), BackendOptions(seed=3))
    (only,) = built.replicas
    assert isinstance(only, RandomJudge) and only.seed == 3 and built.model == "random"
    built = await build_backends(BuiltinJudge(name="o", control=ControlJudge.ORACLE), BackendOptions())
    assert isinstance(built.replicas[0], OracleJudge) and built.model == "oracle"


@pytest.mark.parametrize("protocol", [EndpointProtocol.OPENAI, EndpointProtocol.TGI])
async def test_the_registry_builds_one_http_backend_per_replica(protocol: EndpointProtocol) -> None:
    with FakeJudgeServer(model="served-model") as a, FakeJudgeServer(model="served-model") as b:
        judge = EndpointJudge(name="two", endpoints=(a.url, b.url), protocol=protocol)
        built = await build_backends(judge, BackendOptions(timeout=5.0, connections=2))
        try:
            kind = OpenAIChat if protocol is EndpointProtocol.OPENAI else TGIGenerate
            assert [type(r) for r in built.replicas] == [kind, kind]
            assert built.model == "served-model"  # discovered from the first replica: the judge named none
        finally:
            for r in built.replicas:
                await r.aclose()


async def test_a_hub_judge_without_a_token_is_a_setup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    # the client reads HF_HUB_OFFLINE once, when first imported (maybe by an earlier test, with it set)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    monkeypatch.setattr("huggingface_hub.get_token", lambda: None)
    with pytest.raises(BackendSetupError, match="needs a Hugging Face token"):
        await build_backends(HubJudge(name="h", model_id="org/m"), BackendOptions())


def test_a_local_judge_is_built_as_the_in_process_model() -> None:
    assert LocalJudge.one_at_a_time and not LocalJudge.probes_capabilities
    assert LocalModel("/nowhere").label == "local:nowhere"


@pytest.mark.parametrize(
    ("judge", "sends", "mode", "route", "protocol"),
    [
        (
            BuiltinJudge(name="b", control=ControlJudge.LEXICAL),
            False,
            ScoringMode.BUILTIN,
            "builtin",
            "builtin",
        ),
        (ENDPOINT.model_copy(update={"protocol": EndpointProtocol.TGI}), True, None, "tgi", "tgi"),
        (HubJudge(name="h", model_id="org/m"), True, None, "hub", "openai"),
        (LocalJudge(name="l", model="/m"), True, None, "local", "local"),
    ],
)
def test_what_differs_by_kind_is_the_judges_own(
    judge: Judge, sends: bool, mode: ScoringMode | None, route: str, protocol: str
) -> None:
    assert (judge.sends_requests, judge.uses_prompts, judge.cacheable) == (sends, sends, sends)
    assert judge.own_mode is mode and judge.route == route and judge.protocol_name == protocol


async def test_the_published_judge_is_its_kinds_twin_with_hosts_only() -> None:
    record = published(ENDPOINT)
    assert type(record) is EndpointJudge.record_type and record.recorded and not ENDPOINT.recorded
    assert isinstance(record, EndpointJudge)  # the same fields, validated as hosts
    assert pickle.loads(pickle.dumps(record)) == record  # found by its name (the board's rank job pickles)
    assert record.endpoints == ("127.0.0.1:9",) and record.shown_hosts == ("127.0.0.1:9",)
    assert record.submitted_urls == () and ENDPOINT.submitted_urls == ("http://127.0.0.1:9/v1",)
    with pytest.raises(ValueError, match="is a results record"):
        await build_backends(record, BackendOptions())  # its hosts are not URLs to send to
    hidden = published(ENDPOINT.model_copy(update={"publish_host": False}))
    assert hidden.urls == () and hidden.shown_hosts == ()
    with pytest.raises(JudgeSpecError, match="published endpoint is a host"):
        parse_published({"kind": "endpoint", "name": "x", "endpoints": ["http://127.0.0.1:9/v1"]})
    with pytest.raises(ValidationError, match="http\\(s\\) URL"):
        EndpointJudge(name="x", endpoints=("127.0.0.1:9",))  # a host is no judge to score


def test_a_published_record_keeps_a_name_of_an_older_rule() -> None:
    long_name = "n" * 90  # longer than the name rule allows now, as results of 1.0-1.2 could hold
    assert parse_published({"kind": "builtin", "name": long_name, "control": "random"}).name == long_name
    with pytest.raises(ValidationError):
        BuiltinJudge(name=long_name, control=ControlJudge.RANDOM)


def test_one_parser_reads_a_flat_description_by_kind() -> None:
    flat = {"name": "j", "control": "oracle", "endpoints": ["http://127.0.0.1:9/v1"], "model": "m",
            "model_id": "org/m", "provider": "novita", "hf_model_id": "org/m", "revision": None}  # fmt: skip
    assert judge_from_fields("builtin", flat) == BuiltinJudge(name="j", control=ControlJudge.ORACLE)
    assert judge_from_fields("hub", flat) == HubJudge(name="j", model_id="org/m", provider="novita")
    assert judge_from_fields("local", flat) == LocalJudge(name="j", model="m", hf_model_id="org/m")
    ep = judge_from_fields("endpoint", flat)
    assert ep == EndpointJudge(name="j", endpoints=("http://127.0.0.1:9/v1",), model="m", hf_model_id="org/m")
    with pytest.raises(JudgeSpecError, match="unknown judge kind 'remote'"):
        judge_from_fields("remote", flat)
    with pytest.raises(JudgeSpecError, match=r"^--endpoint: invalid judge"):
        judge_from_fields("endpoint", {**flat, "endpoints": ["ftp://x"]}, source="--endpoint")


class _Plain(HTTPBackend):
    """A protocol written as lm-eval's TemplateAPI asks: a route, a payload and a parser, no HTTP."""

    route = "/v1/chat/completions"
    answer = "plain answer"
    field = "content"

    def body(self, request: Request) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "max_tokens": 4,
        }

    def parse(self, doc: Any, request: Request) -> RawText:
        return RawText(text=str(doc["choices"][0]["message"][self.field]))


class _Odd(_Plain):
    field = "no-such-field"


async def test_a_protocol_writes_only_its_payload_and_parsing() -> None:
    ask = Generation(prompt="Rate it.", sampling=SamplingParams(temperature=0.0, max_tokens=4))
    with FakeJudgeServer() as srv:
        plain = _Plain(srv.url, "fake-judge", None, timeout=5.0, connections=1)
        odd = _Odd(srv.url, "fake-judge", None, timeout=5.0, connections=1)
        try:
            out = await plain(ask)
            with pytest.raises(TransientJudgeError, match=r"^bad-response: an unexpected plain answer \(no "):
                await odd(ask)  # a shape the parser did not expect: the base's one classification
        finally:
            await plain.aclose()
            await odd.aclose()
    assert isinstance(out, RawText) and out.text and [e.path for e in srv.log] == ["/v1/chat/completions"] * 2


def test_a_kind_declared_twice_or_without_a_selecting_flag_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judge_module, "_KINDS", dict(judge_module._KINDS))
    with pytest.raises(TypeError, match="'hub' is declared already, by HubJudge"):

        class Again(JudgeBase):
            kind: Literal["hub"] = "hub"
            model_id: Annotated[str, FieldInput("--model-id", "", selects=True)]

    with pytest.raises(TypeError, match="one field whose flag selects it"):

        class Unselected(JudgeBase):
            kind: Literal["unselected"] = "unselected"
            model: str


async def test_a_new_kind_is_one_class_and_its_backend(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Declared here as a user would declare it in judge.py: the ``dhp score`` flags and parser, the
    form's fields, the registry, the judge file and the published record take it, nothing else edited."""
    monkeypatch.setattr(judge_module, "_KINDS", dict(judge_module._KINDS))
    monkeypatch.setattr(registry_module, "_BUILDERS", dict(registry_module._BUILDERS))

    class EchoJudge(JudgeBase):
        sends_requests: typing.ClassVar[bool] = False

        kind: Literal["echo"] = "echo"
        voice: Annotated[
            str,
            FieldInput("--echo", "an echoing judge", "model", metavar="VOICE", selects=True, names=str.upper),
        ]
        loudness: Annotated[float | None, FieldInput("--loudness", "how loud it echoes")] = None

    @backend(EchoJudge)
    async def _echo(judge: EchoJudge, options: BackendOptions) -> Backends:
        return Backends((make_builtin("random", seed=options.seed),), judge.voice)

    assert "echo" in judge_kinds() and "echo" in registered_kinds()
    # the command line: its flags (typed as its fields), the kind picked by its flag, the name it gives
    parser = build_parser()
    args = parser.parse_args(["score", "--echo", "hi", "--loudness", "3", "--out", str(tmp_path)])
    judge = _judge_config(args)
    assert judge == EchoJudge(name="HI", voice="hi", loudness=3.0)
    with pytest.raises(UserError, match="--local MODEL, --echo VOICE or --judge-file FILE"):
        _judge_config(parser.parse_args(["score", "--echo", "hi", "--judge", "random", "--out", "o"]))
    with pytest.raises(SystemExit):
        parser.parse_args(["score", "--help"])
    shown = capsys.readouterr().out
    assert "--echo VOICE" in shown and "how loud it echoes" in shown and "kind builtin, endpoint" in shown
    # the form: its fields from the inputs they name
    assert judge_from_form("echo", {"judge_name": "Echo", "model": "hi", "endpoint_url": ""}) == EchoJudge(
        name="Echo", voice="hi"
    )
    # the registry
    built = await build_backends(judge, BackendOptions(seed=4))
    assert isinstance(built.replicas[0], RandomJudge) and built.model == "hi"
    # the judge file and the published record (its twin, derived), and a model built after the declaration
    assert parse_judge(dump_judge(judge)) == judge and judge_dict(judge)["kind"] == "echo"
    record = published(judge)
    assert type(record) is EchoJudge.record_type and record.recorded
    assert parse_published(record.model_dump(mode="json")) == record

    class Holder(BaseModel):
        judge: PublishedJudge

    assert Holder.model_validate({"judge": record.model_dump(mode="json")}).judge == record
