"""`kb sync`: fetch, verify and serve the newest release on a device."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import (
    echo_json,
    json_option,
    net_limit_options,
    terminate_interrupts,
    to_device_option,
)
from kbtools.errors import KbError, plural
from kbtools.ship.changes import ReleaseDiff, diff_releases
from kbtools.ship.checkout import device_outside_checkout
from kbtools.ship.device import release_dirs
from kbtools.ship.sync import SyncResult, sync_device

SHOWN_DOCS = 5  # documents named after a switch; `kb diff` shows all


@click.command("sync")
@click.argument("source", required=False)
@to_device_option
@click.option("--trusted-key", "trusted", multiple=True,
              type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Ed25519 public key to trust on first use: while no key is pinned in "
                   "DIR/trusted_keys/, releases must be signed by a given key (or one in "
                   "kb.toml release.trusted_keys), which is then pinned. Once keys are "
                   "pinned, only they count (see `kb trust`). Repeatable.")
@net_limit_options("sync", "a fetch")
@click.option("--max-fetch-bytes", type=click.IntRange(1024), default=None, metavar="BYTES",
              help="Stop a fetch once it has stored this many bytes (a source sending a "
                   "release far larger than expected, or without end); nothing of it is "
                   "kept. Default: kb.toml [sync] max_fetch_bytes, else 4 GiB.")
@json_option
def sync(source: str | None, to: Path | None, trusted: tuple[Path, ...],
         stall_seconds: float | None, stall_bytes: int | None, list_timeout: float | None,
         max_fetch_bytes: int | None, as_json: bool) -> None:
    """Bring a device directory to the newest verified release of SOURCE.

    SOURCE is an artifacts repository (path, file://, git://, http(s)://), a bundle file
    from `kb bundle create`, or another device directory (its releases, verified there,
    are checked again here); omitted, the device's last source is used. Nothing
    changes unless the release verifies (signature by a pinned key, a tree of exactly the
    regular files its manifest lists, their hashes); the served release then switches with
    one atomic rename. Keys pinned or unpinned (first use, rotation) are reported; after a
    switch, what changed since the release served before (in short; `kb diff` for all).
    A newer release the operator rolled back from is skipped, and said so, as is a sync
    to a release newer still, which ends that rollback. A source that stops answering, or
    sends more than --max-fetch-bytes, is given up (limits: the options below, kb.toml
    [sync]); the served release is then unchanged.
    """
    path = device_outside_checkout(to, "sync")
    with terminate_interrupts():
        res = sync_device(path, source, trusted=trusted,
                          limits={"stall_seconds": stall_seconds, "stall_bytes": stall_bytes,
                                  "list_timeout": list_timeout,
                                  "max_fetch_bytes": max_fetch_bytes})
    for w in res.warnings:
        click.echo(f"kb: warning: {w}", err=True)
    changes = _changes(path, res)
    if as_json:
        echo_json({**res.to_dict(), "changes": changes.to_dict() if changes else None})
        return
    if res.changed:
        click.echo(f"serving {res.tag} (was {res.previous or 'nothing'}); {fetched_said(res)}")
    else:
        click.echo(f"up to date: serving {res.tag}")
    if res.rederived:
        click.echo(f"re-derived the index of {res.tag} from its verified data/: it failed "
                   f"its check ({res.rederived})")
    for tag in res.skipped:
        click.echo(f"skipped {tag}: newer, but rolled back from on purpose (`kb rollback "
                   f"{tag}` serves it again)")
    for tag in res.no_longer_skipped:
        click.echo(f"the rollback from {tag} ends: {res.tag} is newer (`kb sync` no longer "
                   f"skips {tag})")
    if changes is not None:
        _print_changes(changes)
    for note in res.trust:
        click.echo(note)


def fetched_said(res: SyncResult) -> str:
    """What a sync that switched fetched, truthfully: a release whose objects an earlier
    attempt kept (`SyncResult.kept`) was not fetched by this one."""
    if res.kept is None:
        return f"fetched {plural(res.fetched_bytes, 'byte')}"
    when = f"the attempt at {res.kept}" if res.kept else "an earlier attempt"
    if res.fetched_bytes == 0:
        return f"nothing fetched: its objects were kept from {when}"
    return f"fetched {plural(res.fetched_bytes, 'byte')} (the release itself kept from {when})"


def _changes(path: Path, res: SyncResult) -> ReleaseDiff | None:
    """What changed since the previous served release (None: no switch, or it was pruned)."""
    if not res.changed or not res.previous or res.previous not in release_dirs(path):
        return None
    try:
        return diff_releases(path, res.previous, res.tag)
    except KbError as exc:  # a report only: the switch itself has succeeded
        click.echo(f"kb: warning: changes not shown: {exc.message}", err=True)
        return None


def _print_changes(diff: ReleaseDiff) -> None:
    click.echo(f"changes since {diff.old.name if diff.old else 'nothing'}: {diff.summary()}")
    if diff.builds_differ:  # as `kb diff` says it: why derived files differ beyond these
        click.echo(diff.build_note())
    named = [("+", d) for d in diff.documents_added] + [("-", d) for d in diff.documents_removed]
    named += [("~", d.doc) for d in diff.documents_changed]
    named += [("~", f"file {path}") for path in diff.files_changed]
    for mark, doc in named[:SHOWN_DOCS]:
        click.echo(f"  {mark} {doc}")
    if len(named) > SHOWN_DOCS:
        click.echo(f"  … and {len(named) - SHOWN_DOCS} more (`kb diff`)")
