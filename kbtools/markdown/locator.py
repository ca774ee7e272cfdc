"""Where a link's destination, a run of text or a formula is written in a block's source
lines: markdown-it's inline tokens give what a link reads, not where its text stands, so the
scan (`kbtools.markdown.frontend`) finds each in order, moving forward through the block
(`Locator`): a destination after an opener (`(`, `<`, `: `, a quote, `=`) and ending where
a destination ends, else written with Markdown's escapes, else with entities (`m&#101;.md`,
which `--fix` cannot write); text, also with a table cell's pipes escaped.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from kbtools.markdown.wikitext import cell_escaped
from kbtools.markdown.written import ASCII_PUNCT, decoded_start

MAX_ESCAPED_SEARCH = 256  # see Locator._find_escaped
OPENERS = ("(", "<", ": ", ":", '"', "'", "=")  # what precedes a destination as written


def _ends_destination(line: str, end: int) -> bool:
    """Does a destination written up to `end` of `line` end there (not the start of a
    longer one: `#step` of `href="#step&amp;x"`, whose `&amp;` an edit must not split)?"""
    return end >= len(line) or line[end] in DESTINATION_ENDS or line[end].isspace()


DESTINATION_ENDS = frozenset(")>\"'|")  # what follows a destination as written
# what an empty destination is written between (`[a]()`, `[a](<>)`, `src=""`)
EMPTY_OPENERS = (("](", ")"), ('src="', '"'), ("src='", "'"), ('href="', '"'),
                 ("href='", "'"))


def _empty_after(line: str, col: int, pair: tuple[str, str]) -> tuple[int, int]:
    """(start, end) of the first empty destination written between `pair` in `line` from
    `col` on (a Markdown one may hold spaces and `<>`): its start is right after the
    opener; (-1, -1) when there is none."""
    opener, closer = pair
    at = line.find(opener, col)
    while at >= 0:
        start = end = at + len(opener)
        if opener == "](":
            while end < len(line) and line[end] == " ":
                end += 1
            if line.startswith("<>", end):
                end += 2
            while end < len(line) and line[end] == " ":
                end += 1
        if line.startswith(closer, end):
            return start, end + len(closer)
        at = line.find(opener, at + 1)
    return -1, -1


class Locator:
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
            found = self._find_escaped(candidates[0])
            return found if found[2] else self._find_decoded(*candidates[:2])
        return self._find_empty()

    def _find_empty(self) -> tuple[int, int, str]:
        """Line and column of the next empty destination written (`[a]()`, `[a](<>)`,
        `[a]( )`, `src=""`): the column right after its opener; the first line, column 1
        when there is none."""
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            line = self.lines[row]
            ends = [e for e in (_empty_after(line, col, o) for o in EMPTY_OPENERS) if e[0] >= 0]
            if ends:
                at, end = min(ends)
                self.row, self.col = row, end
                return row + self.offset, at + 1, ""
            row, col = row + 1, 0
        return self.first + self.offset, 1, ""

    def _find_decoded(self, href: str, target: str = "") -> tuple[int, int, str]:
        """Line and column of a destination written otherwise than it reads (`m&#101;.md`,
        `x&amp;y.md`), its text "": `--fix` cannot write it (`written.decoded_start`)."""
        if len(href) > MAX_ESCAPED_SEARCH:
            return self.first + self.offset, 1, ""
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            at = decoded_start(self.lines[row], col, href, target or unquote(href))
            if at >= 0:
                self.row, self.col = row, at + 1
                return row + self.offset, at + 1, ""
            row, col = row + 1, 0
        return self.first + self.offset, 1, ""

    def find_plain(self, text: str) -> tuple[int, int]:
        """Where `text` starts; text written over several lines (inline math) is found by
        its first line, and the search goes on after its last."""
        head, *more = text.split("\n")
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            idx = self.lines[row].find(head, col)
            if idx >= 0:
                self.row, self.col = row + len(more), len(more[-1]) if more else idx + len(head)
                return row + self.offset, idx + 1
            row, col = row + 1, 0
        return self.first + self.offset, 1

    def find_run(self, text: str) -> tuple[int, int, bool]:
        """Where a run of text (one line) starts, and whether it is written with its pipes
        escaped (`\\|`, in a table cell); the first line, column 1 when not found."""
        for cell in (False, True) if "|" in text else (False,):
            row, col = self.row, self.col
            written = cell_escaped(text) if cell else text
            while row < self.last and row < len(self.lines):
                idx = self.lines[row].find(written, col)
                if idx >= 0:
                    self.row, self.col = row, idx + len(written)
                    return row + self.offset, idx + 1, cell
                row, col = row + 1, 0
        return self.first + self.offset, 1, False

    @staticmethod
    def _first(line: str, cand: str, col: int) -> int:
        """Earliest place `cand` follows a destination opener written from `col` on (so not
        the link text). Reads the line up to there once (a line of thousands of links is
        located in linear time), not once per opener."""
        at = line.find(cand, col)
        while at >= 0:
            if any(at - len(o) >= col and line.startswith(o, at - len(o)) for o in OPENERS) \
                    and _ends_destination(line, at + len(cand)):
                return at
            at = line.find(cand, at + 1)
        return 0 if col == 0 and line.startswith(cand) and _ends_destination(line, len(cand)) \
            else -1

    def _find_escaped(self, target: str) -> tuple[int, int, str]:
        """The destination as written when Markdown escapes changed it (`..\\..` -> `...`).

        Only for destinations up to MAX_ESCAPED_SEARCH characters: each attempt of the search
        may read as far as the target is long, so a long one would cost quadratic time."""
        if len(target) > MAX_ESCAPED_SEARCH:
            return self.first + self.offset, 1, ""
        pattern = re.compile("(?<=[(<:\"'=\\s])" + "".join(
            "\\\\?" + re.escape(c) if c in ASCII_PUNCT else re.escape(c) for c in target))
        row, col = self.row, self.col
        while row < self.last and row < len(self.lines):
            m = pattern.search(self.lines[row], col)
            while m and not _ends_destination(self.lines[row], m.end()):
                m = pattern.search(self.lines[row], m.start() + 1)
            if m:
                self.row, self.col = row, m.end()
                return row + self.offset, m.start() + 1, m.group(0)
            row, col = row + 1, 0
        return self.first + self.offset, 1, ""
