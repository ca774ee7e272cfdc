"""Structure-first chunking: `chunk_document(src, cfg) -> list[Chunk]`.

Section chunks cover the whole body (every non-blank line is in at least one); a section
that fits stays whole (subsections included), a long one is cut at block boundaries, then
at paragraph, then sentence boundaries, with a one-sentence overlap; tiny neighbours merge
under their common parent heading. Finer chunks are added on top so retrieval can hit
either: list items (with sub-items), tables and each table row as `header: value` pairs,
code and formulas with the line before and after, Mermaid edges, images. Boundaries never
fall inside a code fence, a math block or a table row. See docs/chunking.md.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from kbtools.build.records import Chunk
from kbtools.build.xref import HeadingIndex, find_links
from kbtools.config import DEFAULTS, Config
from kbtools.corpus import SourceDoc
from kbtools.errors import ConfigError
from kbtools.markdown.doctree import (
    Block,
    Code,
    Document,
    Heading,
    Html,
    Image,
    ListBlock,
    ListItem,
    MathBlock,
    Paragraph,
    Quote,
    Section,
    Table,
    block_images,
    iter_blocks,
    parse,
)
from kbtools.markdown.mermaid import mermaid_graph, mermaid_text
from kbtools.render.formula import formula_relpath
from kbtools.render.table_csv import csv_name

CHUNKER_VERSION = "1"  # bump when output changes for the same input (index fingerprint)
PATH_SEP = " › "
CONTEXT_CHARS = 200  # a context line longer than this is cut at a sentence boundary
CAPTION_CHARS = 120  # a paragraph right before a table this short is its caption
KIND_ORDER = {k: i for i, k in enumerate(
    ("section", "list_item", "table", "table_row", "code", "mermaid", "formula", "image"))}
SENTENCE_END = re.compile(r"[。！？；!?]+[”’\"'」』）)\]]*|\.+[”’\"')\]]*(?=\s|$)|\n(?=\s*\n)")
CLAUSE_END = re.compile(r"[，、：,:;]\s*|\s+")
PROTECTED_INLINE = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$|`[^`\n]+`|\[[^\]\n]*\]\([^)\n]*\)", re.S)


@dataclass(frozen=True)
class ChunkConfig:
    """Sizes in characters (a CJK character counts one). Defaults: kbtools.config.DEFAULTS."""

    target_chars: int = DEFAULTS["chunk"]["target_chars"]
    max_chars: int = DEFAULTS["chunk"]["max_chars"]
    min_chars: int = DEFAULTS["chunk"]["min_chars"]
    overlap_chars: int = DEFAULTS["chunk"]["overlap_chars"]

    def __post_init__(self) -> None:
        if not (0 < self.min_chars <= self.target_chars <= self.max_chars):
            raise ConfigError("[chunk] needs 0 < min_chars <= target_chars <= max_chars, got "
                              f"{self.min_chars}, {self.target_chars}, {self.max_chars}")
        if not 0 <= self.overlap_chars < self.target_chars:
            raise ConfigError("[chunk] overlap_chars must be >= 0 and < target_chars")

    @classmethod
    def from_config(cls, cfg: Config) -> ChunkConfig:
        sec = cfg.section("chunk")
        try:
            return cls(**{k: int(sec.get(k, getattr(cls, k))) for k in
                          ("target_chars", "max_chars", "min_chars", "overlap_chars")})
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[chunk]: {exc}", path=str(cfg.root / "kb.toml")) from None

    @property
    def embed_cap(self) -> int:
        """Longest embed_text body (tables and code can be far longer than max_chars)."""
        return 2 * self.max_chars


@dataclass(frozen=True)
class Unit:
    start: int  # char offsets into the file text
    end: int
    block: Block | None = None
    sentence: bool = False


@dataclass(frozen=True)
class Piece:
    start: int
    end: int
    path: tuple[str, ...]
    split: bool = False  # produced by cutting a section (no merging across overlaps)


class _Text:
    """The file text with line <-> offset conversion (lines are 1-based)."""

    def __init__(self, lines: tuple[str, ...]):
        self.text = "\n".join(lines)
        self.starts = [0]
        for line in lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.lines = lines

    def start(self, line: int) -> int:
        return self.starts[line - 1]

    def end(self, line: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1])

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def trim(self, start: int, end: int) -> tuple[int, int]:
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end


def chunk_document(src: SourceDoc, cfg: ChunkConfig | None = None, *,
                   resolver: HeadingIndex | None = None, doc: Document | None = None) -> list[Chunk]:
    """All chunks of one document in document order. Never raises on any Markdown."""
    return _Chunker(src, doc or parse(src), cfg or ChunkConfig(), resolver).run()


class _Chunker:
    def __init__(self, src: SourceDoc, doc: Document, cfg: ChunkConfig,
                 resolver: HeadingIndex | None):
        self.src, self.doc, self.cfg = src, doc, cfg
        self.resolver = resolver or HeadingIndex.build([doc])
        self.t = _Text(doc.lines)
        self.protected = _protected_lines(doc)
        self.first_line = doc.body_line
        self.last_line = doc.root.line_end

    # --- output -------------------------------------------------------------------------
    def run(self) -> list[Chunk]:
        if not any(line.strip() for line in self.doc.lines[self.first_line - 1:]):
            return []
        pieces = _fill_gaps(self._pieces(self.doc.root), self.t, self.doc)
        out = [self.chunk("section", p.path, p.start, p.end) for p in pieces]
        section_texts = {c.text for c in out}
        extra: list[Chunk] = []
        for sec in self.doc.sections():
            for block in sec.blocks:
                extra.extend(self.fine(block, sec, sec.blocks))
        extra = [c for c in extra if c.text not in section_texts]
        chunks = sorted(out + extra, key=lambda c: (c.line_start, KIND_ORDER[c.kind], -c.line_end))
        return _with_parents(_unique_ids(chunks))

    def prefix(self, path: tuple[str, ...]) -> str:
        parts = list(path)
        if parts and parts[0] == self.doc.title:
            parts = parts[1:]
        return PATH_SEP.join([self.doc.title, *parts])

    def chunk(self, kind: str, path: tuple[str, ...], start: int, end: int, *,
              text: str | None = None, embed: str | None = None,
              extra: dict[str, Any] | None = None, link_span: tuple[int, int] | None = None) -> Chunk:
        start, end = self.t.trim(start, end)
        body = self.t.text[start:end] if text is None else text
        embed_body = body if embed is None else embed
        if len(embed_body) > self.cfg.embed_cap:
            embed_body = embed_body[: self.cfg.embed_cap].rstrip() + " …"
        embed_text = f"{self.prefix(path)}\n{embed_body}"
        ls, le = link_span or (start, end)
        links = find_links(self.t.text[ls:le], self.t.line_of(ls), self.doc, self.resolver)
        return Chunk(id="", doc=self.doc.rel, heading_path=tuple(path), kind=kind,
                     line_start=self.t.line_of(start), line_end=self.t.line_of(max(start, end - 1)),
                     text=body, embed_text=embed_text, metadata=dict(self.doc.meta),
                     content_hash=hashlib.sha256(embed_text.encode("utf-8")).hexdigest(),
                     links=links, extra=extra or {})

    # --- sections -----------------------------------------------------------------------
    def _pieces(self, sec: Section) -> list[Piece]:
        start, end = self.t.start(sec.line_start), self.t.end(sec.line_end)
        size = end - start
        if sec.level > 0 and (size <= self.cfg.target_chars
                              or (not sec.sections and size <= self.cfg.max_chars)):
            return [Piece(start, end, sec.heading_path)]
        units: list[Unit] = []
        if sec.heading is not None:
            units.append(self.block_unit(sec.heading))
        units.extend(self.block_unit(b) for b in sec.blocks)
        pieces = self.pack(units, sec.heading_path) if units else []
        for sub in sec.sections:
            pieces.extend(self._pieces(sub))
        return _merge_small(pieces, self.cfg)

    def block_unit(self, block: Block) -> Unit:
        return Unit(self.t.start(block.line_start), self.t.end(block.line_end), block)

    def children(self, u: Unit) -> list[Unit]:
        b = u.block
        if isinstance(b, Paragraph) or (u.sentence and u.end - u.start > self.cfg.max_chars):
            return self.sentences(u.start, u.end, fine=u.sentence)
        if isinstance(b, ListBlock):
            return [self.block_unit(i) for i in b.items]
        if isinstance(b, (ListItem, Quote)) and b.children:
            kids = [self.block_unit(c) for c in b.children]
            kids[0] = Unit(u.start, kids[0].end, kids[0].block)  # keep the marker line
            return kids
        if isinstance(b, Table) and b.rows:
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

    def pack(self, units: list[Unit], path: tuple[str, ...]) -> list[Piece]:
        cfg = self.cfg
        pieces: list[Piece] = []
        cur_start = cur_end = -1
        last: Unit | None = None
        for u in self.expand(units):
            if last is None:
                cur_start, cur_end, last = u.start, u.end, u
                continue
            grown = u.end - cur_start
            heading_only = isinstance(last.block, Heading) and last.start == cur_start
            if heading_only:
                pass  # a heading always stays with what follows it
            elif grown > cfg.max_chars or (grown > cfg.target_chars and cur_end - cur_start >= cfg.min_chars):
                pieces.append(Piece(cur_start, cur_end, path, split=True))
                overlap = self.overlap_start(last, cur_start)
                cur_start = overlap if overlap is not None else u.start
            cur_end, last = u.end, u
        if last is not None:
            pieces.append(Piece(cur_start, cur_end, path, split=len(pieces) > 0))
        if len(pieces) > 1 and pieces[-1].end - pieces[-1].start < cfg.min_chars \
                and pieces[-1].end - pieces[-2].start <= cfg.max_chars:
            pieces[-2:] = [Piece(pieces[-2].start, pieces[-1].end, path, split=True)]
        return pieces

    def overlap_start(self, last: Unit, piece_start: int) -> int | None:
        """Start of the last sentence of `last` when it is prose and short enough."""
        if self.cfg.overlap_chars <= 0:
            return None
        if not (last.sentence or isinstance(last.block, Paragraph)):
            return None
        sentences = self.sentences(last.start, last.end) if not last.sentence else [last]
        s = sentences[-1].start
        if s > piece_start and last.end - s <= self.cfg.overlap_chars:
            return s
        return None

    def sentences(self, start: int, end: int, fine: bool = False) -> list[Unit]:
        """Sentence units covering [start, end); protected inline spans are never cut."""
        text = self.t.text[start:end]
        guard = [(m.start(), m.end()) for m in PROTECTED_INLINE.finditer(text)]
        pattern = CLAUSE_END if fine else SENTENCE_END
        cuts = [m.end() for m in pattern.finditer(text)
                if not any(a < m.end() < b for a, b in guard)]
        out: list[Unit] = []
        prev = 0
        for cut in cuts + [len(text)]:
            if cut <= prev:
                continue
            if fine or cut - prev >= 2:
                out.append(Unit(start + prev, start + cut, sentence=True))
                prev = cut
        if prev < len(text):
            out.append(Unit(start + prev, end, sentence=True))
        if fine:  # no clause break in reach: hard cuts, so nothing exceeds max_chars
            hard: list[Unit] = []
            for u in out:
                a = u.start
                while u.end - a > self.cfg.max_chars:
                    hard.append(Unit(a, a + self.cfg.target_chars, sentence=True))
                    a += self.cfg.target_chars
                hard.append(Unit(a, u.end, sentence=True))
            out = hard
        return [Unit(*self.t.trim(u.start, u.end), sentence=True) for u in out
                if self.t.trim(u.start, u.end)[1] > self.t.trim(u.start, u.end)[0]] or \
            [Unit(start, end, sentence=True)]

    # --- finer chunks -------------------------------------------------------------------
    def fine(self, block: Block, sec: Section, siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        path = sec.heading_path
        if isinstance(block, ListBlock):
            yield from self.list_items(block, path, siblings)
        for inner in iter_blocks(block):
            if isinstance(inner, Table):
                yield from self.table_chunks(inner, path, siblings)
            elif isinstance(inner, Code):
                yield self.code_chunk(inner, path)
            elif isinstance(inner, MathBlock):
                yield self.formula_chunk(inner, path)
            for img in block_images(inner):
                yield self.image_chunk(img, inner, path)

    def list_items(self, lst: ListBlock, path: tuple[str, ...],
                   siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        if len(lst.items) < 2:
            return
        lead = self.lead_in(lst, siblings)
        for item in lst.items:
            start, end = self.t.trim(self.t.start(item.line_start), self.t.end(item.line_end))
            if end - start < max(20, self.cfg.min_chars // 3):
                continue
            body = self.t.text[start:end]
            yield self.chunk("list_item", path, start, end,
                             embed=f"{lead}\n{body}" if lead else body,
                             extra={"ordered": lst.ordered, "number": item.number,
                                    "checked": item.checked})

    def lead_in(self, block: Block, siblings: tuple[Block, ...]) -> str:
        """The short paragraph right before a list or table ("处理步骤：", "表 2 故障码")."""
        prev, anchor = None, block.line_start
        for b in siblings:
            if b is block:
                break
            if isinstance(b, Html) and b.is_comment:  # annotations sit between caption and table
                anchor = min(anchor, b.line_start)
            else:
                prev, anchor = b, block.line_start
        if isinstance(prev, Paragraph) and prev.line_end >= anchor - 2:
            s, e = self.t.trim(self.t.start(prev.line_start), self.t.end(prev.line_end))
            if e - s <= CAPTION_CHARS:
                return self.t.text[s:e]
        return ""

    def table_chunks(self, table: Table, path: tuple[str, ...],
                     siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        name = csv_name(self.doc.rel, table)
        caption = self.lead_in(table, siblings)
        start, end = self.t.start(table.line_start), self.t.end(table.line_end)
        whole = self.t.text[start:end]
        yield self.chunk("table", path, start, end,
                         embed=f"{caption}\n{whole}" if caption else whole,
                         extra={"csv": name, "table_index": table.index, "rows": len(table.rows)})
        header = [h or f"#{i + 1}" for i, h in enumerate(table.header)]
        for i, (row, line) in enumerate(zip(table.rows, table.row_lines, strict=True), start=1):
            pairs = [f"{header[j] if j < len(header) else f'#{j + 1}'}: {v}"
                     for j, v in enumerate(row) if v.strip()]
            if not pairs:
                continue
            text = "\n".join(pairs)
            s, e = self.t.start(line), self.t.end(line)
            yield self.chunk("table_row", path, s, e, text=text,
                             embed=f"{caption}\n{text}" if caption else text,
                             extra={"csv": name, "table_index": table.index, "row": i})

    def context_span(self, first: int, last: int) -> tuple[int, int]:
        """Offsets from the line before `first` to the line after `last` (non-blank ones)."""
        start, end = self.t.start(first), self.t.end(last)
        before = first - 1
        while before >= self.first_line and not self.t.lines[before - 1].strip():
            before -= 1
        if before >= self.first_line and before not in self.protected:
            s, e = self.t.start(before), self.t.end(before)
            start = s if e - s <= CONTEXT_CHARS else self.cut_tail(s, e)
        after = last + 1
        while after <= self.last_line and not self.t.lines[after - 1].strip():
            after += 1
        if after <= self.last_line and after not in self.protected:
            s, e = self.t.start(after), self.t.end(after)
            end = e if e - s <= CONTEXT_CHARS else self.cut_head(s, e)
        return start, end

    def cut_tail(self, s: int, e: int) -> int:
        """Start of the last sentences of a long line, within CONTEXT_CHARS."""
        for u in self.sentences(s, e):
            if e - u.start <= CONTEXT_CHARS:
                return u.start
        return e - CONTEXT_CHARS

    def cut_head(self, s: int, e: int) -> int:
        best = s + CONTEXT_CHARS
        for u in self.sentences(s, e):
            if u.end - s <= CONTEXT_CHARS:
                best = u.end
            else:
                break
        return best

    def code_chunk(self, code: Code, path: tuple[str, ...]) -> Chunk:
        start, end = self.context_span(code.line_start, code.line_end)
        extra: dict[str, Any] = {"language": code.language,
                                 "code_lines": [code.line_start, code.line_end]}
        if code.language == "mermaid":
            nodes, edges = mermaid_graph(code.content)
            extra.update(nodes=list(nodes), edges=[list(e) for e in edges])
            graph = mermaid_text(code.content)
            body = self.t.text[start:end]
            return self.chunk("mermaid", path, start, end, embed=f"{graph}\n{body}", extra=extra)
        return self.chunk("code", path, start, end, extra=extra)

    def formula_chunk(self, block: MathBlock, path: tuple[str, ...]) -> Chunk:
        start, end = self.context_span(block.line_start, block.line_end)
        latex = block.math.latex
        extra = {"latex": latex, "svg": formula_relpath(latex), "label": block.math.label,
                 "formula_lines": [block.line_start, block.line_end]}
        return self.chunk("formula", path, start, end, extra=extra)

    def image_chunk(self, img: Image, block: Block, path: tuple[str, ...]) -> Chunk:
        line = img.line if self.first_line <= img.line <= self.last_line else block.line_start
        s, e = self.t.start(line), self.t.end(line)
        rest = re.sub(r"!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>", "", self.t.text[s:e]).strip()
        if len(rest) < 8 and line not in self.protected:  # the image stands alone: add neighbours
            s, e = self.context_span(line, line)
        elif e - s > 2 * CONTEXT_CHARS:  # a long line: the sentences around the image
            pos = self.t.text.find(img.src, s, e)
            pos = pos if pos >= 0 else s
            s = max(s, self.cut_tail(s, pos) if pos - s > CONTEXT_CHARS else s)
            e = min(e, self.cut_head(pos, e))
        label = " ".join(x for x in (img.alt, img.title) if x)
        return self.chunk("image", path, s, e, embed=f"{label}\n{self.t.text[s:e]}",
                          extra={"src": img.src, "alt": img.alt, "title": img.title})


def _protected_lines(doc: Document) -> set[int]:
    """Lines inside multi-line atomic blocks (fences, math, HTML): never a cut or context."""
    out: set[int] = set()
    for _, block in doc.blocks():
        if isinstance(block, (Code, MathBlock, Html)) and block.line_end > block.line_start:
            out.update(range(block.line_start, block.line_end + 1))
    return out


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _merge_small(pieces: list[Piece], cfg: ChunkConfig) -> list[Piece]:
    """Merge a piece below min_chars into its neighbour (common parent heading path), up to
    max_chars; a tiny piece (a bare heading before a huge code block) merges regardless."""
    out: list[Piece] = []
    for p in pieces:
        if out:
            q = out[-1]
            least = min(q.end - q.start, p.end - p.start)
            fits = p.end - q.start <= cfg.max_chars or least < cfg.min_chars // 2  # tiny: always
            if least < cfg.min_chars and q.end <= p.start and fits:
                out[-1] = Piece(q.start, p.end, _common(q.path, p.path))
                continue
        out.append(p)
    return out


def _fill_gaps(pieces: list[Piece], t: _Text, doc: Document) -> list[Piece]:
    """Stretch pieces over lines no block claimed (link definitions, stray HTML)."""
    first = t.start(doc.body_line)
    if not pieces:  # only link definitions or similar: one chunk for what is there
        return [Piece(*t.trim(first, t.end(doc.root.line_end)), ())]
    out = list(pieces)
    out[0] = Piece(min(first, out[0].start), out[0].end, out[0].path, out[0].split)
    for i in range(len(out) - 1):
        p, q = out[i], out[i + 1]
        if t.text[p.end:q.start].strip():
            out[i] = Piece(p.start, t.trim(p.end, q.start)[1], p.path, p.split)
    last = out[-1]
    out[-1] = Piece(last.start, max(last.end, t.end(doc.root.line_end)), last.path, last.split)
    return out


def _unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    seen: dict[str, int] = {}
    out = []
    for c in chunks:
        base = "\x1f".join((c.doc, *c.heading_path, c.kind, c.text))
        cid = hashlib.sha256(base.encode("utf-8")).hexdigest()[:16]
        n = seen.get(cid, 0)
        seen[cid] = n + 1
        if n:
            cid = hashlib.sha256(f"{base}\x1f{n}".encode()).hexdigest()[:16]
        out.append(_replace_id(c, cid))
    return out


def _replace_id(c: Chunk, cid: str) -> Chunk:
    return replace(c, id=cid)


def _with_parents(chunks: list[Chunk]) -> list[Chunk]:
    """extra["parent"] of every finer chunk = id of the section chunk sharing most of its lines
    (for small-to-big retrieval: a hit on a row or item can be shown or fused as its section)."""
    sections = [c for c in chunks if c.kind == "section"]
    starts = [c.line_start for c in sections]
    out = []
    for c in chunks:
        if c.kind != "section" and sections:
            i = max(0, bisect.bisect_right(starts, c.line_start) - 1)
            best = max(sections[max(0, i - 2):i + 3], key=lambda s: (
                min(s.line_end, c.line_end) - max(s.line_start, c.line_start), -s.line_start))
            c = replace(c, extra={**c.extra, "parent": best.id})
        out.append(c)
    return out




