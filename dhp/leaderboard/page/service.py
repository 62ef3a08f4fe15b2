"""The logic behind the leaderboard's UI, without Gradio: stores, caches, views, submissions, votes.

:class:`BoardService` reads the stores (cheaply, through caches) and answers every question the UI asks
with plain values (frames, strings, file paths); it is testable without a browser and thread-safe.
"""

from __future__ import annotations

import hashlib
import html
import math
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from dhp.fsutil import atomic_write_text
from dhp.leaderboard.board import columns, private_split, table
from dhp.leaderboard.board.loading import LoadedResult, LoadReport, ResultsIndex, latest_results
from dhp.leaderboard.board.rankjob import RankJob
from dhp.leaderboard.board.ranks import RankSamples
from dhp.leaderboard.board.stores import Store, open_store
from dhp.leaderboard.page import board_html
from dhp.leaderboard.page.formatting import plain_md
from dhp.leaderboard.submissions.queue import RequestQueue, hash_user, new_request
from dhp.leaderboard.submissions.survey import (
    VotesStore,
    WeightsVersion,
    derive_weights,
    get_task,
    reweighted_summaries,
    tally,
    weights_rows,
)
from dhp.leaderboard.submissions.validation import (
    Existing,
    Mode,
    Resolver,
    ValidationError,
    allowed_ports_from_env,
    find_duplicate,
    judge_key,
    validate_submission,
)
from dhp.naming import HUB_DATA
from dhp.scoring.results import Summary
from dhp.spec import DATASET_NAMES

__all__ = ["DEFAULT_WEIGHTS", "SURVEY_WEIGHTS", "AppConfig", "BoardService", "ViewChoice"]

DEFAULT_WEIGHTS = "default"
SURVEY_WEIGHTS = "survey"


#: the temporary folders of this process's configurations, removed when it ends (at exit)
_TEMPORARY: list[tempfile.TemporaryDirectory[str]] = []


def _temporary_folder(prefix: str) -> Path:
    """A new temporary folder that lives as long as this process: removed at its exit, not left behind."""
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    _TEMPORARY.append(tmp)  # kept: a collected TemporaryDirectory would remove its folder at once
    return Path(tmp.name)


@dataclass
class AppConfig:
    results: Store
    requests: Store
    votes: Store
    mode: Mode = "local"
    resolver: Resolver | None = None  # DNS resolver for SSRF checks (tests inject one)
    rate_limit: int = 20  # submissions per user per window
    rate_window_s: float = 3600.0
    refresh_s: float = 15.0  # how often open pages look for new results
    list_ttl_s: float = (
        2.0  # a listing of the results store this recent is not redone (see BoardService.report)
    )
    title: str = "DHP discernment leaderboard"
    board_chunk: int = 50  # table rows the browser draws at once; more as the table is scrolled (0: all)
    judge_pages_ahead: bool = True  # every judge's page drawn in the background once the results are read
    allowed_ports: frozenset[int] = field(
        default_factory=allowed_ports_from_env
    )  # Space mode: 443 only by default
    survey_min_ballots: int = field(
        default_factory=lambda: int(os.environ.get("DHP_SURVEY_MIN_BALLOTS", "5"))
    )
    sign_in: bool = field(
        default_factory=lambda: bool(os.environ.get("SPACE_ID"))
    )  # HF OAuth works on a Space only
    csv_dir: Path = field(default_factory=lambda: _temporary_folder("dhp-leaderboard-csv-"))
    # where the judge page reads missed pairs' texts: "dhp" (the Hub datasets), a folder of dataset
    # folders, or None (scores only); $DHP_LEADERBOARD_DATA, else the Hub on a Space
    data: str | None = field(
        default_factory=lambda: (
            os.environ.get("DHP_LEADERBOARD_DATA") or (HUB_DATA if os.environ.get("SPACE_ID") else None)
        )
    )

    @classmethod
    def local(
        cls,
        root: str | os.PathLike[str],
        *,
        results: str | None = None,
        requests: str | None = None,
        **kw: Any,
    ) -> AppConfig:
        base = Path(root)
        return cls(
            results=open_store(results or str(base / "results")),
            requests=open_store(requests or str(base / "requests")),
            votes=open_store(str(base / "votes")),
            **kw,
        )


