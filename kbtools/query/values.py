"""The numbers a question gives, as `kbtools.query.inputs` reads them for decision tables:
each with the unit written after it, whether it is an exact value (not a bound, a span or a
negated value), and the word before it — in Chinese and in English.

Everything is read from the question as `kbtools.query.compacted.compact` writes it (NFKC,
case-folded, whitespace dropped but between Latin words and numbers).

`numbers(text)` reads every number of a compacted question (`Number`): ``1,200`` is 1200 (a
group of three digits after each comma; ``1,2`` is no value: a list or a decimal comma), the
unit right after it (``26℃``, ``75 F``, ``75 degrees Fahrenheit``, ``90 percent``; a single
Latin letter only when no letter follows it: the d of ``2 drops`` is no day; ``degrees``
alone is a temperature in whichever degrees its column counts), the words naming what it
counts between it and a unit of time (``4 rainy days``, 4个雨天: `count_noun`), a word that
multiplies it (2万, 2k, ``2 thousand``), and whether it is exact: not after a bound (不到,
``below``, ``more than``, ``at least``, ``not``), not followed by one (多, 以上, ``or more``,
``+``), not an end of a span (22~25, ``between 10 and 20``, ``10 to 20``) or one of two values
of one quantity (22度和24度, 22或24度) and not negated
(5天没有下雨, ``5 days without rain``). A value that is no exact one leaves its input
missing: the table then asks for it rather than guess a row.

Pure: the words are data here, the tables' unit groups come from `kbtools.decision`; where
the numbers are and their values, `kbtools.query.number_spans`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kbtools.decision.numerals import magnified_numbers
from kbtools.decision.units import MAGNITUDES, unit_group
from kbtools.decision.words import (
    OPERATOR_SPELLINGS,
    ROUGH_AFTER,
    ROUGH_BEFORE,
    WORD_PREFIXES,
    WORD_SUFFIXES,
)
from kbtools.index.tokenize import CJK, is_cjk
from kbtools.query.fillers import approximate, drop_fillers
from kbtools.query.number_spans import BELOW_ZERO, NUMERAL_RUN, STOP_MARKS, number_spans
from kbtools.query.numbered_places import en_place_before, place_at
from kbtools.query.value_units import (
    BARE_DEGREES,
    DURATIONS,
    count_end,
    unit_after,
)

_OLD = re.compile(r"old(?![a-z])")
# words after a duration that make it a time (3天前, 2周以后, ``2 days ago``, ``3 days later``)
AGO_WORDS = ("以前", "之前", "以后", "之后", "前", "后")
_AGO = re.compile(rf"(?:{'|'.join(AGO_WORDS)}|(?:ago|later|earlier|from now)(?![a-z]))")
# words between a number and its unit of time saying it ran unbroken (``4 consecutive days``)
RUN_WORDS = frozenset(("consecutive", "straight", "successive", "continuous", "solid"))
# words that are no count noun between a number and its unit (``4 more days``: a bound)
_NOT_NOUNS = frozenset(("more", "less", "fewer", "over", "under", "than", "and", "the", "extra",
                        "other", "another", "additional", "full", "whole", "straight"))
_FRACTION_SLASHES = "/\u2044"  # 2/3, and ½ as NFKC writes it (1⁄2)
STOP_GAP = re.compile(rf"[{STOP_MARKS}\d]")

# words that make a number a bound or a span rather than a value
# (the words the tables' value reader reads as a comparison, `decision.words`, and those that
# bound a number without one; English ones are read as whole words below)
BOUND_BEFORE = tuple(sorted({*ROUGH_BEFORE, *(w for w, _ in WORD_PREFIXES if not w.isascii()),
                             *(w for w, op in OPERATOR_SPELLINGS if op != "="), "<=", ">=", "<", ">", "≤",
                             "≥", "≦", "≧"}, key=len, reverse=True))
BOUND_AFTER = tuple(sorted({*ROUGH_AFTER, *(w for w, _ in WORD_SUFFIXES if not w.isascii()),
                            "以上", "以下", "+", "及以上", "及以下", "或以上", "或以下"},
                           key=len, reverse=True))
_WORD_BEFORE = re.compile(rf"[{CJK}a-z]+$")  # the word a number follows, if any
# a digit right after a number's unit: 二十六度五 (26.5 said the spoken way), 26度5; 一 and 两
# only when no CJK character follows them (26度一直没变, 26度两天了 start other words)
_SPOKEN_TENTHS = re.compile(rf"[0-9零〇二三四五六七八九]|[一两](?![{CJK}])")
# a negation in the clause a number opens (5天没有下雨, 22度不是): what it counts did not happen
_NEGATED = re.compile(r"[^,，、。;；!?！？\d]{0,4}?(没有|没|未|无|不)")
# (-5~-2℃: the other end below zero too)
# a number of which place or machine after a space (湿度85 3号泵, 85 3#棚): no digits of the
# number before it
# a group of thousands a space sets apart (1 200, 12 500 000): three digits, no fewer or more
_GROUP_AHEAD = re.compile(r" \d{3}(?!\d)")
_WHICH_AHEAD = re.compile(rf" \d+(?:号|#(?=[{CJK}]))")
_SPAN_AFTER = re.compile(r"(?:~|〜|-|–|—|到|至)(?:-|零下|负)?[\d零〇一二两三四五六七八九十]")
# a second value of the same quantity joined to the first: 22度和24度, 22或24度, 3、4天
_LIST_AFTER = re.compile(r"(?:和|与|跟|及|或者|或|、)[\d零〇一二两三四五六七八九十]")
# the upper end of 22~25度, 从18度升到25度 or 二十到二十五度 (not 高5度，达到22度: a clause apart)
_SPAN_BEFORE = re.compile(r"[\d零〇一二两三四五六七八九十百千万]"
                          r"[^\d,，、。;；!?！？]{0,4}(?:~|〜|–|—|到|至)$")
def _words(known: tuple[tuple[str, str], ...]) -> str:
    """The English words of the tables' value reader (`decision.words`) as alternatives of a
    pattern: every bound it reads is one the question's numbers are no exact value by."""
    return "|".join(re.escape(w) for w, _ in known if w[:1].isalpha() and w.isascii())


