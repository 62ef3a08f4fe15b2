"""Which judge is scored: one description from the submission form to the results file.

A judge is one of four kinds, a tagged union on ``kind``:

* :class:`BuiltinJudge` - a built-in control judge (:class:`~dhp.types.ControlJudge`), no endpoint;
* :class:`EndpointJudge` - an OpenAI-compatible or TGI endpoint (one or more replicas);
* :class:`HubJudge` - a Hub model id scored through Hugging Face Inference Providers (the router's
  OpenAI-compatible route, :mod:`dhp.inference.hub`), with the user's or operator's HF token;
* :class:`LocalJudge` - an in-process ``transformers`` model (a folder or a Hub id).

What differs by kind (sends requests, uses prompts, cacheable, probes the endpoint, its protocol and
hosts, the secret it needs) is a class attribute or property of its type; its backends are built by
the registry of :mod:`dhp.inference.registry`, keyed by ``kind``. No caller checks the kind.

The leaderboard's form builds one (:mod:`dhp.leaderboard.submissions.validation`), the queue stores it in the
request, the worker hands it whole to ``dhp score --judge-file``, the command-line flags for humans
(``--judge``, ``--endpoint``, ``--model-id``, ``--local``) build the same object (the form and the
flags through one parser, :func:`judge_from_fields`), and the scorer embeds it in the results' judge
record as :func:`published` makes it: a :data:`PublishedJudge`, its own type (an endpoint's URLs
reduced to their hosts, and to none unless its submitter published them; a name scored under an
older rule kept; :class:`dhp.scoring.results.JudgeInfo`).
Its JSON form (:func:`dump_judge`, :func:`parse_judge`) round-trips and never holds a secret: API keys
stay in environment variables (:mod:`dhp.secrets`); an endpoint URL with credentials or a key-like
query parameter is refused. How the judge is scored (the mode, repeats, ...) is not part of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from dhp.errors import first_validation_problem
from dhp.fsutil import atomic_write_text
from dhp.inference.hub import AUTO_PROVIDER, router_model, router_url
from dhp.naming import check_judge_name
from dhp.secrets import JUDGE_KEY_VARS, secret_in_url
from dhp.types import ControlJudge, EndpointProtocol, ScoringMode

__all__ = [
    "AnyJudge",
    "BuiltinJudge",
    "EndpointJudge",
    "HubJudge",
    "Judge",
    "JudgeSpecError",
    "LocalJudge",
    "PublishedBuiltinJudge",
    "PublishedEndpointJudge",
    "PublishedHubJudge",
    "PublishedJudge",
    "PublishedLocalJudge",
    "dump_judge",
    "host_of",
    "judge_dict",
    "judge_from_fields",
    "parse_judge",
    "parse_published",
    "published",
    "read_judge",
    "write_judge",
]


_HOST = re.compile(r"[^\s/@?#]+")  # host or host:port: no path, query or credentials
HF_TOKEN_VAR = JUDGE_KEY_VARS[1]
_RECORDED_NAME_MAX = 100  # the judge names results of schema 1.0-1.2 could hold


class JudgeSpecError(ValueError):
    """A judge description that does not validate; the message is one line and names the problem."""


class _Base(BaseModel):
    """What every judge record has; what differs by kind is said by the class attributes below,
    never by a check of the kind where the judge is used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: a results file's record (:class:`PublishedJudge`): a name scored under an older rule is kept
    recorded: ClassVar[bool] = False
    #: it sends requests (an endpoint, the router, an in-process model); a built-in control judge does not
    sends_requests: ClassVar[bool] = True
    #: its requests carry rendered prompts; a built-in control judge reads the request's metadata
    uses_prompts: ClassVar[bool] = True
    #: its answers are kept in the response cache (a built-in one's cost nothing to recompute)
    cacheable: ClassVar[bool] = True
    #: its first answers settle the scoring mode (log-probabilities or not); else ``expected`` is known to work
    probes_capabilities: ClassVar[bool] = True
    #: it takes one request at a time (one model in this process)
    one_at_a_time: ClassVar[bool] = False
    #: its requests go over HTTP to replicas (the number of replicas is recorded)
    over_http: ClassVar[bool] = False
    #: the one scoring mode it has, when it has only one
    own_mode: ClassVar[ScoringMode | None] = None
    #: the environment variable holding its secret, which the scorer's environment keeps (None: none)
    secret_variable: ClassVar[str | None] = None

    name: str  # shown on the leaderboard; its slug names the results folder

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if cls.recorded and 1 <= len(v) <= _RECORDED_NAME_MAX:
            return v  # a result keeps the name it was scored under (files before the rule allowed more)
        return check_judge_name(v)  # the one name rule of form, CLI and judge files

    @property
    def route(self) -> str:
        """How the judge is reached, as the Queue tab and duplicate keys name it: an endpoint's
        protocol, else its kind."""
        return str(type(self).model_fields["kind"].default)

    @property
    def protocol_name(self) -> str:
        """The protocol its requests speak (``openai``/``tgi``), or its kind when it sends none over HTTP."""
        return self.route

    @property
    def urls(self) -> tuple[str, ...]:
        """Where the judge's requests go: its endpoint replicas, the HF router, or nowhere (in process);
        of a published record, the hosts it records."""
        return ()

    @property
    def submitted_urls(self) -> tuple[str, ...]:
        """The URLs its submitter gave (checked again before a run): an endpoint's, none otherwise."""
        return ()

    @property
    def hosts(self) -> tuple[str, ...]:
        """Where the judge's requests go, as ``host`` or ``host:port``."""
        return tuple(url if _HOST.fullmatch(url) else host_of(url) for url in self.urls)

    @property
    def shown_hosts(self) -> tuple[str, ...]:
        """The hosts a public page or a result may show (an endpoint's only when its submitter opted in)."""
        return self.hosts

    @property
    def provider_name(self) -> str | None:
        """The Inference Providers provider it is scored through (a Hub judge), else None."""
        return None

    def _record_data(self) -> dict[str, Any]:
        """Its data as a results file records it (:func:`published`)."""
        return dict(self.model_dump(mode="json"))

    @property
    def request_model(self) -> str | None:
        """The model name the judge's requests carry, where known before asking the endpoint (None:
        the endpoint's own listing decides, :func:`dhp.inference.http.discover_model`)."""
        return None

    @property
    def where(self) -> str:
        """Where the judge ran, in one plain-text line (the judge pages show it)."""
        return "in-process model (transformers, run by the scorer): no endpoint"


