"""Identifiers in a question, and the ranking rule that makes an exact identifier win.

An identifier is a code or name that means one thing exactly: fault codes and models (E17,
HX-260, RF-10), settings and symbols (``tidb_enable_fast_create_table``, TokenCache), scopes
and error strings (``kb:publish``, ``[ddl:8204]``), API paths (``/v3/clients/{id}/secrets``:
a letter or ``{`` in it, so a slashed date or fraction, 2024/03/01 or 1/2/3, is none)
and numbered sections or articles (4.3 节, 第 12 条, section 8.2), in Traditional script as
well (4.3 節, 第 12 條: the same identifiers), and codes typed as two words (``ERROR 9007``,
``Error 1105``, ``E 17``: `kbtools.query.codes.spaced_codes`; not ``Table 3`` or ``in 2``). Plain numbers and words are not identifiers, nor
is a count (12 条记录): an undotted number is a section only after 第.

`identifiers(question)` finds them; `match_level(ids, text, heading)` says how a chunk holds
them: two points per identifier it contains as a whole token (not inside a longer code: E17
is not in E170), one more when it is *about* one (a table row keyed by it — a line
``header: E17``, for a code typed as two words a line keyed by its prefix and stating its number,
``* Error Number: 9007`` (`kbtools.query.codes.key_line`) — or a heading that is it, or begins with it: a code or section number
followed by anything, a name only by its arguments, a bracketed note or the version that
brought it, as in ``tidb_gc_life_time 从 v5.0 版本开始引入``). `promote` stably re-sorts hits
so that a higher level always ranks first; inside a level the fused order stands. Search promotes
only the chunks *about* an identifier (odd levels, `is_about`): promoting every chunk that
merely mentions one lost more questions than it won on the dev sets (docs/retrieval.md).

Pure: imports nothing from kbtools but the pure `kbtools.query.codes`.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TypeVar

from kbtools.query.codes import key_line, spaced_codes, spaced_parts

_TOKEN = re.compile(r"\[[A-Za-z_]+:\d+\]"  # [ddl:8204]
                    r"|(?:/[A-Za-z0-9_{}.\-]+){2,}"  # /v3/clients/{client_id}/secrets
                    r"|[A-Za-z0-9][A-Za-z0-9_\-.:]*[A-Za-z0-9]")
# 节/章/条 and their Traditional forms 節/條 (章 is one form): 4.3 节, 第 4.3 節, 第 12 條
_UNITS = {"节": "节節", "章": "章", "条": "条條"}
_UNIT = "[" + "".join(_UNITS.values()) + "]"
_SECTION = re.compile(rf"(?:(?P<di>第)\s*(?P<n>\d+(?:\.\d+)*)|(?P<dotted>\d+(?:\.\d+)+))"
                      rf"\s*(?P<unit>{_UNIT})|(?:section|§)\s*(?P<en>\d+(?:\.\d+)*)",
                      re.IGNORECASE)
_ARTICLE = re.compile(r"第(\d+)([节章条])")  # an undotted numbered section: its own identifier
_CAMEL = re.compile(r"[a-z][A-Z]")
_PATH_WORD = re.compile(r"[A-Za-z{]")  # what makes /…/… an API path: a name or a {parameter}
H = TypeVar("H")


def _is_identifier(tok: str) -> bool:
    letters = any(ch.isalpha() for ch in tok)
    digits = any(ch.isdigit() for ch in tok)
    if letters and digits:
        return not re.fullmatch(r"\d+(?:\.\d+)?[A-Za-z]{1,3}", tok)  # 25MB, 10s, 2h: amounts
    return letters and ("_" in tok or bool(_CAMEL.search(tok)) or is_dotted_key(tok)
                        or bool(re.fullmatch(r"[a-z]+:[a-z_]+", tok)))


@lru_cache(maxsize=4096)  # asked of each identifier once per chunk that holds it
def is_dotted_key(tok: str) -> bool:
    """A configuration key written with its sections, as TOML and YAML documentation names
    one (``raftstore.store-pool-size``, ``storage.block-cache.capacity``, ``server.port``):
    two or more parts joined by ".", each of at least two ASCII letters, digits, "-" or "_",
    starting with a letter and ending with a letter or digit (not e.g, nor 4.3)."""
    parts = tok.split(".")
    return len(parts) > 1 and all(
        len(p) > 1 and p.isascii() and p[0].isalpha() and p[-1].isalnum()
        and all(ch.isalnum() or ch in "-_" for ch in p) for p in parts)


def identifiers(question: str) -> list[str]:
    """The identifiers of a question, in order, each once (case as written)."""
    text = unicodedata.normalize("NFKC", question)
    out: list[str] = []
    for m in _SECTION.finditer(text):
        out.append(_section(m))
    for m in _TOKEN.finditer(text):
        tok = m.group(0).rstrip(".:-")
        if tok.startswith("/") and not _PATH_WORD.search(tok):
            continue  # 2024/03/01, 1/2/3: a date or fraction (its digits are no identifier)
        if tok.startswith(("[", "/")) or _is_identifier(tok):
            out.append(tok)
    out += [f"{prefix} {number}" for prefix, number in spaced_codes(text)]  # ERROR 9007
    first: dict[str, str] = {}
    for t in out:
        first.setdefault(t.casefold(), t)
    return list(first.values())


def _section(m: re.Match[str]) -> str:
    """The identifier of a section reference: its number when dotted (4.3), else 第N条 with the
    unit in Simplified script (a bare 12 would match every other 12 of the index)."""
    number = m.group("n") or m.group("dotted") or m.group("en")
    if m.group("en") or "." in number:
        return number
    unit = next(u for u, forms in _UNITS.items() if m.group("unit") in forms)
    return f"第{number}{unit}"


@lru_cache(maxsize=256)  # a search asks for each of its identifiers once per candidate
def _pattern(ident: str) -> re.Pattern[str]:
    if article := _ARTICLE.fullmatch(ident):  # 第12条 also as 第 12 條
        number, unit = article.groups()
        return re.compile(rf"第\s*{number}\s*[{_UNITS[unit]}]")
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(ident)}(?![A-Za-z0-9_]|\.\d)", re.IGNORECASE)


_CODE = re.compile(r"[A-Z]{1,5}-?\d+[A-Z]?|\d+(?:\.\d+)+|第\d+[节章条]")  # E17, 4.3, 第12条


def _heads(ident: str, heading: str) -> bool:
    """The heading is the identifier, or begins with it: a code or section number followed by
    anything (E17 伺服过载, 4.3 液压系统), any other identifier by only a `_NOTE`."""
    head = heading.strip().strip("`")
    if head.casefold() == ident.casefold():
        return True
    lowered = _lowered(head)
    if lowered is None or not ident.isascii():
        m = _pattern(ident).match(head)
        end = m.end() if m else -1
    else:
        whole = lowered.startswith(ident.lower()) and _whole_token(head, 0, len(ident))
        end = len(ident) if whole else -1
    return end >= 0 and (bool(_CODE.fullmatch(ident)) or spaced_parts(ident) is not None
                         or bool(_NOTE.match(head, end)))


# What may follow a setting's or function's name in a heading about it: its arguments or a
# note in brackets (``MERGE_JOIN(t1_name)``, ``alter-primary-key（已废弃）``) or the version
# that brought it (``tidb_gc_life_time 从 v5.0 版本开始引入``, ``foo (since 2.1)``); not
# further words (``pre_split_regions 示例`` is a part of what the heading ``pre_split_regions``
# is about).
_NOTE = re.compile(r"\s*[(（\[【<]|.*?(?<![A-Za-z0-9_.])v?\d+\.\d+")


# The characters beyond ASCII that re's case-insensitive matching takes for an ASCII letter
# (İ ı for i, ſ for s, the Kelvin sign for k; tests/test_query_hotpath.py checks the list)
ASCII_FOLDS = "\u0130\u0131\u017f\u212a"


_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_QUOTES = "`'\""


def _lowered(text: str) -> str | None:
    """`text` lower-cased, where that makes comparing it with an ASCII identifier exactly
    what the identifier's case-insensitive regex does, character for character: None when
    it holds one of `ASCII_FOLDS` (İ is also the one character whose lower case is two)."""
    if any(ch in text for ch in ASCII_FOLDS):
        return None
    return text.lower()


def _whole_token(text: str, start: int, end: int) -> bool:
    """`text[start:end]` stands as a whole token: `_pattern`'s look-behind and look-ahead (no
    ASCII letter, digit or _ either side, no "." and a digit after: not inside E170 or
    4.3.1). For a text `_lowered` does not refuse, where no other character counts as an
    ASCII letter; ``str.isdecimal`` is the regex's ``\\d``."""
    if start and text[start - 1] in _WORD:
        return False
    if end < len(text):
        nxt = text[end]
        if nxt in _WORD or (nxt == "." and end + 1 < len(text) and text[end + 1].isdecimal()):
            return False
    return True


