"""Where a compacted question's numbers are and what each is worth, before `kbtools.query.values`
reads what each is (its unit, whether it is exact, the word before it): Arabic digits
(``1,200``, ``1 200`` and ``1.200.000`` grouping thousands), Chinese numerals written the
standard way that a unit follows or 百分之 leads (二十六度, 百分之九十), a numeral said alone as
dictation writes one (湿度八十五), amounts said with a multiplying word or a half (2万5千,
2.5万, 两个半小时), shares (三分之二, 九成, 八成五), each as (start, end, value, the text after it).

Pure: the numerals are read by `kbtools.decision.numerals`, the units by
`kbtools.query.value_units`.
"""

from __future__ import annotations

import re

from kbtools.decision.numerals import (
    chinese_number,
    half_numbers,
    magnified_numbers,
    mixed_numbers,
    shares_said,
    tenths,
)
from kbtools.index.tokenize import CJK
from kbtools.query.fillers import GLUED_NOT_NOUNS
from kbtools.query.value_units import COUNTERS, unit_after

_NUMBER = re.compile(r"(?<![a-z0-9_.\-])(-?(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)|"
                     # 1 200, 12 500 (a space or a thin space as written, NFKC's space:
                     # groups of three digits), 1.200.000 (two dots or more group thousands)
                     # (not after a number or a code, hx-260 1 200: 1200, or 1 and 200)
                     r"(?<!\d )\d{1,3}(?: \d{3})+(?![\d.,]| \d)|\d{1,3}(?:\.\d{3}){2,}(?![\d.,])|"
                     r"\d+)(?:\.\d+)?)")
STOP_MARKS = ",，、。;；!?！？"  # marks that end a clause
AFTER_CHARS = 40  # how much of the text after a number `numbers` reads it in (its unit, clause)

# words that make a number below zero
BELOW_ZERO = ("零下", "负")
NUMERAL_RUN = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
# a Chinese numeral (百分之九十 as a percentage), read when standard (`chinese_number`)
CJK_NUMBER = re.compile(r"(百分之)?([零〇一二两三四五六七八九十百千万]+(?:点[零〇一二三四五六七八九]+)?)")


def number_spans(text: str) -> list[tuple[int, int, str, str]]:
    """Each number of `text` as (start, end, value, the `AFTER_CHARS` characters after it:
    its unit, a clause bounding or negating it): the Arabic ones, and the Chinese numerals
    written the standard way (`decision.numerals`) that a unit follows (二十六度, 三个小时: the
    个 dropped) or 百分之 leads (百分之九十 is 90 followed by %), and a decimal numeral
    (零点八五, 十五点五) with a unit or none. A whole numeral no unit follows is no number here
    (一些, 十分, 二十多), nor is 一 alone (一度 is also "once")."""
    spans = [(m.start(), m.end(), _grouped(m.group(1)),
              text[m.end():m.end() + AFTER_CHARS]) for m in _NUMBER.finditer(text)]
    for m in CJK_NUMBER.finditer(text):
        rest = text[m.end():m.end() + AFTER_CHARS]
        unit = rest[1:] if rest.startswith("个") else rest  # the measure word 个: `numbers`
        if m.group(1):
            rest = "%" + rest
        value = chinese_number(m.group(2))
        if value is not None and "点" in m.group(2) and not m.group(1) and \
                not rest.startswith(_NOT_DECIMAL):  # 零点八五: a decimal, with no unit too
            spans.append((m.start(), m.end(), value, rest[:AFTER_CHARS]))
            continue
        if value is None or not m.group(1) and tenths(value, rest) is None and (
                m.group(2) == "一" and not rest.startswith("刻钟") and  # 一刻钟; 一度: once
                not _span_end(rest) or  # (一到两天: a span's first end)
                unit_after(unit)[2] is None and
                not unit.startswith(COUNTERS) and not _span_end(rest) and  # 三次, 两到三天
                not _alone(text, m)):  # 湿度八十五, 温度二十五怎么办: as 湿度85
            continue
        spans.append((m.start(), m.end(), value, rest[:AFTER_CHARS]))
    # 2万5千: one number, not 2 times 万 and 5 times 千; 2.5万 one number, not 2.5 and 万;
    # 两个半小时 2.5 hours, not 两 (no unit after it) and 半
    if mixed := mixed_numbers(text) + magnified_numbers(text) + half_numbers(text):
        spans = [s for s in spans if not any(a <= s[0] < b for a, b, _ in mixed)] + \
            [(a, b, value, text[b:b + AFTER_CHARS]) for a, b, value in mixed]
    if shares := [s for s in shares_said(text) if unit_after(text[s[1]:])[2] is None]:
        spans = [s for s in spans if not any(a <= s[0] < b for a, b, _ in shares)] + \
            [(a, b, value, "%" + text[b:b + AFTER_CHARS - 1]) for a, b, value in shares]
    out: list[tuple[int, int, str, str]] = []
    for span in sorted(_in_tenths(text, span) for span in spans):
        if not out or span[0] >= out[-1][1]:  # (not the 五 of 八成五: its tenths)
            out.append(span)
    return out


