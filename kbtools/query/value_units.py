"""The units a question's numbers are read in (`kbtools.query.values`): which spellings are
one unit class (the same quantity in a header and a question: ℃, °c, c, 摄氏度, 度), the
classes that are temperatures and durations, and `unit_after`, the unit (or the word that
multiplies a number: 2万, ``2 thousand``) at the start of what follows a number.

Pure: the tables' unit groups come from `kbtools.decision.units`.
"""

from __future__ import annotations

import re

from kbtools.decision.numerals import PERCENT_SAID, rough_pairs
from kbtools.decision.units import (
    GROUP_OF,
    MAGNITUDE_WORDS,
    MAGNITUDES,
    SCALES,
    SPELLED_UNITS,
    UNIT_GROUPS,
    rate_parts,
)

# Units that mark what a number measures (the same quantity in a header and a question).
# Single Latin letters (f, c, h) name a unit only where no letter follows them.
UNIT_CLASSES: tuple[tuple[str, ...], ...] = (
    ("℃", "°c", "c", "摄氏度", "度"),
    ("%", "％", "percent"),
    ("小时", "钟头", "h", "hours", "hour", "hrs", "hr"),
    ("天数", "天", "日", "days", "day", "d"),  # 4d: 4 days (no letter after it)
    ("周", "星期", "weeks", "week", "wks", "wk"),
    ("个月", "months", "month"),  # not 月 alone: 3月2日 is a date
    ("年", "years", "year", "yrs", "yr"),
    ("分钟", "min", "mins", "minute", "minutes"),
    ("刻钟",),  # 一刻钟: a quarter of an hour
    ("mm", "毫米"),
    ("mpa",),
    ("kg", "公斤", "千克"),
    ("°f", "℉", "f"),
    ("psi", "psig"),
    ("rpm", "r/min"),
    ("bar",),
    ("kpa",),
    ("psia",),
    ("in/s", "ips"),
    ("gpm",),
    ("v", "volts", "volt"),
    ("kv",),
    ("mv",),
    ("a", "amps", "amp"),
    ("cal/cm2",),
    ("hp", "horsepower"),
    ("cfm",),
    ("degrees", "degree", "deg", "°"),  # no scale named: a temperature in the column's degrees
)
BARE_DEGREES = len(UNIT_CLASSES) - 1
TEMPERATURES = frozenset((0, next(n for n, c in enumerate(UNIT_CLASSES) if "°f" in c)))
# the classes of durations: a number in one followed by ``old`` is an age (``the hose is 5
# years old``: the hose is what is that old, the number's word is ``age``)
DURATIONS = frozenset(n for n, c in enumerate(UNIT_CLASSES)
                       if c[0] in ("小时", "天数", "周", "个月", "年"))
# what an amount of money is counted in: a number's unit carried to a column counted in a
# multiple of it (30000元 under 费用(万元) is 3 of them: `decision.units.scale`)
CURRENCIES = ("元",)
_UNIT_WORDS = sorted({w for c in UNIT_CLASSES for w in c}, key=len, reverse=True)
# what a number's value carries from the question: a unit the tables' checks know
# (`decision.units.UNIT_GROUPS`: 72°f against a ℃ column is refused, not read as 72 ℃)
# or a word that multiplies it (2万, 2 thousand are refused, not read as 2); a single Latin
# letter that multiplies (k, w) is left to the MAGNITUDES check below
SUFFIXES = sorted({*SPELLED_UNITS, *MAGNITUDE_WORDS, *_UNIT_WORDS, *CURRENCIES,
                   *(u for g in UNIT_GROUPS for u in g)} - MAGNITUDES, key=len, reverse=True)


# words that begin with a one-character unit and are no unit: 08:00周期 is a time and a
# cycle, not 0 weeks; 3天气 no days, 2年级 a school year, 5日志 log files
NOT_UNITS = frozenset(("周期", "周边", "周围", "周长", "天气", "天然", "天线", "天窗", "日期",
                       "日志", "日常", "年级", "年代", "度数"))


def _is_word_at(text: str, word: str) -> bool:
    """`text` starts with `word`, and a word ending in a Latin letter is not the start of a
    longer one (the d of ``drops`` is no day, the h of ``hot`` no hour), nor a one-character
    Chinese unit of a word of `NOT_UNITS` (the 周 of 周期 is no week)."""
    if not text.startswith(word):
        return False
    nxt = text[len(word):len(word) + 1]
    if len(word) == 1 and word + nxt in NOT_UNITS:
        return False
    return not (word[-1].isascii() and word[-1].isalpha() and nxt.isascii() and nxt.isalpha())


def _per_unit(rest: str) -> str:
    """What `rest` (the text after a unit) starts with when it makes that unit a rate: ``/``,
    每 or `` per `` and a unit `UNIT_GROUPS` knows (每亩, /ha); "" when it does not."""
    lead = next((w for w in ("/", "每", " per ") if rest.startswith(w)), "")
    word = next((w for w in SUFFIXES if lead and w in GROUP_OF and
                 _is_word_at(rest[len(lead):], w)), "")
    return lead + word if word else ""


