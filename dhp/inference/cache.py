"""A content-addressed response cache in SQLite (WAL), so an interrupted run resumes for free.

The key is a request's ``cache_key`` (:func:`dhp.inference.protocol.content_key`: SHA-256 over
judge, model, prompt, sampling parameters and repeat index). Only outputs are stored, never
failures, so a resumed run retries exactly the requests that did not complete and repeats none
that did.

Writes are batched without weakening that guarantee: :meth:`ResponseCache.store` queues an output,
and the queue is committed at the end of the event loop's current iteration, in one transaction,
with whatever else was answered in that iteration; each output's ``on_commit`` callback runs once
it is committed. The pool frees a request's concurrency slot in that callback, so at any moment
the requests a server has answered but the cache does not hold are at most the requests in flight.
A failed commit is raised by the next call of the cache (and by :meth:`ResponseCache.close`).

A file that is not a usable SQLite database is named in a :class:`CacheError` and left untouched;
a damaged entry is a miss (logged), and the next answer replaces it. WAL mode lets several runs
share one file.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from dhp.inference.protocol import JudgeOutput, output_from_json, output_to_json

__all__ = ["CacheError", "ResponseCache"]

log = logging.getLogger("dhp.inference")


class CacheError(RuntimeError):
    """The cache file exists but is not a usable SQLite database; the message names it."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    judge TEXT NOT NULL,
    model TEXT,
    output TEXT NOT NULL,
    created REAL NOT NULL
)
"""
_INSERT = "INSERT OR REPLACE INTO responses (key, judge, model, output, created) VALUES (?, ?, ?, ?, ?)"
_Row = tuple[str, str, str | None, str, float]


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as e:  # a corrupted or foreign file: say so, leave it untouched
            self._db.close()
            raise CacheError(
                f"response cache {self.path} is not a usable SQLite database ({e}); move it aside, "
                "or pass --cache with another file or --no-cache"
            ) from e
        self._pending: list[_Row] = []
        self._on_commit: list[Callable[[], None]] = []
        self._queued: dict[str, JudgeOutput] = {}  # outputs of `_pending`, by key
        self._scheduled = False
        self._failed: CacheError | None = None
        self.commits = 0  # transactions written (batches), for benchmarks

    def get(self, key: str) -> JudgeOutput | None:
        self._raise_failed()
        queued = self._queued.get(key)
        if queued is not None:  # answered, commit pending: still an answer
            return queued
        row = self._db.execute("SELECT output FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return output_from_json(str(row[0]))
        except (ValueError, KeyError, TypeError) as e:  # a damaged entry is a miss; the answer replaces it
            log.warning("response cache %s: unreadable entry %s… (%s); asking again", self.path, key[:12], e)
            return None

    def put(self, key: str, judge: str, model: str | None, output: JudgeOutput) -> None:
        """Write one output now, in a transaction of its own (synchronous callers)."""
        self._pending.append((key, judge, model, output_to_json(output), time.time()))
        self.flush()

    def store(
        self,
        key: str,
        judge: str,
        model: str | None,
        output: JudgeOutput,
        on_commit: Callable[[], None] | None = None,
    ) -> None:
        """Queue an output for the commit at the end of this event-loop iteration; then call ``on_commit``."""
        self._raise_failed()
        self._pending.append((key, judge, model, output_to_json(output), time.time()))
        self._queued[key] = output
        if on_commit is not None:
            self._on_commit.append(on_commit)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._commit_queued)

    def _commit_queued(self) -> None:
        self._scheduled = False
        callbacks, self._on_commit = self._on_commit, []
        try:
            self.flush()
        except sqlite3.Error as e:  # raised by the next call (the loop's callbacks cannot raise to anyone)
            self._failed = CacheError(f"response cache {self.path}: cannot write ({e})")
        finally:
            for cb in callbacks:
                cb()

    def _raise_failed(self) -> None:
        if self._failed is not None:
            raise self._failed

    def flush(self) -> None:
        """Commit every queued output in one transaction."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        self._queued = {}
        self._db.execute("BEGIN")
        try:
            self._db.executemany(_INSERT, rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        self.commits += 1

    def __len__(self) -> int:
        """Outputs held, queued ones committed first."""
        self.flush()
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        callbacks, self._on_commit = self._on_commit, []
        try:
            self.flush()
            self._raise_failed()
        finally:
            for cb in callbacks:
                cb()
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
