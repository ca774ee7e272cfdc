"""Versions and instants as ``--where`` orders (``>=``, ``<=``, ``>``, ``<``) read them.

Two values order as numbers when both read as numbers (`filter_numbers.order_number`);
else as versions when both read as versions; else as instants when both read as dates or
datetimes; else as quantities (`filter_numbers.quantity`: ``7.5kW``) in one unit; else as
text, but a document's text (``很多``) beside a filter's number, quantity, version or date
orders after it, however the filter writes it (``数量<十`` leaves it out as ``数量<10``
does; `filters._compare`). The same rule locally (`keys_against`) and in Milvus
(`kbtools.engine.expr`), which compares the strings `version_text` and `instant_text` write.

* **Version** (`version_text`): ``[v]N.N[.N…][-PRE][+BUILD]`` — at least two dot-separated
  release numbers, or one after a ``v`` (``1.10.2``, ``v2.3``, ``v2``, ``2.0.0-rc.1``);
  release numbers compare as numbers, missing ones are 0 (``v2`` is ``2.0.0``); a pre-release
  (after ``-``: dot-separated identifiers, case-folded) comes before its release and orders
  as SemVer has it (numeric identifiers as numbers, before alphanumeric ones; fewer first);
  ``+BUILD`` is ignored. A plain number (``1.9``, ``2``) is a version only when compared
  with a version, for ``=`` as for the orders (``firmware=2`` holds for ``2.0.0``, where
  ``>=`` and ``<=`` both do): ``version>1.9`` holds for ``1.10.2``; ``1.9`` and ``1.10`` are two numbers
  (1.9 > 1.10), as YAML reads an unquoted ``1.10`` (1.1).
* **Instant** (`instant_text`): ``YYYY-MM-DD``, optionally with a time ``HH:MM[:SS[.f]]``
  after ``T`` or a space and an offset ``Z`` / ``±HH:MM`` / ``±HHMM`` (YAML's dates and
  timestamps as a document stores them: ``2024-03-01 08:00:00+08:00``); compared as the
  instant it names, one without an offset read as UTC, a date as its midnight UTC:
  ``2024-03-01T08:00:00+08:00`` is ``2024-03-01``. The month, day and hour may be one
  digit and the separator ``/`` (``2024-3-1``, ``2024/03/01 8:00``: one separator throughout). A month
  (``2024-03``, ``2024/3``) is its first day, as a date is its midnight:
  ``updated>=2024-03`` is ``updated>=2024-03-01``. A date or month written in Chinese,
  ``2024年3月1日`` (or ``…号``), ``2024年3月``, ``2024年``, is that date, month or year; with a
  time, ``2024年3月1日 08:00`` or ``2024年3月1日8点30分``, that instant. ``2024.03.01`` is a
  version (calendar versioning, ``24.04``), not a date.
* **Period** (`period_of`): a filter's date, month or year without a time of day is that
  whole period (``2024``, four digits, too: beside a date a number is no number), compared
  by containment (`Span`) with the period a value writes (`value_span`): a date or
  datetime the day it writes (offset aside: ``2024-03-01T07:00+08:00`` is March 1st), a
  month that month, a year (``2024年``, or ``2024`` in a field of dates) that year. ``=``
  when the value's period lies inside the filter's, ``>=`` / ``>`` when it starts at or
  after the filter's start / end, ``<=`` / ``<`` when it ends at or before its end /
  start: a document dated only ``2024`` is in ``=2024`` but neither ``>=2024-02`` nor
  ``<=2024-02`` (it is not known to be either), and ``2024-03`` is not ``=2024-03-01``.
  Not in a field of part numbers (`reads_dates`: ``model=3000-12`` is text; a month
  written with digits alone names a year 1900–2099, else it is a part).

Full-width forms (``２．１``, ``２０２４－０３－０１``, ``ｖ２``) read as their ASCII forms
(`narrow`) for numbers, versions and instants alike, and for text's ``=`` (`fold`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from kbtools.query.filter_numbers import (
    INCOMPARABLE,
    Incomparable,
    Number,
    fraction_or_percent,
    narrow,
    order_number,
    order_text,
    quantity,
)
from kbtools.query.filter_units import comparable, measured

# a version as `version_text` reads it (ASCII digits only; at most 30 per release number)
_VERSION = re.compile(r"([vV])?(\d{1,30}(?:\.\d{1,30})*)"
                      r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?", re.ASCII)
_PLAIN = re.compile(r"\d{1,30}(?:\.\d{1,30})?", re.ASCII)  # a number that is a version beside one
# a month (2024-03, 2024/3), a date (2024-03-01, 2024-3-1, 2024/03/01), a date and time
_INSTANT = re.compile(r"(\d{4})([-/])(\d{1,2})(?:\2(\d{1,2})(?:[Tt ](\d{1,2}):(\d{2})"
                      r"(?::(\d{2})(\.\d{1,9})?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?)?", re.ASCII)
# a year, a month, a date or a date and time as Chinese text writes them: 2024年, 2024年3月,
# 2024年3月1日 (号), 2024年3月1日 08:00(:00), 2024年3月1日8时30分 (点)
_CN_DATE = re.compile(r"(\d{4})\s*年(?:\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号]"
                      r"(?:\s*(\d{1,2})(?::(\d{2})(?::(\d{2}))?|\s*[时点](?:\s*(\d{1,2})\s*分)?))?)?)?",
                      re.ASCII)
# a month or a date as English writes it: Mar 2024, March 2024, 1 March 2024, Mar. 1, 2024
_EN_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_EN_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
             r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_EN_DATE = re.compile(r"(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?" + _EN_MONTH +
                      r"(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?,?\s+(\d{4})", re.ASCII | re.IGNORECASE)
# a date written day and month first (15/03/2024, 15-3-2024) or month first (03/15/2024): read
# where one of the two is above 12 and so no month, refused where either may be (`day_month`);
# not with dots (15.3.2024 is a version, as versions are compared)
_DAY_MONTH = re.compile(r"(\d{1,2})([/-])(\d{1,2})\2(\d{4})", re.ASCII)
# `version_text`'s marks: after a release with a pre-release / without one (both before
# every digit, so a shorter release orders first), and between pre-release identifiers
# (before every character an identifier holds, so fewer identifiers order first)
_PRE, _FINAL, _NEXT = "!", "$", ","


def _sized(digits: str) -> str:
    """A natural number's digits (no leading zeros) as a string ordered as the numbers."""
    return f"{len(digits):02d}{digits}"