def _holds(ident: str, text: str, lowered: str | None) -> bool:
    """`_pattern(ident).search(text)`: for an ASCII identifier in a text `_lowered` takes,
    by substring search (compiling the identifier's regex costs ~0.2 ms, more than
    searching the few dozen candidates a question ranks); else the regex itself.
    `lowered`: `_lowered(text)`."""
    if lowered is None or not ident.isascii():
        return bool(_pattern(ident).search(text))
    low, n = ident.lower(), len(ident)
    at = lowered.find(low)
    while at >= 0:
        if _whole_token(text, at, at + n):
            return True
        at = lowered.find(low, at + 1)
    return False


def _is_key_line(ident: str, line: str) -> bool:
    """`_key_line(ident).fullmatch(line)` for an ASCII identifier that neither starts nor
    ends with white space or a quote, and a line `_lowered` takes: 1-40 characters up to the
    line's first colon (":" or "："), then only the identifier, after any white space, in
    optional quotes."""
    colons = [i for i in (line.find(":"), line.find("：")) if i >= 0]
    cut = min(colons, default=-1)
    if not 1 <= cut <= 40 or "\n" in line[:cut]:
        return False
    rest = line[cut + 1:].lstrip().lower()
    first = 1 if rest[:1] and rest[0] in _QUOTES else 0
    last = len(rest) - 1 if len(rest) - 1 > first and rest[-1] in _QUOTES else len(rest)
    return rest[first:last] == ident.lower()


