"""The Gradio tabs: one function lays out each tab and one wires its events, over a :class:`BoardService`.

Layout functions return the tab's components (frozen dataclasses); wiring functions attach the
handlers. No logic lives here beyond turning component values into :class:`ViewChoice` and
Gradio updates: every answer comes from :class:`dhp.leaderboard.page.service.BoardService`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from dhp.leaderboard.board import columns, table
from dhp.leaderboard.board.columns import PRIVATE_SPLIT
from dhp.leaderboard.page.about import LEGEND, about_markdown
from dhp.leaderboard.page.formatting import (
    plain_md,
    queue_html,
)
from dhp.leaderboard.page.judge_views import DetailBlock, detail_block
from dhp.leaderboard.page.service import DEFAULT_WEIGHTS, AppConfig, BoardService, ViewChoice
from dhp.leaderboard.submissions.survey import TASKS, get_task
from dhp.leaderboard.submissions.validation import SCORING_MODES, Mode, SubmissionErrors, ValidationError
from dhp.spec import DATASET_NAMES
from dhp.types import CONTROL_JUDGES, PROTOCOLS

__all__ = [
    "BoardTab",
    "JudgeTab",
    "about_tab",
    "board_tab",
    "judge_tab",
    "login_available",
    "queue_tab",
    "render_board",
    "submit_tab",
    "survey_tab",
    "user_of",
    "wire_board",
    "wire_judge",
    "wire_queue",
    "wire_submit",
    "wire_survey",
]

#: The main table's browser code (``gr.HTML`` ``js_on_load``): draws the rows the server sends in chunks.
BOARD_JS = (Path(__file__).resolve().parent / "assets" / "board_table.js").read_text(encoding="utf-8")
META_CHOICES = [c for c in table.META_COLUMNS if c != "Judge"]
#: "Private split": the private split's columns (private D, public − private, the flag); off by default
COL_CHOICES = [*META_CHOICES, *columns.VIEW_KINDS, PRIVATE_SPLIT]
COL_DEFAULT = [
    *(m for m in table.DEFAULT_META if m != "Judge"),
    *columns.KINDS,
]  # metadata off, but the caveats
#: Runs in the browser when a judge is shown: the address follows it (``?judge=NAME``).
URL_JS = """(name) => {
  const u = new URL(window.location.href);
  if (name) { u.searchParams.set('judge', name); } else { u.searchParams.delete('judge'); }
  window.history.replaceState(null, '', u.toString());
  return name;
}"""


def user_of(request: gr.Request | None, profile: gr.OAuthProfile | None, mode: Mode) -> str | None:
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


# ------------------------------------------------------------------------------------------------
# Leaderboard
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardTab:
    search: gr.Textbox
    weighted: gr.Checkbox
    weights: gr.Dropdown
    datasets: gr.CheckboxGroup
    sizes: gr.CheckboxGroup
    families: gr.CheckboxGroup
    columns: gr.CheckboxGroup
    sort: gr.Textbox  # hidden: a header click writes "<column>|asc|desc" here (assets/board.js)
    judge_link: gr.Textbox  # hidden: a click on a judge's link writes "<name>\t<nonce>" here
    board: gr.HTML
    tasks: gr.HTML  # results on datasets outside the benchmark, shown apart
    csv: gr.DownloadButton
    refresh: gr.Button

    @property
    def view_inputs(self) -> list[Any]:
        return [self.weights, self.weighted, self.datasets, self.families, self.sizes, self.columns, self.search,
                self.sort]  # fmt: skip


def _filters() -> tuple[gr.CheckboxGroup, gr.CheckboxGroup, gr.CheckboxGroup, gr.CheckboxGroup]:
    with gr.Accordion("Filters and columns", open=False, elem_id="filters"):
        with gr.Row():
            datasets = gr.CheckboxGroup(
                choices=list(DATASET_NAMES),
                value=list(DATASET_NAMES),
                label="Datasets",
                elem_id="filter-datasets",
            )
            sizes = gr.CheckboxGroup(
                choices=list(table.SIZE_BUCKETS), value=list(table.SIZE_BUCKETS), label="Model size",
                elem_id="filter-sizes",
            )  # fmt: skip
        with gr.Row():
            families = gr.CheckboxGroup(choices=[], value=[], label="Model family", elem_id="filter-families")
            columns = gr.CheckboxGroup(
                choices=COL_CHOICES, value=COL_DEFAULT, label="Columns", elem_id="filter-columns"
            )
    return datasets, sizes, families, columns


def board_tab() -> BoardTab:
    with gr.Tab("Leaderboard", id="leaderboard", elem_id="tab-leaderboard"):
        with gr.Row():
            search = gr.Textbox(
                label="Search judges",
                placeholder="judge or model (a; b: either)",
                elem_id="search",
                scale=3,
            )
            weighted = gr.Checkbox(value=True, label="Expert weights (D^EW)", elem_id="weighted", scale=1)
            weights = gr.Dropdown(
                choices=[("as scored (default weights)", DEFAULT_WEIGHTS)], value=DEFAULT_WEIGHTS,
                label="Weights version", elem_id="weights-version", scale=2,
            )  # fmt: skip
        datasets, sizes, families, columns = _filters()
        with gr.Row(elem_classes=["dhp-hidden"]):  # written by assets/board.js, never shown
            sort = gr.Textbox(value="", elem_id="board-sort", show_label=False, container=False)
            judge_link = gr.Textbox(value="", elem_id="judge-link", show_label=False, container=False)
        board = gr.HTML(
            elem_id="leaderboard-table", padding=False, html_template='<div class="dhp-board-host"></div>',
            js_on_load=BOARD_JS,
        )  # fmt: skip
        gr.Markdown(LEGEND, elem_id="legend")
        with gr.Row():
            csv = gr.DownloadButton("Download CSV of this view", elem_id="csv", size="sm")
            refresh = gr.Button("Refresh", size="sm", elem_id="refresh")
        tasks = gr.HTML(elem_id="tasks-table", padding=False)
    return BoardTab(search, weighted, weights, datasets, sizes, families, columns, sort, judge_link, board, tasks,
                    csv, refresh)  # fmt: skip


def _choice(view: Sequence[Any]) -> ViewChoice:
    w, ew, ds, fam, sz, cols, q, sort = view
    return ViewChoice.of(weights=w, weighted=ew, datasets=ds, families=fam, sizes=sz, columns=cols, search=q,
                         sort=sort)  # fmt: skip


def render_board(be: BoardService, *view: Any, asked: Sequence[Any] | None = None) -> tuple[str, str, str]:
    """The table (the parts the page's table component draws), the CSV of exactly that view, and the
    user-task section, for the view inputs. ``asked``: the inputs as the reader left them, when the
    view is a live refresh that added new families (it names the view, so the reader keeps their place)."""
    choice = _choice(view)
    parts, csv = be.render_parts(choice)
    key = _choice(asked).key() if asked is not None else choice.key()
    return parts.payload(be.cfg.board_chunk, key), csv, tasks_html(be, choice)


def tasks_html(be: BoardService, choice: ViewChoice) -> str:
    if not be.task_datasets():
        return ""
    body, _ = be.render(ViewChoice(weights=choice.weights, weighted=choice.weighted, tasks=True))
    return "<h3>Your tasks (datasets outside the benchmark; not part of its Overall)</h3>" + body


#: A filter, sort, search or toggle: the browser fetches the view (``serving.VIEW_ROUTE``, bytes
#: rendered once per view) instead of sending a Gradio event (15-20 ms of server CPU each).
VIEW_EVENT_JS = "(...inputs) => window.dhpView(inputs)"


def wire_board(be: BoardService, t: BoardTab) -> None:
    """Filters, sort, search and toggles re-render the table (and its CSV)."""
    # Speed (500 judges, a crowd of readers): the table is plain HTML, cached per view, fetched by
    # the page itself (assets/board_view.js); no server event.
    outs = [t.board, t.csv, t.tasks]
    listeners = (t.weights.change, t.weighted.change, t.datasets.change, t.families.input, t.sizes.change,
                 t.columns.change, t.search.change, t.sort.change)  # fmt: skip
    for listen in listeners:
        listen(
            None, t.view_inputs, outs, js=VIEW_EVENT_JS, show_progress="hidden", trigger_mode="always_last",
            show_progress_on=[t.csv], queue=False,
        )  # fmt: skip


# ------------------------------------------------------------------------------------------------
# Judge
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeTab:
    tab: gr.Tab
    select: gr.Dropdown
    info: gr.HTML  # formatting.judge_header: HTML with every user string escaped, never Markdown
    bars: gr.HTML  # vector figures drawn for a phone (judge_figures: inline SVG)
    summary: gr.Dataframe
    dataset: gr.Dropdown
    dist: gr.HTML
    perturbations: gr.Dataframe
    prompts: gr.Markdown
    detail: DetailBlock  # misses, length tertiles, run cost (issue 20)


def judge_tab() -> JudgeTab:
    with gr.Tab("Judge", id="judge", elem_id="tab-judge") as tab:
        select = gr.Dropdown(choices=[], label="Judge", elem_id="judge-select", allow_custom_value=False)
        info = gr.HTML(elem_id="judge-info", padding=False)
        # Titles above the figures, not Gradio's floating labels: on a phone those covered the top
        # panel's title inside the image.
        gr.Markdown("#### Discernment per perturbation (paper Figure 4)", elem_id="judge-bars-title")
        bars = gr.HTML(elem_id="judge-bars", padding=False)
        # hidden until a judge is shown: an empty Dataframe draws placeholder headers "1 2 3"
        summary = gr.Dataframe(
            interactive=False, label="Per dataset: D with bootstrap intervals, coverage and parse failures",
            elem_id="judge-summary", wrap=False, visible=False,
        )  # fmt: skip
        dataset = gr.Dropdown(choices=[], label="Dataset", elem_id="judge-dataset")
        gr.Markdown("#### Response style: score distributions", elem_id="judge-dist-title")
        dist = gr.HTML(elem_id="judge-dist", padding=False)
        perturbations = gr.Dataframe(
            interactive=False, label="Per perturbation", elem_id="judge-perturbations", visible=False
        )
        detail = detail_block()
        with gr.Accordion("Prompts used", open=False):
            prompts = gr.Markdown(elem_id="judge-prompts")
    return JudgeTab(tab, select, info, bars, summary, dataset, dist, perturbations, prompts, detail)


def wire_judge(be: BoardService, j: JudgeTab, tabs: gr.Tabs, link: gr.Textbox, linked: gr.State) -> None:
    """The Judge tab is filled in the browser (``assets/judge_view.js``) from ``GET /dhp/judge``
    (:mod:`dhp.leaderboard.page.judge_pages`: pages drawn once per version of their results, off the
    request path): choosing a judge, a dataset or a perturbation, opening the tab and following a link
    send no Gradio event, so no reader's page waits for another's."""
    d = j.detail
    part = [j.dist, j.perturbations, j.prompts, d.detail, d.pick, d.misses, d.csv]
    quiet: dict[str, Any] = {"show_progress": "hidden", "queue": False}
    j.select.change(None, j.select, [j.info, j.bars, j.summary, j.dataset, *part],
                    js="(n) => window.dhpJudge(n)", show_progress_on=[j.info], queue=False)  # fmt: skip
    j.select.change(None, j.select, None, js=URL_JS)  # the address follows the judge shown
    # Opening the Judge tab with no judge chosen shows the first one; not when a link named a judge
    # (the page load opened the tab for it, and says so if no result names it).
    j.tab.select(None, [j.select, linked], j.select, js="(c, n) => window.dhpFirstJudge(c, n)", **quiet)
    j.dataset.change(None, [j.select, j.dataset], part, js="(n, ds) => window.dhpJudgeDataset(n, ds)",
                     show_progress_on=[j.dist], queue=False)  # fmt: skip
    d.pick.input(None, [j.select, j.dataset, d.pick], d.misses, js="(n, ds, p) => window.dhpJudgeMisses(n, ds, p)",
                 **quiet)  # fmt: skip
    link.change(None, link, [j.select, tabs], js="(v) => window.dhpFollow(v)", show_progress="hidden",
                show_progress_on=[j.select], queue=False)  # fmt: skip


# ------------------------------------------------------------------------------------------------
# Submit, Queue, Survey, About
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SubmitTab:
    fields: tuple[
        gr.Component, ...
    ]  # name, url, protocol, model, hf id, provider, revision, mode, contact, show host
    button: gr.Button
    status: gr.Markdown


def _submit_intro(mode: Mode) -> str:
    where = (
        "The endpoint must be public and use **https**. "
        if mode == "space"
        else "Local mode: `http://localhost` endpoints and the built-in control judges are accepted. "
    )
    return (
        "Submit an LLM judge served by an **OpenAI-compatible** (`/v1/chat/completions`) or "
        "**Text Generation Inference** endpoint, or a **Hub model id** scored through Hugging Face "
        "Inference Providers: leave the endpoint URL and model name empty, give the HF model id and, "
        "optionally, a provider. " + where + "Never put an API key in the URL: the worker sends the key "
        "configured by the maintainers (environment variable `DHP_JUDGE_API_KEY`, or their HF token for "
        "Hub model ids) and no key is ever stored."
    )


def _sign_in(be: BoardService, what: str) -> None:
    """Space mode: the sign-in button on a Space; elsewhere a note that sign-in (and so ``what``) is unavailable."""
    if be.cfg.mode != "space":
        return
    if login_available(be.cfg):
        gr.LoginButton()
    else:
        gr.Markdown(f"⚠️ {be.sign_in_needed(what)}", elem_classes=["dhp-note"])


def submit_tab(be: BoardService) -> SubmitTab:
    mode = be.cfg.mode
    with gr.Tab("Submit", id="submit", elem_id="tab-submit"):
        gr.Markdown(_submit_intro(mode))
        _sign_in(be, "take submissions")
        with gr.Row():
            name = gr.Textbox(label="Judge name", max_length=64, elem_id="s-name")
            contact = gr.Textbox(label="Contact (email or HF user)", max_length=120, elem_id="s-contact")
        with gr.Row():
            url = gr.Textbox(
                label="Endpoint URL (empty: the HF model id through Inference Providers)",
                placeholder="https://...",
                elem_id="s-url",
                max_length=400,
            )
            protocols = [*PROTOCOLS, "builtin"] if mode == "local" else list(PROTOCOLS)
            proto = gr.Dropdown(choices=protocols, value="openai", label="Protocol", elem_id="s-protocol")
        with gr.Row():
            builtin = f" (builtin: {', '.join(CONTROL_JUDGES)})" if mode == "local" else ""
            model = gr.Textbox(
                label="Model name on the endpoint" + builtin, elem_id="s-model", max_length=200
            )
            smode = gr.Dropdown(
                choices=list(SCORING_MODES), value="expected", label="Scoring mode", elem_id="s-mode"
            )
        with gr.Row():
            hf = gr.Textbox(
                label="HF model id (optional with an endpoint)",
                placeholder="org/model",
                elem_id="s-hf",
                max_length=96,
            )
            provider = gr.Textbox(
                value="auto",
                label="Inference provider (Hub model id only; auto: the router chooses)",
                elem_id="s-provider",
                max_length=40,
            )
            rev = gr.Textbox(label="Revision (optional)", elem_id="s-rev", max_length=64)
        publish_host = gr.Checkbox(
            value=False,
            label="Publish my endpoint's host name (Queue tab and results)",
            elem_id="s-show-host",
        )
        button = gr.Button("Submit", variant="primary", elem_id="s-submit")
        status = gr.Markdown(elem_id="submit-status", latex_delimiters=[])
    return SubmitTab(
        (name, url, proto, model, hf, provider, rev, smode, contact, publish_host), button, status
    )


def _errors_markdown(e: ValidationError) -> str:
    errors = e.errors if isinstance(e, SubmissionErrors) else (e,)
    if len(errors) == 1:  # a message quotes what was typed: plain text, never Markdown
        return f"❌ **Not queued.** {plain_md(errors[0].message)}"
    return "❌ **Not queued:**\n" + "\n".join(f"* {plain_md(x.message)}" for x in errors)


def wire_submit(be: BoardService, s: SubmitTab, queue_df: gr.HTML) -> None:
    keys = (
        "judge_name",
        "endpoint_url",
        "protocol",
        "model",
        "hf_model_id",
        "provider",
        "revision",
        "mode",
        "contact",
        "publish_host",
    )

    def handler(
        name: str, url: str, proto: str, model: str, hf: str, provider: str, rev: str, mode: str, contact: str,
        publish_host: bool, request: gr.Request, profile: gr.OAuthProfile | None = None,
    ) -> tuple[str, Any]:  # fmt: skip
        values = (name, url, proto, model, hf, provider, rev, mode, contact, bool(publish_host))
        try:
            msg = be.submit(dict(zip(keys, values, strict=True)), user_of(request, profile, be.cfg.mode))
        except ValidationError as e:
            return _errors_markdown(e), gr.skip()
        return f"✅ {msg}", queue_html(be.queue_frame()[0])

    s.button.click(handler, list(s.fields), [s.status, queue_df])


def queue_tab() -> tuple[gr.Button, gr.HTML, gr.Markdown, gr.Tab]:
    with gr.Tab("Queue", id="queue", elem_id="tab-queue") as tab:
        refresh = gr.Button("Refresh queue", size="sm", elem_id="q-refresh")
        df = gr.HTML(elem_id="queue-table", padding=False)  # formatting.queue_html: fits a phone and 1440 px
        problems = gr.Markdown(elem_id="queue-problems")
    return refresh, df, problems, tab


def wire_queue(
    be: BoardService, timer: gr.Timer, parts: tuple[gr.Button, gr.HTML, gr.Markdown, gr.Tab]
) -> None:
    """The queue is read when its tab is opened (not on every page load: the board comes first), on
    Refresh, and by the page's timer."""
    refresh, df, problems, tab = parts

    def show_queue() -> tuple[str, str]:
        frame, bad = be.queue_frame()
        notes = [f"* ⚠️ `{html.escape(p)}`" for p in bad]
        if frame.empty:
            notes.insert(
                0, "The queue is empty: no judge is waiting or running. Submit one in the Submit tab."
            )
        return queue_html(frame), "\n".join(notes)

    refresh.click(show_queue, None, [df, problems])
    tab.select(show_queue, None, [df, problems], show_progress="hidden")
    timer.tick(show_queue, None, [df, problems], show_progress="hidden")


VoteHandler = tuple[str, gr.Button, list[gr.Radio], gr.Markdown]


def survey_tab(be: BoardService) -> tuple[list[VoteHandler], gr.Dataframe, gr.Markdown, gr.Tab]:
    with gr.Tab("Survey", id="survey", elem_id="tab-survey") as tab:
        gr.Markdown(
            "## Expert-weight survey\nFor each quality issue, choose **the metric you think is most affected**, "
            "that is, the metric that should get the lowest score because of the issue (the DHP paper's "
            "Figure 5). Vote shares become expert weights for every perturbation with that issue. "
            + ("Sign in to vote. " if be.cfg.mode == "space" else "")
            + "A new ballot from you replaces your earlier one. The survey's weights can be chosen above the "
            f"table once there are {be.cfg.survey_min_ballots} ballots."
        )
        _sign_in(be, "take votes")
        handlers: list[VoteHandler] = []
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
                handlers.append((task.id, btn, radios, gr.Markdown(elem_id=f"vote-status-{task.id}")))
        gr.Markdown("### Weights derived from the votes")
        status = gr.Markdown(elem_id="survey-status")
        weights_df = gr.Dataframe(interactive=False, elem_id="survey-weights", wrap=True)
    return handlers, weights_df, status, tab


def wire_survey(
    be: BoardService,
    parts: tuple[list[VoteHandler], gr.Dataframe, gr.Markdown, gr.Tab],
    weights: gr.Dropdown,
) -> None:
    """Votes; the survey's weights table is read when its tab is opened."""
    handlers, weights_df, survey_status, tab = parts

    def make_vote(task_id: str, radios: list[gr.Radio]) -> Callable[..., tuple[str, Any, Any, Any]]:
        task = get_task(task_id)

        def vote(
            data: dict[Any, Any], request: gr.Request, profile: gr.OAuthProfile | None = None
        ) -> tuple[str, Any, Any, Any]:
            answers = {issue.id: data.get(r) for issue, r in zip(task.issues, radios, strict=True)}
            try:
                msg = be.vote(task_id, answers, user_of(request, profile, be.cfg.mode))
            except ValueError as e:
                return f"❌ {html.escape(str(e))}", gr.skip(), gr.skip(), gr.skip()
            return f"✅ {msg}", be.weights_frame(), weights_dropdown(be), be.survey_status()

        return vote

    for task_id, btn, radios, status in handlers:
        btn.click(make_vote(task_id, radios), set(radios), [status, weights_df, weights, survey_status])
    tab.select(lambda: (be.weights_frame(), be.survey_status()), None, [weights_df, survey_status])


def weights_dropdown(be: BoardService, value: str | None = None) -> Any:
    """The weights-version choices, with the survey's ballot count as the hint."""
    if value is None:  # keep the user's choice
        return gr.Dropdown(choices=be.weights_choices(), info=be.survey_status())
    return gr.Dropdown(choices=be.weights_choices(), value=value, info=be.survey_status())


def about_tab() -> None:
    with gr.Tab("About", id="about", elem_id="tab-about"):
        gr.Markdown(
            about_markdown(),
            elem_id="about",
            latex_delimiters=[
                {"left": "$$", "right": "$$", "display": True},
                {"left": "$", "right": "$", "display": False},
            ],
        )


def login_available(cfg: AppConfig) -> bool:
    """HF OAuth works on a Space (SPACE_ID set); elsewhere Gradio's mock login needs an HF token."""
    return cfg.mode == "space" and cfg.sign_in
