"""Names turned into file and URL parts: the one slug rule of the package.

A judge's results live under ``<results>/<judge_slug(name)>/``, whether ``dhp score`` wrote them or
the leaderboard's queue worker copied them; queue request ids, duplicate checks and links use the
same slug, so one judge never gets two folders.

A judge's name is shown to every visitor of the leaderboard, so it is plain text that cannot pass
for another: no markup that a Markdown or HTML renderer would turn into a link or an image, no word
mixing scripts (a Cyrillic ``е`` in ``dеepseek``), and :func:`name_key` tells names that read alike
(Unicode's confusables, TR39 skeletons, NFKC and case folding) so that the leaderboard refuses a
name that reads like a taken one.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections.abc import Mapping

__all__ = [
    "DEFAULT_DATA",
    "HUB_DATA",
    "JUDGE_NAME_RULE",
    "MisleadingNameError",
    "check_judge_name",
    "judge_slug",
    "name_key",
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
#: judge file (:class:`dhp.inference.judge.Judge` validates it; the form says it in these words).
JUDGE_NAME_RULE = (
    "1 to 64 characters, starting with a letter or digit, not ending with a space, without / \\ < or >, "
    "links or Markdown link syntax, and no word mixing scripts (such as Latin and Cyrillic letters)"
)
_JUDGE_NAME = re.compile(r"[^\W_](?:[^/\\<>]{0,62}[^/\\<>\s])?")
#: markup a renderer would turn into a link or an image: ``[x](...)`` (CommonMark: no space before
#: the ``(``), ``![x](...)``, a URL scheme, ``www.``
_MARKUP = re.compile(
    r"\]\(|!\[|(?<![\w.-])(?:https?|ftp|mailto|javascript|vbscript|data|file):|(?<![\w.-])www\.", re.I
)
#: scripts that one word may mix (Unicode TR39's "highly restrictive" sets: Japanese, Chinese, Korean with Latin)
_MIXABLE = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


class MisleadingNameError(ValueError):
    """A name that would not show as itself: link markup, or a word mixing scripts (one line)."""


def check_judge_name(name: str) -> str:
    """``name`` if it follows :data:`JUDGE_NAME_RULE` (so its :func:`judge_slug` is a folder name and
    it shows as itself); else a one-line :class:`ValueError` saying what breaks the rule. Display names
    such as ``GPT-4o (temp 0)`` or ``my judge v2`` are fine; their slugs (``gpt-4o--temp-0-``,
    ``my-judge-v2``) name the results folder and are the judge's key for duplicates."""
    judge_slug(name)  # the folder-name problems first, in their own words (a path separator, ...)
    markup = _MARKUP.search(name)
    if markup:
        raise MisleadingNameError(
            f"judge name {name!r} holds a link or link markup ({markup.group(0)!r}): names are plain text"
        )
    if not _JUDGE_NAME.fullmatch(name):
        raise ValueError(f"judge name {name!r}: {JUDGE_NAME_RULE}")
    mixed = _mixed_script_word(name)
    if mixed:
        raise MisleadingNameError(f"judge name {name!r} mixes {mixed}: a name must not pass for another")
    return name


def _mixed_script_word(name: str) -> str | None:
    """``'Latin and Cyrillic letters in 'dеepseek''`` for the first word of ``name`` mixing scripts, else None."""
    from confusable_homoglyphs.categories import alias

    for word in re.findall(r"[^\W\d_]+", name):
        scripts = {alias(c) for c in word} - {"COMMON", "INHERITED"}
        if len(scripts) > 1 and not any(scripts <= ok for ok in _MIXABLE):
            return f"{' and '.join(sorted(s.title() for s in scripts))} letters in {word!r}"
    return None


@functools.cache
def _prototypes() -> Mapping[str, str]:
    """Each confusable character -> its prototype (Unicode TR39's confusables.txt, as
    ``confusable-homoglyphs`` ships it: every source beside its prototype, both ways)."""
    from confusable_homoglyphs.utils import load

    def clean(text: str) -> str:
        return text.replace("\u200e", "").replace("\u200f", "")

    pairs = {clean(k): [clean(x["c"]) for x in v] for k, v in load("confusables.json").items()}
    out: dict[str, str] = {}
    for char, neighbours in pairs.items():
        if len(char) != 1 or len(neighbours) != 1:
            continue  # a prototype (it has several sources) or a string of several characters
        (other,) = neighbours
        # `other` is a prototype with several sources, or one of a pair alone (both read as one of them)
        if len(pairs.get(other, ())) > 1 or len(other) != 1 or other < char:
            out[char] = other
    return out


def _skeleton(text: str) -> str:
    """Unicode TR39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    protos = _prototypes()
    return unicodedata.normalize("NFD", "".join(protos.get(c, c) for c in unicodedata.normalize("NFD", text)))


def name_key(name: str) -> str:
    """What names that read alike share: the :func:`slug` of the name's skeleton after NFKC and case
    folding, so ``dеepseek`` (Cyrillic ``е``), ``ＤeepSeek`` (full-width) and ``DEEPSEEK`` share
    ``deepseek``'s key, ``llama``, ``1lama`` and ``IIama`` share one, and so do ``café`` and
    ``cafe``. Names with one :func:`judge_slug` share one key."""
    text = _skeleton(unicodedata.normalize("NFKC", name.strip()))
    text = _skeleton(text.casefold())
    return slug("".join(c for c in text if not unicodedata.combining(c)))  # accents read alike too


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
