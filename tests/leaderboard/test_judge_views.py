"""The judge page's views (issue 20): misses with their texts marked as ``dhp show`` marks them, the
CSV of every miss, and the run cost; texts that cannot be had are said so, the scores still shown."""

from __future__ import annotations

import csv
import io
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from dhp.leaderboard.page.judge_views import (
    detail_markdown,
    miss_choices,
    misses_csv_path,
    misses_html,
    run_cost_text,
    texts_for,
)
from dhp.scoring.misses import ScoredTexts, find_misses, miss_counts
from dhp.scoring.result_files import read_result
from dhp.scoring.results import Result
from tests.leaderboard.factory import make_result
from tests.leaderboard.judge_data import perturbed_text, point_at, write_summeval

#: above 13 items a tied test is asymptotic: at 12 scipy's permutation test made the fixture ~20 s
N = 14


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    root = tmp_path_factory.mktemp("jv")
    data = write_summeval(root / "data", N)
    res = root / "results" / "weak" / "summeval@v1.json"
    res.parent.mkdir(parents=True)
    res.write_text(make_result("Weak", "summeval", skill=0.05, n_items=N).model_dump_json())
    point_at(root / "results", data)
    return read_result(res), data


def test_missed_pairs_show_marked_texts_worst_first(scored: tuple[Result, Path]) -> None:
    r, data = scored
    choices = miss_choices(r)
    counts = miss_counts(r)
    assert choices and [counts[p] for _, p in choices] == sorted(
        (counts[p] for _, p in choices), reverse=True
    )
    pid = choices[0][1]
    texts = texts_for(r, str(data))
    assert isinstance(texts, ScoredTexts)
    page = misses_html(r, pid, texts, n=2)
    worst = find_misses(r, pid)[0]
    assert f"<b>{counts[pid]} of {N}</b>" in page
    assert page.index(worst.item_id) < page.index("</div>")  # the worst miss first
    i = int(worst.item_id.rsplit("-", 1)[1])
    assert "<del>clearly</del>" in page and f"<ins>vaguely-{pid}</ins>" in page
    assert perturbed_text(i, pid).split()[0] in page
    assert page.count("class='dhp-miss'") == min(2, counts[pid])


def test_the_csv_holds_every_miss_of_every_perturbation(scored: tuple[Result, Path], tmp_path: Path) -> None:
    r, data = scored
    path = misses_csv_path(r, texts_for(r, str(data)), tmp_path)
    assert path is not None
    rows = list(csv.DictReader(io.StringIO(Path(path).read_text())))
    assert len(rows) == sum(miss_counts(r).values()) > 0
    assert {row["perturbation"] for row in rows} == {p for p, k in miss_counts(r).items() if k}
    assert all(row["original"].startswith("The summary of article") for row in rows)
    assert misses_csv_path(r, texts_for(r, str(data)), tmp_path) == path  # named by content: written once


def test_without_the_scored_texts_the_scores_are_still_shown(
    scored: tuple[Result, Path], tmp_path: Path
) -> None:
    r, _ = scored
    pid = miss_choices(r)[0][1]
    other = r.model_copy(update={"dataset": r.dataset.model_copy(update={"revision": "local:other"})})
    _, data = scored
    why = texts_for(other, str(data))
    assert isinstance(why, str) and "the result scored local:other" in why
    page = misses_html(other, pid, why)
    assert "Texts not shown:" in page and "<del>" not in page and find_misses(r, pid)[0].item_id in page
    assert "no dataset source configured" in str(texts_for(r, None))
    assert "no folder summeval/" in str(texts_for(r, str(tmp_path)))


def test_run_cost_says_which_tokens_were_reported() -> None:
    r = make_result("J", "summeval", n_items=5)
    t = r.timing.model_copy(
        update={"requests_sent": 1200, "prompt_tokens": 345678, "completion_tokens": None}
    )
    text = run_cost_text(r.model_copy(update={"timing": t}))
    assert "1,200 requests sent" in text and "345,678 prompt" in text and "completion not reported" in text
    b = make_result("random", "summeval", n_items=5, protocol="builtin", model="random")
    assert "no requests (built-in judge)" in run_cost_text(b)
    assert "Where it fails on summeval" in detail_markdown(r)


# -- issue 31: every figure means what it says -------------------------------------------------------
def _with_pairs_on(r: Result, pid: str, items: int) -> Result:
    """``r`` where perturbation ``pid`` has pairs for its first ``items`` items only (a perturbation
    applies to some of a dataset's items)."""
    assert r.scores is not None
    per = {
        m: tuple(v if i < items else None for i, v in enumerate(vals))
        for m, vals in r.scores.perturbed[pid].items()
    }
    scores = r.scores.model_copy(update={"perturbed": {**r.scores.perturbed, pid: per}})
    return r.model_copy(update={"scores": scores})


