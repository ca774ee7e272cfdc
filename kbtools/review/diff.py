"""`kb review diff`: what changed in a document since its last verification."""

from __future__ import annotations

import difflib
from typing import Any

from kbtools.config import Config
from kbtools.corpus import read_doc
from kbtools.errors import KbError, ReviewError
from kbtools.provenance import (
    DocChange,
    DocState,
    doc_rel,
    git_prefix,
    open_repo,
    require_repo,
)
from kbtools.review.drafts import on_draft_branch
from kbtools.review.lapse import refused_verification
from kbtools.review.lineage import scan
from kbtools.review.verification import (
    approved_other_content,
    content_digest,
    content_fields_changed,
    last_verification,
    non_content_fields,
    recorded_digests,
    recording_since,
    reviewed_changes,
    rewritten_unrecorded,
)


def review_diff(cfg: Config, doc: str) -> dict[str, Any]:
    """What changed in a document (working tree) since its last verification: a unified
    diff of the body plus the content front-matter fields that changed.

    {"doc", "verification": {commit, verified_by, verified_at} or None when never
    verified, "changed", "front_matter": {field: {old, new}}, "diff"}.
    """
    rel = doc_rel(cfg, doc)
    path = cfg.root / rel
    if not path.is_file():
        said = ""
        if (here := open_repo(cfg.root)) is not None:
            with here:
                said = on_draft_branch(here, git_prefix(here, cfg.root) + rel)
        raise KbError("no such document" + said, path=rel)
    nc = non_content_fields(cfg)
    repo = require_repo(cfg.root)
    with repo:
        prefix = git_prefix(repo, cfg.root)
        lineage = scan(repo, work_tree=False)  # its names on every line of the history
        changes = reviewed_changes(repo, lineage.head.sha if lineage else "HEAD",
                                   prefix + rel, nc, lineage)
        refused = refused_verification(repo, cfg, rel, lineage) \
            if last_verification(changes) is not None else None
    cur = read_doc(path, cfg.root)
    v = last_verification(changes)
    verified = changes[v] if v is not None else None
    if verified is not None and verified.cut:  # git shows the boundary as the verification
        raise ReviewError(f"its history stops at {verified.commit.short} (a shallow clone): "
                          "the text its reviewer verified is not fetched; fetch the full "
                          "history (git fetch --unshallow)", path=rel)
    if verified is None or verified.after is None:
        never = ("no verification in the fetched history: shallow clone"
                 if changes and changes[-1].cut else "never verified")
        base, label, info = DocState({}, "", "", True), f"{rel} ({never})", None
    elif approved_other_content(verified):
        # the approval was moved (cherry-pick, rebase, squash) onto content nobody reviewed:
        # what it approved is the newest earlier version its record names, else unknown
        meta = verified.after.meta
        older = changes[v + 1:] if v is not None else []
        base = approved_version(older, recorded_digests(verified.commit.message))
        found = "" if base.body or base.meta else "; the approved content is not in this history"
        info = {"commit": verified.commit.sha, "path": rel, "moved": True,
                "verified_by": meta.get("verified_by"), "verified_at": meta.get("verified_at")}
        label = (f"{rel} as approved by {meta.get('verified_by')} at "
                 f"{meta.get('verified_at')} (approval {verified.commit.short} moved onto "
                 f"other content{found})")
    elif rewritten_unrecorded(verified, recording_since(lineage)):
        # rewritten without its record (`review-unrecorded-approval`): what it approved is
        # unknown, so the whole document awaits the reviewer (it said "no change")
        meta = verified.after.meta
        base = DocState({}, "", "", True)
        info = {"commit": verified.commit.sha, "path": rel, "moved": True,
                "verified_by": meta.get("verified_by"), "verified_at": meta.get("verified_at")}
        label = (f"{rel} as approved by {meta.get('verified_by')} at "
                 f"{meta.get('verified_at')} (approval {verified.commit.short} rewritten "
                 "without its Kb-Reviewed-Content: what it approved is unknown)")
    elif refused is not None and refused[0].commit.sha == verified.commit.sha:
        # a verification no review backs (set by the document's author, copied with the
        # text of a document split from a verified one): nothing of it was reviewed here,
        # so the whole document awaits the reviewer (it said "no change")
        meta = verified.after.meta
        base = DocState({}, "", "", True)
        info = {"commit": verified.commit.sha, "path": rel, "refused": refused[1],
                "verified_by": meta.get("verified_by"), "verified_at": meta.get("verified_at")}
        label = (f"{rel} (verification {verified.commit.short} is no review: {refused[1]})")
    else:
        base = verified.after
        meta = base.meta
        # the name it had when verified (renamed since: that name, not today's)
        then = verified.path[len(prefix):] if verified.path.startswith(prefix) else rel
        info = {"commit": verified.commit.sha, "path": then,
                "verified_by": meta.get("verified_by"), "verified_at": meta.get("verified_at")}
        label = (f"{then}@{verified.commit.short} (verified by {meta.get('verified_by')} "
                 f"at {meta.get('verified_at')})")
    diff = "\n".join(difflib.unified_diff(
        base.body.split("\n") if base.body else [], cur.body.split("\n"),
        fromfile=label, tofile=f"{rel} (working tree)", lineterm=""))
    head = DocState(cur.meta, cur.body, "", not cur.errors, cur.key_lines)
    fields = ([k for k in content_fields_changed(head, base, nc) if k != "body"]
              if v is not None else [])
    return {"doc": rel, "verification": info, "changed": bool(diff) or bool(fields),
            "front_matter": {k: {"old": base.meta.get(k), "new": cur.meta.get(k)} for k in fields},
            "diff": diff}


def approved_version(older: list[DocChange], recorded: frozenset[str]) -> DocState:
    """The newest version among `older` (changes, newest first) whose content an approval
    recorded; an empty document when none is (the approval came from another history)."""
    for ch in older:
        for state in (ch.after, ch.before):
            if state is not None and content_digest(state) in recorded:
                return state
    return DocState({}, "", "", True)
