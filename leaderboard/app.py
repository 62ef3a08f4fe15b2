"""The Gradio 6 Space: Leaderboard / Judge / Submit / Queue / Survey / About.

:func:`build_app` takes an :class:`AppConfig` (stores, mode, limits) and returns the ``gr.Blocks``.
All state lives in the stores: every page load and a ``gr.Timer`` re-read them (cheaply, through
the caches of :class:`Backend`), so results written by a worker appear without a restart. The
logic behind each event is a plain method of :class:`Backend`, testable without a browser.

Run locally with ``dhp leaderboard``; on a Space, run this file (``app_file: leaderboard/app.py``)
with ``DHP_RESULTS``, ``DHP_REQUESTS`` and ``DHP_VOTES`` naming ``hf://datasets/...`` stores.
"""

from __future__ import annotations

import hashlib
import html
import math
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd
from matplotlib.figure import Figure

from dhp.fsutil import atomic_write_text
from dhp.leaderboard import plots, table
from dhp.leaderboard.about import LEGEND, about_markdown, intro_markdown
from dhp.leaderboard.loading import LoadedResult, LoadReport, ResultsIndex, latest_results
from dhp.leaderboard.queue import RequestQueue, hash_user, new_request
from dhp.leaderboard.stores import Store, open_store
from dhp.leaderboard.survey import (
    TASKS,
    VotesStore,
    WeightsVersion,
    derive_weights,
    get_task,
    reweighted_summaries,
    tally,
    weights_rows,
)
from dhp.leaderboard.validation import (
    CONTROL_JUDGES,
    PROTOCOLS,
    SCORING_MODES,
    Existing,
    Mode,
    Resolver,
    ValidationError,
    find_duplicate,
    settings_key,
    validate_submission,
)
from dhp.scoring.results import Result, Summary
from dhp.spec import DATASET_NAMES

__all__ = ["AppConfig", "Backend", "build_app", "launch", "main"]

_ASSETS = Path(__file__).resolve().parent / "assets"
DEFAULT_WEIGHTS = "default"
SURVEY_WEIGHTS = "survey"


@dataclass
class AppConfig:
    results: Store
    requests: Store
    votes: Store
    mode: Mode = "local"
    resolver: Resolver | None = None  # DNS resolver for SSRF checks (tests inject one)
    rate_limit: int = 20  # submissions per user per window
    rate_window_s: float = 3600.0
    refresh_s: float = 15.0  # how often open pages look for new results
    list_ttl_s: float = 2.0  # page loads reuse a listing of the results store this recent
    title: str = "DHP discernment leaderboard"
    csv_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="dhp-leaderboard-csv-")))

    @classmethod
    def local(
        cls, root: str | os.PathLike[str], *, results: str | None = None, requests: str | None = None, **kw: Any
    ) -> AppConfig:
        base = Path(root)
        return cls(
            results=open_store(results or str(base / "results")),
            requests=open_store(requests or str(base / "requests")),
            votes=open_store(str(base / "votes")),
            **kw,
        )


# ------------------------------------------------------------------------------------------------
# The logic behind the UI (no Gradio objects in or out, except figures)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ViewChoice:
    """What the user chose to see: weights version, weighting, filters, columns, search. Hashable,
    so it keys the render cache."""

    weights: str = DEFAULT_WEIGHTS
    weighted: bool = True
    datasets: tuple[str, ...] | None = None
    families: tuple[str, ...] | None = None
    sizes: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None
    search: str = ""

    @classmethod
    def of(
        cls,
        *,
        weights: str = DEFAULT_WEIGHTS,
        weighted: bool = True,
        datasets: Sequence[str] | None = None,
        families: Sequence[str] | None = None,
        sizes: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        search: str | None = "",
    ) -> ViewChoice:
        def tup(x: Sequence[str] | None) -> tuple[str, ...] | None:
            return None if x is None else tuple(x)

        return cls(weights, weighted, tup(datasets), tup(families), tup(sizes), tup(columns), search or "")


