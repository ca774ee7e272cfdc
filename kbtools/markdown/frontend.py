"""One Markdown pass per document, collecting what the checks need.

markdown-it-py finds the structure (links, images, headings, tables, math, HTML); this
module turns its tokens into plain records with 1-based line numbers in the original file.
Inline parsing is the slow part of markdown-it-py, so it runs only on inline blocks that
can hold something we check (a link, image, HTML tag, `$`) and on headings.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

CSV_ANNOTATION = re.compile(r"<!--\s*csv:\s*([^\s>]+)\s*-->")
ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
OPENERS = ("(", "<", ": ", ":", '"', "'", "=")  # what precedes a destination as written
MATH_TOKENS = ("math_block", "math_block_label", "math_inline", "math_inline_double")


@dataclass(frozen=True)
class Ref:
    """A link or image target as written, located in the source file."""

    kind: str  # "link" | "image"
    target: str  # destination, percent-decoded
    line: int  # 1-based file line
    col: int  # 1-based column of the destination text (1 when not located)
    raw: str = ""  # the destination exactly as written in the line ("" when not located)


@dataclass(frozen=True)
class TableShape:
    line: int  # header line
    header_cells: int
    rows: tuple[tuple[int, int], ...]  # (line, cell count) per body row


@dataclass
class Scan:
    refs: list[Ref] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)  # (line, plain text)
    html_ids: set[str] = field(default_factory=set)
    tables: list[TableShape] = field(default_factory=list)
    math: list[tuple[int, str]] = field(default_factory=list)  # (line, latex)
    stray_dollars: list[tuple[int, int]] = field(default_factory=list)  # (line, col) of `$$` text
    csv_names: list[tuple[int, str]] = field(default_factory=list)

    def slugs(self) -> frozenset[str]:
        return frozenset(github_slugs([text for _, text in self.headings])) | self.html_ids


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one parser instance: CommonMark + tables + dollar math; inline runs on demand."""
    md = MarkdownIt("commonmark").enable("table")
    md.use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True)
    md.disable("inline")  # core rule: we call md.inline.parse ourselves where needed
    md.validateLink = lambda url: True  # keep file:// and data: links so we can report them
    md.normalizeLink = lambda url: url  # keep destinations as written (and skip the cost)
    return md


def slugify(text: str) -> str:
    """GitHub heading anchor: lowercase, keep letters/marks/digits/_/-, spaces -> '-'."""
    out = []
    for ch in text.strip().lower():
        if ch == " ":
            out.append("-")
        elif ch == "-" or ch == "_" or unicodedata.category(ch)[0] in "LMN":
            out.append(ch)
    return "".join(out)


def github_slugs(headings: list[str]) -> list[str]:
    """Slugs with GitHub's de-duplication (foo, foo-1, foo-2 ...)."""
    seen: dict[str, int] = {}
    out = []
    for text in headings:
        base = slug = slugify(text)
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        out.append(slug)
    return out


class _HtmlRefs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []  # (kind, url)
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v for k, v in attrs if v is not None}
        if tag == "img" and values.get("src") is not None:
            self.found.append(("image", values["src"]))
        elif tag == "a" and values.get("href") is not None:
            self.found.append(("link", values["href"]))
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.append(values[key])

    handle_startendtag = handle_starttag


def _html(content: str) -> _HtmlRefs:
    parser = _HtmlRefs()
    try:
        parser.feed(content)
        parser.close()
    except Exception:  # HTMLParser is lenient; be safe on any input
        pass
    return parser


