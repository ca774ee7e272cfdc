"""Parse a Markdown document into the tree of `kbtools.markdown.nodes`.

`parse(src) -> Document`. The front matter is split once, by `kbtools.corpus`; this module
parses `src.body` with the one configured parser of `kbtools.markdown.parser` (the parser
`kb check` scans with) and shifts every line number by `src.body_line - 1`, so all
`line_start`/`line_end` values are 1-based lines of the ORIGINAL file (front matter
included), inclusive. Parsing never raises on any Markdown.

The node types are re-exported here (`from kbtools.markdown.doctree import Table` works),
since most readers of a tree also parse it. Mermaid diagrams are read by
`kbtools.markdown.mermaid`; cross references and Markdown links are resolved by
`kbtools.build.xref`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from markdown_it.token import Token

from kbtools.corpus import SourceDoc
from kbtools.markdown.drawings import drawing_name, is_drawing
from kbtools.markdown.hidden import hidden_spans
from kbtools.markdown.inline_tags import inline_tags
from kbtools.markdown.nodes import (
    Block,
    Code,
    Document,
    Heading,
    Html,
    Image,
    Inline,
    LinkRef,
    ListBlock,
    ListItem,
    Math,
    MathBlock,
    Paragraph,
    Quote,
    Rule,
    Section,
    Table,
    block_images,
    block_math,
    comments,
    iter_blocks,
)
from kbtools.markdown.parser import (
    BR,
    INLINE_MATH,
    Env,
    anchor_text,
    fence_language,
    heading_text,
    heading_title,
    img_tags,
    is_math_fence,
    is_toc_marker,
    normalize_href,
    parse_tokens,
    plain,
    raw_element_end,
    source_text,
    token_newlines,
    token_text,
)
from kbtools.markdown.wikitext import MARKS, RUN, read_wikilinks

# Linear-time pattern (author HTML): the value is stripped in code rather than by a lazy
# group before \s*$ (`<img>` tags and attributes: `parser.IMG_TAG`, `parser.ATTR`).
ANNOTATION = re.compile(r"^\s*([A-Za-z][\w.-]*)\s*:(.*)$", re.S)
TASK_DONE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]")


def annotation_of(comment: str) -> tuple[str, str] | None:
    """A comment's body `csv: x.csv` -> ("csv", "x.csv"); None without `key:`."""
    m = ANNOTATION.match(comment)
    return (m.group(1).lower(), m.group(2).strip()) if m else None


def annotations_of(html: str) -> dict[str, str]:
    """`<!-- csv: x.csv -->` -> {"csv": "x.csv"}; comments without `key:` are ignored."""
    return dict(kv for body in comments(html) if (kv := annotation_of(body)) is not None)


def html_images(html: str, line: int) -> tuple[Image, ...]:
    """The pictures of `html`, which starts at file line `line`, each at the line its
    `<img` tag opens on (a block's content keeps its line breaks, less a list item's
    indentation or a quote's `>`). Its `src` percent-encoded as a Markdown image's
    (`normalize_href`): `<img src="泵 外观.png">` and `![](<泵 外观.png>)` are one spelling."""
    return tuple(Image(a.get("alt", ""), a.get("title", ""), normalize_href(a["src"]),
                       line + html.count("\n", 0, at))
                 for at, a in img_tags(html))


