"""What every ``dhp`` command module shares: the parser, argument types, the help formatter, help texts.

Every option is checked when the command line is parsed, by one rule per kind of value: counts
(:func:`positive_int`, :func:`nonneg_int`), seeds (:func:`seed`), seconds (:func:`seconds`), other
numbers (:func:`fraction`, :func:`nonneg_float`, :func:`positive_float`, :func:`port`) and paths
(:func:`in_file`, :func:`in_folder`, :func:`out_folder`, :func:`out_file`). A bad value is refused
before anything starts, in one line (``dhp CMD: error: argument --X: must be ..., got V``), exit 2
(:class:`OneLineParser`).
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import NoReturn

__all__ = [
    "DATASETS_HELP",
    "SEED_MAX",
    "DefaultsFormatter",
    "OneLineParser",
    "fraction",
    "in_file",
    "in_folder",
    "nonneg_float",
    "nonneg_int",
    "out_file",
    "out_folder",
    "port",
    "positive_float",
    "positive_int",
    "seconds",
    "seed",
]

DATASETS_HELP = "all, or a comma-separated list of dataset names (default: %(default)s)"

#: the largest seed: numpy's generators take 0 .. 2**32 - 1
SEED_MAX = 2**32 - 1


class OneLineParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        one = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {one} (see {self.prog} --help)\n")


def _bad(text: str, what: str) -> argparse.ArgumentTypeError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return argparse.ArgumentTypeError(f"must be {what}, got {shown!r}")


def _int(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise _bad(text, what) from None


def _number(text: str, what: str) -> float:
    try:
        v = float(text.strip())
    except ValueError:
        raise _bad(text, what) from None
    if not math.isfinite(v):
        raise _bad(text, what)
    return v


# ---- counts ---------------------------------------------------------------------------------------
def positive_int(text: str) -> int:
    """A count of at least 1 (``--n-boot`` of compare, ``-n``, ``--concurrency``, ``--limit``)."""
    what = "a whole number of at least 1"
    v = _int(text, what)
    if v < 1:
        raise _bad(text, what)
    return v


def nonneg_int(text: str) -> int:
    """A count of at least 0 (``--n-boot`` of score: 0 = none, ``--max-retries``, ``--width``)."""
    what = "a whole number of at least 0"
    v = _int(text, what)
    if v < 0:
        raise _bad(text, what)
    return v


# ---- seeds ----------------------------------------------------------------------------------------
def seed(text: str) -> int:
    """A seed: a whole number from 0 to 2**32 - 1 (what numpy's generators take)."""
    what = f"a whole number from 0 to {SEED_MAX}"
    v = _int(text, what)
    if not 0 <= v <= SEED_MAX:
        raise _bad(text, what)
    return v


# ---- seconds and other numbers --------------------------------------------------------------------
def seconds(text: str) -> float:
    """A duration: a finite number of seconds above 0 (``--timeout``, ``--poll``, ``--refresh``)."""
    what = "a number of seconds above 0"
    v = _number(text, what)
    if not v > 0:
        raise _bad(text, what)
    return v


def positive_float(text: str) -> float:
    """A finite number above 0 (``--n-params``)."""
    what = "a number above 0"
    v = _number(text, what)
    if not v > 0:
        raise _bad(text, what)
    return v


def nonneg_float(text: str) -> float:
    """A finite number of at least 0 (a sampling temperature)."""
    what = "a number of at least 0"
    v = _number(text, what)
    if v < 0:
        raise _bad(text, what)
    return v


def fraction(text: str) -> float:
    """A number from 0 to 1."""
    what = "a number from 0 to 1"
    v = _number(text, what)
    if not 0.0 <= v <= 1.0:
        raise _bad(text, what)
    return v


def port(text: str) -> int:
    """A TCP port, 1 to 65535."""
    what = "a port from 1 to 65535"
    v = _int(text, what)
    if not 1 <= v <= 65535:
        raise _bad(text, what)
    return v


# ---- paths ----------------------------------------------------------------------------------------
def _path(text: str) -> Path:
    if not text or "\x00" in text:
        raise argparse.ArgumentTypeError(f"must be a path, got {text!r}")
    return Path(text).expanduser()


def in_file(text: str) -> Path:
    """A file to read: it exists, is a file, and this user may read it."""
    p = _path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    if not p.is_file():
        raise argparse.ArgumentTypeError(f"{text}: not a file")
    if not os.access(p, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text}: not readable (permission denied)")
    return p


def in_folder(text: str) -> Path:
    """A folder to read: it exists, is a folder, and this user may list it."""
    p = _path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such folder")
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a folder")
    if not os.access(p, os.R_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: not readable (permission denied)")
    return p


def _writable_from(p: Path, text: str) -> None:
    """The nearest existing ancestor of ``p`` is a folder this user may create entries in."""
    for up in p.absolute().parents:
        if up.exists():
            if not up.is_dir():
                raise argparse.ArgumentTypeError(f"{text}: {up} is a file, not a folder")
            if not os.access(up, os.W_OK | os.X_OK):
                raise argparse.ArgumentTypeError(f"{text}: cannot write in {up} (permission denied)")
            return


def out_folder(text: str) -> Path:
    """A folder to write into: an existing folder this user may write in, or one that can be created."""
    p = _path(text)
    if p.exists():
        if not p.is_dir():
            raise argparse.ArgumentTypeError(f"{text}: exists and is not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise argparse.ArgumentTypeError(f"{text}: cannot write in it (permission denied)")
        return p
    _writable_from(p, text)
    return p


def out_file(text: str) -> Path:
    """A file to write: not a folder, in a folder that exists or can be created, writable."""
    p = _path(text)
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a folder, not a file")
    if p.exists():
        if not os.access(p, os.W_OK):
            raise argparse.ArgumentTypeError(f"{text}: cannot overwrite it (permission denied)")
        return p
    _writable_from(p, text)
    return p


class DefaultsFormatter(argparse.HelpFormatter):
    """Shows every option's default in ``--help``: ``(default: X)`` unless its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.default not in (None, False, [], argparse.SUPPRESS) and action.option_strings
        if shown and "default" not in text and not isinstance(action, argparse._VersionAction):
            return f"{text} (default: %(default)s)"
        return action.help
