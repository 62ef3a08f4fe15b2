"""Key-value file stores for requests, results and survey votes: a local folder or a Hub dataset repo.

Both implement :class:`Store`. Paths are relative, ``/``-separated. Updates that must not race
(claiming a queued request, changing its state) go through :meth:`Store.compare_and_swap`, which
writes only if the file still holds the bytes the caller read:

* :class:`LocalStore` serialises writers with an exclusive ``fcntl`` lock on ``<root>/.lock`` and
  writes through a temporary file and an atomic ``os.replace``; readers never see half a file.
* :class:`HubStore` commits with ``parent_commit`` set to the commit it read, so the Hub refuses
  the commit if anything was committed in between (the leaderboard template's pattern, made safe).

No secret is ever written through a store (the API key stays in the worker's environment).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, runtime_checkable

from dhp.fsutil import atomic_write_bytes

__all__ = [
    "HUB_TIMEOUT_S",
    "HubStore",
    "LocalStore",
    "Store",
    "StoreError",
    "bound_hub_calls",
    "hub_timeout_from_env",
    "open_store",
    "seconds_from_env",
]

log = logging.getLogger(__name__)

#: Seconds a Hub call of the leaderboard or its worker may wait for an answer (``DHP_HUB_TIMEOUT``).
HUB_TIMEOUT_S = 60.0
_BOUND: list[bool] = []  # holds True once this process's Hub calls are bounded
_BOUND_LOCK = threading.Lock()


def seconds_from_env(name: str, default: float, env: Mapping[str, str] | None = None) -> float:
    """The variable ``name`` of ``env`` (the process's environment by default) as seconds where set, else
    ``default``; a :class:`StoreError` in one line when it is not a positive, finite number."""
    raw = (os.environ if env is None else env).get(name, "").strip()
    if not raw:
        return default
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (seconds > 0 and math.isfinite(seconds)):
        raise StoreError(f"{name} must be a positive number of seconds, got {raw!r}")
    return seconds


def hub_timeout_from_env() -> float:
    """``DHP_HUB_TIMEOUT`` (seconds, > 0) where set, else :data:`HUB_TIMEOUT_S`."""
    return seconds_from_env("DHP_HUB_TIMEOUT", HUB_TIMEOUT_S)


def bound_hub_calls(seconds: float = HUB_TIMEOUT_S) -> None:
    """Make every ``huggingface_hub`` call of this process give up after ``seconds`` without an answer.

    Its default HTTP client waits forever: one hung connection would freeze the board's background
    listing of results (and a worker's queue) for good. The client is otherwise its own (its hooks
    send the token and the user agent); the bound covers connecting, each read and each write, also
    of calls that pass ``timeout=None`` themselves. A timed-out call is retried by huggingface_hub's
    backoff, then raises."""
    import huggingface_hub

    try:
        from huggingface_hub.utils._http import default_client_factory
    except ImportError:  # a huggingface_hub without it: say so, calls stay unbounded
        log.warning("huggingface_hub has no default_client_factory: Hub calls are not bounded in time")
        return

    def bound(request: Any) -> None:  # a call may pass timeout=None itself (the tree listing's pages do)
        given = request.extensions.get("timeout") or dict.fromkeys(("connect", "read", "write", "pool"))
        request.extensions["timeout"] = {k: seconds if v is None else v for k, v in given.items()}

    def factory() -> Any:
        client = default_client_factory()
        client.timeout = seconds
        client.event_hooks = {**client.event_hooks, "request": [*client.event_hooks["request"], bound]}
        return client

    huggingface_hub.set_client_factory(factory)


class StoreError(RuntimeError):
    """A store operation failed (bad path, I/O or Hub error); the message names the store."""


def _check_rel(path: str) -> str:
    p = PurePosixPath(path)
    if not path or p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or "\\" in path:
        raise StoreError(f"invalid store path {path!r}")
    return str(p)


@runtime_checkable
class Store(Protocol):
    """The interface shared by the local and the Hub store."""

    @property
    def name(self) -> str:
        """Human-readable location (folder or repo id), for messages."""
        ...

    def list(self, suffix: str = ".json") -> dict[str, str]:
        """Every file ending in ``suffix`` -> a version token that changes when the file changes."""
        ...

    def read(self, path: str) -> bytes:
        """The file's bytes; :class:`FileNotFoundError` if absent."""
        ...

    def write(self, path: str, data: bytes, message: str = "update") -> None:
        """Create or replace a file (atomically for readers)."""
        ...

    def create(self, path: str, data: bytes, message: str = "create") -> bool:
        """Write only if ``path`` does not exist yet; False if it does."""
        ...

    def compare_and_swap(self, path: str, expected: bytes, data: bytes, message: str = "update") -> bool:
        """Replace ``path`` only if it still holds ``expected``; False if it changed (or vanished)."""
        ...


class LocalStore:
    """A folder on disk. Safe for several processes on one machine (workers, app, CLI)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    @property
    def name(self) -> str:
        return str(self.root)

    def __repr__(self) -> str:
        return f"LocalStore({str(self.root)!r})"

    def _path(self, path: str) -> Path:
        return self.root / _check_rel(path)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.root / ".lock", "a+b") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def list(self, suffix: str = ".json") -> dict[str, str]:
        out: dict[str, str] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fn in filenames:
                if fn.startswith(".") or not fn.endswith(suffix):
                    continue
                full = os.path.join(dirpath, fn)
                try:
                    st = os.stat(full)
                except FileNotFoundError:
                    continue
                rel = os.path.relpath(full, self.root).replace(os.sep, "/")
                out[rel] = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        return dict(sorted(out.items()))

    def read(self, path: str) -> bytes:
        return self._path(path).read_bytes()

    def _write_unlocked(self, target: Path, data: bytes) -> None:
        atomic_write_bytes(target, data)

    def write(self, path: str, data: bytes, message: str = "update") -> None:
        target = self._path(path)
        with self._locked():
            self._write_unlocked(target, data)

    def create(self, path: str, data: bytes, message: str = "create") -> bool:
        target = self._path(path)
        with self._locked():
            if target.exists():
                return False
            self._write_unlocked(target, data)
            return True

    def compare_and_swap(self, path: str, expected: bytes, data: bytes, message: str = "update") -> bool:
        target = self._path(path)
        with self._locked():
            try:
                current = target.read_bytes()
            except FileNotFoundError:
                return False
            if current != expected:
                return False
            self._write_unlocked(target, data)
            return True


class HubStore:
    """A Hub dataset repo (``repo_type="dataset"``), read and written with ``huggingface_hub``.

    ``api`` is an ``HfApi`` (injectable for tests). Reads go through ``hf_hub_download`` at a pinned
    commit, which caches by content; conditional writes pass ``parent_commit`` so that a concurrent
    commit makes the Hub answer 412 and the write report False instead of overwriting.
    """

    def __init__(
        self,
        repo_id: str,
        *,
        token: str | None = None,
        api: Any | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        create: bool = False,
        private: bool = True,
    ) -> None:
        if api is None:
            from huggingface_hub import HfApi

            with _BOUND_LOCK:  # once: setting a factory closes the shared client
                if not _BOUND:
                    _BOUND.append(True)
                    bound_hub_calls(hub_timeout_from_env())
            api = HfApi(token=token)
        self.api = api
        self.repo_id = repo_id
        self.cache_dir = None if cache_dir is None else str(cache_dir)
        self.max_retries = 5
        if create:
            self.api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)

    @property
    def name(self) -> str:
        return f"hf://datasets/{self.repo_id}"

    def __repr__(self) -> str:
        return f"HubStore({self.repo_id!r})"

    def is_private(self) -> bool:
        """Whether the Hub repository is private (visitors cannot read it)."""
        return bool(self.api.repo_info(self.repo_id, repo_type="dataset", revision="main").private)

    def _head(self) -> str:
        info = self.api.repo_info(self.repo_id, repo_type="dataset")
        return str(info.sha)

    def list(self, suffix: str = ".json") -> dict[str, str]:
        out: dict[str, str] = {}
        for entry in self.api.list_repo_tree(self.repo_id, repo_type="dataset", recursive=True):
            path = getattr(entry, "path", "")
            blob = getattr(entry, "blob_id", None)
            if blob is None or not path.endswith(suffix) or PurePosixPath(path).name.startswith("."):
                continue
            out[path] = str(blob)
        return dict(sorted(out.items()))

    def _read_at(self, path: str, revision: str | None) -> bytes:
        from huggingface_hub.errors import EntryNotFoundError

        try:
            local = self.api.hf_hub_download(
                self.repo_id,
                _check_rel(path),
                repo_type="dataset",
                revision=revision,
                cache_dir=self.cache_dir,
            )
        except EntryNotFoundError:
            raise FileNotFoundError(f"{self.name}/{path}") from None
        return Path(local).read_bytes()

    def read(self, path: str) -> bytes:
        return self._read_at(path, None)

    def _commit(self, path: str, data: bytes, message: str, parent: str | None) -> bool:
        from huggingface_hub import CommitOperationAdd
        from huggingface_hub.errors import HfHubHTTPError

        try:
            self.api.create_commit(
                self.repo_id,
                operations=[CommitOperationAdd(path_in_repo=_check_rel(path), path_or_fileobj=data)],
                commit_message=message,
                repo_type="dataset",
                parent_commit=parent,
            )
        except HfHubHTTPError as e:
            status = getattr(getattr(e, "response", None), "status_code", None)
            if parent is not None and status in (409, 412):
                return False
            raise StoreError(f"{self.name}: commit of {path} failed: {e}") from e
        return True

    def write(self, path: str, data: bytes, message: str = "update") -> None:
        self._commit(path, data, message, None)

    def create(self, path: str, data: bytes, message: str = "create") -> bool:
        # A conflict means *some* commit landed since we read; retry unless it created our file.
        for _ in range(self.max_retries):
            head = self._head()
            try:
                self._read_at(path, head)
                return False
            except FileNotFoundError:
                pass
            if self._commit(path, data, message, head):
                return True
        raise StoreError(f"{self.name}: could not create {path}: the repo keeps changing")

    def compare_and_swap(self, path: str, expected: bytes, data: bytes, message: str = "update") -> bool:
        for _ in range(self.max_retries):
            head = self._head()
            try:
                current = self._read_at(path, head)
            except FileNotFoundError:
                return False
            if current != expected:
                return False
            if self._commit(path, data, message, head):
                return True
        raise StoreError(f"{self.name}: could not update {path}: the repo keeps changing")


def open_store(spec: str, *, token: str | None = None) -> Store:
    """``hf://datasets/<org>/<repo>`` (or ``hf://<org>/<repo>``) -> :class:`HubStore`; else a folder."""
    if spec.startswith("hf://"):
        repo = spec[len("hf://") :]
        if repo.startswith("datasets/"):
            repo = repo[len("datasets/") :]
        return HubStore(repo.strip("/"), token=token or os.environ.get("HF_TOKEN"), create=True)
    return LocalStore(spec)
