"""Install one release commit as a verified release directory: the path `kb sync` and a git
checkout of a release share, so both apply the same rules with the same code.

`install_release` takes a release commit that sits in a git directory (a device's
repo.git, or a clone of the artifacts repository) and:

1. reads the tag (`tag_manifest_hash`: annotated, its message naming the manifest hash);
2. checks, from git objects alone (`kbtools.ship.verify`, `kbtools.ship.trust`):
   release.json names the tag and serial; the signature is by a trusted key (following
   rotations since serial `floor`); the manifest's hash, schema and path rules; the tree is
   exactly the manifest's artifacts plus the top-level release files, all regular files of
   the listed sizes; the embedding models are the ones on this machine;
3. exports those files into a new staging directory (no link followed), checks what is on
   disk (no extra entries; every artifact's sha256 and size);
4. derives index/ with `kbtools.index.materialize.materialize` (from a previous release's
   index when the caller has one: only changed shards are redone) and checks it with
   `kbtools.index.selfcheck.check_derived` (an older release that pins index/ bytes in the
   manifest's ``derived`` is derived afresh and hashed instead);
5. writes verified.json and renames staging into its final place.

The caller holds the lock of the directory it installs into and decides what "final" is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.embed.registry import get_embedder
from kbtools.errors import ModelError, SyncError, plural
from kbtools.fsutil import write_beneath
from kbtools.index.incremental import changed_shards
from kbtools.index.layout import VERIFIED
from kbtools.index.manifest import verify_files
from kbtools.index.materialize import materialize
from kbtools.index.selfcheck import SELF_CHECK, check_derived
from kbtools.ship import trust
from kbtools.ship.device import fsync_dir
from kbtools.ship.git import rev_parse, run_git
from kbtools.ship.verify import check_tree, export, read_manifest, read_meta, staging_problems


@dataclass(frozen=True)
class Installed:
    """What `install_release` checked: who signed, the keys to pin, the manifest."""

    plan: trust.TrustPlan
    manifest: dict[str, Any]
    manifest_sha256: str
    verified: dict[str, Any]


def tag_manifest_hash(gd: Path, tag_ref: str, where: str) -> tuple[str, str]:
    """(commit, manifest sha256 named in its message) of an annotated release tag; a
    lightweight tag or one naming no commit is refused."""
    kind = run_git(gd, "cat-file", "-t", tag_ref, error=SyncError, check=False).strip()
    if kind != "tag":
        raise SyncError(f"{tag_ref.rsplit('/', 1)[-1]} is not an annotated release tag",
                        path=where)
    commit = rev_parse(gd, tag_ref)
    if commit is None:
        raise SyncError(f"{tag_ref} names no commit", path=where)
    body = run_git(gd, "cat-file", "tag", tag_ref, error=SyncError)
    mhash = ""
    for line in body.split("\n"):  # git's lines: a tagger name may hold U+2028
        if line.startswith("manifest-sha256:"):
            mhash = line.split(":", 1)[1].strip()
    return commit, mhash


def check_models(manifest: dict[str, Any], where: str) -> None:
    """This machine must have the exact embedding models the release's vectors came from."""
    for key, meta in sorted(manifest.get("models", {}).items()):
        try:
            local = get_embedder(key).fingerprint()
        except ModelError as exc:
            raise SyncError(f"release needs embedding model {key!r}, not available here: "
                            f"{exc.message}", path=where) from None
        if local != meta["fingerprint"]:
            raise SyncError(f"release vectors come from model {meta['fingerprint']} but this "
                            f"machine has {local}; update kbtools/the model first", path=where)


def install_release(gd: Path, commit: str, tag: str, serial: int, tag_mhash: str,
                    begin: trust.TrustStart, floor: int, staging: Path,
                    final: Path, previous: Path | None = None) -> Installed:
    """Verify release commit `commit` (tag `tag`) and install it at `final` through the new
    directory `staging` (see the module docstring); `previous` is an installed release whose
    index/ the new one may be derived from. Raises SyncError naming what is wrong; `staging`
    may then be left behind for the caller to remove."""
    meta = read_meta(gd, commit, tag, serial)
    plan = trust.plan(gd, meta, begin, floor, tag)
    manifest, mhash = read_manifest(meta, tag_mhash, tag)
    entries = check_tree(gd, commit, manifest, tag)
    check_models(manifest, tag)
    export(gd, entries, staging)
    problems = staging_problems(staging, entries) + verify_files(staging, manifest,
                                                                 derived=False)
    if problems:
        raise SyncError(f"artifacts do not match the manifest: {plural(len(problems), 'problem')}"
                        f", first: {problems[0]}", path=tag)
    derivation = derive_index(staging, manifest, tag, previous)
    verified = {"tag": tag, "serial": serial, "commit": commit, "signed_by": plan.signed_by,
                "signature": "verified" if plan.signed_by else "not required (no trusted keys)",
                "trusted_keys": sorted(k.key_id for k in plan.keys_after),
                "manifest_sha256": mhash, "source_commit": manifest["source"]["commit"],
                "created": meta.rel.get("created"),
                "artifacts": len(manifest.get("artifacts", {})),
                "derived": len(manifest.get("derived", {})),
                "derivation": derivation,
                "verified_at": datetime.now(UTC).replace(microsecond=0).isoformat()}
    write_beneath(staging, VERIFIED, (json.dumps(verified, indent=1) + "\n").encode())
    fsync_dir(staging)
    staging.rename(final)
    fsync_dir(final.parent)
    return Installed(plan, manifest, mhash, verified)


def derive_index(staging: Path, manifest: dict[str, Any], tag: str,
                 previous: Path | None = None) -> str:
    """Derive the staged release's index/ and check it; returns how it was derived
    ("full", "incremental" or "none").

    A manifest that pins index/ bytes (``derived``, older releases) is derived afresh and
    hashed; one with neither that nor ``derived_check`` describes no index. Otherwise index/
    is derived from `previous` when it can be (only the changed shards redone) and
    self-checked (`kbtools.index.selfcheck`); an index failing the check is derived afresh
    from data/ and checked again."""
    if manifest.get("derived"):
        materialize(staging)
        problems = verify_files(staging, manifest, derived=True)
        if problems:
            raise SyncError(f"derived index does not match the manifest: "
                            f"{plural(len(problems), 'problem')}, first: {problems[0]}", path=tag)
        return "full"
    if manifest.get("derived_check") is None:
        return "none"  # a release that describes no index (nothing to derive)
    if manifest["derived_check"] != SELF_CHECK:
        raise SyncError(f"release checks its index with {manifest['derived_check']!r}, which "
                        "this kbtools does not know; upgrade kbtools", path=tag)
    how = materialize(staging, previous=previous)
    # every row of the shards redone from the previous index, and a sample of the others
    problems = check_derived(staging, changed_shards(staging, previous)
                             if how == "incremental" and previous is not None else None)
    if problems and how == "incremental":
        how = materialize(staging)
        problems = check_derived(staging)
    if problems:
        raise SyncError(f"derived index fails its self-check: {problems[0]}", path=tag)
    return how
