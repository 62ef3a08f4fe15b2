from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from dhp.inference.judge import (
    BuiltinJudge,
    EndpointJudge,
    HubJudge,
    JudgeSpecError,
    LocalJudge,
    PublishedJudge,
    parse_judge,
    published,
)
from dhp.scoring.analysis import analyse
from dhp.scoring.result_files import (
    MIGRATIONS,
    READABLE_SCHEMA_VERSIONS,
    check_chain,
    dump_result,
    migrate,
    parse_result,
    read_result,
    write_result,
)
from dhp.scoring.results import (
    SCHEMA_VERSION,
    Coverage,
    DatasetRef,
    ItemScores,
    JudgeInfo,
    Result,
    ResultError,
    ScoringSettings,
    Timing,
)
from dhp.scoring.summary import result_from_analysis, reweight
from dhp.spec import get_dataset
from dhp.types import ControlJudge, EndpointProtocol
from tests.leaderboard.factory import make_result


def _result(seed: int = 0):  # type: ignore[no-untyped-def]
    spec = get_dataset("wmt22-de-en")
    rng = np.random.default_rng(seed)
    n = 40
    orig = {m: rng.integers(2, 6, n).astype(float) for m in spec.metric_names}
    pert = {p: {m: orig[m] - (rng.random(n) < 0.5) for m in spec.metric_names} for p in spec.perturbation_ids}
    pert["word_grammar_minor"]["fluency"][3] = np.nan  # an unparsed score
    levels = {p.id: p.level for p in spec.perturbations}
    weights = {p: dict(spec.weights.for_perturbation(p)) for p in spec.perturbation_ids}
    analysis = analyse(orig, pert, levels, weights, n_boot=50, seed=1)
    scores = ItemScores(
        item_ids=tuple(f"i{i}" for i in range(n)),
        original={m: tuple(float(v) for v in orig[m]) for m in orig},
        perturbed={
            p: {m: tuple(None if np.isnan(v) else float(v) for v in pert[p][m]) for m in pert[p]}
            for p in pert
        },
    )
    return (
        spec,
        weights,
        result_from_analysis(
            analysis,
            judge=JudgeInfo.of(
                BuiltinJudge(name="toy", control=ControlJudge.RANDOM), model="random", settings={}
            ),
            dataset=DatasetRef(name=spec.name, repo=spec.hub_repo, revision="local:abc", n_items=n),
            scoring=ScoringSettings(mode="builtin", weights=weights, n_boot=50, seed=1),
            coverage=Coverage(
                expected_scores=10, parsed_scores=9, unparsed=1, failed=0, unparsed_reasons={"empty": 1}
            ),
            timing=Timing(),
            scores=scores,
            created_at="2026-11-22T00:00:00Z",
            dhp_version="0.1.0",
        ),
    )


def test_round_trip(tmp_path: Path) -> None:
    _, _, r = _result()
    path = write_result(r, tmp_path / "x" / "r.json")
    assert read_result(path) == r
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp files left
    assert r.coverage.coverage == pytest.approx(0.9)


