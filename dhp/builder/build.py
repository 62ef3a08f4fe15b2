"""Build one DHP dataset folder: load the source, select N items, perturb and validate, write the Hub layout.

The pipeline is rows -> build info -> folder write:

1. :func:`make_outcomes` perturbs every (perturbation, item) and runs the validator
   (:func:`dhp.builder.perturb.registry.validate`) on every output. A rule row that fails is a bug
   (:class:`BuildError` naming the row); an offline-generator row that fails is left out as not
   applicable ("failed validation: ..."); an LLM output is validated inside the perturber's one output
   budget (at most :data:`LLM_ATTEMPTS` model outputs per row, format and validator rejections alike, each
   asked again with the next seed) and then left out the same way. Where the minor and
   major sentence reorderings of an item are the same text, the major row is not applicable.
2. :func:`collect_rows` turns outcomes into rows and not-applicable records, :func:`make_build_info`
   into the :class:`~dhp.data.dataset_io.BuildInfo` record (counts, pass rates, coverage).
3. :func:`~dhp.data.dataset_io.write_dataset` writes the folder atomically.

Rebuilding the same version from the same sources produces byte-identical files: rows are in a
fixed order (spec perturbation order, then selection order), every random choice uses a private
RNG seeded from (version, dataset, item, perturbation, seed), parquet is written with fixed
settings and no file holds a timestamp.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dhp.builder.perturb import (
    NotApplicable,
    Outcome,
    Perturbed,
    apply_offline,
    apply_rule,
    item_rng,
    item_seed,
)
from dhp.builder.perturb.base import FAILED_VALIDATION
from dhp.builder.perturb.llm import LLMJob, LLMPerturber, LLMSettings
from dhp.builder.perturb.offline import OFFLINE_GENERATOR
from dhp.builder.perturb.registry import build_prompt, lookup, validate
from dhp.builder.perturb.validate import check_severities_differ
from dhp.builder.select import Selected, select_items
from dhp.builder.sources import SourceLocator, load_source
from dhp.builder.textstats import SPLITTER, compute_stats
from dhp.data.dataset_io import (
    BuildInfo,
    NotApplicableRecord,
    PerturbationInfo,
    PerturberInfo,
    SelectionInfo,
    SourceInfo,
    StatisticsInfo,
    TextStatistics,
    write_dataset,
)
from dhp.data.items import Item, SourceData
from dhp.errors import BuildError
from dhp.types import DatasetSpec, Method, PairRow, Perturbation, Severity, row_columns

__all__ = [
    "BUILDER_VERSION",
    "LLM_ATTEMPTS",
    "BuildOptions",
    "BuildReport",
    "Checked",
    "build_dataset",
    "build_report",
    "check_methods",
    "check_version",
    "collect_rows",
    "make_build_info",
    "make_outcomes",
]

BUILDER_VERSION = "1.1.0"
LLM_ATTEMPTS = LLMSettings.max_outputs  # model outputs per row, all checks together (the one output budget)
SEVERITIES_SAME = "minor and major cannot differ: "
_SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$")

Key = tuple[str, str]  # (perturbation id, item id)


def check_version(version: str) -> str:
    """``version`` if it is a semantic dataset version such as ``v1.0.0``; else a :class:`BuildError`."""
    if not _SEMVER.match(version):
        raise BuildError(f"dataset version {version!r} is not semantic; use the form v1.0.0")
    return version


def check_methods(spec: DatasetSpec) -> None:
    """A :class:`BuildError` unless every perturbation declares the method its operation's record has
    (the ``method`` column and the card must say how the rows were really made)."""
    for p in spec.perturbations:
        method = lookup(p.operation).method
        if p.method is not method:
            raise BuildError(
                f"{spec.name}/{p.id}: declares method {p.method.value!r}, but {p.operation.value!r} is "
                f"a {method.value} operation"
            )


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
    info: BuildInfo = field(repr=False)


def build_report(spec: DatasetSpec, folder: Path, info: BuildInfo, n_items: int, t0: float) -> BuildReport:
    """What one dataset's build made (its folder written, ``t0`` its start on ``time.perf_counter``)."""
    generators: Counter[str] = Counter()
    for p in info.perturbations:
        generators.update(p.generators)
    return BuildReport(
        name=spec.name,
        folder=folder,
        n_items=n_items,
        n_rows=info.n_rows,
        not_applicable={p.id: p.not_applicable for p in info.perturbations if p.not_applicable},
        generators=dict(sorted(generators.items())),
        seconds=time.perf_counter() - t0,
        info=info,
    )


