"""Days of the week in decision tables: a cell (``周一至周五``, ``周六、周日``, ``工作日``,
``周末``, ``Mon-Fri``, ``Sat, Sun``, ``周五至周一``, which wraps the week) and an input (``周三``,
``星期三``, ``礼拜天``, ``Wednesday``, ``Wed``) read as days numbered 1 (Monday) to 7 (Sunday)
and compared as such.

A cell's days are written as one range of those numbers (``1-5``; ``5-1`` wraps the week; one
day is ``3-3``), which `conditions` parses as it parses any range and marks `weekday`; a column
whose cells write days has the unit `WEEKDAY_UNIT` (`column_units.column_unit`). An input there
is read as a day (`weekday_number`) and written as its number with that unit; a number given
to a column of days, or a day to a column of numbers, is refused (`weekday_mismatch`). Days
that are no one run of the week (``周一、周三``) are no condition. Pure: the standard library and
`clock` (the words of a refusal, `clock.unit_mismatch`).
"""

from __future__ import annotations

import re

from kbtools.decision.clock import unit_mismatch

WEEKDAY_UNIT = "周内日"  # the unit of a column of days of the week, and of an input read as one

_ZH_DAY = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7, "七": 7,
           **{str(n): n for n in range(1, 8)}}  # 周3: a day as typed in digits
_EN_DAY = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
_ZH_NAMES = "一二三四五六日"
_EN_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# named runs of days (工作日 is Monday to Friday)
_NAMED = {"工作日": (1, 5), "周末": (6, 7), "双休日": (6, 7), "weekdays": (1, 5),
          "weekday": (1, 5), "weekends": (6, 7), "weekend": (6, 7), "每天": (1, 7),
          "每日": (1, 7), "daily": (1, 7), "every day": (1, 7)}

_ZH = r"(?:周|星期|礼拜|週|禮拜)"
_EN = (r"(?:mon(?:day)?|tue(?:s|sday)?|wed(?:s|nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?"
       r"|sat(?:urday)?|sun(?:day)?)s?\.?(?![a-z])")
_ZH_NUM = "[一二三四五六七日天]"
_DIGIT = r"[1-7](?![\d.])"  # 周3, 星期7: one digit, never the start of a number (周12 is a week)
# one day said alone (an input, or a cell of one day); a week named before it (下周一, 本周三,
# ``next Monday``) leaves the day it is
_WEEK = r"(?:(?:上上|下下|上|下|本|这|這)(?:个|個)?|next\s+|this\s+|last\s+)?"
_ONE = re.compile(rf"^{_WEEK}(?:{_ZH}(?P<zh>{_ZH_NUM}|{_DIGIT})|(?P<en>{_EN}))$", re.IGNORECASE)
# the days a cell writes: a day, Chinese days glued (周六日), a run (周一至周五, 周一至五,
# Mon-Fri) or a named run, one after another
_ITEM = re.compile(
    rf"\s*(?:{_ZH}(?P<zh>{_ZH_NUM}{{1,7}}|{_DIGIT})|(?P<en>{_EN})|(?P<named>{'|'.join(_NAMED)}))"
    rf"(?:\s*(?:至|到|~|-|–|—|\bto\b|\bthrough\b|\bthru\b)\s*"
    rf"(?:{_ZH}?(?P<zh2>{_ZH_NUM}|{_DIGIT})|(?P<en2>{_EN})))?\s*", re.IGNORECASE)
_SEP = re.compile(r"(?:、|,|，|/|;|；|&|和|及|与|\band\b)")


def _en(word: str) -> int:
    return _EN_DAY[word.casefold()[:3]]


def weekday_number(text: str) -> int | None:
    """The day of the week `text` (a normalised input) says, 1 (Monday) to 7 (Sunday):
    ``周三``, ``星期三``, ``礼拜天``, ``Wednesday``, ``Wed``; None when it says none."""
    m = _ONE.match(text.strip())
    if m is None:
        return None
    return _ZH_DAY[m.group("zh")] if m.group("zh") else _en(m.group("en"))


def _days(m: re.Match[str]) -> set[int] | None:
    """The days one item of a cell (`_ITEM`) names; None when it names no run."""
    if m.group("named"):
        lo, hi = _NAMED[m.group("named").casefold()]
        first = last = None
    elif m.group("zh"):
        glued = [_ZH_DAY[c] for c in m.group("zh")]
        if len(glued) > 1:
            return None if m.group("zh2") or m.group("en2") else set(glued)
        first = last = glued[0]
    else:
        first = last = _en(m.group("en"))
    if m.group("named"):
        return set(range(lo, hi + 1))
    if m.group("zh2") or m.group("en2"):
        last = _ZH_DAY[m.group("zh2")] if m.group("zh2") else _en(m.group("en2"))
    assert first is not None and last is not None
    span = (last - first) % 7
    return {(first - 1 + k) % 7 + 1 for k in range(span + 1)}


def cell_days(text: str) -> str | None:
    """`text` (a normalised cell) as the range of day numbers it writes (``周一至周五`` →
    ``1-5``, ``周五至周一`` → ``5-1``, ``周三`` → ``3-3``, ``周六、周日`` → ``6-7``); None when
    it writes no days, or days that are no one run of the week (``周一、周三``)."""
    days: set[int] = set()
    at = 0
    while True:
        m = _ITEM.match(text, at)
        if m is None or (named := _days(m)) is None:
            return None
        days |= named
        at = m.end()
        if at == len(text):
            break
        sep = _SEP.match(text, at)
        if sep is None:
            return None
        at = sep.end()
    if len(days) == 7:
        return "1-7"
    starts = [d for d in days if (d - 2) % 7 + 1 not in days]
    if len(starts) != 1:
        return None
    last = starts[0]
    while last % 7 + 1 in days:
        last = last % 7 + 1
    return f"{starts[0]}-{last}"


