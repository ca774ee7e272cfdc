"""Where a string stands in a text: every start, overlapping ones included (``aa`` in ``aaa``
at 0 and 1). Shared by the build's cross references (newlines and 《》 marks,
`kbtools.build.xref`) and the query's term coverage (`kbtools.query.coverage`)."""

from __future__ import annotations


def occurrences(text: str, sub: str) -> list[int]:
    """Every index at which `sub` starts in `text`, in order, overlapping occurrences
    included (an empty `sub` starts at every index, 0 to ``len(text)``)."""
    out: list[int] = []
    at = text.find(sub)
    while at >= 0:
        out.append(at)
        at = text.find(sub, at + 1)
    return out
