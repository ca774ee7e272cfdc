"""`kb draft new`: write an unverified document on its own draft branch."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import click

from kbtools.agents.draft import create_draft
from kbtools.agents.draft_photos import read_photos
from kbtools.commands.output import echo_json, json_option
from kbtools.config import find_root
from kbtools.errors import UsageError


@click.group("draft")
def draft() -> None:
    """Drafts: unverified documents written back by people or agents, one branch each."""


@draft.command("new")
@click.option("--category", required=True, help="Document category (a schema in schemas/).")
@click.option("--title", required=True, help="Document title (any language).")
@click.option("--from", "source_file", type=click.File("rb"), metavar="FILE|-", required=True,
              help="Read the body from FILE, or stdin with '-' (a document needs text; a "
                   "front-matter block at its top adds fields, such as a category's own).")
@click.option("--author", help="Author (default: git config user.name).")
@click.option("--location", help="Where it happened (required for field-report).")
@click.option("--source", help="Source of the information (default: 'field report').")
@click.option("--photo", "photos", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help="A picture to attach (PNG, JPEG, GIF, WebP or AVIF; repeatable): committed "
                   "with the draft under the assets folder and shown at its end.")
@json_option
def new(category: str, title: str, source_file: BinaryIO, author: str | None,
        location: str | None, source: str | None, photos: tuple[Path, ...],
        as_json: bool) -> None:
    """Commit a new `verified: false` document on a new branch `draft/<date>-<slug>`.

    The document goes to the category's folder (kb.toml [categories.<name>] folder, else
    [paths] drafts). Your checked-out branch, index and working tree are not touched;
    open a pull request from the draft branch to get it reviewed. Filing the same draft
    again the same day (a retry) files nothing and names the draft already filed.
    """
    result = create_draft(find_root(), category, title, read_body(source_file), author=author,
                          location=location, source=source, argument=_flag,
                          photos=read_photos(photos))
    if result.merged:
        click.echo("kb: already filed (the same draft, today) and merged since: nothing new "
                   "written", err=True)
    elif result.existing:
        click.echo("kb: already filed (the same draft, today): nothing new written", err=True)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{result.branch}  {result.path}  {result.commit[:10]}")


def _flag(name: str) -> str:
    """How an error names an argument of `create_draft`: as the flag that gives it."""
    return "--from FILE" if name == "body" else f"--{name}"


def read_body(stream: BinaryIO) -> str:
    """The text of the body file (or stdin) as UTF-8 whatever the locale, a leading byte-order
    mark dropped; bytes that are not UTF-8 are a `UsageError` naming the file and line."""
    name = getattr(stream, "name", None)
    name = name if isinstance(name, str) else "<stdin>"
    raw = stream.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = raw.rfind(b"\n", 0, exc.start) + 1
        raise UsageError(f"not UTF-8 (byte {exc.start - start + 1} of the line); save the "
                         "file as UTF-8", path=name,
                         line=raw.count(b"\n", 0, exc.start) + 1) from None
