"""`kb review record`: the `Kb-Reviewed-Content:` record for a verification made by hand.

`kb review approve` writes, in its commit message, the digest of each document it
approves (`verification.content_trailer`); a history rewrite that moves the approval onto
other text is refused by that record (`review-moved-approval`), one that keeps the text
stays verified. A reviewer who edits `verified`, `verified_by` and `verified_at` in their
editor and commits by hand wrote no record, so a rebase of that commit (`git pull
--rebase`) was `review-unrecorded-approval` whether or not the text changed under it.
Run as a `commit-msg` hook (`.pre-commit-hooks.yaml`: `kb-review-record`), this adds the
record to such a commit's message: for every document the commit being made sets
verified (the Git index holds it verified, with verification fields other than HEAD's),
the digest of the document as staged. A rebase that keeps the text then keeps the
approval; one onto an edit is refused naming the document.
"""

from __future__ import annotations

from pathlib import Path

import git

from kbtools.config import Config
from kbtools.docfiles import MARKDOWN_SUFFIX, OTHER_MARKDOWN_SUFFIXES
from kbtools.errors import ReviewError
from kbtools.gitobjects import git_reason, staged_changes
from kbtools.provenance import blob_texts, git_prefix, require_repo, state_from_text
from kbtools.review.verification import (
    VERIFICATION_FIELDS,
    content_trailer,
    is_verified,
    recorded_digests,
)


def staged_records(cfg: Config) -> list[tuple[str, str]]:
    """(document relative to the kb root, `Kb-Reviewed-Content: sha256:…` line) for each
    document of the knowledge folder that the commit being made sets verified: staged with
    `verified: true` and verification fields that HEAD's version lacks (a new or renamed
    document counts: HEAD has none under its name). In path order."""
    repo = require_repo(cfg.root)
    with repo:
        prefix = git_prefix(repo, cfg.root)
        knowledge = prefix + cfg.data["paths"]["knowledge"].strip("/") + "/"
        paths = staged_paths(repo, knowledge)
        staged = blob_texts(repo, [("", p) for p in paths])
        before = blob_texts(repo, [("HEAD", p) for p in paths])
    out = []
    for gpath, text, old in zip(paths, staged, before, strict=True):
        if text is None:
            continue
        state = state_from_text(text, gpath)
        if not state.ok or not is_verified(state.meta):
            continue
        if old is not None:
            was = state_from_text(old, gpath)
            if was.ok and all(was.meta.get(f) == state.meta.get(f) for f in VERIFICATION_FIELDS):
                continue  # verified as before: this commit is no approval of it
        out.append((gpath[len(prefix):], content_trailer(state)))
    return out


def staged_paths(repo: git.Repo, knowledge: str) -> list[str]:
    """The Markdown files under `knowledge` (from the top of the work tree) that the Git
    index adds or changes against HEAD; every staged one there in a first commit."""
    changes = staged_changes(repo)
    if changes is None:
        try:
            listed = repo.git.ls_files("-z", "--cached", "--", knowledge).split("\0")
        except git.GitCommandError as exc:
            raise ReviewError(f"cannot list the staged files: {git_reason(exc)}") from None
    else:
        listed = [path for _old, _new, status, path in changes if status in ("A", "M")]
    return sorted(p for p in listed if p.startswith(knowledge)
                  and Path(p).suffix.lower() in {MARKDOWN_SUFFIX, *OTHER_MARKDOWN_SUFFIXES})


def add_records(cfg: Config, message_file: Path) -> list[str]:
    """Append the records `staged_records` finds, and the message lacks, to the commit
    message in `message_file` as trailers (`git interpret-trailers --in-place`: after the
    message's trailer paragraph, above git's comment lines). Returns the lines added."""
    try:
        message = message_file.read_text("utf-8", errors="surrogateescape")
    except OSError as exc:
        raise ReviewError(f"cannot read the commit message: {exc.strerror}",
                          path=str(message_file)) from None
    have = recorded_digests(message)
    lines = [line for _rel, line in staged_records(cfg)
             if line.split(": ", 1)[1] not in have]
    lines = list(dict.fromkeys(lines))  # two copies of one text: one line
    if not lines:
        return []
    repo = require_repo(cfg.root)
    with repo:
        args = [a for line in lines for a in ("--trailer", line)]
        try:
            repo.git.interpret_trailers("--in-place", *args, str(message_file.resolve()))
        except git.GitCommandError as exc:
            raise ReviewError(f"cannot add the records to the commit message: "
                              f"{git_reason(exc)}", path=str(message_file)) from None
    return lines
