"""The table's records (issue 37): the board's listing reads from each file only the members its table
shows (:mod:`dhp.leaderboard.board.records`), makes the full results only when asked, and validates them
in full after the first rows; the table made from the records is the table made from the full results."""

from __future__ import annotations

import json
import time
from pathlib import Path

import orjson
import pandas as pd
import pytest

from dhp.leaderboard.board import private_split, table
from dhp.leaderboard.board.loading import LoadedResult, ResultsIndex, parse_listed
from dhp.leaderboard.board.records import TableRecord, parse_record
from dhp.leaderboard.board.stores import LocalStore
from dhp.scoring.result_files import dump_result, parse_result
from dhp.scoring.results import Result
from tests.leaderboard.factory import make_result

COMMITMENT, OLD_COMMITMENT = "c0ffee" + "0" * 58, "0ld" + "1" * 61


def _private(r: Result, commitment: str, created_at: str) -> Result:
    """``r`` as a private split's result on ``commitment`` (aggregates only)."""
    data = r.dataset.model_copy(update={"split": "private", "commitment": commitment})
    return r.model_copy(update={"dataset": data, "scores": None, "created_at": created_at})


def _write(root: Path, rel: str, r: Result) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(dump_result(r))


def _store(root: Path) -> Path:
    """Judges on public datasets (older and newer results, a second prompt set, a cue, a control judge,
    a sample build, bootstrap intervals or none) and on a private split, on the current and on a stale
    commitment."""
    for name, skill, boot in (("strong", 0.9, 40), ("weak", 0.05, 0), ("mid", 0.4, 40)):
        for ds in ("summeval", "answer-equivalence", "wmt22-de-en"):
            _write(root, f"{name}/{ds}@v1.json", make_result(name, ds, skill=skill, n_items=20, n_boot=boot))
    _write(
        root, "strong/summeval@old.json", make_result("strong", skill=0.1, created_at="2024-01-01T00:00:00Z")
    )
    _write(root, "mid/summeval~rubric.json", make_result("mid", skill=0.2, prompt_set="rubric"))
    cue = make_result("weak", skill=0.8, n_items=20)
    _write(root, "weak/summeval~cue.json", cue.model_copy(update={"scoring": cue.scoring.model_copy(update={"cue": "5/5"})}))  # fmt: skip
    _write(root, "random/summeval@v1.json", make_result("random", protocol="builtin", model="random"))
    _write(root, "sample/summeval@v1.json", make_result("sample", version="v1.0.0-sample", n_items=12))
    pub = make_result("strong", "answer-equivalence", skill=0.7, n_items=20, n_boot=40)
    _write(root, "strong/ae~new.json", _private(pub, COMMITMENT, "2025-03-01T00:00:00Z"))
    _write(root, "mid/ae~old.json", _private(pub, OLD_COMMITMENT, "2025-02-01T00:00:00Z"))
    _write(root, "weak/ae~new.json", _private(make_result("weak", "answer-equivalence", skill=0.1, n_items=20), COMMITMENT, "2025-03-02T00:00:00Z"))  # fmt: skip
    return root


def _full(results: list[LoadedResult]) -> list[LoadedResult]:
    """The same results as the listing made them before issue 37: full results, records from them."""
    return [LoadedResult(lr.path, lr.result, lr.replicates, lr.version) for lr in results]


def _private_frame(results: list[LoadedResult]) -> pd.DataFrame:
    return private_split.private_frame(private_split.private_pairs(results), {}, list(table.present_datasets(table.build_frame(results))))  # fmt: skip


def test_the_table_from_records_is_the_table_from_full_results(tmp_path: Path) -> None:
    rep = ResultsIndex(LocalStore(_store(tmp_path / "results"))).load()
    assert rep.problems == () and len(rep.results) == 17
    assert not any(lr.validated for lr in rep.results)  # the listing made no full result
    light = table.build_frame(rep.results)
    spread = {
        lr.path for lr in rep.results if lr.record.judge.name == "mid" and lr.record.scoring.cue is None
    }
    made = {lr.path for lr in rep.results if lr.validated}
    assert made <= spread and made  # only the prompt spread's judge's results were made in full
    full = _full(list(rep.results))
    pd.testing.assert_frame_equal(light, table.build_frame(full))
    pd.testing.assert_frame_equal(_private_frame(list(rep.results)), _private_frame(full))
    assert private_split.current_commitments(rep.results) == {"answer-equivalence": COMMITMENT}
    assert private_split.stale_count(rep.results) == private_split.stale_count(full) == 1
    views = [
        table.select_view(private_split.with_private(table.build_frame(rs), _private_frame(rs)), private=True, meta=table.META_COLUMNS)
        for rs in (list(rep.results), full)
    ]  # fmt: skip
    assert "answer-equivalence private" in views[0].columns and "random" in set(views[0]["Judge"])
    assert table.to_csv(views[0]) == table.to_csv(views[1])
    assert "sample data" in str(light.set_index("Judge").loc["sample", "Caveats"])
    for lr in rep.results:  # each record is its full result's
        assert lr.record == TableRecord.of(lr.result), lr.path


