"""A git checkout of a release is an index too: ``git clone`` the artifacts repository,
``git checkout kb-rN``, ask.

`resolve_index_path` and `open_index` are `kbtools.index.reader`'s, plus this: a path whose
top holds ``.git`` and release.json is a checkout (`CheckoutLayout`). Given no index (no
--index, no $KB_INDEX), a client command takes the checkout the current directory lies in
(`implicit_checkout`) unless a kb.toml is nearer, else <KB_HOME>/device when it is one (a
`git clone` there). `kb sync` refuses a device directory in a checkout
(`refuse_device_in_checkout`). Opening one:

1. HEAD must be a commit that a release tag (``refs/tags/kb-r<serial>``, annotated, naming
   the manifest hash) points at; otherwise "HEAD 1a2b3c4d5e6f is not a signed release tag".
2. The work tree must be exactly that commit: ``git status`` lists nothing — no modified,
   deleted, added, untracked or ignored file ("data/chunks/3f.jsonl differs from the
   signed release kb-r2"). Each refusal ends with git commands that repair it whatever
   git's index holds (`kbtools.ship.repairs`), after undoing what a git command stopped
   half-way left (a `git pull` on conflicts, or killed); a release refused
   for what it is names the way back to the one served before (`_way_back`).
3. The release is installed, once per manifest, by `kbtools.ship.install.install_release`
   — the code `kb sync` runs, with the same rules: closed set of regular files, sha256 and
   size of every file, signature by a trusted key when keys are configured (kb.toml
   ``release.trusted_keys``) or pinned (``<git-dir>/kb/trusted_keys``, first use pins as on
   a device; rotations followed), derived index/ checked against the manifest. It is read
   from git objects, not from the work tree, into ``<git-common-dir>/kb/derived/<manifest
   sha256>/``: inside the git directory, so the work tree never gets an untracked file.
4. Later opens of the same commit reuse that directory (its verified.json names the
   commit); derived releases beyond the `DERIVED_KEEP` most recently used are pruned.

Everything under ``<git-common-dir>/kb`` is written under its lock (`kbtools.ship.device.
locked`), through a staging directory renamed into place. A checkout kb cannot write (a
read-only mount) is served from the release derived there before, checked as in 4 but
with no lock taken and nothing written; one never derived there is refused in one line.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.beneath import mkdir_beneath
from kbtools.config import Config
from kbtools.errors import KbError, SyncError, plural
from kbtools.index import reader
from kbtools.index.layout import (
    CHECKOUT_STATE,
    DERIVED_CACHE,
    GIT_DIR,
    STAGING_SUFFIX,
    CheckoutLayout,
    ReleaseLayout,
    default_device_dir,
)
from kbtools.index.selfcheck import index_rules
from kbtools.ship import trust
from kbtools.ship.device import check_device_dir, device_dir
from kbtools.ship.devicelock import locked
from kbtools.ship.devicestate import read_json
from kbtools.ship.git import TAG_PREFIX, missing_objects, release_tags, rev_parse
from kbtools.ship.gitrun import run_plain
from kbtools.ship.install import install_release, verify_release
from kbtools.ship.intact import check_intact
from kbtools.ship.readonly import served_copy
from kbtools.ship.release import read_release_json, release_settings
from kbtools.ship.repairs import not_a_release, work_tree_problem
from kbtools.ship.sparse import (
    checkout_containing,
    git_dir_named,
    is_checkout_top,
    is_sparse_release,
)
from kbtools.ship.tagged import (
    TaggedRelease,
    read_tag,
    tagged_release,
    unfetched,
    vouched_below,
)
from kbtools.ship.verify import blob_problems
from kbtools.ship.worktree import WorkTree, release_tags_at, work_tree

DERIVED_KEEP = 3  # derived releases kept per clone (the one in use is never pruned)


class CheckoutStateError(SyncError):
    """The checkout is not a clean release checkout: no commit, no release tags, HEAD not a
    release tag, or a work tree that differs from it. Its own state, not git objects it
    could not read, so never reported as a partial clone's missing files."""


