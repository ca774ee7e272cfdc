"""Where a question names a decision table's input column, and the number that mention gives
it (`kbtools.query.inputs` reads the values): a name followed by its value with only filler
words between (温度为22度, ``temperature is 22``), not a name inside another word or another
thing's (土壤湿度, 水温度, ``oil temperature``, the 温度 of 夜间温度 for 白天温度), and the
input named again with another value (温度22度…温度23度).

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kbtools.decision.numerals import NUMERAL_CHARS
from kbtools.decision.words import APPROX_AFTER
from kbtools.query.fillers import EN_NUMERALS, strip_fillers
from kbtools.query.naming import NAME_GAP, lead_ok, same_part_of_day
from kbtools.query.numbered_places import place_at, without_place
from kbtools.query.qualified import Qualified
from kbtools.query.quantities import DAY_TIMES, EN_PLAIN, covered
from kbtools.query.values import BOUND_AFTER, STOP_GAP, Number
from kbtools.query.wording import NAME_STARTS, is_cjk, is_latin

NAME_GAP_LATIN = 24  # … or this many when they are Latin filler words (is currently at)


def tails(names: Sequence[str], wholes: Collection[str]) -> tuple[tuple[str, frozenset[str]], ...]:
    """The `names` of an input that are trailing parts of its whole names (湿度 of 相对湿度,
    ``humidity`` of ``relative humidity``), each with the characters the whole names put
    before it (相对): a word ending in one is a rival of that part (绝对湿度), not the
    table's own."""
    return tuple((n, frozenset(ch for w in wholes if w.endswith(n) for ch in w[:-len(n)]))
                 for n in names if n not in wholes and any(w.endswith(n) for w in wholes))


_UNQUALIFIED = Qualified()  # no name qualified into another thing's


def after_name(text: str, name: str, found: list[Number], claimed: set[int], *,
                tail: bool = False, spans: Sequence[tuple[int, int]] = (),
                qualified: Qualified = _UNQUALIFIED,
                rivals: frozenset[str] = frozenset(),
                header: str = "", times: Sequence[tuple[int, int]] = ()) -> tuple[int, bool] | None:
    """The number a mention of `name` gives: the first unclaimed number after it, when only
    filler words (`values.FILLERS`: 为, 达到, ``is``, ``reads`` …) stand between, as (its
    index, False); (-1, True) when a numeral that is no number here follows instead (二十多度,
    三四天, ``seventy``: named, not readable); None when no mention is followed so (比昨天高5度, 下午3点28度: the
    number is another quantity's). A Latin name is a whole word; a `tail` of a header (湿度
    for 相对湿度, ``rate`` for ``leak rate``) right after another CJK character or another
    word names something else (土壤湿度, ``flow rate``; not after a word `qualified` reads as
    qualifying nothing, the table's own subject or a time, 赤霉病湿度, 今天湿度, unless it
    ends in one of the `rivals`, the characters the whole name puts before the tail:
    绝对湿度; nor after a time of day another than column `header`'s: the 温度 of 夜间温度 for
    白天温度), as does a mention inside a longer name of another table's input (the 温度 of
    油温度: `spans`, `quantities.Others.spans`) or a whole name with a modifier that makes it
    another thing's (水温度, ``oil temperature``: `qualified`, `qualified.Qualified`), and a
    time of day a value before it took (`times`: the 白天 of 25度白天3度晚上 is the 25's time,
    no name of 白天温度 giving it the 3: `naming.timed_after`)."""
    latin = name[:1].isascii() and name[:1].isalnum()
    for m in re.finditer(re.escape(name), text):
        before, nxt = text[max(0, m.start() - 1):m.start()], text[m.end():m.end() + 1]
        if latin and (is_latin(before) or (nxt.isascii() and nxt.isalpha())):
            continue  # inside a word
        if any(x.end <= m.start() < x.after and not x.noun for x in found):
            continue  # a number's unit (``9000 hours at 140 F``: no name of the 140)
        if covered(spans, m.start(), m.end()) or \
                any(s <= m.start() and m.end() <= e for s, e in times):
            continue  # ``oil temperature``: another table's input; 25度白天: a time
        # right after a number's unit (26度湿度, ``26 c humidity``) or a number said with none
        # (温度二十五湿度八十五, dictated): a name of its own
        unit_before = any(x.unit is not None and (x.after == m.start() or text[
            x.after:m.start()] in APPROX_AFTER + BOUND_AFTER) or x.end == m.start()
            for x in found)  # 28度左右湿度
        if not tail and not unit_before and name in qualified.heads and \
                qualified.qualifier(text, m.start()):
            continue  # 水温度, ``oil temperature``: another thing's (`qualified.Qualified`)
        if tail and before and is_cjk(before) and not text[:m.start()].endswith(NAME_STARTS) \
                and not unit_before and qualified.qualifier(text, m.start(), rivals=rivals):
            continue  # 土壤湿度, 绝对湿度 (not 和湿度, 然后湿度: a name of its own; nor 今天湿度,
            # 赤霉病湿度 on a 赤霉病 table: no other thing's, as `Qualified` reads a whole name)
        if tail and latin and not unit_before and not lead_ok(text, m.start()):
            continue
        if header and not same_part_of_day(time_before(text, m.start()), header):
            continue  # the 温度 of 夜间温度 is no name of 白天温度
        end = m.end()
        placed = place_at(text[end:].lstrip(" ")) if latin else 0
        if placed:  # ``humidity in greenhouse 3 is 85``: which place, no thing's
            end = len(text) - len(text[end:].lstrip(" ")) + placed
        elif latin and name in qualified.heads and \
                (phrase := qualified.phrase(text, m.end())) is not None:
            if phrase[1]:
                continue  # ``temperature of the oil``: another thing's
            end = phrase[0]  # ``temperature of the air is``: the input's own, said so
        ahead = text[end:end + NAME_GAP_LATIN + 2]
        rest = strip_fillers(ahead)
        rest = strip_fillers(rest[place_at(rest):])  # 湿度三号棚85: the place is no numeral
        at = end + len(ahead) - len(rest)  # a numeral read as a number is taken below
        if (rest[:1] in NUMERAL_CHARS and  # (not 二十二至二十五度: a range read below)
                not any(at in (x.start, x.extent[0]) for x in found)) or \
                EN_NUMERALS.match(rest):
            return -1, True
        for n, x in enumerate(found):
            if n in claimed or x.start < end:
                continue
            if not placed and x.unit is None and not text[end:x.start].strip() and \
                    any(w not in EN_PLAIN for w in text[m.end():end].split()):
                break  # ``in greenhouse 2``: which one, not its value (not ``of about 3``)
            # 温度低于10度, ``temperature between 20 and 25``: the range's words are its own
            # (湿度三号棚85: which place it was read at, no word between: skipped)
            gap = without_place(text[end:x.extent[0] if x.extent[0] >= end else x.start])
            limit = NAME_GAP_LATIN if gap.isascii() else NAME_GAP
            if len(gap.replace(" ", "")) <= limit and not STOP_GAP.search(gap) and \
                    not strip_fillers(gap):
                return n, False
            break
    return None