def _alone(text: str, m: re.Match[str]) -> bool:
    """Whether the whole numeral `m` of `text` is a value with no unit, as dictation on a
    tablet writes one (湿度八十五, 温度二十五怎么办): what follows ends the question or the
    clause (a mark, a space, `fillers.GLUED_NOT_NOUNS`: 怎么, 了吗, 时, 左右) or is the next
    name and its value (温度二十五 湿度八十五, compacted: 湿度 then 八十五); not a word making
    it rough (二十多, 二十几) nor one it counts (十分, 三棚), no ordinal (第三, 初三) nor 一
    alone (一些, 一下), nor the 零 of 零下."""
    rest = text[m.end():m.end() + 8]
    return m.group(2) != "一" and not text[:m.start()].endswith(_ORDINAL_BEFORE) and \
        not text.startswith(BELOW_ZERO, m.start()) and \
        not rest.startswith(_ROUGH_AFTER) and (
            not rest or rest[0] in STOP_MARKS + " " or rest.startswith(GLUED_NOT_NOUNS) or
            _NEXT_VALUE.match(rest) is not None)


# a name and its value after a numeral (八十五 of 温度二十五湿度八十五: no unit of the 二十五)
_NEXT_VALUE = re.compile(rf"(?:(?![零〇一二两三四五六七八九十百千万点])[{CJK}]){{2,4}}?"
                         r"(?:是|为|:)?[\d零〇两二三四五六七八九十]")
# what after a numeral makes it rough (二十多, 二十余, 二十几, 二十来): no value
_ROUGH_AFTER = ("多", "余", "几", "来")
# what before a numeral makes it an ordinal, a day or a month's, no value (第三, 初三, 星期三)
_ORDINAL_BEFORE = ("第", "初", "周", "星期", "礼拜", "排名", "No", "no")


# what after a numeral with 点 makes it a time of day, not a decimal (十点零五分, 八点五刻)
_NOT_DECIMAL = ("分", "刻", "钟")


def _grouped(digits: str) -> str:
    """The value of `digits` (a number `_NUMBER` reads) without the marks that group its
    thousands: commas, spaces (1 200), or two dots and more (1.200.000)."""
    digits = digits.replace(",", "").replace(" ", "")
    return digits.replace(".", "") if digits.count(".") > 1 else digits


_SPAN_JOINER = re.compile(r"(?:~|〜|-|–|—|到|至)")


def _span_end(rest: str) -> bool:
    """Whether `rest` (what follows a Chinese numeral) is a span's joiner and its other end
    in a unit (the 到三天 of 两到三天, 至五次 of 三至五次) or in tenths (到九成): the numeral is
    the span's first end."""
    joiner = _SPAN_JOINER.match(rest)
    other = CJK_NUMBER.match(rest, joiner.end()) if joiner else None
    if other is None or other.group(1):
        other = _NUMBER.match(rest, joiner.end()) if joiner else None
    if other is None:
        return False
    unit = rest[other.end():]
    value = chinese_number(other.group(2)) if other.re is CJK_NUMBER else other.group(1)
    return unit_after(unit[1:] if unit.startswith("个") else unit)[2] is not None or \
        unit.startswith(COUNTERS) or \
        value is not None and tenths(value, unit) is not None  # 八到九成


def _in_tenths(text: str, span: tuple[int, int, str, str]) -> tuple[int, int, str, str]:
    """A number's span (`_spans`) with 成 after it read as the share it says (九成 is 90
    followed by %, 八成五 85: `numerals.tenths`), ending after what says it; as it is else."""
    start, end, value, rest = span
    said = tenths(value, rest)
    if said is None:
        return span
    end += said[1]
    return start, end, said[0], "%" + text[end:end + AFTER_CHARS - 1]
