"""Whether a verified document's text is still the text its reviewer verified.

`verified: true` in the front matter is a claim; Git holds the evidence. `review_coverage`
finds the review behind the claim, the newest commit that set the verification fields
(`verification.last_verification`), and judges it by the policy as it stood at that
commit (`policy.judge_doc` over the history up to it: `verified_by` is a reviewer for the
path, the commit is theirs or carries their `Reviewed-by:` trailer, they did not verify
their own content, `verified_at` fits the commit). Then it lists the body lines of the
working-tree file that changed after that review:

- lines whose blame commit is uncommitted, or is neither the review commit nor one of its
  ancestors (blame + one `git rev-list` per document);
- lines that differ from the document at the review commit (a line diff; it also catches
  merge resolutions that blame attributes to older commits), and the places where lines
  were deleted.

What cannot be pinned on body lines lapses the whole document (`ReviewCoverage.reason`):
no valid review, a content front-matter field changed after it, the verification fields
changed without a commit, a document that is not committed, a shallow clone. Where no
history can be read at all (a build outside Git) `unchecked(doc, reason)` is the verdict:
nothing is proven, so nothing counts as verified.

The build turns a coverage into `verified` per chunk (`kbtools.build.verified`); `kb check`
into `verification-lapsed` warnings (`kbtools.check.verification`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git

from kbtools.config import Config
from kbtools.corpus import parse_source
from kbtools.errors import ConfigError
from kbtools.gitobjects import CommitInfo, staged_renames
from kbtools.provenance import (
    UNCOMMITTED,
    DocChange,
    LineProvenance,
    blame_lines,
    blob_text,
    git_prefix,
    head_commit,
    in_nested_repo,
    is_shallow,
    nested_repo,
    not_ancestors,
    state_from_text,
)
from kbtools.review.lineage import Lineage, base_of_landing, blamed_whole, scan
from kbtools.review.policy import (
    Breach,
    doc_breaches,
    judge_doc,
    review_settings,
    reviewers_for,
    trusted_mailmap,
)
from kbtools.review.verification import (
    content_fields_changed,
    diff_lines,
    last_verification,
    non_content_fields,
    recording_since,
    reviewed_changes,
    since_verification,
    verification,
)

SHALLOW = "shallow clone: the review cannot be checked (fetch the full history)"
NOT_COMMITTED = "uncommitted change: the document is not committed, so it has no review"
UNCOMMITTED_VERIFICATION = ("uncommitted change to verified, verified_by or verified_at "
                            "(a verification counts once committed by a reviewer)")


@dataclass(frozen=True)
class Review:
    """The commit that verified a document, with what its front matter said."""

    commit: str
    by: str  # verified_by
    at: str  # verified_at, as written
    path: str  # git path of the document at the review commit

    def to_dict(self) -> dict[str, str]:
        return {"commit": self.commit, "by": self.by, "at": self.at}

    def seen(self) -> str:
        return f"reviewed {self.at[:10]} by {self.by}"


@dataclass(frozen=True)
class Change:
    """Who changed something after the review: a commit, or the working tree."""

    commit: str  # sha; "uncommitted"; "" when unknown
    author: str = ""  # "Name <email>"
    date: str = ""  # ISO 8601 author date ("" when uncommitted)
    ts: int = 0  # commit time, to pick the newest
    authored_ts: int = 0  # author time as an instant: the newest of commits of one second

    @classmethod
    def of_commit(cls, info: CommitInfo) -> Change:
        return cls(info.sha, _who(info.author_name, info.author_email),
                   info.authored_at.isoformat(), int(info.committed_at.timestamp()),
                   int(info.authored_at.timestamp()))

    @classmethod
    def of_line(cls, line: LineProvenance) -> Change:
        if line.commit == UNCOMMITTED:
            return WORKING_TREE
        return cls(line.commit, _who(line.author_name, line.author_email), line.authored_at,
                   line.committed_ts, line.authored_ts)

    def rank(self) -> tuple[int, int, int]:
        """Newest first: uncommitted, then by commit time, then (commits of one second, as
        a rebase makes them) by author time as an instant, as `chunk_provenance` orders."""
        return (1 if self.commit == UNCOMMITTED else 0, self.ts, self.authored_ts)


WORKING_TREE = Change(UNCOMMITTED)
UNKNOWN = Change("")


def _who(name: str, email: str) -> str:
    return f"{name} <{email}>" if name and email else name or email


def changed_after(change: Change, review: Review | None) -> str:
    """The reason text for a change made after `review`:
    ``changed after review on <date> by <author> (commit <sha>; reviewed <date> by <reviewer>)``."""
    seen = f" ({review.seen()})" if review else ""
    if change.commit == UNCOMMITTED:
        return f"uncommitted change{seen}"
    if not change.commit:
        return f"changed after review{seen}"
    detail = f"commit {change.commit[:10]}" + (f"; {review.seen()}" if review else "")
    return f"changed after review on {change.date[:10]} by {change.author} ({detail})"


@dataclass(frozen=True)
class ReviewCoverage:
    """What of one `verified: true` document its review still covers.

    `reason` set: nothing of the document counts as verified. Otherwise body lines in
    `changed` (working-tree line → who changed it) and deletions at the lines in
    `deleted` (line p: lines were removed between p - 1 and p) are not covered;
    everything else is."""

    doc: str
    review: Review | None = None
    reason: str | None = None
    key: str = "verified"  # the front-matter key `reason` is about (verified_by, a field)
    changed: Mapping[int, Change] = field(default_factory=dict)
    deleted: tuple[int, ...] = ()
    reviewed_text: str | None = None  # the document at the review commit
    latest: Change = UNKNOWN  # the newest change after the review (for changes without a line)
    checked: bool = True  # False: no history could be read (see `unchecked`)

    def covers_all(self) -> bool:
        """The review holds and covers every line: nothing of the document awaits review."""
        return self.checked and self.reason is None and not self.changed and not self.deleted

    def line_reason(self, line_start: int, line_end: int) -> str | None:
        """Why lines line_start..line_end (inclusive) are not covered; None when they are.
        A deletion counts for a range that holds lines on both sides of it."""
        if self.reason is not None:
            return self.reason
        hits = [c for n, c in self.changed.items() if line_start <= n <= line_end]
        if hits:
            return changed_after(max(hits, key=Change.rank), self.review)
        if any(line_start < p <= line_end for p in self.deleted):
            return self.unlocated_reason()
        return None

    def unlocated_reason(self) -> str:
        """The reason for a change that has no line of its own (a deletion, a header)."""
        return self.reason or changed_after(self.latest, self.review)

    def first_line(self, key_lines: Mapping[str, int]) -> int:
        """The line `kb check`'s first `verification-lapsed` warning names (`key_lines`: the
        line of each front-matter key of the text judged): the line of the key a review
        that does not hold is about (`verified_by` for who reviewed, a changed field), else
        the first changed body line, else the `verified` line (1 when none is written)."""
        if self.reason is None and (runs := self.ranges()):
            return runs[0][0]
        return key_lines.get(self.key) or key_lines.get("verified") or 1

    def ranges(self) -> list[tuple[int, int, str]]:
        """Changed body lines as (first, last, reason), contiguous runs in order; a
        deletion between lines p - 1 and p is the range (p - 1, p)."""
        runs: list[list[int]] = []
        for n in sorted(self.changed):
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        out = [(a, b, self.line_reason(a, b) or "") for a, b in runs]
        out += [(max(p - 1, 1), p, self.unlocated_reason()) for p in self.deleted
                if not any(a <= p - 1 and p <= b for a, b in runs)]
        return sorted(out)

    def to_dict(self) -> dict[str, Any]:
        """Summary for the manifest's lapse list and `kb build --json`."""
        return {"doc": self.doc, "reason": self.reason,
                "lines": [[a, b] for a, b, _ in self.ranges()],
                "review": self.review.to_dict() if self.review else None}