@dataclass(frozen=True)
class CheckoutRelease:
    """The release a checkout holds and where its verified, derived copy lives."""

    root: Path
    head: str
    tag: str
    serial: int
    manifest_sha256: str
    derived: Path
    reused: bool  # the derived index was there already (no export, no derivation)
    signed_by: str | None
    trust: tuple[str, ...] = ()  # keys pinned/unpinned by this open, one line each

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "root": str(self.root), "derived": str(self.derived),
                "trust": list(self.trust)}


def find_checkout(path: Path) -> tuple[CheckoutLayout, WorkTree] | None:
    """The checkout layout of `path` when it is the top of a git work tree holding a
    release's files; None for anything else (a build, a device directory...)."""
    if not is_checkout_top(path):  # a sparse one too (`kbtools.ship.sparse`)
        return None
    tree = work_tree(path)
    if tree is None:
        named = git_dir_named(path)
        if named is not None and named.name != GIT_DIR and not named.is_dir():
            raise SyncError(f"git cannot read this checkout: its .git file names {named}, "
                            "which is gone (the clone it was added to with `git worktree add` "
                            "was moved or deleted); `git -C CLONE worktree repair "
                            f"{shlex.quote(str(path.absolute()))}` run with the clone's new "
                            "place relinks it", path=str(path))
        return None
    return CheckoutLayout(tree.top, tree.common_dir), tree


def head_release(tree: WorkTree) -> tuple[str, str, int]:
    """(HEAD commit, tag, serial) of a checkout; SyncError when no release tag points at
    HEAD (or no HEAD at all)."""
    head = rev_parse(tree.git_dir, "HEAD")
    if head is None:
        raise CheckoutStateError("the checkout has no commit checked out", path=str(tree.top))
    tags = release_tags_at(tree.git_dir, head)
    if not tags and not release_tags(tree.git_dir, f"refs/tags/{TAG_PREFIX}*"):
        raise CheckoutStateError("the clone has no release tags (kb-r<N>), so HEAD "
                        f"{head[:12]} cannot be checked as a signed release; fetch them "
                        "with `git fetch --tags` (a clone made with --no-tags has none)",
                        path=str(tree.top))
    if not tags:
        raise CheckoutStateError(not_a_release(tree, head), path=str(tree.top))
    named = (read_release_json(tree.git_dir, head) or {}).get("tag")
    serial = next((s for s, t in tags.items() if t == named), max(tags))
    return head, tags[serial], serial  # another tag than release.json's is refused later


def check_head(layout: CheckoutLayout, tree: WorkTree,
               found: tuple[str, str, int] | None = None) -> TaggedRelease:
    """The release tag HEAD is, after the checks of every open (HEAD a release tag,
    annotated, naming the manifest hash; the work tree exactly that commit); `found` is
    `head_release(tree)` when the caller has it. SyncError naming the first problem."""
    where = str(layout.root)
    head, tag, serial = found or head_release(tree)
    problem = work_tree_problem(tree, tag)
    if problem is not None:
        raise CheckoutStateError(problem, path=where)
    release = read_tag(tree, tag, serial, where)
    if release.commit != head:
        raise SyncError(f"{tag} moved while it was being read; try again", path=where)
    return release


def open_checkout(layout: CheckoutLayout, tree: WorkTree, *,
                  keep: int = DERIVED_KEEP) -> CheckoutRelease:
    """Check the checkout (HEAD a release tag, work tree clean) and return its verified,
    derived release directory, installing it first when this commit has none yet."""
    try:
        return _open_checkout(layout, tree, keep)
    except SyncError as exc:
        raise _way_back(layout, tree, _missing_objects(tree, exc)) from None


