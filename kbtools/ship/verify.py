"""What a fetched release must be before anything of it is written: a closed set of regular
files, all listed in its signed manifest.

A release commit is read as git objects (`kbtools.ship.git.ls_tree`, `read_blobs`), never
checked out, so nothing in it is interpreted (no links, no attributes, no filters):

1. `read_meta`: release.json, release.sig and manifest.json, regular files of bounded size;
   release.json must name the tag and serial fetched, in a release format this kbtools
   reads (`RELEASE_FORMAT`; one a newer kbtools made says to upgrade). (The signature is
   `kbtools.ship.trust`'s job, done next.)
2. `read_manifest`: manifest.json, its sha256 = the one release.json and the tag name, its
   schema, format version and path rules; release.json's source = the manifest's.
3. `tree_problems`: every entry of the tree is a blob of mode 100644 (no link, executable,
   submodule), its path obeys the path rules, it is manifest.json/release.json/release.sig or
   an artifact the manifest lists under data/, with the listed size; every artifact is there.
4. `export`: writes exactly those files into the staging directory, each created new, with
   no link followed below the device directory, once `space_problem` found room for them
   (a signed release of a few kilobytes of git pack can list gigabytes of zeros: it is
   refused before a byte is written, rather than filling the device's disk, which its
   query log, state.json and every other program on it share); `staging_problems` then
   walks what is on disk (no links, FIFOs or unlisted files) before the hashes are checked.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.beneath import open_beneath, write_all
from kbtools.errors import IndexLoadError, SyncError, TransientSyncError, plural
from kbtools.index.layout import MANIFEST, RELEASE_JSON, RELEASE_SIG
from kbtools.index.manifest import (
    MAX_MANIFEST_BYTES,
    RELEASE_FILES,
    loads_unique,
    manifest_path_problems,
    parse_manifest,
    path_problem,
    sha256_file,
    show_path,
    unlisted_entries,
)
from kbtools.ship.git import BlobReader, TreeEntry, ls_tree, object_sizes, read_blobs

MAX_RELEASE_JSON_BYTES = 1 << 20
MAX_RELEASE_SIG_BYTES = 64 << 10
_LIMITS = {RELEASE_JSON: MAX_RELEASE_JSON_BYTES, RELEASE_SIG: MAX_RELEASE_SIG_BYTES,
           MANIFEST: MAX_MANIFEST_BYTES}
_KINDS = {"120000": "symbolic link", "160000": "submodule", "100755": "executable file",
          "040000": "directory"}


@dataclass(frozen=True)
class ReleaseMeta:
    """release.json (bytes and parsed), release.sig and manifest.json of a release commit."""

    commit: str
    rel_bytes: bytes
    rel: dict[str, Any]
    sig_bytes: bytes | None
    manifest_bytes: bytes | None


def top_files(gd: Path, commit: str, where: str) -> dict[str, bytes]:
    """manifest.json, release.json, release.sig of a release commit (those present), each
    required to be a regular blob no larger than its limit before it is read."""
    entries = ls_tree(gd, commit, sorted(RELEASE_FILES), recursive=False)
    wanted = []
    for e in entries:
        if e.kind != "blob" or e.mode != "100644":
            raise SyncError(f"{e.path}: {_describe(e)}, not a regular file (mode 100644); "
                            "refusing this release", path=where, key="sync_not_regular_file",
                            values={"release": where, "file": e.path})
        if e.size is None or e.size > _LIMITS[e.path]:
            raise SyncError(f"{e.path} is larger than {_LIMITS[e.path]} bytes", path=where,
                            key="sync_file_too_large", values={"release": where, "file": e.path})
        wanted.append(e)
    blobs = read_blobs(gd, [(e.oid, e.size or 0) for e in wanted])
    return {e.path: data for e, data in zip(wanted, blobs, strict=True)}


def release_signatures(gd: Path, commits: Sequence[str]) -> list[dict[str, bytes]]:
    """release.json and release.sig of each release commit (those that are blobs within
    their size limits), read by two git processes for all of them and never a manifest:
    what a walk over many release commits for key rotations needs."""
    wanted = [(i, name) for i in range(len(commits)) for name in (RELEASE_JSON, RELEASE_SIG)]
    sizes = object_sizes(gd, [f"{commits[i]}:{name}" for i, name in wanted])
    kept = [(i, name, found[0], found[2]) for (i, name), found in zip(wanted, sizes, strict=True)
            if found is not None and found[1] == "blob" and found[2] <= _LIMITS[name]]
    blobs = read_blobs(gd, [(oid, size) for _, _, oid, size in kept])
    out: list[dict[str, bytes]] = [{} for _ in commits]
    for (i, name, _, _), data in zip(kept, blobs, strict=True):
        out[i][name] = data
    return out


# the release format `kb release` writes into release.json and the newest this kbtools reads:
# a release of a newer one may say what this kbtools cannot understand (a field its devices
# must honour), so it is refused rather than read in part; one without the field is 1
RELEASE_FORMAT = 1


def release_format_problem(rel: dict[str, Any]) -> str | None:
    """Why release.json's ``release_format`` is not one this kbtools reads, or None."""
    fmt = rel.get("release_format", 1)
    if type(fmt) is not int or fmt < 1:
        return f"release.json names release format {fmt!r}, which is no format version"
    if fmt > RELEASE_FORMAT:
        return (f"release.json is release format {fmt}, newer than the {RELEASE_FORMAT} this "
                "kbtools reads: it was made by a newer kbtools; upgrade kbtools on this "
                "device to take it")
    return None


