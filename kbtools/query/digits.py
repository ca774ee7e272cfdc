"""A value a question writes in Chinese numerals, respelled as the knowledge mostly writes it,
in Arabic digits (`numeral_spellings`: 三十天 as 30天, 百分之九十 as 90%, 两个小时 as 2个小时),
for `kbtools.query.expansion` to search the number too: jieba makes 三十, 十天 and 三十天 of
三十天, words the knowledge never writes.

一 and 两 are mostly no amount (一个节点, 哪一年, 同一时间): they are a value only where they
count something the knowledge writes in digits, a unit of time (保留一天, 两个小时, 一分钟:
`COUNTED_UNITS`) or, for 两, a measure word (两台服务器, 两块网卡: `MEASURE_WORDS`), and no
word before them makes them a determiner or an ordinal (哪一年, 这两天, 每一天, 前一天:
`NOT_A_COUNT_AFTER`). A unit of time of two characters (小时, 分钟) counts after every
numeral (三小时, 二十分钟, 十分钟: not the 十分 of 十分灵活)."""

from __future__ import annotations

from kbtools.decision.numerals import chinese_number
from kbtools.index.tokenize import is_cjk
from kbtools.query.number_spans import CJK_NUMBER, NUMERAL_RUN
from kbtools.query.value_units import unit_after

# a numeral and a unit's character that make a word meaning no amount: 十分 (very), 四周
# (all around), 万分 (extremely), 十足 (full), 四方/八方 (every side)
NUMERAL_WORDS = frozenset(("十分", "四周", "万分", "十足", "四方", "八方"))
# units of time a count is written with, longest first (一个小时 before 一个)
COUNTED_UNITS = ("个小时", "个钟头", "个星期", "个工作日", "个月", "小时", "钟头", "分钟",
                 "秒钟", "毫秒", "星期", "工作日", "天", "周", "年", "秒")
# measure words 两 counts with (两台服务器, 两块网卡, 两个副本)
MEASURE_WORDS = frozenset("个台次条种倍张块位名份组套根层路颗片盘项行列核副把处件")
# a character before 一 or 两 that makes it no count: 哪一年, 这两天, 同一时间, 某一天,
# 每一天, 第一天, 前一天, 上一年, 有一天, 万一, 唯一, 统一, 任一, 另一, 其一, 逐一, 单一
NOT_A_COUNT_AFTER = frozenset("哪这那同某每第前后上下有万唯统任另其逐单")
# a unit's character starting a longer word: 一周年 (an anniversary), 一秒杀
NOT_COUNTED = ("周年", "秒杀")
_ONE_OR_TWO = ("一", "两")


def numeral_spellings(text: str) -> list[tuple[str, str]]:
    """Each value of `text` in Chinese numerals (`numeral_values`) as written and as the
    knowledge mostly writes it, in Arabic digits: (三十度, 30度), (二十, 20), (十五点五天,
    15.5天), (百分之九十, 90%), (保留一天: 一天, 1天), (两个小时, 2个小时). 一 and 两 only
    where they count (`counted_unit`); an ordinal (第三方, 第四张) is no value, nor a numeral
    with no unit that is one character or runs on into a word (七星瓢虫, 二十四节气): one the
    question writes before 至, 到, 和 or 或 (二十至三十度) or apart is a value. Nor are the
    words made of a numeral and a unit's character that mean no amount (`NUMERAL_WORDS`:
    十分灵活, 四周)."""
    spans = dict(numeral_values(text))
    counted: dict[int, tuple[str, str]] = {}
    for found in CJK_NUMBER.finditer(text):
        number = chinese_number(found.group(2))
        if number is not None and not found.group(1) and \
                text[found.start() - 1:found.start()] != "第" and \
                (unit := counted_unit(text, found.start(), found.end(), spans)):
            counted[found.start()] = (found.group(0) + unit, number + unit)
    out: list[tuple[int, tuple[str, str]]] = []
    for start, end in spans.items():
        m = CJK_NUMBER.match(text, start)
        value = chinese_number(m.group(2)) if m else None
        if start in counted:
            out.append((start, counted.pop(start)))
            continue
        if m is None or value is None or m.group(2) in _ONE_OR_TWO \
                or text[start - 1:start] == "第" or text[start:end] in NUMERAL_WORDS:
            continue
        if m.group(1):  # a percentage has no unit after it: the 分 of 百分之五十分别 is no
            out.append((start, (m.group(0), value + "%")))  # unit's (50%, not 50%分)
            continue
        rest, after = text[m.end():end], text[m.end():m.end() + 1]
        if not rest and (len(m.group(2)) < 2 or (
                is_cjk(after) and after not in "至到和或")):
            continue
        out.append((start, (text[start:end], value + rest)))
    out += counted.items()  # (a numeral `numeral_values` reads no value: 一分钟)
    return [pair for _, pair in sorted(out)]


def counted_unit(text: str, start: int, end: int, spans: dict[int, int]) -> str:
    """The unit the numeral `text[start:end]` counts, as written after it, where it counts one
    the knowledge writes in digits; "" where it does not. A unit of time of two characters or
    more (`COUNTED_UNITS`: 小时, 分钟, 个月) after any numeral; one of one character (天, 周,
    年, 秒) after 一 or 两 where `numeral_values` (its `spans`: start → end) reads it as the
    numeral's unit (not the 年 of 一年级); a measure word after 两. Not after a word that
    makes 一 or 两 no count (`NOT_A_COUNT_AFTER`), nor before 半 (一年半, 一个半小时)."""
    rest = text[end:end + 8]
    one_or_two = text[start:end] in _ONE_OR_TWO
    if one_or_two and text[start - 1:start] in NOT_A_COUNT_AFTER or rest.startswith(NOT_COUNTED):
        return ""
    unit = next((u for u in COUNTED_UNITS if rest.startswith(u)), "")
    if len(unit) == 1 and not (one_or_two and spans.get(start) == end + 1):
        unit = ""
    if not unit and text[start:end] == "两" and rest[:1] in MEASURE_WORDS:
        unit = rest[0]
    return "" if rest[len(unit):len(unit) + 1] == "半" else unit


def numeral_values(text: str) -> list[tuple[int, int]]:
    """Where `text` (as written) gives a value in Chinese numerals, as (start, end): a numeral
    written the standard way (`chinese_number`: 八十, 二十五, 十五点五; 百分之 before it
    included), with what follows it of the measure word 个 and a one-character unit (八十度,
    三天, 三个月, 八十 度; not the 年 of 三年级, nor a character no unit is: the 字 of 十字花科,
    the 星 of 七星瓢虫, nor the numeral after a 个 or a space: 三个十一). 一 alone is a value only so followed (一些, 一氧化碳 hold none); a
    numeral written otherwise (三七, 三四天, 百日咳) is none."""
    out = []
    for m in CJK_NUMBER.finditer(text):
        if chinese_number(m.group(2)) is None:
            continue
        rest = text[m.end():m.end() + 24].lstrip()
        end = m.end() + len(text[m.end():m.end() + 24]) - len(rest)  # after the spaces
        measure = int(rest.startswith("个"))
        unit = unit_after(rest[measure:])[0]
        if NUMERAL_RUN.match(unit):  # 三个十一, 三 十: another numeral, no unit of this one
            unit = ""
        width = measure + (len(unit) == 1)
        if width:
            out.append((m.start(), end + width))
        elif m.group(0) != "一":
            out.append((m.start(), m.end()))
    return out
