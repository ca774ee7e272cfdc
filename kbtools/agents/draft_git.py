"""Where and how a draft is filed in Git (`kbtools.agents.draft`): a free branch name, HEAD
settled before a draft is based on it, one filing at a time, the same draft filed or merged
before found again, and the commit built through a private index (the repository's own
index and work tree untouched), its branch created atomically."""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
from git.util import Actor

from kbtools.errors import KbError, UsageError
from kbtools.fsutil import exclusive_lock, staging_dir
from kbtools.gitobjects import CommitInfo, exists, git_reason, write_blob
from kbtools.pathspecs import literal
from kbtools.provenance import plain_paths
from kbtools.review.drafts import remote_branch, remote_names

DRAFT_INDEX_DIR = "kb/draft-index"  # under the git dir: where drafts' private indexes live
# under the common git dir (one for every worktree: `git worktree add` shares the branches
# drafts are filed on): held while a draft is looked for and filed
DRAFT_LOCK = "kb/draft.lock"
DRAFT_COMMIT_CONFIG = "i18n.commitEncoding=UTF-8"  # `_commit_with_index`: its message's bytes
KEY_TRAILER = "Draft-Key"  # the commit message's trailer naming what was filed (`draft_key`)


@dataclass(frozen=True)
class ReleaseRead:
    """The release a report's citations were read from: the commit it was built from, and
    its tag when it has one."""

    source_commit: str
    tag: str | None = None
    dirty: bool = False  # built from uncommitted files: its lines are not the commit's

    def differs(self, base: str) -> bool:
        """Whether the report's citations may point at other lines than those of `base`,
        the commit the draft is filed on: read from another commit's release, or from a
        build of uncommitted files (`kb build` of a work tree with edits)."""
        return self.dirty or self.source_commit != base

    def said(self, base: str) -> str:
        """The commit message's paragraph for a draft based on commit `base`."""
        named = f"release {self.tag} (commit {self.source_commit[:12]}" if self.tag else \
            f"the build of commit {self.source_commit[:12]}"
        named += " with uncommitted changes" if self.dirty else ""
        named += ")" if self.tag else ""
        if self.source_commit == base:
            return (f"Its citations were read from {named}: their lines may not be those "
                    f"of its base {base[:12]} (the files were edited, not committed, when "
                    "that release was built).")
        return (f"Its citations were read from {named}, not from its base {base[:12]}: the "
                f"branch moved since that release; read them there (kb read --commit "
                f"{self.source_commit[:12]}).")

    def to_dict(self) -> dict[str, Any]:
        return {"tag": self.tag, "source_commit": self.source_commit,
                **({"dirty": True} if self.dirty else {})}


@dataclass(frozen=True)
class Draft:
    branch: str
    path: str  # relative to the repo (kb) root
    commit: str
    existing: bool = False  # filed before by a call with the same inputs (a retry)
    merged: bool = False  # ... and merged since: the base it would be filed on holds it
    # the release its citations were read from, when built from another commit than its base
    # or from uncommitted files (`ReleaseRead.differs`)
    read_from: ReleaseRead | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"branch": self.branch, "path": self.path, "commit": self.commit,
                "existing": self.existing, "merged": self.merged,
                **({"read_from": self.read_from.to_dict()} if self.read_from else {})}


def merged_into(repo: git.Repo, base: CommitInfo | None) -> list[str]:
    """The commits, other than `base`, that the branches a draft is merged into stand at as
    far as this clone has fetched them: the upstream of the branch checked out
    (``main@{upstream}``) and each remote's default branch (``origin/HEAD``). A clone
    behind them (fetched, not pulled: the branch moved since it last synced) filed a draft
    at the path of a report of the same title merged there today, and merging it met a
    conflict between two reports."""
    tips = repo.git.for_each_ref("--format=%(objectname)", "refs/remotes/*/HEAD").split()
    try:
        tips.append(repo.git.rev_parse("--verify", "-q", "@{upstream}^{commit}"))
    except git.GitCommandError:  # no branch checked out, or one without an upstream
        pass
    return sorted({t for t in tips if t and (base is None or t != base.sha)})


