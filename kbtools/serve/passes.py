"""What rendering a piece of a document knows (`RenderContext`: the document, its cited lines,
the question's terms, the release's files, the rows a passage left out) and the passes over its
parsed tokens before `kbtools.serve.docview` renders them: ``data-lines`` on every block
(`line_numbers`), ``cited`` on the blocks of the cited lines and the ``cited`` anchor on the
first (`cite_lines`, on copies: a document's tokens are kept for every view), a note row
where table rows were left out (`note_omissions`), and the cross references the build resolved
("见 4.3 节") as links (`link_xrefs`, from the chunks' links by `xrefs_of`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from markdown_it.token import Token

from kbtools.markdown.parser import slugify
from kbtools.serve.i18n import content_lang

# Blocks that are cited when they overlap the cited lines (containers only when inside them).
_LEAF_BLOCKS = {"paragraph_open", "heading_open", "tr_open", "fence", "code_block",
                "math_block", "math_block_label", "html_block", "hr"}


def app_url(kind: str, rel: str) -> str:
    """The web app's URL of a document page (``doc``), a decision-table form (``table``), a
    formula SVG (``formula``, `rel` as ``formulas/<sha256>.svg``) or a shipped image
    (``asset``, `rel` its repository path)."""
    if kind == "formula":
        return "/" + quote(rel)
    return f"/{kind}/{quote(rel)}"


@dataclass(frozen=True)
class Xref:
    """A cross reference the build resolved: `text` on file line `line` points at a section."""

    line: int
    text: str
    href: str


@dataclass
class RenderContext:
    """What rendering one piece of a document needs to know about the release and the page."""

    doc: str  # the document's path (links and images resolve against it)
    line_offset: int = 0  # file line of the text's first line, minus one
    cited: tuple[int, int] | None = None  # file lines to highlight
    terms: Sequence[str] = ()  # matched question terms to highlight
    xrefs: Sequence[Xref] = ()
    has_formula: Callable[[str], bool] = lambda rel: False  # a data/ path the release holds
    has_asset: Callable[[str], bool] = lambda rel: False  # a data/source path the release holds
    # (width, height) in CSS pixels a data/ picture declares (None: unknown)
    size_of: Callable[[str], tuple[int, int] | None] = lambda rel: None
    # the release's files (documents, shipped pictures) of a file name (`disk_key`): what an
    # Obsidian wikilink names (`kbtools.serve.wikilinks`)
    files_named: Callable[[str], Sequence[str]] = lambda key: ()
    # the release's documents whose front matter `aliases` hold a name (`aliases.alias_key`)
    aliased: Callable[[str], Sequence[str]] = lambda key: ()
    url: Callable[[str, str], str] = app_url
    missing_file: str = "not on this device"  # said after a link to a file the release lacks
    no_media_file: str = "a video or sound here names no file to play"  # said in its place
    # the interface's `lang` (`i18n.HTML_LANG`): the notes above and `omitted` are its words
    # inside knowledge text of another language ("" leaves them the text's)
    ui_lang: str = ""
    # the `lang` of the element the text is rendered in (`i18n.content_lang`: the document's);
    # a paragraph, heading or table cell written in the other language says its own
    # (`block_langs`), so a screen reader reads it with the right voice ("" tags none)
    text_lang: str = ""
    formula_word: str = "Formula: "  # a formula picture's text begins with it (its language)
    marked: list[bool] = field(default_factory=lambda: [False])  # the cited anchor is placed
    on_doc_page: bool = True  # False: a passage shown outside its document (search results)
    # When the text left lines out: the file line of each of its lines, then the line after
    # what it was cut from (else `line_offset` applies); and the note shown where table rows
    # were left out, by the text line it stands before (the text's end: after its last row).
    line_map: Sequence[int] = ()
    omitted: Mapping[int, str] = field(default_factory=dict)

    def file_lines(self, span: Sequence[int]) -> tuple[int, int]:
        """The file lines of a token's source map (text lines ``[start, end)``): the first,
        and the last (one less than the first when the map is empty). A block of several
        lines spans the lines left out around it (a table's rows are one line each, so such
        a block is the table or its body, and the rows left out are its own)."""
        start, end = span[0], span[1]
        if not self.line_map:
            return start + 1 + self.line_offset, end + self.line_offset
        if end - start <= 1:
            first = self.line_map[start]
            return first, first if end > start else first - 1
        first = self.line_map[start - 1] + 1 if start > 0 else self.line_map[0]
        return first, self.line_map[end] - 1


def line_numbers(tokens: list[Token], ctx: RenderContext) -> list[Token]:
    """``data-lines`` (file lines) on every block with a source map, in place: the same on
    every view of the text (a document's page keeps its tokens for the next view). A
    `<details>` box whose HTML block closes no box it opens (its Markdown follows, a later
    block writes `</details>`) is given the lines through the block closing it, or through
    the text's last line when none does (the page closes it there)."""
    boxes: list[tuple[Token, int]] = []  # the boxes open: their HTML block, its first line
    last = 0
    for tok in tokens:
        if tok.map is None or tok.nesting < 0 or tok.type == "inline":
            continue
        a, b = ctx.file_lines(tok.map)
        tok.attrSet("data-lines", f"{a}-{max(a, b)}")
        last = max(last, a, b)
        if tok.type == "html_block" and not tok.content.lstrip().startswith("<!--"):
            for tag in _BOX_TAG.finditer(tok.content):
                if not tag.group(1):
                    boxes.append((tok, a))
                elif boxes:
                    box, first = boxes.pop()
                    box.attrSet("data-lines", f"{first}-{max(first, b)}")
    for box, first in boxes:
        box.attrSet("data-lines", f"{first}-{max(first, last)}")
    return tokens


# a `<details>` box's start and end tags (`<details open>`, `</details>`); linear: one class
# run bounded by the tag's `>`
_BOX_TAG = re.compile(r"<(/?)details(?![\w-])[^<>]*>", re.I)


# Blocks whose text `block_langs` tags with its language when it is not the document's.
_TEXT_BLOCKS = {"paragraph_open", "heading_open", "th_open", "td_open"}


def block_langs(tokens: list[Token], ctx: RenderContext) -> list[Token]:
    """``lang`` on each paragraph, heading and table cell, in place, whose text is in the
    other language than ``ctx.text_lang`` (an English paragraph in a Chinese manual, a
    Chinese note in an English one: `content_lang` of its text); text without letters (a
    number, a dose) is left to the document's."""
    if not ctx.text_lang:
        return tokens
    own = ctx.text_lang.split("-")[0].casefold()
    for tok, inline in zip(tokens, tokens[1:], strict=False):
        if tok.type not in _TEXT_BLOCKS or inline.type != "inline":
            continue
        text = _shown_text(inline)
        if not any(ch.isalpha() for ch in text):
            continue
        tag = content_lang(None, text)
        if tag.split("-")[0].casefold() != own:
            tok.attrSet("lang", tag)
    return tokens


def _shown_text(inline: Token) -> str:
    """The words an inline run shows (its text pieces), not its Markdown source: a link's
    address is no word of the text (``[看](../assets/table-cell.jpg)`` is Chinese; judged
    by its source it was English, and the page marked the cell so)."""
    if inline.children is None:
        return inline.content
    return "".join(c.content for c in inline.children if c.type == "text")


def cite_lines(tokens: list[Token], ctx: RenderContext) -> list[Token]:
    """``cited`` on the blocks in ``ctx.cited``, the ``cited`` anchor on (or before) the
    first of them, and the text of the inline runs overlapping the range marked cited
    (every matched term is marked there). `tokens` are left as they were: the tokens this
    changes are copies in the list returned (a document's parsed tokens are kept and
    shared by every view of its page, each citing its own lines).

    A tight list's item paragraphs are not rendered (markdown-it hides them): the item
    itself is marked in their place. A list item's map runs over the blank line after it, so
    an item counts as cited through its paragraph, not by lying inside the range."""
    if ctx.cited is None:
        return tokens
    out = list(tokens)
    copied: set[int] = set()

    def own(i: int) -> Token:
        if i not in copied:
            copied.add(i)
            out[i] = replace(out[i], attrs=dict(out[i].attrs), meta=dict(out[i].meta))
        return out[i]

    lo, hi = ctx.cited
    first: int | None = None
    for i, tok in enumerate(tokens):
        if tok.map is None or tok.nesting < 0:
            continue
        a, b = ctx.file_lines(tok.map)
        overlaps = a <= hi and max(a, b) >= lo
        if tok.type == "inline":
            if overlaps and tok.children:
                own(i).children = [replace(child, meta={**child.meta, "cited": True})
                                   for child in tok.children]
            continue
        inside = lo <= a and b <= hi
        if (tok.type in _LEAF_BLOCKS and overlaps) or (inside and tok.type != "tbody_open"):
            at = _container(tokens, i) if tok.hidden else i
            _add_class(own(at), "cited")
            first = at if first is None else min(first, at)
    if first is None or ctx.marked[0]:
        return out
    ctx.marked[0] = True
    if out[first].type in _ANCHORABLE:
        own(first).attrSet("id", "cited")
        return out
    return [*out[:first], Token("cited_anchor", "", 0), *out[first:]]


# Cited blocks whose own tag carries the ``cited`` id (headings keep their slug as id).
_ANCHORABLE = {"tr_open", "paragraph_open", "fence", "code_block", "list_item_open"}


def _container(tokens: list[Token], idx: int) -> int:
    """The index of the block that encloses token `idx` (a tight list item's paragraph: its
    item); `idx` itself at the top level."""
    level = tokens[idx].level
    for j in range(idx - 1, -1, -1):
        if tokens[j].nesting == 1 and tokens[j].level < level:
            return j
    return idx


def _add_class(tok: Token, name: str) -> None:
    if name not in str(tok.attrGet("class") or "").split():
        tok.attrJoin("class", name)


def note_omissions(tokens: list[Token], ctx: RenderContext) -> list[Token]:
    """The note of `ctx.omitted` as a table row spanning the columns, before the body row
    of the text line it names (or at the end of the body, one past its last row)."""
    if not ctx.omitted:
        return tokens
    out: list[Token] = []
    cols, row_end, in_body = 1, -1, False
    for tok in tokens:
        if tok.type == "thead_open":
            cols = 0
        elif tok.type == "th_open":
            cols += 1
        elif tok.type == "tbody_open":
            row_end, in_body = -1, True
        elif tok.type == "tr_open" and tok.map is not None and in_body:
            out += _omission(ctx, tok.map[0], cols)
            row_end = tok.map[1]
        elif tok.type == "tbody_close":
            out += _omission(ctx, row_end, cols)
            in_body = False
        out.append(tok)
    return out


def _omission(ctx: RenderContext, line: int, cols: int) -> list[Token]:
    note = ctx.omitted.get(line)
    if note is None:
        return []
    tok = Token("omitted_rows", "tr", 0)
    tok.content, tok.meta["cols"] = note, max(cols, 1)
    return [tok]


def link_xrefs(tokens: list[Token], ctx: RenderContext) -> None:
    """Turn the resolved cross references on an inline run's lines into links."""
    if not ctx.xrefs:
        return
    for tok in tokens:
        if tok.type != "inline" or tok.map is None or not tok.children:
            continue
        a, b = ctx.file_lines(tok.map)
        refs = [x for x in ctx.xrefs if a <= x.line <= max(a, b)]
        if refs:
            tok.children = _split_refs(tok.children, refs)


def _split_refs(children: list[Token], refs: list[Xref]) -> list[Token]:
    out: list[Token] = []
    depth = 0
    for child in children:
        depth += 1 if child.type == "link_open" else -1 if child.type == "link_close" else 0
        if child.type != "text" or depth > 0:
            out.append(child)
            continue
        out.extend(_split_text(child.content, refs))
    return out


def _split_text(text: str, refs: list[Xref]) -> list[Token]:
    for ref in refs:
        at = text.find(ref.text) if ref.text else -1
        if at < 0:
            continue
        before, after = text[:at], text[at + len(ref.text):]
        link = Token("link_open", "a", 1)
        link.attrSet("href", ref.href)
        link.meta["xref"] = True
        return [*(_split_text(before, refs) if before else []), link,
                _text_token(ref.text), Token("link_close", "a", -1),
                *(_split_text(after, refs) if after else [])]
    return [_text_token(text)]


def _text_token(text: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = text
    return tok


def xrefs_of(links: Iterable[dict[str, Any]], ctx_url: Callable[[str, str], str]) -> list[Xref]:
    """The resolved cross references among chunk `links` (those naming a target document),
    each to the `#id` its heading's page gives it (`Link.anchor`: the second `## 注意事项` is
    `#注意事项-1`, a `{#custom-id}` heading's is that id)."""
    out: dict[tuple[int, str], Xref] = {}
    for link in links:
        target, text, line = link.get("doc"), link.get("text"), link.get("line")
        if not (isinstance(target, str) and target and isinstance(text, str) and text.strip()
                and isinstance(line, int)):
            continue
        path = [str(h) for h in link.get("heading_path") or []]
        anchor = link.get("anchor")  # the heading's id on its page (a release before: none)
        if not isinstance(anchor, str) or not anchor and path:
            anchor = slugify(path[-1]) if path else ""
        href = ctx_url("doc", target) + (f"#{quote(anchor)}" if anchor else "")
        out.setdefault((line, text), Xref(line, text, href))
    return sorted(out.values(), key=lambda x: (x.line, -len(x.text)))
