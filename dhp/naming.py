"""Names turned into file and URL parts: the one slug rule of the package.

A judge's results live under ``<results>/<judge_slug(name)>/``, whether ``dhp score`` wrote them or
the leaderboard's queue worker copied them; queue request ids, duplicate checks and links use the
same slug, so one judge never gets two folders.
"""

from __future__ import annotations

import os
import re
import unicodedata

__all__ = [
    "DEFAULT_DATA",
    "HUB_DATA",
    "JUDGE_NAME_RULE",
    "check_judge_name",
    "judge_slug",
    "revision_slug",
    "slug",
]

#: Where every command looks for built datasets unless given ``--data`` / ``--from`` (``dhp build``'s ``--out``).
DEFAULT_DATA = "out/datasets"
#: ``--data HUB_DATA``: the published datasets on the Hub instead of a folder.
HUB_DATA = "dhp"

_UNSAFE = re.compile(r"[^a-z0-9._-]")


def slug(text: str) -> str:
    """Lowercased; every character outside ``[a-z0-9._-]`` becomes ``-`` (one for one, no collapsing)."""
    return _UNSAFE.sub("-", text.lower())


#: The one rule for a judge's name, whether it comes from the submission form, ``--judge-name`` or a
#: judge file (:class:`dhp.judge.Judge` validates it; the form says it in these words).
JUDGE_NAME_RULE = (
    "1 to 64 characters, starting with a letter or digit, not ending with a space, without / \\ < or >"
)
_JUDGE_NAME = re.compile(r"[^\W_](?:[^/\\<>]{0,62}[^/\\<>\s])?")


def check_judge_name(name: str) -> str:
    """``name`` if it follows :data:`JUDGE_NAME_RULE` (so its :func:`judge_slug` is a folder name);
    else a one-line :class:`ValueError` quoting the rule. Display names such as ``GPT-4o (temp 0)`` or
    ``my judge v2`` are fine; their slugs (``gpt-4o--temp-0-``, ``my-judge-v2``) name the results
    folder and are the judge's key for duplicates."""
    judge_slug(name)  # the folder-name problems first, in their own words (a path separator, ...)
    if not _JUDGE_NAME.fullmatch(name):
        raise ValueError(f"judge name {name!r}: {JUDGE_NAME_RULE}")
    return name


def judge_slug(name: str) -> str:
    """Judge name -> folder name (:func:`slug` of the stripped name), e.g. ``GPT-4o (temp 0)`` ->
    ``gpt-4o--temp-0-``.

    Refuses names with path separators, control or invisible formatting characters, and names whose
    slug is empty or only dots.
    """
    if "/" in name or "\\" in name or os.sep in name:
        raise ValueError(f"judge name {name!r} must not contain a path separator")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError(f"judge name {name!r} must not contain control or invisible formatting characters")
    s = slug(name.strip())
    if not s or set(s) <= {"."}:
        raise ValueError(f"judge name {name!r} gives an empty or invalid folder name")
    return s


def revision_slug(revision: str) -> str:
    """Dataset revision -> file-name part, e.g. ``local:0123abcd4567`` -> ``local-0123abcd4567``."""
    s = slug(revision)
    if not s or set(s) <= {"."}:
        raise ValueError(f"invalid dataset revision {revision!r}")
    return s
