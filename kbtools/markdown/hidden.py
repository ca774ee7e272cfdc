"""What a reader of a document does not see: the source spans of its HTML markup.

A page shows the text content of inline HTML (`m<sup>3</sup>/h` reads `m3/h`, `<kbd>Ctrl</kbd>`
reads `Ctrl`, `<br>` is a break) and of HTML blocks (`<div align="center">说明</div>`), and no
comment (`<!-- 私人注释 -->`, a `<!-- decision: … -->` annotation); an `<img>` is shown, as
`![alt](src)` is, and stays. A footnote reference (`滴[^1]`) is a mark, left out too. `hidden_spans(tokens,
lines, offset)` gives the source spans of those tags and comments, as offsets into
`"\\n".join(lines)` of the file, read from the parser's own tokens (an inline tag is an
`html_inline` token whose span in its run the parser notes, `parser.token_span`), so a
code span's or a code block's `<T>`, an escaped `\\<b>` and `气温<10℃` are never taken for
tags. The chunker leaves them out of chunk text (`kbtools.build.chunk_text.SourceText`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.token import Token

from kbtools.markdown.nodes import comment_spans
from kbtools.markdown.parser import BR, token_span

Hidden = tuple[int, int, str]  # (start, end, what a reader sees instead: "" or " ")


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
        characters off its start (a tab it expanded) is not located and keeps its spans."""
        bases: dict[int, int | None] = {}
        content_lines = content.split("\n")
        line_starts = [0]
        for text in content_lines[:-1]:
            line_starts.append(line_starts[-1] + len(text) + 1)

        def at(pos: int) -> int | None:
            i = max(0, _index_of(line_starts, pos))
            if i not in bases:
                bases[i] = self._base(first + i, content_lines[i])
            base = bases[i]
            return None if base is None else base + pos - line_starts[i]

        out: list[Hidden] = []
        for a, b, shown in found:
            start, end = at(a), at(b)
            if start is not None and end is not None and end > start:
                out.append((start, end, shown))
        return out

    def _base(self, index: int, text: str) -> int | None:
        if not 0 <= index < len(self.lines):
            return None
        line = self.lines[index]
        col = line.find(text, self.cursors.get(index, 0))
        if col < 0:
            return None
        self.cursors[index] = col + len(text)  # the next cell of a table row lies after it
        return self.starts[index] + col


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


def _shown(tag: str) -> str | None:
    """What a reader sees of a tag: a break for `<br>`, the tag itself for an image (None:
    not hidden), else nothing."""
    if IMAGE_TAG.match(tag):
        return None
    return " " if BR.match(tag) else ""


def _inline_markup(tok: Token) -> list[tuple[int, int, str]]:
    """An inline run's tags (`_shown`) and footnote references (`[^1]`, a superscript)."""
    out = []
    for child in tok.children or ():
        span = token_span(child) if child.type in ("html_inline", "footnote_ref") else None
        if span is None:
            continue
        shown = "" if child.type == "footnote_ref" else _shown(child.content)
        if shown is not None:
            out.append((span[0], span[1], shown))
    return out


def _block_markup(content: str) -> list[tuple[int, int, str]]:
    """The comments and tags of an HTML block's content, in order (linear: a `<` inside a
    comment is never tried as a tag)."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    for start, body in [*comment_spans(content), (len(content), "")]:
        at = content.find("<", pos, start)
        while at >= 0:
            m = HTML_TAG_RE.match(content, at, start)
            shown = _shown(m.group()) if m else None
            if m and shown is not None:
                out.append((at, m.end(), shown))
            at = content.find("<", m.end() if m else at + 1, start)
        if start < len(content):
            end = start + len(body) + 7
            out.append((start, end, ""))
            pos = end
    return out


def hidden_spans(tokens: Sequence[Token], lines: Sequence[str], offset: int) -> tuple[Hidden, ...]:
    """The spans of HTML markup in the document, sorted; `offset` is the file line index of
    the body's first line (the tokens' maps count from the body)."""
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    locate = _Locator(lines, starts, {})
    out: list[Hidden] = []
    for i, tok in enumerate(tokens):
        if tok.map is None or not tok.content:
            continue
        if tok.type == "inline":
            found = _inline_markup(tok)
        elif tok.type == "html_block":
            found = _block_markup(tok.content)
        else:
            continue
        if found:
            out.extend(locate.spans(tok.content, tok.map[0] + offset, found))
        elif i and tokens[i - 1].type in ("th_open", "td_open"):  # cells share their row's line
            locate.spans(tok.content, tok.map[0] + offset, [(0, 0, "")])
    return tuple(sorted(out))