def unchecked(doc: str, reason: str) -> ReviewCoverage:
    """The verdict where no history can be read: nothing of `doc` is proven reviewed."""
    return ReviewCoverage(doc, reason=reason, checked=False)


def review_coverage(repo: git.Repo, cfg: Config, rel: str, text: str,
                    blame: Sequence[LineProvenance] | None = None,
                    lineage: Lineage | None = None) -> ReviewCoverage:
    """What the review behind `verified: true` still covers of document `rel` (relative to
    cfg.root) whose working-tree text is `text`. `blame` is `blame_lines(cfg.root, rel)`
    when the caller already has it; `lineage` is `lineage.scan(repo)` when the caller
    judges many documents (the history read once)."""
    if (folder := nested_repo(cfg.root, rel)) is not None:
        return unchecked(rel, in_nested_repo(folder))
    if (target := linked_document(cfg.root, rel)) is not None:
        return ReviewCoverage(rel, reason=linked_reason(target))
    if lineage is None and is_shallow(repo):  # a shallow clone has no lineage
        return unchecked(rel, SHALLOW)
    # the history read for this document alone: its names on every line (`scan`)
    lineage = lineage or scan(repo, work_tree=False)
    head = lineage.head if lineage is not None else head_commit(repo)
    if head is None:  # no commits yet
        return ReviewCoverage(rel, reason=NOT_COMMITTED)
    gpath = git_prefix(repo, cfg.root) + rel
    head_text = blob_text(repo, head.sha, gpath)
    was = _moved_from(repo, gpath, lineage) if head_text is None else None
    if was is not None:  # `git mv` staged: judged as the document it was ("not committed")
        gpath, head_text = was, blob_text(repo, head.sha, was)
        blame = []  # no line is HEAD's under the new name: the diff with the review says
    if head_text is None:
        return ReviewCoverage(rel, reason=NOT_COMMITTED)
    try:
        cfg, nc, changes, v = _judged_history(repo, cfg, head.sha, gpath, lineage)
    except ConfigError as exc:
        return ReviewCoverage(rel, reason=f"review policy cannot be read: {exc}")
    if v is None or changes[v].after is None:
        problems = judge_doc(rel, state_from_text(head_text, rel), changes,
                             reviewers_for(rel, cfg), nc)
        return ReviewCoverage(rel, reason="no review: " + problems[0].message
                              if problems else "no review found in the history")
    rch = changes[v]
    at_review = rch.after
    assert at_review is not None
    review = Review(rch.commit.sha, str(at_review.meta.get("verified_by") or ""),
                    str(at_review.meta.get("verified_at") or ""), rch.path)
    breaches = _breaches(repo, cfg, rel, changes, v, head.sha, lineage, nc)
    if breaches:
        key, _, message = breaches[0]
        return ReviewCoverage(rel, review, reason=f"review not valid: {message}", key=key)
    current = state_from_text(text, rel)
    if verification(current) != verification(at_review):
        return ReviewCoverage(rel, review, reason=UNCOMMITTED_VERIFICATION)
    after = since_verification(changes, nc)
    latest = WORKING_TREE if text != head_text else (
        Change.of_commit(after[0].commit) if after else UNKNOWN)
    fields = [f for f in content_fields_changed(current, at_review, nc) if f != "body"]
    if fields:
        who = _field_change(after, fields, nc) or latest
        return ReviewCoverage(rel, review, reason=f"front matter {', '.join(fields)}: "
                              + changed_after(who, review), key=fields[0])
    reviewed_text = blob_text(repo, review.commit, review.path) or ""
    body_line = parse_source(text, Path(rel), rel).body_line
    if blame is None and blamed_whole(repo, lineage, gpath, review.commit):
        blame = []  # every line is the review commit's: none is late
    late = _late_lines(repo, review, blame if blame is not None else
                       blame_lines(cfg.root, rel, repo), body_line)
    diffed, deleted = diff_lines(reviewed_text, text)
    # a line is changed when its text is not the reviewed one's, whoever blame names: a
    # commit that only rewrote the line ends (an editor saving CRLF) is every line's blame,
    # and changed nothing `kb review diff` or the approval's digest sees
    changed = {n: late.get(n, latest) for n in sorted(diffed) if n >= body_line}
    return ReviewCoverage(rel, review, changed=changed,
                          deleted=tuple(p for p in deleted if p >= body_line),
                          reviewed_text=reviewed_text, latest=latest)


