"""`kb sync`: fetch, verify and serve the newest release on a device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_option
from kbtools.ship.device import device_dir
from kbtools.ship.sync import sync_device


@click.command("sync")
@click.argument("source", required=False)
@to_option
@click.option("--trusted-key", "trusted", multiple=True,
              type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Ed25519 public key to trust on first use: while no key is pinned in "
                   "DIR/trusted_keys/, releases must be signed by a given key (or one in "
                   "kb.toml release.trusted_keys), which is then pinned. Once keys are "
                   "pinned, only they count (see `kb trust`). Repeatable.")
@json_option
def sync(source: str | None, to: Path | None, trusted: tuple[Path, ...], as_json: bool) -> None:
    """Bring a device directory to the newest verified release of SOURCE.

    SOURCE is an artifacts repository (path, file://, git://, http(s)://) or a bundle
    file from `kb bundle create`; omitted, the device's last source is used. Nothing
    changes unless the release verifies (signature by a pinned key, a tree of exactly the
    regular files its manifest lists, their hashes); the served release then switches with
    one atomic rename. Keys pinned or unpinned (first use, rotation) are reported.
    """
    res = sync_device(device_dir(to), source, trusted=trusted)
    for w in res.warnings:
        click.echo(f"kb: warning: {w}", err=True)
    if as_json:
        echo_json(res.to_dict())
        return
    if res.changed:
        click.echo(f"serving {res.tag} (was {res.previous or 'nothing'}); "
                   f"fetched {res.fetched_bytes} bytes")
    else:
        click.echo(f"up to date: serving {res.tag}")
    for note in res.trust:
        click.echo(note)