# Full-width punctuation of Chinese text → the ASCII character that is its whole NFKD.
# Decomposition is per character and these have no compositions, so replacing them leaves
# the text's NFKC unchanged; what remains is usually NFKC already.
_FULL_WIDTH = tuple((chr(0xFEE0 + ord(c)), c) for c in ":,()?;!")


_MARKS = re.compile(r"[\W_]+")


def only_identifiers(question: str, found: Sequence[str]) -> bool:
    """Is `question` its identifiers `found` (`identifiers`) and nothing else but spaces and
    marks (``ENC-5M``, ``E17?``, ``FAN-92 SQ-110``)? A chunk merely holding one of them then
    answers it as well as any: there are no other words for the ranking to weigh."""
    rest = unicodedata.normalize("NFKC", question)
    for ident in sorted(found, key=len, reverse=True):
        rest = re.sub(re.escape(ident), " ", rest, flags=re.IGNORECASE)
    return bool(found) and not _MARKS.sub("", rest)


def nfkc(text: str) -> str:
    """unicodedata.normalize("NFKC", text), for the common case (Chinese text whose only
    compatibility characters are full-width ：，（） …) some 10× faster: those replaced,
    then checked rather than normalised (`is_normalized` costs a fraction of `normalize`)."""
    for wide, narrow in _FULL_WIDTH:
        if wide in text:
            text = text.replace(wide, narrow)
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=256)
def _key_line(ident: str) -> re.Pattern[str]:
    return re.compile(rf"[^:：\n]{{1,40}}[:：]\s*[`'\"]?{re.escape(ident)}[`'\"]?", re.IGNORECASE)


def _heading_key(heading: str) -> list[str] | None:
    """The key a heading names, split at its dots: the heading's first word (out of
    backticks or TOML's table brackets: ``[raftstore]``) when nothing or only a `_NOTE`
    follows it (``log 从 v5.4.0 版本开始引入``); None for a heading of words."""
    words = nfkc(heading).split(None, 1)
    if not words:
        return None
    word = words[0].strip("`[]")
    if len(words) > 1 and not _NOTE.match(" " + words[1]):
        return None
    parts = word.split(".")
    return parts if all(parts) else None


