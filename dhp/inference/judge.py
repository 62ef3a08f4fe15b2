"""Which judge is scored: one description from the submission form to the results file.

A judge is one of four kinds, a tagged union on ``kind``:

* :class:`BuiltinJudge` - a built-in control judge (:class:`~dhp.types.ControlJudge`), no endpoint;
* :class:`EndpointJudge` - an OpenAI-compatible or TGI endpoint (one or more replicas);
* :class:`HubJudge` - a Hub model id scored through Hugging Face Inference Providers (the router's
  OpenAI-compatible route, :mod:`dhp.inference.hub`), with the user's or operator's HF token;
* :class:`LocalJudge` - an in-process ``transformers`` model (a folder or a Hub id).

The leaderboard's form builds one (:mod:`dhp.leaderboard.validation`), the queue stores it in the
request, the worker hands it whole to ``dhp score --judge-file``, the command-line flags for humans
(``--judge``, ``--endpoint``, ``--model-id``, ``--local``) build the same object, and the scorer
embeds it in the results' judge record as :func:`published` makes it (an endpoint's URLs reduced
to their hosts, and to none unless its submitter published them; :class:`dhp.scoring.results.JudgeInfo`).
Its JSON form (:func:`dump_judge`, :func:`parse_judge`) round-trips and never holds a secret: API keys
stay in environment variables (:mod:`dhp.secrets`); an endpoint URL with credentials or a key-like
query parameter is refused. How the judge is scored (the mode, repeats, ...) is not part of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from dhp.errors import first_validation_problem
from dhp.fsutil import atomic_write_text
from dhp.inference.hub import AUTO_PROVIDER, router_model, router_url
from dhp.naming import check_judge_name
from dhp.secrets import secret_in_url
from dhp.types import ControlJudge, EndpointProtocol

__all__ = [
    "PUBLISHED",
    "BuiltinJudge",
    "EndpointJudge",
    "HubJudge",
    "Judge",
    "JudgeSpecError",
    "LocalJudge",
    "dump_judge",
    "endpoints",
    "host_of",
    "hosts",
    "judge_dict",
    "parse_judge",
    "published",
    "published_hosts",
    "read_judge",
    "request_model",
    "write_judge",
]


#: The validation context of a judge as results record it (:func:`published`): endpoint hosts, not URLs.
PUBLISHED: Mapping[str, bool] = {"published": True}
_HOST = re.compile(r"[^\s/@?#]+")  # host or host:port: no path, query or credentials
_RECORDED_NAME_MAX = 100  # the judge names results of schema 1.0-1.2 could hold


def _published(info: ValidationInfo) -> bool:
    return bool((info.context or {}).get("published"))


class JudgeSpecError(ValueError):
    """A judge description that does not validate; the message is one line and names the problem."""


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str  # shown on the leaderboard; its slug names the results folder

    @field_validator("name")
    @classmethod
    def _name(cls, v: str, info: ValidationInfo) -> str:
        if _published(info) and 1 <= len(v) <= _RECORDED_NAME_MAX:
            return v  # a result keeps the name it was scored under (files before the rule allowed more)
        return check_judge_name(v)  # the one name rule of form, CLI and judge files


class BuiltinJudge(_Base):
    """A built-in control judge: it needs no endpoint and sends no request."""

    kind: Literal["builtin"] = "builtin"
    control: ControlJudge

    @property
    def hf_model_id(self) -> None:
        return None

    @property
    def revision(self) -> None:
        return None

    @property
    def n_params(self) -> None:
        return None


class EndpointJudge(_Base):
    """An endpoint judge; several URLs are replicas of one judge (requests go to the least busy)."""

    kind: Literal["endpoint"] = "endpoint"
    endpoints: tuple[str, ...]  # URLs; in a results record (:func:`published`) their hosts, or none
    protocol: EndpointProtocol = EndpointProtocol.OPENAI
    model: str | None = None  # the model name sent to the endpoint; None: the one it lists
    hf_model_id: str | None = None  # recorded in results
    revision: str | None = None
    n_params: float | None = None
    publish_host: bool = False  # the Queue tab and results show its hosts only when the submitter said so

    @field_validator("endpoints")
    @classmethod
    def _urls(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        if _published(info):  # a results record: hosts only, none unless published
            bad = [h for h in v if not _HOST.fullmatch(h)]
            if bad:
                raise ValueError(f"a published endpoint is a host (host or host:port), got {bad[0]!r}")
            return v
        if not v:
            raise ValueError("an endpoint judge needs at least one endpoint URL")
        for url in v:
            try:
                parts = urlsplit(url)
            except ValueError as e:
                raise ValueError(f"endpoint URL {url!r} is malformed ({e})") from None
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"endpoint must be an http(s) URL, got {url!r}")
            problem = secret_in_url(url)
            if problem:  # the URL is stored (requests, judge files): the key travels in the environment
                raise ValueError(
                    f"endpoint URL must not carry a secret ({problem}); give the key in DHP_JUDGE_API_KEY"
                )
        return v


class HubJudge(_Base):
    """A Hub model judged through Hugging Face Inference Providers (``provider`` "auto": the router chooses)."""

    kind: Literal["hub"] = "hub"
    model_id: str  # ORG/NAME on the Hub
    provider: str = AUTO_PROVIDER
    revision: str | None = None  # recorded in results (the providers serve their own revision)
    n_params: float | None = None

    @field_validator("provider")
    @classmethod
    def _provider(cls, v: str) -> str:
        router_model("org/name", v)  # the router's rule for provider names
        return v

    @field_validator("model_id")
    @classmethod
    def _model_id(cls, v: str) -> str:
        router_model(v)
        return v

    @property
    def hf_model_id(self) -> str:
        return self.model_id

    @property
    def router_model(self) -> str:
        """The ``model`` the router is sent: ``ORG/NAME`` or ``ORG/NAME:PROVIDER``."""
        return router_model(self.model_id, self.provider)


class LocalJudge(_Base):
    """An in-process ``transformers`` causal LM (the ``local`` extra)."""

    kind: Literal["local"] = "local"
    model: str = Field(min_length=1)  # a model folder or a Hub id
    hf_model_id: str | None = None
    revision: str | None = None
    n_params: float | None = None


Judge = Annotated[BuiltinJudge | EndpointJudge | HubJudge | LocalJudge, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[BuiltinJudge | EndpointJudge | HubJudge | LocalJudge] = TypeAdapter(Judge)


def parse_judge(data: str | bytes | Mapping[str, Any], source: str = "judge") -> Judge:
    """Validate a judge from its JSON text or plain data; :class:`JudgeSpecError` in one line."""
    try:
        if isinstance(data, Mapping):
            return _ADAPTER.validate_python(data)
        return _ADAPTER.validate_json(data)
    except ValidationError as e:
        raise JudgeSpecError(f"{source}: invalid judge {first_validation_problem(e)}") from None


def judge_dict(judge: Judge) -> dict[str, Any]:
    """The judge as plain JSON data (what :func:`parse_judge` reads back)."""
    return dict(_ADAPTER.dump_python(judge, mode="json"))


def dump_judge(judge: Judge) -> str:
    return json.dumps(judge_dict(judge), indent=2, sort_keys=True) + "\n"


def read_judge(path: Path) -> Judge:
    """A judge file (``dhp score --judge-file``); a missing or invalid file is a one-line error."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise JudgeSpecError(f"{path}: cannot read the judge file ({e.strerror or e})") from None
    return parse_judge(text, source=str(path))


