"""Judge pages served like the table: rendered once per result version, off the request path.

A judge page was a chain of Gradio events recomputed on every visit (1.7-1.9 s of server CPU for an
ordinary judge: its figures drawn by matplotlib, its per-dataset tables, the length tertiles'
statistics), and Gradio runs one event of a kind at a time, so ten readers of ten judges waited for
each other (issue 37). Here:

* ``GET /dhp/judge?name=NAME`` answers everything the judge page shows when it opens (the header, the
  Figure 4 bars, the per-dataset table, the dataset list, and the first dataset's part);
  ``GET /dhp/judge?name=NAME&dataset=D`` another dataset's part (its score distributions, the
  per-perturbation table, prompts, misses and length tertiles, the missed pairs of every perturbation
  with misses, the CSV of every miss). Each answer is JSON made once per version of the files behind
  it (``(path, version)`` of the judge's newest results), gzip-compressed once and kept as bytes.
* The rendering is done by child processes (``python -m dhp.leaderboard.page.judge_pages``, fed the
  files' texts through a pipe, :func:`dhp.leaderboard.board.rankjob.ask`): a page costs about 35 ms of
  CPU (its figures hand-written SVG, :mod:`dhp.leaderboard.page.judge_figures`; matplotlib took about
  1 s), which in a thread would still hold the GIL every other request needs. One child serves readers
  (a page asked for now); a second, at a lower CPU priority, renders every judge's page in the
  background once the results are read, so a reader usually finds the bytes ready, and takes a reader's
  page only when the first has been on one page for :data:`STUCK_S`. The route awaits the child's
  answer without holding a server thread.
* The browser fills the Judge tab's components itself (``assets/judge_view.js``): choosing a judge, a
  dataset or a perturbation sends no Gradio event.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gzip
import hashlib
import heapq
import itertools
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dhp.leaderboard.board.loading import LoadedResult
from dhp.leaderboard.board.rankjob import ChildDied, ask, end_child, serve_jobs, spawn_child
from dhp.scoring.result_files import parse_result
from dhp.scoring.results import Result

log = logging.getLogger(__name__)

__all__ = ["JUDGE_ROUTE", "JudgePages", "dataset_payload", "judge_payload"]

JUDGE_ROUTE = "/dhp/judge"

#: Readers first, then the background's pages (the judges, then their other datasets).
NOW, BACKGROUND = 0, 1
#: Seconds the readers' renderer may spend on one page before the background's renderer takes the next
#: reader's page (a page takes tens of ms of CPU: queued behind one another, ten readers' pages are done
#: sooner by the renderer at the server's priority than by the niced one).
STUCK_S = 1.0


# ---------------------------------------------------------------------------------------------------
# What a page shows, as the values the Judge tab's components draw (pure; runs in the child)
def _markdown(text: str) -> Any:
    import gradio as gr

    return gr.Markdown().postprocess(text)


def _table(frame: Any) -> Any:
    import gradio as gr

    return gr.Dataframe(interactive=False).postprocess(frame).model_dump()


def dataset_payload(full: Result, data: str | None, csv_dir: Path) -> dict[str, Any]:
    """One dataset's part of a judge page: ``full`` is the judge's complete result on it (item scores
    included); ``data`` where the scored texts are read (see :func:`judge_views.texts_for`)."""
    from dhp.leaderboard.page.formatting import perturbation_frame, prompts_markdown
    from dhp.leaderboard.page.judge_figures import distributions_svg
    from dhp.leaderboard.page.judge_views import (
        detail_markdown,
        miss_choices,
        misses_csv_path,
        misses_html,
        texts_for,
    )

    name, ds = full.judge.name, full.dataset.name
    choices = miss_choices(full)
    texts = texts_for(full, data)
    csv = misses_csv_path(full, texts, csv_dir)
    return {
        "dataset": ds,
        "dist": distributions_svg(
            full, f"{name} on {ds}: the share of each score, originals and perturbed texts"
        ),
        "perturbations": _table(perturbation_frame(full)),
        "prompts": _markdown(prompts_markdown(full)),
        "detail": _markdown(detail_markdown(full)),
        "choices": [list(c) for c in choices],
        # the missed pairs of every perturbation with misses (the picker shows them without a request)
        "misses": {pid: misses_html(full, pid, texts) for _, pid in choices},
        "no_misses": misses_html(full, None, texts),
        "csv": None if csv is None else _file_data(Path(csv).name),
    }


def _file_data(name: str) -> dict[str, Any]:
    """A CSV in the app's CSV folder as the value of a ``gr.File`` (served by ``serving.CSV_ROUTE``)."""
    return {"path": name, "url": f"dhp/csv/{name}", "orig_name": name, "mime_type": "text/csv",
            "is_stream": False, "meta": {"_type": "gradio.FileData"}}  # fmt: skip


