"""The Gradio 6 Space: Leaderboard / Judge / Submit / Queue / Survey / About.

:func:`build_app` takes an :class:`AppConfig` (stores, mode, limits) and returns the ``gr.Blocks``:
the tabs are laid out and wired by :mod:`dhp.leaderboard.page.ui`, the logic behind every event is a
plain method of :class:`~dhp.leaderboard.page.service.BoardService` (testable without a browser), and the
judge page's texts come from :mod:`dhp.leaderboard.page.formatting`. All state lives in the stores:
every page load and a ``gr.Timer`` re-read them (cheaply, through the caches of the backend), so
results written by a worker appear without a restart.

Run locally with ``dhp leaderboard``; on a Space, run this file (``app_file: dhp/leaderboard/page/app.py``)
with ``DHP_RESULTS``, ``DHP_REQUESTS`` and ``DHP_VOTES`` naming ``hf://datasets/...`` stores.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

from dhp.leaderboard.board.stores import HubStore, StoreError, open_store, seconds_from_env
from dhp.leaderboard.page import compare_view, first_visit, serving, ui
from dhp.leaderboard.page.about import intro_markdown
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.leaderboard.submissions.validation import Mode

__all__ = [
    "ALLOW_LOCAL_ENV",
    "REFRESH_ENV",
    "StoreConfigError",
    "build_app",
    "check_space_stores",
    "config_from_env",
    "dump_threads_on_usr1",
    "launch",
    "main",
    "refresh_from_env",
    "store_specs",
]

_ASSETS = Path(__file__).resolve().parent / "assets"


#: The board's views in the browser (``window.dhpView``): a page load and every filter fetch them.
VIEW_JS = (_ASSETS / "board_view.js").read_text(encoding="utf-8")
#: The judge page in the browser (``window.dhpJudge``): filled from ``GET /dhp/judge``, no Gradio event.
JUDGE_JS = (_ASSETS / "judge_view.js").read_text(encoding="utf-8")


def _wire_page(demo: gr.Blocks, timer: gr.Timer, parts: dict[str, Any]) -> None:
    """The page load, the timer and Refresh: none is a Gradio event (15-20 ms of server CPU each, and a
    session of 126 components set up per visitor). The browser fetches the default view with the page's
    lists (serving.VIEW_ROUTE, bytes made once per board version) and applies them itself
    (assets/board_view.js); the timer asks for the board version and redraws only when it changed."""
    b: ui.BoardTab = parts["board"]
    j: ui.JudgeTab = parts["judge"]
    gen, fam_state, problems = parts["generation"], parts["families"], parts["problems"]
    load_out = [gen, fam_state, problems, b.weights, b.families, b.board, b.csv, b.tasks, b.judge_link,
                parts["tabs"], j.info, parts["linked"]]  # fmt: skip
    demo.load(
        None, None, load_out, js="() => window.dhpPage()", show_progress="hidden", show_progress_on=[b.csv]
    )
    tick_out = [gen, fam_state, problems, b.families, b.board, b.csv, b.tasks]
    tick_in = [gen, fam_state, *b.view_inputs]
    timer.tick(None, tick_in, tick_out, js="(...a) => window.dhpTick(false, ...a)", show_progress="hidden",
               show_progress_on=[b.csv])  # fmt: skip
    b.refresh.click(
        None, tick_in, tick_out, js="(...a) => window.dhpTick(true, ...a)", show_progress_on=[b.refresh]
    )


class _Board(gr.Blocks):
    """The board's Blocks: closing it also ends what it started beside Gradio (the judge-page renderers)."""

    closers: list[Callable[[], None]]

    def close(self, verbose: bool = True) -> None:
        super().close(verbose)
        for close in getattr(self, "closers", ()):
            close()


#: The BoardService of each app :func:`build_app` made, for :func:`launch` (its routes).
_BACKENDS: weakref.WeakKeyDictionary[gr.Blocks, BoardService] = weakref.WeakKeyDictionary()


