"""Reading dataset folders, revisions, missing rows; prompt templates rendered strictly."""

from __future__ import annotations

import itertools
import string
from pathlib import Path

import pytest

from dhp.errors import DataError
from dhp.inference.judge import BuiltinJudge
from dhp.inference.protocol import SamplingParams, content_key
from dhp.naming import judge_slug, revision_slug
from dhp.scoring.config import RequestForm, ScoreConfig
from dhp.scoring.data import load_local, local_revision
from dhp.scoring.judge_io import JudgeRequest, PromptFill, json_escaped
from dhp.scoring.plan import plan_requests
from dhp.scoring.prompts import PROMPT_SETS, PromptError, load_template, render_context
from dhp.scoring.result_files import read_result, result_path
from dhp.scoring.run import score_datasets
from dhp.spec import BENCHMARK, get_dataset
from dhp.types import ControlJudge, ScoringMode
from tests.scoring.helpers import pair_row, write_pairs
from tests.support.tiny_data import write_tiny_dataset

AE = get_dataset("answer-equivalence")


def _rows(n: int = 6, skip: tuple[str, int] | None = None) -> list[dict[str, object]]:
    rows = []
    for i in range(n):
        for pid in AE.perturbation_ids:
            if skip == (pid, i):
                continue
            rows.append(
                pair_row(
                    "answer-equivalence", f"q{i}", pid, f"Answer {i}.", f"Answr {i} [{pid}].", paragraph=None
                )
            )
    return rows


def test_local_revision_hashes_parquet_bytes_in_path_order(tmp_path: Path) -> None:
    folder = write_pairs(tmp_path, "answer-equivalence", _rows())
    rev = local_revision(folder)
    assert rev == local_revision(folder) and len(rev) == len("local:") + 12
    (folder / "README.md").write_text("---\nconfigs: []\n---\nchanged card\n")
    assert local_revision(folder) == rev  # only the parquet files count
    write_pairs(tmp_path, "answer-equivalence", _rows(n=5))
    assert local_revision(folder) != rev


def test_missing_rows_are_missing_scores(tmp_path: Path) -> None:
    write_pairs(tmp_path / "data", "answer-equivalence", _rows(skip=("char_typo_minor", 2)))
    cfg = ScoreConfig(
        judge=BuiltinJudge(name="oracle", control=ControlJudge.ORACLE),
        out=tmp_path / "o",
        datasets="answer-equivalence",
        data=str(tmp_path / "data"),
        n_boot=0,
    )
    (path,) = score_datasets(cfg)
    r = read_result(path)
    assert r.scores is not None and r.scores.item_ids == tuple(f"q{i}" for i in range(6))
    assert r.scores.perturbed["char_typo_minor"]["answer_quality"][2] is None
    by = {p.id: p for p in r.perturbations}
    assert by["char_typo_minor"].metrics["answer_quality"].n_pairs == 5
    assert by["char_typo_major"].metrics["answer_quality"].n_pairs == 6
    assert r.coverage.expected_scores == 6 * 10 - 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda rows: [*rows, dict(rows[0])], "duplicate row"),
        (lambda rows: [{**rows[0], "perturbation": "nope"}, *rows[1:]], "unknown perturbation"),
        (lambda rows: [{**rows[0], "perturbed": rows[0]["original"]}, *rows[1:]], "equals the original"),
        (lambda rows: [{**rows[0], "original": "Other."}, *rows[1:]], "different originals"),
        (lambda rows: [{k: v for k, v in r.items() if k != "perturbed"} for r in rows], "missing columns"),
    ],
)
def test_bad_data_is_refused(tmp_path: Path, mutate: object, message: str) -> None:
    folder = write_pairs(tmp_path, "answer-equivalence", mutate(_rows()))  # type: ignore[operator]
    with pytest.raises(DataError, match=message):
        load_local(AE, folder)


def test_not_a_dataset_folder(tmp_path: Path) -> None:
    (tmp_path / "answer-equivalence").mkdir()
    with pytest.raises(DataError, match=r"no README\.md"):
        load_local(AE, tmp_path / "answer-equivalence")


