"""Operating a device: its status, its releases (local and at the last source), rollback.

What `kb status`, `kb releases` and `kb rollback` call. The device directory itself (lock,
switch, state) is `kbtools.ship.device`; fetching and verifying a release is
`kbtools.ship.sync`. Nothing here loads an embedder or numpy, so these commands start fast.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.errors import IndexLoadError, KbError, SyncError
from kbtools.index.layout import (
    MANIFEST,
    RELEASES,
    ROLLBACK_LOG,
    DeviceLayout,
    ReleaseLayout,
    is_release_name,
)
from kbtools.index.manifest import load_manifest, verify_files
from kbtools.index.selfcheck import derived_problems
from kbtools.index.stamps import Signature, changed_before
from kbtools.ship.changes import not_on_device
from kbtools.ship.device import (
    check_device_dir,
    clean_staging,
    dir_size,
    release_dirs,
    served_release,
    served_tag,
    switch_to,
)
from kbtools.ship.devicestate import (
    PENDING_ROLLBACK,
    append_log,
    load_state,
    read_json,
    read_state,
    settle_rollback,
    unlogged_rollback,
    warnings_read,
    write_state,
)
from kbtools.ship.git import (
    ignored_tags,
    is_bundle,
    list_source,
    moved_tags,
    parse_serial,
    spelled_tag,
    tag_name,
)
from kbtools.ship.gitrun import interrupts_held
from kbtools.ship.install import (
    rederive,
    release_file_problems,
    restore_release_files,
    settled_clock,
)
from kbtools.ship.intact import vouch
from kbtools.ship.readonly import copies_report, copy_serving
from kbtools.ship.release import age_days, clock_behind
from kbtools.ship.serves import cannot_write, locked, still_serves, switch_outcome, under_way
from kbtools.ship.sourceurl import scrub, scrubbed
from kbtools.ship.status_words import INDEX_PROBLEM, Keyed
from kbtools.ship.sync_record import FailedSync, since_then
from kbtools.ship.trust import (
    check_signer,
    list_keys,
    pin_key,
    release_signers,
    unpin_key,
    untrusted_release,
)


def _serial(tag: str) -> int:
    return parse_serial(tag) or -1


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def local_releases(path: Path) -> list[dict[str, Any]]:
    """Verified releases on the device, newest serial first. ``rolled_back``: the operator
    rolled back from it, so `kb sync` skips it. A release a `kb sync` prunes while they are
    listed is left out (not listed as an empty release, nor a failure). ``untrusted``: why
    no pinned key vouches for it (no question is answered from it while it is served, and
    `kb rollback` refuses it), else None."""
    current = served_tag(path)
    rolled = set(read_state(path).get("rolled_back", []))
    out = []
    for tag, rdir in release_dirs(path).items():
        rel = read_json(ReleaseLayout(rdir).release_json)
        ver = read_json(ReleaseLayout(rdir).verified)
        out.append({"tag": tag, "serial": _serial(tag), "local": True,
                    "current": tag == current, "rolled_back": tag in rolled,
                    "source_commit": (rel.get("source") or {}).get("commit"),
                    "created": rel.get("created"), "signed_by": ver.get("signed_by"),
                    "size": dir_size(rdir), "untrusted": _untrusted(path, rdir, tag)})
        if not rdir.is_dir():  # pruned meanwhile (renamed away, then removed)
            out.pop()
    return sorted(out, key=lambda r: int(r["serial"]), reverse=True)


def _untrusted(path: Path, rdir: Path, tag: str) -> str | None:
    """Why no key pinned on the device vouches for its release `tag` (`untrusted_release`),
    or None; pinned keys that cannot be read are `kb status`'s to say."""
    try:
        return untrusted_release(path, rdir, tag, served=False)
    except (SyncError, OSError):
        return None


# how long `kb releases` waits for its source to list what it offers (a few kB): a source
# that accepts the connection and never answers (a 4G link gone quiet) would otherwise hold
# it for `kb sync`'s limit, `gitrun.NETWORK_TIMEOUT` (4 minutes)
RELEASES_TIMEOUT = 30


