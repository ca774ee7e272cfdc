"""`verified` per chunk, decided at build time from Git history.

A chunk of a `verified: true` document is verified only when the review behind the
document still covers it (`kbtools.review.lapse.review_coverage`): none of its lines
changed after the review (blame and a line diff against the reviewed text), and the
reviewed text yields the very same chunk (same kind, heading path, text and embedded
text: a changed table header, caption or heading, or a deleted line inside the chunk,
make it differ). Each such chunk record gets

    "verification": {"verified": bool, "status": "verified"|"lapsed"|"unchecked",
                     "reason": str|None, "review": {"commit", "by", "at"}|None}

A chunk holding several sections (a small page kept whole: `extra["sections"]`, see
`kbtools.build.chunk_sections.section_parts`) gives each section its own facts, as `kb
read` gives them for its lines: a section's ``verification`` is judged by its own lines
(a section edited after the review lapses, its siblings stay verified; a change no line
locates lapses them all), and its ``provenance`` is the newest change to its lines. A
search citing one section of the chunk (`kbtools.query.cited_parts`) says those.

Chunks of other documents get no key (their records keep their bytes); the store marks
them unverified (`kbtools.index.store`). Where no history can be read (a build outside
Git, `--corpus`, a library build with `provenance=False`) nothing is proven: status
"unchecked", verified false. `kb watch` judges as a build does (`kbtools.build.history`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbtools import blame_runs as history
from kbtools.blame_runs import BlameRuns
from kbtools.build.chunk import ChunkConfig, chunk_document
from kbtools.build.records import Chunk
from kbtools.config import Config
from kbtools.corpus import SourceDoc, parse_source
from kbtools.gitbatch import batched
from kbtools.provenance import LineProvenance, open_repo
from kbtools.review.lapse import ReviewCoverage, review_coverage, unchecked
from kbtools.review.lineage import scan
from kbtools.review.verification import is_verified

OUTSIDE_GIT = "built outside Git: the review cannot be checked"
CORPUS = "built with --corpus: the review cannot be checked"
NO_HISTORY = "built without Git history: the review cannot be checked"

PARTS = "sections"  # a chunk's sections in its `extra` (`kbtools.build.chunk.with_parts`)

ChunkKey = tuple[str, tuple[str, ...], str, str]


def coverages(cfg: Config, sources: list[SourceDoc], blame: Mapping[str, Sequence[LineProvenance]],
              unchecked_reason: str | None = None) -> dict[str, ReviewCoverage]:
    """The review coverage of every `verified: true` document among `sources`;
    `unchecked_reason` (or a root outside Git) marks them all unchecked."""
    claimed = [s for s in sources if is_verified(s.meta)]
    if not claimed:
        return {}
    repo = open_repo(cfg.root) if unchecked_reason is None else None
    if repo is None:
        reason = unchecked_reason or OUTSIDE_GIT
        return {s.rel: unchecked(s.rel, reason) for s in claimed}
    with repo, batched(repo):
        lineage = scan(repo)  # the history read once for every verified document
        return {s.rel: review_coverage(repo, cfg, s.rel, s.text, blame.get(s.rel), lineage)
                for s in claimed}


def _key(c: Chunk) -> ChunkKey:
    return (c.kind, c.heading_path, c.text, c.embed_text)


def reviewed_chunks(cov: ReviewCoverage, src: SourceDoc, chunks: list[Chunk],
                    ccfg: ChunkConfig) -> set[ChunkKey]:
    """The chunks the reviewed text of document `src` yields, compared by content
    (`chunks`: those of its current text)."""
    if cov.reviewed_text is None:
        return set()
    if cov.reviewed_text == src.text:
        return {_key(c) for c in chunks}
    reviewed = parse_source(cov.reviewed_text, src.path, src.rel)
    return {_key(c) for c in chunk_document(reviewed, ccfg)}


def chunk_verification(cov: ReviewCoverage, chunk: Chunk, reviewed: set[ChunkKey]
                       ) -> dict[str, Any]:
    """The `verification` value of one chunk of a `verified: true` document."""
    reason = cov.line_reason(chunk.line_start, chunk.line_end)
    if reason is None and _key(chunk) not in reviewed:
        reason = cov.unlocated_reason()
    status = "verified" if reason is None else "lapsed" if cov.checked else "unchecked"
    return {"verified": reason is None, "status": status, "reason": reason,
            "review": cov.review.to_dict() if cov.review else None}


def with_section_facts(record: dict[str, Any], blame: BlameRuns | None,
                       cov: ReviewCoverage | None) -> None:
    """Give each section a chunk record lists (``extra["sections"]``) the `provenance`
    (from `blame`) and `verification` (from `cov`, for a `verified: true` document) of its
    own lines, beside the chunk's own; a new `extra`, the record's base (kept by the
    build memo) left as it was."""
    extra = record.get("extra") or {}
    parts = extra.get(PARTS)
    if not parts or (blame is None and cov is None):
        return
    located = cov is not None and cov.line_reason(record["line_start"],
                                                  record["line_end"]) is not None
    out = []
    for p in parts:
        p = dict(p)
        if blame is not None:
            p["provenance"] = history.chunk_provenance(blame, p["line_start"], p["line_end"])
        if cov is not None:
            chunk = record["verification"]
            # a change the chunk's lines do not locate (a header, a deleted line) is every part's
            reason = (cov.line_reason(p["line_start"], p["line_end"]) if located or
                      chunk["verified"] else chunk["reason"])
            status = "verified" if reason is None else "lapsed" if cov.checked else "unchecked"
            p["verification"] = {**chunk, "verified": reason is None, "status": status,
                                 "reason": reason}
        out.append(p)
    record["extra"] = {**extra, PARTS: out}


def section_facts(record: dict[str, Any]) -> list[Any]:
    """What `with_section_facts` added to a chunk record (for the build memo's digest)."""
    return [[p.get("provenance"), p.get("verification")]
            for p in (record.get("extra") or {}).get(PARTS, ())]


def lapsed(covs: dict[str, ReviewCoverage], records: list[dict[str, Any]],
           key_lines: Mapping[str, Mapping[str, int]] = {}) -> list[dict[str, Any]]:
    """Documents with chunks whose verification lapsed: doc, line (where `kb check` names
    the lapse, `ReviewCoverage.first_line`; `key_lines`: each document's front-matter key
    lines), chunks (lapsed) of (all), reason (the first lapsed chunk's), changed line
    ranges, review."""
    counts: dict[str, list[int]] = {}
    first: dict[str, str] = {}
    for r in records:
        v = r.get("verification")
        if v is None:
            continue
        n = counts.setdefault(r["doc"], [0, 0])
        n[1] += 1
        if not v["verified"]:
            n[0] += 1
            first.setdefault(r["doc"], v["reason"])
    out = []
    for doc, (bad, total) in sorted(counts.items()):
        if bad:
            summary = covs[doc].to_dict()
            out.append({"doc": doc, "line": covs[doc].first_line(key_lines.get(doc, {})),
                        "chunks": bad, "of": total, "reason": first[doc],
                        "lines": summary["lines"], "review": summary["review"]})
    return out
