"""Synthetic results for leaderboard tests and benchmarks, made with the real statistics.

Scores are drawn per item: originals around a judge-specific level, perturbed texts lower by
``skill`` (0 = no discernment) plus noise, rounded to the 1-5 scale.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from dhp.inference.judge import BuiltinJudge, EndpointJudge
from dhp.scoring.analysis import analyse
from dhp.scoring.result_files import dump_result
from dhp.scoring.results import (
    Coverage,
    DatasetRef,
    ItemScores,
    JudgeInfo,
    PromptInfo,
    Result,
    ScoringSettings,
    Timing,
)
from dhp.scoring.summary import result_from_analysis
from dhp.spec import BENCHMARK
from dhp.types import ControlJudge, DatasetSpec, EndpointProtocol


def make_result(
    judge: str,
    dataset: str | DatasetSpec = "summeval",
    *,
    skill: float = 0.6,
    n_items: int = 30,
    seed: int = 0,
    model: str | None = None,
    hf_model_id: str | None = None,
    revision: str | None = None,
    n_params: float | None = None,
    protocol: str = "openai",
    mode: str = "expected",
    created_at: str = "2025-01-15T12:00:00Z",
    version: str = "v1.0.0",
    with_scores: bool = True,
    n_boot: int = 0,
    prompt_set: str = "default",
    no_scores_for: str | None = None,
    continuous: bool = False,
    rows: Mapping[str, int] | None = None,
    blind: bool = False,
) -> Result:
    """A result whose judge drops perturbed scores by ``skill``; ``no_scores_for`` names a perturbation
    every score of which is unparsed (so it has no D). ``continuous``: scores are not rounded to the
    1-5 scale (expected-mode scores, a probability-weighted mean): without ties, a perturbation of
    at most 50 pairs gets the exact Wilcoxon test. ``rows``: perturbation id -> how many items have
    a row of it (the first ones; the others have no perturbed text, as offline rewriting).
    ``blind``: every perturbed text gets its original's scores (a judge that sees no difference)."""
    spec = BENCHMARK[dataset] if isinstance(dataset, str) else dataset
    rng = np.random.default_rng(zlib.crc32(f"{judge}|{spec.name}|{seed}".encode()))
    metrics = spec.metric_names
    base = rng.uniform(2.5, 4.5, size=n_items)

    def rnd(x: np.ndarray) -> np.ndarray:
        return x if continuous else np.round(x)

    original = {m: np.clip(rnd(base + rng.normal(0, 0.4, n_items)), 1, 5) for m in metrics}
    perturbed: dict[str, dict[str, np.ndarray]] = {}
    for i, p in enumerate(spec.perturbations):
        drop = skill * (0.5 + (i % 3) / 2)
        perturbed[p.id] = {
            m: np.clip(
                rnd(original[m] - drop * rng.uniform(0, 2, n_items) + rng.normal(0, 0.3, n_items)), 1, 5
            )
            for m in metrics
        }
    if blind:
        perturbed = {pid: {m: original[m].copy() for m in metrics} for pid in perturbed}
    if no_scores_for is not None:
        perturbed[no_scores_for] = {m: np.full(n_items, np.nan) for m in metrics}
    for pid, k in (rows or {}).items():
        perturbed[pid] = {m: np.where(np.arange(n_items) < k, v, np.nan) for m, v in perturbed[pid].items()}
    weights = {pid: dict(spec.weights.for_perturbation(pid)) for pid in spec.perturbation_ids}
    analysis = analyse(
        original,
        perturbed,
        {p.id: p.level for p in spec.perturbations},
        weights,
        n_boot=n_boot,
        seed=seed,
        n_rows={p.id: (rows or {}).get(p.id, n_items) for p in spec.perturbations},
    )
    ids = tuple(f"{spec.name}-{i:03d}" for i in range(n_items))
    scores = (
        ItemScores(
            item_ids=ids,
            original={m: tuple(float(x) for x in v) for m, v in original.items()},
            perturbed={
                pid: {m: tuple(None if np.isnan(x) else float(x) for x in v) for m, v in d.items()}
                for pid, d in perturbed.items()
            },
        )
        if with_scores
        else None
    )
    n_scores = n_items * len(metrics) * (1 + len(spec.perturbations))
    builtin = protocol == "builtin"
    return result_from_analysis(
        analysis,
        judge=JudgeInfo.of(
            BuiltinJudge(name=judge, control=ControlJudge(model or "random"))
            if builtin
            else EndpointJudge(
                name=judge,
                endpoints=("https://judge.example.org/v1",),
                protocol=EndpointProtocol(protocol),
                model=model,
                hf_model_id=hf_model_id,
                revision=revision,
                n_params=n_params,
                publish_host=True,
            ),
            model=model,
            settings={},
        ),
        dataset=DatasetRef(
            name=spec.name, repo=spec.hub_repo, revision="0123456789abcdef", version=version, n_items=n_items
        ),
        scoring=ScoringSettings(
            mode="builtin" if builtin else mode,  # type: ignore[arg-type]
            weights=weights,
            n_boot=n_boot,
            seed=seed,
            prompt_set=prompt_set,
            prompts={
                m: PromptInfo(template_hash=f"h{m}", template=f"Evaluate {m}.\n{{text}}\nScore:")
                for m in metrics
            },
        ),
        coverage=Coverage(
            expected_scores=n_scores,
            parsed_scores=n_scores - 3,
            unparsed=2,
            failed=1,
            unparsed_reasons={"no digit": 2},
            failure_reasons={"timeout": 1},
        ),
        timing=Timing(wall_seconds=12.5, requests_sent=n_scores),
        scores=scores,
        created_at=created_at,
        dhp_version="0.1.0",
    )


