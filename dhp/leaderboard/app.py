"""The Gradio 6 Space: Leaderboard / Judge / Submit / Queue / Survey / About.

:func:`build_app` takes an :class:`AppConfig` (stores, mode, limits) and returns the ``gr.Blocks``:
the tabs are laid out and wired by :mod:`dhp.leaderboard.ui`, the logic behind every event is a
plain method of :class:`~dhp.leaderboard.service.Backend` (testable without a browser), and the
judge page's texts come from :mod:`dhp.leaderboard.formatting`. All state lives in the stores:
every page load and a ``gr.Timer`` re-read them (cheaply, through the caches of the backend), so
results written by a worker appear without a restart.

Run locally with ``dhp leaderboard``; on a Space, run this file (``app_file: dhp/leaderboard/app.py``)
with ``DHP_RESULTS``, ``DHP_REQUESTS`` and ``DHP_VOTES`` naming ``hf://datasets/...`` stores.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gradio as gr

from dhp.leaderboard import compare_view, table, ui
from dhp.leaderboard.about import intro_markdown
from dhp.leaderboard.formatting import problems_markdown, unknown_judge_html
from dhp.leaderboard.service import DEFAULT_WEIGHTS, AppConfig, Backend
from dhp.leaderboard.stores import HubStore, open_store
from dhp.leaderboard.validation import Mode
from dhp.spec import DATASET_NAMES

__all__ = [
    "ALLOW_LOCAL_ENV",
    "AppConfig",
    "Backend",
    "StoreConfigError",
    "build_app",
    "check_space_stores",
    "config_from_env",
    "launch",
    "main",
    "store_specs",
]

_ASSETS = Path(__file__).resolve().parent / "assets"


def _default_view(fams: list[str]) -> tuple[Any, ...]:
    return (
        DEFAULT_WEIGHTS,
        True,
        list(DATASET_NAMES),
        fams,
        list(table.SIZE_BUCKETS),
        ui.COL_DEFAULT,
        "",
        "",
    )


def _page_load(be: Backend, request: gr.Request | None) -> tuple[Any, ...]:
    """Everything a fresh page needs; ``?judge=NAME`` opens that judge's page (or says it is unknown)."""
    rep = be.report()
    fams, judges = be.families(), be.judges()
    qp = dict(getattr(request, "query_params", {}) or {}) if request is not None else {}
    wanted = qp.get("judge")
    # The judge page (two matplotlib figures, ~1 s of server CPU) is drawn when it is opened, not on
    # every page load: no judge is chosen yet unless the link names one.
    known = wanted if wanted in judges else None
    unknown = unknown_judge_html(wanted) if wanted and not known else gr.skip()
    return (
        rep.generation,
        fams,
        problems_markdown(rep.problems),
        ui.weights_dropdown(be, DEFAULT_WEIGHTS),
        gr.CheckboxGroup(choices=fams, value=fams),
        *ui.render_board(be, *_default_view(fams)),
        gr.Dropdown(choices=judges, value=known),
        gr.Tabs(selected="judge") if wanted else gr.Tabs(),
        unknown,
        wanted or "",
    )


def _tick(be: Backend, gen: int, known_fams: list[str], *view: Any) -> tuple[Any, ...]:
    """The timer (and Refresh, ``gen == -2``): re-render only when the results changed."""
    rep = be.report(0.0 if gen == -2 else None)  # the Refresh button lists the store afresh
    if gen == -1 or rep.generation == gen:  # page not loaded yet, or nothing new
        return (gr.skip(),) * 8
    fams_all = be.families()
    # keep the user's family choices; families that appeared since are shown (checked)
    chosen = [f for f in fams_all if f in (view[3] or []) or f not in (known_fams or [])]
    judges = be.judges()
    return (
        rep.generation,
        fams_all,
        problems_markdown(rep.problems),
        gr.CheckboxGroup(choices=fams_all, value=chosen),
        *ui.render_board(be, *view[:3], chosen, *view[4:], asked=view),
        gr.Dropdown(choices=judges),  # new judges listed; the value (the reader's choice) is left alone
    )


def _wire_page(be: Backend, demo: gr.Blocks, timer: gr.Timer, parts: dict[str, Any]) -> None:
    b: ui.BoardTab = parts["board"]
    j: ui.JudgeTab = parts["judge"]
    gen, fam_state, problems = parts["generation"], parts["families"], parts["problems"]
    load_out = [
        gen,
        fam_state,
        problems,
        b.weights,
        b.families,
        b.board,
        b.csv,
        b.tasks,
        j.select,
        parts["tabs"],
        j.info,
        parts["linked"],
    ]

    def page_load(request: gr.Request) -> tuple[Any, ...]:
        return _page_load(be, request)

    demo.load(page_load, None, load_out, show_progress_on=[b.csv], queue=False)
    tick_out = [gen, fam_state, problems, b.families, b.board, b.csv, b.tasks, j.select]
    tick_in = [gen, fam_state, *b.view_inputs]
    timer.tick(lambda *a: _tick(be, *a), tick_in, tick_out, show_progress="hidden", show_progress_on=[b.csv])
    b.refresh.click(lambda *a: _tick(be, -2, *a), tick_in[1:], tick_out, show_progress_on=[b.refresh])


