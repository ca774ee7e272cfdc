"""A place named with a value and no quantity's name (``inside 24 C, outside 30 C``, 棚内24度，
棚外30度): whose value it is, for `kbtools.query.inputs`.

A field user describing a greenhouse says where each reading was taken rather than naming the
quantity: ``inside 24 C, outside 30 C``, ``it's 24 C inside``, 里面24度，外面30度. The unit
tells which input the value may be (a temperature); the place tells whether it is the
table's own. Inside, indoors or in the table's own thing (``inside``, ``indoors``, 室内, 里面,
棚内 under a 大棚 heading) is where a generic quantity is measured when no thing is named, as
``the temperature inside`` and 室内温度 already are (`quantities.ROOMS`): the value fills the
input. Out of doors or outside a thing (``outside``, ``outdoors``, 室外, 外面, 棚外, 户外) is
another place, as ``the temperature outside`` and 室外温度 are (`quantities.OUTSIDE`): the
value is said of it and the input stays missing, the answer naming the place.

A Chinese place may stand after its value as well as before it (30度棚外，24度棚内 as 棚外30度，
棚内24度): a place word right after a value's unit is that value's, unless a value follows it
with no place word after that one (棚外30度棚内24度: the 棚内 is the 24's), as in English.

Only such place words are read here: a value after any other word is judged as before
(`query.naming.may_name`). 另外, 此外, 以外 (in addition, besides) are no place.

Pure.
"""

from __future__ import annotations

import re

from kbtools.query.fillers import drop_fillers, strip_fillers
from kbtools.query.qualified import Qualified
from kbtools.query.quantities import (
    EN_PLAIN,
    OF_THING,
    OUTSIDE,
    PHRASE,
    PHRASE_WORDS,
    ROOMS,
    TIMES,
)
from kbtools.query.value_units import UNIT_CLASSES, unit_after
from kbtools.query.values import STOP_GAP
from kbtools.query.wording import NAME_STARTS, is_cjk

# Chinese words of the outside, standing after what they are outside of or alone (外面30度,
# 大棚外面, 外边, 外头); a bare 外 only after a room's or the table's own thing's character
# (室外, 棚外, 屋外) or in `CJK_OUTDOORS` (after a value, after any thing: 30度锅炉外), and
# never in a word of `NOT_OUTSIDE`: 另外, 此外, 以外 mean "besides"
CJK_OUTSIDE = ("外面", "外边", "外头")
CJK_OUTDOORS = ("户外", "野外", "露天", "室外", "屋外", "门外", "窗外")
# words ending in 外 that name no place outside a thing (besides, unexpected, extra, over: 30开外)
NOT_OUTSIDE = ("另外", "此外", "以外", "之外", "意外", "格外", "分外", "例外", "额外", "除外", "号外",
               "见外", "中外", "内外", "开外", "老外")
# Chinese words of the inside, after a thing or alone (里面24度, 棚里面): the table's own
# place after a room's or its own thing's character (室内, 屋里, 棚内), else the thing's
# (锅炉里 is a boiler's)
CJK_INSIDE = ("里面", "里边", "里头")
# the one-character place words after a thing that make its inside (锅炉里, 箱内); not 中 and
# 间 (其中, 期间, 一天中: words of their own more often than places)
THINGS_INSIDE = ("内", "里")
# words of here and there: the place the user stands in (这里30度, 那里), the surroundings
HERE = ("这", "那")
EN_REACH = 40  # at most this many characters before a value hold its place words
_WORDS = re.compile(r"[a-z'’]+")
# a value and its unit ending the text before another value (``30 c 60%``, 30度60%)
_VALUE_BEFORE = re.compile(r"(\d+(?:\.\d+)?)( ?[^\d\s,;:、，；：]{1,8})$")
_UNITS = frozenset(w for c in UNIT_CLASSES for w in c)
# a value, its unit and the word after it (``24 c inside``)
_VALUE_AHEAD = re.compile(r"\d+(?:\.\d+)? ?[^\d\s,;:、，；：]{0,8} ([a-z]+)")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_JOINS = frozenset(("and", "or", "but", "then", "while", "whereas"))  # start another item


