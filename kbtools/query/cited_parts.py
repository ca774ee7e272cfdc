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

A search that shows verified text alone (``verified_only``, ``verified=true``) keeps such a
chunk when a part it would cite is verified (`verified_parts`: the filter's mask), and cites
only verified parts (`verified_part`): those holding the question's words,
the run of verified sections around the best; a chunk whose cited part would be unverified
(the question's words in the edited section alone, or it cited whole) is left out
(`kbtools.query.search`, which keeps the part it decided on for the result). A search
that shows unverified text alone (``verified=false``) keeps the chunk for its edited
section likewise, and cites only unverified parts (`judged_part`): never the verified
section beside them, a chunk whose question's words lie in verified sections alone left
out. The ranking weight of unverified text still weighs the chunk whole: its
score is its whole text's evidence, the edited section's words and meaning included.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.verdicts import changed_rank
from kbtools.query.fusion import Hit
from kbtools.query.results import Citation, shown_title
from kbtools.query.unknown import question_forms, shown_matched

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
    return _cited(row, matched, None) or _whole(row)


def verified_part(row: dict[str, Any], matched: list[str]) -> CitedPart | None:
    """`cited_part` of the verified parts of chunk `row` alone; None when what it would
    cite is not verified (the words in an edited section alone, or cited whole)."""
    return judged_part(row, matched, True)


def judged_part(row: dict[str, Any], matched: list[str], verified: bool) -> CitedPart | None:
    """`cited_part` of the parts of chunk `row` whose verdict is `verified` alone (a filter
    for verified, or for unverified, text); None when what it would cite has the other
    verdict. Unverified text alone: the edited sections holding the question's words, or
    the chunk whole when no word tells its sections apart (the whole is unverified)."""
    return _cited(row, matched, verified)


Rows = dict[int, dict[str, Any]]  # chunk number → chunk row of the store
Decided = dict[int, tuple[list[str], CitedPart]]  # chunk number → (words as written, cited)


def shown_words(index: KbIndex, asked: Mapping[str, str | None], meta: dict[str, Any],
                row: dict[str, Any], matched: list[str]) -> list[str]:
    """`matched` as the question writes them (`asked`: `unknown.question_forms`), and as
    chunk `row` (of the document with front matter `meta`) writes them too
    (`kbtools.query.unknown.shown_matched`): what a result lists and a display highlights
    in the original text, and what tells its sections apart (`cited_part`)."""
    shown = "\n".join([shown_title(meta, ""), *row["heading_path"], row["text"]])
    return shown_matched(index.bm25.tok.run_tokens, asked, shown, matched)  # run by run


def citing_judged(index: KbIndex, text: str, hits: list[Hit],
                  matched: Callable[[int], list[str]], rows: Rows, verified: bool
                  ) -> tuple[list[Hit], Decided]:
    """`hits` (under filters keeping text whose verdict is `verified` alone) without the
    chunks holding a verified and an unverified section (`verified_parts`) whose cited part
    would not have that verdict (`judged_part`: the question's words, `matched`, in
    sections of the other alone); and, per such chunk kept, the words as written and the
    part its result cites (the search's `_cite` takes them). The rows read join `rows`."""
    partly = verified_parts(index)
    check = [h.num for h in hits if partly[h.num]]
    if not check:
        return hits, {}
    if missing := [n for n in dict.fromkeys(check) if n not in rows]:
        rows.update(index.store.chunks(missing))
    index.store.complete(rows[n] for n in check)  # ranking rows read before, made whole
    asked = question_forms(index.bm25.tok.run_tokens, text,
                           list(dict.fromkeys(t for n in check for t in matched(n))))
    decided: Decided = {}
    for n in check:
        meta = (index.store.doc(rows[n]["doc"]) or {"metadata": {}})["metadata"]
        words = shown_words(index, asked, meta, rows[n], matched(n))
        if (part := judged_part(rows[n], words, verified)) is not None:
            decided[n] = (words, part)
    return [h for h in hits if not partly[h.num] or h.num in decided], decided


def _whole(row: dict[str, Any]) -> CitedPart:
    return CitedPart(Citation(row["doc"], tuple(row["heading_path"]), row["line_start"],
                              row["line_end"]), row["text"], {}, _facts(row, []))


def _cited(row: dict[str, Any], matched: list[str], want: bool | None) -> CitedPart | None:
    """The part of chunk `row` cited for words `matched`: of the parts whose verdict is
    `want` alone (None: of any), or None."""
    whole = _whole(row)
    if row.get("verified") is True and want is not None:
        if not want:
            return None  # every line of it is verified
        want = None
    # the chunk whole, when no part is cited alone: unverified, as the chunk is
    fallback = None if want else whole
    parts = (row.get("extra") or {}).get(PARTS)
    if want is False and not any(_part_verified(p) for p in parts or ()):
        want = None  # every line of it is unverified
    if not parts or not matched:
        return fallback
    text: str = row["text"]
    words = {w.casefold() for w in matched if w.strip()}
    held = [{w for w in words if w in " ".join(
        [*p["heading_path"], text[p["text"][0]:p["text"][1]]]).casefold()} for p in parts]
    telling = set[str]().union(*held) - held[0].intersection(*held[1:])  # not all hold
    if not telling:
        return fallback
    holders = {w: sum(w in h for h in held) for w in telling}
    weight = [sum(1 / holders[w] for w in h & telling) for h in held]
    most = max(len(h) for h in held)
    chosen = [i for i, h in enumerate(held) if len(h) == most]  # the most words, ties all
    covered = set[str]().union(*(held[i] for i in chosen)) & telling
    for i in sorted(range(len(parts)), key=lambda i: (-weight[i], i)):
        if held[i] & telling - covered:
            chosen.append(i)
            covered |= held[i] & telling
    if want is not None:
        chosen = _run_of(parts, chosen, want)
        if not chosen:
            return None
    elif min(chosen) == 0 and max(chosen) == len(parts) - 1:
        return whole
    span = parts[min(chosen):max(chosen) + 1]
    first, last = span[0], span[-1]
    return CitedPart(Citation(row["doc"], _holding(span), first["line_start"], last["line_end"]),
                     text[first["text"][0]:last["text"][1]],
                     {"chunk_lines": [row["line_start"], row["line_end"]]}, _facts(row, span))


def _run_of(parts: list[dict[str, Any]], chosen: list[int], want: bool) -> list[int]:
    """Of the parts `chosen` (best first), those in the run of consecutive parts whose
    verdict is `want` holding the best such part: a span cited whole, with no section of
    the other verdict inside; [] when none has it."""
    ok = [_part_verified(p) is want for p in parts]
    best = next((i for i in chosen if ok[i]), None)
    if best is None:
        return []
    first = last = best
    while first > 0 and ok[first - 1]:
        first -= 1
    while last + 1 < len(parts) and ok[last + 1]:
        last += 1
    return [i for i in chosen if first <= i <= last]


def _part_verified(part: dict[str, Any]) -> bool:
    """Whether the build found a part's own lines verified (`with_section_facts`)."""
    v = part.get("verification")
    return isinstance(v, dict) and v.get("verified") is True


_PARTLY: weakref.WeakKeyDictionary[KbIndex, np.ndarray] = weakref.WeakKeyDictionary()


def verified_parts(index: KbIndex) -> np.ndarray:
    """Per chunk, whether it is not verified but holds a verified section (a small page one
    of whose sections was edited after the review): kept by a filter for verified text,
    which then cites that section (`cited_part`). Read once per index."""
    if index not in _PARTLY:
        table = index.chunk_table()
        claimed = np.array([d["metadata"].get("verified") is True for d in index.docs()],
                           dtype=bool)  # lapsed chunks of reviewed documents: a few
        partly = np.zeros(len(table.verified), dtype=bool)
        lapsed = np.flatnonzero(~table.verified & claimed[table.doc]).tolist() \
            if len(claimed) else []
        for start in range(0, len(lapsed), 500):
            for num, row in index.store.chunks(lapsed[start:start + 500]).items():
                parts = (row.get("extra") or {}).get(PARTS) or ()
                partly[num] = any(_part_verified(p) for p in parts)
        partly.flags.writeable = False
        _PARTLY[index] = partly
    return _PARTLY[index]


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