# English: the same, as whole words (on at most 24 characters before a number, or the
# clause right after it and its unit)
_EN_BELOW_ZERO = re.compile(r"(?<![a-z])(?:minus|negative) $")
_EN_BOUND_BEFORE = re.compile(
    r"(?<![a-z'’])(?:below|under|over|above|than|least|most|max|maximum|min|minimum|not|no|"
    r"never|nearly|almost|approaching|exceeding|exceeds|exceeded|beyond|(?<!the )past|within|from|"
    r"between|up to|[a-z]{1,8}n['’]t|" + _words(WORD_PREFIXES) + r") ?$")
_EN_BOUND_AFTER = re.compile(
    r"(?:or (?:more|less|above|below|higher|lower|over|under|greater|fewer)|"
    r"and (?:up|above|over|higher|more|rising|falling)|plus|-?odd|max|maximum|min|minimum|"
    # (a bare ``over`` before a number bounds that one: the 90% of ``90% over 3 days`` is exact;
    # ``over the past 3 days`` says how long it held)
    r"at (?:most|least)|tops|(?:below|above|under)(?! ?-?\d)|over(?! ?-?\d| the (?:past|last) )|"
    + _words(WORD_SUFFIXES) +
    r")(?![a-z])")
# what a duration counts (``4 days of heavy rain``), before a bound after it (``or more``)
_EN_OBJECT = re.compile(r"of(?: (?!or |and |at |plus )[a-z]+){1,3} ")
_EN_SPAN_AFTER = re.compile(r"(?:to|and|or|through|thru) ?-?\d")
_EN_SPAN_BEFORE = re.compile(r"\d[^\d,;]{0,12}?(?<![a-z])(?:to|and|or|through|thru) ?$")
# … with only the joining word between the two (and the unit of the first)
_EN_SPAN_GAP = re.compile(r" ?(?:to|and|or|through|thru) ?")
# (not the no of ``85 no 3``, ``85 pump no. 3``: a machine's or a place's number)
_EN_NEGATED = re.compile(r"(?:(?!and |or |but )[a-z/]{1,12} )?"
                         r"(?:not|no(?!\.? ?#?\d)|never|without|[a-z]{1,8}n['’]t)(?![a-z])")


