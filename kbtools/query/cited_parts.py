"""Which part of a passage a search cites: the section(s) of a chunk the question's words fall in.

A small page is one chunk, its H1 and every H2 below it (`kbtools.build.chunk_sections`:
a section that fits stays whole). Cited whole, a question answered by one of its H2s sends
the reader to the H1 and all the page's lines. Such a chunk records each section it holds
(``extra["sections"]``: heading path, lines, where its text lies in the chunk's text), and
a result citing it cites, and shows, the sections holding the question's words it matched
(heading paths included): those holding the most of them, then, while a word that tells
sections apart (not all of them hold it) is in none of those, the section holding most of
such words (a word fewer sections hold weighs more); several are cited as their span under
their common heading. A chunk matching no word of the question
(found by meaning alone), or whose words every section holds alike, is cited whole.

A result says the trust facts of the lines it cites, as `kb read` says them for those lines:
a cited section's own verification and last change (each part's, written by the build,
`kbtools.build.verified.with_section_facts`), not its chunk's: a sibling section edited
after the review does not lapse it, nor date it. Several sections are verified when each
is, and changed when the newest of them was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbtools.index.verdicts import changed_rank
from kbtools.query.results import Citation

# the key of a section chunk's parts in its `extra` (written by `chunk_sections.section_parts`)
PARTS = "sections"


@dataclass(frozen=True)
class CitedPart:
    """What a result cites and shows of its chunk; ``why``: the chunk's own lines when only
    part of it is cited (``{"chunk_lines": [a, b]}``), else empty; ``facts``: the cited
    lines' ``verified``, ``verification``, ``last_commit``, ``last_author`` and
    ``last_changed`` (the chunk's when it is cited whole)."""

    citation: Citation
    text: str
    why: dict[str, Any]
    facts: dict[str, Any]


def cited_part(row: dict[str, Any], matched: list[str]) -> CitedPart:
    """The citation and text of chunk `row` (a store record) for a question whose words
    `matched` (as the chunk writes them) it holds."""
    whole = CitedPart(Citation(row["doc"], tuple(row["heading_path"]), row["line_start"],
                               row["line_end"]), row["text"], {}, _facts(row, []))
    parts = (row.get("extra") or {}).get(PARTS)
    if not parts or not matched:
        return whole
    text: str = row["text"]
    words = {w.casefold() for w in matched if w.strip()}
    held = [{w for w in words if w in " ".join(
        [*p["heading_path"], text[p["text"][0]:p["text"][1]]]).casefold()} for p in parts]
    telling = set[str]().union(*held) - held[0].intersection(*held[1:])  # not all hold
    if not telling:
        return whole
    holders = {w: sum(w in h for h in held) for w in telling}
    weight = [sum(1 / holders[w] for w in h & telling) for h in held]
    most = max(len(h) for h in held)
    chosen = [i for i, h in enumerate(held) if len(h) == most]  # the most words, ties all
    covered = set[str]().union(*(held[i] for i in chosen)) & telling
    for i in sorted(range(len(parts)), key=lambda i: (-weight[i], i)):
        if held[i] & telling - covered:
            chosen.append(i)
            covered |= held[i] & telling
    if min(chosen) == 0 and max(chosen) == len(parts) - 1:
        return whole
    span = parts[min(chosen):max(chosen) + 1]
    first, last = span[0], span[-1]
    return CitedPart(Citation(row["doc"], _holding(span), first["line_start"], last["line_end"]),
                     text[first["text"][0]:last["text"][1]],
                     {"chunk_lines": [row["line_start"], row["line_end"]]}, _facts(row, span))


def _facts(row: dict[str, Any], span: list[dict[str, Any]]) -> dict[str, Any]:
    """The trust facts of parts `span` of chunk `row` (each part's own, when the build
    wrote them; else the chunk's): verified when every part is (the reason, the first
    lapsed part's), last changed as the newest part was."""
    judged = [p["verification"] for p in span if isinstance(p.get("verification"), dict)]
    changed: list[dict[str, Any]] = [p["provenance"] for p in span
                                     if isinstance(p.get("provenance"), dict)]
    out = {k: row.get(k) for k in ("verified", "verification", "last_commit", "last_author",
                                   "last_changed")}
    if judged and len(judged) == len(span):
        v = next((v for v in judged if not v["verified"]), judged[0])
        out.update(verified=bool(v["verified"]), verification={**(row.get("verification") or {}), **v})
    if changed and len(changed) == len(span):
        newest = max(changed, key=changed_rank)  # uncommitted first, then by date
        out.update(newest)
    return out


def without_parts(extra: dict[str, Any]) -> dict[str, Any]:
    """A chunk's `extra` as a result gives it: without its parts, which index the chunk's
    text rather than the text the result shows."""
    return {k: v for k, v in extra.items() if k != PARTS} if PARTS in extra else extra


def _holding(span: list[dict[str, Any]]) -> tuple[str, ...]:
    """The heading path of the section holding consecutive parts `span`: their paths'
    common start, above every section after the first (each part after the first opens a
    section, which ends any section of its level or deeper: two sibling `### 注意` sections
    lie under their parent, not under one of them)."""
    paths = [p["heading_path"] for p in span]
    n = min((len(p) - 1 for p in paths[1:]), default=len(paths[0]))
    while n and any(p[:n] != paths[0][:n] for p in paths):
        n -= 1
    return tuple(paths[0][:n])
