"""`dhp build`, `dhp publish`, `dhp download`, `dhp export`: the builder's subcommands.

Handlers import the heavy modules lazily so that ``dhp --help`` stays fast, and raise
:class:`dhp.errors.UserError` (via the builder's error classes) for anything the user can fix.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dhp.cli.args import DATASETS_HELP, nonneg_float, out_file, out_folder, positive_int, seed
from dhp.data.private import DEFAULT_PRIVATE_DATA, SPLITS
from dhp.naming import DEFAULT_DATA
from dhp.types import PROTOCOLS, DatasetSpec, EndpointProtocol

__all__ = ["DEFAULT_OUT", "DEFAULT_VERSION", "register"]

DEFAULT_OUT = Path(DEFAULT_DATA)
#: where ``dhp build --split private`` writes by default (never over the public folders)
DEFAULT_PRIVATE_OUT = Path(DEFAULT_PRIVATE_DATA)
DEFAULT_VERSION = "v1.0.0"


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _task(args: argparse.Namespace) -> Any:
    """The task of ``--task FILE`` (its source is read relative to the file), or None."""
    if args.task is None:
        return None
    from dhp.errors import BuildError
    from dhp.task.file import load_task

    if args.datasets != "all" or args.story_cloze is not None:
        raise BuildError("--task builds the task's own dataset: drop --datasets and --story-cloze")
    return load_task(args.task)


def _perturber(args: argparse.Namespace) -> Any:
    """The LLM perturber of ``--perturber URL``, or ``None`` (the offline stand-in)."""
    if not args.perturber:
        return None
    from dhp.builder.perturb.llm import LLMPerturber, LLMSettings
    from dhp.builder.sources.fetch import default_cache_dir

    cache = args.perturber_cache or default_cache_dir().parent / "perturber.sqlite"
    return LLMPerturber(
        LLMSettings(
            url=args.perturber,
            protocol=args.perturber_protocol,
            model=args.perturber_model,
            temperature=args.perturber_temperature,
            concurrency=args.perturber_concurrency,
        ),
        cache,
    )


def _say_generator(args: argparse.Namespace) -> None:
    from dhp.builder.perturb.offline import OFFLINE_GENERATOR

    if not args.perturber:
        _err(
            "dhp build: no --perturber given: the LLM-based rows (fictional entities, grammatical errors, "
            f"rewriting and insertion) are made by the OFFLINE RULE-BASED stand-in ({OFFLINE_GENERATOR}), "
            "not by an LLM. Rows and cards say so."
        )
    else:
        _err(f"dhp build: LLM-based rows from {args.perturber} ({args.perturber_protocol})")


def _print_report(r: Any) -> None:
    """One summary line per dataset, then the validator's pass rate and the coverage per perturbation."""
    na = sum(r.not_applicable.values())
    from dhp.data.sample import is_sample_version

    fewer = r.info.selection.fewer_than_requested
    sample = " [SAMPLE, not the benchmark: version " + r.info.dataset_version + "]"
    if r.info.private is not None:
        sample = f" [PRIVATE split {r.info.dataset_version}, {r.info.private.basis}]" + (
            sample if is_sample_version(r.info.dataset_version) else ""
        )
    gens = ", ".join(f"{g}: {n}" for g, n in r.generators.items())
    print(
        f"{r.name}{sample if is_sample_version(r.info.dataset_version) or r.info.private else ''}: {r.n_items} items"
        f"{' (FEWER than N, --allow-fewer)' if fewer else ''}, {r.n_rows} pairs, "
        f"{na} not applicable; generators {gens}; {r.seconds:.1f}s -> {r.folder}"
    )
    for p in r.info.perturbations:
        rate = "   -  " if p.pass_rate is None else f"{100 * p.pass_rate:5.1f}%"
        print(
            f"  {p.id:<28} {p.method:<4} pass {rate} ({p.passed}/{p.checked})  "
            f"coverage {100 * p.coverage:5.1f}% ({p.rows}/{p.n_items})"
            + (
                ""
                if p.applicable is None
                else f"  of applicable {100 * p.applicable_coverage:5.1f}% ({p.rows}/{p.applicable})"
            )
        )


