"""Times of day in decision tables: a cell (``<9:00``, ``08:00-17:30``, ``22:00-6:00``, which
crosses midnight) and an input (``9:05``, ``9:05 pm``, ``上午9点``, ``9点半``, ``下午3点``,
``21时``) read as minutes after midnight and compared as such.

A column whose cells write times of day has the unit `CLOCK_UNIT` (`column_units.column_unit`);
an input there is read as a time (`clock_minutes`) and written as its minutes with that unit,
and a value that is no time (``3小时``, a bare ``9``) is refused, as a time given to a column
of durations is (`column_units.input_unit_problem`). Pure: imports `numerals` only.
"""

from __future__ import annotations

import re

from kbtools.decision.numerals import chinese_number

CLOCK_UNIT = "时刻"  # the unit of a column of times of day, and of an input read as one
DAY = 24 * 60  # minutes

# H:MM in a cell, 24-hour (0:00 to 24:00); not a part of a longer number or a ratio (1:100)
_CELL_TIME = re.compile(r"(?<![\d:.])(\d{1,2}):([0-5]\d)(?![\d:.])")


def cell_minutes(text: str) -> str | None:
    """`text` (a normalised cell) with each time of day written as its minutes after midnight
    (``08:00-17:30`` → ``480-1050``); None when it writes none, or one no clock shows
    (``25:00``)."""
    if ":" not in text:
        return None
    bad = False

    def minutes(m: re.Match[str]) -> str:
        nonlocal bad
        hour, minute = int(m.group(1)), int(m.group(2))
        bad = bad or hour > 24 or hour == 24 and minute > 0
        return str(hour * 60 + minute)
    out = _CELL_TIME.sub(minutes, text)
    return None if bad or out == text else out


def unit_mismatch(column: str, unit: str, kind: tuple[str, str, str], such: tuple[str, str],
                  zh: bool) -> str:
    """Why a value is refused where values in `unit` (a time of day, a day of the week: their
    `kind`, in Chinese, one and several in English, and examples, `such`) and a column of
    other values meet: the column (unit `column`) holds them and the value is none, or the
    other way round."""
    if column == unit:
        return f"这一列是{kind[0]}（如 {such[0]}）" if zh else \
            f"the column holds {kind[2]} (such as {such[1]})"
    return f"这是{kind[0]}，这一列是{column or '数值'}" if zh else \
        f"it is {kind[1]}; the column holds {column or 'numbers'}"


def clock_mismatch(column: str, zh: bool) -> str:
    """`unit_mismatch` of a time of day."""
    return unit_mismatch(column, CLOCK_UNIT, ("时刻", "a time of day", "times of day"),
                         ("9:00、下午3点", "9:00 or 3 pm"), zh)


def clock_text(x: float) -> str:
    """Minutes after midnight as a clock shows them (``540`` → ``9:00``)."""
    hour, minute = divmod(int(x), 60)
    return f"{hour}:{minute:02d}"


# the part of the day said before an hour, and how it reads the hour (pm: +12 below 12; night:
# 12 is midnight; noon: 1 and 2 are after noon)
_AM = ("上午", "早上", "早晨", "清晨", "早")
_NIGHT = ("凌晨", "半夜", "午夜")
_NOON = ("中午",)
_PM = ("下午", "傍晚", "晚上", "夜里", "夜间", "晚")
_PARTS = "|".join(sorted((*_AM, *_NIGHT, *_NOON, *_PM), key=len, reverse=True))
_HOUR = r"\d{1,2}|[零〇一二两三四五六七八九十]{1,3}"
def _said_body(space: str) -> str:
    """The pattern of a time of day said (`clock_minutes`), with `space` where spaces may
    stand."""
    return (rf"(?P<part>{_PARTS})?{space}(?P<h>{_HOUR}){space}"
            rf"(?:(?P<colon>:){space}(?P<m>[0-5]\d)(?::[0-5]\d)?|(?P<dian>[点時时]){space}"
            rf"(?:(?P<half>半)|(?P<quarter>[一三])刻|(?P<cm>\d{{1,2}}|[零〇一二三四五六七八九十]{{1,3}})"
            rf"{space}分?)?(?:钟)?)?{space}(?P<ampm>[ap]\.?m\.?(?![a-z]))?")