def _way_back(layout: CheckoutLayout, tree: WorkTree, exc: SyncError) -> SyncError:
    """`exc`, a release refused for what it is (its signature, its files, objects the clone
    lacks), naming the git command back to the release this clone served before: the most
    recently used one derived here for another commit; for a signature refused, the newest
    release tag of the clone the pinned keys vouch for when that is another (a fresh clone
    has served none). Not for the checkout's own state (`CheckoutStateError`), whose repair
    the message names already."""
    if isinstance(exc, CheckoutStateError):
        return exc
    head = rev_parse(tree.git_dir, "HEAD")
    before = next((ver["tag"] for ver in (
        read_json(ReleaseLayout(folder).verified) for folder in sorted(
            layout.derived_dirs().values(), key=_used, reverse=True))
        if ver.get("commit") != head and isinstance(ver.get("tag"), str)), None)
    # an unsigned or foreign tag on top of the clone
    vouched = _vouched(layout, tree) if isinstance(exc, trust.Untrusted) else None
    if vouched is not None and vouched != before:
        return SyncError(f"{exc.message}; `git checkout {vouched}` checks out the newest "
                         "release of this clone signed by a pinned key", path=exc.path)
    if before is not None:
        return SyncError(f"{exc.message}; `git checkout {before}` returns to the release "
                         "served here before", path=exc.path, line=exc.line, key=exc.key,
                         values=exc.values)
    return exc


def _vouched(layout: CheckoutLayout, tree: WorkTree) -> str | None:
    """The newest release tag below HEAD's that the clone's trusted keys vouch for."""
    try:
        serial = head_release(tree)[2]
    except SyncError:
        return None
    begin = trust.start(layout.state, list(release_settings().trusted_keys))
    return vouched_below(tree, serial, begin)


def _used(folder: Path) -> int:
    """When a derived release was last used (0 when another process pruned it meanwhile)."""
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return 0


def _missing_objects(tree: WorkTree, exc: SyncError) -> SyncError:
    """`exc`, saying so when HEAD's files are not all in the clone: a partial clone
    (``--filter``) fetches them when read, which fails once its remote is out of reach
    (git's reason alone names only the remote). Only the files of HEAD's tree count (a
    partial clone never holds those of releases it did not check out), and never for a
    problem of the checkout's own state (`CheckoutStateError`: an edited work tree)."""
    if isinstance(exc, CheckoutStateError):
        return exc
    missing = _count_missing(tree, "HEAD^{tree}")
    what = "of the release checked out"
    if not missing and exc.message.startswith("git ") and " failed: " in exc.message:
        # a git command failed reading objects: those of earlier releases, read to follow
        # key rotations, which a partial clone fetches only then
        missing, what = _count_missing(tree, "HEAD"), "of earlier releases (read to follow " \
            "key rotations)"
    if not missing:
        return exc
    return SyncError(f"{plural(missing, 'file')} {what} "
                     "are not in this partial clone and could not be fetched from its remote "
                     f"({exc.message}); reconnect it and ask again, or clone without --filter",
                     path=exc.path)


def _count_missing(tree: WorkTree, start: str) -> int:
    return missing_objects(tree.git_dir, start)


def _open_checkout(layout: CheckoutLayout, tree: WorkTree, keep: int) -> CheckoutRelease:
    return _open_release(layout, tree, check_head(layout, tree), keep)


def derived_tag(layout: CheckoutLayout, tree: WorkTree, tag: str) -> Path:
    """The verified, derived release directory of the clone's release tag `tag`, checked
    out or not (`kb read --release`): reused when derived before, else installed now from
    git objects as a checkout of it is (the work tree, HEAD and git's index untouched)."""
    t = tagged_release(tree, tag)
    try:
        return _open_release(layout, tree, t, DERIVED_KEEP).derived
    except SyncError as exc:
        raise unfetched(tree, t, exc) from None