class _Builder:
    """Turns the flat markdown-it token stream into blocks, one handler per node kind.

    `pos` walks the token list; a handler consumes the tokens of its block (closing token
    included) and returns the block. One instance per parse.
    """

    def __init__(self, tokens: list[Token], offset: int, lines: list[str]):
        self.tokens = tokens
        self.pos = 0
        self.offset = offset  # body line index -> file line: + offset + 1
        self.lines = lines
        self.handlers: dict[str, Callable[[Token], Block]] = {
            "paragraph_open": self.paragraph, "heading_open": self.heading,
            "bullet_list_open": self.list_block, "ordered_list_open": self.list_block,
            "table_open": self.table, "fence": self.code, "code_block": self.code,
            "math_block": self.math_block, "math_block_label": self.math_block,
            "html_block": self.html, "blockquote_open": self.quote, "hr": self.rule,
        }

    def span(self, tok: Token) -> tuple[int, int]:
        """File lines of a token, trailing blank lines excluded."""
        start, end = tok.map if tok.map else (0, 1)
        a, b = start + self.offset + 1, max(start + 1, end) + self.offset
        while b > a and not self.lines[b - 1].strip():
            b -= 1
        return a, b

    def blocks(self, stop: str | None = None) -> list[Block]:
        """Blocks up to the `stop` token (consumed) or the end of the stream."""
        out: list[Block] = []
        while self.pos < len(self.tokens):
            tok = self.tokens[self.pos]
            if stop and tok.type == stop:
                self.pos += 1
                return out
            if tok.type == "paragraph_open" and is_toc_marker(self.tokens[self.pos + 1].content):
                self.pos += 3  # Typora's `[TOC]`: the headings' list where shown, no text
                continue
            handler = self.handlers.get(tok.type)
            if handler is None:  # closing tokens of unknown containers, front_matter, ...
                self.pos += 1
                continue
            out.append(handler(tok))
        return out

    def paragraph(self, tok: Token) -> Paragraph:
        a, b = self.span(tok)
        inl = _read_inline(self.tokens[self.pos + 1], a)
        self.pos += 3  # open, inline, close
        return Paragraph(a, b, inline=inl)

    def heading(self, tok: Token) -> Heading:
        a, b = self.span(tok)
        inl = _read_inline(self.tokens[self.pos + 1], a, wikilinks=True, said=True)
        self.pos += 3
        raw = self.tokens[self.pos - 2]
        text = heading_text(raw.content, inl.text)
        return Heading(a, b, level=int(tok.tag[1:]), text=text, inline=inl,
                       anchor=anchor_text(raw.content, raw.children or []))

    def code(self, tok: Token) -> Block:
        """A fence or an indented code block; math fences are display formulas."""
        self.pos += 1
        a, b = self.span(tok)
        if is_math_fence(tok):
            return MathBlock(a, b, math=Math(tok.content.strip(), True, a, b))
        fenced = tok.type == "fence"
        info = tok.info.strip() if fenced else ""
        return Code(a, b, info=info, language=fence_language(info), content=tok.content,
                    fenced=fenced)

    def math_block(self, tok: Token) -> MathBlock:
        self.pos += 1
        a, b = self.span(tok)
        label = tok.info if tok.type == "math_block_label" else ""
        return MathBlock(a, b, math=Math(tok.content.strip(), True, a, b, label))

    def html(self, tok: Token) -> Html:
        self.pos += 1
        a, b = self.span(tok)
        return Html(a, b, content=tok.content, annotations=annotations_of(tok.content),
                    images=html_images(tok.content, a))

    def quote(self, tok: Token) -> Quote:
        a, b = self.span(tok)
        self.pos += 1
        return Quote(a, b, children=tuple(self.blocks("blockquote_close")))

    def rule(self, tok: Token) -> Rule:
        self.pos += 1
        return Rule(*self.span(tok))

    def list_block(self, tok: Token) -> ListBlock:
        a, b = self.span(tok)
        close = tok.type.replace("_open", "_close")
        ordered = tok.type == "ordered_list_open"
        start = int(tok.attrGet("start") or 1) if ordered else 1
        self.pos += 1
        items: list[ListItem] = []
        while self.pos < len(self.tokens) and self.tokens[self.pos].type != close:
            item = self.tokens[self.pos]
            self.pos += 1
            if item.type == "list_item_open":
                items.append(self.list_item(item, ordered))
        self.pos += 1
        return ListBlock(a, b, ordered=ordered, start=start, items=tuple(items))

    def list_item(self, tok: Token, ordered: bool) -> ListItem:
        """One item (its opening token already consumed): number, task box, children."""
        a, b = self.span(tok)
        children = tuple(self.blocks("list_item_close"))
        number = int(tok.info) if ordered and tok.info.isdigit() else None
        checked = None
        if "task-list-item" in str(tok.attrGet("class") or ""):
            checked = bool(TASK_DONE.match(self.lines[a - 1]))
        return ListItem(a, b, number=number, checked=checked, children=children)

    def table(self, tok: Token) -> Table:
        a, b = self.span(tok)
        rows = _TableRows(a)
        self.pos += 1
        while self.pos < len(self.tokens) and self.tokens[self.pos].type != "table_close":
            t = self.tokens[self.pos]
            rows.read(t, self.span(t)[0] if t.type == "tr_open" else 0)
            self.pos += 1
        self.pos += 1
        return Table(a, b, header=tuple(rows.header), rows=tuple(rows.rows),
                     row_lines=tuple(rows.row_lines), header_line=rows.header_line,
                     cells=tuple(rows.cells))


