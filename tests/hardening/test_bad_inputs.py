"""The bad-input matrix, and regression tests of the bugs it found."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.protocol import RawText
from dhp.leaderboard.submissions.validation import ValidationError, validate_submission
from dhp.naming import judge_slug
from tests.support.bad_inputs import CASES, run_all


def test_every_bad_input_is_refused_clearly_and_stored_data_stays_intact(tmp_path: Path) -> None:
    outcomes = run_all(tmp_path)
    assert len(outcomes) == len(CASES)
    for o in outcomes:
        assert o.refused, f"{o.entry} / {o.case}: not refused ({o.message})"
        assert o.intact, f"{o.entry} / {o.case}: stored data changed"
        assert "Traceback" not in o.message and o.message
    by_case = {o.case: o.message for o in outcomes}
    assert "not a usable SQLite database" in by_case["corrupted cache file"]
    assert (
        "char_typo_minor.parquet: cannot read the pairs" in by_case["build info naming a missing data file"]
    )
    assert "control or invisible" in by_case["odd unicode judge name"]


def test_corrupted_cache_file_is_named_and_left_alone(tmp_path: Path) -> None:
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"not a database at all" * 10)
    with pytest.raises(CacheError, match=r"c\.sqlite is not a usable SQLite database"):
        ResponseCache(bad)
    assert bad.read_bytes() == b"not a database at all" * 10


def test_a_damaged_cache_entry_is_a_miss_and_is_replaced(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        cache.put("k", "j", None, RawText("4"))
    db = sqlite3.connect(tmp_path / "c.sqlite")
    db.execute('UPDATE responses SET output = \'{"kind": "text"\'')
    db.commit()
    db.close()
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        assert cache.get("k") is None
        cache.put("k", "j", None, RawText("5"))
        assert cache.get("k") == RawText("5")


@pytest.mark.parametrize("name", ["\u202ejudge", "jud\u200bge", "a\x00b", "\u2066x\u2069"])
def test_judge_names_with_invisible_characters_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="control or invisible"):
        judge_slug(name)


def test_the_space_refuses_judge_names_the_scorer_would_refuse() -> None:
    form = dict(endpoint_url="https://judge.example.org/v1", protocol="openai", model="org/m", hf_model_id=None,
                revision=None, mode="expected", contact="me@example.org")  # fmt: skip
    for name in ("org/judge", "a/../../b", "x\\y"):
        with pytest.raises(ValidationError) as e:
            validate_submission(judge_name=name, app_mode="local", **form)  # type: ignore[arg-type]
        assert e.value.field == "judge_name"
        with pytest.raises(ValueError):
            judge_slug(name)  # the scorer refuses it too: accepting it would fail the request at run time
    ok = validate_submission(judge_name="Llama 3.1 (8B) v2-awq", app_mode="local", **form)  # type: ignore[arg-type]
    assert judge_slug(ok.judge_name) == "llama-3.1--8b--v2-awq"
