"""Crash-safe file writes shared by every stage, with the modes any tool gives: those the umask allows.

:mod:`tempfile` makes its files 0600 and its folders 0700 whatever the umask (they are meant to be
private); a file or folder made that way and then renamed into place would stay private, so that a
Space or a container whose app runs under another user could not read a build or a result.
:func:`atomic_write_bytes` and :func:`make_temp_folder` give theirs the modes of ``open`` and
``mkdir`` instead: 0666 and 0777 less the umask.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "current_umask",
    "make_temp_folder",
    "remove_created",
    "would_create",
]


def current_umask() -> int:
    """This process's umask (read from /proc where it can be, so that no other thread sees it change)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_temp_folder(parent: str | Path, prefix: str) -> Path:
    """A new folder in ``parent`` with a unique name (``prefix`` + random), whose mode is ``mkdir``'s
    (0777 less the umask), not :func:`tempfile.mkdtemp`'s 0700: it is renamed into place when complete."""
    folder = Path(tempfile.mkdtemp(dir=parent, prefix=prefix))
    folder.chmod(0o777 & ~current_umask())
    return folder


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to a temp file beside `path`, fsync it, then rename it over `path`.

    Readers see the old file or the new one, never half of one; a crash leaves no temp file behind
    except when the process dies between creating and renaming it (then a dot-file remains). The file's
    mode is ``open``'s: 0666 less the umask.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def would_create(path: Path) -> tuple[Path, ...]:
    """What creating the file ``path`` would add: the file first, then its missing folders, innermost
    first; empty when the file exists (a failed command removes only what it created)."""
    if path.exists():
        return ()
    return (path, *(d for d in (path.parent, *path.parent.parents) if not d.exists()))


def remove_created(created: tuple[Path, ...], *siblings: str) -> None:
    """Remove what :func:`would_create` listed (and the file's ``siblings``: suffixes such as
    ``-wal``), folders only while empty."""
    if not created:
        return
    path = created[0]
    for f in (path, *(path.with_name(path.name + s) for s in siblings)):
        f.unlink(missing_ok=True)
    for folder in created[1:]:
        if any(folder.iterdir()):
            break
        folder.rmdir()