@dataclass(frozen=True)
class ViewChoice:
    """What the user chose to see: weights version, weighting, filters, columns, search. Hashable,
    so it keys the render cache."""

    weights: str = DEFAULT_WEIGHTS
    weighted: bool = True
    datasets: tuple[str, ...] | None = None
    families: tuple[str, ...] | None = None
    sizes: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None
    search: str = ""
    sort: str = ""  # "<column>|asc" or "<column>|desc" (a header click); "" ranks by Overall
    tasks: bool = False  # the datasets outside the benchmark (user tasks), shown apart

    @classmethod
    def of(
        cls,
        *,
        weights: str = DEFAULT_WEIGHTS,
        weighted: bool = True,
        datasets: Sequence[str] | None = None,
        families: Sequence[str] | None = None,
        sizes: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        search: str | None = "",
        sort: str | None = "",
        tasks: bool = False,
    ) -> ViewChoice:
        def tup(x: Sequence[str] | None) -> tuple[str, ...] | None:
            return None if x is None else tuple(x)

        return cls(
            weights,
            weighted,
            tup(datasets),
            tup(families),
            tup(sizes),
            tup(columns),
            search or "",
            sort or "",
            tasks,
        )

    def key(self) -> str:
        """A short stable name of this view: the page keeps its scroll position and drawn rows when a
        live refresh redraws the same view with new results, and starts at the top for another view."""
        return hashlib.sha1(repr(self).encode("utf-8")).hexdigest()[:12]


def _ballots(n: int) -> str:
    return f"{n} ballot" if n == 1 else f"{n} ballots"


