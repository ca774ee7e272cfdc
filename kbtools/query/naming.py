"""Whether the words around a number name a decision table's input column, for
`kbtools.query.inputs`: the unit class a column's header declares (`header_unit`) and which
numbers it takes by their unit (`unit_fits`); whether the word before a number taken by its
unit may name the column (`may_name`: 气温 18℃ for 温度, ``the seal`` for ``Seal
temperature``; not 病叶率 3% nor ``bearing temperature``), names an output or the table's own
subject (`unnamed_output`), names nothing (`nameless`, `lead_ok`), or names another table's
input the value is said of (`said_of_other`: 油温80度); and whether a fraction is the
column's (`of_column`: not 3%的病叶).

Pure: the words are data here and in `kbtools.query.values` and `kbtools.query.wording`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from kbtools.decision import DecisionTable, column_key, normalize_text
from kbtools.decision.column_units import unit_of
from kbtools.decision.headers import header_unit_start
from kbtools.decision.units import family, rate_parts, rates_agree, unit_group
from kbtools.index.tokenize import CJK
from kbtools.query.compacted import compact
from kbtools.query.fillers import drop_fillers, strip_fillers
from kbtools.query.qualified import before_comma
from kbtools.query.quantities import (
    AMBIENT,
    DAY_TIMES,
    TIMES,
    WEATHER,
    key_text,
)
from kbtools.query.value_units import BARE_DEGREES, DURATIONS, TEMPERATURES, UNIT_CLASSES
from kbtools.query.values import AMOUNT_LEADS, POSSESSIONS, STOP_GAP, SUBJECTS, Number
from kbtools.query.wording import (
    NAME_STARTS,
    amount_subject,
    fraction_names,
    fraction_of,
    is_cjk,
    is_latin,
    other_script,
    stems_meet,
    tied,
)

NAME_GAP = 4  # at most this many characters between an input's name and its value
# words that may stand before a trailing part of an English header without making it
# another thing's name (the temperature 160; not bearing temperature 160)
EN_LEADS = frozenset(("the", "a", "an", "and", "its", "my", "our", "their", "with", "if",
                       "when", "at", "but", "so"))
# words before a number that name no quantity: a number taken by its unit may follow them;
# nor do they make a name after them another thing's (``then the temperature 23``)
EN_NAMELESS = EN_LEADS | {"it", "this", "that", "they", "we", "i", "you", "while", "once",
                            "since", "because", "now", "here", "there", "then", "later",
                            "again", "also", "still", "today", "yesterday", "afterwards"}


def header_unit(header: str) -> int | None:
    """The unit class a header declares: in its unit part (``(℃)``; a single letter only as
    the whole unit, and a rate such as ``(drops/min)`` names none unless it is a class's
    word: ``(r/min)``; another spelling of a class's unit, ``(月)`` for months), else by a unit word of two characters or more ending it (连续降雨天数,
    运行小时)."""
    text = normalize_text(header)
    unit, key = text[header_unit_start(text):], column_key(header)
    bare = unit.strip().strip("()[]/").strip()
    for n, c in enumerate(UNIT_CLASSES):
        if bare in c or (unit and "/" not in bare and
                         any(w in unit for w in c if len(w) > 1 or not w.isascii())):
            return n
    group = unit_group(bare) if bare else None  # (月): a spelling of a class's unit, months
    for n, c in enumerate(UNIT_CLASSES):
        if group is not None and any(unit_group(w) == group for w in c):
            return n
    for n, c in enumerate(UNIT_CLASSES):
        if any(len(w) >= 2 and key.endswith(w) for w in c):
            return n
    return None


def takes_by_unit(x: Number, header: str) -> bool:
    """Whether number `x` is a value of column `header` by its unit (`unit_fits`); a column of
    a rate (施肥量(kg/ha)) takes a number said in a rate that converts to its own (25公斤每亩:
    `decision.units.rates_agree`), and only one so said (25公斤 alone is no rate)."""
    text = normalize_text(header)
    rate = text[header_unit_start(text):].strip().strip("()[]").strip()
    said = unit_of(x.written)
    if rate_parts(rate) is not None:
        return rates_agree(said, rate) is True
    return unit_fits(x.unit, header_unit(header)) and rate_parts(said) is None


def unit_fits(number: int | None, column: int | None) -> bool:
    """Whether a number in unit class `number` is a value of column unit class `column`: the
    same class, another unit of its family that an exact factor converts (2年 in a column of
    months is 24, 3天 in one of hours 72: `decision.units.scale`, as for a value named by
    the column's name), or degrees in either scale or bare (``22 degrees``) in a column of ℃
    or °F (77°F to a ℃ column: converted, `decision.given.in_scale`)."""
    if number is None or column is None:
        return False
    return number == column or (number == BARE_DEGREES and column in TEMPERATURES) or \
        number in TEMPERATURES and column in TEMPERATURES or \
        FAMILIES[number] is not None and FAMILIES[number] == FAMILIES[column]


PERCENT = next(n for n, c in enumerate(UNIT_CLASSES) if "%" in c)
# the `decision.units.SCALES` family of each of `UNIT_CLASSES` (None: converted to no other)
FAMILIES = tuple(next((f for w in c if (f := family(w)) is not None), None)
                  for c in UNIT_CLASSES)


def said_of_other(text: str, x: Number, spans: Sequence[tuple[int, int]],
                   mine: frozenset[str]) -> str:
    """The name of another table's input number `x` is said of ("" when none), one of
    `spans` naming it: the name ends right before the whole of it (`values.Number.extent`:
    a range's or a bound's, 油温低于25度), filler words between (油温80度, 油温是80度, ``oil temp reads 80
    C``) or a few Chinese characters none of which is in `mine`, the table's input names'
    (油温升到80度; not 油温正常气温25度: 气温 may name its 温度), or an English one starts
    right after it and its unit (``80 C oil temperature``); a comma may stand between the
    name and the value (油温，80度: `qualified.before_comma`)."""
    first, past = x.extent  # the whole of it: a range's or a bound's with its words
    named = before_comma(text, len(drop_fillers(text[:first]).rstrip(" ")))
    for start, end in spans:
        if end == named:  # 油温，80度: a comma between the name and its value
            return text[start:end]
        gap = drop_fillers(strip_fillers(text[end:first]))
        if end <= first and not STOP_GAP.search(text[end:first]) and \
                (not gap or (len(gap) <= NAME_GAP and all(is_cjk(ch) for ch in gap)
                             and not set(gap) & mine)):
            return text[start:end]
        if start >= past and is_latin(text[start]) and not text[past:start].strip():
            return text[start:end]
    return ""


def nameless(word: str) -> bool:
    """Whether the word before a number names no quantity (none, ``then``, 然后, 现在): a
    second value in the unit of an input already named is then that input's (最低 15 度,
    ``bearing 30 C`` are another thing's)."""
    if word.isascii():
        return all(w in EN_NAMELESS for w in word.split())
    return not word or word in NAME_STARTS


def lead_ok(text: str, start: int) -> bool:
    """Whether the word before position `start` (if any) leaves a trailing part of an English
    header naming that header (``the temperature``), not another compound (``bearing
    temperature``)."""
    before = text[max(0, start - 16):start].rstrip(" ")
    at = len(before)
    while at and before[at - 1].isascii() and before[at - 1].isalpha():
        at -= 1
    prev = before[at:]  # the word right before, after a comma too (``100,bearing``)
    return not prev or prev in EN_NAMELESS  # ``then temperature``: a name of its own


_LATIN_WORDS = re.compile(r"[a-z0-9]+")


def unnamed_output(word: str, table: DecisionTable, heading: str) -> str:
    """The word before a number, "" when it names one of the table's outputs (``oil change
    interval at 70 °F``: the interval is asked for, the 70 °F is not its value): an output
    column's name is no input's name; "" too when it is written of the table's own heading's
    characters or words (赤霉病 22度 on a table under 小麦赤霉病风险, ``greenhouse is at 24 c``
    under Greenhouse ventilation: its subject, no quantity; 病叶率 3% still names another).
    `heading`: the table's `wording.subject_words` (``hydraulic oil 2100 hours`` under 液压油更换判定)."""
    if not word:
        return word
    if is_cjk(word[0]) and set(word) <= set(heading):
        return ""
    said = {w for w in word.split() if drop_fillers(w)}  # not ``the``, ``is``
    if word.isascii() and said and said <= set(_LATIN_WORDS.findall(compact(heading))):
        return ""  # ``the greenhouse is at 24 c`` under Greenhouse ventilation
    for j in table.outputs:
        key = key_text(table.header[j])
        own = key.split()
        if (word.isascii() and all(w in own for w in word.split())) or \
                (not word.isascii() and len(word) >= 2 and word in key):
            return ""
    return word


def of_column(text: str, x: Number, header: str,
               synonyms: Mapping[str, Sequence[str]]) -> bool:
    """Whether fraction `x` (3%) may be the value of column `header` by its unit: no noun
    after it says what it is a fraction of (3%的病叶, ``3% of the leaves``:
    `query.wording.fraction_of`), or that noun names the column."""
    noun = fraction_of(text, x.after)
    return not noun or fraction_names(noun, key_text(header), synonyms)


# verbs of a thing's use, each naming the time it has been used or run: a column counting it
# (运行小时, 使用年限, 工作时长) is named by any of them (液压油已经用了2100小时, 跑了300小时)
RUNNING = ("运行", "使用", "运转", "工作", "用", "跑", "转")
# how a question says a thing's use before the time of it (机器运行了2100小时, 泵开了5小时,
# ``the machine ran 2100 hours``, ``the motor has 2100 hours on it``)
USE_SAID = ("运行", "使用", "运转", "工作", "用了", "用过", "跑了", "转了", "开了", "开机")
EN_USE = frozenset(("ran", "run", "runs", "running", "used", "uses", "using", "operated",
                    "operates", "operating", "worked", "works", "working", "served", "serving",
                    "logged", "clocked", "idled", "idling"))
# what a column of a use time is named by, besides those verbs: the words of its name sharing
# a stem with one of these (``Hose age``, ``Service life``, ``Run time``, ``Hour meter``), or
# the Chinese ones in its key (使用年限, 累计时长, 工时)
USE_TIME_EN = ("run", "operat", "use", "usage", "work", "serv", "age", "life", "time", "hour",
               "meter", "duty", "log")
USE_TIME_ZH = (*RUNNING, "开机", "时间", "时长", "寿命", "年限", "龄", "工时", "累计")


def may_name(word: str, header: str, synonyms: Mapping[str, Sequence[str]] = {}, *,
              fraction: bool = False) -> bool:
    """Whether the word before a number may name column `header` when the number is taken by
    its unit: no word at all (26℃), or one sharing a character with the key (气温 18℃ for
    温度, 降雨 2 天 for 连续降雨天数) that is not another thing's compound of its tail (土壤湿度
    for 相对湿度); English words of the header or the starts of them (``seal``, ``the
    temp`` for ``Seal temperature``). 病叶率 3%, 3月2日, 第3天, ``bearing temperature 190 F``
    name something else. A word in a script the header is not written in (软管用了 5 年 for
    ``Hose age (years)``, ``hose`` for 软管使用年限(年)) is judged by `translates`; of a
    `fraction` (a number in %, a unit many quantities are measured in: 病叶率 3% against
    ``Humidity (%)``) only a word a synonym ties to the header names it."""
    if not word:
        return True
    if other_script(word, key_text(header)):
        known = tied(word, key_text(header), synonyms)
        return known is True if fraction else known is not False
    key = column_key(header)
    if word.isascii():
        own = key_text(header).split()
        words = word.split()
        while words and words[-1] in EN_NAMELESS:
            words.pop()  # when it 70°f, if it's 70°f: the number is said of nothing named
        if not words:
            return True
        if (part := _part_said(words)) is not None:  # ``overnight 3 C``, ``3 C at night``
            said = part_of_day(key_text(header))  # (the night's, a column of the night or
            return said == part or not said and not any(w in EN_SPANS for w in own)  # none)
        if (subject := amount_subject(words)) is not None:  # ``the pump ran 5 hours``
            if not any(stems_meet(w, o) for w in subject for o in own):
                return True  # an amount of a thing, named by its unit
            words = subject  # ``suction pressure ran 30 psi``: a quantity, named so
        *lead, last = words
        return len(last) >= 3 and any(w.startswith(last) or stems_meet(w, last)  # rained
                                      for w in own) and \
            all(w in EN_NAMELESS or w in AMBIENT or not drop_fillers(w) or
                any(o.startswith(w) for o in own) for w in lead)  # ``has rained``, ``air``
    joiner = next((j for j in NAME_STARTS if word.startswith(j)), "")
    word = word[len(joiner):]  # 和湿度 90%, 然后湿度 90% name 湿度
    word = time_ending(word) or word  # 锈病昨晚 3度: a reading last night, judged so
    if not word or word.endswith(WEATHER) and header_unit(header) not in DURATIONS:
        return True  # 然后 24 度, 下大雨 22度: said of nothing named (晴了4天: sunny days)
    if DAY_TIMES.fullmatch(word) and not any(t in key for t in TIMES):
        return True  # 夜里负5度 for 温度: when it was read (not 日均温's, a day's mean)
    if DAY_TIMES.fullmatch(word) and (part := part_of_day(word)):
        return part == part_of_day(key)  # 晚上3度 for 夜温: the night's (not 白天25度)
    chars = {ch for ch in key if is_cjk(ch)}
    if any(v in key for v in RUNNING):  # 用了 2100 小时 for 运行小时: the same time counted
        chars |= set("".join(RUNNING)) | {"开"}  # 开了, 开机 (not the 机 of 停机)
    if not set(word) & chars:
        return False
    tails = [key[n:] for n in range(1, len(key) - 1)]
    return not any(word.endswith(t) and len(word) > len(t) and is_cjk(word[-len(t) - 1])
                   for t in tails)


# the parts of the day a time word or a header says (晚上, 夜里, 半夜 and 夜温, 夜间温度; 白天, 中午
# and 昼温, 日间温度): a reading said at one is the value of a column of that part of the day
_PARTS_OF_DAY = (("night", ("夜", "晚", "宵")), ("day", ("白天", "昼", "日间", "中午", "午间")))


# the same in English, as whole words (``night``, ``Day temperature``; not ``Rain days``)
EN_PARTS_OF_DAY = re.compile(r"(?<![a-z])(?:(night|nighttime|overnight|evening|tonight|midnight)|"
                             r"(day|daytime|midday|noon|afternoon))(?![a-z])")


# a part of the day said right after a value and its unit (``25 C in the day``, ``3 C at night``,
# ``3 C overnight``): the reading's time, as one said before it is (``night 3 C``)
_EN_TIME_AFTER = re.compile(r" ?(?:(?:in|during|at|by|over) (?:the )?)?(night|nighttime|overnight|"
                            r"evening|tonight|midnight|day|daytime|midday|noon|afternoon)"
                            r"(?![a-z])")


# the same in Chinese: a time of day after a value and its unit, ending its clause (25度白天，
# 3度晚上, 3度夜里的时候); one the next name follows is that name's (25度 晚上湿度90%)
_ZH_TIME_AFTER = re.compile(r"在?(" + DAY_TIMES.pattern + r")(?:的时候|时)?"
                            rf"(?=$|[^{CJK}0-9a-z])")
_ZH_TIME_BETWEEN = re.compile(r"在?(" + DAY_TIMES.pattern + r")(?=[0-9])")
# English words a column of a span of days or of a statistic of one is named by (``Daily mean
# temperature``): a reading at night is not its value, as 夜里3度 is not 日均温's
EN_SPANS = frozenset(("daily", "weekly", "monthly", "yearly", "annual", "mean", "average"))
# the words before a part of the day that say when, not what (``at night``, ``last night``)
_EN_WHEN = frozenset(("in", "during", "at", "by", "over", "the", "last", "this", "each",
                      "every"))


def timed_after(text: str, found: Sequence[Number]) -> tuple[list[Number], list[tuple[int, int]]]:
    """`found` (the numbers of `text`) with each said with no name before it and a part of
    the day right after its unit (``25 C in the day, 3 C at night``, 25度白天，3度晚上) said at
    that time (its `Number.word`), as ``daytime 25 C, night 3 C`` and 白天25度 are; and where
    each such time is said (no name: the 白天 of 25度白天3度晚上 names no 白天温度's 3)."""
    out, times, taken = [], [], -1  # (where the time the last value took ends)
    for n, x in enumerate(found):
        if x.start == taken:
            x = replace(x, word="")  # 25度白天3度晚上: the 白天 before the 3 is the 25's
        said = _time_after(text, x.after)
        if said is None and n + 1 < len(found) and is_cjk(text[x.after:x.after + 1] or "a"):
            said = _ZH_TIME_BETWEEN.match(text, x.after)  # the next value is its time's
            said = said if said and _paired(text, said.end(), found[n + 1]) else None
        if said is None or not nameless(x.word) or x.unit is None:
            out.append(x)
            continue
        out.append(replace(x, word=said.group(1)))
        times.append(said.span(1))
        closed = text[said.end():said.end() + 1] in CLOSING and text[x.after] in OPENING
        taken = said.end() + closed
    return out, times


# brackets a part of the day may be said in after a value (25度（白天）, ``25 C (daytime)``, as
# compacted: NFKC makes （） ()
OPENING, CLOSING = "([【〔", ")]】〕"


def _time_after(text: str, at: int) -> re.Match[str] | None:
    """The part of the day said at position `at` of `text`, right after a value and its unit
    (3度晚上, ``3 C at night``), or in brackets there (25度（白天）, ``25 C (daytime)``), as a
    match whose group 1 is the part; None when none is said so."""
    bracket = text[at:at + 1] in OPENING
    start = at + bracket
    said = (_ZH_TIME_AFTER if is_cjk(text[start:start + 1] or "a")
            else _EN_TIME_AFTER).match(text, start)
    if said is None or bracket and text[said.end():said.end() + 1] not in CLOSING:
        return None  # (25度（白天温度）: no part of the day alone)
    return said


def _paired(text: str, end: int, x: Number) -> bool:
    """Whether value `x` starts at `end` and a time of day ends its clause after it too (the
    3度晚上 of 25度白天3度晚上: each value said before its time)."""
    return x.start == end and x.unit is not None and \
        _ZH_TIME_AFTER.match(text, x.after) is not None


def _part_said(words: Sequence[str]) -> str | None:
    """The part of the day (``night``, ``day``) English `words` before a value say and
    nothing else (``overnight``, ``at night``, ``last night``, ``midday``), else None."""
    *lead, last = words
    said = EN_PARTS_OF_DAY.fullmatch(last)
    if said is None or not all(w in _EN_WHEN or w in EN_NAMELESS for w in lead):
        return None
    return "night" if said.group(1) else "day"


def part_of_day(text: str) -> str:
    """``night`` or ``day`` when `text` (a time word, a header) says that part of the day,
    else "" (日均温: a day's mean, no part of it)."""
    part = next((part for part, marks in _PARTS_OF_DAY if any(m in text for m in marks)), "")
    if part or not text.isascii():
        return part
    said = EN_PARTS_OF_DAY.search(text.casefold())
    return "" if said is None else "night" if said.group(1) else "day"


def time_of_day(word: str) -> str:
    """The time of day `word` starts with (晚上, the 夜间 of 夜间气温, ``night`` of ``night
    temp``: a reading at night, whatever follows names), or ""."""
    said = DAY_TIMES.match(word) or EN_PARTS_OF_DAY.match(word.casefold())
    return word[:said.end()] if said else time_ending(word)


def time_ending(word: str) -> str:
    """The time of day of two characters or more a Chinese `word` ends with after other words
    (昨晚 of 玉米南方锈病昨晚, the table's subject glued before it: 玉米南方锈病 昨晚3度), or ""."""
    return next((word[n:] for n in range(max(0, len(word) - 6), len(word) - 1)
                 if is_cjk(word[n]) and DAY_TIMES.fullmatch(word, n)), "")


def same_part_of_day(word: str, header: str) -> bool:
    """Whether a reading said with `word` before it may be column `header`'s by the part of
    the day: any when `word` starts with no time of a part of the day (`part_of_day`), else
    only a column of that part or of none (晚上 3度, 夜间气温3度: 夜温 or 温度, not 白天温度),
    never one of whole days (日均温, ``Daily mean temperature``: `of_whole_days`)."""
    part = part_of_day(time_of_day(word))
    own = part_of_day(key_text(header))
    return not part or own == part or not own and not of_whole_days(header)


# what names a column of a statistic over a day or longer in Chinese (日均温, 日平均气温, 旬均温):
# a reading at one part of the day (夜里3度, 昨晚3度) is none of its values
ZH_SPANS = ("均",)


def of_whole_days(header: str) -> bool:
    """Whether column `header` holds a statistic over whole days or longer (日均温, ``Daily
    mean temperature``, ``Average temperature``), which no reading at night or in the day
    is."""
    key = key_text(header)
    if key.isascii():
        return any(w in EN_SPANS for w in key.split())
    return any(w in key for w in ZH_SPANS)


def use_of_other(word: str, header: str, synonyms: Mapping[str, Sequence[str]] = {}) -> str:
    """The words before a duration that say it is a thing's use (``the machine ran``, ``the
    motor has``, 机器运行了) when column `header` counts no use (连续降雨天数, ``Consecutive
    rain days``; not 运行小时, ``Hose age``, ``Run time``, nor one a synonym names so):
    2100 hours of running is no count of rainy days, whatever script either is in. "" when
    the words say no use or the column counts it."""
    if word.isascii():
        words = word.split()
        use = next((n for n, w in enumerate(words) if w in EN_USE or (
            w in POSSESSIONS and n and words[n - 1] not in SUBJECTS and
            drop_fillers(words[n - 1]))), None)
        if use is None:
            return ""
        start = next((n for n, w in enumerate(words) if w not in EN_NAMELESS and
                      w not in AMOUNT_LEADS and drop_fillers(w)), use)  # not ``after``
        said = " ".join(words[start:use + 1])
    elif any(v in word for v in USE_SAID) or word.endswith(("用", "跑", "转")):  # 水泵用了
        said = drop_fillers(word)
    else:
        return ""
    names = [key_text(header), *(compact(t) for t in synonyms.get(column_key(header), ()))]
    if any(any(v in n for v in USE_TIME_ZH) for n in names if not n.isascii()) or any(
            w.startswith(s) for n in names if n.isascii() for w in re.findall(r"[a-z]+", n)
            for s in USE_TIME_EN):
        return ""
    return said


DAYS = next(n for n, c in enumerate(UNIT_CLASSES) if "天数" in c)
# what falls, as the words before a count with no unit say it (下雨3, 连续下雪三, ``it rained
# 3``): the count is of the days it fell, as 下雨3天 says, never of a wind's force (大风3)
FALLING = ("雨", "雪")
EN_FALLING = ("rain", "rained", "raining", "rainy", "snow", "snowed", "snowing", "snowy")


def weather_count(x: Number) -> str:
    """The word of what fell that number `x`, written with no unit, follows (雨 of 下雨3 and
    阴雨三, ``rained`` of ``it rained 3``), naming a column of the days it fell
    (`wording.noun_names`: 雨 of 连续降雨天数); "" for a number with a unit or no exact value,
    or after any other word (大风3, ``wind 3``)."""
    if x.unit is not None or not x.exact or x.noun or x.range_text:
        return ""
    if x.word.isascii():
        last = x.word.split()[-1:]
        return last[0] if last and last[0] in EN_FALLING else ""
    return next((w for w in FALLING if x.word.endswith(w)), "")
