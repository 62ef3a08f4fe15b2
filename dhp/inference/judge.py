"""Which judge is scored: one description from the submission form to the results file.

A judge is one of four kinds, a tagged union on ``kind``:

* :class:`BuiltinJudge` - a built-in control judge (:class:`~dhp.types.ControlJudge`), no endpoint;
* :class:`EndpointJudge` - an OpenAI-compatible or TGI endpoint (one or more replicas);
* :class:`HubJudge` - a Hub model id scored through Hugging Face Inference Providers (the router's
  OpenAI-compatible route, :mod:`dhp.inference.hub`), with the user's or operator's HF token;
* :class:`LocalJudge` - an in-process ``transformers`` model (a folder or a Hub id).

A kind is declared in one place, its class: its fields (each given on the command line by the flag,
and in the submission form by the input, that its :class:`FieldInput` names), what differs by kind
(sends requests, uses prompts, cacheable, probes the endpoint, its protocol and hosts, the secret it
needs) as class attributes or properties, and the name its flag gives by default. Declaring the class
registers the kind (:func:`judge_kinds`) and derives its published twin (``record_type``, the same
class with ``recorded`` set); the unions :data:`Judge` and :data:`PublishedJudge`, the command-line
flags of ``dhp score`` (:func:`field_inputs`) and the form's judge fields are made from the registered
kinds. Its backends are built by the registry of :mod:`dhp.inference.registry`, keyed by ``kind``.
Adding a kind is one class here and one ``@backend`` there; no caller checks the kind.

The leaderboard's form builds one (:mod:`dhp.leaderboard.submissions.validation`), the queue stores it in the
request, the worker hands it whole to ``dhp score --judge-file``, the command-line flags for humans
(``--judge``, ``--endpoint``, ``--model-id``, ``--local``) build the same object (the form and the
flags through one parser, :func:`judge_from_fields`), and the scorer embeds it in the results' judge
record as :func:`published` makes it: a :data:`PublishedJudge`, its kind's twin type (an endpoint's
URLs reduced to their hosts, and to none unless its submitter published them; a name scored under an
older rule kept; :class:`dhp.scoring.results.JudgeInfo`), which the registry refuses to score.
Its JSON form (:func:`dump_judge`, :func:`parse_judge`) round-trips and never holds a secret: API keys
stay in environment variables (:mod:`dhp.secrets`); an endpoint URL with credentials or a key-like
query parameter is refused. How the judge is scored (the mode, repeats, ...) is not part of it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType, UnionType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    TypeAdapter,
    ValidationError,
    field_validator,
)
from pydantic.fields import FieldInfo

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
    "FieldInput",
    "HubJudge",
    "Judge",
    "JudgeBase",
    "JudgeFlag",
    "JudgeSpecError",
    "LocalJudge",
    "PublishedJudge",
    "dump_judge",
    "field_inputs",
    "host_of",
    "judge_dict",
    "judge_flags",
    "judge_from_fields",
    "judge_from_flags",
    "judge_from_form",
    "judge_kinds",
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


@dataclass(frozen=True)
class FieldInput:
    """How one field of a judge kind is given by a human: its ``dhp score`` flag and, where the
    leaderboard's submission form offers it, the form's input (either may be None). Put in the field's
    annotation (``Annotated[str, FieldInput(...)]``); a field without one is given only in a judge file.

    The flag's argparse type, choices and default come from the field (an enum's values, a float, a
    tuple repeated; ``positive``: a number above 0); ``selects``: giving the flag picks the kind (one
    such field per kind); ``names``:
    the judge's name from the selecting flag's value when ``--judge-name`` is not given (None: the
    name must be given)."""

    flag: str | None
    help: str = ""
    form: str | None = None
    metavar: str | None = None
    selects: bool = False
    names: Callable[[str], str] | None = None
    positive: bool = False

    @property
    def dest(self) -> str:
        """The attribute argparse stores the flag's value in (``--model-id`` -> ``model_id``)."""
        return (self.flag or "").lstrip("-").replace("-", "_")


#: the fields several kinds share, each with its one flag and form input
_HfModelId = Annotated[
    str | None, FieldInput("--hf-model-id", "Hub id of the judge's model, recorded in results", "hf_model_id")
]
_Revision = Annotated[
    str | None,
    FieldInput("--model-revision", "revision of the judge's model, recorded in results", "revision"),
]
_NParams = Annotated[
    float | None, FieldInput("--n-params", "the judge's parameter count, recorded in results", positive=True)
]

_NAME = FieldInput("--judge-name", "the judge's name in results", "judge_name")

#: every declared kind -> its class, in declaration order (filled as each class is declared)
_KINDS: dict[str, type[JudgeBase]] = {}


