"""The main table as HTML: what the page shows for a view of :mod:`dhp.leaderboard.board.table`.

Plain HTML (no per-cell component state), so 500 judges render in milliseconds. Headers carry
plain-words tooltips and a ``data-sort`` key: a click sends it to the server (see ``assets/board.js``),
which sorts the view and the CSV alike; the sorted column shows an arrow. Judge names are links to
``?judge=NAME``; control judges are pinned on top and labelled as baselines. Numbers are not
coloured: D_avg and D_min are summaries, not tests.
"""

from __future__ import annotations

import html
import json
import math
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from dhp.leaderboard.board.columns import (
    EFFECT,
    PRIVATE_SPLIT,
    column_kind,
    d_columns,
    holds_value,
    interval_columns,
    is_private_column,
    private_columns,
    value_columns,
)
from dhp.leaderboard.board.private_split import FITS_MARK
from dhp.leaderboard.board.table import (
    BASELINE,
    CAVEATS,
    DEFAULT_SORT,
    MISSING,
    OVERALL,
    RANK,
    STABILITY,
    Sort,
)
from dhp.spec import BENCHMARK

__all__ = ["HEADER_HELP", "BoardParts", "dataset_label", "empty_message", "view_html", "view_parts"]

HEADER_HELP: dict[str, str] = {
    RANK: "Rank by Overall among the submitted judges (baselines are not ranked).",
    "Judge": "The judge's name; click it to open its page.",
    OVERALL: "Mean D_avg over the chosen benchmark datasets (empty when the judge lacks one of them). "
    "Under it, its 95% interval [low, high] from the joint bootstrap the rank ranges use.",
    "D_avg": "D_avg: the level-balanced mean discernment over the dataset's perturbations "
    "(character, word and sentence level weigh the same). D = log_0.05(p): D > 1 means p < 0.05.",
    STABILITY: "The judge was scored under several prompt sets (dhp score --prompt-set): the largest range "
    "of D_avg^EW between prompt sets on any dataset. Small: its discernment does not hang on the wording.",
    "Caveats": "What makes the row not comparable with a full result: fewer items than the dataset's N, "
    "coverage below 100%, an offline-rules build, no interval, or an unweighted D_avg a random judge reaches.",
    "D_min": "D_min: the discernment of the worst-discerned perturbation. D_min^EW > 1 (every issue "
    "discerned at p < 0.05) qualifies a judge for the dataset.",
    EFFECT: "Effect: the share of pairs the judge scored lower for the perturbed text (ties count half; "
    "metrics by the expert weights), level-balanced over the perturbations counted in D. 0.5 is chance, "
    "1 a judge that always notices. Unlike D it does not grow with the number of pairs.",
    "private": "D_avg^EW on the dataset's private split (rows no one has seen; aggregates only), with its "
    "bootstrap interval, at the expert weights it was scored with.",
    "public-private": "Public D_avg^EW minus private D_avg^EW, both read at the same number of pairs of each "
    "perturbation (half the private split's), with the 95% interval of the paired bootstrap difference.",
    "fits": f"'{FITS_MARK}' when the difference's interval lies above 0 (and it is not 0.00): the judge does "
    "better on the public rows than on rows no one has seen; 'no' otherwise.",
    PRIVATE_SPLIT: "The private split the private columns were scored on: each dataset's commitment (the "
    "first 12 hex digits of the SHA-256 over its secret seed and rows). Only the current commitment is "
    "shown; results on an older one are left out.",
}
_EW = " With expert weights (EW): each metric's p-value weighted by how much the issue should hurt it."
_NOEW = " Without expert weights (the paper's unweighted formula; compare with the random baseline)."


def dataset_label(name: str) -> str:
    spec = BENCHMARK.get(name)
    return spec.pretty_name.removeprefix("DHP ") if spec else name


def _num_cell(v: float, lo: float, hi: float) -> str:
    if not math.isfinite(v):
        return f'<td class="num missing">{MISSING}</td>'
    if math.isfinite(lo) and math.isfinite(hi):
        lo, hi = round(lo, 2), round(hi, 2)  # the bounds as the CSV writes them
        tip = f"{v:.2f}, bootstrap interval [{lo:.2f}, {hi:.2f}]"
        return f'<td class="num" title="{tip}">{v:.2f}<span class="ci"> [{lo:.2f}, {hi:.2f}]</span></td>'
    return f'<td class="num">{v:.2f}</td>'


def _judge_cell(name: str, rank: str, caveat: str = "") -> str:
    """The judge's name, whole (it wraps: a cut name hid which of two similar judges a row is), as a
    link to its page; its rank and ``caveat`` are repeated under it for a phone, which hides the Rank
    and Caveats columns (the room goes to the datasets)."""
    href = "?judge=" + urllib.parse.quote(name, safe="")  # "&", "#", "+" stay in the name
    text = html.escape(name)
    link = f'<a class="dhp-judge" href="{html.escape(href)}" data-judge="{text}" title="{text}">{text}</a>'
    rk = f'<span class="rk">{"" if rank.startswith(BASELINE) else "rank "}{html.escape(rank)}</span>'
    cav = f'<span class="cav">{html.escape(caveat)}</span>' if caveat else ""
    return f'<td class="judge">{link}{rk}{cav}</td>'


