"""A first visit in fewer requests: the page's stylesheets as one file, its scripts announced at once.

Gradio's front end is a Vite build: ES modules and stylesheets with content-hashed names under
``/assets/``. The page loads a component's module when the page has that component, and Vite's loader
(``__vitePreload``) first adds a ``<link rel=stylesheet>`` for each stylesheet the module needs: 34
stylesheets for this board, each a request, found one module after another. The loader adds no link
for a file the document already links (it looks the ``<link>`` elements up by address). So the page
the board serves (:class:`~dhp.leaderboard.page.serving.PageCache`) links, in place of Gradio's own
stylesheet at the end of its head, one stylesheet made of Gradio's and those files
(:class:`PageBundle`, served immutable and compressed once by
:class:`~dhp.leaderboard.page.serving.StaticCache`), and each original stylesheet as a ``disabled``
link, which a browser does not fetch (HTML: "if el's disabled attribute is set, return false") but the
loader finds. The board's own style, which the browser adds later, still comes after them; Gradio's
theme (fonts and variables on ``:root`` only) now comes after the components' styles rather than
between them: the computed style of every element of the board page is the same as before. The
page's scripts are announced in its head (``<link rel=modulepreload>``, what the loader adds itself
one import level at a time): a browser asks for them all at once with the page's own script.

Which files a page loads follows from Gradio's build: the entry module's imports (the app, its
``Blocks`` and the component table), then, from the component table, the ``component`` module of each
component type the page shows (a type whose every instance is hidden is not loaded). Each import names
its files in the module's ``__vite__mapDeps`` list. A build of another shape (another Gradio) finds no
files: the page is then served as Gradio made it.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

__all__ = ["BUNDLE_PREFIX", "PageBundle", "frontend_dir", "page_bundle", "page_files", "page_types"]

#: The bundle's name: ``assets/dhp-styles-<sha1 of its bytes, 16 hex>.css``.
BUNDLE_PREFIX = "dhp-styles-"
#: ``m.f||(m.f=[...])``: a module's list of the files its imports need.
_DEPS = re.compile(r"m\.f\|\|\(m\.f=\[([^\]]*)\]\)")
#: One import and the indices (into that list) of the files it needs.
_CALL = re.compile(r"import\(`\./([^`]+)`\)[^_]{0,80}?__vite__mapDeps\(\[([\d,]*)\]\)")
#: The component table: ``{accordion:{component:()=>v(()=>import(`./Index-x.js`),...),...},...}``.
_TABLE = "={accordion:{"
_TYPE = re.compile(r"([A-Za-z0-9_]+):\{(.*?)\}(?=,[A-Za-z0-9_]+:\{|$)")
_COMPONENT = re.compile(
    r"component:\(\)=>[\w$]+\(\(\)=>import\(`\./([^`]+)`\).{0,40}?__vite__mapDeps\(\[([\d,]*)\]\)"
)
#: The page template's entry script and stylesheet.
_ENTRY_JS = re.compile(r'<script type="module" crossorigin src="\./assets/([\w.-]+\.js)"')
_ENTRY_CSS = re.compile(r'<link rel="stylesheet" crossorigin href="\./assets/([\w.-]+\.css)"')


def frontend_dir() -> Path:
    """Gradio's built front end (``index.html`` and ``assets/``)."""
    import gradio

    return Path(gradio.__file__).resolve().parent / "templates" / "frontend"


class _Module:
    """One built module: its imports, each with the files it needs (``./`` taken off)."""

    def __init__(self, path: Path) -> None:
        self.src = path.read_text(encoding="utf-8") if path.is_file() else ""
        m = _DEPS.search(self.src)
        self.deps = [x.strip("\"'`").removeprefix("./") for x in m.group(1).split(",")] if m else []
        self.calls = [(target, self._files(idx)) for target, idx in _CALL.findall(self.src)]

    def _files(self, idx: str) -> list[str]:
        out = []
        for i in idx.split(","):
            if i and int(i) < len(self.deps):
                out.append(self.deps[int(i)])
        return out

    def components(self) -> dict[str, list[str]]:
        """The component table (type -> the files of its ``component`` module); empty where none."""
        start = self.src.find(_TABLE)
        if start < 0:
            return {}
        depth, end = 0, start + 1
        for end in range(start + 1, len(self.src)):
            depth += {"{": 1, "}": -1}.get(self.src[end], 0)
            if depth == 0:
                break
        out = {}
        for name, body in _TYPE.findall(self.src[start + 2 : end]):
            m = _COMPONENT.search(body)
            if m:
                out[name] = self._files(m.group(2))
        return out


