"""The ranges and bounds a ``--where`` value writes, for `filter_text` to read: a range
between two ends (``5kW..10kW``, ``5–10kW``, ``5至10kW``: `range_ends`), one open at an end
(``5kW..``, ``5kW以上``, ``不低于5kW``, ``..10kW``, ``10kW以下``: `between`), a date a word
bounds (``2024年3月以后``, ``after March 2024``: `date_bound`), and the tilde before a value
a filter cannot read (``~10kW``: `open_tilde`); each as a `Between`, written back so. A
value said approximately (``约10``, ``about 5kW``) is named with the range and the tolerance
to write instead (`about_instead`). The refusals of a range a filter cannot mean (after
``!=`` or an order, its ends reversed: `check_range`) and of a date of two readings
(``03/04/2024``: `check_day_month`)."""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Context, Decimal

from kbtools.errors import FilterError
from kbtools.query.filter_commas import written_in_chinese
from kbtools.query.filter_kinds import day_month, keys_against, period_of, version_text, wanted
from kbtools.query.filter_numbers import narrow, order_number, quantity, unit_written
from kbtools.query.filter_units import in_unit


class Between(str):
    """A range among the values of one ``=`` filter (``power=5–10kW,20kW``: `Between` 5kW
    and 10kW, or 20kW), both ends included, or open at one end (``..2kW``: `low` None), or
    a bound that excludes its end (`strict`: ``after 2024`` of ``date=after 2024,2020``,
    ``2024年之后``; one end only): the text `where_text` writes for it (``5kW..10kW``,
    ``..2kW``, ``after 2024``, ``before 2024``), which `parse_where` reads back so. Never
    equal to a plain value of the same text (``power="5kW..10kW"`` in quotes, or a facet
    menu's value, is that text), so filters and their cached masks stay apart."""

    low: str | None
    high: str | None
    written: str  # as the filter gave it (5–10kW)
    strict: bool  # its end excluded: > low, or < high

    def __new__(cls, low: str | None, high: str | None, written: str = "",
                strict: bool = False) -> Between:
        assert not strict or (low is None) != (high is None), (low, high)
        text = (f"{low or ''}..{high or ''}" if not strict else
                f"after {low}" if high is None else f"before {high}")
        made = super().__new__(cls, text)
        made.low, made.high, made.written, made.strict = low, high, written or text, strict
        return made

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Between) and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((Between, str(self)))

    def __reduce__(self) -> tuple[type[Between], tuple[str | None, str | None, str, bool]]:
        return Between, (self.low, self.high, self.written, self.strict)

    def bounds(self) -> list[tuple[str, str]]:
        """The orders the range is: (``>=``, low) and (``<=``, high), of the ends it has;
        (``>``, low) or (``<``, high) for a `strict` bound."""
        above, below = (">", "<") if self.strict else (">=", "<=")
        return [(op, end) for op, end in ((above, self.low), (below, self.high))
                if end is not None]


class Converted(str):
    """A range's end converted to its first end's unit (`_one_unit`: ``20亩`` of
    ``1公顷..20亩`` as ``1.3333333333333333334公顷``): the text filters compare, exactly, and
    `typed`, the end as the filter gave it, which every surface shows (`where_text`)."""

    typed: str

    def __new__(cls, text: str, typed: str) -> Converted:
        made = super().__new__(cls, text)
        made.typed = typed
        return made

    def __reduce__(self) -> tuple[type[Converted], tuple[str, str]]:
        return Converted, (str(self), self.typed)


def shown_end(end: str) -> str:
    """A range's end as a filter shows it: a `Converted` one as typed, another as it is."""
    return end.typed if isinstance(end, Converted) else end


# between a range's two ends (5kW..10kW, 5至10kW, 5–10kW, 5〜10kW), the longer marks first (5...10
# is no 5 to .10); not - (12-24V is a value written so)
RANGE_MARKS = ("...", "..", "……", "…", "——", "—", "–", "~", "～", "〜", "至", "到", " to ")
MAX_RANGE_CHARS = 80  # longer text is no range of two values


