"""What a caller's input value says before a decision table compares it (`kb table eval`, MCP
`evaluate_table`, ``/api/table/evaluate``: all through `kbtools.decision.matching.match_rules`).

A field user types a value as they would say it, and the table must either answer for exactly
that or say why it cannot:

- a rough value (``约25度``, ``25℃左右``, ``about 25 C``) is read as its number and marked
  approximate (`read_given`), so the answer says so and names the bound it lies near
  (`near_bound`), as a search does for a question's rough value;
- a Chinese numeral (``二十五度``, ``两天``) is read as its number in a numeric column;
- a range or a bound (``22-25度``, ``22~25℃``, ``25度以上``) is an interval (`Given.span`): a row
  answers when its cell holds all of it (`covers`); rows that each hold a part of it
  (`meets`) are named rather than one picked;
- several values in one (``E17和E71``, ``18, 25``: `several`), a date that does not exist
  (``2026-02-30``: `bad_date`) and a number no such quantity can be (``130%``, ``-300度``:
  `impossible`) are refused, naming the column and what it takes.

`InputError` is how a value is refused, in English and (the web page) Chinese. Pure: imports
`kbtools.decision.conditions`, `column_units`, `units`, `words` and `kbtools.errors`.
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from kbtools.decision.cell_text import decimal_comma
from kbtools.decision.clock import CLOCK_UNIT, DAY, clock_minutes
from kbtools.decision.column_units import input_unit_problem, overflows, parse_number, unit_of
from kbtools.decision.conditions import (
    Condition,
    format_number,
    normalize_cell,
    parse_condition,
    read_numerals,
)
from kbtools.decision.numerals import (
    MAGNITUDE_CHARS,
    MAGNITUDE_TIMES,
    NUMERAL_CHARS,
    fraction,
    magnified,
    magnified_numbers,
    shares_said,
    spell_numbers,
)
from kbtools.decision.units import (
    GROUP_OF,
    TEMPERATURE_GROUPS,
    limits,
    unit_group,
    unit_symbols,
)
from kbtools.decision.weekdays import WEEKDAY_UNIT, cell_days, days_in, weekday_number
from kbtools.decision.words import APPROX_ABBREVIATIONS, APPROX_AFTER, APPROX_BEFORE
from kbtools.errors import TableError

APPROXIMATE_NOTE = "approximate value"
DEPENDS_NOTE = "the answer depends on the exact value"
# how near a bound of the matched row a rough value must be for the answer to depend on the
# exact value: this share of the larger of the two magnitudes (``about 30`` on ``>= 30`` or
# ``< 31``; not ``about 90%`` on ``>= 85``)
NEAR_BOUND = 0.05
# words after an approximation word and before its number (大约是25度, 大概在25度)
_APPROX_FILLERS = ("是", "在", "为", ".")
# what separates the values of an input that lists several (E17和E71, E17, E71, E17/E71),
# in a value whose whitespace `normalize_cell` made single spaces
_SEVERAL = re.compile(r" ?(?:和|与|及|跟|或者|或|、|,|;|/|&|\band\b|\bor\b) ?", re.IGNORECASE)
# a date as written: 2026-02-30, 2026/2/30, 2026.02.30, 2026年2月30日
SHOWN_VALUE_CHARS = 40  # an input value as quoted in an error message
_DATE = re.compile(r"^(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?$")


@dataclass(frozen=True)
class Given:
    """One input value as a table compares it: `text` (approximation words dropped, Chinese
    numerals read in a numeric column), `span` when it gives a range or bound rather than one
    value, `approximate` when it was said roughly."""

    text: str
    span: Condition | None = None
    approximate: bool = False
    written: str = ""  # the value as given, which messages quote
    # in the column's scale when given in the other one (77°F to a ℃ column: 25℃), said so
    converted: bool = False


def read_given(value: str, numeric: bool, unit: str = "") -> Given:
    """`value` as given to an input column (`numeric`: one holding numeric conditions) whose
    numbers are in `unit` (`column_units.column_unit`). A text column compares the value as
    written. A number times 万, 千 (2万, 2.5万, 3千: `numerals.magnified`) is its value, as in
    a cell, except in a column whose unit begins with that word (5万元 under 费用(万元) is 5 of
    its 万元, not 50000). A time of day (9:05, 下午3点: `clock.clock_minutes`) is its minutes
    after midnight in `CLOCK_UNIT`, which only a column of times takes; a day of the week
    (周三, Wednesday: `weekdays.weekday_number`) is its number in `WEEKDAY_UNIT`, likewise."""
    if not numeric:
        return Given(value, written=value)
    text, rough = _unrough(normalize_cell(value))
    if (minutes := clock_minutes(text, strict=unit != CLOCK_UNIT)) is not None:
        return Given(f"{minutes}{CLOCK_UNIT}", None, rough, value)
    if (day := weekday_number(text)) is not None:
        return Given(f"{day}{WEEKDAY_UNIT}", None, rough, value)
    if cell_days(text) is not None:  # 周一至周三, 工作日, 周六至周一: a run of days, as cells write
        return Given(text, parse_condition(text), rough, value)
    share = next((s for s in ("%", "‰") if unit_group(unit) == unit_group(s)), "")
    text = read_numerals(_scaled(_signed(_latin_magnitudes(_shares(text, share), unit))))
    text = in_magnitude(text, unit) if unit[:1] and unit[:1] in MAGNITUDE_CHARS \
        else magnified(text)
    text = fraction(text, share)
    text = unit_symbols(_spelled(text))  # 30 degrees F: 30°f
    if (degrees := in_scale(text, unit)) is not None:  # 77°F to a ℃ column: 25℃
        return Given(degrees, None, rough, value, converted=True)
    if parse_number(text) is not None:
        return Given(text, None, rough, value)
    span = parse_condition(text)
    if span.kind == "range" and span.lo > span.hi and not span.clock:  # 25-18度: 18 to 25
        # (23:00-1:00 is the two hours across midnight, as a cell writes them: `_circle`)
        span = replace(span, lo=span.hi, hi=span.lo, lo_incl=span.hi_incl, hi_incl=span.lo_incl)
    return Given(text, span if span.is_rangeish else None, rough, value)


CONVERTED_NOTE = "converted"  # (converted: 温度(℃) 77°F = 25℃)
CONVERTED_DIGITS = 6  # decimals a temperature converted to the column's scale keeps


def in_scale(text: str, unit: str) -> str | None:
    """A temperature `text` in one scale (77°F, 25 C, 华氏77度 as `unit_symbols` writes it)
    in the other scale, the column's `unit` (℃ or °F), as a number and that unit (25℃,
    21.111111℃ for 70°F: to `CONVERTED_DIGITS` decimals, so that no rounding moves a value
    across a row's bound); None when `text`
    is no temperature in the other scale (25℃ to ℃, ``25 degrees``, a range)."""
    said = unit_of(text)
    ours, theirs = GROUP_OF.get(unit.casefold()), GROUP_OF.get(said.casefold())
    if ours not in TEMPERATURE_GROUPS or theirs not in TEMPERATURE_GROUPS or ours == theirs:
        return None
    try:
        x = Decimal(text[:len(text) - len(said)].strip())
    except ArithmeticError:
        return None
    fahrenheit = GROUP_OF["°f"]
    x = (x - 32) / Decimal("1.8") if theirs == fahrenheit else x * Decimal("1.8") + 32
    digits = format(round(x, CONVERTED_DIGITS).normalize(), "f")
    return f"{digits}{unit}"


def _shares(text: str, share: str) -> str:
    """`text` with each share of a whole it says in words or a fraction inside a bound or a
    range (一半, 一半以上, 超过三分之二, 1/2到2/3: `numerals.shares_said`) as the percentage it
    is, in a column of shares (`share`: ``%`` or ``‰``); as it is elsewhere."""
    if not share:
        return text
    for start, end, value in reversed(shares_said(text)):
        text = f"{text[:start]}{value}%{text[end:]}"
    return text


# a number with a Latin letter for a thousand or ten thousand glued after it, as typed (2k,
# 1.5k, 3K: 2000, 1500, 3000; 2w: 20000), written with 千/万 for `magnified` to read. Not the
# start of a word or a code (2kg, 2kW, 2k-xxx, 2k_v1, v2k), nor K in a column of
# temperatures (300K is kelvin) or w in one of power (5w is 5 W)
_LATIN_MAGNITUDE = re.compile(r"(?<![A-Za-z0-9_.,])(\d+(?:\.\d+)?)([kKwW])"
                              r"(?![A-Za-z0-9_./]|-(?![\d\s]))")
_NOT_THOUSANDS = frozenset(g for u in ("℃", "°f", "开尔文") if (g := unit_group(u)) is not None)
_NOT_MYRIADS = frozenset(g for u in ("w", "kw") if (g := unit_group(u)) is not None)


def _latin_magnitudes(text: str, unit: str) -> str:
    """`text` with each number a Latin letter multiplies (`_LATIN_MAGNITUDE`) written with its
    Chinese multiplier (``2k`` → ``2千``, ``2w`` → ``2万``), in a column in `unit`."""
    if not any(ch in text for ch in "kKwW"):
        return text
    group = unit_group(unit)

    def said(m: re.Match[str]) -> str:
        letter = m.group(2).casefold()
        if group in (_NOT_THOUSANDS if letter == "k" else _NOT_MYRIADS):
            return m.group(0)
        return m.group(1) + ("千" if letter == "k" else "万")
    return _LATIN_MAGNITUDE.sub(said, text)


def in_magnitude(text: str, unit: str) -> str:
    """`text` in a column counted in a multiple of a unit (`unit` 万元: 万 times 元) with each
    number a multiplier follows, alone or before that unit, written in the column's unit by
    the exact factor (``8千元`` → ``0.8万元``, ``0.6亿`` → ``6000万元``, ``5万`` → ``5万元``); a
    number in another unit (``3万人``) as written."""
    times, base = Decimal(MAGNITUDE_TIMES[unit[:1]]), unit[1:]
    for start, end, value in reversed(magnified_numbers(text)):
        rest = text[end:].lstrip()
        if rest and not (base and rest.startswith(base)):
            continue
        shown = Decimal(value) / times
        number = str(int(shown)) if shown == shown.to_integral_value() \
            else format(shown.normalize(), "f")
        text = text[:start] + number + unit + rest.removeprefix(base)
    return text


# words before a number that make it negative: 零下5度 (below zero), 负5 (minus)
_BELOW_ZERO = ("零下", "负")


_BELOW_ZERO_AT = re.compile(  # (``minus 5 C``, ``negative 5``: as a question's, `query.values`)
    rf"(?:{'|'.join(_BELOW_ZERO)}|(?<![a-z\d])(?<!\d )(?i:minus|negative) )\s*"
    rf"(?=[\d{''.join(sorted(NUMERAL_CHARS))}])")


# a span whose first end a Chinese word says below zero and whose other end has no sign of
# its own: both ends below zero (零下3到5度 is -3 to -5 degrees, as a forecast says it)
_BELOW_ZERO_SPAN = re.compile(
    rf"((?:{'|'.join(_BELOW_ZERO)})\s*[\d{''.join(sorted(NUMERAL_CHARS))}]+(?:\.\d+)?\s*"
    rf"(?:度|℃|°c)?\s*(?:到|至|~|〜)\s*)(?!零下)(?=[\d{''.join(sorted(NUMERAL_CHARS))}])", re.IGNORECASE)


def _signed(text: str) -> str:
    """`text` with a word saying its number is below zero written as a minus, wherever the
    number stands (``零下5度`` → ``-5度``, ``零下五度`` → ``-五度``, ``低于零下5度`` →
    ``低于-5度``, ``minus 5 C`` → ``-5 C``), and the other end of a span it starts too
    (``零下3到5度`` → ``-3到-5度``)."""
    return _BELOW_ZERO_AT.sub("-", _BELOW_ZERO_SPAN.sub(r"\1-", text))


# a temperature's scale said before its number (摄氏25度 is 25℃, 华氏80度 80°F, as a search
# reads a question's: `kbtools.query.values`)
_SCALE_BEFORE = re.compile(r"^(摄氏|华氏)\s*(-?[\d零〇一二两三四五六七八九十百点]+)\s*度?")


def _scaled(text: str) -> str:
    """`text` with a scale said before its number written as the number's unit (``摄氏25度``
    → ``25℃``, ``华氏80度`` → ``80°F``); else as it is."""
    m = _SCALE_BEFORE.match(text)
    if m is None:
        return text
    return f"{m.group(2)}{'℃' if m.group(1) == '摄氏' else '°F'}{text[m.end():]}"


def _spelled(text: str) -> str:
    """`text` with English number words leading it in digits when that makes it a number
    (``twenty-five C`` → ``25 C``, ``two days`` → ``2 days``); else as it is."""
    if not text[:1].isascii() or not text[:1].isalpha():
        return text
    digits = spell_numbers(text, lambda rest: True)
    return digits if parse_number(digits) is not None or \
        parse_condition(digits).is_rangeish else text


def _unrough(text: str) -> tuple[str, bool]:
    """`text` without the word that makes it rough (约25度, 25℃左右, ``about 25``), and whether
    there was one; as written when what is left is no number."""
    key = text.casefold()
    for word in sorted(APPROX_BEFORE, key=len, reverse=True):
        rest = text[len(word):]
        if not key.startswith(word) or (word.isascii() and word.isalpha() and
                                        rest[:1].isascii() and rest[:1].isalpha()):
            continue
        rest = rest.lstrip()
        if word in APPROX_ABBREVIATIONS or not word.isascii():
            rest = next((rest[len(f):].lstrip() for f in _APPROX_FILLERS
                         if rest.startswith(f)), rest)
        if _numberish(rest):
            return rest, True
    for word in sorted(APPROX_AFTER, key=len, reverse=True):
        rest = text[:len(text) - len(word)].rstrip(" -.")
        if key.endswith(word) and not (word[:1].isascii() and word[:1].isalpha() and
                                       text[len(rest):len(rest) + 1].isalpha()) \
                and _numberish(rest):
            return rest, True
    return text, False


def _numberish(text: str) -> bool:
    """Whether `text` reads as a number or a range once its numerals are read."""
    text = _spelled(magnified(read_numerals(_scaled(_signed(text)))))
    return parse_number(text) is not None or parse_condition(text).is_rangeish


def several(value: str) -> list[str]:
    """The values `value` lists (``E17和E71``, ``E17, E71``, ``18、25``), at least two; []
    when it lists none (a number with thousands, ``1,000``, is one value; ``1,5`` is not
    taken for two either)."""
    text = normalize_cell(value)
    if parse_number(text) is not None or text.lstrip("+-").replace(",", "", 1).isdigit() or \
            decimal_comma(text):
        return []  # 1,5: a decimal comma or a list, which no one can tell ("not a number")
    parts = [p for p in _SEVERAL.split(text) if p.strip()]
    return parts if len(parts) > 1 and len(_SEVERAL.findall(text)) == len(parts) - 1 else []


def bad_date(value: str) -> tuple[str, str] | None:
    """Why `value`, written as a date (``2026-02-30``, ``2026年2月30日``), is no date: (English,
    Chinese); None when it is a date or not written as one."""
    m = _DATE.match(normalize_cell(value))
    if m is None:
        return None
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12:
        return (f"no such date (there is no month {month})", f"没有这一天（没有 {month} 月）")
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        return (f"no such date ({year}-{month:02d} has {days} days)",
                f"没有这一天（{year} 年 {month} 月只有 {days} 天）")
    return None


def impossible(xs: list[float], unit: str,
               cells: list[tuple[float, float]]) -> tuple[str, str] | None:
    """Why the numbers `xs`, in the column's `unit`, are no value of it: one lies beyond what
    a quantity in that unit can be (`units.limits`: below absolute zero, a percentage over
    100, a negative duration) and beyond what the column's own cells (`cells`: each one's
    (lower, upper) bound) say it may be: an author writing ``>100`` or ``100-200`` in a %
    column means more than 100 is possible. (English, Chinese: the range it takes); None when
    every one may be."""
    found = limits(unit)
    if found is None:
        return None
    lo, hi = found
    for a, b in cells:  # a cell reaching past a limit from a bound at or past it
        if (math.isfinite(a) and a >= found[1]) or (math.isfinite(b) and b > found[1]):
            hi = max(hi, b)
        if (math.isfinite(b) and b <= found[0]) or (math.isfinite(a) and a < found[0]):
            lo = min(lo, a)
    if all(lo <= x <= hi for x in xs):
        return None
    low = "" if math.isinf(lo) else format_number(lo)
    if math.isfinite(hi):
        span = f"{low}–{format_number(hi)} {unit}"
        shown = span if low else f"at most {format_number(hi)} {unit}"
        shown_zh = span if low else f"不高于 {format_number(hi)} {unit}"
    else:
        shown, shown_zh = f"{low} {unit} or more", f"不低于 {low} {unit}"
    return (f"impossible: this column takes {shown}",
            f"不可能的值：这一列的取值范围是{shown_zh}")


def whole(span: Condition) -> Condition:
    """`span` on whole numbers, as a column counting whole things takes it (`units.counts_whole`:
    <4 days is ≤3 days, >3 is ≥4, 2.5-4.5 is 3-4); as it is when it holds no whole number."""
    lo, hi = span.lo, span.hi
    if math.isfinite(lo):
        lo = float(math.ceil(lo) if span.lo_incl else math.floor(lo) + 1)
    if math.isfinite(hi):
        hi = float(math.floor(hi) if span.hi_incl else math.ceil(hi) - 1)
    if lo > hi:
        return span
    kind = "range" if math.isfinite(lo) and math.isfinite(hi) else \
        ("ge" if math.isfinite(lo) else "le")
    return replace(span, kind=kind, lo=lo, hi=hi, lo_incl=math.isfinite(lo),
                   hi_incl=math.isfinite(hi))


def _circle(c: Condition) -> list[Condition]:
    """A condition on times of day as pieces within one day: a range across midnight
    (22:00-6:00) its part before midnight and its part after; another, itself."""
    if c.clock and c.kind == "range" and c.lo > c.hi:
        return [replace(c, hi=float(DAY), hi_incl=False), replace(c, lo=0.0, lo_incl=True)]
    return [c]


def covers(cond: Condition, span: Condition) -> bool:
    """Whether every value of `span` satisfies the cell's condition `cond` (numeric or any)."""
    if cond.kind == "any":
        return True
    if cond.weekday and span.weekday:  # 周六至周一 within 周五至周一: as days, which wrap
        return days_in(span.lo, span.hi) <= days_in(cond.lo, cond.hi)
    if cond.clock and span.clock and (len(_circle(cond)) > 1 or len(_circle(span)) > 1):
        # 23:00-1:00 within 22:00-6:00: each piece of the day it holds in one of the cell's
        return all(any(covers(c, s) for c in _circle(cond)) for s in _circle(span))
    low = span.lo > cond.lo or (span.lo == cond.lo and (cond.lo_incl or not span.lo_incl))
    high = span.hi < cond.hi or (span.hi == cond.hi and (cond.hi_incl or not span.hi_incl))
    return low and high