_SPACES = r"\s*"
_SAID = re.compile(f"^{_said_body(_SPACES)}$", re.IGNORECASE)
# the same, in the middle of a compacted question (one space at most between words): not
# inside a longer number (1.8:30) or a ratio
_SAID_IN = re.compile(rf"(?<![\d:.]){_said_body(' ?')}(?![\d:])", re.IGNORECASE)


def clock_minutes(text: str, *, strict: bool) -> int | None:
    """The time of day `text` (a normalised input) says, in minutes after midnight: ``9:05``,
    ``9:05 pm``, ``9pm``, ``上午9点``, ``9点半``, ``九点一刻``, ``下午3点``, ``21时``; None when
    it says none, or one no clock shows (``25:00``, ``13 pm``). With `strict` (the column is
    not one of times of day) only a value no duration could be: one with a colon, am/pm or a
    part of the day (21时 there is 21 hours)."""
    m = _SAID.match(text)
    if m is None or not (m.group("colon") or m.group("dian") or m.group("ampm")):
        return None
    if strict and not (m.group("colon") or m.group("ampm") or m.group("part")):
        return None
    hour_said = m.group("h") if m.group("h").isdigit() else chinese_number(m.group("h"))
    minute_said = m.group("m") or m.group("cm") or "0"
    minute_said = minute_said if minute_said.isdigit() else chinese_number(minute_said)
    if hour_said is None or minute_said is None:
        return None
    hour, minute = int(hour_said), int(minute_said)
    if m.group("half") or m.group("quarter"):
        minute = 30 if m.group("half") else {"一": 15, "三": 45}[m.group("quarter")]
    part, ampm = m.group("part") or "", (m.group("ampm") or "").casefold().replace(".", "")
    if ampm:
        if not 1 <= hour <= 12 or part:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    elif part in _PM or part in _NOON and hour <= 2:
        hour = hour + 12 if hour < 12 else (0 if hour == 12 and part not in ("下午", "傍晚")
                                             else hour)
    elif part in _NIGHT and hour == 12:
        hour = 0
    if minute > 59 or hour > 24 or hour == 24 and minute:
        return None
    return hour * 60 + minute


# what starts a unit after a number: the minutes of 下午3点28度 are none (28 is degrees)
_UNIT_START = re.compile(r"\s*(?:[度℃°%‰％个天周月年米克升斤亩]|小时|[a-z])", re.IGNORECASE)


def times_in(text: str) -> list[tuple[int, int, int]]:
    """The times of day a question (`text`, compacted: `kbtools.query.compacted.compact`) says,
    as (start, end, minutes after midnight), read as an input to a column of times is
    (`clock_minutes`): ``时间8:30``, ``早上8点半到的``, ``晚上10点``, ``at 9:05 pm``, ``21时``.
    An hour in Chinese numerals counts only with a part of the day or its minutes (早上八点,
    八点半; not the 一点 of 高一点, a little)."""
    out = []
    for m in _SAID_IN.finditer(text):
        said = m.group(0).rstrip()
        if m.group("cm") and not said.endswith("分") and _UNIT_START.match(text, m.end("cm")):
            said = text[m.start():m.start("cm")]  # 下午3点28度: 3 pm, and 28 degrees
        if not (m.group("colon") or m.group("dian") or m.group("ampm")):
            continue
        if not m.group("h").isdigit() and not (m.group("part") or m.group("half") or
                                               m.group("quarter") or m.group("cm")):
            continue  # 高一点, 十点 alone: a little, or no time said plainly enough
        if (minutes := clock_minutes(said, strict=False)) is not None:
            out.append((m.start(), m.start() + len(said), minutes))
    return out
