"""Validation of leaderboard submissions: pure functions, with the DNS resolver injected.

A submission names an endpoint the queue worker will send requests to, so in Space mode the URL is
an SSRF risk: only ``https`` is accepted, and the host must not be (or resolve to) a private,
loopback, link-local, reserved or cloud-metadata address. In local mode ``http`` is accepted for
loopback hosts only (a judge served on the same machine), and private addresses are allowed.

Nothing here does I/O except through the ``resolver`` argument (default: ``socket.getaddrinfo``).
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from dhp.inference.addresses import address_problem
from dhp.inference.hub import AUTO_PROVIDER, router_model
from dhp.inference.judge import AnyJudge, Judge, JudgeSpecError, judge_from_form
from dhp.naming import JUDGE_NAME_RULE, MisleadingNameError, check_judge_name, judge_slug, name_key, slug
from dhp.secrets import secret_in_url
from dhp.types import CONTROL_JUDGES, MODE_AUTO, MODE_CHOICES, PROTOCOLS, EndpointProtocol, ScoringMode

__all__ = [
    "HTTPS_PORTS",
    "LIMITS",
    "METADATA_HOSTS",
    "SCORING_MODES",
    "Mode",
    "Resolver",
    "Submission",
    "SubmissionErrors",
    "ValidationError",
    "allowed_ports_from_env",
    "check_endpoint_url",
    "find_duplicate",
    "judge_key",
    "system_resolver",
    "validate_submission",
]

Mode = Literal["local", "space"]
Resolver = Callable[[str], Sequence[str]]

HTTPS_PORTS: frozenset[int] = frozenset({443})
SCORING_MODES: tuple[str, ...] = tuple(m for m in MODE_CHOICES if m != MODE_AUTO)

#: Maximum lengths of the form's fields (characters).
LIMITS: Mapping[str, int] = {
    "judge_name": 64,
    "endpoint_url": 400,
    "model": 200,
    "hf_model_id": 96,
    "provider": 40,
    "revision": 64,
    "contact": 120,
}

#: Host names of cloud metadata services (their addresses are refused as link-local/private too).
METADATA_HOSTS: frozenset[str] = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.com",
        "metadata.platformequinix.com",
        "metadata.tencentyun.com",
        "100-100-100-200.metadata",
    }
)

_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$")
_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")
_CONTACT = re.compile(r"^[A-Za-z0-9@._+ -]+$")
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class ValidationError(ValueError):
    """A submission field is invalid; ``field`` names it and the message says why (one line)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class SubmissionErrors(ValidationError):
    """Every problem of a submission, in form order; ``field``/``message`` are the first one's."""

    def __init__(self, errors: Sequence[ValidationError]) -> None:
        super().__init__(errors[0].field, errors[0].message)
        self.errors = tuple(errors)

    def __str__(self) -> str:
        return " ".join(e.message for e in self.errors)


class Submission(BaseModel):
    """A validated submission: the judge (:data:`dhp.inference.judge.Judge`; whether its endpoint host may be
    shown is the judge's ``publish_host``) and what the form adds, how to score it and whom to tell.
    A queued request (:class:`dhp.leaderboard.submissions.queue.QueuedRequest`) is a submission plus its queue state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: Judge
    mode: str  # expected | paper | sample; a built-in judge: "builtin" (ScoringMode.BUILTIN)
    contact: str = ""

    @property
    def judge_name(self) -> str:
        return self.judge.name


def system_resolver(host: str) -> list[str]:
    """All addresses ``host`` resolves to (IPv4 and IPv6), via the system resolver."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def _clean(
    field: str, value: str | None, *, required: bool, pattern: re.Pattern[str] | None, what: str
) -> str:
    v = (value or "").strip()
    if not v:
        if required:
            raise ValidationError(field, f"{what} is required.")
        return ""
    limit = LIMITS[field]
    if len(v) > limit:
        raise ValidationError(field, f"{what} is too long ({len(v)} characters; at most {limit}).")
    if any(unicodedata.category(c).startswith("C") for c in v):
        raise ValidationError(field, f"{what} must not contain control characters.")
    if pattern is not None and not pattern.match(v):
        raise ValidationError(field, f"{what} contains characters that are not allowed: {v!r}.")
    return v


def _is_loopback_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_ports_from_env() -> frozenset[int]:
    """Ports a Space accepts in endpoint URLs: 443 (standard HTTPS) unless the operator sets
    ``DHP_ALLOWED_PORTS`` (comma-separated, e.g. ``443,8443``)."""
    raw = os.environ.get("DHP_ALLOWED_PORTS", "").strip()
    if not raw:
        return HTTPS_PORTS
    try:
        ports = frozenset(int(x) for x in raw.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"DHP_ALLOWED_PORTS must list port numbers, got {raw!r}") from None
    if not ports or not all(1 <= p <= 65535 for p in ports):
        raise ValueError(f"DHP_ALLOWED_PORTS must list port numbers in 1..65535, got {raw!r}")
    return ports