class Backend:
    """Reads the stores (with caches) and answers the UI's questions. Thread-safe."""

    def __init__(self, cfg: AppConfig) -> None:
        self.cfg = cfg
        self.index = ResultsIndex(cfg.results)
        self.queue = RequestQueue(cfg.requests)
        self.votes = VotesStore(cfg.votes)
        self._lock = threading.Lock()
        self._submit_lock = threading.Lock()
        self._frames: dict[tuple[int, str], pd.DataFrame] = {}
        self._names: tuple[int, list[str], list[str]] | None = None  # generation, families, judges
        self._rendered: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], str, str]] = OrderedDict()
        self._survey: tuple[tuple[str, ...], WeightsVersion, dict[str, dict[str, dict[str, int]]]] | None = None

    # -- results --------------------------------------------------------------------------------
    def report(self, max_age_s: float | None = None) -> LoadReport:
        """The results; a listing up to ``cfg.list_ttl_s`` old (or ``max_age_s``) is reused."""
        return self.index.load(self.cfg.list_ttl_s if max_age_s is None else max_age_s)

    def survey_state(self) -> tuple[WeightsVersion, dict[str, dict[str, dict[str, int]]], list[str]]:
        ballots, bad = self.votes.ballots()
        key = tuple(f"{b.task}/{b.voter}/{b.created_at}" for b in ballots)
        with self._lock:
            if self._survey is None or self._survey[0] != key:
                counts = tally(ballots)
                self._survey = (key, derive_weights(counts, len(ballots)), counts)
            return self._survey[1], self._survey[2], bad

    def weights_choices(self) -> list[tuple[str, str]]:
        version, _, _ = self.survey_state()
        return [
            ("as scored (default weights)", DEFAULT_WEIGHTS),
            (f"survey votes ({version.n_ballots} ballots, {version.id})", SURVEY_WEIGHTS),
        ]

    def frame(self, weights: str = DEFAULT_WEIGHTS) -> tuple[pd.DataFrame, LoadReport]:
        _, full, rep = self._frame(weights)
        return full, rep

    def _frame(self, weights: str) -> tuple[tuple[int, str], pd.DataFrame, LoadReport]:
        """The full table, its cache key (results generation, weights version) and the report."""
        rep = self.report()
        summaries: dict[str, Summary] | None = None
        key_w = DEFAULT_WEIGHTS
        if weights == SURVEY_WEIGHTS:
            version, _, _ = self.survey_state()
            key_w = version.id
        key = (rep.generation, key_w)
        with self._lock:
            cached = self._frames.get(key)
        if cached is None:
            if weights == SURVEY_WEIGHTS:
                summaries = reweighted_summaries(rep.results, version)
            cached = table.build_frame(rep.results, summaries)
            with self._lock:
                self._frames = {k: v for k, v in self._frames.items() if k[0] == rep.generation}
                self._frames[key] = cached
        return key, cached, rep

    def view(self, choice: ViewChoice | None = None, **choices: Any) -> pd.DataFrame:
        """The table for a :class:`ViewChoice` (or its fields as keywords)."""
        c = choice or ViewChoice.of(**choices)
        full, _ = self.frame(c.weights)
        cols = list(table.DEFAULT_META) + list(table.KINDS) if c.columns is None else list(c.columns)
        return table.select_view(
            full,
            datasets=c.datasets,
            weighted=c.weighted,
            kinds=[k for k in table.KINDS if k in cols],
            meta=[col for col in table.META_COLUMNS if col in cols],
            search=c.search,
            families=c.families,
            sizes=c.sizes,
        )

    def render(self, choice: ViewChoice | None = None, **choices: Any) -> tuple[dict[str, Any], str]:
        """A view as the browser's table takes it (:func:`table.view_cells`) and the path of a CSV
        of exactly that view. Cached per results generation and choices: every page load asks for
        the default view, and the timer re-asks for unchanged ones."""
        c = choice or ViewChoice.of(**choices)
        fkey, _, _ = self._frame(c.weights)
        key = (fkey, c)
        with self._lock:
            hit = self._rendered.get(key)
            if hit is not None:
                self._rendered.move_to_end(key)
        if hit is None:
            df = self.view(c)
            hit = (table.view_cells(df), *self._csv_text(df))
            with self._lock:
                self._rendered[key] = hit
                self._rendered = OrderedDict((k, v) for k, v in self._rendered.items() if k[0][0] == fkey[0])
                while len(self._rendered) > 64:
                    self._rendered.popitem(last=False)
        cells, name, text = hit
        return cells, self._csv_file(name, text)

    @staticmethod
    def _csv_text(df: pd.DataFrame) -> tuple[str, str]:
        text = table.to_csv(df)
        return f"dhp-leaderboard-{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv", text

    def _csv_file(self, name: str, text: str) -> str:
        """The CSV in ``cfg.csv_dir``, named by its content: written once, rewritten if pruned."""
        path = self.cfg.csv_dir / name
        if not path.is_file():
            atomic_write_text(path, text)

            def age(p: Path) -> float:
                try:
                    return p.stat().st_mtime
                except OSError:  # pruned meanwhile by another thread
                    return -math.inf

            for old in sorted(self.cfg.csv_dir.glob("dhp-leaderboard-*.csv"), key=age)[:-50]:  # keep it small
                if old != path:
                    old.unlink(missing_ok=True)
        return str(path)

    def csv_file(self, df: pd.DataFrame) -> str:
        """A CSV of ``df`` (e.g. the rows the browser's own table filter left), as a file path."""
        return self._csv_file(*self._csv_text(df))

    def _name_lists(self) -> tuple[list[str], list[str]]:
        full, rep = self.frame()
        with self._lock:
            if self._names is None or self._names[0] != rep.generation:
                fams = sorted(set(full["Family"])) if len(full) else []
                judges = sorted({r.result.judge.name for r in rep.results}, key=str.lower)
                self._names = (rep.generation, fams, judges)
            return list(self._names[1]), list(self._names[2])

    def families(self) -> list[str]:
        return self._name_lists()[0]

    def judges(self) -> list[str]:
        return self._name_lists()[1]

    def judge_results(self, judge: str) -> list[LoadedResult]:
        """The judge's newest result per dataset, in benchmark order."""
        latest = latest_results(r for r in self.report().results if r.result.judge.name == judge).get(judge, {})
        order = {d: i for i, d in enumerate(DATASET_NAMES)}
        return sorted(latest.values(), key=lambda r: (order.get(r.result.dataset.name, 99), r.result.dataset.name))

    def existing(self) -> list[Existing]:
        out = list(self.queue.existing())
        for r in self.report().results:
            j = r.result.judge
            out.append(
                Existing(
                    j.name,
                    settings_key(j.model or j.name, j.hf_model_id, j.revision, j.protocol, r.result.scoring.mode),
                    f"leaderboard row {j.name!r}",
                )
            )
        return out

    # -- submissions ----------------------------------------------------------------------------
    def submit(self, fields: dict[str, str | None], user: str | None) -> str:
        """Validate and queue a submission. Returns a success message; raises ValidationError."""
        if user is None:
            raise ValidationError("user", "Sign in with Hugging Face to submit a judge.")
        sub = validate_submission(**fields, app_mode=self.cfg.mode, resolver=self.cfg.resolver)  # type: ignore[arg-type]
        submitter = hash_user(user)
        with self._submit_lock:
            recent = self.queue.count_recent(submitter, self.cfg.rate_window_s)
            if recent >= self.cfg.rate_limit:
                window = f"{self.cfg.rate_window_s / 3600:g} h"
                raise ValidationError(
                    "user", f"Rate limit reached: at most {self.cfg.rate_limit} submissions per {window}. Try later."
                )
            dup = find_duplicate(sub, self.existing())
            if dup:
                raise ValidationError("duplicate", dup)
            req = self.queue.submit(new_request(sub, submitter))
        return f"Queued **{sub.judge_name}** as request `{req.id}` (PENDING). Follow it in the Queue tab."

    def queue_frame(self) -> tuple[pd.DataFrame, list[str]]:
        reqs, problems = self.queue.load()
        rows = [
            {
                "Request": r.id,
                "Judge": r.judge_name,
                "Model": r.hf_model_id or r.model,
                "Host": r.host,
                "Protocol": r.protocol,
                "Mode": r.mode,
                "State": r.state.value,
                "Submitted": r.created_at,
                "Updated": r.updated_at,
                "Reason": r.reason or "",
            }
            for r in reversed(reqs)
        ]
        cols = ["Request", "Judge", "Model", "Host", "Protocol", "Mode", "State", "Submitted", "Updated", "Reason"]
        return pd.DataFrame(rows, columns=cols), problems

    # -- survey ---------------------------------------------------------------------------------
    def vote(self, task_id: str, answers: dict[str, str | None], user: str | None) -> str:
        if user is None:
            raise ValueError("Sign in with Hugging Face to vote.")
        task = get_task(task_id)
        self.votes.cast(task, hash_user(user), answers)
        return f"Thank you: your ballot for {task.label} is stored (a new ballot replaces your earlier one)."

    def weights_frame(self) -> pd.DataFrame:
        version, counts, _ = self.survey_state()
        return pd.DataFrame(weights_rows(counts, version))


