"""`kb rollback`: explicitly serve an earlier local release."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.ship.device import device_dir
from kbtools.ship.operate import rollback as do_rollback


@click.command("rollback")
@click.argument("tag", required=False)
@to_option
@json_option
def rollback(tag: str | None, to: Path | None, as_json: bool) -> None:
    """Serve TAG (default: the newest local release older than the served one).

    An operator action only: logged to DIR/rollback.log, and later syncs skip the release
    rolled back from (a newer serial is still taken).
    """
    entry = do_rollback(device_dir(to), tag)
    if as_json:
        echo_json(entry)
    else:
        click.echo(f"serving {entry['to']} (was {entry['from']})")