def list_releases(path: Path, *, remote: bool = True, branch: str = "kb-index",
                  timeout: int = RELEASES_TIMEOUT) -> tuple[list[dict[str, Any]], list[str]]:
    """Local releases plus those offered by the last sync source (asked for at most
    `timeout` seconds); also warnings. Each row's ``at_source`` says whether the source
    still offers it (None: not asked, or a bundle), ``moved_at_source`` whether its tag
    there was moved (`_at_source`), ``refused`` why the last sync did not take a release
    the source offers (its signature no trusted key vouches for: state.json's ``refused``),
    else None, and ``not_fetched`` why it did not fetch one (past the device's size limit:
    no verdict on it), else None."""
    state = read_state(path)
    kept, unfetched = state.get("refused"), state.get("not_fetched")
    refused: dict[str, str] = kept if isinstance(kept, dict) else {}
    not_fetched: dict[str, str] = unfetched if isinstance(unfetched, dict) else {}
    rows = [r | {"at_source": None, "moved_at_source": False, "refused": None,
                 "not_fetched": None}
            for r in local_releases(path)]
    warnings: list[str] = []
    source = state.get("source")
    if remote and source:
        try:
            refs = list_source(DeviceLayout(path).repo, source, branch, timeout=timeout)
        except SyncError as exc:  # names the source; waiting longer helps one that is silent
            longer = (", `--timeout SECONDS` waits longer" if "no answer within" in exc.message
                      else "")
            warnings.append(f"remote releases not listed: {scrubbed(exc)}; `kb releases "
                            f"--local` lists this device's without asking it{longer}")
        else:
            warnings.extend(map(scrub, ignored_tags(source, refs)))
            have = {r["tag"] for r in rows}
            if not is_bundle(source):  # a bundle may carry only the newer releases
                _at_source(path, rows, refs.tags)
            rolled = set(state.get("rolled_back", []))
            for serial, (ref, _sha) in sorted(refs.tags.items(), reverse=True):
                tag = ref.rsplit("/", 1)[-1]
                if tag not in have:
                    rows.append({"tag": tag, "serial": serial, "local": False,
                                 "current": False, "rolled_back": tag in rolled,
                                 "source_commit": None, "created": None,
                                 "signed_by": None, "size": None, "untrusted": None,
                                 "at_source": True, "moved_at_source": False,
                                 "refused": refused.get(tag),
                                 "not_fetched": not_fetched.get(tag)})
            rows.sort(key=lambda r: int(r["serial"]), reverse=True)
    return rows, warnings


def _at_source(path: Path, rows: list[dict[str, Any]], offered: dict[int, tuple[str, str]]
               ) -> None:
    """Mark the device's releases in `rows` by what the source listed now (`offered`):
    ``at_source`` whether it still offers the tag (a served release whose tag was deleted
    there makes `kb sync` refuse a downgrade), ``moved_at_source`` whether its tag there
    names another object than the one verified here (a force-push: sync keeps this one)."""
    names = {tag_name(s) for s in offered}
    try:
        moved = moved_tags(DeviceLayout(path).repo, offered, {r["tag"] for r in rows})
    except SyncError:  # no repository to compare with: said by nothing else either
        moved = {}
    for r in rows:
        r["at_source"] = r["tag"] in names
        r["moved_at_source"] = r["tag"] in moved


# `kb releases` lists this many of the newest releases by default (a device after a year of
# releases would otherwise print every one its source offers)
RELEASES_LIMIT = 20


def limit_releases(rows: list[dict[str, Any]], limit: int | None
                   ) -> tuple[list[dict[str, Any]], int]:
    """The newest `limit` of `rows` (newest first, as `list_releases` gives them) plus every
    release on the device (what `kb rollback` can serve); and how many were left out.
    `limit` None or 0: all of them."""
    if not limit:
        return rows, 0
    kept = [r for i, r in enumerate(rows) if i < limit or r["local"]]
    return kept, len(rows) - len(kept)


