"""Dataset cards: YAML metadata (Hub schema) plus a body rendered from ``card_templates/``."""

from __future__ import annotations

import hashlib
from typing import Any

import yaml

from dhp.builder.perturb.registry import lookup
from dhp.data.dataset_io import BuildInfo
from dhp.data.sample import is_sample_version
from dhp.records import to_data
from dhp.spec import MIN_PAIRS, task_kind
from dhp.types import DatasetSpec, Method, Operation, Redistribution, k_text

__all__ = ["card_metadata", "render_card", "size_category"]

_SOURCE_LANG = {"wmt22-de-en": ("de", "German"), "wmt22-zh-en": ("zh", "Chinese")}
_ID_NOTE = {
    "summeval": "CNN/DailyMail article id",
    "sumpubmed": "`sumpubmed-N`, the pair's file number",
    "story-cloze": "InputStoryid",
    "answer-equivalence": "qid, or a hash of (question, reference) for the partial copy",
    "wmt22-de-en": "`<document id>#<first>-<last segment>`",
    "wmt22-zh-en": "`<document id>#<first>-<last segment>`",
}


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket for ``n`` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return label
    return "100K<n<1M"


def _configs(info: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The card's ``configs`` (default: all pairs; one per perturbation with rows) and their ``dataset_info``."""
    built = [p for p in info["perturbations"] if p["rows"] > 0]
    configs: list[dict[str, Any]] = [
        {
            "config_name": "default",
            "default": True,
            "data_files": [{"split": "test", "path": "data/*.parquet"}],
        }
    ]
    configs += [
        {"config_name": p["id"], "data_files": [{"split": "test", "path": f"data/{p['id']}.parquet"}]}
        for p in built
    ]
    features = [{"name": c, "dtype": "string"} for c in info["columns"]]
    total = sum(p["num_bytes"] for p in info["perturbations"])
    dataset_info = [
        {
            "config_name": "default",
            "features": features,
            "splits": [{"name": "test", "num_bytes": total, "num_examples": info["n_rows"]}],
        }
    ] + [
        {
            "config_name": p["id"],
            "features": features,
            "splits": [{"name": "test", "num_bytes": p["num_bytes"], "num_examples": p["rows"]}],
        }
        for p in built
    ]
    return configs, dataset_info


def card_metadata(spec: DatasetSpec, build: BuildInfo) -> dict[str, Any]:
    """The card's YAML header: licence, languages, task categories, size, sources, configs, pretty name."""
    info = to_data(build)
    langs = ["en"] + ([_SOURCE_LANG[spec.name][0]] if spec.name in _SOURCE_LANG else [])
    configs, dataset_info = _configs(info)
    meta: dict[str, Any] = {
        "pretty_name": spec.pretty_name,
        "license": spec.source.licence,
    }
    if spec.source.licence == "other":
        meta["license_name"] = f"{spec.name}-source-terms"
        meta["license_link"] = spec.source.homepage
    src_id = spec.source.hub_source_id
    meta.update(
        {
            "language": langs,
            "multilinguality": "translation" if len(langs) > 1 else "monolingual",
            "task_categories": list(kind.hub_categories)
            if (kind := task_kind(spec.task))
            else ["text-generation"],
            "tags": ["llm-as-a-judge", "evaluation", "perturbation", "dhp", "nlg-evaluation"],
            "size_categories": [size_category(info["n_rows"])],
            "source_datasets": [f"extended|{src_id}" if src_id else "extended|original"],
            # the perturbed texts, what the dataset adds, are made by rules or a model: no person wrote them
            "annotations_creators": ["machine-generated"],
            "configs": configs,
            "dataset_info": dataset_info,
            "dhp": {
                "dataset_version": info["dataset_version"],
                "builder_version": info["builder_version"],
                "seed": info["seed"],
                **({"commitment": info["private"]["commitment"]} if info.get("private") else {}),
                "items": info["selection"]["n_selected"],
                "perturber": info["perturber"]["generator"],
                "redistribution": spec.source.redistribution.value,
            },
        }
    )
    return meta


def _generator_text(gens: dict[str, int]) -> str:
    if not gens:
        return "–"
    return ", ".join(f"`{g}`" for g in gens)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _limitations(spec: DatasetSpec, info: dict[str, Any]) -> list[str]:
    out = [
        "Perturbations are synthetic degradations of reference texts; discernment of them is a necessary, not a "
        "sufficient, property of a good judge.",
        "Rule-based perturbations are applied blindly: a random typo or deletion can occasionally hit a "
        "place where it barely matters.",
    ]
    if info["perturber"]["kind"] == "offline":
        out.append(
            "The word- and sentence-level 'LLM' rows of this build come from offline rules, not an LLM: "
            "their errors and entities are more regular than an LLM's; outputs that fail the generator's own "
            "validator and items without a rule match are not applicable (see the pass rates and coverage in "
            "the perturbation table): a limit of the generator, not of the item. Rebuild with "
            "`--perturber URL` for LLM-made rows."
        )
    else:
        out.append(
            "LLM-made perturbations can contain more or other changes than asked for; outputs were checked "
            "by DHP-bench's automatic perturbation validator, not by people."
        )
    few = [f"`{p['id']}` ({p['rows']} pairs)" for p in info["perturbations"] if 0 < p["rows"] < MIN_PAIRS]
    if few:
        out.append(
            f"Fewer than {MIN_PAIRS} pairs, left out of D: {', '.join(few)}. By the few-pairs rule (docs/method.md) "
            "scoring reports their D and effect apart and leaves them out of D_avg, D_min and qualified: with "
            "so few pairs even a judge that notices the perturbation misses D > 1 too often for a miss to say "
            "anything (the items without a row are in not_applicable.jsonl, with the reason)."
        )
    if info["source"]["partial"]:
        out.append("The source copy used for this build is partial; see Source Data.")
    stats = info["statistics"]
    if stats["paper"]:
        far = [k for k in ("chars", "words", "sentences") if _rel(stats["ours"][k], stats["paper"][k]) > 0.15]
        if far:
            out.append(
                f"The judged texts differ from the paper's by more than 15% in {', '.join(far)} (see the "
                "statistics table); the selection rule is the paper's, the source copy differs."
            )
    if spec.source.redistribution is Redistribution.RESTRICTED:
        out.append("The source's terms restrict redistribution; see Licensing and Terms.")
    return out


def _rel(ours: float, paper: float) -> float:
    return abs(ours - paper) / paper if paper else 0.0


def _perturbation_rows(info: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for p in info["perturbations"]:
        k = k_text(p["operation"], p["k"], "–")
        out.append(
            {
                **p,
                "k_text": k,
                "generator_text": _generator_text(p["generators"]),
                "pass_text": _pct(p["pass_rate"]),
                "coverage_text": _pct(p["coverage"]),
                "applicable_text": "all"
                if p.get("applicable") is None
                else f"{p['applicable']} ({_pct(p['applicable_coverage'])} covered)",
            }
        )
    return out


def _statistics(info: dict[str, Any]) -> dict[str, Any]:
    stats = dict(info["statistics"])
    if stats["paper"]:
        stats["diff"] = {
            k: f"{(stats['ours'][k] - stats['paper'][k]) / stats['paper'][k] * 100:+.1f}%"
            for k in ("chars", "words", "sentences")
        }
    return stats


def _llm_operations(spec: DatasetSpec) -> list[Operation]:
    """The dataset's LLM-based operations, in spec order, each once."""
    ops = [p.operation for p in spec.perturbations if lookup(p.operation).method is Method.LLM]
    return list(dict.fromkeys(ops))


def _generator_texts(spec: DatasetSpec, gen: dict[str, Any]) -> tuple[str, str]:
    """The card's one-line and one-paragraph account of what made the LLM-method rows."""
    if gen["kind"] == "offline":
        what = "; ".join(lookup(op).offline_summary for op in _llm_operations(spec))
        return (
            f"offline rules (`{gen['generator']}`), **not an LLM**",
            f"**No LLM was used for this build.** The LLM-based rows (method `llm`) were produced by DHP-bench's "
            f"offline rule-based stand-in, generator `{gen['generator']}`: {what}. Every output was checked by "
            "the generator's own validator (DHP-bench's automatic perturbation check, not a human review); "
            "outputs that fail it are left out (listed in `not_applicable.jsonl` with the reason). "
            "Each row's `generator` column says so.",
        )
    return (
        f"`{gen['generator']}` through an inference endpoint",
        f"LLM-based rows were generated by `{gen['generator']}` with the paper's Auto-CoT prompt shape "
        "(task line, Adjustment, numbered Adjustment Steps, the text, `Revised ...:`). Outputs were "
        "checked (non-empty, changed, no preamble or commentary, length within bounds of the original), "
        "then by DHP-bench's perturbation validator; an output that fails is retried with a new seed, and "
        "an item whose outputs keep failing is left out (listed in `not_applicable.jsonl` with the "
        "validator's reason). Each row's `generator_settings` holds the model, sampling settings, seed, "
        "number of attempts and the prompt hash.",
    )


def _template_vars(spec: DatasetSpec, info: dict[str, Any]) -> dict[str, Any]:
    from dhp.spec import DHP_CITATION

    perts = _perturbation_rows(info)
    generator_line, generator_paragraph = _generator_texts(spec, info["perturber"])
    files = info["source"]["files"]
    digest = hashlib.sha256("".join(f"{f['path']} {f['sha256']}\n" for f in files).encode()).hexdigest()
    example = next((p["id"] for p in perts if p["id"].startswith("char_typo") and p["rows"]), None)
    summary = (
        f"Original and perturbed {spec.judged_label.lower()}s from {spec.source.name} for testing LLM judges: "
        f"{info['selection']['n_selected']} items × {len(perts)} perturbations ({info['n_rows']} pairs)."
    )
    if is_sample_version(info["dataset_version"]):
        summary = (
            "**SAMPLE, NOT THE BENCHMARK.** Built from the small sample shipped in the dhp-bench package (a demo "
            "without the sources or network; version tag `-sample`); results on it are not comparable with the "
            f"benchmark's. {summary}"
        )
    private = info.get("private")
    if private:  # its seed is secret: the card shows the commitment instead, and says what the split is
        info = {**info, "seed": f"secret (not recorded; commitment {private['commitment']})"}
        summary = (
            f"**PRIVATE SPLIT `{info['dataset_version']}`, NOT FOR PUBLICATION.** The twin of the public "
            f"`{private['public_version']}` built with a secret seed: {private['note']} Keep it private; its "
            f"identity is the commitment `{private['commitment']}`. {summary}"
        )
    return {
        "pretty_name": spec.pretty_name,
        "summary": summary,
        "info": info,
        "perturbations": perts,
        "sel": info["selection"],
        "source": info["source"] | {"citation": spec.source.citation},
        "task": kind.card_text if (kind := task_kind(spec.task)) else spec.task,
        "judged_label": spec.judged_label,
        "context_fields": spec.context_fields,
        "metrics": spec.metrics,
        "source_language": _SOURCE_LANG.get(spec.name, ("", ""))[1],
        "id_note": _ID_NOTE.get(spec.name, "item id"),
        "example_config": example or (perts[0]["id"] if perts else "default"),
        "generator_line": generator_line,
        "generator_paragraph": generator_paragraph,
        "llm_operations": ", ".join(op.value.replace("_", " ") for op in _llm_operations(spec)) or "none",
        "stats": _statistics(info),
        "shown_files": files[:8],
        "hidden_files": max(0, len(files) - 8),
        "files_digest": digest,
        "limitations": _limitations(spec, info),
        "restricted": spec.source.redistribution is Redistribution.RESTRICTED,
        "dhp_citation": DHP_CITATION,
    }


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def render_card(spec: DatasetSpec, build: BuildInfo) -> str:
    """The full ``README.md``: YAML metadata and the templated body."""
    import jinja2

    from dhp.builder.card_templates import template_text

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
    body = env.from_string(template_text()).render(**_template_vars(spec, to_data(build)))
    header = yaml.dump(
        card_metadata(spec, build), Dumper=_NoAliases, sort_keys=False, allow_unicode=True, width=1000
    )
    return f"---\n{header}---\n\n{body}"