@dataclass(frozen=True)
class Checked:
    """The outcome of one (perturbation, item) after validation, and what the validator saw."""

    outcome: Outcome
    checked: int = 0  # generator outputs validated
    passed: int = 0  # ... and accepted
    failed_validation: bool = False  # left out because no output passed


@dataclass(frozen=True)
class _Ctx:
    spec: DatasetSpec
    opts: BuildOptions
    seed: int

    def rng_parts(self, p: Perturbation, it: Item) -> tuple[str, str, str, str, int]:
        return (self.opts.version, self.spec.name, it.id, p.id, self.seed)


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="text", disable=not enabled, leave=False)


def _rule(ctx: _Ctx, p: Perturbation, it: Item, pool: Sequence[tuple[str, str]]) -> Checked:
    out = apply_rule(p, it, pool, item_rng(*ctx.rng_parts(p, it)))
    if isinstance(out, NotApplicable):
        return Checked(out)
    verdict = validate(p, it.original, out.text)
    if not verdict.ok:
        raise BuildError(
            f"{ctx.spec.name}/{p.id}/{it.id}: the rule's output fails validation ({verdict.reason}); this is a bug "
            "in the rule or the validator"
        )
    return Checked(out, 1, 1)


def _offline(ctx: _Ctx, p: Perturbation, it: Item) -> Checked:
    out = apply_offline(p, it, item_rng(*ctx.rng_parts(p, it)))
    if isinstance(out, NotApplicable):
        return Checked(out)
    verdict = validate(p, it.original, out.text)
    if verdict.ok:
        return Checked(out, 1, 1)
    return Checked(NotApplicable(FAILED_VALIDATION + verdict.reason), 1, 0, failed_validation=True)


def _llm_job(ctx: _Ctx, p: Perturbation, it: Item) -> LLMJob:
    seed = item_seed(*ctx.rng_parts(p, it))
    prompt = build_prompt(ctx.spec, p, it.original)

    def check(text: str) -> str:
        return validate(p, it.original, text).reason

    return LLMJob(prompt.text, prompt.label, it.original, p.operation, seed % (2**31), check)


def _llm(
    ctx: _Ctx, perturber: LLMPerturber, todo: Sequence[tuple[Perturbation, Item]], on_done: Callable[[], None]
) -> dict[Key, Checked]:
    """LLM outcomes: each row spends at most the perturber's output budget, every output checked by the
    validator inside it; ``checked`` counts the model outputs a row spent."""
    results: dict[Key, Checked] = {}
    outs = perturber.run([_llm_job(ctx, p, it) for p, it in todo], on_done)
    for (p, it), out in zip(todo, outs, strict=True):
        if isinstance(out, NotApplicable):
            failed = out.reason.startswith(FAILED_VALIDATION)
            results[(p.id, it.id)] = Checked(out, perturber.settings.max_outputs, 0, failed_validation=failed)
            continue
        verdict = validate(p, it.original, out.text)  # the perturber checked it; a bug if this fails
        if not verdict.ok:
            raise BuildError(f"{p.id} {it.id}: an LLM output the perturber accepted fails: {verdict.reason}")
        results[(p.id, it.id)] = Checked(out, int(out.settings["attempts"]), 1)
    return results


def _severities_differ(spec: DatasetSpec, items: Sequence[Item], results: dict[Key, Checked]) -> None:
    """For each operation whose record says so (sentence reordering): where an item's minor and major
    outputs are the same text, the major row is not applicable."""
    for op in dict.fromkeys(p.operation for p in spec.perturbations if lookup(p.operation).severities_differ):
        by_sev = {p.severity: p for p in spec.perturbations if p.operation is op}
        minor, major = by_sev.get(Severity.MINOR), by_sev.get(Severity.MAJOR)
        if minor is not None and major is not None:
            _major_differs(minor, major, items, results)


