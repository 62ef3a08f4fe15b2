"""The rank ranges' joint-bootstrap replicates, computed in the background, once per file version.

The board's rows need only the results' summaries (:mod:`dhp.leaderboard.board.loading`); its rank ranges
need every shown result's replicate p-values (:func:`dhp.leaderboard.board.ranks.replicate_pvalues`),
which need the item scores and, for a file whose tests are exact, seconds of CPU. So rows never wait
for them: :meth:`RankJob.get` answers at once with the replicates of every result asked for, or
``None`` while some are still being computed by the job's one thread (the page shows the rows,
ranked by their point estimates, with an indicator; the rank ranges are filled in when the job is
done). Replicates are kept per (path, version): a new listing computes only the files that changed.
They are computed in a child process (``python -m dhp.leaderboard.board.rankjob``, fed files through a
pipe): seconds of numpy in a thread would hold the GIL the page's requests need (measured: the app's
start-up and every request slowed while the job ran). Not :mod:`multiprocessing`: its children import
the parent's main module again (a Space's ``app.py``, ``python -m dhp``), which would start a second app.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dhp.leaderboard.board.loading import LoadedResult
from dhp.leaderboard.board.ranks import ReplicatePvalues, replicate_pvalues
from dhp.scoring.result_files import parse_result

log = logging.getLogger(__name__)

__all__ = ["ChildDied", "ChildError", "RankJob", "ask", "end_child", "serve_jobs", "spawn_child"]

_Key = tuple[str, str]  # (path, version)


def spawn_child(module: str, nice: int = 0) -> subprocess.Popen[bytes]:
    """``python -m module`` as a child with pipes on stdin and stdout, importing this dhp package, in
    a session of its own (a terminal's Ctrl-C is the app's to handle: closing its stdin ends the
    child), ``nice`` below the server's CPU priority."""
    root = str(Path(__file__).resolve().parents[3])  # where this dhp package is imported from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    return subprocess.Popen(
        [sys.executable, "-m", module],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        start_new_session=True,
        preexec_fn=(lambda: os.nice(nice)) if nice and hasattr(os, "nice") else None,
    )