def build_app(cfg: AppConfig, backend: BoardService | None = None) -> gr.Blocks:
    be = backend or BoardService(cfg)
    be.wait_ranks = False  # the page shows rows at once; rank ranges follow (BoardService.status says so)
    be.warmers.append(lambda: serving.view_cache(be).warm())  # the default view, as bytes
    threading.Thread(target=be.warm, name="dhp-warm-results", daemon=True).start()  # off the request path
    with _Board(title=cfg.title, analytics_enabled=False) as demo:
        gr.Markdown(intro_markdown())
        parts: dict[str, Any] = {"problems": gr.Markdown("", elem_id="problems")}
        with gr.Row(elem_classes=["dhp-hidden"]):  # set in the browser by the page load (board_view.js)
            parts.update(
                generation=gr.Number(
                    -1, precision=0, elem_id="board-version", show_label=False, container=False
                ),
                # the family choices the page knows (JSON), to spot new ones
                families=gr.Textbox("[]", elem_id="known-families", show_label=False, container=False),
                # the judge a ?judge= link named (known or not): no default judge then
                linked=gr.Textbox("", elem_id="linked-judge", show_label=False, container=False),
            )
        with gr.Tabs(elem_id="tabs") as tabs:
            parts.update(tabs=tabs, board=ui.board_tab(), judge=ui.judge_tab())
            compare = compare_view.compare_tab()
            submit = ui.submit_tab(be)
            queue = ui.queue_tab()
            survey = ui.survey_tab(be)
            ui.about_tab()
        timer = gr.Timer(cfg.refresh_s)
        _wire_page(demo, timer, parts)
        ui.wire_board(be, parts["board"])
        ui.wire_judge(be, parts["judge"], tabs, parts["board"].judge_link, parts["linked"])
        compare_view.wire_compare(be, compare)
        ui.wire_submit(be, submit, queue[1])
        ui.wire_queue(be, timer, queue)
        ui.wire_survey(be, survey, parts["board"].weights)
    demo.closers = [serving.judge_pages(be).close]
    blocks: gr.Blocks = demo
    _BACKENDS[blocks] = be
    return blocks


def launch(demo: gr.Blocks, *, host: str = "127.0.0.1", port: int | None = None, block: bool = True) -> None:
    """Serve ``demo`` (made by :func:`build_app`) with the board's own routes and caches (:mod:`serving`)."""
    be = _BACKENDS.get(demo)
    bundle = first_visit.page_bundle(demo.get_config_file())  # None: Gradio's build not recognised
    app_kwargs: dict[str, Any] = {
        "middleware": [Middleware(serving.PageCache, edit=bundle.inject if bundle else None),
                       Middleware(serving.StaticCache), Middleware(serving.SharedCache)],
        "routes": [bundle.route()] if bundle else [],
        # FastAPI's OpenTelemetry, unused here, looked for a configured provider on every request (3 environment
        # look-ups; 0.17 s of the server's 4.0 s under cProfile for 100 first visits' 5,400 requests)
        "telemetry": {"tracing": False, "metrics": False, "logs": False},
    }  # fmt: skip
    if be is not None:
        app_kwargs["routes"] += serving.routes(be)
        if be.cfg.judge_pages_ahead:  # every judge's page as bytes, drawn by a child at a low priority
            _judge_pages_ahead(be)
    demo.launch(
        app_kwargs=app_kwargs,
        prevent_thread_lock=True,
        head=f"<script>{VIEW_JS}</script><script>{JUDGE_JS}</script>",
        server_name=host,
        server_port=port,
        css=(_ASSETS / "style.css").read_text(encoding="utf-8"),
        js=(_ASSETS / "board.js").read_text(encoding="utf-8"),
        footer_links=["api"],
        show_error=True,
        run_history=False,  # Gradio 6 would copy every table it sends into the browser's localStorage
        # client-side rendering always: a Space may set GRADIO_SSR_MODE, and a page rendered by Gradio's
        # Node server would bypass the page's caching and its one stylesheet (first_visit.py)
        ssr_mode=False,
    )
    if demo.server_app is not None:
        _caches_first(demo.server_app)
    if block:
        demo.block_thread()


