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
from kbtools.decision.column_units import column_unit, input_unit_problem, number_in, unit_of
from kbtools.decision.given import in_scale, read_given
from kbtools.decision.units import bare_degrees, degrees_fit, scale
from kbtools.query.fillers import strip_fillers
from kbtools.query.mentions import NAME_GAP_LATIN
from kbtools.query.ranges import with_ranges
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
              cased: str) -> tuple[list[Number], set[int]]:
    """`found` (`values.numbers` of the compacted question `text`, `cased`) with a number said
    with a half after its unit (温度25度半, 二十五度半, 1天半: 25.5, 1.5 天) read as that value.
    `values.numbers` leaves such a number inexact (25 is not the value), and no input took
    it: it was dropped unsaid. It is the value when the number is exact with the half left
    out (a half before more, 1天半3小时, is none). With the starts of the numbers so read
    (their reading is said: 25度半 as 25.5). A bound said around the half (25度半以上,
    超过25度半) is the bound of that value (25.5度以上, 超过25.5度), not of 25 nor of none.
    A tenth said after the unit (26度5) stays no value, as `values.spoken_tenths` decides."""
    out: list[Number | None] = list(found)
    halved: set[int] = set()
    for n, x in enumerate(found):
        if x.exact or x.unit is None or x.listed or text[x.after:x.after + 1] != "半" or \
                not x.written.startswith(x.value) or (x.range_text and not _bound(x, found)):
            continue
        if _MORE.match(text, x.after + 1):  # 1天半3小时: 1.5天 and 3小时, in 小时
            if (joined := _with_smaller(x, found[n + 1:n + 2], text)) is not None:
                out[n], out[n + 1] = joined, None
                halved.add(x.start)
            continue
        cut, cut_cased = text[:x.after] + text[x.after + 1:], cased[:x.after] + cased[x.after + 1:]
        alone = with_ranges(cut, cut_cased, numbers(cut, cut_cased))
        y = next((y for y in alone if y.start == x.start), None)
        if y is None or not (y.exact or y.range_text and _bound(y, alone)):
            continue
        value = Decimal(x.value) + Decimal("0.5")
        shown = format(value.normalize(), "f")
        written = shown + x.written[len(x.value):]
        ends = (y.extent[0], y.extent[1] + (y.extent[1] >= x.after))  # (the 半 back in)
        if y.range_text:  # 25度半以上: 25.5度以上, as the table reads a bound
            if x.written not in y.range_text:
                continue
            out[n] = replace(y, value=shown, written=written, after=x.after + 1, extent=ends,
                             range_text=y.range_text.replace(x.written, written, 1))
            continue
        out[n] = replace(x, value=shown, written=written, exact=True, after=x.after + 1,
                         extent=(x.extent[0], max(x.extent[1], x.after + 1)))
        halved.add(x.start)
    return [x for x in out if x is not None], halved


def _with_smaller(x: Number, following: Sequence[Number], text: str) -> Number | None:
    """`x` (1天, said with a half and then another number: 1天半3小时) and the number
    right after its half as one length in the smaller unit (39小时: 1.5 days are 36 hours),
    when that one is an exact number of a unit `x`'s is a whole number of (天 of 小时);
    None for any other (1天半3次)."""
    y = following[0] if following else None
    if y is None or y.start != x.after + 1 or not y.exact or y.unit is None or y.range_text or \
            y.listed or not y.written.startswith(y.value) or _MORE.match(text, y.after):
        return None
    unit, smaller = x.written[len(x.value):].strip(), y.written[len(y.value):].strip()
    times = scale(unit_of("1" + unit), unit_of("1" + smaller))
    if times is None or times[1] != 1 or times[0] <= 1:
        return None
    value = (Decimal(x.value) + Decimal("0.5")) * times[0] + Decimal(y.value)
    shown = format(value.normalize(), "f")
    return replace(y, start=x.start, value=shown, written=shown + smaller, word=x.word,
                   extent=(x.extent[0], y.extent[1]))


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
