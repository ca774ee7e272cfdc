"""`kb recent`: documents added or changed recently."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.agents.recent import recent as recent_changes
from kbtools.commands.output import echo_json, json_option


@click.command("recent")
@click.option("--days", type=int, default=None, help="Only changes of the last N days (24 hours each); 0: changes made today, since local midnight.")
@click.option("-n", "n", type=int, default=None, help="At most N documents (default 20 "
              "when --days is not given).")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help="Read an index (dist/ or a device dir) instead of the repository's Git "
                   "history.")
@json_option
def recent(days: int | None, n: int | None, index: Path | None, as_json: bool) -> None:
    """Documents added or changed recently, newest first, with author and summary.

    In a knowledge repository this reads Git history; on a device (or with --index) it
    reads the document records of the served index release.
    """
    result = recent_changes(index=index, days=days, n=n)
    if as_json:
        echo_json(result)
        return
    changes = result["changes"]
    if not changes:
        click.echo("no recent changes")
    for c in changes:
        date = str(c.get("date") or "")[:10]
        who = c.get("author") or "?"
        summary = c.get("summary") or c.get("message") or ""
        title = c.get("title") or ""
        click.echo(f"{date}  {c['change']:<8} {c['doc']}  {title}  ({who}) {summary}".rstrip())
