"""Where raw source files come from: a local directory, or their public origin (downloaded, cached).

Both ways return the same thing, a local :class:`~pathlib.Path` plus a
:class:`~dhp.data.items.SourceFile` record with the file's sha256, so that every loader has a
single code path. Files with a known checksum (the pinned upstream blobs of docs/datasets.md#sources) are
verified; a mismatch is reported as a corrupt file. Nothing read from a source is ever executed.
"""

from __future__ import annotations

import functools
import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dhp.builder.hashing import sha256_file
from dhp.data.items import SourceFile
from dhp.errors import SourceError

__all__ = ["KNOWN_SHA256", "Fetched", "SourceLocator", "default_cache_dir"]

#: sha256 of the pinned upstream files (docs/datasets.md#sources), keyed by layout path.
KNOWN_SHA256: Mapping[str, str] = {
    "summeval/data.pkl": "008f1639a3352f0248cac88b74ff431c27287a027a888902ef425a26005f0acf",
    "answer_equivalence/ae_augmented_train.jsonl": "31889b2171854798e35fb61f40820d55ae6274188516a6f7b66bf8a21b4bf42f",
    "wmt22/generaltest2022.de-en.ref.A.en": "c1125ea38eeaad508fa5e4eec6d6d8a89b72412cf187229e2b6367737248ca72",
    "wmt22/generaltest2022.de-en.src.de": "662ca5e5013644daaa457a8a8dadc6e8a7b82174dd678b5d74a27e753bd41c61",
    "wmt22/generaltest2022.zh-en.ref.A.en": "ae4830781cf59d46cc7fd1c39620742b0711d8d8535558bd751019ad85c0e3d7",
    "wmt22/generaltest2022.zh-en.src.zh": "cd97ff7b65974ef6637f07d3de0b5d8ec8c2978ae7073ae6e92f66c6aa223c09",
    "wmt22/wmttest2022.de-fr.all.xml": "3fd0d2ab6ca48ad4f88c40987c0def3e15b0ef8b1cbe8a2c5f087810ba4c8681",
    "wmt22/wmttest2022.zh-en.xml": "61edb5a8e6caec6200f570dd693d9898ccab32601bafd5ef8210fcd8c8d58fe3",
}


_PROBE_TIMEOUT_S = 10.0


def default_cache_dir() -> Path:
    """``$DHP_CACHE/sources``, else ``~/.cache/dhp/sources``."""
    base = os.environ.get("DHP_CACHE")
    return (Path(base) if base else Path.home() / ".cache" / "dhp") / "sources"


@dataclass(frozen=True)
class Fetched:
    """A source file available on local disk, with its provenance record."""

    path: Path
    record: SourceFile


class SourceLocator:
    """Resolve layout paths such as ``summeval/data.pkl`` to local files.

    With ``root`` set, files are read from that directory (the layout of docs/datasets.md#sources); otherwise
    each file is downloaded once from its public URL into ``cache_dir`` and read from there.
    """

    def __init__(self, root: Path | None = None, cache_dir: Path | None = None, verify: bool = True) -> None:
        self.root = root
        self.cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self.verify = verify

    @property
    def is_local(self) -> bool:
        return self.root is not None

    def describe(self) -> str:
        """Where files come from, for messages and cards."""
        return f"local directory {self.root}" if self.root is not None else "public origins (downloaded)"

    def exists(self, rel: str) -> bool:
        """Whether a local copy of ``rel`` is available without downloading."""
        base = self.root if self.root is not None else self.cache_dir
        return (base / rel).is_file()

    def unavailable(self, rel: str, url: str | None) -> str | None:
        """Why ``rel`` cannot be had now (one line), or None: a local or cached copy, or an origin that answers.

        Asks the origin once, with a short timeout (``HEAD``); nothing is downloaded.
        """
        if self.root is not None:
            return None if (self.root / rel).is_file() else f"missing source file {self.root / rel}"
        if (self.cache_dir / rel).is_file():
            return None
        if url is None:
            return f"{rel} has no public origin: pass --sources DIR holding it"
        why = _probe(url)
        return None if why is None else f"cannot download {url} ({why}); pass --sources DIR with a local copy"

    def fetch(self, rel: str, url: str | None, layout: str) -> Fetched:
        """The local file for layout path ``rel``; ``layout`` describes the expected layout for errors."""
        if self.root is not None:
            path = self.root / rel
            if not path.is_file():
                raise SourceError(f"missing source file {path}; expected layout under {self.root}:\n{layout}")
            origin = f"local:{rel}"
        else:
            path = self.cache_dir / rel
            if not path.is_file():
                if url is None:
                    raise SourceError(
                        f"source file {rel} has no public origin and was not found in {self.cache_dir}; "
                        f"expected layout:\n{layout}"
                    )
                _download(url, path)
            origin = url if url is not None else f"cache:{rel}"
        digest = sha256_file(path)
        expected = KNOWN_SHA256.get(rel)
        if self.verify and expected is not None and digest != expected:
            raise SourceError(
                f"corrupt source file {path}: sha256 {digest} differs from the pinned upstream {expected}; "
                f"replace it with the original file. Expected layout:\n{layout}"
            )
        return Fetched(path, SourceFile(path=rel, origin=origin, sha256=digest))


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's default TLS context, made once per process: making one loads the CA bundle, which cost
    0.1 s per downloaded file (57 s of SumPubMed's 582 files from a loopback origin)."""
    import httpx

    return httpx.create_ssl_context()


def _probe(url: str) -> str | None:
    """None when ``url`` answers (following redirects), else why not, in a few words."""
    import httpx

    try:
        resp = httpx.head(url, follow_redirects=True, timeout=_PROBE_TIMEOUT_S, verify=_tls())
    except httpx.HTTPError as e:
        return f"{type(e).__name__}: {' '.join(str(e).split())[:160]}"
    return None if resp.status_code < 400 else f"HTTP {resp.status_code}"


def _download(url: str, dest: Path) -> None:
    """Download ``url`` to ``dest`` through a temporary file in the same folder (atomic rename)."""
    import httpx

    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        with (
            os.fdopen(fd, "wb") as out,
            httpx.stream("GET", url, follow_redirects=True, timeout=60.0, verify=_tls()) as resp,
        ):
            if resp.status_code != 200:
                raise SourceError(f"downloading {url} failed: HTTP {resp.status_code}")
            for chunk in resp.iter_bytes():
                out.write(chunk)
        tmp.replace(dest)
    except httpx.HTTPError as e:
        raise SourceError(f"downloading {url} failed: {e}") from e
    finally:
        if tmp.exists():
            tmp.unlink()
