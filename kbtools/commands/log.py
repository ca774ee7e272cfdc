"""`kb log`: the questions a device was asked (its query log)."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_here_option
from kbtools.errors import UsageError, plural, valid_unicode
from kbtools.index.layout import DeviceLayout
from kbtools.query.log import log_settings, parse_since, read_log, set_log_enabled
from kbtools.ship.checkout import device_or_checkout_here
from kbtools.ship.device import require_device


@click.command("log")
@click.option("--since", metavar="ISO|AGE",
              help="Only questions from then on: an ISO date/time (UTC unless it says) or an "
                   "age such as 30m, 1h, 2d, 1w.")
@to_here_option
@click.option("--off", is_flag=True,
              help="Stop recording questions on this device (settings.json).")
@click.option("--on", is_flag=True, help="Record questions again.")
@json_option
def log(since: str | None, to: Path | None, off: bool, on: bool, as_json: bool) -> None:
    """Show the device's query log: time (UTC), interface (cli, mcp, web, api), release,
    question, cited chunk ids, and whether there was no answer.

    Questions are logged by `kb query`, `kb mcp` and `kb serve` on a device (not on a
    build's dist/), in DIR/queries.jsonl, rotated by size (see docs/releases.md).
    """
    if on and off:
        raise UsageError("give --on or --off, not both")
    if (on or off) and since:
        raise UsageError("--since lists questions; it does not go with --on or --off")
    path = require_device(device_or_checkout_here(to))
    if on or off:
        set_log_enabled(path, on)
        if as_json:
            echo_json({"device": str(path), "query_log": on})
        else:
            click.echo(f"query log {'on' if on else 'off'} for device {path}")
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
