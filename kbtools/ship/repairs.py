"""What a git checkout of a release that kb refuses is told: the first way it differs from
its release (`work_tree_problem`) or why HEAD is no release (`not_a_release`), each ending
with git commands that repair it whatever git's index holds (`restore_command`), after
undoing what a git command stopped half-way left (`_half_way`: a `git pull` on conflicts,
or killed). Run as written in the checkout, the repair makes it answer again."""

from __future__ import annotations

import shlex

from kbtools.errors import SyncError, plural
from kbtools.ship.git import (
    TAG_PREFIX,
    is_ancestor,
    parse_serial,
    release_tags,
    rev_parse,
    tag_name,
)
from kbtools.ship.gitrun import run_git
from kbtools.ship.release import read_release_json
from kbtools.ship.worktree import (
    UNMERGED,
    WorkTree,
    index_lock,
    remote_refs_containing,
    stopped_command,
    work_tree_changes,
)

DESCRIBE = {"??": "is not part of", "!!": "is not part of", "A": "is not part of",
             "D": "is missing from"}


def not_a_release(tree: WorkTree, head: str) -> str:
    """Why HEAD, a commit no release tag names, is refused, and the git command that makes
    the checkout a release again. A git command stopped half-way (a `git pull` on
    conflicts, or killed) or an index holding conflicts, where git refuses a checkout ("you
    need to resolve your current index first"): what undoes that (`_half_way`) and ``git
    reset --hard`` to the newest release of the clone. A commit fetched without its tag:
    ``git fetch --tags`` when tags are not fetched, else (the source has none) ``git reset
    --hard`` to the release below it. Commits made here: the same (`local_commits`).
    Otherwise the `git checkout` of a tag."""
    said, undo = _half_way(tree)
    conflicts = [c.path for c in work_tree_changes(tree) if c.code in UNMERGED]
    line = f"HEAD {head[:12]} is not a signed release tag (kb-r<N>)"
    if said is None and not conflicts:
        published = remote_refs_containing(tree.git_dir, head)
        if published and _tags_off(tree, published[0]):  # `--no-tags`, remote.<n>.tagOpt
            return (f"{line}: it is on {published[0]}, but its release tag is not in this "
                    "clone; `git fetch --tags` brings it")
        moved = moved_away(tree, head)
        if moved is not None:
            return (f"{line}: it was release {moved[0]} until its publisher moved that tag (it "
                    f"names {moved[1][:12]} now); `{restore_command(moved[0])}` makes this "
                    f"checkout the release {moved[0]} names now")
        found = release_below(tree, head)
        if published and found:  # fetched with its tags: the source has none for it
            return (f"{line}: it is on {published[0]}, but no release tag names it there (a "
                    "commit pushed without its tag: a `git pull` brings it back until its tag "
                    f"is pushed); `{restore_command(found[0])}` makes this checkout "
                    f"{found[0]} again, the release below it")
        if found:
            return local_commits(line, *found)
        return f"{line}; `git checkout` a release tag (`git tag -l 'kb-r*'` lists them)"
    newest = tag_name(max(release_tags(tree.git_dir, f"refs/tags/{TAG_PREFIX}*")))
    conflict = f"{conflicts[0]} has unresolved merge conflicts" if conflicts else None
    stopped = f"{said} ({conflict})" if said and conflict else said or conflict
    return (f"{stopped}: {line}; `{undo}{restore_command(newest)}` makes it the newest "
            f"release here, {newest}")


def moved_away(tree: WorkTree, head: str) -> tuple[str, str] | None:
    """(tag, the commit it names now) when `head` is a release commit whose tag its
    publisher moved (republished), fetched here with ``git fetch --tags --force``: its
    release.json names a tag of this clone that names another commit, which is no
    descendant of it (a commit made here on top of a release keeps that release's
    release.json and descends from its tag). None otherwise."""
    rel = read_release_json(tree.git_dir, head) or {}
    tag = rel.get("tag")
    if not isinstance(tag, str) or parse_serial(tag) is None or \
            rel.get("serial") != parse_serial(tag):
        return None
    now = rev_parse(tree.git_dir, f"refs/tags/{tag}^{{commit}}")
    if now is None or now == head or is_ancestor(tree.git_dir, now, head):
        return None
    return tag, now


