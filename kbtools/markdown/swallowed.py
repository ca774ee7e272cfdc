"""Markdown an HTML block swallows: the lines `kb check` names (`html-swallows-markdown`,
`html-comment-unclosed`).

A line that opens with an HTML tag alone (Typora's resized picture `<img src=… style=
"zoom:50%;" />`, a `<br>`, `<div align="center">`, `<details>`) opens an HTML block, which
runs to the next blank line: the Markdown written on the lines below it, up to that blank
line, is raw HTML to GitHub and to kbtools, so its pictures and links are never checked
nor shipped, and its `**bold**`, headings, list items, tables, quotes, code fences and
formulas show as written (a `<details>` box's code under its `<summary>` line). An HTML comment
never closed (`<!--` with no `-->`) hides the rest of its container, the document's rest
at top level, from readers and from search.

`swallowed_line` finds the lines of a block written as Markdown, and the line a blank line
inserted above would end the block before (the fix, which frees the first of them), when
inserting one there is safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbtools.markdown.nodes import comment_spans
from kbtools.markdown.parser import parse_tokens

# HTML blocks whose lines are never Markdown by intent: code and scripts (CommonMark's
# kinds 1 to 5: `<pre>`, `<script>`, `<style>`, `<textarea>`, comments, `<?…?>`, `<!X…>`)
_RAW_KINDS = re.compile(r"<(?:(?:pre|script|style|textarea)(?:[\s>]|$)|[!?])", re.IGNORECASE)
_PRE_OPEN = re.compile(r"<pre(?:[\s>]|$)", re.IGNORECASE)
_PRE_CLOSE = re.compile(r"</pre\s*>", re.IGNORECASE)
# Markdown a reader would see rendered, written on a line. Linear: each run stops at the next
# bracket or parenthesis of either kind, so no two tries scan the same characters (a path
# holding `(` is missed: the line's first such Markdown is enough to name)
_MARKDOWN = re.compile(
    r"!\[[^\[\]\n]*\]\([^()\n]+\)"  # an image
    r"|\[[^\[\]\n]+\]\([^()\s][^()\n]*\)"  # a link
    r"|\[\[[^\[\]\n]+\]\]"  # a wikilink
    r"|^#{1,6}[ \t]+\S"  # a heading
    r"|^(?:[-*+]|\d{1,9}[.)])[ \t]+\S"  # a list item
    r"|\*\*[^*\n]+\*\*"  # bold
    r"|^\|[^\n]*\|$"  # a table row (the line stripped)
    r"|^(?:`{3,}|~{3,})"  # a code fence
    r"|^>[ \t]*[^\s>]"  # a quote
    r"|^\$\$"  # a display formula
)


@dataclass(frozen=True)
class Swallowed:
    """Where (0-based, in the block's content lines) the first line written as Markdown
    stands, and the line a blank line inserted above ends the block before; `fix` None
    when inserting one there is not safe. `lines`: every line of the block written as
    Markdown, the first included (a heading, a list and a picture under one `<br>`)."""

    line: int
    fix: int | None
    lines: tuple[int, ...] = ()


def _blanked(content: str) -> str:
    """`content` with its closed comments' text made spaces (their line breaks kept)."""
    parts, pos = [], 0
    for at, body in comment_spans(content):
        end = at + 4 + len(body) + 3
        parts += [content[pos:at], "".join(c if c == "\n" else " " for c in content[at:end])]
        pos = end
    return "".join(parts) + content[pos:]


def swallowed_line(content: str) -> Swallowed | None:
    """The lines of an HTML block's `content` that are written as Markdown (an image,
    link, wikilink, heading, list item, bold, a table row, code fence, quote or display
    formula), the first as `line`: its first line, where
    Markdown stands between its tags (`<p align="center">![logo](logo.png)</p>`, no fix: a
    blank line would not free it), and each line after it that does not itself open with a
    tag (`<td>**a**</td>` is the author's HTML: a blank line above it would not make it
    Markdown); None when there is none, or the block is code, a script or a comment. The
    fix frees the first: a blank line above the run of such lines holding it, when the line
    above that run closes its tag (`>`) and the parser reads the line as Markdown then."""
    if _RAW_KINDS.match(content.lstrip()):
        return None
    lines = _blanked(content).split("\n")
    found: list[int] = [0] if _MARKDOWN.search(lines[0]) else []
    fix: int | None = None  # `<p align="center">![logo](logo.png)</p>`: no fix
    in_pre = bool(_PRE_OPEN.search(lines[0])) and not _PRE_CLOSE.search(lines[0])
    run = 0  # where the lines not opening with a tag, down to this one, begin
    for n, line in enumerate(lines[1:], start=1):
        text = line.strip()
        if text.startswith("<"):
            run = 0
        elif not run:
            run = n
        if not in_pre and not text.startswith("<") and _MARKDOWN.search(text):
            if not found:
                fix = run if _frees(content, run, n) else None
            found.append(n)
        if _PRE_OPEN.search(line):
            in_pre = True
        if _PRE_CLOSE.search(line):
            in_pre = False
    return Swallowed(found[0], fix, tuple(found)) if found else None


def _frees(content: str, at: int, line: int) -> bool:
    """Does a blank line inserted above line `at` of an HTML block's `content` make its
    line `line` Markdown? Read by the parser itself: not when the line above leaves its tag
    open, nor when the lines from `at` open another HTML block (`> <div>`, a quote's)."""
    if not content.split("\n")[at - 1].rstrip().endswith(">"):
        return False
    lines = content.split("\n")
    fixed = "\n".join([*lines[:at], "", *lines[at:]])
    return not any(tok.type == "html_block" and tok.map and tok.map[0] <= line + 1 < tok.map[1]
                   for tok in parse_tokens(fixed))


def comment_unclosed(content: str) -> bool:
    """Is this HTML block a comment never closed (`<!--` with no `-->` after it)?"""
    return content.lstrip().startswith("<!--") and "-->" not in content
