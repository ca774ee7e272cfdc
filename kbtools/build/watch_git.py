"""What `kb watch` watches of Git, and what it says happened there.

HEAD moves when a commit, checkout, reset, merge or pull lands: every document's blame and
review may change, so the watcher rebuilds. It watches the files git always writes when
HEAD moves — `HEAD` itself (a checkout, a commit on a detached HEAD), the branch refs
(`refs/heads/**`: a commit on a branch), `packed-refs` and a reftable's folder — and not
HEAD's reflog, which `core.logAllRefUpdates=false` turns off. In a linked worktree HEAD is
in the worktree's own git folder, the refs in the common one. A watcher started outside Git
notices a repository made later (`GitAppearing`) and watches it from then on, a commit made
before it noticed included.

A change of those files is compared with the HEAD seen before (`HeadState`): a branch made,
a lock file or `git pack-refs` leave HEAD where it was and rebuild nothing. What did move is
said in an author's words ("commit 1a2b3c4 on main: Fix the dose", "checkout of branch
draft/x") with the documents that changed between the two commits, never as git's files.

Besides `.gitignore` files (watched with the knowledge), git ignores what the repository's
`info/exclude` and the `core.excludesFile` (by default `$XDG_CONFIG_HOME/git/ignore`) list:
an untracked document newly listed there leaves the build, one taken off comes back. Both
are watched (`GitFiles.ignore_files`), and so are the settings that may name another
excludes file (`GitFiles.config_files`: the repository's `config`, the user's): a change of
one asks git again, and only an excludes file that moved rebuilds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import git

from kbtools.pathspecs import top_literal
from kbtools.provenance import git_prefix, open_repo, plain_paths

SHORT = 7  # characters of a commit id shown


@dataclass(frozen=True)
class GitFiles:
    """Where git keeps HEAD (`git_dir`) and the refs (`common_dir`) of the repository, and
    the excludes file `core.excludesFile` names (or git's default one; None: no home)."""

    git_dir: Path
    common_dir: Path
    excludes_file: Path | None = None

    def folders(self) -> list[tuple[Path, bool]]:
        """The folders to watch, each with whether recursively (those that exist); the
        folder of an ignore or settings file that does not exist yet (`~/.config/git` before
        the user's first `git config --global`) is watched for through the nearest one
        above it that does (`awaits`)."""
        found = [(self.git_dir, False), (self.common_dir, False),
                 (self.common_dir / "refs" / "heads", True),
                 (self.common_dir / "reftable", False),
                 *((_existing(file.parent), False)
                   for file in self.ignore_files() + self.config_files())]
        seen: set[Path] = set()
        out = []
        for folder, recursive in found:
            if folder.is_dir() and folder not in seen:
                seen.add(folder)
                out.append((folder, recursive))
        return out

    def ignore_files(self) -> list[Path]:
        """The files besides `.gitignore` whose patterns git ignores files by."""
        return [self.common_dir / "info" / "exclude",
                *([self.excludes_file] if self.excludes_file is not None else [])]

    def config_files(self) -> list[Path]:
        """The settings files that may name `core.excludesFile`: the repository's (and a
        linked worktree's own) and the user's."""
        return [self.common_dir / "config", self.git_dir / "config.worktree", *_user_configs()]

    def reads_ignores(self, path: Path) -> bool:
        """Whether a change of `path` can change what git ignores (besides a `.gitignore`)
        or which file names it (a settings file)."""
        return path in self.ignore_files() or self.names_excludes(path)

    def awaits(self, path: Path) -> bool:
        """Whether `path` is the folder an ignore or settings file is to be in, or one above
        it: one made (or removed) while watching, as `~/.config/git` by a user's first
        `git config --global` (the watch is set again, and the build reads the file if it
        came with its folder)."""
        return any(file.parent == path or file.parent.is_relative_to(path)
                   for file in self.ignore_files() + self.config_files())

    def names_excludes(self, path: Path) -> bool:
        """Whether `path` is a settings file that may name `core.excludesFile`."""
        return path in self.config_files()

    def moves_head(self, path: Path) -> bool:
        """Whether a change of `path` can move HEAD (its lock files included: a rename
        from one is the change)."""
        name = path.name.removesuffix(".lock")
        if path.parent == self.git_dir and name == "HEAD":
            return True
        if path.parent == self.common_dir and name == "packed-refs":
            return True
        return (path.is_relative_to(self.common_dir / "refs" / "heads")
                or path.is_relative_to(self.common_dir / "reftable"))


@dataclass(frozen=True)
class HeadState:
    branch: str | None  # None: a detached HEAD
    commit: str  # "" before the branch's first commit


def git_files(root: Path) -> GitFiles | None:
    """Where the repository holding `root` keeps HEAD and its refs; None outside Git."""
    repo = open_repo(root)
    if repo is None:
        return None
    with repo:
        try:
            out = repo.git.rev_parse("--path-format=absolute", "--absolute-git-dir",
                                     "--git-common-dir")
        except git.GitCommandError:
            return None
        excludes = _excludes_file(repo, Path(repo.working_tree_dir or root))
    git_dir, common_dir = out.splitlines()[:2]
    return GitFiles(Path(git_dir), Path(common_dir), excludes)


def _existing(folder: Path) -> Path:
    """`folder`, else the nearest folder above it that exists."""
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder


def _user_configs() -> list[Path]:
    """The user's git settings files: `$GIT_CONFIG_GLOBAL` (else `~/.gitconfig`) and
    `$XDG_CONFIG_HOME/git/config` (none without a home)."""
    xdg = _xdg_git()
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    home = Path.home() / ".gitconfig" if _has_home() else None
    return [p for p in ((Path(named) if named else home), xdg and xdg / "config") if p]


def _has_home() -> bool:
    try:
        Path.home()
    except RuntimeError:
        return False
    return True


def _xdg_git() -> Path | None:
    """Git's folder under `$XDG_CONFIG_HOME` (else `~/.config`)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "git"
    return Path.home() / ".config" / "git" if _has_home() else None


def _excludes_file(repo: git.Repo, top: Path) -> Path | None:
    """The file `core.excludesFile` names (a relative one from the work tree's top `top`),
    else git's default
    `$XDG_CONFIG_HOME/git/ignore`."""
    try:
        named = str(repo.git.config("--path", "--get", "core.excludesFile")).strip()
    except git.GitCommandError:
        named = ""  # not set
    if named:
        return (top / named).absolute()
    xdg = _xdg_git()
    return xdg / "ignore" if xdg is not None else None


class GitAppearing:
    """A repository made after a watcher outside Git started (`git init` in the root or a
    folder above it, a `.git` moved in), noticed from those folders' `.git` entries (a few
    `lstat`s a look); git is asked where the repository keeps HEAD only when they change,
    and on the next few looks (a `git init` may still be writing it)."""

    LOOKS = 5

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen = self._marks()
        self.looks = 0

    def _marks(self) -> tuple[bool, ...]:
        return tuple(os.path.lexists(folder / ".git") for folder in (self.root, *self.root.parents))

    def look(self) -> GitFiles | None:
        """The new repository's files, once there is one; None until then."""
        marks = self._marks()
        if marks != self.seen:
            self.seen, self.looks = marks, self.LOOKS
        if self.looks <= 0 or not any(marks):
            return None
        self.looks -= 1
        return git_files(self.root)


def head_state(root: Path) -> HeadState | None:
    """The branch HEAD names and the commit it is at; None outside Git (or when git
    cannot say)."""
    repo = open_repo(root)
    if repo is None:
        return None
    with repo:
        try:
            branch: str | None = repo.git.symbolic_ref("-q", "--short", "HEAD")
        except git.GitCommandError:
            branch = None  # detached
        try:
            commit = repo.git.rev_parse("--verify", "-q", "HEAD^{commit}")
        except git.GitCommandError:
            commit = ""
    return HeadState(branch, commit)


def describe(root: Path, before: HeadState | None, after: HeadState) -> tuple[str, list[str]]:
    """What moved HEAD from `before` to `after`, in words, and the files below `root` that
    differ between their commits (relative to `root`)."""
    where = f"branch {after.branch}" if after.branch else "a detached HEAD"
    at = after.commit[:SHORT]
    repo = open_repo(root)
    if repo is None or not after.commit:
        return (f"checkout of {where} (no commits yet)", [])
    with repo:
        old = before.commit if before else ""
        subject = _subject(repo, after.commit)
        if before is None or before.branch != after.branch:
            words = (f"checkout of {where} ({at})" if after.branch
                     else f"checkout of {at} (detached HEAD)")
        elif not old:
            words = f"first commit {at} on {after.branch or 'a detached HEAD'}: {subject}"
        elif _is_ancestor(repo, old, after.commit):
            n = _count(repo, old, after.commit)
            on = after.branch or "a detached HEAD"
            words = (f"commit {at} on {on}: {subject}" if n == 1
                     else f"{n} commits on {on}, up to {at}: {subject}")
        else:
            on = after.branch or "the detached HEAD"
            words = f"{on} moved to {at} (was {old[:SHORT]}): {subject}"
        return words, _changed(repo, root, old, after.commit)


def _subject(repo: git.Repo, commit: str) -> str:
    try:
        return str(plain_paths(repo).log("-1", "--format=%s", commit)).strip()
    except git.GitCommandError:
        return ""


def _is_ancestor(repo: git.Repo, a: str, b: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", a, b)
    except git.GitCommandError:
        return False
    return True


def _count(repo: git.Repo, a: str, b: str) -> int:
    try:
        return int(repo.git.rev_list("--count", f"{a}..{b}"))
    except (git.GitCommandError, ValueError):
        return 0


def _changed(repo: git.Repo, root: Path, old: str, new: str) -> list[str]:
    """Files below `root` (relative to it) that differ between commits `old` and `new`
    (all of `new`'s when `old` is "")."""
    try:
        prefix = git_prefix(repo, root)
        if old:
            out = plain_paths(repo).diff("--name-only", "-z", "--no-renames", old, new,
                                         "--", top_literal(prefix))
        else:
            out = plain_paths(repo).ls_tree("-r", "-z", "--name-only", "--full-tree", new,
                                            "--", top_literal(prefix.rstrip("/")))
    except (git.GitCommandError, ValueError):
        return []
    return sorted(p[len(prefix):] for p in out.split("\0") if p.startswith(prefix) and p)