def range_ends(value: str) -> tuple[str, str] | None:
    """The two ends of a range a filter's bare value writes (``5kW..10kW``, ``5~10kW``,
    ``5至10kW``, ``2024-01..2024-03``) when each end is a number, a quantity, a version or a
    date (a bare first end takes the second's unit as written: ``5..10kW`` is 5kW to
    10kW; a date's end without its year the other's, `_dated_ends`: ``2024年3月到5月``,
    ``March to May 2024``); None for any other value (``A~B`` stays text; ``5-10kW`` too:
    a value such as ``12-24V`` is written so)."""
    if len(value) > MAX_RANGE_CHARS:
        return None
    mark = next((m for m in RANGE_MARKS if m in value), None)
    if mark is None:
        return None
    low, _, high = (part.strip() for part in value.partition(mark))
    amount = quantity(high)
    if amount is not None and order_number(low) is not None:  # 5..10kW
        unit = unit_written(high)
        low = f"{low}{unit}" if quantity(f"{low}{unit}") is not None else low
    ends = _dated_ends(low, high)
    return _one_unit(*ends) if all(map(an_end, ends)) else None


# a range's end converted to its first end's unit when its decimal never ends (`_one_unit`):
# rounded up to this many significant digits, beyond a measured value's and short enough for
# the end to stay a quantity (`filter_numbers.MAX_QUANTITY_CHARS`)
END_DIGITS = 20
_END_ROUNDED = Context(prec=END_DIGITS, rounding=ROUND_CEILING)


def _one_unit(low: str, high: str) -> tuple[str, str]:
    """A range's ends with its last in its first's unit when they are quantities of one
    dimension in units of other sizes (``0.5%..6‰``: ``0.5%..0.6%``, ``50cm..1m``:
    ``50cm..100cm``), so that a document's bare number is read in one unit, the first's,
    against both (not 3 % against one end and 3 ‰ against the other). When the last's number
    in that unit never ends (``1公顷..20亩``: 4/3 公顷) it is rounded up, in decimals, to
    `END_DIGITS` significant digits (1.33…334公顷): a document of exactly 20亩 is within, a
    bare 10 (10 公顷) beyond. The ends as they are otherwise."""
    a, b = quantity(low), quantity(high)
    if a is None or b is None or a[0] == b[0]:
        return low, high
    number = in_unit(b, a[0], _END_ROUNDED)
    if number is None or number == b[1] or number < a[1]:  # ¥50..100元: a bare 80 reads
        return low, high  # alike; 10kW–500W: reversed, refused as written (`filter_text`)
    unit = unit_written(low).strip()
    end = f"{_plain(number)}{unit}"
    return low, Converted(end if quantity(end) is not None else f"{number:e}{unit}",  # 1e-30
                          high)


def _dated_ends(low: str, high: str) -> tuple[str, str]:
    """A range's two ends with the year (and month) one date end writes given to the other
    that writes none, as people write a span of one year: ``2024年3月`` to ``5月`` is to
    ``2024年5月`` (``2024年12月`` to ``3月`` to ``2025年3月``: the next one after it),
    ``2024年3月1日`` to ``15日`` to ``2024年3月15日``, ``March`` to ``May 2024`` from ``March
    2024``; the ends as they are otherwise."""
    if "年" in low and "年" not in high and period_of(low) is not None and \
            period_of(high) is None:
        head = low[:low.index("年") + 1] if "月" in high else \
            low[:low.index("月") + 1] if "月" in low and high.endswith(("日", "号")) else None
        if head is not None and (end := period_of(head + high)) is not None:
            start = period_of(low)
            if start is not None and end.start < start.start and "月" in high:  # 12月到3月
                year = head[:head.index("年")].strip()  # into the next year
                head = f"{int(year) + 1}年" if year.isdigit() else head
            return low, head + high
    if period_of(low) is None and period_of(high) is not None and high[-4:].isdigit() and \
            not any(c.isdigit() for c in low[-1:]) and period_of(f"{low} {high[-4:]}"):
        return f"{low} {high[-4:]}", high  # March to May 2024
    return low, high


# after a value, a range open above (5kW.., 5kW~, 5kW以上: 5kW or more); before it, one open
# below (..10kW: 10kW or less). Not a tilde before a value: ~10kW is "about 10kW" as often
# (words after a value, or more and or less: 5kW或以上, 5kW or more, 10kW及以下, 10kW以内; the
# longest first, so that 及以下 is not 以下 after a value 10kW及)
_OPEN_ABOVE = tuple(sorted(("...", "..", "……", "…", "~", "～", "〜", "及以上", "或以上", "以上",
                            "+", "及其以上", "或更多", "或更高", "或更大", "及更高", " or more", " or above",
                            " and above", " or higher", " and up", " or over"),
                           key=len, reverse=True))
_OPEN_BELOW = ("...", "..", "……", "…")
_BELOW_AFTER = tuple(sorted(("以下", "及以下", "及其以下", "或以下", "以内", "及以内", "或更少", "或更低",
                             "或更小", " or less", " or below", " and below", " or lower",
                             " or under", " and under"), key=len, reverse=True))
