"""The leaderboard table as pure functions: results -> pandas frames, filters, ranks, HTML, CSV.

:func:`build_frame` makes one row per judge with every column (metadata, and per dataset
``D_avg``/``D_min`` with and without expert weights, each with its bootstrap interval as
``<column> low`` / ``<column> high``); :func:`select_view` applies the user's choices (datasets,
weighted or not, columns, search, family and size filters, sort) and adds the rank and the overall
column, with the control judges pinned on top as baselines; :func:`view_html` renders a view as the
page shows it and :func:`to_csv` writes exactly the same rows, columns and order, intervals included.
Averages are not coloured: they are not tests (a random judge's unweighted D_avg can exceed 1).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dhp.leaderboard.board import private_split
from dhp.leaderboard.board.columns import (
    EFFECT,
    KINDS,
    PRIVATE_SPLIT,
    d_columns,
    dataset_columns,
    effect_column,
    holds_value,
    interval_columns,
    is_private_column,
    is_text_column,
)
from dhp.leaderboard.board.loading import LoadedResult, latest_results, newest
from dhp.leaderboard.board.ranks import RankSamples, joint_rank_ranges, overall_intervals, rank_range
from dhp.leaderboard.board.records import TableRecord
from dhp.scoring.results import ResultError, Summary
from dhp.scoring.stability import stability
from dhp.spec import DATASET_NAMES

__all__ = [
    "BASELINES",
    "CAVEATS",
    "DEFAULT_META",
    "DEFAULT_SORT",
    "FAMILIES",
    "META_COLUMNS",
    "SIZE_BUCKETS",
    "STABILITY",
    "Sort",
    "build_frame",
    "caveat_text",
    "family_of",
    "params_of",
    "prompt_spreads",
    "rank_samples",
    "select_view",
    "size_bucket",
    "to_csv",
]

META_COLUMNS: tuple[str, ...] = (
    "Judge",
    "Model",
    "Revision",
    "Size (B)",
    "Family",
    "Protocol",
    "Mode",
    "Dataset version",
    "Date",
    "Caveats",
)
_COVERAGE = "coverage "
#: The column of marks that make a row not comparable (:func:`dhp.scoring.caveats.caveats`), drawn last.
CAVEATS = "Caveats"
#: The full table's hidden column of each judge's caveats per dataset (``(dataset, marks)`` pairs):
#: a view's Caveats cell names only the datasets in view.
MARKS = "_caveat_marks"
#: Metadata columns are off by default, but for the caveats (what makes a row not comparable).
DEFAULT_META: tuple[str, ...] = ("Judge", "Caveats")
SIZE_BUCKETS: tuple[str, ...] = ("< 3B", "3-10B", "10-40B", "> 40B", "unknown")
OVERALL = "Overall"
RANK = "Rank"
BASELINE = "baseline"
#: Shown when some judge was scored under several prompt sets: how far D_avg^EW moves with the wording.
STABILITY = "Prompt spread"
CONTROL = "control"
#: What each built-in control judge stands for, shown beside it on the table.
BASELINES: Mapping[str, str] = {"random": "chance", "oracle": "ceiling", "lexical": "surface cues"}
MISSING = "–"

#: Model families recognised in model names (first match wins); anything else is "other".
FAMILIES: tuple[tuple[str, str], ...] = (
    ("gpt", r"\bgpt|\bo[134]-|openai"),
    ("llama", r"llama"),
    ("qwen", r"qwen|qwq"),
    ("mistral", r"mistral|mixtral|ministral"),
    ("gemma", r"gemma"),
    ("phi", r"\bphi[-_]?\d"),
    ("vicuna", r"vicuna"),
    ("deepseek", r"deepseek"),
    ("claude", r"claude"),
    ("command", r"command-?r|cohere"),
    ("falcon", r"falcon"),
    ("olmo", r"olmo"),
    ("smollm", r"smollm"),
    ("prometheus", r"prometheus"),
)
_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*([bm])(?![a-z])", re.I)


def family_of(*names: str | None) -> str:
    text = " ".join(n for n in names if n).lower()
    for fam, pat in FAMILIES:
        if re.search(pat, text):
            return fam
    return "other"


def params_of(n_params: float | None, *names: str | None) -> float:
    """Size in billions of parameters: from the result when known, else parsed from a name ("7B")."""
    if n_params is not None and math.isfinite(n_params) and n_params > 0:
        return float(n_params) / 1e9 if n_params > 1e4 else float(n_params)
    for n in names:
        if not n:
            continue
        m = _SIZE.search(n)
        if m:
            v = float(m.group(1))
            return v if m.group(2).lower() == "b" else v / 1000.0
    return math.nan


def size_bucket(billions: float) -> str:
    if not math.isfinite(billions):
        return "unknown"
    if billions < 3:
        return "< 3B"
    if billions < 10:
        return "3-10B"
    if billions < 40:
        return "10-40B"
    return "> 40B"


def _num(x: float | None) -> float:
    return math.nan if x is None else float(x)


def _version(r: TableRecord) -> str:
    return r.dataset.version or (r.dataset.revision[:12] if r.dataset.revision else "?")


def _baseline_of(model: str | None, name: str) -> str:
    """The control judge a built-in judge is (random, oracle, lexical), from its model or name."""
    for key in (model or "", name):
        if key.lower() in BASELINES:
            return key.lower()
    return name


def _meta_row(judge: str, per: Mapping[str, LoadedResult]) -> dict[str, Any]:
    newest = max(per.values(), key=lambda x: (x.record.created_at, x.path)).record
    j = newest.judge
    builtin = not j.judge.sends_requests
    model = j.hf_model_id or j.model or ""
    return {
        "Judge": judge,
        "Model": f"{CONTROL}: {_baseline_of(j.model, j.name)}" if builtin else model,
        "Revision": j.revision or "",
        "Size (B)": params_of(j.n_params, j.hf_model_id, j.model),
        "Family": CONTROL if builtin else family_of(j.hf_model_id, j.model, j.name),
        "Protocol": j.protocol,
        "Mode": newest.scoring.mode,
        "Dataset version": ", ".join(sorted({_version(x.record) for x in per.values()})),
        "Date": newest.created_at[:10],
        "Caveats": caveat_text({ds: x.record.caveats for ds, x in per.items()}),
        MARKS: tuple((ds, x.record.caveats) for ds, x in per.items()),
    }


def caveat_text(marks: Mapping[str, Sequence[str]]) -> str:
    """One cell from each dataset's :func:`~dhp.scoring.caveats.caveats`: a mark every dataset has
    is written once, any other with the datasets it concerns, e.g.
    ``offline build; D_avg at chance (summeval, sumpubmed)``."""
    order: list[str] = []
    where: dict[str, list[str]] = {}
    coverage: list[float] = []
    for ds in sorted(marks, key=lambda d: (DATASET_NAMES.index(d) if d in DATASET_NAMES else 99, d)):
        for m in marks[ds]:
            if m.startswith(_COVERAGE):  # one mark for every dataset's coverage: its range
                coverage.append(float(m.removeprefix(_COVERAGE).rstrip("%")))
                m = _COVERAGE.strip()
            if m not in where:
                order.append(m)
            where.setdefault(m, []).append(ds)

    def text(m: str) -> str:
        if m == _COVERAGE.strip():
            lo, hi = min(coverage), max(coverage)
            m = f"{_COVERAGE}{lo:g}%" if lo == hi else f"{_COVERAGE}{lo:g}–{hi:g}%"
        return m

    return "; ".join(
        text(m) if len(where[m]) == len(marks) else f"{text(m)} ({', '.join(where[m])})" for m in order
    )


_SUMMARY_KEYS = {
    ("D_avg", True): "d_avg_ew",
    ("D_min", True): "d_min_ew",
    ("D_avg", False): "d_avg",
    ("D_min", False): "d_min",
}


def _d_cells(ds: str, s: Summary | None) -> dict[str, float]:
    """A dataset's D columns (and their intervals) for one judge; NaN where missing."""
    out: dict[str, float] = {}
    for weighted in (True, False):
        for kind, col in zip(KINDS, dataset_columns(ds, weighted), strict=True):
            key = _SUMMARY_KEYS[(kind, weighted)]
            ci = None if s is None else s.ci.get(key)
            out[col] = math.nan if s is None else _num(getattr(s, key))
            lo, hi = interval_columns(col)
            out[lo], out[hi] = (math.nan, math.nan) if ci is None else (ci.low, ci.high)
    col = effect_column(ds)
    ci = None if s is None else s.ci.get("effect_avg")
    out[col] = math.nan if s is None else _num(s.effect_avg)
    lo, hi = interval_columns(col)
    out[lo], out[hi] = (math.nan, math.nan) if ci is None else (ci.low, ci.high)
    return out


