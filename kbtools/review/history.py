"""Provenance read with review eyes: what `kb history` and `kb recent` report.

`doc_history` lists the commits that touched one document, each described in review terms
(content fields, non-content fields, verified / verification removed), plus its
verification events. `recent_changes` turns `kbtools.review.recent.recent_doc_changes` into
the entries `kb recent` and the MCP `recent` tool print (with `summary` and `verified`).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Any

import git

from kbtools.config import load_config
from kbtools.errors import KbError
from kbtools.gitobjects import diff_raw
from kbtools.provenance import (
    DocChange,
    DocState,
    git_prefix,
    open_repo,
    plain_paths,
    require_repo,
    resolve_commit,
)
from kbtools.review.drafts import on_draft_branch
from kbtools.review.lineage import scan
from kbtools.review.recent import RecentChange, recent_doc_changes
from kbtools.review.verification import (
    content_fields_changed,
    is_verified,
    non_content_fields,
    reviewed_changes,
    trailer_emails,
    verification_event,
)

# a shallow clone's boundary commit shows the document as created there, by its author
HISTORY_CUT = ("history stops here (shallow clone: what came before is not fetched; "
               "git fetch --unshallow)")


def describe_change(ch: DocChange, non_content: frozenset[str], moved_to: str | None = None
                    ) -> list[str]:
    """Short words for what a commit did to a document. `moved_to`: where a commit that
    took the document from this path renamed it (`renamed_away`), not deleted."""
    if ch.after is None:
        return [f"renamed to {moved_to}" if moved_to else "deleted"]
    if ch.cut:
        words = [HISTORY_CUT]
    elif ch.before is None:
        words = ["created"]
    else:
        before, after = ch.before, ch.after
        words = content_fields_changed(after, before, non_content)
        other = sorted(k for k in set(after.meta) | set(before.meta)
                       if k in non_content and after.meta.get(k) != before.meta.get(k))
        words = [w if w == "body" else f"front matter {w}" for w in words]
        words += [f"front matter {k} (non-content)" for k in other]
    event = verification_event(ch)
    if event == "verified":
        words.append(f"verified by {ch.after.meta.get('verified_by')}"
                     + (" (in a commit not fetched)" if ch.cut else ""))
    elif event == "unverified":
        words.append("verification removed")
    return words or ["no content change"]


def verification_events(changes: list[DocChange]) -> list[dict[str, Any]]:
    """Verification events oldest first: verified / unverified, by whom, when, attested how;
    `cut` when the commit that made it is not fetched (a shallow clone: `commit` is then the
    boundary, where the fetched history begins)."""
    events = []
    for ch in reversed(changes):
        kind = verification_event(ch)
        if kind is None:
            continue
        meta = ch.after.meta if ch.after else {}
        events.append({"event": kind, "commit": ch.commit.sha,
                       "verified_by": meta.get("verified_by") if kind == "verified" else None,
                       "verified_at": meta.get("verified_at") if kind == "verified" else None,
                       "committed_by": ch.commit.author_email,
                       "reviewed_by": trailer_emails(ch), "cut": ch.cut})
    return events


def doc_history(root: Path, doc: str, non_content: frozenset[str], rev: str = "HEAD"
                ) -> dict[str, Any]:
    """`kb history`: commits touching `doc` (newest first) and verification events. `rev`
    is resolved to a commit first (UsageError when it names none): handed to `git log` as
    given, ``--output=FILE`` would be an option of git's, not a revision."""
    repo = require_repo(root)
    with repo:
        prefix = git_prefix(repo, root)
        path = prefix + doc
        start = resolve_commit(repo, rev).sha
        changes = reviewed_changes(repo, start, path, non_content)
        known = None if changes else history_spelling(repo, start, path)
        if known is not None and known.startswith(prefix):
            path, doc = known, known[len(prefix):]
            changes = reviewed_changes(repo, start, path, non_content)
        if any(ch.path != path or len(ch.commit.parents) > 1 for ch in changes):
            # renamed, or merged: `git log --follow` keeps one name along every line, so
            # the history is read with the document's name per commit (`lineage.follow`)
            if (lineage := scan(repo, start, work_tree=False)) is not None:
                changes = reviewed_changes(repo, start, path, non_content, lineage)
        if not changes:
            if said := on_draft_branch(repo, path):
                raise KbError("no commit on this branch touches this document" + said, path=doc)
            raise KbError("no commits touch this document (untracked or misspelt?)", path=doc)
        changes += earlier_lives(repo, changes[-1], non_content)
        moved = renamed_away(repo, changes, prefix)
        # each name as `kb history` takes it, relative to the kb root (as `doc`), not the
        # repository's top: in a monorepo (kb.toml in docs/kb) "as docs/kb/knowledge/a.md"
        # named a path that `kb history` there finds nothing at
        commits = [dict(ch.commit.to_dict(), path=ch.path.removeprefix(prefix),
                        changes=describe_change(ch, non_content, moved.get(ch.commit.sha)),
                        reviewed_by=trailer_emails(ch), cut=ch.cut)
                   for ch in changes]
        return {"doc": doc, "commits": commits, "verifications": verification_events(changes)}