def test_every_benchmark_metric_has_a_template() -> None:
    for spec in BENCHMARK.values():
        ctx = {c.name: f"the {c.name} text" for c in spec.context_fields}
        block = render_context(spec, ctx)
        for m in spec.metrics:
            t = load_template(spec, m.name)
            prompt = t.render("THE JUDGED TEXT", block)
            assert prompt.count("THE JUDGED TEXT") == 1
            assert f"{m.label} ({m.scale_min}-{m.scale_max})" in prompt
            assert prompt.rstrip().endswith(f"just give a score ONLY) - {m.label}:")
            assert f"{spec.judged_label}:\n\nTHE JUDGED TEXT" in prompt
            for c in spec.context_fields:
                assert f"{c.label}:\n\nthe {c.name} text" in prompt
            assert prompt.index(block) < prompt.index("THE JUDGED TEXT")  # shared prefix first
            assert t.hash == load_template(spec, m.name).hash


def test_the_coherence_prompt_follows_the_paper() -> None:
    prompt = load_template(get_dataset("summeval"), "coherence").instruction
    assert prompt.startswith(
        "You will be given a summary written for an article. Your task is to rate the summary on one metric."
    )
    assert "Evaluation Steps:" in prompt and "9. Rate the Summary" in prompt


def test_rendering_is_strict(tmp_path: Path) -> None:
    spec = get_dataset("summeval")
    with pytest.raises(PromptError, match="required context field 'article'"):
        render_context(spec, {"article": None})
    assert render_context(AE, {"question": "Why?", "paragraph": None}) == "Question:\n\nWhy?\n\n"
    (tmp_path / "summeval.coherence.txt").write_text("Rate ${text} with ${context} in ${language}.")
    with pytest.raises(PromptError, match=r"unknown variable \$language"):
        load_template(spec, "coherence", tmp_path)
    (tmp_path / "summeval.coherence.txt").write_text("Rate ${context} only.")
    with pytest.raises(PromptError, match=r"must contain \$\{text\}"):
        load_template(spec, "coherence", tmp_path)
    (tmp_path / "summeval.coherence.txt").write_text("My own: ${metric_label}\n${context}${text}")
    own = load_template(spec, "coherence", tmp_path)
    assert own.source == "summeval.coherence.txt" and own.render("T", "C") == "My own: Coherence\nCT"
    assert own.hash != load_template(spec, "coherence").hash


FORM = RequestForm(repeats=2, samples=3, top_logprobs=20, max_tokens=None, seed=0)


def test_planned_requests_hold_no_prompt_and_render_the_same_one(tmp_path: Path) -> None:
    """A plan keeps one PromptFill per (item, metric), shared by the requests of its texts and repeats,
    and no prompt: each read renders the prompt the template gives for that text and context (issue 38)."""
    spec = get_dataset("summeval")
    data = load_local(spec, write_tiny_dataset(tmp_path, spec, n_items=3))
    templates = {m: load_template(spec, m, cue="A cue.") for m in spec.metric_names}
    plan = plan_requests(data, None, FORM, ScoringMode.PAPER, templates)
    assert (
        len(plan.requests)
        == 2 * len(plan.text_keys)
        == 2 * 3 * len(spec.metrics) * (1 + len(plan.perturbations))
    )
    contexts = {item.id: item.context for item in data.items}
    fills: dict[tuple[str, str], PromptFill] = {}
    for req in plan.requests:
        assert isinstance(req.rendering, PromptFill)
        assert fills.setdefault((req.item_id, req.metric), req.rendering) is req.rendering
        expected = templates[req.metric].render(req.text, render_context(spec, contexts[req.item_id]))
        assert req.prompt == expected and "A cue." in expected
        assert req.prompt is not req.prompt  # rendered anew at each read: nothing keeps it
    assert len(fills) == 3 * len(spec.metrics)
    builtin = plan_requests(data, 1, FORM, ScoringMode.EXPECTED, None)  # built-in judges: no prompt at all
    assert {r.prompt for r in builtin.requests} == {""}


