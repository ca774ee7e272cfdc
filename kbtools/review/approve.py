"""`kb review approve`: verify documents as a reviewer, in one commit with a trailer.

`approve` checks every document first (committed, clean, parses, the approver is one of
its reviewers and authored none of the unverified change), then sets verified /
verified_by / verified_at with `set_verification` (only those lines change) and commits
just those files with a `Reviewed-by:` trailer. Nothing is written unless every document
passes; a failed commit restores the files. Approvals in one worktree run one at a time
(a lock in its git dir: two at once wrote each other's front matter or met git's index.lock and
restored a file the other had committed); the commit reported is the one the approval made,
whatever lands on HEAD after it. A detached HEAD is refused: the approval would be on no
branch, left behind at the next checkout.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import git

from kbtools.config import Config
from kbtools.corpus import decode, parse_source
from kbtools.errors import ReviewError, UsageError
from kbtools.fsutil import atomic_write_bytes, exclusive_lock
from kbtools.gitobjects import CommitInfo, git_reason
from kbtools.pathspecs import literal
from kbtools.provenance import (
    blob_text,
    doc_rel,
    git_identity,
    git_prefix,
    plain_paths,
    require_repo,
    resolve_commit,
    state_at,
    state_from_text,
)
from kbtools.review.drafts import on_draft_branch
from kbtools.review.lapse import review_coverage
from kbtools.review.lineage import scan
from kbtools.review.policy import reviewers_for, trusted_mailmap
from kbtools.review.verification import (
    ADDRESS_SEPARATORS,
    address,
    author_names,
    authored_by,
    content_trailer,
    covered_changes,
    is_verified,
    last_verification,
    non_content_fields,
    reviewed_changes,
    since_verification,
)
from kbtools.schemas import schema_path, validator_for

APPROVE_LOCK = "kb/approve.lock"  # in a worktree's own git dir (its HEAD and index)
EMAIL_PLAIN = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+$")
_VKEY = re.compile(r"^(verified|verified_by|verified_at)[ \t]*:")


@dataclass(frozen=True)
class Approval:
    docs: tuple[str, ...]
    commit: str
    approver: str
    verified_at: str

    def to_dict(self) -> dict[str, Any]:
        return {"docs": list(self.docs), "commit": self.commit, "approver": self.approver,
                "verified_at": self.verified_at}


@dataclass(frozen=True)
class PlannedEdit:
    """One document's approval, checked and ready to write."""

    gpath: str  # git path
    path: Path  # on disk
    old: bytes
    new: bytes
    rel: str = ""  # relative to the kb root, as errors name it
    record: str = ""  # the Kb-Reviewed-Content line: what this approval approves


@dataclass(frozen=True)
class Approver:
    name: str
    email: str  # lower-case
    when: str  # the verified_at to write (ISO 8601, seconds)


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


def approve(cfg: Config, docs: list[str], approver: str | None = None,
            now: datetime | None = None) -> Approval:
    """Verify `docs` as `approver` (default: the Git identity) and commit only those files
    with a `Reviewed-by:` trailer. All documents are checked before anything is written."""
    if not docs:
        raise UsageError("name at least one document to approve")
    repo = require_repo(cfg.root)
    with repo, exclusive_lock(Path(repo.git_dir).resolve() / APPROVE_LOCK):
        who = approver_identity(repo, approver, now)
        head = resolve_commit(repo, "HEAD")
        on_a_branch(repo, head)
        planned = [plan_approval(cfg, repo, head, doc, who) for doc in docs]
        planned = list({p.gpath: p for p in planned}.values())  # one named twice: once
        prefix = git_prefix(repo, cfg.root)
        rels = [p.gpath[len(prefix):] for p in planned]
        message = approval_message(rels, who, [p.record for p in planned])
        commit_approval(repo, planned, message)
        return Approval(tuple(rels), approval_commit(repo, head.sha, planned), who.email,
                        who.when)