def clone_of_derived(root: Path) -> tuple[CheckoutLayout, WorkTree] | None:
    """The clone whose derived release `root` is (``<git-common-dir>/kb/derived/<manifest
    sha256>``), named by its git directory; None for any other directory."""
    if root.parent.name != DERIVED_CACHE or root.parent.parent.name != CHECKOUT_STATE:
        return None
    common = root.parent.parent.parent
    if not (common / "HEAD").is_file() or not (common / "objects").is_dir():
        return None
    top = common.parent if common.name == GIT_DIR else common  # named as the clone
    return CheckoutLayout(top, common), WorkTree(top, common, common)


def _open_release(layout: CheckoutLayout, tree: WorkTree, h: TaggedRelease,
                  keep: int) -> CheckoutRelease:
    where = str(layout.root)
    given = list(release_settings().trusted_keys)
    if not _writable(layout):  # a clone on read-only media: serve what it holds, write nothing
        final = layout.derived(h.mhash)
        verified = read_json(ReleaseLayout(final).verified)
        if _reusable(final, verified, h.commit, h.tag, trust.start(layout.state, given)):
            return CheckoutRelease(layout.root, h.commit, h.tag, h.serial, h.mhash, final, True,
                                   verified.get("signed_by"))
        raise SyncError(f"cannot write {layout.state} (read-only) and {h.tag} has no index "
                        "derived there yet: open this checkout once where it can be written "
                        "(or `kb sync` the release into a device directory)", path=where)
    try:
        mkdir_beneath(layout.git_dir, f"{CHECKOUT_STATE}/{DERIVED_CACHE}")
        with locked(layout.state, "kb query (deriving a checkout's index)"):
            check_device_dir(layout.state)
            return _derived(layout, tree, h, trust.start(layout.state, given), keep)
    except OSError as exc:
        raise SyncError(f"cannot write {exc.filename or 'the derived index'}: "
                        f"{exc.strerror or exc}", path=where) from None


def _writable(layout: CheckoutLayout) -> bool:
    """Whether kb may write its state in the checkout's git directory (not on a read-only
    mount, not another account's)."""
    state = layout.state
    return os.access(state if state.is_dir() else layout.git_dir, os.W_OK)


def verify_checkout(layout: CheckoutLayout, tree: WorkTree, h: TaggedRelease) -> None:
    """What opening the checkout would refuse, found without writing anything (`kb
    status`): a derived release reusable for this commit needs nothing more (as in
    `open_checkout`); otherwise the release commit gets every check `install_release`
    makes from git objects (`verify_release`) and its artifacts' sha256 (the blobs, not the
    work tree). SyncError naming the first problem."""
    begin = trust.start(layout.state, list(release_settings().trusted_keys))
    final = layout.derived(h.mhash)
    if _reusable(final, read_json(ReleaseLayout(final).verified), h.commit, h.tag, begin):
        return
    checked = verify_release(tree.git_dir, h.commit, h.tag, h.serial, h.tag_mhash, begin, 0)
    problems = blob_problems(tree.git_dir, checked.entries, checked.manifest)
    if problems:
        raise SyncError(f"artifacts do not match the manifest: {plural(len(problems), 'problem')}"
                        f", first: {problems[0]}", path=h.tag)


def _derived(layout: CheckoutLayout, tree: WorkTree, h: TaggedRelease,
             begin: trust.TrustStart, keep: int) -> CheckoutRelease:
    """The derived release of release `h`: reused when verified for its commit, else
    installed now (call with the lock held)."""
    final = layout.derived(h.mhash)
    verified = read_json(ReleaseLayout(final).verified)
    if _reusable(final, verified, h.commit, h.tag, begin):
        os.utime(final)  # most recently used: pruned last
        return CheckoutRelease(layout.root, h.commit, h.tag, h.serial, h.mhash, final, True,
                               verified.get("signed_by"))
    _clean(layout, h.mhash)
    try:
        done = install_release(tree.git_dir, h.commit, h.tag, h.serial, h.tag_mhash, begin, 0,
                               layout.staging(h.mhash), final,
                               previous=_last_used(layout, h.mhash))
    finally:
        _clean_staging(layout, h.mhash)
    pinned = trust.apply(layout.state, done.plan, h.tag)
    prune(layout, keep, h.mhash)
    return CheckoutRelease(layout.root, h.commit, h.tag, h.serial, h.mhash, final, False,
                           done.plan.signed_by, tuple(pinned))


