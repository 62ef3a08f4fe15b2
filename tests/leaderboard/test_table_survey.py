"""Table logic (pure), results loading (bad files skipped), survey votes and reweighting."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import math
import re
import threading
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dhp.leaderboard.board import columns, table
from dhp.leaderboard.board.loading import LoadedResult, ResultsIndex, parse_many
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page import board_html
from dhp.leaderboard.submissions.survey import (
    TASKS,
    VotesStore,
    derive_weights,
    get_task,
    reweighted_summaries,
    tally,
    validate_ballot,
    weights_rows,
)
from dhp.scoring.result_files import dump_result
from dhp.scoring.summary import reweight
from dhp.spec import BENCHMARK
from tests.leaderboard.factory import make_result, renamed


def _loaded(name: str, ds: str, **kw: object) -> LoadedResult:
    return LoadedResult(f"{name}/{ds}.json", make_result(name, ds, with_scores=False, **kw))  # type: ignore[arg-type]


def test_results_index_skips_bad_files_and_caches(results_dir: Path) -> None:
    (results_dir / "broken.json").write_text("{ nope")
    (results_dir / "schema.json").write_text('{"schema_version": "0.1"}')
    (results_dir / "notes.txt").write_text("ignored")
    idx = ResultsIndex(LocalStore(results_dir))
    rep = idx.load()
    assert len(rep.results) == 18
    assert len(rep.problems) == 2 and any("broken.json" in p for p in rep.problems)
    assert all(r.result.scores is None for r in rep.results)  # cache keeps the light form
    assert idx.load().generation == rep.generation  # nothing changed: same generation
    (results_dir / "broken.json").unlink()
    rep2 = idx.load()
    assert rep2.generation > rep.generation and len(rep2.problems) == 1
    full = idx.full(rep.results[0].path)
    assert full.scores is not None


def test_parse_many_is_pure() -> None:
    ok, bad = parse_many(
        [("a.json", dump_result(make_result("j", "summeval", with_scores=False))), ("b.json", "[]")]
    )
    assert len(ok) == 1 and ok[0].path == "a.json"
    assert bad == ["b.json: a result must be a JSON object"]


def test_the_listing_parses_summaries_and_leaves_the_scores_to_their_readers() -> None:
    """Issue 37: a cold start parsed every file's item scores, which the table never reads. The listing
    keeps what the full parse keeps (scores dropped); scores that are not valid are found where they
    are read (the judge page, the rank job: ``parse_result``), not at the listing."""
    import json

    from dhp.scoring.result_files import parse_result
    from dhp.scoring.results import ResultError

    text = dump_result(make_result("j", "summeval", n_items=20))
    assert parse_result(text, "a.json", with_scores=False) == parse_result(text).model_copy(
        update={"scores": None}
    )
    doc = json.loads(text)
    doc["scores"]["original"] = {"not": "a list"}
    broken = json.dumps(doc)
    (ok,), bad = parse_many([("a.json", broken)])
    assert bad == [] and ok.result.judge.name == "j"
    with pytest.raises(ResultError, match=r"a\.json: invalid result"):
        parse_result(broken, source="a.json")
    with pytest.raises(ResultError, match=r"b\.json: not valid JSON"):
        parse_result("{ nope", "b.json", with_scores=False)


def test_build_frame_one_row_per_judge_newest_result() -> None:
    rs = [
        _loaded("A", "summeval", skill=0.1, created_at="2025-01-01T00:00:00Z"),
        LoadedResult(
            "A/summeval-new.json",
            make_result("A", "summeval", skill=0.9, created_at="2025-02-01T00:00:00Z", with_scores=False),
        ),
        _loaded("A", "story-cloze", skill=0.9),
        _loaded("B", "summeval", skill=0.0, protocol="builtin"),
    ]
    df = table.build_frame(rs)
    assert list(df["Judge"]) == ["A", "B"]
    a = df.set_index("Judge").loc["A"]
    assert a["summeval D_avg^EW"] == pytest.approx(rs[1].result.summary.d_avg_ew)
    assert a["Date"] == "2025-02-01"
    assert df.set_index("Judge").loc["B", "Family"] == "control"
    missing = df.set_index("Judge").loc["B", "story-cloze D_avg^EW"]
    assert isinstance(missing, float) and math.isnan(missing)


def test_select_view_filters_columns_and_overall() -> None:
    rs = [
        _loaded("Llama 8B", "summeval", skill=0.9, hf_model_id="meta-llama/Llama-3-8B"),
        _loaded("Llama 8B", "story-cloze", skill=0.9, hf_model_id="meta-llama/Llama-3-8B"),
        _loaded("Qwen 72B", "summeval", skill=0.3, hf_model_id="Qwen/Qwen-72B"),
        _loaded("mystery", "story-cloze", skill=0.5),
    ]
    full = table.build_frame(rs)
    v = table.select_view(
        full, datasets=["story-cloze", "summeval"]
    )  # the benchmark's order, whatever the choice
    assert list(v.columns[:3]) == ["Rank", "Judge", "Overall D_avg^EW"]
    assert [c for c in columns.d_columns(v)] == ["Overall D_avg^EW", "summeval D_avg^EW", "summeval D_min^EW",
                                               "story-cloze D_avg^EW", "story-cloze D_min^EW"]  # fmt: skip
    assert list(v["Judge"]) == ["Llama 8B", "Qwen 72B", "mystery"]  # partial coverage sorts last
    assert list(v["Rank"]) == ["1", "–", "–"]
    missing = v.loc[1, "Overall D_avg^EW"]
    assert isinstance(missing, float) and math.isnan(missing)
    ll = v.loc[0]
    assert ll["Overall D_avg^EW"] == pytest.approx((ll["summeval D_avg^EW"] + ll["story-cloze D_avg^EW"]) / 2)
    # dataset filter drops judges without any result there
    v2 = table.select_view(full, datasets=["story-cloze"])
    assert set(v2["Judge"]) == {"Llama 8B", "mystery"}
    assert list(v2["Rank"]) == ["1", "2"]
    # unweighted toggle, kinds and meta columns
    v3 = table.select_view(full, weighted=False, kinds=["D_min"], meta=["Model"])
    assert "summeval D_min" in v3.columns and "summeval D_avg" not in v3.columns
    assert "Overall D_avg" in v3.columns and "Size (B)" not in v3.columns and "Model" in v3.columns
    # family, size, search
    assert list(table.select_view(full, families=["qwen"])["Judge"]) == ["Qwen 72B"]
    assert list(table.select_view(full, sizes=["> 40B"])["Judge"]) == ["Qwen 72B"]
    assert list(table.select_view(full, sizes=["unknown"])["Judge"]) == ["mystery"]
    assert set(table.select_view(full, search="llama; MYST")["Judge"]) == {"Llama 8B", "mystery"}
    assert table.select_view(full, search="zzz").empty
    assert table.select_view(full, datasets=[]).empty


def test_baselines_are_pinned_and_sort_keeps_them_on_top() -> None:
    rs = [
        _loaded("good", "summeval", skill=0.9),
        _loaded("bad", "summeval", skill=0.05),
        _loaded("random", "summeval", skill=0.0, protocol="builtin", model="random"),
    ]
    full = table.build_frame(rs)
    v = table.select_view(full, datasets=["summeval"])
    assert list(v["Judge"]) == ["random", "good", "bad"] and list(v["Rank"]) == ["baseline: chance", "1", "2"]
    up = table.select_view(full, datasets=["summeval"], sort=table.Sort.parse("summeval D_min^EW|asc"))
    assert list(up["Judge"]) == ["random", "bad", "good"] and list(up["Rank"]) == [
        "baseline: chance",
        "2",
        "1",
    ]
    by_name = table.select_view(full, datasets=["summeval"], sort=table.Sort.parse("Judge|asc"))
    assert list(by_name["Judge"]) == ["random", "bad", "good"]
    assert table.Sort.parse("") == table.DEFAULT_SORT and table.Sort.parse("x|desc").descending
    searched = table.select_view(full, datasets=["summeval"], search="no such judge")
    assert list(searched["Judge"]) == ["random"]  # the baseline stays under a search
    page = board_html.view_html(searched, empty="No judge matches “no such judge”.")
    assert page.index("No judge matches") < page.index("<table")  # said above the baseline
    assert "No judge matches" not in board_html.view_html(v, empty="No judge matches “x”.")


def test_family_and_size_heuristics() -> None:
    assert table.family_of("meta-llama/Meta-Llama-3-8B") == "llama"
    assert table.family_of("gpt-4o-mini") == "gpt"
    assert table.family_of(None, "mistralai/Mixtral-8x7B") == "mistral"
    assert table.family_of("foo") == "other"
    assert table.params_of(7e9) == 7.0
    assert table.params_of(None, "Qwen/Qwen2.5-1.5B-Instruct") == 1.5
    assert table.params_of(None, "SmolLM-360M") == pytest.approx(0.36)
    assert math.isnan(table.params_of(None, "gpt-4o"))
    assert [table.size_bucket(x) for x in (1, 7, 13, 70, math.nan)] == list(table.SIZE_BUCKETS)


class _Cells(HTMLParser):
    """The text of every body cell of an HTML table, row by row (tooltips apart)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.titles: list[str] = []
        self._in_body = self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag == "td":
            self._in_cell = True
            self.rows[-1].append("")
            self.titles.append(dict(attrs).get("title") or "")

    def handle_endtag(self, tag: str) -> None:
        self._in_cell = self._in_cell and tag != "td"

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.rows[-1][-1] += data


