"""Numbers with commas in a ``--where`` value (`kbtools.query.filter_text`): a number grouping
its thousands (``1,000``, ``¥1,000``, ``5,000W``: one value, `one_amount`), one whose comma is
its decimal point (``12,5``) or in Chinese numerals before no unit known (what to write
instead: `written_hint`), and numbers a comma apart that may be read both ways
(``1,000,2,000``: refused, `check_grouping`), or said short with more digits than one
after its magnitude (``1万50``: refused, `check_places`); and whether a filter is written in Chinese, as
its refusals say it (`written_in_chinese`)."""

from __future__ import annotations

import re
from itertools import pairwise

from kbtools.decision.numerals import NUMERAL_CHARS, chinese_number
from kbtools.errors import FilterError
from kbtools.query.filter_numbers import PLACE_AFTER, order_number, placed_whole, quantity
from kbtools.query.wording import is_cjk

# a number with its thousands grouped by commas at a value's start (5,000W, 1，200条): what
# `written_hint` names to write where an order reads no number
_NUMERALS = "".join(sorted(NUMERAL_CHARS))
GROUPED = re.compile(r"\s*([+-]?\d{1,3}(?:[,，]\d{3})+(?:\.\d+)?)(?!\d)")
# a number whose one comma is its decimal point, as much of Europe writes it (12,5 kW; not
# three digits after it: 1,200 groups thousands, above)
DECIMAL_COMMA = re.compile(r"\s*([+-]?\d+)[,，](\d{1,2}|\d{4,})(?![\d,，])")


# a bare value of `=` / `!=` up to the next separator but those grouping a number's thousands
# (¥1,000, 1,000元 of 价格=¥1,000,¥2,000): one amount when it reads as one (`quantity`)
GROUPED_AMOUNT = re.compile(r"[^,，、;；]*?\d(?:[,，]\d{3}(?!\d))+[^,，、;；]*")


# numbers a comma apart with no blank after it (1,000, 1,000,2,000, 1,2,3): each comma may
# group thousands or separate two values (`check_grouping`)
NUMBER_RUN = re.compile(r"(?<![\w.,，])[+-]?\d+(?:[,，]\d+)+(?:\.\d+)?(?![\w.])")


def check_grouping(shown: str, key: str, op: str, value: str) -> None:
    """A FilterError for a bare value of ``=`` / ``!=`` whose numbers a comma apart may be
    read two ways: some comma may group thousands (a number of one to three digits before
    one of exactly three) but the whole is no one number so grouped (``1,000,2,000``,
    ``5,10,100``), or it is one whose every part is a number of three digits as a list
    writes it (``100,200``: 100200, or 100 and 200?). It names both readings to write, in
    Chinese where the filter is written so. ``1,000``, ``2,500``, ``12,050`` (one number:
    `order_number`) and ``1,2,3``, ``12,5`` (a list) are read."""
    if op not in ("=", "!="):
        return
    for m in NUMBER_RUN.finditer(value):
        run = m.group().replace("，", ",")
        parts = run.split(",")
        if order_number(run) is not None:  # 1,000, 2,500: one number; 100,200 a list too?
            if len(parts[0].lstrip("+-")) < 3 or any(p[:1] == "0" for p in parts[1:]):
                continue
        elif not any(1 <= len(a.lstrip("+-")) <= 3 and len(b.split(".")[0]) == 3
                     for a, b in pairwise(parts)):
            continue  # 1,2,3, 12,5: a list
        grouped: list[str] = []
        for a, part in pairwise(["", *parts]):  # a group of three after a number it may group
            if grouped and len(part.split(".")[0]) == 3 and "." not in grouped[-1] and \
                    (grouped[-1] != a or len(a.lstrip("+-")) <= 3):
                grouped[-1] += part
            else:
                grouped.append(part)
        numbers, values = f"{key}{op}{','.join(grouped)}", f"{key}{op}{';'.join(parts)}"
        raise FilterError("bad", f"{shown!r}: " + (
            f"{m.group()} 中的逗号可能是千位分隔，也可能分开几个值；请写 {numbers}（分组的数）"
            f"或 {values}（每个一个值）" if written_in_chinese(key + value) else
            f"the commas of {m.group()} may group thousands or separate values; write "
            f"{numbers} (grouped numbers) or {values} (each a value)"),
            key="grouping_ambiguous", values={"where": shown, "numbers": numbers,
                                              "values": values})


def written_hint(want: str) -> str:
    """What to write for an order's value whose number groups its thousands by commas
    (``5,000W``: ``write 5000W; ``), writes its decimal point as a comma (``12,5kW``: ``write
    12.5kW; ``) or is in Chinese numerals before no unit known (``二十块``: ``write 20块; ``;
    `filter_numbers.in_digits` reads ``十亩``), to begin the one-line refusal with; "" for
    another."""
    m = GROUPED.match(want)
    lead = len(want) - len(want.lstrip(_NUMERALS))  # 十亩; 三点五 of 三点五千瓦 (千瓦 a unit)
    for end in (lead, lead - 1) if m is None and lead > 1 and want[lead - 1] in "千百万" else \
            (lead,) if m is None and lead else ():
        if (number := chinese_number(want[:end])) is not None:
            return f"{want.strip()} is in Chinese numerals, write {number}{want[end:].rstrip()}; "
    if m is None and (d := DECIMAL_COMMA.match(want)) is not None:
        return (f"{want.strip()} has a decimal comma, write "
                f"{d.group(1)}.{d.group(2)}{want[d.end():].rstrip()}; ")
    if m is None:
        return ""
    number = m.group(1).replace(",", "").replace("，", "")
    return f"{want.strip()} groups its thousands, write {number}{want[m.end():].rstrip()}; "


def check_places(shown: str, key: str, op: str, values: list[str]) -> None:
    """A FilterError for a bare value written as a number, 万, 亿, 千 or 百, then two or more
    digits (``1万50``: 10050, or 1万5 said short, 15000?), which would compare as text;
    one digit after is read (``1万5``: `filter_numbers.PLACE_AFTER`)."""
    for value in values:
        if (m := PLACE_AFTER.match(value)) is None or len(m.group(3)) < 2 or \
                (whole := placed_whole(m)) is None:
            continue
        said = f"{key}{op}{whole + int(m.group(3)) * (-1 if whole < 0 else 1)}{value[m.end():]}"
        raise FilterError("bad", f"{shown!r}: " + (
            f"{m.group().strip()} 不是明确的数，请全用数字写，如 {said}" if written_in_chinese(key + value)
            else f"{m.group().strip()} is no number as written; write it in digits, e.g. {said}"),
            key="bad_where", values={"where": shown})


def one_amount(text: str) -> bool:
    """Whether `text`, a bare value up to a comma after a group of three digits
    (`GROUPED_AMOUNT`), is one number or amount grouping its thousands (``1,000``, ``¥1,000``,
    ``1,000元``) rather than values a comma apart."""
    return quantity(text) is not None or order_number(text) is not None


def written_in_chinese(text: str) -> bool:
    """Whether a filter's `text` (its key and value) is written in Chinese, so that its
    refusal is said in Chinese: it holds a CJK character (`kbtools.query.wording.is_cjk`) or
    Chinese punctuation a list is typed with (``，``, ``、``, ``；``)."""
    return any(is_cjk(c) or c in "，、；" for c in text)
