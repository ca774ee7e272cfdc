"""Reading a question's values for a decision table's inputs (`kbtools.query.answers`
evaluates the table on them).

`find_inputs` reads input values out of a question for one `DecisionTable` (the numbers, their
units and whether each is an exact value come from `kbtools.query.values`, in Chinese and
English): a number is given to the input column named just before it (by its header without
the unit, a leading or trailing part of it — of two characters or more for a CJK header,
whole words for an English one — that names no other input, or a synonym: 湿度 for
相对湿度(%), 连续降雨 for 连续降雨天数, ``temperature`` for ``Seal temperature (°F)``), else to the one column whose unit it carries, or a unit of its family an exact factor
converts (26℃ / 26 度 → 日均温(℃); ``22 degrees`` → a ℃ or °F column; 2年 → a column of
months, as 24), to the one column the count noun before its unit names (``4 rainy days`` → Rain
days, 4个雨天 → 连续降雨天数; `query.wording.noun_names`), else to the
column an English name right after it names (``6 cycles``, ``a 4160 V motor``); a text
column gets the one of its cell values the question names. `read_inputs` also gives the
inputs the question gives two values (温度22度…温度23度: `Inputs.conflicts`). No value said of
a name the knowledge's decision tables give another input (油温80度, ``bearing temperature 80
C`` against a table of 温度(℃): `kbtools.query.quantities`) is given to any input, nor one
said of another place (室外30度, ``outside 30 C``: `kbtools.query.places`); one said of
inside or the table's own place (棚内24度, ``inside 24 C``) is the input's.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kbtools.decision import DecisionTable
from kbtools.decision.clock import CLOCK_UNIT, times_in
from kbtools.decision.column_units import column_unit, unit_of
from kbtools.decision.units import bare_degrees
from kbtools.decision.weekdays import WEEKDAY_UNIT, days_said
from kbtools.query import readings
from kbtools.query.compacted import compact, plain
from kbtools.query.differences import difference_at
from kbtools.query.input_names import column_names
from kbtools.query.input_names import names_of as names_of  # (read from here by callers)
from kbtools.query.input_text import as_written, simplified, without
from kbtools.query.input_values import (
    COMPARED_TO,
    claim,
    exactly_in,
    in_column,
    lasted_by,
    listed_with,
    names_lasting,
    names_next,
    one_per_range,
    said_twice,
    time_given,
    with_half,
)
from kbtools.query.input_values import given_value as given_value  # (read from here by callers)
from kbtools.query.mentions import NAME_GAP_LATIN as NAME_GAP_LATIN  # (as NAME_GAP)
from kbtools.query.mentions import after_name, at_next_place, named_again, tails
from kbtools.query.naming import (
    DAYS,
    PERCENT,
    header_unit,
    may_name,
    nameless,
    of_column,
    said_of_other,
    same_part_of_day,
    takes_by_unit,
    time_of_day,
    timed_after,
    unnamed_output,
    use_of_other,
    weather_count,
)
from kbtools.query.naming import NAME_GAP as NAME_GAP  # (read from here by callers)
from kbtools.query.places import place_of
from kbtools.query.qualified import Qualified
from kbtools.query.quantities import Others, key_text
from kbtools.query.quoting import said as _said
from kbtools.query.quoting import unused as _unused
from kbtools.query.ranges import with_ranges
from kbtools.query.value_units import DURATIONS, in_order, rates_said_first, rough_said
from kbtools.query.values import Number, bounds_after, numbers
from kbtools.query.wording import (
    abbreviated,
    is_cjk,
    is_latin,
    names_word,
    noun_names,
    object_names,
    subject_words,
    unglued,
)


@dataclass(frozen=True)
class Inputs:
    """What a question gives a decision table: `values` (input column → value) and
    `conflicts` (input column → the values given it when it is given two: 22度, 23度), and the
    values it gives only roughly (`approximate`)."""

    values: dict[str, str]
    conflicts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # input column → its value as written, when the question says it roughly (大约90%,
    # 90%左右, ``about 90%``: `values.Number.approximate`); the value is read all the same
    approximate: dict[str, str] = field(default_factory=dict)
    # missing input column → (a value in its unit as written, the other thing it is said
    # of): 80度 said of 油温 is no value of 温度(℃) (`qualified.Qualified`, `Others`)
    others: dict[str, tuple[str, str]] = field(default_factory=dict)
    # input column → (its value as typed, as read) when that is not the number as typed
    # (1 200 → 1200, 一半 → 50 %, 湿度0.85 → 85 %: `query.readings`), said in the answer
    readings: dict[str, tuple[str, str]] = field(default_factory=dict)
    # missing input column → (a value as typed, its two readings) the question gave it, when
    # the two select other rows (1.200: 1.2 or 1200): which one is meant is asked, not guessed
    ambiguous: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    # a value as the fields above quote it (compacted: 2100hours, 80C) → as the question
    # typed it (``2100 hours``, ``80 C``), where the two differ: what an answer's notes show
    typed: dict[str, str] = field(default_factory=dict)
    # the missing input columns of `others` whose value was said at another part of the day
    # (白天25度 for 夜温): the table's own quantity, so the answer names the table and says so
    other_times: frozenset[str] = frozenset()
    # the values the question gave that no input took (压力3MPa, 大风3天 on a table of 温度
    # and 湿度), with the word naming each, as typed: said in the answer, never dropped
    unused: tuple[str, ...] = ()
    # the values the question gave as a difference from another time (比昨天高5度, ``5 degrees
    # higher than yesterday``: `query.differences`), as typed: no reading, said not used
    differences: tuple[str, ...] = ()


def find_inputs(question: str, table: DecisionTable,
                synonyms: Mapping[str, Sequence[str]] = {},
                vocabulary: Collection[str] = ()) -> dict[str, str]:
    """Input column header → value, for the inputs the question gives a value for."""
    return read_inputs(question, table, synonyms, vocabulary).values


def read_inputs(question: str, table: DecisionTable,
                synonyms: Mapping[str, Sequence[str]] = {},
                vocabulary: Collection[str] = ()) -> Inputs:
    """The values the question gives the table's inputs (`find_inputs`), and the inputs it
    gives two values (`Inputs.conflicts`). Common short forms of a quantity (``rh``,
    ``temp``: `query.wording.ABBREVIATIONS`) name it as its synonyms do. `vocabulary`: the
    names of every decision table's inputs in the knowledge (`query.quantities.input_names`);
    a value said of one that names none of this table's inputs (油温80度, ``bearing
    temperature 80 C`` on a table of ``温度(℃)``) is given to none of them. A question in
    Traditional script is read in Simplified (溫度超過20度 as 温度超过20度)."""
    synonyms = abbreviated(synonyms)  # (a release's: made once, `answers.input_synonyms`)
    # (ＲＨ８５％: its compatibility forms as plain ones, so the short form is apart as below)
    question = plain(question)
    # in Simplified script (溫度超過20度: 超过 bounds the 20, as 温度 names the input)
    written = unglued(question)  # rh85%: rh 85%
    question = unglued(simplified(question))
    text = compact(question)
    cased = compact(question, fold=False)  # a range as the table reads it: 超过20度
    shown = compact(written)  # a thing as the question writes it (溫度), where the two line up
    shown = shown if len(shown) == len(text) else text
    typed = compact(written, fold=False)  # a value as typed (``2100 hours``, 溫度): for notes
    typed = typed if len(typed) == len(text) else cased
    # the days of the week said (周三, ``on wednesday``): a column of days' value, and no
    # number (周3) nor a name qualifying the next input's (周三温度 is the temperature)
    days = days_said(text, cased)
    text, cased, shown = (without(t, days) for t in (text, cased, shown))
    # a rate said per-unit first (每亩施了25公斤, 亩施25公斤) read as one said after its number
    order = rates_said_first(text)
    text, cased, shown = (in_order(t, order) for t in (text, cased, shown))
    # (``3 C at night``: a time said after a value is its time, as ``night 3 C``)
    found_numbers, times_after = timed_after(text, with_ranges(text, cased, numbers(text, cased)))
    # 25度半: 25.5 (said so in the answer); 温度20度和20度: one value, said twice
    found_numbers, halved, summed = with_half(found_numbers, text, cased)
    found_numbers = said_twice(found_numbers)
    claimed: set[int] = set()
    # a difference (比昨天高5度, ``5 degrees higher than yesterday``): no reading, said unused
    changed = {n: span for n, x in enumerate(found_numbers)
               if (span := difference_at(text, x.start, max(x.after, x.end))) is not None}
    claimed.update(changed)
    for n, ref in enumerate(found_numbers):  # … and the value it is said from (比25度高3度,
        # ``3 degrees above 25 c``): no reading either, said with it
        of = next((k for k, (a, b) in changed.items() if k != n and (a <= ref.start < b or (
            ref.start == b + 1 and text[b] == " " and text[a:b].endswith(COMPARED_TO)))), None)
        if of is not None and n not in changed and not (  # (not the 三 of 降了两三天)
                ref.range_text and ref.range_text == found_numbers[of].range_text):
            changed[of] = (changed[of][0], max(changed[of][1], ref.after, ref.end))
            claimed.add(n)
    out: dict[str, str] = {}
    conflicts: dict[str, tuple[str, ...]] = {}
    blocked: set[int] = set()  # named with a value that is none (a bound, 二十六): missing
    by_name: dict[int, Number] = {}  # input → the number its name gave it
    source: dict[str, Number] = {}  # input column → the number its value was read from
    # a column's names in Simplified, as the question is read (相對濕度 is named 湿度 too)
    headers = {i: simplified(table.header[i]) for i in table.inputs}
    names = {i: column_names(headers[i], synonyms)[0] for i in table.inputs}
    own = frozenset(n for i in table.inputs for n in names[i])
    # where the question names another table's input: no value said of it is this table's
    wholes = {i: column_names(headers[i], synonyms)[1] for i in table.inputs}
    elsewhere = Others.of(frozenset(vocabulary), own,
                          frozenset(w for i in table.inputs for w in wholes[i])) \
        if vocabulary and found_numbers else Others()
    spans = elsewhere.spans(text)
    # a name qualified into another thing's (油温, ``oil temperature``): see `Qualified`
    cells = tuple(c[j].text for c in table.conditions for j in table.inputs
                  if c[j].kind == "text")
    subject = subject_words(table, synonyms)
    quals = {i: Qualified.of(tuple(n for n in names[i] if any(w.endswith(n) for w in wholes[i])),
                             subject, cells,
                             tails(names[i], wholes[i]))
             for i in table.inputs}
    said: dict[str, tuple[str, str]] = {}  # input column → a value said of another thing
    at_other_times: set[str] = set()  # … of those, the ones said at another part of the day
    units = {i: column_unit(table.header[i], (r[i] for r in table.rows)) for i in table.inputs
             if i in table.numeric}
    clocks = [i for i, unit in units.items() if unit == CLOCK_UNIT]
    # a column of days of the week (周一至周五) takes a day said, never a number
    for i in (i for i, unit in units.items() if unit == WEEKDAY_UNIT):
        blocked.add(i)
        said_days = list(dict.fromkeys(d for _, _, d in days))
        if len(said_days) == 1:
            out[table.header[i]] = said_days[0]
        elif said_days:  # 周三…周五: which one is not known
            conflicts[table.header[i]] = (said_days[0], said_days[1])
    if clocks:  # 早上8点半, 21:30, ``9:05 pm``: a time of day, not the numbers 8 and 30
        times = times_in(text)
        claimed.update(n for n, x in enumerate(found_numbers)
                       if any(a <= x.start < b for a, b, _ in times))
        for i in clocks:  # of two columns of times, each by a name the other lacks (开始)
            own_names = [n for n in names[i] if all(n not in names[j] for j in clocks if j != i)]
            at = time_given(text, times, own_names if len(clocks) > 1 else None)
            if len(at) == 1:
                out[table.header[i]] = at[0]
            elif at:  # 8点…9点: which one is not known
                conflicts[table.header[i]] = (at[0], at[1])
        blocked.update(clocks)  # no number is given a column of times by its name or unit
    for i in table.inputs:  # numbers right after the column's name
        if i not in table.numeric or i in clocks or i in blocked:
            continue
        # a part that also names another input names neither (温度 of 土壤温度 and 空气温度)
        others = {n for j in table.inputs if j != i for n in names[j]}
        usable = [n for n in names[i] if n in wholes[i] or n not in others]
        # a longer name of another input holds no mention of this one's (the 温度 of 夜间温度
        # is no name of 白天温度's)
        theirs = [*spans, *((m.start(), m.end()) for n in others - set(names[i])
                            for m in re.finditer(re.escape(n), text))]
        for name in usable:
            # 湿度 of 相对湿度, ``humidity`` of its synonym ``relative humidity``
            tail = name not in wholes[i] and any(w.endswith(name) for w in wholes[i])
            rivals = dict(quals[i].tails).get(name, frozenset())
            found = after_name(text, name, found_numbers, claimed, tail=tail, spans=theirs,
                                qualified=quals[i], rivals=rivals, header=table.header[i],
                                times=times_after)
            if found is None:
                continue
            num, numeral = found
            x = found_numbers[num] if not numeral else None
            place = place_of(quals[i], text, *x.extent) if x else None
            if x and place:  # ``the temperature is 30 c outside``: another place's, said so
                said.setdefault(table.header[i], (x.written, place))
                claim(claimed, found_numbers, num)
                break
            pair = listed_with(found_numbers, num) if x else None
            if numeral:  # 日均温二十六度: a value, but not one read here
                blocked.add(i)
            elif x and pair is not None:  # 温度20度和25度: which one is not known
                blocked.add(i)
                conflicts[table.header[i]] = (_said(x), _said(pair))
                claim(claimed, found_numbers, found_numbers.index(pair))
            elif (value := given_value(found_numbers[num], table, i)) is not None or \
                    found_numbers[num].exact and bare_degrees(unit_of(found_numbers[num].written)):
                # (``humidity 25 degrees``: the table refuses the unit, saying so, as 湿度25度)
                out[table.header[i]] = value or found_numbers[num].written
                by_name[i] = found_numbers[num]
            else:
                blocked.add(i)
            if num >= 0:
                claim(claimed, found_numbers, num)
                # (by a name of its own: the 温度 of 夜间温度 is no second 白天温度)
                again = named_again(text, [n for n in usable if n not in others],
                                     found_numbers, claimed, found_numbers[num], spans)
                if again is not None and in_column(given_value(again, table, i), units[i]) == \
                        in_column(out.get(table.header[i]), units[i]):
                    again = None  # 温度25度…温度77°F: one temperature, in both scales
                same = at_next_place(text, found_numbers, claimed, found_numbers[num])
                if again is None and same is not None and same.value == found_numbers[num].value:
                    claim(claimed, found_numbers, found_numbers.index(same))  # 3号棚85、2号棚85
                if again is not None:  # 温度22度…温度23度: which one is not known
                    out.pop(table.header[i], None)
                    blocked.add(i)
                    conflicts[table.header[i]] = (_said(found_numbers[num]), _said(again))
            break
    for n, x in enumerate(found_numbers):  # else what a count noun names (4 rainy days)
        counted = [i for i in table.inputs if i in table.numeric and x.noun and
                   header_unit(table.header[i]) is not None and
                   noun_names(x.noun, key_text(table.header[i]), names[i], synonyms)]
        if n in claimed or len(counted) != 1 or table.header[counted[0]] in out or \
                counted[0] in blocked:
            continue
        value = given_value(x, table, counted[0])
        if x.unit != header_unit(table.header[counted[0]]) and value == x.value:
            value = None  # 4 rainy weeks in a column of days it cannot convert to: missing
        if value is not None:
            out[table.header[counted[0]]] = value
            source[table.header[counted[0]]] = x
        else:
            blocked.add(counted[0])  # 4 rainy days or more: a bound, the input stays missing
        claim(claimed, found_numbers, n)
    rained: dict[str, Number] = {}  # 下雨3, 下雨三: the days it fell, as 下雨3天 says them
    for n, x in enumerate(found_numbers):
        fell = weather_count(x)
        fell_in = [i for i in table.inputs if fell and i in table.numeric and
                header_unit(table.header[i]) == DAYS and
                noun_names(fell, key_text(table.header[i]), names[i], synonyms)]
        if n not in claimed and len(fell_in) == 1 and table.header[fell_in[0]] not in out and \
                fell_in[0] not in blocked:
            out[table.header[fell_in[0]]] = x.value
            source[table.header[fell_in[0]]] = rained[table.header[fell_in[0]]] = x
            claim(claimed, found_numbers, n)
    for i in table.inputs:  # else the one unclaimed number in the column's unit
        unit = header_unit(table.header[i])
        rated = unit is None and any(takes_by_unit(x, table.header[i]) for x in found_numbers)
        if i not in table.numeric or (unit is None and not rated) or i in blocked or \
                (table.header[i] in out and i not in by_name):
            continue
        fits = []
        for n, x in enumerate(found_numbers):
            if n in claimed or x.noun or not takes_by_unit(x, table.header[i]):
                continue
            # what is said before or after the whole of it (a range's: 油温22到25度, 35-50℃ 油温)
            thing = quals[i].before(text, x.extent[0]) or quals[i].after(text, x.extent[1]) \
                or said_of_other(text, x, spans, elsewhere.own_chars)
            # ``inside 24 c``, 棚内24度: the table's own place; ``outside 30 c``: another's
            place = None if thing else place_of(quals[i], text, *x.extent)
            if thing or place:  # 油温80度, 80度的油温, 室外30度: said of another thing, named
                said.setdefault(table.header[i], (_said(x), thing or place or ""))
                continue
            if not same_part_of_day(x.word, table.header[i]):  # 白天25度 for 夜温: the day's,
                # said so (夜里气温3度 for 白天温度: the night's; ``daytime 25 C``)
                said.setdefault(table.header[i], (_said(x, typed), time_of_day(x.word)))
                at_other_times.add(table.header[i])
                continue
            lasting = lasted_by(text, found_numbers, n)  # ``humidity 90% over 3 days``
            if lasting and not names_lasting(compact(table.header[i]), lasting):
                # how long the humidity lasted: no rain days, said so (of the humidity)
                said.setdefault(table.header[i], (_said(x), lasting))
                continue
            # 下了4天雨, ``4 days of rain``: what a duration counts, said after it, names the
            # column or not (``4 days of wind``, ``has 30 hours of downtime``), unless a
            # Chinese word before it names the column (用了2100小时的油: the oil's use)
            counts = object_names(text, x.after, key_text(table.header[i]), names[i],
                                  synonyms) if x.unit in DURATIONS else None
            if counts is False and names_next(text, found_numbers, n):
                counts = None  # 36小时 打药3次: 打药 names the 3, it counts no hours
            word = unnamed_output(x.word, table, subject)
            used = "" if counts or x.unit not in DURATIONS else \
                use_of_other(word, table.header[i], synonyms)
            if used:  # ``the machine ran 2100 hours``: its run time, no 连续降雨天数
                said.setdefault(table.header[i], (_said(x), used))
                continue
            if (place == "" or quals[i].changed_to(text, x.start) == "" or  # heated to 80 c
                    counts or (counts is None or is_cjk(word[-1:] or "a")) and may_name(
                        word, table.header[i], synonyms, fraction=x.unit == PERCENT)) and \
                    (x.unit != PERCENT or of_column(text, x, table.header[i], synonyms)):
                fits.append(n)
        fits = one_per_range(fits, found_numbers)  # 20 c to 24 c: one value, the range
        if not fits or any(sum(takes_by_unit(found_numbers[n], table.header[j]) and
                               same_part_of_day(found_numbers[n].word, table.header[j])
                               for j in table.inputs) != 1 for n in fits):
            continue  # a unit no column or two take (晚上3度: of 白天温度 and 夜间温度, the night's)
        if i in by_name:  # temperature 22 C, then 24 C: a second value in the column's unit
            first = by_name[i]
            other = next((found_numbers[n] for n in fits if found_numbers[n].exact and
                          nameless(found_numbers[n].word) and
                          in_column(given_value(found_numbers[n], table, i), units.get(i)) !=
                          in_column(out[table.header[i]], units.get(i))), None)
            if other is not None:
                out.pop(table.header[i])
                blocked.add(i)
                conflicts[table.header[i]] = (first.written, other.written)
            claim(claimed, found_numbers, *fits)
            continue
        if len(fits) == 1:
            if (value := given_value(found_numbers[fits[0]], table, i)) is not None:
                out[table.header[i]] = value
                source[table.header[i]] = found_numbers[fits[0]]
            claim(claimed, found_numbers, fits[0])
            continue
        given: dict[str | None, str] = {}  # 温度22度，然后温度24度 on an English table
        as_given: dict[str | None, tuple[str | None, Number]] = {}  # … each as given, and its number
        for x in (found_numbers[n] if not listed_with(found_numbers, n) else
                  replace(found_numbers[n], exact=True) for n in fits
                  if found_numbers[n].exact or found_numbers[n].range_text or
                  listed_with(found_numbers, n)):  # (20度和25度: two values, each as given)
            # (``25 C and 77 F``: one temperature, in both scales)
            given.setdefault(key := in_column(given_value(x, table, i), units.get(i)), _said(x))
            as_given.setdefault(key, (given_value(x, table, i), x))
        if len(given) > 1:  # two values of the one column in their unit: which is not known
            conflicts[table.header[i]] = tuple(given.values())[:2]
            blocked.add(i)
        elif (one := next(iter(given), None)) is not None and \
                all(found_numbers[n].exact or found_numbers[n].range_text for n in fits):
            out[table.header[i]] = as_given[one][0] or one  # one value said twice (22度，现在还是22度)
            source[table.header[i]] = next((found_numbers[n] for n in fits
                                            if found_numbers[n].approximate), as_given[one][1])
        claim(claimed, found_numbers, *fits)
    for i in table.inputs:  # else a number an English name follows (6 cycles, a 4160 v motor)
        if i not in table.numeric or table.header[i] in out or i in blocked:
            continue
        others = {n for j in table.inputs if j != i for n in names[j]}
        for n, x in enumerate(found_numbers):
            if n in claimed or not (x.exact or x.range_text):
                continue
            follows = next((m for m in names[i] if m.isascii() and m not in others and
                            text.startswith(m, x.after) and
                            names_word(text[x.after:x.after + len(m) + 2], m)), None)
            if follows is not None and quals[i].after(text, x.after):
                continue  # ``80 c temperature of the oil``: another thing's (said above)
            if follows is not None:
                if not x.range_text and \
                        bounds_after(text[x.after + len(follows):].removeprefix("s")):
                    blocked.add(i)  # 6 cycles or more: a bound, the input stays missing
                    break
                if (value := given_value(x, table, i)) is not None:
                    out[table.header[i]] = value
                    source[table.header[i]] = x
                claim(claimed, found_numbers, n)
                break
    bare = text.replace(" ", "")
    for i in table.inputs:  # text columns: a cell value the question names
        if i in table.numeric:
            continue
        values = {c[i].text for c in table.conditions if c[i].kind == "text" and len(c[i].text) > 1}
        named = [v for v in values if (names_word(text, compact(v)) if is_latin(v[:1])
                                       else v.replace(" ", "") in bare)]
        if len(named) == 1:
            out[table.header[i]] = named[0]
    for i, x in by_name.items():
        source.setdefault(table.header[i], x)
    for n, x in enumerate(found_numbers):  # 2100 operating hours, 4 windy days: another
        if n in claimed or not x.noun or not x.exact or x.unit not in DURATIONS:
            continue  # thing's time, which no input here counts: said so, not dropped
        for i in table.inputs:
            if i in table.numeric and i not in blocked and table.header[i] not in out and \
                    header_unit(table.header[i]) in DURATIONS:
                said.setdefault(table.header[i], (_said(x), typed[x.end:x.after].strip()))
    reading = readings.read(out, source, text, typed, table)  # 1 200 as 1200, 1.200: which?
    for h, x in source.items():  # 25度半 as 25.5: the half said after the unit
        if x.start in halved and h in out:
            if x.start in summed:  # 1小时30分钟 in hours: 1.5, one length in the column's unit
                out[h] = exactly_in(out[h], units.get(table.header.index(h)))
            reading.read[h] = (_said(x, typed), out[h])  # (零下5度半, its sign's words too)
    for h, x in rained.items():  # said with the word it follows: 下雨3 as 3 天
        said_at = text.rfind(weather_count(x) if x.word.isascii() else x.word, 0, x.start)
        reading.read[h] = (typed[said_at:x.end], f"{x.value} {'days' if h.isascii() else '天'}")
    # a rough value quoted as the question writes it (十度左右: 十度, not 10度; 兩三天: 兩三)
    rough = {h: _said(source[h], typed) for h in out if h in source and source[h].approximate}
    # each value a message quotes, as typed where the compacted text joins it (2100hours:
    # ``2100 hours``) or the reading words it (两到三天: 兩三天): `Inputs.typed`
    as_typed = {_said(x): t for x in found_numbers if (t := _said(x, typed)) != _said(x)}
    for read, as_said in rough_said(question, written).items():  # 三四天, read as 三到四天: rough
        rough.update({h: v.replace(read, as_said) for h, v in out.items() if read in v})
        as_typed.update({v: v.replace(read, as_said) for v in out.values() if read in v})
    of_other = {h: (v, as_written(thing, text, shown)) for h, (v, thing) in said.items()
                if h not in out and h not in conflicts and h not in reading.ambiguous}
    quoted = {v for vs in conflicts.values() for v in vs} | {v for v, _ in of_other.values()}
    return Inputs(out, conflicts, rough, of_other, reading.read, reading.ambiguous, as_typed,
                  frozenset(h for h in of_other if h in at_other_times),
                  _unused(found_numbers, claimed, [*source.values()], quoted, text, typed,
                          [n for i in table.inputs for n in names[i]]),
                  tuple(dict.fromkeys(typed[a:b].strip() for a, b in changed.values())))