def prompt_spreads(results: Iterable[LoadedResult]) -> dict[str, float]:
    """judge -> the largest range of D_avg^EW over prompt sets on any dataset (``dhp stability``),
    for the judges with results under more than one prompt set (results with a cue left out; only
    those judges' full results are made)."""
    by_judge: dict[str, list[LoadedResult]] = {}
    for lr in results:
        if lr.record.scoring.cue is None and not lr.record.dataset.private:
            by_judge.setdefault(lr.record.judge.name, []).append(lr)
    out: dict[str, float] = {}
    for judge, lrs in by_judge.items():
        if len({lr.record.scoring.prompt_set for lr in lrs}) < 2:
            continue
        by_set: dict[tuple[str, str, str], list[LoadedResult]] = {}
        for lr in lrs:  # a judge scored again under one prompt set: its newest result counts, as in a column
            d = lr.record.dataset
            by_set.setdefault((d.name, d.revision, lr.record.scoring.prompt_set), []).append(lr)
        try:
            rs = [lr.result for lr in map(newest, by_set.values()) if lr is not None]
        except ResultError:  # a file that does not validate in full: a problem at the next listing
            continue
        ranges = [row.spread["d_avg_ew"].range for row in stability(rs)]
        finite = [x for x in ranges if x is not None]
        if finite:
            out[judge] = max(finite)
    return out


