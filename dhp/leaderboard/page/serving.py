"""Serving the board to a crowd: what a reader's page asks for, computed once and sent as bytes.

A Gradio event costs the server 15-20 ms whatever its handler does (a session of 126 components
set up per visitor, updates rebuilt), and ``GET /`` 11 ms (its 130 kB config copied and rewritten
per request); one Python process serves readers one after another. So the board's own traffic
bypasses Gradio's event machinery (docs/leaderboard.md, "Load"):

* ``GET /dhp/view?v=[...]`` answers a view of the table (the page's eight view inputs as JSON; no
  ``v``: the default view) with the payload the table component draws, the CSV's file and the
  user-task section: JSON rendered once per board version and view, gzip-compressed once, with an
  ETag. The page's filters call it from the browser (``assets/board_view.js``), never a Gradio event.
  While the first scan of the results runs it answers ``{"loading": true, "status": ...}`` at once.
* ``GET /dhp/csv/NAME`` serves the CSV of a view (files named by their content).
* :class:`PageCache` answers ``GET /`` from the bytes Gradio rendered for the same origin (the page
  depends on nothing else), compressed once, with its stylesheets linked as one file
  (:mod:`dhp.leaderboard.page.first_visit`: a first visit is 54 requests, 88 before).
* :class:`StaticCache` marks Gradio's fingerprinted assets immutable and sends each compressed once
  (Gradio compresses every asset on every request, without Cache-Control).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import math
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dhp.leaderboard.board import table
from dhp.leaderboard.page import ui
from dhp.leaderboard.page.formatting import problems_markdown
from dhp.leaderboard.page.judge_pages import JUDGE_ROUTE, JudgePages
from dhp.leaderboard.page.service import DEFAULT_WEIGHTS, BoardService
from dhp.spec import DATASET_NAMES

__all__ = [
    "CSV_ROUTE",
    "VIEW_ROUTE",
    "PageCache",
    "SharedCache",
    "StaticCache",
    "ViewCache",
    "default_inputs",
    "judge_pages",
    "routes",
    "view_body",
    "view_cache",
]

VIEW_ROUTE = "/dhp/view"
CSV_ROUTE = "/dhp/csv"
_CSV_NAME = re.compile(
    r"dhp-leaderboard-[0-9a-f]{16}\.csv|dhp-misses-[A-Za-z0-9._-]{1,160}-[0-9a-f]{12}\.csv"
)
_MAX_VIEW_ARG = 8000  # characters of the view argument: eight short inputs


def default_inputs(be: BoardService) -> list[Any]:
    """The eight view inputs of a fresh page (every dataset, family and size; the default columns)."""
    return [DEFAULT_WEIGHTS, True, list(DATASET_NAMES), be.families(), list(table.SIZE_BUCKETS),
            list(ui.COL_DEFAULT), "", ""]  # fmt: skip


def _strs(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(v, str) for v in x)


def parse_inputs(text: str) -> list[Any]:
    """The view inputs a page sent (JSON), checked; :class:`ValueError` when they are not eight
    values of the inputs' types."""
    if len(text) > _MAX_VIEW_ARG:
        raise ValueError("view argument too long")
    v = json.loads(text)
    if not isinstance(v, list) or len(v) != 8:
        raise ValueError("a view is eight inputs")
    w, ew, ds, fam, sz, cols, q, sort = v
    ok = (isinstance(w, str) and isinstance(ew, bool) and all(map(_strs, (ds, fam, sz, cols)))
          and isinstance(q, str) and isinstance(sort, str))  # fmt: skip
    if not ok:
        raise ValueError("a view input has the wrong type")
    return v


def page_data(be: BoardService) -> dict[str, Any]:
    """What a fresh page needs besides its table (sent with the default view; the page applies it
    in the browser, ``window.dhpPage``): the families, judges, problems and weights versions."""
    rep = be.report()
    return {
        "families": be.families(),
        "judges": be.judges(),
        "problems": problems_markdown(rep.problems),
        "weights": [list(c) for c in be.weights_choices()],
        "survey": be.survey_status(),
    }