def test_html_shows_what_the_csv_holds_with_intervals_and_no_colour() -> None:
    rs = [_loaded("good", "summeval", skill=0.9, n_boot=30), _loaded("bad", "summeval", skill=0.0, n_boot=30),
          _loaded("mid", "story-cloze", n_boot=30)]  # fmt: skip
    v = table.select_view(table.build_frame(rs), datasets=["summeval", "story-cloze"])
    page = board_html.view_html(v)
    assert "background" not in page and "style=" not in page  # averages are not tests: not coloured
    parser = _Cells()
    parser.feed(page)
    csv_rows = list(csv.DictReader(io.StringIO(table.to_csv(v))))
    assert len(parser.rows) == len(csv_rows) == 3
    dcols = columns.d_columns(v)
    shown_cols = ["Rank", "Judge", *dcols, "Caveats"]  # Overall, the datasets, then the caveats
    for shown, row in zip(parser.rows, csv_rows, strict=True):
        assert len(shown) == len(shown_cols)
        for text, col in zip(shown, shown_cols, strict=True):
            if col in ("Rank", "Judge"):
                assert text.startswith(row[col])
                continue
            if col == "Caveats":
                assert text == row[col]
                continue
            value, lo, hi = row[col], row[col + " low"], row[col + " high"]
            if not value:
                assert text == "–"
            else:  # "2.31 [1.91, 2.71]": the CSV's value and its interval, never a symmetric ±
                assert "±" not in text
                assert text == f"{value} [{float(lo):.2f}, {float(hi):.2f}]"
    assert any("bootstrap interval [" in t for t in parser.titles)
    assert (
        board_html.view_html(v.iloc[0:0], empty="Nothing here.")
        == '<div class="dhp-empty" role="status">Nothing here.</div>'
    )


