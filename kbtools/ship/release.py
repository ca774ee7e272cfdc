"""`kb release`: record a built dist/ as one commit + annotated tag on the artifacts branch.

Layout of a release commit (tree)::

    manifest.json    the build's manifest, byte for byte
    data/...         the build's release content (index/ is NOT shipped: devices re-derive it)
    release.json     serial, tag, source commit, manifest sha256, created time, signing key id,
                     next_keys (keys this release hands the signing key's trust over to)
    release.sig      Ed25519 signature over the exact bytes of release.json (when signed),
                     plus a cosignature by each of next_keys

Every entry of the tree is a regular file (mode 100644) that the manifest lists, or one of
the three top-level release files: the tree is checked after it is written, with the same
rules a device applies (`kbtools.ship.verify.tree_problems`).

In the knowledge repo the branch and tags live under ``refs/kb/heads/<branch>`` and
``refs/kb/tags/kb-r<serial>``: refs that a plain ``git clone``, ``git push --all`` or
``git push --tags`` never carry. Publishing pushes them as ``refs/heads/<branch>`` and
``refs/tags/kb-r<serial>`` to the artifacts remote (kb.toml ``[release] remote``); a remote
on this machine whose HEAD names no existing branch (a fresh ``git init --bare``) gets its
HEAD pointed at the artifacts branch, so a plain ``git clone`` checks out the newest release
(a hosted remote's default branch is set on the host).
The commit is written with plumbing (``hash-object --no-filters``, a temporary index file,
``commit-tree``, ``mktag``),
so the user's working tree, index and HEAD are never touched.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools import __version__
from kbtools.config import Config, branch_problem, load_config
from kbtools.errors import KbError, Keyed, ReleaseError, plural
from kbtools.fsutil import is_staging_dir, staging_dir
from kbtools.index.layout import DATA_DIR, MANIFEST, RELEASE_JSON, RELEASE_SIG, ReleaseLayout
from kbtools.index.manifest import (
    FORMAT_VERSION,
    history_warnings,
    load_manifest,
    loads_unique,
    sha256_file,
    unlisted_entries,
    verify_files,
)
from kbtools.ship.git import (
    LOCAL_HEADS,
    LOCAL_TAGS,
    TAG_PREFIX,
    find_git_dir,
    is_ancestor,
    ls_tree,
    parse_serial,
    point_head_at,
    read_blob,
    release_tag_targets,
    remote_head,
    rev_parse,
    tag_name,
    update_refs,
)
from kbtools.ship.gitrun import NetLimits, default_limits, limits_from, run_git, run_raw
from kbtools.ship.signing import key_id, load_private, public_record, sign
from kbtools.ship.sourceurl import scrub, scrubbed, shown_source
from kbtools.ship.verify import RELEASE_FORMAT, tree_problems

RELEASE_INDEX_DIR = "kb/release-index"  # under the git dir: the private index of a release tree
# who the artifacts commits and tags are by where git knows no one (`_identity`)
RELEASE_IDENTITY = ("kb release", "kb-release@localhost")


@dataclass(frozen=True)
class ReleaseInfo:
    tag: str
    serial: int
    commit: str
    source_commit: str
    manifest_sha256: str
    created: str
    new: bool
    pushed_to: str | None
    signed_by: str | None
    # documents whose verification lapsed in this build (manifest "verification.lapsed")
    lapsed: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, lapsed=list(self.lapsed), warnings=list(self.warnings))


@dataclass(frozen=True)
class ReleaseSettings:
    """kb.toml ``[release]``: artifacts branch and remote, releases kept, age limit, keys."""

    branch: str = "kb-index"
    remote: str = ""
    keep: int = 5
    max_age_days: int = 30
    trusted_keys: tuple[Path, ...] = ()  # resolved against the repository root

    @classmethod
    def from_config(cls, cfg: Config) -> ReleaseSettings:
        rel = cfg.section("release")
        return cls(branch=str(rel["branch"]), remote=str(rel.get("remote") or ""),
                   keep=int(rel["keep"]), max_age_days=int(rel["max_age_days"]),
                   trusted_keys=tuple(cfg.root / k for k in rel.get("trusted_keys", [])))


def release_settings(cfg: Config | None = None) -> ReleaseSettings:
    """[release] settings of `cfg`, else of the kb.toml found from the current directory
    (defaults when there is none)."""
    return ReleaseSettings.from_config(cfg if cfg is not None else load_config())


def release_limits(cfg: Config, given: dict[str, float | None] | None = None) -> NetLimits:
    """When `kb release` gives up talking to its remote: kb.toml ``[release]``'s
    ``stall_seconds``, ``stall_bytes`` and ``list_timeout`` over the defaults, the values in
    `given` (None: not given; `kb release`'s options) over both (`gitrun.limits_from`).
    Not ``[sync]``'s: those are a device's link (a satellite link may need minutes of
    patience), and a CI job pushing releases should still give a dead remote up soon.
    No size limit on its fetch (``max_fetch_bytes`` guards a device's disk from a source; a
    release fetches what its own remote published)."""
    return replace(limits_from(cfg.section("release"), given), max_fetch_bytes=None)


def read_release_json(gd: Path, commit: str) -> dict[str, Any] | None:
    """The release.json of a release commit, or None when missing or not JSON."""
    data = read_blob(gd, commit, RELEASE_JSON)
    if data is None:
        return None
    try:
        rel = loads_unique(data)
    except ValueError:
        return None
    return rel if isinstance(rel, dict) else None


def age_days(created: Any, now: datetime | None = None) -> float | None:
    """Days from a release's ``created`` (release.json) to `now` (default: now); a time
    without an offset is UTC, as `kb release` writes it; None when it is no time at all.
    The one reading of it: `kb status`, `kb sync`'s staleness warning and the web app."""
    if not isinstance(created, str):
        return None
    try:
        when = datetime.fromisoformat(created.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return ((now or datetime.now(UTC)) - when).total_seconds() / 86400


CLOCK_SKEW_DAYS = 1.0  # a release this far "ahead" of a device is clock skew, not a wrong clock


def clock_behind(created: Any, now: datetime | None = None) -> str | None:
    """What to say when this machine's clock (`now`, default: now) reads more than
    `CLOCK_SKEW_DAYS` before a release's ``created``, else None.

    A field device without a battery-backed clock boots in 1970; its releases then look
    created in the future and `age_days` is negative (`kb status` said "-20791.8 days
    old"). Nothing it serves depends on the time (a signature has no dates), so this is a
    note for the operator, not a refusal: one of the two clocks is wrong, and the device's
    is the one its logs and state are stamped with."""
    age = age_days(created, now)
    if age is None or age >= -CLOCK_SKEW_DAYS:
        return None
    reading = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return Keyed(f"this device's clock reads {reading}, before the release was created "
                 f"({created}): is the clock set? (the release is served all the same)",
                 "clock_behind", {"reading": reading, "created": created})


def age_warning(tag: str, created: Any, max_age_days: int,
                now: datetime | None = None) -> str | None:
    """The warning `kb sync` gives about the release it serves: its clock reads before the
    release was created (`clock_behind`), or the release is older than `max_age_days` by
    that clock. The clock's date is named, so that a clock set years ahead is seen for what
    it is rather than taken for a source that stopped publishing."""
    behind = clock_behind(created, now)
    if isinstance(behind, Keyed):
        return Keyed(f"release {tag}: {behind}", "warn_clock_behind",
                     {**behind.values, "release": tag})
    age = age_days(created, now)
    if age is None or int(age) <= max_age_days:
        return None
    today = f"{(now or datetime.now(UTC)):%Y-%m-%d}"
    return Keyed(f"release {tag} is {int(age)} days old by this device's clock ({today}; more "
                 f"than release.max_age_days = {max_age_days}); is the source still updated, "
                 "and the clock right?", "warn_stale",
                 {"release": tag, "days": int(age), "today": today, "max": max_age_days})


def make_release(root: Path, dist: Path, *, branch: str = "kb-index", remote: str | None = None,
                 sign_key: Path | None = None, next_keys: Sequence[Path] = (),
                 now: datetime | None = None, limits: NetLimits | None = None) -> ReleaseInfo:
    """Record `dist` as the next release; a no-op when the newest release already holds it.
    Talking to `remote` (listing, fetching, pushing), git is given up past `limits`
    (default: `gitrun.default_limits`; `kb release` passes kb.toml ``[release]``'s,
    `release_limits`).

    `next_keys` (private key files) rotate trust: release.json names their public keys and
    release.sig carries a cosignature by each, so devices trusting `sign_key` hand its trust
    over to them (`kbtools.ship.trust`). The remote is named without a URL's credentials
    in the result and in errors (`kbtools.ship.sourceurl`): CI logs show both.
    """
    if (problem := branch_problem(branch)) is not None:  # before git writes anything
        raise ReleaseError(problem, path=str(root))
    try:
        info = _make_release(root, dist, branch, remote, sign_key, next_keys, now, limits)
    except KbError as exc:
        raise scrubbed(exc) from None
    return replace(info, pushed_to=info.pushed_to and shown_source(info.pushed_to),
                   warnings=tuple(map(scrub, info.warnings)))


def _make_release(root: Path, dist: Path, branch: str, remote: str | None,
                  sign_key: Path | None, next_keys: Sequence[Path], now: datetime | None,
                  limits: NetLimits | None) -> ReleaseInfo:
    manifest = _checked_dist(dist)
    # said of every release of this build, new or already made
    said = dirty_warning(manifest) + history_warnings(manifest.get("source", {}))
    private = load_private(sign_key) if sign_key is not None else None
    successors = tuple(load_private(p) for p in next_keys)
    if successors and private is None:
        raise ReleaseError("--next-key needs --sign-key: only a signed release can hand "
                           "trust over to a new key", path=str(dist))
    gd = find_git_dir(root)
    local_head = LOCAL_HEADS + branch
    lim = limits or default_limits()
    published, dropped = _fetch_published(gd, remote, branch, lim) if remote else (set(), ())
    parent = rev_parse(gd, local_head)
    mhash = sha256_file(ReleaseLayout(dist).manifest)
    source = manifest["source"]
    prev = (read_release_json(gd, parent) or {}) if parent else {}
    if parent and prev.get("manifest_sha256") == mhash and \
            prev.get("source", {}).get("commit") == source.get("commit"):
        info = _info(prev, parent, new=False, pushed=remote or None, manifest=manifest)
        if remote:
            info = replace(info, warnings=dropped + _push(gd, remote, branch,
                                                          LOCAL_TAGS + info.tag, lim))
        return replace(info, warnings=said + info.warnings)
    aborted = _aborted_tags(gd, parent, int(prev.get("serial", 0)), published)
    serial = max([int(prev.get("serial", 0)), *published,
                  *(s for s in used_serials(gd) if s not in aborted)]) + 1
    created = (now or datetime.now(UTC)).replace(microsecond=0).isoformat()
    rel = {
        "release_format": RELEASE_FORMAT, "format_version": FORMAT_VERSION,
        "tag": tag_name(serial), "serial": serial, "branch": branch, "source": source,
        "manifest_sha256": mhash, "created": created, "kbtools_version": __version__,
        "signing_key": key_id(private.public_key()) if private is not None else None,
    }
    if successors:
        records = {key_id(k.public_key()): public_record(k.public_key()) for k in successors}
        rel["next_keys"] = [records[k] for k in sorted(records)]
    rel_bytes = (json.dumps(rel, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    sig_bytes = sign(private, rel_bytes, successors) if private is not None else None
    tree = _write_tree(gd, dist, manifest, rel_bytes, sig_bytes)
    commit = _commit_and_tag(gd, tree, parent, local_head, rel, aborted)
    warnings = (_publish(gd, remote, branch, tag_name(serial), parent, commit, lim)
                if remote else ())
    return replace(_info(rel, commit, new=True, pushed=remote or None, manifest=manifest),
                   warnings=said + dropped + warnings)


def dirty_warning(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The warning for a build that read files its source commit does not hold (manifest
    ``source.dirty``): devices and agents cite its lines under that commit, where they may
    be other lines. Released all the same (a field fix may not wait for a commit), but never
    without a word."""
    source = manifest.get("source", {})
    if source.get("dirty") is not True:
        return ()
    commit = str(source.get("commit", "none"))
    base = "no commit" if commit == "none" else f"commit {commit[:12]}"
    return (f"the build read uncommitted changes (manifest source.dirty): citations name "
            f"{base}, whose lines may differ; commit, then `kb build` and `kb release` again "
            "for a release every citation of which holds",)


def _checked_dist(dist: Path) -> dict[str, Any]:
    """The manifest of `dist`, after checking every file against it."""
    if is_staging_dir(dist.absolute()):
        raise ReleaseError("an unfinished build's staging directory, not a build (run "
                           "`kb build`)", path=str(dist))
    manifest = load_manifest(dist)
    problems = verify_files(dist, manifest, derived=False)
    problems += unlisted_entries(dist, set(manifest.get("artifacts", {})), DATA_DIR)
    if problems:
        raise ReleaseError(f"dist does not match its manifest: {plural(len(problems), 'problem')}"
                           f", first: {problems[0]}; rebuild with `kb build`", path=str(dist))
    return manifest


def used_serials(gd: Path) -> set[int]:
    """Every serial a release here has used: the local release tags (`refs/kb/tags/`), plain
    `refs/tags/kb-r*` tags (fetched from an artifacts repository, or made in one) and the
    newest release of every artifacts branch under `refs/kb/heads/` (another `--branch`, one
    renamed in kb.toml). A new release takes none of them: a device that saw the number
    would take the new release for one it has, or for a rollback."""
    used = set(release_tag_targets(gd, LOCAL_TAGS)) | set(release_tag_targets(gd, "refs/tags/"))
    for tip in run_git(gd, "for-each-ref", "--format=%(objectname)", LOCAL_HEADS).split():
        serial = (read_release_json(gd, tip) or {}).get("serial")
        if isinstance(serial, int):
            used.add(serial)
    return used


def _aborted_tags(gd: Path, parent: str | None, newest: int, published: set[int]
                  ) -> dict[int, str]:
    """serial -> tag object, of the local release tags a `kb release` interrupted between
    tagging and moving the branch left behind (earlier kbtools moved the two refs one after
    the other): newer than the branch's newest release (`newest`), on a commit made on the
    branch's tip (`parent`; a root commit when the branch has none yet) that no artifacts
    branch and no other release tag holds, and not published at the remote. Their serials
    are free again. A tag of another artifacts branch, or of this one before it was
    deleted, is a release: its serial is kept (and so is the tag)."""
    out: dict[int, str] = {}
    for s, (oid, commit) in release_tag_targets(gd, LOCAL_TAGS).items():
        if s <= newest or s in published or rev_parse(gd, f"{commit}^") != parent:
            continue
        holders = run_git(gd, "for-each-ref", f"--contains={commit}", "--format=%(refname)",
                          LOCAL_HEADS, LOCAL_TAGS).split()
        if holders == [LOCAL_TAGS + tag_name(s)]:
            out[s] = oid
    return out


def _identity(gd: Path) -> dict[str, str]:
    """The environment naming kb (`RELEASE_IDENTITY`) as the author or committer of what
    `kb release` commits and tags, for each role git finds no one for (a fresh CI runner or
    machine: no user.name/user.email, no GIT_* variables, no address to guess; git refused
    the commit, "unable to auto-detect email address"); {} when git knows both. Who made a
    release is vouched for by its signature, not by its committer."""
    env: dict[str, str] = {}
    for role in ("AUTHOR", "COMMITTER"):
        if run_raw(gd, ("var", f"GIT_{role}_IDENT")).returncode:
            env |= {f"GIT_{role}_NAME": RELEASE_IDENTITY[0],
                    f"GIT_{role}_EMAIL": RELEASE_IDENTITY[1]}
    return env


def _commit_and_tag(gd: Path, tree: str, parent: str | None, local_head: str,
                    rel: dict[str, Any], aborted: dict[int, str]) -> str:
    """Commit `tree` on the artifacts branch and tag it, moving both refs in one
    transaction (and dropping the `aborted` tags of interrupted releases); returns the
    commit. A kill at any point leaves either the previous release or this one; another
    `kb release` that recorded a release meanwhile makes this one fail, changing nothing."""
    tag, serial, mhash = rel["tag"], rel["serial"], rel["manifest_sha256"]
    source_commit = rel["source"]["commit"]
    msg = f"kb release {tag}: source {source_commit}, manifest sha256 {mhash}\n"
    ident = _identity(gd)
    commit = run_git(gd, "commit-tree", tree, *(["-p", parent] if parent else []),
                     "-m", msg, env=ident).strip()
    tagger = run_git(gd, "var", "GIT_COMMITTER_IDENT", env=ident).strip()
    tag_text = (f"object {commit}\ntype commit\ntag {tag}\ntagger {tagger}\n\n"
                f"kb release {serial}\n\nsource-commit: {source_commit}\n"
                f"manifest-sha256: {mhash}\n")
    tag_obj = run_git(gd, "mktag", stdin=tag_text.encode()).strip()
    tag_ref = LOCAL_TAGS + tag
    commands = [f"delete {LOCAL_TAGS}{tag_name(s)} {oid}" for s, oid in sorted(aborted.items())
                if s != serial]
    commands.append(f"update {tag_ref} {tag_obj} {aborted[serial]}" if serial in aborted
                    else f"create {tag_ref} {tag_obj}")
    commands.append(f"update {local_head} {commit} {parent}" if parent
                    else f"create {local_head} {commit}")
    try:
        update_refs(gd, commands, f"kb release {tag}")
    except ReleaseError as exc:
        if rev_parse(gd, local_head) == parent:
            raise
        raise ReleaseError(f"another kb release recorded a release on {local_head} while "
                           f"this one made {tag}; nothing was recorded, run kb release "
                           f"again ({exc.message})") from None
    return commit


def _info(rel: dict[str, Any], commit: str, *, new: bool, pushed: str | None,
          manifest: dict[str, Any]) -> ReleaseInfo:
    lapsed = (manifest.get("verification") or {}).get("lapsed") or []
    return ReleaseInfo(tag=rel["tag"], serial=int(rel["serial"]), commit=commit,
                       source_commit=rel["source"]["commit"],
                       manifest_sha256=rel["manifest_sha256"], created=rel["created"],
                       new=new, pushed_to=pushed, signed_by=rel.get("signing_key"),
                       lapsed=tuple(lapsed))


def _write_tree(gd: Path, dist: Path, manifest: dict[str, Any], rel_bytes: bytes,
                sig_bytes: bytes | None) -> str:
    """The release tree: manifest.json and the listed artifacts of `dist` (checked by
    `_checked_dist`), release.json and release.sig, all mode 100644. Each blob holds the
    file's bytes as they are (`hash-object --no-filters`): no attribute, end-of-line
    conversion or filter of this machine's git settings (core.attributesFile,
    info/attributes, core.autocrlf) applies, and no index of the repository is used."""
    names = [MANIFEST, *sorted(manifest.get("artifacts", {}))]
    listing = b"".join(os.fsencode(dist / name) + b"\n" for name in names)
    oids = run_git(gd, "hash-object", "-w", "--no-filters", "--stdin-paths",
                   stdin=listing).split()
    extra = {RELEASE_JSON: rel_bytes, **({RELEASE_SIG: sig_bytes} if sig_bytes else {})}
    for name, data in extra.items():
        names.append(name)
        oids.append(run_git(gd, "hash-object", "-w", "--no-filters", "--stdin",
                            stdin=data).strip())
    entries = b"".join(f"100644 {oid}\t".encode() + name.encode("utf-8") + b"\0"
                       for oid, name in zip(oids, names, strict=True))
    # the private index lives in a locked staging dir under the git dir, so the one a
    # killed release leaves is removed by the next release (in /tmp it stayed for good)
    with staging_dir(gd / RELEASE_INDEX_DIR) as private:
        try:
            env = {"GIT_INDEX_FILE": str(private / "index")}
            run_git(gd, "update-index", "-z", "--index-info", stdin=entries, env=env)
            tree = run_git(gd, "write-tree", env=env).strip()
        finally:
            shutil.rmtree(private, ignore_errors=True)
    problems = tree_problems(ls_tree(gd, tree, error=ReleaseError), manifest)
    if problems:
        raise ReleaseError(f"release tree does not match the manifest: {problems[0]}; "
                           "rebuild with `kb build`", path=str(dist))
    return tree


def _at_remote(gd: Path, remote: str, *args: str, limits: NetLimits) -> str:
    """`run_git` of a command talking to `remote` (listing, fetching, pushing), given up past
    `limits`; a failure names the remote, as a sync's names its source."""
    try:
        return run_git(gd, *args, limits=limits)
    except ReleaseError as exc:
        raise ReleaseError(exc.message, path=remote) from None


def _remote_refs(gd: Path, remote: str, limits: NetLimits) -> dict[str, str]:
    out = _at_remote(gd, remote, "ls-remote", remote, limits=limits)
    refs: dict[str, str] = {}
    for line in out.split("\n"):  # not splitlines: a ref name may hold U+2028
        sha, _, ref = line.partition("\t")
        refs[ref] = sha
    return refs


def _fetch_published(gd: Path, remote: str, branch: str, limits: NetLimits
                     ) -> tuple[set[int], tuple[str, ...]]:
    """Bring the remote's artifacts branch and release tags into refs/kb/*; returns the
    serials of the release tags the remote holds, and one line naming the local releases
    `_take_back` dropped (none when it dropped none)."""
    refs = _remote_refs(gd, remote, limits)
    published = {s for s in map(parse_serial, (r for r in refs if r.startswith("refs/tags/")))
                 if s is not None}
    if f"refs/heads/{branch}" not in refs:
        return published, ()
    staging = f"refs/kb/remote/{branch}"
    _at_remote(gd, remote, "fetch", "-q", "--no-tags", remote,
               f"+refs/heads/{branch}:{staging}",
               f"+refs/tags/{TAG_PREFIX}*:{LOCAL_TAGS}{TAG_PREFIX}*", limits=limits)
    theirs = rev_parse(gd, staging)
    ours = rev_parse(gd, LOCAL_HEADS + branch)
    if theirs is None or theirs == ours:
        return published, ()
    if ours is None or is_ancestor(gd, ours, theirs):
        run_git(gd, "update-ref", LOCAL_HEADS + branch, theirs)
    elif not is_ancestor(gd, theirs, ours):
        dropped = _take_back(gd, refs, branch, ours, theirs)
        if dropped is None:
            raise ReleaseError(f"local {branch} and {remote}'s {branch} have diverged; "
                               f"inspect {LOCAL_HEADS}{branch} and {staging}")
        return published, (f"dropped {', '.join(dropped)}: recorded here by a kb release "
                           f"that never pushed {'it' if len(dropped) == 1 else 'them'}, "
                           f"while {remote} published other releases; this release "
                           "follows the published ones",)
    return published, ()


def _take_back(gd: Path, refs: dict[str, str], branch: str, ours: str, theirs: str
               ) -> tuple[str, ...] | None:
    """Move the local `branch` from `ours` to the remote's `theirs` when every commit only
    `ours` holds is a release made here and never published (a `kb release` killed after
    recording it and before its push, while another one published): the remote's tag of its
    serial names another commit, or there is none. Their local tags go too, in one ref
    transaction, so this release takes the next serial on top of the published ones.
    Returns the tags of the releases dropped, oldest first; None (nothing moved) when one is
    not such a release: someone else's commit, or one the remote published and then lost
    from its branch."""
    only_ours = run_git(gd, "rev-list", "--reverse", ours, f"^{theirs}").split()
    dropped = []
    for commit in only_ours:
        rel = read_release_json(gd, commit) or {}
        parent = rev_parse(gd, f"{commit}^")
        before = (read_release_json(gd, parent) or {}).get("serial", 0) if parent else 0
        serial = rel.get("serial")
        if not isinstance(serial, int) or not isinstance(before, int) or serial <= before \
                or rel.get("tag") != tag_name(serial) \
                or refs.get(f"refs/tags/{tag_name(serial)}^{{}}") == commit:
            return None  # not a release made on its parent, or one the remote published
        dropped.append(tag_name(serial))
    unpublished = set(only_ours)
    tags = [f"delete {LOCAL_TAGS}{tag_name(serial)} {oid}"
            for serial, (oid, commit) in release_tag_targets(gd, LOCAL_TAGS).items()
            if commit in unpublished]
    update_refs(gd, [*tags, f"update {LOCAL_HEADS}{branch} {theirs} {ours}"],
                f"kb release: {len(only_ours)} unpublished release(s) taken back")
    return tuple(dropped)


def _publish(gd: Path, remote: str, branch: str, tag: str, parent: str | None,
             commit: str, limits: NetLimits) -> tuple[str, ...]:
    """Push the new release `tag` (`commit`, made on `parent`). When the remote's branch
    moved meanwhile (another `kb release` published first), the push is refused as a whole
    (``--atomic``) and the release is taken back here too, so that running `kb release`
    again makes the next serial on top of the published one; returns `_push`'s warnings."""
    try:
        return _push(gd, remote, branch, LOCAL_TAGS + tag, limits)
    except ReleaseError as exc:
        try:
            theirs = _remote_refs(gd, remote, limits).get(f"refs/heads/{branch}")
        except ReleaseError:
            raise exc from None
        if theirs in (None, parent, commit):
            raise  # not a race: the remote is unreachable, full, read-only...
        tag_obj = run_git(gd, "rev-parse", "-q", "--verify", LOCAL_TAGS + tag).strip()
        head = LOCAL_HEADS + branch
        try:
            update_refs(gd, [f"delete {LOCAL_TAGS}{tag} {tag_obj}",
                             f"update {head} {parent} {commit}" if parent
                             else f"delete {head} {commit}"], f"kb release: {tag} not published")
            kept = "is no longer recorded here"
        except ReleaseError:  # a release made here since builds on it: keep it
            kept = "stays recorded here under a newer release"
        raise ReleaseError(f"{remote} received another release while this one was made "
                           f"({branch} moved to {theirs[:12]}); {tag} was not published and "
                           f"{kept}; run kb release again") from None


def _push(gd: Path, remote: str, branch: str, tag_ref: str, limits: NetLimits
          ) -> tuple[str, ...]:
    """Push branch and tag, both or neither (``--atomic``: a branch refused as not a
    fast-forward never leaves the tag published off the branch); point a local remote's
    dangling HEAD at the branch. Returns a warning when the remote's HEAD names another
    branch (a plain clone would not check out the releases)."""
    tag = tag_ref.rsplit("/", 1)[-1]
    _at_remote(gd, remote, "push", "-q", "--atomic", remote,
               f"{LOCAL_HEADS}{branch}:refs/heads/{branch}", f"{tag_ref}:refs/tags/{tag}",
               limits=limits)
    point_head_at(remote, branch)
    try:
        head = remote_head(gd, remote, limits)
    except ReleaseError as exc:  # published: asking which branch a clone checks out failed
        return (f"{remote}: {tag} is published, but its HEAD could not be read ({exc.message}); "
                f"make sure {branch} is the repository's default branch",)
    if head == f"refs/heads/{branch}":
        return ()
    return (f"{remote}: HEAD names {head or 'no branch'}, so `git clone` will not check out "
            f"the releases; make {branch} the repository's default branch",)