def pinned_keys(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The keys pinned on the device (key id = sha256 fingerprint prefix, when pinned and
    why), and the problem reading them, if any."""
    try:
        return [{k: row[k] for k in ("key_id", "pinned_at", "why")}
                for row in list_keys(path)], None
    except KbError as exc:  # keyed, said in Chinese by a Chinese `kb status`
        return [], Keyed(exc.message, exc.key, exc.values) if exc.key else exc.message


def review_lapses(manifest: dict[str, Any]) -> dict[str, Any]:
    """What the manifest says of `verified` in a release: whether history was checked, and
    the documents (and their chunks) whose verification lapsed."""
    ver = manifest.get("verification") or {}
    lapsed = [x for x in ver.get("lapsed") or [] if isinstance(x, dict)]
    return {"checked": ver.get("checked"), "lapsed_documents": len(lapsed),
            "lapsed_chunks": sum(int(x.get("chunks") or 0) for x in lapsed),
            "lapsed": [str(x.get("doc")) for x in lapsed]}


def release_problems(rdir: Path) -> list[str]:
    """What is wrong with a local release now: its files against the manifest, and its
    derived index (by hash when the manifest pins it, else by `check_derived`)."""
    manifest = load_manifest(rdir)
    problems = verify_files(rdir, manifest, derived=False) + release_file_problems(rdir)
    if not problems:  # index/ (its pinned bytes, or its check): keyed, said in Chinese
        found = derived_problems(rdir, manifest)
        copy = copy_serving(rdir) if found else None
        key = INDEX_PROBLEM if copy is None else \
            f"{INDEX_PROBLEM}_copy" if copy[1] else f"{INDEX_PROBLEM}_next_copy"
        where = {} if copy is None else {"copy": copy[0], "base": copy[0].parent}
        # (a device kb cannot write: a copy answers instead, `readonly.copy_serving`)
        problems = [Keyed(p, key, {"file": p.split(":")[0].split(" ")[0], **where})
                    for p in found]
    return problems


def current_problem(path: Path) -> str | None:
    """What is wrong with a device's `current` that names no release it holds (its release
    directory deleted, or a pointer edited by hand), and what to run; None when `current`
    serves a release, or is not there (nothing synced yet)."""
    layout = DeviceLayout(path)
    if layout.served_release() is not None or not os.path.lexists(layout.current):
        return None
    target = layout.current_target()
    head, _, name = (target or "").partition("/")
    if target is None:
        what = "`current` names no release (it is neither a link nor one line)"
    elif head != RELEASES or "/" in name or not is_release_name(name):
        what = f"`current` names {target!r}, not a release of this device"
    elif os.path.lexists(layout.release(name)):
        what = f"`current` names {target}, which is not a release (no {MANIFEST})"
    else:
        what = f"`current` names {target}, which is missing (deleted?)"
    local = sorted(release_dirs(path), key=_serial, reverse=True)
    todo = "`kb sync` installs the newest release from the source again"
    if local:
        todo += (f", `kb rollback --to {shlex.quote(str(path))}` serves the newest one "
                 f"here ({local[0]}; "
                 f"local: {', '.join(local)})")
    return f"serves nothing: {what}; {todo}"


def _readable(last: Any) -> Any:
    """The record of the last sync as `kb status` shows it: its source, error and warnings
    without a URL's credentials (a record written before kb left them out names them)."""
    if not isinstance(last, dict):
        return last
    return {k: scrub(v) if isinstance(v, str) else [scrub(w) for w in warnings_read(last)]
            if k == "warnings" and isinstance(v, list) else v for k, v in last.items()
            if k != "warning_keys"}


def status(path: Path, *, max_age_days: int = 30, check_files: bool = True) -> dict[str, Any]:
    """Served release, age, verification state now, pinned keys, review lapses in the
    served release, last sync result."""
    try:
        state, state_problem = load_state(path), None
    except SyncError as exc:  # what sync and rollback stop on
        state, state_problem = {}, Keyed(exc.message, exc.key, exc.values) if exc.key \
            else exc.message  # (keyed: said in Chinese by `kb status`)
    rdir = served_release(path)
    keys, key_problem = pinned_keys(path)
    out: dict[str, Any] = {"device": str(path), "served": None,
                           "last_sync": _readable(since_then(path, under_way(
                               path, state.get("last_sync")))),
                           "releases": len(release_dirs(path)),
                           "rolled_back": state.get("rolled_back", []),
                           "state_problem": state_problem,
                           "current_problem": current_problem(path),
                           "rollback_unlogged": _unlogged(path, state),
                           "trusted_keys": keys, "trusted_keys_problem": key_problem,
                           "derived_copies": copies_report()}
    if rdir is None:
        return out
    if rdir.name in out["rolled_back"]:
        # recorded before the switch (`_rollback_locked`): a rollback stopped between the two
        serves = still_serves(path, f"{rdir.name} still serves, and `kb sync` keeps it")
        out["current_problem"] = (
            f"a `kb rollback` from {rdir.name} was stopped before its switch: {serves}; run "
            f"`kb rollback [TAG] --to {shlex.quote(str(path))}` again to finish it")
    rel = read_json(ReleaseLayout(rdir).release_json)
    ver = read_json(ReleaseLayout(rdir).verified)
    created = rel.get("created") or ver.get("created")  # release.json gone: as verified
    age = age_days(created, _now())
    problems: list[str] = []
    manifest: dict[str, Any] = {}
    try:
        manifest = load_manifest(rdir)
        if check_files:
            problems = release_problems(rdir)
    except IndexLoadError as exc:
        problems = [exc.message]
    out["served"] = {
        "tag": rdir.name, "serial": _serial(rdir.name),
        "source_commit": (rel.get("source") or {}).get("commit")
        or (manifest.get("source") or {}).get("commit"), "created": created,
        "age_days": round(age, 2) if age is not None else None,
        "stale": bool(age is not None and age > max_age_days),
        "clock_behind": clock_behind(created, _now()),
        "verified_at": ver.get("verified_at"), "signed_by": ver.get("signed_by"),
        # carries a release.sig: signed, though no key pinned when it synced checked it
        "has_signature": ReleaseLayout(rdir).release_sig.is_file(),
        "verified_now": (not problems) if check_files else None, "problems": problems[:5],
        "review": review_lapses(manifest),
        # vouched for by no key pinned now (revoked since): no question answered from it
        "signer_unpinned": None if key_problem else untrusted_release(path, rdir, rdir.name),
    }
    return out


