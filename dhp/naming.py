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


#: Latin letters TR39 leaves as prototypes of other scripts' letters that read, in a case-folded name,
#: as an ASCII letter: ``ĸ`` (kra, the prototype of Cyrillic ``к`` and Greek ``κ``) and the Cyrillic
#: palochka ``ӏ`` (TR39 maps its capital ``Ӏ`` to ``l`` and the small one to ``i``, a dot it has not).
_LATIN_EXTRA = {"ĸ": "k", "ӏ": "l"}
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")


@functools.cache
def _latin_lookalikes() -> Mapping[str, str]:
    """:data:`_LATIN_EXTRA` and every Latin small capital (``ʙ``, the prototype of Cyrillic ``в``;
    ``ʜ`` of ``н``; ``ᴛ`` of ``т``) -> its ASCII letter: what a reader takes them for once case is
    folded, as the key folds it."""
    out = dict(_LATIN_EXTRA)
    for block in (range(0x0250, 0x02B0), range(0x1D00, 0x1D80), range(0xA730, 0xA800)):
        for cp in block:
            m = _SMALL_CAPITAL.fullmatch(unicodedata.name(chr(cp), ""))
            if m:
                out[chr(cp)] = m.group(1).lower()
    return out


def _key_char(c: str) -> str:
    """One character of a key: ASCII as :func:`slug` keeps it; another script's letters and digits as
    they are (``评审一号`` and ``评审二号`` are two names); other marks and symbols ``-``."""
    if c.isascii():
        return slug(c)
    return c if unicodedata.category(c)[0] in "LN" else "-"


def name_key(name: str) -> str:
    """What names that read alike share: the name after NFKC and case folding, mapped to TR39's
    prototypes (its skeleton), then to the Latin letters those prototypes read as
    (:func:`_latin_lookalikes`), accents dropped, ASCII :func:`slug`-ed. So ``dеepseek`` (Cyrillic
    ``е``), ``ԁеерѕеек`` (every letter Cyrillic or Komi), ``ＤeepSeek`` (full-width) and ``DEEPSEEK``
    share ``deepseek``'s key, ``огасӏе`` shares ``oracle``'s, ``llama``, ``1lama`` and ``IIama``
    share one, and so do ``café`` and ``cafe``; names in other scripts keep their letters
    (``评审一号`` and ``评审二号`` differ). ASCII names with one :func:`judge_slug` share one key."""
    latin = _latin_lookalikes()

    def step(text: str) -> str:
        return _skeleton("".join(latin.get(c, c) for c in text if not unicodedata.combining(c)))

    text = step(step(unicodedata.normalize("NFKC", name.strip())).casefold())
    text = step(text)
    return "".join(_key_char(c) for c in text if not unicodedata.combining(c))  # accents read alike too


#: The hash that tells apart the folders of names outside ASCII (hex digits of SHA-256).
_NAME_HASH = 8


def judge_slug(name: str) -> str:
    """Judge name -> folder name. An ASCII name: :func:`slug` of the stripped name, e.g. ``GPT-4o
    (temp 0)`` -> ``gpt-4o--temp-0-`` (the folders results have always had). A name with other
    characters: its ASCII letters and digits (accents dropped, TR39's Latin look-alikes for other
    scripts' letters), at most 40, then ``-`` and 8 hex digits of the SHA-256 of the name (NFC), so
    that distinct names never share a folder, e.g. ``评审一号`` -> ``judge-0f3c…``, ``Café Judge`` ->
    ``cafe-judge-5d1e…``.

    Refuses names with path separators, control or invisible formatting characters, and names whose
    slug is empty or only dots.
    """
    if "/" in name or "\\" in name or os.sep in name:
        raise ValueError(f"judge name {name!r} must not contain a path separator")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError(f"judge name {name!r} must not contain control or invisible formatting characters")
    stripped = name.strip()
    if not stripped.isascii():
        return _unicode_slug(stripped)
    s = slug(stripped)
    if not s or set(s) <= {"."}:
        raise ValueError(f"judge name {name!r} gives an empty or invalid folder name")
    return s


def _unicode_slug(name: str) -> str:
    """A folder name for a name outside ASCII: its readable ASCII part and a hash of the whole name."""
    import hashlib

    nfc = unicodedata.normalize("NFC", name)
    latin = _latin_lookalikes()
    folded = "".join(  # ASCII kept as typed; another script's letters as the Latin letters they read as
        c if c.isascii() else "".join(latin.get(x, x) for x in _skeleton(latin.get(c, c)))
        for c in unicodedata.normalize("NFKC", nfc)
    )
    ascii_part = "".join(c for c in unicodedata.normalize("NFKD", folded) if c.isascii())
    readable = re.sub(r"-{2,}", "-", slug(ascii_part)).strip("-.")[:40].rstrip("-.") or "judge"
    return f"{readable}-{hashlib.sha256(nfc.encode('utf-8')).hexdigest()[:_NAME_HASH]}"


def revision_slug(revision: str) -> str:
    """Dataset revision -> file-name part, e.g. ``local:0123abcd4567`` -> ``local-0123abcd4567``."""
    s = slug(revision)
    if not s or set(s) <= {"."}:
        raise ValueError(f"invalid dataset revision {revision!r}")
    return s