# English words after which a number is an amount said of no name before them (``ran 5
# hours``, ``the hose was used for 2 years``, ``running for about 5 hours``): a verb that
# takes a duration or an amount of use, or a preposition that leads an amount (a bound
# among them, ``nearly``, ``more than``, still makes the number no exact value:
# `numbers`). Not an adverb a name may stand before (``suction pressure only 30 psi``
# is the suction pressure's)
AMOUNT_LEADS = frozenset((
    "ran", "run", "runs", "running", "used", "use", "uses", "using", "operated", "operate",
    "operates", "operating", "worked", "work", "works", "working", "lasted", "last", "lasts",
    "lasting", "served", "serving", "logged", "clocked", "totaled", "totalled", "totaling",
    "totalling", "spent", "took", "takes", "taken", "for", "after", "over", "nearly",
    "almost", "least", "than", "within", "past", *("has", "have", "had")))
# verbs of having before a duration (``the pump has 2100 hours on it``): the time its thing
# has been used, as after ``ran``; elsewhere filler words (``the temperature has reached``)
POSSESSIONS = frozenset(("has", "have", "had"))
# words that open a clause as its subject: the word after one is its verb (``it idled 5 h``
# is said of no quantity named)
SUBJECTS = frozenset(("it", "they", "we", "i", "you", "he", "she"))


# the Latin words a number follows (with their apostrophes: ``when it's``)
_EN_WORDS_BEFORE = re.compile(r"(?<![a-z0-9])[a-z][a-z '’]{0,30}$")
# what ends right before those words when their first is the unit of the number before them:
# the number (``35 psi``) or the number and the head of a rate (``0.2 in/s``, ``3,000μs/cm``)
_UNIT_BEFORE = re.compile(r"\d(?: ?[^\s\d,;:/]{1,8}/)? ?$")


@dataclass(frozen=True)
class Number:
    """One number of a compacted question."""

    start: int
    end: int
    value: str
    unit: int | None  # index into UNIT_CLASSES
    written: str  # the number with the unit or multiplying word written after it, if any
    exact: bool = True  # False: a bound or a span, not a value (不到15度, 20多度, 22~25度)
    word: str = ""  # the word right before it, filler words dropped (病叶率 in 病叶率3%)
    after: int = 0  # where the text after it and its unit starts (the m of ``4160 v motor``)
    # the words between it and its unit, when they name what it counts (rainy of ``4 rainy
    # days``, 雨 of 4个雨天): the number is then only that thing's value (`count_noun`)
    noun: str = ""
    approximate: bool = False  # 大约90%, 90%左右, ``about 90%``: a value, roughly (`APPROX_BEFORE`)
    to_next: bool = False  # the lower end of a span whose upper end is the next number (22~25度)
    # the bound or range it is (an end of) as the question writes it, which the table's
    # given-value reader reads (25度以上, 22到25度: `kbtools.query.ranges`)
    range_text: str = ""
    # where the words that say it start and where the text after them starts: the number and
    # its unit (`start`, `after`), or the whole of the range or bound it is an end of with
    # the words making it one (``from 20 to 24 c``, 不低于25度: `kbtools.query.ranges`). What
    # is said before or after it, the thing or the place it is of, is said before or after this
    extent: tuple[int, int] = (0, 0)
    # one of two values of one quantity listed (22度和24度, 22或24度, ``20 C or 25 C``; not a
    # range, ``between 20 and 25 C``, which `range_text` holds): with the next or the one
    # before it, listed too, the two values the question gave its input (`inputs.read_inputs`)
    listed: bool = False




