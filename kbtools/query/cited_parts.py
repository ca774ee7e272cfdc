"""Which part of a passage a search cites: the section(s) of a chunk the question's words fall in.

A small page is one chunk, its H1 and every H2 below it (`kbtools.build.chunk_sections`:
a section that fits stays whole). Cited whole, a question answered by one of its H2s sends
the reader to the H1 and all the page's lines. Such a chunk records each section it holds
(``extra["sections"]``: heading path, lines, where its text lies in the chunk's text), and
a result citing it cites, and shows, the section(s) holding most of the question's words
it matched (heading path included); several equally good ones are cited as their span under
their common heading. A chunk matching no word of the question (found by meaning alone), or
whose words every section holds alike, is cited whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbtools.query.results import Citation

# the key of a section chunk's parts in its `extra` (written by `chunk_sections.section_parts`)
PARTS = "sections"


@dataclass(frozen=True)
class CitedPart:
    """What a result cites and shows of its chunk; ``why``: the chunk's own lines when only
    part of it is cited (``{"chunk_lines": [a, b]}``), else empty."""

    citation: Citation
    text: str
    why: dict[str, Any]


def cited_part(row: dict[str, Any], matched: list[str]) -> CitedPart:
    """The citation and text of chunk `row` (a store record) for a question whose words
    `matched` (as the chunk writes them) it holds."""
    whole = CitedPart(Citation(row["doc"], tuple(row["heading_path"]), row["line_start"],
                               row["line_end"]), row["text"], {})
    parts = (row.get("extra") or {}).get(PARTS)
    if not parts or not matched:
        return whole
    text: str = row["text"]
    words = [w.casefold() for w in matched if w.strip()]
    held = [sum(w in " ".join([*p["heading_path"], text[p["text"][0]:p["text"][1]]]).casefold()
                for w in words) for p in parts]
    most = max(held)
    best = [i for i, n in enumerate(held) if n == most]
    if most == 0 or len(best) == len(parts):
        return whole
    first, last = parts[best[0]], parts[best[-1]]
    path = _common(first["heading_path"], last["heading_path"])
    return CitedPart(Citation(row["doc"], path, first["line_start"], last["line_end"]),
                     text[first["text"][0]:last["text"][1]],
                     {"chunk_lines": [row["line_start"], row["line_end"]]})


def without_parts(extra: dict[str, Any]) -> dict[str, Any]:
    """A chunk's `extra` as a result gives it: without its parts, which index the chunk's
    text rather than the text the result shows."""
    return {k: v for k, v in extra.items() if k != PARTS} if PARTS in extra else extra


def _common(a: list[str], b: list[str]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return tuple(a[:n])