def test_the_effect_column_is_on_the_page_and_in_the_csv_alike() -> None:
    """Issue 35: the effect beside D, a column a view can show; page and CSV agree on it, interval and all,
    and it is the judge's stored level-balanced mean effect (0.5 chance, higher better)."""
    rs = [
        _loaded("good", "summeval", skill=0.9, n_boot=30),
        _loaded("blind", "summeval", skill=0.0, n_boot=30),
    ]
    full = table.build_frame(rs)
    good = full.set_index("Judge").loc["good"]
    assert good["summeval effect"] == pytest.approx(rs[0].result.summary.effect_avg)
    assert good["summeval effect low"] < good["summeval effect"] < good["summeval effect high"]
    plain = table.select_view(full, datasets=["summeval"])
    assert "summeval effect" not in plain.columns  # off unless chosen: the default table stays narrow
    v = table.select_view(full, datasets=["summeval"], kinds=columns.VIEW_KINDS)
    assert columns.value_columns(v) == [
        "Overall D_avg^EW",
        "summeval D_avg^EW",
        "summeval D_min^EW",
        "summeval effect",
    ]
    assert columns.column_kind("summeval effect") == ("summeval", columns.EFFECT)
    parser = _Cells()
    parser.feed(board_html.view_html(v))
    rows = list(csv.DictReader(io.StringIO(table.to_csv(v))))
    for shown, row in zip(parser.rows, rows, strict=True):
        value, lo, hi = (row[f"summeval effect{b}"] for b in ("", " low", " high"))
        assert shown[-2] == f"{value} [{lo}, {hi}]"  # the effect cell, before the caveats
    effects = {r["Judge"]: float(r["summeval effect"]) for r in rows}
    assert effects["good"] > 0.8 and abs(effects["blind"] - 0.5) < 0.1
    head = board_html.view_html(v, table.Sort("summeval effect", True))
    assert re.search(r'data-sort="summeval effect\|asc"[^>]*aria-sort="descending"', head)
    assert ">effect<" in head