def numbers(text: str, cased: str = "") -> list[Number]:
    """Every number of `text` (a `compact` question), in order; `cased` is the question
    compacted without case folding (`compact(question, fold=False)`): a unit is then written
    as the user wrote it (``30°C``, ``13.8kV``), not case-folded, where the two line up."""
    out: list[Number] = []
    spans: list[tuple[bool, bool]] = []  # per number: a span's word after it, before it
    lists: list[bool] = []  # per number: 和, 或 or 、 and another number after it
    groups: list[int | None] = []  # per number: the unit group of its unit, if known
    floor = 0  # where the number before ends with its unit: the word before the next starts here
    for start, end, value, rest in number_spans(text):
        if place_number(text, start, rest):
            continue  # 3号棚, 第三棚, ``#3 pump``: which one, no value
        before = text[max(0, start - 3):start]
        longer = text[max(0, start - 24):start]
        suffix, known, unit = unit_after(rest)
        # (第3个雨天 is an ordinal: no count)
        noun, gap = count_noun(rest) if not suffix and not before.endswith("第") else ("", 0)
        if gap:  # ``4 rainy days``, ``4 consecutive days``
            suffix, known, unit = unit_after(rest[gap:])
        elif not suffix and rest.startswith("个") and unit_after(rest[1:])[2] is not None:
            gap = 1  # 5个小时: the measure word 个 between a number and its unit
            suffix, known, unit = unit_after(rest[1:])
        if (before.endswith(BELOW_ZERO) or _EN_BELOW_ZERO.search(longer)) and \
                not value.startswith("-"):
            value = "-" + value  # 零下5度, minus 5 degrees are -5
        spaced = rest[:1] == " " and rest[1:2].isalpha()
        skip = len(suffix) + spaced if suffix and suffix not in MAGNITUDES else 0
        skip = gap + len(suffix) if gap else skip
        after = rest[skip:]
        if before.endswith("华氏"):
            known = "°f"  # 华氏80度: in °F, whatever follows
        clause = after.lstrip(" ")
        ago = _AGO.match(clause) if unit in DURATIONS else None
        if ago:  # 3天前, ``2 days ago``: a time, as 3月 of 3月2日 is, no amount of days
            unit, skip = None, skip + len(after) - len(clause) + ago.end()
        owned = POSSESSIONS if unit in DURATIONS else frozenset()  # the pump has 2100 h
        sign = next((len(z) for z in BELOW_ZERO if before.endswith(z)), 0)  # 零下5度: the
        run = "age" if unit in DURATIONS and _OLD.match(clause) else \
            _word_before(text, start - sign, floor, owned)  # word before 零下, not its 下
        spans.append((bool(_SPAN_AFTER.match(rest) or _SPAN_AFTER.match(after)
                           or _EN_SPAN_AFTER.match(clause)),
                      bool(_SPAN_BEFORE.search(text[max(0, start - 8):start])
                           or _EN_SPAN_BEFORE.search(text[max(0, start - 16):start]) and
                           # (``30 c outside and 24 c``: each said of its place, no span)
                           _EN_SPAN_GAP.fullmatch(text[out[-1].after if out else 0:start]))))
        lists.append(_listed(rest) or _listed(after))
        lead = text[max(0, start - 10):start]  # (小于或等于; 低于零下5度: the bound before 零下)
        lead = next((lead[:-len(z)] for z in BELOW_ZERO if lead.endswith(z)), lead)
        exact = not (lead.endswith(BOUND_BEFORE)
                     or after.startswith(BOUND_AFTER)
                     # 每天运行20小时: a rate (not 每天两次温度30度: the 每 of a count)
                     or "每" in run[count_end(run, 0, len(run)):]
                     or negated(after)  # 连续5天没有下雨: not the column's value
                     or spoken_tenths(after)  # 二十六度五: 26.5, spoken
                     or (rest[:1] == "," and rest[1:2].isdigit())  # 1,2: a list or 1.2
                     or rest[:1] in _FRACTION_SLASHES and rest[1:2].isdigit()  # 2/3: no 2
                     or before[-1:] in _FRACTION_SLASHES and before[-2:-1].isdigit()  # its 3
                     or after[:1] == "半"  # 1天半: 1.5 days, which the table is asked for
                     # 2万5: colloquial for 25000 (or 20005), no 2万
                     or suffix in MAGNITUDES and bool(NUMERAL_RUN.match(rest, 1) or
                                                      rest[1:2].isdigit())
                     or (before[-1:] == "," and before[-2:-1].isdigit())  # the 2 of 1,2
                     or (_GROUP_AHEAD.match(rest) and  # 1 200: 1200, or two (a space
                         not _WHICH_AHEAD.match(rest))  # groups 3 digits: 3 85 is two; not
                     # 85 3号泵: which one)
                     or (before[-1:] == " " and before[-2:-1].isdigit() and  # not the
                         bool(out) and out[-1].end == start - 1  # code's: hx-260 2100
                         and bool(_GROUP_AHEAD.match(text, start - 1)))  # (3 85: two)
                     or _EN_BOUND_BEFORE.search(longer) and not (
                         unit in DURATIONS and _over_a_span(text, out, start))
                     or _EN_BOUND_AFTER.match(clause)
                     or unit in DURATIONS and _object_bound(text[end + skip:end + skip + 48])
                     or _EN_NEGATED.match(clause))
        if suffix == known and len(cased) == len(text) and \
                (at := text.find(suffix, end, end + 26)) >= 0:
            known = cased[at:at + len(suffix)]  # as typed: 30°C, not 30°c
        word = run if run.rpartition(" ")[2] in owned else drop_fillers(run)
        virtual = int(rest[:1] == "%" != text[end:end + 1])  # (百分之九十, 九成: its % is in
        # `rest`, not the text)
        past = end + skip - virtual + (len(rest[skip:]) - len(rest[skip:].lstrip(" ")))
        # 2万, 3千 as written: the table reads it for its column (5万元 under 费用(万元) is 5)
        said = text[start:end] if [s[:2] for s in magnified_numbers(text[start:end])] == \
            [(0, end - start)] else value
        said = "-" + said if value[:1] == "-" != said[:1] else said
        out.append(Number(start, end, value, unit, said + known, exact, word, past, noun,
                          approximate(text[max(0, start - 16):start], clause),
                          extent=(start, past)))
        groups.append(unit_group("℃") if unit == BARE_DEGREES else  # 22 degrees to 25℃
                      unit_group(known) if known else None)
        if unit is not None or ago:  # not the 月 of 3月2日: a date's 2 follows its month
            # (and past a half after the unit: 1天半3次, no word 半 before the 3)
            floor = max(floor, end + skip - virtual + (unit is not None and after[:1] == "半"))
    # an end of a span (22~25度, ``10 to 20``) is no exact value; two numbers in units known to
    # differ, or counting things named apart, are two values, not a span (``at 70 °F and 85%
    # load``, ``4 rainy days and 2 dry days``)
    nouns = [x.noun for x in out]
    for n, (span_after, span_before) in enumerate(spans):
        # (21°c-25°c: its other end, after a letter, is no number read; the next one is not it)
        unread = n + 1 < len(out) and any(ch.isdigit() for ch in text[out[n].end:out[n + 1].start])
        joined = span_after and (unread or _same_quantity(groups, n, n + 1, nouns))
        if joined or (span_before and _same_quantity(groups, n - 1, n, nouns)):
            out[n] = replace(out[n], exact=False, to_next=joined and n + 1 < len(out) and
                             not STOP_GAP.search(text[out[n].end:out[n + 1].start]))
        if joined and out[n].to_next and \
                {"and", "or"} & set("".join(c if c.isalpha() else " " for c in
                                            text[out[n].end:out[n + 1].start]).split()):
            # ``20 c and 25 c``, ``20 or 25 c``: two values, no span (``between 20 and 25 c``
            # is one, read as a range)
            out[n], out[n + 1] = replace(out[n], listed=True), replace(out[n + 1], listed=True)
    # two values of one quantity (22度和24度, 22或24度): neither is the value. The second
    # must be in a known unit and the first in that one or none (3天和2次 are two things)
    for n, listed in enumerate(lists[:-1]):
        if listed and groups[n + 1] is not None and groups[n] in (None, groups[n + 1]) and \
                nouns[n] == nouns[n + 1]:
            out[n], out[n + 1] = (replace(out[n], exact=False, listed=True),
                                  replace(out[n + 1], exact=False, listed=True))
    return out


