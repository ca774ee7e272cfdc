"""What a reader of a document does not see: the source spans of its HTML markup.

A page shows the text content of inline HTML (`m<sup>3</sup>/h` reads `m3/h`, `<kbd>Ctrl</kbd>`
reads `Ctrl`, `<br>` is a break) and of HTML blocks (`<div align="center">说明</div>`; the
texts of two cells, rows or items of one line are apart, `BLOCK_TAG`), and no
comment (`<!-- 私人注释 -->`, a `<!-- decision: … -->` annotation, Obsidian's `%% 备注 %%`,
inline or over several lines: `kbtools.markdown.comments`); an `<img>` is shown, as
`![alt](src)` is, and stays. A footnote reference (`滴[^1]`) is a mark, left out too (an inline note's `^[…]` reads
`(…)`, its text in place, as the page shows it), as is
a footnote definition's label (`[^1]:`), the contents of `<script>` and `<style>` elements,
Typora's `[TOC]` paragraph (the page shows the headings' list there), an Obsidian callout's
marker (`> [!warning]- 断电挂牌` reads `断电挂牌`, `> [!tip]` alone reads `tip`, the type the page
titles the box with), an Obsidian block id
ending a paragraph or heading (`… 停机。 ^leak-rule`, `## 上限 ^limits`),
a heading's `{#custom-id}` and a setext heading's underline (`====`, `----`: the page shows the
heading alone); an HTML entity (`&nbsp;`, `&lt;`, `&#8482;`) reads as its
character, an Obsidian wikilink or note embed as its text (`[[泵站#检修|步骤]]` reads `步骤`,
`![[泵站#检修]]` `泵站 > 检修`: `kbtools.markdown.wikitext.wikilink_text`). `hidden_spans(tokens, lines, offset)` gives the source spans of those, as offsets into
`"\\n".join(lines)` of the file, read from the parser's own tokens (an inline tag is an
`html_inline` token whose span in its run the parser notes, `parser.token_span`), so a
code span's or a code block's `<T>` and `&lt;`, an escaped `\\<b>` and `气温<10℃` are never
taken for tags. The chunker leaves them out of chunk text (`kbtools.build.chunk_text.SourceText`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.common.entities import entities
from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.common.utils import fromCodePoint, isValidEntityCode
from markdown_it.token import Token

from kbtools.errors import INVISIBLE
from kbtools.markdown.comments import COMMENT
from kbtools.markdown.nodes import comment_spans
from kbtools.markdown.parser import (
    BR,
    NOTE_MARKS,
    RAW_CLOSE,
    RAW_OPEN,
    TRAILING_ID,
    block_id_at,
    callout_marker,
    entity_spans,
    escaped_id,
    is_toc_marker,
    token_span,
)
from kbtools.markdown.wikitext import wikilink_spans

Hidden = tuple[int, int, str]  # (start, end, what a reader sees instead: "" or " ")
# a highlight's `==` and a strikethrough's `~~`: the page shows the words marked, struck
MARKS = ("mark_open", "mark_close", "s_open", "s_close")
_COMMENT = "\0%%"  # what an Obsidian comment shows while spans are read: nothing


class _Locator:
    """File offsets of positions in a token's content (the lines of its source, each
    without the indentation, quote markers or cell borders the parser took off)."""

    def __init__(self, lines: Sequence[str], starts: Sequence[int],
                 cursors: dict[int, int]):
        self.lines, self.starts, self.cursors = lines, starts, cursors

    def spans(self, content: str, first: int, found: list[tuple[int, int, str]]
              ) -> list[Hidden]:
        """`found` (content start, content end, replacement) as file spans; the content's
        line i is file line index `first + i`. A line the parser changed beyond taking
        characters off its start (a tab it expanded) is not located and keeps its spans; a
        table cell's `|`, written `\\|`, is located where it is written."""
        bases: dict[int, tuple[int, bool] | None] = {}
        content_lines = content.split("\n")
        line_starts = [0]
        for text in content_lines[:-1]:
            line_starts.append(line_starts[-1] + len(text) + 1)

        def at(pos: int) -> int | None:
            i = max(0, _index_of(line_starts, pos))
            if i not in bases:
                bases[i] = self._base(first + i, content_lines[i])
            located = bases[i]
            if located is None:
                return None
            base, escaped = located
            col = pos - line_starts[i]
            return base + col + (content_lines[i].count("|", 0, col) if escaped else 0)

        out: list[Hidden] = []
        for a, b, shown in found:
            start, end = at(a), at(b)
            if start is not None and end is not None and end > start:
                out.append((start, end, shown))
        return out

    def _base(self, index: int, text: str) -> tuple[int, bool] | None:
        """Where `text` starts in the file line `index`, and whether it is written there
        with each `|` escaped (a table cell's)."""
        if not 0 <= index < len(self.lines):
            return None
        line = self.lines[index]
        written, escaped = text, False
        col = line.find(text, self.cursors.get(index, 0))
        if col < 0 and "|" in text:
            written, escaped = text.replace("|", "\\|"), True
            col = line.find(written, self.cursors.get(index, 0))
        if col < 0:
            return None
        self.cursors[index] = col + len(written)  # the next cell of a table row lies after it
        return self.starts[index] + col, escaped


