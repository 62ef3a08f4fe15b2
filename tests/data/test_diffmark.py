"""dhp.data.diffmark: what a perturbation changed, marked word by word (plain, coloured, HTML)."""

from __future__ import annotations

from dhp.data.diffmark import diff_words, pair_html, render_side_by_side, render_stacked


def test_diff_words_rebuilds_both_texts_and_marks_whole_words() -> None:
    a, b = "Tom met Mary in Paris.", "Tom met Varek Holm in Paris!"
    segs = diff_words(a, b)
    assert "".join(s.text for s in segs if s.kind != "ins") == a
    assert "".join(s.text for s in segs if s.kind != "del") == b
    assert [s.text for s in segs if s.kind == "del"] == ["Mary", "."]
    assert [s.text for s in segs if s.kind == "ins"] == ["Varek Holm", "!"]


def test_render_plain_and_coloured() -> None:
    plain = render_stacked("He goes home.", "He go home.", color=False)
    assert plain.splitlines() == ["- original : He [-goes-] home.", "+ perturbed: He {+go+} home."]
    coloured = render_stacked("He goes home.", "He go home.", color=True)
    assert "\x1b[1;31mgoes\x1b[0m" in coloured and "\x1b[1;32mgo\x1b[0m" in coloured
    side = render_side_by_side(
        "One. Two three four five six seven.", "One. Two three four five six eight.", False, 40
    )
    lines = side.splitlines()
    assert lines[0].startswith("original") and "| perturbed" in lines[0]
    assert all(" | " in ln for ln in lines[2:])
    assert "[-seven-]" in side and "{+eight+}" in side


def test_html_escapes_and_marks() -> None:
    left, right = pair_html("a <b>bold</b> claim & more", "a <b>brave</b> claim & more")
    assert "<b>" not in left and "&lt;b&gt;" in left
    assert "<del>bold</del>" in left and "<ins>brave</ins>" in right
    assert "&amp;" in left
