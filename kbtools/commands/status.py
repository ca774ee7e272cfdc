"""`kb status`: what a device serves and how the last sync went."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.ship.device import device_dir, require_device
from kbtools.ship.operate import status as device_status
from kbtools.ship.release import release_settings


@click.command("status")
@to_option
@click.option("--quick", is_flag=True, help="Skip re-hashing the served files.")
@json_option
def status(to: Path | None, quick: bool, as_json: bool) -> None:
    """Served release, its age, verification state (files re-hashed now) and last sync.

    The first line names the device directory read (found as `kb query` finds it)."""
    st = device_status(require_device(device_dir(to)), max_age_days=release_settings().max_age_days,
                       check_files=not quick)
    if as_json:
        echo_json(st)
        return
    s = st["served"]
    if s is None:
        click.echo(f"device {st['device']}: serving nothing yet (run `kb sync SOURCE`)")
    else:
        click.echo(f"device {st['device']}")
        state = {True: "verified", False: "FAILS VERIFICATION", None: "not re-checked"}
        click.echo(f"serving {s['tag']} (source {(s['source_commit'] or '-')[:12]}, created "
                   f"{s['created']}, {_age(s['age_days'])}{', STALE' if s['stale'] else ''})"
                   f"; files {state[s['verified_now']]}"
                   + (f"; signed by {s['signed_by']}" if s["signed_by"] else "; unsigned"))
        for p in s["problems"]:
            click.echo(f"  problem: {p}")
    if st["rolled_back"]:
        click.echo(f"rolled back from {', '.join(st['rolled_back'])} (`kb sync` skips "
                   f"{'it' if len(st['rolled_back']) == 1 else 'them'})")
    last = st["last_sync"]
    if last:
        click.echo(f"last sync {last['at']}: " + ("ok" if last["ok"] else f"FAILED: {last['error']}"))


def _age(days: float | None) -> str:
    if days is None:
        return "age unknown"
    return f"{days:g} day old" if days == 1 else f"{days:g} days old"
