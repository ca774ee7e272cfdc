"""`kb sync`: fetch, verify and serve the newest release on a device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option
from kbtools.config import load_config
from kbtools.errors import UsageError
from kbtools.ship.device import default_device_dir, read_state
from kbtools.ship.sync import sync as do_sync


def to_option(f):
    """--to DIR, shared by sync, status, releases and rollback."""
    return click.option(
        "--to", "to", type=click.Path(file_okay=False, path_type=Path), default=None,
        help="Device directory (default: $KB_INDEX, else <KB_HOME>/device).")(f)


def device_dir(to: Path | None) -> Path:
    return default_device_dir(to).absolute()


def release_settings() -> dict:
    """[release] settings of the kb.toml found from the current directory (defaults if none)."""
    return load_config().section("release")


@click.command("sync")
@click.argument("source", required=False)
@to_option
@click.option("--trusted-key", "trusted", multiple=True,
              type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Ed25519 public key; when any key is given (or stored in "
                   "DIR/trusted_keys/, or listed in kb.toml release.trusted_keys), releases "
                   "must be signed by one of them. Repeatable.")
@json_option
def sync(source: str | None, to: Path | None, trusted: tuple[Path, ...], as_json: bool) -> None:
    """Bring a device directory to the newest verified release of SOURCE.

    SOURCE is an artifacts repository (path, file://, git://, http(s)://) or a bundle
    file from `kb bundle create`; omitted, the device's last source is used. Nothing changes unless the release verifies; the served
    release then switches with one atomic rename.
    """
    device = device_dir(to)
    if source is None:
        source = read_state(device).get("source")
        if not source:
            raise UsageError("no SOURCE given and this device has never synced", path=str(device))
    cfg = load_config()
    rel = cfg.section("release")
    keys = list(trusted) + [cfg.root / k for k in rel.get("trusted_keys", [])]
    res = do_sync(source, device, trusted=keys, branch=rel["branch"],
                  keep=int(rel["keep"]), max_age_days=int(rel["max_age_days"]))
    for w in res.warnings:
        click.echo(f"kb: warning: {w}", err=True)
    if as_json:
        echo_json(res.to_dict())
    elif res.changed:
        click.echo(f"serving {res.tag} (was {res.previous or 'nothing'}); "
                   f"fetched {res.fetched_bytes} bytes")
    else:
        click.echo(f"up to date: serving {res.tag}")