def judge_payload(name: str, fulls: Sequence[Result], data: str | None, csv_dir: Path) -> dict[str, Any]:
    """A judge page as it opens: ``fulls`` are the judge's newest results (benchmark order, item scores
    included); the first dataset's part comes with it."""
    from dhp.leaderboard.page.formatting import judge_header, summary_frame
    from dhp.leaderboard.page.judge_figures import discernment_svg
    from dhp.leaderboard.page.private_view import private_block

    results = [r for r in fulls if not r.dataset.private]  # a private split's: aggregates only, in its block
    alt = f"{name}: D and D^EW per perturbation on {len(results)} dataset(s), with their intervals and D = 1"
    return {
        "name": name,
        "info": judge_header(results) + private_block(results, [r for r in fulls if r.dataset.private]),
        "bars": discernment_svg(results, f"{name}: D and D^EW per perturbation", alt) if results else "",
        "summary": _table(summary_frame(results)),
        "has_results": bool(results),
        "datasets": [r.dataset.name for r in results],
        "first": dataset_payload(results[0], data, csv_dir) if results else None,
    }


def _json(x: Any) -> bytes:
    def default(o: Any) -> Any:
        item = getattr(o, "item", None)  # numpy scalars
        if callable(item):
            return item()
        raise TypeError(f"{type(o).__name__} is not JSON")

    return json.dumps(x, default=default, ensure_ascii=False, allow_nan=False).encode("utf-8")


# A job: ("judge", name, [(path, text)], data, csv_dir) or ("dataset", name, [(path, text)], data, csv_dir)
_Job = tuple[str, str, list[tuple[str, str]], str | None, str]


def render(job: _Job) -> bytes:
    """A job's answer as JSON bytes (what the child does with each job it is sent)."""
    kind, name, texts, data, csv_dir = job
    fulls = [parse_result(text, source=path) for path, text in texts]
    if kind == "judge":
        return _json(judge_payload(name, fulls, data, Path(csv_dir)))
    return _json(dataset_payload(fulls[0], data, Path(csv_dir)))


class _Renderer:
    """A renderer process (``nice``: its CPU priority below the server's)."""

    def __init__(self, nice: int) -> None:
        self.proc = spawn_child("dhp.leaderboard.page.judge_pages", nice)

    def render(self, job: _Job) -> bytes:
        return ask(self.proc, job)  # type: ignore[no-any-return]

    def stop(self) -> None:
        """Stop the process now (its reader sees the pipe end)."""
        with contextlib.suppress(OSError):
            self.proc.kill()

    def close(self) -> None:
        end_child(self.proc)


class Body:
    """An answer as sent: gzip-compressed once (kept only so: 500 judges' pages), and its ETag."""

    def __init__(self, raw: bytes) -> None:
        self.gz = gzip.compress(raw, compresslevel=6, mtime=0)
        self.etag = '"' + hashlib.sha1(raw).hexdigest()[:20] + '"'

    @property
    def raw(self) -> bytes:
        return gzip.decompress(self.gz)


_Key = tuple[str, str | None, tuple[tuple[str, str], ...], str | None]  # name, dataset, files, data


