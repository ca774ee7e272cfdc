"""A filter checked against an index before it filters (`check_filters`): a key the index
does not have (named with the key it most likely meant, `close_key`), a value a closed-set
key never has, an order given a value of another kind than the field's, a quantity of
another dimension, a date that names no day. Each a one-line `FilterError`."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from kbtools.errors import FilterError
from kbtools.index.reader import KbIndex
from kbtools.query.filter_commas import written_hint
from kbtools.query.filter_fields import (
    CHUNK_KEYS,
    chunk_kinds,
    document_facts,
    filter_keys,
    key_reads_dates,
    key_reads_temperatures,
    scalars,
)
from kbtools.query.filter_kinds import boolean_of, fold, instant_text, period_of, version_text
from kbtools.query.filter_numbers import fraction_or_percent, is_percent, order_number, quantity
from kbtools.query.filter_text import Between, Condition, Want, values_of, where_text
from kbtools.query.filter_units import celsius, dimension, dimension_problem


def check_filters(index: KbIndex, where: Sequence[Condition]) -> None:
    """A UsageError for the first filter of `where` that `index` cannot apply as asked: a
    key it does not have, a value a closed-set key (``kind``, ``verified``) never has, an
    order (``>=``) on numbers or dates given another kind of value. A value no document
    holds is not an error here (the search finds nothing: `emptying_filters` names them)."""
    if not where:
        return
    known = filter_keys(index)
    docs = index.docs()
    for key, op, listed in where:
        if key not in known:
            close = close_key(key, known)
            meant = {"meant": close} if close else _holding_key(index, op, listed)
            raise FilterError("unknown", f"key {key!r}{unknown_hint(meant)}; known keys: "
                              f"{', '.join(sorted(known))}",
                              key="unknown_where_key",
                              values={"key": key, "keys": ", ".join(sorted(known)), **meant})
        warm = key_reads_temperatures(index, key)  # 20度 is 20 ℃ beside 25℃ (`celsius`)
        for asked, want in _asked(op, listed):  # a listed range (5–10kW,20kW): its bounds
            _check_value(key, asked, want, index)
            if key not in CHUNK_KEYS and key != "verified" and (problem := dimension_problem(
                    celsius(want) if warm else want,
                    (str(v) for d in docs for v in scalars([document_facts(d).get(key)])))):
                shown = where_text(key, asked, want)  # power>5kg of values in kW
                raise FilterError("bad", f"{shown}: {problem}", key="bad_where",
                                  values={"where": shown})
            if key_reads_dates(index, key) and (dated := _with_year(want, docs, key)):
                shown = where_text(key, asked, want)  # 日期=3月到5月: no year, no durations
                raise FilterError("bad", f"{shown}: {want} names no year; {key} is a date in "
                                  f"this index, give the year ({dated})", key="bad_where",
                                  values={"where": shown})
            if key not in CHUNK_KEYS and key != "verified" and asked not in ("=", "!="):
                _check_order(key, asked, want, [document_facts(d).get(key) for d in docs])
            elif key_reads_dates(index, key) and _no_day(want):  # timestamp=2024-02-30
                shown = where_text(key, asked, want)
                raise FilterError("bad", f"{shown}: {want} is no calendar date or time; {key} "
                                  "is a "
                                  "date in this index, give one (YYYY-MM-DD, YYYY-MM or "
                                  "YYYY)", key="bad_where", values={"where": shown})


def _with_year(want: str, docs: Sequence[dict[str, Any]], key: str) -> str | None:
    """A filter's month or day written without its year (``3月``, ``3月1日``, ``March``,
    ``1 March``), in a field of dates, written with the latest year the field's values name
    (``2024年3月``, ``March 2024``): the filter to write instead of one that would compare a
    number of months; None for another value (a date, a period, text)."""
    if period_of(want) is not None or instant_text(want) is not None:
        return None
    years = [int(p.key[2:6]) for d in docs for v in scalars([document_facts(d).get(key)])
             if (p := period_of(str(v))) is not None]
    year = max(years, default=datetime.now(UTC).year)
    text = want.strip()
    return next((dated for dated in (f"{year}年{text}", f"{text} {year}")
                 if period_of(dated) is not None), None)


def unknown_hint(meant: dict[str, str]) -> str:
    """What an unknown key's filter may mean (`check_filters`' values: ``meant``, the filter
    to write, with ``like``, a value of the key it names, or ``holds``, the value it holds),
    as the CLI, the API and MCP say it: `` (did you mean power>=6kW? its values are like
    5kW)``; "" when nothing is meant. The page says it in its language (`serve.i18n`)."""
    if not meant.get("meant"):
        return ""
    said = (f" its values are like {meant['like']}" if meant.get("like") else
            f" it holds {meant['holds']}" if meant.get("holds") else "")
    return f" (did you mean {meant['meant']}?{said})"


def _holding_key(index: KbIndex, op: str, listed: Want) -> dict[str, str]:
    """For a filter on a key the index lacks and resembles none of its keys (``power>=6kW``
    on knowledge that writes ``功率``, ``作物=小麦`` on one writing ``crop``), the one
    front-matter key whose values the filter's fit: quantities of its value's dimension
    (``6kW`` beside ``5kW``, ``800 W``), else, for ``=``, that value itself: the filter on
    it as ``meant`` and one value of it as ``like`` (``{"meant": "功率>=6kW", "like":
    "5kW"}``), or the value as ``holds``; empty when none or several keys fit."""
    wants = [want for _, want in _asked(op, listed)]
    amounts = [(want, a) for want in wants if (a := quantity(want)) is not None]
    fits: dict[str, str] = {}  # key -> a value of it the filter's fit
    for d in index.docs():
        for key, value in document_facts(d).items():
            for held in scalars([value]):
                if key in fits or isinstance(held, bool):
                    continue
                text = str(held)
                if amounts and (h := quantity(text)) is not None and any(
                        h[0] == a[0] or dimension(a[0]) is not None and
                        dimension(h[0]) == dimension(a[0]) for _, a in amounts):
                    fits[key] = text
                elif not amounts and op == "=" and fold(text) in {fold(w) for w in wants}:
                    fits[key] = text
    if len(fits) != 1:
        return {}
    (key, example), = fits.items()
    return {"meant": where_text(key, op, listed), ("like" if amounts else "holds"): example}


def _asked(op: str, listed: Want) -> list[tuple[str, str]]:
    """(operator, value) of each value of a filter ``op listed``, a range among them
    (`Between`) as its bounds, ``>=`` and ``<=`` (for `check_filters` to check)."""
    return [pair for want in values_of(listed) for pair in
            (want.bounds() if isinstance(want, Between) else [(op, want)])]


# a key no document gives is named with the known key it is most likely a typo of, at least
# this similar (`likeness`; a value no document holds: `filters.VALUE_LIKENESS`)
KEY_LIKENESS = 0.75
_LOOSE = re.compile(r"[\s_\-./]+")


def _loose(text: str) -> str:
    """`text` as a typo-tolerant comparison reads it: NFKC, case-folded, without spaces and
    the marks people type or leave out inside a name (HX260 for HX-260, crop protection for
    crop-protection)."""
    return _LOOSE.sub("", unicodedata.normalize("NFKC", text).casefold())


def likeness(a: str, b: str) -> float:
    """1.0 for two spellings of one name (`_loose`), else difflib's ratio of the two."""
    la, lb = _loose(a), _loose(b)
    return 1.0 if la == lb else difflib.SequenceMatcher(None, la, lb).ratio()


