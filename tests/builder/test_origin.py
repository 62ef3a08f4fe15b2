"""The origin path: files downloaded once from their public URL (here a loopback server), cached, verified."""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dhp.builder.sources import SourceLocator, load_source
from dhp.errors import SourceError
from dhp.spec import BENCHMARK


@pytest.fixture
def origin(sources_dir: Path) -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            hits.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(sources_dir)))
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        t.join()


def _spec_from(base: str, name: str, urls: dict[str, str]) -> Any:
    spec = BENCHMARK[name]
    return dataclasses.replace(
        spec, source=dataclasses.replace(spec.source, origin_urls={k: base + v for k, v in urls.items()})
    )


def test_download_cache_and_checksum(
    origin: tuple[str, list[str]], locator: SourceLocator, tmp_path: Path
) -> None:
    base, hits = origin
    spec = _spec_from(
        base,
        "wmt22-zh-en",
        {
            "src": "/wmt22/generaltest2022.zh-en.src.zh",
            "ref": "/wmt22/generaltest2022.zh-en.ref.A.en",
            "xml": "/wmt22/wmttest2022.zh-en.xml",
        },
    )
    remote = SourceLocator(None, cache_dir=tmp_path / "cache")
    got = load_source(spec, remote)
    assert got.items == load_source(BENCHMARK["wmt22-zh-en"], locator).items
    assert [f.origin for f in got.files] == list(spec.source.origin_urls.values())
    assert len(hits) == 3
    load_source(spec, remote)
    assert len(hits) == 3  # served from the cache the second time

    bad = _spec_from(base, "summeval", {"data.pkl": "/sumpubmed/LICENSE"})  # wrong bytes at the URL
    with pytest.raises(SourceError, match="differs from the pinned upstream"):
        load_source(bad, SourceLocator(None, cache_dir=tmp_path / "cache2"))
    missing = _spec_from(base, "summeval", {"data.pkl": "/nope.pkl"})
    with pytest.raises(SourceError, match="HTTP 404"):
        load_source(missing, SourceLocator(None, cache_dir=tmp_path / "cache3"))
    assert not list((tmp_path / "cache3").rglob("*.part"))