def test_results_index_reuses_a_recent_listing(results_dir: Path) -> None:
    idx = ResultsIndex(LocalStore(results_dir))
    rep = idx.load()
    (results_dir / "late.json").write_text("{ not yet parsed")
    assert idx.load(max_age_s=3600) is rep  # the listing is recent: reused, the new file unseen
    fresh = idx.load(max_age_s=0)
    assert fresh.generation > rep.generation and any("late.json" in p for p in fresh.problems)


class _FlakyStore(LocalStore):
    """A real local store whose reads of one file fail (a Hub answering 5xx) until ``healed``."""

    def __init__(self, root: Path, flaky: str) -> None:
        super().__init__(root)
        self.flaky, self.healed = flaky, False

    def read(self, path: str) -> bytes:
        if path == self.flaky and not self.healed:
            raise OSError("503 Service Unavailable")
        return super().read(path)


def test_a_read_that_fails_is_told_and_tried_again_at_the_next_listing(results_dir: Path) -> None:
    store = LocalStore(results_dir)
    flaky = next(iter(store.list()))
    idx = ResultsIndex(_FlakyStore(results_dir, flaky))
    rep = idx.load()
    assert len(rep.results) == 17 and rep.problems == (f"{flaky}: cannot read (503 Service Unavailable)",)
    assert idx.load() is rep  # failing again the same way: nothing new to render
    assert isinstance(idx.store, _FlakyStore)
    idx.store.healed = True  # the file's version is unchanged: only a retry can read it
    healed = idx.load()
    assert len(healed.results) == 18 and healed.problems == () and healed.generation > rep.generation