class _TableRows:
    """The header, rows and cells of one table, read token by token."""

    def __init__(self, first_line: int):
        self.header: list[str] = []
        self.header_line = first_line
        self.rows: list[tuple[str, ...]] = []
        self.row_lines: list[int] = []
        self.cells: list[Inline] = []
        self.current: list[str] | None = None
        self.in_head = False
        self.line = first_line

    def read(self, tok: Token, row_line: int) -> None:
        """`row_line`: the file line of a `tr_open` token."""
        kind = tok.type
        if kind in ("thead_open", "thead_close"):
            self.in_head = kind == "thead_open"
        elif kind == "tr_open":
            self.current, self.line = [], row_line
        elif kind == "inline" and self.current is not None:
            inl = _read_inline(tok, self.line, wikilinks=True)
            self.cells.append(inl)
            self.current.append(inl.text)
        elif kind == "tr_close" and self.current is not None:
            if self.in_head:
                self.header, self.header_line = self.current, self.line
            else:
                self.rows.append(tuple(self.current))
                self.row_lines.append(self.line)
            self.current = None


def _read_inline(tok: Token, first_line: int, *, wikilinks: bool = False,
                 said: bool = False) -> Inline:
    """What an inline token holds; `first_line` is the file line it starts on; `wikilinks`:
    Obsidian's wikilinks and note embeds in its text read as their text (a table cell's,
    as chunk text reads them: `kbtools.markdown.hidden`); `said`: its formulas as they read
    (a heading's text: `## $E=mc^2$` is named `E=mc²` in heading paths and citations)."""
    reader = _InlineReader(first_line, said)
    for child in tok.children or ():
        reader.read(child)
    return reader.inline(wikilinks)