def place_of(qualified: Qualified, text: str, at: int, after: int) -> str | None:
    """The place a value of compacted `text` is said to be in, when a place word and no
    quantity's name tells it: the value starts at `at`, its unit ends at `after`. None when no
    place word stands right before the value (filler words between) or right after its unit
    (``24 c inside``, 24度棚内: `_cjk_place_after`);
    "" for the table's own place or the surroundings (``inside``, ``indoors``, ``in the
    greenhouse`` on a greenhouse table, 室内, 里面, 棚内 on a 大棚 table); else the words naming
    another place as written (``outside``, ``outside the tank``, 室外, 外面, 大棚外面).
    `qualified` holds the input's own words (`Qualified.mine`: its names and the table's
    heading)."""
    start = after - (text[after - 1:after] == " ")  # the space `phrase` reads a word after
    first = _WORDS.findall(text[start:].split(" ", 2)[1:2][0])[:1] \
        if text[start:start + 1] == " " else []  # ``outside,humidity``: before the comma
    if first and first[0] in OUTSIDE + ROOMS:  # not ``6 years in service``
        found = qualified.phrase(text, start)  # ``30 c outside the tank``, ``24 c indoors``
        stop = found[0] if found is not None else start + 1 + len(first[0])
        ahead = strip_fillers(text[stop:stop + EN_REACH])
        if not ahead[:1].isdigit() or _placed(ahead):  # not the label of the next value
            if found is not None:  # (``indoor 24 c outdoor 30 c``; but ``30 c outside 24 c
                # inside``: each value's word after it)
                return text[start:found[0]].strip(" ") if found[1] else ""
            return ""  # ``24 c inside``: a bare adverb `phrase` reads no phrase of
    behind = _cjk_place_after(text, after)  # 30度棚外, 24度在棚内
    if behind is not None:
        run, stop = behind
        ahead = strip_fillers(text[stop:stop + EN_REACH])
        if not ahead[:1].isdigit() or _cjk_placed(ahead):  # not the label of the next
            place = _chinese_place(qualified, run)  # value (棚外30度棚内24度: the 24's)
            if place is None and run.endswith("外") and not run.endswith(NOT_OUTSIDE):
                # 30度棚外 on a table of no 棚, 30度锅炉外: outside another thing (before the
                # value, its word names no input: `query.naming.may_name`)
                place = run[-PHRASE - 1:]
            if place is not None:
                return place
    head = drop_fillers(text[max(0, at - EN_REACH):at]).rstrip(" ")
    before = _VALUE_BEFORE.search(head)
    if before is not None and before.group(2).strip(" ") in _UNITS:  # ``outside 30 c 60%``,
        prev = max(0, at - EN_REACH) + before.start(1)  # 棚外30度60%: the value before's
        return place_of(qualified, text, prev, prev + len(before.group(1)))
    if head[-1:].isascii():
        return _english_place(qualified, head)
    return _chinese_place(qualified, head)


def _placed(text: str) -> bool:
    """Whether the value starting `text` is followed by a place word of its own (``24 c
    inside``): the place words of the question then follow their values."""
    m = _VALUE_AHEAD.match(text)
    return m is not None and m.group(1) in OUTSIDE + ROOMS


def _cjk_place_after(text: str, after: int) -> tuple[str, int] | None:
    """The Chinese place word written right after a value's unit ending at `after` (30度棚外,
    24度在棚内: filler words between), as (the word, where it ends), when the word ends at the
    end of the text, a clause mark, a space or a number: a word of `CJK_OUTSIDE`,
    `CJK_OUTDOORS` or `CJK_INSIDE` alone or after the thing it is of (棚外面, 大棚里), or a
    thing and one of 外 and `THINGS_INSIDE` (棚外, 棚内, 室内); None when none is there
    (30度外面很热: a clause of its own; 24度棚内湿度: the place of the 湿度 named after it)."""
    start = len(text) - len(strip_fillers(text[after:]))
    run = ""
    for ch in text[start:start + PHRASE + 3]:
        if not is_cjk(ch):
            break
        run += ch
    end = start + len(run)
    if not run or (end < len(text) and is_cjk(text[end])):
        return None
    words = CJK_OUTSIDE + CJK_OUTDOORS + CJK_INSIDE
    if run.endswith(words) or (len(run) > 1 and run.endswith(("外", *THINGS_INSIDE))):
        return run, end
    return None