def path_names(ident: str, heading: str, parents: Sequence[str]) -> bool:
    """Does the chunk's heading path (`parents`, then its own `heading`) end with the dotted
    key's parts, in order, as configuration documentation names a key: its section as a
    heading and the key as a heading under it (``raftstore`` › ``store-pool-size``, or
    ``storage.block-cache`` › ``capacity``)?"""
    if not is_dotted_key(ident):
        return False
    want = ident.casefold().split(".")
    have: list[str] = []
    for head in (heading, *reversed(parents)):
        key = _heading_key(head)
        if key is None:
            break
        have = [p.casefold() for p in key] + have
        if len(have) >= len(want):
            break
    return have[-len(want):] == want if len(have) >= len(want) else False


def text_names(ident: str, text: str, heading: str, parents: Sequence[str]) -> bool:
    """`path_names` of the chunk, or of a heading inside its text, under its own and the
    text's headings above it (short subsections are chunked with their section: ``##
    performance`` then ``### max-procs`` in one chunk whose heading path ends with
    ``performance``)."""
    if not is_dotted_key(ident):
        return False
    if path_names(ident, heading, parents):
        return True
    above = (*parents, heading)
    inner: list[tuple[int, str]] = []  # the text's open headings: (level, title)
    for level, title in inner_headings(text):
        if path_names(ident, title, (*above, *(t for lv, t in inner if lv < level))):
            return True
        inner = [(lv, t) for lv, t in inner if lv < level] + [(level, title)]
    return False


def inner_headings(text: str) -> Iterator[tuple[int, str]]:
    """The headings written inside a chunk's text, (level, title): a short subsection is
    chunked with its section (``# 网关错误码`` then ``## GW-7731 错误`` in one chunk)."""
    if "#" not in text:
        return
    for line in text.splitlines():
        if line[:1] == "#":  # (most lines are none: looked at no further)
            level = len(line) - len(line.lstrip("#"))
            if line[level:level + 1] == " ":
                yield level, line[level:]


def match_level(ids: Sequence[str], text: str, heading: str = "",
                parents: Sequence[str] = ()) -> int:
    """Twice the number of identifiers the chunk holds as whole tokens, plus one when it is
    about one of them (a line ``key: ID``, or its heading or one inside its text starting
    with it: `_heads`); 0 for none. A
    chunk whose heading path names a dotted key (`text_names`: where configuration
    documentation defines it) holds it as two, so that it ranks above one holding a line
    ``配置项: raftstore.store-pool-size`` (a table of changed settings). `parents`: the
    headings above `heading`."""
    text, heading = nfkc(text), nfkc(heading)
    return _level(ids, text, _lowered(text), heading, _lowered(heading), parents)


def _level(ids: Sequence[str], text: str, lowered: str | None, heading: str,
           lowered_heading: str | None, parents: Sequence[str] = ()) -> int:
    """`match_level` of a text and heading in NFKC already, with their `_lowered`. The
    text's inner headings and lines with a colon are split once for all of `ids`."""
    held = about = 0
    inner: list[str] | None = None
    lines: list[tuple[str, str]] | None = None
    for ident in ids:
        if text_names(ident, text, heading, parents):  # where the documentation defines a key:
            held, about = held + 2, 1  # above a row or line that names it (``配置项: a.b``)
            continue
        spaced = spaced_parts(ident)  # ERROR 9007 stated on a line ``* Error Number: 9007``
        if spaced is not None and key_line(*spaced).search(text):
            held, about = held + 1, 1
            continue
        if not _holds(ident, text, lowered) and not _holds(ident, heading, lowered_heading):
            continue
        held += 1
        if inner is None and not about:
            inner = [title for _, title in inner_headings(text)]
        if about or _heads(ident, heading) or any(_heads(ident, title) for title in inner or ()):
            about = 1  # its own heading or a subsection's chunked with it begins with it
            continue
        # a line "key: ID" (only lines with a colon can be one)
        if lines is None:
            lines = _colon_lines(text, lowered)
        if lowered is not None and ident.isascii() and ident.strip(_QUOTES + " \t") == ident:
            low = ident.lower()  # (a key line ends with it: no line without it is one)
            about = int(any(low in lower and _is_key_line(ident, line) for line, lower in lines))
        else:
            about = int(any(_key_line(ident).fullmatch(line) for line, _ in lines))
    return 2 * held + about if held else 0