_TILDES = ("~", "～", "〜")
# words before a value that make it a bound, both ends included (不低于5kW: 5kW or more)
_AT_LEAST = ("不低于", "不少于", "不小于", "至少", "at least ", "no less than ")
_AT_MOST = ("不超过", "不高于", "不多于", "不大于", "至多", "最多", "at most ", "no more than ")


# words that make a date a bound (`date_bound`), after it or before it: from it on and up to it
# included, as 以上 and 以下 include theirs (2024年3月以后, 2024年3月起, since 2024-03; 以前,
# until 2024); after it and before it not (2024年3月之后, after March 2024; 之前, before 2024)
_DATE_BOUNDS = ((">=", ("及以后", "以后", "以来", "起"), ("since ", "from ")),
                ("<=", ("及以前", "以前"), ("until ", "till ", "through ")),
                (">", ("之后", "后"), ("after ",)), ("<", ("之前", "前"), ("before ",)))


def date_bound(value: str) -> tuple[str, str] | None:
    """(operator, date) of a filter's bare value that bounds a date, month or year by a
    word (`_DATE_BOUNDS`: ``2024年3月以后`` ``>=``, ``after March 2024`` ``>``, ``before
    2024`` ``<``); None for another value."""
    text = narrow(value.strip())
    folded = text.casefold()
    for op, after, before in _DATE_BOUNDS:
        end = next((text[:-len(w)] for w in after if text.endswith(w) and len(text) > len(w)),
                   None) or next((text[len(w):] for w in before if folded.startswith(w)), None)
        if end is not None and period_of(end := end.strip()) is not None:
            return op, end
    return None


_PLUS_MINUS = ("±", "+/-", "+-")  # between a value and its tolerance: 10±2, 0.5+/-0.05MPa


def plus_minus(text: str) -> Between | None:
    """The range a value with a tolerance writes (``10±2``, ``0.5±0.05MPa``, ``25℃±2℃``,
    ``85±5%``): the value less and plus the tolerance, both ends included, in the unit
    written after either (the same unit when both write one); None for another value, and
    for a tolerance in another unit than its value's (``220V±10%``: relative, not read)."""
    mark = next((m for m in _PLUS_MINUS if m in text), None)
    if mark is None or len(text) > MAX_RANGE_CHARS:
        return None
    centre, _, spread = (part.strip() for part in text.partition(mark))
    unit = (unit_written(spread) if quantity(spread) is not None else
            unit_written(centre) if quantity(centre) is not None else "")
    value, tolerance = _amount(centre, unit), _amount(spread, unit)
    if value is None or tolerance is None or tolerance < 0:
        return None
    return Between(f"{_plain(value - tolerance)}{unit}", f"{_plain(value + tolerance)}{unit}",
                   text)


def _amount(text: str, unit: str) -> Decimal | None:
    """The finite number of a tolerance's value or spread (`plus_minus`), written in `unit`
    or with no unit; None for another text."""
    amount = quantity(text)
    if amount is not None and unit_written(text).casefold() != unit.casefold():
        return None
    number = order_number(text) if amount is None else amount[1]
    return number if isinstance(number, Decimal) and number.is_finite() else None


def _plain(number: Decimal) -> str:
    """`number` in digits without an exponent (``8``, ``0.45``, ``10``), every digit kept
    (``normalize`` alone rounds to the context's 28)."""
    return format(number.normalize(Context(prec=max(len(number.as_tuple().digits), 1))), "f")


