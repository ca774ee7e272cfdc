"""The document tree's node types: frozen dataclasses with 1-based source line ranges.

`kbtools.markdown.doctree.parse` builds them; chunking, rendering and decision tables read
them. `Document.root` is a level-0 `Section`; each `Section` has its heading, its own blocks
(up to the first subsection) and its subsections. Blocks: Paragraph, Heading,
ListBlock/ListItem, Table, Code (mermaid is a Code with language "mermaid"), MathBlock,
Html (comments become `annotations`), Quote, Rule. Inline images, math and links are kept
on the paragraph/item/cell (`Inline`) that holds them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kbtools.markdown.parser import heading_title


def comments(html: str) -> list[str]:
    """The bodies of the `<!-- … -->` comments in `html`, in order."""
    return [body for _, body in comment_spans(html)]


def comment_spans(html: str) -> list[tuple[int, str]]:
    """`(offset of its "<!--", body)` of each `<!-- … -->` comment in `html`, in order.

    String scans, not ``<!--(.*?)-->``: that search reads to the end of the text once per
    unclosed `<!--`, which is quadratic time on a run of them."""
    out: list[tuple[int, str]] = []
    start = html.find("<!--")
    while start >= 0:
        end = html.find("-->", start + 4)
        if end < 0:
            break
        out.append((start, html[start + 4:end]))
        start = html.find("<!--", end + 3)
    return out


def is_comment_block(html: str) -> bool:
    """An HTML block of comments only: the annotations it holds go to the table after it."""
    return strip_comments(html).strip() == "" and "<!--" in html


def strip_comments(html: str) -> str:
    """`html` without its closed `<!-- … -->` comments (linear time, as `comments`)."""
    parts: list[str] = []
    pos = 0
    start = html.find("<!--")
    while start >= 0:
        end = html.find("-->", start + 4)
        if end < 0:
            break
        parts.append(html[pos:start])
        pos = end + 3
        start = html.find("<!--", pos)
    parts.append(html[pos:])
    return "".join(parts)


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
    # the text with each `<br>` a line break (Typora's Shift+Enter in a table cell), when it
    # holds one ("" when none: `text` reads each as a space); a table's CSV cell keeps them
    lines: str = ""
    # the labels of the footnotes it refers to (`见注[^1]`: "1"), in order, each once
    notes: tuple[str, ...] = ()


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
    # the text its `#anchor` is made of, when not `text` (`parser.anchor_text`: an `<img>`
    # tag's alt is text, no part of the anchor)
    anchor: str | None = None


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
        return is_comment_block(self.content)


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
        """The heading's title (`heading_title`: no block id, no `{#custom-id}`)."""
        return heading_title(self.heading.text) if self.heading else ""

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
    # its link reference definitions (`[label]: href`): normalised label -> href as written
    references: Mapping[str, str] = field(default_factory=dict)
    # (start, end, shown instead) offsets into "\n".join(lines) of the HTML tags and
    # comments a reader does not see (`kbtools.markdown.hidden`), sorted
    hidden: tuple[tuple[int, int, str], ...] = ()
    # (start, end) of those that are Obsidian `%% comments %%`: authors' notes, left out of
    # the Markdown `read` returns too (which keeps tags)
    comments: tuple[tuple[int, int], ...] = ()
    # the Obsidian tags its text writes (`#病害/赤霉病`), as written, each once, in order
    # (`kbtools.markdown.inline_tags.inline_tags`): tags of the document, as Obsidian counts them
    tags: tuple[str, ...] = ()
    # each footnote definition (`[^1]: 仅限夏季`): its label -> (file line, plain text, its
    # paragraphs joined by a space); the first definition of a label, as the parser reads it
    notes: Mapping[str, tuple[int, str]] = field(default_factory=dict)

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
        """Display and inline math, in document order, headings' included."""
        for block in self._with_headings():
            yield from block_math(block)

    def images(self) -> Iterator[Image]:
        """Images in document order, headings' included."""
        for block in self._with_headings():
            yield from block_images(block)

    def links(self) -> Iterator[LinkRef]:
        """Links in document order, headings' and table cells' included."""
        for block in self._with_headings():
            yield from block_links(block)

    def _with_headings(self) -> Iterator[Block]:
        """`blocks()` with each section's heading before its blocks (a heading is no block
        of its section, but its inline math and images are the document's)."""
        for sec in self.sections():
            if sec.heading is not None:
                yield sec.heading
            for block in sec.blocks:
                yield from iter_blocks(block)

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


def block_links(block: Block) -> tuple[LinkRef, ...]:
    if isinstance(block, (Paragraph, Heading)):
        return block.inline.links
    if isinstance(block, Table):
        return tuple(link for cell in block.cells for link in cell.links)
    return ()


def block_images(block: Block) -> tuple[Image, ...]:
    if isinstance(block, (Paragraph, Heading)):
        return block.inline.images
    if isinstance(block, Table):
        return tuple(i for cell in block.cells for i in cell.images)
    if isinstance(block, Html):
        return block.images
    return ()
