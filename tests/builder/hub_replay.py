"""A loopback replay of the Hub's HTTP API for publish/download tests (no live Hub here).

Responses come from ``hub_recording.json`` (request/response shapes of the real Hub); this module
keeps the repository state those responses describe (repos, commits, branches, tags, LFS blobs) and
fills the recorded templates with it. Every request is logged so tests can assert the exchange.
It also signs users in as the Hub's OpenID Connect provider does for a Space with ``hf_oauth``
(discovery, authorization code, token with an RS256 id_token, JWKS), approving at once as
:attr:`HubState.oauth_user`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import pytest

RECORDING = json.loads((Path(__file__).parent / "hub_recording.json").read_text(encoding="utf-8"))
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def fill(template: Any, ctx: dict[str, Any]) -> Any:
    """Substitute ``{name}`` placeholders; a string that is one placeholder becomes the raw value."""
    if isinstance(template, str):
        m = _PLACEHOLDER.fullmatch(template)
        if m and m.group(1) in ctx:
            return ctx[m.group(1)]
        return _PLACEHOLDER.sub(lambda mm: str(ctx.get(mm.group(1), mm.group(0))), template)
    if isinstance(template, list):
        return [fill(t, ctx) for t in template]
    if isinstance(template, dict):
        return {k: fill(v, ctx) for k, v in template.items()}
    return template


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def lfs_pointer(sha256: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {size}\n".encode()


@dataclass
class Commit:
    oid: str
    files: dict[str, bytes]  # path -> content
    lfs: set[str]  # paths stored in LFS


@dataclass
class Repo:
    repo_id: str
    object_id: str
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    variables: dict[str, dict[str, Any]] = field(default_factory=dict)  # Space variables
    private: bool = False  # as created (repo_info reports it)

    def resolve(self, rev: str) -> Commit | None:
        oid = self.branches.get(rev) or self.tags.get(rev) or (rev if rev in self.commits else None)
        return None if oid is None else self.commits[oid]


@dataclass
class HubState:
    cdn: str = ""  # base URL of the CDN origin that LFS downloads redirect to
    repos: dict[str, Repo] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)  # LFS sha256 -> content
    log: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    lock: threading.Lock = field(default_factory=threading.Lock)
    oauth_user: str = "replay-user"  # who signs in with Hugging Face (the replay approves at once)
    oauth_codes: dict[str, dict[str, str]] = field(default_factory=dict)  # code -> its authorize request
    oauth_key: Any = None  # the RS256 key that signs id_tokens (made on first use)
    #: when set, a private repository answers only a request carrying one of these tokens (``Authorization:
    #: Bearer``), as the Hub does; others get "repository not found", as the Hub answers them
    private_tokens: frozenset[str] | None = None

    def signing_key(self) -> Any:
        from joserfc.jwk import RSAKey

        with self.lock:
            if self.oauth_key is None:
                self.oauth_key = RSAKey.generate_key(
                    2048, parameters={"kid": "replay-1", "use": "sig", "alg": "RS256"}
                )
            return self.oauth_key


class _Hub(BaseHTTPRequestHandler):
    """Serves the recorded exchanges over ``state``; routes are the tables below the class."""

    protocol_version = "HTTP/1.1"
    state: ClassVar[HubState]

    def log_message(self, *args: Any) -> None:
        return

    @property
    def endpoint(self) -> str:
        return f"http://{self.headers['Host']}"

    def _reply(self, name: str, ctx: dict[str, Any], body: bytes | None = None) -> None:
        resp = RECORDING[name]["response"]
        payload = body
        if "json" in resp:
            payload = json.dumps(fill(resp["json"], ctx)).encode()
        headers = fill(resp.get("headers", {}), ctx)
        self.send_response(resp["status"])
        for k, v in headers.items():
            if k != "Content-Length":
                self.send_header(k, str(v))
        n = len(payload or b"")
        if self.command == "HEAD" and body is not None:
            n = len(body)
        self.send_header(
            "Content-Length", str(headers.get("Content-Length", n) if resp["status"] == 302 else n)
        )
        self.end_headers()
        if payload and self.command != "HEAD":
            self.wfile.write(payload)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _json(self, name: str) -> Any:
        data = json.loads(self._body())
        for key in RECORDING[name]["request"].get("json_keys", []):
            assert key in data, (name, key, data)
        return data

    def _route(self) -> None:
        path = unquote(urlsplit(self.path).path)
        with self.state.lock:
            self.state.log.append((self.command, path))
        ctx: dict[str, Any] = {"endpoint": self.endpoint, "cdn": self.state.cdn}
        for methods, pattern, top_handler in _TOP_ROUTES:
            if self.command in methods and (m := re.fullmatch(pattern, path)):
                return top_handler(self, m, ctx)
        m = re.fullmatch(r"/(api/)?(?:datasets|spaces)/([^/]+/[^/.]+)(\.git)?(?:/(.*))?", path)
        if not m:
            return self._reply("repo_not_found", ctx)
        repo_id, rest = m.group(2), m.group(4) or ""
        repo = self.state.repos.get(repo_id)
        ctx |= {"repo_id": repo_id, "org": repo_id.split("/")[0]}
        if repo is None:
            return self._reply("repo_not_found", ctx)
        ctx["repo_object_id"] = repo.object_id
        tokens = self.state.private_tokens
        if (
            repo.private
            and tokens is not None
            and self.headers.get("Authorization", "") not in {f"Bearer {t}" for t in tokens}
        ):
            return self._reply("repo_not_found", ctx)
        for verbs, git_only, pattern, repo_handler in _REPO_ROUTES:
            allowed = (verbs is None or self.command in verbs) and (m.group(3) or not git_only)
            if allowed and (mm := re.fullmatch(pattern, rest)):
                return repo_handler(self, repo, mm, ctx)
        return self._reply("entry_not_found", ctx)

    do_GET = do_POST = do_PUT = do_HEAD = _route

    # -- routes outside a repository ------------------------------------------------------------

    def _validate_yaml(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        self._json("validate_yaml")
        self._reply("validate_yaml", ctx)

    def _create_repo(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._json("create_repo")
        assert data["type"] in ("dataset", "space")
        repo_id = f"{data['organization']}/{data['name']}"
        ctx |= {"repo_id": repo_id}
        with self.state.lock:
            if repo_id in self.state.repos:
                return self._reply("create_repo_conflict", ctx)
            repo = Repo(
                repo_id,
                hashlib.sha1(repo_id.encode()).hexdigest()[:24],
                private=data.get("visibility") == "private" or data.get("private") is True,
            )
            init = Commit(
                hashlib.sha1(f"init {repo_id}".encode()).hexdigest(),
                {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"},
                set(),
            )
            repo.commits[init.oid] = init
            repo.branches["main"] = init.oid
            self.state.repos[repo_id] = repo
        return self._reply("create_repo", ctx | {"repo_object_id": repo.object_id})

    def _lfs_upload(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._body()
        assert hashlib.sha256(data).hexdigest() == m.group(1), "uploaded bytes do not match the oid"
        with self.state.lock:
            self.state.blobs[m.group(1)] = data
        self._reply("lfs_upload", ctx)

    def _cdn_lfs(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self.state.blobs[m.group(1)]
        self._reply("cdn_lfs", ctx | {"sha256": m.group(1)}, body=data)

    def _space_variable(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._json("add_space_variable")
        with self.state.lock:
            space = self.state.repos[m.group(1)]
            space.variables[data["key"]] = {"value": data["value"], "description": data.get("description")}
            self._reply("add_space_variable", ctx | {"variables": dict(space.variables)})

    # -- Sign in with Hugging Face (OpenID Connect, authorization code) ---------------------------

    def _oauth_config(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        self._reply("oauth_openid_configuration", ctx)

    def _oauth_authorize(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        for key in RECORDING["oauth_authorize"]["request"]["query_keys"]:
            assert key in query, ("oauth_authorize", key, query)
        assert query["response_type"] == "code"
        code = secrets.token_urlsafe(16)
        with self.state.lock:
            self.state.oauth_codes[code] = query
        sep = "&" if "?" in query["redirect_uri"] else "?"
        location = query["redirect_uri"] + sep + urlencode({"code": code, "state": query["state"]})
        self._reply("oauth_authorize", ctx | {"location": location})

    def _oauth_token(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        from joserfc import jwt

        form = {k: v[0] for k, v in parse_qs(self._body().decode()).items()}
        for key in RECORDING["oauth_token"]["request"]["form_keys"]:
            assert key in form, ("oauth_token", key, form)
        client_id = form.get("client_id")
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            client_id = base64.b64decode(auth[6:]).decode().partition(":")[0]
        with self.state.lock:
            asked = self.state.oauth_codes.pop(form["code"], None)
        if asked is None or asked["client_id"] != client_id or asked["redirect_uri"] != form["redirect_uri"]:
            return self._reply("oauth_token_invalid", ctx)
        now = int(time.time())
        user = self.state.oauth_user
        claims = fill(RECORDING["oauth_id_token_claims"], ctx | {
            "sub": hashlib.sha1(user.encode()).hexdigest()[:24], "client_id": client_id,
            "nonce": asked.get("nonce", ""), "fullname": user.title(), "username": user, "iat": now, "exp": now + 28800,
        })  # fmt: skip
        key = self.state.signing_key()
        id_token = jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key)
        self._reply("oauth_token", ctx | {"access_token": "hf_oauth_" + secrets.token_hex(8), "id_token": id_token,
                                          "scope": asked["scope"]})  # fmt: skip

    def _oauth_jwks(self, m: re.Match[str], ctx: dict[str, Any]) -> None:
        self._reply("oauth_jwks", ctx | {"keys": [self.state.signing_key().as_dict(private=False)]})

    # -- routes inside a repository -------------------------------------------------------------

    def _lfs_batch(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        assert self.headers["Accept"] == RECORDING["lfs_batch"]["request"]["headers"]["Accept"]
        data = self._json("lfs_batch")
        assert data["operation"] == "upload" and "basic" in data["transfers"]
        objs = []
        for o in data["objects"]:
            tmpl = "lfs_batch_object_present" if o["oid"] in self.state.blobs else "lfs_batch_object_upload"
            objs.append(fill(RECORDING[tmpl], ctx | {"oid": o["oid"], "size": o["size"]}))
        self._reply("lfs_batch", ctx | {"objects": objs})

    def _lfs_verify(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._json("lfs_verify")
        assert data["oid"] in self.state.blobs and len(self.state.blobs[data["oid"]]) == data["size"]
        self._reply("lfs_verify", ctx)

    def _preupload(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._json("preupload")
        head = repo.resolve(m.group(1))
        assert head is not None
        modes = []  # the preupload answer's entries
        for f in data["files"]:
            sample = base64.b64decode(f["sample"])
            binary = b"\0" in sample or f["path"].endswith(".parquet") or f["size"] > 10 * 1024 * 1024
            old = head.files.get(f["path"])
            oid = None
            if old is not None:
                oid = hashlib.sha256(old).hexdigest() if f["path"] in head.lfs else git_blob_oid(old)
            modes.append(
                fill(
                    RECORDING["preupload_file"],
                    {"path": f["path"], "upload_mode": "lfs" if binary else "regular", "oid": oid},
                )
            )
        self._reply("preupload", ctx | {"files": modes, "head": head.oid})

    def _commit(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        assert self.headers["Content-Type"] == "application/x-ndjson"
        lines = [json.loads(ln) for ln in self._body().splitlines() if ln.strip()]
        assert lines[0]["key"] == "header" and lines[0]["value"]["summary"]
        branch = m.group(1)
        with self.state.lock:
            parent = repo.resolve(branch)
            assert parent is not None
            files, lfs = dict(parent.files), set(parent.lfs)
            for ln in lines[1:]:
                self._apply(ln, files, lfs)
            digest = hashlib.sha1(parent.oid.encode())
            for p in sorted(files):
                digest.update(p.encode() + b"\0" + hashlib.sha256(files[p]).digest())
            new = Commit(digest.hexdigest(), files, lfs)
            repo.commits[new.oid] = new
            repo.branches[branch] = new.oid
        self._reply("commit", ctx | {"commit": new.oid})

    def _apply(self, ln: dict[str, Any], files: dict[str, bytes], lfs: set[str]) -> None:
        """One commit line onto the new tree (``files`` and ``lfs`` change in place)."""
        v = ln["value"]
        if ln["key"] == "file":
            assert v["encoding"] == "base64"
            files[v["path"]] = base64.b64decode(v["content"])
            lfs.discard(v["path"])
        elif ln["key"] == "lfsFile":
            assert v["algo"] == "sha256" and v["oid"] in self.state.blobs, (
                "commit references a blob never uploaded"
            )
            files[v["path"]] = self.state.blobs[v["oid"]]
            lfs.add(v["path"])
        elif ln["key"] in ("deletedFile", "deletedFolder"):
            gone = [p for p in files if p == v["path"] or p.startswith(v["path"].rstrip("/") + "/")]
            for p in gone:
                del files[p]
        else:
            raise AssertionError(f"unknown commit line {ln['key']}")

    def _tag(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        data = self._json("tag")
        target = repo.resolve(m.group(1))
        if target is None:
            return self._reply("revision_not_found", ctx | {"revision": m.group(1)})
        with self.state.lock:
            if data["tag"] in repo.tags:
                return self._reply("tag_conflict", ctx | {"tag": data["tag"]})
            repo.tags[data["tag"]] = target.oid
        return self._reply("tag", ctx)

    def _revision_or_tree(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        rev = m.group(2) or "main"  # GET /api/datasets/{repo_id}: the repository's info at main
        commit = repo.resolve(rev)
        if commit is None:
            return self._reply("revision_not_found", ctx | {"revision": rev})
        ctx["commit"] = commit.oid
        if m.group(1) in ("revision", ""):
            siblings = [{"rfilename": p} for p in sorted(commit.files)]
            return self._reply(
                "repo_info",
                ctx
                | {
                    "siblings": siblings,
                    "used_storage": sum(map(len, commit.files.values())),
                    "private": repo.private,
                },
            )
        return self._reply("tree", ctx | {"entries": _tree_entries(commit)})

    def _resolve(self, repo: Repo, m: re.Match[str], ctx: dict[str, Any]) -> None:
        commit = repo.resolve(m.group(1))
        if commit is None:
            return self._reply("revision_not_found", ctx | {"revision": m.group(1)})
        p = m.group(2)
        if p not in commit.files:
            return self._reply("entry_not_found", ctx)
        data = commit.files[p]
        ctx |= {"commit": commit.oid, "size": len(data)}
        if p in commit.lfs:
            sha = hashlib.sha256(data).hexdigest()
            return self._reply(
                "resolve_lfs", ctx | {"sha256": sha, "blob_oid": git_blob_oid(lfs_pointer(sha, len(data)))}
            )
        return self._reply("resolve_regular", ctx | {"blob_oid": git_blob_oid(data)}, body=data)


def _tree_entries(commit: Commit) -> list[Any]:
    """The recorded tree listing of a commit: every folder once, then each file (LFS as its pointer)."""
    entries: list[Any] = []
    dirs: set[str] = set()
    for p in sorted(commit.files):
        parts = p.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in dirs:
                dirs.add(d)
                entries.append(
                    fill(
                        RECORDING["tree_directory"],
                        {"path": d, "tree_oid": hashlib.sha1(d.encode()).hexdigest()},
                    )
                )
        data = commit.files[p]
        if p in commit.lfs:
            sha = hashlib.sha256(data).hexdigest()
            ptr = lfs_pointer(sha, len(data))
            entries.append(
                fill(
                    RECORDING["tree_lfs_file"],
                    {
                        "path": p,
                        "size": len(data),
                        "sha256": sha,
                        "blob_oid": git_blob_oid(ptr),
                        "pointer_size": len(ptr),
                    },
                )
            )
        else:
            entries.append(
                fill(RECORDING["tree_file"], {"path": p, "size": len(data), "blob_oid": git_blob_oid(data)})
            )
    return entries


_TopHandler = Callable[[_Hub, re.Match[str], dict[str, Any]], None]
_RepoHandler = Callable[[_Hub, Repo, re.Match[str], dict[str, Any]], None]

#: (methods, path) -> handler, tried in order before the repository routes.
_TOP_ROUTES: tuple[tuple[tuple[str, ...], str, _TopHandler], ...] = (
    (("POST",), r"/api/validate-yaml", _Hub._validate_yaml),
    (("POST",), r"/api/repos/create", _Hub._create_repo),
    (("PUT",), r"/lfs-upload/([0-9a-f]{64})", _Hub._lfs_upload),
    (("GET", "HEAD"), r"/cdn-lfs/([0-9a-f]{64})", _Hub._cdn_lfs),
    (("POST",), r"/api/spaces/([^/]+/[^/]+)/variables", _Hub._space_variable),
    (("GET",), r"/\.well-known/openid-configuration", _Hub._oauth_config),
    (("GET",), r"/oauth/authorize", _Hub._oauth_authorize),
    (("POST",), r"/oauth/token", _Hub._oauth_token),
    (("GET",), r"/oauth/jwks", _Hub._oauth_jwks),
)
#: (methods or any, only under `<repo>.git/`, path inside the repository) -> handler, in order.
_REPO_ROUTES: tuple[tuple[tuple[str, ...] | None, bool, str, _RepoHandler], ...] = (
    (None, True, r"info/lfs/objects/batch", _Hub._lfs_batch),
    (None, True, r"info/lfs/objects/verify", _Hub._lfs_verify),
    (("POST",), False, r"preupload/(.+)", _Hub._preupload),
    (("POST",), False, r"commit/(.+)", _Hub._commit),
    (("POST",), False, r"tag/(.+)", _Hub._tag),
    (("GET",), False, r"(revision|tree)/([^/]+)(/.*)?", _Hub._revision_or_tree),
    (("GET",), False, r"()()", _Hub._revision_or_tree),  # the repository's info (at main)
    (("GET", "HEAD"), False, r"resolve/([^/]+)/(.+)", _Hub._resolve),
)


def _handler(state: HubState) -> type[BaseHTTPRequestHandler]:
    return type("H", (_Hub,), {"state": state})


class HubReplay:
    """Start/stop the replay server on 127.0.0.1; ``endpoint`` is its base URL."""

    def __init__(self) -> None:
        self.state = HubState()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.cdn = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.state.cdn = f"http://127.0.0.1:{self.cdn.server_address[1]}"
        self.threads = [
            threading.Thread(target=s.serve_forever, daemon=True) for s in (self.server, self.cdn)
        ]

    def __enter__(self) -> HubReplay:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for s in (self.server, self.cdn):
            s.shutdown()
            s.server_close()
        for t in self.threads:
            t.join()


#: the HF_TOKEN a replayed session runs with (tests assert that it never reaches an uploaded file)
REPLAY_TOKEN = "hf_replay_token_value"


@contextlib.contextmanager
def replay_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubReplay]:
    """A running :class:`HubReplay` with huggingface_hub pointed at it: the replay's endpoint (the constants
    and ``HF_ENDPOINT``), Xet off (its CAS protocol is not replayable here), :data:`REPLAY_TOKEN` as
    ``HF_TOKEN`` and a fresh ``HF_HOME`` under ``tmp_path``. The one set-up of every ``hub`` fixture."""
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setenv("HF_TOKEN", REPLAY_TOKEN)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    with HubReplay() as h:
        monkeypatch.setattr(
            hc, "ENDPOINT", h.endpoint
        )  # what HF_ENDPOINT sets when huggingface_hub is imported
        monkeypatch.setattr(
            hc, "HUGGINGFACE_CO_URL_TEMPLATE", h.endpoint + "/{repo_id}/resolve/{revision}/{filename}"
        )
        monkeypatch.setenv("HF_ENDPOINT", h.endpoint)
        yield h