class BoardService:
    """Reads the stores (with caches) and answers the UI's questions. Thread-safe."""

    def __init__(self, cfg: AppConfig) -> None:
        self.cfg = cfg
        self.index = ResultsIndex(cfg.results)
        self.fits = private_split.PrivateFits(self.index.full)  # the private split's fits, per file version
        self.queue = RequestQueue(cfg.requests)
        self.votes = VotesStore(cfg.votes)
        self.ranks = RankJob(cfg.results.read)  # the rank ranges' replicates, in the background
        # The page never waits for rank ranges (rows first, ranked by their point estimates, and an
        # indicator); a direct caller (a test, a script) does unless it says otherwise.
        self.wait_ranks = True
        self._ranked_of: tuple[int, list[LoadedResult]] | None = None  # generation, its ranked results
        self._ranked_generation = -1  # the newest results generation whose rank replicates are all in
        self.warmers: list[Callable[[], None]] = []  # more work :meth:`warm` does (the app's default view)
        self._warming = 0  # warm() calls under way, before their rank job
        self._lock = threading.Lock()
        self._submit_lock = threading.Lock()
        # (results generation, weights, private fits in) -> the full table; (generation, weights) -> the
        # joint bootstrap of its rank ranges
        self._frames: dict[tuple[int, str, bool], pd.DataFrame] = {}
        self._samples: dict[tuple[int, str], RankSamples] = {}
        self._report: LoadReport | None = None  # the last listing report() answers with
        self._listed_at = -math.inf  # when it was made (monotonic)
        self._relisting = False  # a background listing is under way
        self._names: tuple[int, list[str], list[str]] | None = None  # generation, families, judges
        self._pairs: tuple[int, dict[str, dict[str, private_split.PrivatePair]]] | None = None
        # generation, newest results, the private split's pairs (judge -> dataset -> pair)
        self._latest: (
            tuple[int, dict[str, dict[str, LoadedResult]], dict[str, dict[str, private_split.PrivatePair]]]
            | None
        ) = None
        self._rendered: OrderedDict[tuple[Any, ...], tuple[board_html.BoardParts, str, str]] = OrderedDict()
        self._survey: tuple[tuple[str, ...], WeightsVersion, dict[str, dict[str, dict[str, int]]]] | None = (
            None
        )

    # -- results --------------------------------------------------------------------------------
    def report(self, max_age_s: float | None = None) -> LoadReport:
        """The results. With ``max_age_s``: a listing of the store at most that old (0: list it now).

        By default (page loads, filters, the timer) no one waits for a listing (3000 files, or a
        Hub round trip): the last listing is answered at once and, when it is older than
        ``cfg.list_ttl_s``, the store is listed again in the background for the next request. Only
        the very first call, or ``cfg.list_ttl_s <= 0``, waits for a listing.
        """
        if max_age_s is not None or self.cfg.list_ttl_s <= 0:
            return self._keep(self.index.load(self.cfg.list_ttl_s if max_age_s is None else max_age_s))
        with self._lock:
            rep, listed_at = self._report, self._listed_at
        if rep is None:
            return self._keep(self.index.load(0.0))
        if time.monotonic() - listed_at >= self.cfg.list_ttl_s:
            self._relist_in_background()
        return rep

    def ready(self) -> LoadReport | None:
        """The last listing, or ``None`` while the first (cold) scan is under way; never waits."""
        with self._lock:
            return self._report

    def warm(self) -> None:
        """The work every page needs, done once per results generation and off the request path: the
        first listing (the cold scan), the table, the default view's render, the rank
        replicates started in the background (the listed files are validated in full from the first
        request on: :meth:`ranks_ready`)."""
        with self._lock:
            self._warming += 1
        try:
            rep = self.report()
            for warm in self.warmers:
                warm()
        finally:
            with self._lock:
                self._warming -= 1
        # after the default view: the rank job's child takes a core for a minute (issue 37's cold start)
        self.ranks.get(self._ranked_results(rep))

    def ranks_ready(self) -> bool:
        """The rank ranges of the current results are computed (starts them if not). Asked by every
        request, so answered from the generation last found ready once it is."""
        rep = self.ready()
        if rep is None:
            return False
        if self._ranked_generation == rep.generation:
            return True
        if self._warming:  # the rows first: neither the rank job nor the validation starts meanwhile
            return False
        # the whole files, once the rows are made (not during the start-up): a bad one leaves the table
        self.index.validate_in_background(then=self._relist_in_background)
        if self.ranks.get(self._ranked_results(rep)) is None:
            return False
        with self._lock:
            self._ranked_generation = max(self._ranked_generation, rep.generation)
        return True

    def board_version(self) -> int:
        """Changes whenever what the board shows may change: 0 during the cold scan, then with the
        results generation, when the rank ranges of a generation are filled in (the lowest bit) and when
        its private split's differences are."""
        rep = self.ready()
        return (
            0 if rep is None else 4 * rep.generation + 2 * int(self.fits_ready(rep)) + int(self.ranks_ready())
        )

    def status(self) -> str:
        """What the board is still computing, in words ("" when nothing): the page's indicator."""
        rep = self.ready()
        if rep is None:
            done, todo = self.index.progress()
            return f"Reading the results: {done} of {todo} files…" if todo else "Listing the results…"
        if not self.fits_ready(rep):
            done, todo = self.fits.progress(self._private_pairs(rep))
            return f"The private split's public − private differences are being computed ({done} of {todo})."
        if self.ranks_ready():
            return ""
        done, todo = self.ranks.progress()
        return (
            f"Rank ranges are being computed (joint bootstrap, {done} of {todo} results); until then "
            "the Rank column ranks by the point estimate."
        )

    def _ranked_results(self, rep: LoadReport) -> list[LoadedResult]:
        """The results the rank ranges draw on: the newest per judge and dataset (as the table)."""
        with self._lock:
            if self._ranked_of is not None and self._ranked_of[0] == rep.generation:
                return self._ranked_of[1]
        ranked = [lr for per in latest_results(rep.results).values() for lr in per.values()]
        with self._lock:
            self._ranked_of = (rep.generation, ranked)
        return ranked

    def _keep(self, rep: LoadReport) -> LoadReport:
        """Remember ``rep`` as the last listing (never replacing a newer one)."""
        with self._lock:
            if self._report is None or rep.generation >= self._report.generation:
                self._report, self._listed_at = rep, time.monotonic()
            return self._report

    def _relist_in_background(self) -> None:
        with self._lock:
            if self._relisting:
                return
            self._relisting = True

        def relist() -> None:
            try:
                before = self.ready()
                rep = self._keep(self.index.load(0.0))
                if before is None or rep.generation != before.generation:
                    self.warm()  # new results: the next page finds the table and default view ready
            finally:
                with self._lock:
                    self._relisting = False

        threading.Thread(target=relist, name="dhp-list-results", daemon=True).start()

    def survey_state(self) -> tuple[WeightsVersion, dict[str, dict[str, dict[str, int]]], list[str]]:
        ballots, bad = self.votes.ballots()
        key = tuple(f"{b.task}/{b.voter}/{b.created_at}" for b in ballots)
        with self._lock:
            if self._survey is None or self._survey[0] != key:
                counts = tally(ballots)
                self._survey = (key, derive_weights(counts, len(ballots)), counts)
            return self._survey[1], self._survey[2], bad

    def weights_choices(self) -> list[tuple[str, str]]:
        """The weights versions one may choose: the survey's only once it has enough ballots."""
        version, _, _ = self.survey_state()
        choices = [("as scored (default weights)", DEFAULT_WEIGHTS)]
        if version.n_ballots >= self.cfg.survey_min_ballots:
            choices.append((f"survey votes ({_ballots(version.n_ballots)}, {version.id})", SURVEY_WEIGHTS))
        return choices

    def survey_status(self) -> str:
        """How many ballots the survey has, and how many it needs before its weights can be chosen."""
        n, need = self.survey_state()[0].n_ballots, self.cfg.survey_min_ballots
        if n >= need:
            return f"Survey weights: {_ballots(n)}, selectable above the table."
        return f"Survey weights: {_ballots(n)} so far; they become selectable at {need}."

    def frame(self, weights: str = DEFAULT_WEIGHTS) -> tuple[pd.DataFrame, LoadReport]:
        _, (full, _), rep = self._frame(weights, wait_ranks=False)
        return full, rep

    def _frame(
        self, weights: str, wait_ranks: bool
    ) -> tuple[tuple[int, str, bool], tuple[pd.DataFrame, RankSamples | None], LoadReport]:
        """The full table and its rank samples (``None`` while the rank job runs, unless
        ``wait_ranks``), their cache key (results generation, weights version, whether the private
        split's fits are in) and the report."""
        rep = self.report()
        summaries: dict[str, Summary] | None = None
        key_w = DEFAULT_WEIGHTS
        if weights == SURVEY_WEIGHTS:
            version, _, _ = self.survey_state()
            if version.n_ballots < self.cfg.survey_min_ballots:
                raise ValueError(
                    f"survey weights need {self.cfg.survey_min_ballots} ballots, not {version.n_ballots}"
                )
            key_w = version.id
        key = (rep.generation, key_w, self.fits_ready(rep))  # the table is redone once the fits are in
        with self._lock:
            full, samples = self._frames.get(key), self._samples.get(key[:2])
        if full is None:
            if weights == SURVEY_WEIGHTS:
                summaries = reweighted_summaries(rep.results, version)
            full = table.build_frame(rep.results, summaries)
            full = self._with_private(full, rep, wait=wait_ranks)
            with self._lock:
                self._frames = {k: v for k, v in self._frames.items() if k[0] == rep.generation}
                self._frames[key] = full
        if samples is None:
            ranked = self.ranks.get(self._ranked_results(rep), wait=wait_ranks)
            if ranked is not None:
                ew = None
                if weights == SURVEY_WEIGHTS:
                    ew = {
                        ds: {p: dict(e.weights) for p, e in w.entries.items()}
                        for ds, w in version.weights.items()
                    }
                samples = table.rank_samples(ranked, ew)
                with self._lock:
                    self._samples = {k: v for k, v in self._samples.items() if k[0] == rep.generation}
                    self._samples[key[:2]] = samples
        return key, (full, samples), rep

    def _private_pairs(self, rep: LoadReport) -> dict[str, dict[str, private_split.PrivatePair]]:
        """The private split's pairs of a generation (:func:`~dhp.leaderboard.board.private_split.private_pairs`)."""
        with self._lock:
            if self._pairs is not None and self._pairs[0] == rep.generation:
                return self._pairs[1]
        pairs = private_split.private_pairs(rep.results)
        with self._lock:
            self._pairs = (rep.generation, pairs)
        return pairs

    def fits_ready(self, rep: LoadReport | None = None) -> bool:
        """Whether every public − private difference the table shows is made (true without a private split)."""
        rep = rep or self.ready()
        if rep is None:
            return False
        done, todo = self.fits.progress(self._private_pairs(rep))
        return done == todo

    def _with_private(self, full: pd.DataFrame, rep: LoadReport, wait: bool = False) -> pd.DataFrame:
        """The private split's columns joined to the full table (:mod:`dhp.leaderboard.board.private_split`),
        on each dataset's current commitment; the fits made once per version of their files, in the
        background (``wait``: now), their cells empty until then."""
        pairs = self._private_pairs(rep)
        if not pairs:
            return full
        datasets = table.present_datasets(full)
        return private_split.with_private(
            full, private_split.private_frame(pairs, self.fits.of(pairs, wait=wait), datasets)
        )

    def view(
        self, choice: ViewChoice | None = None, *, wait_ranks: bool | None = None, **choices: Any
    ) -> pd.DataFrame:
        """The table for a :class:`ViewChoice` (or its fields as keywords); its Rank column from the
        joint bootstrap, or (``wait_ranks`` false and the rank job still running) the point estimate."""
        c = choice or ViewChoice.of(**choices)
        wait = self.wait_ranks if wait_ranks is None else wait_ranks
        _, (full, samples), _ = self._frame(c.weights, wait)
        return self._select(full, samples, c)

    def _select(self, full: pd.DataFrame, samples: RankSamples | None, c: ViewChoice) -> pd.DataFrame:
        cols = list(table.DEFAULT_META) + list(columns.KINDS) if c.columns is None else list(c.columns)
        return table.select_view(
            full,
            datasets=self._datasets(full, c),
            weighted=c.weighted,
            kinds=[k for k in columns.VIEW_KINDS if k in cols],
            meta=[col for col in table.META_COLUMNS if col in cols],
            search=c.search,
            families=c.families,
            sizes=c.sizes,
            sort=table.Sort.parse(c.sort),
            samples=samples,
            private=columns.PRIVATE_SPLIT in cols,
        )

    @staticmethod
    def _datasets(full: pd.DataFrame, c: ViewChoice) -> list[str]:
        """The benchmark datasets chosen, or (``tasks``) every dataset outside the benchmark."""
        if c.tasks:
            return [d for d in table.present_datasets(full) if d not in DATASET_NAMES]
        return [d for d in DATASET_NAMES if c.datasets is None or d in c.datasets]

    def task_datasets(self) -> list[str]:
        """Datasets with results that are not one of the benchmark's (user tasks)."""
        return self._datasets(self.frame()[0], ViewChoice(tasks=True))

    def render(self, choice: ViewChoice | None = None, **choices: Any) -> tuple[str, str]:
        """A view as HTML (:func:`board_html.view_html`) and the path of a CSV of exactly that view."""
        parts, path = self.render_parts(choice, **choices)
        return parts.html, path

    def render_parts(
        self, choice: ViewChoice | None = None, *, wait_ranks: bool | None = None, **choices: Any
    ) -> tuple[board_html.BoardParts, str]:
        """A view as the page shows it (:func:`board_html.view_parts`) and the path of a CSV of
        exactly that view. Cached per results generation, rank state and choices: every page load
        asks for the default view, and the timer re-asks for unchanged ones. While the rank job runs
        (and ``wait_ranks`` is false), the rows come ranked by their point estimates, under a note."""
        c = choice or ViewChoice.of(**choices)
        wait = self.wait_ranks if wait_ranks is None else wait_ranks
        fkey, (full, samples), rep = self._frame(c.weights, wait)
        key = (fkey, c, samples is not None)
        with self._lock:
            hit = self._rendered.get(key)
            if hit is not None:
                self._rendered.move_to_end(key)
        if hit is None:
            df = self._select(full, samples, c)
            empty = board_html.empty_message(c.datasets, c.search, bool(rep.results))
            parts = board_html.view_parts(df, table.Sort.parse(c.sort), empty)
            if samples is None and self.status():
                note = f'<div class="dhp-ranks-pending" role="status">{html.escape(self.status())}</div>'
                parts = board_html.BoardParts(note + parts.head, parts.rows, parts.tail)
            hit = (parts, *self._csv_text(df))
            with self._lock:
                self._rendered[key] = hit
                self._rendered = OrderedDict((k, v) for k, v in self._rendered.items() if k[0][0] == fkey[0])
                while len(self._rendered) > 64:
                    self._rendered.popitem(last=False)
        parts, name, text = hit
        return parts, self._csv_file(name, text)

    @staticmethod
    def _csv_text(df: pd.DataFrame) -> tuple[str, str]:
        text = table.to_csv(df)
        return f"dhp-leaderboard-{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv", text

    def _csv_file(self, name: str, text: str) -> str:
        """The CSV in ``cfg.csv_dir``, named by its content: written once, rewritten if pruned."""
        path = self.cfg.csv_dir / name
        if not path.is_file():
            atomic_write_text(path, text)

            def age(p: Path) -> float:
                try:
                    return p.stat().st_mtime
                except OSError:  # pruned meanwhile by another thread
                    return -math.inf

            for old in sorted(self.cfg.csv_dir.glob("dhp-leaderboard-*.csv"), key=age)[:-50]:  # keep it small
                if old != path:
                    old.unlink(missing_ok=True)
        return str(path)

    def _name_lists(self) -> tuple[list[str], list[str]]:
        full, rep = self.frame()
        with self._lock:
            if self._names is None or self._names[0] != rep.generation:
                fams = sorted(set(full["Family"])) if len(full) else []
                judges = sorted({r.record.judge.name for r in rep.results}, key=str.lower)
                self._names = (rep.generation, fams, judges)
            return list(self._names[1]), list(self._names[2])

    def families(self) -> list[str]:
        return self._name_lists()[0]

    def judges(self) -> list[str]:
        return self._name_lists()[1]

    def judge_results(self, judge: str) -> list[LoadedResult]:
        """The judge's newest result per dataset, in benchmark order (one pass over the results per
        generation: the judge pages ask for every judge's)."""
        rep = self.report()
        with self._lock:
            cached = self._latest
        if cached is None or cached[0] != rep.generation:
            cached = (rep.generation, latest_results(rep.results), private_split.private_pairs(rep.results))
            with self._lock:
                self._latest = cached
        order = {d: i for i, d in enumerate(DATASET_NAMES)}
        return sorted(
            cached[1].get(judge, {}).values(),
            key=lambda r: (order.get(r.record.dataset.name, 99), r.record.dataset.name),
        )

    def judge_page_results(self, judge: str) -> list[LoadedResult]:
        """What the judge page reads: :meth:`judge_results`, then the judge's private split results on the
        current commitments (aggregates only; the page shows them apart, :mod:`.private_view`)."""
        public = self.judge_results(judge)
        with self._lock:
            cached = self._latest
        pairs = cached[2].get(judge, {}) if cached is not None else {}
        return public + [
            pairs[lr.record.dataset.name].private for lr in public if lr.record.dataset.name in pairs
        ]

    def existing(self) -> list[Existing]:
        out = list(self.queue.existing())
        for r in self.report().results:
            j = r.record.judge
            out.append(
                Existing(j.name, judge_key(j.judge, r.record.scoring.mode), f"leaderboard row {j.name!r}")
            )
        return out

    # -- submissions ----------------------------------------------------------------------------
    def sign_in_needed(self, what: str) -> str:
        """Why an anonymous user cannot ``what`` (Space mode): how to sign in, or that one cannot here."""
        if self.cfg.sign_in:
            return f"Sign in with Hugging Face (the button above) to {what}."
        return (
            f"This server runs in Space mode outside a Hugging Face Space, where sign-in is not available, "
            f"so it cannot {what}. Deploy it as a Space (`dhp space init`) or run it with `--mode local`."
        )

    def submit(self, fields: dict[str, Any], user: str | None) -> str:
        """Validate and queue a submission. Returns a success message; raises ValidationError."""
        if user is None:
            raise ValidationError("user", self.sign_in_needed("submit a judge"))
        sub = validate_submission(
            **fields, app_mode=self.cfg.mode, resolver=self.cfg.resolver, allowed_ports=self.cfg.allowed_ports
        )
        submitter = hash_user(user)
        with self._submit_lock:
            recent = self.queue.count_recent(submitter, self.cfg.rate_window_s)
            if recent >= self.cfg.rate_limit:
                window = f"{self.cfg.rate_window_s / 3600:g} h"
                raise ValidationError(
                    "user",
                    f"Rate limit reached: at most {self.cfg.rate_limit} submissions per {window}. Try later.",
                )
            dup = find_duplicate(sub, self.existing())
            if dup:
                raise ValidationError("duplicate", dup)
            req = self.queue.submit(new_request(sub, submitter))
        return f"Queued **{plain_md(sub.judge_name)}** as request `{req.id}` (PENDING). Follow it in the Queue tab."

    def queue_frame(self) -> tuple[pd.DataFrame, list[str]]:
        reqs, problems = self.queue.load()
        rows = [
            {
                "Request": r.id,
                "Judge": r.judge.name,
                "Model": r.judge.hf_model_id or r.judge.request_model or "",
                "Host": r.public_host,
                "Protocol": r.judge.route,
                "Mode": r.mode,
                "State": r.state.value,
                "Submitted": r.created_at,
                "Updated": r.updated_at,
                "Reason": r.public_reason,
            }
            for r in reversed(reqs)
        ]
        rows += [  # a file the worker cannot read is a request that failed: shown, not left out
            {"Request": Path(path).stem, "Judge": "", "Model": "", "Host": "", "Protocol": "", "Mode": "",
             "State": "FAILED", "Submitted": "", "Updated": "",
             "Reason": "the request file cannot be read (not a valid request); the worker skips it"}
            for path in sorted(self.queue.unreadable())
        ]  # fmt: skip
        cols = [
            "Request",
            "Judge",
            "Model",
            "Host",
            "Protocol",
            "Mode",
            "State",
            "Submitted",
            "Updated",
            "Reason",
        ]
        return pd.DataFrame(rows, columns=cols), problems

    # -- survey ---------------------------------------------------------------------------------
    def vote(self, task_id: str, answers: dict[str, str | None], user: str | None) -> str:
        if user is None:
            raise ValueError(self.sign_in_needed("vote"))
        task = get_task(task_id)
        self.votes.cast(task, hash_user(user), answers)
        return f"Thank you: your ballot for {task.label} is stored (a new ballot replaces your earlier one)."

    def weights_frame(self) -> pd.DataFrame:
        version, counts, _ = self.survey_state()
        return pd.DataFrame(weights_rows(counts, version, self.cfg.survey_min_ballots))
