"""A place or a machine a question names by number (3号棚, 第三块田, 2号田块, 3号温室,
``greenhouse 3``, ``bay no. 3``, ``#3``): which one a value was read at, no value and no
thing the value is another's of (`kbtools.query.values` reads no number of one; `mentions`
skips one between a name and its value; `qualified` reads none as the thing a name is of).

Pure.
"""

from __future__ import annotations

import re

# the nouns of a place where the air, the soil or a crop is measured, which a number names
# (3号棚, 第三块田, 2号舍): a machine's (3号泵, 2号机) has a temperature of its own
PLACE_NOUNS = "棚田地块区片园圃室舍栋间库仓床垄畦点排"
# the places of two characters or more whose first is no place noun (3号温室, 2号鸡舍)
PLACE_WORDS = ("日光温室", "温室", "大田", "试验田", "鸡舍", "猪舍", "牛舍", "羊舍", "禽舍", "车间",
               "苗床", "基地", "果园", "菜园", "茶园", "育苗室", "厂房")
# a place's number (第三, 第3块, 3号 or 3#: the 号 after a number), a size its noun may start with
# (3号大棚, 第二小棚) and the noun: one character, with a second saying a part of it (2号田块,
# 二号地块, 3号棚区: not 地 of 3号田地温, a thing of its own), or a word of `PLACE_WORDS`
_PLACE_WORD = re.compile(r"(?:第(?:\d+|[零〇一二两三四五六七八九十百]+)[个块座栋间排]?|"
                         r"(?:\d+|[零〇一二两三四五六七八九十百]+)[号#])[大小]?"
                         rf"(?:{'|'.join(PLACE_WORDS)}|[{PLACE_NOUNS}][块区片]?)")


# an English place a number names, before it (``greenhouse 3``, ``bay no. 3``, ``house #2``,
# ``in greenhouse three``): what a Chinese question writes 3号棚
# (not ``plants``, ``area``: ``per 100 plants 40``, ``area 20 m2`` count or measure)
EN_PLACES = ("greenhouse", "glasshouse", "house", "hoophouse", "tunnel", "polytunnel", "bay",
             "zone", "block", "field", "plot", "bed", "row", "shed", "barn", "pen", "site",
             "tent")
_EN_NUMBER = (r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
              r"(?![a-z0-9.])")
# a place by number as a whole: the word leading it (``in``, ``at``), a place noun and/or a
# number's mark (``greenhouse 3``, ``bay no. 3``, ``#3``, ``no. 3``), the number
_EN_PLACE = re.compile(r"(?<![a-z])(?:(?:in|at|for|of|from|inside) )?(?:the )?(?:(?:"
                       + "|".join(EN_PLACES) + r")s? ?(?:(?:no\.|nr\.|number|#) ?)?|"
                       r"(?:no\.|nr\.|number) ?|#)" + _EN_NUMBER + " ?")
# the word right before a number that makes it a place's (``greenhouse 3``, ``bay 2``)
_EN_PLACE_BEFORE = re.compile(r"(?<![a-z])(?:" + "|".join(EN_PLACES) +
                              r")s? ?(?:(?:no\.|nr\.|number|#) ?)?$")


def en_place_before(before: str) -> bool:
    """Whether `before`, the text right before a number, ends in an English place noun
    (``greenhouse 3``, ``bay 2``: the place's number, no value)."""
    return _EN_PLACE_BEFORE.search(before) is not None


def place_at(text: str) -> int:
    """The length of the place named by number `text` starts with (三号棚85: 3, ``#3 85``: 3,
    ``in greenhouse 3 is 85``: 18), else 0."""
    m = _PLACE_WORD.match(text) or _EN_PLACE.match(text)
    return m.end() if m else 0


def without_place(gap: str) -> str:
    """`gap`, the text between a name and a value, without the place it names by number
    (湿度三号棚85, 白天温度3号棚25度: which place the value was read at, no word between)."""
    return _EN_PLACE.sub("", _PLACE_WORD.sub("", gap))


def past_place(text: str, lo: int, at: int) -> int:
    """Where the word from `lo` to a name at `at` of compacted `text` stops naming a place by
    its number — after the place's number and the one character of its noun (3号田湿度,
    第三棚湿度, 第3块田湿度, 3号大棚湿度: no thing before the name; 3号棚空气湿度: 空气湿度, as
    said alone; 3号棚油温: 油温, the oil's) — else `lo` (3号泵温度: the pump's): which place a
    value is read at says nothing of which input it is."""
    start = lo - (text[lo - 1:lo] == "#" and lo > 1)  # (3#棚: the word starts after the #)
    while start and text[start - 1].isdigit():  # (3号田: the word starts after the 3)
        start -= 1
    start -= start < lo and text[start - 1:start] == "第"
    m = _PLACE_WORD.match(text, start, at)
    return lo if m is None else m.end()
