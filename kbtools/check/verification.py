"""`verification-lapsed`: verified documents whose text changed after their review.

`kb check` runs this inside a Git repository (`make_context(cfg, history=True)`): for every
checked document whose front matter says `verified: true`, `review_coverage` finds the
review behind it and what changed since. One warning per changed run of body lines (at its
first line, naming the range and who changed it), or one for the whole document when the
review itself does not hold (at its `verified_by` line when that is what is wrong: not a
reviewer, their own writing, an unattested commit; else its `verified` line) or its front
matter changed (at the first changed field's line), as `kb review check` names them. The
build serves exactly those passages as unverified (`kbtools.build.verified`); the warning
says so before a release does. Outside Git nothing is reported (the build then marks every
verified document unchecked).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kbtools.config import Config
from kbtools.corpus import decode, parse_source, read_source
from kbtools.errors import SourceError, line_span
from kbtools.findings import Finding, finding
from kbtools.gitbatch import batched
from kbtools.provenance import open_repo
from kbtools.review.lapse import ReviewCoverage, review_coverage
from kbtools.review.lineage import Lineage, scan
from kbtools.review.verification import is_verified, text_lines

CODE = "verification-lapsed"
AGAIN = "served as unverified until a reviewer approves it again (kb review approve)"
APPROVE = "(kb review approve"  # the advice a reason may end with already


def lapse_findings(cfg: Config, rels: list[str]) -> list[Finding]:
    """Warnings for the documents `rels` (relative to cfg.root) that are verified in their
    front matter but no longer (wholly) covered by their review. [] outside Git."""
    repo = open_repo(cfg.root)
    if repo is None:
        return []
    out: list[Finding] = []
    lineage: Lineage | None = None
    scanned = False
    with repo, batched(repo):  # one git process for every blob read
        for rel in rels:
            try:  # the same safe reader as the checks: no link out, no FIFO, bounded
                text, _ = decode(read_source(cfg.root / rel, cfg.root))
            except (SourceError, OSError):
                continue  # reported by the per-document checks
            src = parse_source(text, Path(rel), rel)
            if src.errors or not is_verified(src.meta):
                continue
            if not scanned:  # the history read once for every verified document
                lineage, scanned = scan(repo), True
            cov = review_coverage(repo, cfg, rel, text, lineage=lineage)
            out += coverage_findings(cov, src.key_lines, len(text_lines(text)))
    return out


def coverage_findings(cov: ReviewCoverage, key_lines: Mapping[str, int],
                      last_line: int | None = None) -> list[Finding]:
    """The warnings for one document's coverage (`key_lines`: the line of each front-matter
    key in the text judged, the work tree's, which may differ from the reviewed text's;
    `last_line`: how many lines it has, to say that lines were deleted at its end)."""
    if cov.reason is not None:
        return [finding(cov.doc, cov.first_line(key_lines), 1, "warning", CODE,
                        f"verification lapsed: {_then(cov.reason)}")]
    return [finding(cov.doc, a, 1, "warning", CODE,
                    f"{_where(cov, a, b, last_line)} of this verified document: {reason}; "
                    f"{AGAIN}") for a, b, reason in cov.ranges()]


def _then(reason: str) -> str:
    """`reason` and what it means for the release, its advice said once: a review refused
    for a moved or rewritten approval, or a squash, already ends with what to run (it said
    "(kb review approve DOC); served as unverified until a reviewer approves it again (kb
    review approve)")."""
    if APPROVE in reason:
        return f"{reason}; served as unverified until then"
    return f"{reason}; {AGAIN}"


def _where(cov: ReviewCoverage, a: int, b: int, last_line: int | None) -> str:
    """Lines a..b of a range of `cov.ranges()`, or where lines were deleted when that is
    all the range is (it spans the lines on both sides of the deletion: "lines 16-17"
    named an unchanged line 16, and a line 17 past the end of a 16-line document)."""
    if b != a + 1 or b not in cov.deleted or a in cov.changed or b in cov.changed:
        return line_span(a, b, "-")
    if last_line is not None and b > last_line:
        return f"lines deleted at the end (after line {a})"
    return f"lines deleted between lines {a} and {b}"
