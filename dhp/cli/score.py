"""``dhp score``, ``dhp report``, ``dhp stability`` and ``dhp robustness``: thin bodies over
:mod:`dhp.scoring.run`, :mod:`dhp.scoring.report`, :mod:`dhp.scoring.stability` and
:mod:`dhp.scoring.robustness`."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dhp.cli.args import (
    fraction,
    in_file,
    nonneg_int,
    out_file,
    out_folder,
    positive_float,
    positive_int,
    seconds,
    seed,
)
from dhp.data.private import DEFAULT_PRIVATE_DATA, SPLITS
from dhp.errors import UserError
from dhp.naming import DEFAULT_DATA, HUB_DATA
from dhp.scoring.prompts import DEFAULT_CUE
from dhp.types import MODE_AUTO, MODE_CHOICES

if TYPE_CHECKING:
    from dhp.inference.judge import Judge


def register(sub: Any) -> None:
    _register_score(sub)
    _register_reports(sub)


def _register_score(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="score a judge on the DHP datasets and write its discernment results",
        description="Score a judge (an OpenAI-compatible or TGI endpoint, a Hub model id through Inference "
        "Providers, an in-process transformers model, a built-in control judge, or one of these as a judge file) "
        "on the DHP datasets. The endpoint API key is read from "
        "the environment (DHP_JUDGE_API_KEY, else HF_TOKEN), never from the command line.",
    )
    _judge_args(p.add_argument_group("judge"))
    _data_args(p.add_argument_group("data"))
    _scoring_args(p.add_argument_group("scoring"))
    _running_args(p.add_argument_group("running"))
    p.set_defaults(func=_cmd_score)


def _judge_args(who: Any) -> None:
    """The flags of every judge kind, as its class declares them (:func:`dhp.inference.judge.judge_flags`)."""
    from dhp.inference.judge import judge_flags, judge_kinds

    for f in judge_flags():
        kw: dict[str, Any] = {"action": "append", "default": []} if f.repeated else {"default": f.default}
        kw.update(
            help=f.given.help,
            metavar=f.given.metavar,
            choices=f.choices,
            type=(positive_float if f.given.positive else float) if f.number else None,
        )
        who.add_argument(f.given.flag, **kw)
    kinds = list(judge_kinds())
    who.add_argument(
        "--judge-file",
        type=Path,
        metavar="FILE",
        help=f"the whole judge as JSON (kind {', '.join(kinds[:-1])} or {kinds[-1]}; see dhp.inference.judge), "
        "as the leaderboard worker passes it; holds no key",
    )


def _data_args(data: Any) -> None:
    data.add_argument(
        "--datasets",
        default="all",
        help="all (from a folder: the benchmark datasets built there, the others named), or a comma-separated "
        "list of dataset names (default: %(default)s)",
    )
    data.add_argument(
        "--task",
        metavar="FILE_OR_FOLDER",
        help="your own task: a built folder that carries its task.yaml, or the task file (then --data is the "
        "folder `dhp build --task` wrote into)",
    )
    data.add_argument(
        "--data",
        default=DEFAULT_DATA,
        help=f"a folder of <dataset>/ folders (dhp build's --out, default: %(default)s; with --split private the "
        f"private build's, e.g. {DEFAULT_PRIVATE_DATA}), or '{HUB_DATA}' for the published datasets on the Hub",
    )
    data.add_argument(
        "--split",
        choices=SPLITS,
        default="public",
        help="private: score private split folders (dhp build --split private); opt-in, the results hold "
        "aggregates only and name the split's commitment (default: %(default)s)",
    )
    data.add_argument("--revision", help=f"Hub revision of the datasets (with --data {HUB_DATA})")
    data.add_argument("--hub-org", help="Hub organisation of the datasets (default: dhp)")
    data.add_argument(
        "--limit", type=positive_int, help="score only the first N items of each dataset (trials)"
    )


def _scoring_args(how: Any) -> None:
    how.add_argument(
        "--mode",
        choices=MODE_CHOICES,
        default=MODE_AUTO,
        help="expected: G-Eval probability-weighted score; paper: temperature 0, 5 repeats averaged; "
        "sample: N samples at temperature 1. auto (default): expected where the endpoint returns "
        "log-probabilities, else sample",
    )
    how.add_argument("--repeats", type=positive_int, default=5, help="requests per score in paper mode")
    how.add_argument("--samples", type=positive_int, default=10, help="samples per score in sample mode")
    how.add_argument("--top-logprobs", type=positive_int, default=20, help="top log-probabilities asked for")
    how.add_argument(
        "--max-tokens", type=positive_int, help="generated tokens (default 8 expected, 32 otherwise)"
    )
    how.add_argument(
        "--prompts", type=Path, help="folder of prompt templates overriding the prompt set's ones"
    )
    how.add_argument(
        "--prompt-set",
        default="default",
        metavar="NAME|FOLDER",
        help="default (G-Eval style), minimal (definition and scale), rubric (anchored scores), or a folder "
        "of <task>.<metric>.txt templates; results of other sets go to their own files",
    )
    how.add_argument(
        "--cue",
        nargs="?",
        const=DEFAULT_CUE,
        metavar="TEXT",
        help=f"add a misleading prior rating after every judged text (default text: {DEFAULT_CUE!r}); "
        "for dhp robustness",
    )
    how.add_argument(
        "--combine",
        choices=("paper", "wilson", "wilson-landau"),
        default="paper",
        help="how a perturbation's metric p-values combine: paper (default; its unweighted form lets a random "
        "judge look significant, see docs/method.md 'Reading D'), wilson, or wilson-landau (calibrated)",
    )
    how.add_argument("--weights", type=in_file, help="expert-weights file (JSON or YAML)")
    how.add_argument("--n-boot", type=nonneg_int, default=1000, help="bootstrap replicates (0 = none)")
    how.add_argument("--seed", type=seed, default=0, help="seed of every random choice")


def _running_args(run: Any) -> None:
    run.add_argument("--concurrency", type=positive_int, default=8, help="requests in flight")
    run.add_argument("--timeout", type=seconds, default=120.0, help="seconds per request")
    run.add_argument("--max-retries", type=nonneg_int, default=6, help="retries of a failing request")
    run.add_argument("--cache", type=out_file, help="response cache (default: <out>/.cache/<judge>.sqlite)")
    run.add_argument("--no-cache", action="store_true", help="do not read or write the response cache")
    run.add_argument(
        "--max-failure-rate",
        type=fraction,
        default=0.02,
        help="write no result for a dataset whose failed-score share exceeds this",
    )
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar")
    run.add_argument("--out", type=out_folder, required=True, help="results folder")


def _register_reports(sub: Any) -> None:
    r = sub.add_parser("report", help="markdown report and plots from result files")
    r.add_argument("results", nargs="+", type=Path, help="result files or folders (searched for *.json)")
    r.add_argument("--out", type=out_folder, required=True, help="folder for report.md and the PNG plots")
    r.set_defaults(func=_cmd_report)

    st = sub.add_parser(
        "stability",
        help="compare a judge's D across prompt sets (results of dhp score --prompt-set)",
        description="Per judge and dataset: D_avg and D_min per prompt set, their spread (max-min, sd), and "
        "the perturbations whose D changes side of D = 1 between prompt sets. Cue results are left out.",
    )
    st.add_argument("results", nargs="+", type=Path, help="result files or folders (searched for *.json)")
    st.add_argument("--out", type=out_file, help="write the markdown here instead of printing it")
    st.set_defaults(func=_cmd_stability)

    rb = sub.add_parser(
        "robustness",
        help="how a misleading cue moves a judge's scores and D (results of dhp score --cue)",
        description="Pairs every cue result with the cue-free result of the same judge, dataset and prompt "
        "set: mean score shift per metric (originals and perturbed texts), D_avg and D_min with and without "
        "the cue, and the D change per perturbation.",
    )
    rb.add_argument("results", nargs="+", type=Path, help="result files or folders (searched for *.json)")
    rb.add_argument("--out", type=out_file, help="write the markdown here instead of printing it")
    rb.set_defaults(func=_cmd_robustness)


def _judge_config(args: argparse.Namespace) -> Judge:
    """The judge the flags describe (one :data:`dhp.inference.judge.Judge`, as a judge file holds it)."""
    from dhp.inference.judge import JudgeSpecError, judge_flags, judge_from_flags, read_judge

    try:
        if args.judge_file is None:
            return judge_from_flags(vars(args), alternative="--judge-file FILE")
        if any(getattr(args, f.given.dest) for f in judge_flags() if f.given.selects):
            judge_from_flags({}, alternative="--judge-file FILE")  # says: exactly one of them
        mixed = [
            str(f.given.flag) for f in judge_flags() if f.held and getattr(args, f.given.dest) is not None
        ]
        if mixed:
            raise UserError(f"--judge-file holds the whole judge; do not combine it with {', '.join(mixed)}")
        return read_judge(args.judge_file)
    except JudgeSpecError as e:
        raise UserError(str(e)) from None


def _check_score_args(args: argparse.Namespace) -> None:
    """Refuse bad cues and data folders in one line each, before any work.

    The judge's name was checked when the judge was built (:mod:`dhp.inference.judge`); the prompt set,
    datasets and weights file are checked once by :func:`dhp.scoring.run.score_datasets`.
    """
    if args.split == "private" and args.task is not None:
        raise UserError("--split private scores the benchmark's private split: drop --task")
    if args.cue is not None and not args.cue.strip():
        raise UserError("--cue TEXT must not be empty")
    if args.task is None and args.data != HUB_DATA and not Path(args.data).is_dir():  # --task checks its own
        raise UserError(
            f"--data {args.data}: not a folder; build the datasets there (dhp build --out {args.data}) "
            f"or score the published ones with --data {HUB_DATA}"
        )


def _built_datasets(data: str, datasets: str) -> str:
    """``--datasets all`` on a folder: the benchmark datasets built there, the others named on stderr
    (a build may lack Story Cloze, distributed on request). A list, or the Hub, is taken as given."""
    import sys

    from dhp.spec import DATASET_NAMES

    if datasets != "all" or data == HUB_DATA:
        return datasets
    built = [name for name in DATASET_NAMES if (Path(data) / name).is_dir()]
    if not built:
        raise UserError(
            f"--data {data}: holds none of the DHP datasets ({', '.join(DATASET_NAMES)}); run dhp build"
        )
    missing = [name for name in DATASET_NAMES if name not in built]
    if missing:
        print(
            f"dhp score: not built in {data}: {', '.join(missing)}; scoring the other {len(built)}",
            file=sys.stderr,
        )
    return ",".join(built)


def _cmd_score(args: argparse.Namespace) -> int:
    from dhp.inference.pool import RetryPolicy
    from dhp.inference.protocol import JudgeError
    from dhp.scoring.config import RunError, ScoreConfig
    from dhp.scoring.run import score_datasets
    from dhp.scoring.stats import CombineMethod

    logging.basicConfig(level=logging.WARNING, format="dhp score: %(levelname)s: %(message)s")
    judge = _judge_config(args)
    _check_score_args(args)
    specs, data, prompts = None, args.data, args.prompts
    if args.task is not None:
        from dhp.task.file import task_for_scoring

        task, data, prompts = task_for_scoring(
            Path(args.task), args.data, args.prompts, args.datasets, args.prompt_set, args.weights
        )
        specs = (task.spec,)
    cfg = ScoreConfig(
        judge=judge,
        out=args.out,
        datasets=_built_datasets(args.data, args.datasets) if args.task is None else args.datasets,
        specs=specs,
        data=data,
        revision=args.revision,
        hub_org=args.hub_org,
        mode=args.mode,
        repeats=args.repeats,
        samples=args.samples,
        top_logprobs=args.top_logprobs,
        max_tokens=args.max_tokens,
        concurrency=args.concurrency,
        policy=RetryPolicy(max_retries=args.max_retries, timeout=args.timeout),
        n_boot=args.n_boot,
        seed=args.seed,
        combine=CombineMethod(args.combine),
        weights=args.weights,
        cache=args.cache,
        use_cache=not args.no_cache,
        prompts_dir=prompts,
        prompt_set=args.prompt_set,
        cue=None if args.cue is None else args.cue.strip(),
        limit=args.limit,
        max_failure_rate=args.max_failure_rate,
        progress=args.progress,
        split=args.split,
    )
    try:
        paths = score_datasets(cfg)
    except (RunError, JudgeError) as e:
        raise UserError(str(e)) from e
    without_d = [name for name in (_say_summary(path) for path in paths) if name is not None]
    if without_d:
        import sys

        print(f"dhp score: error: no perturbation got a D on {', '.join(without_d)}: the judge gave no usable "
              "score (see the unparsed reasons above; the result files keep examples)", file=sys.stderr)  # fmt: skip
        return 1
    return 0


def _say_summary(path: Path) -> str | None:
    """The result's path on stdout; on stderr one line: D_avg, D_min, the mean effect, whether the judge
    is qualified, perturbations without D, those the few-pairs rule leaves out (with their n), and the
    unparsed scores with their reasons. The dataset's name when no perturbation has a D, else None."""
    import sys

    from dhp.scoring.caveats import caveats
    from dhp.scoring.result_files import read_result
    from dhp.scoring.summary import few_pairs_note
    from dhp.spec import MIN_PAIRS

    print(path)
    r = read_result(path)
    s, cov = r.summary, r.coverage

    def f(x: float | None) -> str:
        return "–" if x is None else f"{x:.2f}"

    no_d = f"; {s.n_without_d} of {len(r.perturbations)} perturbations have no D" if s.n_without_d else ""
    reasons = ", ".join(f"{k} {n}" for k, n in cov.unparsed_reasons.items())
    per = "" if cov.outputs == cov.expected_scores else f" of {cov.outputs} outputs"
    why = f" ({reasons}{per})" if reasons else ""
    failed = f"; {cov.failed} failed" if cov.failed else ""
    marks = caveats(r)
    few = few_pairs_note(r.perturbations)
    apart = f"; left out of D (fewer than {MIN_PAIRS} pairs): {few}" if few else ""
    q = {True: "qualified", False: "not qualified", None: "no D_min to qualify on"}[s.qualified]
    print(
        f"{r.dataset.name}: D_avg {f(s.d_avg)}, D_min {f(s.d_min)}, D_avg^EW {f(s.d_avg_ew)}, "
        f"D_min^EW {f(s.d_min_ew)} ({q}), effect {f(s.effect_avg)}; "
        f"{cov.unparsed}/{cov.expected_scores} unparsed{why}{failed}{no_d}{apart}"
        + (f" [{'; '.join(marks)}]" if marks else ""),
        file=sys.stderr,
    )
    return r.dataset.name if r.perturbations and all(p.d is None for p in r.perturbations) else None


