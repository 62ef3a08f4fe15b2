"""What the offline rewriting generator's refusal (issue 36) keeps of labelled rewriting rows, per rule.

Usage: .venv/bin/python benchmarks/bench_rewrite_refusal.py READS.jsonl [READS.jsonl ...]
For each labelled rewriting row (the schema of ``../shared/reads``) it finds the inserted sentences and
their original sentences (the validator's alignment) and asks each candidate rule of
``dhp.builder.perturb.offline.paraphrase`` whether the generator would refuse the pair: a number or name the
text lacks, more than K content lemmas the text lacks, the main clause's verb left out, under X% of the
original's content lemmas kept, and the generator's rule (``added_or_dropped``). A row is kept when every
pair passes; it prints, per file and dataset, the rows kept and the valid among them.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

from dhp.builder.perturb import lexicon
from dhp.builder.perturb.offline import paraphrase as pp
from dhp.builder.perturb.validate import _insertions, paraphrase_verdict
from dhp.builder.textstats import split_sentences

Rule = Callable[[str, str, str], bool]  # (original sentence, inserted sentence, text) -> refused


def _lacks(words: set[str] | frozenset[str], text: str) -> bool:
    return bool(words) and not words & {
        x for w in pp._TOKEN.findall(text.lower()) for x in lexicon.lemmas(w) | {w}
    }


def _coverage(sentence: str, other: str) -> float:
    a, b = pp._content(sentence, frozenset()), pp._content(other, frozenset())
    return len(a & b) / max(1, len(a))


def _added(k: int) -> Rule:
    return lambda s, o, t: len({x for x in pp.added_lemmas(o, t) if x}) > k


def _side_by_side(sentence: str, other: str, text: str) -> bool:
    return any(x and y for x, y in itertools.pairwise(pp.added_lemmas(other, text)))


def _kept_under(share: float) -> Rule:
    return lambda s, o, t: _coverage(s, o) < share


def _generator(sentence: str, other: str, text: str) -> bool:
    return bool(pp.added_or_dropped(sentence, other, text))


def _rejected(sentence: str, other: str, text: str) -> bool:
    return not paraphrase_verdict(sentence, other, text).ok


RULES: dict[str, Rule] = {
    "none (every row)": lambda s, o, t: False,
    "a number or name the text lacks": lambda s, o, t: bool(pp.added_names(o, t)),
    **{f"more than {k} added lemmas": _added(k) for k in (0, 1, 2, 3, 4)},
    "two added lemmas side by side": _side_by_side,
    "its main verb one the text lacks": lambda s, o, t: _lacks(pp.main_verb(o)[1], t),
    "the original's main verb left out": lambda s, o, t: _lacks(pp.main_verb(s)[1], o),
    **{f"under {x}% of the original's content kept": _kept_under(x / 100) for x in (60, 70)},
    f"generator rule (names, > {pp.MAX_ADDED} added, side by side, both main verbs)": _generator,
    "the validator (paraphrase_verdict; kept: the rows it accepts)": _rejected,
    "the validator and the generator rule (what a build emits)": lambda s, o, t: (
        _rejected(s, o, t) or _generator(s, o, t)
    ),
}


def _pairs(row: dict[str, str]) -> list[tuple[str, str]]:
    orig = split_sentences(row["original"])
    inserted, _ = _insertions(orig, row["perturbed"])
    return [(orig[i], sent) for i, sent in inserted]


def main(paths: list[str]) -> None:
    for path in paths:
        lines = Path(path).read_text().splitlines()
        rows = [r for line in lines if (r := json.loads(line))["category"] == "rewriting/insertion"]
        sets = sorted({r["dataset"] for r in rows})
        print(f"\n{Path(path).name}: {len(rows)} rows; kept (valid among kept) per dataset")
        print("| rule | " + " | ".join(sets) + " | all |\n|---|" + "---|" * (len(sets) + 1))
        for name, rule in RULES.items():
            cells = []
            for ds in [*sets, None]:
                group = [r for r in rows if ds in (None, r["dataset"])]
                kept = [r for r in group if not any(rule(s, o, r["original"]) for s, o in _pairs(r))]
                valid = sum(r["verdict"] == "valid" for r in kept)
                cells.append(
                    f"{len(kept)}/{len(group)} ({valid}/{len(kept)} = {valid / max(1, len(kept)):.0%})"
                )
            print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
