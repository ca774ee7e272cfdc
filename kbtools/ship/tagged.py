"""A release tag of a git clone read from git objects, verified, with nothing checked out:
what `kb diff` compares in a clone, and where `kb read --release` finds an earlier release.

A device keeps earlier releases in ``releases/<tag>``; a clone of the artifacts repository
keeps every release its tags name, in git objects. `tagged_release` finds one by its tag
and gives it every check `kb sync` and a checkout's first open make from git objects
(`install.verify_release`: release.json naming the tag and serial, the signature by a key
the clone trusts, rotations followed; the manifest's hash the tag names; the tree exactly
the manifest's regular files), and `TagFiles` hands out its files, each checked against
the manifest's sha256 as it is read, so a diff reads only the shards it compares and
never trusts what it did not check. The work tree, HEAD and git's index are not touched,
and nothing is written (`kb diff` in a clone on read-only media works).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from kbtools.errors import SyncError, plural
from kbtools.index.layout import MANIFEST, RELEASE_JSON, CheckoutLayout
from kbtools.index.manifest import show_path
from kbtools.ship import trust
from kbtools.ship.changes import ReleaseDiff, diff_files, not_on_device
from kbtools.ship.git import (
    TAG_PREFIX,
    BlobReader,
    TreeEntry,
    missing_objects,
    parse_serial,
    release_tags,
    rev_parse,
    tag_form_problem,
)
from kbtools.ship.gitrun import run_git
from kbtools.ship.install import tag_manifest_hash, verify_release
from kbtools.ship.release import read_release_json, release_settings
from kbtools.ship.verify import read_meta
from kbtools.ship.worktree import WorkTree, release_tags_at


@dataclass(frozen=True)
class TaggedRelease:
    """A release tag of a clone after the checks of `tagged_release`: a tag with no work
    tree, or the one a checkout's HEAD is (`checkout.check_head`, which checks besides that
    HEAD is `commit` and the work tree exactly its files; HEAD adds no field of its own)."""

    tag: str
    serial: int
    commit: str
    tag_mhash: str  # the manifest sha256 the tag's message names ("" when none)
    mhash: str  # the manifest sha256 (the tag's, else release.json's)


def clone_tags(tree: WorkTree) -> dict[int, str]:
    """serial -> tag name of the clone's release tags."""
    return {s: ref.rsplit("/", 1)[-1]
            for s, ref in release_tags(tree.git_dir, f"refs/tags/{TAG_PREFIX}*").items()}


def tag_sources(tree: WorkTree) -> dict[str, str]:
    """tag -> the source commit its message names, for the clone's release tags (one git
    process): which release a citation's commit means. Only a choice: the release chosen
    is verified before it is read (`verify_release` refuses a tag naming another source
    than its manifest)."""
    out = run_git(tree.git_dir, "for-each-ref", "--format=%(refname)%00%(contents)%00",
                  f"refs/tags/{TAG_PREFIX}*", error=SyncError, check=False)
    found: dict[str, str] = {}
    parts = out.split("\0")
    for ref, body in zip(parts[0::2], parts[1::2], strict=False):
        serial = parse_serial(ref.strip())
        said = [line.split(":", 1)[1].strip() for line in body.split("\n")
                if line.startswith("source-commit:")]
        if serial is None:
            continue
        if not said:  # a tag naming no source (made by hand): its release.json says it
            rel = read_release_json(tree.git_dir, f"{TAG_PREFIX}{serial}^{{commit}}") or {}
            source = rel.get("source")
            said = [str(source.get("commit") or "") if isinstance(source, dict) else ""]
        found[f"{TAG_PREFIX}{serial}"] = said[-1]
    return found


def not_in_clone(tag: str, tree: WorkTree) -> str:
    """Why `tag` names no release of the clone, in words: no release tag at all, or one the
    clone has not fetched."""
    tags = [t for _, t in sorted(clone_tags(tree).items())]
    problem = tag_form_problem(tag)
    if problem is not None or parse_serial(tag) is None:
        return not_on_device(tag, tags).replace("(local:", "(tags of this clone:", 1)
    return (f"release {tag} is not a tag of this clone (tags: {', '.join(tags) or 'none'}); "
            "`git fetch --tags` brings the tags its remote has")


def tagged_release(tree: WorkTree, tag: str) -> TaggedRelease:
    """The release tag `tag` of the clone, verified from git objects (see the module);
    SyncError naming the first problem, with the tag as its path."""
    serial = parse_serial(tag)
    if serial is None or clone_tags(tree).get(serial) != tag:
        raise SyncError(not_in_clone(tag, tree), path=str(tree.top))
    return read_tag(tree, tag, serial, tag)


VOUCHED_LOOKBACK = 20  # release tags below a refused one read for one the keys vouch for


def vouched_below(tree: WorkTree, serial: int, begin: trust.TrustStart) -> str | None:
    """The newest release tag of the clone below serial `serial` whose signature the keys
    of `begin` vouch for (after the rotations before it), read from git objects, of the
    `VOUCHED_LOOKBACK` tags below it; None when none is. What to check out instead of a
    release refused for its signature (an unsigned or foreign tag on top of the clone)."""
    tags = clone_tags(tree)
    for s in sorted((s for s in tags if s < serial), reverse=True)[:VOUCHED_LOOKBACK]:
        try:
            found = read_tag(tree, tags[s], s, tags[s])
            meta = read_meta(tree.git_dir, found.commit, found.tag, s)
            trust.plan(tree.git_dir, meta, begin, 0, found.tag)
        except SyncError:
            continue
        return found.tag
    return None