def on_a_branch(repo: git.Repo, head: CommitInfo) -> None:
    """A ReviewError when HEAD is detached: a commit there is on no branch."""
    try:
        repo.git.symbolic_ref("-q", "HEAD")
    except git.GitCommandError:
        raise ReviewError(f"HEAD is detached (at {head.short}): an approval committed here "
                          "would be on no branch and left behind at the next checkout; "
                          "check out the branch to approve on (git switch BRANCH, or "
                          "git switch -c BRANCH for a new one)") from None


def approval_commit(repo: git.Repo, parent: str, planned: list[PlannedEdit]) -> str:
    """The commit the approval made on `parent`: the oldest of HEAD's first parents since
    `parent` that changed the approved documents (another commit may land on it at once;
    a prepare-commit-msg hook may have reworded the message)."""
    out = plain_paths(repo).log("--first-parent", "--reverse", "--format=%H",
                                f"{parent}..HEAD", "--", *[literal(p.gpath) for p in planned])
    made = out.split()
    return made[0] if made else resolve_commit(repo, "HEAD").sha


def approver_identity(repo: git.Repo, approver: str | None, now: datetime | None) -> Approver:
    """Who approves (`approver`, else the Git identity) and the verified_at to write.
    `approver` may name a person with their address (`王芳 <wang.fang@x>`, read by
    `address`): verified_by is the address, the trailer their name as written. Otherwise
    the trailer carries the Git name only when the approver is the Git identity."""
    name, ident_email = git_identity(repo)
    ident_email = ident_email.lower()
    email = address(approver or ident_email)
    if not email:
        raise ReviewError("no approver: pass --as EMAIL or set git config user.email")
    written = person_name(approver or "", email)
    if written:  # `--as "王芳 <wang.fang@x>"`: the trailer names them as written
        name = written
    elif email != ident_email or not name:
        name = email.split("@")[0]
    when = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
    return Approver(name, email, when)


def plan_approval(cfg: Config, repo: git.Repo, head: CommitInfo, doc: str, who: Approver
                  ) -> PlannedEdit:
    """Check that `who` may verify `doc` at `head` and prepare its edited bytes; a
    ReviewError naming the document otherwise."""
    rel = doc_rel(cfg, doc)
    gpath = git_prefix(repo, cfg.root) + rel
    state = state_at(repo, head.sha, gpath)
    if state is None and not (cfg.root / rel).exists():
        raise ReviewError("no such document: neither committed nor on disk"
                          + on_draft_branch(repo, gpath), path=rel)
    if state is None:
        raise ReviewError("not committed: its author must commit it before review", path=rel)
    if repo.git.status("--porcelain", "--", literal(gpath)).strip():
        raise ReviewError("has uncommitted changes: commit or discard them first", path=rel)
    if not state.ok:
        raise unparsed(cfg, rel, blob_text(repo, head.sha, gpath) or "")
    reviewers = reviewers_for(rel, cfg)
    if who.email not in reviewers:
        names = ", ".join(reviewers) or "none configured in kb.toml [review.reviewers]"
        raise ReviewError(f"{who.email} is not a reviewer for this path (reviewers: {names})",
                          path=rel)
    nc = non_content_fields(cfg)
    lineage = scan(repo, head.sha, work_tree=False)  # its names on every line
    changes = reviewed_changes(repo, head.sha, gpath, nc, lineage)
    v = last_verification(changes)
    if changes and changes[-1].cut and v in (None, len(changes) - 1):
        raise ReviewError(f"its history stops at {changes[-1].commit.short} (a shallow clone): "
                          "who wrote the text awaiting review cannot be checked; fetch the "
                          "full history (git fetch --unshallow)", path=rel)
    waiting = since_verification(changes, nc)
    if is_verified(state.meta) and not waiting:
        # a verification that is no review (unattested, self-reviewed, not a reviewer's, as
        # an import into a new repository brings them) covers nothing: `kb check` asks for
        # an approval, so the content it claimed to cover awaits this one
        text = blob_text(repo, head.sha, gpath) or ""
        if review_coverage(repo, cfg, rel, text, lineage=lineage).covers_all():
            raise ReviewError(f"already verified by {state.meta.get('verified_by')} at "
                              f"{state.meta.get('verified_at')}; nothing changed since",
                              path=rel)
        if v is not None:
            waiting = covered_changes(changes, v, nc)
    mailmap = trusted_mailmap(repo, head.sha)  # an old address of theirs is theirs too
    own = [ch.commit.short for ch in waiting if authored_by(ch, who.email, mailmap)]
    if own or author_names(state.meta.get("author"), who.email):
        what = f"commits {', '.join(own)}" if own else "the document (author field)"
        raise ReviewError(f"{who.email} cannot approve their own change ({what}); "
                          "another reviewer must approve it", path=rel)
    path = cfg.root / rel
    old = path.read_bytes()
    try:
        new = set_verification(old.decode("utf-8"), who.email, who.when).encode("utf-8")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReviewError(f"cannot edit front matter: {exc}", path=rel) from None
    # read as the checks read the committed blob (`decode`: no BOM, LF): a Notepad BOM was
    # read as part of `---` (no front matter: "title is required"), and a CRLF document's
    # record named content no check could find
    text = decode(new)[0]
    validate_front_matter(cfg, rel, text)
    record = content_trailer(state_from_text(text, rel))
    return PlannedEdit(gpath, path, old, new, rel, record)


