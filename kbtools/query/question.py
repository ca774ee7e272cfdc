"""The question as searched: cleaned, and a long one (a pasted log, a stack trace, a config
file) condensed to its distinctive lines instead of cut at its head.

A technician pastes what the screen shows: 60 lines of routine log and, on line 50, the alarm
whose code the knowledge explains. Cut at `MAX_QUERY_CHARS`, such a question lost the one line
that mattered (a Python traceback ends with its exception, a log's alarm is anywhere). Here a
question longer than the searched length is split into pieces (its lines, a long line at its
sentences and spaces), and the pieces are taken greedily by the index's term weights they add
(the sum of the idf of the known terms no piece taken so far holds), until the searched length
is full; they are searched in their original order. Routine lines add nothing once one of them
is taken, a base64 blob or a hash holds no term the index knows, so what is searched is the
alarm, the exception and the user's own words. A question within the searched length is
searched as it is cleaned, so the ranking of every ordinary question is unchanged.

Work is linear in the question: at most `MAX_QUESTION_CHARS` are read (the JSON API, the MCP
tools and `kb query` refuse longer ones), each piece is tokenized once. Either bound is said
to whoever asked (`Searched.condensed`: the response's ``condensed``, a line of `kb query`):
an answer to 1,000 characters chosen from an 8,000-character log must not look like an
answer to the whole log.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kbtools.errors import INVISIBLE, UsageError, valid_unicode
from kbtools.index.spellings import code_dashes

MAX_QUERY_CHARS = 2000  # searched (BM25, the question's vector, the identifiers)
MAX_QUESTION_CHARS = 10_000  # read of a question: an 8 KB log fits; surfaces refuse more
PIECE_CHARS = 200  # a long line is taken in pieces of at most this many characters
# a piece is taken when it adds at least this share of what the best piece adds: a log line
# that adds only its counter and timestamp (numbers any index holds) is routine
MIN_GAIN_SHARE = 0.1
# a question of at least this many lines or characters is a paste (a log, a traceback, a SQL
# statement, a list of settings): it holds the user's own names too. The dev sets' 2,377
# questions are one line each, the longest 204 characters; a question and a "thanks" are two.
PASTE_LINES = 3
PASTE_CHARS = 220

# an ANSI escape sequence (a coloured terminal log): CSI ... final byte, or ESC and one byte
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])")
# a number standing alone (a timestamp, a counter, a reading: not the digits of E17 or h5.py)
_NUMBER = re.compile(r"(?<![^\W_])\d+(?:[.:,]\d+)*")

Weigh = Callable[[str], dict[str, float]]  # a piece -> {known term: its weight}


def clean_lines(query: str, *, clauses: bool = False) -> list[str]:
    """The question's non-empty lines, each as searched: valid Unicode (undecodable bytes and
    lone surrogates from argv, a --batch file or MCP dropped), NFKC, no ANSI colour codes, no
    control characters, no invisible format characters, whitespace collapsed, a dash joining
    two letters or digits a hyphen (``HX–260`` as HX-260: `code_dashes`). At most
    `MAX_QUESTION_CHARS` of the question are read. With `clauses`, a full-width comma is
    ", " (`valued_text`)."""
    text = valid_unicode(str(query or "")[:MAX_QUESTION_CHARS]).replace("\ufffd", " ")
    if clauses:
        text = text.replace("\uff0c", ", ")
    text = unicodedata.normalize("NFKC", text)[: 4 * MAX_QUESTION_CHARS]  # NFKC may expand
    text = code_dashes(INVISIBLE.sub("", _ANSI.sub(" ", text)))
    lines = (" ".join(_CONTROL.sub(" ", line).split()) for line in text.splitlines())
    return [line for line in lines if line]


def is_blank(query: str) -> bool:
    """Is there nothing to ask: no character left once the question is cleaned
    (`clean_lines`)? Empty, spaces (a full-width one, a line break), control characters (a
    NUL, a tab, an escape) or invisible ones (a zero-width space) alone. One rule for every
    surface (`refuse_blank`); a question of marks or emoji alone holds characters, and is
    answered "no word to search" (`has_words`)."""
    return not clean_lines(query)


def refuse_blank(query: str, named: str, *, path: str | None = None,
                 line: int | None = None) -> None:
    """A `UsageError` naming the argument the question came by (`named`: ``QUESTION``,
    ``'query' (the question)``, a questions file's ``"query"`` at `path`:`line`) when it is blank
    (`is_blank`): searched, it answered "no answer" and succeeded, as if asked and not
    known, where the caller sent nothing to ask."""
    if is_blank(query):
        said = "empty" if not query else "blank (only spaces, control or invisible characters)"
        raise UsageError(f"{named} is {said}: ask something", path=path, line=line)


@dataclass(frozen=True)
class Searched:
    """What is searched for a question: `text`, out of `chars` characters asked, of which
    the first `read` were read (`MAX_QUESTION_CHARS`); `condensed`: the text is fewer than
    the question's cleaned characters (its most telling pieces, or its head); `paste`: the
    question is pasted text (`is_paste`), and `lines` its `pieces` searched (its lines, a
    long one cut), each of which may be what the paste is about."""

    text: str
    chars: int
    read: int
    condensed: bool
    paste: bool = False
    lines: tuple[str, ...] = ()

    def report(self) -> dict[str, Any] | None:
        """The bound as a response reports it (None: the question was searched whole)."""
        if not self.condensed and self.read == self.chars:
            return None
        return {"question_chars": self.chars, "read_chars": self.read,
                "searched_chars": len(self.text), "max_searched_chars": MAX_QUERY_CHARS}


def searched_question(query: str, weigh: Weigh) -> Searched:
    """The text searched for `query`: its cleaned lines as one line, or, longer than
    `MAX_QUERY_CHARS`, its pieces that add the most term weight (`weigh`), in their order;
    with how much of the question that is."""
    query = str(query or "")
    read = min(len(query), MAX_QUESTION_CHARS)
    lines = clean_lines(query)
    text = " ".join(lines)
    paste = is_paste(lines)
    if len(text) <= MAX_QUERY_CHARS:
        return Searched(text, len(query), read, False, paste,
                        tuple(pieces(lines)) if paste else ())
    parts = distinct_shapes(pieces(lines))
    short = " ".join(parts)
    if len(short) > MAX_QUERY_CHARS:
        short = condense(parts, weigh, MAX_QUERY_CHARS)
    return Searched(short, len(query), read, len(short) < len(text), paste,
                    tuple(p for p in parts if p in short) if paste else ())


_RUN = re.compile(r"[^\W_]+")  # a run of letters, digits or Chinese characters
_LATIN_RUN = re.compile(r"[A-Za-z0-9]+")


def has_words(text: str) -> bool:
    """Does the (cleaned) question hold a word to search: a run of two letters or digits or
    more (E17, ok, 17), or a letter of another script (锈, a Chinese word of one character)?
    One Latin letter or digit, a few of them apart, or marks alone (``E``, ``x y``, ``5``,
    ``？！。``) name nothing: BM25 would answer them from whatever chunk holds the letter as a
    token (the e of e-mail)."""
    norm = unicodedata.normalize("NFKC", text)
    return any(not _LATIN_RUN.fullmatch(run) or len(run) > 1 for run in _RUN.findall(norm))


def valued_text(query: str, asked: Searched) -> str:
    """The text a question's values are read from for the decision tables
    (`kbtools.query.answers.evaluate_question`): the searched text (`asked`), but with its
    full-width commas ending clauses (", "), where NFKC made them "," that `compacted.compact`
    cannot tell from a number's (湿度84.9，26℃ is no 84.9,26; 温度26，800小时 no 26800). The
    search itself reads "," as before: the question's vector is embedded from its text."""
    if asked.condensed or "\uff0c" not in str(query or "")[:MAX_QUESTION_CHARS]:
        return asked.text
    return " ".join(clean_lines(query, clauses=True))


def is_paste(lines: Sequence[str]) -> bool:
    """Is a question of these cleaned lines pasted text rather than a question typed: at
    least `PASTE_LINES` lines or `PASTE_CHARS` characters? A paste carries the user's own
    names (``gc_worker.go``, ``self._query``, ``t2.name``): that the knowledge lacks them
    says nothing of what it is about (`kbtools.query.fusion.answerable`)."""
    return len(lines) >= PASTE_LINES or sum(map(len, lines)) + len(lines) - 1 >= PASTE_CHARS


def question_text(query: str, weigh: Weigh) -> str:
    """The text searched for `query` (`searched_question`)."""
    return searched_question(query, weigh).text


def distinct_shapes(parts: Iterable[str]) -> list[str]:
    """The first part of each shape: the same text but for its numbers standing alone (a
    log's routine line repeated with other timestamps, counters and readings is one)."""
    seen: set[str] = set()
    out = []
    for part in parts:
        shape = _NUMBER.sub("#", part.casefold())
        if shape not in seen:
            seen.add(shape)
            out.append(part)
    return out


def pieces(lines: Iterable[str]) -> Iterable[str]:
    """Each line, a long one at its sentence ends and spaces (a word longer than a piece is
    cut), in pieces of at most PIECE_CHARS characters."""
    for line in lines:
        if len(line) <= PIECE_CHARS:
            yield line
            continue
        piece = ""
        for sentence in _SENTENCE_END.split(line):
            for word in sentence.split(" "):
                while len(word) > PIECE_CHARS:
                    if piece:
                        yield piece
                        piece = ""
                    yield word[:PIECE_CHARS]
                    word = word[PIECE_CHARS:]
                if not word:
                    continue
                if piece and len(piece) + 1 + len(word) > PIECE_CHARS:
                    yield piece
                    piece = ""
                piece = f"{piece} {word}" if piece else word
        if piece:
            yield piece


def condense(parts: Sequence[str], weigh: Weigh, budget: int) -> str:
    """The parts that add the most term weight, taken greedily (the weight of the terms no
    part taken so far holds; lazily re-scored, as for any coverage function) while they add
    at least `MIN_GAIN_SHARE` of what the first one added and fit in `budget` characters,
    joined in their original order. A part's numbers standing alone count for nothing here
    (they are what a log's lines and a stack's frames differ by, and a small index knows
    most small numbers), though a part taken is searched with them. A question of routine
    lines is searched as its most telling ones; one without any term the index knows, as its
    head."""
    weights = [weigh(_NUMBER.sub(" ", p)) for p in parts]
    covered: set[str] = set()
    heap = [(-sum(w.values()), i) for i, w in enumerate(weights) if w]
    heapq.heapify(heap)
    taken: list[int] = []
    used = -1  # the joining spaces: n parts take n - 1
    least = 0.0  # set by the first part taken
    while heap:
        _, i = heapq.heappop(heap)
        gain = sum(v for t, v in weights[i].items() if t not in covered)
        if gain <= least:
            continue
        if heap and -gain > heap[0][0]:  # another part may add more now: re-queue this one
            heapq.heappush(heap, (-gain, i))
            continue
        if used + 1 + len(parts[i]) > budget:
            continue
        if not taken:
            least = gain * MIN_GAIN_SHARE
        taken.append(i)
        used += 1 + len(parts[i])
        covered.update(weights[i])
    if not taken:  # nothing the index knows: the head, as before
        return " ".join(parts)[:budget]
    return " ".join(parts[i] for i in sorted(taken))