def _colon_lines(text: str, lowered: str | None) -> list[tuple[str, str]]:
    """The text's lines holding a colon (":" or "："), stripped, each with its line of
    `lowered` ("" when None): ``str.lower`` keeps every character but İ (which `_lowered`
    refuses) one character, and a line break one, so the two split alike."""
    if lowered is None:
        return [(line.strip(), "") for line in text.splitlines() if ":" in line or "：" in line]
    return [(line.strip(), lower) for line, lower in zip(text.splitlines(), lowered.splitlines(),
                                                         strict=True)
            if ":" in line or "：" in line]


# Joins the texts `match_levels` searches at once: NFKC neither makes it of another character
# nor another character of it, and neither an identifier's search nor its whole-token test
# reads it as part of a token.
_SEP = "\x00"


def match_levels(ids: Sequence[str], texts: Sequence[str], headings: Sequence[str],
                 parents: Sequence[Sequence[str]] | None = None) -> list[int]:
    """`match_level` of each text with its heading (and the headings above it, `parents`):
    `Batch(texts, headings, parents).levels(ids)`."""
    return Batch(texts, headings, parents).levels(ids)


class Batch:
    """Texts with their headings (and the headings above them), normalised once for any
    number of `levels` asked of them: a search asks the levels of its 30-odd ranked chunks
    for all of its identifiers, then for each alone (`kbtools.query.specific.about_each`),
    and most of the work is each side's `nfkc` and lower case, not the search."""

    def __init__(self, texts: Sequence[str], headings: Sequence[str],
                 parents: Sequence[Sequence[str]] | None = None):
        self.texts, self.headings = list(texts), list(headings)
        self.above = list(parents) if parents is not None else [()] * len(self.texts)
        self._sides: tuple[_Joined | None, _Joined | None] | None = None

    def sides(self) -> tuple[_Joined | None, _Joined | None]:
        """The texts and the headings `_Joined`, each made on first use."""
        if self._sides is None:
            side = _Joined.of(self.texts)
            self._sides = side, _Joined.of(self.headings) if side is not None else None
        return self._sides

    def levels(self, ids: Sequence[str]) -> list[int]:
        """`match_level` of each text with its heading: the same levels, but the texts and
        the headings that hold none of `ids` are found by searching each side once, joined
        (`_Joined`), so that only those holding one or whose heading path names a dotted key
        of `ids` are looked at one by one. Most of a search's ranked chunks hold none."""
        side, head = self.sides() if not any(_SEP in i for i in ids) else (None, None)
        texts, headings, above = self.texts, self.headings, self.above
        if side is None or head is None:
            return [match_level(ids, text, heading, up)
                    for text, heading, up in zip(texts, headings, above, strict=True)]
        dotted = [i for i in ids if is_dotted_key(i)]
        named = {i for i, heading in enumerate(headings)
                 if any(text_names(d, side.parts[i], heading, above[i]) for d in dotted)}
        holders = side.holders(ids) | head.holders(ids) | named
        return [_level(ids, *side.part(i), *head.part(i), above[i]) if i in holders else 0
                for i in range(len(texts))]


