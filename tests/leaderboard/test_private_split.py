"""The private split on the Space (issue 39): the worker scores both splits, the board shows the
private D, the paired difference and the "fits the public rows" flag, and nothing private leaks.

The splits are built from the embedded sample (Answer Equivalence, 20 items) by the real builder, the
private one with a secret seed from the environment; the judges are scored by the real worker and
``dhp score`` subprocess; a private split on the Hub is read through the recorded Hub replay.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dhp.cli import main
from dhp.data.private import SEED_ENV
from dhp.inference.judge import BuiltinJudge
from dhp.leaderboard.board import columns, private_split, table
from dhp.leaderboard.board.columns import PRIVATE_SPLIT
from dhp.leaderboard.board.loading import latest_results
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page import board_html
from dhp.leaderboard.page.judge_pages import judge_payload
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.leaderboard.submissions.queue import RequestQueue, State, new_request
from dhp.leaderboard.submissions.validation import Submission
from dhp.leaderboard.submissions.worker import (
    Worker,
    WorkerConfig,
    fetch_private_split,
    private_datasets,
    score_command,
    scorer_env,
)
from dhp.scoring.fits import fits_of_results, stored_methods
from dhp.scoring.result_files import parse_result, read_result
from dhp.types import ControlJudge
from tests.builder.hub_replay import REPLAY_TOKEN, HubReplay, replay_hub
from tests.support.serving import build_sample_split

#: the private split's secret seed in these tests (never on a page, in a file or a log)
SEED = "space-private-seed-5e4d3c2b1a09f8e7"
DATASET = "answer-equivalence"


@dataclass(frozen=True)
class Splits:
    public: Path
    private: Path


@pytest.fixture(scope="module")
def splits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Splits]:
    root = tmp_path_factory.mktemp("splits")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SEED_ENV, SEED)
        build_sample_split(root / "public", DATASET)
        build_sample_split(root / "private", DATASET, "--split", "private")
    yield Splits(root / "public", root / "private")


def _control(name: str = "Random control", control: ControlJudge = ControlJudge.RANDOM) -> Submission:
    return Submission(judge=BuiltinJudge(name=name, control=control), mode="builtin", contact="ci")


def _worker(
    tmp_path: Path, cfg: WorkerConfig, *subs: Submission, runner: Any = subprocess.run
) -> RequestQueue:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    for sub in subs:
        q.submit(new_request(sub, "u"))
    assert Worker(requests, results, cfg, runner=runner).drain(once=True) == len(subs)
    return q


def test_the_private_run_is_the_public_one_on_the_private_folder(tmp_path: Path) -> None:
    req = new_request(_control(), "u")
    cfg = WorkerConfig(data=tmp_path / "pub", private_data=tmp_path / "priv", n_boot=50, seed=4)
    public = score_command(req, cfg, tmp_path / "j.json", tmp_path / "out")
    private = score_command(req, cfg, tmp_path / "j.json", tmp_path / "out2", "all")
    assert "--split" not in public and public[public.index("--data") + 1] == str(tmp_path / "pub")
    assert private[private.index("--split") + 1] == "private"
    assert private[private.index("--data") + 1] == str(tmp_path / "priv")
    for flag in ("--seed", "--n-boot"):  # the same statistics: the fit reads both at the same replicates
        assert public[public.index(flag) + 1] == private[private.index(flag) + 1]
    (tmp_path / "priv" / "summeval").mkdir(parents=True)
    assert private_datasets(tmp_path / "priv", "summeval, story-cloze") == "summeval"
    assert private_datasets(tmp_path / "priv", "story-cloze") is None
    assert private_datasets(tmp_path / "priv", "all") == "all"
    env = scorer_env(req.judge, {SEED_ENV: SEED, "PATH": "/bin"})
    assert SEED_ENV not in env and env["PATH"] == "/bin"  # no scorer needs the seed
    assert WorkerConfig(data=tmp_path, private_data=tmp_path).scores_private
    assert not WorkerConfig(data=tmp_path, private_data=tmp_path, skip_private=True).scores_private
    assert not WorkerConfig(data=tmp_path).scores_private


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory, splits: Splits) -> Path:
    """The real worker's run of two control judges on both splits: the folder of its stores."""
    root = tmp_path_factory.mktemp("scored")
    cfg = WorkerConfig(data=splits.public, private_data=splits.private, n_boot=200, seed=2, timeout_s=600)
    q = _worker(root, cfg, _control(), _control("Oracle control", ControlJudge.ORACLE))
    reqs, _ = q.load()
    assert [r.state for r in reqs] == [State.FINISHED, State.FINISHED], [r.reason for r in reqs]
    return root


