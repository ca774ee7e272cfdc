"""Obsidian's `%% comments %%`: authors' notes no reader sees, as `obsidian_comment` tokens.

Obsidian hides a comment in reading view, inline (`停机前确认 %%内部备注%% 压力`) and as a
block over several lines (`%%` opening a line, the comment running on through blank lines,
headings and tables to the `%%` that closes it). Read here, once, as tokens that carry no
text: a heading's, a cell's, a chunk's and a CSV file's text hold none of a comment (every
reader of the tokens leaves out what it does not know), the page renders none
(`Token.hidden`), and `kbtools.markdown.hidden` leaves its source out of chunk text and of
what `read` returns, while its lines stay where they are (citations count them).

Inline, a `%%` opens a comment closed by the next `%%` of the same paragraph, heading or
cell; a code span, inline math, a tag or a link's destination is read by its own rule first,
so a `%%` inside it is text. A block comment opens where a line starts with `%%` and ends on
the line holding the next `%%`, when nothing follows that `%%` on its line; it never starts
inside a code block (fences are read first). A `%%` no `%%` closes stays text (`kb check`
names it: `obsidian-comment`).
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

MARK = "%%"
COMMENT = "obsidian_comment"  # the token type, inline and block alike
InlineRule = Callable[[StateInline, bool], bool]


def inline_comment(state: StateInline, silent: bool) -> bool:
    """`%% … %%` within one inline run: the token's content is the comment's text."""
    start = state.pos
    if not state.src.startswith(MARK, start):
        return False
    end = state.src.find(MARK, start + 2, state.posMax)
    if end < 0:
        return False
    if not silent:
        tok = state.push(COMMENT, "", 0)
        tok.content, tok.markup, tok.hidden = state.src[start + 2:end], MARK, True
    state.pos = end + 2
    return True


def _block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Lines from one starting with `%%` to the one whose `%%` closes it and ends it."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start] + state.tShift[start]
    if not state.src.startswith(MARK, begin, state.eMarks[start]):
        return False
    line, pos = start, begin + 2
    while line < end:
        close = state.src.find(MARK, pos, state.eMarks[line])
        if close >= 0:
            if state.src[close + 2:state.eMarks[line]].strip():
                return False  # text after it: a paragraph's inline comment, or none
            break
        line += 1
        if line < end:
            pos = state.bMarks[line] + state.tShift[line]
    if line >= end:
        return False  # never closed: text
    if not silent:
        tok = state.push(COMMENT, "", 0)
        tok.map = [start, line + 1]
        tok.content = state.getLines(start, line + 1, state.blkIndent, False).rstrip("\n")
        tok.markup, tok.hidden, tok.block = MARK, True, True
    state.line = line + 1
    return True


def comments_plugin(md: MarkdownIt,
                    wrap: Callable[[InlineRule], InlineRule] = lambda rule: rule) -> None:
    """Read `%% … %%` as comments: block ones before any other block (a `%%` line with `---`
    under it is no setext heading, one with a table's delimiter row no table), interrupting
    a paragraph; inline ones as text is read (their rule passed through `wrap`: the parser
    notes its spans)."""
    md.block.ruler.before("table", COMMENT, _block,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.inline.ruler.after("text", COMMENT, wrap(inline_comment))
