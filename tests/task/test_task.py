"""Task files (dhp.task): validation with located one-line errors, conversion to DatasetSpec, prompts, init."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from dhp.cli import main
from dhp.records import from_data, to_data
from dhp.scoring.prompts import load_template
from dhp.spec import SUMMEVAL, WMT22_DE_EN
from dhp.task.build_task import guess_columns, starter_yaml
from dhp.task.file import TaskError, catalogue, load_task, parse_task, render_prompt
from dhp.types import DatasetSpec, Operation

BASE = {
    "name": "my-summaries",
    "source": {"path": "data/summaries.csv"},
    "judged": "summary",
    "context": ["article"],
    "select": {"n": 10, "seed": 0, "min_chars": 150},
    "task": "summarization",
    "metrics": [
        {"name": "faithfulness", "definition": "Only states facts supported by the article."},
        {"name": "fluency", "definition": "Well-formed, grammatical sentences."},
    ],
    "perturbations": ["char_typo", "word_fictional_ne", "sent_reorder"],
    "weights": "equal",
}


def _parse(tmp_path: Path, **changes: object) -> object:
    d = {**BASE, **changes}
    d = {k: v for k, v in d.items() if v is not None}
    path = tmp_path / "task.yaml"
    text = yaml.safe_dump(d, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return parse_task(text, path)


def _error(tmp_path: Path, **changes: object) -> str:
    with pytest.raises(TaskError) as e:
        _parse(tmp_path, **changes)
    return str(e.value)


def test_the_issue_example_becomes_a_dataset_spec(tmp_path: Path) -> None:
    task = _parse(tmp_path)
    spec = task.spec  # type: ignore[attr-defined]
    assert isinstance(spec, DatasetSpec)
    assert spec.perturbation_ids == (
        "char_typo_minor",
        "char_typo_major",
        "word_fictional_ne_minor",
        "word_fictional_ne_major",
        "sent_reorder_minor",
        "sent_reorder_major",
    )
    # k comes from the catalogue: the first built-in dataset declaring the family (SummEval)
    assert [p.k for p in spec.perturbations] == [SUMMEVAL.perturbation(p.id).k for p in spec.perturbations]
    assert spec.judged_field == "summary" and spec.judged_label == "Summary"
    assert [(c.name, c.label) for c in spec.context_fields] == [("article", "Article")]
    assert spec.selection.n_items == 10 and spec.selection.min_chars == 150 and spec.selection.seed == 0
    assert spec.weights.source == "equal"
    assert all(
        dict(spec.weights.for_perturbation(p)) == {"faithfulness": 0.5, "fluency": 0.5}
        for p in spec.perturbation_ids
    )
    # it round-trips through the benchmark's own (de)serialisation
    assert from_data(DatasetSpec, json.loads(json.dumps(to_data(spec)))) == spec
    assert spec.source.origin_urls == {"file": "data/summaries.csv"}


def test_catalogue_is_the_built_in_perturbations() -> None:
    cat = catalogue()
    assert cat["char_typo"].rows == SUMMEVAL.perturbations[2:4]
    assert cat["word_deletion"].rows == tuple(
        p for p in WMT22_DE_EN.perturbations if p.id.startswith("word_deletion")
    )
    assert all(p.operation is not Operation.WRONG_ENDING for e in cat.values() for p in e.rows)


def test_k_per_severity_and_chosen_severities(tmp_path: Path) -> None:
    spec = _parse(
        tmp_path,
        perturbations=[
            {"id": "char_typo", "k": {"minor": 3, "major": 12}},
            {"id": "word_deletion", "k": {"minor": 2}},
            {"id": "word_grammar", "severities": ["major"]},
        ],
    ).spec  # type: ignore[attr-defined]
    got = [(p.id, p.k, p.description) for p in spec.perturbations]
    assert got == [
        ("char_typo_minor", 3, "Add 3 random typographical errors with the `typo` package."),
        ("char_typo_major", 12, "Add 12 random typographical errors with the `typo` package."),
        ("word_deletion_minor", 2, "Delete 2 consecutive words at a random position."),
        ("word_grammar_major", None, "Introduce two or more grammatical errors into the summary."),
    ]


def test_descriptions_speak_of_the_tasks_own_texts(tmp_path: Path) -> None:
    spec = _parse(tmp_path, judged_label="Reply").spec  # type: ignore[attr-defined]
    assert spec.perturbation("word_fictional_ne_minor").description == (
        "Replace one critical named entity in the reply with a fictional counterpart."
    )


def test_weights_mapping_by_base_or_full_id(tmp_path: Path) -> None:
    w = {
        "char_typo": {"fluency": 1.0},
        "word_fictional_ne": {"faithfulness": 0.9, "fluency": 0.1},
        "sent_reorder_minor": {"fluency": 1.0},
        "sent_reorder_major": {"faithfulness": 0.5, "fluency": 0.5},
    }
    spec = _parse(tmp_path, weights=w).spec  # type: ignore[attr-defined]
    assert spec.weights.source == "task:my-summaries"
    assert dict(spec.weights.for_perturbation("char_typo_major")) == {"fluency": 1.0}
    assert dict(spec.weights.for_perturbation("word_fictional_ne_minor")) == {
        "faithfulness": 0.9,
        "fluency": 0.1,
    }


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"perturbations": ["char_typo", "char_typoo"]},
            "perturbations.1: unknown perturbation 'char_typoo'; valid: ",
        ),
        (
            {"perturbations": ["sent_wrong_ending"]},
            "perturbations.0: unknown perturbation 'sent_wrong_ending'",
        ),
        ({"metrics": []}, "metrics: List should have at least 1 item"),
        ({"metrics": None}, "metrics: Field required"),
        (
            {"perturbations": [{"id": "word_grammar", "k": {"minor": 2}}]},
            "perturbations.0: word_grammar takes no k",
        ),
        (
            {"perturbations": [{"id": "sent_reorder", "k": {"major": 4}}]},
            "sent_reorder takes no k at severity 'major'",
        ),
        ({"perturbations": [{"id": "char_typo", "k": {"single": 4}}]}, "char_typo has no severity 'single'"),
        ({"source": {"path": "data/x.xlsx"}}, "source: path must end in one of .csv, .jsonl, .parquet"),
        ({"source": {"hub": "org/name"}}, "source: a hub source needs split and revision"),
        ({"source": {"path": "a.csv", "hub": "org/name"}}, "source: give exactly one of path"),
        ({"name": "summeval"}, "name: 'summeval' is a built-in dataset"),
        ({"name": "My Task"}, "name: String should match pattern"),
        ({"select": {"n": 0}}, "select.n: Input should be greater than 0"),
        (
            {"metrics": [{"name": "fluency", "definition": ""}]},
            "metrics.0.definition: String should have at least 1",
        ),
        (
            {"metrics": [{"name": "f", "definition": "x", "oops": 1}]},
            "metrics.0.oops: Extra inputs are not permitted",
        ),
        ({"task": "poetry"}, "task: Input should be 'summarization'"),
        ({"context": ["summary"]}, "the judged column 'summary' cannot also be context"),
        (
            {"weights": "unequal"},
            "weights: must be 'equal' or a mapping perturbation -> metric -> weight, got 'unequal'",
        ),
        (
            {"weights": {"char_typo": {"fluency": "x"}}},
            "weights.char_typo.fluency: Input should be a valid number",
        ),
        (
            {"weights": {"char_typo": {"fluency": 1.0}}},
            "missing weights for perturbation 'word_fictional_ne_minor'",
        ),
        (
            {"weights": {p: {"fluency": 0.7} for p in ("char_typo", "word_fictional_ne", "sent_reorder")}},
            "weights must sum to 1, got 0.7",
        ),
        (
            {"weights": {"char_typo": {"fluency": 1.0}, "nope": {"fluency": 1.0}}},
            "weights.nope: unknown perturbation",
        ),
    ],
)
def test_bad_task_files_fail_with_located_lines(
    tmp_path: Path, changes: dict[str, object], expected: str
) -> None:
    msg = _error(tmp_path, **changes)
    assert expected in msg
    assert msg.startswith(str(tmp_path / "task.yaml") + ": ")
    assert all(line.startswith(str(tmp_path / "task.yaml")) for line in msg.splitlines())


def test_every_problem_is_its_own_line(tmp_path: Path) -> None:
    msg = _error(tmp_path, metrics=[], perturbations=["nope"], select={"n": -1})
    lines = msg.splitlines()
    assert len(lines) == 3
    assert {ln.split(": ")[1] for ln in lines} == {"metrics", "perturbations.0", "select.n"}


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(TaskError, match=r"t\.yaml: not valid YAML or JSON"):
        load_task(p)
    p.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(TaskError, match="must be a mapping"):
        load_task(p)
    with pytest.raises(TaskError, match="no task file"):
        load_task(tmp_path / "missing.yaml")


def test_json_task_files_work(tmp_path: Path) -> None:
    p = tmp_path / "task.json"
    p.write_text(json.dumps(BASE), encoding="utf-8")
    assert load_task(p).spec == _parse(tmp_path).spec  # type: ignore[attr-defined]


def test_prompts_own_packaged_or_rendered(tmp_path: Path) -> None:
    own = "Rate it.\n${definition}\n${context}${text_label}:\n\n${text}\n\nScore:"
    metrics = [
        {"name": "faithfulness", "definition": "Only states facts supported by the article."},
        {"name": "fluency", "definition": "Well-formed, grammatical sentences."},
        {"name": "tone", "definition": "Neutral tone.", "template": own},
    ]
    task = _parse(tmp_path, metrics=metrics)
    assert task.prompt_sources == {  # type: ignore[attr-defined]
        "faithfulness": "rendered from the definition",
        "fluency": "packaged summarization.fluency.txt",
        "tone": "task file",
    }
    prompts = task.prompts  # type: ignore[attr-defined]
    assert prompts["tone"] == own + "\n"
    # the rendered prompt goes through the scorer's own loader, in the default set's style
    root = tmp_path / "p"
    root.mkdir()
    spec = task.spec  # type: ignore[attr-defined]
    (root / "my-summaries.faithfulness.txt").write_text(prompts["faithfulness"], encoding="utf-8")
    t = load_template(spec, "faithfulness", root)
    text = t.render("A summary.", "Article:\n\nAn article.\n\n")
    assert text.startswith("You will be given a summary written for an article.")
    assert "Faithfulness (1-5) - Only states facts supported by the article." in text
    assert text.endswith(
        "Summary:\n\nA summary.\n\nEvaluation Score (please don't give any feedback, just give a score ONLY) - Faithfulness:\n"
    )


def test_custom_style_prompt_names_the_tasks_texts(tmp_path: Path) -> None:
    spec = _parse(
        tmp_path, task=None, judged_label="Reply", context=[{"name": "article", "label": "Customer Email"}]
    ).spec  # type: ignore[attr-defined]
    assert spec.task == "custom"
    text = render_prompt(spec, "fluency")
    assert text.startswith(
        "You will be given a reply written for a customer email. Your task is to rate the reply"
    )
    assert "1. Read the Customer Email:" in text


def test_a_template_without_the_text_fails_located(tmp_path: Path) -> None:
    bad = [{"name": "tone", "definition": "Neutral.", "template": "Rate ${metric_label}: ${context}"}]
    assert "metrics.0.template: prompt my-summaries.tone.txt: must contain ${text}" in _error(
        tmp_path, metrics=bad
    )
    bad = [{"name": "tone", "definition": "Neutral.", "template": "$nope ${context} ${text}"}]
    assert "metrics.0.template: prompt my-summaries.tone.txt: unknown variable $nope" in _error(
        tmp_path, metrics=bad
    )


def test_guess_columns_by_name_and_by_length() -> None:
    rows = [
        {"id": "1", "document": "a long source text " * 10, "summary": "a short summary of it.", "n": "3"}
    ]
    g = guess_columns(["id", "document", "summary", "n"], rows)
    assert (g.judged, g.context, g.task, g.n) == ("summary", ("document",), "summarization", 1)
    rows = [{"q": "what is asked here, at some length?" * 3, "a": "the answer to it, shorter."}]
    g = guess_columns(["q", "a"], rows)
    assert (g.judged, g.context, g.task) == ("a", ("q",), "custom")


def test_task_init_writes_a_starter_that_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with (data / "answers.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, ["id", "question", "answer"])
        w.writeheader()
        for i in range(7):
            w.writerow(
                {
                    "id": f"q{i}",
                    "question": f"What happened in year {2000 + i}?",
                    "answer": f"Event {i} happened.",
                }
            )
    dest = tmp_path / "my-answers.yaml"
    assert main(["task", "init", "--from", str(data / "answers.csv"), "--out", str(dest)]) == 0
    text = dest.read_text(encoding="utf-8")
    assert text.startswith("# DHP-bench task file")
    task = load_task(dest)
    assert task.spec.name == "my-answers" and task.spec.judged_field == "answer"
    assert [c.name for c in task.spec.context_fields] == ["question"]
    assert task.spec.selection.n_items == 7 and task.spec.task == "question_answering"
    assert task.spec.source.origin_urls == {"file": "data/answers.csv"}
    # no silent overwrite
    assert main(["task", "init", "--out", str(dest)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["task", "init", "--out", str(dest), "--force"]) == 0
    assert "data/my_texts.csv" in dest.read_text(encoding="utf-8")


def test_starter_without_a_file_is_valid_yaml_of_the_schema(tmp_path: Path) -> None:
    text = starter_yaml(tmp_path / "task.yaml")
    task = parse_task(text, tmp_path / "task.yaml")  # validates (the data file is only read by check/build)
    assert task.spec.name == "task" and task.spec.source.origin_urls == {"file": "data/my_texts.csv"}


@pytest.mark.slow
def test_the_readme_example_runs_as_written(tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    page = (repo / "docs" / "task-files.md").read_text(encoding="utf-8")
    # the block is marked as run here (tests/core/test_readme.py would otherwise run it a second time)
    script = re.search(
        r"<!-- not run: tests/task/test_task.py runs it[^\n]*-->\n```bash\n(.*?)```", page, re.S
    )
    assert script is not None
    shim = tmp_path / ".bin"
    shim.mkdir()
    (shim / "dhp").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dhp "$@"\n', encoding="utf-8")
    (shim / "dhp").chmod(0o755)  # this checkout's dhp
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(repo),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    proc = subprocess.run(
        ["bash", "-e", "-c", script.group(1)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "items: 8 of N = 8" in proc.stdout and "k=8" in proc.stdout
    results = list((tmp_path / "results" / "lexical").glob("my-answers@local-*.json"))
    assert len(results) == 1 and (tmp_path / "report" / "report.md").is_file()
    assert (tmp_path / "built" / "my-answers" / "task.yaml").read_bytes() == (
        tmp_path / "task.yaml"
    ).read_bytes()


def test_init_quotes_odd_column_names(tmp_path: Path) -> None:
    data = tmp_path / "my data: v1.jsonl"
    rows = [
        {
            "source text": "A long source text, written at some length, " * 4,
            "model output": "A shorter output text here.",
        }
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    dest = tmp_path / "odd.yaml"
    dest.write_text(starter_yaml(dest, data), encoding="utf-8")
    task = load_task(dest)
    assert task.spec.judged_field == "model output" and [c.name for c in task.spec.context_fields] == [
        "source text"
    ]
    assert task.spec.source.origin_urls == {"file": "my data: v1.jsonl"}