def test_reweight_matches_analysis_and_changes_with_weights() -> None:
    spec, weights, r = _result()
    s = reweight(r, weights)
    assert s.d_avg_ew == pytest.approx(r.summary.d_avg_ew)
    assert s.d_min == pytest.approx(r.summary.d_min)
    flipped = {p: {m: (1.0 if m == "accuracy" else 0.0) for m in spec.metric_names} for p in weights}
    s2 = reweight(r, flipped)
    assert s2.d_avg_ew != pytest.approx(s.d_avg_ew)
    assert s2.d_avg == pytest.approx(s.d_avg)  # unweighted unaffected


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: "{not json", "not valid JSON"),
        (lambda d: json.dumps([1]), "JSON object"),
        (lambda d: json.dumps({**d, "schema_version": "0.1"}), "unsupported schema_version"),
        (lambda d: json.dumps({**d, "judge": {**d["judge"], "kind": "alien"}}), "judge.kind"),
        (lambda d: json.dumps({**d, "extra_field": 1}), "extra_field"),
    ],
)
def test_bad_documents_name_the_problem(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    _, _, r = _result()
    data = json.loads(dump_result(r))
    with pytest.raises(ResultError, match=message):
        parse_result(mutate(data), source="f.json")


def test_out_of_range_p_rejected() -> None:
    _, _, r = _result()
    data = json.loads(dump_result(r))
    data["perturbations"][0]["metrics"]["accuracy"]["p"] = 1.5
    with pytest.raises(ResultError, match="outside"):
        parse_result(json.dumps(data), source="f.json")


def test_summary_has_levels_and_qualified_flag() -> None:
    _, _, r = _result()
    s = r.summary
    assert s.n_without_d == 0
    levels = {p.level for p in r.perturbations}
    assert set(s.by_level) == levels
    for level, ls in s.by_level.items():
        ds = [p.d for p in r.perturbations if p.level is level and p.d is not None]
        assert ls.d_avg == pytest.approx(sum(ds) / len(ds))
    assert s.d_min_ew is not None and s.qualified is (s.d_min_ew > 1)
    assert all(p.n_metrics_used == len(p.metrics) for p in r.perturbations)
    data = json.loads(dump_result(r))
    assert data["schema_version"] == SCHEMA_VERSION and set(data["summary"]["by_level"]) <= {"C", "W", "S"}


def test_schema_1_0_documents_are_upgraded_on_reading() -> None:
    """A 1.0 file that gave a perturbation with no pair p = 1 and D > 0 reads as 'no D'."""
    _, _, r = _result()
    data = json.loads(dump_result(r))
    data["schema_version"] = "1.0"
    for key in ("n_without_d", "by_level", "qualified"):
        del data["summary"][key]
    del data["scoring"]["prompt_set"], data["scoring"]["cue"]
    victim = data["perturbations"][0]
    for pr in data["perturbations"]:
        del pr["n_metrics_used"]
    for ms in victim["metrics"].values():
        ms.update(p=1.0, n_pairs=0, n_nonzero=0)
    victim.update(p=0.5, p_ew=1.0, d=0.23, d_ew=0.0)
    half = data["perturbations"][1]  # lost one of its two metrics: 1.0 combined it as p = 1
    half["metrics"]["fluency"].update(p=1.0, n_pairs=0, n_nonzero=0)
    p_acc = half["metrics"]["accuracy"]["p"]
    up = parse_result(json.dumps(data), source="old.json")
    second = up.perturbations[1]
    assert second.n_metrics_used == 1 and second.p == pytest.approx(p_acc) and second.d_ci is None
    assert second.d == pytest.approx(math.log(p_acc) / math.log(0.05))
    assert up.schema_version == SCHEMA_VERSION
    assert up.summary.qualified is not True  # a perturbation without D never qualifies
    first = up.perturbations[0]
    assert first.d is None and first.d_ew is None and first.n_metrics_used == 0
    assert all(ms.p is None for ms in first.metrics.values())
    assert up.summary.n_without_d == 1
    rest = [p.d for p in up.perturbations[1:] if p.d is not None]
    assert up.perturbations[2].d == r.perturbations[2].d  # untouched perturbations keep their values
    assert up.summary.d_min == pytest.approx(min(rest))
    assert up.scoring.prompt_set == "default" and up.scoring.cue is None


def test_result_path_per_prompt_set_and_cue() -> None:
    from dhp.scoring.result_files import cue_slug, result_path

    base = result_path("/r", "J", "summeval", "abc")
    assert base == Path("/r/j/summeval@abc.json")
    assert result_path("/r", "J", "summeval", "abc", prompt_set="default") == base
    assert result_path("/r", "J", "summeval", "abc", prompt_set="rubric").name == "summeval@abc~rubric.json"
    cued = result_path("/r", "J", "summeval", "abc", prompt_set="minimal", cue="Rated 5 of 5.")
    assert cued.name == f"summeval@abc~minimal~{cue_slug('Rated 5 of 5.')}.json"
    assert cue_slug("a") != cue_slug("b")
    with pytest.raises(ValueError, match="prompt set"):
        result_path("/r", "J", "summeval", "abc", prompt_set="..")


def test_a_perturbation_without_d_disqualifies_and_1_1_files_are_upgraded() -> None:
    """Qualified means every issue discerned: 1.1 called a judge qualified with a perturbation
    without D when the others had D > 1; 1.2 does not, and a 1.1 file reads with the 1.2 rule."""
    from dhp.scoring.summary import qualified

    assert qualified(3.0, 0) is True and qualified(3.0, 1) is False and qualified(0.5, 0) is False
    assert qualified(None, 2) is None
    _, _, r = _result()
    data = json.loads(dump_result(r))
    victim = data["perturbations"][0]
    for ms in victim["metrics"].values():
        ms.update(p=None, n_pairs=0, n_nonzero=0)
    victim.update(p=None, p_ew=None, d=None, d_ew=None, d_ci=None, d_ew_ci=None, n_metrics_used=0)
    data["summary"].update(n_without_d=1, d_min_ew=5.0, qualified=True)  # as 1.1 wrote it
    data["schema_version"] = "1.1"
    up = parse_result(json.dumps(data), source="old.json")
    assert up.schema_version == SCHEMA_VERSION and up.summary.qualified is False
    assert up.summary.d_min_ew == 5.0 and up.summary.n_without_d == 1  # the numbers are untouched
    data["summary"]["n_without_d"] = 0
    assert parse_result(json.dumps(data), source="old.json").summary.qualified is True


# -- 1.3: the judge record itself, flat 1.0-1.2 judge fields read as that record -----------------------
_FLAT_1_2: dict[str, tuple[dict[str, Any], PublishedJudge]] = {
    "builtin": (
        {"name": "Random control", "kind": "builtin", "protocol": "builtin", "model": "random", "settings": {"seed": 0}},
        published(BuiltinJudge(name="Random control", control=ControlJudge.RANDOM)),
    ),
    "endpoint, host published": (
        {"name": "My judge", "kind": "endpoint", "protocol": "tgi", "model": "tgi", "hf_model_id": "org/m",
         "revision": "main", "n_params": 7e9, "endpoint_hosts": ["judge.example.org"], "settings": {}},
        published(EndpointJudge(name="My judge", endpoints=("https://judge.example.org/v1",), protocol=EndpointProtocol.TGI,
                                model="tgi", hf_model_id="org/m", revision="main", n_params=7e9, publish_host=True)),
    ),
    "endpoint, host hidden": (
        {"name": "Hidden", "kind": "endpoint", "protocol": "openai", "model": "m", "endpoint_hosts": [], "settings": {}},
        published(EndpointJudge(name="Hidden", endpoints=("https://judge.example.org/v1",), model="m")),
    ),
    "hub, recorded as the router's endpoint": (
        {"name": "Hub judge", "kind": "endpoint", "protocol": "openai", "model": "org/m:novita", "hf_model_id": "org/m",
         "endpoint_hosts": ["router.huggingface.co"], "settings": {"provider": "novita", "replicas": 1}},
        published(HubJudge(name="Hub judge", model_id="org/m", provider="novita")),
    ),
    "local": (
        {"name": "Tiny", "kind": "local", "protocol": "local", "model": "/models/tiny", "hf_model_id": "org/tiny",
         "settings": {}},
        published(LocalJudge(name="Tiny", model="/models/tiny", hf_model_id="org/tiny")),
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_FLAT_1_2))
def test_a_flat_judge_record_of_1_2_reads_as_the_judge_it_recorded(case: str) -> None:
    flat, judge = _FLAT_1_2[case]
    _, _, r = _result()
    data = json.loads(dump_result(r))
    data["schema_version"], data["judge"] = "1.2", flat
    up = parse_result(json.dumps(data))
    assert up.schema_version == SCHEMA_VERSION and up.judge.judge == judge
    assert up.judge.name == flat["name"] and up.judge.model == flat["model"]
    assert up.judge.protocol == flat["protocol"] or case.startswith(
        "hub"
    )  # a Hub judge's kind is its own now
    assert "provider" not in up.judge.settings  # the provider lives in the judge record
    again = parse_result(dump_result(up))  # and the 1.3 file it would be written as reads the same
    assert again.judge == up.judge


def test_a_result_keeps_a_judge_name_from_before_the_name_rule() -> None:
    _, _, r = _result()
    data = json.loads(dump_result(r))
    data["schema_version"], data["judge"] = "1.2", {**_FLAT_1_2["builtin"][0], "name": "org/model, old run "}
    assert parse_result(json.dumps(data)).judge.name == "org/model, old run "  # read as it was written
    with pytest.raises(JudgeSpecError, match="invalid judge"):
        parse_judge(
            {"kind": "builtin", "name": "org/model, old run ", "control": "random"}
        )  # no new judge so
    data["judge"]["name"] = "x" * 101
    with pytest.raises(ResultError):
        parse_result(json.dumps(data))


def test_a_result_never_holds_an_endpoint_url_and_a_scorable_judge_needs_one() -> None:
    judge = EndpointJudge(name="J", endpoints=("https://judge.example.org:8443/v1",), publish_host=True)
    info = JudgeInfo.of(judge, model="m", settings={})
    assert isinstance(info.judge, EndpointJudge) and info.judge.recorded
    assert info.judge.endpoints == ("judge.example.org:8443",) == info.endpoint_hosts
    assert (
        JudgeInfo.of(judge.model_copy(update={"publish_host": False}), model="m", settings={}).endpoint_hosts
        == ()
    )
    _, _, r = _result()
    data = json.loads(dump_result(r))
    data["judge"] = {
        "judge": {"kind": "endpoint", "name": "J", "endpoints": ["https://judge.example.org/v1"]}
    }
    with pytest.raises(ResultError, match="published endpoint is a host"):
        parse_result(json.dumps(data))  # a full URL in a results file is refused
    with pytest.raises(JudgeSpecError, match="at least one endpoint"):
        parse_judge({"kind": "endpoint", "name": "J", "endpoints": []})  # a judge to score has one


# -- migrations: one chain, applied before validation ---------------------------------------------------------
_FIXTURES = Path(__file__).parent / "results_fixtures"


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
def test_an_old_results_file_reads_as_the_current_file_it_read_as_before(version: str) -> None:
    """v<version>.json as-1.3.json is what the reader before the migration chain (03ab2de) made of it,
    dumped: the chain gives the same result, byte for byte."""
    old = _FIXTURES / f"v{version}.json"
    assert json.loads(old.read_text())["schema_version"] == version
    as_1_3 = _FIXTURES / f"v{version}.as-1.3.json"
    assert json.loads(as_1_3.read_text())["schema_version"] == "1.3"
    assert dump_result(read_result(old)) == dump_result(read_result(as_1_3))  # and 1.3 -> 1.4 on top


def _as_1_3(r: Result) -> dict[str, object]:
    """``r`` as a 1.3 file held it: without the few-pairs and effect fields of 1.4."""
    data = json.loads(dump_result(r))
    for pr in data["perturbations"]:
        for key in ("n_pairs", "counted", "effect", "effect_ci"):
            del pr[key]
    for key in ("n_few_pairs", "effect_avg"):
        del data["summary"][key]
    data["summary"]["ci"].pop("effect_avg", None)
    return {**data, "schema_version": "1.3"}


def test_a_1_3_file_gets_the_few_pairs_rule_and_the_effect_from_its_scores() -> None:
    """1.3 -> 1.4: pair counts and effects worked out from the item scores equal what a fresh
    analysis gives; a perturbation under MIN_PAIRS pairs leaves the aggregates (and their intervals,
    made with it) and the summary says so."""
    fresh = make_result("J", "summeval", n_items=40, rows={"sent_rewrite_insert_major": 4}, seed=3)
    up = parse_result(json.dumps(_as_1_3(fresh)))
    assert up.perturbations == fresh.perturbations[:0] + tuple(
        pr.model_copy(update={"effect_ci": None}) for pr in fresh.perturbations
    )
    few = [pr for pr in up.perturbations if not pr.counted]
    assert [(pr.id, pr.n_pairs) for pr in few] == [("sent_rewrite_insert_major", 4)]
    assert up.summary.n_few_pairs == 1 and up.summary.ci == {}
    assert up.summary.d_min_ew == fresh.summary.d_min_ew and up.summary.effect_avg == fresh.summary.effect_avg


def test_the_chain_makes_a_document_current_before_validation() -> None:
    data = json.loads((_FIXTURES / "v1.0.json").read_text())
    current = migrate(data)
    assert current["schema_version"] == SCHEMA_VERSION == READABLE_SCHEMA_VERSIONS[-1]
    assert current["judge"] == {"judge": {"kind": "builtin", "name": "Random control", "control": "random"},
                                "model": "random", "settings": {"seed": 0}}  # fmt: skip
    assert Result.model_validate(current) == read_result(_FIXTURES / "v1.0.json")
    assert data["schema_version"] == "1.0"  # the document read is left as it was


def test_a_validated_result_is_current_and_its_judge_has_one_shape() -> None:
    data = json.loads((_FIXTURES / "v1.2.as-1.3.json").read_text())
    with pytest.raises(ValidationError, match="not the current"):
        Result.model_validate({**data, "schema_version": "1.2"})
    flat = json.loads((_FIXTURES / "v1.2.json").read_text())["judge"]
    with pytest.raises(ResultError, match="judge"):  # a flat judge is 1.2's: a 1.3 file holds the record
        parse_result(json.dumps({**data, "judge": flat}))


def test_a_missing_step_in_the_chain_fails_loudly() -> None:
    data = json.loads((_FIXTURES / "v1.0.json").read_text())
    without_1_1 = tuple(step for step in MIGRATIONS if step[0] != "1.1")
    with pytest.raises(ValueError, match=r"no step from 1\.0 to 1\.1 \(next listed: 1\.2\)"):
        migrate(data, chain=without_1_1)
    with pytest.raises(ValueError, match=r"no step from 1\.4 to 1\.5 \(next listed: 1\.6\)"):
        migrate(data, current="1.6")  # the schema bumped without the step from the version before
    with pytest.raises(ValueError, match=r"no step from 1\.3 to 1\.4 \(next listed: 1\.5\)"):
        check_chain(MIGRATIONS[:-1], SCHEMA_VERSION)  # the step into the current version left out


def test_a_step_the_document_does_not_fit_names_the_file_and_version() -> None:
    data = json.loads((_FIXTURES / "v1.1.json").read_text())
    with pytest.raises(
        ResultError, match=r"^old\.json: cannot upgrade from 1\.1: summary must be a JSON object$"
    ):
        parse_result(json.dumps({**data, "summary": [1]}), source="old.json")
