"""`dhp show` and the --samples HTML sheet, on a real offline build of Answer Equivalence (the smallest)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dhp.cli.show import sample_pairs, samples_html, write_samples_html
from dhp.data.dataset_io import read_pairs

ANSI = re.compile(r"\x1b\[[0-9;]*m")
DS = "answer-equivalence"


def _dhp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dhp", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def data(built_root: Path) -> Path:
    """The session's offline build (tests/builder/conftest.py: --allow-fewer, what `dhp build` does); a
    `dhp build` of its own here cost 11 s. The slow tests read it."""
    return built_root


@pytest.fixture(scope="module")
def tiny(tiny_root: Path) -> Path:
    """The session's tiny datasets (tests/conftest.py): what the fast tests read, so that the edit loop
    (`make test-fast`) builds nothing (the build costs 20-25 s)."""
    return tiny_root


# ----------------------------------------------------------------------------- pure functions
# (the diff marking's own tests: tests/data/test_diffmark.py)


def test_sample_pairs_is_seeded() -> None:
    rows = [{"perturbation": p, "id": str(i)} for p in ("x", "y") for i in range(20)]
    one, same, other = sample_pairs(rows, 3, 1), sample_pairs(rows, 3, 1), sample_pairs(rows, 3, 2)
    assert one == same
    assert [len(v) for v in one.values()] == [3, 3]
    assert one != other


# ----------------------------------------------------------------------------- on a real build


@pytest.mark.slow
def test_dhp_show_prints_marked_pairs(tiny: Path) -> None:
    r = _dhp(
        "show",
        DS,
        "word_fictional_ne_minor",
        "-n",
        "3",
        "--data",
        str(tiny),
        "--color",
        "never",
        "--width",
        "0",
    )
    assert r.returncode == 0, r.stderr
    assert not ANSI.search(r.stdout)
    blocks = r.stdout.split("\n== ")[1:]
    assert len(blocks) == 3
    rows = {row["id"]: row for row in read_pairs(tiny / DS, ["word_fictional_ne_minor"])}
    for block in blocks:
        item, body = block.split("\n", 1)
        orig_line, rest = body.removeprefix("- original : ").split("\n+ perturbed: ", 1)
        pert_line = rest.rsplit("\n   ", 1)[0]  # the verdict line follows
        row = rows[item]
        original = re.sub(r"\[-(.*?)-\]", r"\1", orig_line, flags=re.DOTALL)
        perturbed = re.sub(r"\{\+(.*?)\+\}", r"\1", pert_line, flags=re.DOTALL)
        assert original == row["original"] and perturbed == row["perturbed"]
        assert "[-" in orig_line and "{+" in pert_line  # the replaced entity is marked on both sides
    again = _dhp("show", DS, "word_fictional_ne_minor", "-n", "3", "--data", str(tiny), "--color", "never")
    assert (
        again.stdout.split("\n== ")[1:] and again.stdout.split("\n== ")[1].split()[0] == blocks[0].split()[0]
    )


@pytest.mark.slow
def test_dhp_show_colours_only_when_asked(data: Path) -> None:
    always = _dhp("show", DS, "word_grammar_minor", "-n", "2", "--data", str(data), "--color", "always")
    assert always.returncode == 0 and "\x1b[1;31m" in always.stdout
    auto = _dhp("show", DS, "word_grammar_minor", "-n", "2", "--data", str(data), env={"NO_COLOR": "1"})
    assert auto.returncode == 0 and not ANSI.search(auto.stdout)


def test_dhp_show_unknown_perturbation_fails_in_one_line(tiny: Path) -> None:
    r = _dhp("show", DS, "nope", "--data", str(tiny))
    assert r.returncode != 0
    assert "nope" in (r.stderr + r.stdout)


class _Marks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.h2: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self._in_h2 = tag == "h2"

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.h2.append(data)
            self._in_h2 = False


@pytest.mark.slow
def test_samples_html_sheet(data: Path, tmp_path: Path) -> None:
    out = write_samples_html(data / DS, tmp_path / "s.html", n_per_perturbation=2, seed=3)
    text = out.read_text(encoding="utf-8")
    parser = _Marks()
    parser.feed(text)
    pids = {row["perturbation"] for row in read_pairs(data / DS)}
    assert {h.split(" ")[0] for h in parser.h2} == pids
    assert parser.tags["table"] == len(pids)
    assert parser.tags["tr"] == len(pids) * 3  # a header and two pairs per perturbation
    assert parser.tags.get("del", 0) >= 2 and parser.tags.get("ins", 0) >= 2
    assert write_samples_html(data / DS, tmp_path / "t.html", 2, 3).read_text() == text
    via_cli = _dhp(
        "show", DS, "--samples", str(tmp_path / "u.html"), "-n", "2", "--seed", "3", "--data", str(data)
    )
    assert via_cli.returncode == 0, via_cli.stderr
    assert (tmp_path / "u.html").read_text() == text


def test_samples_html_is_pure_and_escaped() -> None:
    rows = {"word_grammar": [{"id": "<x>", "original": "He goes <home>.", "perturbed": "He go <home>."}]}
    page = samples_html("story-cloze", rows, 0)
    assert "&lt;x&gt;" in page and "&lt;home&gt;" in page and "<home>" not in page
    assert "<del>goes</del>" in page and "<ins>go</ins>" in page
