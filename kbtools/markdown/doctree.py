"""Parse a Markdown document into a tree of frozen dataclasses with source line ranges.

`parse(src) -> Document`. The front matter is split once, by `kbtools.corpus`; this module
parses `src.body` with markdown-it-py (CommonMark + tables + dollarmath + task lists) and
shifts every line number by `src.body_line - 1`, so all `line_start`/`line_end` values are
1-based lines of the ORIGINAL file (front matter included), inclusive.

The tree: `Document.root` is a level-0 `Section`; each `Section` has its heading, its own
blocks (up to the first subsection) and its subsections. Blocks: Paragraph, Heading,
ListBlock/ListItem, Table, Code (mermaid is a Code with language "mermaid"), MathBlock,
Html (comments become `annotations`), Quote, Rule. Inline images, math and links are kept
on the paragraph/item/cell that holds them. Parsing never raises on any Markdown.

Mermaid diagrams are read by `kbtools.markdown.mermaid`; cross references and Markdown links are
resolved by `kbtools.build.xref`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from kbtools.corpus import SourceDoc

# `$5 and $6`, `$5,$6` and `costs $ 3` must not become math: no space right inside the
# dollars (write `$x + y$`, not `$ x + y $`) and no digit right outside them (`1$`, `$2`
# after a closing dollar). `$$ ... $$` blocks are unaffected.
DOLLARMATH = {"allow_space": False, "allow_digits": False, "double_inline": True,
              "allow_labels": True, "allow_blank_lines": False}
COMMENT = re.compile(r"<!--(.*?)-->", re.S)
ANNOTATION = re.compile(r"^\s*([A-Za-z][\w.-]*)\s*:\s*(.*?)\s*$", re.S)
IMG_TAG = re.compile(r"<img\b[^>]*>", re.I)
ATTR = re.compile(r"""([a-zA-Z-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")
TAG = re.compile(r"<[^>]+>")
MATH_FENCES = ("math", "latex", "tex")


@dataclass(frozen=True, slots=True)
class Image:
    alt: str
    title: str
    src: str
    line: int


@dataclass(frozen=True, slots=True)
class Math:
    latex: str
    display: bool
    line_start: int
    line_end: int
    label: str = ""


@dataclass(frozen=True, slots=True)
class LinkRef:
    text: str
    href: str
    line: int


@dataclass(frozen=True, slots=True)
class Inline:
    """What one inline run holds: plain text and the images, math and links inside it."""

    text: str = ""
    images: tuple[Image, ...] = ()
    math: tuple[Math, ...] = ()
    links: tuple[LinkRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Block:
    kind: ClassVar[str] = "block"
    line_start: int
    line_end: int


@dataclass(frozen=True, slots=True)
class Paragraph(Block):
    kind: ClassVar[str] = "paragraph"
    inline: Inline = Inline()


@dataclass(frozen=True, slots=True)
class Heading(Block):
    kind: ClassVar[str] = "heading"
    level: int = 1
    text: str = ""
    inline: Inline = Inline()


@dataclass(frozen=True, slots=True)
class ListItem(Block):
    kind: ClassVar[str] = "list_item"
    number: int | None = None  # the step number as written (ordered lists)
    checked: bool | None = None  # task lists
    children: tuple[Block, ...] = ()


@dataclass(frozen=True, slots=True)
class ListBlock(Block):
    kind: ClassVar[str] = "list"
    ordered: bool = False
    start: int = 1
    items: tuple[ListItem, ...] = ()


@dataclass(frozen=True, slots=True)
class Table(Block):
    kind: ClassVar[str] = "table"
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    row_lines: tuple[int, ...] = ()  # file line of each row in `rows`
    header_line: int = 0
    index: int = 0  # 1-based position among the document's tables
    heading_path: tuple[str, ...] = ()
    annotations: dict[str, str] = field(default_factory=dict)
    cells: tuple[Inline, ...] = ()  # every cell's inline content (images, math, links)


@dataclass(frozen=True, slots=True)
class Code(Block):
    kind: ClassVar[str] = "code"
    info: str = ""
    language: str = ""
    content: str = ""
    fenced: bool = True


@dataclass(frozen=True, slots=True)
class MathBlock(Block):
    kind: ClassVar[str] = "math"
    math: Math = Math("", True, 0, 0)


@dataclass(frozen=True, slots=True)
class Html(Block):
    kind: ClassVar[str] = "html"
    content: str = ""
    annotations: dict[str, str] = field(default_factory=dict)
    images: tuple[Image, ...] = ()

    @property
    def is_comment(self) -> bool:
        return COMMENT.sub("", self.content).strip() == "" and "<!--" in self.content


@dataclass(frozen=True, slots=True)
class Quote(Block):
    kind: ClassVar[str] = "quote"
    children: tuple[Block, ...] = ()


@dataclass(frozen=True, slots=True)
class Rule(Block):
    kind: ClassVar[str] = "rule"


@dataclass(frozen=True, slots=True)
class Section:
    level: int  # 0 for the document root
    heading: Heading | None
    heading_path: tuple[str, ...]
    blocks: tuple[Block, ...]  # own blocks, heading excluded, up to the first subsection
    sections: tuple[Section, ...]
    line_start: int
    line_end: int  # last non-blank line of the section, subsections included

    @property
    def title(self) -> str:
        return self.heading.text if self.heading else ""

    @property
    def own_end(self) -> int:
        """Last line before the first subsection (or the section end)."""
        if self.sections:
            return self.sections[0].line_start - 1
        return self.line_end

    def walk(self) -> Iterator[Section]:
        yield self
        for sub in self.sections:
            yield from sub.walk()


@dataclass(frozen=True, slots=True)
class Document:
    rel: str
    title: str
    meta: dict[str, Any]
    root: Section
    lines: tuple[str, ...]  # the original file's lines (index 0 = line 1)
    body_line: int

    def sections(self) -> Iterator[Section]:
        yield from self.root.walk()

    def blocks(self) -> Iterator[tuple[Section, Block]]:
        """Every block in document order with the section holding it, nested ones included."""
        for sec in self.sections():
            for block in sec.blocks:
                yield from ((sec, b) for b in iter_blocks(block))

    def tables(self) -> Iterator[Table]:
        for _, block in self.blocks():
            if isinstance(block, Table):
                yield block

    def formulas(self) -> Iterator[Math]:
        """Display and inline math, in document order."""
        for _, block in self.blocks():
            yield from block_math(block)

    def images(self) -> Iterator[Image]:
        for _, block in self.blocks():
            yield from block_images(block)

    def headings(self) -> Iterator[tuple[tuple[str, ...], Heading]]:
        for sec in self.sections():
            if sec.heading is not None:
                yield sec.heading_path, sec.heading


def iter_blocks(block: Block) -> Iterator[Block]:
    yield block
    if isinstance(block, ListBlock):
        for item in block.items:
            yield from iter_blocks(item)
    elif isinstance(block, (ListItem, Quote)):
        for child in block.children:
            yield from iter_blocks(child)


def block_math(block: Block) -> tuple[Math, ...]:
    if isinstance(block, MathBlock):
        return (block.math,)
    if isinstance(block, (Paragraph, Heading)):
        return block.inline.math
    if isinstance(block, Table):
        return tuple(m for cell in block.cells for m in cell.math)
    return ()


def block_images(block: Block) -> tuple[Image, ...]:
    if isinstance(block, (Paragraph, Heading)):
        return block.inline.images
    if isinstance(block, Table):
        return tuple(i for cell in block.cells for i in cell.images)
    if isinstance(block, Html):
        return block.images
    return ()


def annotations_of(html: str) -> dict[str, str]:
    """`<!-- csv: x.csv -->` -> {"csv": "x.csv"}; comments without `key:` are ignored."""
    out: dict[str, str] = {}
    for body in COMMENT.findall(html):
        m = ANNOTATION.match(body)
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def html_images(html: str, line: int) -> tuple[Image, ...]:
    out = []
    for tag in IMG_TAG.findall(html):
        attrs = {k.lower(): v.strip("\"'") for k, v in ATTR.findall(tag)}
        if attrs.get("src"):
            out.append(Image(attrs.get("alt", ""), attrs.get("title", ""), attrs["src"], line))
    return tuple(out)


def plain(text: str) -> str:
    """Inline HTML removed, whitespace collapsed (for headings and table cells)."""
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.I)
    return " ".join(TAG.sub("", text).split())


class _Builder:
    """Turns the flat markdown-it token stream into blocks. One instance per parse."""

    def __init__(self, tokens: list[Token], offset: int, lines: list[str]):
        self.tokens = tokens
        self.pos = 0
        self.offset = offset  # body line index -> file line: + offset + 1
        self.lines = lines

    def span(self, tok: Token) -> tuple[int, int]:
        start, end = tok.map if tok.map else (0, 1)
        a, b = start + self.offset + 1, max(start + 1, end) + self.offset
        while b > a and not self.lines[b - 1].strip():
            b -= 1
        return a, b

    def inline(self, tok: Token, first_line: int) -> Inline:
        text: list[str] = []
        images: list[Image] = []
        math: list[Math] = []
        links: list[LinkRef] = []
        line = first_line
        link_stack: list[tuple[str, int, int]] = []
        for child in tok.children or ():
            t = child.type
            if t in ("softbreak", "hardbreak"):
                line += 1
                text.append(" ")
            elif t == "text":
                text.append(child.content)
            elif t == "code_inline":
                text.append(child.content)
            elif t in ("math_inline", "math_inline_double"):
                math.append(Math(child.content.strip(), t == "math_inline_double", line, line))
                text.append(child.content)
            elif t == "image":
                images.append(Image(child.content, str(child.attrGet("title") or ""),
                                    str(child.attrGet("src") or ""), line))
                text.append(child.content)
            elif t == "link_open":
                link_stack.append((str(child.attrGet("href") or ""), len(text), line))
            elif t == "link_close" and link_stack:
                href, at, ln = link_stack.pop()
                links.append(LinkRef("".join(text[at:]), href, ln))
            elif t == "html_inline":
                images.extend(html_images(child.content, line))
                if re.match(r"<br\s*/?>", child.content, re.I):
                    text.append(" ")
        return Inline(plain("".join(text)), tuple(images), tuple(math), tuple(links))

    def blocks(self, stop: str | None = None) -> list[Block]:
        out: list[Block] = []
        while self.pos < len(self.tokens):
            tok = self.tokens[self.pos]
            if stop and tok.type == stop:
                self.pos += 1
                return out
            block = self.block(tok)
            if block is not None:
                out.append(block)
        return out

    def block(self, tok: Token) -> Block | None:  # noqa: C901 - one branch per token type
        t = tok.type
        if t in ("paragraph_open", "heading_open"):
            a, b = self.span(tok)
            inl = self.inline(self.tokens[self.pos + 1], a)
            self.pos += 3
            if t == "heading_open":
                return Heading(a, b, level=int(tok.tag[1:]), text=inl.text, inline=inl)
            return Paragraph(a, b, inline=inl)
        if t in ("bullet_list_open", "ordered_list_open"):
            return self.list_block(tok)
        if t == "table_open":
            return self.table(tok)
        if t in ("fence", "code_block"):
            self.pos += 1
            a, b = self.span(tok)
            info = tok.info.strip() if t == "fence" else ""
            lang = info.split()[0].strip("{}.").lower() if info else ""
            if lang in MATH_FENCES:
                return MathBlock(a, b, math=Math(tok.content.strip(), True, a, b))
            return Code(a, b, info=info, language=lang, content=tok.content, fenced=t == "fence")
        if t in ("math_block", "math_block_label"):
            self.pos += 1
            a, b = self.span(tok)
            label = tok.info if t == "math_block_label" else ""
            return MathBlock(a, b, math=Math(tok.content.strip(), True, a, b, label))
        if t == "html_block":
            self.pos += 1
            a, b = self.span(tok)
            return Html(a, b, content=tok.content, annotations=annotations_of(tok.content),
                        images=html_images(tok.content, a))
        if t == "blockquote_open":
            a, b = self.span(tok)
            self.pos += 1
            return Quote(a, b, children=tuple(self.blocks("blockquote_close")))
        if t == "hr":
            self.pos += 1
            return Rule(*self.span(tok))
        self.pos += 1  # closing tokens of unknown containers, front_matter, ...
        return None

    def list_block(self, tok: Token) -> ListBlock:
        a, b = self.span(tok)
        close = tok.type.replace("_open", "_close")
        ordered = tok.type == "ordered_list_open"
        start = int(tok.attrGet("start") or 1) if ordered else 1
        self.pos += 1
        items: list[ListItem] = []
        while self.pos < len(self.tokens) and self.tokens[self.pos].type != close:
            it = self.tokens[self.pos]
            if it.type != "list_item_open":
                self.pos += 1
                continue
            ia, ib = self.span(it)
            self.pos += 1
            children = tuple(self.blocks("list_item_close"))
            number = int(it.info) if ordered and it.info.isdigit() else None
            checked = None
            if "task-list-item" in str(it.attrGet("class") or ""):
                checked = bool(re.match(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]",
                                        self.lines[ia - 1]))
            items.append(ListItem(ia, ib, number=number, checked=checked, children=children))
        self.pos += 1
        return ListBlock(a, b, ordered=ordered, start=start, items=tuple(items))

    def table(self, tok: Token) -> Table:
        a, b = self.span(tok)
        header: list[str] = []
        rows: list[tuple[str, ...]] = []
        row_lines: list[int] = []
        cells: list[Inline] = []
        header_line = a
        current: list[str] | None = None
        in_head = False
        line = a
        self.pos += 1
        while self.pos < len(self.tokens) and self.tokens[self.pos].type != "table_close":
            t = self.tokens[self.pos]
            if t.type == "thead_open":
                in_head = True
            elif t.type == "thead_close":
                in_head = False
            elif t.type == "tr_open":
                current = []
                line = self.span(t)[0]
            elif t.type == "inline" and current is not None:
                inl = self.inline(t, line)
                cells.append(inl)
                current.append(inl.text)
            elif t.type == "tr_close" and current is not None:
                if in_head:
                    header, header_line = current, line
                else:
                    rows.append(tuple(current))
                    row_lines.append(line)
                current = None
            self.pos += 1
        self.pos += 1
        return Table(a, b, header=tuple(header), rows=tuple(rows), row_lines=tuple(row_lines),
                     header_line=header_line, cells=tuple(cells))


def _heading_text(h: Heading) -> str:
    text = re.sub(r"\s*\{#[^}]*\}\s*$", "", h.text)  # trailing {#custom-id}
    return text.strip() or f"(h{h.level})"


def _sections(blocks: list[Block], first: int, last: int) -> Section:
    """Nest blocks under headings; attach heading paths and annotations to tables."""

    class Open:
        def __init__(self, level: int, heading: Heading | None, path: tuple[str, ...], start: int):
            self.level, self.heading, self.path, self.start = level, heading, path, start
            self.blocks: list[Block] = []
            self.subs: list[Section] = []

    def close(node: Open, end: int) -> Section:
        return Section(node.level, node.heading, node.path, tuple(node.blocks), tuple(node.subs),
                       node.start, max(node.start, end))

    stack = [Open(0, None, (), first)]
    tagger = _TableTagger()
    last_line = first - 1
    for block in blocks:
        if isinstance(block, Heading):
            while len(stack) > 1 and stack[-1].level >= block.level:
                done = stack.pop()
                stack[-1].subs.append(close(done, last_line))
            path = stack[-1].path + (_heading_text(block),)
            stack.append(Open(block.level, block, path, block.line_start))
            tagger.pending = {}
            last_line = block.line_end
            continue
        block = tagger.tag(block, stack[-1].path)
        stack[-1].blocks.append(block)
        last_line = max(last_line, block.line_end)
    last_line = max(last_line, last)  # trailing link definitions belong to the last section
    while len(stack) > 1:
        done = stack.pop()
        stack[-1].subs.append(close(done, last_line))
    return close(stack[0], last_line)


class _TableTagger:
    """Numbers tables in document order and hands them the annotations just before them."""

    def __init__(self) -> None:
        self.count = 0
        self.pending: dict[str, str] = {}

    def tag(self, block: Block, path: tuple[str, ...]) -> Block:
        if isinstance(block, Html) and block.is_comment:
            self.pending = {**self.pending, **block.annotations}
            return block
        ann, self.pending = self.pending, {}
        if isinstance(block, Table):
            self.count += 1
            return replace(block, index=self.count, heading_path=path, annotations=ann)
        if isinstance(block, ListBlock):
            items = tuple(self.tag(i, path) for i in block.items)
            return replace(block, items=items)
        if isinstance(block, (ListItem, Quote)):
            children = tuple(self.tag(c, path) for c in block.children)
            self.pending = {}
            return replace(block, children=children)
        return block


def make_markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    dollarmath_plugin(md, **DOLLARMATH)
    tasklists_plugin(md)
    return md


_MD = make_markdown()


def parse(src: SourceDoc) -> Document:
    """Parse `src.body`; every line number refers to the original file."""
    lines = src.text.split("\n")
    body = src.body
    if "\r" in body:  # keep line numbering equal to text.split("\n")
        body = body.replace("\r", " ")
    offset = src.body_line - 1
    body_lines = body.split("\n")
    lines = lines + [""] * max(0, offset + len(body_lines) - len(lines))
    try:
        tokens = _MD.parse(body)
    except Exception:  # pragma: no cover - markdown-it has no documented errors; stay total
        tokens = []
    builder = _Builder(tokens, offset, lines)
    blocks = builder.blocks()
    last = offset + len(body_lines)
    while last > src.body_line and not lines[last - 1].strip():
        last -= 1
    root = _sections(blocks, src.body_line, last)
    title = doc_title(src.meta, root, src.rel)
    return Document(src.rel, title, dict(src.meta), root, tuple(lines), src.body_line)


def doc_title(meta: dict[str, Any], root: Section, rel: str) -> str:
    """Front-matter title, else the first H1, else the file stem."""
    title = meta.get("title")
    if isinstance(title, (str, int, float)) and str(title).strip():
        return str(title).strip()
    for sec in root.walk():
        if sec.heading is not None and sec.heading.level == 1:
            return sec.title
    return PurePosixPath(rel).stem
