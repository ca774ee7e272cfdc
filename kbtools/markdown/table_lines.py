"""A GFM pipe table as it is written, line by line: the cells of a row, whether a line holds
a `|` at all, whether it is a delimiter row (`|---|:--:|`), and the lines of a paragraph
that look like a table but are read as its text.

`kb check` (`markdown.frontend`) uses these to name what an author meant as a table and
Markdown reads otherwise, which no reader shows as a problem: a header and a delimiter row
of different widths (GFM makes no table of them), a table written right after a list item
or a quote line with no blank line (its lines continue that item's or quote's paragraph),
and a sentence written right after a table (GFM ends a table only at a blank line or
another block, so the sentence is one more row). Escapes are read as GFM's table splitter
reads them: a backslash makes the next character literal, so `\\|` is no cell border.
No regular expressions: each function is one pass over the line.
"""

from __future__ import annotations

from collections.abc import Sequence


def _pipes(line: str) -> list[int]:
    """Offsets of the unescaped `|` in `line`."""
    out: list[int] = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "|":
            out.append(i)
        i += 1
    return out


def without_quote_marks(line: str) -> str:
    """`line` without the blockquote markers opening it (`>`, `> >`, an Obsidian callout's
    `> `): a quoted table row as its cells are written. The blank after the last `>` stays."""
    cut = i = 0
    while True:
        while i < len(line) and line[i] in " \t":
            i += 1
        if i == len(line) or line[i] != ">":
            return line[cut:]
        i += 1
        cut = i


def has_pipe(line: str) -> bool:
    """Does `line` hold a `|` that is no escaped `\\|` (a cell border)?"""
    return bool(_pipes(line))


def count_cells(line: str) -> int:
    """Cells in a GFM table row: split on unescaped pipes, outer pipes optional."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return len(_pipes(s)) + 1


def cell_starts(line: str) -> list[int]:
    """Offsets in `line` where each cell of a table row starts (right after its opening
    `|`, or where the row starts when it has no outer pipe), past the markers of a quote's
    (a callout's) row: where a finding in a cell is looked for, so a text two cells of
    one row hold is found in each, not twice in the first."""
    text = without_quote_marks(line)
    base = len(line) - len(text)
    pipes = _pipes(text)
    first = [] if pipes and not text[:pipes[0]].strip() else [base]
    return first + [base + at + 1 for at in pipes]


def _cells(line: str) -> list[str]:
    """The cells of a row as written (outer pipes dropped), each stripped."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    cuts = [-1, *_pipes(s), len(s)]
    return [s[a + 1:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]


def is_delimiter_row(line: str) -> bool:
    """Is `line` a GFM delimiter row: cells of dashes, each with an optional `:` at either
    end and blanks around it, and at least one `|` (`---` alone is a rule or a heading's
    underline, no table)?"""
    if not has_pipe(line):
        return False
    for cell in _cells(line):
        core = cell[1:] if cell.startswith(":") else cell
        core = core[:-1] if core.endswith(":") else core
        if not core or core.strip("-"):
            return False
    return True


# what a Chinese input method types for `|`, `-` and `:` (full-width bar, dashes, the
# full-width colon): a table written with them is text to every Markdown reader
FULL_WIDTH = str.maketrans({"｜": "|", "－": "-", "—": "-", "–": "-", "―": "-", "：": ":"})


def _looks_like_table(header: str, delimiter: str) -> bool:
    return ("-" in delimiter and "|" in header and has_pipe(header)
            and is_delimiter_row(delimiter))


def unread_tables(lines: Sequence[str]) -> list[tuple[int, str]]:
    """`(index of the header line, why)` for each table written inside the paragraph whose
    lines (quote markers and indentation removed) are `lines`: a line with a `|` followed by
    a delimiter row. A table the parser reads is never inside a paragraph, so such lines
    are text: the two lines differ in width, the table continues the paragraph of a list
    item or a quote above it (a lazy continuation: no blank line before it), or it is
    written with a Chinese input method's full-width `｜` or dashes (`——`, `－－`)."""
    out: list[tuple[int, str]] = []
    for i in range(1, len(lines)):
        header, delimiter = lines[i - 1], lines[i]
        if _looks_like_table(header, delimiter):
            width, under = count_cells(header), count_cells(delimiter)
            if width != under:
                why = (f"its header has {width} cells and the '---' line under it {under}: "
                       "Markdown (GitHub too) makes no table of them; write one '---' per "
                       "column")
            else:
                why = ("written with no blank line after a list item or a quote line, it "
                       "continues that item's or quote's text: put a blank line before the "
                       "table (indent it under the item to keep it in the list, start each "
                       "line with '>' to keep it in the quote)")
        elif _looks_like_table(header.translate(FULL_WIDTH), delimiter.translate(FULL_WIDTH)):
            why = ("it is written with full-width '｜' or dashes ('——', '－－', as a Chinese "
                   "input method types them): Markdown (GitHub too) needs the ASCII '|' and "
                   "'-'; switch the input method to English punctuation for the table's "
                   "borders and its '---' line")
        else:
            continue
        out.append((i - 1, "lines that look like a table are read as text (no rows, no CSV, "
                           f"no decision table): {why}"))
    return out
