"""Story Cloze Test, spring 2016 validation set (docs/datasets.md#sources). Distributed by its authors on request.

The builder never downloads it: it reads the user's copy, from ``story_cloze/`` in the sources
directory or a file given with ``--story-cloze``. Judged text: the right ending; context: the first
four sentences; the other ending is kept for the wrong-ending perturbation.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from dhp.builder.hashing import sha256_file
from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import Item, SourceData, SourceFile
from dhp.errors import SourceError
from dhp.spec import WRONG_ENDING
from dhp.types import DatasetSpec

__all__ = ["FILE_NAMES", "HOW_TO_GET", "LAYOUT", "load_story_cloze", "missing"]

FILE_NAMES = ("cloze_test_val__spring2016.csv", "cloze_test_val__spring2016 - cloze_test_ALL_val.csv")
LAYOUT = f"story_cloze/{FILE_NAMES[0]}   (or the authors' name {FILE_NAMES[1]!r})"
HOW_TO_GET = (
    "The Story Cloze Test is distributed by its authors on request: fill in the form at "
    "https://cs.rochester.edu/nlp/rocstories/ to receive the spring 2016 validation set, then pass "
    "--story-cloze PATH/TO/cloze_test_val__spring2016.csv, or place it as "
    f"SOURCES/{LAYOUT}."
)
_COLUMNS = (
    "InputStoryid",
    "InputSentence1",
    "InputSentence2",
    "InputSentence3",
    "InputSentence4",
    "RandomFifthSentenceQuiz1",
    "RandomFifthSentenceQuiz2",
    "AnswerRightEnding",
)


def missing(locator: SourceLocator, user_file: Path | None) -> str | None:
    """Why the user's copy cannot be read (one line, saying how to add it), or None when it is there."""
    if user_file is not None:
        return None if user_file.is_file() else f"--story-cloze {user_file}: no such file"
    if locator.is_local and any(locator.exists(f"story_cloze/{name}") for name in FILE_NAMES):
        return None
    return (
        "distributed by its authors on request (https://cs.rochester.edu/nlp/rocstories/): add your copy "
        f"with --story-cloze FILE (through make: STORY_CLOZE=FILE){f' or as {locator.root}/story_cloze/{FILE_NAMES[0]}' if locator.root is not None else ''}"
    )


def _find(locator: SourceLocator, user_file: Path | None) -> tuple[Path, SourceFile]:
    if user_file is not None:
        if not user_file.is_file():
            raise SourceError(f"missing source file {user_file}. {HOW_TO_GET}")
        return user_file, SourceFile(
            path=f"story_cloze/{user_file.name}", origin="user copy", sha256=sha256_file(user_file)
        )
    for name in FILE_NAMES:
        rel = f"story_cloze/{name}"
        if locator.is_local and locator.exists(rel):
            fetched = locator.fetch(rel, None, LAYOUT)
            return fetched.path, SourceFile(path=rel, origin="user copy", sha256=fetched.record.sha256)
    where = (
        f"in {locator.root}/story_cloze/" if locator.root is not None else "(no --sources directory given)"
    )
    raise SourceError(f"missing source file story_cloze/{FILE_NAMES[0]} {where}. {HOW_TO_GET}")


def load_story_cloze(spec: DatasetSpec, locator: SourceLocator, user_file: Path | None = None) -> SourceData:
    """Read the user's Story Cloze CSV; one item per story."""
    path, record = _find(locator, user_file)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceError(f"corrupt source file {path}: not UTF-8 ({e}); expected {LAYOUT}") from e
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise SourceError(
            f"corrupt source file {path}: missing columns {missing}; expected a CSV with {_COLUMNS}"
        )
    items: list[Item] = []
    for lineno, row in enumerate(reader, start=2):
        answer = (row["AnswerRightEnding"] or "").strip()
        if answer not in ("1", "2"):
            raise SourceError(f"corrupt source file {path}, line {lineno}: AnswerRightEnding must be 1 or 2")
        right = row[f"RandomFifthSentenceQuiz{answer}"].strip()
        wrong = row[f"RandomFifthSentenceQuiz{3 - int(answer)}"].strip()
        story = " ".join(row[f"InputSentence{i}"].strip() for i in range(1, 5))
        items.append(
            Item(
                id=row["InputStoryid"].strip(),
                original=right,
                context={"story": story},
                extras={WRONG_ENDING: wrong},
            )
        )
    if not items:
        raise SourceError(f"corrupt source file {path}: no stories; expected {LAYOUT}")
    return SourceData(
        items=tuple(items), files=(record,), notes=("Spring 2016 validation set; context = sentences 1-4.",)
    )
