"""Finer chunks, added on top of the section chunks so retrieval can hit either.

One method per node kind (`FineChunks`): list items (with sub-items, after the list's
lead-in), tables (with their caption) and each table row as `header: value` pairs, code and
Mermaid diagrams and display formulas with the line before and after (`context_span`), and
images with the text around them. Context never reaches into a multi-line code fence, math
block, HTML block or table (its header or last row alone is half a table; a picture in an
HTML block of pictures and their words takes the lines around it in its block, as a
Markdown image would), nor past the end of the block's section: a heading after the block
belongs to the next section (or a subsection), so it is never the line after, nor is a
callout's title or a folded box's summary opening the next block; and a chunk's lines stay
inside the section its heading path names.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

from kbtools.build.chunk_text import ChunkMaker, unquoted
from kbtools.build.records import Chunk
from kbtools.decision.cell_text import normalize_cell
from kbtools.decision.documents import table_from_markdown
from kbtools.decision.model import DITTO_CELLS
from kbtools.errors import TableError
from kbtools.markdown.doctree import (
    Block,
    Code,
    Document,
    Heading,
    Html,
    Image,
    ListBlock,
    MathBlock,
    Paragraph,
    Quote,
    Table,
    block_images,
    iter_blocks,
)
from kbtools.markdown.figures import pictured_words
from kbtools.markdown.html_tags import IMG, TAG_BODY, TAG_REACH, start_tags, written_plainly
from kbtools.markdown.mermaid import mermaid_graph, mermaid_kind, mermaid_text
from kbtools.markdown.mermaid_kinds import READERS
from kbtools.markdown.nodes import Inline, Math
from kbtools.markdown.parser import CALLOUT
from kbtools.markdown.table_lines import without_quote_marks
from kbtools.render.formula import formula_relpath
from kbtools.render.table_csv import CsvNames

CONTEXT_CHARS = 200  # a context line longer than this is cut at a sentence boundary
CAPTION_CHARS = 120  # a paragraph right before a table this short is its caption
# Linear time: no part may read past the opener of the next attempt (`[`, `(`, `<`).
IMAGE_MARKUP = re.compile(rf"!\[[^\[\]]*\]\([^()]*\)|<[iI][mM][gG]\b{TAG_BODY}>")
# an `<img>` tag, which may be spread over lines (`<img\nsrc="a.png"\nalt="泵">`)
IMG_TAG = re.compile(rf"<img\b{TAG_BODY}>", re.I)


def protected_lines(doc: Document) -> set[int]:
    """Lines inside multi-line atomic blocks (fences, math, HTML, tables): never a cut or
    context."""
    out: set[int] = set()
    for _, block in doc.blocks():
        if (isinstance(block, (Code, MathBlock, Html, Table))
                and block.line_end > block.line_start):
            out.update(range(block.line_start, block.line_end + 1))
    return out


def opens_box(block: Html) -> bool:
    """Whether an HTML block opens a disclosure box and ends with its title
    (``<details>`` … ``<summary>扭矩</summary>``, Typora's and GitHub's folded box): the
    title, all a reader sees of the block, is to the list or table below it what a
    paragraph before them is (their lead-in)."""
    html = block.content.strip().lower()
    return "<details" in html and html.endswith("</summary>")


def title_lines(doc: Document, source: Callable[[int], str]) -> set[int]:
    """Lines that open a block with its title: an Obsidian callout's marker line
    (`> [!note] 注意事项`) and a one-line disclosure box opener (`<details><summary>扭矩
    </summary>`); `source(line)` is the line as written. Such a line is what the block
    below it is about, as a heading is its section's, so it is never the line after the
    block before it."""
    out: set[int] = set()
    for _, block in doc.blocks():
        if isinstance(block, Quote) and block.children \
                and isinstance(block.children[0], Paragraph) \
                and CALLOUT.match(without_quote_marks(source(block.line_start)).lstrip()):
            out.add(block.line_start)
        elif isinstance(block, Html) and opens_box(block):
            out.add(block.line_end)
    return out


def heading_lines(doc: Document) -> set[int]:
    """Lines of headings (both lines of a setext heading): the line after a block is never
    one, since it starts another section than the block's."""
    return {line for sec in doc.sections() if sec.heading is not None
            for line in range(sec.heading.line_start, sec.heading.line_end + 1)}


