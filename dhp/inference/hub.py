"""Judges by Hub model id, through Hugging Face Inference Providers.

``dhp score --model-id ORG/NAME [--provider auto|NAME]`` sends the judge's requests to the Hugging
Face router's OpenAI-compatible route (``POST https://router.huggingface.co/v1/chat/completions``),
the route ``huggingface_hub``'s ``InferenceClient(provider="auto")`` uses for chat completions:
the body's ``model`` is the Hub id, with ``:PROVIDER`` appended to pin a provider (``auto`` lets
the router choose by availability and the user's preferences). The requests then go through the
same lean HTTP path, pool and cache as any endpoint (:mod:`dhp.inference.http`).

The token is the user's Hugging Face token: ``HF_TOKEN``, else the one ``hf auth login`` stored
(``huggingface_hub.get_token``). It is sent only to the router, never written or logged.
``DHP_HF_ROUTER_URL`` points the judge at another router (a proxy, or a loopback replay in tests).
``HF_HUB_OFFLINE=1`` forbids the Hugging Face router like any other Hub access: such a judge fails
at once in one line (:func:`router_refusal`), before any request; a router named in
``DHP_HF_ROUTER_URL`` is the user's explicit choice and is used.

Every command that talks to the Hub itself (datasets, models, publishing, the Space) reports a Hub it
cannot use in one line: :func:`hub_unusable_errors` is what ``huggingface_hub`` raises then, and
:func:`hub_failure` the line (offline mode, unreachable, or the Hub's own refusal).
"""

from __future__ import annotations

import os
import re

__all__ = [
    "AUTO_PROVIDER",
    "HF_ROUTER_URL",
    "ROUTER_URL_ENV",
    "hf_token",
    "hub_failure",
    "hub_offline",
    "hub_unusable_errors",
    "router_model",
    "router_refusal",
    "router_url",
]

HF_ROUTER_URL = "https://router.huggingface.co"
ROUTER_URL_ENV = "DHP_HF_ROUTER_URL"
AUTO_PROVIDER = "auto"
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def router_url() -> str:
    """The router's base URL: ``DHP_HF_ROUTER_URL`` when set, else the Hugging Face router."""
    return os.environ.get(ROUTER_URL_ENV) or HF_ROUTER_URL


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` is set (read now, not when ``huggingface_hub`` was imported), as the Hub client reads it."""
    from huggingface_hub import constants

    return (
        constants.is_offline_mode()
        or os.environ.get("HF_HUB_OFFLINE", "").upper() in constants.ENV_VARS_TRUE_VALUES
    )


def router_refusal(flag: str = "--model-id") -> str | None:
    """Why a judge by Hub model id may not be scored now (``HF_HUB_OFFLINE`` and the Hugging Face
    router), in one line; None when it may."""
    if os.environ.get(ROUTER_URL_ENV) or not hub_offline():
        return None
    return (
        f"{flag} is scored through the Hugging Face router ({HF_ROUTER_URL}), and HF_HUB_OFFLINE is set, "
        "so it is not contacted; unset HF_HUB_OFFLINE, or score an endpoint with --endpoint"
    )


def router_model(model_id: str, provider: str = AUTO_PROVIDER) -> str:
    """The ``model`` field the router expects: ``ORG/NAME``, or ``ORG/NAME:PROVIDER`` to pin a provider."""
    if not _MODEL_ID.match(model_id):
        raise ValueError(f"--model-id must be a Hub model id ORG/NAME, got {model_id!r}")
    if provider == AUTO_PROVIDER:
        return model_id
    if not _PROVIDER.match(provider):
        raise ValueError(f"--provider must be 'auto' or a provider name such as 'novita', got {provider!r}")
    return f"{model_id}:{provider}"


def hf_token() -> str | None:
    """The user's Hugging Face token: ``HF_TOKEN``, else the stored login (no network access)."""
    from huggingface_hub import get_token

    return os.environ.get("HF_TOKEN") or get_token()


def hub_unusable_errors() -> tuple[type[BaseException], ...]:
    """What ``huggingface_hub`` raises when the Hub cannot be reached, offline mode forbids it, or it refuses.

    ``OSError`` covers ``OfflineModeIsEnabled``, ``LocalEntryNotFoundError`` and ``HfHubHTTPError`` (the
    Hub's own answers); ``httpx2.TransportError`` a connection that failed (huggingface_hub >= 1.0).
    """
    import httpx2

    return (OSError, httpx2.TransportError)


def _one_line(e: BaseException, limit: int = 200) -> str:
    cause = " ".join(str(e).split()) or type(e).__name__
    return cause if len(cause) <= limit else cause[:limit] + "..."


def hub_failure(what: str, e: BaseException, endpoint: str | None = None) -> str:
    """One line: ``what`` could not be had from the Hub at ``endpoint`` (default: ``HF_ENDPOINT``), and why."""
    from huggingface_hub import constants
    from huggingface_hub.errors import HfHubHTTPError

    where = endpoint or constants.ENDPOINT
    if constants.is_offline_mode():
        return f"{what}: HF_HUB_OFFLINE is set, so the Hub ({where}) is not contacted; unset it"
    response = getattr(e, "response", None) if isinstance(e, HfHubHTTPError) else None
    if response is not None:
        return f"{what}: the Hub at {where} answered HTTP {response.status_code} ({_one_line(e)})"
    return f"{what}: cannot reach the Hub at {where} ({type(e).__name__}: {_one_line(e)}); check the network"