class JudgeBase(BaseModel):
    """What every judge record has; what differs by kind is said by the class attributes below,
    never by a check of the kind where the judge is used. A subclass with a ``kind`` field declares a
    kind (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: a results file's record (:class:`PublishedJudge`): a name scored under an older rule is kept
    recorded: ClassVar[bool] = False
    #: the kind's published twin (derived when the kind is declared)
    record_type: ClassVar[type[JudgeBase]]
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

    name: Annotated[str, _NAME]

    if TYPE_CHECKING:  # every kind has these, as a field or a property (pydantic reads each kind's own)

        @property
        def kind(self) -> str: ...

        @property
        def hf_model_id(self) -> str | None: ...

        @property
        def revision(self) -> str | None: ...

        @property
        def n_params(self) -> float | None: ...

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """A class with a ``kind`` field declares that kind: it is registered, and its published twin
        derived (the same class, ``recorded``); a class declaring a kind declared already is refused."""
        super().__pydantic_init_subclass__(**kwargs)
        kind_field = cls.model_fields.get("kind")
        if kind_field is None or cls.recorded:
            return
        kind = str(kind_field.default)
        if kind in _KINDS:
            raise TypeError(f"judge kind {kind!r} is declared already, by {_KINDS[kind].__name__}")
        selecting = [name for name, g in field_inputs(cls).items() if g.selects and g.flag]
        if len(selecting) != 1:
            raise TypeError(f"judge kind {kind!r} needs one field whose flag selects it, has {selecting}")
        doc = f"{cls.__name__} as a results file records it (``recorded``: see :func:`published`)."
        cls.record_type = type(
            f"Published{cls.__name__}",
            (cls,),
            {
                "__module__": cls.__module__,
                "__qualname__": f"{cls.__qualname__}.record_type",
                "__doc__": doc,
                "recorded": True,
            },
        )  # found by its qualified name, as pickle looks a class up
        _KINDS[kind] = cls

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


def field_inputs(kind: type[JudgeBase]) -> dict[str, FieldInput]:
    """Field name -> how it is given (:class:`FieldInput`), for the fields of ``kind`` that have one."""
    return {
        name: given
        for name, info in kind.model_fields.items()
        for given in info.metadata
        if isinstance(given, FieldInput)
    }


class BuiltinJudge(JudgeBase):
    """A built-in control judge: it needs no endpoint and sends no request."""

    sends_requests: ClassVar[bool] = False
    uses_prompts: ClassVar[bool] = False
    cacheable: ClassVar[bool] = False
    probes_capabilities: ClassVar[bool] = False
    own_mode: ClassVar[ScoringMode | None] = ScoringMode.BUILTIN

    kind: Literal["builtin"] = "builtin"
    control: Annotated[
        ControlJudge,
        FieldInput(
            "--judge", "a built-in control judge (needs no endpoint)", "model", selects=True, names=str
        ),
    ]

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


class EndpointJudge(JudgeBase):
    """An endpoint judge; several URLs are replicas of one judge (requests go to the least busy).
    Its published record holds their hosts instead, and none unless its submitter published them."""

    over_http: ClassVar[bool] = True
    #: its key (never the operator's HF token: a submitted endpoint is anyone's server)
    secret_variable: ClassVar[str | None] = JUDGE_KEY_VARS[0]

    kind: Literal["endpoint"] = "endpoint"
    endpoints: Annotated[  # URLs; in a results record their hosts, or none
        tuple[str, ...],
        FieldInput(
            "--endpoint",
            "endpoint base URL; repeat for replicas of one judge (requests go to the least busy)",
            "endpoint_url",
            metavar="URL",
            selects=True,
        ),
    ]
    protocol: Annotated[EndpointProtocol, FieldInput("--protocol", "endpoint API", "protocol")] = (
        EndpointProtocol.OPENAI
    )
    model: Annotated[  # the model name sent to the endpoint; None: the one it lists
        str | None,
        FieldInput("--model", "model name sent to the endpoint (default: the one /v1/models lists)", "model"),
    ] = None
    hf_model_id: _HfModelId = None  # recorded in results
    revision: _Revision = None
    n_params: _NParams = None
    #: the Queue tab and results show its hosts only when the submitter said so
    publish_host: Annotated[bool, FieldInput(None, form="publish_host")] = False

    @field_validator("endpoints")
    @classmethod
    def _urls(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if cls.recorded:
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

    @property
    def route(self) -> str:
        return self.protocol.value

    @property
    def urls(self) -> tuple[str, ...]:
        return self.endpoints

    @property
    def submitted_urls(self) -> tuple[str, ...]:
        return () if self.recorded else self.endpoints

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

    def _record_data(self) -> dict[str, Any]:
        return {**super()._record_data(), "endpoints": list(self.shown_hosts)}


class HubJudge(JudgeBase):
    """A Hub model judged through Hugging Face Inference Providers (``provider`` "auto": the router chooses)."""

    over_http: ClassVar[bool] = True
    secret_variable: ClassVar[str | None] = HF_TOKEN_VAR  # the user's or operator's, sent only to the router

    kind: Literal["hub"] = "hub"
    model_id: Annotated[  # ORG/NAME on the Hub
        str,
        FieldInput(
            "--model-id",
            "a Hub model judged through Hugging Face Inference Providers, with your HF token (HF_TOKEN or "
            "`hf auth login`; never written)",
            "hf_model_id",
            metavar="ORG/NAME",
            selects=True,
            names=lambda model_id: model_id.rsplit("/", 1)[-1],  # NAME of ORG/NAME
        ),
    ]
    provider: Annotated[
        str,
        FieldInput(
            "--provider",
            "with --model-id: 'auto' (the router chooses) or a provider name, e.g. novita, together",
            "provider",
        ),
    ] = AUTO_PROVIDER
    revision: _Revision = None  # recorded in results (the providers serve their own revision)
    n_params: _NParams = None

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


class LocalJudge(JudgeBase):
    """An in-process ``transformers`` causal LM (the ``local`` extra)."""

    probes_capabilities: ClassVar[bool] = False  # its exact next-token distribution: expected works
    one_at_a_time: ClassVar[bool] = True

    kind: Literal["local"] = "local"
    model: Annotated[  # a model folder or a Hub id
        str,
        FieldInput(
            "--local", "an in-process transformers model (folder or Hub id)", metavar="MODEL", selects=True
        ),
        Field(min_length=1),
    ]
    hf_model_id: _HfModelId = None
    revision: _Revision = None
    n_params: _NParams = None

    @property
    def request_model(self) -> str:
        return self.model


@dataclass(frozen=True)
class JudgeFlag:
    """One ``dhp score`` flag of the judge, made from a :class:`FieldInput` a kind declares and its field."""

    given: FieldInput
    choices: tuple[str, ...] | None  # an enum field's values
    number: bool  # a float field
    repeated: bool  # a tuple field: the flag repeats
    default: Any  # the field's default (an enum's value); None for a required field or a selecting flag

    @property
    def held(self) -> bool:
        """A judge file holds its value (not a selecting flag, no default): refused beside ``--judge-file``."""
        return not self.given.selects and self.default is None


def judge_flags() -> tuple[JudgeFlag, ...]:
    """The judge's flags over every declared kind, each once: the selecting flags in kind order, then
    the others. A flag two kinds declare differently is refused."""
    found: dict[str, JudgeFlag] = {}
    for selecting in (True, False):
        for kind in _KINDS.values():
            for name, given in field_inputs(kind).items():
                if given.flag is not None and given.selects is selecting:
                    flag = _flag(given, kind.model_fields[name])
                    if found.setdefault(given.flag, flag) != flag:
                        raise TypeError(f"judge flag {given.flag} is declared twice, differently")
    return tuple(found.values())


def _flag(given: FieldInput, field: FieldInfo) -> JudgeFlag:
    union = get_origin(field.annotation) in (UnionType, Union)
    types = tuple(get_origin(t) or t for t in (get_args(field.annotation) if union else (field.annotation,)))
    enum = next((t for t in types if isinstance(t, type) and issubclass(t, Enum)), None)
    default = None if field.is_required() or given.selects else field.default
    if given is _NAME:
        given = replace(given, help=f"{given.help} (required for {' and '.join(_unnamed())} judges)")
    return JudgeFlag(
        given=given,
        choices=None if enum is None else tuple(str(m.value) for m in enum),
        number=float in types,
        repeated=tuple in types,
        default=default.value if isinstance(default, Enum) else default,
    )


def _selecting() -> dict[str, tuple[str, FieldInput]]:
    """Kind -> its selecting field and that field's input."""
    return {
        kind: next((name, g) for name, g in field_inputs(cls).items() if g.selects and g.flag)
        for kind, cls in _KINDS.items()
    }


