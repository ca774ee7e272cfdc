"""Section chunks: the spans that together cover a document's whole body.

`section_pieces(doc, t, cfg)`: a section that fits stays whole (subsections included); a long
one is cut at block boundaries, then at paragraph, then sentence boundaries (`Sectioner`),
with a one-sentence overlap; tiny neighbours merge under their common parent heading
(`merge_small`); lines no block claimed join their neighbour (`fill_gaps`).
`section_parts`: where a chunk holding several sections (a small page's H1 and its H2s)
has each one's heading path, lines and text, so a search cites the one that answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from kbtools.build.chunk_fine import opens_box
from kbtools.build.chunk_text import ChunkConfig, SourceText, Unit
from kbtools.build.records import Chunk
from kbtools.markdown.doctree import (
    Block,
    Document,
    Heading,
    Html,
    ListBlock,
    ListItem,
    Paragraph,
    Quote,
    Section,
    Table,
)


@dataclass(frozen=True)
class Piece:
    """The span of one section chunk and the heading path it is filed under."""

    start: int
    end: int
    path: tuple[str, ...]
    split: bool = False  # produced by cutting a section (no merging across overlaps)
    # the first line of each section of `path`: two sibling sections may share a heading
    # path (two `### Leaks`), and a merge of them is filed under their parent, not under one
    lineage: tuple[int, ...] = ()


def section_pieces(doc: Document, t: SourceText, cfg: ChunkConfig) -> list[Piece]:
    """The section chunks' spans, in order, covering every non-blank line of the body."""
    return fill_gaps(Sectioner(t, cfg).pieces(doc.root), t, doc)


class Sectioner:
    """Cuts sections into pieces of about target_chars, never more than max_chars."""

    def __init__(self, t: SourceText, cfg: ChunkConfig):
        self.t, self.cfg = t, cfg

    def pieces(self, sec: Section, lineage: tuple[int, ...] = ()) -> list[Piece]:
        """The pieces of `sec`; `lineage` is its parent's (`Piece.lineage`)."""
        if sec.heading is not None:
            lineage = (*lineage, sec.line_start)
        start, end = self.t.start(sec.line_start), self.t.end(sec.line_end)
        size = end - start
        if sec.level > 0 and (size <= self.cfg.target_chars
                              or (not sec.sections and size <= self.cfg.max_chars)):
            return [Piece(start, end, sec.heading_path, lineage=lineage)]
        units: list[Unit] = []
        if sec.heading is not None:
            units.append(self.block_unit(sec.heading))
        units.extend(self.block_unit(b) for b in sec.blocks)
        pieces = self.pack(units, sec.heading_path, lineage) if units else []
        for sub in sec.sections:
            pieces.extend(self.pieces(sub, lineage))
        return merge_small(pieces, self.cfg)

    def block_unit(self, block: Block) -> Unit:
        return Unit(self.t.start(block.line_start), self.t.end(block.line_end), block)

    def children(self, u: Unit) -> list[Unit]:
        """The smaller units a too-long unit is cut into ([] when it cannot be cut)."""
        b = u.block
        if isinstance(b, Paragraph) or (u.sentence and u.end - u.start > self.cfg.max_chars):
            return self.t.sentences(u.start, u.end, self.cfg, fine=u.sentence)
        if isinstance(b, ListBlock):
            return [self.block_unit(i) for i in b.items]
        if isinstance(b, (ListItem, Quote)) and b.children:
            kids = [self.block_unit(c) for c in b.children]
            kids[0] = Unit(u.start, kids[0].end, kids[0].block)  # keep the marker line
            return kids
        if isinstance(b, Table) and b.rows:  # the header stays with the first row
            first = Unit(u.start, self.t.end(b.row_lines[0]))
            return [first] + [Unit(self.t.start(n), self.t.end(n)) for n in b.row_lines[1:]]
        return []

    def expand(self, units: list[Unit]) -> Iterator[Unit]:
        for u in units:
            kids = self.children(u) if u.end - u.start > self.cfg.max_chars else []
            if len(kids) > 1 or (kids and kids[0] != u):
                yield from self.expand(kids)
            else:
                yield u

    def pack(self, units: list[Unit], path: tuple[str, ...],
             lineage: tuple[int, ...] = ()) -> list[Piece]:
        """Consecutive units packed into pieces; a heading, or a box's title, always stays with
        what follows (`titles`)."""
        cfg = self.cfg
        pieces: list[Piece] = []
        # before: the end of the unit before `last`; first: the start of the piece's first
        # unit (after the sentence it repeats from the piece before, if any)
        cur_start = cur_end = before = first = -1
        last: Unit | None = None
        for u in self.expand(units):
            if last is None:
                cur_start, cur_end, last, first = u.start, u.end, u, u.start
                continue
            grown = u.end - cur_start
            title = titles(last.block)
            if not (title and last.start == first) and (grown > cfg.max_chars or (
                    grown > cfg.target_chars and cur_end - cur_start >= cfg.min_chars)):
                if title:  # a box's title goes with the box's text, into the next piece
                    pieces.append(Piece(cur_start, before, path, True, lineage))
                    cur_start = first = last.start
                else:
                    pieces.append(Piece(cur_start, cur_end, path, True, lineage))
                    overlap = self.overlap_start(last, cur_start)
                    cur_start = overlap if overlap is not None else u.start
                    first = u.start
            before, cur_end, last = cur_end, u.end, u
        if last is not None:
            pieces.append(Piece(cur_start, cur_end, path, len(pieces) > 0, lineage))
        if len(pieces) > 1 and pieces[-1].end - pieces[-1].start < cfg.min_chars \
                and pieces[-1].end - pieces[-2].start <= cfg.max_chars:
            pieces[-2:] = [Piece(pieces[-2].start, pieces[-1].end, path, True, lineage)]
        return pieces

    def overlap_start(self, last: Unit, piece_start: int) -> int | None:
        """Start of the last sentence of `last` when it is prose and short enough."""
        if self.cfg.overlap_chars <= 0:
            return None
        if not (last.sentence or isinstance(last.block, Paragraph)):
            return None
        sentences = self.t.sentences(last.start, last.end, self.cfg) if not last.sentence \
            else [last]
        s = sentences[-1].start
        if s > piece_start and last.end - s <= self.cfg.overlap_chars:
            return s
        return None