def _cmd_report(args: argparse.Namespace) -> int:
    from dhp.scoring.report import write_report
    from dhp.scoring.results import ResultError

    for p in args.results:
        if not p.exists():
            raise UserError(f"{p}: no such file or folder")
    try:
        md = write_report(args.results, args.out)
    except (ResultError, FileNotFoundError) as e:
        raise UserError(str(e)) from e
    print(md)
    return 0


def _load_results(paths: list[Path]) -> list[Any]:
    from dhp.scoring.report import collect_results
    from dhp.scoring.results import ResultError

    for p in paths:
        if not p.exists():
            raise UserError(f"{p}: no such file or folder")
    try:
        results = collect_results(paths)
    except ResultError as e:
        raise UserError(str(e)) from e
    if not results:
        raise UserError(f"no result files under {', '.join(str(p) for p in paths)}")
    return results


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        print(text, end="")
        return
    from dhp.fsutil import atomic_write_text

    atomic_write_text(out, text)
    print(out)


def _cmd_stability(args: argparse.Namespace) -> int:
    from dhp.scoring.stability import render_stability, stability

    try:
        rows = stability(_load_results(args.results))
    except ValueError as e:
        raise UserError(str(e)) from e
    _emit(render_stability(rows), args.out)
    return 0


def _cmd_robustness(args: argparse.Namespace) -> int:
    from dhp.scoring.robustness import render_robustness, robustness

    try:
        pairs, unpaired = robustness(_load_results(args.results))
    except ValueError as e:
        raise UserError(str(e)) from e
    _emit(render_robustness(pairs, unpaired), args.out)
    return 0