def count_cells(line: str) -> int:
    """Cells in a GFM table row: split on unescaped pipes, outer pipes optional."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells, i = 1, 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "|":
            cells += 1
        i += 1
    return cells


def _needs_inline(content: str, has_refs: bool) -> bool:
    return ("](" in content or "<" in content or "$" in content
            or (has_refs and "[" in content))


def _plain(children: list[Token]) -> str:
    parts = []
    for tok in children:
        if tok.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.children:
            parts.append(_plain(tok.children))
    return "".join(parts)


class _Locator:
    """Finds where a destination is written, scanning forward through an inline block."""

    def __init__(self, lines: list[str], first: int, last: int, offset: int):
        self.lines, self.first, self.last, self.offset = lines, first, last, offset
        self.row, self.col = first, 0

    def find(self, candidates: list[str]) -> tuple[int, int, str]:
        """Line, column and text of the next destination written as one of `candidates`."""
        for cand in candidates:
            if not cand:
                continue
            row, col = self.row, self.col
            while row < self.last and row < len(self.lines):
                idx = self._first(self.lines[row], cand, col)
                if idx >= 0:
                    self.row, self.col = row, idx + len(cand)
                    return row + self.offset, idx + 1, cand
                row, col = row + 1, 0
        if candidates and candidates[0]:
            return self._find_escaped(candidates[0])
        return self.first + self.offset, 1, ""

    def find_plain(self, text: str) -> tuple[int, int]:
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            idx = self.lines[row].find(text, col)
            if idx >= 0:
                self.row, self.col = row, idx + len(text)
                return row + self.offset, idx + 1
            row, col = row + 1, 0
        return self.first + self.offset, 1

    @staticmethod
    def _first(line: str, cand: str, col: int) -> int:
        """Earliest place `cand` follows a destination opener (so not the link text)."""
        best = -1
        for opener in OPENERS:
            idx = line.find(opener + cand, col)
            if idx >= 0 and (best < 0 or idx + len(opener) < best):
                best = idx + len(opener)
        if best < 0 and line.startswith(cand, col) and col == 0:
            best = 0
        return best

    def _find_escaped(self, target: str) -> tuple[int, int, str]:
        """The destination as written when Markdown escapes changed it (`..\\..` -> `...`)."""
        pattern = re.compile("(?<=[(<:\"'=\\s])" + "".join(
            "\\\\?" + re.escape(c) if c in ASCII_PUNCT else re.escape(c) for c in target))
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            m = pattern.search(self.lines[row], col)
            if m:
                self.row, self.col = row, m.end()
                return row + self.offset, m.start() + 1, m.group(0)
            row, col = row + 1, 0
        return self.first + self.offset, 1, ""


def scan(body: str, body_line: int) -> Scan:
    """Parse the body once; `body_line` is the file line of the body's first line."""
    md = markdown()
    env: dict = {}
    tokens = md.parse(body, env)
    has_refs = bool(env.get("references"))
    lines = body.split("\n")
    offset = body_line  # token.map rows are 0-based within the body
    out = Scan()
    heading_open = False
    table_header: int | None = None
    rows: list[tuple[int, int]] = []
    for tok in tokens:
        kind = tok.type
        if kind == "heading_open":
            heading_open = True
            continue
        if kind == "inline":
            start, end = tok.map or (0, 1)
            content = tok.content
            if heading_open:
                heading_open = False
                if any(c in content for c in "`[<*_\\&$!"):
                    tok.children = []
                    md.inline.parse(content, md, env, tok.children)
                    out.headings.append((start + offset, _plain(tok.children)))
                else:
                    out.headings.append((start + offset, content))
            elif _needs_inline(content, has_refs):
                tok.children = []
                md.inline.parse(content, md, env, tok.children)
            if tok.children:
                _inline(tok.children, _Locator(lines, start, end, offset), out)
        elif kind in ("math_block", "math_block_label"):
            out.math.append(((tok.map[0] if tok.map else 0) + offset, tok.content))
        elif kind == "html_block":
            _html_block(tok, lines, offset, out)
        elif kind == "table_open":
            table_header = None
            rows = []
        elif kind == "tr_open" and tok.map:
            row = tok.map[0]
            cells = count_cells(lines[row]) if row < len(lines) else 0
            if table_header is None:
                table_header = cells
                header_line = row + offset
            else:
                rows.append((row + offset, cells))
        elif kind == "table_close" and table_header is not None:
            out.tables.append(TableShape(header_line, table_header, tuple(rows)))
    return out


def _inline(children: list[Token], loc: _Locator, out: Scan) -> None:
    for child in children:
        kind = child.type
        if kind in ("link_open", "image"):
            attr = "href" if kind == "link_open" else "src"
            href = str(child.attrs.get(attr, ""))
            _add_ref(out, loc, "link" if kind == "link_open" else "image", href)
        elif kind == "html_inline":
            found = _html(child.content)
            for ref_kind, url in found.found:
                _add_ref(out, loc, ref_kind, url, decoded=True)
            out.html_ids.update(found.ids)
        elif kind in ("math_inline", "math_inline_double"):
            out.math.append((loc.first + loc.offset, child.content))
            delim = "$$" if kind.endswith("double") else "$"
            loc.find_plain(delim + child.content + delim)  # move past it: its $ are not stray
        elif kind == "code_inline":
            loc.find_plain(child.content)
        elif kind == "text" and "$$" in child.content:
            line, col = loc.find_plain("$$")
            out.stray_dollars.append((line, col))
        if child.children:
            _inline(child.children, loc, out)


def _add_ref(out: Scan, loc: _Locator, kind: str, href: str, decoded: bool = False) -> None:
    target = href if decoded else unquote(href)
    line, col, raw = loc.find([target, href])
    out.refs.append(Ref(kind, target, line, col, raw))


def _html_block(tok: Token, lines: list[str], offset: int, out: Scan) -> None:
    start, end = tok.map or (0, 1)
    content = tok.content
    for m in CSV_ANNOTATION.finditer(content):
        line = start + content.count("\n", 0, m.start())
        out.csv_names.append((line + offset, m.group(1)))
    if "<" in content and ("src" in content or "href" in content or "id" in content
                           or "name" in content):
        found = _html(content)
        loc = _Locator(lines, start, end, offset)
        for ref_kind, url in found.found:
            _add_ref(out, loc, ref_kind, url, decoded=True)
        out.html_ids.update(found.ids)