@lru_cache(maxsize=4096)
def version_text(text: str, plain: bool = False) -> str | None:
    """`text` as an ASCII string whose byte order is the versions' order (see the module
    docstring); None when it is no version. A plain number (``1.9``, ``2``) reads as one
    only when `plain` (it is compared with a version)."""
    text = narrow(text).strip()
    m = _VERSION.fullmatch(text)
    if m is None or not (plain or m.group(1) or "." in m.group(2)):
        return None
    if not plain and m.group(1) is None and _PLAIN.fullmatch(text):
        return None
    release = [p.lstrip("0") for p in m.group(2).split(".")]
    while release and not release[-1]:
        release.pop()  # 2.0.0 is 2
    head = "".join(_sized(p or "0") for p in release)
    if m.group(3) is None:
        return head + _FINAL
    ids = []
    for ident in m.group(3).casefold().split("."):
        ids.append("0" + _sized(ident.lstrip("0") or "0") if ident.isdigit() else "1" + ident)
    return head + _PRE + _NEXT.join(ids)


def day_month(text: str) -> tuple[str, ...] | None:
    """The dates (``YYYY-MM-DD``) a date written with its year last may be: one for
    ``15/03/2024`` (day first) or ``03/15/2024`` (month first), or ``03/03/2024``; two, day
    first's first, for ``03/04/2024`` (3 April, or March 4?), which a caller asks to be
    written so; None for
    another text, or one naming no day (``31/02/2024``)."""
    m = _DAY_MONTH.fullmatch(narrow(text).strip())
    if m is None:
        return None
    a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)
    out: list[str] = []
    for day, month in dict.fromkeys(((a, b), (b, a))):  # day first, then month first
        try:
            datetime(int(year), month, day)
        except ValueError:
            continue
        out.append(f"{year}-{month:02d}-{day:02d}")
    return tuple(out) or None


