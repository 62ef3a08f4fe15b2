"""Reading the results store: every ``*.json`` parsed with the pure ``parse_result``.

A bad file (invalid JSON, wrong schema) is reported with its reason and skipped, never raised.
Parsed results are cached by the store's version token, so a page load only re-reads files that
changed; the cache keeps results without their item scores (the judge page re-reads a file in full
when it needs the score distributions). The p-values of the joint bootstrap behind the rank ranges
(:mod:`dhp.leaderboard.board.ranks`) are not computed here: a file whose tests are exact costs seconds of
them, and the rows must not wait; :class:`dhp.leaderboard.board.rankjob.RankJob` computes them in the
background, once per file version. ``load(max_age_s=...)`` may reuse a listing that recent, so a
burst of page loads lists a (remote) store once; :meth:`ResultsIndex.progress` tells how far a
listing's reads are, for the page's indicator during the first (cold) scan.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from dhp.leaderboard.board.ranks import ReplicatePvalues, replicate_pvalues
from dhp.leaderboard.board.stores import Store
from dhp.scoring.result_files import parse_result
from dhp.scoring.results import DEFAULT_PROMPT_SET, Result, ResultError

log = logging.getLogger(__name__)

__all__ = [
    "LoadReport",
    "LoadedResult",
    "ResultsIndex",
    "benchmark_setting",
    "latest_results",
    "parse_many",
]


@dataclass(frozen=True)
class LoadedResult:
    path: str  # relative to the results store
    result: Result  # without item scores (``scores=None``)
    replicates: ReplicatePvalues | None = (
        None  # joint-bootstrap p-values (None: not computed, or no item scores)
    )
    version: str = ""  # the store's version token of the file read (its blob id, or size and mtime)


@dataclass(frozen=True)
class LoadReport:
    results: tuple[LoadedResult, ...]
    problems: tuple[str, ...]  # one line per skipped file
    generation: int  # changes whenever the set of results changes


def parse_many(
    texts: Iterable[tuple[str, str]], *, replicates: bool = False
) -> tuple[list[LoadedResult], list[str]]:
    """Pure: (path, text) pairs -> the valid results (scores dropped; with ``replicates``, their
    joint-bootstrap p-values computed from them first) and one problem per bad file."""
    ok: list[LoadedResult] = []
    bad: list[str] = []
    for path, text in texts:
        try:
            res = parse_result(text, source=path, with_scores=replicates)
        except ResultError as e:
            bad.append(str(e))
            continue
        reps = replicate_pvalues(res) if replicates else None
        ok.append(LoadedResult(path, res.model_copy(update={"scores": None}) if replicates else res, reps))
    return ok, bad


#: A listed file as last read: its version (blob id), the result or the problem that replaced it.
_Entry = tuple[str, LoadedResult | None, str | None]


class ResultsIndex:
    """A cached view of a results store, safe to share between Gradio's worker threads."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._unread: tuple[str, ...] = ()  # the problems of the reads that failed at the last listing
        self._generation = 0
        self._last: LoadReport | None = None
        self._listed_at = -math.inf
        self._progress = (0, 0)  # files read of the files to read, in the listing under way

    def progress(self) -> tuple[int, int]:
        """(files read, files to read) of the listing under way (or the last one); never waits."""
        return self._progress

    def load(self, max_age_s: float = 0.0) -> LoadReport:
        """The store's results; a listing younger than ``max_age_s`` seconds is reused as is."""
        with self._lock:
            if self._last is not None and time.monotonic() - self._listed_at < max_age_s:
                return self._last
            started = time.monotonic()
            try:
                listing = self.store.list(".json")
            except Exception as e:  # a flaky Hub must not take the page down
                log.warning("results store %s cannot be listed: %s", self.store.name, e)
                if self._last is not None:
                    return LoadReport(
                        self._last.results, (*self._last.problems, f"results store: {e}"), self._generation
                    )
                return LoadReport(
                    (), (f"results store {self.store.name} cannot be listed: {e}",), self._generation
                )
            changed = False
            fresh: dict[str, _Entry] = {}
            unread: list[str] = []  # failed reads: told now, tried again at the next listing
            todo = sum(1 for p, v in listing.items() if (c := self._entries.get(p)) is None or c[0] != v)
            done = 0
            self._progress = (0, todo)
            for path, version in listing.items():
                cached = self._entries.get(path)
                if cached is None or cached[0] != version:
                    got = self._read(path, version)
                    done += 1
                    self._progress = (done, todo)
                    if isinstance(got, str):
                        unread.append(got)
                        continue
                    if got is None:  # deleted since the listing
                        continue
                    changed, cached = True, got
                fresh[path] = cached
            changed = changed or set(fresh) != set(self._entries) or tuple(unread) != self._unread
            self._entries, self._unread = fresh, tuple(unread)
            if changed or self._last is None:
                self._generation += 1
                results = tuple(e[1] for e in fresh.values() if e[1] is not None)
                problems = tuple(e[2] for e in fresh.values() if e[2] is not None) + tuple(unread)
                self._last = LoadReport(results, problems, self._generation)
            self._listed_at = started
            return self._last

    def _read(self, path: str, version: str) -> _Entry | str | None:
        """``path`` read and parsed; ``None`` when it is gone; the problem (a string) when the store
        failed to answer: that is not this version's verdict, so it is not cached."""
        try:
            text = self.store.read(path).decode("utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as e:  # the content's fault: this version stays unreadable
            return (version, None, f"{path}: not UTF-8 ({e.reason})")
        except OSError as e:  # the store's (a flaky Hub)
            log.warning("results store %s: %s cannot be read: %s", self.store.name, path, e)
            return f"{path}: cannot read ({e})"
        ok, bad = parse_many([(path, text)])
        return (version, replace(ok[0], version=version) if ok else None, bad[0] if bad else None)

    def full(self, path: str) -> Result:
        """The complete result at ``path``, item scores included (for the judge page)."""
        return parse_result(self.store.read(path).decode("utf-8"), source=path)


def by_judge(results: Iterable[LoadedResult]) -> Mapping[str, list[LoadedResult]]:
    out: dict[str, list[LoadedResult]] = {}
    for r in results:
        out.setdefault(r.result.judge.name, []).append(r)
    return out


def _newer(a: LoadedResult, b: LoadedResult) -> bool:
    """``a`` is newer than ``b``: later ``created_at``, ties broken by the later path (deterministic)."""
    return (a.result.created_at, a.path) > (b.result.created_at, b.path)


def benchmark_setting(r: Result) -> bool:
    """Scored as the benchmark scores: the default prompt set and no misleading cue. Results under
    other prompt sets or with a cue feed the stability column, never the ranking."""
    return r.scoring.prompt_set == DEFAULT_PROMPT_SET and r.scoring.cue is None


def latest_results(results: Iterable[LoadedResult]) -> dict[str, dict[str, LoadedResult]]:
    """judge name -> dataset name -> the newest result of that (judge, dataset) in the benchmark setting.

    The one rule for "newest", used by the table and the judge page alike: the latest ``created_at``,
    and among equal timestamps (they have 1-s resolution) the greatest store path. A private split's
    results are left out (:mod:`dhp.leaderboard.board.private_split` shows them).
    """
    latest: dict[str, dict[str, LoadedResult]] = {}
    for lr in results:
        if (
            not benchmark_setting(lr.result) or lr.result.dataset.private
        ):  # a private split's: its own columns
            continue
        per = latest.setdefault(lr.result.judge.name, {})
        cur = per.get(lr.result.dataset.name)
        if cur is None or _newer(lr, cur):
            per[lr.result.dataset.name] = lr
    return latest
