"""`kb rollback`: explicitly serve an earlier local release."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import (
    alias_option,
    echo_json,
    engine_options,
    json_option,
    refuse_engine_mix,
    terminate_interrupts,
    to_here_option,
)
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import rollback as engine_rollback
from kbtools.ship.checkout import device_or_checkout_here
from kbtools.ship.device import require_device
from kbtools.ship.operate import rollback as do_rollback


@click.command("rollback")
@click.argument("tag", required=False)
@to_here_option
@engine_options
@alias_option("With --engine: the alias to move.")
@json_option
def rollback(tag: str | None, to: Path | None, engine: str | None, token_file: Path | None,
             alias: str, as_json: bool) -> None:
    """Serve TAG (default: the newest local release older than the served one).

    TAG as `kb releases` lists it; blanks around it, capitals and full-width letters
    (ＫＢ－Ｒ１) are read as the tag they spell. Any other name (`r1`, `1`) is refused,
    naming the local tag it may mean.

    An operator action only: logged to DIR/rollback.log, and later syncs skip the release
    rolled back from (a newer serial is still taken). TAG may be newer than the served
    release: that undoes a rollback from it (`kb sync` takes it again), the only way back
    to a release a sync skips. A release signed by a key no longer
    pinned is refused, as a sync refuses it (`kb trust add` pins a key again). With
    --engine, moves the engine's alias to TAG (default: the newest published release older
    than the served one).
    """
    refuse_engine_mix(engine, local_only=("to",), engine_only=("token_file", "alias"))
    if engine is not None:
        eng = connect_url(engine, token_file)
        try:
            entry = engine_rollback(eng, tag, alias)
        finally:
            eng.close()
    else:
        with terminate_interrupts():
            entry = do_rollback(require_device(device_or_checkout_here(to)), tag)
    for w in entry.get("warnings", []):
        click.echo(f"kb: warning: {w}", err=True)
    if as_json:
        echo_json(entry)
    else:
        was = entry["from"] or "no release: the alias was missing"
        click.echo(f"serving {entry['to']} (was {was})")
        if entry.get("forward"):
            left = entry.get("skipped") or []
            click.echo(f"{entry['to']} is newer than {entry['from']} (a rollback forward)"
                       + (f": the rollback from {entry['to']} is undone, `kb sync` no longer "
                          "skips it" if entry.get("undone") else "")
                       + (f"; `kb sync` still skips {', '.join(left)} (rolled back from)"
                          if left else ""))
        if entry.get("rederived"):
            click.echo(f"re-derived the index of {entry['to']} from its verified data/: it "
                       f"failed its check ({entry['rederived']})")