def free_name(repo: git.Repo, base: CommitInfo | None, branch: str, gpath: str,
              beside: Callable[[str], Sequence[str]] = lambda path: ()) -> tuple[str, str]:
    """The first branch name and path from `branch`/`gpath` (then `-2`, `-3`, …) that no
    branch here or at a remote fetched from (`origin/draft/...`: a draft another clone
    filed and pushed; a remote's name may hold a slash, `team/origin`) holds, and no file
    of `base` or of the branches it is merged into (`merged_into`), nor the files filed
    `beside` it (its photos): a draft of the same title filed the same day elsewhere would
    otherwise refuse this one's push, or conflict when merged. Nor a file of the work tree
    not committed (a report written by hand under that name): Git refused to check the
    draft out or merge it there, as it would overwrite the file."""
    remote = repo.git.for_each_ref("--format=%(refname)", "refs/remotes/").split("\n")
    remotes = remote_names(repo)
    existing = {h.name for h in repo.heads} | {
        remote_branch(ref, remotes) for ref in remote if ref}
    trees = ([base.sha] if base is not None else []) + merged_into(repo, base)
    here = Path(repo.working_tree_dir) if repo.working_tree_dir else None
    stem, n = gpath.removesuffix(".md"), 1
    while True:
        suffix = "" if n == 1 else f"-{n}"
        b, p = branch + suffix, f"{stem}{suffix}.md"
        taken = b in existing or any(
            exists(repo, sha, q) for sha in trees for q in (p, *beside(p))) or (
            here is not None and any(os.path.lexists(here / q) for q in (p, *beside(p))))
        if not taken:
            return b, p
        n += 1


# what a file in a worktree's git dir says is under way there, and how to end it: HEAD is then
# a commit the operation is still writing (a rebase's rewritten one), not a branch's
IN_PROGRESS = (("rebase-merge", "a rebase", "git rebase --continue or git rebase --abort"),
               ("rebase-apply", "a rebase", "git rebase --continue or git rebase --abort"),
               ("MERGE_HEAD", "a merge", "commit it or git merge --abort"),
               ("CHERRY_PICK_HEAD", "a cherry-pick",
                "git cherry-pick --continue or git cherry-pick --abort"),
               ("REVERT_HEAD", "a revert", "git revert --continue or git revert --abort"),
               ("BISECT_LOG", "a bisect", "git bisect reset"))


def settled_head(repo: git.Repo) -> None:
    """Refuse to base a draft on HEAD while HEAD is no branch's commit: during a rebase,
    merge, cherry-pick, revert or bisect (it is a commit the operation is still writing, or
    an old one), or detached at a commit no branch (local or fetched) holds. A draft is based
    on HEAD, so merging one filed there brought that commit into main with it."""
    git_dir = Path(repo.git_dir)
    for name, what, end in IN_PROGRESS:
        if (git_dir / name).exists():
            raise UsageError(f"{what} is in progress in this repository, so HEAD is not a "
                             f"branch's commit and a draft based on it would carry {what}'s "
                             f"unfinished work: finish it first ({end}); nothing was filed",
                             path=str(repo.working_tree_dir))
    try:
        repo.git.symbolic_ref("-q", "HEAD")
        return  # on a branch
    except git.GitCommandError:
        pass
    head = repo.git.rev_parse("--verify", "-q", "HEAD")
    if repo.git.for_each_ref("--count=1", "--contains", head, "refs/heads", "refs/remotes"):
        return  # detached at a commit a branch holds (a tag, CI's checkout): a clean base
    raise UsageError(f"HEAD is detached at {head[:12]}, a commit no branch holds: a draft "
                     "based on it would bring that commit along when merged; check out a "
                     "branch first (git switch main); nothing was filed",
                     path=str(repo.working_tree_dir))


def filing_lock(repo: git.Repo) -> AbstractContextManager[None]:
    """One draft filed at a time in a repository, by any process in any of its worktrees:
    looking for an identical draft and filing a new one cannot interleave with another
    call's. The lock is in the common git dir, beside the branches every worktree shares (a
    worktree's own git dir would give each worktree a lock of its own)."""
    return exclusive_lock(Path(repo.common_dir).resolve() / DRAFT_LOCK)


def filed_before(repo: git.Repo, branch: str, key: str, prefix: str) -> Draft | None:
    """The draft on `branch` (or one of its numbered twins) that a call with the same inputs
    filed (its tip carries `key`), e.g. before the caller's timeout and retry; or None. A
    remote's branch counts too (`origin/draft/...`: pushed for review and deleted here),
    named as the branch it is there."""
    remotes = remote_names(repo)
    twin = re.compile(re.escape(branch) + r"(-[0-9]+)?")
    pushed = [ref for ref in repo.git.for_each_ref("--format=%(refname)", "refs/remotes/"
                                                   ).split("\n")
              if ref and twin.fullmatch(remote_branch(ref, remotes))]
    listed = repo.git.for_each_ref("--format=%(refname)%00%(objectname)%00%(contents)%00",
                                   f"refs/heads/{branch}", f"refs/heads/{branch}-*", *pushed)
    fields = listed.split("\0")
    for ref, sha, contents in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        if f"{KEY_TRAILER}: {key}" not in contents.splitlines():
            continue
        ref = ref.strip()
        name = (ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/")
                else remote_branch(ref, remotes))
        changed = repo.git.diff_tree("--root", "--no-commit-id", "--name-only", "-r", "-z", sha)
        paths = [p for p in changed.split("\0") if p.startswith(prefix) and p.endswith(".md")]
        if len(paths) == 1:
            return Draft(branch=name.strip(), path=paths[0][len(prefix):], commit=sha,
                         existing=True)
    return None


