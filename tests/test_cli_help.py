"""Every registered command (and subcommand) has help text; covers commands added later."""

from __future__ import annotations

import importlib

import click
import pytest
from click.testing import CliRunner

from kbtools.cli import COMMANDS, main


def walk(name: str, command: click.Command):
    yield name, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for sub in command.list_commands(ctx):
            subcommand = command.get_command(ctx, sub)
            assert subcommand is not None, f"{name} {sub}: listed but not found"
            yield from walk(f"{name} {sub}", subcommand)


def load(name: str) -> click.Command:
    module, attr = COMMANDS[name]
    command = getattr(importlib.import_module(f"kbtools.commands.{module}"), attr)
    assert isinstance(command, click.Command), f"kbtools.commands.{module}.{attr}"
    return command


def test_registry_is_not_empty():
    assert {"check", "init"} <= set(COMMANDS)


def test_root_lists_every_registered_command():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("top", sorted(COMMANDS))
def test_command_and_subcommands_have_help(top):
    missing = []
    for name, command in walk(top, load(top)):
        text = (command.help or "").strip()
        if not text:
            missing.append(name)
            continue
        result = CliRunner().invoke(main, [*name.split(), "--help"])
        assert result.exit_code == 0, result.output
        first_words = " ".join(text.split()[:8])
        assert first_words in " ".join(result.output.split())
    assert not missing, f"commands without help text (add a docstring): {missing}"
