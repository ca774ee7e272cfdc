"""`kb status`: what a device (or a git checkout of a release) serves and how the last sync
went."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kbtools.commands.output import DevicePath, echo_json, json_option, to_option
from kbtools.errors import SyncError, plural
from kbtools.ship.checkout import implicit_checkout
from kbtools.ship.device import device_dir
from kbtools.ship.health import age_text, report
from kbtools.ship.release import release_settings

DEGRADED_EXIT = 4  # serving and answering, but needing attention (see `kb status --help`)


@click.command("status")
@to_option
@click.option("--index", "index_path", type=DevicePath(),
              default=None, help="A git checkout of a release (or a device dir, like --to; "
                                 "default: KB_INDEX, else the git checkout of a release at or "
                                 "above the current directory unless a kb.toml is nearer, else "
                                 "the device directory).")
@click.option("--quick", is_flag=True, help="Skip re-hashing the served files.")
@json_option
def status(to: Path | None, index_path: Path | None, quick: bool, as_json: bool) -> None:
    """Served release, its age, verification state (files re-hashed now), passages whose
    review lapsed, pinned keys and last sync.

    The first line names the device directory read (found as `kb query` finds it). For a
    git checkout of a release (`--index`, `--to`, $KB_INDEX, or the clone the current
    directory lies in): HEAD, the release tag it is, whether the work tree is exactly that
    release and whether its index is derived yet.

    \b
    Exit status, for a monitoring check (cron, a systemd timer, Nagios):
      0    healthy: a release is served and answers, and nothing below applies
      1    refused: no question is answered (nothing served, files failing
           verification, a signer no pinned key vouches for, trusted_keys/
           unlistable, a checkout that would be refused); the reason on stderr
      4    degraded: questions are answered, but the last sync failed, the
           served (or checked-out) release is older than kb.toml [release]
           max_age_days, its date lies ahead of this device's clock, a pinned
           key file or state.json is unreadable;
           each reason a `kb: warning:` line on stderr
    --json reports the same as "health": {"state": "ok"|"degraded"|"refused",
    "reasons": [...]}."""
    st = report(device_dir(index_path or to or implicit_checkout()), check_files=not quick)
    state, reasons = st["health"]["state"], st["health"]["reasons"]
    if "checkout" in st:
        _checkout(st, as_json)
        if state == "refused":  # a refused checkout's problem is raised by `_checkout`
            raise SyncError(reasons[0], path=st["checkout"])
        _degraded(state, reasons)
        return
    if as_json:
        echo_json(st)
    else:
        _device(st)
    if state == "refused":
        raise SyncError(reasons[0], path=st["device"])
    _degraded(state, reasons)


def _degraded(state: str, reasons: list[str]) -> None:
    """Each reason a `kb: warning:` line, and exit 4, when `state` is "degraded"."""
    if state == "degraded":
        for why in reasons:
            click.echo(f"kb: warning: {why}", err=True)
        raise click.exceptions.Exit(DEGRADED_EXIT)


def _device(st: dict[str, Any]) -> None:
    s = st["served"]
    if s is None and st["current_problem"]:  # said on stderr, as the error
        click.echo(f"device {st['device']}")
    elif s is None:
        click.echo(f"device {st['device']}: serving nothing yet (run `kb sync SOURCE`)")
    else:
        click.echo(f"device {st['device']}")
        state = {True: "verified", False: "FAILS VERIFICATION", None: "not re-checked"}
        age = "created in the future by this device's clock" if s["clock_behind"] else \
            age_text(s["age_days"]) + (", STALE" if s["stale"] else "")
        click.echo(f"serving {s['tag']} (source {(s['source_commit'] or '-')[:12]}, created "
                   f"{s['created'] or 'unknown'}, {age})"
                   f"; files {state[s['verified_now']]}"
                   + (f"; signed by {s['signed_by']}" if s["signed_by"] else
                      "; signature not checked (no key pinned)" if s["has_signature"] else
                      "; unsigned"))
        if s["clock_behind"]:
            click.echo(f"  clock: {s['clock_behind']}")
        for p in s["problems"]:
            click.echo(f"  problem: {p}")
        if s["signer_unpinned"]:
            click.echo(f"  trust: {s['signer_unpinned']}")
        r = s["review"]
        if r["checked"] is False:
            click.echo("  verified: not checked against Git history when built (nothing "
                       "is served as verified)")
        elif r["lapsed_documents"]:
            click.echo(f"  verified: lapsed in {r['lapsed_documents']} document(s), "
                       f"{r['lapsed_chunks']} passage(s) served as unverified: "
                       + ", ".join(r["lapsed"][:5])
                       + (" …" if r["lapsed_documents"] > 5 else ""))
        else:
            click.echo("  verified: no lapsed reviews")
    if st["trusted_keys_problem"]:
        click.echo(f"pinned keys: cannot read: {st['trusted_keys_problem']}")
    elif st["trusted_keys"]:
        for k in st["trusted_keys"]:
            click.echo(f"pinned key {k['key_id']} (since {k['pinned_at'] or '-'}"
                       + (f": {k['why']})" if k["why"] else ")"))
    else:
        click.echo("pinned keys: none (unsigned releases are accepted until a key is pinned)")
    if st["rolled_back"]:
        click.echo(f"rolled back from {', '.join(st['rolled_back'])} (`kb sync` skips "
                   f"{'it' if len(st['rolled_back']) == 1 else 'them'})")
    if st["rollback_unlogged"]:
        r = st["rollback_unlogged"]
        click.echo(f"rollback from {r['from'] or 'nothing'} to {r['to']} not yet in rollback.log "
                   "(stopped after its switch): the next `kb sync` or `kb rollback` logs it")
    copies = st["derived_copies"]
    if copies:
        click.echo(f"index copies for read-only devices: {copies['copies']} in "
                   f"{copies['dir']}, {plural(copies['bytes'], 'byte')}"
                   + (f" ({copies['unneeded']} no longer needed: the next sync or query "
                      "removes them)" if copies["unneeded"] else ""))
    if st["state_problem"]:
        click.echo(st["state_problem"])
    last = st["last_sync"]
    if last and last.get("under_way"):
        click.echo(f"last sync {last['at']}: under way ({last['holder']} holds the device "
                   f"lock); " + (f"switched to {last['tag']}, which serves (the sync is "
                                 "finishing)" if last.get("switched") else
                                 f"{last['tag'] or 'no release'} serves until it switches"))
    elif last:
        _last_sync(last)


def _last_sync(last: dict[str, Any]) -> None:
    """The last sync as --json's ``last_sync`` has it: when, from where, what it took (or
    why it failed) and each of its warnings (a newer release refused among them)."""
    src = f" from {last['source']}" if last.get("source") else ""
    tag = last.get("tag")
    if not last["ok"]:
        outcome = f"FAILED: {last['error']}"
    elif tag:
        outcome = f"ok, switched to {tag}" if last.get("changed") else f"ok, up to date ({tag})"
    else:
        outcome = "ok"
    click.echo(f"last sync {last['at']}{src}: {outcome}")
    if last.get("since"):  # what serves changed since (`sync_record.since_then`)
        click.echo(f"  since then: {last['since']}")
    for w in last.get("warnings") or ():
        click.echo(f"  warning: {w}")


def _checkout(co: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(co)
    elif co["tag"]:
        # a checkout that would be refused is not derived by the next query: say so (the
        # reason follows, on stderr)
        ready = ("index derived" if co["derived"] else "refused, see below" if co["problem"]
                 else "index derived on first query")
        click.echo(f"checkout {co['checkout']}: release {co['tag']} (source "
                   f"{(co['source_commit'] or '-')[:12]}, HEAD {(co['head'] or '-')[:12]}); "
                   f"{ready}" + (f"; signed by {co['signed_by']}" if co["signed_by"] else ""))
        if co["problem"]:  # a refused one answers nothing: "refused, see below" ends it
            return _refused(co)
        if co.get("clock_behind"):
            click.echo(f"  clock: {co['clock_behind']}")
        elif co.get("stale"):
            click.echo(f"  STALE: created {co['created']}, {age_text(co['age_days'])}")
        if co["pinned_keys"]:
            click.echo(f"pinned keys: {', '.join(co['pinned_keys'])} (releases must be signed "
                       "by one)")
        elif co["pinned_keys"] == [] and not release_settings().trusted_keys:
            click.echo("pinned keys: none (releases are taken unsigned until a key is pinned: "
                       "`kb trust add PUB`)")
        if co.get("newer"):
            click.echo(f"newer release {co['newer']} in this clone, not checked out: questions are "
                       f"answered from {co['tag']} until `git checkout {co['newer']}` (or "
                       "`git pull --ff-only` on the release branch)")
    _refused(co)


def _refused(co: dict[str, Any]) -> None:
    """The checkout's problem, raised (one line on stderr, exit 1), when it has one."""
    if co["problem"]:
        raise SyncError(co["problem"], path=co["checkout"])