def _unnamed() -> list[str]:
    """The selecting flags that give no name (their judges need ``--judge-name``)."""
    return [str(g.flag) for _, g in _selecting().values() if g.names is None]


def judge_from_flags(values: Mapping[str, Any], *, alternative: str = "") -> Judge:
    """The judge ``dhp score``'s flags describe: ``values`` maps each flag's ``dest`` to its value
    (argparse's namespace). Exactly one selecting flag picks the kind (``alternative``, e.g.
    ``--judge-file FILE``, is named beside them when none or several are given); the kind's fields
    take their flags' values, the name the selecting flag's (``FieldInput.names``) when not given.
    :class:`JudgeSpecError` in one line."""
    selecting = _selecting()
    chosen = [kind for kind, (_, g) in selecting.items() if values.get(g.dest)]
    if len(chosen) != 1:
        named = [f"{g.flag} {g.metavar or g.dest.upper()}" for _, g in selecting.values()]
        named += [alternative] if alternative else []
        raise JudgeSpecError(f"give exactly one of {', '.join(named[:-1])} or {named[-1]}")
    kind = chosen[0]
    selected, given = selecting[kind]
    fields = {name: values.get(g.dest) for name, g in field_inputs(_KINDS[kind]).items() if g.flag}
    if not fields["name"] and given.names is not None:
        fields["name"] = given.names(str(fields[selected]))
    if not fields["name"]:
        raise JudgeSpecError(f"{_NAME.flag} is required for {' and '.join(_unnamed())} judges")
    return judge_from_fields(kind, fields, source=str(given.flag))