def _last_used(layout: CheckoutLayout, mhash: str) -> Path | None:
    """The most recently used derived release other than `mhash`'s: the index a new one is
    derived from (only the changed shards redone; `install_release` self-checks the result)."""
    others = [p for name, p in layout.derived_dirs().items()
              if name != mhash and ReleaseLayout(p).verified.is_file()
              and ReleaseLayout(p).derived.is_dir()]
    return max(others, key=lambda p: p.stat().st_mtime, default=None)


def _reusable(final: Path, verified: dict[str, Any], head: str, tag: str,
              begin: trust.TrustStart) -> bool:
    """A derived release installed for this very commit and tag, signed by a key trusted
    now (a key pinned or configured after it was derived makes it be verified again)."""
    if final.is_symlink() or verified.get("commit") != head or verified.get("tag") != tag:
        return False
    if not ReleaseLayout(final).derived.is_dir():
        return False
    if index_rules(final)[0] is not None:
        # derived by a kbtools with other rules (a tokenizer), or its store removed, cut
        # short or appended to (read as its header records, `store.store_damage`): derive
        # it again
        return False
    return not begin.keys or verified.get("signed_by") in {k.key_id for k in begin.keys}


def _clean(layout: CheckoutLayout, mhash: str) -> None:
    """Remove a leftover staging directory and a stale derived directory of `mhash`."""
    for leftover in (layout.staging(mhash), layout.derived(mhash)):
        if leftover.is_dir() and not leftover.is_symlink():
            _remove(leftover)
        elif leftover.is_symlink():
            leftover.unlink()


def _clean_staging(layout: CheckoutLayout, mhash: str) -> None:
    staging = layout.staging(mhash)
    if staging.is_dir() and not staging.is_symlink():
        shutil.rmtree(staging, ignore_errors=True)


