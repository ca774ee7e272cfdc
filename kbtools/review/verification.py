"""What `verified: true` means, read from Git history.

A document is verified when its front matter says `verified: true`; `verified_by` names
the reviewer and `verified_at` when they looked. What the reviewer vouches for is the
document's *content*: the body plus every front-matter field except the verification
fields and kb.toml `[review] non_content_fields` (changing only those needs no fresh
verification). A verification is attested by the reviewer's own commit or by a
`Reviewed-by: Name <email>` trailer in the commit's last paragraph.

Everything here reads `kbtools.provenance` data (`DocState`, `DocChange`) with these
semantics; the rest of the review package builds on it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

import git

from kbtools.config import Config
from kbtools.provenance import DocChange, DocState
from kbtools.review.lineage import Lineage, changes_of

VERIFICATION_FIELDS = ("verified", "verified_by", "verified_at")
# As git reads a trailer: blanks may stand before the colon and inside the brackets.
# Linear time: no lazy name before \s* (the name is stripped by `reviewed_by`).
TRAILER = re.compile(r"^reviewed-by[ \t]*:(?P<name>.*)<[ \t]*(?P<email>[^<>\s]+)[ \t]*>\s*$",
                     re.I)
# GitHub's (and git's) mark of a commit's other authors, in the same place
CO_AUTHOR = re.compile(
    r"^co-authored-by[ \t]*:(?P<name>.*)<[ \t]*(?P<email>[^<>\s]+)[ \t]*>\s*$", re.I)


def non_content_fields(cfg: Config) -> frozenset[str]:
    """kb.toml `[review] non_content_fields`: fields that may change without re-review."""
    return frozenset(cfg.section("review").get("non_content_fields", []))


def outside_content(non_content: frozenset[str]) -> frozenset[str]:
    """Every front-matter field that is not content: the verification fields and
    `non_content`."""
    return non_content | frozenset(VERIFICATION_FIELDS)


def is_verified(meta: dict[str, Any]) -> bool:
    return meta.get("verified") is True


def verification(state: DocState) -> tuple[bool, str, str]:
    """(verified, verified_by, verified_at) of a document state."""
    return (is_verified(state.meta), str(state.meta.get("verified_by") or ""),
            str(state.meta.get("verified_at") or ""))


def content_key(state: DocState, non_content: frozenset[str]) -> tuple[str, str]:
    """What a reviewer vouches for: the body and every content front-matter field."""
    return state.key(outside_content(non_content))


def content_changed(change: DocChange, non_content: frozenset[str]) -> bool:
    """The commit created the document or changed its content."""
    return change.changed(outside_content(non_content))


def content_fields_changed(after: DocState, before: DocState, non_content: frozenset[str]
                           ) -> list[str]:
    """Content parts that differ between `before` and `after`: "body" and field names."""
    return after.changed_fields(before, outside_content(non_content))


# what may stand around an address in an `author` field: "Rita <rita@ex.org>",
# "a@x, b@y", "张伟（zhang.wei@x）", "mailto:rita@ex.org"
AUTHOR_SEPARATORS = str.maketrans(dict.fromkeys("<>,;:()[]{}\"'（）《》〈〉【】，；：、", " "))


# the brackets an address stands in when a person is written with it: "Rita <rita@ex.org>",
# Chinese input's full-width "李明＜li.ming@x＞", "王芳（wang.fang@x）"
ADDRESS_BRACKETS = (("<", ">"), ("\uff1c", "\uff1e"), ("(", ")"), ("\uff08", "\uff09"))
# what else may stand between the words of an identity (not a quote: `o'brien@x`)
ADDRESS_SEPARATORS = str.maketrans(dict.fromkeys('<>()\uff1c\uff1e\uff08\uff09,;"\uff0c\uff1b\u3001',
                                                 " "))


def address(identity: Any) -> str:
    """The email address an identity as a team writes it names, lower-case: `rita@ex.org`,
    `Rita Reviewer <RITA@ex.org>`, `李明 <li.ming@x>`, `李明＜li.ming@x＞`, `王芳（wang.fang@x）`,
    `wang.fang@x (王芳)`, `mailto:rita@x`. kb.toml `[review.reviewers]`, `verified_by` and
    `kb review approve --as` are read with it, so a reviewer listed as a person is the same
    reviewer as their address (an entry `Name <email>` used to match no one). A plain
    address keeps every character (`o'brien@x`); a text naming no one address (two, or
    none) is returned as written, lower-case, and so matches no reviewer."""
    text = str(identity or "").strip().lower()
    if not any(c.isspace() for c in text) and not any(
            o in text or c in text for o, c in ADDRESS_BRACKETS):
        return text.removeprefix("mailto:")
    for opening, closing in ADDRESS_BRACKETS:
        start = text.find(opening)
        end = text.find(closing, start + 1)
        if start >= 0 and end > start and "@" in (inner := text[start + 1:end].strip()) \
                and not any(c.isspace() for c in inner):
            return inner.removeprefix("mailto:")
    words = [w.strip(".").removeprefix("mailto:")
             for w in text.translate(ADDRESS_SEPARATORS).split() if "@" in w]
    return words[0] if len(set(words)) == 1 else text


def author_names(author: Any, email: str) -> bool:
    """Whether a front-matter `author` value names `email`: as a whole word (split at blanks
    and the separators around addresses), case-insensitively. "rita@ex.org" is not named by
    "margarita@ex.org", nor "wei@x" by "zhang.wei@x"."""
    email = email.strip().lower()
    words = str(author or "").lower().translate(AUTHOR_SEPARATORS).split()
    return bool(email) and email in (w.strip(".") for w in words)  # "… rita@ex.org." too


def reviewed_changes(repo: git.Repo, rev: str, path: str, non_content: frozenset[str],
                     lineage: Lineage | None = None) -> list[DocChange]:
    """`doc_changes` as review sees them: a merge is a change of its own unless some
    parent already had the merged content and verification; one that took a side's
    content with a verification no parent had (a reviewer verifying while merging) is a
    change against that side: it wrote the verification, not the content. `lineage`: the history read once
    for many documents (`kbtools.review.lineage`)."""
    def content(state: DocState) -> object:
        return content_key(state, non_content)

    def version(state: DocState) -> object:
        return content(state), verification(state)

    return changes_of(repo, rev, path, version, lineage, (content, verification))


def verification_event(change: DocChange) -> str | None:
    """"verified" when this commit (re)set verified: true, "unverified" when it dropped it."""
    before, after = change.before, change.after
    if after is None:
        return None
    if is_verified(after.meta) and (before is None
                                    or verification(before) != verification(after)):
        return "verified"
    if before is not None and is_verified(before.meta) and not is_verified(after.meta):
        return "unverified"
    return None


def last_verification(changes: list[DocChange]) -> int | None:
    """Index in `changes` (newest first) of the newest commit that set verified: true."""
    return next((i for i, ch in enumerate(changes) if verification_event(ch) == "verified"),
                None)


def since_verification(changes: list[DocChange], non_content: frozenset[str]
                       ) -> list[DocChange]:
    """Content-changing commits not yet covered by a verification (newest first)."""
    v = last_verification(changes)
    upto = len(changes) if v is None else v
    return [ch for ch in changes[:upto] if content_changed(ch, non_content)]


def unreviewed_change(changes: list[DocChange], non_content: frozenset[str]
                      ) -> DocChange | None:
    """The change that content awaiting review is credited to, as `kb review pending` and
    `kb review check` both name it: the oldest content-changing commit since the last
    verification (`since_verification`) that is not a merge, else the oldest one. A merge
    that combines a verified side with another side's edit carries that edit; the person
    whose words await review is the edit's author, not whoever merged it. A merge is named
    only when no edit of its own is listed (a conflict resolution: the merger wrote it)."""
    waiting = since_verification(changes, non_content)
    return next((ch for ch in reversed(waiting) if len(ch.commit.parents) < 2),
                waiting[-1] if waiting else None)


def covered_changes(changes: list[DocChange], v: int, non_content: frozenset[str]
                    ) -> list[DocChange]:
    """Content-changing commits covered by the verification at index `v` (newest first):
    those after the previous verification, up to and including `v`."""
    prev = last_verification(changes[v + 1:])
    end = len(changes) if prev is None else v + 1 + prev
    return [ch for ch in changes[v:end] if content_changed(ch, non_content)]


def cut_short(changes: list[DocChange], v: int | None) -> DocChange | None:
    """The `cut` change (a shallow clone's boundary) among those the verification at
    index `v` is judged on: itself and the content it covers. None when that history is
    complete. With no verification (`v` None) the whole history counts."""
    if v is None:
        return next((ch for ch in changes if ch.cut), None)
    prev = last_verification(changes[v + 1:])
    end = len(changes) if prev is None else v + 1 + prev
    return next((ch for ch in changes[v:end + 1] if ch.cut), None)


# The approval's record of what it approved: `kb review approve` writes one such line per
# document, with the digest of the document's content at the approval (`content_digest`).
CONTENT_TRAILER = "Kb-Reviewed-Content"
DIGEST_PREFIX = "sha256:"


def content_digest(state: DocState) -> str:
    """`sha256:<hex>` of what a reviewer approves of a document: its body and every
    front-matter field except the verification fields (kb.toml `non_content_fields` are
    included, so a later change of that list leaves every recorded digest valid)."""
    body, meta = state.key(frozenset(VERIFICATION_FIELDS))
    text = json.dumps([body.replace("\r\n", "\n"), meta], ensure_ascii=False)
    return DIGEST_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_trailer(state: DocState) -> str:
    """The commit-message line recording that `state` was approved."""
    return f"{CONTENT_TRAILER}: {content_digest(state)}"


@lru_cache(maxsize=64)
def recorded_digests(message: str) -> frozenset[str]:
    """The content digests a commit message records, from any of its lines: a squash
    (`git rebase -i`, GitHub's squash merge) keeps an approval's lines above the squash's
    own last paragraph, and they still say what the reviewer approved. Kept per message:
    one approval of many documents is read once, not once per document."""
    if CONTENT_TRAILER.lower() not in message.lower():
        return frozenset()
    return frozenset(d for d in map(record_digest, message.split("\n")) if d)


def record_digest(line: str) -> str | None:
    """The digest a `Kb-Reviewed-Content: sha256:<hex>` line records (lower-case, the line
    indented or not: `git merge --squash` indents every message it quotes), else None."""
    name, colon, value = line.strip().partition(":")
    if not colon or name.strip().lower() != CONTENT_TRAILER.lower():
        return None
    digest = value.strip().lower()
    hexpart = digest.removeprefix(DIGEST_PREFIX)
    if digest.startswith(DIGEST_PREFIX) and len(hexpart) == 64 and all(
            c in "0123456789abcdef" for c in hexpart):
        return digest
    return None


def approved_own_content(change: DocChange) -> bool:
    """The verifying commit records the content the document has at it: whatever the
    commit is (the approval itself, a rebase of it, a squash of the pull request it
    approved), its reviewer approved exactly this text."""
    return change.after is not None and \
        content_digest(change.after) in recorded_digests(change.commit.message)


def record_reviewers(change: DocChange, mailmap: Mailmap | None = None) -> list[str]:
    """The addresses (through `mailmap`) of the `Reviewed-by:` lines standing in the
    paragraph of the commit message that records the content the document has at the
    commit: the approval's own trailer block, wherever a squash put it (`git merge
    --squash` quotes it indented, GitHub's squash merge above its `Co-authored-by:`
    lines). [] when no paragraph records that content."""
    if change.after is None:
        return []
    digest = content_digest(change.after)
    for paragraph in re.split(r"\n\s*\n", change.commit.message):
        lines = [line.strip().translate(WIDE_BRACKETS) for line in paragraph.split("\n")]
        if digest in map(record_digest, lines):
            return [mapped(mailmap or {}, m["name"].strip(), m["email"].lower())
                    for m in map(TRAILER.match, lines) if m]
    return []


def approved_other_content(change: DocChange) -> bool:
    """The verifying commit records the content it approved, and the document at that
    commit is not it: the approval was cherry-picked, rebased or squashed onto a change its
    reviewer never saw. A commit recording nothing (an approval from before the record,
    or one written by hand) is judged by the other rules alone."""
    recorded = recorded_digests(change.commit.message)
    return bool(recorded) and change.after is not None and \
        content_digest(change.after) not in recorded


def recording_since(lineage: Lineage | None) -> datetime | None:
    """When the history of `lineage` began recording what approvals approve: the earliest
    commit time of a commit holding a `Kb-Reviewed-Content:` line. None when none does (a
    repository whose reviewers use a kb older than session 37) or no history could be read
    at once (a shallow clone, git failing). Read once per history."""
    if lineage is None:
        return None
    if not lineage.recording:
        lineage.recording.append(min((c.committed_at for c in lineage.commits.values()
                                      if recorded_digests(c.message)), default=None))
    return lineage.recording[0]


def rewritten_unrecorded(change: DocChange, since: datetime | None) -> bool:
    """The verifying commit records no content though it was written into a history that
    records it (committed at or after `since`, `recording_since`), and it was rewritten:
    committed after it was authored, as `git cherry-pick`, `git rebase` and `git commit
    --amend` leave a commit (`kb review approve` and a commit by hand are committed when
    authored). Such an approval may stand on any text: a rewrite that dropped the line (a
    reword, a tool rebuilding messages) or moved an older kb's approval cannot be told from
    one that kept its content. An approval committed as it was made keeps the other rules:
    a reviewer on an older kb, or verifying by hand, records nothing either."""
    commit = change.commit
    return since is not None and not recorded_digests(commit.message) \
        and commit.committed_at > commit.authored_at and commit.committed_at >= since


def reviewed_by(message: str) -> list[tuple[str, str]]:
    """`Reviewed-by: Name <email>` trailers from the message's last paragraph."""
    return trailers(message, TRAILER)


# the brackets of `Name <email>` as Chinese input writes them (full width)
WIDE_BRACKETS = str.maketrans({"\uff1c": "<", "\uff1e": ">"})


def trailers(message: str, kind: re.Pattern[str]) -> list[tuple[str, str]]:
    """(name, email) of the trailers `kind` matches in the message's last paragraph. The
    address may stand in full-width brackets (`Reviewed-by: 李明＜li.ming@x＞`, as Chinese
    input types them): git reads that line as the same trailer, and so does this."""
    paragraphs = [p for p in re.split(r"\n\s*\n", message.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return []
    out = []
    for line in unfolded(paragraphs[-1].split("\n")):  # git's lines, not U+2028 & co.
        m = kind.match(line.strip().translate(WIDE_BRACKETS))
        if m:
            out.append((m["name"].strip(), m["email"].lower()))
    return out


def unfolded(lines: list[str]) -> list[str]:
    """Trailer lines with git's continuation lines (those starting with a blank) joined to
    the line before, as `git interpret-trailers` reads a long `Name <email>`."""
    out: list[str] = []
    for line in lines:
        if out and line[:1] in (" ", "\t"):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return out


# a `.mailmap`: (email as committed, name as committed or "" for any) → the proper email,
# all lower-case, as git matches them
Mailmap = dict[tuple[str, str], str]
MAILMAP_NAME = ".mailmap"


def parse_mailmap(text: str) -> Mailmap:
    """The address mappings of a `.mailmap` (``Proper Name <proper@x> Name <old@x>``,
    ``<proper@x> <old@x>``), read as `git log --use-mailmap` reads them: addresses and
    names match in any case; a line naming one address maps only a name (nothing here)."""
    out: Mailmap = {}
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        open1, close1 = line.find("<"), line.find(">")
        open2 = line.find("<", close1 + 1) if close1 > open1 >= 0 else -1
        close2 = line.find(">", open2 + 1) if open2 >= 0 else -1
        if close2 < 0:
            continue
        proper = line[open1 + 1:close1].strip().lower()
        old = line[open2 + 1:close2].strip().lower()
        name = " ".join(line[close1 + 1:open2].split()).lower()
        if proper and old:
            out[old, name] = proper
    return out


def mapped(mailmap: Mailmap, name: str, email: str) -> str:
    """`email` (written by `name`; or a person as `address` reads one) as the mailmap names
    that person, lower-case."""
    email = address(email)
    key = " ".join(name.split()).lower()
    return mailmap.get((email, key)) or mailmap.get((email, "")) or email


def commit_author(change: DocChange, mailmap: Mailmap | None = None) -> str:
    """The address of the person who made the change's commit, through `mailmap`."""
    info = change.commit
    return mapped(mailmap or {}, info.author_name, info.author_email)


def authored_by(change: DocChange, email: str, mailmap: Mailmap | None = None) -> bool:
    """Whether `email` wrote the change's commit: its author, or a co-author named by a
    `Co-authored-by:` trailer (a squash merge names the pull request's other authors so),
    each as `mailmap` (a `.mailmap`) names them."""
    email = mapped(mailmap or {}, "", email)
    return bool(email) and (commit_author(change, mailmap) == email
                            or email in (mapped(mailmap or {}, n, e) for n, e in
                                         trailers(change.commit.message, CO_AUTHOR)))


def trailer_emails(change: DocChange, mailmap: Mailmap | None = None) -> list[str]:
    """The emails of the Reviewed-by trailers of the change's commit (through `mailmap`)."""
    return [mapped(mailmap or {}, name, email)
            for name, email in reviewed_by(change.commit.message)]


def parse_iso(value: Any) -> datetime | None:
    """An ISO 8601 timestamp with offset (verified_at), or None."""
    try:
        dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else None


def diff_lines(old: str, new: str) -> tuple[set[int], tuple[int, ...]]:
    """Lines of `new` (1-based) that are not matched, in order, by an equal line of `old`,
    and the positions p of `new` where lines of `old` were deleted (between p - 1 and p).

    Common leading and trailing lines are matched first, so the usual local edit costs
    linear time; difflib's junk heuristic bounds the rest on pathological inputs. Lines are
    numbered as an editor and blame number them (`text_lines`): the newline ending the last
    line starts no line of its own, which made a paragraph appended at the end "lines
    17-19" of an 18-line document."""
    a, b = text_lines(old), text_lines(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    changed: set[int] = set()
    deleted: list[int] = []
    if not mid_a:
        changed.update(range(head + 1, head + len(mid_b) + 1))
        return changed, ()
    if not mid_b:
        return changed, (head + 1,)
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, mid_a, mid_b).get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(head + j1 + 1, head + j2 + 1))
        elif tag == "delete":
            deleted.append(head + j1 + 1)
    return changed, tuple(deleted)


def text_lines(text: str) -> list[str]:
    """The lines of `text` as an editor numbers them: split at every newline, no empty line
    after a final newline ("a\nb\n" is ["a", "b"]; "a\nb" too; "\n" is [""]; "" is none)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
