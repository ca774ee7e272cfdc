"""Drafts waiting on their branches, for `kb review pending`.

`kb draft new` and the MCP `draft_report` tool file each draft as one commit on a branch of
its own, `draft/<date>-<slug>` (`kbtools.agents.draft`), never in the working tree: a
reviewer's checkout does not hold it. A draft waits for review while its branch, local or
fetched from a remote (`refs/remotes/<remote>/draft/...`, whatever the remote's name:
`team/origin` holds a slash), holds a commit HEAD does not.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import git

from kbtools.corpus import decode, parse_source
from kbtools.gitobjects import (
    CommitInfo,
    commit_log,
    diff_trees,
    merge_base,
    read_blobs,
)
from kbtools.pathspecs import literal
from kbtools.provenance import not_ancestors

DRAFT_BRANCHES = "draft/"  # the branch names drafts are filed on (`refs/heads/draft/...`)


def remote_branch(ref: str, remotes: list[str]) -> str:
    """The branch a remote-tracking ref (`refs/remotes/<remote>/<branch>`) follows, for
    the remote names `remotes` (`git remote`; one may hold a slash, so the longest that
    names the ref is its remote); a ref no remote's name starts (a fetch refspec of its
    own, a remote since renamed) is read up to its first slash."""
    name = ref.removeprefix("refs/remotes/")
    for remote in sorted(remotes, key=len, reverse=True):
        if name.startswith(remote + "/"):
            return name[len(remote) + 1:]
    return name.partition("/")[2]


def remote_names(repo: git.Repo) -> list[str]:
    """The repository's remotes, as `git remote` names them."""
    return [r for r in repo.git.remote().split("\n") if r]


def draft_refs(repo: git.Repo, not_in: str | None = None) -> list[tuple[str, str]]:
    """(branch as shown, tip commit) of every draft branch, local ones first, then those of
    remotes (`origin/draft/...`); a remote branch at a commit a local one already names is
    left out (the same draft, pushed). With `not_in` (a commit), only the branches whose tip
    it does not hold (`git for-each-ref --no-merged`)."""
    unmerged = [f"--no-merged={not_in}"] if not_in else []
    out = repo.git.for_each_ref("--format=%(refname)%00%(objectname)", *unmerged,
                                "refs/heads/" + DRAFT_BRANCHES, "refs/remotes/")
    remotes = remote_names(repo)
    refs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line in out.split("\n"):
        ref, _, sha = line.partition("\0")
        if ref.startswith("refs/heads/"):
            name = ref.removeprefix("refs/heads/")
        else:
            name = ref.removeprefix("refs/remotes/")
            if not remote_branch(ref, remotes).startswith(DRAFT_BRANCHES):
                continue
        if sha and sha not in seen:
            seen.add(sha)
            refs.append((name, sha))
    return refs


def waiting_drafts(repo: git.Repo, knowledge_prefix: str, root_prefix: str
                   ) -> list[dict[str, Any]]:
    """One entry per Markdown document under the knowledge folder (`knowledge_prefix`, a Git
    path ending in "/") that a draft branch adds or changes and HEAD does not hold as it is
    there: doc (relative to the kb root, whose Git path is `root_prefix`), title, reason
    "draft", author (front matter), source (front matter: who filed it, e.g. an agent's
    report), branch, git_author, git_author_email, commit (the branch's oldest commit
    touching it) and since (that commit's author date)."""
    head = repo.git.rev_parse("--verify", "--quiet", "HEAD^{commit}", with_exceptions=False)
    refs = draft_refs(repo, not_in=head or None)  # merged ones: HEAD holds them
    # a draft is one commit on its base (`kb draft new`): the tips, read for all at once
    tips = {c.sha: c for c, _ in commit_log(repo, "--no-walk=unsorted",
                                            *{tip for _, tip in refs})} if refs else {}
    bases = draft_bases(repo, head, [tip for _, tip in refs], tips)
    changed = diff_trees(repo, [(tip, bases[tip]) for _, tip in refs], "--no-renames",
                         "--diff-filter=AM", *(["--", literal(knowledge_prefix)] if knowledge_prefix
                                               else []))
    found = [(branch, bases[tip], tip, p) for branch, tip in refs  # branch, base, tip, path
             for p in changed.get(tip, []) if p.endswith(".md")]
    blobs = read_blobs(repo, [f"{tip}:{gpath}" for _, _, tip, gpath in found])
    held = read_blobs(repo, [f"{head}:{gpath}" for *_, gpath in found]) if head else \
        [None] * len(found)
    out: list[dict[str, Any]] = []
    for (branch, base, tip, gpath), data, in_head in zip(found, blobs, held, strict=True):
        if data is None or data == in_head:
            continue  # HEAD holds this very text (merged by a squash or a cherry-pick)
        only = tips.get(tip)
        if only is None or only.parents != ((base,) if base else ()):
            only = _first_change(repo, base, tip, gpath)
        out.append(_entry(branch, only, gpath, data, root_prefix))
    return out


