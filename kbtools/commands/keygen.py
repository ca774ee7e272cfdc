"""`kb keygen`: make an Ed25519 key pair for signing releases."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option
from kbtools.ship.signing import keygen as make_key


@click.command("keygen")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite existing key files.")
@json_option
def keygen(out: Path, force: bool, as_json: bool) -> None:
    """Write a private key to OUT (mode 0600) and its public key to OUT.pub.

    Sign releases with `kb release --sign-key OUT`; give OUT.pub to devices
    (`kb trust add OUT.pub --to DIR`, or `kb sync --trusted-key OUT.pub` on first use).
    """
    priv, pub, kid = make_key(out, force=force)
    if as_json:
        echo_json({"private_key": str(priv), "public_key": str(pub), "key_id": kid})
    else:
        click.echo(f"{kid}\t{priv}\t{pub}")
