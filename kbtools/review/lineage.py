"""The whole history read once, so that reviewing D documents does not walk it D times.

`kb check` (`verification-lapsed`), the build's `verified` and `kb review check` judge every
verified document on its own history: a `git log --follow` (`doc_changes.doc_changes`), the
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
- such a document renamed since, unchanged, by commits that touched none of its paths
  otherwise, each rename the one way to read that commit (the only file it deleted with
  that blob, added once, and held by no other file before it, so `--follow`'s exact match
  cannot be a copy of another file): the renames, then the commit that added it, as
  `git log --follow` lists them (a commit moving 1,000 documents cost each of them a
  `--follow` walking the history and comparing that commit's 2,000 files);
- a commit on the head's first-parent line landed on that line itself: the pull request's
  base is its first parent.

`histories_of` reads the whole history of many documents from that one `git log` (walked in
`--topo-order`, as `git log --follow` walks it), for `kb review pending`: one `git diff-tree
--stdin` per step of renames followed (copy detection where the documents appear, as
`--follow` runs it) and one `git cat-file --batch` for their states, whatever the number of
documents. Where rename detection over all of a commit's new files could differ from
`--follow`'s over that file alone (`source`: a folder moved with edits, the deleted files
shared among the new ones), the commit's diff is read again for each of those files alone
(`gitobjects.diffs_alone`: four git processes for the commit, whatever the number of files).

Unlike `git log --follow`, which keeps one name for the rest of its walk, `follow` reads the
document's name per commit, along every parent (`kbtools.review.walktree`): a branch forked
before a rename on the main line and merged after it holds the old name, and its commits are
listed under it, by their authors. What a merge made of its other parents' files is read
once in `scan` (the paths it adds against each, where it also lacks some file of that
parent: one `git diff-tree --stdin` per parent number for all merges) and, for the merges
where a document's name is among those paths, by rename detection from that parent (one
`git diff-tree --stdin` per step, for all documents).

A shallow clone has no `Lineage` (the boundary shows every file as added there).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

import git

from kbtools.doc_changes import Parts, Touch, Version, changes_from, doc_changes, states_wanted
from kbtools.gitobjects import (
    CommitInfo,
    commit_log,
    diff_raw,
    diffs_alone,
    read_commit,
    status_changed,
    unquote_path,
)
from kbtools.provenance import (
    DocChange,
    DocState,
    is_shallow,
    landing_base,
    plain_paths,
    states_at,
)
from kbtools.review.walktree import Tree, walk_tree

# one commit's part in a document's history, as `doc_changes` reads `git log --follow`:
# (commit, status, path before, path after), newest first
Step = Touch
# a commit's changes against its first parent, renames not looked for: path → (status,
# blob after)
Touches = Mapping[str, tuple[str, str]]
# what `git diff-tree -C --find-copies-harder` found a file was made from:
# (status, source path, source blob, blob)
Source = tuple[str, str, str, str]
# copy detection as `git log --follow` runs it where a followed file appears (every file of
# the parent a candidate source, no limit on how many)
FOLLOW_COPIES = ("--no-abbrev", "-C", "--find-copies-harder", "-l0")
# what a merge made of the files of a parent other than its first: renames only (a file
# of that parent still there is the same file), found as `git merge` finds them
SIDE_RENAMES = ("--no-abbrev", "-M", "-l0")
# `source`: the whole commit's detection cannot tell what `--follow` finds (also in
# `Lineage.alone`: git failed to tell)
UNKNOWN = ("?", "")


@dataclass(frozen=True)
class Lineage:
    """What one read of the history from `head` answers (see the module docstring)."""

    head: CommitInfo
    chains: Mapping[str, tuple[Step, ...]]  # git path → its history, when stated exactly
    clean: frozenset[str]  # git paths of those unchanged in the work tree and index
    first_parent: frozenset[str]  # commit ids on the head's first-parent line
    commits: Mapping[str, CommitInfo]  # every commit reachable from head, by id
    blobs: Mapping[str, str]  # the blob a path was renamed to, unchanged
    # commit → the blobs its tree holds once (read when a rename there is asked about)
    unique: dict[str, frozenset[str]] = field(default_factory=dict)
    # every commit with its changes, in the order `git log --topo-order` walks them
    walk: tuple[tuple[CommitInfo, Touches], ...] = ()
    at: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # path → its commits
    folders: frozenset[str] = frozenset()  # every folder of a path in `walk`
    # commit → what copy detection against its first parent found: destination → source
    copies: dict[str, dict[str, Source]] = field(default_factory=dict)
    # git path → its history as `follow` read it (`histories_of`); None: ask git
    histories: dict[str, tuple[Step, ...] | None] = field(default_factory=dict)
    # (commit, path) → what `--follow` finds that file, new there, was made from, looked for
    # on its own: (status, source path), None for nothing, UNKNOWN when git failed
    alone: dict[tuple[str, str], tuple[str, str] | None] = field(default_factory=dict)
    states: dict[tuple[str, str], DocState | None] = field(default_factory=dict)
    rows: Mapping[str, int] = field(default_factory=dict)  # commit id → its row in `walk`
    tree: Tree | None = None  # which child each commit's name is read from (`walk_tree`)
    # merge row → per side parent: the paths it adds against that parent, when it deleted
    # some (so a file of that parent may have become one of them); path → those rows
    side_added: Mapping[int, tuple[frozenset[str], ...]] = field(default_factory=dict)
    side_at: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # (merge, side parent index) → what rename detection from that parent found: new → old
    side_renames: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)
    # git path → merge id → the document's name in each side parent (`follow`)
    side_names: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    # when the history began recording approvals' content (`verification.recording_since`),
    # once read
    recording: list[datetime | None] = field(default_factory=list)
    # the renames the Git index holds against HEAD (`lapse._moved_from`), by the index's
    # status when read
    staged: dict[tuple[int, int, int], dict[str, str]] = field(default_factory=dict)


def scan(repo: git.Repo, rev: str = "HEAD", work_tree: bool = True) -> Lineage | None:
    """The history reachable from `rev`, read once; None in a shallow clone, a repository
    without commits or when git fails. `work_tree`: `rev` is HEAD and the work tree counts
    (for blame)."""
    head = read_commit(repo, rev)
    if head is None or is_shallow(repo):
        return None
    try:
        plain_paths(repo)
        records = commit_log(repo, "--diff-merges=first-parent", "--no-renames", "--raw",
                             "--no-abbrev", "--no-show-signature", "--topo-order", head.sha)
        line = repo.git.rev_list("--first-parent", head.sha).split()
        dirty = repo.git.status("--porcelain", "-z", "--untracked-files=no") \
            if work_tree else ""
    except git.GitCommandError:
        return None
    touched: dict[str, int] = {}
    origin: dict[str, CommitInfo] = {}  # path → the commit that added it, deleting nothing
    # path → (commit, the path it came from unchanged: the only file that commit deleted
    # with its blob, which it added once)
    moved: dict[str, tuple[CommitInfo, str]] = {}
    blobs: dict[str, str] = {}
    walk: list[tuple[CommitInfo, Touches]] = []
    at: dict[str, list[int]] = {}
    for info, lines in records:
        adds: dict[str, str] = {}
        dels: dict[str, list[str]] = {}
        touches: dict[str, tuple[str, str]] = {}
        for raw in lines:  # ":100644 100644 <old blob> <new blob> M\tpath"
            if "\t" not in raw or not raw.startswith(":"):
                continue
            fields, name = raw.split("\t", 1)
            parts = fields.split()
            path = unquote_path(name)
            touched[path] = touched.get(path, 0) + 1
            touches[path] = (parts[4], parts[3])
            at.setdefault(path, []).append(len(walk))
            if parts[4] == "A":
                adds[path] = parts[3]
            elif parts[4] == "D":
                dels.setdefault(parts[2], []).append(path)
        walk.append((info, touches))
        if len(info.parents) > 1:
            continue
        added = Counter(adds.values())
        for path, blob in adds.items():
            if not dels:
                origin[path] = info
            elif len(dels.get(blob, ())) == 1 and added[blob] == 1:
                moved[path] = (info, dels[blob][0])
                blobs[path] = blob
    rows = {info.sha: row for row, (info, _) in enumerate(walk)}
    try:
        side_added = _side_added(repo, walk, rows)
    except git.GitCommandError:
        return None
    side_at: dict[str, list[int]] = {}
    for row, news in sorted(side_added.items()):
        for path in frozenset().union(*news):
            side_at.setdefault(path, []).append(row)
    chains = {}
    for path in origin.keys() | moved.keys():
        if touched[path] == 1 and (steps := _chain(path, origin, moved, touched)) and \
                not any(old in side_at for _, _, old, _ in steps):
            chains[path] = steps  # no branch may hold it under another name
    changed = status_changed(dirty)
    clean = frozenset(chains) - changed if work_tree else frozenset()
    commits = {info.sha: info for info, _ in records}
    folders = frozenset(path[:i] for path in touched for i, c in enumerate(path) if c == "/")
    tree = walk_tree([[rows.get(p, -1) for p in info.parents] for info, _ in walk])
    return Lineage(head, chains, clean, frozenset(line), commits, blobs, walk=tuple(walk),
                   at={path: tuple(rows) for path, rows in at.items()}, folders=folders,
                   rows=rows, tree=tree, side_added=side_added,
                   side_at={path: tuple(rows) for path, rows in side_at.items()})


def _side_added(repo: git.Repo, walk: list[tuple[CommitInfo, Touches]],
                rows: Mapping[str, int]) -> dict[int, tuple[frozenset[str], ...]]:
    """Merge row → per parent after the first: the paths the merge adds against it, for
    the merges that also lack some file of that parent (one of those may have become one of
    these; a merge lacking none made no file of that parent another's). One `git
    diff-tree --stdin` per parent number, for every merge."""
    out: dict[int, list[frozenset[str]]] = {}
    most = max((len(info.parents) for info, _ in walk), default=0)
    for k in range(1, most):
        pairs: list[tuple[str, str | None]] = [
            (info.sha, info.parents[k]) for info, _ in walk if len(info.parents) > k]
        found = diff_raw(repo, pairs, "--no-renames", "--diff-filter=AD")
        for sha, changes in found.items():
            added = frozenset(names[-1] for fields, names in changes if fields[4] == "A")
            if added and len(added) < len(changes):  # some file deleted too
                row = rows[sha]
                sides = out.setdefault(row, [frozenset()] * (len(walk[row][0].parents) - 1))
                sides[k - 1] = added
    return {row: tuple(sides) for row, sides in out.items()}


def _chain(path: str, origin: Mapping[str, CommitInfo],
           moved: Mapping[str, tuple[CommitInfo, str]], touched: Mapping[str, int]
           ) -> tuple[Step, ...] | None:
    """The history of `path` (touched by one commit): unchanged renames back to the commit
    that added it; None when some path on the way was touched by any other commit."""
    steps: list[Step] = []
    while path in moved and len(steps) <= len(moved):
        info, old = moved[path]
        steps.append((info, "R100", old, path))
        if touched[old] != 2:  # added once, deleted once (by this rename)
            return None
        path = old
    if path not in origin or path in moved:
        return None
    return (*steps, (origin[path], "A", path, path))


def _exact(repo: git.Repo, lineage: Lineage, steps: tuple[Step, ...]) -> bool:
    """Whether every rename among `steps` is one `--follow` and blame cannot read otherwise:
    its blob is held by no other file of the parent commit (`--follow` would take an
    unchanged file holding it for a copy's source)."""
    for info, status, _old, new in steps:
        if status == "A":
            continue
        parent = info.parents[0]
        if parent not in lineage.unique:
            try:
                out = repo.git.ls_tree("-r", "-z", parent)
            except git.GitCommandError:
                return False
            counts = Counter(e.split("\t", 1)[0].split(" ")[-1] for e in out.split("\0") if e)
            lineage.unique[parent] = frozenset(b for b, n in counts.items() if n == 1)
        if lineage.blobs[new] not in lineage.unique[parent]:
            return False
    return True


def history_of(repo: git.Repo, lineage: Lineage | None, rev: str, path: str
               ) -> tuple[Step, ...] | None:
    """`path`'s history as `lineage` states it exactly; None where git must be asked."""
    if lineage is None or rev != lineage.head.sha:
        return None
    steps = lineage.chains.get(path)
    return steps if steps and _exact(repo, lineage, steps) else None


def changes_of(repo: git.Repo, rev: str, path: str, version: Version = DocState.key,
               lineage: Lineage | None = None, parts: Parts | None = None
               ) -> list[DocChange]:
    """`doc_changes.doc_changes(repo, rev, path, version, parts)`, from `lineage` where
    it knows the answer (`rev` its head, and `path` read by `histories_of`, or written by
    one commit and maybe renamed since)."""
    if lineage is None or rev != lineage.head.sha:
        return doc_changes(repo, rev, path, version, parts)
    steps = None if path in lineage.histories else history_of(repo, lineage, rev, path)
    if steps is None:
        if path not in lineage.histories:  # read on its own
            histories_of(repo, lineage, [path])
        read = lineage.histories[path]
        if read is None:  # `histories_of` could not read it: git is asked
            return doc_changes(repo, rev, path, version, parts)
        sides = lineage.side_names.get(path, {})
        wanted = [pair for pair in states_wanted(read, sides) if pair not in lineage.states]
        lineage.states.update(states_at(repo, wanted))
        return changes_from(read, lineage.states, frozenset(), version, sides, parts)
    wanted = [(info.sha, new) for info, _, _, new in steps]
    wanted += [(info.parents[0], old) for info, status, old, _ in steps if status != "A"]
    states = states_at(repo, wanted)
    return [DocChange(info, new, None if status == "A" else states[info.parents[0], old],
                      states[info.sha, new]) for info, status, old, new in steps]


def base_of_landing(repo: git.Repo, sha: str, head: str, lineage: Lineage | None = None
                    ) -> CommitInfo | None:
    """`provenance.landing_base(repo, sha, head)`, without git for a commit on `lineage`'s
    first-parent line (it landed there itself: its base is its first parent)."""
    if lineage is None or head != lineage.head.sha or sha not in lineage.first_parent:
        return landing_base(repo, sha, head)
    parents = lineage.commits[sha].parents
    return lineage.commits[parents[0]] if parents else None


def blamed_whole(repo: git.Repo, lineage: Lineage | None, path: str, commit: str) -> bool:
    """Whether blame would credit every line of the work tree's `path` to `commit`."""
    if lineage is None or path not in lineage.clean:
        return False
    steps = history_of(repo, lineage, lineage.head.sha, path)
    return steps is not None and steps[-1][0].sha == commit


def histories_of(repo: git.Repo, lineage: Lineage, paths: Iterable[str]) -> None:
    """Read the histories of many `paths` from `lineage` (`follow`) into
    `lineage.histories`, with their states, so that `changes_of` needs no git for them:
    one `git diff-tree --stdin` per step of renames followed (the commits where some of
    those documents appear, all at once) and one `git cat-file --batch`, whatever the
    number of documents."""
    todo = {path for path in paths if path not in lineage.histories}
    while todo:
        asked: set[str] = set()
        alone: dict[int, set[str]] = {}
        sides: set[tuple[str, int]] = set()
        for path in sorted(todo):
            read = follow(lineage, path)
            if isinstance(read, str):
                asked.add(read)
            elif isinstance(read, Alone):
                alone.setdefault(read.row, set()).add(read.path)
            elif isinstance(read, Side):
                sides |= read.pairs
            else:
                lineage.histories[path] = read
        todo -= lineage.histories.keys()
        for row, news in alone.items():
            read_alone(repo, lineage, row, news)
        if sides and not read_sides(repo, lineage, sides):
            lineage.histories.update(dict.fromkeys(todo))  # git is asked for each
            break
        if not asked:
            if alone or sides:
                continue
            break
        pairs: list[tuple[str, str | None]] = [
            (sha, lineage.commits[sha].parents[0]) for sha in sorted(asked)]
        try:
            found = diff_raw(repo, pairs, *FOLLOW_COPIES)
        except git.GitCommandError:
            lineage.histories.update(dict.fromkeys(todo))  # git is asked for each
            break
        for sha, _ in pairs:
            lineage.copies[sha] = {paths[1]: (fields[4], paths[0], fields[2], fields[3])
                                   for fields, paths in found.get(sha, []) if len(paths) == 2}
    wanted = [pair for read in lineage.histories.values() if read is not None
              for pair in states_wanted(read) if pair not in lineage.states]
    lineage.states.update(states_at(repo, wanted))


def read_sides(repo: git.Repo, lineage: Lineage, pairs: Collection[tuple[str, int]]) -> bool:
    """Into `lineage.side_renames`: what rename detection from parent number k of each
    merge of `pairs` (merge id, k) to the merge finds (one `git diff-tree --stdin` per
    parent number); False when git failed."""
    for k in sorted({k for _, k in pairs}):
        asked: list[tuple[str, str | None]] = sorted(
            (sha, lineage.commits[sha].parents[k]) for sha, kk in pairs if kk == k)
        try:
            found = diff_raw(repo, asked, *SIDE_RENAMES)
        except git.GitCommandError:
            return False
        for sha, _ in asked:
            lineage.side_renames[sha, k] = {names[1]: names[0] for fields, names
                                            in found.get(sha, []) if len(names) == 2}
    return True


def read_alone(repo: git.Repo, lineage: Lineage, row: int, paths: Collection[str]) -> None:
    """Into `lineage.alone`: what the commit at `row` of `lineage.walk` made each of `paths`
    (files it added) from, detection looking for that file alone as `--follow` does."""
    info, touches = lineage.walk[row]
    added = [path for path, (status, _) in touches.items() if status == "A"]
    try:
        found = diffs_alone(repo, info.sha, info.parents[0], added, paths, *FOLLOW_COPIES)
    except git.GitCommandError:
        lineage.alone.update({(info.sha, path): UNKNOWN for path in paths})
        return
    for path in paths:
        made = [(fields[4], names[0]) for fields, names in found.get(path, [])
                if len(names) == 2 and names[1] == path]
        lineage.alone[info.sha, path] = UNKNOWN if path not in found else \
            made[0] if made else None


@dataclass(frozen=True)
class Alone:
    """`follow` needs what the commit at `row` of `lineage.walk` made `path` from, looked
    for on its own (`read_alone`)."""

    row: int
    path: str


@dataclass(frozen=True)
class Side:
    """`follow` needs what these merges made of their other parents' files:
    (merge id, parent number) pairs (`read_sides`)."""

    pairs: frozenset[tuple[str, int]]


def follow(lineage: Lineage, path: str) -> tuple[Step, ...] | str | Alone | Side | None:
    """The commits that touched the document `path` names at the head, each under the name
    it had there (as `doc_changes` reads them, newest first in `--topo-order`), from the
    history read once; the document's names in the other parents of merges among them
    into `lineage.side_names[path]`. As `git log --follow -M --diff-merges=first-parent`
    does along one line: every commit whose diff against its first parent touches the
    document's name is listed; where the name appears, the file it was renamed or copied
    from is looked for (a copy ends the history, a rename gives the older commits its
    source's name). Unlike `--follow`, which keeps one name for the rest of the walk, the
    name is read per commit (`kbtools.review.walktree`): a branch forked before a rename
    on the main line, merged after it, holds the old name, the file of that branch the
    merge made the document from (rename detection against that parent), and its commits
    are listed under it. A commit id when copy detection where the document appears was
    not read yet (`lineage.copies`); `Alone` when detection over all of the commit's new
    files may choose a source differently (`source`) and the look-up for that file alone
    was not read yet (`lineage.alone`); `Side` when what merges made of their other
    parents' files was not read yet; None when git must be asked: a name that was a
    folder once, or git failed."""
    tree = lineage.tree
    assert tree is not None
    steps: list[Step] = []
    sides: dict[str, tuple[str, ...]] = {}
    named: list[tuple[int, str | None]] = []  # (row, name) for the rows below it
    todo: list[int] = []
    playing: set[str] = set()
    missing: set[tuple[str, int]] = set()

    def name_at(row: int) -> str | None:
        best, name = -1, cast(str | None, path)
        for top, got in named:
            if tree.first[top] > best and tree.within(row, top):
                best, name = tree.first[top], got
        return name

    def enter(name: str, after: int) -> bool:
        if name in lineage.folders:
            return False
        if name not in playing:
            playing.add(name)
            for row in (*lineage.at.get(name, ()), *lineage.side_at.get(name, ())):
                if row > after:
                    heapq.heappush(todo, row)
        return True

    def rename(row: int, k: int, name: str | None) -> bool:
        """The document's name below parent `k` of `row`, when that parent reads it there."""
        up = lineage.rows.get(lineage.walk[row][0].parents[k], -1)
        if up < 0 or not tree.reached(up, row, k):
            return True
        named.append((up, name))
        return name is None or enter(name, row)

    if not enter(path, -1):
        return None
    done = -1
    while todo:
        row = heapq.heappop(todo)
        if row == done:
            continue
        done = row
        name = name_at(row)
        if name is None:
            continue
        info, touches = lineage.walk[row]
        added = lineage.side_added.get(row, ())
        others = []
        for k, new in enumerate(added, 1):
            old = name
            if name in new:
                if (info.sha, k) not in lineage.side_renames:
                    missing.add((info.sha, k))
                old = lineage.side_renames.get((info.sha, k), {}).get(name, name)
                if old != name and not rename(row, k, old):
                    return None
            others.append(old)
        if len(info.parents) > 1:
            sides[info.sha] = (*others, *[name] * (len(info.parents) - 1 - len(others)))
        if name not in touches:
            continue
        status = touches[name][0]
        if status == "A" and info.parents:
            if info.sha not in lineage.copies:
                return info.sha
            found = source(touches, lineage.copies[info.sha], name)
            if found == UNKNOWN:
                if (info.sha, name) not in lineage.alone:
                    return Alone(row, name)
                found = lineage.alone[info.sha, name]
                if found == UNKNOWN:
                    return None
            if found is not None:
                steps.append((info, found[0], found[1], name))
                if not rename(row, 0, None if found[0].startswith("C") else found[1]):
                    return None
                continue
        steps.append((info, status, name, name))
    if missing:
        return Side(frozenset(missing))
    lineage.side_names[path] = {info.sha: sides[info.sha] for info, *_ in steps
                                if info.sha in sides}
    return tuple(steps)


def source(touches: Touches, copies: Mapping[str, Source], path: str
           ) -> tuple[str, str] | None:
    """(status, source path) of the file `path` was renamed or copied from in a commit with
    changes `touches` and copy detection `copies` over all its new files; None when it was
    made from none. `--follow` detects for that one file alone: the same answer when the
    commit adds no other file; when detection found no source at all (none is similar
    enough); when the source is identical and no other new file holds that blob (identical
    files are matched first, each new file on its own); or when no other new file took a
    file the commit deleted (a deleted file goes to one new file as a rename: only that can
    keep it from `path`). A rename when the commit deleted the source, else a copy.
    UNKNOWN for any other case."""
    found = copies.get(path)
    added = [blob for status, blob in touches.values() if status == "A"]
    if found is None or len(added) == 1:
        return None if found is None else (found[0], found[1])
    status, src, src_blob, blob = found
    deleted = {p for p, (s, _) in touches.items() if s == "D"}
    alone = all(other[1] not in deleted for dst, other in copies.items() if dst != path)
    if not alone and (src_blob != blob or added.count(blob) != 1):
        return UNKNOWN
    return ("R" if src in deleted else "C") + status[1:], src
