"""Word-level differences between an original and a perturbed text, marked for a terminal
(ANSI colours or plain ``[-old-]`` / ``{+new+}``) or for HTML (``<del>`` / ``<ins>``, escaped).

Pure functions, used by ``dhp show`` (:mod:`dhp.cli.show`), ``dhp misses`` and the judge page,
so a difference reads the same everywhere.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["DIM", "RESET", "Segment", "diff_words", "pair_html", "render_side_by_side", "render_stacked"]

_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")
RED, GREEN, DIM, RESET = "\x1b[1;31m", "\x1b[1;32m", "\x1b[2m", "\x1b[0m"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Segment:
    """A run of text that both texts share (``same``), only the original has (``del``) or only
    the perturbed text has (``ins``)."""

    kind: Literal["same", "del", "ins"]
    text: str


def diff_words(original: str, perturbed: str) -> list[Segment]:
    """Word-level diff: the original's text is the ``same`` + ``del`` segments in order, the
    perturbed text the ``same`` + ``ins`` segments."""
    a, b = _TOKENS.findall(original), _TOKENS.findall(perturbed)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[Segment] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out.append(Segment("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(Segment("del", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(Segment("ins", "".join(b[j1:j2])))
    return out


def _mark(seg: Segment, color: bool) -> str:
    if seg.kind == "same":
        return seg.text
    if color:
        return f"{RED if seg.kind == 'del' else GREEN}{seg.text}{RESET}"
    return f"[-{seg.text}-]" if seg.kind == "del" else f"{{+{seg.text}+}}"


def _side(segments: Sequence[Segment], kind: str, color: bool) -> str:
    return "".join(_mark(s, color) for s in segments if s.kind in ("same", kind))


def render_stacked(original: str, perturbed: str, color: bool, width: int = 0) -> str:
    """Two blocks, original then perturbed, each with its own changes marked; ``width`` > 0 wraps
    each block to that many visible characters."""
    segs = diff_words(original, perturbed)
    out = []
    for label, kind in (("- original : ", "del"), ("+ perturbed: ", "ins")):
        text = _side(segs, kind, color)
        lines = _wrap_marked(text, max(20, width - len(label))) if width > 0 else [text]
        out.append(label + ("\n" + " " * len(label)).join(lines))
    return "\n".join(out)


def _visible(text: str) -> int:
    return len(_ANSI.sub("", text))


def _wrap_marked(text: str, width: int) -> list[str]:
    """Wrap text that may hold ANSI codes by its visible width, keeping codes open across lines."""
    lines: list[str] = []
    line, open_code = "", ""
    for word in re.findall(r"\S+\s*", text):
        if line and _visible(line) + _visible(word.rstrip()) > width:
            lines.append(line.rstrip() + (RESET if open_code else ""))
            line = open_code
        line += word
        codes = _ANSI.findall(word)
        if codes:
            open_code = "" if codes[-1] == RESET else codes[-1]
    if _visible(line.strip()) or not lines:
        lines.append(line.rstrip())
    return lines


def render_side_by_side(original: str, perturbed: str, color: bool, width: int = 100) -> str:
    """Original left, perturbed right, each wrapped to half of ``width``, changes marked."""
    segs = diff_words(original, perturbed)
    col = max(20, (width - 3) // 2)
    left = _wrap_marked(_side(segs, "del", color), col)
    right = _wrap_marked(_side(segs, "ins", color), col)
    rows = []
    for i in range(max(len(left), len(right))):
        lt = left[i] if i < len(left) else ""
        rt = right[i] if i < len(right) else ""
        rows.append(lt + " " * (col - _visible(lt)) + " | " + rt)
    header = "original".ljust(col) + " | perturbed"
    return "\n".join([header, "-" * min(width, 2 * col + 3), *rows])


def pair_html(original: str, perturbed: str) -> tuple[str, str]:
    """The two texts as HTML, escaped, with ``<del>`` / ``<ins>`` around the changed words."""
    segs = diff_words(original, perturbed)

    def side(kind: str, tag: str) -> str:
        return "".join(
            html.escape(s.text) if s.kind == "same" else f"<{tag}>{html.escape(s.text)}</{tag}>"
            for s in segs
            if s.kind in ("same", kind)
        )

    return side("del", "del"), side("ins", "ins")