def _unlogged(path: Path, state: dict[str, Any]) -> dict[str, Any] | None:
    """From and to of a rollback that serves and is not in rollback.log yet (killed between
    its switch and its line: the next sync or rollback writes it), else None."""
    entry = unlogged_rollback(path, state)
    return None if entry is None else {"from": entry.get("from"), "to": entry.get("to")}


def rollback(path: Path, tag: str | None = None) -> dict[str, Any]:
    """Serve another local release (default: the newest one older than the served one).

    Logged to rollback.log; the release rolled back from is remembered so `kb sync` does not
    bring it straight back (a newer serial is still accepted). `tag` may be newer than the
    served one ("forward": a rollback undone, the only way back to a release `kb sync`
    skips); the entry returned says so, and lists the releases `kb sync` still skips.
    """
    if not DeviceLayout(path).releases.is_dir():  # a mistyped --to: made no directories
        raise SyncError("no earlier local release to roll back to (no device here: `kb sync "
                        "SOURCE --to DIR` makes one)", path=str(path))
    with locked(path, "kb rollback"):
        return rollback_held(path, tag)


def rollback_held(path: Path, tag: str | None, *, revoked: str | None = None,
                  cause: dict[str, str] | None = None) -> dict[str, Any]:
    """`rollback` with the device lock held. `revoked`: why the served release may serve no
    more (its signer unpinned: `settle_trust`), recorded with the switch, and `cause` the
    same as data (``release``, ``event`` key_removed or key_pinned, ``key``) for a reader in
    another language (the Chinese release page); the release rolled back from is then not
    skipped by `kb sync` (once its key is pinned again, the next sync serves it again)."""
    current = served_tag(path)
    again = f"kb rollback {tag or ''}".rstrip()
    try:
        check_device_dir(path)
        warnings = settle_rollback(path, load_state(path), "kb rollback")  # one killed
        have = release_dirs(path)
        default = tag is None
        tag = _rollback_target(path, current, have, tag)
        again = f"kb rollback {tag}"
        try:
            entry = _rollback_locked(path, current, tag, have[tag], revoked, cause)
        except SyncError as exc:  # the default one no pinned key vouches for: name one that is
            vouched = _vouched_below(path, tag, have) if default else None
            if vouched is None or untrusted_release(path, have[tag], tag, served=False) is None:
                raise
            raise SyncError(f"{exc.message}; `kb rollback {vouched}` serves the newest older "
                            "release a pinned key signs", path=exc.path) from None
        except OSError as exc:  # a full disk, a read-only releases/: which release serves
            with interrupts_held():
                clean_staging(path)
                _settle_stopped(path)
                raise cannot_write(path, exc, current) from None
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM under `kb rollback`
        with interrupts_held():  # a second stop waits for the clean-up and the line
            with contextlib.suppress(OSError):
                clean_staging(path)
            _settle_stopped(path)
            raise FailedSync.stopped(path, current, again,
                                     after="nothing more to run").interrupted(path) from None
    return entry | {"warnings": list(warnings)} if warnings else entry


def _settle_stopped(path: Path) -> None:
    """Log the rollback stopped after its switch (Ctrl-C, SIGTERM, a write refused), or
    forget it when it was stopped before: rollback.log says what happened
    (`settle_rollback`); a log that cannot be written keeps it for the next command."""
    with contextlib.suppress(KbError, OSError):
        settle_rollback(path, load_state(path), None)