def meets(cond: Condition, span: Condition) -> bool:
    """Whether some value of `span` satisfies the cell's condition `cond`."""
    if cond.kind == "any":
        return True
    if cond.weekday and span.weekday:
        return bool(days_in(span.lo, span.hi) & days_in(cond.lo, cond.hi))
    if cond.clock and span.clock and (len(_circle(cond)) > 1 or len(_circle(span)) > 1):
        return any(meets(c, s) for c in _circle(cond) for s in _circle(span))
    lo, lo_incl = max((cond.lo, cond.lo_incl), (span.lo, span.lo_incl),
                      key=lambda e: (e[0], not e[1]))
    hi, hi_incl = min((cond.hi, cond.hi_incl), (span.hi, span.hi_incl),
                      key=lambda e: (e[0], e[1]))
    return lo < hi or (lo == hi and lo_incl and hi_incl)


def near_bound(cond: Condition, x: float) -> bool:
    """Whether `x` lies within `NEAR_BOUND` of a finite bound of the numeric `cond`: a
    slightly different value would fall on the bound's other side."""
    return cond.numeric and any(
        math.isfinite(b) and abs(x - b) <= NEAR_BOUND * max(abs(x), abs(b))
        for b in (cond.lo, cond.hi))


class InputError(TableError):
    """An input value the table cannot compare (no number in a numeric column, too large, or
    in another unit): `message` in English, `message_in(lang)` in the web page's words."""

    def __init__(self, where: str, column: str, value: str, column_unit: str = "", *,
                 fraction: bool = False, said: tuple[str, str] | None = None,
                 rows: tuple[int, ...] = ()):
        self.column, self.value, self.column_unit = column, value, column_unit
        self.fraction, self.said = fraction, said
        # a range given that these rows (1-based) each hold part of (`refusals.span_error`)
        self.rows = rows
        super().__init__(f"{where}: input {column}='{quoted(value)}'{self._why('en')}")

    def _why(self, lang: str) -> str:
        zh = lang == "zh"
        if self.said is not None:  # why, in English and Chinese (`kbtools.decision.given`)
            return f"：{self.said[1]}" if zh else f": {self.said[0]}"
        if self.fraction:
            x = parse_number(self.value) or 0.0
            shown, whole = format_number(x), format_number(round(x * 100, 9))
            return (f"：这一列以 % 计，{shown} 会被读作 {shown}%；若指 {whole}%，请输入 {whole}"
                    f"（确指 {shown}% 时写 {shown}%）" if zh else
                    f": the column is in %, where {shown} reads as {shown} %; give {whole} for "
                    f"{whole} % (or write {shown}% if {shown} % is meant)")
        if overflows(self.value):
            return ("：数值太大，无法比较" if zh else
                    " is too large a number to compare (beyond the range of a float)")
        if parse_number(self.value) is None:
            return ("：不是数，这一列的条件是数值" if zh else
                    " is not a number, and this column holds numeric conditions")
        why = input_unit_problem(self.value, self.column_unit, lang)
        return ("：" if zh else ": ") + (why or "")

    def message_in(self, lang: str) -> str:
        """The message in `lang` (``en``: `message`; ``zh``: Chinese, without the table's
        name, which the page shows above it)."""
        if lang != "zh":
            return self.message
        return f"输入 {self.column} = “{quoted(self.value)}”{self._why('zh')}"

    def value_message(self, lang: str, typed: str = "") -> str:
        """The message in `lang` without the table's name (`message_in` ``zh``; in English
        ``input 温度(℃)='18-25度': …``): what a search result, which shows the table, says,
        quoting the value as the question `typed` it when given (``25 degrees``, where the
        value compared is ``25degrees``)."""
        shown = quoted(typed or self.value)
        if lang == "zh":
            return f"输入 {self.column} = “{shown}”{self._why('zh')}"
        return f"input {self.column}='{shown}'{self._why('en')}"


def quoted(text: str) -> str:
    """An input value or name as an error message quotes it: cut at `SHOWN_VALUE_CHARS`."""
    return text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS - 1] + "…"