def read_tag(tree: WorkTree, tag: str, serial: int, where: str) -> TaggedRelease:
    """What release tag `tag` (serial `serial`, a release tag of the clone) names: its
    commit and manifest hash (the tag message's, else its release.json's). SyncError with
    `where` as its path when it names no manifest sha256 (not a release tag)."""
    commit, tag_mhash = tag_manifest_hash(tree.git_dir, f"refs/tags/{tag}", where)
    mhash = tag_mhash or str(read_meta(tree.git_dir, commit, tag, serial).rel.get(
        "manifest_sha256", ""))
    if len(mhash) != 64 or mhash.strip("0123456789abcdef"):  # a directory name, later
        raise SyncError(f"{tag} names no manifest sha256; not a release tag", path=where)
    return TaggedRelease(tag, serial, commit, tag_mhash, mhash)


@dataclass
class TagFiles:
    """The files of a verified release tag, read from git objects (`changes.ReleaseFiles`):
    each listed artifact checked against the manifest's sha256 as it is read."""

    tree: WorkTree
    release: TaggedRelease
    entries: dict[str, TreeEntry]
    manifest: dict[str, Any]
    _read: dict[str, bytes] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.tree.top}@{self.release.tag}"

    def read(self, rel: str) -> bytes | None:
        entry = self.entries.get(rel)
        if entry is None:
            return None
        if rel not in self._read:
            try:
                with BlobReader(self.tree.git_dir) as reader:
                    data = b"".join(reader.chunks(entry.oid, entry.size or 0))
            except SyncError as exc:
                raise unfetched(self.tree, self.release, exc) from None
            listed = self.manifest.get("artifacts", {}).get(rel)
            if rel not in (MANIFEST, RELEASE_JSON) and isinstance(listed, dict) and \
                    hashlib.sha256(data).hexdigest() != listed.get("sha256"):
                raise SyncError(f"{show_path(rel)} differs from the signed release "
                                f"{self.release.tag} (sha256 mismatch)", path=self.release.tag)
            self._read[rel] = data
        return self._read[rel]


def tag_files(layout: CheckoutLayout, tree: WorkTree, tag: str) -> TagFiles:
    """`TagFiles` of the clone's release `tag`, verified as a checkout of it would be
    (keys pinned in the clone, else kb.toml ``release.trusted_keys``; nothing pinned)."""
    found = tagged_release(tree, tag)
    begin = trust.start(layout.state, list(release_settings().trusted_keys))
    try:
        checked = verify_release(tree.git_dir, found.commit, tag, found.serial,
                                 found.tag_mhash, begin, 0)
    except SyncError as exc:
        raise unfetched(tree, found, exc) from None
    return TagFiles(tree, found, {e.path: e for e in checked.entries}, checked.manifest)


def unfetched(tree: WorkTree, found: TaggedRelease, exc: SyncError) -> SyncError:
    """`exc`, saying so when files of release `found` are not in the clone: a partial
    clone (``--filter``) fetches them when read, which fails once its remote is out of
    reach, and git's reason names only the remote."""
    missing = missing_objects(tree.git_dir, f"{found.commit}^{{tree}}")
    if not missing:
        return exc
    return SyncError(f"{plural(missing, 'file')} of {found.tag} are not in this partial clone "
                     f"and could not be fetched from its remote ({exc.message}); reconnect it "
                     "and try again, or clone without --filter", path=str(tree.top))


def head_tag(tree: WorkTree) -> str:
    """The release tag of the commit checked out (the highest when several name it)."""
    head = rev_parse(tree.git_dir, "HEAD")
    at = release_tags_at(tree.git_dir, head) if head is not None else {}
    if not at:
        raise SyncError(f"HEAD {(head or 'nothing')[:12]} is no release tag: give the two "
                        "releases to compare (kb diff kb-rA kb-rB)", path=str(tree.top))
    return f"{TAG_PREFIX}{max(at)}"


def diff_tags(layout: CheckoutLayout, tree: WorkTree, old: str | None = None,
              new: str | None = None) -> ReleaseDiff:
    """`kb diff` in a clone: release tag `new` (default: the one checked out) against `old`
    (default: the clone's release tag before it; none: everything is added)."""
    new = new or head_tag(tree)
    b = tag_files(layout, tree, new)
    if old is None:
        older = [s for s in clone_tags(tree) if s < b.release.serial]
        old = f"{TAG_PREFIX}{max(older)}" if older else None
        if old is None and (tree.common_dir / "shallow").is_file():
            # "everything added" would be this clone's depth, not what the release changed
            raise SyncError(f"{new} has no release tag before it in this shallow clone: `git "
                            "fetch --tags` brings the earlier ones", path=str(tree.top))
    return diff_files(tag_files(layout, tree, old) if old else None, b)