def judge_from_form(kind: str, values: Mapping[str, object], source: str = "submission") -> Judge:
    """The judge of ``kind`` from the leaderboard form's values (form input -> value): each field of the
    kind takes the value of the input its :class:`FieldInput` names (a tuple field, one value, as one
    item); :func:`judge_from_fields` validates. :class:`JudgeSpecError` in one line."""
    cls = _KINDS.get(kind)
    if cls is None:
        raise JudgeSpecError(f"{source}: unknown judge kind {kind!r}; valid: {', '.join(_KINDS)}")
    fields: dict[str, object] = {}
    for name, given in field_inputs(cls).items():
        if given.form is not None and given.form in values:
            one = values[given.form]
            many = get_origin(cls.model_fields[name].annotation) is tuple
            fields[name] = [one] if many and isinstance(one, str) else one
    return judge_from_fields(kind, fields, source=source)


def judge_kinds() -> Mapping[str, type[JudgeBase]]:
    """Every declared kind -> its class, in declaration order."""
    return MappingProxyType(_KINDS)


@functools.cache
def _union(types: tuple[type[JudgeBase], ...]) -> Any:
    return Annotated[Union[types], Field(discriminator="kind")]  # noqa: UP007 (a tuple of types)


@functools.cache
def _adapter(types: tuple[type[JudgeBase], ...]) -> TypeAdapter[Any]:
    return TypeAdapter(_union(types))


def _judges() -> TypeAdapter[Any]:
    """The tagged union of the kinds declared now (a kind declared later, e.g. by a test, is in it)."""
    return _adapter(tuple(_KINDS.values()))


def _records() -> TypeAdapter[Any]:
    return _adapter(tuple(k.record_type for k in _KINDS.values()))


@dataclass(frozen=True)
class _DeclaredKinds:
    """A pydantic marker: the tagged union on ``kind`` of the kinds declared when the model (or adapter)
    naming it is built, or of their published twins (``records``)."""

    records: bool

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        kinds = tuple(k.record_type if self.records else k for k in _KINDS.values())
        return handler.generate_schema(_union(kinds))


if TYPE_CHECKING:
    #: a judge to score: one of the declared kinds (pydantic validates the tagged union on ``kind``)
    Judge = JudgeBase
    #: what a results file records of a judge (:func:`published`): never a URL, an endpoint's hosts only
    PublishedJudge = JudgeBase
else:  # as a pydantic field's type: the kinds declared when its model is built
    Judge = Annotated[JudgeBase, _DeclaredKinds(records=False)]
    PublishedJudge = Annotated[JudgeBase, _DeclaredKinds(records=True)]
AnyJudge = JudgeBase  # a judge or its published record


def parse_judge(data: str | bytes | Mapping[str, Any], source: str = "judge") -> Judge:
    """Validate a judge from its JSON text or plain data; :class:`JudgeSpecError` in one line."""
    try:
        if isinstance(data, Mapping):
            return _judges().validate_python(data)  # type: ignore[no-any-return]
        return _judges().validate_json(data)  # type: ignore[no-any-return]
    except ValidationError as e:
        raise JudgeSpecError(f"{source}: invalid judge {first_validation_problem(e)}") from None


def judge_dict(judge: Judge) -> dict[str, Any]:
    """The judge as plain JSON data (what :func:`parse_judge` reads back)."""
    return dict(_judges().dump_python(judge, mode="json"))


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
    return _records().validate_python(judge._record_data())  # type: ignore[no-any-return]


def parse_published(data: Mapping[str, Any], source: str = "judge") -> PublishedJudge:
    """A judge record of a results file (current shape) from its plain data; :class:`JudgeSpecError` in one line."""
    try:
        return _records().validate_python(data)  # type: ignore[no-any-return]
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