def between(value: str) -> Between | None:
    """The range a filter's bare value writes (`range_ends`: ``5kW..10kW``, ``5–10kW``), or
    one open at an end: ``5kW..``, ``5kW~``, ``5kW以上``, ``5kW或以上``, ``5kW+``, ``5kW or
    more``, ``不低于5kW``, ``at least 5kW`` (5kW or more), ``..10kW``, ``10kW以下``,
    ``10kW及以下``, ``10kW以内``, ``10kW or less``, ``不超过10kW``, ``at most 10kW`` (10kW or
    less), each end included, as a range's are; None for any other
    value (``~10kW`` too, which `open_tilde` refuses: about 10kW, or up to it?). Full-width
    forms as ASCII (``５ｋＷ．．`` is ``5kW..``, as a Chinese input method types it)."""
    text = narrow(value.strip())
    if (ends := range_ends(_span_inside(text))) is not None:
        return Between(*ends, written=text)
    if (tolerance := plus_minus(text)) is not None:  # 10±2: 8..12
        return tolerance
    if len(text) > MAX_RANGE_CHARS:
        return None
    if (bound := date_bound(text)) is not None:  # 2024年3月以后; after 2024 (its end excluded)
        strict = bound[0] in (">", "<")
        return (Between(bound[1], None, text, strict) if bound[0] in (">=", ">") else
                Between(None, bound[1], text, strict))
    folded = text.casefold()
    above = next((m for m in _OPEN_ABOVE if folded.endswith(m) and len(text) > len(m)), None)
    if above is not None and an_end(low := text[:-len(above)].strip()):
        return Between(low, None, written=text)
    below = next((m for m in _OPEN_BELOW if text.startswith(m) and len(text) > len(m)), None)
    if below is not None and an_end(high := text[len(below):].strip()):
        return Between(None, high, written=text)
    after = next((m for m in _BELOW_AFTER if folded.endswith(m) and len(text) > len(m)), None)
    if after is not None and an_end(high := text[:-len(after)].strip()):
        return Between(None, high, written=text)
    for words, least in ((_AT_LEAST, True), (_AT_MOST, False)):
        word = next((w for w in words if folded.startswith(w)), None)
        if word is not None and an_end(end := text[len(word):].strip()):
            return Between(end, None, text) if least else Between(None, end, text)
    return None


# a range said in words around its ends (5到10kW之间, 介于5和10kW之间, between 5 and 10 kW, from
# 5 to 10 kW): the words before and after it, and the word between its ends
_SPAN_AROUND = (("介于", "之间"), ("在", "之间"), ("", "之间"), ("between ", ""), ("from ", ""))
_SPAN_AND = {"之间": ("和", "与", "及"), "": (" and ",)}


def _span_inside(text: str) -> str:
    """`text` without the words a range is said in (`_SPAN_AROUND`), its ends joined by 到 or
    `` to `` (``介于5和10kW之间``: ``5到10kW``, ``between 5 and 10 kW``: ``5 to 10 kW``); other
    text as it is."""
    folded = text.casefold()
    for before, after in _SPAN_AROUND:
        if folded.startswith(before) and folded.endswith(after) and \
                len(text) > len(before) + len(after) and (before or after):
            inner = text[len(before):len(text) - len(after)].strip()
            joint = next((j for j in _SPAN_AND[after] if j in inner.casefold()), None)
            if joint is not None:
                at = inner.casefold().index(joint)
                inner = f"{inner[:at]}{' to ' if joint.isascii() else '到'}{inner[at + len(joint):]}"
            return inner
    return text


def open_tilde(value: str) -> str | None:
    """The value after a tilde a bare filter value begins with (``~10kW``: ``10kW``) when it
    is a number, quantity, version or date: "about 10kW" or "up to 10kW", which a filter
    cannot tell apart; None for another value."""
    text = value.strip()
    mark = next((m for m in _TILDES if text.startswith(m)), None)
    return text[1:].strip() if mark is not None and an_end(text[1:].strip()) else None


def an_end(text: str) -> bool:
    """Whether `text` may be a range's end: a number, a quantity, a version or a date."""
    return bool(text) and (order_number(text) is not None or quantity(text) is not None or
                           version_text(text) is not None or period_of(text) is not None)


# an operator or word saying "about" (数量≈10, 数量~=10, 数量约10, count about 10), looked for
# in a --where item (`ABOUT_MARK`) and read at a value's start (`_ABOUT`), and a word after a
# value saying it (10左右): what no filter compares (`about_instead`)
_MARKS = (r"(?:≈|~=|大约|约为|约莫|约|\b(?:about|approximately|around|roughly|circa)\b"
          r"|\bapprox\b\.?)")
ABOUT_MARK = re.compile(_MARKS, re.IGNORECASE)
_ABOUT = re.compile(rf"[=＝]?\s*{_MARKS}\s*", re.IGNORECASE)
_ABOUT_AFTER = ("左右", "上下", "附近")
TOLERANCE_SHOWN = Decimal("0.1")  # the spread a suggestion gives an approximate value