def unit_after(rest: str) -> tuple[str, str, int | None]:
    """(the unit or multiplying word as written at the start of `rest`, the unit the tables
    know it by, its UNIT_CLASSES index). One space may stand before a Latin word (75 F)."""
    if rest[:1] == " " and rest[1:2].isalpha():
        rest = rest[1:]
    suffix = next((w for w in SUFFIXES if _is_word_at(rest, w)), "")
    if not suffix:
        first, then = rest[:1], rest[1:2]
        if first in MAGNITUDES and not (then.isascii() and then.isalpha()):
            suffix = first  # 2万, 2k (not the k of a word: 2kg is a unit, found above)
    known = SPELLED_UNITS.get(suffix, suffix)
    per = _per_unit(rest[len(suffix):]) if suffix in GROUP_OF else ""
    if per:  # 25公斤每亩, 25 kg/ha, ``250 kg per ha``: a rate, as the table's column writes one
        suffix, known = suffix + per, f"{known}/{per.lstrip('/每').removeprefix(' per ')}"
    measured = known.split("/")[0] if per else known
    if suffix in MAGNITUDES or suffix in MAGNITUDE_WORDS:  # 2万小时, 1.2k rpm: what it counts
        measured = unit_after(rest[len(suffix):])[1]
    unit = next((n for n, c in enumerate(UNIT_CLASSES) if measured in c), None)
    return suffix, known, unit


# the measure words a count takes (三次, 五遍, 两回; 三台 machines, 五头 animals, 两株 plants): no
# unit of a quantity, but a Chinese numeral before one is a number, as 3次 is
COUNTERS = ("次", "遍", "回", "趟", "台", "头", "只", "株", "件", "辆", "棵", "架")


# a rate said with its per-unit first (每亩施了25公斤, 每公顷用量375千克, ``per mu we applied 25
# kg``): the per-unit, at most `_RATE_GAP` characters of words (no number, no clause's end),
# then a number and its unit. Not per a time (每天运行20小时: how often, no rate read)
_PER_FIRST = re.compile(r"每|(?<![a-z])per ")
_RATE_NUMBER = re.compile(r"\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+")
_RATE_GAP = 12
_PER_COMMA = re.compile(r" ?[,，] ?")  # a comma right after the per-unit ends no rate
_RATE_STOP = re.compile(r"[\d,.;:!?，。；：！？、零〇一二两三四五六七八九十]|每|(?<![a-z])per ")
_TIMES = frozenset(GROUP_OF[u] for family in SCALES[:2] for u in family)
_AMOUNTS = frozenset(GROUP_OF[u] for family in SCALES if "kg" in family or "l" in family
                      for u in family if u in GROUP_OF)  # what is spread on land: a mass, a volume


# in the order `rates_said_first` gives: the 每 a land area said alone as the per-unit
# goes after the number with (亩施25公斤 as 施25公斤每亩)
PER_SAID = -1
# … and the space an English rate said first with a comma after its per-unit goes without
# (``per ha,we spread 150 kg`` as ``,we spread 150 kg per ha``)
SPACE_SAID = -2


def in_order(text: str, order: list[int]) -> str:
    """`text` in the order of `rates_said_first` (its characters, `PER_SAID` a 每,
    `SPACE_SAID` a space)."""
    return "".join("每" if i == PER_SAID else " " if i == SPACE_SAID else text[i] for i in order)


def rates_said_first(text: str) -> list[int]:
    """The order of `text`'s characters (a compacted question) that writes each rate said
    per-unit first as a number and its rate (每亩施了25公斤 as 施了25公斤每亩, ``per ha we used
    375 kg`` as ``we used 375 kg per ha``): the characters of the span it takes moved, what
    stands outside it in its place, so texts aligned with `text` stay aligned. Only where
    the number's unit and the per-unit make a rate the tables know (`decision.units.
    rate_parts`: kg/亩, l/ha). A land area said alone as the per-unit (亩施25公斤) is given
    the 每 it goes without (`PER_SAID`): texts put in this order (`in_order`) stay aligned
    with each other."""
    order, at = list(range(len(text))), 0
    for start, per_at in _per_starts(text):
        if start < at:
            continue
        per = next((w for w in SUFFIXES if w in GROUP_OF and _is_word_at(text[per_at:], w)), "")
        if not per or GROUP_OF[per] in _TIMES:
            continue
        gap_at = per_at + len(per)
        comma = _PER_COMMA.match(text, gap_at)  # ``per hectare, we spread 150 kg``, 每亩，施
        skip = comma.end() - gap_at if comma else 0
        stop = _RATE_STOP.search(text, gap_at + skip, gap_at + skip + _RATE_GAP + 1)
        number = _RATE_NUMBER.match(text, stop.start()) if stop else None
        suffix, known, _ = unit_after(text[number.end():]) if number else ("", "", None)
        if number is None or not suffix or "/" in known or rate_parts(f"{known}/{per}") is None \
                or start == per_at and GROUP_OF.get(known) not in _AMOUNTS:
            continue  # (亩施 an amount: 25公斤, 2升; not 亩温0度, a thing named 亩)
        end = number.end() + (text[number.end()] == " ") + len(suffix)
        marks = [i for i in range(gap_at, gap_at + skip) if text[i] != " "]  # the comma first
        gaps = [i for i in range(gap_at, gap_at + skip) if text[i] == " "]
        spaced = not skip and text[gap_at:gap_at + 1] == " "  # ``per mu we``: its space
        lead = [PER_SAID] * (start == per_at and not spaced and not gaps) + \
            list(range(start, gap_at))  # goes before it
        said = list(range(gap_at + spaced + skip, end))
        if marks and not gaps and per.isascii() and start < per_at:  # ``per ha,we``: a space
            gaps = [SPACE_SAID]
        order[start:end] = marks + said + [gap_at] * spaced + gaps + lead
        at = end
    return order