def view_body(be: BoardService, inputs: list[Any] | None, asked: list[Any] | None = None) -> dict[str, Any]:
    """What ``GET /dhp/view`` answers for the view ``inputs`` (``None``: the default view, with the
    page's lists: :func:`page_data`)."""
    if be.ready() is None:
        return {"loading": True, "status": be.status(), "version": 0}
    view = default_inputs(be) if inputs is None else inputs
    payload, csv_path, tasks = ui.render_board(be, *view, asked=asked)
    name = Path(csv_path).name
    csv = {"path": name, "url": f"dhp/csv/{name}", "orig_name": name, "mime_type": "text/csv",
           "is_stream": False, "meta": {"_type": "gradio.FileData"}}  # fmt: skip
    out = {"loading": False, "status": be.status(), "version": be.board_version(), "board": payload,
           "csv": csv, "tasks": tasks}  # fmt: skip
    if inputs is None:
        out["page"] = page_data(be)
    return out


class _Body:
    """A response body as sent: raw, gzip-compressed once, and its ETag."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.gz = gzip.compress(raw, compresslevel=6, mtime=0)
        self.etag = '"' + hashlib.sha1(raw).hexdigest()[:20] + '"'

    def response(self, request: Request, media_type: str, cache: str) -> Response:
        headers = {"ETag": self.etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == self.etag:
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(self.gz, media_type=media_type, headers=headers)
        return Response(self.raw, media_type=media_type, headers=headers)


class ViewCache:
    """The last views answered, as bytes, per board version (the results generation and whether
    their rank ranges are in): a crowd asking for the same views costs one render each."""

    def __init__(self, be: BoardService, size: int = 64) -> None:
        self.be = be
        self.size = size
        self._lock = threading.Lock()
        self._bodies: OrderedDict[tuple[int, str, int], _Body] = OrderedDict()
        self._survey_n, self._survey_at = 0, -math.inf

    def _survey_key(self) -> int:
        """The survey's ballot count (the weights versions one may choose), read at most every
        ``cfg.list_ttl_s`` seconds: a crowd's page loads do not each list the votes store."""
        now = time.monotonic()
        with self._lock:
            if now - self._survey_at < self.be.cfg.list_ttl_s:
                return self._survey_n
        n = self.be.survey_state()[0].n_ballots
        with self._lock:
            self._survey_n, self._survey_at = n, now
        return n

    def warm(self) -> None:
        """The default view rendered now (a warm-up: the first reader finds it ready)."""
        self.get(None)

    def get(self, arg: str | None, asked: str | None = None) -> _Body:
        """The view of the page inputs ``arg`` (JSON; ``None``: the default view with the page's
        lists). ``asked``: the inputs as the reader left them, when ``arg`` adds families that
        appeared since (the page keeps its place in the table)."""
        inputs = None if arg is None else parse_inputs(arg)
        named = None if asked is None else parse_inputs(asked)
        key = (self.be.board_version(), json.dumps([inputs, named]), self._survey_key())
        with self._lock:
            hit = self._bodies.get(key)
            if hit is not None:
                self._bodies.move_to_end(key)
                return hit
        body = _Body(json.dumps(view_body(self.be, inputs, named)).encode("utf-8"))
        if key[0] == 0:  # still loading: its status changes by the second, never cached
            return body
        with self._lock:
            self._bodies[key] = body
            while len(self._bodies) > self.size:
                self._bodies.popitem(last=False)
        return body


