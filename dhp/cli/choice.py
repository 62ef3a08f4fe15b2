"""``dhp compare``, ``dhp fits`` and ``dhp misses``: choosing between judges from the results they already
have (issues 20, 39). Thin bodies over :mod:`dhp.scoring.compare`, :mod:`dhp.scoring.fits` and
:mod:`dhp.scoring.misses`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from dhp.cli.args import out_file, positive_int, seed
from dhp.errors import UserError
from dhp.naming import DEFAULT_DATA, HUB_DATA

__all__ = ["register"]


def register(sub: Any) -> None:
    c = sub.add_parser(
        "compare",
        help="is judge A really better than judge B? paired bootstrap over the items both scored",
        description="Pairs two judges' results on the items and perturbations both scored and gives, per "
        "dataset and overall, the difference A - B of D_avg^EW and D_min^EW (and per perturbation of D^EW) "
        "with a paired bootstrap interval and a verdict read off it: A, B, tie (the interval contains 0) "
        "or neither (both judges' intervals below D = 1). "
        "No request is sent.",
    )
    c.add_argument("results_a", type=Path, metavar="RESULTS_A", help="judge A's result file or folder")
    c.add_argument("results_b", type=Path, metavar="RESULTS_B", help="judge B's result file or folder")
    c.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    c.add_argument("--n-boot", type=positive_int, default=1000, help="bootstrap replicates")
    c.add_argument("--seed", type=seed, default=0, help="seed of the item draws (default: 0)")
    c.set_defaults(func=_cmd_compare)

    f = sub.add_parser(
        "fits",
        help="does a judge fit the public rows? its public D_avg^EW against its private-split one",
        description="Per dataset, one judge's public D_avg^EW minus its D_avg^EW on the private split "
        "(dhp score --split private), with a bootstrap interval (each split's items resampled, the private "
        "replicates read from its result); 'fits the public rows' when the interval lies above 0. "
        "No request is sent.",
    )
    f.add_argument(
        "public", type=Path, metavar="PUBLIC_RESULTS", help="the judge's public result file or folder"
    )
    f.add_argument("private", type=Path, metavar="PRIVATE_RESULTS",
                   help="the same judge's private-split result file or folder")  # fmt: skip
    f.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    f.set_defaults(func=_cmd_fits)

    m = sub.add_parser(
        "misses",
        help="where a judge fails: the pairs of one perturbation it did not score lower",
        description="Lists the pairs of one perturbation that the judge scored at least as high perturbed "
        "as original (on the metrics the perturbation's expert weights name), worst first, with both scores "
        "and both texts, the differences marked as dhp show marks them. No request is sent.",
    )
    m.add_argument("results", type=Path, metavar="RESULTS", help="the judge's result file or folder")
    m.add_argument("--dataset", required=True, help="dataset name, e.g. summeval")
    m.add_argument("--perturbation", required=True, help="perturbation id, e.g. word_fictional_ne_minor")
    m.add_argument("-n", type=positive_int, default=5, help="misses to print")
    m.add_argument("--csv", type=out_file, metavar="FILE", help="also write every miss to FILE as CSV")
    m.add_argument(
        "--data",
        default=DEFAULT_DATA,
        help="where the scored texts are: a folder of <dataset>/ folders (its revision must be the scored "
        f"one), or '{HUB_DATA}' for the published datasets on the Hub (the scored revision)",
    )
    m.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="ANSI colours (auto: on a terminal)",
    )
    m.set_defaults(func=_cmd_misses)


def _results(path: Path) -> list[Any]:
    from dhp.scoring.report import collect_results
    from dhp.scoring.results import ResultError

    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    try:
        results = collect_results([path])
    except ResultError as e:
        raise UserError(str(e)) from e
    if not results:
        raise UserError(f"{path}: no result files")
    return results


def _cmd_compare(args: argparse.Namespace) -> int:
    from dhp.scoring.compare import CompareError, compare_results
    from dhp.scoring.compare_report import comparison_json, pick_results, render_comparison

    try:
        a = pick_results(_results(args.results_a), "RESULTS_A")
        b = pick_results(_results(args.results_b), "RESULTS_B")
        c = compare_results(a, b, n_boot=args.n_boot, seed=args.seed)
    except CompareError as e:
        raise UserError(str(e)) from e
    print(json.dumps(comparison_json(c), indent=2) if args.json else render_comparison(c))
    return 0


def _cmd_fits(args: argparse.Namespace) -> int:
    from dhp.scoring.compare import CompareError
    from dhp.scoring.compare_report import pick_results
    from dhp.scoring.fits import fits_of_results

    try:
        pub = pick_results(_results(args.public), "PUBLIC_RESULTS")
        priv = pick_results(_results(args.private), "PRIVATE_RESULTS", split="private")
    except CompareError as e:
        raise UserError(str(e)) from e
    both = [name for name in pub if name in priv]
    if not both:
        raise UserError(
            f"no dataset has both a public and a private result (public: {', '.join(sorted(pub))}; "
            f"private: {', '.join(sorted(priv))})"
        )
    rows: list[dict[str, Any]] = []
    for name in both:
        try:
            fit = fits_of_results(pub[name], priv[name])
        except ValueError as e:
            raise UserError(f"{name}: {e}") from e
        iv = None if fit.interval is None else [fit.interval.low, fit.interval.high]
        rows.append({"dataset": name, "commitment": priv[name].dataset.commitment, "public": fit.public,
                     "private": fit.private, "n_pairs": fit.n_pairs, "public_fixed_n": fit.public_fixed_n,
                     "private_fixed_n": fit.private_fixed_n, "difference": fit.difference, "interval": iv,
                     "fits_public": fit.fits_public})  # fmt: skip
    if args.json:
        print(json.dumps({"judge": next(iter(pub.values())).judge.name, "datasets": rows}, indent=2))
        return 0
    print("D_avg^EW as scored, and at the same number of pairs of each perturbation on both splits (half the "
          "private split's; n: the most), where the flag is read (docs/method.md#a-private-split)\n")  # fmt: skip
    print(
        "| dataset | private split | public | private | n | public at n | private at n | public - private [95%] | flag |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        ci = "[–]" if r["interval"] is None else f"[{r['interval'][0]:.2f}, {r['interval'][1]:.2f}]"
        flag = "fits the public rows" if r["fits_public"] else "–"
        print(f"| {r['dataset']} | {str(r['commitment'])[:12]} | {r['public']:.2f} | {r['private']:.2f} | "
              f"{r['n_pairs']} | {r['public_fixed_n']:.2f} | {r['private_fixed_n']:.2f} | "
              f"{r['difference']:.2f} {ci} | {flag} |")  # fmt: skip
    return 0


def _cmd_misses(args: argparse.Namespace) -> int:
    import os
    import sys

    from dhp.fsutil import atomic_write_text
    from dhp.scoring.compare import CompareError
    from dhp.scoring.compare_report import pick_results
    from dhp.scoring.misses import (
        MissesError,
        attach_texts,
        find_misses,
        misses_csv,
        render_misses,
        scored_texts,
    )
    from dhp.task.file import folder_spec

    try:
        by = pick_results(_results(args.results), "RESULTS")
        if args.dataset not in by:
            raise UserError(f"RESULTS: no result for dataset {args.dataset} (found {', '.join(sorted(by))})")
        result = by[args.dataset]
        misses = find_misses(result, args.perturbation)
        texts = scored_texts(result.dataset, args.data, folder_spec)
        misses = attach_texts(misses, texts.originals, texts.perturbed.get(args.perturbation, {}))
    except (CompareError, MissesError) as e:
        raise UserError(str(e)) from e
    color = args.color == "always" or (
        args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    )
    print(render_misses(result, args.perturbation, misses, args.n, color), end="")
    if args.csv is not None:
        atomic_write_text(args.csv, misses_csv({args.perturbation: misses}))
        print(args.csv)
    return 0
