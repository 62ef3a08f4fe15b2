"""The processes a test run started, read from ``/proc`` (Linux).

The suite's process adopts the orphans of everything it starts (``PR_SET_CHILD_SUBREAPER``): a
grandchild whose parent ended becomes its child instead of PID 1's, so at the end of the session its
children are exactly the processes the suite started and left running (tests/conftest.py fails the
session on them).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36  # prctl(2)

#: children that end with the process that started them and are no test's: the standard library's
#: multiprocessing helpers (and those of ``multiprocess``, the fork ``datasets`` uses), which exit when
#: their parent's pipe closes
_HELPERS = ("multiprocessing.resource_tracker", "multiprocess.resource_tracker", "multiprocessing.forkserver")


@dataclass(frozen=True)
class Proc:
    pid: int
    state: str  # /proc/PID/stat's one-letter state: R, S, D, Z (ended, not yet reaped) ...
    cmdline: str

    def __str__(self) -> str:
        return f"{self.pid} [{self.state}] {self.cmdline[:200]}"


def adopt_orphans() -> bool:
    """Make this process the subreaper of its descendants; False where the platform cannot (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    return True


def read_proc(pid: int) -> Proc | None:
    """The process ``pid``, or None when there is none (not even a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the command name, in parentheses, may hold spaces
    return Proc(pid, fields[0], raw.replace(b"\0", b" ").decode("utf-8", "replace").strip())


def running(pid: int) -> bool:
    """``pid`` runs: it exists and is no zombie (a zombie has ended; only its exit status is left)."""
    p = read_proc(pid)
    return p is not None and p.state != "Z"


def children(pid: int) -> list[Proc]:
    """The processes whose parent is ``pid`` (zombies included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and (p := read_proc(int(entry.name))) is not None:
            found.append(p)
    return sorted(found, key=lambda p: p.pid)


def wait_ended(pids: list[int], timeout: float) -> list[int]:
    """Wait until every process of ``pids`` has ended or ``timeout`` seconds have passed (the kernel says
    when: a pidfd is readable once its process ends); returns those still running."""
    deadline = time.monotonic() + timeout
    left = [p for p in pids if running(p)]
    while left and (remaining := deadline - time.monotonic()) > 0:
        fds = {}
        for pid in left:
            try:
                fds[os.pidfd_open(pid)] = pid
            except ProcessLookupError:
                continue
        try:
            select.select(list(fds), [], [], remaining)
        finally:
            for fd in fds:
                os.close(fd)
        left = [p for p in left if running(p)]
    return left


def reap(pid: int) -> None:
    """Collect the exit status of this process's ended children (zombies) that no one waits for."""
    for p in children(pid):
        if p.state == "Z":
            with contextlib.suppress(ChildProcessError):  # a subprocess.Popen collected it meanwhile
                os.waitpid(p.pid, os.WNOHANG)


def survivors(grace: float) -> list[Proc]:
    """The children of this process still running after ``grace`` seconds (helpers that end with it
    aside), killed now with everything under them, so that none outlives the run; ended ones are reaped."""
    me = os.getpid()
    pids = [p.pid for p in children(me) if p.state != "Z" and not any(h in p.cmdline for h in _HELPERS)]
    left = [p for pid in wait_ended(pids, grace) if (p := read_proc(pid)) is not None]
    kill = [p.pid for p in left]
    for _ in range(5):  # a killed process's children become this process's: killed in the next round
        if not kill:
            break
        for pid in kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait_ended(kill, 10)
        reap(me)
        kill = [p.pid for p in children(me) if p.state != "Z" and not any(h in p.cmdline for h in _HELPERS)]
    return left