def _available(
    specs: Sequence[DatasetSpec], locator: Any, args: argparse.Namespace
) -> tuple[tuple[DatasetSpec, ...], tuple[DatasetSpec, ...]]:
    """The datasets whose sources can be had now, and (with ``--sample-fallback``) those built from the
    embedded sample instead; each missing source is named in one line, before any build.

    A missing source stops the build unless ``--skip-missing`` (then the others are built); none left stops it.
    """
    from dhp.builder.sources import SampleLocator, missing_source
    from dhp.errors import BuildError

    missing = {
        s.name: why for s in specs if (why := missing_source(s, locator, args.story_cloze)) is not None
    }
    sampled: tuple[DatasetSpec, ...] = ()
    if args.sample_fallback:
        sampled = tuple(s for s in specs if s.name in missing and missing_source(s, SampleLocator()) is None)
    for name, why in missing.items():
        instead = (
            " -> built from the embedded SAMPLE (marked as a sample)"
            if name in {s.name for s in sampled}
            else ""
        )
        _err(f"dhp build: {name}: {why}{instead}")
    left = tuple(s for s in specs if s.name not in missing)
    unbuilt = len(missing) - len(sampled)
    if unbuilt and (not args.skip_missing or not (left or sampled)):
        more = (
            f"; pass --skip-missing to build the other {len(left) + len(sampled)}" if left or sampled else ""
        )
        raise BuildError(f"{unbuilt} of {len(specs)} source(s) missing (above), nothing built{more}")
    return left, sampled


def _cmd_build(args: argparse.Namespace) -> int:
    from dhp.extras import require

    require("build")  # before anything is written: the perturbation rules and the offline generator
    from dhp.builder.build import BuildOptions, check_inputs, check_version
    from dhp.spec import resolve_datasets
    from dhp.task.build_task import build_task

    check_version(args.version)
    seed = _split_seed(args)  # before anything is read or written: one line, exit 2, without the seed
    if args.out is None:
        args.out = DEFAULT_OUT if seed is None else DEFAULT_PRIVATE_OUT
    task = _task(args)
    specs = (task.spec,) if task is not None else resolve_datasets(args.datasets)
    locator = _locator(args)
    where = f"the task file's folder {task.folder}" if task is not None else locator.describe()
    _err(f"dhp build: sources from {where}; version {args.version}; output {args.out}")
    sampled: tuple[DatasetSpec, ...] = ()
    if task is None:
        specs, sampled = _available(specs, locator, args)
    _say_generator(args)
    perturber = _perturber(args)
    opts = BuildOptions(
        version=args.version,
        seed=args.seed,
        allow_fewer=args.allow_fewer,
        story_cloze_file=args.story_cloze,
        perturber=perturber,
        progress=not args.no_progress,
    )
    try:
        checked = check_inputs(specs, locator, opts) if task is None else {}  # all inputs before any write
        for spec in specs:
            _print_report(
                build_task(task, args.out, opts)
                if task is not None
                else _build_one(spec, locator, args.out, opts, checked[spec.name], seed)
            )
        _build_samples(sampled, args.out, opts, seed)
    finally:
        if perturber is not None:
            perturber.close()
    if args.samples is not None:
        _write_samples(args, (*specs, *sampled))
    return 0


def _locator(args: argparse.Namespace) -> Any:
    """Where the sources are read from: ``--sources``, else $DHP_SOURCES, else the public origins."""
    from dhp.builder.sources import SourceLocator
    from dhp.errors import BuildError

    sources = args.sources or os.environ.get("DHP_SOURCES") or None
    if sources is not None and not Path(sources).is_dir():
        raise BuildError(
            f"--sources {sources}: not a directory (expected the layout of docs/datasets.md#sources)"
        )
    return SourceLocator(Path(sources) if sources else None, cache_dir=args.cache_dir)


def _write_samples(args: argparse.Namespace, specs: Sequence[DatasetSpec]) -> None:
    """``--samples FILE``: a page of sample rows per built dataset (one file, or one per dataset)."""
    from dhp.cli.show import write_samples_html

    for spec in specs:
        page = (
            args.samples
            if len(specs) == 1
            else args.samples.with_name(f"{args.samples.stem}.{spec.name}{args.samples.suffix}")
        )
        write_samples_html(args.out / spec.name, page, args.samples_n, args.samples_seed)
        print(f"samples: {page}")