def about_instead(key: str, op: str, value: str) -> str | None:
    """For a value said approximately (``约10``, ``10左右``, ``about 5kW``) of a number or a
    quantity, the filters to write instead: for ``=`` a range and a tolerance (``key=9..11
    or key=10±1``, a tenth either side of it), for ``!=`` and an order the value alone
    (``key>=10``); None for another value (``约克``, ``about us``)."""
    text = narrow(value.strip())
    if (m := _ABOUT.match(text)) is not None:
        text = text[m.end():]
    elif not any(text.endswith(w) for w in _ABOUT_AFTER):
        return None
    text = next((text[:-len(w)].strip() for w in _ABOUT_AFTER if text.endswith(w)), text)
    if not text or not (order_number(text) is not None or quantity(text) is not None):
        return None
    if op != "=":  # != of a range is refused (`filter_text`): that value, or an order
        return f"{key}{op}{text}" + (" (a range is read with = alone)" if op == "!=" else "")
    unit = unit_written(text) if quantity(text) is not None else ""
    number = _amount(text, unit)
    if number is None or number == 0:
        return f"a range or a tolerance: {key}=A..B or {key}={text}±D"
    spread = abs(number) * TOLERANCE_SHOWN
    return (f"a range or a tolerance: {key}={_plain(number - spread)}{unit}.."
            f"{_plain(number + spread)}{unit} or {key}={_plain(number)}{unit}±"
            f"{_plain(spread)}{unit}")


def check_day_month(shown: str, key: str, op: str, values: list[str]) -> None:
    """A FilterError for a date the filter writes that may be either of two days, its day
    and month each 12 or less (``03/04/2024``: 3 April, or March 4?), naming both as
    ``YYYY-MM-DD``; ``15/03/2024`` and ``03/15/2024`` are read (`filter_kinds.day_month`).
    `values` are those written bare: a value of ``=`` / ``!=`` in quotes is taken as typed,
    the text ``03/04/2024`` (a document writing it so holds it), as quotes take any value."""
    for whole in values:  # (each end of a range not read as one: 01/03/2024..15/03/2024)
        mark = next((m for m in RANGE_MARKS if m in whole), None)
        for value in (whole,) if mark is None else (whole, *whole.split(mark)):
            if len(dates := day_month(value) or ()) == 2:
                typed = (f", or {key}{op}\"{value.strip()}\" in quotes for the text as typed"
                         if op in ("=", "!=") and mark is None else "")
                raise FilterError("bad", f"{shown!r}: {value.strip()} may be {dates[0]} (day first) "
                                  f"or {dates[1]} (month first); write {key}{op}{dates[0]} or "
                                  f"{key}{op}{dates[1]}{typed}", key="bad_where",
                                  values={"where": shown})


def refuse_range(shown: str, key: str, written: str, bound: str) -> None:
    """A FilterError for a range after an order or ``!=``: read with ``=`` alone, else one
    `bound`; in Chinese where the filter is written so (``功率>5kW or more``)."""
    raise FilterError("bad", f"{shown!r}: " + (
        f"范围（{written}）只能用 = 筛选（{key}={written}），否则请给一个界限（{bound}）"
        if written_in_chinese(key + written) else f"a range ({written}) is read with = alone "
        f"({key}={written}); else give one bound ({bound})"), key="bad_where",
        values={"where": shown})


def check_range(shown: str, key: str, op: str, ranged: Between, *, alone: bool) -> None:
    """A FilterError for a range (`between`) a filter cannot mean: after ``!=``, or its first
    end above its last (``power=10..5kW``: nothing lies in it; when it is the filter's one
    value, `alone`, the range reversed is the filter to write, `FilterError.instead`)."""
    if op != "=":
        below, above = ("<=", ">=") if ranged.strict else ("<", ">")  # after 2024: <=2024
        outside = (f"{key}{below}{ranged.low}" if ranged.high is None else
                   f"{key}{above}{ranged.high}" if ranged.low is None else f"{key}>={ranged.low}")
        refuse_range(shown, key, ranged.written, outside)
    if ranged.low is not None and ranged.high is not None and reversed_ends(ranged.low, ranged.high):
        instead = f"{key}={ranged.high}..{ranged.low}"
        raise FilterError("bad", f"{shown!r}: the range {ranged.written} holds nothing, its "
                          f"first end above its last; write {instead}",
                          key="bad_where", values={"where": shown},
                          instead=instead if alone else None)



def reversed_ends(low: str, high: str) -> bool:
    """Whether a range's first end lies above its last, as numbers, quantities of one
    dimension or versions compare (`filter_kinds.keys_against`); not two bare numbers with a
    decimal point (1.9..1.10 is a range of versions beside them), nor dates."""
    keys = keys_against(low, wanted(high, dates=False))
    if keys is None or not all(isinstance(k, (str, Decimal)) for k in keys) or \
            isinstance(keys[0], Decimal) and "." in low + high and not quantity(high):
        return False
    return bool(keys[0] > keys[1])  # type: ignore[operator]
