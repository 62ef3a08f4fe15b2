"""The judge page's private split block (issue 39): aggregates only.

Per dataset the judge has a private result of (on the dataset's current commitment, which the board's
:mod:`dhp.leaderboard.board.private_split` chooses): the commitment, the items, the private D_avg^EW and
D_min^EW with their intervals, and the paired difference public − private at the same numbers of pairs
with its interval and the "fits the public rows" flag (:func:`dhp.scoring.fits.fits_of_results`). A
private result holds nothing else (no item score, no item id, no judge output), and nothing else is shown
of it: no misses, no changed words, no texts, no score distributions.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from dhp.leaderboard.board.private_split import FITS_MARK, NOT_FLAGGED
from dhp.scoring.fits import Fit, fits_of_results
from dhp.scoring.results import CIModel, Result
from dhp.spec import BENCHMARK

__all__ = ["private_block"]

_HEAD = ("dataset", "commitment", "items", "private D_avg^EW", "private D_min^EW", "public − private at n",
         "n", "fits the public rows?")  # fmt: skip


def _with_ci(x: float | None, ci: CIModel | None) -> str:
    if x is None:
        return "–"
    return f"{x:.2f}" if ci is None else f"{x:.2f} [{ci.low:.2f}, {ci.high:.2f}]"


def _fit(public: Result | None, private: Result) -> Fit | str:
    if public is None:
        return "no public result to compare with"
    try:
        return fits_of_results(public, private)
    except ValueError as e:
        return f"no fit: {' '.join(str(e).split())}"


def _row(public: Result | None, private: Result) -> list[str]:
    s, ds = private.summary, private.dataset
    spec = BENCHMARK.get(ds.name)
    fit = _fit(public, private)
    if isinstance(fit, Fit):
        iv = fit.interval
        diff = f"{fit.difference:.2f}" + ("" if iv is None else f" [{iv.low:.2f}, {iv.high:.2f}]")
        cells = [diff, str(fit.n_pairs), FITS_MARK if fit.fits_public else NOT_FLAGGED]
    else:
        cells = ["–", "–", fit]
    return [
        spec.pretty_name.removeprefix("DHP ") if spec else ds.name,
        (ds.commitment or "")[:12],
        str(ds.n_items),
        _with_ci(s.d_avg_ew, s.ci.get("d_avg_ew")),
        _with_ci(s.d_min_ew, s.ci.get("d_min_ew")),
        *cells,
    ]


def private_block(public: Sequence[Result], private: Sequence[Result]) -> str:
    """The block as HTML (every value escaped); empty when the judge has no private result."""
    if not private:
        return ""
    by_ds = {r.dataset.name: r for r in public}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in _HEAD)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _row(by_ds.get(r.dataset.name), r)) + "</tr>"
        for r in private
    )
    note = (
        "Scored on each dataset's private split: rows no one has seen, built with a secret seed; its results "
        "hold aggregates only, so nothing else of it is shown. The difference reads both splits at the same "
        "number of pairs of each perturbation (n: the most); the judge fits the public rows when its 95% "
        "interval lies above 0. The commitment names the split (the SHA-256 over its seed and rows)."
    )
    return (
        f'<div class="dhp-private"><h3>Private split</h3><p>{html.escape(note)}</p>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
