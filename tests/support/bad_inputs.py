"""The bad-input matrix: the CLI and the Space against malformed input, each with a clear error.

Every case feeds one bad input to the real entry point (``dhp`` CLI in-process via
:func:`dhp.cli.main`, the Space's :func:`validate_submission`, the stores and the request queue)
and records whether it was refused with a message that names the problem, and whether the stored
files (results, requests, cache, datasets) are byte-for-byte what they were before.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dhp.cli import main as dhp_main
from dhp.leaderboard.board.stores import LocalStore, StoreError
from dhp.leaderboard.submissions.queue import RequestQueue, new_request
from dhp.leaderboard.submissions.validation import ValidationError, validate_submission
from dhp.spec import get_dataset
from tests.leaderboard.factory import result_json
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.support.tiny_data import write_tiny_dataset


@dataclass
class Outcome:
    entry: str
    case: str
    refused: bool
    message: str
    intact: bool


def snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def _cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = dhp_main(list(argv))
    return rc, err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ""


def _resolver(host: str) -> list[str]:
    table = {"judge.example.org": ["93.184.216.34"], "rebind.example.org": ["127.0.0.1"],
             "internal.example.org": ["10.1.2.3"]}  # fmt: skip
    if host not in table:
        raise OSError("Name or service not known")
    return table[host]


def _form(**over: str) -> dict[str, Any]:  # Any: spread as validate_submission's keywords
    base = {
        "judge_name": "My judge", "endpoint_url": "https://judge.example.org/v1", "protocol": "openai",
        "model": "org/model", "hf_model_id": "org/model", "revision": "main", "mode": "expected",
        "contact": "me@example.org",
    }  # fmt: skip
    base.update(over)
    return base


class World:
    """A stored state: datasets, a results folder with one result and a cache, a requests store."""

    def __init__(self, root: Path, url: str) -> None:
        self.root = root
        self.url = url
        self.data = root / "data"
        write_tiny_dataset(self.data, get_dataset("answer-equivalence"), n_items=4)
        self.results = root / "results"
        (self.results / "good-judge").mkdir(parents=True)
        (self.results / "good-judge" / "summeval@local-000000000000.json").write_text(
            result_json("good judge")
        )
        (self.results / ".cache").mkdir()
        (self.results / ".cache" / "j.sqlite").write_bytes(b"this is not an SQLite database\n" * 4)
        self.requests = LocalStore(root / "requests")
        sub = validate_submission(**_form(), app_mode="space", resolver=_resolver)
        self.request = RequestQueue(self.requests).submit(new_request(sub, "hf:alice"))

    def score(self, *extra: str, data: Path | None = None, judge: str = "j") -> tuple[int, str]:
        return _cli("score", "--endpoint", self.url, "--judge-name", judge, "--data",
                    str(data or self.data), "--datasets", "answer-equivalence", "--out", str(self.results),
                    "--max-retries", "0", "--no-progress", *extra)  # fmt: skip


def _space(case: str, **over: str) -> tuple[str, Callable[[World], tuple[bool, str]]]:
    def run(w: World) -> tuple[bool, str]:
        try:
            validate_submission(**_form(**over), app_mode="space", resolver=_resolver)
        except ValidationError as e:
            return True, f"[{e.field}] {e.message}"
        return False, "accepted"

    return case, run


def _cli_case(
    case: str, fn: Callable[[World], tuple[int, str]]
) -> tuple[str, Callable[[World], tuple[bool, str]]]:
    def run(w: World) -> tuple[bool, str]:
        rc, msg = fn(w)
        return rc == 2 and "error" in msg, f"exit {rc}: {msg}"

    return case, run


def _missing_config(w: World) -> tuple[int, str]:
    broken = w.root / "broken"
    shutil.copytree(w.data, broken)
    (broken / "answer-equivalence" / "README.md").unlink()
    return w.score(data=broken, judge="k")


def _info_to_nowhere(w: World) -> tuple[int, str]:
    broken = w.root / "broken2"
    shutil.copytree(w.data, broken)
    (
        broken / "answer-equivalence" / "data" / "char_typo_minor.parquet"
    ).unlink()  # build_info.json still lists it
    return w.score(data=broken, judge="k")


def _corrupt_request(w: World) -> tuple[bool, str]:
    (w.requests.root / "zz-corrupt.json").write_bytes(b'{"id": "zz-corrupt", "state": "RUNN')
    reqs, problems = RequestQueue(w.requests).load()
    ok = [r.id for r in reqs] == [w.request.id] and len(problems) == 1
    return ok, problems[0] if problems else "no problem reported"


def _corrupt_result(w: World) -> tuple[int, str]:
    (w.results / "good-judge" / "bad@local-1.json").write_text('{"schema_version": "1.0", "judge": ')
    return _cli("report", str(w.results / "good-judge"), "--out", str(w.root / "report"))


def _store_traversal(w: World) -> tuple[bool, str]:
    try:
        w.requests.write("../escaped.json", b"{}")
    except StoreError as e:
        return not (w.root / "escaped.json").exists(), str(e)
    return False, "written"


CASES: tuple[tuple[str, str, Callable[[World], tuple[bool, str]]], ...] = (
    ("space", *_space("malformed URL", endpoint_url="https://judge.example.org:99999/v1")),
    ("space", *_space("URL without host", endpoint_url="https:///v1")),
    ("space", *_space("SSRF: cloud metadata IP", endpoint_url="https://169.254.169.254/latest")),
    ("space", *_space("SSRF: metadata host name", endpoint_url="https://metadata.google.internal/")),
    ("space", *_space("SSRF: loopback IPv6", endpoint_url="https://[::1]:8080/v1")),
    ("space", *_space("SSRF: IPv4-mapped IPv6", endpoint_url="https://[::ffff:10.0.0.1]/v1")),
    ("space", *_space("SSRF: decimal IP", endpoint_url="https://2130706433/v1")),
    ("space", *_space("SSRF: DNS to loopback", endpoint_url="https://rebind.example.org/v1")),
    ("space", *_space("SSRF: DNS to private", endpoint_url="https://internal.example.org/v1")),
    ("space", *_space("plain http", endpoint_url="http://judge.example.org/v1")),
    ("space", *_space("credentials in URL", endpoint_url="https://user:pw@judge.example.org/v1")),
    ("space", *_space("key in query string", endpoint_url="https://judge.example.org/v1?api_key=abc")),
    ("space", *_space("huge judge name (10k chars)", judge_name="J" * 10_000)),
    ("space", *_space("huge URL (5k chars)", endpoint_url="https://judge.example.org/" + "a" * 5000)),
    ("space", *_space("RTL override in name", judge_name="judge\u202egnp.exe")),
    ("space", *_space("zero-width space in name", judge_name="jud\u200bge")),
    ("space", *_space("NUL in contact", contact="me\x00@example.org")),
    ("space", *_space("emoji in model", model="llama-\U0001f999")),
    ("space", *_space("path traversal in judge name", judge_name="x/../../etc/passwd")),
    ("space", *_space("backslash traversal in name", judge_name="x\\..\\..\\evil")),
    ("space", *_space("traversal in revision", revision="../../main")),
    (
        "cli",
        *_cli_case(
            "endpoint not http(s)",
            lambda w: _cli(
                "score", "--endpoint", "file:///etc/passwd", "--judge-name", "j", "--out", str(w.results)
            ),
        ),
    ),
    ("cli", *_cli_case("path traversal in judge name", lambda w: w.score(judge="../../outside"))),
    ("cli", *_cli_case("judge name of dots only", lambda w: w.score(judge=".."))),
    ("cli", *_cli_case("odd unicode judge name", lambda w: w.score(judge="\u202e\u200b"))),
    ("cli", *_cli_case("data folder missing", lambda w: w.score(data=w.root / "nowhere"))),
    ("cli", *_cli_case("dataset without README/config", _missing_config)),
    ("cli", *_cli_case("build info naming a missing data file", _info_to_nowhere)),
    ("cli", *_cli_case("corrupted cache file", lambda w: w.score())),
    ("cli", *_cli_case("corrupted result file (report)", _corrupt_result)),
    ("store", "corrupted request file", _corrupt_request),
    ("store", "path traversal in store path", _store_traversal),
)


def run_all(root: Path) -> list[Outcome]:
    with FakeJudgeServer(hashed_answer) as srv:
        return _run_all(World(root, srv.url))


def _run_all(w: World) -> list[Outcome]:
    stored = [w.results, w.requests.root, w.data]
    outcomes = []
    for entry, case, fn in CASES:
        before = {str(p): snapshot(p) for p in stored}
        refused, message = fn(w)
        after = {str(p): snapshot(p) for p in stored}
        # a case may add its own bad file; everything that was there before must be unchanged
        intact = all(after[k].get(f) == h for k, files in before.items() for f, h in files.items())
        outcomes.append(Outcome(entry, case, refused, message, intact))
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    lines = [
        "| entry | bad input | refused clearly | stored data intact | message |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        msg = o.message.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {o.entry} | {o.case} | {'yes' if o.refused else 'NO'} | {'yes' if o.intact else 'NO'} | "
                     f"{msg[:150]} |")  # fmt: skip
    return "\n".join(lines)