def _over_a_span(text: str, out: Sequence[Number], start: int) -> bool:
    """Whether the duration starting at `start` of `text` follows the value before it (the
    last of `out`, read so far) with only ``over`` between them: the length of time that
    value held (``humidity 90% over 3 days``), as ``for 3 days`` says it, no bound. A bare
    ``over`` before a duration said alone (``rain over 3 days``, ``for over 3 days``) or
    before another quantity (``over 30 c``) bounds it."""
    return bool(out) and text[out[-1].after:start].strip(" ") == "over"


# what right after a number makes it the number of a place or a machine (3号棚, 三号机, 2号泵)
PLACE_AFTER = ("号",)
# what right before a number does so, as a whole word (``#3 pump``, ``no. 2 line``, ``pump nr
# 3``, ``number 3``)
PLACE_BEFORE = ("#", "no.", "no. ", "nr.", "nr. ", "nr ", "number ")
# what does so only after a word, the machine or place it numbers (``pump no 3``: a bare
# ``no 3`` may say none)
PLACE_BEFORE_NAMED = ("no ",)


def place_number(text: str, start: int, rest: str) -> bool:
    """Whether the number at `start` of compacted `text` (`rest`: what follows it) names which
    place or machine (3号棚, 三号机, ``#3 pump``, ``no. 2 line``) or is an ordinal with no unit
    (第三棚, 第3棚; not 第3天, a day), and so is no value of any input."""
    before = text[max(0, start - 8):start]
    if rest.startswith(PLACE_AFTER) or rest[:1] == "#" and is_cjk(rest[1:2]):
        return True  # (3#棚, 3#机: 3号 written in a hurry; not 湿度85#)
    if before.endswith("第"):
        return not unit_after(rest[1:] if rest.startswith("个") else rest)[0]
    word = next((w for w in PLACE_BEFORE if before.endswith(w)), "")
    if word and not (word[0].isalpha() and before[:-len(word)][-1:].isalpha()):
        return True
    named = next((w for w in PLACE_BEFORE_NAMED if before.endswith(w)), "")
    if named and before[:-len(named)][-2:-1].isalpha() and before[:-len(named)][-1:] == " ":
        return True  # (pump no 3: the pump's number)
    return en_place_before(text[max(0, start - 20):start])  # ``greenhouse (number) 3``