def test_the_worker_scores_both_splits_and_stores_private_aggregates_only(scored: Path) -> None:
    reqs, _ = RequestQueue(LocalStore(scored / "requests")).load()
    for req in reqs:
        assert len(req.results) == 2, req.results
        (priv,) = [p for p in req.results if "~private-" in p]
        res = parse_result((scored / "results" / priv).read_text(encoding="utf-8"), source=priv)
        assert res.dataset.private and res.scores is None and res.summary.fixed_n is not None
        assert len(res.summary.fixed_n.d_avg_ew) == 200 and res.dataset.commitment


def test_skip_private_scores_the_public_split_only(tmp_path: Path, splits: Splits) -> None:
    cfg = WorkerConfig(data=splits.public, private_data=splits.private, skip_private=True, n_boot=0, seed=2)
    q = _worker(tmp_path, cfg, _control())
    (req,), _ = q.load()
    assert req.state is State.FINISHED and len(req.results) == 1 and "~private-" not in req.results[0]


def test_a_private_failure_stores_nothing_and_quotes_nothing(
    tmp_path: Path, splits: Splits, scored: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The public run succeeds, the private one fails quoting a private text: the request fails, no result
    is stored, and neither the reason nor the log quotes the scorer's output."""
    leaked = "THE PRIVATE TEXT OF ITEM 17"
    public = next(
        p for p in (scored / "results" / "random-control").glob("*.json") if "~private-" not in p.name
    )

    def runner(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        if "--split" in cmd:
            return subprocess.CompletedProcess(cmd, 1, leaked, f"ValueError: row {leaked}\n")
        out = Path(cmd[cmd.index("--out") + 1]) / "random-control"
        out.mkdir(parents=True)
        (out / public.name).write_bytes(public.read_bytes())
        return subprocess.CompletedProcess(cmd, 0, "", "")

    cfg = WorkerConfig(data=splits.public, private_data=splits.private, n_boot=0, seed=2)
    caplog.set_level("INFO")
    q = _worker(tmp_path, cfg, _control(), runner=runner)
    (req,), _ = q.load()
    assert req.state is State.FAILED and "private split" in (req.reason or ""), req.reason
    assert leaked not in (req.reason or "") and "ITEM" not in caplog.text and "status 1" in caplog.text
    assert not list((tmp_path / "results").rglob("*.json"))


# -- the private split on the Hub: a private dataset repository, read with the token ----------------
def _upload(hub: HubReplay, folder: Path, repo: str, private: bool) -> None:
    from huggingface_hub import HfApi

    api = HfApi(endpoint=hub.endpoint)
    api.create_repo(repo, repo_type="dataset", private=private)
    api.upload_folder(folder_path=folder, repo_id=repo, repo_type="dataset")


def test_the_private_split_is_read_from_a_private_repository_with_the_token(
    tmp_path: Path, splits: Splits, monkeypatch: pytest.MonkeyPatch
) -> None:
    with replay_hub(monkeypatch, tmp_path) as hub:
        _upload(hub, splits.private, "acme/dhp-private", private=True)
        _upload(hub, splits.public, "acme/open-twin", private=False)
        hub.state.private_tokens = frozenset({REPLAY_TOKEN})  # as the Hub: a private repository needs it
        assert fetch_private_split("acme/dhp-private", tmp_path / "got") == [DATASET]
        built = sorted(p.relative_to(splits.private) for p in splits.private.rglob("*") if p.is_file())
        got = sorted(p.relative_to(tmp_path / "got") for p in (tmp_path / "got").rglob("*")
                     if p.is_file() and ".cache" not in p.parts)  # fmt: skip
        assert set(built) <= set(got), sorted(set(built) - set(got))
        with pytest.raises(ValueError, match="is public: anyone can read it"):
            fetch_private_split("acme/open-twin", tmp_path / "open")
        assert not (tmp_path / "open").exists()
        monkeypatch.delenv("HF_TOKEN")
        with pytest.raises(OSError):  # without the token the Hub does not show it
            fetch_private_split("acme/dhp-private", tmp_path / "anon")
        # the command: one line, and the worker does not start
        rc = main(["worker", "--once", "--data", str(splits.public), "--requests", str(tmp_path / "q"),
                   "--results", str(tmp_path / "r"), "--private-repo", "acme/dhp-private",
                   "--private-data", str(tmp_path / "anon2")])  # fmt: skip
        assert rc != 0 and not (tmp_path / "r").exists()
        monkeypatch.setenv("HF_TOKEN", REPLAY_TOKEN)
        rc = main(["worker", "--once", "--data", str(splits.public), "--requests", str(tmp_path / "q"),
                   "--results", str(tmp_path / "r"), "--private-repo", "hf://datasets/acme/dhp-private@main",
                   "--private-data", str(tmp_path / "cli")])  # fmt: skip
        assert rc == 0 and (tmp_path / "cli" / DATASET / "build_info.json").is_file()


def test_the_spaces_worker_is_given_the_private_split_by_its_variables(tmp_path: Path) -> None:
    from dhp.leaderboard.deploy.space import VARIABLES, worker_commands

    base = {"DHP_REQUESTS": "q", "DHP_RESULTS": "r", "DHP_WORKER_DATA": str(tmp_path)}
    (plain,) = worker_commands(base)
    assert "--private-repo" not in plain  # no private split configured: the public split only
    (cmd,) = worker_commands({**base, "DHP_PRIVATE_REPO": "acme/dhp-private@v2"})
    assert cmd[cmd.index("--private-repo") + 1] == "acme/dhp-private@v2"
    assert cmd[cmd.index("--private-data") + 1] == VARIABLES["DHP_WORKER_PRIVATE_DATA"][0]
    assert "--skip-private" not in cmd
    (cmd,) = worker_commands({**base, "DHP_PRIVATE_REPO": "acme/p", "DHP_SKIP_PRIVATE": "1"})
    assert "--skip-private" in cmd
    assert not any(SEED_ENV in part for part in cmd)


# -- the board: private D, the paired difference, the flag; CSV = page; one commitment per column ---------
def _board(root: Path, results: Path) -> BoardService:
    return BoardService(AppConfig(results=LocalStore(results), requests=LocalStore(root / "requests"),
                                  votes=LocalStore(root / "votes"), judge_pages_ahead=False, csv_dir=root))  # fmt: skip


_WITH_PRIVATE = [*columns.KINDS, table.CAVEATS, PRIVATE_SPLIT]


def _page_cells(df: pd.DataFrame) -> list[list[str]]:
    """Each row of the page as the reader sees its cells (the text of each ``<td>``)."""
    parts = board_html.view_parts(df)
    return [
        [re.sub(r"<[^>]+>", "", td) for td in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in parts.rows
    ]


def _csv_as_page(df: pd.DataFrame) -> list[list[str]]:
    """Each CSV row as the page draws it: a number with its interval in one cell, '–' where empty; the
    rank and caveats under the judge's name too."""
    rows = list(csv.DictReader(io.StringIO(table.to_csv(df))))
    out = []
    for r in rows:
        cells = []
        for c in df.columns:
            if c.endswith((" low", " high")):
                continue
            v = r[c]
            lo, hi = r.get(f"{c} low"), r.get(f"{c} high")
            if lo and hi and v:
                v = f"{v} [{lo}, {hi}]"
            cells.append(v)
        out.append(cells)
    return out


def test_the_board_shows_the_private_split_when_asked_and_its_csv_is_its_page(
    scored: Path, tmp_path: Path
) -> None:
    be = _board(tmp_path, scored / "results")
    plain = be.view(wait_ranks=True)
    assert not [c for c in plain.columns if columns.is_private_column(c)]  # the default stays narrow
    view = be.view(columns=_WITH_PRIVATE, wait_ranks=True)
    priv, diff, flag = columns.private_columns(DATASET)
    assert {priv, diff, flag, PRIVATE_SPLIT} <= set(view.columns)
    assert set(view[flag]) <= {private_split.FITS_MARK, private_split.NOT_FLAGGED}
    assert view[diff].notna().all() and view[f"{diff} low"].notna().all()
    # the public columns are the public results' (a private result never stands in for one)
    for judge, per in latest_results(be.report().results).items():
        (row,) = view[view["Judge"] == judge].to_dict("records")
        assert row[f"{DATASET} D_avg^EW"] == pytest.approx(per[DATASET].result.summary.d_avg_ew)
        assert not per[DATASET].result.dataset.private
    commitment = next(
        lr.result.dataset.commitment or "" for lr in be.report().results if lr.result.dataset.private
    )
    assert set(view[PRIVATE_SPLIT]) == {f"{DATASET} {commitment[:12]}"}
    # CSV = page, every cell (the page's rank and caveats are repeated under the name; '–' is empty)
    page = _page_cells(view)
    for shown, written in zip(page, _csv_as_page(view), strict=True):
        shown = [s.replace("–", "") for s in shown]
        assert shown[0] == written[0] and shown[1].startswith(written[1])
        assert shown[2:] == written[2:], (shown, written)
    assert "fits the public rows" in board_html.view_html(view) or "no" in set(view[flag])


def _rotated(text: str, commitment: str) -> str:
    """A private result as if scored on another private split (a rotation): another commitment, later."""
    doc = json.loads(text)
    old = doc["dataset"]["commitment"]
    doc["dataset"]["commitment"] = commitment
    doc["dataset"]["version"] = doc["dataset"]["version"].replace(old[:12], commitment[:12])
    doc["created_at"] = "2099-01-01T00:00:00Z"
    return json.dumps(doc)


def test_two_commitments_are_never_mixed_in_one_column(scored: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(scored / "results", results)
    old = next(results.glob("random-control/*~private-*.json"))
    new = "f" * 64
    (old.parent / old.name.replace(old.name.split("~private-")[1][:12], new[:12])).write_text(
        _rotated(old.read_text(encoding="utf-8"), new), encoding="utf-8"
    )
    be = _board(tmp_path, results)
    rep = be.report()
    assert not rep.problems, rep.problems
    assert private_split.current_commitments(rep.results) == {DATASET: new}
    assert private_split.stale_count(rep.results) == 2  # both judges' results on the old split
    view = be.view(columns=_WITH_PRIVATE, wait_ranks=True).set_index("Judge")
    priv, _, flag = columns.private_columns(DATASET)
    assert view.loc["Random control", PRIVATE_SPLIT] == f"{DATASET} {new[:12]}"
    assert view.loc["Oracle control", PRIVATE_SPLIT] == ""
    assert view[priv].isna().tolist() == [judge == "Oracle control" for judge in view.index]
    assert view.loc["Oracle control", flag] == ""


def test_the_judge_page_shows_private_aggregates_only(scored: Path, tmp_path: Path) -> None:
    be = _board(tmp_path, scored / "results")
    lrs = be.judge_page_results("Random control")
    assert [lr.result.dataset.private for lr in lrs] == [False, True]
    assert [lr.result.dataset.private for lr in be.judge_results("Random control")] == [False]
    fulls = [be.index.full(lr.path) for lr in lrs]
    commitment = fulls[1].dataset.commitment or "?"
    page = judge_payload("Random control", fulls, None, tmp_path)
    assert page["datasets"] == [DATASET] and page["first"]["dataset"] == DATASET
    assert "Private split" in page["info"] and commitment[:12] in page["info"]
    first = json.dumps(page["first"])
    assert commitment[:12] not in first  # the dataset's part is the public result's


@pytest.mark.slow
def test_the_ceiling_is_never_flagged_when_the_splits_test_a_perturbation_differently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SummEval's sample: a perturbation has 18 public pairs (tested by the normal approximation) and 13
    private ones (the exact sign-flip test). Read at the same 7 pairs, the oracle's D differed by 0.02 with
    no spread, and the ceiling was flagged, until both sides were tested as the private split was."""
    monkeypatch.setenv(SEED_ENV, SEED)
    out = tmp_path / "results"
    for split in ((), ("--split", "private")):
        folder = tmp_path / (split[1] if split else "public")
        empty = tmp_path / "no-sources"
        empty.mkdir(exist_ok=True)
        assert main(["build", *split, "--sources", str(empty), "--skip-missing", "--sample-fallback",
                     "--datasets", "summeval", "--out", str(folder), "--no-progress"]) == 0  # fmt: skip
        assert main(["score", "--judge", "oracle", *split, "--data", str(folder), "--datasets", "summeval",
                     "--out", str(out), "--n-boot", "200", "--no-progress"]) == 0  # fmt: skip
    files = sorted((out / "oracle").glob("*.json"))
    public, private = (read_result(f) for f in sorted(files, key=lambda f: "~private-" in f.name))
    methods = stored_methods(private)
    own = stored_methods(public)
    assert any(methods[p] != own[p] for p in methods if p in own)  # the case: the splits test differently
    fit = fits_of_results(public, private)
    assert round(fit.difference, 2) == 0 and not fit.fits_public


def test_the_rows_never_wait_for_the_fits(scored: Path, tmp_path: Path) -> None:
    """The private columns come at once, their differences empty and the status saying so; the fits are
    made in the background, and the board's version changes when they are in."""
    be = _board(tmp_path, scored / "results")
    rep = be.report()
    _, diff, flag = columns.private_columns(DATASET)
    first = be.view(columns=_WITH_PRIVATE, wait_ranks=False)
    if not be.fits_ready(rep):  # (a fast machine may have made them already)
        assert first[diff].isna().all() and set(first[flag]) == {""}
        assert "differences are being computed" in be.status()
    deadline = time.monotonic() + 300
    while not be.fits_ready(rep):  # a condition, not a timing
        assert time.monotonic() < deadline, "the fits were not made within 300 s"
        time.sleep(0.1)
    assert be.board_version() & 2  # the version's "fits are in" bit: the open pages redraw
    later = be.view(columns=_WITH_PRIVATE, wait_ranks=False)
    assert later[diff].notna().all() and set(later[flag]) <= {
        private_split.FITS_MARK,
        private_split.NOT_FLAGGED,
    }