def _moment(text: str) -> tuple[datetime, int] | None:
    """`text` as the moment it writes, offset-aware (none written: UTC), and how precisely
    it names it: 0 a year (Chinese only, ``2024年``), 1 a month, 2 a date, 3 a time of day;
    None when it writes none, names no day (``2024-02-30``) or lies outside years 1–9999."""
    text = narrow(text).strip()
    m = _INSTANT.fullmatch(text)
    if m is None and text[:1].isdigit() and text[-1:].isdigit() and \
            len(dates := day_month(text) or ()) == 1:  # 15/03/2024, 03/15/2024
        return _moment(dates[0])
    if m is None and (en := _EN_DATE.fullmatch(text)) is not None:  # Mar 2024, 1 March 2024
        before, name, after, year = en.groups()
        if before is not None and after is not None:
            return None  # 1 March 2 2024: no date
        number = _EN_MONTHS.index(name[:3].casefold()) + 1
        found = _moment(f"{year}-{number:02d}-{int(before or after or 1):02d}")
        return None if found is None else (found[0], 1 if before is after is None else 2)
    if m is None:
        cn = _CN_DATE.fullmatch(text)
        if cn is None:
            return None
        year, month, day, hour, minute, second, minutes = cn.groups()
        if hour is not None:
            found = _moment(f"{year}-{month}-{day} {hour}:"  # 8点5分: 08:05
                            f"{minute or f'{int(minutes or 0):02d}'}:{second or '00'}")
            return None if found is None else (found[0], 3)
        try:
            return (datetime(int(year), int(month or 1), int(day or 1), tzinfo=UTC),
                    0 if month is None else 1 if day is None else 2)
        except ValueError:
            return None
    year, month, day = m.group(1), int(m.group(3)), int(m.group(4) or 1)
    zone = (m.group(9) or "Z").upper()
    if zone != "Z" and len(zone) == 3:
        zone += ":00"
    fraction = (m.group(8) or ".0")[:7].ljust(7, "0")
    stamp = (f"{year}-{month:02d}-{day:02d}T{int(m.group(5) or 0):02d}:"
             f"{m.group(6) or '00'}:{m.group(7) or '00'}{fraction}"
             f"{'+00:00' if zone == 'Z' else zone}")
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when, 3 if m.group(5) else 2 if m.group(4) else 1