def close_key(key: str, known: Iterable[str]) -> str | None:
    """The known filter key `key` is most likely a typo of (crops → crop, Tags → tags), None
    when none is close (`KEY_LIKENESS`)."""
    scored = sorted(((likeness(key, k), k) for k in known), key=lambda p: (-p[0], p[1]))
    return scored[0][1] if scored and scored[0][0] >= KEY_LIKENESS else None


def _check_value(key: str, op: str, want: str, index: KbIndex) -> None:
    """Closed-set keys: a value they can never have (as ``=`` reads it, `fold`: ``ＴＲＵＥ`` is
    true) is an error, not an empty result."""
    shown = where_text(key, op, want)
    if key == "verified" and (op not in ("=", "!=") or boolean_of(want) is None):
        raise FilterError("bad", f"{shown}: use verified=true or verified=false (yes/no, 是/否)",
                          key="bad_where", values={"where": shown})
    if key == "kind" and op == "=":
        kinds = chunk_kinds(index).names
        if fold(want) not in {fold(k) for k in kinds}:
            raise FilterError("bad", f"{shown}: no chunk of kind {want!r} in this index; "
                              f"its kinds: {', '.join(kinds)}",
                              key="bad_where", values={"where": shown})


_DATE = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
                   r"(?:Z|[+-]\d{2}:?\d{2})?)?)?)?")


