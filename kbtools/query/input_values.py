"""The values a question gives a decision table's input, as `kbtools.query.inputs` reads them:
the value a number gives a column (`given_value`), a value as a column compares it
(`in_column`), the times of day given a column of times (`time_given`), two values listed
together (`listed_with`) and the numbers taken (`claim`, `one_per_range`).

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from kbtools.decision import DecisionTable
from kbtools.decision.column_units import (
    column_unit,
    input_unit_problem,
    number_in,
    parse_number,
    unit_of,
)
from kbtools.decision.given import in_scale, read_given
from kbtools.decision.units import bare_degrees, degrees_fit, scale
from kbtools.query.fillers import drop_fillers, strip_fillers
from kbtools.query.mentions import NAME_GAP_LATIN
from kbtools.query.number_spans import STOP_MARKS
from kbtools.query.ranges import with_ranges
from kbtools.query.value_units import DURATIONS
from kbtools.query.values import STOP_GAP, Number, numbers


def given_value(number: Number, table: DecisionTable, column: int) -> str | None:
    """The value `number` gives input `column`: the number alone, or as written when what
    follows it would change it there (2万, 72°f in a ℃ column, 4周 in a column of days, 2 years
    in one of months), so that the table refuses it (`decision.column_units.input_unit_problem`)
    or converts it (`decision.column_units.number_in`) rather than reading the bare number; None for a number that is no exact value (the input is then missing:
    the table needs one). A bound or a range (`ranges.with_ranges`: 25度以上, ``between 20
    and 25 C``) is given as written: the table reads it as ``kb table eval`` does."""
    unit = column_unit(table.header[column], (row[column] for row in table.rows))
    if not number.exact:
        if bare_degrees(unit_of(number.written)) and not degrees_fit(unit):
            return None  # ``above 30 degrees`` of no temperature
        return number.range_text or None
    if bare_degrees(unit_of(number.written)):  # 22 degrees: in a ℃ or °F column only
        return number.value if degrees_fit(unit) else None
    converts = scale(unit_of(number.written), unit) is not None  # 2 years in months: 24
    return number.written if converts or input_unit_problem(number.written, unit) or \
        number_in(read_given(number.written, True, unit).text, unit) != float(number.value) \
        else number.value  # 2万, 2w: the table reads what multiplies it


def time_given(text: str, times: Sequence[tuple[int, int, int]],
                names: Sequence[str] | None) -> list[str]:
    """The distinct times of day (`times`, `decision.clock.times_in` of the compacted question
    `text`) given a column of times, as written: all of them, or with `names` (the column's
    own, when the table has two columns of times: 开始时间, 结束时间) those said right after
    one."""
    given: dict[int, str] = {}
    for start, end, minutes in times:
        if names is not None and not any(
                (at := text.rfind(n, 0, start)) >= 0 and not STOP_GAP.search(
                    gap := text[at + len(n):start]) and len(gap) <= NAME_GAP_LATIN and
                not strip_fillers(gap) for n in names):
            continue
        given.setdefault(minutes, text[start:end].strip())
    return list(given.values())


def in_column(value: str | None, unit: str | None) -> str | None:
    """`value` as a column in `unit` reads it: a temperature in the other scale converted
    (77°F in a ℃ column: 25, as `readings.read` says it), else as it is."""
    converted = in_scale(value, unit) if value and unit else None
    return converted.removesuffix(unit or "") if converted else value


def exactly_in(value: str, unit: str | None) -> str:
    """`value` (a number and its unit: 90分钟) as the number it is in a column's `unit` when
    that is another unit it converts into exactly (1.5 in 小时), else as it is (80分钟)."""
    number = parse_number(value)
    factor = scale(unit_of(value), unit) if unit and number is not None else None
    if factor is None or unit_of(value) == unit:
        return value
    amount = Decimal(str(number)) * factor[0]
    share = amount / factor[1]
    return format(share.normalize(), "f") if share * factor[1] == amount else value  # (not 4/3)


# the words between a value and a duration that say the value lasted it (``humidity 90%
# over 3 days``, ``for the past 3 days``, 湿度90%持续3天, 已经连续3天, 湿度90%有3天了), and the
# bounds on how long (``for more than 3 days``, ``under 3 days``, 持续超过3天)
LASTED = tuple(sorted(("over", "for", "during", "across", "throughout", "lasting", "in", "the",
                       "past", "last", "straight", "under", "more", "less", "than", "at",
                       "least", "most", "about", "nearly", "almost", "持续", "连续", "已经", "已",
                       "长达", "达", "维持", "保持", "了", "近", "超过", "不到", "不少于", "至少",
                       "有", "已有"),
                      key=len, reverse=True))


def lasted_by(text: str, found: Sequence[Number], n: int) -> str:
    """The word naming the quantity whose value right before duration `found[n]` lasted it
    (humidity of ``humidity 90% over 3 days``, 湿度 of 湿度90%持续3天): only words of
    `LASTED` between the two, or none with the duration glued to the value (湿度90%3天, as
    湿度90%持续3天 says it); "" for any other number, or a duration with a name of its own
    (湿度90%，连续降雨3天: the rain's days), or set apart by a space or a mark alone
    (温度20 湿度90 3天)."""
    x = found[n]
    before = found[n - 1] if n and x.unit in DURATIONS else None
    if before is None or not before.word or before.unit in DURATIONS:
        return ""
    rest = text[before.after:x.start].strip(" ,，")
    linked = before.after == x.start and text[x.start - 1:x.start] not in (" ", *STOP_MARKS)
    while rest:
        word = next((w for w in LASTED if rest.startswith(w) and (
            not w.isascii() or rest[len(w):len(w) + 1] in ("", " "))), None)
        if word is None:
            return ""
        rest, linked = rest[len(word):].lstrip(" "), True
    return before.word if linked else ""


def names_next(text: str, found: Sequence[Number], n: int) -> bool:
    """Whether the words right after number `n` of `found` and its unit (in the compacted
    question `text`) are those naming the number after it, filler words aside (打药 of
    36小时 打药3次, 喷了 of 36小时 喷了3次药): the next value's name or verb, no object the
    duration counts (雨 of 下了4天雨). Chinese only: an English duration's object follows
    ``of`` (``4 days of wind``)."""
    if n + 1 >= len(found) or not found[n + 1].word or found[n + 1].word.isascii():
        return False
    gap, word = drop_fillers(text[found[n].after:found[n + 1].start].strip(" ")), found[n + 1].word
    return gap.endswith(word) and not strip_fillers(gap[:-len(word)])


def names_lasting(header: str, word: str) -> bool:
    """Whether a column's `header` (compacted) names how long the quantity `word` names lasted
    (湿度持续天数 of 湿度, ``humidity duration (days)`` of ``relative humidity``, 高温天数 of
    温度: a degree's word by its first character)."""
    last = word.rpartition(" ")[2]
    return last in header or (not word.isascii() and word.endswith("度") and len(word) > 1
                              and word[:-1][-1] in header)


# the last word of an English difference when a value it is said from follows (``3 degrees
# above 25 c``; not ``higher than yesterday 25 c``, a reading after the difference)
COMPARED_TO = (" than", " above", " below", " over", " under", " from", " vs", " versus")


def listed_with(found: Sequence[Number], n: int) -> Number | None:
    """The other value listed with number `n` of `found` (25度 of 20度和25度, ``25 C`` of ``20
    C or 25 C``: `Number.listed`), when they differ; None when `n` is no such value (a range,
    ``between 20 and 25 C``, is one value)."""
    x = found[n]
    if not x.listed or x.range_text:
        return None
    pair = next((found[k] for k in (n + 1, n - 1) if 0 <= k < len(found) and
                 found[k].listed and not found[k].range_text), None)
    return pair if pair is not None and pair.value != x.value else None


def said_twice(found: Sequence[Number]) -> list[Number]:
    """`found` with two values listed together that are the same (温度20度和20度, 20和20度,
    ``20 C and 20 C``: `Number.listed`) read as the one exact value they are, said twice:
    no two values of which the one meant is not known (20度和25度), nor a second left unused."""
    out: list[Number] = []
    for y in found:
        x = out[-1] if out else None
        if x is not None and x.listed and y.listed and not (x.range_text or y.range_text) and \
                x.value == y.value and x.unit in (None, y.unit):
            out[-1] = replace(x, exact=True, listed=False, to_next=False, unit=y.unit,
                              written=y.written if x.unit is None else x.written,
                              after=y.after, extent=(x.extent[0], y.extent[1]))
        else:
            out.append(y)
    return out


def with_half(found: Sequence[Number], text: str,
              cased: str) -> tuple[list[Number], set[int], set[int]]:
    """`found` (`values.numbers` of the compacted question `text`, `cased`) with a number said
    with a half after its unit (温度25度半, 二十五度半, 1天半: 25.5, 1.5 天) read as that value.
    `values.numbers` leaves such a number inexact (25 is not the value), and no input took
    it: it was dropped unsaid. It is the value when the number is exact with the half left
    out, and a count after the half leaves it so (1天半3次). A length said in parts, with a
    half or none (1天3小时, 1天半3小时, ``2 days 6 hours``), is one length in its smallest
    unit (27, 39, 54 hours: `_summed`). With the starts of the numbers so read
    (their reading is said: 25度半 as 25.5), and of those the lengths said in parts. A bound said around the half (25度半以上,
    超过25度半) is the bound of that value (25.5度以上, 超过25.5度), not of 25 nor of none.
    A tenth said after the unit (26度5) stays no value, as `values.spoken_tenths` decides."""
    out: list[Number | None] = list(found)
    halved: set[int] = set()
    summed: set[int] = set()
    for n, x in enumerate(found):
        if out[n] is None:  # (the smaller part of a length read with the one before it)
            continue
        if x.exact and (joined := _summed(x, Decimal(x.value), x.after, found[n + 1:],
                                          text)) is not None:
            out[n] = joined[0]  # 1天3小时, ``2 days 6 hours``: 27 hours, 54 hours
            out[n + 1:n + 1 + joined[1]] = [None] * joined[1]
            halved.add(x.start)
            summed.add(x.start)
            continue
        if x.exact or x.unit is None or x.listed or text[x.after:x.after + 1] != "半" or \
                not x.written.startswith(x.value) or (x.range_text and not _bound(x, found)):
            continue
        if _MORE.match(text, x.after + 1):  # 1天半3小时: 1.5天 and 3小时, in 小时
            if (joined := _summed(x, _and_half(x.value), x.after + 1,
                                  found[n + 1:], text)) is not None:
                out[n] = joined[0]
                out[n + 1:n + 1 + joined[1]] = [None] * joined[1]
                halved.add(x.start)
                summed.add(x.start)
                continue
            if n + 1 < len(found) and found[n + 1].unit is not None:
                continue  # (1天半3天: no sum, and no 1.5 days said before more days)
            # (1天半3次: 1.5 days, and a count after them, read as with the clause ending
            # after the half: 1天3次 would read 1天3 as 1.3天, spoken)
            cut, cut_cased = (t[:x.after] + "。" + t[x.after + 1:] for t in (text, cased))
        else:
            cut, cut_cased = (t[:x.after] + t[x.after + 1:] for t in (text, cased))
        alone = with_ranges(cut, cut_cased, numbers(cut, cut_cased))
        y = next((y for y in alone if y.start == x.start), None)
        if y is None or not (y.exact or y.range_text and _bound(y, alone)):
            continue
        value = _and_half(x.value)
        shown = format(value.normalize(), "f")
        written = shown + x.written[len(x.value):]
        ends = (y.extent[0], y.extent[1] + (y.extent[1] >= x.after))  # (the 半 back in)
        if y.range_text:  # 25度半以上, 二十五度半以上: 25.5度以上, as the table reads a bound
            # (the number as the bound writes it, in digits or numerals, 25 or 二十五; the
            # sign of -5 is the number's, that of 零下5 the bound's words)
            number = cased[x.start:x.end]
            at = x.start - y.extent[0]
            if y.range_text[at:at + len(number)] != number:
                at = y.range_text.find(number)
            if not number or at < 0:
                continue
            half = shown if number.startswith("-") else format(abs(value).normalize(), "f")
            out[n] = replace(y, value=shown, written=written, after=x.after + 1, extent=ends,
                             range_text=y.range_text[:at] + half +
                             y.range_text[at + len(number):])
            continue
        out[n] = replace(x, value=shown, written=written, exact=True, after=x.after + 1,
                         extent=(x.extent[0], max(x.extent[1], x.after + 1)))
        halved.add(x.start)
    return [x for x in out if x is not None], halved, summed


def _and_half(value: str) -> Decimal:
    """`value` and a half more away from zero (25度半: 25.5; 零下5度半: -5.5, not -4.5)."""
    number = Decimal(value)
    return number - Decimal("0.5") if number < 0 else number + Decimal("0.5")


def _summed(x: Number, value: Decimal, after: int, following: Sequence[Number],
            text: str) -> tuple[Number, int] | None:
    """`x`, read as `value` in its unit up to `after` (1天, 1天半 as 1.5 ending past its half,
    ``2 days``), and the numbers right after it, each in a smaller unit the one before it is a
    whole number of (1天3小时, 1天半3小时, ``2 days 6 hours``, 1小时30分钟), as one length in
    the smallest of those units (27小时, 39小时, 54 hours, 90分钟), with how many numbers
    after `x` it took; None when no such number follows `x` (1天半3次, 1天和3小时)."""
    if x.unit is None or x.listed or x.range_text or not x.written.startswith(x.value):
        return None
    unit, last, taken = x.written[len(x.value):].strip(), x, 0
    for y in following:
        if y.start != after or not y.exact or y.unit is None or y.range_text or y.listed or \
                not y.written.startswith(y.value):
            break
        smaller = y.written[len(y.value):].strip()
        times = scale(unit_of("1" + unit), unit_of("1" + smaller))
        if times is None or times[1] != 1 or times[0] <= 1:
            break
        value, unit, after, last, taken = value * times[0] + Decimal(y.value), smaller, \
            y.after, y, taken + 1
    if not taken or _MORE.match(text, after):
        return None
    shown = format(value.normalize(), "f")
    return replace(last, start=x.start, value=shown, written=shown + unit, word=x.word,
                   extent=(x.extent[0], last.extent[1])), taken


def _bound(x: Number, found: Sequence[Number]) -> bool:
    """Whether `x`'s range (`Number.range_text`) is a bound of it alone (25度以上), not a
    range with another number (20到25度)."""
    return sum(y.extent == x.extent for y in found) == 1


# what after a half makes it no half of the number before it (1天半3小时: 1.5 days and more)
_MORE = re.compile(r"[\d零〇一二两三四五六七八九十]")


def claim(claimed: set[int], found: Sequence[Number], *taken: int) -> None:
    """Mark numbers `taken` (indexes into `found`) as given, with the other end of each
    range among them (the 25 of 22到25度 is no value of another input)."""
    for n in taken:
        claimed.add(n)
        if n >= 0 and found[n].range_text:
            claimed.update(k for k, y in enumerate(found) if y.extent == found[n].extent)


def one_per_range(fits: list[int], found: Sequence[Number]) -> list[int]:
    """`fits` (indexes into `found`) with the two ends of one range counted once."""
    seen: set[tuple[int, int]] = set()
    out = []
    for n in fits:
        if found[n].range_text:
            if found[n].extent in seen:
                continue
            seen.add(found[n].extent)
        out.append(n)
    return out
