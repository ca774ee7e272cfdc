"""What git says of a clone of the artifacts repository used as a client (issue 16: `git
clone`, `git checkout kb-rN`, ask): the work tree at a directory, the release tags at its
commit, what differs from HEAD (`git status`, read only), a git command stopped half-way
in it, the remote-tracking branches that hold a commit, a left index.lock. The repairs
(`kbtools.ship.repairs`) and the checkout as an index (`kbtools.ship.checkout`) read these;
git runs through `kbtools.ship.gitrun` like every git of shipping. The release refs and
objects themselves are `kbtools.ship.git`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kbtools.errors import SyncError
from kbtools.ship.git import TAG_PREFIX, parse_serial, tag_name
from kbtools.ship.gitrun import failure_reason, run_git, run_plain


@dataclass(frozen=True)
class WorkTree:
    """A git work tree: its top directory, its git dir and the common dir of the clone."""

    top: Path
    git_dir: Path
    common_dir: Path


def work_tree(path: Path) -> WorkTree | None:
    """The work tree whose top directory is `path`, or None when `path` is not one.
    SyncError with git's reason when git refuses to read the repository at `path` (another
    account's clone: git's ``safe.directory`` check, which kb never overrides, since git
    would then run what that repository's config names)."""
    proc = run_plain("-C", str(path), "rev-parse", "--path-format=absolute", "--show-toplevel",
                "--git-dir", "--git-common-dir")
    lines = proc.stdout.decode(errors="surrogateescape").split("\n")
    if proc.returncode != 0 and b"safe.directory" in proc.stderr:
        raise SyncError(f"git refuses to read this clone ({failure_reason(proc)}): it belongs to "
                        "another account; run kb as its owner, or trust it with `git config "
                        f"--global --add safe.directory {path.absolute()}`", path=str(path),
                        key="sync_clone_not_owned", values={"folder": str(path)})
    if proc.returncode != 0 or len(lines) < 3:
        return None
    top = Path(lines[0])
    if not lines[0] or top.resolve() != path.resolve():
        return None
    return WorkTree(top, Path(lines[1]), Path(lines[2]))


def release_tags_at(git_dir: Path | str, commit: str) -> dict[int, str]:
    """serial -> tag name, for the release tags (refs/tags/kb-r*) that point at `commit`."""
    out = run_git(git_dir, "for-each-ref", f"--points-at={commit}", "--format=%(refname)",
                  f"refs/tags/{TAG_PREFIX}*", error=SyncError)
    found: dict[int, str] = {}
    for ref in out.split():
        serial = parse_serial(ref)
        if serial is not None:
            found[serial] = tag_name(serial)
    return found


@dataclass(frozen=True)
class Change:
    """One line of ``git status``: its two-letter code (``" M"``, ``"??"``, ``"!!"``...)."""

    code: str
    path: str


def work_tree_changes(tree: WorkTree) -> list[Change]:
    """What differs between the work tree (and index) and HEAD: modified, deleted, added,
    untracked and ignored files alike (``git status``, every file listed). Read only:
    ``--no-optional-locks`` keeps git from refreshing the index, which takes index.lock, on
    which a `git pull` running meanwhile on the clone would fail. Executable bits are not
    compared (``core.fileMode=false``): a release is regular files read from git objects,
    and a clone copied to a card whose file system marks every file executable (FAT,
    exFAT) listed each as changed, refused with a repair that file system cannot make."""
    proc = run_plain(f"--git-dir={tree.git_dir}", f"--work-tree={tree.top}",
                     "--no-optional-locks", "-c", "core.quotePath=false",
                     "-c", "core.fileMode=false", "status",
                     "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all",
                     "--ignored=matching", "--ignore-submodules=none")
    if proc.returncode != 0:
        run_git(tree.git_dir, f"--work-tree={tree.top}", "--no-optional-locks", "status",
                error=SyncError)
    changes = []
    for rec in proc.stdout.split(b"\0"):
        if len(rec) > 3:
            changes.append(Change(rec[:2].decode("ascii", "replace"),
                                  rec[3:].decode("utf-8", "surrogateescape")))
    return changes


UNMERGED = frozenset({"DD", "AU", "UD", "UA", "DU", "AA", "UU"})  # `git status` conflicts
# what git leaves in a work tree's git dir while a command stopped half-way waits for the
# user (a `git pull` runs `git merge` or `git rebase`): the file, the command, its abort
_STOPPED = (("rebase-merge", "git rebase"), ("rebase-apply/applying", "git am"),
              ("rebase-apply", "git rebase"), ("MERGE_HEAD", "git merge"),
              ("CHERRY_PICK_HEAD", "git cherry-pick"), ("REVERT_HEAD", "git revert"))


def stopped_command(tree: WorkTree) -> str | None:
    """The git command stopped half-way in this work tree (``git merge``, ``git rebase``,
    ``git am``, ``git cherry-pick``, ``git revert``: each ends with ``--abort``), or None.
    Read from the files git keeps in the work tree's own git dir while one waits, as git's
    own prompt does: no git command says it in one line."""
    return next((what for name, what in _STOPPED if (tree.git_dir / name).exists()), None)


def remote_refs_containing(git_dir: Path | str, commit: str) -> list[str]:
    """The remote-tracking branches (refs/remotes/) that hold `commit`: a commit fetched
    from the remote, not made here."""
    out = run_git(git_dir, "for-each-ref", f"--contains={commit}", "--format=%(refname:short)",
                  "refs/remotes/", check=False, error=SyncError)
    return [ref for ref in out.split() if not ref.endswith("/HEAD")]  # origin/HEAD: a link


def index_lock(tree: WorkTree) -> Path | None:
    """The index.lock of a work tree when it is there: a git command writing the index holds
    it, and one killed half-way (a `git pull` at a power cut) leaves it, after which git
    refuses every command that writes the index until it is removed."""
    lock = tree.git_dir / "index.lock"
    return lock if lock.exists() else None