# a land area said as the per-unit with no 每 (亩施25公斤, 亩用药50克, 公顷施375千克: the
# agronomist's way): its Chinese spellings. Not one a number or a word of an amount stands
# before (10亩地施了25公斤, 几亩, 十多亩, 半亩: the area the total was spread on), nor 公亩
_LAND = tuple(sorted((w for u in ("亩", "公顷") for w in UNIT_GROUPS[GROUP_OF[u]]
                      if not w.isascii()), key=len, reverse=True))
_AREA_SAID = frozenset("0123456789.零〇一二两三四五六七八九十百千万几半多少余来数每公 ")


def _per_starts(text: str) -> list[tuple[int, int]]:
    """Where a rate said per-unit first may start in `text` (a compacted question), with
    where its per-unit starts: after 每 or ``per`` (每亩, ``per ha``), or a land area said
    alone as the per-unit (亩施25公斤: `_LAND`), in the order they stand."""
    starts = [(m.start(), m.end()) for m in _PER_FIRST.finditer(text)]
    for word in _LAND:
        at = text.find(word)
        while at >= 0:
            if text[at - 1:at] not in _AREA_SAID:
                starts.append((at, at))
            at = text.find(word, at + len(word))
    return sorted(set(starts))


# the words a count is said with after its numeral (两次, 三回, 一周3次, 两个星期, 3 个小时,
# 两台): how often, how long or how many, no thing a name after them is of (每天两次温度30度;
# the thing counted still is: 两台水泵温度)
COUNT_WORDS = ("个小时", "个钟头", "个星期", "个礼拜", "个月", "小时", "钟头", "分钟", "星期",
               "礼拜", "顿", "个", "天", "日", "周", "年", "月", *COUNTERS)
_COUNT_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万几0123456789")


def count_end(text: str, lo: int, at: int) -> int:
    """Where the last count said in the Chinese words `text[lo:at]` ends (a numeral in
    Chinese or digits and the word it counts with, `COUNT_WORDS`: 两个星期三次, 每天两次,
    一周3次), `lo` when none: the words before a name up to there say how often or how long,
    no thing the name is of (两个星期三次温度32度 is the temperature)."""
    end, n = lo, lo
    while n < at:
        if text[n] not in _COUNT_NUMERALS:
            n += 1
            continue
        while n < at and text[n] in _COUNT_NUMERALS:
            n += 1
        word = next((w for w in COUNT_WORDS if text.startswith(w, n) and n + len(w) <= at), "")
        if word:
            end = n = n + len(word)
    return end


def said_roughly(text: str) -> str:
    """`text` with each numeral of two neighbouring digits before a unit or measure word as
    the span it says (下了三四天雨 as 下了三到四天雨: `decision.numerals.rough_pairs`), which the
    question's reader reads as a range; `kbtools.query.inputs` says the value was rough."""
    for start, end, read in reversed(rough_pairs(text, _counted)):
        text = text[:start] + read + text[end:]
    return text


def rough_said(text: str, shown: str = "") -> dict[str, str]:
    """Each span `said_roughly` reads a numeral of `text` as → the numeral as said (三到四 →
    三四): what a message quotes for a value given so, from `shown` (the text as written,
    兩三 in Traditional script, where it lines up with `text`)."""
    shown = shown if len(shown) == len(text) else text
    out = {}
    for start, end, read in rough_pairs(text, _counted):
        if text.endswith(PERCENT_SAID, 0, start):  # 百分之八九十, read as 八十到九十%
            read, start = f"{read}%", start - len(PERCENT_SAID)
        out[read] = shown[start:end]
    return out


def _counted(rest: str) -> bool:
    """Whether `rest` (what follows a Chinese numeral) starts with a unit or a measure word
    (天, 个小时, 度, 台, 成 of a share in tenths)."""
    return unit_after(rest)[2] is not None or rest.startswith((*COUNTERS, "个", "成"))
