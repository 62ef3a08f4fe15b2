"""Source loaders: layouts, restricted unpickling, error messages, selection counts."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dhp.builder.select import select_items
from dhp.builder.sources import SourceLocator, load_source
from dhp.builder.sources.safe_pickle import UnsafePickleError, safe_load
from dhp.builder.sources.summeval import detokenize, pick_reference
from dhp.builder.sources.wmt22 import group_segments
from dhp.errors import SourceError, TooFewItemsError
from dhp.spec import BENCHMARK, get_dataset


class _Evil:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("pwned",))


def test_restricted_unpickler_refuses_globals() -> None:
    assert safe_load(pickle.dumps({"a": ["b", 1.5]}, protocol=3)) == {"a": ["b", 1.5]}
    with pytest.raises(UnsafePickleError, match=r"builtins\.print"):
        safe_load(pickle.dumps(_Evil(), protocol=3))


def test_summeval_picks_longest_reference_and_detokenises(locator: SourceLocator) -> None:
    data = load_source(BENCHMARK["summeval"], locator)
    assert len(data.items) == 100
    assert pick_reference(["A . B .", "A . B . C .", "X . Y . Z ."]) == 1
    item = next(i for i in data.items if i.id.startswith("dm-test-8764fb95"))
    assert item.extras["reference_index"] == "8"
    assert item.original.startswith("Paul Merson, former Arsenal player")
    article = item.context["article"]
    assert article is not None and " ." not in item.original and " 's" not in article


def test_detokenize_quotes_and_clitics() -> None:
    assert (
        detokenize("seeking 'girlfriend/wife ' on Gumtree , he does n't .")
        == "seeking 'girlfriend/wife' on Gumtree, he doesn't."
    )
    assert detokenize("to be `` very happy '' with $ 70 ( NO exs )") == 'to be "very happy" with $70 (NO exs)'


def test_missing_file_names_file_and_layout(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as e:
        load_source(BENCHMARK["summeval"], SourceLocator(tmp_path))
    assert str(tmp_path / "summeval" / "data.pkl") in str(e.value)
    assert "expected layout" in str(e.value)


def test_corrupt_pickle_is_reported(tmp_path: Path) -> None:
    (tmp_path / "summeval").mkdir()
    (tmp_path / "summeval" / "data.pkl").write_bytes(b"not a pickle")
    with pytest.raises(SourceError, match=r"corrupt source file .*data\.pkl"):
        load_source(BENCHMARK["summeval"], SourceLocator(tmp_path, verify=False))
    with pytest.raises(SourceError, match="sha256"):  # with verification, the checksum catches it first
        load_source(BENCHMARK["summeval"], SourceLocator(tmp_path))


def test_story_cloze_missing_says_how_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="rocstories") as e:
        load_source(BENCHMARK["story-cloze"], SourceLocator(tmp_path))
    assert "--story-cloze" in str(e.value)


def test_story_cloze_user_file(sources_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "mine.csv"
    shutil.copy(sources_dir / "story_cloze" / "cloze_test_val__spring2016.csv", copy)
    data = load_source(BENCHMARK["story-cloze"], SourceLocator(tmp_path / "nowhere"), story_cloze_file=copy)
    assert len(data.items) == 1871
    rick = next(i for i in data.items if i.id.startswith("138d5bfb"))
    assert rick.original == "He is happy now." and rick.extras["wrong_ending"] == "He joined a gang."


def test_answer_equivalence_partial_copy(locator: SourceLocator) -> None:
    spec = BENCHMARK["answer-equivalence"]
    data = load_source(spec, locator)
    assert data.partial and all(i.context["paragraph"] is None for i in data.items)  # absent, not ""
    with pytest.raises(TooFewItemsError) as e:
        select_items(spec, data)
    assert "only 62 eligible" in str(e.value) and "--allow-fewer" in str(e.value)
    sel = select_items(spec, data, allow_fewer=True)
    assert len(sel.items) == 62 and sel.fewer


def test_answer_equivalence_published_format(tmp_path: Path) -> None:
    ae = tmp_path / "answer_equivalence"
    ae.mkdir()
    long = "x" * 151
    for split in ("train", "ae_dev", "ae_test"):
        recs = [
            {"qid": f"{split}-1", "question": "Q?", "context": "Para.", "reference": long, "candidate": "c"},
            {"qid": f"{split}-1", "question": "Q?", "context": "Para.", "reference": long, "candidate": "d"},
            {"qid": "shared", "question": "S?", "context": "P2", "reference": "short", "candidate": "e"},
        ]
        (ae / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    data = load_source(BENCHMARK["answer-equivalence"], SourceLocator(tmp_path))
    assert not data.partial
    assert [i.id for i in data.items] == ["train-1", "shared", "ae_dev-1", "ae_test-1"]
    assert data.items[0].context == {"question": "Q?", "paragraph": "Para."}


def test_wmt_de_en_grouped_within_documents(locator: SourceLocator) -> None:
    spec = get_dataset("wmt22-de-en")
    data = load_source(spec, locator)
    segs = [tuple(map(int, i.extras["segments"].split("-"))) for i in data.items]
    covered = sorted(n for a, b in segs for n in range(a, b + 1))
    assert covered == list(range(1, 1985))  # every line once: groups partition the test set
    assert len({i.id.split("#")[0] for i in data.items}) == 271
    eligible = [i for i in data.items if len(i.original) > 300]
    assert len(eligible) >= 100
    assert any("Grouped" in n for n in data.notes)


def test_wmt_zh_en_segment_level(locator: SourceLocator) -> None:
    data = load_source(get_dataset("wmt22-zh-en"), locator)
    assert len(data.items) == 1875
    assert sum(len(i.original) > 300 for i in data.items) == 224
    assert any("Segment level" in n for n in data.notes)


def test_group_segments() -> None:
    refs = ["a" * 200, "b" * 150, "c" * 310, "d" * 10]
    assert group_segments(refs, 300) == [(0, 2), (2, 4)]
    assert group_segments(["x" * 10], 300) == [(0, 1)]


def test_selection_is_seeded_and_in_source_order(locator: SourceLocator) -> None:
    spec = BENCHMARK["sumpubmed"]
    data = load_source(spec, locator)
    a, b = select_items(spec, data), select_items(spec, data)
    assert [i.id for i in a.items] == [i.id for i in b.items]
    assert len(a.items) == 100
    order = [int(i.id.split("-")[1]) for i in a.items]
    assert order == sorted(order)


class _FakeSumPubMed:
    """A fake origin of vgupta123/sumpubmed on loopback: any pair 1..ORIGIN_PAIRS, some without BACKGROUND."""

    def __init__(self) -> None:
        from dhp.builder.sources.sumpubmed import ORIGIN_PAIRS

        self.hits: list[int] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                m = re.fullmatch(r"/(abstract|text)/(?:abstract|text)_(\d+)\.txt", self.path)
                n = int(m.group(2)) if m else 0
                if not 1 <= n <= ORIGIN_PAIRS:
                    self.send_error(404)
                    return
                fake.hits.append(n)
                head = "INTRODUCTION" if n % 13 == 0 else "BACKGROUND"  # every 13th pair lacks the section
                body = f"{head}\npair {n} {m.group(1) if m else ''} background text about protein {n}.\nMETHODS\nx\n"
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_sumpubmed_origin_samples_from_all_pairs(tmp_path: Path) -> None:
    from dhp.builder.sources.sumpubmed import ORIGIN_CANDIDATES, ORIGIN_PAIRS

    origin = _FakeSumPubMed()
    try:
        base = BENCHMARK["sumpubmed"]
        urls = {
            "abstract": origin.url + "/abstract/abstract_{n}.txt",
            "text": origin.url + "/text/text_{n}.txt",
        }
        spec = dataclasses.replace(base, source=dataclasses.replace(base.source, origin_urls=urls))
        data = load_source(spec, SourceLocator(None, cache_dir=tmp_path / "cache"))
        again = load_source(spec, SourceLocator(None, cache_dir=tmp_path / "cache2"))
    finally:
        origin.close()
    pairs = sorted(set(origin.hits))
    assert len(pairs) == ORIGIN_CANDIDATES and len(origin.hits) == 2 * 2 * ORIGIN_CANDIDATES - 2 * sum(
        n % 13 == 0 for n in pairs
    )  # the second side of a pair without BACKGROUND is never fetched
    assert max(pairs) > 600 and sum(n > 600 for n in pairs) > 0.9 * ORIGIN_CANDIDATES  # not only 1-600
    assert max(pairs) <= ORIGIN_PAIRS
    skipped = sum(n % 13 == 0 for n in pairs)
    assert len(data.items) == ORIGIN_CANDIDATES - skipped and data.items == again.items  # seeded
    assert f"{skipped} of them had no BACKGROUND" in data.notes[0] and "32,689" in data.notes[0]
    chosen = select_items(spec, data)
    assert len(chosen.items) == 100 and all(int(i.id.split("-")[1]) in pairs for i in chosen.items)
    assert all((i.context["article"] or "").startswith("pair ") for i in chosen.items)
