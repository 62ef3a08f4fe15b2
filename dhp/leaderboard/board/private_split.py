"""The private split's columns of the board (issue 39): per judge and dataset the private D_avg^EW, the
paired difference public − private with its interval and the "fits the public rows" flag
(:mod:`dhp.scoring.fits`).

A private result (``dataset.split == "private"``, :mod:`dhp.scoring.results` 1.5) never enters the
public columns, the Overall or the ranks (:func:`dhp.leaderboard.board.loading.latest_results` leaves it
out). Its identity is its dataset's commitment (the SHA-256 over the split's seed and rows), and a new
seed or new rows make a new one: a rotation. Results scored on two commitments are never mixed in one
column: per dataset the board uses the *current* commitment only, that of the newest private result
(:func:`current_commitments`), and says which (the ``Private split`` column, the headers, the CSV).
Results on older commitments are left out, counted in :func:`stale_count`.

Pure but for :class:`PrivateFits`, which keeps each fit per version of its two files and makes them in
the background (a fit reads the public result's item scores and redraws its replicates: about 0.1 s a
dataset of the 20-item sample, 0.3 s one of 100 items, 1,000 replicates).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dhp.leaderboard.board.columns import (
    PRIVATE_SPLIT,
    interval_columns,
    is_text_column,
    private_columns,
)
from dhp.leaderboard.board.loading import LoadedResult, benchmark_setting, latest_results, newest
from dhp.scoring.fits import Fit, fits_of_results
from dhp.scoring.results import Result

__all__ = [
    "FITS_MARK",
    "NOT_FLAGGED",
    "PRIVATE_MARKS",
    "PrivateFits",
    "PrivatePair",
    "commitment_cells",
    "current_commitments",
    "private_frame",
    "private_pairs",
    "stale_count",
    "view_columns",
    "with_private",
]

#: The flag's mark: the difference's interval lies above 0 (:attr:`dhp.scoring.fits.Fit.fits_public`).
FITS_MARK = "fits the public rows"
#: The flag's cell where the judge is not flagged.
NOT_FLAGGED = "no"
#: The full table's hidden column of each judge's private commitments (``(dataset, 12 hex)`` pairs).
PRIVATE_MARKS = "_private_marks"


def _private(results: Iterable[LoadedResult]) -> list[LoadedResult]:
    return [lr for lr in results if lr.record.dataset.private and benchmark_setting(lr.record)]


def current_commitments(results: Iterable[LoadedResult]) -> dict[str, str]:
    """dataset -> the commitment of its newest private result: the one the board shows."""
    by_ds: dict[str, list[LoadedResult]] = {}
    for lr in _private(results):
        by_ds.setdefault(lr.record.dataset.name, []).append(lr)
    out = {}
    for ds, lrs in by_ds.items():
        latest = newest(lrs)
        if latest is not None and latest.record.dataset.commitment:
            out[ds] = latest.record.dataset.commitment
    return out


def stale_count(results: Iterable[LoadedResult]) -> int:
    """Private results on a commitment that is no longer its dataset's current one (left out)."""
    results = list(results)
    current = current_commitments(results)
    return sum(
        lr.record.dataset.commitment != current.get(lr.record.dataset.name) for lr in _private(results)
    )


@dataclass(frozen=True)
class PrivatePair:
    """One judge's newest public result of a dataset and its newest private one on the current commitment."""

    public: LoadedResult
    private: LoadedResult

    @property
    def key(self) -> tuple[str, str, str, str]:
        """The two files' paths and versions: a fit is redone when either changes."""
        return (self.public.path, self.public.version, self.private.path, self.private.version)


def private_pairs(results: Iterable[LoadedResult]) -> dict[str, dict[str, PrivatePair]]:
    """judge -> dataset -> its pair, for the judges with a public result beside a current private one."""
    results = list(results)
    current = current_commitments(results)
    public = latest_results(results)
    out: dict[str, dict[str, PrivatePair]] = {}
    for lr in _private(results):
        r = lr.record
        pub = public.get(r.judge.name, {}).get(r.dataset.name)
        if pub is None or r.dataset.commitment != current.get(r.dataset.name):
            continue
        per = out.setdefault(r.judge.name, {})
        cur = per.get(r.dataset.name)
        if cur is None or (r.created_at, lr.path) > (cur.private.record.created_at, cur.private.path):
            per[r.dataset.name] = PrivatePair(pub, lr)
    return out