def build_app(cfg: AppConfig, backend: Backend | None = None) -> gr.Blocks:
    be = backend or Backend(cfg)
    threading.Thread(target=be.report, name="dhp-warm-results", daemon=True).start()  # parse results early
    with gr.Blocks(title=cfg.title, analytics_enabled=False) as demo:
        gr.Markdown(intro_markdown())
        parts: dict[str, Any] = {
            "problems": gr.Markdown("", elem_id="problems"),
            "generation": gr.State(-1),
            "families": gr.State([]),  # the family choices the page knows, to spot new ones
            "linked": gr.State(""),  # the judge a ?judge= link named (known or not): no default judge then
        }
        with gr.Tabs(elem_id="tabs") as tabs:
            parts.update(tabs=tabs, board=ui.board_tab(), judge=ui.judge_tab())
            compare = compare_view.compare_tab()
            submit = ui.submit_tab(be)
            queue = ui.queue_tab()
            survey = ui.survey_tab(be)
            ui.about_tab()
        timer = gr.Timer(cfg.refresh_s)
        _wire_page(be, demo, timer, parts)
        ui.wire_board(be, parts["board"])
        ui.wire_judge(be, parts["judge"], tabs, parts["board"].judge_link, parts["linked"])
        compare_view.wire_compare(be, compare)
        ui.wire_submit(be, submit, queue[1])
        ui.wire_queue(be, timer, queue)
        ui.wire_survey(be, survey, parts["board"].weights)
    blocks: gr.Blocks = demo
    return blocks


def launch(demo: gr.Blocks, *, host: str = "127.0.0.1", port: int | None = None, block: bool = True) -> None:
    demo.launch(
        server_name=host,
        server_port=port,
        prevent_thread_lock=not block,
        css=(_ASSETS / "style.css").read_text(encoding="utf-8"),
        js=(_ASSETS / "board.js").read_text(encoding="utf-8"),
        footer_links=["api"],
        show_error=True,
        run_history=False,  # Gradio 6 would copy every table it sends into the browser's localStorage
    )


#: Space mode refuses local store folders (a Space restart loses them) unless this is ``1``.
ALLOW_LOCAL_ENV = "DHP_ALLOW_LOCAL_STORES"
_STORES = {"results": "DHP_RESULTS", "requests": "DHP_REQUESTS", "votes": "DHP_VOTES"}


class StoreConfigError(RuntimeError):
    """The stores named for a Space would lose data or expose it; the app does not start."""


def store_specs(mode: Mode, environ: Mapping[str, str]) -> dict[str, str]:
    """Where each store lives. Local mode: ``DHP_<STORE>`` or a folder under ``DHP_STORE_ROOT``
    (default ``out``). Space mode: ``DHP_<STORE>`` or the Hub dataset ``<owner>/dhp-<store>`` of the
    Space's owner (``SPACE_AUTHOR_NAME``, or the owner in ``SPACE_ID``)."""
    root = Path(environ.get("DHP_STORE_ROOT", "out"))
    owner = environ.get("SPACE_AUTHOR_NAME") or environ.get("SPACE_ID", "").partition("/")[0]
    specs: dict[str, str] = {}
    for kind, var in _STORES.items():
        if var in environ:
            specs[kind] = environ[var]
        elif mode == "space" and owner and not environ.get("DHP_STORE_ROOT"):
            specs[kind] = f"hf://datasets/{owner}/dhp-{kind}"
        else:
            specs[kind] = str(root / kind)
    return specs


def check_space_stores(cfg: AppConfig, allow_local: bool) -> None:
    """Space mode: every store on the Hub (unless ``allow_local``), and the request store private
    (it holds endpoint URLs and contact e-mails). Raises :class:`StoreConfigError` otherwise."""
    if cfg.mode != "space":
        return
    for kind, store in (("results", cfg.results), ("requests", cfg.requests), ("votes", cfg.votes)):
        if not isinstance(store, HubStore) and not allow_local:
            raise StoreConfigError(
                f"{_STORES[kind]} is the local folder {store.name} (a Space restart loses it): name an "
                f"hf://datasets/... store, or set {ALLOW_LOCAL_ENV}=1 to keep it local."
            )
    if isinstance(cfg.requests, HubStore) and not cfg.requests.is_private():
        raise StoreConfigError(
            f"the request store {cfg.requests.name} is public, but it holds endpoint URLs and contact "
            "e-mails: make the dataset repository private."
        )


def config_from_env(environ: Mapping[str, str] | None = None) -> AppConfig:
    """For a Space: stores from DHP_RESULTS / DHP_REQUESTS / DHP_VOTES (``hf://datasets/...``),
    checked by :func:`check_space_stores` in Space mode."""
    env = os.environ if environ is None else environ
    default_mode = "space" if env.get("SPACE_ID") else "local"
    mode: Mode = "space" if env.get("DHP_MODE", default_mode) == "space" else "local"
    specs = store_specs(mode, env)
    cfg = AppConfig(
        results=open_store(specs["results"]),
        requests=open_store(specs["requests"]),
        votes=open_store(specs["votes"]),
        mode=mode,
        rate_limit=3 if mode == "space" else 20,
        rate_window_s=86400.0 if mode == "space" else 3600.0,
    )
    check_space_stores(cfg, allow_local=env.get(ALLOW_LOCAL_ENV) == "1")
    return cfg


def main() -> None:
    launch(build_app(config_from_env()), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"))


if __name__ == "__main__":
    main()
