"""The bad command lines of issue 40, and more of each kind: every one refused in one line, exit 2, nothing
written.

Each case is a ``dhp`` argument vector (``{data}``, ``{results}``, ``{file}``, ``{folder}``, ``{out}``
stand for paths of :class:`Place`) and a piece of the line it must print. :func:`run_case` runs it
in-process through :func:`dhp.cli.main` in the place's root, and records the exit code, the lines
written to stderr (a traceback is many) and whether any file under the root changed, appeared or
went. ``tests/hardening/test_edges.py`` runs them all; ``benchmarks/bench_bad_inputs.py`` prints them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dhp.cli import main as dhp_main
from dhp.spec import get_dataset
from tests.leaderboard.factory import result_json
from tests.support.tiny_data import write_tiny_dataset

AE = "answer-equivalence"


@dataclass(frozen=True)
class Place:
    """A folder with built datasets, a results folder, a plain file and an empty folder."""

    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def file(self) -> Path:
        return self.root / "a-file.txt"

    @property
    def folder(self) -> Path:
        return self.root / "a-folder"

    @property
    def out(self) -> Path:
        return self.root / "new-out"  # never created by a refused command

    def make(self) -> Place:
        write_tiny_dataset(self.data, get_dataset(AE), n_items=4)
        (self.results / "good-judge").mkdir(parents=True)
        (self.results / "good-judge" / "summeval@local-000000000000.json").write_text(
            result_json("good judge")
        )
        self.file.write_text("a plain file\n", encoding="utf-8")
        self.folder.mkdir()
        return self

    def fill(self, argv: tuple[str, ...]) -> list[str]:
        names = {k: str(getattr(self, k)) for k in ("data", "results", "file", "folder", "out")}
        return [a.format(**names) for a in argv]


#: (what is wrong, argv, a piece of the one line printed)
# fmt: off
CASES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # -- the cases -----------------------------------------------------------------------
    ("show: -n negative", ("show", AE, "char_typo_minor", "-n", "-2", "--data", "{data}"), "argument -n"),
    ("show: unknown dataset", ("show", "nosuch", "--data", "{data}"), "unknown dataset 'nosuch'"),
    ("score: --seed -1", ("score", "--judge", "random", "--seed", "-1", "--data", "{data}", "--out", "{out}"),
     "argument --seed"),
    ("build: --samples-n -1", ("build", "--samples", "{out}/s.html", "--samples-n", "-1", "--out", "{out}"),
     "argument --samples-n"),
    ("leaderboard: --refresh -1", ("leaderboard", "--refresh", "-1", "--results", "{results}"), "argument --refresh"),
    ("leaderboard: --refresh nan", ("leaderboard", "--refresh", "nan", "--results", "{results}"), "argument --refresh"),
    ("build: --out is a file", ("build", "--out", "{file}"), "exists and is not a folder"),
    ("score: --out is a file", ("score", "--judge", "random", "--data", "{data}", "--out", "{file}"),
     "exists and is not a folder"),
    ("score: --out under a file", ("score", "--judge", "random", "--data", "{data}", "--out", "{file}/r"),
     "is a file, not a folder"),
    # -- counts ----------------------------------------------------------------------------------
    ("show: -n 0", ("show", AE, "char_typo_minor", "-n", "0", "--data", "{data}"), "argument -n"),
    ("show: -n not a number", ("show", AE, "char_typo_minor", "-n", "five", "--data", "{data}"), "argument -n"),
    ("show: --width -1", ("show", AE, "char_typo_minor", "--width", "-1", "--data", "{data}"), "argument --width"),
    ("show: --samples-like -n 1.5", ("show", AE, "char_typo_minor", "-n", "1.5", "--data", "{data}"), "argument -n"),
    ("score: --n-boot -1", ("score", "--judge", "random", "--n-boot", "-1", "--out", "{out}"), "argument --n-boot"),
    ("score: --concurrency 0", ("score", "--judge", "random", "--concurrency", "0", "--out", "{out}"),
     "argument --concurrency"),
    ("score: --max-retries -1", ("score", "--judge", "random", "--max-retries", "-1", "--out", "{out}"),
     "argument --max-retries"),
    ("score: --limit 0", ("score", "--judge", "random", "--limit", "0", "--out", "{out}"), "argument --limit"),
    ("score: --repeats -5", ("score", "--judge", "random", "--repeats", "-5", "--out", "{out}"), "argument --repeats"),
    ("score: --samples 0", ("score", "--judge", "random", "--samples", "0", "--out", "{out}"), "argument --samples"),
    ("score: --top-logprobs x", ("score", "--judge", "random", "--top-logprobs", "x", "--out", "{out}"),
     "argument --top-logprobs"),
    ("score: --max-tokens 0", ("score", "--judge", "random", "--max-tokens", "0", "--out", "{out}"),
     "argument --max-tokens"),
    ("build: --perturber-concurrency 0", ("build", "--perturber-concurrency", "0", "--out", "{out}"),
     "argument --perturber-concurrency"),
    ("build: --samples-n 0", ("build", "--samples-n", "0", "--out", "{out}"), "argument --samples-n"),
    ("compare: --n-boot 0", ("compare", "{results}", "{results}", "--n-boot", "0"), "argument --n-boot"),
    ("misses: -n -1", ("misses", "{results}", "--dataset", "summeval", "--perturbation", "x", "-n", "-1"),
     "argument -n"),
    ("worker: --n-boot -1", ("worker", "--n-boot", "-1", "--data", "{data}"), "argument --n-boot"),
    # -- seeds -----------------------------------------------------------------------------------
    ("score: --seed 2**32", ("score", "--judge", "random", "--seed", "4294967296", "--out", "{out}"), "argument --seed"),
    ("score: --seed 1.5", ("score", "--judge", "random", "--seed", "1.5", "--out", "{out}"), "argument --seed"),
    ("score: --seed text", ("score", "--judge", "random", "--seed", "abc", "--out", "{out}"), "argument --seed"),
    ("show: --seed -1", ("show", AE, "char_typo_minor", "--seed", "-1", "--data", "{data}"), "argument --seed"),
    ("build: --seed -1", ("build", "--seed", "-1", "--out", "{out}"), "argument --seed"),
    ("build: --samples-seed -3", ("build", "--samples-seed", "-3", "--out", "{out}"), "argument --samples-seed"),
    ("compare: --seed -1", ("compare", "{results}", "{results}", "--seed", "-1"), "argument --seed"),
    ("worker: --seed -1", ("worker", "--seed", "-1", "--data", "{data}"), "argument --seed"),
    # -- seconds and other numbers ---------------------------------------------------------------
    ("score: --timeout 0", ("score", "--judge", "random", "--timeout", "0", "--out", "{out}"), "argument --timeout"),
    ("score: --timeout inf", ("score", "--judge", "random", "--timeout", "inf", "--out", "{out}"), "argument --timeout"),
    ("score: --timeout nan", ("score", "--judge", "random", "--timeout", "nan", "--out", "{out}"), "argument --timeout"),
    ("score: --max-failure-rate 1.5", ("score", "--judge", "random", "--max-failure-rate", "1.5", "--out", "{out}"),
     "argument --max-failure-rate"),
    ("score: --max-failure-rate nan", ("score", "--judge", "random", "--max-failure-rate", "nan", "--out", "{out}"),
     "argument --max-failure-rate"),
    ("score: --n-params -7", ("score", "--judge", "random", "--n-params", "-7", "--out", "{out}"), "argument --n-params"),
    ("score: --n-params inf", ("score", "--judge", "random", "--n-params", "inf", "--out", "{out}"),
     "argument --n-params"),
    ("build: --perturber-temperature -1", ("build", "--perturber-temperature", "-1", "--out", "{out}"),
     "argument --perturber-temperature"),
    ("build: --perturber-temperature nan", ("build", "--perturber-temperature", "nan", "--out", "{out}"),
     "argument --perturber-temperature"),
    ("leaderboard: --refresh 0", ("leaderboard", "--refresh", "0", "--results", "{results}"), "argument --refresh"),
    ("leaderboard: --refresh inf", ("leaderboard", "--refresh", "inf", "--results", "{results}"), "argument --refresh"),
    ("leaderboard: --port 0", ("leaderboard", "--port", "0", "--results", "{results}"), "argument --port"),
    ("leaderboard: --port 70000", ("leaderboard", "--port", "70000", "--results", "{results}"), "argument --port"),
    ("leaderboard: --port x", ("leaderboard", "--port", "http", "--results", "{results}"), "argument --port"),
    ("worker: --poll 0", ("worker", "--poll", "0", "--data", "{data}"), "argument --poll"),
    ("worker: --poll -1", ("worker", "--poll", "-1", "--data", "{data}"), "argument --poll"),
    ("worker: --poll inf", ("worker", "--poll", "inf", "--data", "{data}"), "argument --poll"),
    ("worker: --poll nan", ("worker", "--poll", "nan", "--data", "{data}"), "argument --poll"),
    ("worker: --timeout 0", ("worker", "--timeout", "0", "--data", "{data}"), "argument --timeout"),
    ("worker: --requeue-after nan", ("worker", "--requeue-after", "nan", "--data", "{data}"),
     "argument --requeue-after"),
    ("worker: --requeue-after -5", ("worker", "--requeue-after", "-5", "--data", "{data}"),
     "argument --requeue-after"),
    # -- paths -----------------------------------------------------------------------------------
    ("build: --out under a file", ("build", "--out", "{file}/datasets"), "is a file, not a folder"),
    ("build: --samples is a folder", ("build", "--samples", "{folder}", "--out", "{out}"), "is a folder, not a file"),
    ("build: --cache-dir is a file", ("build", "--cache-dir", "{file}", "--out", "{out}"), "exists and is not a folder"),
    ("build: --perturber-cache is a folder", ("build", "--perturber-cache", "{folder}", "--out", "{out}"),
     "is a folder, not a file"),
    ("export: --out is a file", ("export", "--from", "{data}", "--out", "{file}"), "exists and is not a folder"),
    ("download: --out is a file", ("download", "--out", "{file}"), "exists and is not a folder"),
    ("score: --cache is a folder", ("score", "--judge", "random", "--cache", "{folder}", "--out", "{out}"),
     "is a folder, not a file"),
    ("score: --weights missing", ("score", "--judge", "random", "--weights", "{out}/w.json", "--out", "{out}"),
     "no such file"),
    ("score: --weights is a folder", ("score", "--judge", "random", "--weights", "{folder}", "--out", "{out}"),
     "not a file"),
    ("report: --out is a file", ("report", "{results}", "--out", "{file}"), "exists and is not a folder"),
    ("stability: --out is a folder", ("stability", "{results}", "--out", "{folder}"), "is a folder, not a file"),
    ("robustness: --out is a folder", ("robustness", "{results}", "--out", "{folder}"), "is a folder, not a file"),
    ("misses: --csv is a folder", ("misses", "{results}", "--dataset", "summeval", "--perturbation", "x", "--csv",
                                   "{folder}"), "is a folder, not a file"),
    ("task init: --out is a folder", ("task", "init", "--out", "{folder}"), "is a folder, not a file"),
    ("spec: --weights missing", ("spec", "--weights", "{out}/w.yaml"), "no such file"),
    ("spec: --weights is a folder", ("spec", "--weights", "{folder}"), "not a file"),
    ("score: --out empty", ("score", "--judge", "random", "--out", ""), "must be a path"),
    # -- names and choices -----------------------------------------------------------------------
    ("show: unknown dataset, no data folder", ("show", "nosuch", "--data", "{out}"), "unknown dataset 'nosuch'"),
    ("spec: unknown dataset", ("spec", "--datasets", "nope"), "unknown dataset 'nope'"),
    ("score: unknown judge", ("score", "--judge", "oracl", "--out", "{out}"), "argument --judge"),
    ("score: unknown mode", ("score", "--judge", "random", "--mode", "fast", "--out", "{out}"), "argument --mode"),
    ("score: no judge", ("score", "--out", "{out}"), "give exactly one of"),
    ("score: two judges", ("score", "--judge", "random", "--local", "x", "--out", "{out}"), "give exactly one of"),
    ("score: --data missing", ("score", "--judge", "random", "--data", "{out}/none", "--out", "{out}"), "--data"),
    ("score: unknown option", ("score", "--judge", "random", "--sead", "1", "--out", "{out}"), "unrecognized"),
    ("score: --cue empty", ("score", "--judge", "random", "--cue", " ", "--data", "{data}", "--out", "{out}"),
     "--cue"),
    ("leaderboard: missing results", ("leaderboard", "--results", "{out}/none"), "no such folder"),
    ("worker: --data missing", ("worker", "--data", "{out}/none"), "--data"),
    ("no command", (), "required"),
    ("unknown command", ("scroe",), "invalid choice"),
    ("report: missing results", ("report", "{out}/none", "--out", "{out}"), "no such file or folder"),
    ("compare: missing results", ("compare", "{out}/a", "{out}/b"), "no such file or folder"),
    ("space push: bad --var", ("space", "push", "--repo", "o/n", "--dir", "{folder}", "--var", "novalue"), "--var"),
)
# fmt: on


@dataclass(frozen=True)
class Outcome:
    case: str
    argv: tuple[str, ...]
    code: int | str  # the exit code, or "crash" for an exception out of main
    lines: list[str]  # what it wrote to stderr, line by line
    changed: list[str]  # files and folders under the root that appeared, went or changed


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``: a folder as "dir", a file as its content's hash."""
    return {
        p.relative_to(root).as_posix(): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
    }


@contextlib.contextmanager
def _in(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def run_case(place: Place, case: str, argv: tuple[str, ...]) -> Outcome:
    filled = place.fill(argv)
    before = snapshot(place.root)
    err = io.StringIO()
    with _in(place.root), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code: int | str = dhp_main(filled)
        except SystemExit as e:  # argparse's refusal
            code = e.code if isinstance(e.code, int) else 1
        except Exception:  # a traceback, as the user would see it
            code = "crash"
            traceback.print_exc()
    after = snapshot(place.root)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    return Outcome(case, tuple(filled), code, lines, changed)


def run_all(root: Path) -> list[Outcome]:
    place = Place(root).make()
    return [run_case(place, case, argv) for case, argv, _ in CASES]
