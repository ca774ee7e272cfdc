"""What every part of the chunker shares: its settings, the file text, and making a Chunk.

`ChunkConfig` holds the sizes; `SourceText` is the file text with line <-> offset arithmetic
and its cut into sentence units (`sentences`); `ChunkMaker` is the one place a `Chunk` record
is made from a span of that text (heading-path prefix, the titles of the Obsidian callouts it
starts inside, embed text, links, hash).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from kbtools.build.records import Chunk
from kbtools.build.xref import HeadingIndex, find_links
from kbtools.config import DEFAULTS, Config
from kbtools.errors import ConfigError
from kbtools.markdown.doctree import Block, Code, Document, Html, MathBlock, Paragraph, Quote
from kbtools.markdown.parser import callout_marker

PATH_SEP = " › "
GONE = "\x00"  # marks where hidden markup was while `SourceText.shown` drops emptied lines
# Linear time on any text: a run of dots is tried once from its first dot and never given
# back; a blank line is looked for on the next line only; a link's text holds no `[` and its
# destination at most one level of balanced parentheses, so no match attempt reads past the
# opener of the next one.
SENTENCE_END = re.compile(r"[。！？；!?]+[”’\"'」』）)\]]*|(?<!\.)\.++[”’\"')\]]*+(?=\s|$)"
                          r"|\n(?=[^\S\n]*\n)")
CLAUSE_END = re.compile(r"[，、：,:;]\s*|\s+")
# a quotation within a line (“…”, 「…」, 『…』): no sentence cut inside one shorter than the
# target size (`SourceText.sentences`); linear: a match attempt stops at the next opener
QUOTED = re.compile(r"“[^“”\n]*+”|「[^「」\n]*+」|『[^『』\n]*+』")
PROTECTED_INLINE = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$|`[^`\n]+`"
                              r"|\[[^\[\]\n]*\]\((?:[^()\n]|\([^()\n]*\))*+\)", re.S)


@dataclass(frozen=True)
class ChunkConfig:
    """Sizes in characters (a CJK character counts one). Defaults: kbtools.config.DEFAULTS."""

    target_chars: int = DEFAULTS["chunk"]["target_chars"]
    max_chars: int = DEFAULTS["chunk"]["max_chars"]
    min_chars: int = DEFAULTS["chunk"]["min_chars"]
    overlap_chars: int = DEFAULTS["chunk"]["overlap_chars"]

    def __post_init__(self) -> None:
        if not (0 < self.min_chars <= self.target_chars <= self.max_chars):
            raise ConfigError("[chunk] needs 0 < min_chars <= target_chars <= max_chars, got "
                              f"{self.min_chars}, {self.target_chars}, {self.max_chars}")
        if not 0 <= self.overlap_chars < self.target_chars:
            raise ConfigError("[chunk] overlap_chars must be >= 0 and < target_chars")

    @classmethod
    def from_config(cls, cfg: Config) -> ChunkConfig:
        sec = cfg.section("chunk")
        try:
            return cls(**{k: int(sec.get(k, getattr(cls, k))) for k in
                          ("target_chars", "max_chars", "min_chars", "overlap_chars")})
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[chunk]: {exc}", path=str(cfg.root / "kb.toml")) from None

    @property
    def embed_cap(self) -> int:
        """Longest embed_text body (tables and code can be far longer than max_chars)."""
        return 2 * self.max_chars


@dataclass(frozen=True)
class Unit:
    """A span that is cut whole: a block, or a sentence (clause) of a long one."""

    start: int  # char offsets into the file text
    end: int
    block: Block | None = None
    sentence: bool = False


class SourceText:
    """The file text with line <-> offset conversion (lines are 1-based), and the spans of
    it a reader does not see (`Document.hidden`: HTML tags and comments)."""

    def __init__(self, lines: tuple[str, ...], hidden: tuple[tuple[int, int, str], ...] = (),
                 markers_only: frozenset[int] = frozenset()):
        self.text = "\n".join(lines)
        self.markers_only = markers_only  # lines of quote markers alone (`quote_blank_lines`)
        self.starts = [0]
        for line in lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.lines = lines
        self.hidden = hidden
        self.hidden_ends = [b for _, b, _ in hidden]
        # a NUL of the file (`kb check` refuses it) would read as a `GONE` mark: such a file
        # keeps its emptied lines in every span alike (a span's text stays within its lines')
        self.has_nul = GONE in self.text

    def shown(self, start: int, end: int) -> str:
        """The text in [start, end) as a reader sees it: HTML tags and comments left out
        (`<br>` a space), a line that held nothing else dropped, with a blank line after it
        when one is before it."""
        i = bisect.bisect_right(self.hidden_ends, start)
        if i == len(self.hidden) or self.hidden[i][0] >= end:
            return self.text[start:end]
        pieces, pos = [], start
        gone = "" if self.has_nul else GONE
        while i < len(self.hidden) and self.hidden[i][0] < end:
            a, b, instead = self.hidden[i]
            a, b = max(a, start, pos), min(b, end)
            if b > a:
                pieces += [self.text[pos:a], instead or gone]
                pos = b
            i += 1
        pieces.append(self.text[pos:end])
        if self.has_nul:  # markup left out, the lines it emptied and the file's NULs kept
            return "".join(pieces)
        kept: list[str] = []
        skip_blank = False
        for line in "".join(pieces).split("\n"):
            if GONE in line and not line.replace(GONE, "").strip():
                skip_blank = not kept or not kept[-1].strip()
                continue
            if skip_blank and not line.strip():
                skip_blank = False
                continue
            skip_blank = False
            kept.append(line.replace(GONE, ""))
        return "\n".join(kept).strip()

    def start(self, line: int) -> int:
        return self.starts[line - 1]

    def end(self, line: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1])

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def dedented(self, start: int, shown: str) -> str:
        """`shown`, the text from `start`, with the indentation of a block nested in a list
        item (a table or a paragraph under ``1. Step``) taken off its lines after the first,
        as `trim` took it off the first: when the first line's text starts at its line's
        first non-space character, every later line loses up to that many leading spaces
        (no more than all of them hold), so their layout relative to each other stays."""
        line_start = self.text.rfind("\n", 0, start) + 1
        indent = start - line_start
        if not indent or "\n" not in shown or self.text[line_start:start].strip(" \t"):
            return shown
        first, *rest = shown.split("\n")
        held = [len(line) - len(line.lstrip(" \t")) for line in rest if line.strip()]
        cut = min([indent, *held])
        if not cut:
            return shown
        return "\n".join([first, *(line[cut:] if line.strip() else "" for line in rest)])

    def trim(self, start: int, end: int) -> tuple[int, int]:
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end

    def seen(self, line: int) -> bool:
        """Whether a reader sees anything of `line`: not blank, nor all hidden markup (an
        Obsidian `%% comment %%`, an HTML comment)."""
        return self.shows(self.start(line), self.end(line))

    def shows(self, start: int, end: int) -> bool:
        """Whether a reader sees anything of [start, end), a span of one line: not only
        whitespace, hidden markup or the `>` of a blank line of a quote or callout."""
        if self.markers_only and self.line_of(start) in self.markers_only:
            return False
        return bool(self.text[start:end].strip()) and bool(self.shown(start, end).strip())

    def trim_unseen(self, start: int, end: int) -> tuple[int, int]:
        """[start, end) trimmed, less its first and last lines' parts a reader does not see
        (whitespace, hidden markup): a citation's lines start and end at lines read."""
        start, end = self.trim(start, end)
        while start < end and not self.shows(start, min(end, self.end(self.line_of(start)))):
            start, end = self.trim(self.end(self.line_of(start)), end)
        while end > start and not self.shows(max(start, self.start(self.line_of(end - 1))), end):
            start, end = self.trim(start, self.start(self.line_of(end - 1)))
        return start, end

    def sentences(self, start: int, end: int, cfg: ChunkConfig, fine: bool = False) -> list[Unit]:
        """Sentence units covering [start, end); protected inline spans are never cut.

        `fine` cuts at clauses and spaces instead, and hard-cuts what is still longer than
        max_chars, so nothing exceeds it."""
        quoted = 0 if fine else cfg.target_chars
        out = self._cut(start, end, CLAUSE_END if fine else SENTENCE_END, every_cut=fine,
                        quoted=quoted)
        if fine:
            out = _hard_cuts(out, cfg)
        trimmed = [self.trim(u.start, u.end) for u in out]
        return [Unit(a, b, sentence=True) for a, b in trimmed if b > a] or \
            [Unit(start, end, sentence=True)]

    def _cut(self, start: int, end: int, pattern: re.Pattern[str], every_cut: bool,
             quoted: int = 0) -> list[Unit]:
        """Units ending at each match of `pattern` outside a protected inline span, and
        outside a quotation of at most `quoted` characters (0: none is kept whole); unless
        `every_cut`, a unit is at least two characters long."""
        text = self.text[start:end]
        spans = [(m.start(), m.end()) for m in PROTECTED_INLINE.finditer(text)]
        if quoted:
            spans += [m.span() for m in QUOTED.finditer(text) if m.end() - m.start() <= quoted]
        guard = _merged(spans)
        starts = [a for a, _ in guard]  # sorted, and the spans do not overlap
        cuts = [m.end() for m in pattern.finditer(text) if not _guarded(m.end(), guard, starts)]
        out: list[Unit] = []
        prev = 0
        for cut in cuts + [len(text)]:
            if cut <= prev:
                continue
            if every_cut or cut - prev >= 2:
                out.append(Unit(start + prev, start + cut, sentence=True))
                prev = cut
        if prev < len(text):
            out.append(Unit(start + prev, end, sentence=True))
        return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` sorted, those that overlap joined (a code span inside a quotation)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _guarded(pos: int, guard: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether `pos` lies strictly inside one of the (sorted, disjoint) `guard` spans."""
    i = bisect.bisect_left(starts, pos) - 1
    return i >= 0 and guard[i][0] < pos < guard[i][1]


def _hard_cuts(units: list[Unit], cfg: ChunkConfig) -> list[Unit]:
    """Units longer than max_chars cut every target_chars (no clause break in reach)."""
    out: list[Unit] = []
    for u in units:
        a = u.start
        while u.end - a > cfg.max_chars:
            out.append(Unit(a, a + cfg.target_chars, sentence=True))
            a += cfg.target_chars
        out.append(Unit(a, u.end, sentence=True))
    return out


def quote_blank_lines(doc: Document) -> frozenset[int]:
    """The lines of a quote (an Obsidian callout) holding its `>` markers alone (`>`, `> >`):
    blank lines of the quote, which no reader sees, so no citation starts or ends on one
    and none is a code block's or formula's line before or after. A line of a code block,
    formula or HTML block inside the quote is its content, never one of them."""
    quoted: set[int] = set()
    content: set[int] = set()
    for _, block in doc.blocks():
        if isinstance(block, Quote):
            quoted.update(range(block.line_start, block.line_end + 1))
        elif isinstance(block, (Code, MathBlock, Html)):
            content.update(range(block.line_start, block.line_end + 1))
    return frozenset(n for n in quoted - content
                     if 0 < n <= len(doc.lines) and _markers_only(doc.lines[n - 1]))


def _markers_only(line: str) -> bool:
    """Whether `line` holds quote markers (`>`) and blanks only, at least one marker."""
    return ">" in line and not line.replace(">", "").strip(" \t")


def unquoted(text: str) -> str:
    """`text` without the quote markers (`>`, `> >`) opening its lines: a callout's title or
    a quoted lead-in as the words a reader sees."""
    out = []
    for line in text.split("\n"):
        line = line.lstrip()
        while line.startswith(">"):
            line = line[1:].lstrip()
        out.append(line)
    return "\n".join(out).strip()


@dataclass(frozen=True)
class Callout:
    """An Obsidian callout's lines (its title's line first) and its title as a reader sees
    it (the type's name as written when the marker has none: `[!TIP]` reads `TIP`)."""

    first: int
    last: int
    title: str


def callouts(doc: Document, t: SourceText) -> tuple[Callout, ...]:
    """The callouts of `doc` (nested ones too), in document order: the quotes whose first
    paragraph opens with `[!type]` (`kbtools.markdown.parser.callout_marker`)."""
    out = []
    for _, block in doc.blocks():
        if not (isinstance(block, Quote) and block.children
                and isinstance(block.children[0], Paragraph)):
            continue
        line = block.children[0].line_start
        if callout_marker(unquoted(doc.lines[line - 1])) is None:
            continue
        title = unquoted(t.shown(t.start(line), t.end(line)))
        if title:
            out.append(Callout(line, block.line_end, title))
    return tuple(out)


class ChunkMaker:
    """Makes the Chunk records of one document from spans of its text."""

    def __init__(self, doc: Document, cfg: ChunkConfig, resolver: HeadingIndex):
        self.doc, self.cfg, self.resolver = doc, cfg, resolver
        self.t = SourceText(doc.lines, doc.hidden, quote_blank_lines(doc))
        # lines of headings, for the links of every chunk (`find_links`): found once, not per
        # chunk (a 2 MB manual: chunks × headings)
        self.heading_lines = frozenset(h.line_start for _, h in doc.headings())
        self.callouts = callouts(doc, self.t)
        # the callouts each line lies in below their title's line, outer ones first (they
        # come in document order): a chunk's titles are looked up, not searched for among
        # all of the document's callouts (a manual of hundreds of them: chunks × callouts)
        self.inside: dict[int, list[Callout]] = {}
        for c in self.callouts:
            for line in range(c.first + 1, c.last + 1):
                self.inside.setdefault(line, []).append(c)

    def titles(self, line: int, body: str) -> str:
        """The titles of the callouts a chunk starting at `line` starts inside, below their
        title's line (outer ones first), each on a line of its own, less one the embedded
        `body` opens with: a callout's title is to what it holds what a heading is to its
        section, so a search for the title's words finds a piece of a long callout, or an
        item of a list in one after its own lead-in, as it finds the first."""
        first = unquoted(body.split("\n", 1)[0])
        return "".join(f"{c.title}\n" for c in self.inside.get(line, ()) if c.title != first)

    def prefix(self, path: tuple[str, ...]) -> str:
        """"Title › heading › sub-heading", the first line of every embed text."""
        parts = list(path)
        if parts and parts[0] == self.doc.title:
            parts = parts[1:]
        return PATH_SEP.join([self.doc.title, *parts])

    def chunk(self, kind: str, path: tuple[str, ...], start: int, end: int, *,
              text: str | None = None, embed: str | None = None,
              extra: dict[str, Any] | None = None) -> Chunk:
        """A chunk of the text in [start, end) (trimmed); `text` replaces the display text,
        `embed` the embedded body. Links are found in the span; the id is set later."""
        start, end = self.t.trim_unseen(start, end)
        body = self.t.dedented(start, self.t.shown(start, end)) if text is None else text
        embed_body = body if embed is None else embed
        if len(embed_body) > self.cfg.embed_cap:
            embed_body = embed_body[: self.cfg.embed_cap].rstrip() + " …"
        embed_text = f"{self.prefix(path)}\n{self.titles(self.t.line_of(start), embed_body)}" \
            f"{embed_body}"
        links = find_links(self.t.text[start:end], self.t.line_of(start), self.doc, self.resolver,
                           self.heading_lines)
        return Chunk(id="", doc=self.doc.rel, heading_path=tuple(path), kind=kind,
                     line_start=self.t.line_of(start),
                     line_end=self.t.line_of(max(start, end - 1)),
                     text=body, embed_text=embed_text, metadata=dict(self.doc.meta),
                     content_hash=hashlib.sha256(embed_text.encode("utf-8")).hexdigest(),
                     links=links, extra=extra or {})
