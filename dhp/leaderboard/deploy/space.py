"""`dhp space init DIR` and `dhp space push --repo ORG/NAME`: a deployable Hugging Face Space.

:func:`init_space` writes a complete Space folder: ``README.md`` with the Space front matter
(``sdk: gradio``, ``sdk_version``, ``python_version``, ``app_file``, ``hf_oauth``), a thin
``app.py``, ``requirements.txt`` and a table of the variables and secrets to set. It is built for
the way Spaces build a Gradio Space: ``requirements.txt`` is mounted *alone* at
``/tmp/requirements.txt`` and installed (with ``gradio[oauth]==<sdk_version>``, ``uvicorn`` and
``spaces``) before the repository is copied in, so it can name no other file: no ``-c`` constraints
file, no wheel path. Hence every package the Space needs is pinned in it (the run-time closure of
dhp-bench and gradio[oauth], at the versions of requirements/lock.txt), and a dhp-bench that is not
a release travels *unpacked* in the folder (``dhp/`` and its ``.dist-info``, as pip would install
the wheel), importable because Spaces run ``python app.py`` from the repository's root.
:func:`push_space` creates or updates the Space through :class:`huggingface_hub.HfApi`, uploads
the folder and sets its variables; it never uploads a secret (secret-named variables are refused,
and a file holding the value of a secret from this environment stops the push).

The queue worker runs either inside the Space, as a background process started by ``app.py``
when ``DHP_RUN_WORKER=1`` (judges are remote endpoints, so a CPU Space suffices), or anywhere else
with ``dhp worker``, as the operator chooses.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.metadata as md
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from dhp.leaderboard.submissions.validation import Mode
from dhp.secrets import JUDGE_KEY_VARS

__all__ = [
    "LOCK",
    "PYTHON_VERSION",
    "SECRETS",
    "SPACE_ROOTS",
    "VARIABLES",
    "SpaceError",
    "build_wheel",
    "checkout_build_lock",
    "die_with_parent",
    "init_space",
    "lock_versions",
    "missing_build_requirements",
    "push_space",
    "run_space",
    "run_worker_commands",
    "runtime_closure",
    "source_root",
    "space_versions",
    "start_worker",
    "unpack_wheel",
    "worker_commands",
]

#: Variables of the Space: name -> (default, what it is). Set with `dhp space push --var NAME=VALUE`.
VARIABLES: Mapping[str, tuple[str, str]] = {
    "DHP_MODE": (
        "space",
        "`space`: https-only public endpoints, Hugging Face sign-in for submissions and votes",
    ),
    "DHP_RESULTS": (
        "hf://datasets/ORG/dhp-results",
        "results store (a dataset repository; may be public: results name an endpoint's host only when "
        "its submitter published it)",
    ),
    "DHP_REQUESTS": (
        "hf://datasets/ORG/dhp-requests",
        "evaluation queue (a dataset repository that MUST be private: it holds endpoint URLs and contact "
        "e-mails; the app refuses to start in Space mode when it is public)",
    ),
    "DHP_VOTES": ("hf://datasets/ORG/dhp-votes", "survey ballots (a dataset repository; private is advised)"),
    "DHP_ALLOW_LOCAL_STORES": (
        "0",
        "`1`: let Space mode keep a store in a local folder (lost when the Space restarts); by default "
        "stores not named are the owner's `hf://datasets/OWNER/dhp-results|requests|votes`",
    ),
    "DHP_SURVEY_MIN_BALLOTS": ("5", "ballots before the survey's weights can be chosen"),
    "DHP_ALLOWED_PORTS": ("443", "endpoint ports accepted from submitters (comma-separated)"),
    "DHP_RUN_WORKER": ("0", "`1`: run the queue worker inside the Space, in the background"),
    "DHP_WORKER_DATA": (
        "data",
        "worker only: folder of the datasets; when it is missing the worker first downloads them "
        "(`dhp download`) at `DHP_DATASETS_VERSION` from `DHP_DATASETS_ORG`",
    ),
    "DHP_DATASETS_VERSION": (
        "v1.0.0",
        "worker only: the pinned dataset version (tag or commit) it scores on",
    ),
    "DHP_DATASETS_ORG": ("dhp", "worker only: the Hub organisation holding the datasets"),
    "DHP_PRIVATE_REPO": (
        "",
        "worker only: a PRIVATE dataset repository `ORG/NAME[@REVISION]` holding the private split (`dhp build "
        "--split private`'s folder); each submission is then scored on it too (aggregates only), which doubles "
        "its requests; downloaded with the `HF_TOKEN` secret; a public repository is refused",
    ),
    "DHP_WORKER_PRIVATE_DATA": ("private", "worker only: folder the private split is downloaded into"),
    "DHP_SKIP_PRIVATE": ("0", "worker only: `1`: score the public split only, even with `DHP_PRIVATE_REPO`"),
    # the defaults of these two are the code's (page.service.AppConfig.refresh_s, worker.POLL_S)
    "DHP_REFRESH_S": ("15", "seconds between an open page's looks for new results"),
    "DHP_WORKER_POLL_S": ("30", "worker only: seconds between its looks at an empty queue"),
}
#: Secrets of the Space (set them in the Space's settings, never in files or variables).
SECRETS: Mapping[str, str] = {
    "HF_TOKEN": "write token for the three dataset repositories (results, requests, votes); the worker also "
    "scores judges submitted by Hub model id with it (Inference Providers), and never sends it to an endpoint",
    JUDGE_KEY_VARS[0]: "worker only: the API key sent to submitted judge endpoints",
}
#: The Python a Space runs (Spaces default to 3.10; the pinned versions need 3.11 or later).
PYTHON_VERSION = "3.11"
#: The repository's pip-constraints lock: the versions the Space's requirements.txt pins.
LOCK = "requirements/lock.txt"
#: What the Space runs on, beside dhp-bench: Spaces install ``gradio[oauth]`` at the front matter's
#: ``sdk_version`` whatever requirements.txt says, so its closure is pinned too.
SPACE_ROOTS: tuple[tuple[str, tuple[str, ...]], ...] = (("dhp-bench", ("board",)), ("gradio", ("oauth",)))
_SECRET_NAME = re.compile(r"(?i)(token|secret|password|api[_-]?key|^hf_)")
_APP = '''"""The DHP leaderboard Space (written by `dhp space init`; configure it with the Space's variables)."""

from dhp.leaderboard.deploy.space import run_space

run_space()
'''


class SpaceError(Exception):
    """A Space folder cannot be written or pushed; the message says why (one line)."""


@dataclass(frozen=True)
class SpaceFolder:
    path: Path
    files: tuple[str, ...]


def _front_matter(title: str, gradio: str) -> str:
    return "\n".join([
        "---", f"title: {title}", "emoji: 🔎", "colorFrom: blue", "colorTo: green", "sdk: gradio",
        f"sdk_version: {gradio}", f'python_version: "{PYTHON_VERSION}"', "app_file: app.py",
        "hf_oauth: true", "pinned: false", "---", "",
    ])  # fmt: skip


def _readme(title: str, gradio: str) -> str:
    var_rows = "\n".join(f"| `{k}` | `{v}` | {why} |" for k, (v, why) in VARIABLES.items())
    secret_rows = "\n".join(f"| `{k}` | {why} |" for k, why in SECRETS.items())
    return (
        _front_matter(title, gradio)
        + f"# {title}\n\nThe DHP discernment leaderboard (`dhp.leaderboard`). Configure it with these **variables** "
        "(`dhp space push --var NAME=VALUE` sets them):\n\n| variable | default | what |\n|---|---|---|\n"
        + var_rows
        + "\n\nand these **secrets**, in the Space's settings only (never in a file or a variable):\n\n"
        "| secret | what |\n|---|---|\n" + secret_rows + "\n\n## The queue worker\n\nSubmissions wait in "
        "`DHP_REQUESTS` until a worker scores them. Either set `DHP_RUN_WORKER=1` (the Space starts "
        "`dhp worker` in the background; judges are remote endpoints, so a CPU Space suffices; put the "
        "built datasets in `DHP_WORKER_DATA`), or run `dhp worker --requests ... --results ... --data ...` "
        "on a machine of your choice.\n\nWith `DHP_PRIVATE_REPO` (a private dataset repository holding the "
        "private split), the worker scores each submission on the private split too and stores aggregates only; "
        "it doubles a submission's requests (`DHP_SKIP_PRIVATE=1` skips it).\n\n## Files\n\n`requirements.txt` pins every package (Spaces install it "
        "alone, before the folder is copied in, so it names no other file); when `dhp/` and its `.dist-info` are "
        "here, they are the dhp-bench package itself, unpacked as pip installs a wheel, found because Spaces run "
        "`python app.py` from this folder.\n"
    )


def runtime_closure(roots: Sequence[tuple[str, tuple[str, ...]]] = SPACE_ROOTS) -> list[str]:
    """The canonical names of every distribution the ``roots`` (name, extras) need at run time, as
    installed here (their metadata's requirements, markers evaluated for this Python), sorted."""
    seen: dict[str, set[str]] = {}
    todo = [(name, set(extras)) for name, extras in roots]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in seen and extras <= seen[key]:
            continue
        seen[key] = seen.get(key, set()) | extras
        try:
            requires = md.distribution(key).requires or []
        except md.PackageNotFoundError:
            from dhp.extras import install_command

            raise SpaceError(
                f"{key} is needed by the Space but not installed here: {install_command('board')}"
            ) from None
        for line in requires:
            req = Requirement(line)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (seen[key] or {""})):
                todo.append((req.name, set(req.extras)))
    return sorted(seen)


def lock_versions(lock: Path) -> dict[str, str]:
    """``name==version`` lines of a pip constraints file, by canonical name."""
    pins: dict[str, str] = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#")[0].strip().partition("==")
        if sep:
            pins[canonicalize_name(name)] = version.strip()
    return pins


def space_versions(lock: Path | None) -> dict[str, str]:
    """The version of every distribution of :func:`runtime_closure` but dhp-bench: the ``lock``'s
    (a checkout: one missing there is an error), else the one installed here."""
    locked = lock_versions(lock) if lock is not None else {}
    versions: dict[str, str] = {}
    for name in runtime_closure():
        if name == "dhp-bench":
            continue
        if lock is not None and name not in locked:
            raise SpaceError(
                f"{name} is needed by the Space but not pinned in {LOCK}; refresh it with `make lock`"
            )
        versions[name] = locked.get(name) or md.version(name)
    return versions


def _requirements(package: str | None, versions: Mapping[str, str]) -> str:
    """requirements.txt: ``package`` (a release; None when the package travels in the folder), then
    every other distribution the Space needs, pinned to ``versions``."""
    extras = {"gradio": "[oauth]"}  # hf_oauth: the Space's sign-in
    pins = [f"{name}{extras.get(name, '')}=={v}" for name, v in versions.items()]
    header = "# every package pinned: Spaces install this file alone, before the folder is copied in"
    return "\n".join([header, *([package] if package else []), *pins]) + "\n"


def unpack_wheel(wheel: Path, dest: Path) -> list[str]:
    """Unpack a pure-Python wheel into ``dest`` as pip installs it into site-packages (its packages
    and its ``.dist-info``); returns the top-level names written."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        if any(n.split("/")[0].endswith(".data") for n in names):
            raise SpaceError(
                f"{wheel.name} has a .data folder; only a pure-Python wheel can travel in the folder"
            )
        for n in names:
            target = (dest / n).resolve()
            if not target.is_relative_to(dest.resolve()):
                raise SpaceError(f"{wheel.name}: {n} would land outside the folder")
        zf.extractall(dest)
    return sorted({n.split("/")[0] for n in names})


def source_root() -> Path | None:
    """The source checkout this package runs from (its pyproject.toml and requirements/lock.txt), or
    None when it runs from an installed release."""
    root = Path(__file__).resolve().parents[3]
    ok = (root / "pyproject.toml").is_file() and (root / LOCK).is_file() and (root / "dhp").is_dir()
    return root if ok else None


def _build_system(text: str) -> tuple[list[str], str]:
    """The ``[build-system]`` requirements of a pyproject.toml and its backend's distribution name."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the two keys, read by pattern (they are plain strings)
        table = text.split("[build-system]", 1)[-1].split("\n[", 1)[0]
        listed = re.search(r"^requires\s*=\s*\[(.*?)\]", table, re.MULTILINE | re.DOTALL)
        named = re.search(r"^build-backend\s*=\s*\"([^\"]+)\"", table, re.MULTILINE)
        system = {
            "requires": re.findall(r"\"([^\"]+)\"", listed.group(1)) if listed else [],
            "build-backend": named.group(1) if named else "setuptools.build_meta",
        }
    else:
        system = tomllib.loads(text)["build-system"]
    return list(system["requires"]), canonicalize_name(str(system["build-backend"]).split(".")[0])


def missing_build_requirements(root: Path) -> list[str]:
    """The requirements of ``root``'s build backend (``[build-system]``) that this environment does not
    satisfy, each with what is installed: e.g. ``setuptools>=69`` in a plain venv, which comes with
    setuptools 65. Only the backend's own distribution is checked (``wheel`` is vendored by newer
    setuptools, not installed as a distribution)."""
    requires, backend = _build_system((root / "pyproject.toml").read_text(encoding="utf-8"))
    missing = []
    for line in requires:
        req = Requirement(line)
        if canonicalize_name(req.name) != backend:
            continue
        try:
            have = md.version(req.name)
        except md.PackageNotFoundError:
            missing.append(f"{line} (not installed)")
            continue
        if not req.specifier.contains(have, prereleases=True):
            missing.append(f"{line} (installed: {have})")
    return missing


@contextlib.contextmanager
def checkout_build_lock(root: Path) -> Iterator[None]:
    """Held while a wheel of the checkout at ``root`` is built: setuptools builds in the checkout itself
    (``build/``, ``*.egg-info``), so two builds at once (two ``dhp space init``, or a test suite's
    parallel workers) would break each other. The lock is taken on the checkout's folder itself: no lock
    file is left anywhere."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def build_wheel(root: Path, dest: Path) -> Path:
    """A wheel of the checkout at ``root`` (``pip wheel --no-deps``), written into ``dest``: with this
    environment's build backend when it satisfies the checkout's ``[build-system]`` (no download), else
    in an isolated build environment pip fills from the package index. When that fails too, one line
    says what to install."""
    dest.mkdir(parents=True, exist_ok=True)
    missing = missing_build_requirements(root)
    isolation = [] if missing else ["--no-build-isolation"]
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(dest), str(root)]
    with checkout_build_lock(root):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = " ".join(proc.stderr.split())[-200:]
        if missing:
            wanted = " ".join(f"'{m.split(' (')[0]}'" for m in missing)
            raise SpaceError(
                f"could not build the wheel of {root}: its build backend needs {', '.join(missing)}, which pip could "
                f"not fetch for an isolated build; run `{sys.executable} -m pip install {wanted}`, or pass --wheel FILE"
            )
        raise SpaceError(f"could not build the wheel of {root}: {tail}")
    return next(dest.glob("dhp_bench-*.whl"))


def init_space(
    folder: str | os.PathLike[str],
    *,
    package: str | None = None,
    wheel: str | None = None,
    title: str | None = None,
) -> SpaceFolder:
    """Write a Space folder. The package comes from ``wheel`` (unpacked into the folder), ``package``
    (a pip requirement for a release, e.g. ``dhp-bench==0.1.0``), or by default: run from a source
    checkout (whose version need not be released), a wheel of it unpacked into the folder; run from
    an installed release, that release. Every other package is pinned in requirements.txt (a
    checkout's requirements/lock.txt gives the versions)."""
    out = Path(folder)
    if out.exists() and any(out.iterdir()):
        raise SpaceError(f"{out} exists and is not empty; choose a new folder")
    root = source_root()
    if wheel is not None and (not Path(wheel).is_file() or Path(wheel).suffix != ".whl"):
        raise SpaceError(f"--wheel {wheel} is not a wheel file")
    carried = wheel is not None or (package is None and root is not None)  # the package travels in the folder
    requirement = None if carried else (package or f"dhp-bench[board]=={md.version('dhp-bench')}")
    versions = space_versions(root / LOCK if root is not None else None)
    files = {
        "README.md": _readme(title or "DHP discernment leaderboard", versions["gradio"]),
        "app.py": _APP,
        "requirements.txt": _requirements(requirement, versions),
    }
    with tempfile.TemporaryDirectory(prefix="dhp-wheel-") as tmp:
        if wheel is None and package is None and root is not None:
            wheel = str(build_wheel(root, Path(tmp)))  # before the folder is made: a failure leaves nothing
        out.mkdir(parents=True, exist_ok=True)
        if wheel is not None:
            unpack_wheel(Path(wheel), out)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    written = sorted(str(p.relative_to(out)) for p in out.iterdir())
    return SpaceFolder(out, tuple(written))


def _check_no_secrets(folder: Path, variables: Mapping[str, str]) -> None:
    for key in variables:
        if key in SECRETS or _SECRET_NAME.search(key):
            raise SpaceError(f"{key} looks like a secret: set it in the Space's settings, not as a variable")
    values = [v for k in SECRETS if (v := os.environ.get(k)) and len(v) >= 8]
    for p in folder.rglob("*"):
        if p.is_file() and values:
            data = p.read_bytes()
            if any(v.encode() in data for v in values):
                raise SpaceError(
                    f"{p.relative_to(folder)} contains the value of a secret; remove it before pushing"
                )


def push_space(
    folder: str | os.PathLike[str], repo: str, variables: Mapping[str, str], *, private: bool = False
) -> str:
    """Create (or update) the Space ``repo`` from ``folder`` and set its variables. Returns its URL."""
    from huggingface_hub import HfApi

    src = Path(folder)
    if not (src / "README.md").is_file() or not (src / "app.py").is_file():
        raise SpaceError(f"{src} is not a Space folder (run `dhp space init {src}` first)")
    if repo.count("/") != 1:
        raise SpaceError(f"--repo must be ORG/NAME, got {repo!r}")
    _check_no_secrets(src, variables)
    api = HfApi()
    url = api.create_repo(repo, repo_type="space", space_sdk="gradio", exist_ok=True, private=private)
    api.upload_folder(
        folder_path=src, repo_id=repo, repo_type="space", commit_message="dhp space push",
        ignore_patterns=[".env", ".env.*", "*.secret", ".git/*", "__pycache__/*", "*/__pycache__/*", "*.pyc"],
    )  # fmt: skip
    for key, value in variables.items():
        api.add_space_variable(repo, key, value, description=VARIABLES.get(key, ("", ""))[1] or None)
    return str(url)


def worker_commands(env: Mapping[str, str]) -> list[list[str]]:
    """What the Space's worker runs, in order: ``dhp download`` of the pinned dataset version when
    ``DHP_WORKER_DATA`` is not there yet, then ``dhp worker`` (polling every ``DHP_WORKER_POLL_S``
    seconds where set; ``dhp worker`` says in one line when that is not a positive number)."""
    data = env.get("DHP_WORKER_DATA", "data")
    cmds: list[list[str]] = []
    if not Path(data).is_dir():
        cmds.append([sys.executable, "-m", "dhp", "download", "--out", data,
                     "--version", env.get("DHP_DATASETS_VERSION", VARIABLES["DHP_DATASETS_VERSION"][0]),
                     "--org", env.get("DHP_DATASETS_ORG", VARIABLES["DHP_DATASETS_ORG"][0])])  # fmt: skip
    poll = env.get("DHP_WORKER_POLL_S", "").strip()
    cmds.append([sys.executable, "-m", "dhp", "worker", "--mode", env.get("DHP_MODE", "space"),
                 "--requests", env["DHP_REQUESTS"], "--results", env["DHP_RESULTS"], "--data", data,
                 *(["--poll", poll] if poll else []), *_private_args(env)])  # fmt: skip
    return cmds


def _private_args(env: Mapping[str, str]) -> list[str]:
    """``dhp worker``'s private split options from ``DHP_PRIVATE_REPO``, ``DHP_WORKER_PRIVATE_DATA`` and
    ``DHP_SKIP_PRIVATE`` (none without a repository; the worker downloads it with ``HF_TOKEN``)."""
    repo = env.get("DHP_PRIVATE_REPO", "").strip()
    if not repo:
        return []
    folder = env.get("DHP_WORKER_PRIVATE_DATA", "").strip() or VARIABLES["DHP_WORKER_PRIVATE_DATA"][0]
    skip = env.get("DHP_SKIP_PRIVATE", "0").strip().lower() in ("1", "true", "yes")
    return ["--private-repo", repo, "--private-data", folder, *(["--skip-private"] if skip else [])]


def start_worker(env: Mapping[str, str]) -> subprocess.Popen[bytes] | None:
    """``DHP_RUN_WORKER=1``: the queue worker as a background process of the Space (after fetching
    the pinned datasets, :func:`worker_commands`); the stores default as the app's do.

    The process dies with the app, however the app ends (on Linux, where Spaces run: see
    :func:`die_with_parent`; the thread calling this is the parent the kernel watches, so call it from
    the main thread). It runs the download as a child that dies with it, then becomes ``dhp worker``
    (exec): the returned process is the worker itself, and killing it leaves nothing behind."""
    if env.get("DHP_RUN_WORKER", "0").strip().lower() not in ("1", "true", "yes"):
        return None
    from dhp.leaderboard.page.app import store_specs

    mode: Mode = "space" if env.get("DHP_MODE", "space") == "space" else "local"
    specs = store_specs(mode, env)
    cmds = worker_commands({**env, "DHP_REQUESTS": specs["requests"], "DHP_RESULTS": specs["results"]})
    script = "import sys\nfrom dhp.leaderboard.deploy.space import run_worker_commands\nrun_worker_commands(sys.argv[1:])\n"
    return subprocess.Popen([sys.executable, "-c", script, str(os.getpid()), json.dumps(cmds)])


_PR_SET_PDEATHSIG = 1  # prctl(2)


def die_with_parent(parent: int) -> None:
    """Linux: the calling process gets SIGTERM when its parent ends, however it ends (kill -9 included);
    the setting survives exec. Exits at once when ``parent`` (the expected parent's pid) has already
    ended. Elsewhere it does nothing: a Space runs on Linux."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os._exit(1)  # the parent ended before the line above: no signal will come


def run_worker_commands(argv: Sequence[str]) -> None:
    """The worker process of :func:`start_worker` (``argv``: the app's pid, the commands as JSON): it dies
    with the app, runs every command but the last as a child that dies with it, then execs the last."""
    parent, cmds_json = argv
    die_with_parent(int(parent))
    *first, last = json.loads(cmds_json)
    for cmd in first:
        subprocess.run(cmd, check=True, preexec_fn=functools.partial(die_with_parent, os.getpid()))
    os.execv(last[0], last)


def run_space() -> None:
    """What a Space's ``app.py`` runs: the optional background worker, then the app.

    ``kill -USR1`` on the app's process writes every thread's stack to its log (a stuck app can be
    looked into without stopping it)."""
    from dhp.leaderboard.page.app import dump_threads_on_usr1, main

    dump_threads_on_usr1()
    start_worker(os.environ)
    main()
