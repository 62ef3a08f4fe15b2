"""``dhp compare`` on loopback judges of known behaviour (issue 20): a judge against itself is a tie
everywhere with difference 0; a judge blind to fictional entities loses to one that sees them, on
exactly those perturbations, with an interval that excludes 0."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from dhp.inference.judge import EndpointJudge
from dhp.inference.pool import RetryPolicy
from dhp.scoring.compare import CompareError, compare_results
from dhp.scoring.compare_report import pick_results
from dhp.scoring.config import ScoreConfig
from dhp.scoring.result_files import read_result
from dhp.scoring.run import score_datasets
from dhp.spec import get_dataset
from tests.scoring.fake_server import Answer, FakeJudgeServer, judged_text
from tests.scoring.helpers import pair_row, run_dhp, write_marked_answers, write_pairs

AE = get_dataset("answer-equivalence")
N = 16
FAST = RetryPolicy(backoff_base=0.01, backoff_cap=0.05, timeout=5.0)
_PERTURBED = re.compile(r"\[(\w+)\]")
FICTIONAL = {"word_fictional_ne_minor", "word_fictional_ne_major"}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_marked_answers(tmp_path_factory.mktemp("ae"), N)


def _score(digit: str) -> Answer:
    return Answer((digit,), {digit: 1.0})


def _item(prompt: str) -> int:
    m = re.search(r"Reference answer (\d\d)", judged_text(prompt))
    assert m is not None
    return int(m.group(1))


def discerning(prompt: str) -> Answer:
    """5 to originals; perturbed texts 1 to 3 lower depending on the item, so pairs differ."""
    drop = 1 + _item(prompt) % 3
    return _score(str(5 - drop)) if _PERTURBED.search(judged_text(prompt)) else _score("5")


def blind_to_fiction(prompt: str) -> Answer:
    """Discerning, except that a text with fictional entities looks as good as its original."""
    m = _PERTURBED.search(judged_text(prompt))
    if m and m.group(1) in FICTIONAL:
        return _score("5")
    return discerning(prompt)


def _score_run(script: object, out: Path, data: Path, name: str) -> Path:
    with FakeJudgeServer(script) as srv:  # type: ignore[arg-type]
        judge = EndpointJudge(name=name, endpoints=(srv.url,))
        cfg = ScoreConfig(
            judge=judge, out=out, datasets="answer-equivalence", data=str(data), n_boot=0, policy=FAST
        )
        (path,) = score_datasets(replace(cfg, use_cache=False))
    return path


@pytest.fixture(scope="module")
def runs(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("res")
    return {
        "seer": _score_run(discerning, out / "one", data, "Seer"),
        "seer2": _score_run(discerning, out / "two", data, "Seer"),
        "blind": _score_run(blind_to_fiction, out / "three", data, "Blind"),
    }


def test_a_judge_against_itself_ties_everywhere_with_difference_zero(runs: dict[str, Path]) -> None:
    proc = run_dhp("compare", str(runs["seer"]), str(runs["seer2"]), "--json", "--n-boot", "200")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    ds = doc["datasets"]["answer-equivalence"]
    cells = [ds["d_avg_ew"], ds["d_min_ew"], *ds["perturbations"].values(), *doc["overall"].values()]
    assert set(ds["perturbations"]) == set(AE.perturbation_ids)
    assert set(doc["overall"]) == {"d_avg_ew", "d_min_ew"}
    for cell in cells:
        assert {k: cell[k] for k in ("diff", "ci", "verdict")} == {
            "diff": 0.0,
            "ci": [0.0, 0.0],
            "verdict": "tie",
        }
        assert cell["ci_a"] == cell["ci_b"] and cell["ci_a"][0] > 1  # both discern: a tie, not 'neither'
    assert ds["left_out"] == {} and ds["compared"] == list(AE.perturbation_ids)
    assert ds["qualified"] == {"A": True, "B": True}


def test_the_judge_that_sees_fictional_entities_wins_on_them(runs: dict[str, Path]) -> None:
    a = pick_results([read_result(runs["blind"])], "A")
    b = pick_results([read_result(runs["seer"])], "B")
    c = compare_results(a, b, n_boot=300, seed=1)
    per = c.datasets["answer-equivalence"].perturbations
    for pid in FICTIONAL:
        d = per[pid]
        assert d.verdict == "B" and d.diff is not None and d.diff < 0
        assert d.ci is not None and d.ci[1] < 0  # the interval excludes 0
    for pid in set(AE.perturbation_ids) - FICTIONAL:
        assert per[pid].diff == 0.0 and per[pid].verdict == "tie"
    agg = c.datasets["answer-equivalence"].aggregates
    assert agg["d_min_ew"].verdict == "B" and agg["d_avg_ew"].verdict == "B"
    assert c.overall["d_avg_ew"] == agg["d_avg_ew"]  # one dataset: the overall is that dataset's
    again = compare_results(a, b, n_boot=300, seed=1)
    assert again == c  # seeded: the same intervals
    swapped = compare_results(b, a, n_boot=300, seed=1).datasets["answer-equivalence"].perturbations
    assert swapped["word_fictional_ne_minor"].verdict == "A"


def test_markdown_names_the_better_judge(runs: dict[str, Path]) -> None:
    proc = run_dhp("compare", str(runs["blind"]), str(runs["seer"].parent.parent), "--n-boot", "100")
    assert proc.returncode == 0, proc.stderr
    assert "# Blind (A) vs Seer (B)" in proc.stdout
    assert re.search(
        r"\| word_fictional_ne_major D\^EW \| -\d+\.\d\d \| \[-[\d.]+, -[\d.]+\] \| B \|", proc.stdout
    )


def test_results_that_cannot_be_compared_are_refused_in_one_line(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    both = runs["seer"].parents[2]  # two judges under one folder
    proc = run_dhp("compare", str(both), str(runs["seer"]))
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == "dhp compare: error: RESULTS_A: give the results of exactly one judge (found Blind, Seer)"
    )
    missing = run_dhp("compare", str(tmp_path / "nope"), str(runs["seer"]))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    r = read_result(runs["seer"])
    with pytest.raises(CompareError, match="holds no item scores"):
        compare_results({"x": r.model_copy(update={"scores": None})}, {"x": r}, n_boot=10)
    with pytest.raises(CompareError, match="no dataset in common"):
        compare_results({"x": r}, {"y": r}, n_boot=10)


# ---------------------------------------------------------------------------------------------
# dhp misses
def test_misses_lists_exactly_the_pairs_the_judge_did_not_score_lower(
    runs: dict[str, Path], data: Path, tmp_path: Path
) -> None:
    from dhp.scoring.misses import find_misses, miss_counts

    blind, seer = read_result(runs["blind"]), read_result(runs["seer"])
    counts = miss_counts(blind)
    assert counts == {pid: (N if pid in FICTIONAL else 0) for pid in AE.perturbation_ids}
    assert set(miss_counts(seer).values()) == {0}
    misses = find_misses(blind, "word_fictional_ne_major")
    assert [m.item_id for m in misses] == [f"q{i:02d}" for i in range(N)]  # all ties: by item
    assert all(m.original_weighted == m.perturbed_weighted == 5.0 for m in misses)

    csv_file = tmp_path / "misses.csv"
    proc = run_dhp(
        "misses", str(runs["blind"]), "--dataset", "answer-equivalence", "--perturbation",
        "word_fictional_ne_major", "-n", "2", "--csv", str(csv_file), "--data", str(data), "--color", "never",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"Blind on answer-equivalence / word_fictional_ne_major: {N} of {N} pairs not scored lower" in out
    assert out.count("\n== q") == 2 and "== q00: weighted original 5.00, perturbed 5.00" in out
    assert "- original : Reference answer 00 explains the topic in full detail." in out
    assert "{+ [word_fictional_ne_major]+}" in out  # marked as dhp show marks it
    import csv

    rows = list(csv.DictReader(csv_file.open()))
    assert len(rows) == N and rows[0]["item"] == "q00" and rows[0]["perturbed_answer_quality"] == "5.00"
    assert rows[0]["perturbed"].endswith("[word_fictional_ne_major].")


def test_misses_refuses_texts_of_another_revision_and_unknown_perturbations(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    write_pairs(
        other,
        "answer-equivalence",
        [
            pair_row(
                "answer-equivalence", "q00", "char_typo_minor", "A b c d e.", "A b c d f.", paragraph=None
            )
        ],
        split="validation",
    )
    base = ("misses", str(runs["blind"]), "--dataset", "answer-equivalence")
    proc = run_dhp(*base, "--perturbation", "char_typo_minor", "--data", str(other))
    assert proc.returncode == 2 and "the result scored local:" in proc.stderr
    proc = run_dhp(*base, "--perturbation", "nope", "--data", str(other))
    assert proc.returncode == 2 and "has no perturbation 'nope'" in proc.stderr


# ---------------------------------------------------------------------------------------------
# Length tertiles and run cost (dhp report, judge page)
N_LEN = 36  # originals of 6 .. 23 words, two of each length: tertiles of 6-11, 12-17 and 18-23 words
#: (12 items each: enough pairs for a tertile's D_avg, dhp.spec.MIN_PAIRS)


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ae-len")
    rows = []
    for i in range(N_LEN):
        original = f"Reference answer {i:02d} " + " ".join(["word"] * (3 + i // 2)) + "."
        for pid in AE.perturbation_ids:
            rows.append(
                pair_row(
                    "answer-equivalence", f"q{i:02d}", pid, original, original[:-1] + f" [{pid}].",
                    question=f"What is topic {i}?", paragraph=None,
                )
            )  # fmt: skip
    write_pairs(root, "answer-equivalence", rows, split="validation")
    return root


def short_sighted(prompt: str) -> Answer:
    """Discerning on short texts (under 13 words); 5 for every longer text, perturbed or not."""
    return discerning(prompt) if len(judged_text(prompt).split()) < 13 else _score("5")


def test_length_tertiles_show_the_judge_that_only_discerns_short_texts(varied: Path, tmp_path: Path) -> None:
    from dhp.leaderboard.page.judge_views import detail_markdown as judge_detail_markdown
    from dhp.scoring.breakdown import length_tertiles

    path = _score_run(short_sighted, tmp_path / "res", varied, "Short")
    r = read_result(path)
    assert r.scores is not None and r.scores.original_words == tuple(6 + i // 2 for i in range(N_LEN))
    short, medium, long = length_tertiles(r)
    assert (short.min_words, short.max_words, short.n_items) == (6, 11, 12)
    assert (long.min_words, long.max_words) == (18, 23)
    assert short.d_avg_ew is not None and short.d_avg_ew > 1
    assert medium.d_avg_ew == 0.0 and long.d_avg_ew == 0.0
    assert r.timing.requests_sent == N_LEN * 10 and r.timing.wall_seconds > 0

    rep = run_dhp("report", str(path), "--out", str(tmp_path / "rep"))
    assert rep.returncode == 0, rep.stderr
    md = Path(rep.stdout.strip()).read_text()
    assert (
        f"D_avg^EW by length tertile of the original text: short (6–11 words, 12 items) {short.d_avg_ew:.2f}"
        in md
    )
    assert "medium (12–17 words, 12 items) 0.00 · long (18–23 words, 12 items) 0.00." in md
    assert f"Run: {N_LEN * 10} sent, 0 cached; wall time" in md

    page = judge_detail_markdown(r)
    assert f"| short | 6–11 | 12 | {short.d_avg_ew:.2f} |" in page and "| long | 18–23 | 12 | 0.00 |" in page
    typo = next(p for p in r.perturbations if p.id == "char_typo_minor")
    assert (
        typo.effect is not None and typo.effect < 0.5 + 0.5 * 12 / N_LEN + 1e-9
    )  # only the 12 short ones lower
    assert (
        f"| char_typo_minor | {typo.d_ew:.2f} | {typo.effect:.2f} | 24 of {N_LEN} |" in page
    )  # 24 longer: misses
    assert f"**Run cost:** {N_LEN * 10} requests sent, 0 from the cache" in page
    assert r.timing.prompt_tokens and r.timing.completion_tokens == N_LEN * 10  # the server's usage
    assert f"tokens: {r.timing.prompt_tokens:,} prompt, {N_LEN * 10} completion" in page
    old = r.model_copy(update={"scores": r.scores.model_copy(update={"original_words": None})})
    assert length_tertiles(old) == [] and "no length tertiles" in judge_detail_markdown(old)


def test_overall_is_the_mean_of_d_avg_and_the_minimum_of_d_min_over_the_datasets() -> None:
    from tests.leaderboard.factory import make_result

    a = {ds: make_result("A", ds, skill=0.9, n_items=30) for ds in ("summeval", "story-cloze")}
    b = {ds: make_result("B", ds, skill=0.3, n_items=30) for ds in ("summeval", "story-cloze")}
    c = compare_results(a, b, n_boot=50, seed=3)
    diffs = [c.datasets[ds].aggregates["d_avg_ew"].diff for ds in ("summeval", "story-cloze")]
    assert c.overall["d_avg_ew"].diff == pytest.approx(sum(d for d in diffs if d is not None) / 2)
    min_a = min(r.summary.d_min_ew or 0.0 for r in a.values())
    min_b = min(r.summary.d_min_ew or 0.0 for r in b.values())
    assert c.overall["d_min_ew"].diff == pytest.approx(min_a - min_b)
    for ds in a:  # the point estimates are the results' own
        assert c.datasets[ds].aggregates["d_avg_ew"].diff == pytest.approx(
            (a[ds].summary.d_avg_ew or 0.0) - (b[ds].summary.d_avg_ew or 0.0)
        )
    assert c.overall["d_avg_ew"].verdict == "A"
    same = compare_results(a, a, n_boot=20)
    assert same.overall["d_min_ew"].diff == 0.0 and same.overall["d_min_ew"].verdict == "tie"