def _index_of(starts: list[int], pos: int) -> int:
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


IMAGE_TAG = re.compile(r"<img\b", re.I)  # an image is shown, as `![alt](src)` is: kept


# a tag of an element a page sets apart from its neighbours (a cell, a row, a paragraph, a
# list item): its text never runs into theirs (`<td>k</td><td>v</td>` reads `k v`)
BLOCK_TAG = re.compile(r"</?(?:t[dhr]|table|thead|tbody|tfoot|caption|p|div|li|[uo]l|d[ldt]"
                       r"|h[1-6]|hr|blockquote|pre|section|article|header|footer|figure"
                       r"|figcaption|details|summary)(?![\w-])", re.I)


def _apart(content: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """`found` (an HTML block's hidden spans, in order) with one space where a run of
    adjacent spans holding a block element's tag (`BLOCK_TAG`) stands between two texts of
    one line; at a line's start or end the line break already sets them apart."""
    out = list(found)
    i = 0
    while i < len(out):
        j = i
        while j + 1 < len(out) and out[j + 1][0] == out[j][1]:
            j += 1
        start, end = out[i][0], out[j][1]
        if any(BLOCK_TAG.match(content, a, b) for a, b, _ in out[i:j + 1]) \
                and start > 0 and content[start - 1] not in "\n \t" \
                and end < len(content) and content[end] not in "\n \t" \
                and not any(shown.strip() == "" and shown for _, _, shown in out[i:j + 1]):
            out[i] = (out[i][0], out[i][1], out[i][2] + " ")
        i = j + 1
    return out


def _shown(tag: str) -> str | None:
    """What a reader sees of a tag: a break for `<br>`, the tag itself for an image (None:
    not hidden), else nothing."""
    if IMAGE_TAG.match(tag):
        return None
    return " " if BR.match(tag) else ""


ENTITY = re.compile(r"&(?:#(x[a-f0-9]{1,6}|[0-9]{1,7})|([a-z][a-z0-9]{1,31}));", re.I)


def _inline_markup(tok: Token, opener: str) -> list[tuple[int, int, str]]:
    """An inline run's tags (`_shown`), `<script>`/`<style>` contents, footnote references
    (`[^1]`, a superscript), entities (their character) and, ending a paragraph or heading
    (`opener`), its block id and a heading's `{#custom-id}`, in order and disjoint."""
    out: list[tuple[int, int, str]] = []
    children = tok.children or []
    raw_end = -1  # the end of the `<script>`/`<style>` element being left out
    for child in children:
        span = token_span(child) if child.type in ("html_inline", "footnote_ref", COMMENT,
                                                   *NOTE_MARKS, *MARKS) else None
        if span is None or span[0] < raw_end:
            continue
        shown = _COMMENT if child.type == COMMENT else _shown(child.content) \
            if child.type == "html_inline" else NOTE_MARKS.get(child.type, "")
        if shown is None:
            continue
        end = span[1]
        if child.type == "html_inline" and (m := RAW_OPEN.fullmatch(child.content)):
            close = RAW_CLOSE[m.group(1).lower()].search(tok.content, end)
            end = raw_end = close.end() if close else len(tok.content)
        out.append((span[0], end, shown))
    out += [(a, b, char) for a, b, char in entity_spans(tok) if not _within(a, out)]
    links = wikilink_spans(tok.content, children)  # read as their text, what is inside too
    if links:
        out = [*links, *(f for f in out if not any(a <= f[0] < b for a, b, _ in links))]
    if opener in ("paragraph_open", "heading_open") and children:
        out += _trailing_ids(tok.content, children[-1], opener == "heading_open")
    return sorted(out)


def _within(pos: int, spans: list[tuple[int, int, str]]) -> bool:
    return any(a <= pos < b for a, b, _ in spans)


def _trailing_ids(content: str, last: Token, heading: bool) -> list[tuple[int, int, str]]:
    """The block id ending a paragraph's or heading's run (as the page leaves it out:
    `kbtools.serve.editors.block_ids`) and a heading's `{#custom-id}` before it, with the
    spaces before them, as one span. An id on the run's last line of its own (`…\n^id`)
    leaves that line empty, so it is dropped as a line of markup alone."""
    if last.type != "text":
        return []
    end = cut = len(content.rstrip())
    at = block_id_at(last.content)
    tail = last.content[at:].rstrip() if at >= 0 and (at > 0 or not heading) else ""
    if tail and content.endswith(tail, 0, end) and (
            end == len(tail) or content[end - len(tail) - 1] in " \t\n"):
        cut = len(content[:end - len(tail)].rstrip(" \t"))
    if heading and (m := TRAILING_ID.search(content, 0, cut)) and not escaped_id(content) and \
            last.content[:at if at > 0 else None].rstrip().endswith(m.group().rstrip()):
        cut = len(content[:m.start()].rstrip(" \t"))
    return [(cut, end, "")] if cut < end else []


def _block_markup(content: str) -> list[tuple[int, int, str]]:
    """The comments, tags and `<script>`/`<style>` elements of an HTML block's content and
    the entities of its text, in order (linear: a `<` inside a comment is never tried as a
    tag)."""
    out: list[tuple[int, int, str]] = []
    pos, size = 0, len(content)
    for start, body in [*comment_spans(content), (size, "")]:
        if start < pos:  # inside an element already left out
            continue
        pos = _markup_between(content, pos, start, out)
        if pos <= start < size:
            out.append((start, start + len(body) + 7, ""))
            pos = start + len(body) + 7
    return _apart(content, out)


def _markup_between(content: str, pos: int, stop: int, out: list[tuple[int, int, str]]) -> int:
    """The tags, elements left out and entities of `content[pos:stop]` added to `out`;
    where the text is read on from (past `stop` when an element runs on past it)."""
    at = content.find("<", pos, stop)
    while at >= 0:
        m = HTML_TAG_RE.match(content, at, stop)
        if not m:
            at = content.find("<", at + 1, stop)
            continue
        out += _entities(content, pos, at)
        shown, pos = _shown(m.group()), m.end()
        if shown is not None and (raw := RAW_OPEN.fullmatch(m.group())):
            close = RAW_CLOSE[raw.group(1).lower()].search(content, pos)
            pos = close.end() if close else len(content)
        if shown is not None:
            out.append((at, pos, shown))
        if pos > stop:
            return pos
        at = content.find("<", pos, stop)
    out += _entities(content, pos, stop)
    return stop


def _entities(content: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The entities of HTML text in `content[start:end]`, each with its character (as
    markdown-it decodes them in Markdown text)."""
    out = []
    for m in ENTITY.finditer(content, start, end):
        if m.group(1):
            num = m.group(1)
            code = int(num[1:], 16) if num[0] in "xX" else int(num)
            out.append((m.start(), m.end(), fromCodePoint(code if isValidEntityCode(code)
                                                          else 0xFFFD)))
        elif m.group(2) in entities:
            out.append((m.start(), m.end(), entities[m.group(2)]))
    return out


def _footnote_label(tok: Token, line: str, start: int) -> list[Hidden]:
    """The label opening a footnote definition (`[^1]:` and the spaces after it) on its
    first line (`start`: that line's file offset)."""
    label = f"[^{tok.meta.get('label', '')}]:" if tok.meta else ""
    col = line.find(label) if label else -1
    if col < 0:
        return []
    end = col + len(label)
    end += len(line[end:]) - len(line[end:].lstrip(" \t"))
    return [(start + col, start + end, "")]


SETEXT = ("=", "-")  # a setext heading's token markup (an ATX heading's is its `#`s)


def _underline(index: int, lines: Sequence[str], starts: Sequence[int]) -> list[Hidden]:
    """A setext heading's underline (`====`, `----`, and the quote markers or indentation
    before it in a quote or list item), the file line `index`: markup saying the line above
    is a heading, no text; the page shows the heading alone."""
    if not 0 <= index < len(lines) or not lines[index].strip():
        return []
    return [(starts[index], starts[index] + len(lines[index]), "")]


def hidden_spans(tokens: Sequence[Token], lines: Sequence[str], offset: int,
                 comments: list[tuple[int, int]] | None = None) -> tuple[Hidden, ...]:
    """The spans of the document no reader sees (or sees as another character), sorted and
    disjoint; `offset` is the file line index of the body's first line (the tokens' maps
    count from the body). Those of Obsidian comments are added to `comments` too."""
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    locate = _Locator(lines, starts, {})
    out: list[Hidden] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.markup in SETEXT and tok.map is not None:
            out += _underline(tok.map[1] - 1 + offset, lines, starts)
        if tok.type == "footnote_reference_open" and tok.map is not None:
            index = tok.map[0] + offset
            if 0 <= index < len(lines):
                out += _footnote_label(tok, lines[index], starts[index])
        if tok.map is None or not tok.content:
            continue
        if tok.type == "inline" and i and tokens[i - 1].type == "paragraph_open" \
                and is_toc_marker(tok.content):  # the page shows the headings' list there
            found = [(0, len(tok.content), "")]
        elif tok.type == "inline":
            found = _inline_markup(tok, tokens[i - 1].type if i else "")
            if i > 1 and tokens[i - 2].type == "blockquote_open" \
                    and tokens[i - 1].type == "paragraph_open" \
                    and (marker := callout_marker(tok.content)) is not None:
                end, shown = marker
                found = [(0, end, shown), *(f for f in found if f[0] >= end)]
        elif tok.type == "html_block":
            found = _block_markup(tok.content)
        elif tok.type == COMMENT:  # `%%` opening a line to the line of the `%%` closing it
            found = [(0, len(tok.content), _COMMENT)]
        else:
            continue
        if found:
            out.extend(locate.spans(tok.content, tok.map[0] + offset, found))
        elif i and tokens[i - 1].type in ("th_open", "td_open"):  # cells share their row's line
            locate.spans(tok.content, tok.map[0] + offset, [(0, 0, "")])
    body = starts[offset] if 0 <= offset < len(starts) else len("\n".join(lines))
    out += [(m.start(), m.end(), "") for m in INVISIBLE.finditer("\n".join(lines), body)]
    disjoint: list[Hidden] = []
    for a, b, shown in sorted(out):
        if disjoint and a < disjoint[-1][1]:
            continue
        if shown == _COMMENT:
            shown = ""
            if comments is not None:
                comments.append((a, b))
        disjoint.append((a, b, INVISIBLE.sub("", shown)))  # `&#8203;` is not seen either
    return tuple(disjoint)