def renamed_away(repo: git.Repo, changes: list[DocChange], prefix: str) -> dict[str, str]:
    """Commit → the path (relative to the kb root, `prefix` its place in the repository)
    that commit renamed the document to, for each change that took it from its path. The
    history of a name a document left (`kb history OLD.md`) ends in such a change, which
    git's log of that one path shows as a deletion; rename detection over the whole commit
    against its first parent (as `git log -M` finds renames) tells a move from a deletion.
    One `git diff-tree --stdin` for them all."""
    gone = {ch.commit.sha: ch.path for ch in changes
            if ch.after is None and ch.before is not None and ch.commit.parents}
    pairs: list[tuple[str, str | None]] = [
        (ch.commit.sha, ch.commit.parents[0]) for ch in changes if ch.commit.sha in gone]
    try:
        found = diff_raw(repo, pairs, "-M")
    except git.GitCommandError:
        return {}
    out = {}
    for sha, entries in found.items():
        to = next((paths[1] for fields, paths in entries
                   if fields[-1].startswith("R") and paths[0] == gone.get(sha)), None)
        if to is not None:
            out[sha] = to[len(prefix):] if to.startswith(prefix) else to
    return out


def earlier_lives(repo: git.Repo, created: DocChange, non_content: frozenset[str]
                  ) -> list[DocChange]:
    """The commits of the documents that held `created`'s path before it was created there
    (newest first; each deletion an event of its own), when git's history stops at that
    creation. `git log --follow` goes on along the same path when nothing was renamed into
    it, but takes a new file that resembles another one (documents share most of their
    front matter) for a copy of it: the history then ends there (`doc_changes`), and the
    document deleted from that path before is left out. Each earlier life is read from the
    parent of the creation, with renames followed, until one starts with no past."""
    out: list[DocChange] = []
    while created.before is None and not created.cut and created.commit.parents:
        older = reviewed_changes(repo, created.commit.parents[0], created.path, non_content)
        if not older:
            break
        out += older
        created = older[-1]
    return out


def history_spelling(repo: git.Repo, rev: str, path: str) -> str | None:
    """The one path the history of `rev` spells differently from `path` but equal to it in
    composed Unicode (NFC): a document no longer on disk, committed with the decomposed
    name macOS writes (NFD) and typed composed (or the reverse); None when there is not
    exactly one."""
    key = unicodedata.normalize("NFC", path)
    out = plain_paths(repo).log("--format=", "--name-only", "-z", rev,
                                stdout_as_string=False)
    same = {name for name in (os.fsdecode(raw.strip(b"\n")) for raw in out.split(b"\0"))
            if name != path and unicodedata.normalize("NFC", name) == key}
    return same.pop() if len(same) == 1 else None


def recent_changes(repo_root: Path, days: int | None = None, n: int | None = None,
                   ) -> list[dict[str, Any]]:
    """Documents added or changed recently, newest first, one entry per document.

    `days` limits by author date, `n` the number of documents (20 when neither is given).
    Each entry: doc, change (added/modified/deleted/renamed/unknown), commit, author,
    author_email, date, message, summary (what changed), title, verified.
    [] outside a Git repository.
    """
    repo = open_repo(repo_root)
    if repo is None:
        return []
    cfg = load_config(repo_root)
    non_content = non_content_fields(cfg)
    with repo:
        return [recent_entry(rc, non_content)
                for rc in recent_doc_changes(repo, cfg, days=days, n=n)]


def recent_entry(rc: RecentChange, non_content: frozenset[str]) -> dict[str, Any]:
    ch = rc.change
    meta = (ch.after or ch.before or DocState({}, "", "", False)).meta
    info = ch.commit
    return {"doc": rc.doc, "change": rc.kind,
            "commit": info.sha, "author": info.author_name, "author_email": info.author_email,
            "date": info.authored_at.isoformat(), "message": info.subject,
            "summary": ", ".join(describe_change(ch, non_content)),
            "title": meta.get("title"), "verified": is_verified(meta)}
