"""How an answer quotes a number of the question: as the question typed it, with its unit
(``2100 hours``, not the ``2100hours`` the compacted text joins; its range or bound as
written, 25度以上), and the values the question gave that no input of a table took, each
with the word naming it (压力3MPa, ``pressure 3 MPa``), which the answer says were not used.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kbtools.decision.clock import times_in
from kbtools.decision.numerals import NUMERAL_CHARS
from kbtools.query.naming import NAME_GAP
from kbtools.query.number_spans import BELOW_ZERO
from kbtools.query.numbered_places import place_at
from kbtools.query.value_units import COUNTERS
from kbtools.query.values import Number


def said(x: Number, typed: str = "") -> str:
    """Number `x` as a message quotes it: its range or bound when it is one (25度以上), else
    as `typed` (the question compacted in the case and script it was written, aligned with
    the text `x` was read from) writes it with its unit (``2100 hours``, not the
    ``2100hours`` `Number.written` joins), or as `Number.written` without one."""
    if x.range_text:
        return x.range_text
    start = x.start
    if typed and x.value.startswith("-") and typed[start:start + 1] != "-":  # 零下三度, not 三度
        start -= next((len(z) for z in (*BELOW_ZERO, "minus ", "negative ")
                       if typed[:start].casefold().endswith(z)), 0)
    quoted = typed[start:typed_end(typed, x)].rstrip(" ,.;") if typed else ""
    return quoted or x.written


def typed_end(typed: str, x: Number) -> int:
    """Where number `x` with what it is written with (`Number.written`: its unit, or a word
    multiplying it, ``2 k``, 2 万) ends in `typed`: at least where the text after it starts,
    past a multiplying word `Number.after` does not count (the k of ``2 k``)."""
    n, k, written = x.start, 0, x.written.casefold()
    while k < len(written) and n < len(typed):
        ch = typed[n].casefold()
        if ch == written[k]:
            k += 1
        elif ch != " ":
            break
        n += 1
    return max(x.after, n) if k == len(written) else x.after


DATE_AFTER = tuple("年月日号")  # after a number: a date's part (12月5日), no value
# a machine or a place an English question names by number right before a value no word
# leads (``humidity pump no. 3 85``, ``pump #3 85``, ``pump nr 3 85``): one or two words, a
# number's mark (no. or no, nr. or nr, number, #), the number (group 1); looked for in the
# `NUMBERED_REACH` characters before the value
_EN_NUMBERED_BEFORE = re.compile(r"(?<![a-z])[a-z]+(?: [a-z]+)? ?(?:(?:no\.?|nr\.?|number) ?|#)?"
                                 r"(\d+) $")
NUMBERED_REACH = 40


def unused(found: Sequence[Number], claimed: Collection[int], taken: Sequence[Number],
           quoted: Collection[str], text: str, typed: str,
           names: Sequence[str] = ()) -> tuple[str, ...]:
    """The values of `found` no input took (`Inputs.unused`), each from the word before it
    to its unit as `typed` writes it (下雨3, 大风3天, ``pressure 3 MPa``); not a time of day
    (下午3点: when, no value), nor a value a note already quotes (`quoted`: two given, or
    said of another thing), nor a number of an input's name (the 100 of ``larvae per 100
    plants 40``: `names`)."""
    skip = [(a, b) for a, b, _ in times_in(text)]
    for name in (n for n in names if any(ch.isdigit() for ch in n)):
        at = text.find(name)
        while at >= 0:
            skip.append((at, at + len(name)))
            at = text.find(name, at + 1)
    out: dict[str, None] = {}
    for n, x in enumerate(found):
        if n in claimed or any(x is y for y in taken) or not (x.exact or x.range_text) or \
                {said(x), said(x, typed)} & set(quoted) or \
                any(a <= x.start < b for a, b in skip) or text[x.end:x.end + 1] in DATE_AFTER:
            continue  # (12月5日: a date)
        value = said(x, typed)
        if x.unit is None and not x.range_text and value == typed[x.start:x.end]:
            # (3次, 打药3次: the count as typed, with the counter no unit reads)
            value += next((typed[x.end:x.end + len(c)] for c in COUNTERS
                           if text.startswith(c, x.end)), "")
        at = text.rfind(x.word, max(0, x.extent[0] - len(x.word) - NAME_GAP), x.extent[0]) \
            if x.word else -1
        if at >= 0:  # (3号棚空气湿度85: 空气湿度85, not 号棚空气湿度85 nor the place)
            # (3#泵温度80: the word starts after the #, which numbers the pump as 号 does)
            hashed = text[at - 1:at] == "#" and _numeral(text[at - 2:at - 1])
            lead = at - 1 if hashed else at
            while lead and _numeral(text[lead - 1]):
                lead -= 1
            placed = place_at(text[lead:x.extent[0]])
            at = lead + placed if placed else lead if hashed or text[at:at + 1] in "号#" else at
        elif (m := _EN_NUMBERED_BEFORE.search(text, max(0, x.extent[0] - NUMBERED_REACH),
                                              x.extent[0])) and \
                not any(y.start < m.end(1) and m.start(1) < y.end for y in found):
            at = m.start()  # (pump no. 3 85: the pump's, quoted with it as 3号泵80度 is)
        out[typed[at:x.extent[0]] + value if at >= 0 else value] = None
    return tuple(out)


def _numeral(ch: str) -> bool:
    """Whether `ch` is a digit or a Chinese numeral's character (of 3号, 三号, 3#)."""
    return bool(ch) and (ch.isdigit() or ch in NUMERAL_CHARS)