def test_misses_are_counted_out_of_the_perturbations_pairs(scored: tuple[Result, Path]) -> None:
    """ "2 of 100" for a perturbation with 33 pairs: the count was divided by the dataset's items."""
    r, data = scored
    pid = miss_choices(r)[0][1]
    part = _with_pairs_on(r, pid, 5)
    k = miss_counts(part)[pid]
    assert 0 < k <= 5 < N
    assert f"| {pid} | " in detail_markdown(part)
    row = next(x for x in detail_markdown(part).splitlines() if x.startswith(f"| {pid} |"))
    assert row.endswith(f"| {k} of 5 |"), row
    assert f"<b>{k} of 5</b>" in misses_html(part, pid, texts_for(part, str(data)))


def _with_lengths(r: Result, words: list[int]) -> Result:
    assert r.scores is not None and len(words) == len(r.scores.item_ids)
    return r.model_copy(update={"scores": r.scores.model_copy(update={"original_words": tuple(words)})})


def test_length_tertiles_never_share_a_length_and_say_what_their_d_compares_with() -> None:
    """Tertiles read 30–46, 46–62: items of one length were split between two groups. And a tertile's
    D (a third of the pairs) sat beside the dataset's D without a word on what it can be compared with."""
    from dhp.scoring.breakdown import length_tertiles

    # sorted thirds (5 items each) cut through the 46s; 15 items, not 12: a tied test of at most 13 pairs
    # is scipy's permutation test (~0.16 s each, 40 s for the dataset)
    words = [46, 30, 34, 46, 38, 46, 50, 46, 54, 58, 62, 62, 42, 66, 70]
    r = _with_lengths(make_result("J", "summeval", skill=0.6, n_items=15), words)
    groups = length_tertiles(r)
    assert len(groups) == 3 and sum(t.n_items for t in groups) == 15
    for a, b in itertools.pairwise(groups):
        assert a.max_words < b.min_words, (a, b)
    for t in groups:  # the rows are the group's items, and only those
        assert {words[i] for i in t.rows} <= set(range(t.min_words, t.max_words + 1)) and len(
            t.rows
        ) == t.n_items
    page = detail_markdown(r)
    assert "not with the dataset's D_avg^EW" in page and "pairs scored lower" in page
    assert re.search(r"\| short \| 30–\d+ \| \d+ \| [\d.–]+ \| \d+% of \d+ \|", page), page
    same = _with_lengths(r, [40] * 15)
    assert length_tertiles(same) == [] and "too uniform" in detail_markdown(same)


def _as(r: Result, judge: Any, n_boot: int | None = None) -> Result:
    from dhp.scoring.results import JudgeInfo

    out = r.model_copy(update={"judge": JudgeInfo.of(judge, model=r.judge.model, settings={})})
    if n_boot is not None:
        out = out.model_copy(update={"scoring": out.scoring.model_copy(update={"n_boot": n_boot})})
    return out


def test_the_judge_header_says_what_is_true_for_each_kind_of_judge() -> None:
    """Every page said "endpoint host: not published", also for a judge that published it, for built-in
    and Hub judges; and "0 replicates ... 95% intervals" for a judge without intervals."""
    from dhp.inference.judge import BuiltinJudge, EndpointJudge, HubJudge, LocalJudge
    from dhp.leaderboard.page.formatting import judge_header
    from dhp.types import ControlJudge

    r = make_result("J", "summeval", n_items=6, n_boot=0)
    url = ("https://judge.example.org/v1",)
    pub = judge_header([_as(r, EndpointJudge(name="J", endpoints=url, publish_host=True), n_boot=200)])
    assert "endpoint host: judge.example.org" in pub and "not published" not in pub
    assert "200 replicates" in pub and "95% intervals" in pub
    hidden = judge_header([_as(r, EndpointJudge(name="J", endpoints=url, publish_host=False))])
    assert "endpoint host: not published" in hidden and "judge.example.org" not in hidden
    assert "0 replicates" not in hidden and "no bootstrap (no intervals" in hidden
    builtin = judge_header([_as(r, BuiltinJudge(name="J", control=ControlJudge.RANDOM))])
    assert "built-in control judge (random)" in builtin and "endpoint host" not in builtin
    hub = judge_header([_as(r, HubJudge(name="J", model_id="org/model-7b", provider="together"))])
    assert "Inference Providers (provider: together)" in hub and "endpoint host" not in hub
    local = judge_header([_as(r, LocalJudge(name="J", model="org/model-7b"))])
    assert "in-process" in local and "endpoint host" not in local