def _major_differs(
    minor: Perturbation, major: Perturbation, items: Sequence[Item], results: dict[Key, Checked]
) -> None:
    for it in items:
        a, b = results[(minor.id, it.id)].outcome, results[(major.id, it.id)].outcome
        if isinstance(a, Perturbed) and isinstance(b, Perturbed):
            verdict = check_severities_differ(a.text, b.text)
            if not verdict.ok:
                results[(major.id, it.id)] = Checked(NotApplicable(SEVERITIES_SAME + verdict.reason))


def make_outcomes(
    spec: DatasetSpec, sel: Selected, opts: BuildOptions, seed: int, bar: Any
) -> dict[Key, Checked]:
    """The validated outcome of every (perturbation id, item id)."""
    ctx = _Ctx(spec, opts, seed)
    pool = [(it.id, it.original) for it in sel.items]
    results: dict[Key, Checked] = {}
    llm_todo: list[tuple[Perturbation, Item]] = []
    for p in spec.perturbations:
        for it in sel.items:
            if lookup(p.operation).method is Method.RULE:
                results[(p.id, it.id)] = _rule(ctx, p, it, pool)
            elif opts.perturber is None:
                results[(p.id, it.id)] = _offline(ctx, p, it)
            else:
                llm_todo.append((p, it))
                continue
            bar.update(1)
    if opts.perturber is not None and llm_todo:
        results.update(_llm(ctx, opts.perturber, llm_todo, lambda: bar.update(1)))
    _severities_differ(spec, sel.items, results)
    return results


def _row(spec: DatasetSpec, p: Perturbation, it: Item, out: Perturbed) -> PairRow:
    return PairRow(
        id=it.id,
        context={c.name: it.context.get(c.name) for c in spec.context_fields},
        original=it.original,
        perturbed=out.text,
        perturbation=p.id,
        level=p.level.value,
        method=p.method.value,
        severity=p.severity.value,
        generator=out.generator,
        generator_settings=json.dumps(dict(out.settings), sort_keys=True, ensure_ascii=False),
    )


def applicable_items(p: Perturbation, items: Sequence[Item]) -> int | None:
    """How many items the perturbation can apply to, where its record says that depends on the text
    (fictional entities: the items naming as many replaceable entities as the severity replaces);
    None where every item is applicable."""
    applicable = lookup(p.operation).applicable
    if applicable is None:
        return None
    return sum(applicable(it.original, p.severity) for it in items)


def _perturbation_info(
    p: Perturbation, items: Sequence[Item], checked: Sequence[Checked]
) -> PerturbationInfo:
    made = [c.outcome for c in checked if isinstance(c.outcome, Perturbed)]
    return PerturbationInfo(
        id=p.id,
        level=p.level.value,
        method=p.method.value,
        operation=p.operation.value,
        severity=p.severity.value,
        k=p.k,
        description=p.description,
        rows=len(made),
        not_applicable=len(checked) - len(made),
        failed_validation=sum(c.failed_validation for c in checked),
        checked=sum(c.checked for c in checked),
        passed=sum(c.passed for c in checked),
        n_items=len(items),
        generators=dict(sorted(Counter(o.generator for o in made).items())),
        applicable=applicable_items(p, items),
    )


def collect_rows(
    spec: DatasetSpec, items: Sequence[Item], outcomes: Mapping[Key, Checked]
) -> tuple[dict[str, list[PairRow]], list[NotApplicableRecord], list[PerturbationInfo]]:
    """Rows per perturbation, not-applicable records and per-perturbation counts, in spec and item order."""
    rows: dict[str, list[PairRow]] = {}
    na: list[NotApplicableRecord] = []
    perts: list[PerturbationInfo] = []
    for p in spec.perturbations:
        these: list[PairRow] = []
        for it in items:
            out = outcomes[(p.id, it.id)].outcome
            if isinstance(out, NotApplicable):
                na.append(NotApplicableRecord(p.id, it.id, out.reason))
            elif out.text == it.original:  # a guard: rules and validation already ensure this
                raise BuildError(f"{spec.name}/{p.id}/{it.id}: the perturbed text equals the original")
            else:
                these.append(_row(spec, p, it, out))
        rows[p.id] = these
        perts.append(_perturbation_info(p, items, [outcomes[(p.id, it.id)] for it in items]))
    return rows, na, perts


