"""What every ``dhp`` command module shares: argument types, the help formatter, help texts."""

from __future__ import annotations

import argparse

__all__ = ["DATASETS_HELP", "DefaultsFormatter", "positive_int"]

DATASETS_HELP = "all, or a comma-separated list of dataset names (default: %(default)s)"


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer of at least 1 (``--n-boot``, ``-n``, ``--concurrency``)."""
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return v


class DefaultsFormatter(argparse.HelpFormatter):
    """Shows every option's default in ``--help``: ``(default: X)`` unless its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.default not in (None, False, [], argparse.SUPPRESS) and action.option_strings
        if shown and "default" not in text and not isinstance(action, argparse._VersionAction):
            return f"{text} (default: %(default)s)"
        return action.help
