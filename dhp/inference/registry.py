"""The one registry of backends, keyed by the judge's kind: a judge record in, its replicas out.

Each kind of judge (declared by its class in :mod:`dhp.inference.judge`) registers the function
that builds its backends with :func:`backend` (as inspect_ai's ``@modelapi`` registers a provider by name), and
:func:`build_backends` builds any judge by looking its kind up here. Nothing else builds a backend
for a judge, and no caller asks which kind of judge it holds:

* ``builtin`` - a control judge of :mod:`dhp.inference.builtin` (no request leaves the process);
* ``local`` - the in-process ``transformers`` model of :mod:`dhp.inference.local`, loaded before
  the first request (outside any per-request timeout);
* ``endpoint`` and ``hub`` - one HTTP backend per replica (:mod:`dhp.inference.http`), the model
  name discovered from the endpoint when the judge does not name it (and always from TGI's
  ``/info``, which also proves the server is TGI). An endpoint's key comes from the environment
  (``DHP_JUDGE_API_KEY``, else ``HF_TOKEN``); a Hub judge's is the user's Hugging Face token.

A judge that cannot be built for a reason the user can fix (no token, ``HF_HUB_OFFLINE``) raises
:class:`BackendSetupError` in one line, before any request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from dhp.inference.judge import BuiltinJudge, EndpointJudge, HubJudge, Judge, JudgeBase, LocalJudge
from dhp.inference.protocol import Backend, ScoringRequest
from dhp.secrets import JUDGE_KEY_VARS, api_key_from_env
from dhp.types import EndpointProtocol

__all__ = ["BackendOptions", "BackendSetupError", "Backends", "backend", "build_backends", "registered_kinds"]


class BackendSetupError(Exception):
    """A judge whose backends cannot be built now (no token, the Hub forbidden); one line."""


@dataclass(frozen=True)
class BackendOptions:
    """How the backends of one run are made: the seed of the built-in and local judges, each HTTP
    request's timeout and the connections one replica may keep (the run's concurrency)."""

    seed: int = 0
    timeout: float = 120.0
    connections: int = 8


@dataclass(frozen=True)
class Backends:
    """A judge's replicas and the model name that goes into cache keys and results."""

    replicas: tuple[Backend[ScoringRequest], ...]
    model: str | None


J = TypeVar("J", bound=JudgeBase)
Builder = Callable[[J, BackendOptions], Awaitable[Backends]]
_BUILDERS: dict[str, Callable[[Any, BackendOptions], Awaitable[Backends]]] = {}


def backend(judge_type: type[J]) -> Callable[[Builder[J]], Builder[J]]:
    """Register the builder of one kind of judge (the kind ``judge_type`` records); once per kind."""
    kind = str(judge_type.model_fields["kind"].default)

    def register(build: Builder[J]) -> Builder[J]:
        if kind in _BUILDERS:
            raise ValueError(f"a backend for judge kind {kind!r} is registered already")
        _BUILDERS[kind] = build
        return build

    return register


def registered_kinds() -> tuple[str, ...]:
    return tuple(_BUILDERS)


async def build_backends(judge: Judge, options: BackendOptions) -> Backends:
    """The judge's backends, built by the function its kind registered (never of a results record:
    an endpoint's holds hosts, not the URLs to send to)."""
    if judge.recorded:
        raise ValueError(
            f"judge {judge.name!r} is a results record ({type(judge).__name__}), not a judge to score"
        )
    build = _BUILDERS.get(judge.kind)
    if build is None:
        raise ValueError(f"no backend is registered for judge kind {judge.kind!r}")
    return await build(judge, options)


@backend(BuiltinJudge)
async def _builtin(judge: BuiltinJudge, options: BackendOptions) -> Backends:
    from dhp.inference.builtin import make_builtin

    return Backends((make_builtin(judge.control.value, seed=options.seed),), judge.control.value)


@backend(LocalJudge)
async def _local(judge: LocalJudge, options: BackendOptions) -> Backends:
    from dhp.inference.local import LocalModel

    local = LocalModel(judge.model, revision=judge.revision, seed=options.seed)
    await local.load()
    return Backends((local,), judge.model)


@backend(EndpointJudge)
async def _endpoint(judge: EndpointJudge, options: BackendOptions) -> Backends:
    """The key from the environment (``DHP_JUDGE_API_KEY``, else ``HF_TOKEN``), never from the command line."""
    return await _over_http(judge, api_key_from_env(JUDGE_KEY_VARS), options)


@backend(HubJudge)
async def _hub(judge: HubJudge, options: BackendOptions) -> Backends:
    from dhp.inference.hub import hf_token, router_refusal

    refusal = router_refusal()
    if refusal is not None:
        raise BackendSetupError(refusal)
    token = hf_token()
    if not token:
        raise BackendSetupError(
            "--model-id needs a Hugging Face token: set HF_TOKEN or log in with `hf auth login`"
        )
    return await _over_http(judge, token, options)


async def _over_http(judge: EndpointJudge | HubJudge, key: str | None, options: BackendOptions) -> Backends:
    """One HTTP backend per URL of the judge, all asking for one model, in the protocol it speaks."""
    from dhp.inference.http import discover_model, make_endpoint_backend

    protocol = EndpointProtocol(judge.protocol_name)
    urls = judge.urls
    model = judge.request_model
    if model is None or protocol is EndpointProtocol.TGI:  # TGI: /info also proves the server is TGI
        found = await discover_model(urls[0], protocol.value, key, timeout=min(options.timeout, 30.0))
        model = model or found
    replicas = tuple(
        make_endpoint_backend(
            url,
            protocol=protocol.value,
            model=model,
            api_key=key,
            timeout=options.timeout,
            connections=options.connections,  # a replica may carry every slot while another is set aside
        )
        for url in urls
    )
    return Backends(replicas, model)
