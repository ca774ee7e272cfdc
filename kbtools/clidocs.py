"""Generate docs/cli.md from the commands' own --help (checked by tests/test_cli_docs.py)."""

from __future__ import annotations

from collections.abc import Iterator

import click
from click.testing import CliRunner

from kbtools.cli import main


def _walk(cmd: click.Command, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
    yield path, cmd
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None:
                yield from _walk(sub, [*path, name])


def render() -> str:
    runner = CliRunner()
    parts = ["# `kb` command reference\n",
             "Generated from `--help` by `python -m kbtools.clidocs > docs/cli.md`; a test fails "
             "when this file is stale.\n"]
    for path, _ in _walk(main, []):
        res = runner.invoke(main, [*path, "--help"], prog_name="kb", terminal_width=100)
        title = " ".join(["kb", *path])
        parts.append(f"## `{title}`\n\n```\n{res.output.rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
