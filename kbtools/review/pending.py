"""`kb review pending`: documents awaiting review, oldest first."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime
from typing import Any

import git

from kbtools.config import Config
from kbtools.corpus import SourceDoc, iter_documents
from kbtools.gitbatch import batched
from kbtools.pathspecs import literal
from kbtools.provenance import git_prefix, open_repo
from kbtools.review.drafts import waiting_drafts
from kbtools.review.lapse import linked_document, review_coverage
from kbtools.review.lineage import Lineage, histories_of, scan
from kbtools.review.verification import (
    covered_changes,
    is_verified,
    last_verification,
    non_content_fields,
    reviewed_changes,
    since_verification,
    unreviewed_change,
)


def pending(cfg: Config, now: datetime | None = None) -> list[dict[str, Any]]:
    """Documents awaiting review, oldest first: unverified ones, verified ones whose
    content changed since their verification, and uncommitted ones. Each: doc, line (where
    the reviewer acts, as `kb check` names it: a verification's `verified_by` or the change
    that lapsed it, an unverified document's `verified`; None for an uncommitted document or
    a draft), title, reason, author (front matter), git_author, git_author_email, commit
    (the oldest change not yet verified), since, age_days (never below 0: a commit dated ahead of this
    clock, a skewed author's or this device's, is as new as can be). Reasons: unverified,
    changed-since-verification, uncommitted, verification-lapsed, history-missing (see
    `awaiting`), and draft: a document a draft branch (`draft/...`, local or a remote's)
    adds or changes that HEAD does not hold, with its branch and front-matter source
    (`kbtools.review.drafts`)."""
    now = now or datetime.now().astimezone()
    repo = open_repo(cfg.root)
    nc = non_content_fields(cfg)
    try:
        prefix = git_prefix(repo, cfg.root) if repo else ""
        dirty = uncommitted(repo, cfg) if repo is not None else set()
        docs = list(iter_documents(cfg.root, cfg.path("knowledge")))
        history = scan(repo) if repo is not None else None
        if repo is not None and history is not None:  # every history read at once
            histories_of(repo, history, [prefix + src.rel for src in docs
                                         if prefix + src.rel not in dirty])
        entries: list[dict[str, Any]] = []
        with batched(repo) if repo is not None else nullcontext():
            for src in docs:
                gpath = prefix + src.rel
                if repo is None or gpath in dirty:
                    entries.append(pending_entry(src, "uncommitted"))
                elif (found := awaiting(repo, cfg, src, gpath, nc, history)) is not None:
                    entries.append(found)
        knowledge = cfg.path("knowledge").resolve()
        if repo is not None and knowledge.is_relative_to(cfg.root.resolve()):
            # drafts filed on their own branches (`kb draft new`, an agent's report)
            folder = knowledge.relative_to(cfg.root.resolve()).as_posix()
            entries += waiting_drafts(repo, f"{prefix}{folder}/" if folder != "." else prefix,
                                      prefix)
        out: list[dict[str, Any]] = []
        for entry in entries:
            since = entry["since"]  # a commit (or file) dated ahead of this clock is new:
            entry["age_days"] = max(0.0, round((now - since).total_seconds() / 86400, 1))
            entry["since"] = since.isoformat(timespec="seconds")
            out.append(entry)
    finally:
        if repo is not None:
            repo.close()
    out.sort(key=lambda e: (-e["age_days"], e["doc"], e["branch"] or ""))
    return out


def uncommitted(repo: git.Repo, cfg: Config) -> set[str]:
    """Git paths under the knowledge folder that are modified or untracked."""
    status = repo.git.status("--porcelain", "-z", "--untracked-files=all", "--",
                             literal(str(cfg.path("knowledge"))))
    return {item[3:] for item in status.split("\0") if len(item) > 3}


def pending_entry(src: SourceDoc, reason: str, line: int | None = None) -> dict[str, Any]:
    """An entry dated by the file's modification time (no commit known yet); `line`: where
    in the document the reviewer acts (None: no one line)."""
    return {"doc": src.rel, "line": line, "title": src.meta.get("title"), "reason": reason,
            "author": src.meta.get("author"), "source": src.meta.get("source"), "branch": None,
            "git_author": None, "git_author_email": None, "commit": None,
            "since": datetime.fromtimestamp(src.path.stat().st_mtime).astimezone()}


def awaiting(repo: git.Repo, cfg: Config, src: SourceDoc, gpath: str,
             non_content: frozenset[str], lineage: Lineage | None = None
             ) -> dict[str, Any] | None:
    """The entry of a committed document that awaits review, dated by the oldest change
    not yet verified; None when it is verified and unchanged since. In a shallow clone a
    verification older than the fetched history gives reason "history-missing" (whether
    the text changed since cannot be told), and an oldest change at the boundary no author
    (git shows the document created there, by whoever made that commit). A verification
    that does not hold as a review, or leaves lines uncovered (`review_coverage`, as `kb
    check` and the build judge it), gives "verification-lapsed". `lineage()` is the
    history read once (`lineage.scan`), its histories read (`lineage.histories_of`)."""
    rev = lineage.head.sha if lineage is not None else "HEAD"
    changes = reviewed_changes(repo, rev, gpath, non_content, lineage)
    waiting = since_verification(changes, non_content)
    reason = "unverified"
    line = src.key_lines.get("verified") or None
    if is_verified(src.meta):
        v = last_verification(changes)
        line = src.key_lines.get("verified_by") or line
        cov = None if v is not None and changes[v].cut else \
            review_coverage(repo, cfg, src.rel, src.text, lineage=lineage)
        if cov is None:
            reason = "history-missing"
        elif waiting and linked_document(cfg.root, src.rel) is None:  # a link's history
            reason = "changed-since-verification"  # is its target's name, not its text
        elif cov.covers_all():
            return None
        else:  # `kb check` says verification-lapsed: a review that does not hold
            reason = "verification-lapsed"
            waiting = covered_changes(changes, v, non_content) if v is not None else []
        if cov is not None and not cov.covers_all():  # where `kb check` names it
            line = cov.first_line(src.key_lines)
    entry = pending_entry(src, reason, line)
    named = unreviewed_change(changes, non_content) if reason != "verification-lapsed" else None
    first = named or (waiting[-1] if waiting else (changes[0] if changes else None))
    if first is not None and first.cut:
        entry.update(since=first.commit.authored_at)
    elif first is not None:
        entry.update(git_author=first.commit.author_name,
                     git_author_email=first.commit.author_email,
                     commit=first.commit.sha, since=first.commit.authored_at)
    return entry
