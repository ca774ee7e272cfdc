"""Provenance from Git: who changed a document, when, and who verified it.

Three consumers:
- `kb history DOC` and the review policy (`kbtools.review.policy`) use `doc_changes`, the
  commits that touched one document with its parsed state before and after each commit;
- the build uses `blame_lines` + `chunk_provenance` to stamp every chunk with the last
  commit that changed its lines;
- `kb recent` (and the MCP server) use `recent_changes`.

All Git access goes through GitPython. Functions used at build time degrade to empty
results when the root is not a Git repository or the file is untracked.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import git

from kbtools.config import Config
from kbtools.corpus import decode, parse_source, read_doc
from kbtools.errors import KbError

VERIFICATION_FIELDS = ("verified", "verified_by", "verified_at")
UNCOMMITTED = "uncommitted"
ZERO_SHA = "0" * 40
TRAILER = re.compile(r"^reviewed-by:\s*(?P<name>.*?)\s*<(?P<email>[^<>\s]+)>\s*$", re.I)


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class DocState:
    """A document's parsed content at one commit."""

    meta: dict[str, Any]
    body: str
    fm_text: str  # the raw front matter (used for comparison when it does not parse)
    ok: bool  # front matter parsed to a mapping
    key_lines: dict[str, int] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.meta.get("verified") is True

    def verification(self) -> tuple[bool, str, str]:
        return (self.verified, str(self.meta.get("verified_by") or ""),
                str(self.meta.get("verified_at") or ""))

    def content_key(self, non_content: frozenset[str]) -> tuple[str, str]:
        """What a reviewer vouches for: the body and every content front-matter field."""
        if not self.ok:
            return self.body, self.fm_text
        skip = non_content | set(VERIFICATION_FIELDS)
        meta = {k: v for k, v in self.meta.items() if k not in skip}
        return self.body, json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)

    def changed_fields(self, other: DocState, non_content: frozenset[str]) -> list[str]:
        """Content parts that differ between `other` (older) and self: "body" and keys."""
        out = ["body"] if self.body != other.body else []
        skip = non_content | set(VERIFICATION_FIELDS)
        keys = sorted((set(self.meta) | set(other.meta)) - skip)
        out += [k for k in keys if self.meta.get(k) != other.meta.get(k)]
        return out


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author_name: str
    author_email: str
    authored_at: datetime  # timezone-aware
    committed_at: datetime
    message: str

    @property
    def short(self) -> str:
        return self.sha[:10]

    @property
    def subject(self) -> str:
        return self.message.strip().split("\n", 1)[0]

    def reviewed_by(self) -> list[tuple[str, str]]:
        return reviewed_by(self.message)

    def to_dict(self) -> dict[str, Any]:
        return {"commit": self.sha, "author": self.author_name, "author_email": self.author_email,
                "date": self.authored_at.isoformat(), "message": self.subject}


@dataclass(frozen=True)
class DocChange:
    """One commit's effect on one document (newest first in lists)."""

    commit: CommitInfo
    path: str  # git path after the commit
    before: DocState | None  # None: the document did not exist before
    after: DocState | None  # None: deleted

    def content_changed(self, non_content: frozenset[str]) -> bool:
        if self.after is None:
            return False
        if self.before is None:
            return True
        return self.after.content_key(non_content) != self.before.content_key(non_content)

    def verification_event(self) -> str | None:
        """"verified" when this commit (re)set verified: true, "unverified" when it dropped it."""
        if self.after is None:
            return None
        if self.after.verified and (self.before is None
                                    or self.before.verification() != self.after.verification()):
            return "verified"
        if self.before is not None and self.before.verified and not self.after.verified:
            return "unverified"
        return None


@dataclass(frozen=True)
class LineProvenance:
    line: int  # 1-based line in the working-tree file
    commit: str  # sha, or "uncommitted"
    author_name: str
    author_email: str
    authored_at: str  # ISO 8601 with offset ("" when uncommitted)
    committed_ts: int  # for ordering; 0 when uncommitted


# ---------------------------------------------------------------- helpers


