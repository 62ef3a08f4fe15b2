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


def _hidden_defaults(parser: argparse.ArgumentParser) -> list[str]:
    """Options whose default (anything but None, False or an empty list) their --help text does not show."""
    hidden = []
    for cmd, sub, _ in [("dhp", parser, None), *_commands(parser, "dhp")]:
        formatter = sub._get_formatter()
        for action in sub._actions:
            if not action.option_strings or action.default in (None, False, [], argparse.SUPPRESS):
                continue
            text = formatter._expand_help(action) if action.help else ""
            if str(action.default) not in text:
                hidden.append(
                    f"{cmd} {'/'.join(action.option_strings)}: default {action.default!r} not shown"
                )
    return hidden


def test_every_default_is_shown_in_help() -> None:
    assert _hidden_defaults(build_parser()) == []


def test_the_walk_finds_a_hidden_default() -> None:
    parser = build_parser()
    (score,) = [sub for cmd, sub, _ in _commands(parser, "dhp") if cmd == "dhp score"]
    score.add_argument("--quiet-default", default=7, help="a default, said in a way that hides it (see docs)")
    assert _hidden_defaults(parser) == ["dhp score --quiet-default: default 7 not shown"]


def test_score_and_the_other_commands_default_to_the_same_data_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    defaults = {cmd: next(a.default for a in sub._actions if "--data" in a.option_strings or "--from" in
                          a.option_strings) for cmd, sub, _ in _commands(parser, "dhp")
                if cmd in ("dhp score", "dhp export", "dhp publish", "dhp show", "dhp worker")}  # fmt: skip
    assert len(defaults) == 5 and {str(d) for d in defaults.values()} == {"out/datasets"}, defaults


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import dhp

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"dhp-bench {dhp.__version__}"


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