@pytest.mark.parametrize("prompt_set", PROMPT_SETS)
def test_templates_render_as_string_template_does(prompt_set: str) -> None:
    """The prompt a template renders (a str.format text made once) is string.Template's, to the character."""
    texts = ["plain", "{braces} }{ {{x}} {0} {}", "dollars $text $$ ${context} $", "ünïcödé 中文", ""]
    for spec in BENCHMARK.values():
        for m in spec.metric_names:
            for cue in (None, "Rated {5} by $x."):
                t = load_template(spec, m, None, prompt_set, cue)
                for text, context in itertools.product(texts, texts):
                    want = string.Template(t.instruction).substitute(text=text, context=context)
                    assert t.render(text, context) == want


TRICKY = [
    "plain",
    '"quoted" \\ {braces} }{ \n\t\r\x00\x1f\x7f \u2028 / $text $$',
    "ünïcödé 中文 😀",
    "",
    "lone \ud800",
]


@pytest.mark.parametrize("prompt_set", PROMPT_SETS)
def test_a_planned_requests_cache_key_is_its_prompts(prompt_set: str) -> None:
    """Hashed from its fill's JSON parts (the prompt is not rendered), a planned request's cache key is
    content_key of its prompt: the caches of earlier versions answer it (lone surrogates take json's path)."""
    sampling = SamplingParams(0.0, 8)
    for spec in BENCHMARK.values():
        for m in spec.metric_names:
            t = load_template(spec, m, None, prompt_set, 'Rated {5} by $x "q".')
            for text, context in itertools.product(TRICKY, TRICKY):
                req = JudgeRequest(
                    "d", "i", m, "o", text, {}, PromptFill.of(t, context, json_escaped(context)), sampling, 1
                )
                assert req.prompt == t.render(text, context)
                for judge, model in (("j", "m"), ("j", None), ("j\ud800", "m")):
                    assert req.cache_key(judge, model) == content_key(judge, model, req.prompt, sampling, 1)
    assert PromptFill.of(t, "c", json_escaped("c")).key_json("text") is not None  # the fast path is taken


def test_a_template_that_cannot_render_fails_when_planned(tmp_path: Path) -> None:
    """Rendering waits for the request, its failure does not: planning tries each template first."""
    spec = get_dataset("summeval")
    data = load_local(spec, write_tiny_dataset(tmp_path / "d", spec, n_items=2))
    (tmp_path / "summeval.coherence.txt").write_text("Rate ${text} with ${context} for $$dollars.")
    templates = {m: load_template(spec, m, tmp_path) for m in spec.metric_names}  # $$dollars -> $dollars
    with pytest.raises(PromptError, match=r"no value for variable \$dollars"):
        plan_requests(data, None, FORM, ScoringMode.EXPECTED, templates)
    (tmp_path / "summeval.coherence.txt").write_text("Rate ${text} with ${context} from 1 to 5 $$.")
    templates = {m: load_template(spec, m, tmp_path) for m in spec.metric_names}  # a lone $ at the end
    with pytest.raises(PromptError, match=r"invalid placeholder \(Invalid placeholder in string: line 1"):
        plan_requests(data, None, FORM, ScoringMode.EXPECTED, templates)


def test_slugs_and_layout() -> None:
    assert judge_slug("GPT-4o mini (2024)") == "gpt-4o-mini--2024-"
    assert judge_slug("Llama_3.1.8B") == "llama_3.1.8b"
    for bad in ("a/b", "a\\b", "", "   ", "..", "."):
        with pytest.raises(ValueError):
            judge_slug(bad)
    assert revision_slug("local:0123456789ab") == "local-0123456789ab"
    assert result_path(Path("/r"), "Random", "summeval", "abc123") == Path("/r/random/summeval@abc123.json")


def test_a_builder_folder_loads_with_its_version(tmp_path: Path, sources_dir: Path) -> None:
    """The scorer reads what the builder writes: rows, revision and the card's dataset version."""
    from dhp.cli import main

    out = tmp_path / "datasets"
    assert main(["build", "--sources", str(sources_dir), "--datasets", "story-cloze", "--out", str(out),
                 "--version", "v1.2.3", "--no-progress"]) == 0  # fmt: skip
    data = load_local(get_dataset("story-cloze"), out / "story-cloze")
    from dhp.builder.perturb.offline import OFFLINE_GENERATOR

    assert data.version == "v1.2.3+" + OFFLINE_GENERATOR.replace(
        "/", "."
    )  # an offline-rules build, so labelled
    assert data.revision == local_revision(out / "story-cloze")
    assert len(data.items) == 100