def _split_url(url: str) -> tuple[str, str, int | None, str]:
    """Scheme, host, port and the URL, after the checks that hold in every mode."""
    field = "endpoint_url"
    url = _clean(field, url, required=False, pattern=None, what="Endpoint URL")
    if not url:
        raise ValidationError(
            field,
            "Give an endpoint URL, or leave it empty and give an HF model id (scored through Inference Providers).",
        )
    if "://" not in url:
        raise ValidationError(field, f"Endpoint URL must look like https://host/path, not {url[:60]!r}.")
    if any(c.isspace() for c in url):
        raise ValidationError(field, "Endpoint URL must not contain spaces.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise ValidationError(field, f"Endpoint URL is malformed ({e}).") from None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if scheme not in ("http", "https") or not host:
        raise ValidationError(field, f"Endpoint URL must look like https://host/path, not {url[:60]!r}.")
    problem = secret_in_url(url)
    if problem == "credentials":
        raise ValidationError(
            field, "Endpoint URL must not contain credentials; the worker supplies the API key itself."
        )
    if parts.fragment:
        raise ValidationError(field, "Endpoint URL must not contain a #fragment.")
    if problem:
        raise ValidationError(field, f"Endpoint URL must not carry secrets in its query string ({problem}).")
    if port is not None and not (1 <= port <= 65535):
        raise ValidationError(field, "Endpoint URL has an invalid port.")
    return scheme, host, port, url


def _check_public_host(host: str, resolver: Resolver | None) -> None:
    """Space mode: the host, literal or resolved, must be a public address."""
    field = "endpoint_url"
    if host in METADATA_HOSTS or host.endswith(".internal"):
        raise ValidationError(field, f"Endpoint host {host!r} is a cloud metadata or internal host.")
    if host == "localhost" or host.endswith(".localhost"):
        raise ValidationError(field, "Endpoint host must be public, not localhost.")
    try:
        literal: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None:
        why = address_problem(literal)
        if why:
            raise ValidationError(
                field, f"Endpoint host {host} is {why}; only public endpoints are accepted."
            )
        return
    labels = host.split(".")
    if len(labels) < 2 or not all(_HOST_LABEL.match(lb) for lb in labels):
        raise ValidationError(field, f"Endpoint host {host!r} is not a valid public host name.")
    _check_resolved(host, resolver)


def _check_resolved(host: str, resolver: Resolver | None) -> None:
    """Space mode: a host name must resolve, and only to public addresses."""
    field = "endpoint_url"
    try:
        addrs = list((resolver or system_resolver)(host))
    except (OSError, UnicodeError) as e:
        raise ValidationError(field, f"Endpoint host {host!r} does not resolve ({e}).") from None
    if not addrs:
        raise ValidationError(field, f"Endpoint host {host!r} does not resolve.")
    for a in addrs:
        try:
            ip = ipaddress.ip_address(a.split("%", 1)[0])
        except ValueError:
            raise ValidationError(field, f"Endpoint host {host!r} resolves to an invalid address.") from None
        why = address_problem(ip)
        if why:
            raise ValidationError(
                field, f"Endpoint host {host!r} resolves to {a}, {why}; only public endpoints are accepted."
            )


def check_endpoint_url(
    url: str, mode: Mode, resolver: Resolver | None = None, allowed_ports: frozenset[int] = HTTPS_PORTS
) -> str:
    """Validate an endpoint URL for ``mode`` and return it normalised (no trailing slash).

    Space mode: https only, on an allowed port (default 443 only); the host (literal or resolved)
    must be public. Local mode: https to any host, http to loopback hosts only. Credentials in the
    URL and secret-looking query parameters are refused everywhere, because the URL is stored in
    the requests store.
    """
    field = "endpoint_url"
    scheme, host, port, url = _split_url(url)
    loopback = _is_loopback_host(host)
    if scheme == "http":
        if mode == "space":
            raise ValidationError(field, "Endpoint URL must use https.")
        if not loopback:
            raise ValidationError(field, "Endpoint URL must use https (http is accepted only for localhost).")
    if mode == "space":
        _check_public_host(host, resolver)
        if (port or 443) not in allowed_ports:
            ok = ", ".join(str(p) for p in sorted(allowed_ports))
            raise ValidationError(
                field, f"Endpoint URL must use the standard HTTPS port (allowed here: {ok})."
            )
    return url.rstrip("/")


_FORM_ORDER = (
    "judge_name",
    "contact",
    "endpoint_url",
    "protocol",
    "model",
    "mode",
    "hf_model_id",
    "provider",
    "revision",
)


def _gather(checks: Sequence[Callable[[], object]]) -> tuple[list[object], list[ValidationError]]:
    """Run every check; the values (None where one failed) and all the errors, not only the first."""
    values: list[object] = []
    errors: list[ValidationError] = []
    for check in checks:
        try:
            values.append(check())
        except ValidationError as e:
            values.append(None)
            errors.append(e)
    return values, errors


Route = Literal["builtin", "endpoint", "hub"]


def _route(protocol: str, endpoint_url: str | None, hf_model_id: str | None) -> Route:
    """Which kind of judge the form describes: a built-in (protocol "builtin"), a Hub model id (no
    endpoint URL, an HF model id: scored through Inference Providers), else an endpoint."""
    if protocol == "builtin":
        return "builtin"
    if not (endpoint_url or "").strip() and (hf_model_id or "").strip():
        return "hub"
    return "endpoint"


def validate_submission(
    *,
    judge_name: str | None,
    endpoint_url: str | None,
    protocol: str | None,
    model: str | None,
    hf_model_id: str | None,
    revision: str | None,
    mode: str | None,
    contact: str | None,
    app_mode: Mode,
    provider: str | None = None,
    resolver: Resolver | None = None,
    allowed_ports: frozenset[int] = HTTPS_PORTS,
    publish_host: bool = False,
) -> Submission:
    """Check every field of the form; raise :class:`SubmissionErrors` listing every problem, in form order.

    An endpoint URL gives an endpoint judge; an empty URL with an HF model id gives a Hub judge
    (scored through Inference Providers, ``provider`` "auto" unless named); protocol "builtin"
    (local mode only) gives a built-in control judge. ``publish_host``: the submitter lets the
    Queue tab and the results show an endpoint's host (default: hidden)."""
    proto = (protocol or "").strip().lower()
    route = _route(proto, endpoint_url, hf_model_id)
    allowed = (*PROTOCOLS, "builtin") if app_mode == "local" else PROTOCOLS
    checks: dict[str, Callable[[], object]] = {
        "judge_name": lambda: _judge_name(judge_name),
        "contact": lambda: _clean("contact", contact, required=True, pattern=_CONTACT, what="Contact"),
        "endpoint_url": lambda: check_endpoint_url(endpoint_url or "", app_mode, resolver, allowed_ports) if route == "endpoint" else "",
        "protocol": lambda: _protocol(proto, allowed, route),
        "model": lambda: _model(model, route),
        "mode": lambda: ScoringMode.BUILTIN.value if route == "builtin" else _one_of("mode", (mode or "").strip().lower(), SCORING_MODES, "Scoring mode"),
        "hf_model_id": lambda: _clean("hf_model_id", hf_model_id, required=False, pattern=_HF_ID, what="HF model id") or None,
        "provider": lambda: _provider(provider, route),
        "revision": lambda: _revision(revision, hf_model_id),
    }  # fmt: skip
    values, errors = _gather([checks[f] for f in _FORM_ORDER])
    if errors:
        raise SubmissionErrors(errors)
    v = dict(zip(_FORM_ORDER, values, strict=True))
    return Submission(judge=_judge_of(route, v, publish_host), mode=str(v["mode"]), contact=str(v["contact"]))


def _judge_of(route: Route, v: Mapping[str, object], publish_host: bool) -> Judge:
    """The judge the checked form values describe (they satisfy every rule of :mod:`dhp.inference.judge`);
    which input gives which field, the kind's class says (:func:`dhp.inference.judge.judge_from_form`)."""
    try:
        return judge_from_form(route, {**v, "publish_host": publish_host}, source="submission")
    except JudgeSpecError as e:
        raise SubmissionErrors([ValidationError("judge", str(e))]) from None


def _judge_name(value: str | None) -> str:
    """The judge record's own name rule (:func:`dhp.naming.check_judge_name`), worded for the form:
    what breaks it (link markup, a word mixing scripts), else the rule."""
    name = _clean("judge_name", value, required=True, pattern=None, what="Judge name")
    try:
        return check_judge_name(name)
    except MisleadingNameError as e:
        raise ValidationError("judge_name", f"J{str(e)[1:]}.") from None
    except ValueError:
        raise ValidationError("judge_name", f"Judge name must be {JUDGE_NAME_RULE}.") from None


def _one_of(field: str, value: str, allowed: Sequence[str], what: str) -> str:
    if value not in allowed:
        raise ValidationError(field, f"{what} must be one of: {', '.join(allowed)}.")
    return value


def _protocol(value: str, allowed: Sequence[str], route: Route) -> str:
    proto = _one_of("protocol", value, allowed, "Protocol")
    if route == "hub" and proto != EndpointProtocol.OPENAI.value:
        raise ValidationError(
            "protocol",
            "A Hub model id is scored through the router's OpenAI-compatible route: choose protocol openai.",
        )
    return proto


def _model(value: str | None, route: Route) -> str:
    if route == "hub":
        if (value or "").strip():
            raise ValidationError(
                "model", "Leave the model name empty for a Hub model id (the router is sent the HF model id)."
            )
        return ""
    mdl = _clean("model", value, required=True, pattern=_MODEL, what="Model name")
    if route == "builtin" and mdl not in CONTROL_JUDGES:
        raise ValidationError("model", f"Built-in control judge must be one of: {', '.join(CONTROL_JUDGES)}.")
    return mdl


def _provider(value: str | None, route: Route) -> str:
    prov = (value or "").strip().lower() or AUTO_PROVIDER
    if route != "hub":
        if prov != AUTO_PROVIDER:
            raise ValidationError(
                "provider",
                "A provider applies only to a Hub model id (leave the endpoint URL empty to use one).",
            )
        return prov
    try:
        if len(prov) > LIMITS["provider"]:
            raise ValueError(f"at most {LIMITS['provider']} characters")
        router_model("org/name", prov)  # the router's rule for provider names
    except ValueError:
        raise ValidationError(
            "provider", f"Provider must be 'auto' or a provider name such as 'novita', not {prov[:40]!r}."
        ) from None
    return prov


def _revision(value: str | None, hf_model_id: str | None) -> str | None:
    rev = _clean("revision", value, required=False, pattern=_REVISION, what="Revision") or None
    if rev and not (hf_model_id or "").strip():
        raise ValidationError("revision", "A revision needs an HF model id.")
    if rev and ".." in rev:
        raise ValidationError("revision", "Revision must not contain '..'.")
    return rev


def judge_key(judge: AnyJudge, mode: str) -> tuple[str, ...]:
    """What makes two judges the same, for queued requests and leaderboard rows alike (a row's
    judge is its results' :func:`dhp.inference.judge.published` record): where the judge is reached (an
    endpoint's host, ``hub:<provider>``, or nothing), model, revision, protocol and scoring mode,
    case-insensitive. Two servers on different hosts may both report the model name "tgi". A row
    whose host was not published has none in its key: the queue, which keeps the host privately,
    catches the resubmission of a judge still queued."""
    provider = judge.provider_name
    where = f"hub:{provider}" if provider else min(judge.hosts, default="")
    model = judge.hf_model_id or judge.request_model or ""
    return tuple(x.strip().lower() for x in (where, model, judge.revision or "", judge.route, mode))


@dataclass(frozen=True)
class Existing:
    """Something already on the leaderboard or in the queue, for duplicate checks."""

    judge_name: str
    key: tuple[str, ...]
    where: str  # e.g. "leaderboard row 'x'" or "request 20250101-... (PENDING)"


def _folder(name: str) -> str:
    """The results folder of ``name`` (:func:`dhp.naming.judge_slug`: one per distinct name, in any
    script); a stored name of older, looser rules that it refuses: its plain :func:`slug`."""
    try:
        return judge_slug(name)
    except ValueError:
        return slug(name.strip())


def find_duplicate(sub: Submission, existing: Iterable[Existing]) -> str | None:
    """A message pointing at the existing row or request that ``sub`` duplicates, else None: the same
    judge (:func:`judge_key`), the same name (its slug names the results folder), or a name that reads
    like a taken one (:func:`dhp.naming.name_key`: homoglyphs, full-width or case twins)."""
    key = judge_key(sub.judge, sub.mode)
    name_slug, reads_as = _folder(sub.judge_name), name_key(sub.judge_name)
    for e in existing:
        if e.key == key:
            return (
                f"This endpoint or Hub model, model, revision and scoring settings were already submitted: see "
                f"{e.where}. To score the judge again, change the scoring mode, or give its HF model id with a new "
                "revision."
            )
        if _folder(e.judge_name) == name_slug:
            return f"The judge name {sub.judge_name!r} is taken (see {e.where}); choose another name."
        if name_key(e.judge_name) == reads_as:
            return (
                f"The judge name {sub.judge_name!r} reads like {e.judge_name!r} (see {e.where}): letters that "
                "look alike are one name; choose another name."
            )
    return None