def unparsed(cfg: Config, rel: str, text: str) -> ReviewError:
    """The refusal of a document whose front matter does not parse, at the line of the
    first problem (`kb check`'s code and words): "does not parse" alone left the author to
    find where."""
    problems = parse_source(text, cfg.root / rel, rel).errors
    first = problems[0] if problems else None
    what = f" ({first.code}: {first.message})" if first else ""
    return ReviewError(f"front matter does not parse{what}; fix it (kb check) before review",
                       path=rel, line=first.line if first else None)


def validate_front_matter(cfg: Config, rel: str, text: str) -> None:
    """A ReviewError when the edited document's front matter would fail its schemas."""
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


def approval_message(rels: list[str], who: Approver, records: Sequence[str] = ()) -> str:
    """The commit message: subject, the documents, and the trailers: Reviewed-by, then one
    `Kb-Reviewed-Content:` per document (`records`, in order, one per distinct content),
    which ties the approval to the content it approved wherever a rewrite puts it."""
    subject = (f"Review: verify {rels[0]}" if len(rels) == 1
               else f"Review: verify {len(rels)} documents")
    lines = [f"Reviewed-by: {who.name} <{who.email}>", *dict.fromkeys(records)]
    return (subject + "\n\n" + "\n".join(f"- {r}" for r in rels)
            + "\n\n" + "\n".join(lines) + "\n")


def commit_approval(repo: git.Repo, planned: list[PlannedEdit], message: str) -> None:
    """Write the edited documents and commit only them; restore them if that fails. A
    document saved meanwhile (an author's editor, while the others were checked) is left
    as saved and nothing is written: its approval was planned from the bytes before."""
    for p in planned:
        try:
            now = p.path.read_bytes()
        except OSError as exc:
            now = str(exc).encode()
        if now != p.old:
            raise ReviewError("changed on disk while it was being approved: nothing was "
                              "written or committed; review the change and approve again",
                              path=p.rel or p.gpath)
    try:
        for p in planned:
            atomic_write_bytes(p.path, p.new)
        repo.git.commit("--only", "--no-verify", "-m", message, "--",
                        *[literal(p.gpath) for p in planned])
    except (OSError, git.GitCommandError) as exc:
        for p in planned:
            atomic_write_bytes(p.path, p.old)
        raise ReviewError(f"commit failed, files restored: {git_reason(exc)}") from None


def person_name(identity: str, email: str) -> str:
    """The name written with `email` in `identity` ("王芳" of `王芳 <wang.fang@x>`), "" when
    it is the address alone. Brackets and blanks around the name are dropped."""
    low = identity.lower()
    at = low.find(email)
    if not email or at < 0:
        return ""
    rest = identity[:at] + " " + identity[at + len(email):]
    return " ".join(rest.translate(ADDRESS_SEPARATORS).replace("mailto:", " ").split())