def reviewed_by(message: str) -> list[tuple[str, str]]:
    """`Reviewed-by: Name <email>` trailers from the message's last paragraph."""
    paragraphs = [p for p in re.split(r"\n\s*\n", message.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return []
    out = []
    for line in paragraphs[-1].splitlines():
        m = TRAILER.match(line.strip())
        if m:
            out.append((m["name"], m["email"].lower()))
    return out


def open_repo(root: Path) -> git.Repo | None:
    """The Git repository containing `root`, or None."""
    try:
        return git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def require_repo(root: Path) -> git.Repo:
    """The Git repository containing `root`; a KbError when there is none."""
    repo = open_repo(root)
    if repo is None:
        raise KbError("not inside a Git repository", path=str(root))
    return repo


def git_prefix(repo: git.Repo, root: Path) -> str:
    """`root` relative to the work tree top, as a posix prefix ("" or "sub/dir/")."""
    top = Path(repo.working_tree_dir or ".").resolve()
    rel = root.resolve().relative_to(top).as_posix()
    return "" if rel == "." else rel + "/"


def commit_info(commit: git.Commit) -> CommitInfo:
    return CommitInfo(
        sha=commit.hexsha, author_name=commit.author.name or "",
        author_email=(commit.author.email or "").lower(),
        authored_at=commit.authored_datetime, committed_at=commit.committed_datetime,
        message=str(commit.message))


def state_from_text(text: str, rel: str) -> DocState:
    src = parse_source(text, Path(rel), rel)
    fm = text.split("\n")[1:src.fm_end_line - 1] if src.fm_end_line else []
    return DocState(meta=src.meta, body=src.body, fm_text="\n".join(fm),
                    ok=not src.errors and bool(src.meta), key_lines=src.key_lines)


def blob_text(commit: git.Commit, path: str) -> str | None:
    try:
        blob = commit.tree / path
    except KeyError:
        return None
    return decode(blob.data_stream.read())[0]


def state_at(commit: git.Commit, path: str) -> DocState | None:
    text = blob_text(commit, path)
    return None if text is None else state_from_text(text, path)


def parse_iso(value: Any) -> datetime | None:
    try:
        dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else None


# ---------------------------------------------------------------- per-document history


def doc_changes(repo: git.Repo, rev: str, path: str,
                non_content: frozenset[str] = frozenset()) -> list[DocChange]:
    """Commits reachable from `rev` that touched git path `path` (following renames),
    newest first in topological order, each with the document's state before and after.

    A merge appears only when it made the document differ in content or verification
    from every parent (a conflict resolution or a combination of both sides): then it
    counts as a change by the merger against the first parent. A merge that took one
    side's version is left out; that side's own commits are listed.
    """
    try:
        out = repo.git.log("--follow", "-M", "--topo-order", "--diff-merges=first-parent",
                           "--format=%x00%H", "--name-status", rev, "--", path)
    except git.GitCommandError:
        return []
    changes: list[DocChange] = []
    for record in out.split("\x00")[1:]:
        lines = [ln for ln in record.strip().split("\n") if ln.strip()]
        if len(lines) < 2:
            continue
        sha, parts = lines[0], lines[1].split("\t")
        status, old, new = parts[0], parts[1], parts[-1]
        commit = repo.commit(sha)
        parent = commit.parents[0] if commit.parents else None
        before = None
        if parent is not None and status[0] not in "AC":
            before = state_at(parent, old)
        after = None if status.startswith("D") else state_at(commit, new)
        if len(commit.parents) > 1 and _takes_a_side(commit, after, old, new, non_content):
            continue
        changes.append(DocChange(commit_info(commit), new, before, after))
        if status[0] == "C":  # a copy starts a new document: its source's past is not its own
            break
    return changes


def _takes_a_side(merge: git.Commit, after: DocState | None, old: str, new: str,
                  non_content: frozenset[str]) -> bool:
    """True when some other parent already had the merge's content and verification."""
    if after is None:
        return True
    key = (after.content_key(non_content), after.verification())
    for parent in merge.parents[1:]:
        for p in dict.fromkeys((new, old)):
            state = state_at(parent, p)
            if state is not None and (state.content_key(non_content),
                                      state.verification()) == key:
                return True
    return False


def verification_events(changes: list[DocChange]) -> list[dict[str, Any]]:
    """Verification events oldest first: verified / unverified, by whom, when, attested how."""
    events = []
    for ch in reversed(changes):
        kind = ch.verification_event()
        if kind is None:
            continue
        meta = ch.after.meta if ch.after else {}
        events.append({"event": kind, "commit": ch.commit.sha,
                       "verified_by": meta.get("verified_by") if kind == "verified" else None,
                       "verified_at": meta.get("verified_at") if kind == "verified" else None,
                       "committed_by": ch.commit.author_email,
                       "reviewed_by": [e for _, e in ch.commit.reviewed_by()]})
    return events


def describe_change(ch: DocChange, non_content: frozenset[str]) -> list[str]:
    """Short words for what a commit did to a document."""
    if ch.after is None:
        return ["deleted"]
    if ch.before is None:
        words = ["created"]
    else:
        words = ch.after.changed_fields(ch.before, non_content)
        other = sorted(k for k in set(ch.after.meta) | set(ch.before.meta)
                       if k in non_content and ch.after.meta.get(k) != ch.before.meta.get(k))
        words = [w if w == "body" else f"front matter {w}" for w in words]
        words += [f"front matter {k} (non-content)" for k in other]
    event = ch.verification_event()
    if event == "verified":
        words.append(f"verified by {ch.after.meta.get('verified_by')}")
    elif event == "unverified":
        words.append("verification removed")
    return words or ["no content change"]


def doc_history(root: Path, doc: str, non_content: frozenset[str], rev: str = "HEAD"
                ) -> dict[str, Any]:
    """`kb history`: commits touching `doc` (newest first) and verification events."""
    repo = open_repo(root)
    if repo is None:
        raise KbError("not inside a Git repository", path=str(root))
    with repo:
        path = git_prefix(repo, root) + doc
        changes = doc_changes(repo, rev, path, non_content)
        if not changes:
            raise KbError("no commits touch this document (untracked or misspelt?)", path=doc)
        commits = [dict(ch.commit.to_dict(), path=ch.path, changes=describe_change(ch, non_content),
                        reviewed_by=[e for _, e in ch.commit.reviewed_by()])
                   for ch in changes]
        return {"doc": doc, "commits": commits, "verifications": verification_events(changes)}


def doc_rel(cfg: Config, doc: str) -> str:
    """A document argument (relative to the cwd, or to the repo root) as a root-relative
    posix path."""
    p = Path(doc)
    for cand in (p if p.is_absolute() else Path.cwd() / p, cfg.root / p):
        try:
            rel = cand.resolve().relative_to(cfg.root.resolve()).as_posix()
        except ValueError:
            continue
        if (cfg.root / rel).exists():
            return rel
    return p.as_posix()


def git_identity(repo: git.Repo) -> tuple[str, str]:
    """(name, email) of the current Git author identity (config and GIT_AUTHOR_* env)."""
    try:
        ident = repo.git.var("GIT_AUTHOR_IDENT")
    except git.GitCommandError:
        return "", ""
    m = re.match(r"^(.*?)\s*<([^>]*)>", ident)
    return (m[1].strip(), m[2].strip()) if m else ("", "")


def review_diff(cfg: Config, doc: str) -> dict[str, Any]:
    """What changed in a document (working tree) since its last verification: a unified
    diff of the body plus the content front-matter fields that changed."""
    rel = doc_rel(cfg, doc)
    path = cfg.root / rel
    if not path.is_file():
        raise KbError("no such document", path=rel)
    nc = frozenset(cfg.section("review").get("non_content_fields", []))
    repo = require_repo(cfg.root)
    with repo:
        changes = doc_changes(repo, "HEAD", git_prefix(repo, cfg.root) + rel, nc)
    cur = read_doc(path, cfg.root)
    v = next((i for i, ch in enumerate(changes) if ch.verification_event() == "verified"), None)
    if v is None or changes[v].after is None:
        base, label, info = DocState({}, "", "", True), f"{rel} (never verified)", None
    else:
        base = changes[v].after
        meta = base.meta
        info = {"commit": changes[v].commit.sha, "verified_by": meta.get("verified_by"),
                "verified_at": meta.get("verified_at")}
        label = (f"{rel}@{changes[v].commit.short} (verified by {meta.get('verified_by')} "
                 f"at {meta.get('verified_at')})")
    diff = "\n".join(difflib.unified_diff(
        base.body.split("\n") if base.body else [], cur.body.split("\n"),
        fromfile=label, tofile=f"{rel} (working tree)", lineterm=""))
    head = DocState(cur.meta, cur.body, "", not cur.errors, cur.key_lines)
    fields = [k for k in head.changed_fields(base, nc) if k != "body"] if v is not None else []
    return {"doc": rel, "verification": info, "changed": bool(diff) or bool(fields),
            "front_matter": {k: {"old": base.meta.get(k), "new": cur.meta.get(k)} for k in fields},
            "diff": diff}


# ---------------------------------------------------------------- blame (build time)


def blame_lines(repo_root: Path, rel_path: str) -> list[LineProvenance]:
    """Per-line provenance of the working-tree file (equal to HEAD when clean).

    Lines not yet committed get commit "uncommitted". Returns [] when `repo_root` is not
    in a Git repository, the file is untracked, or the repository has no commits.
    """
    repo = open_repo(repo_root)
    if repo is None:
        return []
    with repo:
        try:
            path = git_prefix(repo, repo_root) + rel_path
            out = repo.git.blame("--line-porcelain", "--", path)
        except (git.GitCommandError, ValueError):
            return []
    return parse_line_porcelain(out)


def parse_line_porcelain(out: str) -> list[LineProvenance]:
    result: list[LineProvenance] = []
    fields: dict[str, str] = {}
    sha, final = "", 0
    for line in out.split("\n"):
        if line.startswith("\t"):
            uncommitted = sha == ZERO_SHA
            when = ""
            if not uncommitted and fields.get("author-time"):
                tz = fields.get("author-tz", "+0000")
                sign = -1 if tz.startswith("-") else 1
                offset = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
                when = datetime.fromtimestamp(int(fields["author-time"]),
                                              timezone(offset)).isoformat()
            result.append(LineProvenance(
                line=final, commit=UNCOMMITTED if uncommitted else sha,
                author_name=UNCOMMITTED if uncommitted else fields.get("author", ""),
                author_email="" if uncommitted else fields.get("author-mail", "").strip("<>"),
                authored_at=when,
                committed_ts=0 if uncommitted else int(fields.get("committer-time", "0"))))
            fields = {}
            continue
        head = line.split(" ")
        if len(head) >= 3 and len(head[0]) == 40 and all(c in "0123456789abcdef" for c in head[0]):
            sha, final = head[0], int(head[2])
            continue
        key, _, value = line.partition(" ")
        fields[key] = value
    return result


def chunk_provenance(blame: list[LineProvenance], line_start: int, line_end: int
                     ) -> dict[str, str | None]:
    """The newest commit among lines line_start..line_end (1-based, inclusive).

    {"last_commit", "last_author", "last_changed"}; all None when nothing is known
    (no blame); last_commit "uncommitted" (and last_author "uncommitted",
    last_changed None) when any of the lines is not committed yet.
    """
    lines = [p for p in blame if line_start <= p.line <= line_end]
    if not lines:
        return {"last_commit": None, "last_author": None, "last_changed": None}
    if any(p.commit == UNCOMMITTED for p in lines):
        return {"last_commit": UNCOMMITTED, "last_author": UNCOMMITTED, "last_changed": None}
    newest = max(lines, key=lambda p: (p.committed_ts, p.authored_at))
    return {"last_commit": newest.commit, "last_author": newest.author_name,
            "last_changed": newest.authored_at}


# ---------------------------------------------------------------- recent changes


def recent_changes(repo_root: Path, days: int | None = None, n: int | None = None,
                   ) -> list[dict[str, Any]]:
    """Documents added or changed recently, newest first, one entry per document.

    `days` limits by author date, `n` the number of documents (20 when neither is given).
    Each entry: doc, change (added/modified/deleted/renamed), commit, author,
    author_email, date, message, summary (what changed), title, verified.
    """
    from kbtools.config import load_config

    repo = open_repo(repo_root)
    if repo is None:
        return []
    if days is None and n is None:
        n = 20
    cfg = load_config(repo_root)
    non_content = frozenset(cfg.section("review").get("non_content_fields", []))
    with repo:
        prefix = git_prefix(repo, cfg.root)
        knowledge = prefix + cfg.data["paths"]["knowledge"].strip("/") + "/"
        args = ["-M", "--format=%x00%H", "--name-status", "--no-merges"]
        if days is not None:
            args.append(f"--since={days}.days.ago")
        try:
            out = repo.git.log(*args, "HEAD", "--", knowledge)
        except git.GitCommandError:
            return []
        seen: set[str] = set()
        result: list[dict[str, Any]] = []
        for record in out.split("\x00")[1:]:
            lines = [ln for ln in record.strip().split("\n") if ln.strip()]
            if not lines:
                continue
            commit = repo.commit(lines[0])
            for status_line in lines[1:]:
                parts = status_line.split("\t")
                status, old, new = parts[0], parts[1], parts[-1]
                if not new.endswith(".md") or new in seen:
                    continue
                seen.add(new)
                result.append(_recent_entry(commit, status, old, new, prefix, non_content))
                if n is not None and len(result) >= n:
                    return result
        return result


def _recent_entry(commit: git.Commit, status: str, old: str, new: str, prefix: str,
                  non_content: frozenset[str]) -> dict[str, Any]:
    kind = {"A": "added", "D": "deleted", "R": "renamed"}.get(status[0], "modified")
    parent = commit.parents[0] if commit.parents else None
    before = state_at(parent, old) if parent is not None and kind != "added" else None
    after = None if kind == "deleted" else state_at(commit, new)
    change = DocChange(commit_info(commit), new, before, after)
    meta = (after or before or DocState({}, "", "", False)).meta
    info = commit_info(commit)
    return {"doc": new[len(prefix):] if new.startswith(prefix) else new, "change": kind,
            "commit": info.sha, "author": info.author_name, "author_email": info.author_email,
            "date": info.authored_at.isoformat(), "message": info.subject,
            "summary": ", ".join(describe_change(change, non_content)),
            "title": meta.get("title"), "verified": meta.get("verified") is True}