class _InlineReader:
    """Collects the text, images, math and links of one inline run, counting lines."""

    def __init__(self, line: int, said: bool = False):
        self.line, self.said = line, said
        self.text: list[str] = []
        self.kinds: list[str] = []  # the token type of each piece of `text`
        self.breaks: list[int] = []  # the pieces of `text` that are a `<br>`
        self.images: list[Image] = []
        self.math: list[Math] = []
        self.links: list[LinkRef] = []
        self.open_links: list[tuple[str, int, int]] = []  # (href, text index, line)
        self.closing: re.Pattern[str] | None = None  # ends the `<script>`/`<style>` left out
        self.notes: list[str] = []  # labels of the footnotes referred to

    def read(self, tok: Token) -> None:
        kind = tok.type
        if self.closing is None:
            self.closing = raw_element_end(tok)
        if self.closing is not None:
            if kind == "html_inline" and self.closing.fullmatch(tok.content):
                self.closing = None  # its end tag
            self.line += token_newlines(tok) + (kind in ("softbreak", "hardbreak"))
            return
        if kind in INLINE_MATH:
            self.math.append(Math(tok.content.strip(), kind == "math_inline_double",
                                  self.line, self.line + token_newlines(tok)))
        elif kind == "image":
            self.images.append(Image(tok.content, str(tok.attrGet("title") or ""),
                                     normalize_href(str(tok.attrGet("src") or "")), self.line))
        elif kind == "link_open":
            href = normalize_href(str(tok.attrGet("href") or ""))
            self.open_links.append((href, len(self.text), self.line))
        elif kind == "link_close" and self.open_links:
            href, at, line = self.open_links.pop()
            self.links.append(LinkRef("".join(self.text[at:]), href, line))
        elif kind == "html_inline":
            self.images.extend(html_images(tok.content, self.line))
        elif kind in ("softbreak", "hardbreak"):
            self.line += 1
        elif kind == "footnote_ref" and (label := str(tok.meta.get("label", ""))) \
                and label not in self.notes:
            self.notes.append(label)
        self.line += token_newlines(tok)
        if kind == "html_inline" and BR.match(tok.content):
            self.breaks.append(len(self.text))
        self.text.append(token_text(tok, said=self.said))
        self.kinds.append(kind)

    def inline(self, wikilinks: bool = False) -> Inline:
        lines = "\n".join(self._read(wikilinks, a + 1, b) for a, b in zip(
            [-1, *self.breaks], [*self.breaks, len(self.text)], strict=True)) \
            if self.breaks else ""
        return Inline(self._read(wikilinks, 0, len(self.text)), tuple(self.images),
                      tuple(self.math), tuple(self.links), lines, tuple(self.notes))

    def _read(self, wikilinks: bool, start: int, end: int) -> str:
        """The plain text of pieces [start, end)."""
        text = "".join(self.text[start:end])
        if wikilinks and "[[" in text:
            text = _wikilinks_read(self.text[start:end], self.kinds[start:end])
        return plain(text)


def _wikilinks_read(texts: list[str], kinds: list[str]) -> str:
    """The text of a run's tokens with each wikilink in its runs of text (`wikitext.RUN`
    and emphasis marks, never a code span or formula) read as its text."""
    out: list[str] = []
    run: list[str] = []
    for text, kind in zip(texts, kinds, strict=True):
        if kind in RUN or kind in MARKS:
            run.append(text)
            continue
        out += [read_wikilinks("".join(run)), text]
        run = []
    return "".join([*out, read_wikilinks("".join(run))])


def footnotes(tokens: list[Token], offset: int) -> dict[str, tuple[int, str]]:
    """Each footnote definition of a body's tokens (`[^1]: 仅限夏季`, its paragraphs indented
    below it): label -> (file line, its text as a reader reads it); `offset` as `_Builder`'s."""
    out: dict[str, tuple[int, str]] = {}
    label: str | None = None
    line, texts = 0, list[str]()
    for tok in tokens:
        if tok.type == "footnote_reference_open":
            label, texts = str(tok.meta.get("label", "")), []
            line = (tok.map[0] if tok.map else 0) + offset + 1
        elif tok.type == "footnote_reference_close" and label is not None:
            out.setdefault(label, (line, " ".join(t for t in texts if t)))
            label = None
        elif tok.type == "inline" and label is not None:
            texts.append(_read_inline(tok, line, wikilinks=True).text.strip())
    return out


def heading_path_text(h: Heading) -> str:
    """A heading as it appears in heading paths: `{#id}` dropped, "(hN)" when empty."""
    return heading_title(h.text) or f"(h{h.level})"


class _OpenSection:
    """A section still collecting blocks and subsections."""

    def __init__(self, level: int, heading: Heading | None, path: tuple[str, ...], start: int):
        self.level, self.heading, self.path, self.start = level, heading, path, start
        self.blocks: list[Block] = []
        self.subs: list[Section] = []

    def close(self, end: int) -> Section:
        return Section(self.level, self.heading, self.path, tuple(self.blocks),
                       tuple(self.subs), self.start, max(self.start, end))