def release_below(tree: WorkTree, head: str) -> tuple[str, int] | None:
    """The newest release tag that is an ancestor of `head`, and how many commits `head`
    adds to it; None when no release tag is one."""
    merged = run_git(tree.git_dir, "for-each-ref", f"--merged={head}", "--format=%(refname)",
                     f"refs/tags/{TAG_PREFIX}*", check=False, error=SyncError)
    serials = [s for s in map(parse_serial, merged.split()) if s is not None]
    if not serials:
        return None
    below = tag_name(max(serials))
    count = run_git(tree.git_dir, "rev-list", "--count", f"refs/tags/{below}..{head}",
                    check=False, error=SyncError).strip()
    return below, int(count) if count.isdigit() else 0


def local_commits(line: str, below: str, count: int) -> str:
    """`line` (HEAD is no release) saying that commits made here sit on release `below` (a
    note committed, a `git pull --rebase` or a merge that replayed them onto a newer one),
    and the repair: ``git reset --hard`` to that release, which keeps the branch (the `git
    checkout` of a tag named before detached HEAD, after which `git pull --ff-only`
    fails: "You are not currently on a branch")."""
    them = "it" if count == 1 else "them"
    return (f"{line}: {plural(count, 'commit')} made in this clone on top of release {below} "
            f"(`git log {below}..HEAD` shows {them}); `{restore_command(below)}` drops {them} "
            f"and makes this checkout {below} again")


def _tags_off(tree: WorkTree, tracking: str) -> bool:
    """Whether the remote of remote-tracking branch `tracking` (``origin/kb-index``) is
    fetched without tags (``git clone --no-tags``, ``remote.<name>.tagOpt``): otherwise a
    fetch brings every tag naming a commit it brings, so a commit fetched without one has
    none at its source."""
    remote = tracking.split("/", 1)[0]
    opt = run_git(tree.git_dir, "config", "--get", f"remote.{remote}.tagOpt", check=False,
                  error=SyncError)
    return opt.strip() == "--no-tags"


def _half_way(tree: WorkTree) -> tuple[str | None, str]:
    """What a git command stopped half-way in the checkout left, in words (None: nothing),
    and the commands that undo it, to run before `restore_command`: removing the
    index.lock a killed one leaves (git writes no index while it is there), then the
    ``--abort`` of a merge, rebase, am, cherry-pick or revert waiting on the user."""
    doing, lock = stopped_command(tree), index_lock(tree)
    said = [f"a `{doing}` stopped half-way in this checkout"] if doing else []
    if lock is not None:
        said.append(f"a git command left {lock} (killed half-way, or running now: remove it "
                    "only when none runs)")
    undo = (f"rm -f {shlex.quote(str(lock))} && " if lock else "") + \
        (f"{doing} --abort && " if doing else "")
    return ("; ".join(said) or None), undo


def restore_command(tag: str) -> str:
    """The git commands that make a work tree exactly release `tag`, whatever git's index
    holds (staged changes, conflicts: `git checkout -- .` restores the index's version and
    refuses an unmerged path)."""
    return f"git reset --hard {tag} && git clean -fdx"


def work_tree_problem(tree: WorkTree, tag: str) -> str | None:
    """One line naming the first way the work tree differs from release `tag` (a file in
    conflict first, and what a git command stopped half-way left), or None."""
    changes = work_tree_changes(tree)
    if not changes:
        return None
    conflicts = [c for c in changes if c.code in UNMERGED]
    first = (conflicts or changes)[0]
    what = ("has unresolved merge conflicts, unlike" if conflicts else
            DESCRIBE.get(first.code) or DESCRIBE.get(first.code.strip(), "differs from"))
    more = f" (and {len(changes) - 1} more changes)" if len(changes) > 1 else ""
    said, undo = _half_way(tree)
    stopped = f"{said}: " if said else ""
    return (f"{stopped}{first.path} {what} the signed release {tag}{more}; `git status` lists "
            f"the changes, `{undo}{restore_command(tag)}` restores the release")
