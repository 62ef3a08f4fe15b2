"""Judges whose behaviour is known, on loopback HTTP, give the predicted missing-D, stability and
robustness reports (issue 10).

Every judge is a script behind the protocol-faithful OpenAI server of ``fake_server`` (a real HTTP
server on 127.0.0.1 with log-probabilities). The data: Answer Equivalence pairs whose perturbed
texts carry their perturbation's id, so a script can tell an original from a perturbed text the
way a perfect judge would. A discerning judge gives 5 to originals and 2 to perturbed texts: N
equal, tied differences, so p = Φ(−√N) exactly (scipy's normal approximation, N > 13 with ties).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pytest
from scipy import stats as sps

from dhp.inference.judge import EndpointJudge
from dhp.inference.pool import RetryPolicy
from dhp.scoring.config import ScoreConfig
from dhp.scoring.prompts import DEFAULT_CUE
from dhp.scoring.report import collect_results
from dhp.scoring.result_files import read_result
from dhp.scoring.results import Result
from dhp.scoring.robustness import robustness
from dhp.scoring.run import score_datasets
from dhp.scoring.stability import stability
from dhp.spec import get_dataset
from dhp.types import Level
from tests.scoring.fake_server import Answer, FakeJudgeServer, judged_text
from tests.scoring.helpers import run_dhp, write_marked_answers

AE = get_dataset("answer-equivalence")
N = 16
FAST = RetryPolicy(backoff_base=0.01, backoff_cap=0.05, timeout=5.0)
D_DISCERN = math.log(float(sps.norm.sf(math.sqrt(N)))) / math.log(0.05)  # ≈ 3.45
_PERTURBED = re.compile(r"\[(\w+)\]")
_CUE = re.compile(r"rated this text (\d) out of")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_marked_answers(tmp_path_factory.mktemp("ae"), N)


def _score(digit: str) -> Answer:
    return Answer((digit,), {digit: 1.0})


def discerning(prompt: str) -> Answer:
    return _score("2") if _PERTURBED.search(judged_text(prompt)) else _score("5")


def cue_copier(prompt: str) -> Answer:
    """Gives whatever rating the prompt claims a previous annotator gave; discerning otherwise."""
    m = _CUE.search(prompt)
    return _score(m.group(1)) if m else discerning(prompt)


def rubric_only(prompt: str) -> Answer:
    """Discerns only when shown the anchored rubric; 4 for everything under other prompt sets."""
    return discerning(prompt) if "Scoring Rubric:" in prompt else _score("4")


def na_for_typos(prompt: str) -> Answer:
    """Answers N/A to every text with minor typos; discerning otherwise."""
    if "[char_typo_minor]" in judged_text(prompt):
        return Answer(("N/A",), {})
    return discerning(prompt)


def _score_run(url: str, out: Path, data: Path, name: str, **kw: object) -> Result:
    judge = EndpointJudge(name=name, endpoints=(url,))
    cfg = ScoreConfig(
        judge=judge, out=out, datasets="answer-equivalence", data=str(data), n_boot=0, policy=FAST
    )
    (path,) = score_datasets(replace(cfg, **kw))  # type: ignore[arg-type]
    return read_result(path)


# ---------------------------------------------------------------------------------------------
def test_na_for_one_perturbation_gives_no_D_through_score_and_report(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    with FakeJudgeServer(na_for_typos) as srv:
        proc = run_dhp(
            "score",
            "--endpoint",
            srv.url,
            "--judge-name",
            "NA Judge",
            "--data",
            str(data),
            "--datasets",
            "answer-equivalence",
            "--out",
            str(out),
            "--n-boot",
            "20",
            env={"HF_HUB_OFFLINE": "0"},
        )
    assert proc.returncode == 0, proc.stderr
    assert "1 of 9 perturbations have no D" in proc.stderr
    r = read_result(Path(proc.stdout.split()[0]))
    by = {p.id: p for p in r.perturbations}
    typo = by["char_typo_minor"]
    assert typo.d is None and typo.d_ew is None and typo.p is None and typo.n_metrics_used == 0
    assert typo.metrics["answer_quality"].p is None and typo.metrics["answer_quality"].n_pairs == 0
    assert typo.d_ci is None
    others = [p for p in r.perturbations if p.id != "char_typo_minor"]
    assert all(p.d == pytest.approx(D_DISCERN) for p in others)
    s = r.summary
    assert s.n_without_d == 1 and s.d_min == pytest.approx(D_DISCERN) and s.d_avg == pytest.approx(D_DISCERN)
    assert s.qualified is False and s.by_level[Level.CHARACTER].d_avg == pytest.approx(D_DISCERN)
    assert r.coverage.unparsed == N
    rep = run_dhp("report", str(out), "--out", str(tmp_path / "rep"))
    assert rep.returncode == 0, rep.stderr
    md = Path(rep.stdout.strip()).read_text()
    assert (
        f"| char_typo_minor | C | {N} | – (n=0) | 0 | – | – | – |" in md
    )  # its pairs; no score: no D, no effect
    assert "1 perturbation(s) have no D" in md
    assert "| NA Judge | answer-equivalence | default |" in md and "| 1 | 0 | no |" in md
    assert re.search(rf"\| {D_DISCERN:.2f} \[[\d.]+, [\d.]+\] \(1 no D\) \|", md)  # D_min carries the mark


def test_stability_finds_the_judge_that_discerns_under_one_prompt_set(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    with FakeJudgeServer(rubric_only) as srv:
        base = _score_run(srv.url, out, data, "Rubric Judge")
        sent_default = srv.requests
        rubric = _score_run(srv.url, out, data, "Rubric Judge", prompt_set="rubric")
        sent_rubric = srv.requests - sent_default
        minimal = _score_run(srv.url, out, data, "Rubric Judge", prompt_set="minimal")
        srv.reset_counters()
        again = _score_run(srv.url, out, data, "Rubric Judge")  # asked before: all from the cache
        assert srv.requests == 0 and again.timing.requests_cached == N * 10
    assert sent_rubric == N * 10  # every text once more, in the new wording only
    assert base.summary.d_avg == 0.0 and minimal.summary.d_avg == 0.0
    assert rubric.summary.d_avg == pytest.approx(D_DISCERN)
    assert (
        rubric.scoring.prompt_set == "rubric"
        and "Scoring Rubric:" in rubric.scoring.prompts["answer_quality"].template
    )
    files = sorted(p.name for p in (out / "rubric-judge").glob("*.json"))
    assert len(files) == 3 and any(f.endswith("~rubric.json") for f in files)

    (row,) = stability(collect_results([out]))
    assert row.prompt_sets == ("default", "minimal", "rubric")
    assert row.values["d_avg"] == {"default": 0.0, "minimal": 0.0, "rubric": pytest.approx(D_DISCERN)}
    assert row.spread["d_avg"].range == pytest.approx(D_DISCERN)
    assert row.spread["d_min"].sd == pytest.approx(D_DISCERN / math.sqrt(3))  # sd of (0, 0, D)
    assert {(f.perturbation, f.which) for f in row.flips} == {
        (p, w) for p in AE.perturbation_ids for w in ("D", "D^EW")
    }

    proc = run_dhp("stability", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"| Rubric Judge | answer-equivalence | *spread (max-min)* | {D_DISCERN:.2f} |" in proc.stdout
    assert "18 change(s) of side of D = 1" in proc.stdout


def test_stability_of_a_judge_that_ignores_wording(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    with FakeJudgeServer(discerning) as srv:
        for pset in ("default", "minimal"):
            _score_run(srv.url, out, data, "Steady", prompt_set=pset)
    (row,) = stability(collect_results([out]))
    assert row.spread["d_avg"].range == 0.0 and row.flips == ()
    proc = run_dhp("stability", str(out), "--out", str(tmp_path / "s.md"))
    assert proc.returncode == 0 and "no perturbation changes side" in (tmp_path / "s.md").read_text()


def test_robustness_shows_the_cue_copier_losing_its_discernment(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    with FakeJudgeServer(cue_copier) as srv:
        _score_run(srv.url, out, data, "Copier")
        _score_run(srv.url, out, data, "Copier", cue=DEFAULT_CUE)
        prompts = [e.body["messages"][0]["content"] for e in srv.log]
    with FakeJudgeServer(discerning) as srv:
        _score_run(srv.url, out, data, "Ignorer")
        _score_run(srv.url, out, data, "Ignorer", cue=DEFAULT_CUE)
    cued_prompts = [p for p in prompts if DEFAULT_CUE in p]
    assert len(cued_prompts) == N * 10  # originals and perturbed texts alike
    assert all(p.index(DEFAULT_CUE) > p.index("Answer:\n\n") for p in cued_prompts)

    pairs, unpaired = robustness(collect_results([out]))
    assert unpaired == []
    by = {cp.judge: cp for cp in pairs}
    cp = by["Copier"]
    assert cp.cue == DEFAULT_CUE and cp.prompt_set == "default"
    assert cp.shift["answer_quality"].original == 0.0 and cp.shift["answer_quality"].perturbed == 3.0
    assert cp.without["d_avg"] == pytest.approx(D_DISCERN) and cp.with_cue["d_avg"] == 0.0
    assert cp.discerned == (9, 0)
    assert all(a == pytest.approx(D_DISCERN) and b == 0.0 for a, b in cp.d_change.values())
    ig = by["Ignorer"]
    assert ig.shift["answer_quality"].original == 0.0 and ig.shift["answer_quality"].perturbed == 0.0
    assert ig.with_cue["d_avg"] == ig.without["d_avg"] == pytest.approx(D_DISCERN) and ig.discerned == (9, 9)

    proc = run_dhp("robustness", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "## Copier on answer-equivalence (prompt set default)" in proc.stdout
    assert "9 of 9 without the cue, 0 of 9 with it" in proc.stdout
    assert "| answer_quality | +0.00 | +3.00 | 16 + 144 |" in proc.stdout
    assert f"| change | -{D_DISCERN:.2f} |" in proc.stdout
    # the stability report leaves cue results out: one prompt set per judge
    assert all(row.prompt_sets == ("default",) for row in stability(collect_results([out])))


def test_robustness_names_a_cue_result_without_partner(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "res"
    with FakeJudgeServer(discerning) as srv:
        _score_run(srv.url, out, data, "Lonely", cue="Rated 1 out of 5 before.", prompt_set="minimal")
    pairs, unpaired = robustness(collect_results([out]))
    assert pairs == [] and [u.prompt_set for u in unpaired] == ["minimal"]
    proc = run_dhp("robustness", str(out))
    assert proc.returncode == 0 and "No cue-free result of Lonely" in proc.stdout
