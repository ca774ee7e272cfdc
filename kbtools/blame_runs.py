"""A document's per-line blame kept as runs: lines in a row that one commit wrote.

`provenance.blame_lines` reads one `LineProvenance` per line; a watcher keeps every
document's blame between saves (`kbtools.build.history`), and at one object per line that
was ~84 MB for tidb-docs-cn's 232k lines. A document is mostly a few runs of lines of one
commit each, so `BlameRuns` keeps three numbers per run and each commit's fields once. It
is still the sequence of `LineProvenance` it was made from (in line order; an item is made
when read), and answers what the build asks of every chunk (`chunk_provenance`) and of
every document (`line_fields`, its reuse key) run by run, with the same answers as the
per-line definitions (tested).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from kbtools import provenance
from kbtools.provenance import NOT_FETCHED, UNCOMMITTED, LineProvenance

# a line's fields but its number: commit, author name and email, authored_at, committed_ts,
# authored_ts (`LineProvenance` in field order after `line`)
Who = tuple[str, str, str, str, int, int]


def _who(p: LineProvenance) -> Who:
    return (p.commit, p.author_name, p.author_email, p.authored_at, p.committed_ts,
            p.authored_ts)


class BlameRuns(Sequence[LineProvenance]):
    """The lines of `lines` (in line order, as blame gives them) as runs of consecutive
    line numbers with the same fields."""

    __slots__ = ("_first", "_last", "_start", "_who", "_len")

    def __init__(self, lines: Iterable[LineProvenance] = ()) -> None:
        self._first, self._last, self._start = array("q"), array("q"), array("q")
        whos: list[Who] = []
        seen: dict[Who, Who] = {}  # each commit's fields once
        n = 0
        for p in lines:
            who = _who(p)
            if whos and p.line == self._last[-1] + 1 and who == whos[-1]:
                self._last[-1] = p.line
            else:
                self._first.append(p.line)
                self._last.append(p.line)
                self._start.append(n)
                whos.append(seen.setdefault(who, who))
            n += 1
        self._who = tuple(whos)
        self._len = n

    @classmethod
    def of_commit(cls, n: int, line: LineProvenance) -> BlameRuns:
        """Lines 1..n, each with `line`'s fields (one commit wrote the file)."""
        runs = cls()
        if n > 0:
            runs._first.append(1)
            runs._last.append(n)
            runs._start.append(0)
            runs._who = (_who(line),)
            runs._len = n
        return runs

    def __len__(self) -> int:
        return self._len

    def _line(self, i: int) -> LineProvenance:
        r = bisect.bisect_right(self._start, i) - 1
        return LineProvenance(self._first[r] + i - self._start[r], *self._who[r])

    @overload
    def __getitem__(self, i: int) -> LineProvenance: ...

    @overload
    def __getitem__(self, i: slice) -> list[LineProvenance]: ...

    def __getitem__(self, i: int | slice) -> LineProvenance | list[LineProvenance]:
        if isinstance(i, slice):
            return [self._line(k) for k in range(*i.indices(self._len))]
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("blame line out of range")
        return self._line(i)

    def __iter__(self) -> Iterator[LineProvenance]:
        for first, last, who in zip(self._first, self._last, self._who, strict=True):
            for line in range(first, last + 1):
                yield LineProvenance(line, *who)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BlameRuns):
            return (self._first, self._last, self._who) == (other._first, other._last, other._who)
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"BlameRuns({self._len} lines in {len(self._who)} runs)"

    def runs(self) -> Iterator[tuple[int, int, Who]]:
        """(first line, last line, fields) of each run, in line order."""
        return zip(self._first, self._last, self._who, strict=True)

    def line_fields(self) -> Iterator[tuple[int, str, str, str, str, int, int]]:
        """Every line's fields in `LineProvenance`'s field order, without making the lines."""
        for first, last, who in self.runs():
            for line in range(first, last + 1):
                yield (line, *who)

    def chunk_provenance(self, line_start: int, line_end: int) -> dict[str, str | None]:
        """`provenance.chunk_provenance(list(self), line_start, line_end)`, run by run."""
        if line_start > line_end:
            return _NOTHING.copy()
        lo = bisect.bisect_left(self._last, line_start)
        hi = bisect.bisect_right(self._first, line_end)
        whos = self._who[lo:hi]
        if not whos:
            return _NOTHING.copy()
        if any(w[0] == UNCOMMITTED for w in whos):
            return {"last_commit": UNCOMMITTED, "last_author": UNCOMMITTED, "last_changed": None}
        whos = tuple(w for w in whos if w[0] != NOT_FETCHED)  # older than any fetched commit
        if not whos:
            return _NOTHING.copy()
        newest = max(whos, key=lambda w: (w[4], w[5]))  # the first of the newest, as per line
        return {"last_commit": newest[0], "last_author": newest[1], "last_changed": newest[3]}


_NOTHING: dict[str, str | None] = {"last_commit": None, "last_author": None,
                                   "last_changed": None}


def compact(blame: Sequence[LineProvenance]) -> BlameRuns:
    """`blame` as runs (itself when it already is)."""
    return blame if isinstance(blame, BlameRuns) else BlameRuns(blame)


def chunk_provenance(blame: Sequence[LineProvenance], line_start: int, line_end: int
                     ) -> dict[str, str | None]:
    """`provenance.chunk_provenance` of any blame, run by run when it is `BlameRuns`."""
    if isinstance(blame, BlameRuns):
        return blame.chunk_provenance(line_start, line_end)
    return provenance.chunk_provenance(list(blame), line_start, line_end)
