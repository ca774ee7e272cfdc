"""Review policy: `verified: true` only arrives through a reviewer.

- `reviewers_for(path, cfg)`: CODEOWNERS-style patterns from kb.toml `[review.reviewers]`.
- `evaluate(...)`: the pure policy over one document's history (a list of `DocChange`).
- `check_range(root, base, head)`: `kb review check`, the rule CI runs on pull requests.

The rules, for every document changed in the range that is verified at `head`:
  review-not-reviewer        verified_by is not a reviewer for the document's path
  review-unverified-change   content changed after the last verification
  review-stale-verification  verified_at is earlier than the last content change
  review-verified-at-future  verified_at is later than the commit that set it
  review-unattested          the verifying commit is not by the reviewer and has no trailer
  review-wrong-trailer       ... it has Reviewed-by trailers, but none names verified_by
  review-self-review         the reviewer authored content they verified (four eyes)
  review-no-history          the commit that set verified: true is not in the history
"Content" is the body plus every front-matter field except the verification fields and
`[review] non_content_fields`; changing only those needs no fresh verification.

Also here: `approve` (kb review approve) and `pending` (kb review pending);
`kb review diff` uses `kbtools.provenance.review_diff`.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import git

from kbtools.check.engine import Finding
from kbtools.config import CONFIG_NAME, DEFAULTS, Config
from kbtools.corpus import iter_documents, parse_source
from kbtools.errors import ConfigError, ReviewError, UsageError
from kbtools.fsutil import atomic_write_bytes
from kbtools.provenance import (
    DocChange,
    DocState,
    blob_text,
    doc_changes,
    doc_rel,
    git_identity,
    git_prefix,
    open_repo,
    parse_iso,
    require_repo,
    state_at,
)
from kbtools.schemas import schema_path, validator_for

FUTURE_SLACK = timedelta(hours=1)  # clock skew allowed between verified_at and its commit

# ---------------------------------------------------------------- reviewers


@lru_cache(maxsize=256)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """CODEOWNERS-style glob: `**` any depth, `*`/`?` within one segment; a pattern
    without a slash matches at any depth; a trailing slash means everything below."""
    pat = pattern.strip()
    anchored = "/" in pat.rstrip("/")
    pat = pat.lstrip("/")
    if pat.endswith("/"):
        pat += "**"
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        elif pat[i] == "[":
            j = pat.find("]", i)
            if j == -1:
                out += re.escape(pat[i])
                i += 1
            else:
                out += fnmatch.translate(pat[i:j + 1])[4:-3]
                i = j + 1
        else:
            out += re.escape(pat[i])
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    # a pattern naming a directory covers everything below it, like CODEOWNERS
    return re.compile(f"^{prefix}{out}(?:/.*)?$")


def matches(pattern: str, path: str) -> bool:
    return bool(_pattern_regex(pattern).match(path))


def reviewers_for(path: str, cfg: Config) -> list[str]:
    """Reviewer emails (lower-case) for `path` (relative to the repo root); the last
    matching pattern in kb.toml wins, as in CODEOWNERS. [] when none matches."""
    found: list[str] = []
    for pattern, emails in cfg.section("review").get("reviewers", {}).items():
        if matches(pattern, path):
            found = [str(e).strip().lower() for e in emails]
    return found


def non_content_fields(cfg: Config) -> frozenset[str]:
    return frozenset(cfg.section("review").get("non_content_fields", []))


# ---------------------------------------------------------------- the policy (pure)


def _index(changes: list[DocChange], pred) -> int | None:
    return next((i for i, ch in enumerate(changes) if pred(ch)), None)


def content_authors(changes: list[DocChange], v: int, non_content: frozenset[str]
                    ) -> list[DocChange]:
    """Content-changing commits covered by the verification at index `v` (newest first):
    those after the previous verification event, up to and including `v`."""
    prev = _index(changes[v + 1:], lambda ch: ch.verification_event() == "verified")
    end = len(changes) if prev is None else v + 1 + prev
    return [ch for ch in changes[v:end] if ch.content_changed(non_content)]


def evaluate(path: str, head: DocState, changes: list[DocChange], reviewers: list[str],
             non_content: frozenset[str]) -> list[Finding]:
    """Findings for one document that is verified at head. `changes` newest first."""
    out: list[Finding] = []

    def add(key: str, code: str, message: str) -> None:
        line = head.key_lines.get(key) or head.key_lines.get("verified") or 1
        out.append(Finding(path, line, 1, "error", code, message))

    by = str(head.meta.get("verified_by") or "").strip().lower()
    at_raw = head.meta.get("verified_at")
    at = parse_iso(at_raw)
    if not by:
        add("verified", "review-not-reviewer", "verified: true without verified_by")
    elif not reviewers:
        add("verified_by", "review-not-reviewer",
            f"verified_by {by} is not a reviewer: no reviewers are configured for {path} "
            "in kb.toml [review.reviewers]")
    elif by not in reviewers:
        add("verified_by", "review-not-reviewer",
            f"verified_by {by} is not a reviewer for {path} (reviewers: {', '.join(reviewers)})")
    v = _index(changes, lambda ch: ch.verification_event() == "verified")
    if v is None:
        add("verified", "review-no-history",
            "cannot find the commit that set verified: true (shallow clone? fetch full history)")
        return out
    vch = changes[v]
    b = _index(changes, lambda ch: ch.content_changed(non_content))
    if b is not None and b < v:
        bch = changes[b]
        what = ", ".join(bch.after.changed_fields(bch.before, non_content)) if (
            bch.before and bch.after) else "content"
        add("verified", "review-unverified-change",
            f"{what} changed in {bch.commit.short} by {bch.commit.author_email} after the "
            f"verification in {vch.commit.short}; needs fresh verification (kb review approve)")
    if at is None:
        add("verified_at", "review-stale-verification",
            f"verified_at {at_raw!r} is not an ISO 8601 timestamp with offset")
    else:
        if b is not None and at < changes[b].commit.authored_at:
            add("verified_at", "review-stale-verification",
                f"verified_at {at_raw} is earlier than the last content change "
                f"({changes[b].commit.authored_at.isoformat()} in {changes[b].commit.short})")
        if at > vch.commit.committed_at + FUTURE_SLACK:
            add("verified_at", "review-verified-at-future",
                f"verified_at {at_raw} is later than the commit that set it "
                f"({vch.commit.committed_at.isoformat()} in {vch.commit.short})")
    trailers = [e for _, e in vch.commit.reviewed_by()]
    if vch.commit.author_email != by and by not in trailers:
        if trailers:
            add("verified_by", "review-wrong-trailer",
                f"commit {vch.commit.short} sets verified_by {by} but its Reviewed-by "
                f"trailer names {', '.join(trailers)}")
        else:
            add("verified_by", "review-unattested",
                f"commit {vch.commit.short} sets verified_by {by} but was authored by "
                f"{vch.commit.author_email} and has no 'Reviewed-by: Name <{by}>' trailer")
    own = [ch for ch in content_authors(changes, v, non_content) if ch.commit.author_email == by]
    if own:
        add("verified_by", "review-self-review",
            f"{by} verifies content they authored ({', '.join(c.commit.short for c in own)}); "
            "another reviewer must verify it")
    elif by and by in str(head.meta.get("author") or "").lower():
        add("verified_by", "review-self-review",
            f"{by} verifies a document whose author field names them; another reviewer "
            "must verify it")
    return out


# ---------------------------------------------------------------- kb review check


def resolve(repo: git.Repo, ref: str) -> git.Commit:
    try:
        return repo.commit(ref)
    except (git.BadName, ValueError, git.GitCommandError):
        raise UsageError(f"unknown Git revision {ref!r}") from None


def merge_base(repo: git.Repo, base: git.Commit, head: git.Commit) -> git.Commit:
    bases = repo.merge_base(base, head)
    return bases[0] if bases else base


def changed_docs(repo: git.Repo, start: git.Commit, head: git.Commit, knowledge: str
                 ) -> list[str]:
    """Git paths of Markdown documents under `knowledge` that exist at head and differ
    from `start` (the merge base: what a pull request changes)."""
    out = repo.git.diff("--name-only", "--no-renames", "--diff-filter=d",
                        start.hexsha, head.hexsha, "--", knowledge)
    return sorted(p for p in out.split("\n")
                  if p.endswith(".md") and not Path(p).name.startswith("_"))


def trusted_settings(cfg: Config, start: git.Commit, head: git.Commit, prefix: str
                     ) -> tuple[Config, list[Finding]]:
    """The [review] settings to enforce: those of kb.toml at the merge base, so a pull
    request cannot appoint its own reviewers. Falls back to head's kb.toml (then the
    working tree's) when the base has none, with a warning either way it matters."""
    name = prefix + CONFIG_NAME
    base_text, head_text = blob_text(start, name), blob_text(head, name)
    notes: list[Finding] = []
    text = base_text
    if base_text is None:
        text = head_text
        if head_text is not None:
            notes.append(Finding(CONFIG_NAME, 1, 1, "warning", "review-config-unbased",
                                 "kb.toml is not in the base revision; its reviewers "
                                 "come from the change under review"))
    if text is None:
        return cfg, notes
    try:
        section = tomllib.loads(text).get("review", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot parse at {start.hexsha[:10]}: {exc}", path=CONFIG_NAME) from None
    if base_text is not None and head_text is not None and base_text != head_text:
        try:
            changed = tomllib.loads(head_text).get("review", {}) != section
        except tomllib.TOMLDecodeError:
            changed = True
        if changed:
            notes.append(Finding(CONFIG_NAME, 1, 1, "warning", "review-config-changed",
                                 "[review] settings change in this range; the base "
                                 "revision's reviewers were applied"))
    data = dict(cfg.data)
    data["review"] = {**DEFAULTS["review"], **section}
    return Config(root=cfg.root, data=data), notes


def check_range(cfg: Config, base: str, head: str = "HEAD") -> tuple[list[Finding], int]:
    """Run the review policy over the documents changed in base...head.

    Returns (findings sorted by path/line/code, number of documents examined)."""
    repo = require_repo(cfg.root)
    with repo:
        base_c, head_c = resolve(repo, base), resolve(repo, head)
        start = merge_base(repo, base_c, head_c)
        prefix = git_prefix(repo, cfg.root)
        knowledge = prefix + cfg.data["paths"]["knowledge"].strip("/")
        cfg, findings = trusted_settings(cfg, start, head_c, prefix)
        nc = non_content_fields(cfg)
        docs = changed_docs(repo, start, head_c, knowledge)
        for gpath in docs:
            rel = gpath[len(prefix):]
            state = state_at(head_c, gpath)
            if state is None or not state.ok or not state.verified:
                continue  # unverified docs need no reviewer; `kb check` reports bad ones
            changes = doc_changes(repo, head_c.hexsha, gpath, nc)
            findings += evaluate(rel, state, changes, reviewers_for(rel, cfg), nc)
    findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return findings, len(docs)


# ---------------------------------------------------------------- documents and identity


def _since_verification(changes: list[DocChange], nc: frozenset[str]) -> list[DocChange]:
    """Content-changing commits not yet covered by a verification (newest first)."""
    v = _index(changes, lambda ch: ch.verification_event() == "verified")
    upto = len(changes) if v is None else v
    return [ch for ch in changes[:upto] if ch.content_changed(nc)]


# ---------------------------------------------------------------- kb review approve


@dataclass(frozen=True)
class Approval:
    docs: tuple[str, ...]
    commit: str
    approver: str
    verified_at: str

    def to_dict(self) -> dict[str, Any]:
        return {"docs": list(self.docs), "commit": self.commit, "approver": self.approver,
                "verified_at": self.verified_at}


EMAIL_PLAIN = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$")
_VKEY = re.compile(r"^(verified|verified_by|verified_at)[ \t]*:")


def set_verification(raw: str, by: str, at: str) -> str:
    """Set verified/verified_by/verified_at in a document's front matter, changing only
    those lines (line endings, BOM and every other byte are kept)."""
    bom = "\ufeff" if raw.startswith("\ufeff") else ""
    lines = raw[len(bom):].split("\n")
    if lines[0].rstrip("\r \t") != "---":
        raise ValueError("no front matter")
    close = next((i for i in range(1, len(lines))
                  if lines[i].rstrip("\r \t") in ("---", "...")), None)
    if close is None:
        raise ValueError("front matter is never closed")
    eol = "\r" if lines[0].endswith("\r") else ""
    quoted_by = by if EMAIL_PLAIN.match(by) else '"' + by.replace('"', '\\"') + '"'
    values = {"verified": "true", "verified_by": quoted_by, "verified_at": f'"{at}"'}
    out: list[str] = [lines[0]]
    seen: list[str] = []
    i, last_v = 1, None
    while i < close:
        m = _VKEY.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        key = m[1]
        out.append(f"{key}: {values[key]}{eol}")
        seen.append(key)
        last_v = len(out)
        i += 1
        while i < close and lines[i][:1] in (" ", "\t"):  # a multi-line value
            i += 1
    missing = [f"{k}: {values[k]}{eol}" for k in values if k not in seen]
    at_pos = last_v if last_v is not None else len(out)
    out[at_pos:at_pos] = missing
    return bom + "\n".join(out + lines[close:])


def _validate_front_matter(cfg: Config, rel: str, text: str) -> None:
    src = parse_source(text, cfg.root / rel, rel)
    schemas_dir = cfg.path("schemas")
    names = ["frontmatter"]
    cat = src.meta.get("category")
    if isinstance(cat, str) and schema_path(f"categories/{cat}", schemas_dir):
        names.append(f"categories/{cat}")
    for name in names:
        for err in validator_for(name, schemas_dir).iter_errors(src.meta):
            where = ".".join(str(p) for p in err.absolute_path) or "(front matter)"
            line = src.key_lines.get(str(err.absolute_path[0])) if err.absolute_path else 1
            raise ReviewError(f"front matter would be invalid: {where}: {err.message}",
                              path=rel, line=line or 1)


def approve(cfg: Config, docs: list[str], approver: str | None = None,
            now: datetime | None = None) -> Approval:
    """Verify `docs` as `approver` (default: the Git identity) and commit only those files
    with a `Reviewed-by:` trailer. All documents are checked before anything is written."""
    if not docs:
        raise UsageError("name at least one document to approve")
    repo = require_repo(cfg.root)
    with repo:
        name, ident_email = git_identity(repo)
        ident_email = ident_email.lower()
        email = (approver or ident_email).strip().lower()
        if not email:
            raise ReviewError("no approver: pass --as EMAIL or set git config user.email")
        if email != ident_email or not name:
            name = email.split("@")[0]
        when = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
        prefix = git_prefix(repo, cfg.root)
        nc = non_content_fields(cfg)
        head = resolve(repo, "HEAD")
        planned: list[tuple[str, Path, bytes, bytes]] = []
        for doc in docs:
            rel = doc_rel(cfg, doc)
            gpath = prefix + rel
            state = state_at(head, gpath)
            if state is None:
                raise ReviewError("not committed: its author must commit it before review",
                                  path=rel)
            if repo.git.status("--porcelain", "--", gpath).strip():
                raise ReviewError("has uncommitted changes: commit or discard them first",
                                  path=rel)
            if not state.ok:
                raise ReviewError("front matter does not parse; run kb check", path=rel)
            reviewers = reviewers_for(rel, cfg)
            if email not in reviewers:
                who = ", ".join(reviewers) or "none configured in kb.toml [review.reviewers]"
                raise ReviewError(f"{email} is not a reviewer for this path (reviewers: {who})",
                                  path=rel)
            changes = doc_changes(repo, head.hexsha, gpath, nc)
            pending_changes = _since_verification(changes, nc)
            if state.verified and not pending_changes:
                raise ReviewError(f"already verified by {state.meta.get('verified_by')} at "
                                  f"{state.meta.get('verified_at')}; nothing changed since",
                                  path=rel)
            own = [ch.commit.short for ch in pending_changes if ch.commit.author_email == email]
            if own or email in str(state.meta.get("author") or "").lower():
                what = f"commits {', '.join(own)}" if own else "the document (author field)"
                raise ReviewError(f"{email} cannot approve their own change ({what}); "
                                  "another reviewer must approve it", path=rel)
            path = cfg.root / rel
            old = path.read_bytes()
            try:
                new = set_verification(old.decode("utf-8"), email, when).encode("utf-8")
            except (ValueError, UnicodeDecodeError) as exc:
                raise ReviewError(f"cannot edit front matter: {exc}", path=rel) from None
            _validate_front_matter(cfg, rel, new.decode("utf-8").replace("\r\n", "\n"))
            planned.append((gpath, path, old, new))
        rels = [g[len(prefix):] for g, *_ in planned]
        subject = (f"Review: verify {rels[0]}" if len(rels) == 1
                   else f"Review: verify {len(rels)} documents")
        message = (subject + "\n\n" + "\n".join(f"- {r}" for r in rels)
                   + f"\n\nReviewed-by: {name} <{email}>\n")
        try:
            for _, path, _, new in planned:
                atomic_write_bytes(path, new)
            repo.git.commit("--only", "--no-verify", "-m", message, "--",
                            *[g for g, *_ in planned])
        except (OSError, git.GitCommandError) as exc:
            for _, path, old, _ in planned:
                atomic_write_bytes(path, old)
            raise ReviewError(f"commit failed, files restored: {exc}") from None
        return Approval(tuple(rels), repo.head.commit.hexsha, email, when)


# ---------------------------------------------------------------- pending and diff


def pending(cfg: Config, now: datetime | None = None) -> list[dict[str, Any]]:
    """Documents awaiting review, oldest first: unverified ones, verified ones whose
    content changed since their verification, and uncommitted ones. Each: doc, title,
    reason, author (front matter), git_author, git_author_email, commit (the oldest
    change not yet verified), since, age_days."""
    now = now or datetime.now().astimezone()
    repo = open_repo(cfg.root)
    nc = non_content_fields(cfg)
    out: list[dict[str, Any]] = []
    prefix = git_prefix(repo, cfg.root) if repo else ""
    dirty: set[str] = set()
    if repo is not None:
        status = repo.git.status("--porcelain", "-z", "--untracked-files=all", "--",
                                 str(cfg.path("knowledge")))
        dirty = {item[3:] for item in status.split("\0") if len(item) > 3}
    for src in iter_documents(cfg.root, cfg.path("knowledge")):
        gpath = prefix + src.rel
        entry: dict[str, Any] = {
            "doc": src.rel, "title": src.meta.get("title"), "reason": "unverified",
            "author": src.meta.get("author"), "git_author": None, "git_author_email": None,
            "commit": None, "since": datetime.fromtimestamp(src.path.stat().st_mtime).astimezone()}
        if repo is None or gpath in dirty:
            entry["reason"] = "uncommitted"
        else:
            changes = doc_changes(repo, "HEAD", gpath, nc)
            waiting = _since_verification(changes, nc)
            if src.meta.get("verified") is True:
                if not waiting:
                    continue
                entry["reason"] = "changed-since-verification"
            first = waiting[-1] if waiting else (changes[0] if changes else None)
            if first is not None:
                entry.update(git_author=first.commit.author_name,
                             git_author_email=first.commit.author_email,
                             commit=first.commit.sha, since=first.commit.authored_at)
        since = entry["since"]
        entry["age_days"] = round((now - since).total_seconds() / 86400, 1)
        entry["since"] = since.isoformat(timespec="seconds")
        out.append(entry)
    if repo is not None:
        repo.close()
    out.sort(key=lambda e: (-e["age_days"], e["doc"]))
    return out
