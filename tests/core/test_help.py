"""Every `dhp` subcommand and option explains itself in --help."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from dhp.cli import build_parser, main


def _commands(
    parser: argparse.ArgumentParser, path: str
) -> Iterator[tuple[str, argparse.ArgumentParser, str | None]]:
    """(command path, parser, its one-line help) for `parser` and every subcommand below it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{path} {name}", sub, helps.get(name)
                yield from _commands(sub, f"{path} {name}")


def _undocumented(parser: argparse.ArgumentParser) -> list[str]:
    missing = []
    for cmd, sub, line in _commands(parser, "dhp"):
        if not line:
            missing.append(f"{cmd}: no help line")
        if not sub.description:
            missing.append(f"{cmd}: no description")
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{cmd} {'/'.join(action.option_strings) or action.dest}: no help")
    return missing


def test_every_subcommand_and_option_has_help() -> None:
    parser = build_parser()
    assert len(list(_commands(parser, "dhp"))) >= 15  # the walk reaches the registered stages
    assert _undocumented(parser) == []


def test_the_walk_finds_an_option_without_help() -> None:
    parser = build_parser()
    (export,) = [sub for cmd, sub, _ in _commands(parser, "dhp") if cmd == "dhp export"]
    export.add_argument("--undocumented")
    assert _undocumented(parser) == ["dhp export --undocumented: no help"]


def test_export_help_describes_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["export", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "Export built or downloaded datasets" in out and "file format (default: jsonl)" in out