def test_parse_record_reads_dhp_files_and_leaves_the_others_to_the_full_parse() -> None:
    r = make_result("j", n_items=20, n_boot=20)
    text = dump_result(r).encode()
    assert parse_record(text) == TableRecord.of(r)
    assert parse_record(text.replace(b'"original": {', b'"original": {{', 1)) == TableRecord.of(r)  # unread
    doc = json.loads(text)
    assert parse_record(orjson.dumps(doc)) is None  # compact: another layout
    assert parse_record(json.dumps({**doc, "schema_version": "1.4"}, indent=2).encode()) is None
    assert parse_record(json.dumps({**doc, "extra": 1}, indent=2).encode()) is None
    nested = text.replace(
        b'"summary": {\n    "d_avg"', b'"summary": {\n  "d_avg"'
    )  # a nested key at column 2
    assert parse_record(nested) is None
    for bad in (
        b"{ nope",
        b"[]",
        text[: text.index(b'"summary"')],
        text.replace(b'"created_at": "', b'"created_at": 1, "x": "'),
    ):
        assert parse_record(bad) is None
    private = _private(r, COMMITMENT, r.created_at)
    assert parse_record(dump_result(private).encode()) is not None
    with_scores = dump_result(private.model_copy(update={"scores": r.scores})).encode()  # not allowed
    assert parse_record(with_scores) is None
    listed = parse_listed("p.json", with_scores)  # parsed in full without its scores, as before issue 37
    assert listed.validated and listed.record == TableRecord.of(
        parse_result(with_scores.decode(), with_scores=False)
    )
    with pytest.raises(ValueError, match="aggregates only"):  # where the scores are read
        parse_result(with_scores.decode())


def test_a_file_bad_where_the_table_does_not_read_is_found_after_the_rows(tmp_path: Path) -> None:
    """The listing validates what the table reads; the rest of a file (its perturbations) is validated in
    full by :meth:`ResultsIndex.validate` (the board's background, after the first rows): a file that
    does not validate leaves the table at the next listing, a new generation, with its problem."""
    root = tmp_path / "results"
    _write(root, "a/summeval@v1.json", make_result("a", n_items=20))
    text = dump_result(make_result("b", n_items=20))
    (root / "b").mkdir()
    (root / "b/summeval@v1.json").write_text(
        text.replace('"p": 0.', '"p": 7.', 1)
    )  # a p-value outside [0, 1]
    _write(root, "c/summeval@v1.json", make_result("c", n_items=20))
    broken = dump_result(make_result("c", n_items=20)).replace('"original": {', '"original": {{', 1)
    (root / "c/summeval@v1.json").write_text(broken)  # its item scores are not JSON
    idx = ResultsIndex(LocalStore(root))
    rep = idx.load()
    assert {lr.record.judge.name for lr in rep.results} == {"a", "b", "c"} and rep.problems == ()
    assert idx.validate() is True
    fresh = idx.load()
    assert fresh.generation > rep.generation and [lr.record.judge.name for lr in fresh.results] == ["a"]
    assert len(fresh.problems) == 2 and "b/summeval@v1.json: invalid result" in fresh.problems[0]
    assert "c/summeval@v1.json: not valid JSON" in fresh.problems[1]
    assert all(lr.validated for lr in fresh.results) and idx.validate() is False
    assert idx.load().generation == fresh.generation


class _Ranks:
    """A rank job that records when it is asked (and never computes)."""

    def __init__(self) -> None:
        self.asked = 0

    def get(self, results: object, wait: bool = False) -> None:
        self.asked += 1

    def progress(self) -> tuple[int, int]:
        return 0, 1


def test_the_board_warms_up_rows_first_then_the_rank_job_and_the_validation(tmp_path: Path) -> None:
    """While the board warms up (the listing, the table, the default view) a request starts neither the
    rank job (a child taking a core for a minute) nor the full validation; the warm-up starts the rank
    job once the default view is made, the next request the validation, which takes a bad file out."""
    from dhp.leaderboard.page.service import AppConfig, BoardService

    root = tmp_path / "results"
    _write(root, "a/summeval@v1.json", make_result("a", n_items=20))
    (root / "b").mkdir()
    (root / "b/summeval@v1.json").write_text(dump_result(make_result("b", n_items=20)).replace('"p": 0.', '"p": 7.', 1))  # fmt: skip
    cfg = AppConfig(
        results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
    )
    be = BoardService(cfg)
    be.ranks = ranks = _Ranks()  # type: ignore[assignment]
    seen: list[tuple[bool, int, bool]] = []

    def request_meanwhile() -> None:  # the page's poll while the board warms up (the first time)
        if seen:
            return
        rep = be.ready()
        assert rep is not None and len(rep.results) == 2
        seen.append((be.ranks_ready(), ranks.asked, any(lr.validated for lr in rep.results)))

    be.warmers.append(request_meanwhile)
    be.warm()
    assert seen == [(False, 0, False)] and ranks.asked == 1
    assert not be.ranks_ready() and ranks.asked == 2  # a request after the warm-up: the validation starts
    deadline = time.monotonic() + 60
    while not (rep := be.report(max_age_s=0)).problems and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [lr.record.judge.name for lr in rep.results] == ["a"]
    assert "b/summeval@v1.json: invalid result" in rep.problems[0]


def test_a_file_not_utf8_is_a_problem_where_it_is_read(tmp_path: Path) -> None:
    """A byte that is not UTF-8 where the table reads (a judge's name) is found at the listing; one in
    the item scores, by the full validation (the listing does not decode the whole file)."""
    root = tmp_path / "results"
    for name in ("name", "scores"):
        (root / name).mkdir(parents=True)
    text = dump_result(make_result("j\u00e9", n_items=20)).encode()
    (root / "name/summeval@v1.json").write_bytes(text.replace("j\u00e9".encode(), b"j\xe9", 1))
    (root / "scores/summeval@v1.json").write_bytes(
        text.replace(b'"item_ids": [', b'"item_ids": [ "\xff",', 1)
    )
    idx = ResultsIndex(LocalStore(root))
    rep = idx.load()
    assert rep.problems == ("name/summeval@v1.json: not UTF-8 (invalid continuation byte)",)
    assert idx.validate() and idx.load().problems == (
        "name/summeval@v1.json: not UTF-8 (invalid continuation byte)",
        "scores/summeval@v1.json: not UTF-8 (invalid start byte)",
    )
