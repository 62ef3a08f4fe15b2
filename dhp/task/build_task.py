"""Building, checking and starting a task file (``dhp build --task``, ``dhp task check``, ``dhp task init``).

The file itself is read by :mod:`dhp.task.file`; this module adds what needs the builder.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dhp.builder.build import build_dataset
from dhp.builder.cards import render_card
from dhp.builder.select import select_items
from dhp.builder.sources import SourceLocator, load_source
from dhp.builder.sources.files import read_file_rows
from dhp.data.items import TableRef
from dhp.spec import DATASET_NAMES, TASK_KINDS
from dhp.task.file import PROMPT_STYLES, PROMPTS_DIR, TASK_FILE_NAME, Task, catalogue
from dhp.types import DatasetSpec, TaskKind, k_text

__all__ = ["CheckReport", "Guess", "build_task", "check_task", "describe", "guess_columns", "starter_yaml"]


# ---------------------------------------------------------------------------------------------
# Building, checking and describing
# ---------------------------------------------------------------------------------------------
def _card_section(task: Task) -> str:
    spec = task.spec
    lines = ["", "## Task file", ""]
    lines.append(
        f"This dataset was built from a DHP-bench task file (`{TASK_FILE_NAME}` in this folder, with the prompt "
        f"templates under `{PROMPTS_DIR}/`): `dhp score --task <this folder>` scores a judge on it."
    )
    lines += ["", "| metric | definition | prompt |", "|---|---|---|"]
    lines += [f"| {m.label} | {m.definition} | {task.prompt_sources[m.name]} |" for m in spec.metrics]
    lines.append("")
    if task.equal_weights:
        lines.append(
            "**Expert weights: equal.** The task file gives no expert weights: in D^EW every metric weighs "
            "1/M for every perturbation."
        )
    else:
        lines += ["**Expert weights** (from the task file):", ""]
        lines += [
            f"- `{pid}`: " + ", ".join(f"{m} {w:g}" for m, w in spec.weights.for_perturbation(pid).items())
            for pid in spec.perturbation_ids
        ]
    return "\n".join(lines) + "\n"


def build_task(task: Task, out_root: Path, opts: Any) -> Any:
    """Build ``out_root/<name>/`` from the task (``opts``: a :class:`dhp.builder.build.BuildOptions`).

    The source is read relative to the task file's folder; the folder also stores the task file
    (``task.yaml``) and its prompt templates, and its card describes the task.
    """

    def card(spec: DatasetSpec, info: Any) -> str:  # info: a dhp.data.dataset_io.BuildInfo
        body, cite, rest = render_card(spec, info).rpartition("\n## Citation")
        return f"{body}{_card_section(task)}{cite}{rest}" if cite else rest + _card_section(task)

    files = {TASK_FILE_NAME: task.text, **task.prompt_files()}
    return build_dataset(
        task.spec, SourceLocator(task.folder), out_root, opts, render_card=card, extra_files=files
    )


@dataclass(frozen=True)
class CheckReport:
    """What ``dhp task check`` found: the source's counts and the selection."""

    n_rows: int
    n_eligible: int
    n_selected: int


def check_task(task: Task, allow_fewer: bool = False) -> CheckReport:
    """Read the source and select the items as a build would (missing columns, empty texts, N too large)."""

    source = load_source(task.spec, SourceLocator(task.folder))
    sel = select_items(task.spec, source, allow_fewer=allow_fewer)
    return CheckReport(n_rows=sel.n_candidates, n_eligible=sel.n_eligible, n_selected=len(sel.items))


def describe(task: Task, report: CheckReport) -> str:
    """The human-readable summary ``dhp task check`` prints."""

    spec = task.spec
    ref = TableRef.of(spec)
    ctx = ", ".join(f"{c.name} ({c.label})" for c in spec.context_fields) or "none"
    out = [
        f"task {spec.name}: {task.path}",
        f"source: {ref.describe() if ref else spec.source.name}: {report.n_rows} rows, {report.n_eligible} eligible",
        f"judged: {spec.judged_field} ({spec.judged_label}); context: {ctx}; prompt style: {spec.task}",
        f"items: {report.n_selected} of N = {spec.selection.n_items} ({spec.selection.rule})",
        f"perturbations ({len(spec.perturbations)}, {report.n_selected * len(spec.perturbations)} pairs at most):",
    ]
    for p in spec.perturbations:
        k = k_text(p.operation.value, p.k)
        out.append(
            f"  {p.id:28} {p.level.value} {p.method.value:4} {p.severity.value:6} k={k:4} {p.description}"
        )
    out.append(f"metrics ({len(spec.metrics)}):")
    out += [f"  {m.name}: {m.definition} [prompt: {task.prompt_sources[m.name]}]" for m in spec.metrics]
    if task.equal_weights:
        out.append("weights: equal (every metric 1/M; no expert weights given)")
    else:
        out.append("weights (from the task file):")
        out += [
            f"  {pid}: " + ", ".join(f"{m}={w:g}" for m, w in spec.weights.for_perturbation(pid).items())
            for pid in spec.perturbation_ids
        ]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# A starter file (`dhp task init`)
