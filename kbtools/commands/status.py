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
from kbtools.ship.devicestate import read_state
from kbtools.ship.health import report
from kbtools.ship.release import release_settings
from kbtools.ship.status_words import (
    PROBLEMS_ZH,
    REASONS_ZH,
    WARNINGS_ZH,
    WORDS,
    Say,
    age_said,
    said_in,
    sayer,
    status_language,
)
from kbtools.ship.sync_record import FAILURES_ZH, FailedSync, since_words

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
           key file or state.json is unreadable, the index of a device kb
           cannot write fails its check (a copy under KB_HOME answers);
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
    """The device's state in the words of the language `status_language` picks."""
    device = Path(st["device"])
    s = st["served"]
    lang = status_language()
    say = sayer(lang)
    if s is None and st["current_problem"]:  # said on stderr, as the error
        click.echo(say("device", device=st["device"]))
    elif s is None:
        click.echo(say("nothing", device=st["device"]))
    else:
        click.echo(say("device", device=st["device"]))
        files = {True: "files_ok", False: "files_bad", None: "files_unchecked"}
        age = say("ahead") if s["clock_behind"] else \
            age_said(say, s["age_days"]) + (say("stale") if s["stale"] else "")
        signed = (say("signed", key=s["signed_by"]) if s["signed_by"] else
                  say("sig_unchecked") if s["has_signature"] else say("unsigned"))
        click.echo(say("serving", tag=s["tag"], source=(s["source_commit"] or "-")[:12],
                       created=s["created"] or say("created_unknown"), age=age,
                       files=say(files[s["verified_now"]]), signed=signed))
        if s["clock_behind"]:
            click.echo(say("clock", text=said_in(s["clock_behind"], lang, PROBLEMS_ZH)))
        for p in s["problems"]:
            click.echo(say("problem", text=said_in(p, lang, PROBLEMS_ZH)))
        if s["signer_unpinned"]:
            click.echo(say("trust", text=said_in(s["signer_unpinned"], lang, PROBLEMS_ZH)))
        r = s["review"]
        if r["checked"] is False:
            click.echo(say("review_unchecked"))
        elif r["lapsed_documents"]:
            click.echo(say("review_lapsed", docs=r["lapsed_documents"],
                           chunks=r["lapsed_chunks"], names=", ".join(r["lapsed"][:5])
                           + (" …" if r["lapsed_documents"] > 5 else "")))
        else:
            click.echo(say("review_ok"))
    if (problem := st["trusted_keys_problem"]) and said_in(problem, lang, FAILURES_ZH) != problem:
        click.echo(say("keys_said", text=said_in(problem, lang, FAILURES_ZH)))
    elif problem:
        click.echo(say("keys_unreadable", text=problem))
    elif st["trusted_keys"]:
        for k in st["trusted_keys"]:
            why = said_in(k["why"], lang, REASONS_ZH)
            click.echo(say("key", key=k["key_id"], at=k["pinned_at"] or "-",
                           why=say("key_why", why=why) if why else ""))
    else:
        click.echo(say("no_keys"))
    if st["rolled_back"]:
        click.echo(say("rolled_back", tags=", ".join(st["rolled_back"]),
                       them=say("it" if len(st["rolled_back"]) == 1 else "them")))
    if st["rollback_unlogged"]:
        r = st["rollback_unlogged"]
        click.echo(say("unlogged", from_=r["from"] or say("nothing_served"), to=r["to"]))
    copies = st["derived_copies"]
    if copies:
        size = plural(copies["bytes"], "byte") if say("ok") == WORDS["ok"][0] else \
            say("bytes", n=copies["bytes"])
        click.echo(say("copies", n=copies["copies"], dir=copies["dir"], bytes=size,
                       unneeded=say("unneeded", n=copies["unneeded"])
                       if copies["unneeded"] else ""))
    if st["state_problem"]:
        click.echo(said_in(st["state_problem"], lang, FAILURES_ZH))
    last = st["last_sync"]
    if last and last.get("under_way"):
        click.echo(say("under_way", at=last["at"], holder=last["holder"], then=say(
            "switched_finishing", tag=last["tag"]) if last.get("switched") else say(
            "serves_until", tag=last["tag"] or say("no_release"))))
    elif last:
        _last_sync(last, say, device)


def _last_sync(last: dict[str, Any], say: Say, device: Path) -> None:
    """The last sync as --json's ``last_sync`` has it: when, from where, what it took (or
    why it failed: in Chinese as its record says it, `FailedSync`) and each of its warnings
    (a newer release refused among them)."""
    src = say("from_source", source=last["source"]) if last.get("source") else ""
    tag = last.get("tag")
    chinese = say("ok") != WORDS["ok"][0]
    if not last["ok"]:
        failed = FailedSync.of(device, read_state(device).get("last_sync")) if chinese \
            else None
        error = failed.text(device, "zh", past=bool(last.get("since"))) if failed else None
        outcome = say("failed", error=error or last["error"])
    elif tag:
        outcome = say("switched", tag=tag) if last.get("changed") else \
            say("up_to_date", tag=tag)
    else:
        outcome = say("ok")
    click.echo(say("last_sync", at=last["at"], source=src, outcome=outcome))
    if last.get("since"):  # what serves changed since (`sync_record.since_then`)
        told = last.get("statement")
        since = "；".join(since_words(device, last, told if isinstance(told, dict) else None,
                                     "zh")) if chinese else last["since"]
        click.echo(say("since", text=since or last["since"]))
    for w in last.get("warnings") or ():  # (`Keyed` where state.json kept its key)
        click.echo(say("warning", text=said_in(w, "zh" if chinese else "en", WARNINGS_ZH)))


def _checkout(co: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(co)
    elif co["tag"]:
        say = sayer(status_language())
        # a checkout that would be refused is not derived by the next query: say so (the
        # reason follows, on stderr)
        ready = say("derived" if co["derived"] else "refused_below" if co["problem"]
                    else "derived_later")
        click.echo(say("checkout", checkout=co["checkout"], tag=co["tag"],
                       source=(co["source_commit"] or "-")[:12], head=(co["head"] or "-")[:12],
                       ready=ready, signed=say("signed", key=co["signed_by"])
                       if co["signed_by"] else ""))
        if co["problem"]:  # a refused one answers nothing: "refused, see below" ends it
            return _refused(co)
        if co.get("clock_behind"):
            click.echo(say("clock", text=co["clock_behind"]))
        elif co.get("stale"):
            click.echo(say("stale_checkout", created=co["created"],
                           age=age_said(say, co["age_days"])))
        if co["pinned_keys"]:
            click.echo(say("checkout_keys", keys=", ".join(co["pinned_keys"])))
        elif co["pinned_keys"] == [] and not release_settings().trusted_keys:
            click.echo(say("checkout_no_keys"))
        if co.get("newer"):
            click.echo(say("newer", newer=co["newer"], tag=co["tag"]))
    _refused(co)


def _refused(co: dict[str, Any]) -> None:
    """The checkout's problem, raised (one line on stderr, exit 1), when it has one."""
    if co["problem"]:
        raise SyncError(co["problem"], path=co["checkout"])
