"""A search result's passage inside the Obsidian callouts it lies in, as the document's page
shows it: a box of the callout's kind, under its title.

A passage is a chunk's lines. One that starts below a callout's title line (an item of the
callout's list, a row of its table, a later piece of a long callout) held the quote's `>`
lines alone, and the results page showed a plain quote: no kind, no title, where the page
shows a warning box titled 「蓄能器泄压步骤」. `framed` puts the title line of each callout the
passage starts inside (outer ones first) before it, each followed by a blank line of its
quote (a title's paragraph would otherwise take the passage's first line as its own), and
gives the file line of each line of the result, so the title is shown at its own line and
only the cited lines are marked. `as_read` is a callout's title line as its chunk reads it
(the `[!type]` marker left out), so that a passage starting at the title is recognised as the
document's lines and shown from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kbtools.corpus import SourceDoc
from kbtools.markdown.parser import callout_marker, parse_blocks
from kbtools.markdown.table_lines import without_quote_marks


@dataclass(frozen=True)
class Callout:
    """A callout's file lines (its title's first) and its title line as written."""

    first: int
    last: int
    line: str


def document_callouts(src: SourceDoc) -> tuple[Callout, ...]:
    """The callouts of `src` (nested ones too), in document order: the quotes whose first
    paragraph opens with `[!type]`, as the page renders them (`kbtools.serve.editors`)."""
    tokens = parse_blocks(src.body, {})
    lines = src.text.split("\n")
    out = []
    for i, tok in enumerate(tokens[:-2]):
        if tok.type != "blockquote_open" or tokens[i + 1].type != "paragraph_open":
            continue
        para, inline = tokens[i + 1], tokens[i + 2]
        if tok.map is None or para.map is None or callout_marker(inline.content) is None:
            continue
        first = para.map[0] + src.body_line
        if 0 < first <= len(lines):
            out.append(Callout(first, tok.map[1] + src.body_line - 1, lines[first - 1]))
    return tuple(out)


def enclosing(callouts: Sequence[Callout], line: int) -> list[Callout]:
    """The callouts file line `line` lies in below their title's line, outer ones first."""
    return [c for c in callouts if c.first < line <= c.last]


def framed(text: str, first: int, line_map: Sequence[int],
           callouts: Sequence[Callout]) -> tuple[str, tuple[int, ...]]:
    """`text` (a passage's Markdown from file line `first`; `line_map` the file line of each
    of its lines then the line after, or empty: its lines follow one another) after the
    title lines of the callouts `first` lies in below their title, and the file line of
    each line of the result, then the line after; `text` and `line_map` as they are when
    it lies in none."""
    outer = enclosing(callouts, first)
    if not outer:
        return text, tuple(line_map)
    n = text.count("\n") + 1
    body = tuple(line_map) or (*range(first, first + n), first + n)
    head: list[str] = []
    lines: list[int] = []
    for c, after in zip(outer, [*(c.first for c in outer[1:]), body[0]], strict=True):
        head += [c.line, _markers(c.line)]
        lines += [c.first, after - 1]  # a block from the next line spans from `after`
    if not text.lstrip().startswith(">"):  # a piece from inside a line: its quote's markers
        text = f"{head[-1]} {text.lstrip()}"
    return "\n".join([*head, text]), (*lines, *body)


def _markers(title_line: str) -> str:
    """The quote markers of a callout's title line alone (a list item's marker before them
    as blanks): a blank line of its quote."""
    return "".join(ch if ch in "> \t" else " "
                   for ch in title_line[:title_line.index("[!")]).rstrip()


def as_read(line: str) -> str:
    """A callout's title line (`> [!tip]- Title`) as its chunk reads it (`> Title`; the
    type's name as written when it has no title); any other line as it is."""
    rest = without_quote_marks(line).lstrip()
    marker = callout_marker(rest)
    if marker is None:
        return line
    end, instead = marker
    return line[:len(line) - len(rest)] + instead + rest[end:]
