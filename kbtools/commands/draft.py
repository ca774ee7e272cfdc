"""`kb draft new`: write an unverified document on its own draft branch."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kbtools.agents.draft import create_draft
from kbtools.commands.output import echo_json, json_option
from kbtools.config import find_root
from kbtools.errors import UsageError


@click.group("draft")
def draft() -> None:
    """Drafts: unverified documents written back by people or agents, one branch each."""


@draft.command("new")
@click.option("--category", required=True, help="Document category (a schema in schemas/).")
@click.option("--title", required=True, help="Document title (any language).")
@click.option("--from", "source_file", metavar="FILE|-",
              help="Read the body from FILE, or stdin with '-' (default: empty body).")
@click.option("--author", help="Author (default: git config user.name).")
@click.option("--location", help="Where it happened (required for field-report).")
@click.option("--source", help="Source of the information (default: 'field report').")
@json_option
def new(category: str, title: str, source_file: str | None, author: str | None,
        location: str | None, source: str | None, as_json: bool) -> None:
    """Commit a new `verified: false` document on a new branch `draft/<date>-<slug>`.

    The document goes to the category's folder (kb.toml [categories.<name>] folder, else
    [paths] drafts). Your checked-out branch, index and working tree are not touched;
    open a pull request from the draft branch to get it reviewed.
    """
    if source_file == "-":
        body = sys.stdin.read()
    elif source_file:
        path = Path(source_file)
        if not path.is_file():
            raise UsageError(f"no such file: {source_file}")
        body = path.read_text(encoding="utf-8")
    else:
        body = ""
    result = create_draft(find_root(), category, title, body, author=author,
                          location=location, source=source)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{result.branch}  {result.path}  {result.commit[:10]}")
