"""The one inference layer: backends, pool and cache, shared by the scorer and the builder's perturber.

* :mod:`dhp.inference.types` — sampling settings, outputs, the request and backend protocols, and
  the errors a backend raises (transient, permanent, fatal, capability).
* :mod:`dhp.inference.http` — OpenAI-compatible and TGI endpoints on one lean aiohttp path, and
  the one model-discovery rule; no redirect followed, no answer quoted in an error.
* :mod:`dhp.inference.addresses` — which addresses a public service may contact (the Space's URL
  check and, under ``DHP_PUBLIC_ENDPOINTS_ONLY``, every connection).
* :mod:`dhp.inference.pool` — :class:`~dhp.inference.pool.Pool`: cache, coalescing of
  identical requests, concurrency, the one retry policy (jittered backoff, ``Retry-After``),
  per-attempt timeouts and replicas.
* :mod:`dhp.inference.cache` — the hardened SQLite response cache (WAL, batched commits, damaged
  entries are misses, a foreign file is named and left alone).
"""