def _cjk_placed(text: str) -> bool:
    """Whether the value starting `text` (30度棚内) is followed by a Chinese place word of
    its own: the place words of the question then follow their values (30度棚外24度棚内)."""
    m = _DIGITS.match(text)
    if m is None:
        return False
    return _cjk_place_after(text, m.end() + len(unit_after(text[m.end():])[0])) is not None


def _english_place(qualified: Qualified, head: str) -> str | None:
    """The place the last English words of `head` name (``outside it is``: outside)."""
    # back to a clause mark or number (the ``inside`` of ``24 c inside, 30 c`` is the 24's),
    # the words only (``ventilation:inside``)
    words = _WORDS.findall(STOP_GAP.split(head)[-1])
    while words and words[-1] in EN_PLAIN and words[-1] not in OUTSIDE + ROOMS:
        if words[-1] in _JOINS:
            return None  # ``30 c outside and 24 c``: the place was the value's before
        words.pop()  # ``outside it is 30 c``, ``inside it's``
    if not words:
        return None
    last = words[-1]
    if last in qualified.mine and any(w in OF_THING for w in words[-PHRASE_WORDS - 1:-1]):
        return ""  # ``in the greenhouse it is 24 c``: the table's own (``in the boiler``,
        # ``in march``: judged as before, by `query.naming.may_name`)
    if last in OUTSIDE:
        own = last in qualified.mine or last.removesuffix("s") in qualified.mine
        return "" if own else last
    return "" if last in ROOMS else None


def _chinese_place(qualified: Qualified, head: str) -> str | None:
    """The place the Chinese word ending `head` names (棚外, 外面, 室内, 里面)."""
    run = ""
    for ch in reversed(head):
        if not is_cjk(ch) or len(run) == PHRASE + 2 or \
                (run and head[:len(head) - len(run)].endswith(NAME_STARTS)):
            break  # 然后外面: the words after the lead only
        run = ch + run
    if head[:len(head) - len(run)][-1:].isdigit():  # 30度棚内24度: no 度 of the 30 in it
        run = run[len(unit_after(run)[0]):]

    def own(thing: str) -> bool:  # no thing, here, a room, or the table's own (棚 of 大棚)
        return not thing or thing[-1] in qualified.mine or thing.endswith(ROOMS + HERE)

    if word := next((w for w in CJK_OUTDOORS if run.endswith(w)), ""):
        return word  # 户外, 室外: a word of its own (not 米室外 of 玉米 室外28度)
    word = next((w for w in CJK_OUTSIDE if run.endswith(w)), "")
    if word:  # 外面, 棚外面 (the table's own thing outside of which)
        thing = run[:-len(word)]
        return run[-len(word) - 1:] if thing and own(thing) else word
    if run.endswith("外") and len(run) > 1 and own(run[:-1]):
        return run[-2:]  # 棚外 on a 大棚 table, 房外
    word = next((w for w in CJK_INSIDE if run.endswith(w)), "") or \
        next((w for w in THINGS_INSIDE if run.endswith(w) and len(run) > 1), "")
    if not word:
        return None
    thing = run[:-len(word)]
    if word in THINGS_INSIDE and thing.endswith(TIMES):
        return None  # 夜里, 冬天里, 三天内: when, not where
    if own(thing):
        return ""  # 里面, 室内, 屋里, 这里, 棚内 on a 大棚 table
    return run[-PHRASE - len(word):]  # 锅炉里: another thing's inside, named
