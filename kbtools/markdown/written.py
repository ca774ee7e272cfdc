"""Where a link destination is written when its text is not what it reads: character
references (`m&#101;.md`, an HTML attribute's `&amp;`) and backslash escapes decoded.

Pure string functions for `kbtools.markdown.frontend`'s locator: they say where such a
destination starts (so a finding names its real line and column), never what to write
there (`--fix` leaves a destination it cannot write as it reads by hand).
"""

from __future__ import annotations

import html
from urllib.parse import unquote

__all__ = ["ASCII_PUNCT", "decoded_start"]

ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# what closes a destination opened by each opener ("": whitespace, or a `)` outside
# parentheses); a Markdown opener's destination reads backslash escapes, an attribute's not
CLOSERS = {"(": "", "<": ">", ":": "", "=": "", '"': '"', "'": "'"}
MARKDOWN_OPENERS = frozenset("(<:")
MAX_ENTITY = 34  # `&` to `;` of the longest character reference, with room


def decoded_start(line: str, col: int, href: str, target: str) -> int:
    """The index in `line`, from `col` on, where a destination starts whose text as written
    reads `href` (or, percent-decoded, `target`) once its character references and escapes
    are decoded; -1 when none does. Each attempt reads at most as far as `href` is long
    (in decoded characters), so a line is searched in time linear in it times `href`."""
    starts = [(col + len(line[col:]) - len(line[col:].lstrip()), "")] if col == 0 else []
    for at in range(col, len(line)):
        opener = line[at]
        if opener in CLOSERS:
            start = at + 1
            if opener == ":":
                start += len(line[start:]) - len(line[start:].lstrip())
            starts.append((start, opener))
    for start, opener in starts:
        read = _read(line, start, CLOSERS.get(opener, ""), opener in MARKDOWN_OPENERS or not
                     opener, len(href) + len(target) + 1)
        if read and (read == href or unquote(read) == target):
            return start
    return -1


def _read(line: str, start: int, close: str, escapes: bool, most: int) -> str | None:
    """The destination from `start` decoded, up to where it ends; None past `most`
    characters (not the one sought) or when it has no closer."""
    out: list[str] = []
    depth, i = 0, start
    while i < len(line):
        ch = line[i]
        if close and ch == close or not close and (
                ch.isspace() or ch == ")" and depth == 0 or ch == ">"):
            break
        if len(out) >= most:
            return None
        if ch == "&":
            semi = line.find(";", i + 1, i + MAX_ENTITY)
            entity = line[i:semi + 1] if semi > 0 else ""
            if entity and html.unescape(entity) != entity:
                out.append(html.unescape(entity))
                i = semi + 1
                continue
        elif escapes and ch == "\\" and line[i + 1:i + 2] in ASCII_PUNCT and i + 1 < len(line):
            out.append(line[i + 1])
            i += 2
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        out.append(ch)
        i += 1
    else:
        if close:
            return None
    return "".join(out)
