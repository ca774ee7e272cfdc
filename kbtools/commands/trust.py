"""`kb trust`: the keys a device pins (list, add, remove)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option, to_here_option
from kbtools.ship.checkout import device_or_checkout_here, find_checkout, trust_dir
from kbtools.ship.operate import add_key, remove_key
from kbtools.ship.release import release_settings
from kbtools.ship.trust import list_keys, start


@click.group("trust")
def trust() -> None:
    """The Ed25519 keys a device trusts (DIR/trusted_keys/).

    `--to` may name a git checkout of a release: its keys live in its .git/kb/trusted_keys/.

    While any key is pinned, `kb sync` accepts only releases signed by a pinned key.
    Keys are pinned on first use (`kb sync --trusted-key`), by a release that rotates to a
    new key, or here; every change is logged to DIR/trust.log.
    """


@trust.command("list")
@to_here_option
@json_option
def list_cmd(to: Path | None, as_json: bool) -> None:
    """Show the pinned keys: key id, file, when and why each was pinned."""
    where = device_or_checkout_here(to)
    rows = list_keys(trust_dir(where, create=False))
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo(unpinned(where))
    else:
        for r in rows:
            click.echo(f"{r['key_id']}\t{r['pinned_at'] or '-'}\t{r['why'] or '-'}\t{r['file']}")


def unpinned(where: Path) -> str:
    """What a device or clone with no pinned key takes, in words: the keys kb.toml names
    (``release.trusted_keys``, read from the current directory as `kb sync` and a query of
    a clone read them) are required and pinned on first use; with none, any release whose
    files match its manifest, unsigned or signed by any key (no signature is checked)."""
    found = find_checkout(where)
    clone = found is not None
    what, here = ("clone", "queries here take") if clone else ("device", "`kb sync` takes")
    given = start(trust_dir(where, create=False), release_settings().trusted_keys).keys
    if given:
        return (f"no pinned keys in this {what} yet: kb.toml release.trusted_keys names "
                f"{', '.join(k.key_id for k in given)}, so {here} only a release "
                "signed by one of them, and pin it then")
    to = f" --to {shlex.quote(str(found[0].root if found else where))}"
    return (f"no pinned keys in this {what}: {here} any release whose files match its "
            "manifest, unsigned or signed by any key (no signature is checked)"
            + (", and keys pinned on a device directory do not count here" if clone else "")
            + f"; `kb trust add PUB{to}` pins the publisher's key")


@trust.command("add")
@click.argument("public_key", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@to_here_option
@json_option
def add(public_key: Path, to: Path | None, as_json: bool) -> None:
    """Pin PUBLIC_KEY (a `kb keygen` .pub file): releases signed by it are accepted."""
    res = add_key(trust_dir(device_or_checkout_here(to)), public_key)
    if as_json:
        echo_json(res)
    else:
        click.echo(f"{'pinned' if res['changed'] else 'already pinned'} {res['key_id']}")
        _settled(res)


@trust.command("remove")
@click.argument("key")
@to_here_option
@click.option("--allow-unsigned", is_flag=True,
              help="Allow removing the last pinned key (the device then accepts unsigned "
                   "releases).")
@json_option
def remove(key: str, to: Path | None, allow_unsigned: bool, as_json: bool) -> None:
    """Unpin KEY (a key id or the file name in DIR/trusted_keys/).

    When KEY signed the served release, the newest kept release signed by a pinned key
    serves instead (as `kb rollback` would); with none, no question is answered until
    `kb trust add` or `kb sync` brings a trusted one.
    """
    res = remove_key(trust_dir(device_or_checkout_here(to)), key, allow_unsigned=allow_unsigned)
    if as_json:
        echo_json(res)
    else:
        click.echo(f"unpinned {', '.join(res['key_id'])}")
        _settled(res)


def _settled(res: dict[str, object]) -> None:
    """What serves after a trust change, when it changed (`operate.settle_trust`): the
    switch to an earlier release, or that no question is answered until one is trusted."""
    if res.get("notice"):
        click.echo(str(res["notice"]))
    if res.get("warning"):
        click.echo(f"kb: warning: {res['warning']}", err=True)