def _remove(path: Path) -> None:
    doomed = path.with_name(f".{path.name}.deleting")
    os.replace(path, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def prune(layout: CheckoutLayout, keep: int, in_use: str) -> list[str]:
    """Delete derived releases beyond the `keep` most recently used, never `in_use`, and
    leftovers of interrupted derivations. Returns the manifest hashes removed."""
    root = layout.derived_root
    for p in root.iterdir() if root.is_dir() else ():
        if p.name.endswith(STAGING_SUFFIX) or p.name.startswith("."):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
    dirs = layout.derived_dirs()
    by_use = sorted(dirs, key=lambda h: dirs[h].stat().st_mtime_ns, reverse=True)
    removed = []
    for mhash in by_use[keep:]:
        if mhash != in_use:
            _remove(dirs[mhash])
            removed.append(mhash)
    return removed


# --- the index a client opens ------------------------------------------------------------

def implicit_checkout() -> Path | None:
    """The git checkout of a release a client command given no index means: the one the
    current directory lies in (`reader.checkout_here`: a kb.toml nearer wins), unless
    $KB_INDEX names an index (which wins, as --index does). None for none."""
    return None if os.environ.get("KB_INDEX") else reader.checkout_here(
        sparse=is_sparse_release)


def device_or_checkout_here(to: Path | None) -> Path:
    """The device directory a device command (`kb trust`, `releases`, `log`) given
    `--to` or nothing acts on (`device.device_dir`), where the git checkout of a release
    around the current directory (`implicit_checkout`) stands for the device when neither
    --to nor $KB_INDEX names one, as for `kb query` and `kb status`: in a clone they used
    to act on <KB_HOME>/device unseen (`kb trust add` pinned a key there, not in the clone)."""
    return device_dir(to if to is not None else implicit_checkout())


_IN_A_CLONE = {  # what does in a clone what `kb sync` does on a device
    "sync": "`git pull --ff-only` brings this checkout its newest release"}


def clone_given_or_here(to: Path | None) -> tuple[CheckoutLayout, WorkTree] | None:
    """The git checkout of a release whose tags `kb diff` compares: `to` when it is one,
    else (no --to) the one around the current directory (`implicit_checkout`), $KB_INDEX or
    <KB_HOME>/device when that is one; None when the directory meant is no checkout (a
    device directory)."""
    path = to if to is not None else implicit_checkout() or device_dir(None)
    return find_checkout(path)


def device_outside_checkout(to: Path | None, command: str) -> Path:
    """The device directory `kb sync` or `kb diff` (`command`) acts on: `device_dir(to)`,
    unless no --to is given and the current directory lies in a git checkout of a release
    (`implicit_checkout`): `kb query`, `kb status` and `kb rollback` act on that clone there,
    and these acted on <KB_HOME>/device, another device, unseen. Refused in one line naming
    both: the git command that does it in the clone, and --to for the device."""
    here = implicit_checkout() if to is None else None
    if here is None:
        return device_dir(to)
    other, does = device_dir(None), _IN_A_CLONE[command]
    if command == "sync" and run_plain("-C", str(here), "symbolic-ref", "-q",
                                       "HEAD").returncode != 0:  # detached: pull refuses
        does = ("`git fetch --tags` and `git checkout` of the newest release tag bring this "
                "checkout (a detached HEAD) its newest release")
    raise SyncError(f"this is a git checkout of a release, where `kb query` and `kb status` "
                    f"read the clone: {does}; `kb {command} --to "
                    f"{shlex.quote(str(other))}` acts on the device directory instead",
                    path=str(here))


def resolve_index_path(path: Path | None, near: Config | None = None) -> Path:
    """`kbtools.index.reader.resolve_index_path`, where a git checkout of a release (given,
    in $KB_INDEX, or around the current directory when neither names an index:
    `implicit_checkout`, or the default device directory <KB_HOME>/device made by `git
    clone`) resolves to its verified, derived release directory. `near`: the configuration
    around the current directory when the caller has read it (`reader.implicit_index`)."""
    if path is None and os.environ.get("KB_INDEX"):
        path = Path(os.environ["KB_INDEX"])
    path = path if path is not None else implicit_checkout()
    if path is None and is_checkout_top(default_device_dir()):
        path = reader.implicit_index(near)[0]  # <KB_HOME>/device cloned with git (a built dist/
        # of the knowledge repository here still wins, as for a device)
    if path is not None and (found := find_checkout(path)) is not None:
        return open_checkout(*found).derived
    release = reader.resolve_index_path(path, sparse=is_sparse_release, near=near)
    check_intact(release)  # a device's files edited after sync: refused, as `kb status` does
    return served_copy(release)  # a read-only device: see readonly.py


def open_index(path: Path | None = None, near: Config | None = None) -> reader.KbIndex:
    """`kbtools.index.reader.open_index` for any index a client has: a build, a release or
    device directory, or a git checkout of a release (verified and derived first); `near`
    as for `resolve_index_path`."""
    return reader.open_index(resolve_index_path(path, near))


def refuse_device_in_checkout(path: Path) -> None:
    """Refuse `path` as a device directory (`kb sync --to`) when it is a git checkout of a
    release or lies in one's work tree: the device's files (releases/, repo.git, state.json)
    would make the checkout differ from its release, and be refused with it, whose repair,
    ``git clean -fdx``, deletes them. Its ``.git`` directory is not the work tree (a device
    there changes nothing a query checks). SyncError naming the git command that updates the
    checkout instead."""
    here = path.resolve()
    for folder in (here, *here.parents):
        # above `path`, both release files, as a clone is found from the current directory
        # (a repository with a manifest.json of its own is no release)
        looks = CheckoutLayout.looks_like_checkout if folder == here else \
            CheckoutLayout.holds_release
        if not (looks(folder) or is_sparse_release(folder)) or find_checkout(folder) is None:
            continue
        inside = here.relative_to(folder).parts
        if inside[:1] == (".git",):
            return
        where = (f"lies inside the git checkout of a release {folder}, whose release it "
                 "would change: sync into a directory outside it" if inside else
                 "is a git checkout of a release (a plain git client), not a device "
                 "directory: kb sync would write its own files into the release")
        raise SyncError(f"{where}; `git -C {shlex.quote(str(folder))} pull --ff-only` brings "
                        "the checkout its newest release (verified by the next query)",
                        path=str(path))


def trust_dir(path: Path, *, create: bool = True) -> Path:
    """Where `kb trust` keeps the pinned keys for `path`: a checkout's ``<git-dir>/kb``
    (never its work tree; made when `create`: not to list them, which a clone on read-only
    media must do too), else `path` itself (a device directory)."""
    found = find_checkout(path)
    top = checkout_containing(path) if found is None else None
    if top is not None:  # kb trust add would write trusted_keys/ into its work tree
        raise SyncError(f"a folder inside the git checkout of a release {top}: pass --to "
                        f"{top} (a clone's keys are kept in its git directory)", path=str(path))
    if found is None:
        return path
    layout = found[0]
    if not create:
        return layout.state
    try:
        mkdir_beneath(layout.git_dir, CHECKOUT_STATE)
    except OSError as exc:
        raise SyncError(f"cannot create {exc.filename}: {exc.strerror}",
                        path=str(layout.root)) from None
    return layout.state


def checkout_status(path: Path) -> dict[str, Any] | None:
    """`kb status` of a checkout without deriving anything: HEAD, its release, whether the
    derived index is ready, and the first reason `open_checkout` would refuse it
    (`check_head`, `verify_checkout`); None when `path` is not a checkout. Problems are
    reported, not raised."""
    found = find_checkout(path)
    if found is None:
        return None
    layout, tree = found
    out: dict[str, Any] = {"checkout": str(layout.root), "head": rev_parse(tree.git_dir, "HEAD"),
                           "tag": None, "source_commit": None, "signed_by": None,
                           "derived": None, "problem": None, "newer": None, "pinned_keys": None}
    try:
        # while none is pinned (and kb.toml names none), releases are taken unsigned
        out["pinned_keys"] = [k.key_id for k in trust.stored_keys(layout.state)]
        at_head = head_release(tree)
        out["tag"] = tag = at_head[1]
        out["newer"] = newer_tag(tree, at_head[2])
        verify_checkout(layout, tree, check_head(layout, tree, at_head))
    except KbError as exc:
        out["problem"] = (_way_back(layout, tree, _missing_objects(tree, exc))
                          if isinstance(exc, SyncError) else exc).message
        return out
    for mhash, folder in layout.derived_dirs().items():
        ver = read_json(ReleaseLayout(folder).verified)
        if ver.get("commit") == out["head"] and ver.get("tag") == tag:
            out.update(derived=str(folder), manifest_sha256=mhash,
                       source_commit=ver.get("source_commit"), signed_by=ver.get("signed_by"))
    # from git objects: a sparse work tree may lack release.json; `created` is what `kb
    # status` reads a checked-out release's age from, as a device's
    rel = read_release_json(tree.git_dir, out["head"]) or {}
    out["created"] = rel.get("created")
    if out["source_commit"] is None:
        out["source_commit"] = (rel.get("source") or {}).get("commit")
    return out


def newer_tag(tree: WorkTree, serial: int) -> str | None:
    """The newest release tag of the clone when it is newer than the one checked out (a
    `git fetch` brought it, nothing checked it out): `kb status` says so, since questions
    keep being answered from the release checked out."""
    newest = max(release_tags(tree.git_dir, f"refs/tags/{TAG_PREFIX}*"), default=serial)
    return f"{TAG_PREFIX}{newest}" if newest > serial else None