def _perturber_info(opts: BuildOptions) -> PerturberInfo:
    if opts.perturber is None:
        return PerturberInfo("offline", OFFLINE_GENERATOR)
    return PerturberInfo("llm", opts.perturber.generator, opts.perturber.protocol.value)


def make_build_info(
    spec: DatasetSpec,
    source: SourceData,
    sel: Selected,
    opts: BuildOptions,
    seed: int,
    perts: Sequence[PerturbationInfo],
) -> BuildInfo:
    """The build-info record of a build (``num_bytes`` are filled in by the writer)."""
    stats = compute_stats(it.original for it in sel.items)
    ps = spec.paper_stats
    src = spec.source
    return BuildInfo(
        dataset=spec.name,
        pretty_name=spec.pretty_name,
        hub_repo=spec.hub_repo,
        dataset_version=opts.version,
        builder_version=BUILDER_VERSION,
        seed=seed,
        columns=row_columns(spec),
        selection=SelectionInfo(
            spec.selection.rule, sel.n_requested, len(sel.items), sel.n_eligible, sel.n_candidates
        ),
        source=SourceInfo(
            src.name,
            src.licence,
            src.redistribution.value,
            src.terms,
            src.homepage,
            source.partial,
            source.notes,
            source.files,
        ),
        perturber=_perturber_info(opts),
        statistics=StatisticsInfo(
            SPLITTER,
            TextStatistics(round(stats.chars, 1), round(stats.words, 1), round(stats.sentences, 2)),
            None if ps is None else TextStatistics(ps.chars, ps.words, ps.sentences),
        ),
        perturbations=tuple(perts),
    )


@dataclass(frozen=True)
class Inputs:
    """One dataset's inputs, checked: its source and the items selected from it."""

    source: SourceData
    selected: Selected


def _inputs(spec: DatasetSpec, locator: SourceLocator, opts: BuildOptions) -> Inputs:
    check_methods(spec)
    source = load_source(spec, locator, opts.story_cloze_file)
    return Inputs(source, select_items(spec, source, allow_fewer=opts.allow_fewer))


def check_inputs(
    specs: Sequence[DatasetSpec], locator: SourceLocator, opts: BuildOptions
) -> dict[str, Inputs]:
    """Every dataset's inputs, loaded and selected before any dataset is written (a build of several
    writes all or none): each dataset whose inputs fall short (a source with too few items without
    ``allow_fewer``, a method that cannot run) is named, in one :class:`BuildError`."""
    check_version(opts.version)
    checked: dict[str, Inputs] = {}
    problems: list[str] = []
    for spec in specs:
        try:
            checked[spec.name] = _inputs(spec, locator, opts)
        except BuildError as e:
            problems.append(str(e))
    if problems:
        raise BuildError(f"nothing built: {'; '.join(problems)}")
    return checked


def build_dataset(
    spec: DatasetSpec,
    locator: SourceLocator,
    out_root: Path,
    opts: BuildOptions,
    render_card: Callable[[DatasetSpec, BuildInfo], str] | None = None,
    extra_files: Mapping[str, str] | None = None,
    inputs: Inputs | None = None,
) -> BuildReport:
    """Build ``out_root/<spec.name>/`` and return a report. See the module docstring.

    ``extra_files`` (relative path -> text) are written into the folder too (a task's file and prompts);
    ``inputs``: what :func:`check_inputs` loaded (else the source is loaded and selected here).
    """
    from dhp.builder.cards import render_card as default_card

    t0 = time.perf_counter()
    check_version(opts.version)
    seed = spec.selection.seed if opts.seed is None else opts.seed
    checked = inputs or _inputs(spec, locator, opts)
    source, sel = checked.source, checked.selected
    with _progress(len(sel.items) * len(spec.perturbations), f"{spec.name}: perturb", opts.progress) as bar:
        outcomes = make_outcomes(spec, sel, opts, seed, bar)
    rows, na, perts = collect_rows(spec, sel.items, outcomes)
    info = make_build_info(spec, source, sel, opts, seed, perts)
    card = render_card or default_card
    records = {pid: [r.record() for r in these] for pid, these in rows.items()}
    folder, info = write_dataset(out_root, info, records, na, lambda i: card(spec, i), extra_files)
    return build_report(spec, folder, info, len(sel.items), t0)