def _sections(blocks: list[Block], first: int, last: int) -> Section:
    """Nest blocks under headings; attach heading paths and annotations to tables."""
    stack = [_OpenSection(0, None, (), first)]
    tagger = _TableTagger()
    last_line = first - 1

    def close_down_to(level: int) -> None:  # close every open section at `level` or deeper
        while len(stack) > 1 and stack[-1].level >= level:
            done = stack.pop()
            stack[-1].subs.append(done.close(last_line))

    for block in blocks:
        if isinstance(block, Heading):
            close_down_to(block.level)
            path = stack[-1].path + (heading_path_text(block),)
            stack.append(_OpenSection(block.level, block, path, block.line_start))
            tagger.pending = {}
            last_line = block.line_end
            continue
        block = tagger.tag(block, stack[-1].path)
        stack[-1].blocks.append(block)
        last_line = max(last_line, block.line_end)
    last_line = max(last_line, last)  # trailing link definitions belong to the last section
    close_down_to(1)
    return stack[0].close(last_line)


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
            return replace(block, items=tuple(self.tag_item(i, path) for i in block.items))
        if isinstance(block, ListItem):
            return self.tag_item(block, path)
        if isinstance(block, Quote):
            children = tuple(self.tag(c, path) for c in block.children)
            self.pending = {}
            return replace(block, children=children)
        return block

    def tag_item(self, item: ListItem, path: tuple[str, ...]) -> ListItem:
        """Annotations never reach into a list item from before it, nor out of it."""
        self.pending = {}
        children = tuple(self.tag(c, path) for c in item.children)
        self.pending = {}
        return replace(item, children=children)


def parse(src: SourceDoc, tokens: list[Token] | None = None,
          env: Env | None = None) -> Document:
    """Parse `src.body`; every line number refers to the original file. `tokens` and `env`:
    `parse_tokens(src.body, env)` made already, by a caller that uses them too (the web app's
    page renders the same tokens: one parse of a document, not two), read here unchanged."""
    lines = src.text.split("\n")
    body = source_text(src.body)  # keep line numbering equal to text.split("\n")
    offset = src.body_line - 1
    body_lines = body.split("\n")
    lines = lines + [""] * max(0, offset + len(body_lines) - len(lines))
    if tokens is None or env is None:
        env = {}
        try:
            tokens = parse_tokens(body, env)
        except Exception:  # pragma: no cover - markdown-it has no documented errors; stay total
            tokens = []
    blocks = _Builder(tokens, offset, lines).blocks()
    last = offset + len(body_lines)
    while last > src.body_line and not lines[last - 1].strip():
        last -= 1
    root = _sections(blocks, src.body_line, last)
    title = doc_title(src.meta, root, src.rel)
    references = {label: str(ref.get("href", ""))
                  for label, ref in env.get("references", {}).items()}
    comments: list[tuple[int, int]] = []
    hidden = hidden_spans(tokens, lines, offset, comments)
    return Document(src.rel, title, dict(src.meta), root, tuple(lines), src.body_line,
                    references, hidden, tuple(comments), inline_tags(tokens),
                    footnotes(tokens, offset))


def doc_title(meta: dict[str, Any], root: Section, rel: str) -> str:
    """Front-matter title, else the first H1, else the file stem (an Excalidraw drawing's:
    its name, never the plugin's `# Excalidraw Data` heading)."""
    title = meta.get("title")
    if isinstance(title, (str, int, float)) and str(title).strip():
        return str(title).strip()
    if is_drawing(meta):
        return drawing_name(rel)
    for sec in root.walk():
        if sec.heading is not None and sec.heading.level == 1:
            return sec.title
    return PurePosixPath(rel).stem


__all__ = [  # the tree's node types come with the parser that builds them
    "Block", "Code", "Document", "Heading", "Html", "Image", "Inline", "LinkRef", "ListBlock",
    "ListItem", "Math", "MathBlock", "Paragraph", "Quote", "Rule", "Section", "Table",
    "annotations_of", "block_images", "block_math", "doc_title", "heading_path_text",
    "html_images", "iter_blocks", "parse",
]