def titles(block: Block | None) -> bool:
    """Whether `block` is a title of what follows it, never cut from it: a heading, or the
    opener of a disclosure box (``<details><summary>故障排查</summary>``: all a reader sees
    of it until it is opened, `opens_box`)."""
    return isinstance(block, Heading) or (isinstance(block, Html) and opens_box(block))


def common_parent(a: Piece, b: Piece) -> Piece:
    """The span of `a` and `b` (in this order) filed under the deepest section holding both:
    sections are told apart by their lines, not their headings, so two sibling `### Leaks`
    merge under their parent."""
    n = 0
    while n < min(len(a.lineage), len(b.lineage)) and a.lineage[n] == b.lineage[n]:
        n += 1
    return Piece(a.start, b.end, a.path[:n], lineage=a.lineage[:n])


def merge_small(pieces: list[Piece], cfg: ChunkConfig) -> list[Piece]:
    """Merge a piece below min_chars into its neighbour (common parent heading path), up to
    max_chars; a tiny piece (a bare heading before a huge code block) merges regardless, but
    only into a piece no tiny piece has yet pushed past max_chars: a run of 100,000 empty
    sections made one chunk of the whole document."""
    out: list[Piece] = []
    over = False  # out[-1] is past max_chars by a tiny piece merged into it
    for p in pieces:
        if out:
            q = out[-1]
            least = min(q.end - q.start, p.end - p.start)
            within = p.end - q.start <= cfg.max_chars
            fits = within or (least < cfg.min_chars // 2 and not over)  # tiny: once
            if least < cfg.min_chars and q.end <= p.start and fits:
                out[-1] = common_parent(q, p)
                over = over or not within
                continue
        out.append(p)
        over = False
    return out


def fill_gaps(pieces: list[Piece], t: SourceText, doc: Document) -> list[Piece]:
    """Stretch pieces over lines no block claimed (link definitions, stray HTML)."""
    first = t.start(doc.body_line)
    if not pieces:  # only link definitions or similar: one chunk for what is there
        return [Piece(*t.trim(first, t.end(doc.root.line_end)), ())]
    out = list(pieces)
    out[0] = replace(out[0], start=min(first, out[0].start))
    for i in range(len(out) - 1):
        p, q = out[i], out[i + 1]
        if t.text[p.end:q.start].strip():
            out[i] = replace(p, end=t.trim(p.end, q.start)[1])
    last = out[-1]
    out[-1] = replace(last, end=max(last.end, t.end(doc.root.line_end)))
    return out


def section_parts(doc: Document, t: SourceText, chunk: Chunk, begin: int, finish: int
                  ) -> list[dict[str, object]]:
    """The sections a section chunk (of the text in [begin, finish)) holds, when it holds
    more than one (a small page kept whole, tiny neighbours merged, the tail of a long
    section cut mid-line with a small subsection after it), each as ``{"heading_path",
    "line_start", "line_end", "text": [a, b]}``: its own part (heading and blocks up to its
    first subsection) within the chunk's span, and where that part's text lies in the
    chunk's `text` (`text[a:b]`). A search citing the chunk cites the part(s) the
    question's words fall in (`kbtools.query.cited_parts`). [] when the chunk lies within
    one section, or when a part's text is not found in the chunk's as written (no part is
    then cited alone)."""
    parts: list[dict[str, object]] = []
    at = 0
    for sec in doc.root.walk():
        first = max(sec.line_start, chunk.line_start)
        last = min(sec.own_end, chunk.line_end)
        if first > last:
            continue
        start, end = t.trim_unseen(max(t.start(first), begin), min(t.end(last), finish))
        text = t.dedented(start, t.shown(start, end)).strip() if start < end else ""
        if not text:
            continue
        found = chunk.text.find(text, at)
        if found < 0:
            return []
        at = found + len(text)
        parts.append({"heading_path": list(sec.heading_path), "line_start": t.line_of(start),
                      "line_end": t.line_of(max(start, end - 1)), "text": [found, at]})
    return parts if len(parts) > 1 else []
