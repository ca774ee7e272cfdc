"""A bound or a range a question gives (25度以上, 不低于25度, 22到25度, 二十二至二十五度, ``above
30 degrees``, ``between 20 and 25 C``, ``20-25C``), found as the question writes it so that a
decision table reads it with its own given-value reader (`decision.given.read_given`, the one
``kb table eval`` and MCP ``evaluate_table`` use) and `decision.matching.match_rules` answers
from the row that holds all of it, or names the rows it spans: a search answers a range as
``kb table eval`` does, by the same code.

`values.numbers` marks such a number as no exact value (and the lower end of a span it joins to
the next number, `values.Number.to_next`). `with_ranges` looks around it, within its clause,
for the longest text the reader reads as a range or a bound: from a word start before it (at
most `LEFT_CHARS` characters back, not past the number before) to a word end after it and its
unit (the other end of a range and its unit, a word bounding a number after it: 以上,
``or more``; not past the next number). Nothing here says which words make a
bound: the reader does. A number it finds none around (20多度, 从18度升到25度, 22或24度, 二十来度)
is left as it was: no value, so the table asks for one.

Pure.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from kbtools.decision.conditions import Condition
from kbtools.decision.given import read_given
from kbtools.decision.numerals import NUMERAL_CHARS, shares_said
from kbtools.decision.words import RANGE_ENDS, WORD_PREFIXES, ZH_JOINERS
from kbtools.query.value_units import unit_after
from kbtools.query.values import BOUND_AFTER, BOUND_BEFORE, Number, bounds_after

# how far before a number the words making it a bound may start: the reader's longest word
# before a number (``equal to or greater than``) and a few more (``is not``)
LEFT_CHARS = max(len(w) for w, _ in WORD_PREFIXES) + 8
RIGHT_WORDS = 3  # how many English words after a number and its unit may bound it
JOINERS = "-~〜–—到至"  # what joins the two ends of a range (22-25, 22到25)
CLAUSE_ENDS = frozenset(",，、。;；!?！？")  # a bound never reaches across these
SIGNS = "<>≤≥≦≧="  # the comparison signs a bound may start with (>25度, >= 25 c)
# the bounds looked for in one question at most: a question gives a table a few values; a
# pasted log of hundreds of numbers is not read at length for them (each costs the reader)
MAX_RANGES = 16


def with_ranges(text: str, cased: str, found: list[Number]) -> list[Number]:
    """`found` (the numbers of the compacted question `text`, `values.numbers`) with each that
    is a bound or an end of a range given the text of it (`Number.range_text`, as `cased`
    writes it: ``25 C or more``) and its extent, the whole of it with the words making it one
    (`Number.extent`: ``from 20 to 24 C``, shown as ``20 to 24 C``); both ends of a range
    get the same. Numbers that are exact values, or that no range the reader takes holds,
    are returned as they are."""
    out = list(found)
    shown_from = cased if len(cased) == len(text) else text
    if any(x.noun.isascii() and x.noun and not x.exact for x in out):
        text, shown_from = _without_nouns(text, out), _without_nouns(shown_from, out)
    n = tried = 0
    while n < len(out) and tried < MAX_RANGES:
        x = out[n]
        last = n + 1 if x.to_next and n + 1 < len(out) else n
        if x.exact:
            n += 1
            continue
        tried += 1
        floor = _unit_end(text, out[n - 1]) if n else 0
        found_at = None
        # the next bound joined to it by words of bounds alone is tried as its other end
        # first: 22和25度之间 (a range the reader reads, 22和25度 none), 高于20度低于25度,
        # 20度以上25度以下, ``over 20 and under 25 C``; not a bound of another quantity
        # (超过20度湿度低于85%: a name between, or a unit known to differ)
        nxt = out[n + 1] if last == n and n + 1 < len(out) else None
        joined = nxt is not None and not nxt.exact and \
            (x.unit is None or nxt.unit is None or x.unit == nxt.unit) and \
            _joins(text[_unit_end(text, x):nxt.start])
        for last in [n + 1, n] if joined else [last]:  # noqa: B020 (the one tried is kept)
            ceiling = out[last + 1].start if last + 1 < len(out) else len(text)
            found_at = _range_at(text, x.start, _unit_end(text, out[last]), floor, ceiling)
            if found_at is not None:
                break
        if found_at is not None:
            short, end, widest = found_at
            # the whole of it: from the first word that is the range's, in the widest reading,
            # to where the text after it starts (as a number's own extent: its spaces too)
            at = (widest, end + len(text[end:]) - len(text[end:].lstrip(" ")))
            shown = " ".join(shown_from[short:end].split())  # (a noun's blank as one space)
            unit = next((y.unit for y in out[n:last + 1][::-1] if y.unit is not None),
                        _unit_in(text[short:end]))
            word = _word_outside(x.word, text[widest:x.start])
            for k in range(n, last + 1):
                out[k] = replace(out[k], range_text=shown, extent=at, word=word,
                                 unit=out[k].unit if out[k].unit is not None else unit)
        n = last + 1
    return out


# what may stand between the two bounds of one range: words of bounds, joiners, and
# conjunctions (高于20度|低于|25度, 20度|以上|25度以下, ``over 20| and under |25 c``)
_JOINING = tuple(sorted({*BOUND_AFTER, *BOUND_BEFORE, *ZH_JOINERS,
                         *(w for w, _ in WORD_PREFIXES), "and", "but", "or", "且", "但", "但是",
                         "而", "又"}, key=len, reverse=True))


def _joins(gap: str) -> bool:
    """Whether `gap`, the text between a bound's number (and its unit) and the next number,
    holds only words that join two bounds into one range (`_JOINING`)."""
    rest = gap.strip(" ")
    while rest:
        word = next((w for w in _JOINING if rest.startswith(w) and not (
            w[-1:].isalpha() and w.isascii() and rest[len(w):len(w) + 1].isalpha())), None)
        if word is None:
            return False
        rest = rest[len(word):].strip(" ")
    return True


def _without_nouns(text: str, found: list[Number]) -> str:
    """`text` with the English words a bound or a range's number counts blanked (the rainy of
    ``less than 4 rainy days``, `Number.noun`: they say which input it is, not its value),
    so that the reader reads the number and its unit (``less than 4 days``); the same length."""
    for x in found:
        at = text.find(" " + x.noun, x.end, x.after) if x.noun.isascii() and x.noun else -1
        if at >= 0 and not x.exact:
            text = text[:at] + " " * (len(x.noun) + 1) + text[at + len(x.noun) + 1:]
    return text


def _unit_in(written: str) -> int | None:
    """The unit class (`values.UNIT_CLASSES`) of the unit after the last number of a range
    (the C of ``21-25C``, whose 21 is the number read and 25 no number of its own)."""
    last = max((n for n, ch in enumerate(written) if ch.isdigit()), default=-1)
    return unit_after(written[last + 1:])[2] if last >= 0 else None


def _word_outside(word: str, lead: str) -> str:
    """The word before a number (`Number.word`) without the words of its bound (``below`` of
    ``temperature below``, 低于 of 温度低于): what it says the range is of."""
    lead = lead.strip()
    return word[:len(word) - len(lead)].strip() if lead and word.endswith(lead) else word


def _unit_end(text: str, x: Number) -> int:
    """Where number `x` and its unit end (its `after` without the spaces before it)."""
    end = max(x.after, x.end)
    while end > x.end and text[end - 1] == " ":
        end -= 1
    return end


def _range_at(text: str, start: int, end: int, floor: int,
              ceiling: int) -> tuple[int, int, int] | None:
    """(start, end, start of the longest) of the shortest text of the longest around
    `text[start:end]` (a number, or the ends of a range, and the unit) that the given-value
    reader reads as a range or a bound, said exactly (a rough one, 大约22到25度, is the
    number's own note: `values.approximate`): the longest, as ``not above 30`` is no ``above
    30``, and of it the fewest words read the same (``20 to 24 C`` of ``from 20 to 24 C``)."""
    ends = _ends(text, end, ceiling)
    starts = [s for s in _starts(text, start, floor)  # 一度达到三十度: 一度 is "once" (not
              if s == start or not (text[s:s + 1] == "一" and  # the number's own 一: 一半以上)
                                    text[s + 1:s + 2] not in NUMERAL_CHARS)]
    for n, s in enumerate(starts):
        for e in ends:
            span = _span(text[s:e])
            if span is not None:  # the shortest text read the same (>25度, not 温度>25度)
                short = next((t for t in starts[:n:-1] if _span(text[t:e]) == span), s)
                e -= next((len(w) for w in RANGE_ENDS if text.endswith(w, short, e) and
                           _span(text[short:e - len(w)]) == span), 0)  # 22到25度(之间)
                # words before a comparison sign are what it compares (油温>25度: the reader
                # reads a name there, ``v ≤ 2.8``), never the bound's own words
                return short, e, short if text[short:short + 1] in SIGNS else s
    return None


@lru_cache(maxsize=1024)  # each table a search tries reads the question's candidates again
def _span(text: str) -> Condition | None:
    """The range or bound the given-value reader reads `text` as, said exactly (None for a
    number, no range, or a rough one)."""
    # (a share said in words or as a fraction, 一半以上, is one of a whole: read as a percentage)
    given = read_given(text, True, "%" if shares_said(text) else "")
    if given.span is None or given.approximate:
        return None
    return replace(given.span, raw="")


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _starts(text: str, start: int, floor: int) -> list[int]:
    """Where the text of a bound may start, farthest first: `start`, and each word start
    before it back to `floor`, `LEFT_CHARS` characters or the clause's start (a Chinese
    character starts a word anywhere, a Latin word only at its first letter)."""
    out = [start]
    p = start - 1
    while p >= max(floor, start - LEFT_CHARS) and text[p] not in CLAUSE_ENDS:
        if text[p] != " " and not (p > 0 and _latin(text[p - 1]) and _latin(text[p])):
            out.append(p)
        p -= 1
    return out[::-1]


def _ends(text: str, end: int, ceiling: int) -> list[int]:
    """Where the text of a bound may end, farthest first, never past `ceiling` (the next
    number) nor the clause: after the other end of a range the question reader read no number
    of and its unit (the ``25c`` of ``21-25c``: `JOINERS`); after a word that bounds a number
    after it (以上, ``or more``: `values.BOUND_AFTER`, `values.bounds_after`, at most
    `RIGHT_WORDS` words); and `end`, where the number and its unit end (以上 is read, not the
    雨 of 不到4天雨)."""
    out = [end]
    rest = text[end:ceiling]
    lead = rest.lstrip(" ")
    if lead[:1] in JOINERS:
        k = len(rest) - len(lead) + 1
        k += len(rest[k:]) - len(rest[k:].lstrip(" "))
        digits = k
        while digits < len(rest) and (rest[digits].isdigit() or rest[digits] == "."):
            digits += 1
        if digits > k:
            suffix = unit_after(rest[digits:])[0]
            spaced = int(bool(suffix) and rest[digits:digits + 1] == " ")
            end += digits + spaced + len(suffix)
            out.insert(0, end)
            rest = text[end:ceiling]
    clause = rest.lstrip(" ")
    at = end + len(rest) - len(clause)
    end_word = next((w for w in RANGE_ENDS if clause.startswith(w)), None)
    if end_word is not None:  # 22和25度之间, read without it when the reader reads it so
        return [*out, at + len(end_word)]  # (22到25度): tried last
    word = next((w for w in BOUND_AFTER if clause.startswith(w)), None)
    if word is not None:  # and the unit after it (``25+ C``, 3+天)
        at += len(word)
        suffix = unit_after(text[at:ceiling])[0]
        spaced = int(bool(suffix) and text[at:at + 1] == " ")
        return [at + spaced + len(suffix), at][not suffix:] + out
    if bounds_after(clause):
        ends = []
        for w in clause.split(" ")[:RIGHT_WORDS]:
            w = next((w[:n] for n, ch in enumerate(w) if ch in CLAUSE_ENDS), w)
            if not w:
                break
            at += len(w)
            ends.append(at)
            at += 1
        return [*ends[::-1], *out]
    return out
