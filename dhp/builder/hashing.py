"""Stable hashes and seeds. Never uses Python's salted ``hash()``."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

__all__ = ["derive_rng", "derive_seed", "sha256_bytes", "sha256_file", "sha256_text"]


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex sha256 of the UTF-8 encoding of ``text``."""
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def derive_seed(*parts: object) -> int:
    """A 64-bit seed from the ``|``-joined string form of ``parts`` (sha256, stable across runs)."""
    key = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


def derive_rng(*parts: object) -> random.Random:
    """A private :class:`random.Random` seeded with :func:`derive_seed` of ``parts``."""
    return random.Random(derive_seed(*parts))