def read_meta(gd: Path, commit: str, tag: str, serial: int) -> ReleaseMeta:
    """release.json and release.sig of `commit`; release.json must name `tag` and `serial`."""
    files = top_files(gd, commit, tag)
    rel_bytes = files.get(RELEASE_JSON)
    try:
        rel = loads_unique(rel_bytes or b"")
        if not isinstance(rel, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        raise SyncError(f"release.json missing or unreadable: {exc}", path=tag,
                        key="sync_release_json_unreadable", values={"release": tag}) from None
    if rel.get("tag") != tag or rel.get("serial") != serial:
        raise SyncError(f"release.json names {rel.get('tag')} (serial {rel.get('serial')}), "
                        f"not the tag it was fetched under", path=tag,
                        key="sync_release_json_other_tag",
                        values={"release": tag, "named": str(rel.get("tag"))})
    problem = release_format_problem(rel)
    if problem is not None:
        raise SyncError(f"{problem}; refusing it", path=tag, key="sync_release_format",
                        values={"release": tag})
    return ReleaseMeta(commit, rel_bytes or b"", rel, files.get(RELEASE_SIG),
                       files.get(MANIFEST))


def read_manifest(meta: ReleaseMeta, tag_mhash: str, where: str) -> tuple[dict[str, Any], str]:
    """The manifest of a release commit and its sha256, after the hash checks."""
    data = meta.manifest_bytes
    if data is None:
        raise SyncError("manifest.json missing", path=where, key="sync_manifest_missing",
                        values={"release": where})
    mhash = hashlib.sha256(data).hexdigest()
    if mhash != meta.rel.get("manifest_sha256") or (tag_mhash and tag_mhash != mhash):
        raise SyncError("manifest.json does not match the hash named by release.json/tag",
                        path=where, key="sync_manifest_mismatch", values={"release": where})
    try:
        manifest = parse_manifest(data, MANIFEST)
    except IndexLoadError as exc:
        raise SyncError(f"incompatible or invalid manifest: {exc.message}", path=where,
                        key="sync_manifest_invalid", values={"release": where}) from None
    # `kb release` copies the manifest's source into release.json: `kb status` and `kb
    # releases` show the one, citations the other, so they must be the same
    if meta.rel.get("source") != manifest.get("source"):
        said, named = _commit(meta.rel), _commit(manifest)
        what = (f"names source commit {said} but the manifest names {named}" if said != named
                else f"and the manifest describe source {said} differently")
        raise SyncError(f"release.json {what}; refusing this release", path=where,
                        key="sync_source_mismatch", values={"release": where})
    return manifest, mhash


def _commit(record: dict[str, Any]) -> str:
    source = record.get("source")
    commit = source.get("commit") if isinstance(source, dict) else None
    return str(commit)[:12] if commit is not None else "none"


def tree_problems(entries: list[TreeEntry], manifest: dict[str, Any]) -> list[str]:
    """Why a release tree is not exactly its manifest's files (empty list = it is)."""
    problems = manifest_path_problems(manifest)
    listed: dict[str, Any] = manifest.get("artifacts", {})
    seen: set[str] = set()
    for e in entries:
        shown = show_path(e.path)
        if e.path in seen:
            problems.append(f"{shown}: appears twice in the tree")
        seen.add(e.path)
        if e.kind != "blob" or e.mode != "100644":
            problems.append(f"{shown}: {_describe(e)} (a release holds only regular files, "
                            "mode 100644)")
        elif (why := path_problem(e.path)) is not None:
            problems.append(f"{shown}: {why}")
        elif e.path not in listed and e.path not in RELEASE_FILES:
            problems.append(f"{shown}: not listed in manifest")
        elif e.path in listed and e.size != listed[e.path]["size"]:
            problems.append(f"{shown}: size {e.size} != {listed[e.path]['size']}")
    problems += [f"{show_path(rel)}: missing" for rel in sorted(listed) if rel not in seen]
    return problems


def check_tree(gd: Path, commit: str, manifest: dict[str, Any],
               where: str) -> list[TreeEntry]:
    """The entries of a release tree, after `tree_problems` found none (else SyncError)."""
    entries = ls_tree(gd, commit)
    problems = tree_problems(entries, manifest)
    if problems:
        raise SyncError(f"artifacts do not match the manifest: {plural(len(problems), 'problem')}"
                        f", first: {problems[0]}; refusing this release", path=where,
                        key="sync_artifacts_mismatch",
                        values={"release": where, "count": str(len(problems))})
    return entries


def space_problem(directory: Path, entries: list[TreeEntry],
                  same: Mapping[str, tuple[Path, str]] | None = None) -> str | None:
    """Why the (checked) release files of `entries` cannot be written into `directory`'s
    file system (None when they fit): the bytes of every file not linked from an installed
    release (`same`), against what this account may still write there (``statvfs``'s
    available blocks). No margin is asked for beyond them: a small device (an SD card with
    a few MB left) must take a small release, and what is written after them (index/,
    state.json) failing for want of room fails the sync as any write does, the previous
    release still served. A file system that cannot say is not refused."""
    need = sum(e.size or 0 for e in entries if not same or e.path not in same)
    try:
        st = os.statvfs(directory)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if need <= free:
        return None
    return (f"its files need {need} bytes and {directory} has {free} bytes free; nothing "
            "of it was written: free space on the device "
            "(or have the publisher check the release's size) and sync again")


def export(gd: Path, entries: list[TreeEntry], staging: Path,
           same: Mapping[str, tuple[Path, str]] | None = None, where: str = "") -> None:
    """Write the (checked) release files into a new `staging` directory, nothing else: each
    file created new (O_EXCL) with no link followed, its content streamed from git. `same`
    names, by path, a file of an installed release with the sha256 the new one lists: it is
    hard-linked instead when it is a regular file still of that sha256 (an unchanged photo
    is stored once on the device, not once per release kept). SyncError (naming `where`,
    nothing written) when they do not fit on the file system (`space_problem`)."""
    problem = space_problem(staging.parent, entries, same)
    if problem is not None:
        raise TransientSyncError(problem, path=where, key="sync_no_room")
    os.mkdir(staging)
    with BlobReader(gd) as reader:
        for e in entries:
            if same and e.path in same and _link_same(*same[e.path], staging, e.path):
                continue
            fd = open_beneath(staging, e.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                              mkdirs=True)
            try:
                for block in reader.chunks(e.oid, e.size or 0):
                    write_all(fd, block)
            finally:
                os.close(fd)


def _link_same(old: Path, sha256: str, staging: Path, rel: str) -> bool:
    """Hard-link `old` at staging/`rel` when it is a regular file of `sha256` (False: not
    linked, and nothing written; a file system without hard links, say)."""
    try:
        if not stat.S_ISREG(os.lstat(old).st_mode) or sha256_file(old) != sha256:
            return False
        fd = open_beneath(staging, rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mkdirs=True)
        os.close(fd)  # the folders exist, made with no link followed; the name is ours
        os.unlink(staging / rel)
        os.link(old, staging / rel, follow_symlinks=False)
        return True
    except OSError:
        return False


def blob_problems(gd: Path, entries: list[TreeEntry], manifest: dict[str, Any]) -> list[str]:
    """The listed artifacts among the (checked) `entries` whose blob's sha256 is not the
    manifest's, read from git and written nowhere: what `export` + `verify_files` would
    find, for a caller that must not write (`kb status` of a checkout)."""
    listed: dict[str, Any] = manifest.get("artifacts", {})
    problems = []
    with BlobReader(gd) as reader:
        for e in entries:
            if e.path not in listed:
                continue
            digest = hashlib.sha256()
            for block in reader.chunks(e.oid, e.size or 0):
                digest.update(block)
            if digest.hexdigest() != listed[e.path]["sha256"]:
                problems.append(f"{show_path(e.path)}: sha256 mismatch")
    return problems


def staging_problems(staging: Path, entries: list[TreeEntry]) -> list[str]:
    """What lies in `staging` besides the exported regular files (links, FIFOs, extras)."""
    return unlisted_entries(staging, {e.path for e in entries})


def _describe(e: TreeEntry) -> str:
    return _KINDS.get(e.mode, f"{e.kind} of mode {e.mode}")