@dataclass(order=True)
class _Task:
    priority: int
    seq: int
    key: _Key = field(compare=False)
    files: tuple[tuple[str, str], ...] = field(compare=False)
    future: concurrent.futures.Future[Body] | None = field(compare=False)


def _waiting(fut: concurrent.futures.Future[Body] | None) -> bool:
    return fut is not None and not fut.running() and not fut.done()


class JudgePages:
    """Judge pages as bytes, kept per version of their files, drawn by child processes. Thread-safe.

    ``judge_results``: name -> the judge's newest results (benchmark order); ``read``: path -> bytes.
    """

    def __init__(
        self,
        judge_results: Callable[[str], list[LoadedResult]],
        read: Callable[[str], bytes],
        data: str | None,
        csv_dir: Path,
        *,
        size: int = 2048,
        nice: tuple[int, ...] = (0, 10),
    ) -> None:
        self._results = judge_results
        self._read = read
        self.data = data
        self.csv_dir = csv_dir
        self.size = size
        self._nice = nice
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._bodies: OrderedDict[_Key, Body] = OrderedDict()
        self._pending: dict[_Key, concurrent.futures.Future[Body]] = {}
        self._heap: list[_Task] = []
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._readers_since: float | None = None  # when the readers' renderer took its page (None: idle)
        self._children: list[_Renderer] = []  # the renderers' processes now, for close()
        self.rendered = 0  # pages drawn (a test counts them)

    # -- what the route asks -------------------------------------------------------------------
    def _key(self, name: str, dataset: str | None) -> tuple[_Key, tuple[tuple[str, str], ...]] | None:
        """The page's key and files, or None when the judge has no result (on that dataset)."""
        lrs = self._results(name)
        if dataset is not None:
            lrs = [x for x in lrs if x.result.dataset.name == dataset and not x.result.dataset.private]
            if not lrs:
                return None
        files = tuple((x.path, x.version) for x in lrs)
        return (name, dataset, files, self.data), files

    def get(
        self, name: str, dataset: str | None = None, priority: int = NOW
    ) -> concurrent.futures.Future[Body]:
        """The page of judge ``name`` (``dataset``: that dataset's part) as a future of its bytes: done
        at once when it was drawn before, else drawn by a child ahead of the background's pages."""
        found = self._key(name, dataset)
        if found is None or not found[1]:
            fut: concurrent.futures.Future[Body] = concurrent.futures.Future()
            empty: dict[str, Any] = {"name": name, "info": "<p>No results for this judge yet.</p>", "bars": "",
                     "summary": None, "has_results": False, "datasets": [], "first": None}  # fmt: skip
            fut.set_result(Body(_json(empty if dataset is None else {"dataset": dataset, "missing": True})))
            return fut
        key, files = found
        with self._lock:
            body = self._bodies.get(key)
            if body is not None:
                self._bodies.move_to_end(key)
                fut = concurrent.futures.Future()
                fut.set_result(body)
                return fut
            fut = self._pending.get(key) or concurrent.futures.Future()
            if key not in self._pending or priority == NOW:  # a reader's ask overtakes the background
                self._pending[key] = fut
                heapq.heappush(self._heap, _Task(priority, next(self._seq), key, files, fut))
                self._start()
                self._wake.notify_all()
            return fut

    def prerender(self, names: Sequence[str]) -> None:
        """Every judge's page (as it opens) drawn in the background, in this order, where not drawn yet."""
        for name in names:
            self.get(name, priority=BACKGROUND)

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def close(self) -> None:
        """End the renderers: their children are stopped at once, a page half drawn included (no
        process outlives its app)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
            children = list(self._children)
        for child in children:
            child.stop()

    # -- the renderers -------------------------------------------------------------------------
    def _start(self) -> None:
        """One thread (and child) per ``nice`` level; the first serves readers only (locked)."""
        if self._threads:
            return
        for i, nice in enumerate(self._nice):
            t = threading.Thread(
                target=self._run, args=(nice, i == 0), name=f"dhp-judge-pages-{i}", daemon=True
            )
            self._threads.append(t)
            t.start()

    def _take(self, readers_only: bool) -> _Task | None:
        """The next task for a renderer. A reader's page goes to the readers' renderer (the one at the
        server's CPU priority); the background's one (niced: on a busy machine it gets a tenth of the CPU
        the other does, and the readers' pages it took were the slowest) takes one only when the readers'
        renderer has been on one page for :data:`STUCK_S`: a page slow to draw holds up no other for long."""
        with self._lock:
            while not self._closed:
                while self._heap and not _waiting(self._heap[0].future):
                    heapq.heappop(self._heap)  # taken or answered by an earlier copy of the task
                top = self._heap[0].priority if self._heap else None
                stuck_in = self._stuck_in()
                mine = top is not None and (top == NOW if readers_only else top != NOW or stuck_in <= 0)
                if mine:
                    task = heapq.heappop(self._heap)
                    if task.future is not None and task.future.set_running_or_notify_cancel():
                        if readers_only:
                            self._readers_since = time.monotonic()
                        return task
                    continue
                if readers_only:
                    self._readers_since = None
                    self._wake.wait()
                else:  # a reader's page waiting: looked at again when the readers' renderer counts as stuck
                    self._wake.wait(stuck_in if top == NOW and math.isfinite(stuck_in) else None)
            return None

    def _stuck_in(self) -> float:
        """Seconds until the readers' renderer counts as stuck on its page (<= 0: it does; inf: it is idle,
        and takes the next reader's page itself). Locked."""
        if self._readers_since is None:
            return math.inf
        return STUCK_S - (time.monotonic() - self._readers_since)

    def _run(self, nice: int, readers_only: bool) -> None:
        held: list[_Renderer] = [self._spawn(nice)]  # started at once: the first reader finds it ready
        try:
            self._serve_tasks(held, nice, readers_only)
        finally:
            for child in held:
                child.close()

    def _spawn(self, nice: int) -> _Renderer:
        child = _Renderer(nice)
        with self._lock:
            self._children = [c for c in self._children if c.proc.poll() is None] + [child]
            closed = self._closed
        if closed:  # closed while it started
            child.stop()
        return child

    def _serve_tasks(self, held: list[_Renderer], nice: int, readers_only: bool) -> None:
        """Tasks rendered by the child in ``held`` (one that died is replaced at the next task)."""
        while (task := self._take(readers_only)) is not None:
            assert task.future is not None
            name, dataset, _, data = task.key
            try:
                texts = [(p, self._read(p).decode("utf-8")) for p, _ in task.files]
                if not held:
                    held.append(self._spawn(nice))
                raw = held[0].render(
                    ("judge" if dataset is None else "dataset", name, texts, data, str(self.csv_dir))
                )
                body = Body(raw)
            except ChildDied as e:
                held.pop().close()
                self._finish(task, None, str(e))
                continue
            except Exception as e:  # a file gone or changed: the page says so, and is drawn again next time
                self._finish(task, None, f"{type(e).__name__}: {e}")
                continue
            self._finish(task, body, None)

    def _finish(self, task: _Task, body: Body | None, why: str | None) -> None:
        assert task.future is not None
        with self._lock:
            self._pending.pop(task.key, None)
            if body is not None:
                self.rendered += 1
                self._bodies[task.key] = body
                while len(self._bodies) > self.size:
                    self._bodies.popitem(last=False)
        if body is None:
            if not self._closed:  # a render cut short by the app's own closing is no failure to report
                log.warning("judge page %r: %s", task.key[0], why)
            failed = {"name": task.key[0], "error": f"This page could not be drawn: {why}"}
            body = Body(_json(failed))
        task.future.set_result(body)


if __name__ == "__main__":  # a renderer: any failure of a page (a file changed since its listing, a figure
    serve_jobs(render, (Exception,))  # that cannot be drawn) is that page's error line, the child serves on