def drafts_holding(repo: git.Repo, gpath: str) -> list[str]:
    """The draft branches HEAD does not hold whose tip has the document `gpath` (a Git
    path), named as `git switch` takes them (`origin/draft/x` as `draft/x`). Why: `kb
    review pending` lists a draft by its path, and `kb review approve`/`diff` of that path
    said only "no such document" on the reviewer's branch."""
    head = repo.git.rev_parse("--verify", "--quiet", "HEAD^{commit}", with_exceptions=False)
    refs = draft_refs(repo, not_in=head or None)
    held = read_blobs(repo, [f"{tip}:{gpath}" for _, tip in refs])
    remotes = remote_names(repo)
    local = {name for name, _ in refs if name.startswith(DRAFT_BRANCHES)}
    return list(dict.fromkeys(
        name if name in local else remote_branch("refs/remotes/" + name, remotes)
        for (name, _), data in zip(refs, held, strict=True) if data is not None))


def on_draft_branch(repo: git.Repo, gpath: str) -> str:
    """What to say of a document the reviewer's checkout lacks: the draft branch that has
    it and how to review it there (empty when no draft branch has it)."""
    branches = drafts_holding(repo, gpath)
    if not branches:
        return ""
    more = f" (and {len(branches) - 1} more draft branches)" if len(branches) > 1 else ""
    return (f"; it is a draft on branch {branches[0]}{more}: review it there (git switch "
            f"{branches[0]}) or after its pull request is merged")


def draft_bases(repo: git.Repo, head: str, tips: list[str], commits: dict[str, CommitInfo]
                ) -> dict[str, str | None]:
    """Each tip's merge base with `head` (None when they share no commit, and for every tip
    when `head` is "": no commit yet), for tips `head` does not hold. A tip of one commit on a parent `head` holds (a draft as `kb draft new`
    files it) has that parent, told for all with one `git rev-list`; a root commit has none;
    any other tip asks `git merge-base`."""
    if not head:
        return dict.fromkeys(tips)
    parents = {tip: commits[tip].parents for tip in tips if tip in commits}
    try:
        outside = not_ancestors(repo, {p[0] for p in parents.values() if len(p) == 1}, head)
    except git.GitCommandError:  # a parent missing (a shallow clone): ask git per tip
        outside = {p[0] for p in parents.values() if len(p) == 1}
    bases: dict[str, str | None] = {}
    for tip in tips:
        parent = parents.get(tip)
        if parent == ():
            bases[tip] = None  # a root commit shares nothing with HEAD, which lacks it
        elif parent is not None and len(parent) == 1 and parent[0] not in outside:
            bases[tip] = parent[0]
        else:
            bases[tip] = merge_base(repo, head, tip)
    return bases


def _first_change(repo: git.Repo, base: str | None, tip: str, gpath: str) -> CommitInfo | None:
    """The oldest commit of the draft branch (`base`..`tip`) that changed `gpath`."""
    commits = commit_log(repo, "--reverse", f"{base}..{tip}" if base else tip, "--", literal(gpath))
    return commits[0][0] if commits else None


def _entry(branch: str, first: CommitInfo | None, gpath: str, data: bytes, root_prefix: str
           ) -> dict[str, Any]:
    rel = gpath.removeprefix(root_prefix)
    meta = parse_source(decode(data)[0], Path(rel), rel).meta  # as kb check reads the file
    since = first.authored_at if first else datetime.now().astimezone()
    return {"doc": rel, "line": None, "title": meta.get("title"), "reason": "draft",
            "author": meta.get("author"), "source": meta.get("source"), "branch": branch,
            "git_author": first.author_name if first else None,
            "git_author_email": first.author_email if first else None,
            "commit": first.sha if first else None, "since": since}