def page_types(config: Mapping[str, Any]) -> list[str]:
    """The component types a page of this Gradio config shows (some instance not hidden), in order."""
    types: dict[str, None] = {}
    for c in config.get("components", []):
        if c.get("props", {}).get("visible", True) is not False:
            types.setdefault(str(c.get("type")), None)
    return list(types)


def page_files(frontend: Path, types: Iterable[str]) -> tuple[str, str, list[str]] | None:
    """The entry script, the entry stylesheet (linked by the page) and the other files (scripts and
    stylesheets, in the order the page asks for them) that a page of these component types loads;
    ``None`` for a build of another shape (no entry, no ``Blocks``, no component table)."""
    page = frontend / "index.html"
    index = page.read_text(encoding="utf-8") if page.is_file() else ""
    js, css = _ENTRY_JS.search(index), _ENTRY_CSS.search(index)
    if js is None or css is None:
        return None
    assets = frontend / "assets"
    files: dict[str, None] = {}
    blocks, table = False, dict[str, list[str]]()
    for target, deps in _Module(assets / js[1]).calls:
        files.update(dict.fromkeys(deps))
        mod = _Module(assets / target)
        for inner, inner_deps in mod.calls:
            if inner.startswith("Blocks-"):  # the page's body ("Login-": the login page, with auth only)
                blocks = True
                files.update(dict.fromkeys(inner_deps))
        table = table or mod.components()
    if not blocks or not table:
        return None
    for t in types:
        files.update(dict.fromkeys(table.get(t, [])))
    files.pop(js[1], None)
    return js[1], css[1], [f for f in files if (assets / f).is_file()]


class PageBundle:
    """The page's stylesheets as one file (each prefixed with a comment naming it), and the HTML that
    links it, marks each original linked (``disabled``: not fetched) and announces the scripts."""

    def __init__(self, assets: Path, first: str, files: list[str]) -> None:
        #: the page's own stylesheet (``first``, linked by Gradio's page: the bundle takes its place), then
        #: the modules' stylesheets in the order their loader would have linked them
        self.styles = [first, *(f for f in files if f.endswith(".css") and f != first)]
        self.first = first
        self.scripts = [f for f in files if f.endswith(".js")]
        parts = [f"/* {f} */\n{(assets / f).read_text(encoding='utf-8')}\n" for f in self.styles]
        self.body = "".join(parts).encode("utf-8")
        self.name = BUNDLE_PREFIX + hashlib.sha1(self.body).hexdigest()[:16] + ".css"

    def head_html(self) -> str:
        """The links put in place of Gradio's stylesheet link, at the end of the page's head: where the
        loader's first links went (the theme and the board's style are added after them, in the
        browser, and still come last)."""
        links = [f'<link rel="stylesheet" href="./assets/{self.name}">']
        links += [f'<link rel="stylesheet" href="./assets/{html.escape(f)}" disabled>' for f in self.styles]
        links += [
            f'<link rel="modulepreload" crossorigin href="./assets/{html.escape(f)}">' for f in self.scripts
        ]
        return "".join(links)

    def inject(self, page: bytes) -> bytes:
        """Gradio's page with the bundle's links in place of its stylesheet's (unchanged where it does
        not link that stylesheet as Gradio's template does)."""
        tag = f'<link rel="stylesheet" crossorigin href="./assets/{self.first}">'.encode()
        at = page.find(tag)
        return page if at < 0 else page[:at] + self.head_html().encode("utf-8") + page[at + len(tag) :]

    def route(self) -> Route:
        """``GET /assets/dhp-styles-<hash>.css`` (behind :class:`StaticCache`: immutable, compressed once)."""

        def styles(request: Request) -> Response:
            return Response(self.body, media_type="text/css")

        return Route("/assets/" + self.name, styles, methods=["GET"])


def page_bundle(config: Mapping[str, Any], frontend: Path | None = None) -> PageBundle | None:
    """The bundle of a page of this Gradio config; ``None`` where Gradio's build is not recognised."""
    where = frontend or frontend_dir()
    found = page_files(where, page_types(config))
    if found is None:
        return None
    return PageBundle(where / "assets", found[1], found[2])
