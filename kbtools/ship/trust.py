"""Which keys a device trusts and how that changes: pinning, rotation, `kb trust`.

The trust model (docs/releases.md says the same for operators):

* The pinned keys are ``DIR/trusted_keys/*.pub``. While any are pinned, a release must be
  signed by one of them (`plan`); an unsigned release, or one signed by another key, is
  refused, whatever the command line says.
* First use: while none are pinned, the keys given with ``--trusted-key`` (or kb.toml
  ``release.trusted_keys``) are required, and pinned once a release signed by one of them is
  installed (`apply` says so). Later, a given key that is not pinned is ignored with a
  warning: the command line can start trust, never widen or replace it.
* Rotation, in the spirit of TUF's root rotation: a release whose release.json names
  ``next_keys`` (each cosigned in release.sig, proving the new key's holder took part) and
  that is signed by a trusted key hands that key's trust over: trusted = trusted - {signer}
  + next_keys. Sync follows every rotation between the last accepted serial and the release
  it installs (`_chain`), so a device that skipped the rotating release still follows it.
* Operators change the pins explicitly with `pin_key` / `unpin_key` (``kb trust``, through
  `kbtools.ship.operate`); both are logged to ``DIR/trust.log``, as is every pin and unpin
  made by a sync.
* A device answers only from a release a pinned key vouches for (`untrusted_release`,
  checked on every open): once its signer is unpinned, `kbtools.ship.operate.settle_trust` serves the
  newest kept release one still vouches for, or questions are refused.
* A rollback serves a local release only when its signature passes the pins of now
  (`check_signer`): a key unpinned since the release arrived (revoked, rotated away) no
  longer counts, as for a sync.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.beneath import atomic_write_beneath, read_beneath
from kbtools.errors import KbError, SyncError, UsageError
from kbtools.fsutil import fsync_dir
from kbtools.index.layout import RELEASE_JSON, RELEASE_SIG, TRUST_LOG, TRUSTED, DeviceLayout
from kbtools.index.manifest import loads_unique
from kbtools.ship.devicestate import append_log
from kbtools.ship.git import first_parent_commits, tag_name
from kbtools.ship.signing import (
    MAX_KEY_BYTES,
    PublicKey,
    claimed_signer,
    cosigned_by,
    load_public,
    parse_public,
    parse_record,
    public_pem,
    verify,
)
from kbtools.ship.status_words import Keyed
from kbtools.ship.verify import (
    MAX_RELEASE_JSON_BYTES,
    MAX_RELEASE_SIG_BYTES,
    ReleaseMeta,
    release_signatures,
)

CHAIN_PAGE = 512  # release commits read at a time for rotations between two syncs
MAX_LOG_BYTES = 16 << 20


@dataclass(frozen=True)
class TrustStart:
    """The keys a sync starts from: pinned ones, or (first use) the ones given."""

    keys: tuple[PublicKey, ...]
    first_use: bool = False
    warnings: tuple[str, ...] = ()
    # where the keys are pinned (their trust.log says why a key was unpinned, read only
    # when a release is refused: `unpinned_keys`)
    device: Path | None = None


@dataclass(frozen=True)
class TrustPlan:
    """Who signed a release, and the keys to have pinned once it is installed."""

    signed_by: str | None
    keys_after: tuple[PublicKey, ...] = ()
    why: dict[str, str] = field(default_factory=dict)  # key id -> why it is newly trusted
    handed: dict[str, str] = field(default_factory=dict)  # key id -> the release handing it over


def stored_keys(device: Path) -> list[PublicKey]:
    """The pinned keys (DIR/trusted_keys/*.pub), read without following links. No
    trusted_keys/ at all means none are pinned; one that is there but cannot be listed (a
    file or a link in its place, a directory this account may not read) is a SyncError:
    taking it for "no keys" let every unsigned release in. So is a key file that cannot be
    read as a key (damaged on the card, cut short, edited), named with its repair: `kb trust
    add` writes it again, `kb trust remove` unpins it (`pinned_files`)."""
    found = pinned_files(device)
    for name, key, why in found:
        if key is None:
            folder = DeviceLayout(device).trusted
            raise SyncError(
                f"pinned key {name[:-len('.pub')]} cannot be read ({why}): nothing is synced or "
                "rolled back until it is repaired, since a device whose keys cannot be read "
                f"would take what they refuse; `kb trust add PUB --to "
                f"{shlex.quote(str(device))}` with the publisher's key writes it again (`kb "
                "trust remove "
                f"{name[:-len('.pub')]}` unpins it)", path=str(folder / name),
                key="sync_key_unreadable", values={"file": str(folder / name)})
    return [key for _, key, _ in found if key is not None]


def pinned_files(device: Path) -> list[tuple[str, PublicKey | None, str]]:
    """(file name, key, why it cannot be read) of each ``DIR/trusted_keys/*.pub``: the key,
    or None with the reason for a file that is no readable key. What `kb trust add` and
    `remove` act on, so a damaged file can be repaired or unpinned."""
    folder = DeviceLayout(device).trusted
    keys: list[tuple[str, PublicKey | None, str]] = []
    for name in pinned_names(device):
        p = folder / name
        try:
            data = read_beneath(device, f"{TRUSTED}/{name}", MAX_KEY_BYTES)
        except OSError as exc:
            raise SyncError(f"cannot read pinned key: {exc.strerror}", path=str(p),
                            key="sync_key_unreadable", values={"file": str(p)}) from None
        try:
            keys.append((name, parse_public(data, str(p)), ""))
        except KbError as exc:
            keys.append((name, None, exc.message.removeprefix("cannot read public key: ")))
    return keys


def pinned_names(device: Path) -> list[str]:
    """The file names of ``DIR/trusted_keys/*.pub``, sorted, without reading them (none: no
    trusted_keys/); SyncError when the folder is there but cannot be listed."""
    folder = DeviceLayout(device).trusted
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _unlistable(folder, exc.strerror) from None
    if not stat.S_ISDIR(st.st_mode):
        raise _unlistable(folder, "not a directory")
    try:
        return sorted(n for n in os.listdir(folder) if n.endswith(".pub"))
    except OSError as exc:
        raise _unlistable(folder, exc.strerror) from None


def _unlistable(folder: Path, why: str | None) -> SyncError:
    """The pinned keys cannot be read: nothing that needs them may go on as if none were."""
    return SyncError(f"cannot list the pinned keys ({why}): a device whose keys cannot be "
                     f"read would take unsigned releases; let this account read {TRUSTED}/, or "
                     "remove what is in its place and pin the keys again (`kb trust add PUB`)",
                     path=str(folder), key="sync_keys_unlistable", values={"folder": str(folder)})


def start(device: Path, given: Sequence[Path]) -> TrustStart:
    """The keys a sync must verify against (see the module docstring)."""
    pinned = _unique(stored_keys(device))
    offered = _unique([load_public(p) for p in given])
    if not pinned:
        return TrustStart(tuple(offered), first_use=bool(offered))
    ids = ", ".join(k.key_id for k in pinned)
    warnings = tuple(Keyed(f"key {k.key_id} ({k.source}) is not pinned on this device and was "
                           f"not used (pinned: {ids}; `kb trust add` pins a key)",
                           "warn_key_unpinned", {"key": k.key_id, "source": k.source,
                                                 "pinned": ids})
                     for k in offered if k.key_id not in {p.key_id for p in pinned})
    return TrustStart(tuple(pinned), warnings=warnings, device=device)


def unpinned_keys(device: Path, pinned: set[str]) -> dict[str, str]:
    """Key id -> why it was last unpinned (trust.log), for each key once pinned here and
    not pinned now: a release it signs is refused because trust left it (a rotation
    handed it over, an operator removed it), which is said so rather than "pin the
    publisher's new key" (a checkout of a tag from before a rotation, a revoked key)."""
    why: dict[str, str] = {}
    for entry in _read_log(device):
        kid, action = str(entry.get("key_id", "")), entry.get("action")
        if action == "unpin":
            why[kid] = str(entry.get("why") or "unpinned")
        elif action == "pin":
            why.pop(kid, None)
    return {kid: reason for kid, reason in why.items() if kid not in pinned}


def pending(begin: TrustStart, tag: str) -> dict[str, Any]:
    """What a sync records (in state.json) before it pins the keys of release `tag` and
    switches to it: the keys it verified `tag` with. Killed between the two, the next sync
    checks the installed `tag` against them again (`resumed`): the pins already name the
    keys `tag` handed trust over to, and no longer its own signer."""
    return {"tag": tag, "keys": [public_pem(k).decode() for k in begin.keys],
            "first_use": begin.first_use}


def resumed(begin: TrustStart, record: Any, tag: str) -> TrustStart:
    """The keys to check the installed release `tag` with: those `pending` recorded for it
    when a sync stopped between pinning its keys and switching to it; else `begin`'s."""
    if not isinstance(record, dict) or record.get("tag") != tag \
            or not isinstance(record.get("keys"), list):
        return begin
    keys = tuple(parse_public(str(pem).encode(), "state.json (a sync of "
                              f"{tag} that stopped before its switch)")
                 for pem in record["keys"])
    return TrustStart(keys, first_use=bool(record.get("first_use")), warnings=begin.warnings,
                      device=begin.device)


class MissingHistory(SyncError):
    """A release not signed by a trusted key, in a repository whose history stops (a
    shallow fetch) before the releases that could rotate trust to its signer."""


class Untrusted(SyncError):
    """A release whose signature the trusted keys do not vouch for (unsigned, signed by a
    key not trusted here, or altered since signing): a sync takes the newest release below
    it that they do vouch for, if any is newer than the one served (`kbtools.ship.sync`)."""


def plan(gd: Path | None, meta: ReleaseMeta, begin: TrustStart, floor: int,
         where: str) -> TrustPlan:
    """Verify the signature of the release `meta` against the trusted keys after every
    rotation in the releases between serial `floor` and it (SyncError when it fails)."""
    if not begin.keys:
        return TrustPlan(None)
    keys = list(begin.keys)
    why: dict[str, str] = {k.key_id: Keyed(f"first use, release {where}", "pin_first_use",
                                           {"release": where})
                           for k in keys} if begin.first_use else {}
    handed: dict[str, str] = {}
    serial = int(meta.rel.get("serial", 0))
    chain, complete = _chain(gd, meta.commit, floor, serial, where) if gd is not None \
        else ([], True)
    for step in chain:
        try:
            signer = verify(step.rel_bytes, step.sig_bytes, keys, where=where)
            keys = _rotate(keys, signer, step, why, where, handed)
        except SyncError:
            continue  # not signed by a trusted key: it cannot change trust
    try:
        signer = verify(meta.rel_bytes, meta.sig_bytes, keys, where=where)
    except SyncError as exc:
        if not complete:
            raise MissingHistory(f"{exc.message}, and the releases before it are not here "
                                 "to follow a key rotation (a shallow fetch: `git fetch "
                                 "--unshallow` brings them)", path=where,
                                 key="sync_history_missing", values={"release": where}) from None
        if begin.warnings:
            raise Untrusted(f"{exc.message}; {begin.warnings[0]}", path=where, key=exc.key,
                            values=exc.values) from None
        claimed = claimed_signer(meta.sig_bytes)
        if begin.first_use or claimed is None or claimed in {k.key_id for k in keys}:
            raise Untrusted(exc.message, path=exc.path, key=exc.key, values=exc.values) from None
        unpinned = unpinned_keys(begin.device, {k.key_id for k in keys}) \
            if begin.device is not None else {}
        if claimed in unpinned:  # trust left this key: saying "pin it" would mislead
            raise Untrusted(f"{exc.message}: it was pinned here and unpinned "
                            f"({unpinned[claimed]}; pinned now: "
                            f"{', '.join(k.key_id for k in keys)}), so what it signs is no "
                            "longer taken; use a release signed by a pinned key (a later "
                            "one), or `kb trust add PUB` if that key is to be trusted again",
                            path=where, key="sync_unpinned_signer",
                            values={"release": where, "signer": claimed}) from None
        since = f"since {tag_name(floor)}" if floor else "before it"
        # a publisher that replaced its key without a rotation (the old one lost or
        # compromised): trusting the new key is the operator's decision, say how
        raise Untrusted(f"{exc.message} (pinned: {', '.join(k.key_id for k in keys)}; no "
                        f"release {since} hands trust over to it: if the "
                        "publisher replaced its key, confirm the new key's id with them and "
                        "pin it with `kb trust add PUB`)", path=where, key=exc.key,
                        values=exc.values) from None
    return TrustPlan(signer, tuple(_rotate(keys, signer, meta, why, where, handed)), why,
                     handed)


def plan_installed(release_dir: Path, commit: str | None, gd: Path, begin: TrustStart,
                   floor: int, where: str) -> TrustPlan:
    """`plan` for a release already on the device (its own release.json and release.sig)."""
    return plan(gd if commit else None, installed_meta(release_dir, commit or ""), begin,
                floor, where)


def installed_meta(release_dir: Path, commit: str) -> ReleaseMeta:
    """release.json and release.sig of a release directory (bounded, no links followed)."""
    try:
        rel_bytes = read_beneath(release_dir, RELEASE_JSON, MAX_RELEASE_JSON_BYTES)
        rel = loads_unique(rel_bytes)
    except (OSError, ValueError):
        rel_bytes, rel = b"", {}
    try:
        sig: bytes | None = read_beneath(release_dir, RELEASE_SIG, MAX_RELEASE_SIG_BYTES)
    except OSError:
        sig = None
    return ReleaseMeta(commit, rel_bytes, rel if isinstance(rel, dict) else {}, sig, None)


def check_signer(device: Path, release_dir: Path, tag: str) -> None:
    """Refuse to serve the installed release `tag` again (`kb rollback`) unless a sync would
    take its signature now: while keys are pinned, it must be signed by one of them. A key
    unpinned since the release was installed (removed by the operator, or handed over by a
    rotation) no longer counts, as for a sync; with no key pinned, any release is taken."""
    keys = _unique(stored_keys(device))
    if not keys:
        return
    meta = installed_meta(release_dir, "")
    try:
        verify(meta.rel_bytes, meta.sig_bytes, keys, where=tag)
    except SyncError as exc:
        ids = ", ".join(k.key_id for k in keys)
        signer = claimed_signer(meta.sig_bytes)
        if signer is not None and signer not in {k.key_id for k in keys}:
            raise SyncError(f"{tag} is signed by key {signer}, which is no longer pinned on "
                            f"this device (pinned: {ids}): a sync would refuse it, so a "
                            "rollback does too; not switching (`kb trust add PUB` pins the "
                            "key again if it is to be trusted)", path=str(device)) from None
        raise SyncError(f"{tag}: {exc.message}; not switching", path=str(device)) from None


def release_signers(release_dir: Path) -> tuple[str | None, set[str]]:
    """Who signed the installed release in `release_dir`, by its own files (nothing
    checked: sync verified them before installing it, and `intact` that they are those):
    the key id release.sig names, with the keys its release.json hands trust over to
    (``next_keys``, each of which cosigned it, or the sync would have refused it)."""
    meta = installed_meta(release_dir, "")
    ids = set()
    for record in meta.rel.get("next_keys") or ():
        if isinstance(record, dict) and isinstance(record.get("key_id"), str):
            ids.add(record["key_id"])
    signer = claimed_signer(meta.sig_bytes)
    return signer, ids | ({signer} if signer else set())


def untrusted_release(device: Path, release_dir: Path, tag: str, *,
                      served: bool = True, then: str | None = None) -> str | None:
    """One line when the release `tag` installed on `device` (in `release_dir`) is vouched
    for by no key pinned now: unsigned, or signed by a key revoked with `kb trust remove`,
    handed over by a rotation, or pinned only after it arrived. A device answers no
    question from it (`intact.check_intact`): the line says so and what the operator can
    do. None when no key is pinned, or its signer (or a key it hands trust over to) is.

    A key's file is named by its id (`kb trust add` and a sync write it so), so a trusted
    release costs a listing of trusted_keys/, nothing more: `kb query` imports no
    cryptography. Only a release found untrusted that way has the keys read, for a file
    named otherwise (copied in by hand). `then`: what the operator can do, in place of the
    default advice (a sync that just ran says what the next one does)."""
    names = pinned_names(device)
    if not names:
        return None
    signer, vouched = release_signers(release_dir)
    if vouched & {n[:-len(".pub")] for n in names}:
        return None
    ids = {name[:-len(".pub")] if k is None else k.key_id
           for name, k, _ in pinned_files(device)}
    if vouched & ids:
        return None
    why = unpinned_keys(device, ids).get(signer or "") if signer else None
    signed = (f"is signed by key {signer}, which is not pinned on this device" if signer
              else "is not signed")
    text = (f"the {'served ' if served else ''}release {tag} {signed} "
            f"({why + '; ' if why else ''}pinned now: {', '.join(sorted(ids))}): no question "
            "is answered from it; " + (then or "`kb trust add PUB` trusts its key again, "
                                               "`kb sync` brings a release signed by a pinned key"))
    return text if then or not served else Keyed(  # said in Chinese by `kb status`
        text, "trust_unpinned" if signer else "trust_unsigned", {"release": tag, "signer": signer,
              "why": f"{why}；" if why else "", "pinned": ", ".join(sorted(ids))})


def settle_served(device: Path, release_dir: Path, begin: TrustStart,
                  where: str) -> tuple[TrustPlan | None, tuple[str, ...]]:
    """Trust for the release already served (a sync with nothing new): first-use keys are
    pinned, and a rotation it carries is applied, when it is signed accordingly; returns
    the plan (None: nothing to change) and warnings."""
    if not begin.keys:
        return None, ()
    try:
        return plan(None, installed_meta(release_dir, ""), begin, 0, where), ()
    except SyncError as exc:
        if begin.first_use:
            return None, (f"served {release_dir.name} is not signed by a given key "
                          f"— {exc.message}; no key pinned yet",)
        revoked = untrusted_release(device, release_dir, release_dir.name)
        return None, (revoked,) if revoked else ()


def apply(device: Path, trust: TrustPlan, tag: str) -> list[str]:
    """Make the pinned keys `trust.keys_after` (call with the device lock held); returns one
    line per key pinned or unpinned."""
    if not trust.keys_after:
        return []
    pinned = stored_keys(device)
    after = {k.key_id: k for k in trust.keys_after}
    notes = []
    for kid, key in after.items():
        if kid not in {k.key_id for k in pinned}:
            atomic_write_beneath(device, f"{TRUSTED}/{kid}.pub", public_pem(key))
            why = trust.why.get(kid) or Keyed(f"release {tag}", "pin_release", {"release": tag})
            _log(device, "pin", kid, why)
            notes.append(f"pinned key {kid} ({why}): releases must now be signed by a "
                         "pinned key (`kb trust list`)")
    unpinned = [key for key in pinned if key.key_id not in after]
    for key in unpinned:
        os.unlink(key.source)
        by = trust.handed.get(key.key_id, tag)  # the release that rotated it away
        _log(device, "unpin", key.key_id, f"handed over by {by}")
        notes.append(f"unpinned key {key.key_id} (handed over by {by})")
    if unpinned:
        fsync_dir(device / TRUSTED)
    return notes


# --- kb trust ----------------------------------------------------------------------------

def list_keys(device: Path) -> list[dict[str, Any]]:
    """The pinned keys with the log line that pinned each (newest pin wins)."""
    last: dict[str, dict[str, Any]] = {}
    for entry in _read_log(device):
        if entry.get("action") == "pin":
            last[str(entry.get("key_id"))] = entry
    return [{"key_id": k.key_id, "file": k.source,
             "pinned_at": last.get(k.key_id, {}).get("at"),
             "why": _why(last.get(k.key_id, {}))} for k in stored_keys(device)]


def _why(entry: dict[str, Any]) -> str | None:
    """A log line's reason: `Keyed` when the line keeps its key (pins logged since session
    45), else its words as written."""
    why, key, values = entry.get("why"), entry.get("why_key"), entry.get("why_values")
    if not isinstance(why, str):
        return None
    if isinstance(key, str) and isinstance(values, dict):
        return Keyed(why, key, values)
    return why


def pin_key(device: Path, pub: Path) -> dict[str, Any]:
    """Pin the public key in file `pub` (an operator's decision, logged); the device lock
    held (`kbtools.ship.operate.add_key`)."""
    key = load_public(pub)
    # a damaged key file in the folder (`pinned_files`) is no reason to refuse a pin;
    # one of this key's name is written again
    if key.key_id in {k.key_id for _, k, _ in pinned_files(device) if k is not None}:
        return {"key_id": key.key_id, "changed": False}
    atomic_write_beneath(device, f"{TRUSTED}/{key.key_id}.pub", public_pem(key))
    _log(device, "pin", key.key_id, Keyed(f"added by operator from {pub}", "pin_operator",
                                          {"file": pub}))
    return {"key_id": key.key_id, "changed": True}


def unpin_key(device: Path, which: str, *, allow_unsigned: bool = False) -> dict[str, Any]:
    """Unpin the key with id (or file name) `which`; the last one only with
    `allow_unsigned`, since without pinned keys a device accepts unsigned releases. The
    device lock held (`kbtools.ship.operate.remove_key`, which then settles what serves)."""
    # by key id or file name; a damaged file (no key: `pinned_files`) by its name's id
    pinned = [(name, name[:-len(".pub")] if k is None else k.key_id)
              for name, k, _ in pinned_files(device)]
    doomed = [(name, kid) for name, kid in pinned if which in (kid, name)]
    if not doomed:
        raise UsageError(f"no pinned key {which} (pinned: "
                         f"{', '.join(kid for _, kid in pinned) or 'none'})",
                         path=str(device))
    ids = {kid for _, kid in doomed}
    if not {kid for _, kid in pinned} - ids and not allow_unsigned:
        raise UsageError(f"{which} is the last pinned key: without it this device accepts "
                         "unsigned releases; pass --allow-unsigned to do that",
                         path=str(device))
    for name, kid in pinned:
        if kid in ids:
            os.unlink(DeviceLayout(device).trusted / name)
    fsync_dir(device / TRUSTED)  # a revoked key must not come back after a power cut
    for kid in sorted(ids):
        _log(device, "unpin", kid, "removed by operator")
    return {"key_id": sorted(ids), "changed": True}


# --- internals ---------------------------------------------------------------------------

def _rotate(keys: list[PublicKey], signer: str, meta: ReleaseMeta, why: dict[str, str],
            where: str, handed: dict[str, str]) -> list[PublicKey]:
    """The trusted keys after a release signed by `signer` (its next_keys take over; the
    release is noted in `handed` when the signer is not among them)."""
    raw = meta.rel.get("next_keys")
    if raw is None:
        return keys
    if not isinstance(raw, list) or not raw:
        raise SyncError("release.json next_keys must be a non-empty list of keys", path=where,
                        key="sync_next_keys_invalid", values={"release": where})
    new = [parse_record(r, where) for r in raw]
    for k in new:
        if k.key_id != signer and not cosigned_by(meta.rel_bytes, meta.sig_bytes or b"", k):
            raise SyncError(f"release.json introduces key {k.key_id} without its signature "
                            "(release.sig has no valid cosignature by it)", path=where,
                            key="sync_next_keys_invalid", values={"release": where})
    held = {k.key_id for k in keys}
    for k in new:
        if k.key_id not in held:
            why[k.key_id] = Keyed(f"introduced by {meta.rel.get('tag')}, signed by {signer}",
                                  "pin_rotation", {"release": meta.rel.get("tag"),
                                                   "signer": signer})
    if signer not in {k.key_id for k in new}:
        handed[signer] = str(meta.rel.get("tag"))
    return _unique([k for k in keys if k.key_id != signer] + new)


def _chain(gd: Path, commit: str, floor: int, serial: int, where: str
           ) -> tuple[list[ReleaseMeta], bool]:
    """Release commits on the first-parent history of `commit` with serials between `floor`
    and `serial` (exclusive), oldest first: the rotations a sync must follow; and whether
    that history is all here (False: a shallow repository's history stops before `floor`).
    However many releases a device missed, all are looked at (their release.json and
    release.sig read `CHAIN_PAGE` commits at a time: a rotation early in a long gap is one a
    device must follow)."""
    found: dict[int, ReleaseMeta] = {}
    commits = first_parent_commits(gd, commit)[1:]
    for at in range(0, len(commits), CHAIN_PAGE):
        page = commits[at:at + CHAIN_PAGE]
        for c, files in zip(page, release_signatures(gd, page), strict=True):
            try:
                rel = loads_unique(files.get(RELEASE_JSON, b""))
                s = int(rel["serial"])
            except (ValueError, KeyError, TypeError):
                continue
            if s <= floor:
                return [found[s] for s in sorted(found)], True
            if s < serial and s not in found:
                found[s] = ReleaseMeta(c, files[RELEASE_JSON], rel, files.get(RELEASE_SIG),
                                       None)
    return [found[s] for s in sorted(found)], not (gd / "shallow").exists()


def _unique(keys: list[PublicKey]) -> list[PublicKey]:
    seen: dict[str, PublicKey] = {}
    for k in keys:
        seen.setdefault(k.key_id, k)
    return list(seen.values())


def _log(device: Path, action: str, kid: str, why: str) -> None:
    """A line of trust.log; a `Keyed` reason keeps its key and values beside its words."""
    keyed = {"why_key": why.key, "why_values": why.values} if isinstance(why, Keyed) else {}
    append_log(device, TRUST_LOG, {
        "at": datetime.now(UTC).replace(microsecond=0).isoformat(), "action": action,
        "key_id": kid, "why": str(why), **keyed,
        "user": os.environ.get("USER") or os.environ.get("LOGNAME") or "?"})


def pinned_since(device: Path, at: str, lang: str = "en") -> list[str]:
    """Each key pinned or unpinned after `at` (an ISO time, a sync's), as trust.log has it:
    ``key K pinned at T`` (``lang`` "zh": ``密钥 K 于 T 固定``); [] when `at` is no time or
    the log cannot be read."""
    try:
        after = datetime.fromisoformat(at)
    except (TypeError, ValueError):
        return []
    out = []
    for entry in _read_log(device):
        try:
            when = datetime.fromisoformat(str(entry.get("at")))
        except ValueError:
            continue
        action = entry.get("action")
        if when > after and action in ("pin", "unpin"):
            out.append(f"密钥 {entry.get('key_id')} 于 {entry['at']} "
                       + ("固定" if action == "pin" else "取消固定") if lang == "zh"
                       else f"key {entry.get('key_id')} {action}ned at {entry['at']}")
    return out


def _read_log(device: Path) -> list[dict[str, Any]]:
    try:
        text = read_beneath(device, TRUST_LOG, MAX_LOG_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