def build_frame(
    results: Iterable[LoadedResult],
    summaries: Mapping[str, Summary] | None = None,
    datasets: Sequence[str] = DATASET_NAMES,
) -> pd.DataFrame:
    """One row per judge; per dataset the newest result's D values and intervals.

    ``summaries`` (path -> Summary) overrides the stored summaries, e.g. D^EW recomputed for the
    survey's weights. Datasets outside ``datasets`` that appear in results are appended.
    """
    results = list(results)
    latest = latest_results(results)
    spreads = prompt_spreads(results)
    all_ds = list(datasets) + sorted({d for per in latest.values() for d in per} - set(datasets))
    rows: list[dict[str, Any]] = []
    for judge, per in latest.items():
        row = {**_meta_row(judge, per), STABILITY: spreads.get(judge, math.nan)}
        for ds in all_ds:
            hit = per.get(ds)
            row.update(
                _d_cells(ds, None if hit is None else (summaries or {}).get(hit.path, hit.record.summary))
            )
        rows.append(row)
    dcols = [
        c
        for ds in all_ds
        for c in (*dataset_columns(ds, True), *dataset_columns(ds, False), effect_column(ds))
    ]
    cols = [*META_COLUMNS, STABILITY] + [x for c in dcols for x in (c, *interval_columns(c))]
    df = pd.DataFrame(rows, columns=[*cols, MARKS])
    num = [*cols[len(META_COLUMNS) :], "Size (B)"]  # the stability, D and effect columns, and the size
    numbers = df[num].apply(pd.to_numeric, errors="coerce").astype("float64")
    whole: pd.DataFrame = pd.concat([df.drop(columns=num), numbers], axis=1)
    return whole[list(df.columns)]  # the numbers in one block: no fragmentation warning downstream


def rank_samples(
    results: Iterable[LoadedResult], ew_weights: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None
) -> RankSamples:
    """The joint-bootstrap D_avg replicates of the results :func:`build_frame` shows (the newest per
    judge and dataset), for the rank ranges of :func:`select_view` (:mod:`dhp.leaderboard.board.ranks`)."""
    latest = latest_results(results)
    return RankSamples.of(
        {judge: {ds: lr.replicates for ds, lr in per.items()} for judge, per in latest.items()}, ew_weights
    )


def _search_mask(df: pd.DataFrame, query: str) -> pd.Series:
    """``;``-separated terms, any may match (case-insensitive substring of judge, model, family)."""
    terms = [t.strip().lower() for t in query.split(";") if t.strip()]
    if not terms:
        return pd.Series(True, index=df.index)
    hay = (df["Judge"] + " " + df["Model"] + " " + df["Family"] + " " + df["Revision"]).str.lower()
    mask = pd.Series(False, index=df.index)
    for t in terms:
        mask |= hay.str.contains(t, regex=False)
    return mask


def present_datasets(full: pd.DataFrame) -> list[str]:
    """The datasets with columns in ``full``, benchmark datasets first in benchmark order."""
    order = {d: i for i, d in enumerate(DATASET_NAMES)}
    return sorted(
        {c.split(" D_", 1)[0] for c in d_columns(full)}, key=lambda d: (order.get(d, len(order)), d)
    )


