"""The quantities a knowledge base's decision tables take as inputs, knowledge-wide: a value
a question gives one of them is not a value of another table's generic input.

A greenhouse table's ``温度(℃)`` means the air in the greenhouse; a question's 油温80度 (or
``oil temperature 80 C``) is about the oil, which a word-by-word rule cannot tell from 棚内温度
(the place that table means). What tells them apart is the knowledge itself: 油温 is the name
of another table's input. `input_names` gathers the names of every decision table's inputs
(the header without its unit, the terms of its synonym group, and the short forms of each:
``oil temp`` for ``oil temperature``, `query.wording.ABBREVIATIONS`; 油温 for 油温度,
`CONTRACTIONS`); `Others` holds those that name none of one table's inputs, and says where a
question names one of them (`Others.spans`). `kbtools.query.inputs` then gives no value said
of such a name to that table: the input stays missing and the answer asks for it.

A quantity no table names is told by the form of the question instead
(`kbtools.query.qualified.Qualified`), by the words here: those that qualify nothing
(`AMBIENT`, `ROOMS`, `DEGREES`, `TIMES`, `WEATHER`, `CHANGES`, `EN_PLAIN`) and those saying
whose a quantity is (`OF_THING`, `POSSESSIVES`, `LOCATIVES`, `OUTSIDE`).

Pure.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kbtools.decision.cell_text import normalize_text
from kbtools.decision.headers import column_key, header_unit_start
from kbtools.query.compacted import compact
from kbtools.query.fillers import FILLERS
from kbtools.query.wording import ABBREVIATIONS, is_cjk

# In a Chinese compound a generic quantity's name may be cut to its first character: 油温 is
# 油温度, 水温 水温度, 油压 油压力, 水压 水压力. (full name, its short form in a compound)
CONTRACTIONS: tuple[tuple[str, str], ...] = (("温度", "温"), ("压力", "压"))
# the short forms a name ending so is always a quantity of its own kind by (日均温, 水温: a
# 温度), not only sometimes (油压 is a 压力, 电压 is none: 变压器 names no voltage of another)
OWN_ENDINGS = ("温",)
# a Chinese modifier ending so names a place in the thing before it (锅炉内压力, 棚内温度, 田间湿度):
# that thing is judged (a 大棚 table's 棚内温度 and 室内温度 are its own, 锅炉内压力 a boiler's)
LOCATIVES = ("内", "里", "中", "间", "里面", "里头", "内部", "当中")
# the surroundings a generic quantity is said of when no thing is named (气温, 空气湿度, ``air
# temperature``, ``ambient humidity``): the input's quantity still
AMBIENT = ("空气", "环境", "气", "air", "ambient")
# a room or indoors, the place a generic quantity is measured in when no thing is named (室温,
# 室内温度, 温室温度, 屋里温度, 房间里的温度, ``room temperature``, ``indoor temperature``, ``temperature in the room``,
# ``the room's temperature``): the surroundings, as `AMBIENT`, on any table (室外, ``outdoor``
# name another place: judged as any modifier)
ROOMS = ("室", "屋", "房", "房间", "room", "rooms", "indoor", "indoors", "inside")
# a verb of change before a Chinese quantity's short form (升温到80度, 加压至3MPa): says how the
# quantity went, not of what; a thing before it still qualifies it (油升温到80度 is the oil's)
CHANGES = ("升", "降", "加", "增", "减", "泄", "保", "稳", "控", "调", "提")
# a Chinese modifier ending so says how high the quantity is, not of what (高温35度, 30度的低温,
# 常温, 最大压力, 平均温度): the input's quantity still
DEGREES = ("高", "低", "常", "恒", "大", "小", "均")
# words before a name saying over which time it is taken or that it is the air's (日均温, 日平均气温)
MEASURES = ("平均", "均", "空气", "环境", "气", "旬", "白天", "日", "天", "周", "月", "年", "夜", "昼")
# a Chinese modifier ending so says when the quantity is measured, not of what (夜间温度, 白天温度,
# 冬天里的温度, 花期温度, 实时温度, 中午温度), as ``night temperature`` does (`EN_PLAIN`)
TIMES = ("白天", "晚上", "早上", "上午", "下午", "中午", "夜", "晚", "晨", "昼", "午", "日", "天",
         "周", "月", "季", "年", "期", "时")
# the times of day a reading is said at with no name (夜里负5度, 晚上零下3度, 今早10度): when it
# is taken, not of what, as `TIMES` before a name say
DAY_TIMES = re.compile(r"(?:今天|昨天|前天|今|昨|前|当|每天|每)?(?:夜里|夜间|夜晚|晚上|晚间|白天|"
                       r"早上|早晨|清晨|凌晨|上午|中午|下午|傍晚|半夜|深夜|午后|午夜|夜|晚|早)")
# the weather said before a name (下雨温度, 阴雨湿度, 雨后温度, 天晴温度, 刮风 温度): when it is measured,
# as `TIMES` say, not of what (雨水温度 is the rainwater's; 热风, 进风, 喷雾 are things)
WEATHER = ("雨", "雪", "雨后", "雪后", "晴", "多云", "刮风", "起风", "大风")
# a run of more Chinese characters than this before a name is a phrase of its own (小麦赤霉病
# 温度22度), not a modifier of the name
PHRASE = 3
GAP = 4  # at most this many Chinese characters between a qualified name and its value
# English words before a name that qualify no thing (``the``, ``current temperature``, ``if
# pressure``): words of a closed class (no noun names a thing with them), the filler words
# that may stand between a name and its value (`values.FILLERS`), and words of time and degree
EN_PLAIN = frozenset((
    "the", "a", "an", "this", "that", "these", "those", "its", "my", "our", "their", "your",
    "his", "her", "any", "no", "each", "every", "all", "it", "i", "we", "you", "they", "he",
    "she", "of", "at", "in", "on", "by", "for", "to", "from", "with", "without", "under", "over",
    "above", "below", "after", "before", "during", "near", "into", "per", "than", "as", "and",
    "or", "but", "so", "if", "when", "whenever", "while", "because", "then", "though", "is",
    "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "should",
    "shall", "can", "could", "will", "would", "may", "might", "must", "what", "whats", "how",
    "which", "why", "where", "who", "not", "now", "still", "also", "already", "today",
    "current", "present", "actual", "measured", "high", "low",
    # how high, or which of its values over time (``max pressure``, ``average temperature``)
    "max", "maximum", "min", "minimum", "peak", "average", "avg", "mean", "typical",
    "normal", "daily", "hourly", "overall",
    # when it is (``the temperature in the morning``, ``night temperature``)
    "morning", "afternoon", "evening", "night", "nighttime", "daytime", "day", "noon", "midday",
    "midnight", "tonight", "yesterday", "tomorrow", "week", "month", "year",
    # what the question asks for, no thing a quantity is of (``wheat scab risk temperature 22
    # C``: a question typed without commas; 风险温度 under a 风险 heading is the table's own)
    "risk", "risks", "danger", "hazard", "forecast", "outlook", "advice", "recommendation",
    *(w for w in FILLERS if w.isascii() and w.isalpha())))

# English prepositions after a name that say whose quantity it is (``temperature of the oil``,
# ``pressure in the boiler``), as a word before it does (``oil temperature``)
OF_THING = ("of", "in", "inside", "within")
# English words after a name that say it is measured out of doors or outside a thing
# (``the temperature outdoors``, ``temperature outside the tank``): another place, whatever
# follows, as 室外温度 is
OUTSIDE = ("outdoors", "outdoor", "outside")
# words that may stand between a value and the name after it (``80 c for the oil's
# temperature``, ``80 c: the oil temperature``); not ``and``, which starts another item
AFTER_LEADS = ("the", "a", "an", "for", "is", "was", "as", "being", "its", ":", "=")
PHRASE_WORDS = 3  # at most this many words of a thing after one of them (``of the hydraulic oil``)
# the marks of an English possessive before a name (``the oil's temperature``, ``tyres' pressure``)
POSSESSIVES = ("'s", "\u2019s")
PLURAL_POSSESSIVES = ("s'", "s\u2019")


def key_text(header: str) -> str:
    """A header without its unit, as a question is compacted (``Seal temperature (°F)`` →
    ``seal temperature``)."""
    text = normalize_text(header)
    return compact(text[:header_unit_start(text)].strip() or text)


def input_names(headers: Iterable[str],
                synonyms: Mapping[str, Sequence[str]] = {}) -> frozenset[str]:
    """The names a question may give the input columns `headers` (of every decision table):
    each header without its unit and the other terms of its synonym group (keyed by
    `decision.column_key`), each with its short forms (`short_forms`), compacted as a
    question is."""
    out: set[str] = set()
    for header in headers:
        for name in (key_text(header), *(compact(s) for s in synonyms.get(column_key(header), ()))):
            if name:
                out.update(short_forms(name))
    return frozenset(out)


def whole_names(header: str, synonyms: Mapping[str, Sequence[str]] = {}) -> set[str]:
    """The whole names of an input column, compacted: the header without its unit, the other
    terms of its synonym group, and the names of the quantity it measures, when that is a
    more general one (`measure`: 日均温 and ``daily mean temperature`` measure 温度
    and ``temperature``) — that name and the terms of its group (温度 = 气温 = temperature =
    air temperature), which name the same quantity measured the same way, as 气温 already
    names 日均温 in Chinese. So ``temperature 28 C`` fills 日均温(℃) as 气温28度 does, and a
    name qualifying one of them (``soil temperature``, 土壤温度) is another thing's."""
    wholes = {key_text(header), *(compact(s) for s in synonyms.get(column_key(header), ()))}
    for name in list(wholes):
        general = measure(name)
        if general != name:
            wholes |= {general, *(compact(s) for s in synonyms.get(column_key(general), ()))}
    return {w for w in wholes if w}


