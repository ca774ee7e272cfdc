"""The whole history read once, so that reviewing D documents does not walk it D times.

`kb check` (`verification-lapsed`), the build's `verified` and `kb review check` judge every
verified document on its own history: a `git log --follow` (`provenance.doc_changes`), the
commit its review landed on (`provenance.landing_base`, a `git rev-list`) and a blame. Each
walks the history from the head back, so D documents in a history of C commits cost D × C
(1,000 documents in 1,000 commits: minutes). `scan` reads the history once (one `git log`,
one `git rev-list --first-parent`, one `git status`) and answers those questions without git
for the documents whose answer it can state exactly; every other document goes the old way.

- a document exactly one commit added and no other commit touched (merges compared with
  their first parent, as `doc_changes` reads them: a merge that kept the first parent's
  version is passed over by git's history simplification, and blame passes the whole file to
  that parent; no rename detection), in a commit with one parent or none that deleted no
  file (so neither `--follow` nor blame could find a rename into it; a copy `--follow`
  reports there starts the document all the same): its history is that commit alone; when
  it is also clean in the work tree, blame credits every line to that commit;
- a commit on the head's first-parent line landed on that line itself: the pull request's
  base is its first parent.

A shallow clone has no `Lineage` (the boundary shows every file as added there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import git

from kbtools.gitobjects import CommitInfo, commit_log, read_commit, unquote_path
from kbtools.provenance import (
    DocChange,
    DocState,
    Version,
    doc_changes,
    is_shallow,
    landing_base,
    plain_paths,
    states_at,
)


@dataclass(frozen=True)
class Lineage:
    """What one read of the history from `head` answers (see the module docstring)."""

    head: CommitInfo
    added: Mapping[str, CommitInfo]  # git path → the one commit that wrote it
    clean: frozenset[str]  # git paths of those unchanged in the work tree and index
    first_parent: frozenset[str]  # commit ids on the head's first-parent line
    commits: Mapping[str, CommitInfo]  # every commit reachable from head, by id


def scan(repo: git.Repo, rev: str = "HEAD", work_tree: bool = True) -> Lineage | None:
    """The history reachable from `rev`, read once; None in a shallow clone, a repository
    without commits or when git fails. `work_tree`: `rev` is HEAD and the work tree counts
    (for blame)."""
    head = read_commit(repo, rev)
    if head is None or is_shallow(repo):
        return None
    try:
        plain_paths(repo)
        records = commit_log(repo, "--diff-merges=first-parent", "--no-renames", "--name-status",
                             "--no-show-signature", head.sha)
        line = repo.git.rev_list("--first-parent", head.sha).split()
        dirty = repo.git.status("--porcelain", "-z", "--untracked-files=no") \
            if work_tree else ""
    except git.GitCommandError:
        return None
    touched: dict[str, int] = {}
    added: dict[str, CommitInfo] = {}
    for info, lines in records:
        changes = [ln.split("\t") for ln in lines if "\t" in ln]
        deletes = any(c[0].startswith("D") for c in changes)
        for status, *paths in changes:
            path = unquote_path(paths[-1])
            touched[path] = touched.get(path, 0) + 1
            if status == "A" and not deletes and len(info.parents) <= 1:
                added[path] = info
    once = {path: info for path, info in added.items() if touched[path] == 1}
    # `git status -z`: "XY path", a rename's or copy's source path as the next entry
    entries = iter(dirty.split("\x00"))
    changed = set()
    for entry in entries:
        if len(entry) > 3:
            changed.add(entry[3:])
            if entry[0] in "RC":
                changed.add(next(entries, ""))
    clean = frozenset(once) - changed if work_tree else frozenset()
    commits = {info.sha: info for info, _ in records}
    return Lineage(head, once, clean, frozenset(line), commits)


def changes_of(repo: git.Repo, rev: str, path: str, version: Version = DocState.key,
               lineage: Lineage | None = None) -> list[DocChange]:
    """`provenance.doc_changes(repo, rev, path, version)`, from `lineage` where it knows
    the answer (`rev` its head, `path` written by one commit)."""
    info = lineage.added.get(path) if lineage and rev == lineage.head.sha else None
    if info is None:
        return doc_changes(repo, rev, path, version)
    after = states_at(repo, [(info.sha, path)])[info.sha, path]
    return [DocChange(info, path, None, after)]


def base_of_landing(repo: git.Repo, sha: str, head: str, lineage: Lineage | None = None
                    ) -> CommitInfo | None:
    """`provenance.landing_base(repo, sha, head)`, without git for a commit on `lineage`'s
    first-parent line (it landed there itself: its base is its first parent)."""
    if lineage is None or head != lineage.head.sha or sha not in lineage.first_parent:
        return landing_base(repo, sha, head)
    parents = lineage.commits[sha].parents
    return lineage.commits[parents[0]] if parents else None


def blamed_whole(lineage: Lineage | None, path: str, commit: str) -> bool:
    """Whether blame would credit every line of the work tree's `path` to `commit`."""
    return (lineage is not None and path in lineage.clean
            and lineage.added[path].sha == commit)
