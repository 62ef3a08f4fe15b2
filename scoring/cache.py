"""A content-addressed response cache in SQLite (WAL), so an interrupted run resumes for free.

The key is :meth:`JudgeRequest.cache_key`: SHA-256 over (judge, endpoint model, prompt, sampling
parameters, repeat index). Only outputs are stored, never failures, so a resumed run retries
exactly the requests that did not complete and repeats none that did. Each output is committed as
soon as it arrives; WAL mode lets several runs (or replicas' results) share one file safely.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from types import TracebackType

from dhp.scoring.types import JudgeOutput, output_from_json, output_to_json

__all__ = ["CacheError", "ResponseCache"]

log = logging.getLogger("dhp.scoring")


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

    def get(self, key: str) -> JudgeOutput | None:
        row = self._db.execute("SELECT output FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return output_from_json(str(row[0]))
        except (ValueError, KeyError, TypeError) as e:  # a damaged entry is a miss; the answer replaces it
            log.warning("response cache %s: unreadable entry %s… (%s); asking the judge again", self.path, key[:12], e)
            return None

    def put(self, key: str, judge: str, model: str | None, output: JudgeOutput) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, judge, model, output, created) VALUES (?, ?, ?, ?, ?)",
            (key, judge, model, output_to_json(output), time.time()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
