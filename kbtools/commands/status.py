"""`kb status`: what a device serves and how the last sync went."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.ship.device import device_dir
from kbtools.ship.operate import status as device_status
from kbtools.ship.release import release_settings


@click.command("status")
@to_option
@click.option("--quick", is_flag=True, help="Skip re-hashing the served files.")
@json_option
def status(to: Path | None, quick: bool, as_json: bool) -> None:
    """Served release, its age, verification state (files re-hashed now) and last sync."""
    st = device_status(device_dir(to), max_age_days=release_settings().max_age_days,
                       check_files=not quick)
    if as_json:
        echo_json(st)
        return
    s = st["served"]
    if s is None:
        click.echo(f"device {st['device']}: serving nothing yet (run `kb sync SOURCE`)")
    else:
        state = {True: "verified", False: "FAILS VERIFICATION", None: "not re-checked"}
        click.echo(f"serving {s['tag']} (source {(s['source_commit'] or '-')[:12]}, created "
                   f"{s['created']}, {s['age_days']} days old{', STALE' if s['stale'] else ''})"
                   f"; files {state[s['verified_now']]}"
                   + (f"; signed by {s['signed_by']}" if s["signed_by"] else "; unsigned"))
        for p in s["problems"]:
            click.echo(f"  problem: {p}")
    last = st["last_sync"]
    if last:
        click.echo(f"last sync {last['at']}: " + ("ok" if last["ok"] else f"FAILED: {last['error']}"))