def _th(label: str, key: str, tip: str, sort: Sort, extra: str = "") -> str:
    active = sort.column == key or (not sort.column and key.startswith(OVERALL))
    arrow = (" ▼" if sort.descending else " ▲") if active else ""
    aria = f' aria-sort="{"descending" if sort.descending else "ascending"}"' if active else ""
    first = (
        "desc" if column_kind(key) is not None or key == RANK or is_private_column(key) else "asc"
    )  # numbers best first, names A to Z
    nxt = ("asc" if sort.descending else "desc") if active else first
    return (
        f'<th{extra} data-sort="{html.escape(key)}|{nxt}" title="{html.escape(tip)}"{aria} role="button" tabindex="0">'
        f'{html.escape(label)}<span class="arrow">{arrow}</span></th>'
    )


def _meta_of(df: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The metadata columns drawn before the datasets, and those drawn after them (the caveats)."""
    meta = [
        c for c in df.columns if c not in (RANK, "Judge") and not holds_value(c) and not is_private_column(c)
    ]
    return [m for m in meta if m != CAVEATS], [m for m in meta if m == CAVEATS]


def _header(df: pd.DataFrame, sort: Sort) -> str:
    dcols = [c for c in value_columns(df) if not c.startswith(OVERALL)]
    meta, after = _meta_of(df)
    overall = next(c for c in d_columns(df) if c.startswith(OVERALL))
    sort = sort.aligned(df.columns)
    ew = overall.endswith("^EW")
    top = [
        _th("Rank", RANK, HEADER_HELP[RANK], sort, ' rowspan="2" class="rank"'),
        _th("Judge", "Judge", HEADER_HELP["Judge"], sort, ' rowspan="2" class="judge"'),
    ]
    top.append(
        _th(
            "Overall",
            overall,
            HEADER_HELP[OVERALL] + (_EW if ew else _NOEW),
            sort,
            ' rowspan="2" class="overall"',
        )
    )
    top += [_th(m, m, HEADER_HELP.get(m, m), sort, ' rowspan="2"') for m in meta]
    kind_of = {c: column_kind(c) or ("", "") for c in dcols}
    datasets = list(dict.fromkeys(kind_of[c][0] for c in dcols))
    sub: list[str] = []
    for ds in datasets:
        cols = [c for c in dcols if kind_of[c][0] == ds]
        top.append(
            f'<th colspan="{len(cols)}" class="ds" title="{html.escape(ds)}">{html.escape(dataset_label(ds))}</th>'
        )
        for c in cols:
            kind = kind_of[c][1]
            if kind == EFFECT:  # expert-weighted metrics whatever the toggle: the title says so
                sub.append(_th(kind, c, HEADER_HELP[kind], sort))
                continue
            label = kind.removeprefix("D_") + ("ᴱᵂ" if ew else "")  # "avgᴱᵂ": narrow, the title says the rest
            sub.append(_th(label, c, HEADER_HELP[kind] + (_EW if ew else _NOEW), sort))
    _private_header(df, sort, top, sub)
    top += [_th(m, m, HEADER_HELP[m], sort, ' rowspan="2" class="caveats"') for m in after]
    return f"<thead><tr>{''.join(top)}</tr><tr>{''.join(sub)}</tr></thead>"


def _private_datasets(df: pd.DataFrame) -> list[str]:
    """The datasets whose private columns the view shows, in its order."""
    return [c.removesuffix(" private") for c in df.columns if c.endswith(" private")]


def _private_header(df: pd.DataFrame, sort: Sort, top: list[str], sub: list[str]) -> None:
    """The private split's header cells: a group per dataset (private, public − private, fits), then the
    commitments' column."""
    for ds in _private_datasets(df):
        label = html.escape(f"{dataset_label(ds)}: private split")
        top.append(f'<th colspan="3" class="ds private" title="{html.escape(ds)} private split">{label}</th>')
        for c, name, key in zip(private_columns(ds), ("privateᴱᵂ", "public − private", "fits"),
                                ("private", "public-private", "fits"), strict=True):  # fmt: skip
            sub.append(_th(name, c, HEADER_HELP[key], sort))
    if PRIVATE_SPLIT in df.columns:
        top.append(_th(PRIVATE_SPLIT, PRIVATE_SPLIT, HEADER_HELP[PRIVATE_SPLIT], sort, ' rowspan="2"'))


def _private_datasets_of(cols: Iterable[str]) -> list[str]:
    return [c.removesuffix(" private") for c in cols if c.endswith(" private")]


def _private_cells(cols: dict[str, list[Any]], i: int, datasets: list[str]) -> list[str]:
    cells = []
    for ds in datasets:
        priv, diff, flag = private_columns(ds)
        for c in (priv, diff):
            cells.append(_num_cell(cols[c][i], *(cols[b][i] for b in interval_columns(c))))
        mark = str(cols[flag][i])
        cls = "fits flagged" if mark == FITS_MARK else "fits"
        cells.append(f'<td class="{cls}">{html.escape(mark) if mark else MISSING}</td>')
    if PRIVATE_SPLIT in cols:
        cells.append(f'<td class="commitment">{html.escape(str(cols[PRIVATE_SPLIT][i])) or MISSING}</td>')
    return cells


@dataclass(frozen=True)
class BoardParts:
    """A view as HTML in parts: everything before the rows, one string per row, everything after.

    :attr:`html` is the whole table; :attr:`payload` is what the page's table component gets
    (``assets/board_table.js``): the same parts as JSON, so the browser draws the first ``chunk``
    rows at once and the rest as they are scrolled to, never laying out 500 rows on a filter.
    """

    head: str
    rows: tuple[str, ...]
    tail: str

    @cached_property
    def html(self) -> str:
        return self.head + "".join(self.rows) + self.tail

    def payload(self, chunk: int, view: str = "") -> str:
        """The parts as JSON for the page; ``chunk`` rows are drawn at once (0: all); ``view`` names the
        view (a redraw of the same view keeps the reader's place in the table)."""
        return json.dumps(
            {"head": self.head, "rows": self.rows, "tail": self.tail, "chunk": chunk, "view": view}
        )


def _row(
    cols: dict[str, list[Any]],
    i: int,
    dcols: list[str],
    meta: tuple[list[str], list[str]],
    private: list[str],
) -> str:
    rank = str(cols[RANK][i])
    caveat = "; ".join(str(cols[m][i]) for m in meta[1] if str(cols[m][i]))
    cells = [
        f'<td class="rank">{html.escape(rank)}</td>',  # as the CSV has it ("baseline: chance")
        _judge_cell(str(cols["Judge"][i]), rank, caveat),
    ]
    overall = _num_cell(cols[dcols[0]][i], *(cols[b][i] for b in interval_columns(dcols[0])))
    cells.append(overall.replace('<td class="num', '<td class="overall num', 1))
    cells += [_meta_cell(m, cols[m][i]) for m in meta[0]]
    cells += [_num_cell(cols[c][i], *(cols[b][i] for b in interval_columns(c))) for c in dcols[1:]]
    cells += _private_cells(cols, i, private)
    cells += [f'<td class="caveats">{html.escape(str(cols[m][i]))}</td>' for m in meta[1]]
    cls = ' class="baseline"' if rank.startswith(BASELINE) else ""
    return f"<tr{cls}>{''.join(cells)}</tr>"


def view_parts(df: pd.DataFrame, sort: Sort = DEFAULT_SORT, empty: str = "No judge to show.") -> BoardParts:
    """The view as an HTML table in a horizontally scrolling box; ``empty`` is said when no row is
    left, and above the table when only baselines are (they stay in every filtered view)."""
    note = f'<div class="dhp-empty" role="status">{html.escape(empty)}</div>'
    if df.empty:
        return BoardParts(note, (), "")
    dcols = value_columns(df)
    meta = _meta_of(df)
    private = _private_datasets_of(df.columns.tolist())  # once for the view, not once a row
    cols: dict[str, list[Any]] = {c: df[c].tolist() for c in df.columns}
    first = html.escape(str(cols["Judge"][0]))
    only_baselines = all(str(r).startswith(BASELINE) for r in cols[RANK])
    head = (
        (note if only_baselines else "")
        + f'<div class="dhp-board-wrap"><table class="dhp-board" data-rows="{len(df)}" data-first="{first}">'
        f"{_header(df, sort)}<tbody>"
    )
    return BoardParts(
        head, tuple(_row(cols, i, dcols, meta, private) for i in range(len(df))), "</tbody></table></div>"
    )


def view_html(df: pd.DataFrame, sort: Sort = DEFAULT_SORT, empty: str = "No judge to show.") -> str:
    """The whole view as HTML (:func:`view_parts` joined)."""
    return view_parts(df, sort, empty).html


def _meta_cell(col: str, v: object) -> str:
    if col == STABILITY:
        text = MISSING if not isinstance(v, float) or not math.isfinite(v) else f"{v:.2f}"
        return f'<td class="num">{text}</td>'
    if isinstance(v, float):
        return f'<td class="num">{"?" if not math.isfinite(v) else f"{v:g}"}</td>'
    return f"<td>{html.escape(str(v))}</td>"


def empty_message(datasets: Sequence[str] | None, search: str, any_results: bool) -> str:
    """Why a view has no row, in words."""
    if not any_results:
        return "No results yet: submit a judge (Submit tab) or score one with `dhp score`."
    if datasets is not None and not datasets:
        return "No dataset is ticked: tick at least one under “Filters and columns”."
    if search.strip():
        return f"No judge matches “{search.strip()}” with the chosen filters."
    return "No judge matches the chosen filters (datasets, family, size)."