_VIEW_CACHES: weakref.WeakKeyDictionary[BoardService, ViewCache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def view_cache(be: BoardService) -> ViewCache:
    """The one :class:`ViewCache` of ``be`` (its routes answer from it; its warm-up fills it)."""
    with _CACHES_LOCK:
        cache = _VIEW_CACHES.get(be)
        if cache is None:
            cache = _VIEW_CACHES[be] = ViewCache(be)
        return cache


def routes(be: BoardService) -> list[BaseRoute]:
    """The board's own routes (served before Gradio's)."""
    views = view_cache(be)

    def view(request: Request) -> Response:
        q = request.query_params
        if q.get("fresh") == "1":  # the Refresh button: the store listed now (at most once a second)
            be.report(max_age_s=1.0)
        elif be.ready() is not None:  # a listing older than cfg.list_ttl_s is redone in the background
            be.report()
        try:
            body = views.get(q.get("v"), q.get("a"))
        except ValueError as e:  # json.JSONDecodeError is one
            return Response(f"bad view: {e}", status_code=400, media_type="text/plain")
        return body.response(request, "application/json", "no-cache")

    def csv(request: Request) -> Response:
        name = request.path_params["name"]
        path = be.cfg.csv_dir / name
        if not _CSV_NAME.fullmatch(name) or not path.is_file():
            return Response("no such CSV", status_code=404, media_type="text/plain")
        return FileResponse(path, media_type="text/csv", filename=name,
                            headers={"Cache-Control": "public, max-age=86400, immutable"})  # fmt: skip

    return [Route(VIEW_ROUTE, view, methods=["GET"]), Route(CSV_ROUTE + "/{name}", csv, methods=["GET"]),
            Route(JUDGE_ROUTE, _judge_endpoint(be), methods=["GET"])]  # fmt: skip


def _judge_endpoint(be: BoardService) -> Callable[[Request], Awaitable[Response]]:
    pages = judge_pages(be)

    async def judge(request: Request) -> Response:
        """A judge page (``name``; ``dataset``: that dataset's part) as bytes; a page not drawn yet is
        awaited from its renderer without holding a server thread."""
        q = request.query_params
        name = q.get("name", "")
        if not name or len(name) > 500 or len(q.get("dataset", "")) > 500:
            return Response("bad judge page: name one judge", status_code=400, media_type="text/plain")
        if be.ready() is None:  # the first scan of the results is under way: asked again in a second
            return Response(json.dumps({"loading": True, "status": be.status()}), media_type="application/json",
                            headers={"Cache-Control": "no-store"})  # fmt: skip
        page = await asyncio.wrap_future(pages.get(name, q.get("dataset") or None))
        headers = {"ETag": page.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == page.etag:
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(
                page.gz, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"}
            )
        return Response(page.raw, media_type="application/json", headers=headers)

    return judge


_JUDGE_PAGES: weakref.WeakKeyDictionary[BoardService, JudgePages] = weakref.WeakKeyDictionary()


def judge_pages(be: BoardService) -> JudgePages:
    """The one :class:`JudgePages` of ``be`` (the judge route answers from it; the warm-up fills it)."""
    with _CACHES_LOCK:
        pages = _JUDGE_PAGES.get(be)
        if pages is None:
            pages = _JUDGE_PAGES[be] = JudgePages(be.judge_page_results, be.cfg.results.read, be.cfg.data,
                                                  be.cfg.csv_dir)  # fmt: skip
        return pages


# ---------------------------------------------------------------------------------------------------
# ASGI middleware: Gradio's page and assets, each rendered and compressed once
class _Captured:
    """A complete response captured from the app below (status, headers, body)."""

    def __init__(self) -> None:
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []
        self.streamed = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            self.chunks.append(message.get("body", b""))


def _header(scope: Scope, name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == name), "")


async def _send_body(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


#: Responses not worth compressing (already compressed formats).
_COMPRESSED = (".woff2", ".woff", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".gz", ".br", ".zip")


class _CachedResponse:
    """A response kept as bytes: raw, gzip and (made once at the highest quality) brotli, which
    browsers ask for: a first visit's 50-odd scripts and styles are the bytes a visitor waits for."""

    def __init__(
        self,
        cap: _Captured,
        extra: list[tuple[bytes, bytes]],
        path: str,
        edit: Callable[[bytes], bytes] | None = None,
    ) -> None:
        raw = b"".join(cap.chunks)
        if edit is not None:
            raw = edit(raw)
        drop = {b"content-length", b"content-encoding", b"etag", b"cache-control", b"vary"}
        self.headers = [(k, v) for k, v in cap.headers if k.lower() not in drop] + extra
        self.body = _Body(raw)
        self.compress = not path.lower().endswith(_COMPRESSED) and len(raw) > 256
        self.br: bytes | None = None
        if self.compress:
            import brotli  # gradio's own dependency

            self.br = brotli.compress(raw, quality=11)

    async def send(self, scope: Scope, send: Send) -> None:
        b = self.body
        headers = [*self.headers, (b"etag", b.etag.encode()), (b"vary", b"Accept-Encoding")]
        if _header(scope, b"if-none-match") == b.etag:
            await _send_body(send, 304, headers, b"")
            return
        data = b.raw
        accept = _header(scope, b"accept-encoding")
        if self.compress and self.br is not None and "br" in accept:
            data = self.br
            headers.append((b"content-encoding", b"br"))
        elif self.compress and "gzip" in accept:
            data = b.gz
            headers.append((b"content-encoding", b"gzip"))
        await _send_body(send, 200, [*headers, (b"content-length", str(len(data)).encode())], data)


class _ResponseCache:
    """Caches complete 200 responses of the app below by a key of the request (``None``: not cached)."""

    def __init__(
        self,
        app: ASGIApp,
        key: Callable[[Scope], Any],
        extra: list[tuple[bytes, bytes]],
        size: int = 512,
        edit: Callable[[bytes], bytes] | None = None,
    ) -> None:
        self.app = app
        self.key = key
        self.extra = extra
        self.size = size
        self.edit = edit  # applied to a body once, when it is cached
        self._cache: MutableMapping[Any, _CachedResponse] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = self.key(scope) if scope["type"] == "http" and scope.get("method") == "GET" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        hit = self._cache.get(key)
        if hit is None:
            cap = _Captured()
            # asked for uncompressed (these caches may sit outside Gradio's compression: launch)
            plain = {
                **scope,
                "headers": [(k, v) for k, v in scope.get("headers", []) if k != b"accept-encoding"],
            }
            await self.app(plain, receive, cap.send)
            cacheable = cap.status == 200 and not any(k.lower() == b"set-cookie" for k, _ in cap.headers)
            if not cacheable:  # sent as it came
                await _send_body(send, cap.status, cap.headers, b"".join(cap.chunks))
                return
            hit = _CachedResponse(cap, self.extra, str(scope.get("path", "")), self.edit)
            self._cache[key] = hit
            while len(self._cache) > self.size:
                self._cache.pop(next(iter(self._cache)))
        await hit.send(scope, send)


class PageCache(_ResponseCache):
    """``GET /``: Gradio renders the page from its fixed config and the request's origin (the root
    URL it writes into the config, from the Host and ``X-Forwarded-*`` headers); nothing else of the
    request reaches it unless it has a ``page`` or ``deep_link`` parameter or a login cookie (those
    are passed through, uncached). The page is rendered once per origin; the browser revalidates it
    (``no-cache`` with an ETag). ``edit``: applied to the page once, when it is rendered (the first
    visit's bundle: :meth:`dhp.leaderboard.page.first_visit.PageBundle.inject`)."""

    def __init__(self, app: ASGIApp, edit: Callable[[bytes], bytes] | None = None) -> None:
        super().__init__(app, self._key, [(b"cache-control", b"no-cache")], size=64, edit=edit)

    @staticmethod
    def _key(scope: Scope) -> Any:
        if scope.get("path") != "/":
            return None
        qs = scope.get("query_string", b"")
        if b"deep_link" in qs or b"page=" in qs or b"access-token" in _header(scope, b"cookie").encode():
            return None
        headers = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port")
        return (scope.get("scheme"), scope.get("root_path", ""), *(_header(scope, h) for h in headers))


class StaticCache(_ResponseCache):
    """Gradio's front-end assets (``/assets/``, file names fingerprinted by their content; the theme's
    CSS, versioned by a hash in its query): immutable for the browser, compressed once here."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, self._key, [(b"cache-control", b"public, max-age=31536000, immutable")])

    @staticmethod
    def _key(scope: Scope) -> Any:
        path = str(scope.get("path", ""))
        if path.startswith("/assets/") or (path == "/theme.css" and scope.get("query_string")):
            return (path, scope.get("query_string", b""))
        return None


class SharedCache(_ResponseCache):
    """Gradio's fonts and scripts under ``/static/`` (not fingerprinted: they change with Gradio's
    version): kept a day by the browser, compressed once here."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, self._key, [(b"cache-control", b"public, max-age=86400")])

    @staticmethod
    def _key(scope: Scope) -> Any:
        path = str(scope.get("path", ""))
        return (path,) if path.startswith("/static/") else None
