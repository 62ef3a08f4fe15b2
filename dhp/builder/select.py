"""Selection of the N judged items of a dataset (SPEC §2), deterministic given the selection seed."""

from __future__ import annotations

from dataclasses import dataclass

from dhp.builder.hashing import derive_rng
from dhp.data.items import Item, SourceData
from dhp.errors import TooFewItemsError
from dhp.types import DatasetSpec

__all__ = ["Selected", "eligible_items", "select_items"]


@dataclass(frozen=True)
class Selected:
    """The chosen items (in source order) and the counts behind them."""

    items: tuple[Item, ...]
    n_candidates: int
    n_eligible: int
    n_requested: int

    @property
    def fewer(self) -> bool:
        """True when fewer items than requested were available (built with ``allow_fewer``)."""
        return len(self.items) < self.n_requested


def eligible_items(spec: DatasetSpec, source: SourceData) -> list[Item]:
    """Candidates passing the selection rule: non-empty, longer than ``min_chars`` when set."""
    m = spec.selection.min_chars
    return [it for it in source.items if it.original.strip() and (m is None or len(it.original) > m)]


def select_items(spec: DatasetSpec, source: SourceData, allow_fewer: bool = False) -> Selected:
    """Seeded random sample of ``n_items`` eligible items (or all of them when ``sample`` is false).

    The sample uses a private RNG seeded from (dataset name, selection seed) over the eligible items
    sorted by id, so it depends neither on file order nor on the dataset version. Raises
    :class:`TooFewItemsError` with the counts when fewer than N are eligible, unless ``allow_fewer``.
    """
    sel = spec.selection
    eligible = eligible_items(spec, source)
    ids = [it.id for it in eligible]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[:5]
        raise TooFewItemsError(f"{spec.name}: duplicate item ids in the source: {dup}")
    if len(eligible) < sel.n_items and not allow_fewer:
        raise TooFewItemsError(
            f"{spec.name}: only {len(eligible)} eligible items (of {len(source.items)} candidates; rule: "
            f"{sel.rule}) but N = {sel.n_items} are needed. Provide the complete source, or pass "
            "--allow-fewer to build with all eligible items (the card then states how many and why)."
        )
    if not sel.sample or len(eligible) <= sel.n_items:
        chosen = eligible[: sel.n_items]
    else:
        rng = derive_rng("select", spec.name, sel.seed)
        picked = set(rng.sample(sorted(ids), sel.n_items))
        chosen = [it for it in eligible if it.id in picked]
    return Selected(tuple(chosen), len(source.items), len(eligible), sel.n_items)