def merged_before(repo: git.Repo, base: str, stem: str, key: str) -> Draft | None:
    """The draft a call with the same inputs filed today whose branch is gone because it was
    merged: `base` holds the file (`stem`.md or a numbered twin, repository paths) and, in
    its history, the commit that carries `key` (the draft's own, or a squash quoting its
    message). None when there is none, or the file was removed since (filed again)."""
    folder = posixpath.dirname(stem)
    found = plain_paths(repo).log(base, "-1", "--format=%H", "--fixed-strings",
                                  f"--grep={KEY_TRAILER}: {key}", "--", literal(folder)).strip()
    if not found:
        return None
    added = repo.git.diff_tree("--root", "--no-commit-id", "--name-only", "-r", "-z",
                               "--diff-filter=A", found).split("\0")
    own = re.compile(re.escape(stem) + r"(-[0-9]+)?\.md")
    for path in added:
        if own.fullmatch(path) and exists(repo, base, path):
            name = posixpath.basename(path).removesuffix(".md")
            return Draft(branch=f"draft/{name}", path=path, commit=found, existing=True,
                         merged=True)
    return None


def write_failure(repo: git.Repo, exc: OSError | git.GitCommandError) -> KbError:
    """The one line for a draft Git could not store (the disk full, the repository read-only):
    no branch was made, so nothing was filed."""
    return KbError(f"cannot write the draft into the repository: {git_reason(exc)}; nothing "
                   "was filed", path=str(repo.git_dir))


def create_branch(repo: git.Repo, branch: str, sha: str) -> bool:
    """Create `branch` at `sha` only if no branch of that name exists (one atomic
    `git update-ref`); False when it does exist, e.g. because a draft of the same title was
    filed at the same moment by another call or process."""
    try:
        repo.git.update_ref(f"refs/heads/{branch}", sha, "0" * len(sha))  # null: must not exist
    except git.GitCommandError:
        if not repo.git.for_each_ref(f"refs/heads/{branch}"):
            raise  # not a name taken meanwhile: a real failure
        return False
    return True


def commit_file(repo: git.Repo, base: CommitInfo | None, files: Sequence[tuple[str, bytes]],
                message: str, actor: Actor) -> str:
    """Write `files` (path, bytes: the draft and its photos) on top of `base` as one new
    commit object, all or none; returns its sha. Uses a
    private index file so the repository's own index and work tree stay untouched: in a
    locked staging directory under the repository's git dir (`DRAFT_INDEX_DIR`), so the
    one a killed run leaves (it held the whole tree's index) is removed by the next draft."""
    with staging_dir(Path(repo.git_dir) / DRAFT_INDEX_DIR) as private:
        try:
            return _commit_with_index(repo, base, files, message, actor,
                                      str(private / "index"))
        finally:
            shutil.rmtree(private, ignore_errors=True)


def _commit_with_index(repo: git.Repo, base: CommitInfo | None,
                       files: Sequence[tuple[str, bytes]], message: str, actor: Actor,
                       index: str) -> str:
    """`commit_file` with the private index file `index`."""
    env = {"GIT_INDEX_FILE": index}
    if base is not None:
        repo.git.read_tree(base.sha, env=env)
    for gpath, data in files:
        blob = write_blob(repo, data)
        repo.git.update_index("--add", "--cacheinfo", f"100644,{blob},{gpath}", env=env)
    tree = repo.git.write_tree(env=env)
    cenv = {"GIT_AUTHOR_NAME": actor.name, "GIT_AUTHOR_EMAIL": actor.email,
            "GIT_COMMITTER_NAME": actor.name, "GIT_COMMITTER_EMAIL": actor.email}
    args = [tree] + (["-p", base.sha] if base is not None else [])
    # the tool's commit of what it wrote, not one the user composed: the message is UTF-8
    # whatever i18n.commitEncoding says (a GBK label made it mojibake), and it is never
    # signed (commit.gpgSign with no key, or a passphrase prompt no agent can answer, would
    # fail or hang the draft; the reviewer's merge is what a signing policy signs)
    commit: str = repo.git(c=DRAFT_COMMIT_CONFIG).commit_tree(*args, "--no-gpg-sign", "-m",
                                                               message, env=cenv)
    return commit.strip()