# ---------------------------------------------------------------------------------------------
_JUDGED_NAMES = (
    "summary",
    "answer",
    "response",
    "output",
    "prediction",
    "completion",
    "ending",
    "translation",
    "hypothesis",
    "generation",
    "text",
)
_CONTEXT_NAMES = (
    "article",
    "document",
    "source",
    "question",
    "context",
    "passage",
    "paragraph",
    "story",
    "input",
    "prompt",
    "reference",
)
#: a judged column named like a kind's column gives that kind's prompt style
_STYLE_OF = {facts.column: kind.value for kind, facts in TASK_KINDS.items()}


@dataclass(frozen=True)
class Guess:
    """Columns guessed from a data file for a starter task."""

    judged: str
    context: tuple[str, ...]
    task: str
    n: int


def guess_columns(columns: list[str], rows: list[dict[str, str]]) -> Guess:
    """Judged and context columns by name, else by length (the shortest long-text column is judged)."""

    def mean_len(c: str) -> float:
        return sum(len(r[c]) for r in rows) / max(1, len(rows))

    texts = sorted((c for c in columns if c != "id" and mean_len(c) >= 20), key=mean_len)
    named = [c for n in _JUDGED_NAMES for c in columns if c.lower() == n]
    judged = named[0] if named else texts[0] if texts else (columns[0] if columns else "text")
    ctx_named = [c for n in _CONTEXT_NAMES for c in columns if c.lower() == n and c != judged]
    context = ctx_named or [c for c in texts if c != judged]
    n = min(100, sum(1 for r in rows if r.get(judged, "").strip()))
    return Guess(judged, tuple(context), _STYLE_OF.get(judged.lower(), TaskKind.CUSTOM.value), max(1, n))


def starter_yaml(dest: Path, from_file: Path | None = None) -> str:
    """A commented starter task file for ``dest``, with columns guessed from ``from_file`` when given."""

    if from_file is not None:
        columns, rows = read_file_rows(from_file)
        g = guess_columns(columns, rows)
        path = Path(os.path.relpath(from_file.resolve(), dest.resolve().parent)).as_posix()
        found = f"# Columns found in {from_file.name}: {', '.join(columns)} ({len(rows)} rows)."
    else:
        g, path, found = (
            Guess("summary", ("article",), TaskKind.SUMMARIZATION.value, 100),
            "data/my_texts.csv",
            ("# Replace the path and the column names with your own."),
        )
    context = "[" + ", ".join(json.dumps(c) for c in g.context) + "]"  # JSON strings are YAML strings
    name = re.sub(r"[^a-z0-9-]+", "-", dest.stem.lower()).strip("-") or "my-task"
    if not name[0].isalpha() or name in _builtin_names():
        name = f"my-{name}"
    styles = ", ".join(PROMPT_STYLES)
    perts = ", ".join(catalogue())
    pairs = [
        (f"name: {name}", "lowercase letters, digits and '-'; the dataset's folder name"),
        (
            f"source: {{path: {json.dumps(path)}}}",
            "a .csv, .jsonl or .parquet file (relative to this file), or",
        ),
        ("", "{hub: org/name, split: test, revision: main}"),
        (f"judged: {json.dumps(g.judged)}", "the column the judge scores (and the perturbations degrade)"),
        (f"context: {context}", "columns shown to the judge beside it (may be [])"),
        (
            f"select: {{n: {g.n}, seed: 0}}",
            "N items and a seed; optional min_chars: keep longer judged texts only",
        ),
        (f"task: {g.task}", f"prompt style: {styles}"),
        ("metrics:", "what the judge rates (1-5); optional per metric: label, template"),
    ]
    width = max(len(k) for k, _ in pairs) + 2
    head = "\n".join(f"{k:{width}}# {c}" for k, c in pairs)
    return f"""# DHP-bench task file: `dhp task check {dest.name}` validates it, `dhp build --task {dest.name}` builds it.
{found}
{head}
  - {{name: fluency, definition: "Well-formed, grammatical sentences that are easy to read."}}
  - {{name: coherence, definition: "Well-structured and well-organized; builds from sentence to sentence."}}
# From the catalogue ({perts}); each expands to its severities with the catalogue's k,
# or choose: {{id: char_typo, k: {{minor: 5, major: 20}}}} / {{id: word_grammar, severities: [minor]}}
perturbations: [char_typo, word_grammar, sent_reorder]
# weights: equal, or per perturbation: {{char_typo: {{fluency: 0.8, coherence: 0.2}}, ...}}
weights: equal
"""


def _builtin_names() -> tuple[str, ...]:

    return DATASET_NAMES