def _listed(rest: str) -> bool:
    """Whether `rest`, after a number, lists another value of it (22度和24度, 22或24度), not
    another place's (1号棚20度、2号棚25度: a value at each place)."""
    m = _LIST_AFTER.match(rest)
    return m is not None and not place_at(rest[m.end() - 1:])


def spoken_tenths(after: str) -> bool:
    """Whether what follows a number's unit is the tenths of a decimal said the spoken way
    (26度5, 二十六度五: 26.5): one digit or numeral, not the start of a number of its own — more
    digits, a decimal point, a unit or a percent sign after it (24度85%, 24度5天: two values)."""
    m = _SPOKEN_TENTHS.match(after)
    if m is None:
        return False
    rest = after[m.end():]
    return not (rest[:1].isdigit() or rest[:1] in (".", "%") or NUMERAL_RUN.match(rest) or
                unit_after(rest)[0])


def _object_bound(clause: str) -> bool:
    """Whether a bound follows what a duration counts (``4 days of heavy rain or more``)."""
    clause = clause.lstrip(" ")
    of = _EN_OBJECT.match(clause)
    return of is not None and _EN_BOUND_AFTER.match(clause, of.end()) is not None


def count_noun(rest: str) -> tuple[str, int]:
    """(the words that stand between a number and a unit of time, naming what it counts, how
    far the unit starts in `rest`, what follows the number): ``4 rainy days`` → (rainy, 7),
    4个雨天 → (雨, 2); ("", 0) when `rest` does not start so. English: one or two words of
    three letters or more, no filler or bound (``4 more days``), after a `RUN_WORDS` word or
    not (``4 consecutive days`` → ("", 13): no noun, the unit past it); Chinese: one to four
    characters after an optional 个, not a word making a bound (20多天) or a unit (5个小时)."""
    if rest[:1] == " " and rest[1:2].isascii() and rest[1:2].isalpha():
        words = rest[1:].split(" ", 4)
        lead = 1 if words[0] in RUN_WORDS else 0  # ``4 consecutive (rainy) days``
        for n in (0, 1, 2) if lead else (1, 2):
            noun = words[lead:lead + n]
            if len(words) <= lead + n or not all(
                    w.isascii() and w.isalpha() and len(w) >= 3 and w not in _NOT_NOUNS
                    and w not in RUN_WORDS and not drop_fillers(w) == "" for w in noun):
                break
            gap = 1 + len(" ".join(words[:lead + n])) + 1
            suffix, _, unit = unit_after(rest[gap:])
            if unit in DURATIONS and suffix.isascii() and len(suffix) > 1:
                return " ".join(noun), gap
        return "", 0
    lead = 1 if rest.startswith("个") else 0
    run = ""
    for ch in rest[lead:lead + 6]:
        if not is_cjk(ch):
            break
        run += ch
    if not run or unit_after(run)[0] or run.startswith(BOUND_AFTER) or negated(run):
        return "", 0
    for k in range(1, min(4, len(run) - 1) + 1):
        suffix, _, unit = unit_after(rest[lead + k:])
        if unit in DURATIONS and suffix and not suffix.isascii() and \
                not (run[k - 1] in _DAY_BEFORE and suffix.startswith("天")):
            return run[:k], lead + k  # (90比昨天: 昨天 is a day, no 90 天 of 比昨)
    return "", 0