def time_before(text: str, at: int) -> str:
    """The time of day said right before position `at` of `text` (夜间 of 夜间温度, ``night``
    of ``night temp``), or ""."""
    said = _EN_TIME_BEFORE.search(text, max(0, at - 12), at)
    if said is not None:
        return said.group(1)
    return next((m.group() for n in range(max(0, at - 6), at)
                 if (m := DAY_TIMES.fullmatch(text, n, at))), "")


# a time of day right before a name (``night temp``), as `naming.EN_PARTS_OF_DAY` reads them
_EN_TIME_BEFORE = re.compile(r"(?<![a-z])(night|nighttime|overnight|evening|tonight|midnight|day|"
                             r"daytime|midday|noon|afternoon) ?$")


def named_again(text: str, names: list[str], found: list[Number], claimed: set[int],
                 first: Number, spans: Sequence[tuple[int, int]] = ()) -> Number | None:
    """The other value, when the question names the input again with one (温度22度，…，温度23度;
    ``temperature 22 … the temperature is 23``): two values for one input, of which the
    table cannot take one. A mention right after another CJK character or a word that is no
    lead names another thing (最低温度 15 度, ``bearing temperature``) and is none."""
    # a number before the value is none (the 100 of ``larvae per 100 plants 40``)
    skip = claimed | {n for n, x in enumerate(found) if x.start < first.start}
    listed = at_next_place(text, found, skip, first)
    if listed is not None:
        return listed if listed.value != first.value else None
    for name in names:
        again = after_name(text, name, found, skip, tail=True, spans=spans)
        if again is not None and again[0] >= 0 and found[again[0]].value != first.value:
            return found[again[0]]
    return None


# what stands between one place's value and the next place's (湿度：3号棚85，2号棚80,
# ``humidity 85 in house 3 and 80 in house 4``)
_PLACE_LIST = re.compile(r"[，,、；; ]*(?:和|及|与|还有|而|但|另外|(?:and|but|while) )?")


def at_next_place(text: str, found: Sequence[Number], skip: Collection[int],
                  first: Number) -> Number | None:
    """The other value, when a place named by number follows the input's value `first` with
    a value of its own and no name between (湿度：3号棚85，2号棚80; 湿度85，2号棚80), or a value
    follows the place said after `first` (``humidity 85 in house 3 and 80 in house 4``): the
    same input's at another place, of which the table cannot take one (`inputs` takes one
    value said at two places, 3号棚85、2号棚85, as the value). A value in another unit, or
    with one where `first` has none, is another quantity's (``85 in house 3, 25 C``)."""
    end = max(first.after, first.end)
    rest = text[end:].lstrip(" ")
    placed = place_at(rest)  # ``85 in house 3``: the place said after the value
    start = len(text) - len(rest) + placed if placed else end
    gap = _PLACE_LIST.match(text, start)
    at = gap.end() if gap is not None and gap.end() > start else -1
    place = place_at(text[at:]) if at >= 0 else 0
    if at < 0 or not (place or placed):
        return None
    return next((x for n, x in enumerate(found) if n not in skip and x.start >= at + place and
                 x.exact and x.unit == first.unit and
                 not strip_fillers(text[at + place:x.start])), None)