@dataclass(frozen=True)
class Sort:
    """A user's sort: a shown column and a direction. The default ranks by Overall, best first."""

    column: str = ""
    descending: bool = True

    @classmethod
    def parse(cls, text: str | None) -> Sort:
        """``"<column>|asc"`` or ``"<column>|desc"`` (what a header click sends); anything else: default."""
        col, _, direction = (text or "").partition("|")
        return cls(col, direction != "asc") if col else cls()

    def aligned(self, columns: Iterable[str]) -> Sort:
        """The same sort on ``columns``: a D column sorted with expert weights is its unweighted twin
        once the weights are toggled off (and back), so the order and its arrow survive the toggle."""
        cols = set(columns)
        if not self.column or self.column in cols or " D_" not in self.column:
            return self
        twin = self.column.removesuffix("^EW") if self.column.endswith("^EW") else self.column + "^EW"
        return Sort(twin, self.descending) if twin in cols else self


DEFAULT_SORT = Sort()


def _filter_rows(
    full: pd.DataFrame,
    search: str,
    families: Sequence[str] | None,
    sizes: Sequence[str] | None,
    avg_cols: list[str],
) -> pd.DataFrame:
    mask = _search_mask(full, search)
    if families is not None:
        mask &= full["Family"].isin(list(families))
    if sizes is not None:
        mask &= full["Size (B)"].map(size_bucket).isin(list(sizes))
    df = full[mask | (full["Family"] == CONTROL)]  # the baselines stay in every filtered view
    return df[df[avg_cols].notna().any(axis=1)] if avg_cols else df.iloc[0:0]


def _rank_and_sort(
    df: pd.DataFrame,
    overall_c: str,
    sort: Sort,
    ranking: tuple[RankSamples, Sequence[str], bool] | None = None,
) -> pd.DataFrame:
    """Baselines (control judges) pinned on top by name; the others ranked by Overall, then sorted.

    Rank ranges come from the joint bootstrap (``ranking``: the samples, the D_avg columns the
    Overall averages and their datasets, weighted or not); without samples every judge's Overall is
    its point estimate in every replicate (a judge ties only with equal estimates).
    """
    base = df[df["Family"] == CONTROL].sort_values("Judge", kind="stable")
    rest = df[df["Family"] != CONTROL].sort_values(
        [overall_c, "Judge"], ascending=[False, True], na_position="last", kind="stable"
    )
    points = rest[overall_c].to_numpy(dtype="float64")
    if ranking is None:
        samples = points[:, None]
    else:
        rs, datasets, weighted = ranking
        cols = [dataset_columns(d, weighted)[0] for d in datasets]
        samples = rs.overall(rest["Judge"].tolist(), datasets, weighted, rest[cols].to_numpy(dtype="float64"))
    spans = joint_rank_ranges(points.tolist(), samples)
    ranks = [MISSING if r is None else rank_range(*r) for r in spans]
    rest = rest.assign(**{RANK: ranks})
    meaning = [BASELINES.get(m.removeprefix(f"{CONTROL}: "), CONTROL) for m in base["Model"]]
    base = base.assign(**{RANK: [f"{BASELINE}: {m}" for m in meaning]})
    if sort.column and sort.column in rest.columns and sort.column != RANK:
        key = rest[sort.column]
        if not pd.api.types.is_numeric_dtype(key):  # text (object, or pandas 3's str): case-insensitive
            key = key.astype(str).str.lower()
        rest = (
            rest.assign(_key=key)
            .sort_values(
                ["_key", "Judge"], ascending=[not sort.descending, True], na_position="last", kind="stable"
            )
            .drop(columns="_key")
        )
    elif sort.column == RANK and not sort.descending:
        rest = rest.iloc[::-1]
    return pd.concat([base, rest])


def _view_columns(
    df: pd.DataFrame,
    overall_c: str,
    chosen: Sequence[str],
    weighted: bool,
    kinds: Sequence[str],
    meta: Sequence[str],
) -> list[str]:
    """The columns a view shows, in order: rank, judge, overall and its interval, the chosen meta
    columns, stability (when a shown judge has it), each chosen dataset's D columns and effect, caveats last."""
    cols = [
        RANK,
        "Judge",
        overall_c,
        *interval_columns(overall_c),
        *[m for m in META_COLUMNS if m in meta and m not in ("Judge", CAVEATS)],
    ]
    if df[STABILITY].notna().any():  # only when a shown judge has it
        cols.append(STABILITY)
    for d in chosen:
        for c, k in zip(dataset_columns(d, weighted), KINDS, strict=True):
            if k in kinds:
                cols += [c, *interval_columns(c)]
        if EFFECT in kinds:
            cols += [effect_column(d), *interval_columns(effect_column(d))]
    if CAVEATS in meta:
        cols.append(CAVEATS)  # last: the datasets' numbers first
    return cols