def linked_document(root: Path, rel: str) -> str | None:
    """What document `rel` (relative to `root`) is a symbolic link to, as a path relative to
    the root (or the link's own target text when it leads outside it), or None for a
    document of its own. Why: Git holds a link's history (the target's name), never its
    text's, so no review of the text it shows is a review of the link; judged as a
    document, its history read as front matter said "verified: true without verified_by"
    beside the very line that names its reviewer, `kb review pending` said "changed since
    verification", and `kb review approve` (which approves the target) said "nothing changed
    since": a lapse no reviewer could clear."""
    path = root / rel
    if not os.path.islink(path):
        return None
    real, top = os.path.realpath(path), os.path.realpath(root)
    if real == top or not real.startswith(top.rstrip(os.sep) + os.sep):
        return os.readlink(path)
    return Path(os.path.relpath(real, top)).as_posix()


def linked_reason(target: str) -> str:
    """Why a symbolic link to a document is never served as verified."""
    return (f"a symbolic link to {target}: a review covers a document's own file, never a "
            f"link to one; link to {target} in Markdown instead, or commit a copy of its own "
            "and have it reviewed (kb review approve COPY)")


def _moved_from(repo: git.Repo, gpath: str, lineage: Lineage | None) -> str | None:
    """The path at HEAD of a document the Git index renames to `gpath` (`git mv`, edited or
    not: what the pre-commit hook checks), else None. Why: each verified document of a
    folder moved in the commit being made was "not committed, so it has no review", though
    the commit keeps every review. The renames are read once per state of the Git index (a
    watcher keeps its lineage while HEAD stays, not while the index does)."""
    try:
        st = os.stat(Path(repo.git_dir) / "index")
    except OSError:
        return None  # no index: nothing staged
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    if lineage is None:
        return staged_renames(repo).get(gpath)
    if stamp not in lineage.staged:
        lineage.staged.clear()
        lineage.staged[stamp] = staged_renames(repo)
    return lineage.staged[stamp].get(gpath)