def short_forms(name: str) -> set[str]:
    """`name` and the forms of it a question may write instead: a trailing English word
    replaced by the other English terms of its `ABBREVIATIONS` group (``oil temp`` for ``oil
    temperature``, and back), a trailing Chinese name replaced by its form in a compound
    (`CONTRACTIONS`: 油温 for 油温度, and back). Only a qualified name (something before the
    replaced word) gets other forms."""
    out = {name}
    for group in ABBREVIATIONS:
        latin = [t for t in group if t.isascii()]
        for term in latin:
            head = name.removesuffix(" " + term)
            if head != name:
                out.update(f"{head} {other}" for other in latin if other != term)
    for full, short in CONTRACTIONS:
        if len(name) > len(full) and name.endswith(full):
            out.add(name[:-len(full)] + short)
        elif len(name) > len(short) and name.endswith(short):
            out.add(name[:-len(short)] + full)
    return out


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@dataclass(frozen=True)
class Others:
    """The knowledge's input names that name none of one table's inputs (`of`), longest
    first, the names of that table's own inputs with their short forms (`own`), and the
    Chinese characters of those names as the table gives them (`own_chars`)."""

    names: tuple[str, ...] = ()
    own: frozenset[str] = frozenset()
    own_chars: frozenset[str] = frozenset()

    @classmethod
    @functools.lru_cache(maxsize=256)  # a table is read for many questions: made once
    def of(cls, vocabulary: frozenset[str], own: frozenset[str],
           wholes: frozenset[str] = frozenset()) -> Others:
        """The names of `vocabulary` (`input_names`) that are not among `own`, the names of
        the table's inputs (`query.inputs.names_of`: with their parts and synonyms), nor
        short forms of them (``bearing temp`` of ``Bearing temperature``), nor the generic
        name one of them ends with (温度 of 油温度, as 油温 is written in full: 油的温度 may be
        the oil's), nor another name of the quantity one of `wholes` (the inputs' whole names
        and their synonyms) is measured as (`measure`: 日均温 of a table of 温度, 气温 of one
        of 日均温 — the daily mean air temperature either means; not 地温, 油温)."""
        mine = frozenset(form for name in own for form in short_forms(name))
        same = {measure(w) for w in wholes}
        return cls(tuple(sorted((n for n in vocabulary if n not in mine and
                                 not any(_ends_with(m, n) for m in mine) and
                                 measure(n) not in same),
                                key=lambda n: (-len(n), n))), mine,
                   frozenset(ch for name in own for ch in name if is_cjk(ch)))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where compacted `text` names one of these (a Latin name as whole words), as (start,
        end), unless a longer name of the table's own covers it there (液压油温度 of the
        table holds 油温度 of another)."""
        out: list[tuple[int, int]] = []
        for name in self.names:
            at = text.find(name)
            while at >= 0:
                end = at + len(name)
                whole = not (_latin(name[0]) and at and _latin(text[at - 1])) and \
                    not (_latin(name[-1]) and _latin(text[end:end + 1]))
                if whole and not any(text.find(n, max(0, end - len(n)), at + len(n)) >= 0
                                     for n in self.own if len(n) > len(name)):
                    out.append((at, end))
                at = text.find(name, at + 1)
        return out


def measure(name: str) -> str:
    """The quantity a compacted input name measures, without the words saying over which time
    it is taken or that it is the air's (`MEASURES`; English: `EN_PLAIN`, `AMBIENT`): 日均温,
    日平均气温 and 气温 are 温度, ``daily mean temperature`` is ``temperature``; 油温, 地温 and
    ``oil temperature`` are themselves, another thing's."""
    if name[:1].isascii():
        words = name.split()
        while len(words) > 1 and (words[0] in EN_PLAIN or words[0] in AMBIENT):
            words.pop(0)
        return " ".join(words)
    for full, short in CONTRACTIONS:
        head = full if name.endswith(full) else short if name.endswith(short) else ""
        rest = name[:-len(head)] if head else name
        while head and rest and (word := next((w for w in MEASURES if rest.endswith(w)), "")):
            rest = rest[:-len(word)]
        if head and not rest:
            return full
    return name


def _ends_with(name: str, part: str) -> bool:
    """Whether `name` ends with `part`, a longer name (an English one in whole words)."""
    return len(name) > len(part) and name.endswith(part) and \
        not (_latin(part[0]) and _latin(name[-len(part) - 1]))


def covered(spans: Iterable[tuple[int, int]], start: int, end: int) -> bool:
    """Whether one of `spans` (`Others.spans`) holds text[start:end] and is longer: the
    ``temperature`` of ``oil temperature`` is the oil's."""
    return any(s <= start and end <= e and e - s > end - start for s, e in spans)