class BuiltinJudge(_Base):
    """A built-in control judge: it needs no endpoint and sends no request."""

    sends_requests: ClassVar[bool] = False
    uses_prompts: ClassVar[bool] = False
    cacheable: ClassVar[bool] = False
    probes_capabilities: ClassVar[bool] = False
    own_mode: ClassVar[ScoringMode | None] = ScoringMode.BUILTIN

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

    @property
    def request_model(self) -> str:
        return self.control.value

    @property
    def where(self) -> str:
        return f"built-in control judge ({self.control.value}): no model, no requests, no endpoint"


class _EndpointFields(_Base):
    """An endpoint judge's fields; its endpoints are URLs (:class:`EndpointJudge`) or, in a results
    file, hosts (:class:`PublishedEndpointJudge`)."""

    over_http: ClassVar[bool] = True
    #: its key (never the operator's HF token: a submitted endpoint is anyone's server)
    secret_variable: ClassVar[str | None] = JUDGE_KEY_VARS[0]

    kind: Literal["endpoint"] = "endpoint"
    endpoints: tuple[str, ...]  # URLs; in a results record their hosts, or none
    protocol: EndpointProtocol = EndpointProtocol.OPENAI
    model: str | None = None  # the model name sent to the endpoint; None: the one it lists
    hf_model_id: str | None = None  # recorded in results
    revision: str | None = None
    n_params: float | None = None
    publish_host: bool = False  # the Queue tab and results show its hosts only when the submitter said so

    @property
    def route(self) -> str:
        return self.protocol.value

    @property
    def urls(self) -> tuple[str, ...]:
        return self.endpoints

    @property
    def shown_hosts(self) -> tuple[str, ...]:
        return self.hosts if self.publish_host else ()

    @property
    def request_model(self) -> str | None:
        return self.model

    @property
    def where(self) -> str:
        shown = self.shown_hosts
        if shown:
            return "endpoint host: " + ", ".join(shown) + " (published by its submitter)"
        return "endpoint host: not published (the submitter kept it private)"


class EndpointJudge(_EndpointFields):
    """An endpoint judge; several URLs are replicas of one judge (requests go to the least busy)."""

    @field_validator("endpoints")
    @classmethod
    def _urls(cls, v: tuple[str, ...]) -> tuple[str, ...]:
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

    @property
    def submitted_urls(self) -> tuple[str, ...]:
        return self.endpoints

    def _record_data(self) -> dict[str, Any]:
        return {**super()._record_data(), "endpoints": list(self.shown_hosts)}