class _GatedStore(LocalStore):
    """A real local store whose listings wait until the test opens the gate (a slow Hub)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.gate = threading.Event()
        self.gate.set()

    def list(self, suffix: str = ".json") -> dict[str, str]:
        assert self.gate.wait(30)
        return super().list(suffix)


def test_page_loads_never_wait_for_a_listing_the_store_is_listed_again_behind(
    results_dir: Path, tmp_path: Path
) -> None:
    """BoardService.report: after the first listing, an old listing is answered at once while the store is
    listed again in a background thread; the next call sees the new file. ``list_ttl_s = 0`` waits."""
    from dhp.leaderboard.page.service import AppConfig, BoardService

    store = _GatedStore(results_dir)
    cfg = AppConfig.local(tmp_path, list_ttl_s=0.01)
    be = BoardService(dataclasses.replace(cfg, results=store))
    first = be.report()
    (results_dir / "late.json").write_text("{ not yet parsed")
    store.gate.clear()  # listing now hangs
    time.sleep(0.02)  # the listing is older than list_ttl_s
    t0 = time.monotonic()
    assert be.report() is first and time.monotonic() - t0 < 5  # answered at once, from the listing at hand
    store.gate.set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and be.report().generation == first.generation:
        time.sleep(0.02)
    assert any("late.json" in p for p in be.report().problems)
    waits = BoardService(dataclasses.replace(cfg, results=store, list_ttl_s=0.0))
    rep = waits.report()
    (results_dir / "later.json").write_text("{ nor this")
    assert (
        any("later.json" in p for p in waits.report().problems) and waits.report().generation > rep.generation
    )


def test_survey_tasks_follow_the_paper() -> None:
    ids = [t.id for t in TASKS]
    assert ids == ["summarization", "story_completion", "translation"]  # QA has one metric: no choice
    summ = get_task("summarization")
    assert summ.datasets == ("summeval", "sumpubmed")
    typo = next(i for i in summ.issues if i.id == "char_typo")
    assert typo.perturbations["sumpubmed"] == ("char_typo_minor", "char_typo_major")


def test_votes_to_weights_and_reweighting(tmp_path: Path) -> None:
    store = VotesStore(LocalStore(tmp_path))
    task = get_task("translation")
    answers = {i.id: "accuracy" for i in task.issues}
    with pytest.raises(ValueError, match="answer every question"):
        store.cast(task, "v1", {**answers, "char_typo": None})
    with pytest.raises(ValueError, match="not a metric"):
        validate_ballot(task, {**answers, "char_typo": "coherence"})
    store.cast(task, "v1", answers)
    store.cast(task, "v2", {**answers, "char_typo": "fluency"})
    store.cast(task, "v2", {**answers, "char_typo": "fluency", "char_deletion": "fluency"})  # replaces
    (tmp_path / "translation" / "junk.json").write_text("{}")
    ballots, bad = store.ballots()
    assert len(ballots) == 2 and len(bad) == 1
    counts = tally(ballots)
    assert counts["translation"]["char_typo"] == {"accuracy": 1, "fluency": 1}
    assert counts["translation"]["word_deletion"] == {"accuracy": 2, "fluency": 0}
    version = derive_weights(counts, len(ballots))
    de = version.weights["wmt22-de-en"]
    assert dict(de.entries["char_typo_major"].weights) == {"accuracy": 0.5, "fluency": 0.5}
    assert de.entries["char_typo_major"].votes == {"accuracy": 1, "fluency": 1}
    assert dict(de.entries["word_deletion_minor"].weights) == {"accuracy": 1.0, "fluency": 0.0}
    # datasets of tasks without votes keep their defaults
    assert version.weights["summeval"].entries == BENCHMARK["summeval"].weights.entries
    rows = weights_rows(counts, version, min_ballots=5)
    typo_row = next(r for r in rows if r["Task"] == "Translation" and "typos" in r["Quality issue"])
    assert typo_row["Votes"] == "accuracy: 1, fluency: 1" and typo_row["Ballots"] == "2"

    lr = LoadedResult("j/wmt.json", make_result("j", "wmt22-de-en", skill=0.5, with_scores=False))
    other = LoadedResult("j/ae.json", make_result("j", "answer-equivalence", skill=0.5, with_scores=False))
    summaries = reweighted_summaries([lr, other], version)
    assert set(summaries) == {"j/wmt.json"}
    w = {pid: dict(e.weights) for pid, e in de.entries.items()}
    assert summaries["j/wmt.json"] == reweight(lr.result, w)
    # the stored p-values with the stored weights give back the stored summary
    same = reweight(lr.result, lr.result.scoring.weights)
    assert same.d_avg_ew == pytest.approx(lr.result.summary.d_avg_ew)
    df = table.build_frame([lr], summaries)
    assert df.loc[0, "wmt22-de-en D_avg^EW"] == pytest.approx(summaries["j/wmt.json"].d_avg_ew)


def test_a_sort_survives_toggling_expert_weights(results_dir: Path) -> None:
    from dhp.leaderboard.board.loading import ResultsIndex

    full = table.build_frame(ResultsIndex(LocalStore(results_dir)).load().results)
    sort = table.Sort("summeval D_min^EW", descending=False)  # sorted with weights, then weights off
    plain = table.select_view(full, weighted=False, sort=sort)
    assert plain["Judge"].tolist() == plain.sort_values("summeval D_min", kind="stable")["Judge"].tolist()
    assert plain["summeval D_min"].is_monotonic_increasing
    page = board_html.view_html(plain, sort)
    head = re.search(
        r'<th[^>]*data-sort="summeval D_min\|[^"]*"[^>]*>[^<]*<span class="arrow">([^<]*)<', page
    )
    assert head is not None and head.group(1) == " ▲"  # the arrow is on the unweighted twin
    assert table.Sort("summeval D_min", True).aligned(["summeval D_min^EW"]) == table.Sort(
        "summeval D_min^EW", True
    )


# -- issue 31: links that name their judge whole, a sort that ignores case --------------------------
def test_judge_links_are_url_encoded_and_names_whole() -> None:
    """A name with ``&`` or ``#`` opened "Unknown judge": the link held it HTML-escaped, not URL-encoded
    (``?judge=A&amp;B`` reads as ``judge=A``)."""
    import urllib.parse

    name = "A&B #1 + <c>"
    full = table.build_frame(
        [LoadedResult("j/summeval.json", renamed(make_result("J", with_scores=False), name))]
    )
    page = board_html.view_html(table.select_view(full, datasets=["summeval"]))
    href = re.search(r'<a class="dhp-judge" href="([^"]*)"', page)
    assert href is not None
    query = urllib.parse.urlsplit(href.group(1).replace("&amp;", "&")).query
    assert urllib.parse.parse_qs(query) == {"judge": [name]}
    assert f'title="{html.escape(name)}"' in page and "<c>" not in page  # the full name on hover, escaped


def test_text_sort_ignores_case() -> None:
    rows = [_loaded(n, "summeval", skill=s) for n, s in (("beta", 0.1), ("Alpha", 0.2), ("gamma", 0.3))]
    full = table.build_frame(rows)
    for descending, want in ((False, ["Alpha", "beta", "gamma"]), (True, ["gamma", "beta", "Alpha"])):
        view = table.select_view(full, datasets=["summeval"], sort=table.Sort("Judge", descending))
        assert view["Judge"].tolist() == want
