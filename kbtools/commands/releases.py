"""`kb releases`: local and remote releases of a device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.ship.device import device_dir
from kbtools.ship.operate import list_releases
from kbtools.ship.release import release_settings


@click.command("releases")
@to_option
@click.option("--local", "local_only", is_flag=True, help="Do not ask the sync source.")
@json_option
def releases(to: Path | None, local_only: bool, as_json: bool) -> None:
    """List releases: those on the device and those the last sync source offers.

    Columns: current marker, tag, serial, where, source commit, created, size in bytes.
    """
    rows, warnings = list_releases(device_dir(to), remote=not local_only,
                                   branch=release_settings().branch)
    for w in warnings:
        click.echo(f"kb: warning: {w}", err=True)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        click.echo("\t".join([
            "*" if r["current"] else " ", r["tag"], str(r["serial"]),
            "local" if r["local"] else "remote", (r["source_commit"] or "-")[:12],
            r["created"] or "-", str(r["size"]) if r["size"] is not None else "-"]))