def _rollback_locked(path: Path, current: str | None, tag: str, rdir: Path,
                     revoked: str | None = None, cause: dict[str, str] | None = None
                     ) -> dict[str, Any]:
    """`rollback` from `current` to the local release `tag` (in `rdir`), the lock held;
    returns its rollback.log entry (`rollback_held` says what `revoked` changes)."""
    state = load_state(path)  # first: one that cannot be read stops the rollback unswitched
    # a sync killed at its switch left it under way: settled against `current` now, before
    # this rollback moves `current` (written with the state below)
    if "last_sync" in state:
        state["last_sync"] = switch_outcome(path, state["last_sync"], settled=True)
    # release.json / release.sig edited since install: written back from the release commit
    # (only bytes of the sha256 verified.json recorded), as an up-to-date sync does for the
    # served release; the checks below then find the signed ones, or refuse
    restore_release_files(rdir, DeviceLayout(path).repo)
    check_signer(path, rdir, tag)
    manifest = load_manifest(rdir)
    settled, hashed = settled_clock(path), dict[str, Signature]()
    # data/ alone must verify: index/ is derived from it, so one that fails its check
    # (damaged, derived by a kbtools with another tokenizer, or not the bytes an older
    # release's manifest pins) is derived again from it, as `kb sync` does, while the
    # served release keeps serving
    # the files beside data/ first: data/ is checked against manifest.json, which must be
    # the one release.json (signed) names, or a manifest rewritten on the device to list
    # edited data verifies file by file
    problems = (release_file_problems(rdir)
                or verify_files(rdir, manifest, derived=False, signed=hashed))
    if problems:
        raise SyncError(f"{tag} no longer verifies: {problems[0]}; not switching",
                        path=str(path))
    clean_staging(path)
    # what was hashed and found as listed (changed before the clock read ahead of it):
    # not hashed again to derive from, nor to be remembered for the first open
    verified = {rel: sig for rel, sig in hashed.items()
                if rel in manifest.get("artifacts", {}) and changed_before(sig, settled)}
    rederived = rederive(rdir, DeviceLayout(path).staging(tag), tag, verified, verified)
    rolled = set(state.get("rolled_back", []))
    undone = tag in rolled  # a rollback from it, undone: `kb sync` takes it again
    if current and _serial(current) > _serial(tag) and revoked is None:
        rolled.add(current)
    rolled.discard(tag)
    state["rolled_back"] = sorted(rolled, key=_serial)
    # the release rolled back from was accepted: a sync never goes below it
    state["highest_serial"] = max(int(state.get("highest_serial", 0)),
                                  _serial(current) if current else 0)
    # recorded before the switch: a rollback killed (or a power cut) right after it
    # must not leave the release rolled back from for the next sync to serve again;
    # killed before the switch, running the same rollback again completes it. Its log
    # line too, as pending: killed between the switch and the line, the next command
    # holding the lock writes it (`settle_rollback`); before the switch, it is dropped
    entry = {"at": _now().isoformat(), "from": current, "to": tag,
             "user": os.environ.get("USER") or os.environ.get("LOGNAME") or "?"} \
        | ({"why": revoked} if revoked else {}) | ({"cause": cause} if cause else {})
    state[PENDING_ROLLBACK] = entry
    write_state(path, state)
    switch_to(path, tag)
    try:
        append_log(path, ROLLBACK_LOG, entry)
    except SyncError as exc:  # the switch is done: say so, not only that the log failed
        raise SyncError(f"{tag} serves now (was {current or 'nothing'}), but the rollback is "
                        f"not in {ROLLBACK_LOG}: {exc.message}; the next `kb sync` or `kb "
                        "rollback` writes it there", path=exc.path) from None
    state.pop(PENDING_ROLLBACK)
    with contextlib.suppress(OSError):  # left: the next command finds the line logged
        write_state(path, state)
    vouch(rdir, verified)  # the first open of it costs a stat per file
    # forward: to a newer local release than the one served (undoing a rollback from it)
    said = {"forward": bool(current) and _serial(tag) > _serial(current or tag),
            "undone": undone, "skipped": state["rolled_back"]}
    return entry | said | ({"rederived": rederived} if rederived else {})