def _judge_pages_ahead(be: BoardService) -> None:
    """Every judge's page drawn in the background once the results are read, and again at each new
    results generation (only for a launched app: building one starts no process)."""

    def ahead() -> None:
        serving.judge_pages(be).prerender(be.judges())

    def first() -> None:  # after the first rows: the renderers' start-up must not delay a cold start
        be.report()
        serving.view_cache(be).warm()
        ahead()

    be.warmers.append(ahead)
    threading.Thread(target=first, name="dhp-judge-pages-ahead", daemon=True).start()


def _caches_first(app: Any) -> None:
    """The board's response caches in front of every layer Gradio adds (its brotli compression, which
    compressed each asset again on every request, and its CORS check): a first-time visitor's 80-odd
    requests for cached scripts and styles are answered by the outermost layer. Starlette builds its
    middleware stack at the first request (Gradio's own start-up check): it is rebuilt at the next."""
    ours = (serving.PageCache, serving.StaticCache, serving.SharedCache)
    mine = sorted((m for m in app.user_middleware if getattr(m, "cls", None) in ours),
                  key=lambda m: ours.index(m.cls))  # fmt: skip
    app.user_middleware = [*mine, *(m for m in app.user_middleware if getattr(m, "cls", None) not in ours)]
    app.middleware_stack = None


#: Space mode refuses local store folders (a Space restart loses them) unless this is ``1``.
ALLOW_LOCAL_ENV = "DHP_ALLOW_LOCAL_STORES"
_STORES = {"results": "DHP_RESULTS", "requests": "DHP_REQUESTS", "votes": "DHP_VOTES"}


class StoreConfigError(RuntimeError):
    """The stores named for a Space would lose data or expose it, or a variable is not a value it can
    take; the app does not start."""


#: Seconds between an open page's looks for new results, where the operator sets it.
REFRESH_ENV = "DHP_REFRESH_S"


def refresh_from_env(env: Mapping[str, str]) -> float:
    """``DHP_REFRESH_S`` (seconds, > 0) where set, else :attr:`AppConfig.refresh_s`."""
    try:
        return seconds_from_env(REFRESH_ENV, AppConfig.refresh_s, env)
    except StoreError as e:
        raise StoreConfigError(str(e)) from None


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
        refresh_s=refresh_from_env(env),
    )
    check_space_stores(cfg, allow_local=env.get(ALLOW_LOCAL_ENV) == "1")
    return cfg


def dump_threads_on_usr1() -> None:
    """``kill -USR1`` on this process writes every thread's stack to stderr, and the process goes on
    (without this, SIGUSR1's default action ends it): a stuck board can be looked into without a restart.

    The stacks are written by a Python-level handler, in the main thread with the GIL held, so no other
    thread's Python frames change while they are read. ``faulthandler.register``'s C-level handler reads
    them at any instant, unlocked: in a CI run under load the board died of SIGSEGV right after its dump,
    a thread inside pandas."""
    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, _dump_threads)


def _dump_threads(signum: int, frame: FrameType | None) -> None:
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)


def main() -> None:
    """The Space's app: stores from the environment, served on ``GRADIO_SERVER_NAME``. Stores it cannot
    open (a Hub it cannot reach, a public request store) end it with one line, not a traceback."""
    from dhp.inference.hub import hub_failure, hub_unusable_errors

    try:
        cfg = config_from_env()
    except StoreConfigError as e:
        sys.exit(f"dhp leaderboard: {e}")
    except hub_unusable_errors() as e:
        sys.exit(f"dhp leaderboard: {hub_failure('the stores', e)}")
    # SIGTERM (a Space or container stopping) ends it as an exit, so its temporary folders are removed
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    launch(build_app(cfg), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"))


if __name__ == "__main__":
    main()
