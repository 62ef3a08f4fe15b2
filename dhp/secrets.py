"""API keys: read from the environment only, and scrubbed from anything shown or stored."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = [
    "HOST_HIDDEN",
    "JUDGE_KEY_VARS",
    "PERTURBER_KEY_VARS",
    "api_key_from_env",
    "hide_hosts",
    "scrub",
    "secret_in_url",
]

#: Where `dhp score` and the leaderboard worker look for the judge endpoint's key, in order.
JUDGE_KEY_VARS = ("DHP_JUDGE_API_KEY", "HF_TOKEN")
#: Where `dhp build --perturber` looks for the perturbing LLM endpoint's key, in order.
PERTURBER_KEY_VARS = ("DHP_PERTURBER_API_KEY", "HF_TOKEN")

_SECRET_PATTERNS = (
    re.compile(r"\bhf_[A-Za-z0-9]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+"),
    re.compile(r"(?i)\b(api[_-]?key|token|authorization|password|secret)(\s*=\s*|:|\"\s*:\s*\")[^\s\"',]+"),
    # "token: VALUE" with a space is a key-value only when VALUE looks like one (a digit, or 12+
    # characters): "needs a token: set HF_TOKEN" is prose and stays readable
    re.compile(
        r"(?i)\b(api[_-]?key|token|authorization|password|secret)(:\s+)(?=[^\s\"',]*\d|[^\s\"',]{12})[^\s\"',]+"
    ),
)

_SECRET_QUERY = re.compile(
    r"(^|[_-])(key|token|secret|password|passwd|auth|sig|signature|api-?key)($|[_-])", re.I
)


def secret_in_url(url: str) -> str | None:
    """What in ``url`` would put a secret where URLs are stored: ``"credentials"`` (user:password@),
    ``"query parameter 'NAME'"`` (a key-, token- or signature-like name), or None."""
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        return "credentials"
    for pair in parts.query.split("&") if parts.query else []:
        key = pair.split("=", 1)[0]
        if _SECRET_QUERY.search(key):
            return f"query parameter {key!r}"
    return None


def api_key_from_env(names: Sequence[str]) -> str | None:
    """The first non-empty variable of `names`, or None."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def scrub(text: str, secrets: Sequence[str] = ()) -> str:
    """Remove known secret values and anything that looks like a key or token."""
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "[REDACTED]")
    for pat in _SECRET_PATTERNS:
        text = pat.sub(lambda m: (m.group(1) + " [REDACTED]") if m.lastindex else "[REDACTED]", text)
    return text


#: What a hidden endpoint host reads as wherever a visitor can read text about its judge.
HOST_HIDDEN = "[host hidden]"
_IP_LITERALS = (
    re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?![\w.])"),  # IPv4[:port]
    re.compile(r"\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](?::\d{1,5})?"),  # [IPv6][:port]
    re.compile(r"(?<=')[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?=')"),  # a quoted IPv6 address (socket tuples)
)
_HIDDEN = re.escape(HOST_HIDDEN)
#: a hidden host's port, wherever it is written beside it: ``[host hidden]:8080``, Python's socket
#: address ``('[host hidden]', 8080)`` or ``('[host hidden]', 8080, 0, 0)``, ``[host hidden] port 8080``
_HIDDEN_PORT = re.compile(
    rf"\(\s*'{_HIDDEN}'\s*(?:,\s*\d+\s*)+\)|{_HIDDEN}(?::\d{{1,5}}|\s*,?\s*port\s*[=:]?\s*\d{{1,5}})", re.I
)


def hide_hosts(text: str, urls: Sequence[str]) -> str:
    """``text`` with nothing left that names where ``urls`` point: each URL, its host (with or
    without port, any case) and every IP address literal (what the host resolved to) become
    :data:`HOST_HIDDEN`, and so does the port written beside a hidden host (``host:port``, a socket
    address ``('host', port)``). For the text of a judge whose submitter did not publish its host."""
    names: set[str] = set()
    for url in urls:
        parts = urlsplit(url)
        names.add(url.rstrip("/"))
        host = (parts.hostname or "").rstrip(".")
        if host:
            names.update({host, f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"})
    for name in sorted(names, key=len, reverse=True):  # the URL before its host, host:port before host
        text = re.sub(re.escape(name), HOST_HIDDEN, text, flags=re.I)
    for pat in _IP_LITERALS:
        text = pat.sub(HOST_HIDDEN, text)
    return _HIDDEN_PORT.sub(HOST_HIDDEN, text)
