"""Install one release commit as a verified release directory: the path `kb sync` and a git
checkout of a release share, so both apply the same rules with the same code.

`install_release` takes a release commit that sits in a git directory (a device's
repo.git, or a clone of the artifacts repository) and:

1. reads the tag (`tag_manifest_hash`: annotated, its message naming the manifest hash);
2. checks, from git objects alone (`kbtools.ship.verify`, `kbtools.ship.trust`):
   release.json names the tag and serial; the signature is by a trusted key (following
   rotations since serial `floor`); the manifest's hash, schema and path rules; the tree is
   exactly the manifest's artifacts plus the top-level release files, all regular files of
   the listed sizes; the embedding models are the ones on this machine, none a folder
   where release files are written (`model_path_problem`);
3. exports those files into a new staging directory (no link followed; a file the previous
   release holds with the same sha256 is hard-linked from it, so an unchanged asset folder
   is stored once however many releases a device keeps), checks what is on disk (no extra
   entries; every artifact's sha256 and size), refused before anything is written when
   they would not fit on the device's file system (`kbtools.ship.verify.space_problem`);
4. derives index/ with `kbtools.index.materialize.materialize` (from a previous release's
   index when the caller has one: only changed shards are redone) and checks it with
   `kbtools.index.selfcheck.check_derived` (an older release that pins index/ bytes in the
   manifest's ``derived`` is derived afresh and hashed instead);
5. writes verified.json and renames staging into its final place.

The caller holds the lock of the directory it installs into and decides what "final" is.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.beneath import atomic_write_beneath, read_beneath, write_beneath
from kbtools.config import kb_home
from kbtools.embed.registry import get_embedder, registered_embedders
from kbtools.errors import KbError, ModelError, SyncError, TransientSyncError, plural
from kbtools.fsutil import exchange_dirs, fsync_dir, sync_tree
from kbtools.index.incremental import changed_shards
from kbtools.index.layout import (
    DERIVED_DIR,
    MANIFEST,
    RELEASE_JSON,
    RELEASE_SIG,
    VERIFIED,
    ReleaseLayout,
)
from kbtools.index.manifest import MAX_MANIFEST_BYTES, load_manifest, verify_files
from kbtools.index.materialize import materialize
from kbtools.index.selfcheck import (
    SELF_CHECK,
    check_derived,
    derived_problems,
    record_derived,
)
from kbtools.index.stamps import Signature, changed_before, clock_past
from kbtools.ship import trust
from kbtools.ship.devicestate import MAX_STATE_BYTES, read_json
from kbtools.ship.git import TreeEntry, read_blob, rev_parse
from kbtools.ship.gitrun import run_git
from kbtools.ship.status_words import Keyed
from kbtools.ship.verify import (
    ReleaseMeta,
    check_tree,
    export,
    read_manifest,
    read_meta,
    staging_problems,
)


@dataclass(frozen=True)
class Installed:
    """What `install_release` checked: who signed, the keys to pin, the manifest, and the
    stat signature of each artifact it hashed, changed before the file system's clock was
    read ahead of hashing it (`kbtools.ship.intact.vouch` remembers them)."""

    plan: trust.TrustPlan
    manifest: dict[str, Any]
    manifest_sha256: str
    verified: dict[str, Any]
    hashed: dict[str, Signature] = field(default_factory=dict)


def tag_manifest_hash(gd: Path, tag_ref: str, where: str) -> tuple[str, str]:
    """(commit, manifest sha256 named in its message) of an annotated release tag; a
    lightweight tag or one naming no commit is refused."""
    kind = run_git(gd, "cat-file", "-t", tag_ref, error=SyncError, check=False).strip()
    if kind != "tag":
        raise SyncError(f"{tag_ref.rsplit('/', 1)[-1]} is not an annotated release tag",
                        path=where, key="sync_tag_not_annotated",
                        values={"release": tag_ref.rsplit("/", 1)[-1]})
    commit = rev_parse(gd, tag_ref)
    if commit is None:
        raise SyncError(f"{tag_ref} names no commit", path=where, key="sync_tag_no_commit",
                        values={"release": tag_ref.rsplit("/", 1)[-1]})
    return commit, tag_field(gd, tag_ref, "manifest-sha256")


# A release tag object is a few hundred bytes (`kb release` writes its serial, source commit
# and manifest hash); its message is not signed, and one of hundreds of megabytes (read
# whole, then split) took a device's sync to gigabytes of memory.
MAX_TAG_BYTES = 64 << 10


def tag_field(gd: Path, tag_ref: str, name: str) -> str:
    """The value of the `name:` line of an annotated tag's message ("" when it has none); a
    tag object larger than `MAX_TAG_BYTES` is refused before it is read."""
    size = run_git(gd, "cat-file", "-s", tag_ref, error=SyncError).strip()
    if not size.isdigit() or int(size) > MAX_TAG_BYTES:
        raise SyncError(f"{tag_ref.rsplit('/', 1)[-1]}: its tag object is {size} bytes; a "
                        f"release tag is a few hundred (at most {MAX_TAG_BYTES}): refusing it",
                        key="sync_tag_too_large", values={"release": tag_ref.rsplit("/", 1)[-1]})
    body = run_git(gd, "cat-file", "tag", tag_ref, error=SyncError)
    value = ""
    for line in body.split("\n"):  # git's lines: a tagger name may hold U+2028
        if line.startswith(f"{name}:"):
            value = line.split(":", 1)[1].strip()
    return value


def model_path_problem(key: str, untrusted: Sequence[Path]) -> str | None:
    """Why a release may not name `key` as its embedding model (None: it may): a model key
    that is no registered name is loaded by sentence-transformers as a Hugging Face id or a
    local folder, and a folder holding release files (a served release's data/ on the
    device, a checkout's work tree, a copy under KB_HOME) is bytes the publisher chose:
    pickled weights, or a modules.json naming classes to import (sentence-transformers
    before 6.0 trusted a local folder's), would run them. `untrusted`: the directories
    release files are written to. A key with a '..' segment is refused too."""
    if key in registered_embedders():
        return None
    if ".." in key.replace("\\", "/").split("/"):
        return f"embedding model {key!r} is a path with '..'"
    try:
        target = Path(key).expanduser()
        real = target.resolve() if target.exists() else None
    except (OSError, RuntimeError, ValueError):
        return None
    for root in untrusted:
        try:
            inside = real is not None and real.is_relative_to(root.resolve())
        except OSError:
            continue
        if inside:
            return (f"embedding model {key!r} is a folder inside {root}, where release "
                    "files are written: a release may not have the device load its own "
                    "files as a model")
    return None


def check_models(manifest: dict[str, Any], where: str,
                 untrusted: Sequence[Path] = ()) -> None:
    """This machine must have the exact embedding models the release's vectors came from,
    none of them a folder among `untrusted` (`model_path_problem`)."""
    for key, meta in sorted(manifest.get("models", {}).items()):
        if (problem := model_path_problem(key, untrusted)) is not None:
            raise SyncError(f"{problem}; refusing this release", path=where,
                            key="sync_model_untrusted", values={"release": where, "model": key})
        try:
            local = get_embedder(key).fingerprint()
        except ModelError as exc:
            raise SyncError(f"release needs embedding model {key!r}, not available here: "
                            f"{exc.message}", path=where, key="sync_model_missing",
                            values={"release": where, "model": key}) from None
        if local != meta["fingerprint"]:
            raise SyncError(f"release vectors come from model {meta['fingerprint']} but this "
                            f"machine has {local}; update kbtools/the model first", path=where,
                            key="sync_model_other", values={"release": where, "model": key})


@dataclass(frozen=True)
class Checked:
    """A release commit that passed every check made from git objects (`verify_release`)."""

    meta: ReleaseMeta
    plan: trust.TrustPlan
    manifest: dict[str, Any]
    manifest_sha256: str
    entries: list[TreeEntry]


def verify_release(gd: Path, commit: str, tag: str, serial: int, tag_mhash: str,
                   begin: trust.TrustStart, floor: int) -> Checked:
    """Every check of release commit `commit` (tag `tag`) that git objects alone allow,
    nothing written: release.json names the tag and serial; the signature is by a trusted
    key (rotations since serial `floor` followed); the manifest's hash, schema and path
    rules, and its source the one release.json and the tag name; the tree is exactly the
    manifest's files, regular, of the listed sizes; the embedding models are the ones here,
    none a folder where release files are written.
    SyncError naming the first problem. `install_release` (sync, a checkout's first open)
    and `kb status` of a checkout both run it."""
    meta = read_meta(gd, commit, tag, serial)
    plan = trust.plan(gd, meta, begin, floor, tag)
    manifest, mhash = read_manifest(meta, tag_mhash, tag)
    said = tag_field(gd, f"refs/tags/{tag}", "source-commit")  # (forged tags may have none)
    if said and said != manifest["source"]["commit"]:
        raise SyncError(f"the tag names source commit {said[:12]} but the manifest names "
                        f"{str(manifest['source']['commit'])[:12]}; refusing this release",
                        path=tag, key="sync_tag_source_mismatch", values={"release": tag})
    entries = check_tree(gd, commit, manifest, tag)
    # release files land beside the git directory (a device's releases/, a checkout's work
    # tree) and in KB_HOME (read-only devices' copies, checkouts' derived releases)
    check_models(manifest, tag, untrusted=(gd.parent, kb_home()))
    return Checked(meta, plan, manifest, mhash, entries)


def install_release(gd: Path, commit: str, tag: str, serial: int, tag_mhash: str,
                    begin: trust.TrustStart, floor: int, staging: Path,
                    final: Path, previous: Path | None = None,
                    kept: str | None = None) -> Installed:
    """Verify release commit `commit` (tag `tag`) and install it at `final` through the new
    directory `staging` (see the module docstring); `previous` is an installed release whose
    index/ the new one may be derived from; `kept`, what a failed derivation leaves served
    (`derive_index`). Raises SyncError naming what is wrong; `staging` may then be left
    behind for the caller to remove."""
    checked = verify_release(gd, commit, tag, serial, tag_mhash, begin, floor)
    meta, plan, manifest, mhash = (checked.meta, checked.plan, checked.manifest,
                                   checked.manifest_sha256)
    export(gd, checked.entries, staging, unchanged_files(previous, manifest), where=tag)
    settled, hashed = settled_clock(staging.parent), dict[str, Signature]()
    problems = staging_problems(staging, checked.entries) + verify_files(
        staging, manifest, derived=False, signed=hashed)
    if problems:
        raise SyncError(f"artifacts do not match the manifest: {plural(len(problems), 'problem')}"
                        f", first: {problems[0]}", path=tag, key="sync_artifacts_mismatch",
                        values={"release": tag, "count": str(len(problems))})
    derivation = derive_index(staging, manifest, tag, previous, kept=kept, signed=hashed)
    verified = {"tag": tag, "serial": serial, "commit": commit, "signed_by": plan.signed_by,
                "signature": "verified" if plan.signed_by else "not required (no trusted keys)",
                "trusted_keys": sorted(k.key_id for k in plan.keys_after),
                "manifest_sha256": mhash, "source_commit": manifest["source"]["commit"],
                "created": meta.rel.get("created"),
                "artifacts": len(manifest.get("artifacts", {})),
                "derived": len(manifest.get("derived", {})),
                "derivation": derivation,
                "derived_record": (not manifest.get("derived")
                                   and manifest.get("derived_check") is not None),
                "verified_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
                "release_files": release_file_digests(staging)}
    write_beneath(staging, VERIFIED, (json.dumps(verified, indent=1) + "\n").encode())
    sync_tree(staging)  # on disk before its name is: `current` may point at it next
    staging.rename(final)
    fsync_dir(final.parent)
    return Installed(plan, manifest, mhash, verified,  # (index/ as its record's hashing saw it)
                     {rel: sig for rel, sig in hashed.items() if changed_before(sig, settled)
                      or rel.startswith(f"{DERIVED_DIR}/")})


def settled_clock(directory: Path) -> int:
    """The file system's clock in `directory` once past every change made so far
    (`kbtools.index.stamps`): read before hashing files, those with a change time below it
    are remembered as hashed. 0 (nothing is) when `directory` cannot be written."""
    try:
        return clock_past(directory)
    except OSError:
        return 0


def unchanged_files(previous: Path | None, manifest: dict[str, Any]) -> dict[str, tuple[Path, str]]:
    """The artifacts `manifest` lists with the path, size and sha256 the installed release
    `previous` lists too: each with its file there and its sha256 (`verify.export` links
    them when they still hold it). Empty when there is no readable previous manifest."""
    if previous is None:
        return {}
    try:
        old = load_manifest(previous).get("artifacts", {})
    except (KbError, OSError, ValueError):
        return {}
    if not isinstance(old, dict):
        return {}
    return {rel: (previous / rel, a["sha256"])
            for rel, a in manifest.get("artifacts", {}).items()
            if isinstance(o := old.get(rel), dict) and o.get("sha256") == a["sha256"]
            and o.get("size") == a["size"]}


def release_file_digests(rdir: Path) -> dict[str, str]:
    """sha256 of the release files beside the manifest (release.json, release.sig when
    signed), which the manifest does not list: recorded in verified.json when a release is
    installed, so `kb status` sees them edited afterwards (`kbtools.ship.operate`)."""
    return {name: hashlib.sha256((rdir / name).read_bytes()).hexdigest()
            for name in (RELEASE_JSON, RELEASE_SIG) if (rdir / name).is_file()}


# release.json's fields and what verified.json recorded of them when the release was installed
_RECORDED = (("tag", "tag"), ("serial", "serial"), ("manifest_sha256", "manifest_sha256"),
             ("created", "created"))


def release_file_problems(rdir: Path) -> list[str]:
    """The files beside the artifacts: manifest.json against the hash release.json names
    (`manifest_problem`), and release.json and release.sig (not in the manifest) against what
    verified.json recorded when the release was installed: their sha256 (`release_files`),
    or, in a verified.json written before that, release.json's tag, serial, manifest hash,
    creation time and source commit."""
    return manifest_problem(rdir) + _recorded_problems(rdir)


def manifest_problem(rdir: Path) -> list[str]:
    """manifest.json against the sha256 release.json names (a local build has neither): the
    artifacts are checked against manifest.json, so one rewritten on the device with the
    data it lists (an edited document and its new hash) verifies file by file."""
    want = read_json(ReleaseLayout(rdir).release_json).get("manifest_sha256")
    if not isinstance(want, str):
        return []
    try:
        have = hashlib.sha256(read_beneath(rdir, MANIFEST, MAX_MANIFEST_BYTES)).hexdigest()
    except OSError as exc:
        return [f"{MANIFEST}: unreadable ({exc.strerror})"]
    return [] if have == want else [Keyed(f"{MANIFEST}: does not match the hash in "
                                          f"{RELEASE_JSON}", "problem_manifest_hash")]


def _recorded_problems(rdir: Path) -> list[str]:
    """release.json and release.sig against what verified.json recorded of them."""
    layout = ReleaseLayout(rdir)
    ver = read_json(layout.verified)
    recorded = ver.get("release_files")
    if isinstance(recorded, dict):
        problems: list[str] = []
        for name, digest in sorted(recorded.items()):
            try:
                data = read_beneath(rdir, name, MAX_STATE_BYTES)
            except OSError:
                problems.append(Keyed(f"{name}: missing or unreadable since it was verified",
                                      "problem_missing", {"file": name}))
                continue
            if hashlib.sha256(data).hexdigest() != digest:
                problems.append(Keyed(f"{name}: changed since it was verified at sync (`kb "
                                      "sync` restores it)", "problem_changed", {"file": name}))
        return problems
    rel = read_json(layout.release_json)
    pairs = [(rel.get(key), ver[kept], key) for key, kept in _RECORDED if kept in ver]
    if "source_commit" in ver:
        pairs.append(((rel.get("source") or {}).get("commit"), ver["source_commit"],
                      "source commit"))
    return [f"{RELEASE_JSON}: {what} is {now!r}, verified at sync as {then!r}"
            for now, then, what in pairs if now != then]


def restore_release_files(release: Path, gd: Path) -> list[str]:
    """Write back the release files of `release` whose sha256 no longer is the one
    verified.json recorded, from the release commit in the device's `gd` (only bytes of
    that sha256); returns their names."""
    ver = read_json(ReleaseLayout(release).verified)
    recorded, commit = ver.get("release_files"), ver.get("commit")
    if not isinstance(recorded, dict) or not isinstance(commit, str):
        return []
    restored = []
    for name, digest in sorted(recorded.items()):
        try:
            if hashlib.sha256(read_beneath(release, name, MAX_STATE_BYTES)).hexdigest() == digest:
                continue
        except OSError:
            pass
        data = read_blob(gd, commit, name)
        if data is not None and hashlib.sha256(data).hexdigest() == digest:
            atomic_write_beneath(release, name, data)
            restored.append(name)
    return restored


# usearch reports a graph it could not write (a full disk, no memory) as a plain
# RuntimeError with one of these messages; any other RuntimeError is a bug and propagates
_GRAPH_WRITE_FAILURES = ("Failed to serialize", "Failed to allocate", "Failed to reserve",
                         "Out of memory", "Can't allocate")


def derivation_failure(exc: BaseException) -> str | None:
    """Why deriving an index failed, when `exc` is a failure of the machine rather than of
    the code: the store's SQLite (``database or disk is full``), a file that could not be
    written (OSError), a graph usearch could not write. None for anything else."""
    if isinstance(exc, sqlite3.Error):
        return str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    if type(exc) is RuntimeError and str(exc).startswith(_GRAPH_WRITE_FAILURES):
        return f"the vector graph could not be written: {exc}"
    return None


def derive_index(staging: Path, manifest: dict[str, Any], tag: str,
                 previous: Path | None = None, *, kept: str | None = None,
                 signed: dict[str, Signature] | None = None) -> str:
    """Derive the staged release's index/ from its data/, which the caller has verified
    against `manifest`, and check it; returns how it was derived ("full", "incremental" or
    "none").

    A manifest that pins index/ bytes (``derived``, older releases) is derived afresh and
    hashed; one with neither that nor ``derived_check`` describes no index. Otherwise index/
    is derived from `previous` when it can be (only the changed shards redone) and
    self-checked (`kbtools.index.selfcheck`); an index failing the check is derived afresh
    from data/ and checked again.

    A derivation the machine could not finish (disk full, a write refused: see
    `derivation_failure`) is a SyncError naming it and what serves (`kept`: by default "the
    served release is unchanged"); other exceptions propagate. `signed` gets the stat
    signatures of index/'s files as its record hashed them (`selfcheck.record_derived`)."""
    try:
        return _derive_index(staging, manifest, tag, previous, signed)
    except (sqlite3.Error, OSError, RuntimeError) as exc:
        reason = derivation_failure(exc)
        if reason is None:
            raise
        full = (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT,
                                                           errno.EFBIG)) or "is full" in reason
        raise TransientSyncError(f"deriving the index of {tag} failed: {reason}; "
                                 f"{kept or 'the served release is unchanged'}",
                                 key="sync_no_room" if full else "sync_derive_failed",
                                 values={"release": tag}) from None


def _derive_index(staging: Path, manifest: dict[str, Any], tag: str,
                  previous: Path | None, signed: dict[str, Signature] | None = None) -> str:
    if manifest.get("derived"):
        materialize(staging)
        # data/ is verified (by the caller): the pinned index/ files alone, data hashed once
        problems = verify_files(staging, manifest, artifacts=False)
        if problems:
            raise SyncError(f"derived index does not match the manifest: "
                            f"{plural(len(problems), 'problem')}, first: {problems[0]}", path=tag,
                            key="sync_derived_mismatch", values={"release": tag})
        return "full"
    if manifest.get("derived_check") is None:
        return "none"  # a release that describes no index (nothing to derive)
    if manifest["derived_check"] != SELF_CHECK:
        raise SyncError(f"release checks its index with {manifest['derived_check']!r}, which "
                        "this kbtools does not know; upgrade kbtools", path=tag,
                        key="sync_derived_check_unknown", values={"release": tag})
    how = materialize(staging, previous=previous)
    # every row of the shards redone from the previous index, and a sample of the others
    problems = check_derived(staging, changed_shards(staging, previous)
                             if how == "incremental" and previous is not None else None)
    if problems and how == "incremental":
        how = materialize(staging)
        problems = check_derived(staging)
    if problems:
        raise SyncError(f"derived index fails its self-check: {problems[0]}", path=tag,
                        key="sync_derived_mismatch", values={"release": tag})
    record_derived(staging, signed)  # every byte, as checked (`selfcheck.recorded_problems`)
    return how


def rederive(release: Path, staging: Path, tag: str,
             signed: dict[str, Signature] | None = None,
             verified: Mapping[str, Signature] | None = None) -> str | None:
    """Check the derived index/ of the installed release `release`; when it fails, derive it
    again from its data/ (verified first) the way a first install does, in the new directory
    `staging`, and swap the new index/ for the old one with one atomic exchange
    (`fsutil.exchange_dirs`): stopped at any point (the disk full, killed), the release
    serves the old index/ whole or the new one whole, never files of both, and `staging` is
    removed (what a kill -9 leaves, the next sync does: `device.clean_staging`). Returns
    what was wrong (None: nothing was).

    The derivation reads the verified files through symbolic links in `staging` (a copy
    where the file system has none), never hard links: linking a file, and unlinking it
    again, changes its change time, so the files just hashed would have to be hashed again
    to be vouched for (`kbtools.ship.intact.vouch`). `signed` gets the stat signatures of
    the data files hashed and found as listed, changed before the file system's clock was
    read ahead of hashing them (`settled_clock`): what `intact.vouch` takes as hashed; any
    change since gives a file another change time, so another signature, and it is hashed
    again there.

    `verified` holds the signatures of data files the caller has just hashed and found as
    listed, each changed before the clock it read ahead of hashing them (`kb rollback`
    verifies the whole release first): a file still of that signature is not hashed again,
    one changed since is (`kbtools.index.manifest.verify_files`)."""
    manifest = load_manifest(release)
    problems = derived_problems(release, manifest)
    if not problems:
        return None
    settled, hashed = settled_clock(staging.parent), dict[str, Signature]()
    bad_data = verify_files(release, manifest, derived=False, signed=hashed, known=verified)
    if bad_data:
        raise SyncError(f"the served release {tag} fails verification: {bad_data[0]}; its "
                        "index cannot be derived again from it (`kb rollback` serves another "
                        "release)", key="sync_served_damaged", values={"release": tag})
    os.mkdir(staging)
    derived = dict[str, Signature]()  # index/'s files as their record hashed them
    try:
        _derive_beside(release, staging, manifest, tag, derived)
        # one switch: the served index/ is the old tree or the new one, never a mix
        exchange_dirs(ReleaseLayout(staging).derived, ReleaseLayout(release).derived)
        fsync_dir(release)
    finally:  # done, or the disk full, killed: the old (or half-derived) tree goes
        shutil.rmtree(staging, ignore_errors=True)
    if signed is not None:
        signed.update({rel: sig for rel, sig in hashed.items() if changed_before(sig, settled)}
                      | derived)
    return problems[0]


def _derive_beside(release: Path, staging: Path, manifest: dict[str, Any], tag: str,
                   signed: dict[str, Signature]) -> None:
    """Derive `release`'s index/ in `staging` from its verified data files, read through
    links (`rederive`), and make the new files durable."""
    source = Path(os.path.abspath(release))
    for rel in sorted([MANIFEST, *manifest.get("artifacts", {})]):  # verified regular files
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.symlink(source / rel, target)
        except OSError:  # a file system without symbolic links
            shutil.copyfile(source / rel, target, follow_symlinks=False)
    derive_index(staging, manifest, tag, signed=signed)
    sync_tree(staging)  # the served release's files are replaced by these