def _vouched_below(path: Path, tag: str, have: dict[str, Path]) -> str | None:
    """The newest local release older than `tag` that a pinned key vouches for, if any.
    Why: after `kb trust remove` of the key that signed the release below the served one,
    `kb rollback` refused it, naming nothing the operator could roll back to instead."""
    for older in sorted((t for t in have if _serial(t) < _serial(tag)), key=_serial,
                        reverse=True):
        try:
            if untrusted_release(path, have[older], older, served=False) is None:
                return older
        except SyncError:
            continue
    return None


def _rollback_target(path: Path, current: str | None, have: dict[str, Path],
                     tag: str | None) -> str:
    """The release to roll back to: `tag`, or the newest local one older than `current`."""
    if tag is None:
        older = sorted((t for t in have if current is None or _serial(t) < _serial(current)),
                       key=_serial, reverse=True)
        if not older:
            raise SyncError("no earlier local release to roll back to "
                            "(see `kb releases`)", path=str(path))
        tag = older[0]
    tag = spelled_tag(tag)  # "kb-r1 ", KB-R1, ｋｂ－ｒ１: kb-r1; "r1", "1": refused below
    if tag not in have:
        raise SyncError(not_on_device(tag, have, path), path=str(path))
    if tag == current:
        raise SyncError(still_serves(path, f"{tag} is already served"), path=str(path))
    return tag


# --- kb trust add | remove: what serves once the pinned keys change --------------------

def add_key(path: Path, pub: Path) -> dict[str, Any]:
    """`kb trust add`: pin the key in file `pub`, then settle what serves (`settle_trust`:
    a key pinned while an unsigned release serves leaves it vouched for by none)."""
    with locked(path, "kb trust"):
        check_device_dir(path)
        res = pin_key(path, pub)
        return res | settle_trust(path, f"key {res['key_id']} is pinned now",
                                  {"event": "key_pinned", "key": res["key_id"]})


def remove_key(path: Path, which: str, *, allow_unsigned: bool = False) -> dict[str, Any]:
    """`kb trust remove`: unpin a key (`unpin_key`), then settle what serves: a release its
    key signed answers no more (`settle_trust`)."""
    with locked(path, "kb trust"):
        check_device_dir(path)
        res = unpin_key(path, which, allow_unsigned=allow_unsigned)
        ids = ", ".join(res["key_id"])
        return res | settle_trust(path, f"key {ids} was removed by the operator",
                                  {"event": "key_removed", "key": ids})


def settle_trust(path: Path, change: str, cause: dict[str, str] | None = None
                 ) -> dict[str, Any]:
    """After the pinned keys changed (`change`, in words; `cause`, as data: event and
    key, for the rollback's log entry), the device lock held. When no
    pinned key vouches for the served release any more (`untrusted_release`), the newest
    kept release one does serves instead: a rollback as `kb rollback` makes it (verified,
    switched by one rename, logged with `change` as its why), the next older one tried when
    one fails; a release the operator rolled back from stays skipped. With none, nothing
    switches and questions are refused (`intact.check_intact`). Returns nothing to say, or
    ``switched`` (the rollback.log entry) with a ``notice`` line, or a ``warning`` line."""
    served = served_release(path)
    if served is None:
        return {}
    refused = untrusted_release(path, served, served.name)
    if refused is None:
        return {}
    current = served.name
    signer = release_signers(served)[0]
    rolled = set(read_state(path).get("rolled_back", []))
    tried: list[str] = []
    for tag, rdir in sorted(release_dirs(path).items(), key=lambda t: _serial(t[0]),
                            reverse=True):
        if tag == current or tag in rolled or untrusted_release(path, rdir, tag):
            continue
        try:
            entry = rollback_held(path, tag, revoked=f"{current}: {change}",
                                  cause={"release": current, **(cause or {})})
        except SyncError as exc:
            tried.append(f"{tag}: {exc.message}")
            continue
        was = f"signed by key {signer}, no longer pinned" if signer else "not signed"
        again = (f"`kb trust add PUB` with key {signer} and `kb sync` serve {current} again"
                 if signer else f"`kb sync` serves a release newer than {tag} signed by a "
                 "pinned key")
        passed = f"; passed over: {'; '.join(tried)}" if tried else ""
        return {"switched": entry,
                "notice": f"switched from {current} to {tag}: {current} is {was} ({change}), "
                          f"so it answers no more; {tag} is the newest kept release signed "
                          f"by a pinned key ({release_signers(rdir)[0]}{passed}), served as "
                          f"`kb rollback {tag}` would; {again}"}
    kept = f" (kept releases refused: {'; '.join(tried)})" if tried else ""
    return {"warning": f"{refused}; no kept release is signed by a pinned key{kept}"}
