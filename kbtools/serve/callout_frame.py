"""A search result's passage inside the Obsidian callouts and `<details>` boxes it lies in,
as the document's page shows it: a box of the callout's kind under its title, a box under
its summary.

A passage is a chunk's lines. One that starts below a callout's title line (an item of the
callout's list, a row of its table, a later piece of a long callout) held the quote's `>`
lines alone, and the results page showed a plain quote: no kind, no title, where the page
shows a warning box titled 「蓄能器泄压步骤」; a row of a table in Typora's `<details>` box
had no box and no summary. `framed` puts the head of each box the passage starts inside
(outer ones first: a callout's title line, a box's `<details>` through its `<summary>`)
before it, each followed by a blank line of the box (a title's paragraph would otherwise
take the passage's first line as its own, an HTML block its table), and gives the file line
of each line of the result, so the head is shown at its own lines and only the cited lines
are marked. `as_read` is a callout's title line as its chunk reads it (the `[!type]` marker
left out), so that a passage starting at the title is recognised as the document's lines
and shown from them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kbtools.corpus import SourceDoc
from kbtools.markdown.parser import callout_marker, parse_blocks
from kbtools.markdown.table_lines import without_quote_marks

# a disclosure box's tags (`<details open>`, `<summary>`, their end tags); linear: the
# attributes stop at the tag's first `<` or `>`
_BOX_TAG = re.compile(r"</?(?:details|summary)\b[^<>]*>", re.I)


@dataclass(frozen=True)
class Callout:
    """A box a passage may lie in: an Obsidian callout, or a `<details>` box (Typora's and
    GitHub's folded box). `head`: the lines opening it as written, from file line `first`
    (a callout's title line; a box's `<details>` through its `<summary>`); `last`: its last
    line; `blank`: a blank line inside it (its quote's markers alone, or nothing)."""

    first: int
    last: int
    head: tuple[str, ...]
    blank: str


def document_callouts(src: SourceDoc) -> tuple[Callout, ...]:
    """The callouts of `src` (nested ones too) as the page renders them
    (`kbtools.serve.editors`: quotes whose first paragraph opens with `[!type]`), and its
    `<details>` boxes whose opening HTML block is the box and its summary alone, in
    document order."""
    tokens = parse_blocks(src.body, {})
    lines = src.text.split("\n")
    out = []
    boxes: list[tuple[int, tuple[str, ...]]] = []  # the `<details>` boxes open
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        first, end = tok.map[0] + src.body_line, tok.map[1] + src.body_line - 1
        if tok.type == "html_block":
            html = tok.content.strip().lower()
            if "</details" in html:
                for _ in range(min(html.count("</details"), len(boxes))):
                    opened, head = boxes.pop()
                    out.append(Callout(opened, first, head, _markers(head[0], "<")))
            elif html.startswith("<details") and html.endswith("</summary>") and \
                    "<" not in _BOX_TAG.sub("", tok.content) and end <= len(lines):
                boxes.append((first, tuple(lines[first - 1:end])))
        if tok.type != "blockquote_open" or i + 2 >= len(tokens) or \
                tokens[i + 1].type != "paragraph_open":
            continue
        para, inline = tokens[i + 1], tokens[i + 2]
        if para.map is None or callout_marker(inline.content) is None:
            continue
        title = para.map[0] + src.body_line
        if 0 < title <= len(lines):
            out.append(Callout(title, end, (lines[title - 1],), _markers(lines[title - 1], "[!")))
    return tuple(sorted(out, key=lambda c: (c.first, -c.last)))


def enclosing(callouts: Sequence[Callout], line: int) -> list[Callout]:
    """The boxes file line `line` lies in below their head, outer ones first."""
    return [c for c in callouts if c.first + len(c.head) <= line <= c.last]


def framed(text: str, first: int, line_map: Sequence[int],
           callouts: Sequence[Callout]) -> tuple[str, tuple[int, ...]]:
    """`text` (a passage's Markdown from file line `first`; `line_map` the file line of each
    of its lines then the line after, or empty: its lines follow one another) after the
    heads of the boxes `first` lies in below their head (a callout's title line), each
    followed by a blank line of the box, and the file line of each line of the result,
    then the line after; `text` and `line_map` as they are when it lies in none."""
    outer = enclosing(callouts, first)
    if not outer:
        return text, tuple(line_map)
    n = text.count("\n") + 1
    body = tuple(line_map) or (*range(first, first + n), first + n)
    head: list[str] = []
    lines: list[int] = []
    for c, after in zip(outer, [*(c.first for c in outer[1:]), body[0]], strict=True):
        head += [*c.head, c.blank]
        # a block from the next line spans from `after`
        lines += [*range(c.first, c.first + len(c.head)), after - 1]
    quote = outer[-1].blank
    if ">" in quote and not text.lstrip().startswith(">"):  # a piece from inside a line
        text = f"{quote} {text.lstrip()}"
    return "\n".join([*head, text]), (*lines, *body)


def _markers(line: str, opener: str) -> str:
    """The quote markers before `opener` on a box's first line alone (a list item's marker
    before them as blanks): a blank line of its quote (nothing outside a quote)."""
    return "".join(ch if ch in "> \t" else " " for ch in line[:line.find(opener)]).rstrip() \
        if opener in line else ""


def as_read(line: str) -> str:
    """A callout's title line (`> [!tip]- Title`) as its chunk reads it (`> Title`; the
    type's name as written when it has no title); any other line as it is."""
    rest = without_quote_marks(line).lstrip()
    marker = callout_marker(rest)
    if marker is None:
        return line
    end, instead = marker
    return line[:len(line) - len(rest)] + instead + rest[end:]
