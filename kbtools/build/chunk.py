"""Structure-first chunking: `chunk_document(src, cfg) -> list[Chunk]`.

Section chunks cover the whole body (every line with text a reader sees is in at least one;
HTML markup alone makes no chunk); a section that fits stays whole (subsections included), a
long one is cut at block boundaries, then at paragraph, then sentence boundaries, with a
one-sentence overlap; tiny neighbours merge under their common parent heading
(`kbtools.build.chunk_sections`). Finer chunks are added on top so retrieval can hit either
(`kbtools.build.chunk_fine`): list items (with sub-items), tables and each table row as
`header: value` pairs, code and formulas with the line before and after, Mermaid edges,
images. Boundaries never fall inside a code fence, a math block or a table row. Settings and
the Chunk factory: `kbtools.build.chunk_text`. An Obsidian Excalidraw drawing
(`kbtools.markdown.drawings`) yields its Text Elements' words alone, a section chunk each
under the drawing's name: never its banner, links or compressed JSON.
See docs/chunking.md.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import replace

from kbtools.build.chunk_fine import FineChunks, with_formulas
from kbtools.build.chunk_sections import section_parts, section_pieces
from kbtools.build.chunk_text import ChunkConfig, ChunkMaker
from kbtools.build.records import Chunk
from kbtools.build.xref import HeadingIndex
from kbtools.corpus import SourceDoc
from kbtools.markdown.doctree import Document, parse
from kbtools.markdown.drawings import drawing_name, is_drawing, text_elements
from kbtools.render.table_csv import CsvNames

CHUNKER_VERSION = "47"  # bump when output changes for the same input (index fingerprint)
# 3: `<` and `>` of text and code spans are kept in headings, cells and rows; 4: lines are
# counted through code spans, inline math and tags written over several lines; 5: a `$$`
# block right after a line of text is a display formula with its own chunk; 6: decision
# tables shipped on table chunks read worded conditions and dashes, and a cell in another
# unit than its column's makes a table no rule; a ```latex or ```tex fence is a code chunk;
# a block at a section's end takes no heading as its line after; 7: two small sibling
# sections of one heading text merge under their parent; 8: a decision cell of two
# comparisons joined (above 4 and at most 8) is one interval, so such a table ships parsed,
# and `==highlight==` markers are no text of headings, cells and rows; reference links
# (`[text][label]`, `[label][]`, `[label]` with `[label]: x.md#y`) are chunk links as inline
# links are; 9: an Obsidian block id (`^id`) ending a heading is no part of its heading path,
# and chunk text leaves out the HTML tags and comments a reader does not see; footnotes:
# `[^1]` is no text of headings, cells, rows or chunks, a definition's paragraphs indented
# four spaces are no code chunk; a piece of HTML markup alone (an editor's note, `<video>`
# tags) is no chunk; 10: chunk text leaves out Obsidian block ids, a heading's `{#id}`, footnote
# definition labels and `<script>`/`<style>` contents, and shows entities as their character;
# 11: decision cells `30 ℃ 以上` and `6.5以下(不含)` are bounds (the latter was "= 6.5"),
# and formulas (`2.8 < v ≤ 7.1`) intervals, so tables of them ship parsed; a table with
# an input cell saying "as above" (`同上`, `〃`) ships unparsed (malformed); the minus sign
# `−5` is a minus and `≥7¹` no number (it was ≥71); bounds in Chinese numerals (`三天以下`);
# `8 max`, `4 minimum` bounds (they were the numbers 8 and 4); a header's unit after a space
# (`Temp °C`, `Vibration mm/s`) is its unit (an inferred table in °F cells is then no rule);
# 12: a run of tiny sections merges into one piece past max_chars once, not into one chunk
# of the whole document; 13: chunk text leaves out invisible characters (zero-width space,
# soft hyphen, BOM); `<script>`/`<style>` contents are no heading or row text; an escaped
# `\{#x}` ending a heading is text; 14: decision cells in m²/㎡/m³, bounds written one after
# the other (`4以上8以下`), interval notation (`[5, 8)`) and `N/A` (any value) read as rules;
# a decision table's record carries the links of its cells (`links`); 15: Typora's `[TOC]`
# paragraph is no chunk text (the page shows the headings' list there); 18: a chunk (not a
# formula's) whose lines hold display formulas names their SVGs (`extra["formulas"]`);
# 20: an Obsidian callout's marker (`> [!warning]-`) is no chunk text (its title, or the
# type's name as written when it has none, `[!TIP]` reads `TIP`, as the page titles it);
# an inline footnote `^[note]` reads `(note)` in place, as the page shows it; an `<img>`
# tag in a heading or cell reads its `alt`, as `![alt](src)` does
# 21: Obsidian `%% comments %%` (inline, or over several lines) are no text of chunks,
# headings, cells, rows or CSV files, and a heading or table inside one is none
# 22: a link to a repeated heading's anchor (`#注意事项-1`, GitHub's de-duplication) names
# that heading in the chunk's links (it named none, or a heading written `注意事项-1`)
# 23: a heading's own number (`# 第4章 故障诊断`, `## Chapter 5 …`) is no cross reference
# 24: 22's repeated headings counted in quotes and list items too (`> ## 注意事项`), as GitHub
# 25: (23) a heading saying 见/参见 (`## 参见 4.1 节`) keeps its reference
# 26: English numbered headings (`## Chapter 5 …`, `### Section 5.2 …`) and full-width digits
# (`见４.１节`, `# 第４章`) numbered and resolved as `第5章`, `见5.2节` are
# 27: a chunk's lines start and end at lines a reader sees: a code block's (formula's,
# picture's) context line is the nearest one not blank nor a hidden `%% comment %%`
# 28: a link names the anchor its heading's page gives it (`Link.anchor`: `#注意事项-1`)
# 29: each picture of an HTML block (Typora's `<p align="center">` around one `<img>` a
# line) has its image chunk at its own line (they all had the block's first line); a
# paragraph is not cut inside a quotation (“…”, 「…」) shorter than target_chars
# 30: a table in a callout or list item is captioned by the paragraph before it there (it
# took its section's last short paragraph, even one after it); a quote's blank line (`>`)
# is no line a reader sees: no chunk starts or ends on it, nor is it a line before or after
# 31: a table in a callout or list item is captioned as in 29 (30's lead-in inside the
# item cost aliyun_ecs_zh nDCG@10 0.4581 -> 0.4506, no caption 0.4557); the `>` lines stay
# 32: a table row's cell saying only "as above" (`〃`, `同上`, `ditto`) reads the value of
# the filled cell above it in the row's chunk text (the CSV and the table keep it as written)
# 33: an Obsidian block id on a line of its own right below its block (`…\n^id`, the
# callout's, list's or paragraph's last line to Markdown) is no chunk text (session 34)
# 34: a list in a quote or callout has its list item chunks, after the paragraph before it
# there (a callout's title); a table in one is captioned so; a list or table right after a
# `<details><summary>` box's title is led in by it; a chunk starting inside a callout below
# its title embeds the title first (an outer callout's too), as a heading (session 35)
# 35: a decision table in a callout ships the titles of the callouts holding it
# (`callouts`), which say what it is about as a heading does; a picture whose HTML block
# holds its caption over several lines (Typora's `<center>` … `<br>` … `图 1 …`) has an image
# chunk of the block's lines, the caption with it (it had the `<img>` line alone) (session 36)
# 36: a code block's or formula's line after is never the next callout's title or a folded
# box's `<summary>` line, nor is its line before or after one without a word (`***`, `---`,
# `- [ ]`) or a footnote definition; a highlight's `==` marks are no chunk text; a formula's
# SVG is named by its LaTeX less the spaces TeX skips (`render.latex_spaces`) (session 37)
# 37: a file's NUL is not read as the mark of hidden markup in some windows only (session 38)
# 38: a setext heading's underline (`====`, `----`) is no chunk text, and a code block's or
# formula's line before is the heading above it, as an ATX heading's is; a link to an
# Obsidian block (`#^id`, `note.md#^id`) names the heading the block stands under; a folded
# box's title (`<details><summary>`) is never cut from the text it folds; a Mermaid diagram's
# type line (`mindmap`, `gantt`, `pie title …`) and `section` lines are no nodes (session 38)
# 39: an Obsidian Excalidraw drawing (`excalidraw-plugin` front matter) yields its Text
# Elements alone, never its banner, file links or compressed drawing JSON; a wikilink or
# note embed reads as its text (`![[泵站#检修]]` → `泵站 > 检修`), no `[[` or `#` joining words
# into one search term (session 38)
# 40: a Mermaid timeline, ER diagram, journey, Gantt chart or mind map embeds its title and
# words (events, entities and attributes, tasks and actors, whole node texts) with the lines
# around it, never its settings, dates, scores or cardinalities; any diagram's title is
# embedded first, labels without `<br>` or Markdown-string marks; a heading's formula reads
# as said (`## $E=mc^2$` is `E=mc²`); `~~struck~~` marks are no text (session 39)
# 41: a heading's wikilink is its text in heading paths (`## 参见 [[设备手册|*检修*]]` is
# `参见 检修`), as the chunk's own text reads it (session 40)
# 43: a heading's picture has its image chunk (the heading's line), as every other picture
# (session 42)
# 44: a link resolves in either Unicode form (`café.md` to a file a Mac named decomposed,
# an anchor pasted decomposed) to the document and heading it names (session 44, k);
# a section chunk holding several sections (a small page kept whole) lists each one's
# heading path, lines and text span (`extra["sections"]`), so a search cites the one that
# answers, not the page's H1 and all its lines (session 44)
# 45: a picture whose chunk text is its section's (the first of two under a heading, a page
# of one paragraph or picture) has its image chunk; it was dropped as a repeat; a picture of
# an HTML block of pictures and their words has the lines around it in its block; an HTML
# link (`<a href="x.md#y">`) is a chunk link; a chunk cut mid-line (a long section's overlap
# piece with a small section merged after it) lists the sections it holds (session 45)
# 46: an HTML link whose text holds tags (`<a href="x.md"><b>泵</b></a>`) is a chunk link; an
# `<img>` read by `html.parser` (`alt="压力>5MPa"` whole); a tag spread over lines takes the
# words around it as a one-line tag does (session 45, k45b)
# 47: a picture's tag holding a `<` or a quote (`<center><img alt="压力<5" src=a.png><br>图 1
# …</center>`, `文 <img alt=it's src=a.png> 文`) read as a browser reads it: its caption and
# the words around it in its chunk, and a chunk where there was none (session 46, k46)
KIND_ORDER = {k: i for i, k in enumerate(
    ("section", "list_item", "table", "table_row", "code", "mermaid", "formula", "image"))}

__all__ = ["CHUNKER_VERSION", "ChunkConfig", "HeadingIndex", "chunk_document"]


def chunk_document(src: SourceDoc, cfg: ChunkConfig | None = None, *,
                   resolver: HeadingIndex | None = None, doc: Document | None = None,
                   csv_names: CsvNames | None = None) -> list[Chunk]:
    """All chunks of one document in document order. Never raises on any Markdown.

    `doc` is `parse(src)` when the caller has it; `resolver` resolves cross references
    (default: the headings of this document only); `csv_names` names the CSV files of
    tables (default: this document's tables alone; a build passes its one map)."""
    doc = doc or parse(src)
    cfg = cfg or ChunkConfig()
    if not any(line.strip() for line in doc.lines[doc.body_line - 1:]):
        return []
    maker = ChunkMaker(doc, cfg, resolver or HeadingIndex.build([doc]))
    if is_drawing(doc.meta):
        return _drawing_chunks(doc, maker)
    sections = [_with_parts(c, doc, maker, p.start, p.end)
                for p in section_pieces(doc, maker.t, cfg)
                if (c := maker.chunk("section", p.path, p.start, p.end)).text]  # markup alone
    section_texts = {c.text for c in sections}
    finer = [c for c in FineChunks(maker, csv_names).all()  # a picture's chunk is kept: its
             if c.text and (c.kind == "image" or c.text not in section_texts)]  # src and alt
    chunks = sorted(sections + finer,
                    key=lambda c: (c.line_start, KIND_ORDER[c.kind], -c.line_end))
    return with_formulas(_with_parents(_unique_ids(chunks)), doc)


def _with_parts(chunk: Chunk, doc: Document, maker: ChunkMaker, start: int, end: int) -> Chunk:
    """`chunk` (of the text in [start, end)) with ``extra["sections"]`` when it holds
    several sections (`section_parts`)."""
    parts = section_parts(doc, maker.t, chunk, start, end)
    return replace(chunk, extra={**chunk.extra, "sections": parts}) if parts else chunk


def _drawing_chunks(doc: Document, maker: ChunkMaker) -> list[Chunk]:
    """An Excalidraw drawing's words: a section chunk per Text Elements section (block ids
    left out, as everywhere), under the drawing's name; nothing else of the file."""
    path = (drawing_name(doc.rel),)
    chunks = [c for first, last in text_elements(doc.lines, doc.body_line)
              if (c := maker.chunk("section", path, maker.t.start(first),
                                   maker.t.end(last))).text]
    return _unique_ids(chunks)


def _unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    """Content ids: sha256 of (doc, heading path, kind, text); repeats get their ordinal."""
    seen: dict[str, int] = {}
    out = []
    for c in chunks:
        base = "\x1f".join((c.doc, *c.heading_path, c.kind, c.text))
        cid = hashlib.sha256(base.encode("utf-8")).hexdigest()[:16]
        n = seen.get(cid, 0)
        seen[cid] = n + 1
        if n:
            cid = hashlib.sha256(f"{base}\x1f{n}".encode()).hexdigest()[:16]
        out.append(replace(c, id=cid))
    return out


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