def _split_seed(args: argparse.Namespace) -> Any:
    """The private split's seed (from the environment only) with ``--split private``, else None."""
    if args.split != "private":
        return None
    from dhp.builder.private import private_seed
    from dhp.errors import BuildError

    if args.task is not None or args.seed is not None:
        raise BuildError("--split private builds the six datasets with a seed from the environment: drop "
                         "--task and --seed")  # fmt: skip
    return private_seed()


def _build_one(spec: DatasetSpec, locator: Any, out: Path, opts: Any, inputs: Any, seed: Any) -> Any:
    """One dataset's public build, or its private twin with ``seed``."""
    from dhp.builder.build import build_dataset

    if seed is None:
        return build_dataset(spec, locator, out, opts, inputs=inputs)
    from dhp.builder.private import build_private_dataset

    return build_private_dataset(spec, locator, out, opts, seed, inputs=inputs)


def _build_samples(specs: Sequence[DatasetSpec], out: Path, opts: Any, seed: Any = None) -> None:
    """Build ``specs`` from the embedded sample, their version tagged ``-sample`` (v1.0.0-sample); with
    ``seed``, their private twins (v1.0.0-sample.private.<commitment>)."""
    import dataclasses

    from dhp.builder.sources import SampleLocator
    from dhp.data.sample import sample_version

    sample_opts = dataclasses.replace(opts, version=sample_version(opts.version), allow_fewer=True)
    for spec in specs:
        _print_report(_build_one(spec, SampleLocator(), out, sample_opts, None, seed))


def _cmd_publish(args: argparse.Namespace) -> int:
    from dhp.builder.publish import publish_datasets
    from dhp.spec import resolve_datasets

    specs = resolve_datasets(args.datasets)
    for line in publish_datasets(
        specs,
        args.folder,
        org=args.org,
        version=args.version,
        confirm_restricted=args.confirm_restricted,
        endpoint=args.endpoint,
        private=args.private,
    ):
        print(line)
    return 0


def _cmd_download(args: argparse.Namespace) -> int:
    from dhp.builder.publish import download_datasets
    from dhp.spec import resolve_datasets

    for path in download_datasets(
        resolve_datasets(args.datasets), args.out, org=args.org, revision=args.version, endpoint=args.endpoint
    ):
        print(path)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from dhp.builder.export import export_datasets
    from dhp.spec import resolve_datasets

    perts = [p.strip() for p in args.perturbations.split(",") if p.strip()] if args.perturbations else None
    for path in export_datasets(resolve_datasets(args.datasets), args.folder, args.out, args.format, perts):
        print(path)
    return 0


def register(subparsers: Any) -> None:
    """Add ``build``, ``publish``, ``download`` and ``export`` to the ``dhp`` parser."""
    _register_build(subparsers)
    _register_hub(subparsers)


def _register_build(subparsers: Any) -> None:
    p = subparsers.add_parser("build", help="build the perturbed DHP datasets as Hub-layout folders")
    p.add_argument(
        "--sources",
        help="directory of raw source files in the layout of docs/datasets.md#sources (default: $DHP_SOURCES, else download "
        "from the public origins)",
    )
    p.add_argument("--out", type=out_folder, default=None,
                   help=f"output directory (default: {DEFAULT_OUT}; {DEFAULT_PRIVATE_OUT} with --split private)")  # fmt: skip
    p.add_argument("--split", choices=SPLITS, default="public",
                   help="public: the benchmark's datasets; private: their twins with a secret seed read from "
                   "$DHP_PRIVATE_SEED only, never written (docs/datasets.md#the-private-split) (default: %(default)s)")  # fmt: skip
    p.add_argument("--datasets", default="all", help=DATASETS_HELP)
    p.add_argument(
        "--task",
        type=Path,
        metavar="FILE",
        help="build your own task from a task file (see `dhp task init`); its source path is relative to the file",
    )
    p.add_argument(
        "--version", default=DEFAULT_VERSION, help=f"semantic dataset version (default: {DEFAULT_VERSION})"
    )
    p.add_argument("--seed", type=seed, help="perturbation seed (default: the dataset's selection seed)")
    p.add_argument(
        "--allow-fewer",
        action="store_true",
        help="build with all eligible items when fewer than N are available (the card says so)",
    )
    p.add_argument("--story-cloze", type=Path, metavar="FILE",
                   help="your copy of the Story Cloze spring 2016 validation CSV (distributed on request)")  # fmt: skip
    p.add_argument("--skip-missing", action="store_true",
                   help="build the datasets whose sources can be had and name the others (default: a missing "
                   "source stops the build before anything is built)")  # fmt: skip
    p.add_argument("--sample-fallback", action="store_true",
                   help="build a dataset whose source cannot be had from the small sample shipped in the package "
                   "(20 items; its version is tagged -sample and every view marks it; not the benchmark)")  # fmt: skip
    p.add_argument("--cache-dir", type=out_folder, help="where downloaded source files are cached")
    _perturber_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--samples",
        type=out_file,
        metavar="FILE",
        help="after the build, write an HTML sheet of random pairs per perturbation (differences marked) for a "
        "human check; with several datasets, one file each (FILE's name + .<dataset>)",
    )
    p.add_argument(
        "--samples-n", type=positive_int, default=5, help="pairs per perturbation in --samples (default: 5)"
    )
    p.add_argument("--samples-seed", type=seed, default=0, help="seed of the --samples draw (default: 0)")
    p.set_defaults(func=_cmd_build)