class FineChunks:
    """The finer chunks of one document, made with its `ChunkMaker`; table chunks name
    their CSV file from `csv_names`, the build's name map (default: this document's)."""

    def __init__(self, maker: ChunkMaker, csv_names: CsvNames | None = None):
        self.maker, self.t, self.cfg, self.doc = maker, maker.t, maker.cfg, maker.doc
        self.csv_names = csv_names or CsvNames.of_document(maker.doc.rel, maker.doc.tables())
        self.protected = protected_lines(maker.doc)
        self.headings = heading_lines(maker.doc) | title_lines(
            maker.doc, lambda line: self.t.text[self.t.start(line):self.t.end(line)])
        self.first_line = maker.doc.body_line
        self.last_line = maker.doc.root.line_end

    def all(self) -> Iterator[Chunk]:
        """Every finer chunk, section by section, block by block (a heading's pictures
        first: `## 泵的外观 ![泵](pump.png "外观图")` is a picture as a paragraph's is)."""
        for sec in self.doc.sections():
            if sec.heading is not None:
                heading = sec.heading
                yield from (self.image(img, heading, sec.heading_path)
                            for img in block_images(heading))
            for block in sec.blocks:
                yield from self.of_block(block, sec.heading_path, sec.blocks)

    def of_block(self, block: Block, path: tuple[str, ...],
                 siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        """The finer chunks of a section's block and of the blocks nested in it.

        A list or table in a quote (an Obsidian callout, `> [!warning] 安全`) is chunked
        as one at the section's level is, among the quote's own blocks: its lead-in is the
        paragraph before it there, which in a callout is the callout's title. A table nested
        in a list item keeps its section's caption (`lead_in`)."""
        if isinstance(block, ListBlock):
            yield from self.list_items(block, path, siblings)
        quoted = {id(child): inner.children for inner in iter_blocks(block)
                  if isinstance(inner, Quote) for child in inner.children}
        for inner in iter_blocks(block):
            if isinstance(inner, ListBlock) and id(inner) in quoted:
                yield from self.list_items(inner, path, quoted[id(inner)])
            if isinstance(inner, Table):
                yield from self.table(inner, path, quoted.get(id(inner), siblings))
            elif isinstance(inner, Code):
                yield self.code(inner, path)
            elif isinstance(inner, MathBlock):
                yield self.formula(inner, path)
            for img in block_images(inner):
                yield self.image(img, inner, path)

    # --- lists and tables ---------------------------------------------------------------
    def list_items(self, lst: ListBlock, path: tuple[str, ...],
                   siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        """Each item of a list of two or more, embedded after the list's lead-in."""
        if len(lst.items) < 2:
            return
        lead = self.lead_in(lst, siblings)
        for item in lst.items:
            start, end = self.t.trim(self.t.start(item.line_start), self.t.end(item.line_end))
            if end - start < max(20, self.cfg.min_chars // 3):
                continue
            body = self.t.shown(start, end)
            yield self.maker.chunk("list_item", path, start, end,
                                   embed=f"{lead}\n{body}" if lead else body,
                                   extra={"ordered": lst.ordered, "number": item.number,
                                          "checked": item.checked})

    def lead_in(self, block: Block, siblings: tuple[Block, ...]) -> str:
        """The short paragraph right before a list or table ("处理步骤：", "表 2 故障码").
        A table nested in a list item or callout is not among the section's `siblings`: it
        takes the section's last block when that is a short paragraph (which may be written
        after it). Measured against the alternatives (session 32, aliyun_ecs_zh nDCG@10):
        this 0.4581, no caption 0.4557, its own lead-in inside the item 0.4506."""
        prev: Block | None = None
        anchor = block.line_start
        for b in siblings:
            if b is block:
                break
            if isinstance(b, Html) and b.is_comment:  # annotations sit between caption and table
                anchor = min(anchor, b.line_start)
            else:
                prev, anchor = b, block.line_start
        if (isinstance(prev, Paragraph) or (isinstance(prev, Html) and opens_box(prev))) \
                and prev.line_end >= anchor - 2:
            s, e = self.t.trim(self.t.start(prev.line_start), self.t.end(prev.line_end))
            if e - s <= CAPTION_CHARS:  # (a quoted one read without its `>` markers)
                shown = self.t.shown(s, e).strip()
                return unquoted(shown) if shown.startswith(">") else shown
        return ""

    def table(self, table: Table, path: tuple[str, ...],
              siblings: tuple[Block, ...]) -> Iterator[Chunk]:
        """The whole table (after its caption), then each row."""
        name = self.csv_names.name(self.doc.rel, table)
        caption = self.lead_in(table, siblings)
        start, end = self.t.start(table.line_start), self.t.end(table.line_end)
        whole = self.t.shown(start, end)
        extra: dict[str, Any] = {"csv": name, "table_index": table.index, "rows": len(table.rows)}
        try:  # a decision table ships parsed, so search evaluates it without the Markdown
            rules = table_from_markdown(table, self.doc.lines)
        except TableError:  # malformed annotation: `kb check` reports it; not evaluated
            rules = None
        if rules is not None:  # the callouts holding it say what it is about, as headings do
            titles = tuple(c.title for c in self.maker.inside.get(table.line_start, ()))
            extra["decision"] = replace(rules, callouts=titles).to_record()
        yield self.maker.chunk("table", path, start, end,
                               embed=f"{caption}\n{whole}" if caption else whole, extra=extra)
        yield from self.table_rows(table, path, name, caption)

    def table_rows(self, table: Table, path: tuple[str, ...], name: str,
                   caption: str) -> Iterator[Chunk]:
        """Each non-empty row as `header: value` lines (a missing header is `#n`), a ditto
        mark read as the value it repeats (`read_dittos`)."""
        header = [h or f"#{i + 1}" for i, h in enumerate(table.header)]
        at = len(table.header)  # where the row's cells start among `table.cells`
        for i, (row, line) in enumerate(zip(read_dittos(table.rows), table.row_lines,
                                            strict=True), start=1):
            cells, at = table.cells[at:at + len(row)], at + len(row)
            pairs = [f"{header[j] if j < len(header) else f'#{j + 1}'}: {v}"
                     for j, v in enumerate(row) if v.strip()]
            if not pairs:
                continue
            text = "\n".join(pairs)
            extra: dict[str, Any] = {"csv": name, "table_index": table.index, "row": i}
            notes = self.row_notes((*table.cells[:len(table.header)], *cells))
            if notes:
                extra["notes"] = notes
            said = "\n".join([text, *(n["text"] for n in notes)])
            s, e = self.t.start(line), self.t.end(line)
            yield self.maker.chunk("table_row", path, s, e, text=text,
                                   embed=f"{caption}\n{said}" if caption else said,
                                   extra=extra)

    def row_notes(self, cells: Iterable[Inline]) -> list[dict[str, Any]]:
        """The footnotes a row's cells, and the header's above them, refer to (`见注[^1]`
        with `[^1]: 仅限夏季` anywhere in the document), each once: {label, line, text}. A
        row's chunk is searched with their words and cites them (`extra.notes`); its lines
        stay the row's."""
        labels = dict.fromkeys(label for cell in cells for label in cell.notes)
        return [{"label": label, "line": line, "text": text}
                for label in labels if label in self.doc.notes
                for line, text in [self.doc.notes[label]] if text]

    # --- code, formulas, images ---------------------------------------------------------
    def code(self, code: Code, path: tuple[str, ...]) -> Chunk:
        """A code block with its context; a Mermaid diagram is embedded as its graph too."""
        start, end = self.context_span(code.line_start, code.line_end)
        extra: dict[str, Any] = {"language": code.language,
                                 "code_lines": [code.line_start, code.line_end]}
        if code.language == "mermaid":
            nodes, edges = mermaid_graph(code.content)
            extra.update(nodes=list(nodes), edges=[list(e) for e in edges])
            graph = mermaid_text(code.content)
            body = self.t.shown(start, end)
            if graph and mermaid_kind(code.content) in READERS:
                # read whole by its type's reader: its lines (settings, dates, scores,
                # cardinalities) are no search text, the words around it are
                fence_start, fence_end = self.t.start(code.line_start), self.t.end(code.line_end)
                body = "\n".join(x for x in (self.t.shown(start, fence_start).strip(),
                                             self.t.shown(fence_end, end).strip()) if x)
            return self.maker.chunk("mermaid", path, start, end, embed=f"{graph}\n{body}",
                                    extra=extra)
        return self.maker.chunk("code", path, start, end, extra=extra)

    def formula(self, block: MathBlock, path: tuple[str, ...]) -> Chunk:
        start, end = self.context_span(block.line_start, block.line_end)
        latex = block.math.latex
        extra = {"latex": latex, "svg": formula_relpath(latex), "label": block.math.label,
                 "formula_lines": [block.line_start, block.line_end]}
        return self.maker.chunk("formula", path, start, end, extra=extra)

    def image(self, img: Image, block: Block, path: tuple[str, ...]) -> Chunk:
        """An image with its line: its neighbours too when it stands alone (in an HTML block
        of pictures and their words, the block's), only the sentences around it when the
        line is long; the whole HTML block when that is the picture with its caption
        (Typora's `<center><img …><br>图 1 …</center>` over lines)."""
        line = img.line if self.first_line <= img.line <= self.last_line else block.line_start
        last = self.tag_end(line)
        s, e = self.t.start(line), self.t.end(last)
        rest = IMAGE_MARKUP.sub("", written_plainly(self.t.text[s:e])).strip()  # (`alt="a<b"`)
        if isinstance(block, Heading):  # the heading: no words of the section above it
            s, e = self.t.start(block.line_start), self.t.end(block.line_end)
        elif isinstance(block, Html) and len(block.images) == 1 and \
                pictured_words(block.content):  # with the caption its wrapper holds
            s, e = self.t.start(block.line_start), self.t.end(block.line_end)
        elif isinstance(block, Html) and len(rest) < 8 and \
                pictured_words(block.content):  # among pictures and their words
            s, e = self.context_span(line, last, block)
        elif len(rest) < 8 and line not in self.protected:  # the image stands alone
            s, e = self.context_span(line, last)
        elif e - s > 2 * CONTEXT_CHARS:  # a long line: the sentences around the image
            pos = self.t.text.find(img.src, s, e)
            pos = pos if pos >= 0 else s
            s = max(s, self.cut_tail(s, pos) if pos - s > CONTEXT_CHARS else s)
            e = min(e, self.cut_head(pos, e))
        label = " ".join(x for x in (img.alt, img.title) if x)
        return self.maker.chunk("image", path, s, e, embed=f"{label}\n{self.t.shown(s, e)}",
                                extra={"src": img.src, "alt": img.alt, "title": img.title})

    def tag_end(self, line: int) -> int:
        """The last line of the `<img>` tags that open on `line` (`line` when none is spread
        over lines), within the chunk's lines."""
        s, e = self.t.start(line), self.t.end(line)
        written, end = self.t.text[s:e].lower(), e
        at = written.find("<img")
        while at != -1:  # each tag read to its `>`, or to the next `<`
            if m := IMG_TAG.match(self.t.text, s + at):
                end = max(end, m.end())
            elif (tags := start_tags(self.t.text[s + at:s + at + TAG_REACH], IMG)) and \
                    tags[0].start == 0:  # a value holding `<` (`alt="压力<5"`): as a browser
                end = max(end, s + at + tags[0].end)
            at = written.find("<img", at + 4)
        return min(self.last_line, self.t.line_of(end - 1)) if end > e else line

    # --- context ------------------------------------------------------------------------
    def context_span(self, first: int, last: int,
                     inside: Html | None = None) -> tuple[int, int]:
        """Offsets from the line before `first` to the line after `last` (the nearest ones a
        reader sees: not blank, nor only a hidden `%% comment %%`), when they hold a word;
        `inside`: the lines are in this HTML block of pictures and words, the context too
        (Typora's `<img>` lines with a caption line under each, no blank line between)."""
        start, end = self.t.start(first), self.t.end(last)
        lo, hi = (inside.line_start, inside.line_end) if inside else (self.last_line + 1, 0)
        before = first - 1
        while before >= self.first_line and not self.t.seen(before):  # (blank, or hidden)
            before -= 1
        if before >= self.first_line and (before not in self.protected or before >= lo) \
                and self.worded(before):
            s, e = self.t.start(before), self.t.end(before)
            start = s if e - s <= CONTEXT_CHARS else self.cut_tail(s, e)
        after = last + 1
        while after <= self.last_line and not self.t.seen(after):
            after += 1
        if (after <= self.last_line and (after not in self.protected or after <= hi)
                and after not in self.headings and self.worded(after)):
            s, e = self.t.start(after), self.t.end(after)
            end = e if e - s <= CONTEXT_CHARS else self.cut_head(s, e)
        return start, end

    def worded(self, line: int) -> bool:
        """Whether `line` as a reader sees it holds a word (a letter or digit, in any
        script) and is no footnote's: a thematic break (`***`, `---`) or an empty item
        (`- [ ]`) is markup between blocks, and a footnote definition (`[^1]: 见手册`, its
        label hidden by the parser) is shown at the page's end, neither text about the
        block beside it."""
        s, e = self.t.start(line), self.t.end(line)
        shown = self.t.shown(s, e)
        raw = without_quote_marks(self.t.text[s:e]).lstrip()
        close = raw.find("]")
        if raw.startswith("[^") and raw[close + 1:close + 2] == ":" \
                and not without_quote_marks(shown).lstrip().startswith("[^"):
            return False
        return any(ch.isalnum() for ch in shown)

    def cut_tail(self, s: int, e: int) -> int:
        """Start of the last sentences of a long line, within CONTEXT_CHARS."""
        for u in self.t.sentences(s, e, self.cfg):
            if e - u.start <= CONTEXT_CHARS:
                return u.start
        return e - CONTEXT_CHARS

    def cut_head(self, s: int, e: int) -> int:
        """End of the first sentences of a long line, within CONTEXT_CHARS."""
        best = s + CONTEXT_CHARS
        for u in self.t.sentences(s, e, self.cfg):
            if u.end - s <= CONTEXT_CHARS:
                best = u.end
            else:
                break
        return best


def unrendered_salt(formulas: Iterable[Math], unrendered: set[str]) -> str:
    """What a document's chunk key adds when some of its formulas did not render (a
    `--lenient` build): its formula chunks then name no SVG (`drop_unrendered`), so chunks
    kept from a build where they did render are not reused, nor the other way round."""
    gone = sorted({formula_relpath(m.latex) for m in formulas if m.latex in unrendered})
    if not gone:
        return ""
    return ":unrendered=" + hashlib.sha256("\n".join(gone).encode()).hexdigest()[:16]


def with_formulas(chunks: list[Chunk], doc: Document) -> list[Chunk]:
    """`chunks` with ``extra["formulas"]`` on each chunk but a formula chunk whose lines hold
    whole display formulas: ``{"svg", "line"}`` of each, in document order (a section
    holding a `$$` block shows its picture even where its formula chunk, the same text, is
    no chunk of its own or gives way to the section in a search)."""
    held = [(b.line_start, b.line_end, formula_relpath(b.math.latex)) for _, b in doc.blocks()
            if isinstance(b, MathBlock) and b.math.latex.strip()]
    if not held:
        return chunks
    held.sort()  # (document order is line order: disjoint blocks)
    firsts = [first for first, _, _ in held]
    out = []
    for c in chunks:  # the formulas starting in a chunk's lines are a run of `held`
        lo, hi = bisect_left(firsts, c.line_start), bisect_right(firsts, c.line_end)
        inside = [{"svg": svg, "line": first} for first, last, svg in held[lo:hi]
                  if last <= c.line_end]
        if inside and c.kind != "formula":
            c = replace(c, extra={**c.extra, "formulas": inside})
        out.append(c)
    return out


def drop_unrendered(chunks: list[Chunk], unrendered: set[str]) -> list[Chunk]:
    """`chunks` with the `svg` of each formula chunk, and the ``formulas`` entries of other
    chunks, whose formula did not render removed (in place): a chunk names only files its
    release holds."""
    gone = {formula_relpath(latex) for latex in unrendered}
    for c in chunks:
        if c.kind == "formula" and c.extra.get("svg") in gone:
            del c.extra["svg"]
        held = c.extra.get("formulas")
        if held and gone:
            kept = [f for f in held if f["svg"] not in gone]
            if kept:
                c.extra["formulas"] = kept
            else:
                del c.extra["formulas"]
    return chunks


def read_dittos(rows: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """`rows` with each cell that only says "as above" (`〃`, `同上`, `ditto`, `do.`,
    `DITTO_CELLS`) read as the value of the nearest filled cell above it in its column.
    Markdown has no merged cells and experts write a ditto mark instead; a row is a passage
    of its own, so "品种: 〃" would match no search for the variety it continues. A ditto
    with no value above stays as written; an empty cell stays empty (it may mean "none")."""
    above: dict[int, str] = {}
    out: list[tuple[str, ...]] = []
    for row in rows:
        cells = list(row)
        for j, cell in enumerate(cells):
            if normalize_cell(cell).casefold() in DITTO_CELLS:
                cells[j] = above.get(j, cell)
            elif cell.strip():
                above[j] = cell
        out.append(tuple(cells))
    return out
