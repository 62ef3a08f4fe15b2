"""Reading the results store: every ``*.json`` listed with its table record, its full result made later.

The listing reads of each file only what the table shows (:func:`dhp.leaderboard.board.records.parse_record`;
a file not laid out as ``dhp`` writes results is parsed in full with the pure ``parse_result``); the full
result, without its item scores, is made from the file's text when first asked for
(:attr:`LoadedResult.result`), and every file is validated in full in the background once the rows are
out (:meth:`ResultsIndex.validate`, issue 37). A bad file (invalid JSON, wrong schema) is reported with
its reason and skipped, never raised: at the listing, or at the next listing after its validation.
Results are cached by the store's version token, so a page load only re-reads files that changed; the
judge page re-reads a file in full when it needs the score distributions. The p-values of the joint bootstrap behind the rank ranges
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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from dhp.leaderboard.board.ranks import ReplicatePvalues, replicate_pvalues
from dhp.leaderboard.board.records import LazyResult, TableRecord, parse_record
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
    "newest",
    "parse_listed",
    "parse_many",
]


@dataclass(frozen=True)
class LoadedResult:
    """A listed result: its path, its :class:`~dhp.leaderboard.board.records.TableRecord` (what the table
    reads) and the full result (without item scores), made only when first asked for (``result``)."""

    path: str  # relative to the results store
    source: Result | LazyResult  # the result without item scores (``scores=None``), or how to make it
    replicates: ReplicatePvalues | None = (
        None  # joint-bootstrap p-values (None: not computed, or no item scores)
    )
    version: str = ""  # the store's version token of the file read (its blob id, or size and mtime)
    record: TableRecord = field(default=None, compare=False)  # type: ignore[assignment]  # set below

    def __post_init__(self) -> None:
        if self.record is None:  # given a full result: its record
            object.__setattr__(self, "record", TableRecord.of(self.result))

    @property
    def result(self) -> Result:
        """The full result (without item scores): made from the file's text the first time; a
        :class:`~dhp.scoring.results.ResultError` if that does not validate."""
        return self.source if isinstance(self.source, Result) else self.source.get()

    @property
    def validated(self) -> bool:
        """Whether the full result is made (so the whole file validated)."""
        return isinstance(self.source, Result) or self.source.made


@dataclass(frozen=True)
class LoadReport:
    results: tuple[LoadedResult, ...]
    problems: tuple[str, ...]  # one line per skipped file
    generation: int  # changes whenever the set of results changes


def parse_many(
    texts: Iterable[tuple[str, str]], *, replicates: bool = False
) -> tuple[list[LoadedResult], list[str]]:
    """Pure: (path, text) pairs -> the valid results (scores dropped; with ``replicates``, their
    joint-bootstrap p-values computed from them first) and one problem per bad file. Without
    ``replicates`` a result's :class:`~dhp.leaderboard.board.records.TableRecord` is read from its text
    and the full result is made when first asked for (:func:`parse_listed`)."""
    ok: list[LoadedResult] = []
    bad: list[str] = []
    for path, text in texts:
        try:
            if not replicates:
                ok.append(parse_listed(path, text.encode("utf-8")))
                continue
            res = parse_result(text, source=path, with_scores=True)
        except ResultError as e:
            bad.append(str(e))
            continue
        reps = replicate_pvalues(res)
        ok.append(LoadedResult(path, res.model_copy(update={"scores": None}), reps))
    return ok, bad


def parse_listed(path: str, data: bytes) -> LoadedResult:
    """A listed file's result: its record read from the members the table reads
    (:func:`~dhp.leaderboard.board.records.parse_record`), the rest validated when the full result is
    first asked for; a file that is not laid out as ``dhp`` writes results is parsed in full at once.
    Raises :class:`~dhp.scoring.results.ResultError` naming ``path``."""
    record = parse_record(data)  # orjson checks the members it parses to be UTF-8
    if record is None:
        return LoadedResult(path, parse_result(_text(path, data), source=path, with_scores=False))

    def make() -> Result:  # the whole text: its item scores are checked to be JSON (and dropped)
        return parse_result(_text(path, data), source=path, with_scores=False)

    return LoadedResult(path, LazyResult(make), record=record)


def _trim_heap() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``; nothing elsewhere):
    the files' texts, let go as their results are made, are blocks the Python objects made after them
    do not reuse (measured on the 3,000 files of the benchmark: 424 MB -> 252 MB above the start)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        return


def _text(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:  # the content's fault: this version stays unreadable
        raise ResultError(f"{path}: not UTF-8 ({e.reason})") from None


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
        self._stale = False  # validate() changed an entry: the next listing makes a new generation
        self._to_validate = False  # a listing read files since validate() last started
        self._validator: threading.Thread | None = None

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
            changed = (
                changed or self._stale or set(fresh) != set(self._entries) or tuple(unread) != self._unread
            )
            self._entries, self._unread, self._stale = fresh, tuple(unread), False
            self._to_validate = self._to_validate or done > 0
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
            data = self.store.read(path)
        except FileNotFoundError:
            return None
        except OSError as e:  # the store's (a flaky Hub)
            log.warning("results store %s: %s cannot be read: %s", self.store.name, path, e)
            return f"{path}: cannot read ({e})"
        try:
            return (version, replace(parse_listed(path, data), version=version), None)
        except ResultError as e:
            return (version, None, str(e))

    def validate_in_background(self, then: Callable[[], None] | None = None) -> None:
        """:meth:`validate` in a thread of its own, unless one runs or no listing read a file since the
        last one started; ``then`` is called after it when it found a file to change. Never waits."""
        with self._lock:
            if not self._to_validate or (self._validator is not None and self._validator.is_alive()):
                return
            self._to_validate = False

            def run() -> None:
                if self.validate() and then is not None:
                    then()

            self._validator = threading.Thread(target=run, name="dhp-validate-results", daemon=True)
            self._validator.start()

    def validate(self) -> bool:
        """Make the full result of every listed result not made yet (the whole file validated, off the
        rows' path: the board starts it at its first request, :meth:`validate_in_background`). A file that does
        not validate becomes a problem, and a record that differs from its full result's is replaced,
        at the next :meth:`load` (a new generation); returns whether there is any such."""
        with self._lock:
            entries = list(self._entries.items())
        found = False
        for path, (version, lr, _) in entries:
            if lr is None or lr.validated:
                continue
            try:
                full = lr.result
            except ResultError as e:
                fix: _Entry = (version, None, str(e))
            else:
                if (record := TableRecord.of(full)) == lr.record:
                    continue
                fix = (version, replace(lr, source=full, record=record), None)
            with self._lock:
                if (cur := self._entries.get(path)) is not None and cur[0] == version:
                    self._entries[path], self._stale, found = fix, True, True
        _trim_heap()
        return found

    def full(self, path: str) -> Result:
        """The complete result at ``path``, item scores included (for the judge page)."""
        return parse_result(self.store.read(path).decode("utf-8"), source=path)


def by_judge(results: Iterable[LoadedResult]) -> Mapping[str, list[LoadedResult]]:
    out: dict[str, list[LoadedResult]] = {}
    for r in results:
        out.setdefault(r.record.judge.name, []).append(r)
    return out


def _age(lr: LoadedResult) -> tuple[str, str]:
    """What orders results by age: ``created_at`` (1-s resolution), ties broken by the store path."""
    return lr.record.created_at, lr.path


def _newer(a: LoadedResult, b: LoadedResult) -> bool:
    """``a`` is newer than ``b``: later ``created_at``, ties broken by the later path (deterministic)."""
    return _age(a) > _age(b)


def newest(results: Iterable[LoadedResult]) -> LoadedResult | None:
    """The newest of ``results`` by the rule of :func:`latest_results` (``None`` for none)."""
    return max(results, key=_age, default=None)


def benchmark_setting(r: Result | TableRecord) -> bool:
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
            not benchmark_setting(lr.record) or lr.record.dataset.private
        ):  # a private split's: its own columns
            continue
        per = latest.setdefault(lr.record.judge.name, {})
        cur = per.get(lr.record.dataset.name)
        if cur is None or _newer(lr, cur):
            per[lr.record.dataset.name] = lr
    return latest
