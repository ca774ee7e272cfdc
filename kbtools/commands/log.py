"""`kb log`: the questions a device was asked (its query log)."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.errors import plural, valid_unicode
from kbtools.index.layout import DeviceLayout
from kbtools.query.log import log_settings, parse_since, read_log, set_log_enabled
from kbtools.ship.device import device_dir, require_device


@click.command("log")
@click.option("--since", metavar="ISO|AGE",
              help="Only questions from then on: an ISO date/time (UTC unless it says) or an "
                   "age such as 30m, 1h, 2d, 1w.")
@to_option
@click.option("--off", "switch", flag_value="off", default=None,
              help="Stop recording questions on this device (settings.json).")
@click.option("--on", "switch", flag_value="on", help="Record questions again.")
@json_option
def log(since: str | None, to: Path | None, switch: str | None, as_json: bool) -> None:
    """Show the device's query log: time (UTC), interface (cli, mcp, web, api), release,
    question, cited chunk ids, and whether there was no answer.

    Questions are logged by `kb query`, `kb mcp` and `kb serve` on a device (not on a
    build's dist/), in DIR/queries.jsonl, rotated by size (see docs/releases.md).
    """
    path = require_device(device_dir(to))
    if switch is not None:
        set_log_enabled(path, switch == "on")
        click.echo(f"query log {switch} for device {path}")
        return
    entries = read_log(path, parse_since(since) if since else None)
    if as_json:
        echo_json(entries)
        return
    if not DeviceLayout(path).is_device():
        click.echo(f"device {path}: nothing synced yet, so nothing logged")
        return
    try:
        state = "" if log_settings(path)["enabled"] else " (logging is off: `kb log --on`)"
    except OSError as exc:
        state = f" ({exc.strerror})"
    click.echo(f"device {path}: {plural(len(entries), 'question')}"
               + (f" since {since}" if since else "") + state)
    for e in entries:
        cited = e.get("cited") or []
        outcome = ("error: " + str(e["error"]) if e.get("error")
                   else "no answer" if e.get("no_answer") else plural(len(cited), "citation"))
        click.echo(valid_unicode(f"{e['at']}  {e.get('interface', '?'):<4} "
                                 f"{e.get('release') or '-'}  {outcome}  "
                                 + " ".join(str(e.get("question", "")).split())))
