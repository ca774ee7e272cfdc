"""`kb sync`: fetch the newest release into a device directory, verify it, switch to it.

Order of work (nothing of a release is written before step 5; the served release changes
only in the last step, by one rename):

1. lock the device dir, refuse links planted in it, drop leftovers of interrupted syncs;
2. list the source's refs (remote, path or bundle file) and pick the highest release serial
   (skipping tags the operator rolled back from, which the result names); keep the served
   release when it is that one, or when every tag above the highest serial ever accepted
   was rolled back from (its derived index checked, and derived again when it fails:
   `kbtools.ship.install.rederive`); else refuse a serial below that floor (a downgrade),
   or a release held here whose tag the source has moved since (`moved_tags`; another
   held release moved is a warning);
3. fetch the artifacts branch and that one tag into DIR/repo.git (depth 1 on first sync;
   git checks every object it receives, ``fetch.fsckObjects``, and a bundle's before the
   fetch, `kbtools.ship.git.check_bundle`: git 2.39 does not for a bundle);
4. check, from git objects alone (`kbtools.ship.verify`, `kbtools.ship.trust`): the tag is
   annotated, on the artifacts branch, its message naming the manifest hash; release.json
   names the tag and serial; the signature is by a trusted key (pinned, or given on first
   use; following key rotations); the manifest's hash, schema, format version and path
   rules; the whole tree is exactly the manifest's artifacts plus the top-level release
   files, all regular files of the listed sizes; the embedding models are the ones here;
5. write those files into releases/<tag>.staging (no link followed) and check them on disk:
   no extra entries, every artifact's sha256/size (reads bounded by the listed size);
6. derive index/ with `kbtools.index.materialize.materialize`, from the served release
   when possible (only changed shards redone), and self-check it (steps 4-6 are `kbtools.ship.install.install_release`, which a git
   checkout of a release goes through too);
7. rename staging -> releases/<tag>, record its serial as the highest accepted (before the
   switch) with the keys it was checked with (`trust.pending`: killed after the next
   step, the next sync checks it with them again) and the switch under way
   (`device.switching`, which `kb status` reads against `current` when the sync was
   killed before recording its outcome), pin keys (first use or rotation),
   replace the `current` symlink, prune old
   releases (a failure to prune is a warning: the new release is already served).

Stopped anywhere under the lock (Ctrl-C, SIGTERM), what it staged is removed, the stop is
recorded in state.json naming the release `current` serves, and one line says so
(`kbtools.ship.sync_outcome.stopped`); a second stop meanwhile waits for that clean-up.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kbtools.beneath import mkdir_beneath
from kbtools.config import Config, branch_problem, load_config
from kbtools.errors import KbError, Keyed, SyncError, TransientSyncError, UsageError
from kbtools.index.layout import (
    RELEASES,
    DeviceLayout,
    ReleaseLayout,
)
from kbtools.index.manifest import load_manifest, verify_files
from kbtools.index.stamps import Signature, changed_before
from kbtools.ship import checkout, devicestate, intact, readonly, serves, trust
from kbtools.ship import device as dev
from kbtools.ship.fetching import deepen, fetch, kept_since, unchanged_here
from kbtools.ship.git import (
    SourceRefs,
    compact,
    ignored_tags,
    is_ancestor,
    list_source,
    moved_note,
    moved_tags,
    not_following,
    parse_serial,
    point_head_at,
    rev_parse,
    tag_name,
)
from kbtools.ship.gitrun import (
    NetLimits,
    default_limits,
    limits_from,
    run_git,
)
from kbtools.ship.install import (
    Installed,
    install_release,
    rederive,
    release_file_problems,
    restore_release_files,
    settled_clock,
    tag_manifest_hash,
)
from kbtools.ship.offered import (
    instead_of,
    normalize_source,
    other_branches,
    passed_over,
    redirected,
    refusal,
    refused_notes,
    refused_now,
    withdrawn,
)
from kbtools.ship.release import age_warning, release_settings
from kbtools.ship.serves import NEXT_TRUSTED, nothing_changed
from kbtools.ship.sourceurl import scrub, scrubbed, shown_source
from kbtools.ship.status_words import keyed_why
from kbtools.ship.sync_outcome import failed, recorded, stopped, sync_time


@dataclass(frozen=True)
class SyncResult:
    tag: str
    serial: int
    previous: str | None
    changed: bool
    source: str
    signed_by: str | None = None
    fetched_bytes: int = 0
    warnings: tuple[str, ...] = field(default_factory=tuple)
    trust: tuple[str, ...] = field(default_factory=tuple)  # keys pinned/unpinned, one line each
    skipped: tuple[str, ...] = field(default_factory=tuple)  # newer tags rolled back from
    rederived: str | None = None  # the served index failed its check and was derived again
    # the release's objects were in repo.git before this sync fetched (an earlier attempt
    # kept them): when they came ("" not known; `fetching.kept_since`), else None
    kept: str | None = None
    # tags rolled back from that the new one passes: a sync skips them no more
    no_longer_skipped: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "warnings": list(self.warnings), "trust": list(self.trust),
                "skipped": list(self.skipped),
                "no_longer_skipped": list(self.no_longer_skipped)}


def check_tag(gd: Path, source: str, branch_ref: str, branch: str, tag: str,
              limits: NetLimits | None = None, served: str | None = None,
              device: Path | None = None) -> tuple[str, str]:
    """The tag must be annotated and point at a commit on the artifacts branch (the history
    between them fetched, and checked, by `deepen` when the first fetch was shallow) that
    descends from the one of `served`, the release `device` serves (`git.not_following`:
    another repository's release signed by the same key, or a rewritten branch)."""
    commit, mhash = tag_manifest_hash(gd, f"refs/tags/{tag}", source)
    tip = rev_parse(gd, f"refs/heads/{branch}")
    if tip is None:
        raise SyncError(f"{tag} or branch {branch} missing after fetch", path=source,
                        key="sync_tag_missing", values={"release": tag, "branch": branch})
    if commit != tip and not is_ancestor(gd, commit, tip):
        if (gd / "shallow").exists():
            deepen(gd, source, branch_ref, branch, limits, served=served)
        if not is_ancestor(gd, commit, tip):
            raise SyncError(f"{tag} points at commit {commit[:12]} which is not on the "
                            f"{branch} branch; refusing it", path=source,
                            key="sync_not_on_branch", values={"release": tag, "branch": branch})
    why = not_following(gd, served, commit, tag, branch)
    if why is not None:
        raise nothing_changed(device, f"{why}; refusing it", served=served, sep=", ",
                              after=" (a new device directory takes it)", at=source,
                              key="sync_not_following", values={"release": tag})
    return commit, mhash


def sync(source: str, device: Path, *, trusted: list[Path] | None = None,
         branch: str = "kb-index", keep: int = 5, max_age_days: int = 30,
         limits: NetLimits | None = None) -> SyncResult:
    """Bring `device` to the newest verified release offered by `source`; network git
    commands given up past `limits` (default: `gitrun.default_limits`)."""
    source = normalize_source(source)
    if (problem := branch_problem(branch)) is not None:  # before anything is written
        raise SyncError(problem, path=str(device), key="sync_bad_branch",
                        values={"branch": branch})
    checkout.refuse_device_in_checkout(device)  # before anything is written there
    device.mkdir(parents=True, exist_ok=True)
    device = device.resolve()
    try:
        return _shown(_sync(source, device, trusted or [], branch, keep, max_age_days,
                            limits or default_limits()))
    except KbError as exc:  # the source named without its credentials (`sourceurl`)
        raise scrubbed(exc) from None


def _shown(res: SyncResult) -> SyncResult:
    """`res` as printed: its source and warnings without a URL's credentials."""
    return replace(res, source=shown_source(res.source), warnings=tuple(map(scrub, res.warnings)))


def _sync(source: str, device: Path, trusted: list[Path], branch: str, keep: int,
          max_age_days: int, limits: NetLimits) -> SyncResult:
    """`sync` under the lock; state.json keeps `source` as given, shows it `shown_source`."""
    with serves.locked(device, "kb sync"):
        served_before = dev.served_tag(device)
        state: dict[str, Any] | None = None
        try:
            dev.check_device_dir(device)
            state = devicestate.load_state(device)
            # a rollback killed between its switch and its rollback.log line: logged now
            settled = devicestate.settle_rollback(device, state, "kb sync")
            devicestate.record_start(device, state, shown_source(source), served_before,
                                     sync_time())
            try:
                result = _sync_locked(source, device, state, trusted, branch, keep,
                                      max_age_days, limits)
                result = _shown(replace(result, warnings=settled + result.warnings
                                        + _prune_copies()))
            except (KbError, OSError) as exc:
                raise failed(device, state, source, served_before, exc) from None
            state["last_sync"] = {"ok": True, "source": result.source, "tag": result.tag,
                                  "changed": result.changed, "at": sync_time(),
                                  **devicestate.warnings_record(result.warnings)}
            state["source"] = source
            state["highest_serial"] = max(result.serial, int(state.get("highest_serial", 0)))
            return replace(result, warnings=result.warnings + recorded(device, state))
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM under `kb sync`, anywhere under the
            # lock: the failure's clean-up and the last record too (after the switch, the new
            # release serves and state.json says so, naming the source to use)
            raise stopped(device, state, source, served_before) from None


def _prune_copies() -> tuple[str, ...]:
    """Remove the index copies read-only devices no longer need under KB_HOME
    (`kbtools.ship.readonly.prune_copies`: a device made writable and synced needs its copies
    no more); a failure is a warning, the sync has succeeded."""
    try:
        readonly.prune_copies()
    except (OSError, KbError) as exc:
        why = exc.message if isinstance(exc, KbError) else f"{exc.filename}: {exc.strerror}"
        return (Keyed(f"pruning the index copies under KB_HOME failed: {why}", "warn_copies",
                      {"reason": why}),)
    return ()


def sync_device(device: Path, source: str | None = None, *, trusted: Sequence[Path] = (),
                cfg: Config | None = None, limits: dict[str, float | None] | None = None
                ) -> SyncResult:
    """`kb sync`: `sync` with kb.toml's ``[release]`` settings and ``[sync]`` limits, each
    of `limits` given (`NetLimits` field -> value: `kb sync`'s options) over kb.toml's;
    `source` defaults to the device's last one, and the trusted keys are `trusted` plus
    ``release.trusted_keys``."""
    if source is None:
        # unreadable: said, not "never synced"
        source = devicestate.load_state(device).get("source")
        if not source:
            raise UsageError("no SOURCE given and this device has never synced", path=str(device))
    cfg = cfg if cfg is not None else load_config()
    settings = release_settings(cfg)
    return sync(source, device, trusted=[*trusted, *settings.trusted_keys],
                branch=settings.branch, keep=settings.keep,
                max_age_days=settings.max_age_days, limits=sync_limits(cfg, limits))


def sync_limits(cfg: Config, given: dict[str, float | None] | None = None) -> NetLimits:
    """kb.toml ``[sync]`` over the defaults, the values in `given` (None: not given; `kb
    sync`'s options) over both (`gitrun.limits_from`)."""
    return limits_from(cfg.section("sync"), given)


def _sync_locked(source: str, device: Path, state: dict[str, Any], extra_keys: list[Path],
                 branch: str, keep: int, max_age_days: int, limits: NetLimits, *,
                 refused: dict[int, str] | None = None, listed: SourceRefs | None = None,
                 newest: SyncError | None = None) -> SyncResult:
    """The sync, the lock held. `refused`: releases newer than the one it takes whose
    signature the trusted keys do not vouch for (serial -> why), passed over
    (`offered.passed_over`), with what the source `listed` (not asked twice); `newest`, the
    error the newest of them was refused with (what failed, `KbError.key`, is its)."""
    refused = refused or {}
    dev.clean_staging(device)
    gd = DeviceLayout(device).repo
    if not (gd / "HEAD").is_file():
        # HEAD naming the artifacts branch: `git clone DIR/repo.git` checks out the release
        run_git(gd, "init", "-q", "--bare", f"--initial-branch={branch}", error=SyncError)
    point_head_at(str(gd), branch)  # a device made before session 35: HEAD named master
    begin = trust.start(device, extra_keys)
    try:
        refs = listed or list_source(gd, source, branch, limits=limits)
    except SyncError as exc:  # unreachable, refused, damaged: the device as it was
        raise nothing_changed(device, exc.message, at=exc.path, key="sync_unreachable") from None
    if refs.branch_ref is None:
        raise nothing_changed(device, f"no {branch} branch at the source "
                              f"({other_branches(refs.branches)})", at=source,
                              key="sync_no_branch", values={"branch": branch})
    # what `kb releases` says of a release listed at the source and not taken (`refused_now`)
    state["refused"] = refused_now(refused, refs.tags)
    state.pop("not_fetched", None)  # `offered.instead_of` says which, when one is not
    rolled_back = set(state.get("rolled_back", []))
    offered = {s: r for s, r in refs.tags.items()
               if tag_name(s) not in rolled_back and s not in refused}
    if not offered:
        raise nothing_changed(device, "the source has no release tags to serve", at=source,
                              key="sync_no_tags")
    serial = max(offered)
    current = dev.served_tag(device)
    moved = moved_tags(gd, refs.tags, set(dev.release_dirs(device)))
    notes = ignored_tags(source, refs) + redirected(source, refs.moved_to, device) + tuple(
        moved_note(t, *moved[t], served=t == current)
        for t in sorted(moved, key=lambda t: parse_serial(t) or 0)
        if t == current or t != tag_name(serial))  # the one to install: refused
    cur_serial = parse_serial(current) if current else None
    floor = max(int(state.get("highest_serial", 0)), cur_serial or 0)
    if serial == cur_serial or (serial < floor and current is not None
                                and max(refs.tags) >= floor):
        # nothing newer to take: the served release, or newer ones rolled back from
        state["keep"] = keep
        return _up_to_date(device, source, current or tag_name(serial), begin, refs.tags,
                           rolled_back, max_age_days, notes, keep=keep)
    tag = tag_name(serial)
    if tag in moved:
        had, now = moved[tag]
        raise SyncError(f"{tag} was moved at the source: its tag names {now[:12]} now, not the "
                        f"{had[:12]} this device installed (a release tag never changes: a new "
                        "release takes a new serial); refusing it, the served release is "
                        "unchanged", path=source, key="sync_tag_moved", values={"release": tag})
    skipped = tuple(tag_name(s) for s in sorted(refs.tags) if s > serial
                    and tag_name(s) in rolled_back)
    if serial < floor:  # every tag at or above the floor gone from the source
        raise nothing_changed(device, f"newest release at the source is {tag}, older than "
                              f"{tag_name(floor)} already accepted here ("
                              f"{withdrawn(floor, current)}); refusing a downgrade", sep=", ",
                              after=" (`kb rollback` serves an older local release)",
                              at=source, key="sync_downgrade", values={"release": tag})
    fetched, hashed = 0, dict[str, Signature]()
    final = DeviceLayout(device).release(tag)
    redo = _discard_unsound(device, tag, hashed)
    kept = kept_since(gd, tag)
    if not final.is_dir():
        try:
            fetched = fetch(gd, source, refs.branch_ref, branch, offered[serial][0], tag, limits,
                            served=current)
        except TransientSyncError as exc:  # cut off, or past the size limit
            raise instead_of(exc, refused, state, tag) from None
        try:
            try:
                done = _install(device, source, refs.branch_ref, branch, tag, serial, begin,
                                floor, limits)
            except trust.MissingHistory:
                # signed by a key a rotation introduced after the trusted ones, and the first
                # fetch was shallow: fetch the branch's history, follow the rotations, check
                # again
                fetched += deepen(gd, source, refs.branch_ref, branch, limits, served=current)
                done = _install(device, source, refs.branch_ref, branch, tag, serial, begin,
                                floor, limits)
        except SyncError as exc:  # the newest refused by its signature, or one below it
            if isinstance(exc, TransientSyncError):  # the device's or the link's failure,
                raise instead_of(exc, refused, state, tag) from None  # not the release's
            if not isinstance(exc, trust.Untrusted) and not refused:  # by anything: passed
                exc.key = exc.key or "sync_release_refused"  # (what failed, in any language)
                raise
            if not any(max(cur_serial or 0, floor - 1) < s < serial for s in offered):
                back = tuple(tag_name(s) for s in sorted(refs.tags) if s > (cur_serial or 0)
                             and tag_name(s) in rolled_back)
                state["refused"] = refused_now(refused | {serial: refusal(exc)}, refs.tags)
                raise _why_newest(passed_over(refused | {serial: refusal(exc)}, current,
                                              still_serves(device, f"{current} still serves"),
                                              back), newest or exc) from None
            # an older release the keys vouch for may still be newer than the one served
            res = _sync_locked(source, device, state, extra_keys, branch, keep, max_age_days,
                               limits, refused=refused | {serial: refusal(exc)}, listed=refs,
                               newest=newest or exc)
            return replace(res, fetched_bytes=res.fetched_bytes + fetched)
        plan, hashed = done.plan, done.hashed
    else:  # installed by an interrupted sync, its files found as listed: its signature is
        # checked again, with the keys that sync checked it with when it stopped after
        # pinning its keys, and its index/ (derived again when it fails)
        begin = trust.resumed(begin, state.get("pending_trust"), tag)
        plan = trust.plan_installed(final, rev_parse(gd, f"refs/tags/{tag}"), gd, begin,
                                    floor, tag)
        rederive(final, DeviceLayout(device).staging(tag), tag, hashed, hashed)
    # accepted: recorded before the switch, so a sync killed after it never lowers the floor
    state["highest_serial"] = max(serial, int(state.get("highest_serial", 0)))
    state["keep"] = keep  # what the prune after the switch keeps: said of a release it took
    # releases rolled back from that this newer one passes need skipping no more (a sync
    # never goes below it): `kb status` and `kb releases` stop saying a sync skips them
    still = [t for t in state.get("rolled_back", []) if (parse_serial(t) or -1) > serial]
    ended = tuple(t for t in state.get("rolled_back", []) if t not in still)
    if still:
        state["rolled_back"] = still
    else:
        state.pop("rolled_back", None)
    state["pending_trust"] = trust.pending(begin, tag)
    # killed from here to the outcome's record (SIGKILL, a power cut), state.json would name
    # the sync before as the last one, and its source, while this release may serve: the
    # switch under way is recorded instead, read against `current` (`serves.switch_outcome`)
    state["last_sync"] = devicestate.switching(shown_source(source), current, tag, sync_time())
    state["source"] = source
    devicestate.write_state_before_switch(device, state, tag)
    pinned = trust.apply(device, plan, tag)
    dev.switch_to(device, tag)
    state.pop("pending_trust")  # written with the sync's outcome (`sync`)
    warnings = (refused_notes(refused, tag) + begin.warnings + redo + notes
                + _age_warn(final, max_age_days)
                + prune_releases(device, keep, tag) + compact_repo(gd))
    # what was verified, remembered for the first open (after the prune: removing an old
    # release's hard link to a file changes that file's change time, so it is hashed here)
    intact.vouch(final, hashed)
    return SyncResult(tag, serial, current, True, source, plan.signed_by, fetched,
                      warnings, tuple(pinned), skipped, no_longer_skipped=ended, kept=kept)


def _discard_unsound(device: Path, tag: str, hashed: dict[str, Signature]
                     ) -> tuple[str, ...]:
    """releases/<tag>, the release to serve, is there already when a sync was stopped after
    installing it and before its switch: the next sync switched to it unchecked, so files
    a power cut or an edit changed since were served (every query then refused the release,
    and the one served before was gone). Its files are checked as `kb rollback` checks them
    (`hashed` gets those found as listed); what is not such a release, or fails, is removed
    and the release installed again from the source (a warning says so)."""
    final = DeviceLayout(device).release(tag)
    if not os.path.lexists(final):
        return ()
    why: str = Keyed("not a release directory", "release_not_dir")
    if final.is_dir():
        settled, signed = settled_clock(final.parent), dict[str, Signature]()
        try:
            manifest = load_manifest(final)
            problems = release_file_problems(final) or verify_files(
                final, manifest, derived=False, signed=signed)
        except KbError as exc:
            problems = [refusal(exc)]
        if not problems:
            hashed.update({rel: sig for rel, sig in signed.items()
                           if changed_before(sig, settled)})
            return ()
        why = problems[0]
    dev.discard(device, tag)
    return (Keyed(f"{RELEASES}/{tag}, already on the device (a sync stopped before its "
                  f"switch), failed its check ({why}); it was installed again from the source",
                  "warn_discarded", {"dir": f"{RELEASES}/{tag}"} | keyed_why(why)),)


def prune_releases(device: Path, keep: int, tag: str) -> tuple[str, ...]:
    """Delete releases beyond the newest `keep`; run after the switch to `tag`, so a failure
    (a release directory that cannot be moved aside or removed) is a warning: the new
    release is served, and the next sync prunes again."""
    try:
        dev.prune(device, keep, {t: parse_serial(t) or -1 for t in dev.release_dirs(device)})
    except OSError as exc:
        what = Path(exc.filename).name if exc.filename else "an old release"
        return (Keyed(f"pruning old releases failed at {what}: {exc.strerror or exc}; {tag} is "
                      "served, the next sync prunes again", "warn_prune",
                      {"what": what, "reason": exc.strerror or exc, "release": tag}),)
    return ()


def compact_repo(gd: Path) -> tuple[str, ...]:
    """Repack repo.git when its packs (one per fetch) pile up, under the device lock (git's
    own `gc --auto` rule, `kbtools.ship.git.compact`); a failure is a warning, since the
    release is already served."""
    try:
        compact(gd)
    except SyncError as exc:
        return (Keyed(f"repacking {gd} failed: {exc.message}; the release is served, the "
                      "next sync tries again", "warn_repack", {"repo": gd, "reason": exc.message}),)
    return ()


def _up_to_date(device: Path, source: str, tag: str, begin: trust.TrustStart,
                tags: dict[int, tuple[str, str]], rolled_back: set[str],
                max_age_days: int, moved: tuple[str, ...] = (), *, keep: int) -> SyncResult:
    """Nothing newer to serve: keep `tag`, pin keys given on first use when it is signed by
    one, and derive its index/ again when it fails its check (`install.rederive`). Releases
    beyond the newest `keep` are pruned, as after a switch: a sync killed after its switch
    left them, or `keep` was lowered since, and each sync keeps only that many. Its files
    are left verified under KB_HOME (`intact.vouch`: those hashed before, or by the
    rederivation, are stat'ed, the others hashed), so the first question costs a stat per
    file, as after a sync that switches; a file found changed is not remembered, and the
    question refuses it."""
    layout = DeviceLayout(device)
    served = dev.served_release(device) or layout.release(tag)
    serial = parse_serial(tag) or 0
    hashed: dict[str, Signature] = {}
    rederived = rederive(served, layout.staging(tag), tag, hashed)
    restore_release_files(served, layout.repo)  # release.json edited on the device
    settled, notes = trust.settle_served(device, served, begin, tag)
    pinned = trust.apply(device, settled, tag) if settled else []
    pruned = prune_releases(device, keep, tag)
    intact.vouch(served, hashed)  # after the prune, as after a switch (a hard link gone)
    skipped = tuple(tag_name(s) for s in sorted(tags) if s > serial
                    and tag_name(s) in rolled_back)
    revoked = trust.untrusted_release(device, served, tag, then=NEXT_TRUSTED)
    if revoked is not None:  # up to date, and answering nothing: not a sync that succeeded
        raise SyncError(f"the source offers nothing newer than {tag}, and {revoked}",
                        path=source, key="sync_nothing_newer", values={"release": tag})
    # the served release's signer, as its install recorded it (None said "unsigned" of a
    # signed release to a reader of --json), or as the keys pinned now found it
    signer = settled.signed_by if settled else devicestate.read_json(
        ReleaseLayout(served).verified).get("signed_by")
    return SyncResult(tag, serial, tag, False, source,
                      signed_by=signer if isinstance(signer, str) else None,
                      warnings=(begin.warnings + moved + notes
                                + _age_warn(served, max_age_days) + pruned),
                      trust=tuple(pinned), skipped=skipped, rederived=rederived)


def _install(device: Path, source: str, branch_ref: str, branch: str, tag: str, serial: int,
             begin: trust.TrustStart, floor: int, limits: NetLimits) -> Installed:
    """Check the fetched release (tag on the branch, then `install_release`: git objects,
    export into staging, files on disk, derived index/) and rename it into releases/.
    Returns who signed, the keys to pin and the signatures of the files hashed."""
    layout, served = DeviceLayout(device), dev.served_tag(device)
    commit, tag_mhash = check_tag(layout.repo, source, branch_ref, branch, tag, limits,
                                  served=served, device=device)
    mkdir_beneath(device, RELEASES)
    return install_release(layout.repo, commit, tag, serial, tag_mhash, begin, floor,
                           layout.staging(tag), layout.release(tag),
                           previous=dev.served_release(device), kept=unchanged_here(served))


def _why_newest(err: SyncError, newest: SyncError) -> SyncError:
    """`err`, a sync's end that passed over the releases it refused (`offered.passed_over`),
    saying what failed as the error of the `newest` refused does (its key and values: an
    altered manifest is not an untrusted signature in any language); as it is when that
    error has no key."""
    if newest.key is not None:
        err.key, err.values = newest.key, dict(newest.values)
    return err


def still_serves(device: Path, said: str | None = None) -> str:
    """What a sync that changed nothing says of the device (`serves.still_serves`), with
    what the next sync does when no pinned key vouches for the served release."""
    return serves.still_serves(device, said, then=NEXT_TRUSTED)


def _age_warn(release: Path | None, max_age_days: int) -> tuple[str, ...]:
    if release is None:
        return ()
    warning = age_warning(release.name, devicestate.read_json(ReleaseLayout(release).release_json)
                          .get("created"), max_age_days)
    return () if warning is None else (warning,)