class HubJudge(_Base):
    """A Hub model judged through Hugging Face Inference Providers (``provider`` "auto": the router chooses)."""

    over_http: ClassVar[bool] = True
    secret_variable: ClassVar[str | None] = HF_TOKEN_VAR  # the user's or operator's, sent only to the router

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
    def protocol_name(self) -> str:
        return EndpointProtocol.OPENAI.value  # the router's OpenAI-compatible route

    @property
    def provider_name(self) -> str:
        return self.provider

    @property
    def urls(self) -> tuple[str, ...]:
        return (router_url(),)

    @property
    def router_model(self) -> str:
        """The ``model`` the router is sent: ``ORG/NAME`` or ``ORG/NAME:PROVIDER``."""
        return router_model(self.model_id, self.provider)

    @property
    def request_model(self) -> str:
        return self.router_model

    @property
    def where(self) -> str:
        return f"Hub model through Hugging Face Inference Providers (provider: {self.provider}); no endpoint of its own"


class LocalJudge(_Base):
    """An in-process ``transformers`` causal LM (the ``local`` extra)."""

    probes_capabilities: ClassVar[bool] = False  # its exact next-token distribution: expected works
    one_at_a_time: ClassVar[bool] = True

    kind: Literal["local"] = "local"
    model: str = Field(min_length=1)  # a model folder or a Hub id
    hf_model_id: str | None = None
    revision: str | None = None
    n_params: float | None = None

    @property
    def request_model(self) -> str:
        return self.model


class PublishedBuiltinJudge(BuiltinJudge):
    """A built-in judge as a results file records it."""

    recorded: ClassVar[bool] = True


class PublishedEndpointJudge(_EndpointFields):
    """An endpoint judge as a results file records it: its hosts, and none unless its submitter published them."""

    recorded: ClassVar[bool] = True

    @field_validator("endpoints")
    @classmethod
    def _hosts(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [h for h in v if not _HOST.fullmatch(h)]
        if bad:
            raise ValueError(f"a published endpoint is a host (host or host:port), got {bad[0]!r}")
        return v


class PublishedHubJudge(HubJudge):
    """A Hub judge as a results file records it."""

    recorded: ClassVar[bool] = True


class PublishedLocalJudge(LocalJudge):
    """An in-process judge as a results file records it."""

    recorded: ClassVar[bool] = True


Judge = Annotated[BuiltinJudge | EndpointJudge | HubJudge | LocalJudge, Field(discriminator="kind")]
#: What a results file records of a judge (:func:`published`): never a URL, an endpoint's hosts only.
PublishedJudge = Annotated[
    PublishedBuiltinJudge | PublishedEndpointJudge | PublishedHubJudge | PublishedLocalJudge,
    Field(discriminator="kind"),
]
AnyJudge = BuiltinJudge | _EndpointFields | HubJudge | LocalJudge  # a judge or its published record
_ADAPTER: TypeAdapter[BuiltinJudge | EndpointJudge | HubJudge | LocalJudge] = TypeAdapter(Judge)
_PUBLISHED: TypeAdapter[
    PublishedBuiltinJudge | PublishedEndpointJudge | PublishedHubJudge | PublishedLocalJudge
] = TypeAdapter(PublishedJudge)
#: the record type of each kind: the fields a flat description (:func:`judge_from_fields`) may give
_KINDS: Mapping[str, type[_Base]] = {
    str(t.model_fields["kind"].default): t for t in (BuiltinJudge, EndpointJudge, HubJudge, LocalJudge)
}


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


def published(judge: Judge) -> PublishedJudge:
    """The judge as a results file records it (the one conversion from a scored judge to its record):
    an endpoint judge's URLs reduced to their hosts, and to none unless its submitter published them
    (``publish_host``); any other judge as it is."""
    return _PUBLISHED.validate_python(judge._record_data())


def parse_published(data: Mapping[str, Any], source: str = "judge") -> PublishedJudge:
    """A judge record of a results file (current shape) from its plain data; :class:`JudgeSpecError` in one line."""
    try:
        return _PUBLISHED.validate_python(data)
    except ValidationError as e:
        raise JudgeSpecError(f"{source}: invalid judge {first_validation_problem(e)}") from None


def judge_from_fields(kind: str, fields: Mapping[str, object], source: str = "judge") -> Judge:
    """The one parser of flat judge descriptions (the command-line flags, the leaderboard's form):
    ``kind`` picks the record type, which takes the fields it has from ``fields`` (None: its default)
    and validates them. :class:`JudgeSpecError` in one line."""
    record = _KINDS.get(kind)
    if record is None:
        raise JudgeSpecError(f"{source}: unknown judge kind {kind!r}; valid: {', '.join(_KINDS)}")
    data = {k: v for k, v in fields.items() if v is not None and k in record.model_fields}
    return parse_judge({**data, "kind": kind}, source=source)


def host_of(url: str) -> str:
    """``host`` or ``host:port`` of an endpoint URL, lowercased: what results, duplicate checks and
    the Queue tab show of an endpoint (never the full URL)."""
    parts = urlsplit(url)
    host = (parts.hostname or url).lower()
    return f"{host}:{parts.port}" if parts.port else host