def _check_order(key: str, op: str, want: str, values: list[Any]) -> None:
    """``>=`` / ``<=`` on a key every document gives a number (or a date, ISO 8601) orders
    by numbers (by dates): a value of another kind (``timestamp>=yesterday``, ``dose<=low``)
    would match by the order of text, all or nothing, so it is an error naming what to give."""
    held = [v for v in scalars(values) if not isinstance(v, bool)]
    if not held:
        return
    shown = where_text(key, op, want)
    _check_fraction(key, shown, want, held)
    if all(_is_number(str(v)) for v in held):
        if not _is_number(want) and version_text(want) is None:  # 1.10.2 beside 1.9
            raise FilterError("bad", f"{shown}: {written_hint(want)}{key} is a number in this "
                              f"index (e.g. {held[0]}); compare it with a number",
                              key="bad_where", values={"where": shown})
    elif all(_is_number(str(v)) or quantity(str(v)) for v in held):  # 5kW: power>=abc
        if not _is_number(want) and quantity(want) is None:  # (or 5kW..10kW, 5-10kW)
            raise FilterError("bad", f"{shown}: {written_hint(want)}{key} is a number with "
                              "its unit in this index "
                              f"(e.g. {next(v for v in held if quantity(str(v)))}); compare it "
                              "with one (a range: =5kW..10kW)", key="bad_where",
                              values={"where": shown})
    elif all(_DATE.fullmatch(str(v)) or instant_text(str(v)) for v in held) \
            and instant_text(want) is None and period_of(want) is None:  # 2024年3月1日, 2024
        no_day = f"{want} is no calendar date or time; " if _no_day(want) else ""
        raise FilterError("bad", f"{shown}: {no_day}{key} is a date in this index "
                          f"(e.g. {held[0]}); compare it with a date, YYYY-MM-DD",
                          key="bad_where", values={"where": shown})


def _check_fraction(key: str, shown: str, want: str, held: list[Any]) -> None:
    """An order's bare 0 < |n| ≤ 1 (``湿度>=0.8``) on a key whose quantities are all
    percentages (``湿度: 90%``) may mean a fraction (80 %) or that many percent, as a
    document's bare one does (`filter_numbers.fraction_or_percent`): an error naming both."""
    number = order_number(want)
    amounts = [a for v in held if (a := quantity(str(v))) is not None]
    if not isinstance(number, Decimal) or not amounts or not fraction_or_percent(number, "%") \
            or not all(is_percent(unit) for unit, _ in amounts):
        return
    example = next(str(v) for v in held if quantity(str(v)) is not None)
    sign, times = ("‰", 1000) if all(u == "‰" for u, _ in amounts) else ("%", 100)  # 含量: 3‰
    raise FilterError("bad", f"{shown}: {key} is a percentage in this index (e.g. {example});"
                      f" write {(number * times).normalize():f}{sign} for a fraction, or "
                      f"{want}{sign}",
                      key="bad_where", values={"where": shown})


def _no_day(want: str) -> bool:
    """Whether a filter's value is written as a date, month or datetime (ISO 8601's
    digits) but names none: ``2024-02-30``, ``2024-13``, ``2024-03-01 24:00``, ``0000``."""
    return _DATE.fullmatch(fold(want).strip()) is not None and \
        instant_text(want) is None and period_of(want) is None


def _is_number(text: str) -> bool:
    return order_number(text) is not None