class PrivateFits:
    """Each pair's :func:`~dhp.scoring.fits.fits_of_results`, kept per version of its two files; a pair
    whose fit cannot be made keeps the reason (one line). Thread-safe. ``read`` gives a result in full
    (the public one's item scores). The fits are made in a background thread, one at a time, so the rows
    never wait for them (:meth:`of`); the thread ends when none is left to make."""

    def __init__(self, read: Callable[[str], Result]) -> None:
        self._read = read
        self._lock = threading.Lock()
        self._done: dict[tuple[str, str, str, str], Fit | str] = {}
        self._todo: dict[tuple[str, str, str, str], PrivatePair] = {}
        self._thread: threading.Thread | None = None

    def of(
        self, pairs: Mapping[str, Mapping[str, PrivatePair]], wait: bool = False
    ) -> dict[tuple[str, str, str, str], Fit | str]:
        """The fits of ``pairs`` made so far (all of them with ``wait``); the others are started in the
        background, and fits of pairs no longer asked for are forgotten."""
        wanted = {p.key: p for per in pairs.values() for p in per.values()}
        with self._lock:
            self._done = {k: v for k, v in self._done.items() if k in wanted}
            self._todo = {k: p for k, p in wanted.items() if k not in self._done}
            if self._todo and not wait and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._work, name="dhp-private-fits", daemon=True)
                self._thread.start()
        if wait:
            self._work()
            thread = self._thread
            if thread is not None and thread is not threading.current_thread():
                thread.join()
        with self._lock:
            return {k: self._done[k] for k in wanted if k in self._done}

    def progress(self, pairs: Mapping[str, Mapping[str, PrivatePair]]) -> tuple[int, int]:
        """(fits made, fits asked) of ``pairs``; never waits."""
        keys = [p.key for per in pairs.values() for p in per.values()]
        with self._lock:
            return sum(k in self._done for k in keys), len(keys)

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._todo:
                    return
                key, pair = next(iter(self._todo.items()))
            fit = self._fit(pair)
            with self._lock:
                if self._todo.pop(key, None) is not None:  # still asked for
                    self._done[key] = fit

    def _fit(self, pair: PrivatePair) -> Fit | str:
        try:
            return fits_of_results(self._read(pair.public.path), self._read(pair.private.path))
        except (ValueError, OSError) as e:
            return f"no fit: {' '.join(str(e).split())[:160]}"


def _num(x: float | None) -> float:
    return math.nan if x is None else float(x)


def _cells(ds: str, pair: PrivatePair, fit: Fit | str | None) -> dict[str, Any]:
    priv, diff, flag = private_columns(ds)
    s = pair.private.record.summary
    ci = s.ci.get("d_avg_ew")
    out: dict[str, Any] = dict.fromkeys(
        [priv, *interval_columns(priv), diff, *interval_columns(diff)], math.nan
    )
    out[priv] = _num(s.d_avg_ew)
    if ci is not None:
        out.update(zip(interval_columns(priv), (ci.low, ci.high), strict=True))
    if isinstance(fit, Fit):
        out[diff] = fit.difference
        if fit.interval is not None:
            out.update(zip(interval_columns(diff), (fit.interval.low, fit.interval.high), strict=True))
        out[flag] = FITS_MARK if fit.fits_public else NOT_FLAGGED
    else:
        out[flag] = fit or ""
    return out


def _all_columns(datasets: Sequence[str]) -> list[str]:
    cols: list[str] = []
    for ds in datasets:
        priv, diff, flag = private_columns(ds)
        cols += [priv, *interval_columns(priv), diff, *interval_columns(diff), flag]
    return cols


def private_frame(
    pairs: Mapping[str, Mapping[str, PrivatePair]],
    fits: Mapping[tuple[str, str, str, str], Fit | str],
    datasets: Sequence[str],
) -> pd.DataFrame:
    """One row per judge with a private result: ``Judge``, each dataset's private columns (NaN and ``""``
    where the judge has none) and :data:`PRIVATE_MARKS`."""
    rows = []
    for judge, per in pairs.items():
        row: dict[str, Any] = {"Judge": judge}
        for ds, pair in per.items():
            row.update(_cells(ds, pair, fits.get(pair.key)))
        marks = tuple((ds, p.private.record.dataset.commitment or "") for ds, p in per.items())
        rows.append({**row, PRIVATE_MARKS: tuple((ds, c[:12]) for ds, c in marks)})
    cols = _all_columns(datasets)
    df = pd.DataFrame(rows, columns=["Judge", *cols, PRIVATE_MARKS])
    for c in cols:
        if not is_text_column(c):
            df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
        else:
            df[c] = pd.Series([v if isinstance(v, str) else "" for v in df[c]], index=df.index, dtype=object)
    return df


def with_private(full: pd.DataFrame, private: pd.DataFrame) -> pd.DataFrame:
    """The full table with the private columns joined by judge (a judge without private results has NaN
    and empty cells there); nothing when no judge has a private result."""
    if private.empty:
        return full
    merged = full.merge(private, on="Judge", how="left")
    for c in private.columns:
        if is_text_column(c):
            merged[c] = pd.Series(
                [v if isinstance(v, str) else "" for v in merged[c]], index=merged.index, dtype=object
            )
    merged[PRIVATE_MARKS] = [m if isinstance(m, tuple) else () for m in merged[PRIVATE_MARKS]]
    return merged.copy()  # one block per dtype: the view's columns are added to it one by one


def view_columns(df: pd.DataFrame, chosen: Sequence[str]) -> list[str]:
    """The private columns a view of ``df`` shows for its ``chosen`` datasets (those a judge in it has a
    private result of), in order, then the :data:`PRIVATE_SPLIT` column naming their commitments."""
    shown = [ds for ds in chosen if (c := private_columns(ds)[0]) in df.columns and df[c].notna().any()]
    cols = _all_columns(shown)
    return [*cols, PRIVATE_SPLIT] if cols else []


def commitment_cells(marks: Iterable[tuple[tuple[str, str], ...]], chosen: Sequence[str]) -> list[str]:
    """Each row's :data:`PRIVATE_SPLIT` cell: the commitment of each chosen dataset it has a private
    result of, e.g. ``summeval 0123456789ab; answer-equivalence ba9876543210``."""
    return ["; ".join(f"{ds} {dict(m)[ds]}" for ds in chosen if ds in dict(m)) for m in marks]
