"""The private split: a twin of each dataset that no one has seen (``dhp build --split private``).

Same selection rules and perturbations as the public split, with a secret seed read from the environment
only (:data:`dhp.data.private.SEED_ENV`; :func:`private_seed`). The seed is never written, logged, put in a
card, a ``build_info.json``, an error message or a file name: ``build_info.json`` records ``seed: null`` and
a commitment instead, the SHA-256 over the seed and the rows (:func:`commitment`), and the version names
the commitment's first 12 hex digits (``v1.0.0-private.<12 hex>``, :func:`dhp.data.private.private_version`).

Which items (:func:`choose_items`, recorded as ``private.basis``):

* ``disjoint``: when the source holds, outside the public selection (deterministic:
  :func:`dhp.builder.select.select_items`), at least as many eligible items as the public split has, the
  private split is that many of them, drawn with the secret seed (the same N, so D, which grows with the
  number of pairs, reads the same on both splits);
* ``other-texts``: else, where the source has another text of the same item (SummEval: another of the
  article's 11 reference summaries; WMT22: reference B, by another translator), the public items with
  that text wherever it passes the selection rule (the others keep their text), fresh perturbations;
* ``same-items``: else the public items and texts with fresh perturbations only (Answer Equivalence's
  offline copy: 62 items, all public).

Every random choice is seeded from the secret (:func:`dhp.builder.hashing.derive_rng`), so a rebuild with
the same seed gives byte-identical files.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from dhp.builder.build import (
    BuildOptions,
    BuildReport,
    Inputs,
    _inputs,
    _progress,
    build_report,
    check_version,
    collect_rows,
    make_build_info,
    make_outcomes,
)
from dhp.builder.hashing import derive_rng, derive_seed
from dhp.builder.select import Selected, eligible_items
from dhp.builder.sources import SourceLocator
from dhp.data.dataset_io import PrivateInfo, Row, write_dataset
from dhp.data.items import OTHER_REFERENCES, Item, SourceData
from dhp.data.private import SEED_ENV, private_version
from dhp.errors import BuildError, UserError
from dhp.types import DatasetSpec

__all__ = [
    "DISJOINT",
    "MIN_SEED_CHARS",
    "OTHER_TEXTS",
    "SAME_ITEMS",
    "PrivateSeed",
    "build_private_dataset",
    "choose_items",
    "commitment",
    "private_seed",
]

DISJOINT, OTHER_TEXTS, SAME_ITEMS = "disjoint", "other-texts", "same-items"
#: the fewest characters a seed may have: anyone can rerun the public code on the public sources, so a
#: seed one can guess rebuilds the private split
MIN_SEED_CHARS = 16
_DOMAIN = "dhp-private-split/1"


class PrivateSeed:
    """The secret seed, held so that its text is never shown: ``str()``/``repr()`` say ``<secret>``."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return "PrivateSeed(<secret>)"

    __str__ = __repr__

    @property
    def secret(self) -> str:
        """The seed's text (to hash; never to print)."""
        return self._text

    @property
    def rng_seed(self) -> int:
        """The 64-bit seed of the perturbations (a hash of the secret; as secret as the secret)."""
        return derive_seed(_DOMAIN, "perturb", self._text)

    def rng(self, *parts: object) -> random.Random:
        """A private RNG for ``parts`` seeded from the secret."""
        return derive_rng(_DOMAIN, *parts, self._text)


def private_seed(environ: Mapping[str, str] | None = None) -> PrivateSeed:
    """The seed of :data:`SEED_ENV`; a one-line :class:`UserError` (exit 2) when it is unset, empty or
    too short to be secret. The message never holds the seed."""
    env = os.environ if environ is None else environ
    text = env.get(SEED_ENV, "")
    if not text.strip():
        raise UserError(
            f"--split private needs a secret seed in ${SEED_ENV} (read from the environment only, never "
            "written); e.g. export it from a secret store, or make one with: python -c "
            "'import secrets; print(secrets.token_hex(16))'"
        )
    if len(text) < MIN_SEED_CHARS:
        raise UserError(
            f"${SEED_ENV} is shorter than {MIN_SEED_CHARS} characters: a seed one can guess rebuilds the "
            "private split from the public code and sources; use e.g. 32 random hex digits"
        )
    return PrivateSeed(text)