def days_in(lo: float, hi: float) -> frozenset[int]:
    """The days of the run from `lo` to `hi` (wrapping the week when `lo` > `hi`)."""
    first, last = int(lo), int(hi)
    return frozenset((first - 1 + k) % 7 + 1 for k in range((last - first) % 7 + 1))


def day_name(x: float, zh: bool) -> str:
    """Day `x` (1 to 7) as said: ``周三``, or ``Wed``."""
    return f"周{_ZH_NAMES[int(x) - 1]}" if zh else _EN_NAMES[int(x) - 1]


def days_text(lo: float, hi: float, zh: bool) -> str:
    """The run of days from `lo` to `hi` (wrapping the week when `lo` > `hi`) as a condition
    says it: ``周一至周五``, ``in Mon–Fri``, ``周三``, ``Wed``."""
    if lo == hi:
        return day_name(lo, zh)
    return f"{day_name(lo, zh)}至{day_name(hi, zh)}" if zh else \
        f"in {day_name(lo, zh)}–{day_name(hi, zh)}"


def weekday_mismatch(column: str, zh: bool) -> str:
    """`clock.unit_mismatch` of a day of the week."""
    return unit_mismatch(column, WEEKDAY_UNIT, ("星期几", "a day of the week", "days of the week"),
                         ("周三、星期三", "Wednesday or 周三"), zh)


# a day said by today's date, which a table cannot know (明天, ``tomorrow``)
_RELATIVE = re.compile(r"^(?:今天|今日|明天|明日|后天|後天|昨天|昨日|前天|大后天|大後天"
                       r"|today|tomorrow|yesterday|the day after tomorrow)$", re.IGNORECASE)
_NO_DAY = re.compile(rf"^{_WEEK}{_ZH}\d+$", re.IGNORECASE)  # 周8, 星期0


def not_a_day(text: str, zh: bool) -> str:
    """Why `text` (a normalised input, no day `weekday_number` reads) gives a column of days
    of the week no day: said by today's date (明天: a table cannot know which day that is),
    a number no day has (周8), or no day at all."""
    say = "请写星期几（周三、星期三）" if zh else "give the day of the week (Wednesday or 周三)"
    if _RELATIVE.match(text.strip()):
        return (f"这是相对今天的日子，表格不知道今天星期几；{say}" if zh else
                f"it names a day by today's date, which the table cannot know; {say}")
    if _NO_DAY.match(text.strip()):
        return (f"一周只有周1（周一）到周7（周日）；{say}" if zh else
                f"days of the week are numbered 1 (Monday) to 7 (Sunday); {say}")
    return f"不是星期几；{say}" if zh else f"it is no day of the week; {say}"


# a day of the week said in a question (compacted: `kbtools.query.compacted.compact`), or a run
# of them: 周三, 星期3, 礼拜天, 下周一, 周一到周三, ``on wednesday``, ``Wed``, ``Thu.``, ``mon-fri``.
# Not the 周三 of a count (一周三次, 每周三天, 两个星期三次: a numeral before it or a measure word
# after it), nor ``sun`` and ``sat`` as the words they also are (``in the sun``, ``it sat``):
# those only written with a capital (``Sun``), a period (``sat.``), after a word leading a
# day (``on sat``) or in a run (``sat-sun``)
_COUNTED = "一二两三四五六七八九十几数每0-9"  # before it, or before 个 before it (两个星期三次)
_MEASURE = r"(?:次|回|遍|趟|顿|頓|个|個|日|号|號|小时|小時|周|週|年|月|晚|夜|[十百千万萬]|\d|天(?!气|氣))"
_ZH_SAID = rf"{_ZH}(?:{_ZH_NUM}|[1-7](?![\d.]))"
_EN_SAID = (r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
            r"|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)")
_EN_WORDS = ("sat", "sun")  # days shortened that are words too
_EN_LEADS = re.compile(r"(?:^|[^a-z])(?:on|next|this|last|every|until|till|from|by|before|after)"
                       r"\s*$")
# a named run said (周末, 工作日, ``at weekends``; not 每天, ``daily``: how often, no day)
_NAMED_SAID = r"工作日|周末|双休日|(?<![a-z])(?:weekends?|weekdays?)(?![a-z])"
_SAID = re.compile(
    rf"(?<![{_COUNTED}])(?<![{_COUNTED}][个個]){_ZH_SAID}(?:(?:至|到|~|-|–|—){_ZH}?(?:{_ZH_NUM}|[1-7](?![\d.])))?"
    rf"(?!{_MEASURE})"
    rf"|(?<![a-z]){_EN_SAID}(?:\s*(?:to|through|thru|-|–)\s*{_EN_SAID})?(?![a-z])"
    rf"|{_NAMED_SAID}", re.IGNORECASE)


def days_said(text: str, cased: str = "") -> list[tuple[int, int, str]]:
    """The days of the week a question (`text`, compacted) says, as (start, end, the words)
    given a column of days as its input; a day said by today's date (明天) is none. `cased`:
    the question compacted without case folding, where it lines up (``Sun`` is a day)."""
    return [(m.start(), m.end(), m.group(0)) for m in _SAID.finditer(text)
            if cell_days(m.group(0)) is not None and
            (m.group(0).casefold() not in _EN_WORDS or text[m.end():m.end() + 1] == "." or
             cased[m.start():m.start() + 1].isupper() or
             _EN_LEADS.search(text[max(0, m.start() - 12):m.start()]) is not None)]