def end_child(proc: subprocess.Popen[bytes], within_s: float = 10) -> None:
    """End a child of :func:`spawn_child`: EOF on its stdin ends its loop; killed if it has not ended
    ``within_s`` seconds later."""
    assert proc.stdin is not None
    with contextlib.suppress(OSError):  # it has ended already (a broken pipe)
        proc.stdin.close()
    try:
        proc.wait(timeout=within_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def ask(proc: subprocess.Popen[bytes], job: Any) -> Any:
    """One exchange with a child of :func:`spawn_child` that runs :func:`serve_jobs`: ``job`` pickled to
    its stdin, its answer read from its stdout. Returns the answer; raises :class:`ChildError` (the
    child's one line) when the job failed in the child, :class:`ChildDied` when the child is gone (killed,
    out of memory, ended: the pipe closed or cut short)."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        pickle.dump(job, proc.stdin)
        proc.stdin.flush()
        status, value = pickle.load(proc.stdout)
    except (EOFError, OSError, pickle.UnpicklingError) as e:  # BrokenPipeError is an OSError
        raise ChildDied(
            f"the child process {_module(proc)} is gone: {_ended(proc)} ({type(e).__name__})"
        ) from e
    if status == "error":
        raise ChildError(value)
    return value


def _module(proc: subprocess.Popen[bytes]) -> str:
    args = proc.args if isinstance(proc.args, list) else [proc.args]
    return str(args[-1])  # spawn_child: [python, "-m", module]


def _ended(proc: subprocess.Popen[bytes]) -> str:
    """How a child whose pipe closed ended: its exit status or the signal that killed it."""
    try:
        code = proc.wait(timeout=2)  # its pipe closed as it ended: reaped at once
    except subprocess.TimeoutExpired:
        return "still running, its pipe closed"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit status {code}"


def serve_jobs(answer: Callable[[Any], Any], errors: tuple[type[Exception], ...]) -> None:
    """The child's side of :func:`ask`: each job read from stdin answered on stdout, ``("ok", answer(job))``
    or ``("error", "Type: why")`` when ``answer`` raised one of ``errors`` (anything else ends the child: its
    parent's :func:`ask` says so), until EOF; a closed pipe (the app is gone) ends it quietly."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the pipe
    try:
        while True:
            try:
                job = pickle.load(sys.stdin.buffer)
            except EOFError:
                return
            try:
                reply: tuple[str, Any] = ("ok", answer(job))
            except errors as e:
                reply = ("error", f"{type(e).__name__}: {e}")
            pickle.dump(reply, out)
            out.flush()
    except (BrokenPipeError, KeyboardInterrupt):  # the app ended while a job was being answered
        os._exit(0)


class ChildDied(RuntimeError):
    """A child process of :func:`spawn_child` is gone (killed, out of memory): a new one is needed."""


class ChildError(ValueError):
    """A job a child process could not answer: its one line (a file changed since its listing and is
    invalid now, a page that cannot be drawn). The child itself serves on."""


class _Child:
    """The child process that computes replicates: (path, text) in, replicates out, one file at a time."""

    def __init__(self) -> None:
        self.proc = spawn_child("dhp.leaderboard.board.rankjob")

    def replicates(self, path: str, text: str) -> ReplicatePvalues | None:
        return ask(self.proc, (path, text))  # type: ignore[no-any-return]

    def close(self) -> None:
        """End the child (:func:`end_child`) and close its answers' pipe."""
        assert self.proc.stdout is not None
        end_child(self.proc)
        self.proc.stdout.close()


def _replicates(job: tuple[str, str]) -> ReplicatePvalues | None:
    """The child's answer to one file: (path, text) -> its replicates."""
    path, text = job
    return replicate_pvalues(parse_result(text, source=path))


class RankJob:
    """Replicates of results, computed from their files (``read``: path -> the file's bytes) by one
    background thread that hands each file to a child process. Thread-safe."""

    def __init__(self, read: Callable[[str], bytes]) -> None:
        self._read = read
        self._child: _Child | None = None
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._done: dict[_Key, ReplicatePvalues | None] = {}
        self._failed: dict[_Key, str] = {}
        self._want: tuple[_Key, ...] = ()  # what the newest caller asked for, in order
        self._thread: threading.Thread | None = None

    def get(self, results: Sequence[LoadedResult], wait: bool = False) -> list[LoadedResult] | None:
        """``results`` with their replicates, or ``None`` while some are being computed (the job is
        started for them; ``wait``: block until it is done). A file that cannot be read again (gone,
        changed or invalid since its listing) has no replicates: its judge is ranked by its point value."""
        keys = tuple((r.path, r.version) for r in results)
        with self._lock:
            if any(k not in self._done and k not in self._failed for k in keys):
                if keys != self._want:  # a new listing: forget the versions it no longer holds
                    now = set(keys)
                    self._done = {k: v for k, v in self._done.items() if k in now}
                    self._failed = {k: v for k, v in self._failed.items() if k in now}
                self._want = keys
                self._start()
                if not wait:
                    return None
                self._wake.wait_for(lambda: all(k in self._done or k in self._failed for k in keys))
            return [replace(r, replicates=self._done.get(k)) for r, k in zip(results, keys, strict=True)]

    def progress(self) -> tuple[int, int]:
        """(results computed, results asked for) of the newest request."""
        with self._lock:
            return sum(1 for k in self._want if k in self._done or k in self._failed), len(self._want)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="dhp-rank-replicates", daemon=True)
            self._thread.start()

    def _next(self) -> _Key | None:
        with self._lock:
            key = next((k for k in self._want if k not in self._done and k not in self._failed), None)
            if key is None:  # idle: the child ends with the thread, the next need starts both anew
                if self._child is not None:  # (it has answered all it was sent: EOF ends it at once)
                    self._child.close()  # no process waits between listings, or outlives its app
                    self._child = None
                self._thread = None
            return key

    def _compute(self, path: str) -> ReplicatePvalues | None:
        if self._child is None:  # one child while there is work, started at the first need
            self._child = _Child()
        text = self._read(path).decode("utf-8")
        return self._child.replicates(path, text)

    def _fail(self, key: _Key, why: str) -> None:
        log.warning("rank replicates of %s: %s", key[0], why)
        with self._lock:
            self._failed[key] = why
            self._wake.notify_all()

    def _run(self) -> None:
        while (key := self._next()) is not None:
            try:
                reps = self._compute(key[0])
            except ChildDied as e:  # killed, out of memory: a new one next time
                self._child = None
                self._fail(key, str(e))
                continue
            except (OSError, ValueError) as e:  # ResultError, ChildError: its judge is ranked by points
                self._fail(key, str(e))
                continue
            with self._lock:
                self._done[key] = reps
                self._wake.notify_all()


if __name__ == "__main__":
    serve_jobs(_replicates, (ValueError,))  # ResultError: the file changed since its listing, invalid now