# ------------------------------------------------------------------------------------------------
# Judge page rendering
# ------------------------------------------------------------------------------------------------
def _fmt(x: float | None, nd: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def _ci(ci: Any) -> str:
    return "" if ci is None else f"[{ci.low:.2f}, {ci.high:.2f}]"


def _size(n_params: float | None, *names: str | None) -> str:
    b = table.params_of(n_params, *names)
    return "–" if not math.isfinite(b) else f"{b:g}B parameters"


def judge_header(results: Sequence[Result]) -> str:
    if not results:
        return "No results for this judge yet."
    r = max(results, key=lambda x: x.created_at)
    j = r.judge
    hf = f"[{j.hf_model_id}](https://huggingface.co/{j.hf_model_id})" if j.hf_model_id else "–"
    lines = [
        f"## {html.escape(j.name)}",
        f"* **Model:** {html.escape(j.model or '–')} · **HF model:** {hf} · **revision:** {j.revision or '–'}",
        f"* **Size:** {_size(j.n_params, j.hf_model_id, j.model)} · **kind:** {j.kind} · "
        f"**protocol:** {j.protocol} · **scoring mode:** {r.scoring.mode} · **repeats:** {r.scoring.repeats}",
        f"* **Endpoint hosts:** {', '.join(j.endpoint_hosts) or '–'} · **settings:** "
        f"{', '.join(f'{k}={v}' for k, v in j.settings.items()) or '–'}",
        f"* **Combination:** {r.scoring.combine_method.value} · **weights:** {r.scoring.weights_source} · "
        f"**bootstrap:** {r.scoring.n_boot} replicates, seed {r.scoring.seed}, "
        f"{r.scoring.confidence:.0%} intervals · **dhp** {r.dhp_version} · **scored** {r.created_at}",
    ]
    return "\n".join(lines)


def summary_frame(results: Sequence[Result]) -> pd.DataFrame:
    rows = []
    for r in results:
        s, c = r.summary, r.coverage
        rows.append(
            {
                "Dataset": r.dataset.name,
                "Version": r.dataset.version or r.dataset.revision[:12],
                "D_avg": _fmt(s.d_avg),
                "D_avg CI": _ci(s.ci.get("d_avg")),
                "D_min": _fmt(s.d_min),
                "D_min CI": _ci(s.ci.get("d_min")),
                "D_avg^EW": _fmt(s.d_avg_ew),
                "D_avg^EW CI": _ci(s.ci.get("d_avg_ew")),
                "D_min^EW": _fmt(s.d_min_ew),
                "D_min^EW CI": _ci(s.ci.get("d_min_ew")),
                "Coverage": f"{c.coverage:.1%}",
                "Parsed / expected": f"{c.parsed_scores} / {c.expected_scores}",
                "Unparsed": c.unparsed,
                "Failed requests": c.failed,
                "Why": "; ".join(f"{k}: {v}" for k, v in {**c.unparsed_reasons, **c.failure_reasons}.items()),
            }
        )
    return pd.DataFrame(rows)


def perturbation_frame(r: Result) -> pd.DataFrame:
    rows = []
    for p in r.perturbations:
        row: dict[str, Any] = {
            "Perturbation": p.id,
            "Level": p.level.value,
            "D": _fmt(p.d),
            "D CI": _ci(p.d_ci),
            "D^EW": _fmt(p.d_ew),
            "D^EW CI": _ci(p.d_ew_ci),
        }
        for m, st in p.metrics.items():
            row[f"p {m}"] = f"{st.p:.2g}"
            row[f"Δ mean {m}"] = (
                _fmt(st.mean_original - st.mean_perturbed)
                if st.mean_original is not None and st.mean_perturbed is not None
                else "–"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def prompts_markdown(r: Result) -> str:
    if not r.scoring.prompts:
        return "No prompt recorded in this result."
    parts = [
        f"**{m}** (template `{pi.template_hash[:12]}`)\n```text\n{pi.template}\n```"
        for m, pi in r.scoring.prompts.items()
    ]
    return "\n\n".join(parts)


def problems_markdown(problems: Sequence[str]) -> str:
    if not problems:
        return ""
    items = "\n".join(f"* `{html.escape(p[:300])}`" for p in problems[:20])
    more = f"\n* … and {len(problems) - 20} more" if len(problems) > 20 else ""
    return f"⚠️ **{len(problems)} results file(s) could not be read and were skipped:**\n{items}{more}"


# ------------------------------------------------------------------------------------------------
# The Blocks
# ------------------------------------------------------------------------------------------------
def _user(request: gr.Request | None, profile: gr.OAuthProfile | None, mode: Mode) -> str | None:
    """Who acts: the HF login in Space mode; locally the login, else the client's IP or session."""
    if profile is not None:
        return f"hf:{profile.username}"
    if mode == "space":
        return None
    if request is not None:
        client = getattr(request, "client", None)
        host = getattr(client, "host", None)
        if host:
            return f"ip:{host}"
        if request.session_hash:
            return f"session:{request.session_hash}"
    return "local"


def build_app(cfg: AppConfig, backend: Backend | None = None) -> gr.Blocks:
    be = backend or Backend(cfg)
    threading.Thread(target=be.report, name="dhp-warm-results", daemon=True).start()  # parse results early
    # HF OAuth works on a Space (SPACE_ID set); elsewhere Gradio's mock login needs an HF token.
    login = cfg.mode == "space" and bool(os.environ.get("SPACE_ID"))
    meta_choices = [c for c in table.META_COLUMNS if c != "Judge"]
    col_choices = [*meta_choices, *table.KINDS]
    col_default = [c for c in table.DEFAULT_META if c != "Judge"] + list(table.KINDS)

    with gr.Blocks(title=cfg.title, analytics_enabled=False) as demo:
        gr.Markdown(intro_markdown())
        problems_md = gr.Markdown("", elem_id="problems")
        generation = gr.State(-1)
        fam_state = gr.State([])  # the family choices the page knows, to spot new ones
        with gr.Tabs(elem_id="tabs") as tabs:
            # ---------------------------------------------------------------- Leaderboard
            with gr.Tab("Leaderboard", id="leaderboard", elem_id="tab-leaderboard"):
                with gr.Row():
                    search = gr.Textbox(
                        label="Search judges",
                        placeholder="name or model; separate several with ;",
                        elem_id="search",
                        scale=3,
                    )
                    weighted = gr.Checkbox(value=True, label="Expert weights (D^EW)", elem_id="weighted", scale=1)
                    weights = gr.Dropdown(
                        choices=[("as scored (default weights)", DEFAULT_WEIGHTS)],
                        value=DEFAULT_WEIGHTS,
                        label="Weights version",
                        elem_id="weights-version",
                        scale=2,
                    )
                with gr.Accordion("Filters and columns", open=True):
                    with gr.Row():
                        f_datasets = gr.CheckboxGroup(
                            choices=list(DATASET_NAMES), value=list(DATASET_NAMES), label="Datasets",
                            elem_id="filter-datasets",
                        )  # fmt: skip
                        f_sizes = gr.CheckboxGroup(
                            choices=list(table.SIZE_BUCKETS), value=list(table.SIZE_BUCKETS), label="Model size",
                            elem_id="filter-sizes",
                        )  # fmt: skip
                    with gr.Row():
                        f_families = gr.CheckboxGroup(choices=[], value=[], label="Model family", elem_id="filter-families")
                        f_columns = gr.CheckboxGroup(
                            choices=col_choices, value=col_default, label="Columns", elem_id="filter-columns"
                        )
                board = gr.Dataframe(
                    interactive=False,
                    show_search="filter",
                    pinned_columns=1,
                    max_height=640,
                    elem_id="leaderboard-table",
                    label="Discernment leaderboard",
                    show_label=False,
                    wrap=False,
                )
                gr.Markdown(LEGEND, elem_id="legend")
                with gr.Row():
                    csv_btn = gr.DownloadButton("Download CSV of this view", elem_id="csv", size="sm")
                    refresh_btn = gr.Button("Refresh", size="sm", elem_id="refresh")
            # ---------------------------------------------------------------- Judge
            with gr.Tab("Judge", id="judge", elem_id="tab-judge") as judge_tab:
                judge_dd = gr.Dropdown(choices=[], label="Judge", elem_id="judge-select", allow_custom_value=False)
                judge_md = gr.Markdown(elem_id="judge-info")
                bars = gr.Plot(label="Discernment per perturbation (paper Figure 4)", elem_id="judge-bars", format="png")
                summary_df = gr.Dataframe(
                    interactive=False, label="Per dataset: D with bootstrap intervals, coverage and parse failures",
                    elem_id="judge-summary", wrap=True,
                )  # fmt: skip
                ds_dd = gr.Dropdown(choices=[], label="Dataset", elem_id="judge-dataset")
                dist = gr.Plot(label="Response style: score distributions", elem_id="judge-dist", format="png")
                pert_df = gr.Dataframe(interactive=False, label="Per perturbation", elem_id="judge-perturbations")
                with gr.Accordion("Prompts used", open=False):
                    prompts_md = gr.Markdown(elem_id="judge-prompts")
            # ---------------------------------------------------------------- Submit
            with gr.Tab("Submit", id="submit", elem_id="tab-submit"):
                gr.Markdown(
                    "Submit an LLM judge served by an **OpenAI-compatible** (`/v1/chat/completions`) or "
                    "**Text Generation Inference** endpoint. "
                    + (
                        "The endpoint must be public and use **https**. "
                        if cfg.mode == "space"
                        else "Local mode: `http://localhost` endpoints and the built-in control judges are accepted. "
                    )
                    + "Never put an API key in the URL: the worker sends the key configured by the maintainers "
                    "(environment variable `DHP_JUDGE_API_KEY`) and no key is ever stored."
                )
                if login:
                    gr.LoginButton()
                with gr.Row():
                    s_name = gr.Textbox(label="Judge name", max_length=64, elem_id="s-name")
                    s_contact = gr.Textbox(label="Contact (email or HF user)", max_length=120, elem_id="s-contact")
                with gr.Row():
                    s_url = gr.Textbox(label="Endpoint URL", placeholder="https://...", elem_id="s-url", max_length=400)
                    protocols = [*PROTOCOLS, "builtin"] if cfg.mode == "local" else list(PROTOCOLS)
                    s_proto = gr.Dropdown(choices=protocols, value="openai", label="Protocol", elem_id="s-protocol")
                with gr.Row():
                    s_model = gr.Textbox(
                        label="Model name on the endpoint"
                        + (f" (builtin: {', '.join(CONTROL_JUDGES)})" if cfg.mode == "local" else ""),
                        elem_id="s-model",
                        max_length=200,
                    )
                    s_mode = gr.Dropdown(
                        choices=list(SCORING_MODES), value="expected", label="Scoring mode", elem_id="s-mode"
                    )
                with gr.Row():
                    s_hf = gr.Textbox(label="HF model id (optional)", placeholder="org/model", elem_id="s-hf", max_length=96)
                    s_rev = gr.Textbox(label="Revision (optional)", elem_id="s-rev", max_length=64)
                s_btn = gr.Button("Submit", variant="primary", elem_id="s-submit")
                s_status = gr.Markdown(elem_id="submit-status")
            # ---------------------------------------------------------------- Queue
            with gr.Tab("Queue", id="queue", elem_id="tab-queue"):
                q_refresh = gr.Button("Refresh queue", size="sm", elem_id="q-refresh")
                q_df = gr.Dataframe(interactive=False, elem_id="queue-table", wrap=True)
                q_problems = gr.Markdown(elem_id="queue-problems")
            # ---------------------------------------------------------------- Survey
            with gr.Tab("Survey", id="survey", elem_id="tab-survey"):
                gr.Markdown(
                    "## Expert-weight survey\nFor each quality issue, choose **the metric you think is most "
                    "affected**, that is, the metric that should get the lowest score because of the issue "
                    "(the DHP paper's Figure 5). Vote shares become expert weights for every perturbation "
                    "with that issue. "
                    + ("Sign in to vote; " if cfg.mode == "space" else "")
                    + "a new ballot from you replaces your earlier one."
                )
                if login:
                    gr.LoginButton()
                vote_handlers: list[tuple[str, gr.Button, list[gr.Radio], gr.Markdown]] = []
                for task in TASKS:
                    with gr.Accordion(f"Task: {task.label}", open=task is TASKS[0]):
                        defs = "\n".join(f"* **{lab}**: {d}" for _, lab, d in task.metrics)
                        gr.Markdown(f"Datasets: {', '.join(task.datasets)}\n\nMetrics:\n{defs}")
                        radios = [
                            gr.Radio(
                                choices=[(lab, name) for name, lab, _ in task.metrics],
                                label=f"Quality issue {i + 1}: {issue.text}",
                                elem_id=f"vote-{task.id}-{issue.id}",
                            )
                            for i, issue in enumerate(task.issues)
                        ]
                        btn = gr.Button(f"Vote ({task.label})", elem_id=f"vote-{task.id}")
                        status = gr.Markdown(elem_id=f"vote-status-{task.id}")
                        vote_handlers.append((task.id, btn, radios, status))
                gr.Markdown("### Weights derived from the votes")
                w_df = gr.Dataframe(interactive=False, elem_id="survey-weights", wrap=True)
            # ---------------------------------------------------------------- About
            with gr.Tab("About", id="about", elem_id="tab-about"):
                gr.Markdown(about_markdown(), latex_delimiters=[{"left": "$$", "right": "$$", "display": True},
                                                               {"left": "$", "right": "$", "display": False}])
        timer = gr.Timer(cfg.refresh_s)

        # ---------------------------------------------------------------- handlers
        view_inputs = [weights, weighted, f_datasets, f_families, f_sizes, f_columns, search]

        # Speed (500 judges): the table goes out as plain headers/data/metadata (table.view_cells, cached),
        # not as a pandas Styler; and no event shows its progress on the table. Gradio's front end
        # deep-copies every component that has a loading status, cell by cell, on each status change
        # of any event: with the table (or the Tabs around it) among them a filter took seconds.
        # Progress therefore shows on the CSV button (``show_progress_on``).
        def write_csv(shown: pd.DataFrame | None) -> str:
            return be.csv_file(shown if shown is not None else pd.DataFrame())

        def render_view(
            w: str, ew: bool, ds: list[str], fam: list[str], sz: list[str], cols: list[str], q: str
        ) -> tuple[Any, str]:
            """The table and, for the download button, a CSV of exactly that view."""
            return be.render(ViewChoice.of(weights=w, weighted=ew, datasets=ds, families=fam, sizes=sz, columns=cols, search=q))

        def page_load(request: gr.Request) -> tuple[Any, ...]:
            rep = be.report()
            fams = be.families()
            judges = be.judges()
            qp = dict(getattr(request, "query_params", {}) or {}) if request is not None else {}
            wanted = qp.get("judge")
            # The judge page (two matplotlib figures, ~1 s of server CPU) is drawn when it is opened,
            # not on every page load: no judge is chosen yet unless the link names one.
            judge = wanted if wanted in judges else None
            return (
                rep.generation,
                fams,
                problems_markdown(rep.problems),
                gr.Dropdown(choices=be.weights_choices(), value=DEFAULT_WEIGHTS),
                gr.CheckboxGroup(choices=fams, value=fams),
                *render_view(DEFAULT_WEIGHTS, True, list(DATASET_NAMES), fams, list(table.SIZE_BUCKETS), col_default, ""),
                gr.Dropdown(choices=judges, value=judge),
                gr.Tabs(selected="judge") if wanted in judges else gr.Tabs(),
            )

        load_outputs = [generation, fam_state, problems_md, weights, f_families, board, csv_btn, judge_dd, tabs]
        demo.load(page_load, None, load_outputs, show_progress_on=[csv_btn], queue=False)

        def tick(gen: int, known_fams: list[str], current_judge: str | None, *view: Any) -> tuple[Any, ...]:
            rep = be.report(0.0 if gen == -2 else None)  # the Refresh button lists the store afresh
            if gen == -1 or rep.generation == gen:  # page not loaded yet, or nothing new
                return (gr.skip(),) * 7
            fams_all = be.families()
            # keep the user's family choices; families that appeared since are shown (checked)
            chosen_fams = [f for f in fams_all if f in (view[3] or []) or f not in (known_fams or [])]
            judges = be.judges()
            return (
                rep.generation,
                fams_all,
                problems_markdown(rep.problems),
                gr.CheckboxGroup(choices=fams_all, value=chosen_fams),
                *render_view(view[0], view[1], view[2], chosen_fams, view[4], view[5], view[6]),
                gr.Dropdown(choices=judges, value=current_judge if current_judge in judges else None),
            )

        tick_outputs = [generation, fam_state, problems_md, f_families, board, csv_btn, judge_dd]
        timer.tick(
            tick, [generation, fam_state, judge_dd, *view_inputs], tick_outputs, show_progress="hidden",
            show_progress_on=[csv_btn],
        )  # fmt: skip
        refresh_btn.click(
            lambda *a: tick(-2, *a), [fam_state, judge_dd, *view_inputs], tick_outputs, show_progress_on=[refresh_btn]
        )

        # The family filter listens to ``input`` (the user's clicks), not ``change``: page load and timer
        # set its choices and send the table along; ``change`` would render the table a second time.
        # The others are set by the user only (a Textbox's ``input`` would miss a pasted text).
        listeners = (weights.change, weighted.change, f_datasets.change, f_families.input, f_sizes.change,
                     f_columns.change, search.change)  # fmt: skip
        for listen in listeners:
            listen(
                render_view, view_inputs, [board, csv_btn], show_progress="hidden", trigger_mode="always_last",
                show_progress_on=[csv_btn], queue=False,
            )  # fmt: skip
        # The Dataframe's own filter box (committed) changes the shown rows in the browser: the CSV follows.
        board.input(write_csv, board, csv_btn, show_progress="hidden", trigger_mode="always_last")

        def open_judge(evt: gr.SelectData) -> tuple[Any, Any]:
            row = evt.row_value or []
            name = row[0] if row else None
            if not name:
                return gr.skip(), gr.skip()
            return gr.Dropdown(value=name), gr.Tabs(selected="judge")

        board.select(open_judge, None, [judge_dd, tabs], show_progress_on=[judge_dd])

        def show_judge(name: str | None) -> tuple[Any, ...]:
            lrs = be.judge_results(name) if name else []
            results = [x.result for x in lrs]
            fig = plots.discernment_bars(results, title=f"{name}: D and D^EW per perturbation") if results else None
            ds_names = [r.dataset.name for r in results]
            return (
                judge_header(results),
                fig,
                summary_frame(results),
                gr.Dropdown(choices=ds_names, value=ds_names[0] if ds_names else None),
            )

        judge_dd.change(show_judge, judge_dd, [judge_md, bars, summary_df, ds_dd])

        def first_judge(current: str | None) -> Any:
            """Opening the Judge tab with no judge chosen shows the first one."""
            judges = be.judges()
            return gr.skip() if current or not judges else gr.Dropdown(value=judges[0])

        judge_tab.select(first_judge, judge_dd, judge_dd, show_progress="hidden")

        def show_dataset(name: str | None, dataset: str | None) -> tuple[Figure | None, pd.DataFrame, str]:
            lr = next((x for x in be.judge_results(name or "") if x.result.dataset.name == dataset), None)
            if lr is None:
                return None, pd.DataFrame(), ""
            try:
                full = be.index.full(lr.path)
            except Exception as e:  # changed or vanished since the listing: show what we have
                full = lr.result
                gr.Warning(f"could not re-read {lr.path}: {e}")
            return plots.score_distributions(full), perturbation_frame(full), prompts_markdown(full)

        ds_dd.change(show_dataset, [judge_dd, ds_dd], [dist, pert_df, prompts_md])

        def do_submit(
            name: str, url: str, proto: str, model: str, hf: str, rev: str, mode: str, contact: str,
            request: gr.Request, profile: gr.OAuthProfile | None = None,
        ) -> tuple[str, Any]:  # fmt: skip
            fields: dict[str, str | None] = {
                "judge_name": name, "endpoint_url": url, "protocol": proto, "model": model,
                "hf_model_id": hf, "revision": rev, "mode": mode, "contact": contact,
            }  # fmt: skip
            try:
                msg = be.submit(fields, _user(request, profile, cfg.mode))
            except ValidationError as e:
                return f"❌ **Not queued.** {html.escape(e.message)}", gr.skip()
            return f"✅ {msg}", be.queue_frame()[0]

        s_btn.click(do_submit, [s_name, s_url, s_proto, s_model, s_hf, s_rev, s_mode, s_contact], [s_status, q_df])

        def show_queue() -> tuple[pd.DataFrame, str]:
            df, problems = be.queue_frame()
            return df, "\n".join(f"* ⚠️ `{html.escape(p)}`" for p in problems)

        q_refresh.click(show_queue, None, [q_df, q_problems])
        demo.load(show_queue, None, [q_df, q_problems])
        timer.tick(show_queue, None, [q_df, q_problems], show_progress="hidden")

        def make_vote(task_id: str, radios: list[gr.Radio]) -> Callable[..., tuple[str, Any, Any]]:
            task = get_task(task_id)

            def vote(
                data: dict[Any, Any], request: gr.Request, profile: gr.OAuthProfile | None = None
            ) -> tuple[str, Any, Any]:
                answers = {issue.id: data.get(r) for issue, r in zip(task.issues, radios, strict=True)}
                try:
                    msg = be.vote(task_id, answers, _user(request, profile, cfg.mode))
                except ValueError as e:
                    return f"❌ {html.escape(str(e))}", gr.skip(), gr.skip()
                return f"✅ {msg}", be.weights_frame(), gr.Dropdown(choices=be.weights_choices())

            return vote

        for task_id, btn, radios, status in vote_handlers:
            btn.click(make_vote(task_id, radios), set(radios), [status, w_df, weights])
        demo.load(be.weights_frame, None, w_df)
    blocks: gr.Blocks = demo
    return blocks


def launch(demo: gr.Blocks, *, host: str = "127.0.0.1", port: int | None = None, block: bool = True) -> None:
    css_file = _ASSETS / "style.css"
    demo.launch(
        server_name=host,
        server_port=port,
        prevent_thread_lock=not block,
        css=css_file.read_text(encoding="utf-8") if css_file.is_file() else None,
        footer_links=["api"],
        show_error=True,
        run_history=False,  # Gradio 6 would copy every table it sends into the browser's localStorage
    )


def config_from_env() -> AppConfig:
    """For a Space: stores from DHP_RESULTS / DHP_REQUESTS / DHP_VOTES (``hf://datasets/...``)."""
    mode: Mode = "space" if os.environ.get("DHP_MODE", "space" if os.environ.get("SPACE_ID") else "local") == "space" else "local"
    root = Path(os.environ.get("DHP_STORE_ROOT", "out"))
    return AppConfig(
        results=open_store(os.environ.get("DHP_RESULTS", str(root / "results"))),
        requests=open_store(os.environ.get("DHP_REQUESTS", str(root / "requests"))),
        votes=open_store(os.environ.get("DHP_VOTES", str(root / "votes"))),
        mode=mode,
        rate_limit=3 if mode == "space" else 20,
        rate_window_s=86400.0 if mode == "space" else 3600.0,
    )


def main() -> None:
    launch(build_app(config_from_env()), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"))


if __name__ == "__main__":
    main()