def _stamp(when: datetime) -> str:
    """A (naive or UTC) moment as ``YYYY-MM-DDTHH:MM:SS.ffffff``: byte order is time order."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f").rjust(26, "0")


@lru_cache(maxsize=4096)
def instant_text(text: str) -> str | None:
    """`text` as a date, a month or a datetime, written as its instant in UTC,
    ``YYYY-MM-DDTHH:MM:SS.ffffff`` (byte order is time order); None when it is neither, or
    names no day (``2024-02-30``) or an instant outside years 1–9999."""
    found = _moment(text)
    if found is None:
        return None
    try:
        return _stamp(found[0].astimezone(UTC))
    except (ValueError, OverflowError):
        return None


@lru_cache(maxsize=4096)
def written_text(text: str) -> str | None:
    """`text` as a date, a month or a datetime, written as the wall-clock time it writes
    (its offset left aside: ``2024-03-01T07:00+08:00`` is ``2024-03-01T07:00:00.000000``,
    a date its midnight), as `instant_text` writes instants; what a period compares
    (`period_of`): the day an author writes is the day the value belongs to."""
    found = _moment(text)
    return None if found is None else _stamp(found[0].replace(tzinfo=None))


@dataclass(frozen=True, slots=True)
class Period:
    """A year, a month or a day a filter's value names: its first moment (`start`) and
    the first after it (`end`), as `written_text` writes moments, and the `period_keys`
    key a value in it holds (`key`: ``p:2024``, ``p:2024-03``, ``p:2024-03-01``)."""

    start: str
    end: str
    key: str


@dataclass(frozen=True, slots=True)
class Span:
    """The year, month or day a document's value writes (`value_span`), as it compares with
    a filter's `Period`: by containment. ``=`` holds when the span lies inside the period,
    ``>=`` when it starts at or after the period's start, ``>`` at or after its end, ``<=``
    when it ends at or before the period's end, ``<`` at or before its start: a value known
    only to a year (``2024``) is neither ``>=2024-02`` nor ``<=2024-02``, nor ``=2024-03``."""

    start: str
    end: str
    precision: int  # 0 a year, 1 a month, 2 a day

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Period) and other.start <= self.start and self.end <= other.end

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __ge__(self, other: Period) -> bool:
        return self.start >= other.start

    def __gt__(self, other: Period) -> bool:
        return self.start >= other.end

    def __le__(self, other: Period) -> bool:
        return self.end <= other.end

    def __lt__(self, other: Period) -> bool:
        return self.end <= other.start

    __hash__ = None  # type: ignore[assignment]


_YEAR = re.compile(r"\d{4}", re.ASCII)  # a plain number that is a year beside a date
_MONTH_SHAPE = re.compile(r"\d{4}[-/]\d{1,2}", re.ASCII)  # 2024-03: a month, or a part 3000-12
# the years a value written only as digits names as a date: four digits (``2024``) beside
# dates, or a month with nothing but digits (``2024-03``, ``2024/3``); outside them such a
# value is a number or a part (``3000-12``, ``1200-06``), as no knowledge dates a page so
FIRST_YEAR, LAST_YEAR = 1900, 2099
_PAST_9999 = "9999-99"  # after every moment `_stamp` writes: the end of year 9999


def is_year(text: str) -> bool:
    """Whether `text` is four digits naming a year `FIRST_YEAR`–`LAST_YEAR` (``2024``): in a
    field of dates (`reads_dates`) that year, as ``2024年`` is."""
    clean = narrow(text).strip()
    return _YEAR.fullmatch(clean) is not None and FIRST_YEAR <= int(clean) <= LAST_YEAR


def _bounds(first: datetime, precision: int) -> tuple[str, str]:
    """The first moment of the year (0), month (1) or day (2) starting at `first` and the
    first after it, as `_stamp` writes them (the end of year 9999: `_PAST_9999`)."""
    try:
        after = (first.replace(year=first.year + 1) if precision == 0 else
                 first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)
                 if precision == 1 else first + timedelta(days=1))
    except (ValueError, OverflowError):
        return _stamp(first), _PAST_9999
    return _stamp(first), _stamp(after)


@lru_cache(maxsize=4096)
def period_of(text: str) -> Period | None:
    """The year, month or day `text` names: a date without a time of day (``2024-03-01``,
    ``2024/3/1``, ``2024年3月1日``), a month (``2024-03``, ``2024年3月``), a year
    (``2024年``, or four digits, ``2024``, which compare as a year only with a date); None
    for anything else, a time of day included (an instant: `instant_text`)."""
    clean = narrow(text).strip()
    if _YEAR.fullmatch(clean):
        found: tuple[datetime, int] | None = (
            (datetime(int(clean), 1, 1), 0) if int(clean) else None)
    else:
        found = _moment(clean)
    if found is None or found[1] == 3:
        return None
    first, precision = found[0].replace(tzinfo=None), found[1]
    key = f"p:{first.year:04d}" + (f"-{first.month:02d}" if precision else "") + \
        (f"-{first.day:02d}" if precision == 2 else "")
    return Period(*_bounds(first, precision), key)


@lru_cache(maxsize=4096)
def value_span(text: str, years: bool = True) -> Span | None:
    """The period a document's value writes, as a filter's period compares it (`Span`): a
    date or datetime the day it writes (its offset aside: ``2024-03-01T07:00+08:00`` is
    March 1st), a month (``2024-03``, ``2024年3月``) that month, ``2024年`` that year, and,
    with `years` (a field of dates: `reads_dates`), four digits (`is_year`) that year;
    None for another value."""
    clean = narrow(text).strip()
    found = ((datetime(int(clean), 1, 1), 0) if years and is_year(clean) else _moment(clean))
    if found is None:
        return None
    first, precision = found[0].replace(tzinfo=None), min(found[1], 2)
    first = datetime(first.year, first.month, first.day)  # a datetime: the day it writes
    return Span(*_bounds(first, precision), precision)


def period_keys(text: str, years: bool = True) -> list[str]:
    """The `Period.key` of each period `text`'s `value_span` lies in: a date or datetime
    ``p:2024``, ``p:2024-03`` and ``p:2024-03-01`` (by the day it writes:
    ``2024-03-01T07:00+08:00`` is March 1st); a month its year and month; a year (with
    `years`: four digits) its year; [] for another value."""
    span = value_span(text, years)
    if span is None:
        return []
    return [f"p:{span.start[:size]}" for size in (4, 7, 10)[: span.precision + 1]]


def is_plain_version(text: str) -> bool:
    """Whether `text`, a number, is also a version beside one (``1.9``, ``2``)."""
    return _PLAIN.fullmatch(narrow(text).strip()) is not None


@dataclass(frozen=True, slots=True, eq=False)
class Wanted:
    """A filter's value read once (`wanted`), for every document value it is compared with
    (`keys_against`): as written, as text compares (`fold`), and its number, version (a plain
    number's too: it is one beside a version), instant and period (`period_of`), None where
    it reads as none."""

    text: str
    folded: str
    number: Number | None
    version: str | None
    instant: str | None
    period: Period | None = None
    dates: bool = True  # read as `wanted` was told: False in a field of part numbers
    quantity: tuple[str, Number] | None = None  # a number and its unit (`quantity`): 5kW


# the words a filter's value names a YAML boolean by: YAML 1.1's, which front matter is read
# by (an author's `reviewed: yes` is true), and Chinese 是 / 否, 真 / 假, 对 / 错; case-folded
TRUE_WORDS = frozenset({"true", "yes", "on", "是", "真", "对"})
FALSE_WORDS = frozenset({"false", "no", "off", "否", "假", "错"})
# a document's text that is a boolean too: the Chinese words, which YAML reads as no boolean
# (`合格: 是` is the author's yes); an English ``"yes"`` in quotes stays the text it was quoted as
_HELD_WORDS = {"是": True, "真": True, "对": True, "否": False, "假": False, "错": False}


def held_boolean(value: Any) -> bool | None:
    """The boolean a document's value holds: a YAML boolean, or a Chinese yes or no alone
    (`_HELD_WORDS`: ``合格: 是``, ``ok: 假``); None for another value."""
    if isinstance(value, bool):
        return value
    return _HELD_WORDS.get(value.strip()) if isinstance(value, str) and len(value) < 8 else None


def boolean_of(text: str) -> bool | None:
    """The boolean a filter's value names (`TRUE_WORDS`, `FALSE_WORDS`), None for another."""
    folded = fold(text).strip()
    return True if folded in TRUE_WORDS else False if folded in FALSE_WORDS else None


def fold(text: str) -> str:
    """`text` as ``=`` / ``!=`` compare text: full-width forms as ASCII (`narrow`: a Chinese
    input method's ``ＨＸ－２６０`` is ``HX-260``), case-folded."""
    return narrow(text).casefold()


@lru_cache(maxsize=4096)
def wanted(text: str, dates: bool = True) -> Wanted:
    """The filter value `text` as `Wanted` (once per value, not per document); with
    `dates` False (a field whose values are not all dates: `reads_dates`) never a date,
    an instant or a period: ``model=3000-12`` is the part 3000-12, not December 3000."""
    number = order_number(text)
    return Wanted(text, fold(text), number, version_text(text, number is not None),
                  instant_text(text) if dates else None, period_of(text) if dates else None,
                  dates, quantity(text))


def keys_against(text: str, want: Wanted, ordered: bool = True
                 ) -> (tuple[Number, Number] | tuple[str, str] | tuple[Span, Period]
                       | tuple[Incomparable, Incomparable] | None):
    """What a document's value `text` and the filter value `want` compare as when they are
    of one kind: the two numbers, else the two versions' `version_text`, else, for a value
    naming a period (`period_of`) and a date, datetime, month or year, the `Span` `text`
    writes (by the day a datetime writes; a year of four digits in a field of dates) and the
    period, compared by containment, else the two instants' `instant_text` (a year's: its
    first moment, as a month's), else two quantities' numbers in one unit (`quantity`:
    ``12kW`` and ``5 kw``; in two units `INCOMPARABLE`; one of them a bare number, when
    `ordered` (an order, not ``=``): the numbers, in the quantity's unit); None when they
    compare as text.
    Only `text` is read here."""
    number = order_number(text)
    if number is not None and want.number is not None:
        return number, want.number
    if want.version is not None and (version := version_text(text, number is not None)):
        return version, want.version
    if want.period is not None and (span := value_span(text, want.dates)) is not None:
        return span, want.period
    if want.instant is not None and (instant := value_instant(text, want.dates)) is not None:
        return instant, want.instant
    amount = quantity(text)
    if want.quantity is not None:
        if amount is not None:  # in one unit, or converted within one dimension
            return comparable(amount, want.quantity) or (INCOMPARABLE, INCOMPARABLE)
        if number is not None and ordered:  # a bare number, in the filter's unit (but
            if fraction_or_percent(number, want.quantity[0]):  # 0.9 beside 80%: no order)
                return INCOMPARABLE, INCOMPARABLE
            return number, want.quantity[1]
    elif amount is not None and want.number is not None and ordered:  # in the value's unit
        return amount[1], want.number
    return None


def value_instant(text: str, years: bool = True) -> str | None:
    """A document's value as an instant (`instant_text`); with `years` (a field of dates)
    four digits (`is_year`) too, as the first moment of that year."""
    return instant_text(f"{text.strip()}-01-01" if years and is_year(text) else text)


def nearest_periods(values: Iterable[str], period: Period, count: int) -> list[str]:
    """Of the dates and datetimes among `values`, the periods of `period`'s length (years,
    months or days, by the day each writes) nearest to it, at most `count`, the nearest
    first, as ISO writes them (``2024``, ``2024-03``, ``2024-03-01``): what to suggest for a
    filter's period no document lies in."""
    size = len(period.key) - 2  # the characters of YYYY, YYYY-MM or YYYY-MM-DD
    precision = (4, 7, 10).index(size)  # a value as precise at least: inside such a period
    held = {span.start[:size] for v in values
            if (span := value_span(v)) is not None and span.precision >= precision}
    start = datetime.fromisoformat(period.start)

    def distance(held_period: str) -> tuple[timedelta, str]:
        first = datetime.fromisoformat(held_period + "-01-01"[: 10 - size])
        return abs(first - start), held_period
    return sorted(held, key=distance)[:count]


def reads_dates(values: Iterable[str]) -> bool:
    """Whether a field whose values across the knowledge are `values` (each member as
    text) reads a filter's value as a date, a period or an instant: when each of them that
    holds a digit is a date, a datetime or a month (`instant_text`) or a year (`is_year`:
    ``2024`` beside ``2024-03-01``), and one is no bare year (a field of years alone holds
    numbers). A month written with digits alone (``2024-03``, ``2024/3``) is one only in the
    years `FIRST_YEAR`–`LAST_YEAR`: ``3000-12`` or ``1200-06`` is a part number, as is one
    whose month is no month (``3000-13``). A field that also holds a part number, a code or
    a number (``HX-2024-03``, ``A-2024``, ``3000``) compares ``3000-12`` as the text it is;
    a value without digits (``unknown``, ``待定``) or a date that may be either of two days
    (``03/04/2024``: day first or month first, compared as text) decides nothing, and a
    field without a date reads none."""
    kinds = [_date_kind(v) for v in values if any(c.isdigit() for c in v)]
    return "d" in kinds and None not in kinds


def _date_kind(text: str) -> str | None:
    """``y`` for a year (`is_year`), ``d`` for another date, datetime or month as a field
    of dates holds them, ``a`` for a date either of two days (``03/04/2024``), None for
    anything else (a number, a part: `reads_dates`)."""
    if is_year(text):
        return "y"
    if len(day_month(text) or ()) == 2:  # 03/04/2024: a date of a day not known, text
        return "a"  # (in a field of dates, as a value without digits: it decides nothing)
    if instant_text(text) is None or order_number(text) is not None:
        return None
    clean = narrow(text).strip()
    if _MONTH_SHAPE.fullmatch(clean) and not FIRST_YEAR <= int(clean[:4]) <= LAST_YEAR:
        return None
    return "d"


def member_class(text: str) -> str:
    """Which order a value takes part in, as `keys_against` decides pairs: ``m`` a number that
    is also a plain version, ``y`` such a number that is also a year beside dates
    (`is_year`), ``n`` another number, ``v`` a version, ``d`` an instant, ``q`` a quantity
    (`quantity`: 7.5kW), ``t`` text (`kbtools.engine.expr` stores extremes per class)."""
    if order_number(text) is not None:
        return ("y" if is_year(text) else "m") if is_plain_version(text) else "n"
    if version_text(text) is not None:
        return "v"
    if instant_text(text) is not None:
        return "d"
    return "q" if quantity(text) is not None else "t"


def equal_keys(text: str) -> list[str]:
    """The keys under which `text` is equal to a value of its kind, as an engine stores
    them beside its number key (`kbtools.engine.expr`): ``v:`` its `version_text` (a
    version, or a plain number beside one), ``x:`` the same of a version alone (beside a
    plain number), ``d:`` its `instant_text` and the `period_keys` of the periods it lies
    in (of a year, `is_year`, those of the year it is in a field of dates). A filter's value
    finds a member equal by kind when one of the value's `wanted_keys` is among them."""
    cls = member_class(text)
    if cls in ("v", "m", "y"):
        key = version_text(text, cls != "v")
        year = [f"d:{value_instant(text)}", *period_keys(text)] if cls == "y" else []
        return [f"v:{key}", f"x:{key}"] if cls == "v" else [f"v:{key}", *year]
    if cls == "q":
        return [quantity_key(text)]
    return [f"d:{instant_text(text)}", *period_keys(text)] if cls == "d" else []


def quantity_key(text: str) -> str:
    """A quantity's (`quantity`) equal key, ``q:<unit>:<order_text>``: one for every way of
    writing it (``7.5kW``, ``7.50 KW``, ``7500W``: in a unit that converts, its dimension's
    base unit and the number in it, `filter_units.measured`)."""
    unit, number = quantity(text) or ("", INCOMPARABLE)
    assert not isinstance(number, Incomparable), text
    unit, number = measured(unit, number) or (unit, number)
    return f"q:{unit}:{order_text(number)}"


def wanted_keys(want: str, dates: bool = True) -> list[str]:
    """The `equal_keys` a member equal to the filter value `want` by kind holds (numbers
    aside: `filter_numbers.number_key`): a period's key for a value naming one (a year
    ``2024`` too, beside its version key), else the instant's; with `dates` False
    (`wanted`) no date's; a quantity's in its unit (`quantity_key`)."""
    cls = member_class(want)
    period = period_of(want) if dates else None
    year = [period.key] if period is not None else []
    if cls == "q":
        return [quantity_key(want)]
    if cls in ("m", "y"):
        return [f"x:{version_text(want, True)}", *year]
    if cls == "v":
        return [f"v:{version_text(want)}"]
    if cls != "d" or not dates:
        return []
    return year or [f"d:{instant_text(want)}"]


__all__ = ["FALSE_WORDS", "TRUE_WORDS", "Period", "Span", "Wanted", "boolean_of", "day_month", "equal_keys", "fold", "held_boolean", "instant_text", "is_year",
           "keys_against", "member_class", "nearest_periods", "order_text", "period_keys",
           "period_of", "quantity_key", "reads_dates", "value_instant", "value_span", "version_text", "wanted",
           "wanted_keys", "written_text"]