def commitment(seed: PrivateSeed, dataset: str, rows: Mapping[str, Sequence[Row]]) -> str:
    """SHA-256 (hex) over the seed and the rows, in the order they are written (perturbation, then item):
    the split's identity. Revealing the seed and the rows later lets anyone check it; the seed alone
    rebuilds the rows from the public code and sources."""
    h = hashlib.sha256()
    h.update(f"{_DOMAIN}\0{len(seed.secret)}\0".encode())
    h.update(seed.secret.encode("utf-8"))
    h.update(f"\0{dataset}\0".encode())
    for pid, these in rows.items():
        for r in these:
            h.update(
                json.dumps({"perturbation": pid, **r}, sort_keys=True, ensure_ascii=False).encode("utf-8")
            )
            h.update(b"\n")
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Other texts of the same item, per source
# ---------------------------------------------------------------------------------------------
#: (spec, locator, the public items, rng) -> item id -> another text of that item (with its extras),
#: for the sources that have one
OtherTexts = Callable[[DatasetSpec, SourceLocator, Sequence[Item], random.Random], Mapping[str, Item]]


def _summeval_other(
    spec: DatasetSpec, locator: SourceLocator, items: Sequence[Item], rng: random.Random
) -> Mapping[str, Item]:
    """Another of the article's reference summaries, drawn with the secret seed among the distinct ones
    passing the selection rule; the rest (never the public one) stay the rewriting's rephrasing source."""
    out: dict[str, Item] = {}
    m = spec.selection.min_chars
    for it in items:
        others = [r for r in dict.fromkeys(it.extras.get(OTHER_REFERENCES, "").split("\n")) if r.strip()]
        fits = [r for r in others if r != it.original and (m is None or len(r) > m)]
        if not fits:
            continue
        text = fits[rng.randrange(len(fits))]
        rest = "\n".join(r for r in others if r != text)
        out[it.id] = Item(it.id, text, it.context, {OTHER_REFERENCES: rest})
    return out


def _wmt22_other(
    spec: DatasetSpec, locator: SourceLocator, items: Sequence[Item], rng: random.Random
) -> Mapping[str, Item]:
    """Reference B (another translator's) of the same segments, where it passes the selection rule."""
    pair = spec.name.removeprefix("wmt22-")
    rel = f"wmt22/generaltest2022.{pair}.ref.B.en"
    url = spec.source.origin_urls.get("ref")
    url_b = None if url is None else url.replace(".ref.A.en", ".ref.B.en")
    if locator.root is not None and not (locator.root / rel).is_file():
        return {}
    path = locator.fetch(rel, url_b, f"wmt22/generaltest2022.{pair}.ref.B.en (reference B)").path
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    m = spec.selection.min_chars
    out: dict[str, Item] = {}
    for it in items:
        span = it.extras.get("segments", "")
        a, _, b = span.partition("-")
        if not (a.isdigit() and b.isdigit()) or int(b) > len(lines):
            continue
        text = " ".join(lines[int(a) - 1 : int(b)])
        if text.strip() and text != it.original and (m is None or len(text) > m):
            out[it.id] = Item(it.id, text, it.context, it.extras)
    return out


OTHER_TEXT_SOURCES: Mapping[str, OtherTexts] = {
    "summeval": _summeval_other,
    "wmt22-de-en": _wmt22_other,
    "wmt22-zh-en": _wmt22_other,
}


