"""The check's view of a document: one Markdown pass collecting what the checks need.

`scan(body, body_line) -> Scan`: links and images (as written, located by line and column;
the images without alternative text),
headings and their anchors, HTML ids, table shapes, formulas, stray `$$`, CSV names and
Obsidian's `[[wikilinks]]` and `![[embeds]]` (text to this parser: found in the text runs,
`kbtools.markdown.wikitext`, so never in code, math, a standard link's text or an HTML tag
no wikilink holds), with 1-based line numbers of the
original file. A CSV name is the `csv` annotation the build's
doc tree hands a table (`kbtools.markdown.doctree`: the comment blocks right before it), as
written, at the annotation's line. It parses with the one configured parser of
`kbtools.markdown.parser`, the parser the build's doc tree uses, so both see the same
structure. Inline parsing is the slow part of markdown-it-py, so it runs only on headings and
on inline blocks that can hold something we check (a link, image, HTML tag, `$`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from markdown_it.token import Token

from kbtools.markdown.comments import COMMENT, MARK
from kbtools.markdown.doctree import annotation_of
from kbtools.markdown.figures import figure_parts
from kbtools.markdown.html_tags import html_refs
from kbtools.markdown.locator import Locator
from kbtools.markdown.nodes import comment_spans, is_comment_block
from kbtools.markdown.parser import (
    BLOCK_MATH,
    INLINE_MATH,
    MAX_NESTING,
    TOO_DEEP,
    UNRESOLVED_NOTES,
    anchor_text,
    custom_ids,
    github_slugs,
    heading_text,
    heading_title,
    inline_text,
    is_math_fence,
    parse_blocks,
    parse_inline,
    plain,
    source_text,
)
from kbtools.markdown.spaced import spaced_links
from kbtools.markdown.swallowed import comment_unclosed, swallowed_line
from kbtools.markdown.table_lines import (
    cell_starts,
    count_cells,
    has_pipe,
    unread_tables,
    without_quote_marks,
)
from kbtools.markdown.wikitext import (
    MARKS,
    RUN,
    WIKILINK,
    cell_escaped,
    run_length,
    wikilinks_in,
    written_run,
)

HEADING_MARKUP = frozenset("`[<*_\\&$!=%~")  # a heading without these reads as written

# words one of the attributes naming a file or an anchor holds (`src`, `href`, `srcset`,
# `id`, `name`, `data`, `poster`): an HTML block holding none names no file to check
_REF_ATTRIBUTES = ("src", "href", "id", "name", "data", "poster")


@dataclass(frozen=True)
class Ref:
    """A link or image target as written, located in the source file."""

    kind: str  # "link" | "image"
    target: str  # destination, percent-decoded
    line: int  # 1-based file line
    col: int  # 1-based column (in characters) of the destination text (1 when not found)
    raw: str = ""  # the destination exactly as written in the line ("" when not located)
    plays: bool = False  # a file an HTML element plays or frames in the page (`<video src>`)


@dataclass(frozen=True)
class TableShape:
    line: int  # header line
    header_cells: int
    rows: tuple[tuple[int, int], ...]  # (line, cell count) per body row
    # lines of body rows holding no `|`: text written right after the table, read as a row
    text_rows: tuple[int, ...] = ()


@dataclass
class Scan:
    refs: list[Ref] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)  # (line, plain text)
    # line -> the text a heading's anchor is made of, where not its text (`anchor_text`)
    anchor_texts: dict[int, str] = field(default_factory=dict)
    # (line, level 1-6) of each heading outside quotes and lists: those that make sections
    heading_levels: list[tuple[int, int]] = field(default_factory=list)
    html_ids: set[str] = field(default_factory=set)
    tables: list[TableShape] = field(default_factory=list)
    # (header line, why) of lines that look like a table and are read as paragraph text
    unread_tables: list[tuple[int, str]] = field(default_factory=list)
    # (line, col, latex, display): display is False for inline `$…$`, True for `$$`, ```math
    math: list[tuple[int, int, str, bool]] = field(default_factory=list)
    stray_dollars: list[tuple[int, int]] = field(default_factory=list)  # (line, col) of `$$` text
    # (line, marker) of a code fence never closed: the rest of the document is its code
    unclosed_fences: list[tuple[int, str]] = field(default_factory=list)
    csv_names: list[tuple[int, str]] = field(default_factory=list)  # (line, annotation value)
    wikilinks: list[tuple[int, int, str]] = field(default_factory=list)  # (line, col, as written)
    html_tables: list[int] = field(default_factory=list)  # lines of HTML blocks with a <table>
    # (line, col) of a `%%` opening an Obsidian comment the parser leaves as text (unclosed)
    comments: list[tuple[int, int]] = field(default_factory=list)
    # (line, col, the caption its HTML wrapper shows beside it or "") of an image a screen
    # reader has no words for: `![](x.png)`, `<img src>` without `alt` (`alt=""`: decoration)
    images_no_alt: list[tuple[int, int, str]] = field(default_factory=list)
    # (line, col, label) of a footnote reference `[^label]` no definition resolves (text)
    notes_undefined: list[tuple[int, int, str]] = field(default_factory=list)
    # (line, label) of a footnote definition `[^label]: …` no reference uses
    notes_unused: list[tuple[int, str]] = field(default_factory=list)
    # (line, text) of a top-level paragraph's line opening with `#`: `##安装` is a heading to
    # Typora outside its strict mode, text here (`content.hash_headings`)
    hash_lines: list[tuple[int, str]] = field(default_factory=list)
    # (line, col, as written, path) of a link or image with a space in its path (`spaced`)
    spaced: list[tuple[int, int, str, str]] = field(default_factory=list)
    # (first, last) lines of each fenced code block, its fences included (an unclosed one to
    # where its container or the body ends): the one reading of fence syntax
    fenced: list[tuple[int, int]] = field(default_factory=list)
    # (line, body) of each `<!-- markdownlint-… -->` comment outside code, in order: the
    # rules an author turned off there (`kbtools.check.lint_comments`)
    lint: list[tuple[int, str]] = field(default_factory=list)
    # (first line, the HTML block's first line, the line a blank line goes above or 0: not
    # safe, every line) of Markdown an HTML block swallows (`kbtools.markdown.swallowed`)
    swallowed: list[tuple[int, int, int, tuple[int, ...]]] = field(default_factory=list)
    open_comments: list[int] = field(default_factory=list)  # lines of `<!--` never closed

    def slugs(self) -> frozenset[str]:
        """Every anchor a link may name: heading slugs (GitHub's de-duplication included),
        `{#custom-id}`s and HTML ids."""
        texts = [text for _, text in self.headings]
        ids = {anchor for text in texts for anchor in custom_ids(text)}
        titles = (heading_title(self.anchor_texts.get(line, text)) for line, text in self.headings)
        return frozenset(github_slugs(titles)) | ids | self.html_ids


def is_lint_comment(body: str) -> bool:
    """A comment's body holds a markdownlint directive (`markdownlint-disable MD001`)."""
    return body.lstrip()[:13].lower() == "markdownlint-"


def _table_tag(html: str) -> int:
    """Where an HTML block opens its first `<table>` (a table pasted from Word, Excel or a
    web page: shown as its source, and no table to the build); -1 when it opens none."""
    lower = html.lower()
    at = lower.find("<table")
    while at != -1 and lower[at + 6:at + 7] not in ("", ">", "/", " ", "\t", "\n"):
        at = lower.find("<table", at + 6)
    return at


def _needs_inline(content: str, has_refs: bool) -> bool:
    return ("](" in content or "<" in content or "$" in content or "[[" in content
            or "%%" in content or "[^" in content or (has_refs and "[" in content))


class MarkdownTooDeep(Exception):
    """Lists or quotes nested deeper than the parser reads, from file line `line` on (the
    parser drops those lines: neither the served page nor a reader would show them)."""

    def __init__(self, line: int):
        super().__init__(f"lists or quotes nest deeper than Markdown is read ({MAX_NESTING} "
                         "levels: a quote counts one, a list two, a paragraph one); what is "
                         "deeper is left out of the served page: nest less")
        self.line = line


def scan(body: str, body_line: int) -> Scan:
    """Parse the body once; `body_line` is the file line of the body's first line."""
    env: dict[str, Any] = {}
    tokens = parse_blocks(body, env)
    if TOO_DEEP in env:
        raise MarkdownTooDeep(body_line + env[TOO_DEEP])
    scanner = _Scanner(source_text(body).split("\n"), body_line, env)
    for tok in tokens:
        scanner.read(tok)
    used = env.get("footnotes", {}).get("refs", {})
    scanner.out.notes_unused = [(line, label) for line, label in scanner.note_definitions
                                if used.get(":" + label, -1) < 0]
    return scanner.out


class _Scanner:
    """Reads the block tokens of one body in order; token.map rows are 0-based in the body."""

    def __init__(self, lines: list[str], offset: int, env: dict[str, Any]):
        self.lines, self.offset, self.env = lines, offset, env
        self.has_refs = bool(env.get("references"))
        self.out = Scan()
        self.in_heading = False
        self.table_line = 0  # header line of the table being read
        self.table_header: int | None = None  # its header's cell count, once read
        self.table_rows: list[tuple[int, int]] = []
        self.text_rows: list[int] = []  # lines of the table's rows that hold no `|`
        # the `csv` annotation of the comment blocks just read, for a table that follows
        # them at once (as the doc tree's `_TableTagger` hands annotations to tables)
        self.csv_pending: tuple[int, str] | None = None
        self.definitions: set[tuple[str, str]] = set()  # (label, kind) of definitions read
        self.in_comment = False  # an Obsidian `%%` comment is open (its `%%` read: odd)
        self.note_definitions: list[tuple[int, str]] = []  # (line, label) of `[^label]: …`
        # where the cells of the table row being read start, and the cell being read: what
        # a cell holds is looked for from its start, so a destination, a spaced link or a
        # footnote two cells of a row write (`| [a](x.md) | [b](x.md) |`) is two
        self.cell_starts: list[int] = []
        self.cell = -1
        self.in_cell = False

    def read(self, tok: Token) -> None:
        kind = tok.type
        if kind == COMMENT:  # an Obsidian comment is no block: annotations reach past it
            return
        pending, self.csv_pending = self.csv_pending, None
        if kind == "table_open" and pending is not None:
            self.out.csv_names.append(pending)
        if kind == "tr_open":
            row = self.first_row(tok)
            self.cell_starts = cell_starts(self.lines[row]) if row < len(self.lines) else []
            self.cell = -1
        elif kind in ("th_open", "td_open", "th_close", "td_close"):
            self.in_cell = kind.endswith("open")
            self.cell += self.in_cell
        if kind == "heading_open":
            self.in_heading = True
            if tok.level == 0:
                self.out.heading_levels.append((self.first_row(tok) + self.offset,
                                                int(tok.tag[1:])))
        elif kind == "footnote_reference_open":
            self.note_definitions.append((self.first_row(tok) + self.offset,
                                          str(tok.meta.get("label", ""))))
        if kind == "paragraph_open" and tok.map:
            self.paragraph_tables(*tok.map)
        if kind == "paragraph_open" and tok.level == 0 and tok.map:
            self.out.hash_lines += [(row + self.offset, self.lines[row])
                                    for row in range(*tok.map) if self.lines[row].startswith("#")]
        elif kind == "inline":
            self.inline_block(tok)
        elif kind in BLOCK_MATH or is_math_fence(tok):
            self.out.math.append((self.first_row(tok) + self.offset, self.block_col(tok),
                                  tok.content, True))
        if kind == "fence":
            self.fence(tok)
            if tok.map:
                self.out.fenced.append((tok.map[0] + self.offset, tok.map[1] - 1 + self.offset))
        elif kind == "html_block":
            self.html_block(tok, pending)
        elif kind == "table_open":
            self.table_header, self.table_rows, self.text_rows = None, [], []
        elif kind == "tr_open" and tok.map:
            self.table_row(tok.map[0])
        elif kind == "table_close" and self.table_header is not None:
            self.out.tables.append(TableShape(self.table_line, self.table_header,
                                              tuple(self.table_rows), tuple(self.text_rows)))

    @staticmethod
    def first_row(tok: Token) -> int:
        return tok.map[0] if tok.map else 0

    def block_col(self, tok: Token) -> int:
        """The column a block opens at: past its indentation and a quote's (a callout's)
        `>` markers."""
        line = self.lines[self.first_row(tok)] if self.first_row(tok) < len(self.lines) else ""
        return len(line) - len(without_quote_marks(line).lstrip(" \t")) + 1

    def fence(self, tok: Token) -> None:
        """Note a code fence that runs to the end of the body without its closing fence:
        valid Markdown, but every heading and table after it became code."""
        start, end = tok.map or (0, 0)
        if not tok.markup or end < len(self.lines) - _trailing_blank(self.lines):
            return  # closed, or ended by its container (a list item, a quote)
        last = without_quote_marks(self.lines[end - 1]).strip() if end - 1 > start else ""
        if len(last) < len(tok.markup) or set(last) != {tok.markup[0]}:
            self.out.unclosed_fences.append((start + self.offset, tok.markup))

    def inline_block(self, tok: Token) -> None:
        start, end = tok.map or (0, 1)
        content = tok.content
        self.env.pop(UNRESOLVED_NOTES, None)
        if self.in_heading:
            self.in_heading = False
            if HEADING_MARKUP.isdisjoint(content):
                self.out.headings.append((start + self.offset, plain(content)))
            else:
                tok.children = parse_inline(content, self.env)
                self.out.headings.append((start + self.offset,
                                           heading_text(content, inline_text(tok.children, said=True))))
                if (anchor := anchor_text(content, tok.children)) is not None:
                    self.out.anchor_texts[start + self.offset] = anchor
        elif _needs_inline(content, self.has_refs):
            tok.children = parse_inline(content, self.env)
        if tok.children:
            self.inline(tok.children, self.locator(start, end))
            if "](" in content:
                self.out.spaced += spaced_links(tok.children, self.locator(start, end).find_plain)
        for label, at in self.env.pop(UNRESOLVED_NOTES, ()):
            self.unresolved_note(content, label, at, self.locator(start, end))

    def locator(self, start: int, end: int) -> Locator:
        """A locator of the inline block on body rows `start`..`end - 1`: in a table cell,
        from where the cell starts (not the row)."""
        loc = Locator(self.lines, start, end, self.offset)
        if self.in_cell and 0 <= self.cell < len(self.cell_starts):
            loc.col = self.cell_starts[self.cell]
        return loc

    def unresolved_note(self, content: str, label: str, at: int, loc: Locator) -> None:
        """Locate the `[^label]` written at `at` in `content`: the same text written before
        it in the run (in a code span, say) is passed over."""
        written = f"[^{label}]"
        for _ in range(content.count(written, 0, at)):
            loc.find_plain(written)
        line, col = loc.find_plain(written)
        self.out.notes_undefined.append((line, col, label))

    def table_row(self, row: int) -> None:
        # a quote's table (an Obsidian callout's): its `>` markers are no cell
        text = without_quote_marks(self.lines[row]) if row < len(self.lines) else ""
        cells = count_cells(text)
        self.piped_wikilinks(row)
        if self.table_header is None:
            self.table_header, self.table_line = cells, row + self.offset
        else:
            self.table_rows.append((row + self.offset, cells))
            if not has_pipe(text):
                self.text_rows.append(row + self.offset)

    def piped_wikilinks(self, row: int) -> None:
        """The wikilinks of table row `row` whose `|` is not written `\\|`
        (`[[pump|泵的说明]]`): it ends their cell (in Obsidian too), so no cell holds them
        whole; they are found in the row as written."""
        written = self.lines[row] if row < len(self.lines) else ""
        for m in WIKILINK.finditer(written) if "[[" in written else ():
            inner = m.group(1)
            if "|" in inner.replace("\\|", "") and not written.count("`", 0, m.start()) % 2:
                self.out.wikilinks.append((row + self.offset, m.start() + 1, m.group(0)))

    def paragraph_tables(self, start: int, end: int) -> None:
        """Note the tables written inside the paragraph on body rows `start`..`end - 1`
        (`table_lines.unread_tables`): lines the author meant as a table, read as text."""
        rows = [without_quote_marks(line).strip() for line in self.lines[start:end]]
        self.out.unread_tables += [(start + i + self.offset, why)
                                   for i, why in unread_tables(rows)]

    def html_block(self, tok: Token, pending: tuple[int, str] | None) -> None:
        start, end = tok.map or (0, 1)
        content = tok.content
        comments = is_comment_block(content)
        if comments:
            self.csv_pending = pending
        if comments or "markdownlint-" in content.lower():  # directives in any HTML block
            line, pos = start, 0
            for at, body in comment_spans(content):
                line += content.count("\n", pos, at)  # counted once per character
                pos = at
                if is_lint_comment(body):
                    self.out.lint.append((line + self.offset, body))
                annotation = annotation_of(body) if comments else None
                if annotation is not None and annotation[0] == "csv":
                    self.csv_pending = (line + self.offset, annotation[1])
        self.swallowed(tok)
        if not comments and (at := _table_tag(content)) >= 0:
            self.out.html_tables.append(start + content.count("\n", 0, at) + self.offset)
        # attribute names in any case, as a browser and `html_refs` read them (`<IMG SRC=…>`)
        if "<" in content and any(word in content.lower() for word in _REF_ATTRIBUTES):
            found, parts = html_refs(content), figure_parts(content)
            loc = Locator(self.lines, start, end, self.offset)
            for ref_kind, url, no_alt, plays in found.found:
                _add_ref(self.out, loc, ref_kind, url, no_alt=no_alt,
                         caption=parts.caption if parts else "", plays=plays)
            self.out.html_ids.update(found.ids)

    def swallowed(self, tok: Token) -> None:
        """Note Markdown this HTML block swallows, and a comment it never closes; the fix
        only where the block stands at top level, its lines as written."""
        start, end = tok.map or (0, 1)
        if comment_unclosed(tok.content):
            self.out.open_comments.append(start + self.offset)
        elif (found := swallowed_line(tok.content)) is not None:
            whole = tok.content.split("\n")[:end - start] == self.lines[start:end]
            fix = found.fix is not None and whole
            self.out.swallowed.append((start + found.line + self.offset, start + self.offset,
                                       start + (found.fix or 0) + self.offset if fix else 0,
                                       tuple(start + n + self.offset for n in found.lines)))

    def inline(self, children: list[Token], loc: Locator, *, wiki: bool = True) -> None:
        """Read an inline run; `wiki`: look for wikilinks in its text (not in an image's alt
        text, nor in a link's text: those are a standard link's)."""
        out = self.out
        in_link = 0  # link_open tokens not yet closed
        run_end = 0  # a run of text read whole up to here (it holds a wikilink)
        plain_end = 0  # a run of text without one up to here (read token by token)
        # a link's destination follows its text, which may hold images (`[![i](p.png)](d.md)`):
        # located at its `link_close`, in the order written, so the locator finds both
        pending: list[str | None] = []
        for at, child in enumerate(children):
            kind = child.type
            in_link += int(kind == "link_open") - int(kind == "link_close")
            if at < run_end:
                continue
            if kind in RUN and wiki and not in_link and at >= plain_end:
                end = at
                while end < len(children) and (children[end].type in RUN
                                                or children[end].type in MARKS
                                                or children[end].type == "html_inline"):
                    end += 1
                end = at + run_length(children[at:end])
                if self.text_run(children[at:end], loc):
                    run_end = end
                    continue
                plain_end = end
            if kind in ("link_open", "image"):
                attr = "href" if kind == "link_open" else "src"
                href = str(child.attrs.get(attr, ""))
                ref_kind = "link" if kind == "link_open" else "image"
                label = child.meta.get("label")
                no_alt = kind == "image" and not inline_text(child.children or []).strip()
                if kind == "link_open":
                    pending.append(href if label is None else None)
                    if label is not None:
                        self.definition_ref(str(label), ref_kind, href)
                elif label is None:
                    _add_ref(out, loc, ref_kind, href, no_alt=no_alt)
                else:
                    if no_alt:  # `![][photo]`: where the image is, not its definition
                        out.images_no_alt.append((*loc.find_plain("!["), ""))
                    self.definition_ref(str(label), ref_kind, href)
            elif kind == "link_close" and pending:
                written = pending.pop()
                if written is not None:
                    _add_ref(out, loc, "link", written)
            elif kind == "html_inline":
                if child.content.startswith("<!--") and is_lint_comment(child.content[4:-3]):
                    out.lint.append((loc.find_plain(child.content)[0], child.content[4:-3]))
                found = html_refs(child.content)
                for ref_kind, url, no_alt, plays in found.found:
                    _add_ref(out, loc, ref_kind, url, no_alt=no_alt, plays=plays)
                out.html_ids.update(found.ids)
            elif kind in INLINE_MATH:
                delim = "$$" if kind.endswith("double") else "$"
                line, col = loc.find_plain(delim + child.content + delim)  # its $ not stray
                out.math.append((line, col, child.content, kind.endswith("double")))
            elif kind == "code_inline":
                loc.find_plain(child.content)
            elif kind == COMMENT:  # no link or mark inside it is read: passed over
                loc.find_plain(MARK + child.content + MARK)
            elif kind == "text" and ("$$" in child.content or "%%" in child.content):
                self.text_marks(child.content, loc)
            if child.children:
                self.inline(child.children, loc, wiki=False)

    def text_marks(self, text: str, loc: Locator) -> None:
        """A text token's first stray `$$`, and each `%%` left as text that would open an
        Obsidian comment (the parser reads those it can close as comments, no text: one
        never closed, or closed in a later block by a `%%` with text after it; every other
        `%%` of the body's text opens one)."""
        marks = [(text.find("$$"), "$$")] if "$$" in text else []
        at = text.find("%%")
        while at != -1:
            marks.append((at, "%%"))
            at = text.find("%%", at + 2)
        for _, mark in sorted(marks):
            where = loc.find_plain(mark)
            if mark == "$$":
                self.out.stray_dollars.append(where)
            elif not self.in_comment:
                self.out.comments.append(where)
            self.in_comment ^= mark == "%%"

    def text_run(self, run: list[Token], loc: Locator) -> bool:
        """The wikilinks of a run of text tokens (and the emphasis delimiters between them,
        `MARKS`), located by the run, with the run's stray
        `$$`; False (nothing read) when it holds none. An escaped or entity character (a
        `text_special` token: `\\[`, `&#91;`) opens or closes none, but may sit inside one
        (`[[note\\|label]]`, as a table cell holds it: the cell's text has `|`)."""
        written, masked = written_run(run)
        source = "".join(written)
        found = wikilinks_in(masked, source)
        if not found:
            return False
        line, col, cell = loc.find_run(source)

        def at(offset: int) -> int:  # column of the run's character at `offset`
            return col + (len(cell_escaped(source[:offset])) if cell else offset)

        for m in found:
            raw = source[m.start():m.end()]
            self.out.wikilinks.append((line, at(m.start()), cell_escaped(raw) if cell else raw))
        offset = 0
        for tok, text in zip(run, written, strict=True):
            if tok.type == "text" and "$$" in text:
                self.out.stray_dollars.append((line, at(offset + text.find("$$"))))
            offset += len(text)
        return True

    def definition_ref(self, label: str, kind: str, href: str) -> None:
        """A reference link's destination, located in its definition (`[label]: href`), once
        per definition: the definition is what a finding names and `--fix` edits."""
        if (label, kind) in self.definitions:
            return
        self.definitions.add((label, kind))
        ref = self.env.get("references", {}).get(label, {})
        start, end = ref.get("map") or (0, 0)
        _add_ref(self.out, Locator(self.lines, start, end, self.offset), kind, href)


def formula_columns(body: str, body_line: int) -> dict[tuple[int, str], list[int]]:
    """(line, LaTeX without its outer spaces) -> the columns of the formulas `scan` finds
    there, in order: where `kb check` says a formula is (its `$`), for every finding of one
    (the build's `math-invalid` too)."""
    out: dict[tuple[int, str], list[int]] = {}
    for line, col, latex, _ in scan(body, body_line).math:
        out.setdefault((line, latex.strip()), []).append(col)
    return out


def _trailing_blank(lines: list[str]) -> int:
    """How many of `lines` at the end are blank."""
    n = 0
    while n < len(lines) and not lines[-1 - n].strip():
        n += 1
    return n


def _add_ref(out: Scan, loc: Locator, kind: str, href: str, *, no_alt: bool = False,
             caption: str = "", plays: bool = False) -> None:
    """A destination as written (an HTML attribute's with its entities decoded): a URL, so
    `%20` is a space, in `<img src="a%20b.png">` (as Typora writes a resized image) as in
    `![](a%20b.png)`; the build ships the same file (`render.images.image_path`). It is
    located by its text as written first: its decoded text may be a later link's
    (`[a](x%20y.md)` then `[b](<x y.md>)`)."""
    target = unquote(href)
    line, col, raw = loc.find([href, target])
    out.refs.append(Ref(kind, target, line, col, raw, plays))
    if no_alt:
        out.images_no_alt.append((line, col, caption))