def result_json(judge: str, dataset: str = "summeval", **kwargs: object) -> str:
    res: Result = make_result(judge, dataset, **kwargs)  # type: ignore[arg-type]
    return str(dump_result(res))


def renamed(result: Result, name: str) -> Result:
    """``result`` under another judge name, unchecked: a results file keeps any name of up to 100
    characters it was scored under (older rules allowed ``/``, ``<`` and ``>``), so the board must
    show such a name as plain text. Hostile names for the tests are made this way."""
    info = result.judge
    return result.model_copy(
        update={"judge": info.model_copy(update={"judge": info.judge.model_copy(update={"name": name})})}
    )


#: Names a submitter could try on a public board (results files keep names of older, looser rules):
#: Markdown images and links, raw HTML, maths, and the characters that break a URL's query.
HOSTILE_NAMES: tuple[str, ...] = (
    "![a](http://127.0.0.1:1/x)",
    "[x](http://127.0.0.1:1/)",
    "<img src=x>",
    "A&B judge #2",
    "$\\alpha$ judge *bold* _it_",
)
_FAMILIES = (
    ("Llama-3.1", "meta-llama/Llama-3.1-{s}B-Instruct", (8, 70, 405)),
    ("qwen2.5", "Qwen/Qwen2.5-{s}B-Instruct", (0.5, 1.5, 3, 7, 14, 32, 72)),
    ("Mistral", "mistralai/Mistral-{s}B-Instruct-v0.3", (7, 22, 123)),
    ("gemma-2", "google/gemma-2-{s}b-it", (2, 9, 27)),
    ("Phi-3.5", "microsoft/Phi-3.5-mini-instruct-{s}b", (3.8,)),
    ("DeepSeek-V3", "deepseek-ai/DeepSeek-V3-{s}B", (671,)),
)
_VARIANTS = ("", " (temp 0)", " expected-mode", " v2", " — long prompt set, top-logprobs 20, run B", " int4")


def crowd_judges(n: int = 150, seed: int = 31) -> list[tuple[str, float, str, float, int]]:
    """``n`` realistic judges: (name, skill, HF id, parameters, datasets scored). Families and sizes
    of real open models, mixed-case and long names (some alike but for their tail), near-chance judges
    (skill near 0), partial judges (fewer datasets), and :data:`HOSTILE_NAMES`. Seeded: the same list
    every time."""
    rng = np.random.default_rng(seed)
    out: list[tuple[str, float, str, float, int]] = []
    seen: set[str] = set()
    for i in range(n):
        fam, hf, sizes = _FAMILIES[i % len(_FAMILIES)]
        size = sizes[int(rng.integers(len(sizes)))]
        base = f"{fam} {size:g}B{_VARIANTS[int(rng.integers(len(_VARIANTS)))]}"
        name = HOSTILE_NAMES[i // 7] if i % 7 == 3 and i // 7 < len(HOSTILE_NAMES) else base
        if name.lower() in seen:
            name = f"{name} #{i}"
        seen.add(name.lower())
        skill = 0.02 if i % 11 == 5 else float(rng.uniform(0.1, 1.1))  # some near chance
        n_ds = 3 if i % 13 == 7 else 6  # some partial
        out.append((name, skill, hf.format(s=f"{size:g}"), size * 1e9, n_ds))
    return out


def write_crowd(root: Path, n: int = 150, n_items: int = 20, boot_first: int = 40) -> list[str]:
    """:func:`crowd_judges` as results files under ``root`` (the first ``boot_first`` with a 10-replicate
    bootstrap, so their intervals show; the others without, which keeps this quick), and the random
    and oracle control judges as baselines (lexical is left for a test to submit). Returns the judges'
    names in order."""
    names = []
    datasets = list(BENCHMARK)
    for i, (name, skill, hf, params, n_ds) in enumerate(crowd_judges(n)):
        for ds in datasets[:n_ds]:
            r = make_result(f"crowd {i}", ds, skill=skill, hf_model_id=hf, model=hf, n_params=params,
                            n_items=n_items, n_boot=10 if i < boot_first else 0, seed=i)  # fmt: skip
            path = root / f"crowd-{i:03d}" / f"{ds}@v1.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_result(renamed(r, name)))
        names.append(name)
    for control in (ControlJudge.RANDOM, ControlJudge.ORACLE):
        for ds in datasets:
            skill = {"random": 0.0, "oracle": 2.0, "lexical": 0.3}[control.value]
            r = make_result(control.value, ds, skill=skill, protocol="builtin", model=control.value,
                            n_items=n_items, n_boot=10)  # fmt: skip
            path = root / control.value / f"{ds}@v1.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_result(r))
    return names