def write_judge(path: Path, judge: Judge) -> None:
    atomic_write_text(path, dump_judge(judge))


def endpoints(judge: Judge) -> tuple[str, ...]:
    """Where the judge's requests go: its endpoint replicas, the HF router, or nowhere (in process)."""
    if isinstance(judge, EndpointJudge):
        return judge.endpoints
    if isinstance(judge, HubJudge):
        return (router_url(),)
    return ()


def published(judge: Judge) -> Judge:
    """The judge as results record it: an endpoint judge's URLs reduced to their hosts, and to none
    unless its submitter published them (``publish_host``); any other judge as it is. What it makes
    validates only in the :data:`PUBLISHED` context (a results file), never as a judge to score."""
    if not isinstance(judge, EndpointJudge):
        return judge
    kept = tuple(host_of(url) for url in judge.endpoints) if judge.publish_host else ()
    return judge.model_copy(update={"endpoints": kept})


def hosts(judge: Judge) -> tuple[str, ...]:
    """Where the judge's requests go, as ``host`` or ``host:port`` (of a :func:`published` judge, the
    hosts it records)."""
    return tuple(url if _HOST.fullmatch(url) else host_of(url) for url in endpoints(judge))


def published_hosts(judge: Judge) -> tuple[str, ...]:
    """The hosts a public page or a result may show: an endpoint judge's only when it opted in
    (``publish_host``), the HF router of a Hub judge (public) always. The same for a judge and for
    its :func:`published` record."""
    if isinstance(judge, EndpointJudge) and not judge.publish_host:
        return ()
    return hosts(judge)


def request_model(judge: Judge) -> str | None:
    """The model name the judge's requests carry, where known before asking the endpoint (None:
    the endpoint's own listing decides, :func:`dhp.inference.http.discover_model`)."""
    if isinstance(judge, BuiltinJudge):
        return judge.control.value
    if isinstance(judge, HubJudge):
        return judge.router_model
    return judge.model


def host_of(url: str) -> str:
    """``host`` or ``host:port`` of an endpoint URL, lowercased: what results, duplicate checks and
    the Queue tab show of an endpoint (never the full URL)."""
    parts = urlsplit(url)
    host = (parts.hostname or url).lower()
    return f"{host}:{parts.port}" if parts.port else host
