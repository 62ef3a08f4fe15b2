"""The one judge record (dhp.inference.judge): JSON round-trips, one-line refusals, no secret, the CLI builds the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dhp.inference.judge import (
    BuiltinJudge,
    EndpointJudge,
    HubJudge,
    Judge,
    JudgeSpecError,
    LocalJudge,
    dump_judge,
    parse_judge,
    read_judge,
    write_judge,
)
from dhp.types import ControlJudge, EndpointProtocol
from tests.scoring.helpers import run_dhp

JUDGES: list[Judge] = [
    BuiltinJudge(name="Random control", control=ControlJudge.RANDOM),
    EndpointJudge(
        name="Llama 3.1 (8B)",
        endpoints=("http://127.0.0.1:8000", "https://b.example.org/v1"),
        protocol=EndpointProtocol.TGI,
        model="meta/llama",
        hf_model_id="meta/llama",
        revision="abc",
        n_params=8e9,
    ),
    HubJudge(name="judge-7b", model_id="test-org/judge-7b", provider="novita", revision="v2"),
    HubJudge(name="auto judge", model_id="test-org/judge-7b"),
    LocalJudge(name="tiny local", model="/models/tiny", hf_model_id="org/tiny"),
]


@pytest.mark.parametrize("judge", JUDGES, ids=lambda j: j.kind)
def test_every_kind_round_trips_through_json_and_files(judge: Judge, tmp_path: Path) -> None:
    text = dump_judge(judge)
    assert json.loads(text)["kind"] == judge.kind
    assert parse_judge(text) == judge
    assert parse_judge(json.loads(text)) == judge
    write_judge(tmp_path / "j.json", judge)
    assert read_judge(tmp_path / "j.json") == judge
    assert dump_judge(read_judge(tmp_path / "j.json")) == text  # stable bytes


def test_a_hub_judge_reads_as_its_router_model() -> None:
    assert HubJudge(name="x", model_id="o/m", provider="novita").router_model == "o/m:novita"
    assert HubJudge(name="x", model_id="o/m").router_model == "o/m"
    assert HubJudge(name="x", model_id="o/m").hf_model_id == "o/m"


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ({"kind": "oracle", "name": "x"}, "does not match any of the expected tags"),
        ({"name": "x"}, "kind"),
        ({"kind": "builtin", "name": "x", "control": "psychic"}, "builtin.control"),
        ({"kind": "builtin", "name": "a/b", "control": "random"}, "path separator"),
        ({"kind": "builtin", "name": "", "control": "random"}, "builtin.name"),
        ({"kind": "endpoint", "name": "x", "endpoints": []}, "endpoint.endpoints"),
        ({"kind": "endpoint", "name": "x", "endpoints": ["ftp://h/v1"]}, "http(s) URL"),
        ({"kind": "endpoint", "name": "x", "endpoints": ["https://u:pw@h.org/v1"]}, "secret (credentials)"),
        ({"kind": "endpoint", "name": "x", "endpoints": ["https://h.org/v1?api_key=1"]}, "'api_key'"),
        (
            {"kind": "endpoint", "name": "x", "endpoints": ["https://h.org"], "protocol": "grpc"},
            "endpoint.protocol",
        ),
        ({"kind": "endpoint", "name": "x", "endpoints": ["https://h.org"], "api_key": "sk-1"}, "api_key"),
        ({"kind": "hub", "name": "x", "model_id": "no-org"}, "ORG/NAME"),
        ({"kind": "hub", "name": "x", "model_id": "o/m", "provider": "Bad Provider!"}, "provider"),
        ({"kind": "local", "name": "x"}, "local.model"),
    ],
)
def test_bad_judges_are_refused_in_one_line(doc: dict[str, object], needle: str) -> None:
    with pytest.raises(JudgeSpecError) as e:
        parse_judge(doc, source="judge.json")
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and msg.startswith("judge.json: invalid judge")


def test_unreadable_judge_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(JudgeSpecError, match="cannot read the judge file"):
        read_judge(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(JudgeSpecError, match="Invalid JSON"):
        read_judge(tmp_path / "bad.json")


def test_the_cli_flags_and_a_judge_file_describe_the_same_judge(tmp_path: Path) -> None:
    """`dhp score --judge random` and `--judge-file` (the worker's way) write the same judge record."""
    from dhp.scoring.result_files import read_result
    from dhp.spec import get_dataset
    from tests.support.tiny_data import write_tiny_dataset

    write_tiny_dataset(tmp_path / "data", get_dataset("story-cloze"))
    common = ("--data", str(tmp_path / "data"), "--datasets", "story-cloze", "--n-boot", "0")
    by_flags = run_dhp(
        "score", "--judge", "random", "--judge-name", "Random control", *common, "--out", str(tmp_path / "a")
    )
    write_judge(tmp_path / "judge.json", JUDGES[0])
    by_file = run_dhp(
        "score", "--judge-file", str(tmp_path / "judge.json"), *common, "--out", str(tmp_path / "b")
    )
    assert by_flags.returncode == 0 and by_file.returncode == 0, by_flags.stderr + by_file.stderr
    a, b = read_result(Path(by_flags.stdout.strip())), read_result(Path(by_file.stdout.strip()))
    assert a.judge == b.judge and a.judge.name == "Random control" and a.judge.model == "random"


def test_the_cli_refuses_a_judge_file_mixed_with_judge_flags(tmp_path: Path) -> None:
    write_judge(tmp_path / "judge.json", JUDGES[2])
    out = ("--out", str(tmp_path / "o"))
    proc = run_dhp("score", "--judge-file", str(tmp_path / "judge.json"), "--judge-name", "other", *out)
    assert proc.returncode == 2 and "do not combine it with --judge-name" in proc.stderr
    proc = run_dhp("score", "--judge-file", str(tmp_path / "judge.json"), "--judge", "random", *out)
    assert proc.returncode == 2 and "exactly one of" in proc.stderr
    (tmp_path / "bad.json").write_text(
        '{"kind": "endpoint", "name": "x", "endpoints": ["https://u:pw@h.org"]}'
    )
    proc = run_dhp("score", "--judge-file", str(tmp_path / "bad.json"), *out)
    assert proc.returncode == 2 and "credentials" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