def choose_items(
    spec: DatasetSpec,
    source: SourceData,
    public: Selected,
    seed: PrivateSeed,
    other_texts: Callable[[Sequence[Item], random.Random], Mapping[str, Item]] | None = None,
) -> tuple[Selected, str, str]:
    """The private split's items, its basis and a one-line note (see the module docstring)."""
    k = len(public.items)
    taken = {it.id for it in public.items}
    pool = [it for it in eligible_items(spec, source) if it.id not in taken]
    if k and len(pool) >= k:
        picked = set(seed.rng("select", spec.name).sample(sorted(it.id for it in pool), k))
        chosen = tuple(it for it in pool if it.id in picked)
        note = (
            f"{k} items drawn with the secret seed from the {len(pool)} eligible items the public split "
            "does not hold: no item, text or perturbation is shared with it."
        )
        return Selected(chosen, public.n_candidates, len(pool), public.n_requested), DISJOINT, note
    alt = dict(other_texts(public.items, seed.rng("texts", spec.name))) if other_texts else {}
    if alt:
        chosen = tuple(alt.get(it.id, it) for it in public.items)
        note = (
            f"The source holds {len(pool)} eligible items besides the public split's {k}, too few for a disjoint "
            f"split: the public items, with another text of {len(alt)} of them ({_other_text_name(spec)}, drawn with the secret seed)"
            + (f"; the other {k - len(alt)} keep their public text" if len(alt) < k else "")
            + "; every perturbation fresh."
        )
        return dataclasses.replace(public, items=chosen), OTHER_TEXTS, note
    note = (
        f"The source holds {len(pool)} eligible items besides the public split's {k}, too few for a disjoint "
        "split, and no other text of them: the public items and texts, with fresh perturbations (new draws of every rule and generator)."
    )
    return public, SAME_ITEMS, note


def _other_text_name(spec: DatasetSpec) -> str:
    return "another of the article's reference summaries" if spec.name == "summeval" else "reference B"


def build_private_dataset(
    spec: DatasetSpec,
    locator: SourceLocator,
    out_root: Path,
    opts: BuildOptions,
    seed: PrivateSeed,
    inputs: Inputs | None = None,
) -> BuildReport:
    """Build the private twin of ``spec`` into ``out_root/<spec.name>/`` (the public folder format).

    ``opts.version`` is the public version it is the twin of (``v1.0.0``, or ``v1.0.0-sample``); the
    folder's version is :func:`private_version` of it with the commitment; ``opts.seed`` must be None
    (the seed comes from the environment only).
    """
    from dhp.builder.cards import render_card

    if opts.seed is not None:
        raise BuildError("--split private takes its seed from the environment only: drop --seed")
    t0 = time.perf_counter()
    check_version(opts.version)
    checked = inputs or _inputs(spec, locator, opts)
    other = OTHER_TEXT_SOURCES.get(spec.name)
    sel, basis, note = choose_items(
        spec,
        checked.source,
        checked.selected,
        seed,
        None if other is None else (lambda items, rng: other(spec, locator, items, rng)),
    )
    twin = dataclasses.replace(opts, version=f"{opts.version}+private")  # the perturbations' RNG: never shown
    with _progress(len(sel.items) * len(spec.perturbations), f"{spec.name}: perturb", opts.progress) as bar:
        outcomes = make_outcomes(spec, sel, twin, seed.rng_seed, bar)
    rows, na, perts = collect_rows(spec, sel.items, outcomes)
    records: dict[str, list[Row]] = {pid: [r.record() for r in these] for pid, these in rows.items()}
    digest = commitment(seed, spec.name, records)
    info = make_build_info(spec, checked.source, sel, opts, 0, perts)
    info = dataclasses.replace(
        info,
        dataset_version=private_version(opts.version, digest),
        seed=None,
        private=PrivateInfo(commitment=digest, basis=basis, public_version=opts.version, note=note),
    )
    folder, info = write_dataset(out_root, info, records, na, lambda i: render_card(spec, i))
    return build_report(spec, folder, info, len(sel.items), t0)