def select_view(
    full: pd.DataFrame,
    *,
    datasets: Sequence[str] | None = None,
    weighted: bool = True,
    kinds: Sequence[str] = KINDS,
    meta: Sequence[str] = DEFAULT_META,
    search: str = "",
    families: Sequence[str] | None = None,
    sizes: Sequence[str] | None = None,
    sort: Sort = DEFAULT_SORT,
    samples: RankSamples | None = None,
    private: bool = False,
) -> pd.DataFrame:
    """The table as shown: filtered rows, rank, chosen columns, an overall column with its interval.

    The rank is a range from the joint bootstrap ``samples`` (:func:`rank_samples`) over the judges
    shown: a filter changes who is ranked against whom.

    ``Overall D_avg(^EW)`` is the mean of the chosen datasets' ``D_avg`` and is left empty (ranked
    last) for a judge missing any of them, so partial coverage never ranks above full coverage; its
    interval comes from the joint bootstrap of the ranks (:func:`~dhp.leaderboard.board.ranks.overall_intervals`;
    none without ``samples``), or, with one dataset chosen, is that dataset's own (the Overall of
    one dataset is that dataset's D_avg). Judges with no result on any chosen
    dataset are dropped. Datasets keep the benchmark's order whatever order they were chosen in.
    ``private``: the private split's columns of the chosen datasets after theirs
    (:mod:`~dhp.leaderboard.board.private_split`; none when no judge shown has a private result).
    """
    chosen = [d for d in present_datasets(full) if datasets is None or d in datasets]
    avg_cols = [dataset_columns(d, weighted)[0] for d in chosen]
    df = _filter_rows(full, search, families, sizes, avg_cols)
    overall_c = f"{OVERALL} D_avg{'^EW' if weighted else ''}"
    lo_c, hi_c = interval_columns(overall_c)
    df = df.assign(**{overall_c: df[avg_cols].mean(axis=1, skipna=False) if avg_cols else math.nan})
    low: Any = math.nan
    high: Any = math.nan
    if len(avg_cols) == 1:  # one dataset: its Overall is that dataset's D_avg, interval and all (issue 35)
        low, high = (df[c].to_numpy(dtype="float64") for c in interval_columns(avg_cols[0]))
    elif samples is not None and avg_cols:  # the joint bootstrap the ranks come from (issue 31)
        low, high = overall_intervals(
            samples, df["Judge"].tolist(), chosen, weighted, df[avg_cols].to_numpy(dtype="float64")
        )
    df = df.assign(**{lo_c: low, hi_c: high})
    ranking = None if samples is None else (samples, chosen, weighted)
    df = _rank_and_sort(df, overall_c, sort.aligned(df.columns), ranking)
    if MARKS in df.columns:  # the caveats of the datasets in view only (a filtered-out one's stayed)
        df = df.assign(
            **{CAVEATS: [caveat_text({d: m for d, m in marks if d in chosen}) for marks in df[MARKS]]}
        )
    cols = _view_columns(df, overall_c, chosen, weighted, kinds, meta)
    df, cols = _with_private_view(df, cols, chosen) if private else (df, cols)
    out = df[cols].copy()
    for c in cols[2:]:
        if c not in META_COLUMNS and not is_text_column(c):  # numbers (D, intervals, stability)
            out[c] = out[c].astype("float64")
    return out.reset_index(drop=True)


def _with_private_view(
    df: pd.DataFrame, cols: list[str], chosen: Sequence[str]
) -> tuple[pd.DataFrame, list[str]]:
    """The private split's columns of the ``chosen`` datasets, before the caveats."""
    extra = private_split.view_columns(df, chosen)
    if not extra:
        return df, cols
    cells = private_split.commitment_cells(df[private_split.PRIVATE_MARKS], chosen)
    at = cols.index(CAVEATS) if CAVEATS in cols else len(cols)
    return df.assign(**{PRIVATE_SPLIT: cells}), [*cols[:at], *extra, *cols[at:]]


def _two(v: float) -> str:
    return "" if not math.isfinite(v) else f"{v:.2f}"


def to_csv(df: pd.DataFrame) -> str:
    """The view as CSV: same rows, columns and order; D values and intervals with the two decimals shown."""
    out = df.copy()
    for c in out.columns:
        if holds_value(c) or (is_private_column(c) and not is_text_column(c)):
            out[c] = out[c].map(_two)
    if "Size (B)" in out.columns:
        out["Size (B)"] = out["Size (B)"].map(lambda v: "" if not math.isfinite(v) else f"{v:g}")
    if STABILITY in out.columns:
        out[STABILITY] = out[STABILITY].map(_two)
    return str(out.to_csv(index=False, lineterminator="\n"))
