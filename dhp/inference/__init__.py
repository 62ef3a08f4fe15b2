"""The one inference layer: judges, backends, pool and cache, shared by the scorer and the builder's perturber.

* :mod:`dhp.inference.judge` — the judge record (built-in, endpoint, Hub model id, in-process); each
  kind declared by its class: its fields with their ``dhp score`` flags and form inputs, what differs
  by kind as properties of its type, and its published twin, the record a results file holds
  (:data:`~dhp.inference.judge.PublishedJudge`); the one parser of flat descriptions.
* :mod:`dhp.inference.registry` — the one registry that builds a judge's backends, keyed by its kind
  (a new kind: its class there, its ``@backend`` here).
* :mod:`dhp.inference.protocol` — sampling settings, outputs, the request and backend protocols, and
  the errors a backend raises (:class:`~dhp.inference.protocol.InferenceError`: transient, permanent,
  fatal, capability).
* :mod:`dhp.inference.http` — OpenAI-compatible and TGI endpoints on one lean aiohttp path (one
  :class:`~dhp.inference.http.HTTPBackend`; a protocol writes its payload and parsing), and the one
  model-discovery rule; no redirect followed, no answer quoted in an error.
* :mod:`dhp.inference.builtin` and :mod:`dhp.inference.local` — the built-in control judges and the
  in-process ``transformers`` model.
* :mod:`dhp.inference.addresses` — which addresses a public service may contact (the Space's URL
  check and, under ``DHP_PUBLIC_ENDPOINTS_ONLY``, every connection).
* :mod:`dhp.inference.pool` — :class:`~dhp.inference.pool.Pool`: cache, coalescing of
  identical requests, concurrency, the one retry policy (jittered backoff, ``Retry-After``),
  per-attempt timeouts and replicas.
* :mod:`dhp.inference.cache` — the hardened SQLite response cache (WAL, batched commits, damaged
  entries are misses, a foreign file is named and left alone).
"""