class _Joined:
    """Texts as one string of their `nfkc`s joined by `_SEP` (the full-width punctuation
    replaced in all at once, then the parts that are not NFKC normalised), lower-cased
    once."""

    def __init__(self, parts: list[str], joined: str, lowered: str):
        self.parts, self.joined, self.lowered = parts, joined, lowered
        self.starts, at = [], 0  # where each part starts in `joined`
        for text in parts:
            self.starts.append(at)
            at += len(text) + 1

    @classmethod
    def of(cls, texts: Sequence[str]) -> _Joined | None:
        """The texts joined; None when the joined string cannot stand for them: a text
        holds `_SEP` or one of `ASCII_FOLDS` (`_holds` takes the regex for that text)."""
        joined = _SEP.join(texts)
        if joined.count(_SEP) != max(len(texts) - 1, 0):
            return None
        for wide, narrow in _FULL_WIDTH:
            if wide in joined:
                joined = joined.replace(wide, narrow)
        # each part checked (a check of the joined string reads it all when one part fails)
        parts = [p if unicodedata.is_normalized("NFKC", p) else unicodedata.normalize("NFKC", p)
                 for p in (joined.split(_SEP) if texts else [])]
        joined = _SEP.join(parts)
        lowered = _lowered(joined)
        return None if lowered is None else cls(parts, joined, lowered)

    def holders(self, ids: Sequence[str]) -> set[int]:
        """The parts holding one of `ids` as `_holds` finds it in them (none holding
        `_SEP`)."""
        out: set[int] = set()
        for ident in ids:
            self._search(ident, out)
        return out

    def _search(self, ident: str, holders: set[int]) -> None:
        """Add the parts holding `ident` to `holders`: an ASCII identifier by substring and
        `_whole_token` (`_SEP` at a part's ends reads as the text's ends), any other by its
        regex (whose matches cannot cross `_SEP`)."""
        starts, joined, lowered = self.starts, self.joined, self.lowered
        if (spaced := spaced_parts(ident)) is not None:  # its key line (`_level`)
            holders.update(bisect.bisect_right(starts, m.start()) - 1
                           for m in key_line(*spaced).finditer(joined))
        if not ident.isascii():
            holders.update(bisect.bisect_right(starts, m.start()) - 1
                           for m in _pattern(ident).finditer(joined))
            return
        low, n = ident.lower(), len(ident)
        at = lowered.find(low)
        while at >= 0:
            part = bisect.bisect_right(starts, at) - 1
            if _whole_token(joined, at, at + n):
                holders.add(part)
                at = lowered.find(low, starts[part + 1]) if part + 1 < len(starts) else -1
            else:
                at = lowered.find(low, at + 1)

    def part(self, i: int) -> tuple[str, str]:
        """Text `i` in NFKC and its `_lowered`."""
        start = self.starts[i]
        return self.parts[i], self.lowered[start:start + len(self.parts[i])]


def is_about(level: int) -> bool:
    """The level of a chunk about one of the identifiers (not merely mentioning them)."""
    return level % 2 == 1


def holds_enough(level: int, wanted: int) -> bool:
    """Does a chunk at `level` (`match_level`) hold at least half of the question's `wanted`
    specific identifiers? What a chunk no retriever ranked needs to be promoted: "E17" names
    one, and the row about it is the answer wherever the words rank it; a pasted log names
    sixteen (``tableID``, ``2pc.go:1782``, ``txnStartTS``, …), and a chunk about one of
    them that neither BM25 nor the vectors found is not what the log is about."""
    return 2 * (level // 2) >= wanted


def promote(hits: list[H], level: Callable[[H], int]) -> list[H]:
    """Hits re-sorted by identifier level (higher first), the given order kept inside a level."""
    levels = [level(h) for h in hits]
    if not any(levels):
        return hits
    order = sorted(range(len(hits)), key=lambda i: (-levels[i], i))
    return [hits[i] for i in order]


# a code's shape: its letters, a hyphen or none, and how many digits (E12 and E15, HX-260 and
# HX-900 share one; E12 and E015, E12 and HX-12 do not)
_CODE_SHAPE = re.compile(r"([a-z]{1,4})(-?)(\d{2,})")


def listed_codes(unknown: Sequence[str], known: Sequence[str]) -> list[str]:
    """The terms of `unknown` (tokens no document holds) that are codes of the shape of one
    of `known` (identifiers the question names that the knowledge holds): listed beside it
    (``E12 和 E15 分别是什么故障``), each asked of in its own right, so the answer about the
    known one stands and the other is said to be missing, never a reason to answer nothing."""
    shapes = {(m.group(1), m.group(2), len(m.group(3)))
              for k in known if (m := _CODE_SHAPE.fullmatch(k.casefold()))}
    return [t for t in unknown if (m := _CODE_SHAPE.fullmatch(t))
            and (m.group(1), m.group(2), len(m.group(3))) in shapes] if shapes else []
