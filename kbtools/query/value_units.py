"""The units a question's numbers are read in (`kbtools.query.values`): which spellings are
one unit class (the same quantity in a header and a question: ℃, °c, c, 摄氏度, 度), the
classes that are temperatures and durations, and `unit_after`, the unit (or the word that
multiplies a number: 2万, ``2 thousand``) at the start of what follows a number.

Pure: the tables' unit groups come from `kbtools.decision.units`.
"""

from __future__ import annotations

import re

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
    ("小时", "h", "hours", "hour", "hrs", "hr"),
    ("天数", "天", "日", "days", "day"),
    ("周", "星期", "weeks", "week", "wks", "wk"),
    ("个月", "months", "month"),  # not 月 alone: 3月2日 is a date
    ("年", "years", "year", "yrs", "yr"),
    ("分钟", "min", "minutes"),
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
_RATE_STOP = re.compile(r"[\d,.;:!?，。；：！？、零〇一二两三四五六七八九十]|每|(?<![a-z])per ")
_TIMES = frozenset(GROUP_OF[u] for family in SCALES[:2] for u in family)


def rates_said_first(text: str) -> list[int]:
    """The order of `text`'s characters (a compacted question) that writes each rate said
    per-unit first as a number and its rate (每亩施了25公斤 as 施了25公斤每亩, ``per ha we used
    375 kg`` as ``we used 375 kg per ha``): the characters of the span it takes moved, what
    stands outside it in its place, so texts aligned with `text` stay aligned. Only where
    the number's unit and the per-unit make a rate the tables know (`decision.units.
    rate_parts`: kg/亩, l/ha)."""
    order, at = list(range(len(text))), 0
    for m in _PER_FIRST.finditer(text):
        if m.start() < at:
            continue
        per = next((w for w in SUFFIXES if w in GROUP_OF and _is_word_at(text[m.end():], w)), "")
        if not per or GROUP_OF[per] in _TIMES:
            continue
        gap_at = m.end() + len(per)
        stop = _RATE_STOP.search(text, gap_at, gap_at + _RATE_GAP + 1)
        number = _RATE_NUMBER.match(text, stop.start()) if stop else None
        suffix, known, _ = unit_after(text[number.end():]) if number else ("", "", None)
        if number is None or not suffix or "/" in known or rate_parts(f"{known}/{per}") is None:
            continue
        end = number.end() + (text[number.end()] == " ") + len(suffix)
        spaced = text[gap_at:gap_at + 1] == " "  # ``per mu we``: its space goes before it
        lead = list(range(m.start(), gap_at))
        said = list(range(gap_at + spaced, end))
        order[m.start():end] = said + [gap_at] * spaced + lead
        at = end
    return order
