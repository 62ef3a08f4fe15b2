"""Build one DHP dataset folder: load the source, select N items, perturb them, write the Hub layout.

The output is written into a temporary sibling folder and moved into place only when complete, so
an interrupted build never leaves a half-written dataset. Rebuilding the same version from the same
sources produces byte-identical files: rows are in a fixed order (spec perturbation order, then
selection order), every random choice uses a private RNG seeded from (version, dataset, item,
perturbation, seed), parquet is written with fixed settings and no file holds a timestamp.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dhp.builder.dataset_io import (
    BUILD_INFO,
    DATA_DIR,
    NOT_APPLICABLE,
    dump_json,
    row_columns,
    write_parquet,
)
from dhp.builder.errors import BuildError
from dhp.builder.items import Item
from dhp.builder.perturb import (
    LLM_OPERATIONS,
    NotApplicable,
    Outcome,
    Perturbed,
    apply_offline,
    apply_rule,
    item_rng,
    item_seed,
)
from dhp.builder.perturb.llm import LLMJob, LLMPerturber
from dhp.builder.perturb.offline import OFFLINE_GENERATOR
from dhp.builder.perturb.prompts import build_prompt
from dhp.builder.select import Selected, select_items
from dhp.builder.sources import SourceLocator, load_source
from dhp.builder.textstats import SPLITTER, compute_stats
from dhp.types import DatasetSpec, Perturbation

__all__ = ["BUILDER_VERSION", "BuildOptions", "BuildReport", "build_dataset", "check_version"]

BUILDER_VERSION = "1.0.0"
_SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$")


def check_version(version: str) -> str:
    """``version`` if it is a semantic dataset version such as ``v1.0.0``; else a :class:`BuildError`."""
    if not _SEMVER.match(version):
        raise BuildError(f"dataset version {version!r} is not semantic; use the form v1.0.0")
    return version


@dataclass(frozen=True)
class BuildOptions:
    """How to build: dataset version, seed, LLM perturber (None: offline rules), and source options."""

    version: str = "v1.0.0"
    seed: int | None = None  # None: the dataset's selection seed
    allow_fewer: bool = False
    story_cloze_file: Path | None = None
    perturber: LLMPerturber | None = None
    progress: bool = True


@dataclass(frozen=True)
class BuildReport:
    """What a build produced."""

    name: str
    folder: Path
    n_items: int
    n_rows: int
    not_applicable: dict[str, int]
    generators: dict[str, int]
    seconds: float
    info: dict[str, Any] = field(repr=False, default_factory=dict)


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="text", disable=not enabled, leave=False)


def _outcomes(
    spec: DatasetSpec, sel: Selected, opts: BuildOptions, seed: int, bar: Any
) -> dict[tuple[str, str], Outcome]:
    """Outcome per (perturbation id, item id)."""
    items = sel.items
    pool = [(it.id, it.judged) for it in items]
    results: dict[tuple[str, str], Outcome] = {}
    jobs: list[tuple[tuple[str, str], LLMJob]] = []
    for p in spec.perturbations:
        for it in items:
            key = (p.id, it.id)
            if p.operation in LLM_OPERATIONS:
                if opts.perturber is not None:
                    prompt = build_prompt(spec, p, it.judged)
                    jobs.append(
                        (
                            key,
                            LLMJob(
                                prompt.text,
                                prompt.label,
                                it.judged,
                                p.operation,
                                item_seed(opts.version, spec.name, it.id, p.id, seed) % (2**31),
                            ),
                        )
                    )
                    continue
                results[key] = apply_offline(p, it, item_rng(opts.version, spec.name, it.id, p.id, seed))
            else:
                results[key] = apply_rule(p, it, pool, item_rng(opts.version, spec.name, it.id, p.id, seed))
            bar.update(1)
    if jobs and opts.perturber is not None:
        outs = opts.perturber.run([j for _, j in jobs], on_done=lambda: bar.update(1))
        for (key, _), out in zip(jobs, outs, strict=True):
            results[key] = out
    return results


def _row(spec: DatasetSpec, p: Perturbation, it: Item, out: Perturbed) -> dict[str, str]:
    row: dict[str, str] = {"id": it.id}
    for c in spec.context_fields:
        row[c.name] = it.context.get(c.name, "")
    row.update(
        original=it.judged,
        perturbed=out.text,
        perturbation=p.id,
        level=p.level.value,
        method=p.method.value,
        severity=p.severity.value,
        generator=out.generator,
        generator_settings=json.dumps(dict(out.settings), sort_keys=True, ensure_ascii=False),
    )
    return row


def _swap_into_place(tmp: Path, target: Path) -> None:
    old: Path | None = None
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        old.rmdir()
        target.rename(old)
    tmp.rename(target)
    if old is not None:
        shutil.rmtree(old)


def build_dataset(
    spec: DatasetSpec,
    locator: SourceLocator,
    out_root: Path,
    opts: BuildOptions,
    render_card: Callable[[DatasetSpec, dict[str, Any]], str] | None = None,
    extra_files: Mapping[str, str] | None = None,
) -> BuildReport:
    """Build ``out_root/<spec.name>/`` and return a report. See the module docstring.

    ``extra_files`` (relative path -> text) are written into the folder too (a task's file and prompts).
    """
    t0 = time.perf_counter()
    check_version(opts.version)
    seed = spec.selection.seed if opts.seed is None else opts.seed
    source = load_source(spec, locator, opts.story_cloze_file)
    sel = select_items(spec, source, allow_fewer=opts.allow_fewer)
    n_texts = len(sel.items) * len(spec.perturbations)
    with _progress(n_texts, f"{spec.name}: perturb", opts.progress) as bar:
        outcomes = _outcomes(spec, sel, opts, seed, bar)

    columns = row_columns(spec)
    per_pert: list[dict[str, Any]] = []
    files: dict[str, list[dict[str, str]]] = {}
    na_lines: list[str] = []
    generators: Counter[str] = Counter()
    for p in spec.perturbations:
        rows: list[dict[str, str]] = []
        na = 0
        gens: Counter[str] = Counter()
        for it in sel.items:
            out = outcomes[(p.id, it.id)]
            if isinstance(out, NotApplicable):
                na += 1
                na_lines.append(
                    json.dumps({"perturbation": p.id, "id": it.id, "reason": out.reason}, ensure_ascii=False)
                )
                continue
            if out.text == it.judged:  # a guard: rules and validation already ensure this
                raise BuildError(f"{spec.name}/{p.id}/{it.id}: the perturbed text equals the original")
            rows.append(_row(spec, p, it, out))
            gens[out.generator] += 1
        generators.update(gens)
        files[p.id] = rows
        per_pert.append(
            {
                "id": p.id,
                "level": p.level.value,
                "method": p.method.value,
                "operation": p.operation.value,
                "severity": p.severity.value,
                "k": p.k,
                "description": p.description,
                "rows": len(rows),
                "not_applicable": na,
                "generators": dict(sorted(gens.items())),
            }
        )

    stats = compute_stats(it.judged for it in sel.items)
    ps = spec.paper_stats
    info: dict[str, Any] = {
        "dataset": spec.name,
        "pretty_name": spec.pretty_name,
        "hub_repo": spec.hub_repo,
        "dataset_version": opts.version,
        "builder_version": BUILDER_VERSION,
        "seed": seed,
        "columns": list(columns),
        "split": "test",
        "selection": {
            "rule": spec.selection.rule,
            "n_requested": sel.n_requested,
            "n_selected": len(sel.items),
            "n_eligible": sel.n_eligible,
            "n_candidates": sel.n_candidates,
            "fewer_than_requested": sel.fewer,
        },
        "source": {
            "name": spec.source.name,
            "licence": spec.source.licence,
            "redistribution": spec.source.redistribution.value,
            "terms": spec.source.terms,
            "homepage": spec.source.homepage,
            "partial": source.partial,
            "notes": list(source.notes),
            "files": [{"path": f.path, "origin": f.origin, "sha256": f.sha256} for f in source.files],
        },
        "perturber": (
            {
                "kind": "llm",
                "generator": opts.perturber.generator,
                "url_protocol": opts.perturber.settings.protocol,
            }
            if opts.perturber is not None
            else {"kind": "offline", "generator": OFFLINE_GENERATOR}
        ),
        "statistics": {
            "splitter": SPLITTER,
            "ours": {
                "chars": round(stats.chars, 1),
                "words": round(stats.words, 1),
                "sentences": round(stats.sentences, 2),
            },
            "paper": None
            if ps is None
            else {"chars": ps.chars, "words": ps.words, "sentences": ps.sentences},
        },
        "perturbations": per_pert,
        "n_rows": sum(len(r) for r in files.values()),
        "n_not_applicable": len(na_lines),
    }

    out_root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out_root, prefix=f".{spec.name}.tmp-"))
    try:
        (tmp / DATA_DIR).mkdir()
        for p_info in per_pert:
            rows = files[p_info["id"]]
            p_info["num_bytes"] = (
                write_parquet(rows, columns, tmp / DATA_DIR / f"{p_info['id']}.parquet") if rows else 0
            )
        (tmp / NOT_APPLICABLE).write_text("".join(ln + "\n" for ln in na_lines), encoding="utf-8")
        (tmp / BUILD_INFO).write_text(dump_json(info), encoding="utf-8")
        if render_card is None:
            from dhp.builder.cards import render_card as _render

            render_card = _render
        (tmp / "README.md").write_text(render_card(spec, info), encoding="utf-8")
        for rel, text in (extra_files or {}).items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text, encoding="utf-8")
        _swap_into_place(tmp, out_root / spec.name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildReport(
        name=spec.name,
        folder=out_root / spec.name,
        n_items=len(sel.items),
        n_rows=info["n_rows"],
        not_applicable={p["id"]: p["not_applicable"] for p in per_pert if p["not_applicable"]},
        generators=dict(sorted(generators.items())),
        seconds=time.perf_counter() - t0,
        info=info,
    )


def build_many(
    specs: Sequence[DatasetSpec], locator: SourceLocator, out_root: Path, opts: BuildOptions
) -> list[BuildReport]:
    """Build several datasets in order."""
    return [build_dataset(s, locator, out_root, opts) for s in specs]
