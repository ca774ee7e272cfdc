"""Every document's per-line provenance for a build, without a `git blame` per document
where one commit alone wrote the file.

`git blame` walks the history from HEAD back to where every line was written, so blaming
each of D documents in a history of C commits costs D × C (200 documents blamed in 8 s with
500 commits, 35 s with 2,000). One `git log` of the whole history names the files exactly
one commit added and no commit touched again (merges compared with each parent, `-m`; no
rename detection, and none of that commit's files deleted, so blame could not follow a rename
into it): every line of such a file, unchanged in the working tree, is that commit's, as
blame would say. Only the other documents are blamed.
"""

from __future__ import annotations

import hashlib
from contextlib import nullcontext
from pathlib import Path

import git

from kbtools import provenance
from kbtools.blame_runs import BlameRuns
from kbtools.corpus import lf_newlines, read_source
from kbtools.errors import SourceError
from kbtools.gitbatch import batched
from kbtools.gitobjects import status_changed, unquote_path
from kbtools.provenance import (
    git_prefix,
    line_provenance,
    open_repo,
    plain_paths,
    shallow_boundary,
)

# sha, author (as the commit records it: no .mailmap, as `provenance.blame_lines` reports
# it), author time and zone, committer time
# the largest `.mailmap` read for a watcher's blame key (git's own are a few KiB)
MAILMAP_MAX_BYTES = 1 << 20
LOG_FORMAT = "--format=%x00%H%x1f%an%x1f%ae%x1f%at%x1f%ad%x1f%ct%x00"


def blame_documents(root: Path, rels: list[str]) -> dict[str, BlameRuns]:
    """`provenance.blame_lines(root, rel)` of each of `rels` (documents without any left
    out), as runs (`kbtools.blame_runs`)."""
    written = _written_once(root)
    out = {}
    repo = open_repo(root) if set(rels) - written.keys() else None
    # one repository for every blame, and what its blamed commits are remembered across them
    with repo or nullcontext(), batched(repo) if repo is not None else nullcontext():
        for rel in rels:
            found = written.get(rel)
            blame = _all_lines(root / rel, *found) if found else \
                BlameRuns(provenance.blame_lines(root, rel, repo))
            if blame:
                out[rel] = blame
    return out


def _written_once(root: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """root-relative path → (commit, its blame fields) of the clean files one commit wrote."""
    repo = open_repo(root)
    if repo is None:
        return {}
    with repo:
        try:
            prefix = git_prefix(repo, root)
            out = plain_paths(repo).log("-m", "--no-renames", "--name-status", "--no-show-signature",
                                        "--date=format:%z", LOG_FORMAT, "HEAD")
            dirty = plain_paths(repo).status("--porcelain", "-z", "--untracked-files=no")
        except (git.GitCommandError, ValueError):
            return {}
        cut = shallow_boundary(repo)  # shows every file added: blame says what is known
    touched: dict[str, int] = {}
    added: dict[str, tuple[str, dict[str, str]]] = {}
    parts = out.split("\x00")
    for i in range(1, len(parts) - 1, 2):
        sha, name, email, at, tz, ct = parts[i].split("\x1f")
        fields = {"author": name, "author-mail": f"<{email}>", "author-time": at,
                  "author-tz": tz, "committer-time": ct}
        changes = [ln.split("\t") for ln in parts[i + 1].split("\n") if "\t" in ln]
        deletes = any(c[0].startswith("D") for c in changes)
        for status, *paths in changes:
            path = unquote_path(paths[-1])
            touched[path] = touched.get(path, 0) + 1
            if status == "A" and not deletes and sha not in cut:
                added[path] = (sha, fields)
    changed = status_changed(dirty)
    return {path[len(prefix):]: found for path, found in added.items()
            if touched[path] == 1 and path not in changed and path.startswith(prefix)}


def _all_lines(path: Path, sha: str, fields: dict[str, str]) -> BlameRuns:
    """Every line of the file at `path` credited to commit `sha`, numbered as documents are
    (CRLF, lone CR and LF end a line), as `provenance.parse_line_porcelain` numbers blame."""
    try:
        data = lf_newlines(path.read_bytes())
    except OSError:
        return BlameRuns()
    n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return BlameRuns.of_commit(n, line_provenance(1, sha, fields))


def blame_state(root: Path) -> tuple[str, str, frozenset[str]] | None:
    """What the blame of a document under `root` depends on besides its own bytes: HEAD
    ("" before the first commit), the work tree's `.mailmap` (blame reads it, though
    `provenance.blame_lines` reports the authors as the commits record them) and
    whether the index tracks the path (blame reads a path HEAD lacks from the index, one
    the index lacks not at all) — HEAD, a digest of `.mailmap` and the tracked paths
    relative to `root`. None outside Git (or when git fails)."""
    repo = open_repo(root)
    if repo is None:
        return None
    with repo:
        try:
            prefix = git_prefix(repo, root)
            try:
                head = repo.git.rev_parse("--verify", "-q", "HEAD")
            except git.GitCommandError:
                head = ""  # no commits yet
            listed = plain_paths(repo).ls_files("-z", "--full-name", "--", ":/")
        except (git.GitCommandError, ValueError):
            return None
        top = Path(repo.working_tree_dir or root)
        try:  # as a document is read: a committed `.mailmap -> /dev/zero` was read forever
            mailmap = read_source(top / ".mailmap", top, MAILMAP_MAX_BYTES)
        except SourceError as exc:  # none, a link git does not follow either, too large
            mailmap = exc.code.encode()
    tracked = frozenset(p[len(prefix):] for p in listed.split("\x00") if p.startswith(prefix) and p)
    return head, hashlib.sha256(mailmap).hexdigest(), tracked
