"""Where the offline rewriting loses its candidates, per dataset (SummEval, SumPubMed).

Usage: .venv/bin/python benchmarks/bench_rewrite_coverage.py [SOURCES_DIR] [--rows]
(default: $DHP_SOURCES or ../shared/sources). For each selected item it splits the judged text,
builds the pool of source sentences, and counts (sentence, source sentence) pairs through each
test of the aligner in order: content shared both ways, length, a dependent start, word types
shared, word-sequence similarity, a trimmed clause that keeps the sentence's content (the pool holds each
source sentence and its trimmed clauses), the validator (which checks the facts), and the generator's
refusal of a rephrasing that says more or less (issue 36, ``added_or_dropped``). Then the sentences with a
rephrasing, the items with enough for minor (1) and major (2) (and, as a bound, those with enough sentences
that have a candidate through the first test), and the verdict on every aligned pair (the rule that rejects
or refuses it, counted). ``--rows`` prints each aligned pair with its verdict.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections import Counter
from pathlib import Path

from dhp.builder.build import BuildOptions, _inputs
from dhp.builder.perturb.offline import paraphrase as pp
from dhp.builder.perturb.validate import paraphrase_verdict
from dhp.builder.sources import SourceLocator
from dhp.builder.textstats import split_sentences
from dhp.data.items import OTHER_REFERENCES, Item
from dhp.spec import BENCHMARK

STAGES = (
    "pairs",
    "content both ways",
    "length",
    "not dependent",
    "word types",
    "sequence",
    "a cut keeps its content",
    "the validator accepts it",
    "the generator's refusal passes it",
)


def _stage(sentence: str, other: str, full: str, text: str, refused: Counter[str]) -> int:
    """How many of the aligner's tests (in STAGES order, after "pairs") the pair passes; ``other`` is a
    source sentence or a clause trimmed from ``full``; the last is the validator's verdict in ``text`` (issue 36:
    the aligner keeps only what it accepts), its reason counted in ``refused``."""
    facts = pp._facts(sentence)
    a, b = pp._content(sentence, facts), pp._content(other, facts)
    wa, wb = pp._words(sentence), pp._words(other)
    shared = len(a & b)
    if not a or not b or shared < pp.MIN_CONTENT * len(a) or shared < pp.MIN_CONTENT * len(b):
        return 0
    if len(wb) > pp.MAX_LENGTH * len(wa):
        return 1
    if pp._fragment(other):
        return 2
    if len(set(wa) & set(wb)) / max(1, len(set(wa) | set(wb))) >= pp.MAX_SHARED_TYPES:
        return 3
    if difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio() >= pp.MAX_SEQUENCE:
        return 4
    if pp._cuts_shared(sentence, other, full):
        return 5
    if not (verdict := paraphrase_verdict(sentence, other, text)).ok:
        refused[_rule(verdict.reason)] += 1
        return 6
    if why := pp.added_or_dropped(sentence, other, text):
        refused["generator: " + re.sub(r" \(.*", "", why)] += 1
        return 7
    return 8


def _sources(it: Item) -> list[str]:
    others = it.extras.get(OTHER_REFERENCES, "")
    return [*(t for t in it.context.values() if t), *(r for r in others.split("\n") if r)]


def _rule(reason: str) -> str:
    rule = re.sub(r"\s*\(.*|:.*| ['\"].*", "", reason.removeprefix("inserted sentence ")).strip()
    return re.sub(r"\d+", "N", rule)[:60]


def _item(
    it: Item, funnel: Counter[int], rejects: Counter[str], refused: Counter[str], show_rows: bool
) -> tuple[int, int, int, int, int]:
    """(sentences, pool sentences, sentences aligned, of which the validator accepts, sentences with a
    candidate through the first test) of one item."""
    sents = split_sentences(it.original)
    pool = pp._pool(_sources(it), sents)
    found = ok = bound = 0
    for s in sents:
        stages = [_stage(s, other, full, it.original, refused) for other, full in pool.items()]
        funnel.update(stages)
        bound += any(stages)
        para = pp.aligned(s, pool, it.original)
        if para is None:
            continue
        verdict = paraphrase_verdict(s, para, it.original)
        why = verdict.reason if not verdict.ok else pp.added_or_dropped(s, para, it.original)
        found, ok = found + 1, ok + (not why)
        if why:
            rejects[_rule(why) if not verdict.ok else "generator: " + re.sub(r" \(.*", "", why)] += 1
        if show_rows:
            print(f"  [{it.id}] {'OK ' if not why else 'REJ'} {s}\n      -> {para}")
            if why:
                print(f"      ({why[:150]})")
    return len(sents), len(pool), found, ok, bound


def measure(name: str, locator: SourceLocator, show_rows: bool) -> None:
    spec = BENCHMARK[name]
    items = _inputs(spec, locator, BuildOptions(allow_fewer=True, progress=False)).selected.items
    funnel: Counter[int] = Counter()
    rejects: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    counts = [_item(it, funnel, rejects, refused, show_rows) for it in items]
    n_sents, n_pool = sum(c[0] for c in counts), sum(c[1] for c in counts)
    with_para, passing = sum(c[2] for c in counts), sum(c[3] for c in counts)
    per_item = [(c[2], c[3], c[4]) for c in counts]
    print(f"{name}: {len(items)} items, {n_sents} sentences, {n_pool} source sentences and trimmed clauses")
    total = sum(funnel.values())
    for k, stage in enumerate(STAGES):
        print(f"    pairs passing through '{stage}': {total - sum(v for s, v in funnel.items() if s < k):8d}")
    print(f"    sentences with an aligned rephrasing: {with_para} ({passing} the generator keeps)")
    for lo, sev in ((1, "minor"), (2, "major")):
        aligned = sum(f >= lo for f, _, _ in per_item)
        valid = sum(v >= lo for _, v, _ in per_item)
        bound = sum(b >= lo for _, _, b in per_item)
        print(
            f"    items with >= {lo} ({sev}): aligned {aligned}, all-valid possible {valid} "
            f"(bound: {bound} with a candidate through '{STAGES[1]}')"
        )
    for rule, n in refused.most_common():
        print(f"    candidate pairs refused {n:3d}: {rule}")
    for rule, n in rejects.most_common():
        print(f"    aligned sentences refused {n:3d}: {rule}")


def main(argv: list[str]) -> int:
    default = os.environ.get("DHP_SOURCES") or str(
        Path(__file__).resolve().parents[1].parent / "shared" / "sources"
    )
    args = [a for a in argv[1:] if not a.startswith("--")]
    locator = SourceLocator(Path(args[0] if args else default))
    for name in ("summeval", "sumpubmed"):
        measure(name, locator, "--rows" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