def _breaches(repo: git.Repo, cfg: Config, rel: str, changes: list[DocChange], v: int,
              head: str, lineage: Lineage | None, nc: frozenset[str]) -> list[Breach]:
    """Why the verification `changes[v]` of `rel` does not hold as a review (none: it
    does), under the policy and mailmap trusted for it (as for kb.toml)."""
    at_review = changes[v].after
    assert at_review is not None
    base = base_of_landing(repo, changes[v].commit.sha, head, lineage)
    mailmap = trusted_mailmap(repo, base.sha if base is not None else changes[v].commit.sha)
    return doc_breaches(rel, at_review, changes[v:], reviewers_for(rel, cfg), nc, mailmap,
                        recording_since(lineage))


def refused_verification(repo: git.Repo, cfg: Config, rel: str, lineage: Lineage | None
                         ) -> tuple[DocChange, str] | None:
    """The newest verification of committed document `rel` and why it does not hold as a
    review (`kb review check`'s first finding of it: set by its author in a commit no
    reviewer made, say, or copied with the text of a document split from a verified one);
    None when it holds or there is none."""
    head = lineage.head.sha if lineage is not None else "HEAD"
    gpath = git_prefix(repo, cfg.root) + rel
    try:
        cfg, nc, changes, v = _judged_history(repo, cfg, head, gpath, lineage)
    except ConfigError:
        return None  # `kb check` and `kb review check` say the policy cannot be read
    if v is None or changes[v].after is None or changes[v].cut:
        return None
    breaches = _breaches(repo, cfg, rel, changes, v, head, lineage, nc)
    return (changes[v], breaches[0][2]) if breaches else None


def _judged_history(repo: git.Repo, cfg: Config, head: str, gpath: str,
                    lineage: Lineage | None = None
                    ) -> tuple[Config, frozenset[str], list[DocChange], int | None]:
    """The document's history and its newest verification, with the review policy that
    judges it: [review] as it stood before the review commit landed
    (`policy.review_settings`), never the policy of HEAD or of the commit under judgement.
    A field counts as non-content only when both that policy and HEAD's say so. Which
    commit is the review depends on what is content, so that is found again under the
    trusted policy; when the answer keeps moving, the verdict is "no review"."""
    prefix = git_prefix(repo, cfg.root)
    here = non_content_fields(cfg)
    nc = here
    for _ in range(3):
        changes = reviewed_changes(repo, head, gpath, nc, lineage)
        v = last_verification(changes)
        if v is None:
            return cfg, nc, changes, None
        trusted = review_settings(repo, cfg, changes[v].commit.sha, head, prefix, lineage)
        trusted_nc = non_content_fields(trusted) & here
        if trusted_nc == nc:
            return trusted, nc, changes, v
        nc = trusted_nc
    return cfg, nc, changes, None


def _field_change(after: list[DocChange], fields: list[str], nc: frozenset[str]
                  ) -> Change | None:
    """The newest commit after the review that changed one of `fields`."""
    for ch in after:
        if ch.before is not None and ch.after is not None and \
                set(fields) & set(content_fields_changed(ch.after, ch.before, nc)):
            return Change.of_commit(ch.commit)
    return None


def _late_lines(repo: git.Repo, review: Review, blame: Sequence[LineProvenance], body_line: int
                ) -> dict[int, Change]:
    """Body lines whose blame commit is uncommitted or not covered by `review`."""
    late = not_ancestors(repo, {p.commit for p in blame if p.commit != UNCOMMITTED},
                         review.commit)
    return {p.line: Change.of_line(p) for p in blame
            if p.line >= body_line and (p.commit == UNCOMMITTED or p.commit in late)}