# a character before 天 making a word of a day, no unit (昨天, 今天, 前天, 每天, 白天, 那天)
_DAY_BEFORE = "昨今前明后当每白那这哪隔"


def _same_quantity(groups: list[int | None], a: int, b: int, nouns: list[str]) -> bool:
    """Whether numbers `a` and `b` may be the ends of one span: not both in units
    (`decision.units.UNIT_GROUPS`) known to differ, nor counting things named apart."""
    if a < 0 or b >= len(groups):
        return True
    if nouns[a] and nouns[b] and nouns[a] != nouns[b]:
        return False
    return groups[a] is None or groups[b] is None or groups[a] == groups[b]


def negated(clause: str, start: int = 0) -> bool:
    """Whether a negation opens `clause` (what follows a number and its unit: 5天没有下雨,
    22度不是) from `start`. A question asked the A-not-A way (要不要, 需不需要, 有没有, 是不是:
    the word, 不 or 没, the word again) negates nothing: ``湿度90%要不要喷药`` gives 90."""
    m = _NEGATED.match(clause, start)
    if m is None:
        return False
    at = m.start(1)
    if at > start and clause[at - 1] == clause[at + 1:at + 2]:
        return negated(clause, at + 2)
    return True


def bounds_after(clause: str) -> bool:
    """Whether English words starting `clause` make the number before them no exact value:
    a bound (``or more``, ``at most``), a span (``to 8``) or a negation (``not``). What a
    number's own clause is checked for, for the clause after the name that follows a number
    (``6 cycles or more``)."""
    clause = clause.lstrip(" ")
    return bool(_EN_BOUND_AFTER.match(clause) or _EN_SPAN_AFTER.match(clause)
                or _EN_NEGATED.match(clause))


def _word_before(text: str, start: int, floor: int = 0,
                 keep: frozenset[str] = frozenset()) -> str:
    """The word right before position `start`, starting at `floor` or later (where the number
    before and its unit end: the c of ``22°c 4 days`` is no word of the 4): a run of CJK characters or Latin letters
    (病叶率 in 病叶率3%), without the unit of a number it follows (湿度 in 温度30度湿度90%:
    the spaces of 温度 30 度 湿度 90% are gone from a compact question); for English, the last two words before the number that are no
    fillers (``the seal`` in ``the seal is at 160 F``; three after a lead of an amount,
    `AMOUNT_LEADS`), "" when only fillers stand there; a filler of `keep` ending them is
    kept (``has`` before a duration: `POSSESSIONS`)."""
    word = _WORD_BEFORE.search(text, max(floor, start - 12), start)
    if word:  # cut after a numeral: the word before 二日 in 三月二日 is 月; not after a
        # 一 or 两 of a word (一直, 一般, 两边: no unit after it), 雨一直下 is one word
        found = word.group(0)
        cut = [m for m in NUMERAL_RUN.finditer(found)
               if m.group() not in ("一", "两") or unit_after(found[m.end():])[0]]
        run = found[cut[-1].end():] if cut else found
        if cut or text[word.start() - 1:word.start()].isdigit():
            unit = unit_after(run)[0]  # the unit of the number before: 30度湿度90%
            run = run[len(unit):] if unit and len(run) > len(unit) else run
        lead = word.start()
        while lead and (text[lead - 1].isdigit() or NUMERAL_RUN.match(text, lead - 1)):
            lead -= 1
        return "" if place_at(text[lead:start]) == start - lead else run  # 3号棚25度: no word
    latin = _EN_WORDS_BEFORE.search(text, max(floor, start - 32), start)
    if not latin:
        return ""
    words = latin.group(0).split()
    joined = [n for n, w in enumerate(words) if w in ("and", "with", "plus")]
    if joined and floor and not text[floor:latin.start()].strip():
        words = words[joined[-1] + 1:]  # 80 percent humidity and 24 c: the 80's name
    if _UNIT_BEFORE.search(text, max(0, latin.start() - 16), latin.start()):
        words = words[1:]  # the unit of the number before (35 psi at 1800 rpm, 0.2 in/s at)
    while words and drop_fillers(words[-1]) == "" and words[-1] not in keep:
        words.pop()
    # after a lead of an amount, the words that may name its subject too (suction of
    # ``suction pressure ran``: `query.wording.amount_subject`)
    return " ".join(words[-3 if words and words[-1] in AMOUNT_LEADS else -2:])