def _perturber_options(p: argparse.ArgumentParser) -> None:
    """``dhp build``'s options of the LLM endpoint that makes the LLM-based perturbations."""
    p.add_argument("--perturber", metavar="URL", help="LLM endpoint for the LLM-based perturbations")
    p.add_argument("--perturber-protocol", choices=PROTOCOLS, default=EndpointProtocol.OPENAI.value,
                   help="the API the --perturber endpoint speaks (default: %(default)s)")  # fmt: skip
    p.add_argument("--perturber-model", help="model name (default: asked from the endpoint)")
    p.add_argument("--perturber-temperature", type=nonneg_float, default=0.7,
                   help="sampling temperature of the LLM perturbations (default: %(default)s)")  # fmt: skip
    p.add_argument("--perturber-concurrency", type=positive_int, default=8,
                   help="requests in flight to the --perturber endpoint (default: %(default)s)")  # fmt: skip
    p.add_argument(
        "--perturber-cache", type=out_file, help="SQLite cache of LLM outputs (default: ~/.cache/dhp)"
    )


def _register_hub(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "publish", help="upload built datasets to the Hub and tag them with the version"
    )
    p.add_argument("--from", dest="folder", type=Path, default=DEFAULT_OUT, help="built datasets folder")
    p.add_argument("--org", default="dhp", help="Hub organisation or user (default: dhp)")
    p.add_argument(
        "--version", default=DEFAULT_VERSION, help="the version the folders were built as; becomes the tag"
    )
    p.add_argument("--datasets", default="all", help=DATASETS_HELP)
    p.add_argument(
        "--confirm-restricted",
        action="store_true",
        help="publish datasets whose source terms restrict redistribution (you confirm you may)",
    )
    p.add_argument("--private", action="store_true", help="create the repositories as private")
    p.add_argument("--endpoint", help="Hub endpoint (default: $HF_ENDPOINT or huggingface.co)")
    p.set_defaults(func=_cmd_publish)

    p = subparsers.add_parser(
        "download", help="download the datasets' Hub repositories at a version, for offline use"
    )
    p.add_argument(
        "--out", type=out_folder, required=True, help="folder to download into (one folder per dataset)"
    )
    p.add_argument("--version", default=DEFAULT_VERSION, help="tag or revision (default: %(default)s)")
    p.add_argument("--org", default="dhp", help="Hub organisation or user (default: %(default)s)")
    p.add_argument("--datasets", default="all", help=DATASETS_HELP)
    p.add_argument("--endpoint", help="Hub endpoint (default: $HF_ENDPOINT or huggingface.co)")
    p.set_defaults(func=_cmd_download)

    p = subparsers.add_parser(
        "export", help="export built or downloaded datasets as jsonl, csv or parquet files"
    )
    p.add_argument("--from", dest="folder", type=Path, default=DEFAULT_OUT,
                   help="folder holding the built or downloaded dataset folders (default: %(default)s)")  # fmt: skip
    p.add_argument(
        "--out", type=out_folder, required=True, help="folder for the files, one <dataset>.<format> each"
    )
    p.add_argument("--format", choices=("jsonl", "csv", "parquet"), default="jsonl",
                   help="file format (default: %(default)s)")  # fmt: skip
    p.add_argument("--datasets", default="all", help=DATASETS_HELP)
    p.add_argument("--perturbations", help="comma-separated perturbation ids (default: all)")
    p.set_defaults(func=_cmd_export)
