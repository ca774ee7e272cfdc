"""`kb releases`: local and remote releases of a device."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kbtools.commands.output import echo_json, json_option, terminate_interrupts, to_here_option
from kbtools.ship.checkout import device_or_checkout_here
from kbtools.ship.device import require_device
from kbtools.ship.operate import (
    RELEASES_LIMIT,
    RELEASES_TIMEOUT,
    limit_releases,
    list_releases,
)
from kbtools.ship.release import release_settings
from kbtools.ship.status_words import WARNINGS_ZH, said_in, status_language

HEADER = ("", "TAG", "SERIAL", "WHERE", "SOURCE", "CREATED", "SIZE", "NOTE")


@click.command("releases")
@to_here_option
@click.option("--local", "local_only", is_flag=True, help="Do not ask the sync source.")
@click.option("--limit", type=click.IntRange(min=0), default=RELEASES_LIMIT, show_default=True,
              help="List the newest N releases (and every one on the device); 0 lists all. "
                   "Applies to --json too.")
@click.option("--timeout", type=click.IntRange(min=1), default=RELEASES_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="Give up asking the sync source after this long (the device's releases "
                   "are listed still, with a warning).")
@json_option
def releases(to: Path | None, local_only: bool, limit: int, timeout: int,
             as_json: bool) -> None:
    """List releases: those on the device and those the last sync source offers.

    The first line names the device directory read. Columns: current marker (*), tag,
    serial, where (local/remote), source commit, created, size in bytes, and a note:
    "served", or "rolled back from" for a release `kb sync` skips since `kb rollback`;
    a release here whose tag the source no longer offers, or has moved, or that no pinned
    key vouches for (no question is answered from it: "untrusted" in --json), is said so;
    and a release at the source the last sync refused, with why ("refused" in --json), or
    did not fetch, past this device's size limit ("not_fetched"; no verdict on it).
    Releases left out by --limit are counted on stderr.
    """
    path = require_device(device_or_checkout_here(to))
    with terminate_interrupts():  # SIGTERM kills the git asking the source, as Ctrl-C does
        rows, warnings = list_releases(path, remote=not local_only,
                                       branch=release_settings().branch, timeout=timeout)
    lang = status_language()  # a keyed warning (a source's ignored tag) in the reader's words
    for w in warnings:
        click.echo(f"kb: warning: {said_in(w, lang, WARNINGS_ZH)}", err=True)
    rows, omitted = limit_releases(rows, limit)
    if omitted:
        click.echo(f"kb: {omitted} older release{'s' if omitted != 1 else ''} not listed "
                   "(--limit 0 lists all)", err=True)
    if as_json:
        echo_json(rows)
        return
    click.echo(f"device {path}" + ("" if rows else ": no releases yet (run `kb sync SOURCE`)"))
    if rows:
        table = [HEADER, *(_row(r) for r in rows)]
        widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
        for line in table:
            click.echo("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())


def _row(r: dict[str, Any]) -> tuple[str, ...]:
    notes = ["served" if r["current"] else ("rolled back from (sync skips it)"
                                            if r.get("rolled_back") else "")]
    if r.get("untrusted"):  # its signer unpinned: nothing answered from it, nor rolled back to
        notes[0] = ("served, but no question is answered from it: no pinned key vouches for "
                    "it (`kb status`)" if r["current"] else
                    "; ".join(n for n in (notes[0], "no pinned key vouches for it (`kb "
                                          "rollback` refuses it)") if n))
    if r.get("refused"):  # a newer release the last sync did not take, and why
        notes.append(f"not taken: the last sync refused it ({r['refused']})")
    if r.get("not_fetched"):  # a device limit, no verdict on the release
        notes.append(f"not taken: the last sync did not fetch it ({r['not_fetched']})")
    if r["local"] and r.get("at_source") is False:
        notes.append("no longer at the source (its tag was deleted there)")
    if r.get("moved_at_source"):
        notes.append("moved at the source (this device keeps the one it verified)")
    note = "; ".join(n for n in notes if n)
    return ("*" if r["current"] else " ", r["tag"], str(r["serial"]),
            "local" if r["local"] else "remote", (r["source_commit"] or "-")[:12],
            r["created"] or "-", str(r["size"]) if r["size"] is not None else "-", note)
