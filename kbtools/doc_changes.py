"""A document's history: `doc_changes`, the commits that touched one document (following
renames), each with its parsed state before and after (`provenance.DocChange`); and the
pieces `kbtools.review.lineage` reads many histories at once with (`states_wanted`,
`changes_from`, `side_names`, `takes_a_side`). Split from `kbtools.provenance`, whose
states and repository helpers it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import git

from kbtools.gitobjects import CommitInfo, commit_log, unquote_path
from kbtools.pathspecs import literal
from kbtools.provenance import (
    DocChange,
    DocState,
    plain_paths,
    shallow_boundary,
    states_at,
)

Version = Callable[[DocState], object]
# a version in two parts (`changes_from`): what a merge may take from a side, and the rest
Parts = tuple[Version, Version]
# one commit's part in a document's history as `git log --follow --name-status` shows it:
# (commit, status, path before, path after)
Touch = tuple[CommitInfo, str, str, str]


def doc_changes(repo: git.Repo, rev: str, path: str, version: Version = DocState.key,
                parts: Parts | None = None) -> list[DocChange]:
    """Commits reachable from `rev` that touched git path `path` (following renames),
    newest first in topological order, each with the document's state before and after.
    In a shallow clone the oldest entry may be `cut`: a boundary commit, shown as the
    document's creation though its past is merely missing.

    A merge appears only when it made the document a version no parent had (a conflict
    resolution or a combination of both sides): then it counts as a change by the merger
    against the first parent. A merge that took one side's version is left out; that
    side's own commits are listed. `version(state)` says which states are the same
    version (default: equal body and front matter). `parts`, when given, split a version
    in two: a merge that took the first part from another parent and wrote a second part
    of its own is a change against that parent (`changes_from`).
    """
    if rev.startswith("-"):  # an option to git, never a revision (callers resolve theirs)
        return []
    plain_paths(repo)
    try:
        records = commit_log(repo, "--follow", "-M", "--topo-order",
                             "--diff-merges=first-parent", "--name-status", rev, "--", literal(path))
    except git.GitCommandError:
        return []
    touched: list[Touch] = []
    for info, lines in records:
        if lines:
            fields = [unquote_path(p) for p in lines[0].split("\t")]
            touched.append((info, fields[0], fields[1], fields[-1]))
            if fields[0][0] == "C":  # a copy starts a new document: its source's past is
                break  # not its own
    states = states_at(repo, states_wanted(touched))
    return changes_from(touched, states, shallow_boundary(repo), version, parts=parts)


Sides = Mapping[str, tuple[str, ...]]  # merge id → a document's name in each later parent


def side_names(info: CommitInfo, old: str, new: str, sides: Sides) -> list[tuple[str, str]]:
    """The (commit, path) pairs where merge `info`'s other parents may hold the document: its
    name there when `sides` knows it, its names before and after the merge."""
    known = sides.get(info.sha, ())
    return [(p, name) for k, p in enumerate(info.parents[1:])
            for name in dict.fromkeys((*known[k:k + 1], new, old))]


def states_wanted(touched: Iterable[Touch], sides: Sides | None = None) -> list[tuple[str, str]]:
    """The (commit, path) pairs `changes_from` reads the document's states at."""
    wanted = []
    for info, status, old, new in touched:
        if info.parents and status[0] not in "AC":
            wanted.append((info.parents[0], old))
        if not status.startswith("D"):
            wanted.append((info.sha, new))
        wanted += side_names(info, old, new, sides or {})
    return wanted


def changes_from(touched: Iterable[Touch],
                 states: Mapping[tuple[str, str], DocState | None],
                 boundary: frozenset[str], version: Version = DocState.key,
                 sides: Sides | None = None, parts: Parts | None = None
                 ) -> list[DocChange]:
    """`doc_changes` of the commits `git log --follow` lists for a document (`touched`),
    with its `states` (`states_wanted`), a shallow clone's `boundary` and its names in the
    other parents of merges (`sides`). With `parts` (first, rest): a merge kept (its
    version no parent's) whose first part is another parent's and whose rest is not the
    first parent's wrote only that rest, against that other parent: it is a change
    against it, and that side's own commits are listed for the first part. (A merge
    whose rest is the first parent's combined the two sides: against the first parent.)"""
    changes: list[DocChange] = []
    for info, status, old, new in touched:
        before = None
        if info.parents and status[0] not in "AC":
            before = states[info.parents[0], old]
        after = None if status.startswith("D") else states[info.sha, new]
        if len(info.parents) > 1:
            others = [states[pair] for pair in side_names(info, old, new, sides or {})]
            if takes_a_side(others, after, version):
                continue
            if parts is not None and after is not None:
                before = own_part_against(before, others, after, parts)
        changes.append(DocChange(info, new, before, after,
                                 cut=status[0] == "A" and info.sha in boundary))
    return changes


def takes_a_side(others: list[DocState | None], after: DocState | None,
                 version: Version = DocState.key) -> bool:
    """True when a merge's result `after` is the version some parent other than the first
    already had (`others`: the document in those parents, under its new and its old name)."""
    if after is None:
        return True
    key = version(after)
    return any(state is not None and version(state) == key for state in others)


def own_part_against(first: DocState | None, others: list[DocState | None],
                     after: DocState, parts: Parts) -> DocState | None:
    """The parent state a kept merge's `after` is a change against (`changes_from`): the
    other parent whose first part it took, when it wrote a rest of its own; else `first`."""
    took, rest = parts
    if first is not None and (took(first) == took(after) or rest(first) == rest(after)):
        return first
    return next((st for st in others if st is not None and took(st) == took(after)), first)
