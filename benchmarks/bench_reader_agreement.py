"""How often the project's validator agrees with a careful reader.

    .venv/bin/python benchmarks/bench_reader_agreement.py [FILE ...] [--show 5]

Without a file it reads every ``*.jsonl`` of ``../shared/reads/`` (``--reads-dir``); the reads of this
repository are in ``docs/reads/`` (``--reads-dir docs/reads``). Each file holds rows of a build read by hand, one JSON object a line (``dataset``, ``perturbation``,
``category``, ``verdict``: valid | questionable | invalid, ``reason``, ``original``, ``perturbed``). Each
row is run through :func:`dhp.builder.perturb.registry.validate`, the validator every generated row
must pass, and the two verdicts are compared: of the rows the reader rejects (questionable or invalid),
how many the validator rejects; of the rows the reader accepts, how many it keeps. Printed per category
and in all, with the disagreements (``--show`` of each kind) and the validator's reasons.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from dhp.builder.perturb.registry import validate
from dhp.spec import BENCHMARK

#: (category, reader accepts, validator accepts) -> rows, with the reader's and the validator's reasons
Tally = dict[tuple[str, bool, bool], list[tuple[str, str, str]]]


def tally(rows: list[dict[str, str]]) -> Tally:
    """Each read row's verdict from the reader and from the validator."""
    out: Tally = defaultdict(list)
    for r in rows:
        p = BENCHMARK[r["dataset"]].perturbation(r["perturbation"])
        verdict = validate(p, r["original"], r["perturbed"])
        reader_ok = r["verdict"] == "valid"
        out[(r["category"], reader_ok, verdict.ok)].append((r["perturbation"], r["reason"], verdict.reason))
    return out


def _line(label: str, t: Tally, cats: list[str]) -> str:
    def n(reader: bool, valid: bool) -> int:
        return sum(len(t[(c, reader, valid)]) for c in cats)

    rejected, bad = n(False, False), n(False, False) + n(False, True)
    kept, good = n(True, True), n(True, True) + n(True, False)
    agree = (rejected + kept) / max(1, bad + good)
    share = [f"{a}/{b} {a / b:6.1%}" if b else "0/0      -" for a, b in ((rejected, bad), (kept, good))]
    return f"{label:22} {bad + good:>5} {share[0]:>18} {share[1]:>16} {agree:>10.1%}"


def report(path: Path, show: int) -> None:
    """Print the agreement on one file of read rows, per category and in all, and the disagreements."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    t = tally(rows)
    cats = sorted({r["category"] for r in rows})
    print(f"reader agreement of the validator on {path.name}: {len(rows)} rows")
    print(f"{'category':22} {'rows':>5} {'rejected (of rej.)':>18} {'kept (of ok)':>16} {'agreement':>10}")
    for c in cats:
        print(_line(c, t, [c]))
    print(_line("all", t, cats))
    for reader_ok, what in (
        (False, "rejected by the reader, kept"),
        (True, "accepted by the reader, rejected"),
    ):
        missed = [row for c in cats for row in t[(c, reader_ok, not reader_ok)]]
        print(f"\n{what}: {len(missed)}")
        for pert, reason, why in missed[:show]:
            print(f"  {pert}: reader: {reason[:90]}" + (f" | validator: {why[:120]}" if why else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "reads", type=Path, nargs="*", help="JSONL files of rows read by hand (default: all of --reads-dir)"
    )
    ap.add_argument(
        "--reads-dir", type=Path, default=Path("../shared/reads"), help="where the read files are"
    )
    ap.add_argument("--show", type=int, default=5, help="disagreements to print of each kind")
    args = ap.parse_args()
    paths = args.reads or sorted(args.reads_dir.glob("*.jsonl"))
    if not paths:
        raise SystemExit(f"bench_reader_agreement: no *.jsonl in {args.reads_dir}")
    for k, path in enumerate(paths):
        print("\n" * bool(k), end="")
        report(path, args.show)


if __name__ == "__main__":
    main()
