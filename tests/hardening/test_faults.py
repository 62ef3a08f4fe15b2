"""The fault matrix: every injected fault ends in a completed run with exact accounting, or a clear failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.faults import CASES, ITEMS, TEXTS, Case, Outcome, run_case, write_data

PER_ITEM = TEXTS // ITEMS
WAVE = 4  # the runs' concurrency: the first wave, whose first answer settles the endpoint's capabilities
BY_NAME = {c.name: c for c in CASES}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_data(tmp_path_factory.mktemp("faults-data"))


def _run(name: str, data: Path, tmp_path: Path) -> Outcome:
    case: Case = BY_NAME[name]
    return run_case(case, data, tmp_path / "out")


@pytest.mark.parametrize(
    ("name", "retries"),
    [
        ("429 + Retry-After", 3),
        ("503 burst", 5),
        ("connection reset", 3),
        ("timeout", 2),
        ("truncated JSON", 3),
    ],
)
def test_transient_faults_are_retried_and_counted(
    name: str, retries: int, data: Path, tmp_path: Path
) -> None:
    o = _run(name, data, tmp_path)
    assert o.status == "completed", o.error
    assert o.retries == retries and o.sent == TEXTS + retries == o.requests_seen
    assert o.failed == 0 and o.unparsed == 0 and o.coverage == 1.0


def test_empty_completions_are_unparsed_not_scored(data: Path, tmp_path: Path) -> None:
    o = _run("empty completion", data, tmp_path)
    assert o.status == "completed" and o.retries == 0 and o.sent == TEXTS
    assert o.unparsed == PER_ITEM and o.coverage == pytest.approx(1 - PER_ITEM / TEXTS)
    assert "no-score-token: 10" in o.reasons


def test_garbage_text_is_unparsed_with_its_reason(data: Path, tmp_path: Path) -> None:
    o = _run("garbage text", data, tmp_path)
    assert o.status == "completed" and o.sent == 2 * TEXTS  # paper mode, 2 repeats
    assert o.unparsed == PER_ITEM and "no-score: 20" in o.reasons and "mode paper" in o.reasons


def test_missing_logprobs_refused_in_expected_mode_and_sampled_in_auto(data: Path, tmp_path: Path) -> None:
    refused = _run("logprobs missing, --mode expected", data, tmp_path / "a")
    assert refused.status == "failed" and "no-logprobs" in refused.error and "--mode sample" in refused.error
    assert 1 <= refused.requests_seen <= WAVE  # stopped at the first answer of the first wave
    auto = _run("logprobs missing, --mode auto", data, tmp_path / "b")
    assert auto.status == "completed" and "mode sample" in auto.reasons and auto.coverage == 1.0
    assert (
        auto.requests_seen == WAVE + 2 * TEXTS
    )  # the first wave (all its answers awaited), then 2 samples per text


def test_an_endpoint_that_is_down_is_a_clear_failure(data: Path, tmp_path: Path) -> None:
    down = _run("endpoint down", data, tmp_path / "a")
    assert down.status == "failed" and "probe-failed" in down.error and "http-503" in down.error
    assert down.requests_seen == 3 * WAVE  # each request of the first wave and its 2 retries
    dying = _run("endpoint dies mid-run", data, tmp_path / "b")
    assert dying.status == "failed" and "endpoint-down" in dying.error and "http-500" in dying.error
    assert not list((tmp_path / "b" / "out").glob("*/*.json"))  # no partial result written