HOSTILE = ("![a](http://127.0.0.1:1/x)", "[x](http://127.0.0.1:1/)", "<img src=x>", "$\\alpha$ *b* _c_")


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_plain_text_in_the_header_and_the_figures(name: str) -> None:
    """A judge named ``![a](http:evil?x)`` put a tracking pixel in the judge page's header."""
    from html.parser import HTMLParser

    from dhp.leaderboard.page.formatting import judge_header, plain_md
    from dhp.leaderboard.page.judge_figures import discernment_svg
    from tests.leaderboard.factory import renamed

    r = renamed(make_result("J", "summeval", n_items=6, hf_model_id="org/m"), name)
    header = judge_header([r])

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
            self.text = ""

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append((tag, attrs))

        def handle_data(self, data: str) -> None:
            self.text += data

    p = Tags()
    p.feed(header)
    assert "img" not in [t for t, _ in p.tags]
    assert [dict(a)["href"] for t, a in p.tags if t == "a"] == ["https://huggingface.co/org/m"]
    assert name in p.text  # shown as typed
    md = plain_md(name)  # in Markdown, every mark that could be syntax escaped
    assert not re.search(r"(?<!\\)[\[\]()!<>*_$]", md.replace("&lt;", "").replace("&gt;", "")), md
    svg = Tags()  # the figure: the name is text in it, never markup (more in test_judge_figures.py)
    svg.feed(discernment_svg([r], f"{name}: D", f"{name}: D per perturbation"))
    assert {t for t, _ in svg.tags} <= {"svg", "title", "rect", "text", "path", "g"}
    assert name in svg.text.replace("\n", " ")


def test_a_refusal_quoting_a_hostile_name_is_plain_text() -> None:
    """The Submit tab's refusal quotes the name typed (``judge name '![a](http:...)': ...``): Markdown."""
    from dhp.leaderboard.page.ui import _errors_markdown
    from dhp.leaderboard.submissions.validation import SubmissionErrors, ValidationError

    typed = "![a](http:127.0.0.1:1?x) [l](http:127.0.0.1:1)"
    one = _errors_markdown(ValidationError("judge_name", f"judge name {typed!r}: taken"))
    two = _errors_markdown(
        SubmissionErrors([ValidationError("judge_name", typed), ValidationError("contact", "<b>")])
    )
    for md in (one, two):
        assert "![a](" not in md and "[l](" not in md and "<b>" not in md, md
    from dhp.leaderboard.page.formatting import plain_md

    assert one.startswith("❌ **Not queued.**") and plain_md(typed) in one


def test_a_misses_csv_is_never_written_into_a_folder_that_is_gone(tmp_path: Path) -> None:
    """A judge page renderer (a process of its own session) may finish drawing after its app ended
    and removed its CSV folder: it must not create the folder again (a dhp-leaderboard-csv-* folder
    was left in the temp folder after the suite)."""
    from dhp.leaderboard.page.judge_views import misses_csv_path
    from tests.leaderboard.factory import make_result

    r = make_result("J", "summeval", n_items=20, skill=0.0)
    gone = tmp_path / "dhp-leaderboard-csv-x"
    assert misses_csv_path(r, "no texts", gone) is None and not gone.exists()
    gone.mkdir()
    written = misses_csv_path(r, "no texts", gone)
    assert written is not None and Path(written).is_file()


def test_a_dataset_part_computes_each_perturbations_misses_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table of misses, the picker, the tertiles, the pairs shown and the CSV each asked for every
    perturbation's misses: 72 computations for an ordinary dataset, about a third of a page's drawing."""
    from dhp.leaderboard.page import judge_views
    from dhp.leaderboard.page.judge_pages import dataset_payload
    from dhp.scoring import misses

    calls: list[str] = []

    def counted(result: object, perturbation: str) -> list[misses.Miss]:
        calls.append(perturbation)
        return misses.complete_pairs(result, perturbation)  # type: ignore[arg-type]

    monkeypatch.setattr(judge_views, "complete_pairs", counted)
    r = make_result("J", "summeval", n_items=30, skill=0.2)
    part = dataset_payload(r, None, tmp_path)
    assert r.scores is not None and sorted(calls) == sorted(r.scores.perturbed)
    assert part["choices"] and set(part["misses"]) == {pid for _, pid in part["choices"]}
    for label, pid in part["choices"]:  # the counts agree with the pairs listed for each
        assert label == f"{pid} ({len(misses.find_misses(r, pid))} missed)"
