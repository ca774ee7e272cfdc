"""How a question's value was read when it is not the number as typed (`kbtools.query.inputs`
reads the values; an answer says each reading, `kbtools.query.answers`): thousands grouped
by spaces or dots (``1 200``, ``1 200``, ``1.200.000`` → 1200, 1200000), a share of a whole said
in words or as a fraction (一半, 九成, 三分之二, 2/3 → 50 %, 90 %, 66.67 %), a number in Chinese
numerals (二十五点五 → 25.5) and a fraction of one
written for a column of percentages (湿度0.85 → 85 %, when the table's bounds are whole
percentages), and a temperature in the other scale than its column's (77°F → 25°C, converted
as `kb table eval` converts it: `decision.given.in_scale`). A dot that may group thousands or be a decimal point (``1.200``: 1200 or 1.2)
is taken as written only when both readings select the same rows; else the input is left
missing, saying so (`Reading.ambiguous`), since a guess would answer from the wrong row.

Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from kbtools.decision import DecisionTable
from kbtools.decision.column_units import column_unit, number_in
from kbtools.decision.conditions import format_number
from kbtools.decision.given import in_scale, read_given
from kbtools.decision.numerals import NUMERAL_CHARS
from kbtools.query.naming import PERCENT
from kbtools.query.number_spans import BELOW_ZERO
from kbtools.query.values import Number

# the scale said before a number (华氏77度: 77°F), quoted with it
_SCALE_BEFORE = "华氏"
# a number whose one dot may group thousands, as much of Europe writes them, or be a decimal
# point with three decimals (1.200: 1200 or 1.2)
_DOT_THOUSANDS = re.compile(r"-?[1-9]\d{0,2}\.\d{3}")
# digits as typed that group thousands (1 200, 1.200.000; the commas of 1,200 are as usual)
_GROUPED = re.compile(r"-?\d{1,3}(?:(?: \d{3})+|(?:\.\d{3}){2,})(?:\.\d+)?")


@dataclass
class Reading:
    """What `read` found: `read` (input column → (the value as the question typed it, as it
    was read): 1 200 → 1200, 湿度0.85 → 85 %) and `ambiguous` (input column → (as typed, one
    reading, the other): 1.200 → 1.2, 1200, of an input left missing for it)."""

    read: dict[str, tuple[str, str]] = field(default_factory=dict)
    ambiguous: dict[str, tuple[str, str, str]] = field(default_factory=dict)


def read(out: dict[str, str], source: Mapping[str, Number], text: str, typed: str,
         table: DecisionTable) -> Reading:
    """The readings of the values `out` (input column → value given, changed here: a
    fraction given a percent column as its percentage, an ambiguous value taken out), each
    read from the number `source` gives for it in the compacted question `text` (`typed`:
    the same as typed, aligned with it)."""
    found = Reading()
    for column, x in source.items():
        if column not in out or x.range_text or not x.exact:
            continue
        digits, shown = text[x.start:x.end], typed[x.start:x.end] or text[x.start:x.end]
        i = table.header.index(column)
        unit = column_unit(table.header[i], (r[i] for r in table.rows))
        if (degrees := in_scale(out[column], unit)) is not None:  # 77°F to ℃: 25°C, said so
            out[column] = degrees.removesuffix(unit)  # (the number, as other values are)
            start = x.start - len(_SCALE_BEFORE) * text.endswith(_SCALE_BEFORE, 0, x.start)
            found.read[column] = (typed[start:x.after].strip() or x.written, degrees)
        elif _GROUPED.fullmatch(digits):
            found.read[column] = (shown, x.value)
        elif x.unit == PERCENT and not digits.replace(".", "").lstrip("-").isdigit() and \
                not digits.startswith("百分之"):
            found.read[column] = (shown, f"{x.value} %")  # 一半, 九成, 2/3
        elif (share := _fraction_for_percent(x, unit, table, i)) is not None:
            out[column] = share
            found.read[column] = (shown, f"{share} %")
        elif any(ch in NUMERAL_CHARS for ch in digits) and x.unit != PERCENT:
            sign = next((z for z in BELOW_ZERO if x.value.startswith("-") and
                         text.endswith(z, 0, x.start)), "")  # (typed in its script: 零下)
            found.read[column] = (typed[x.start - len(sign):x.end] if sign and typed else shown,
                                  x.value)  # 二十五点五 as 25.5, 零下三 as -3
        elif _DOT_THOUSANDS.fullmatch(digits):
            thousands = digits.replace(".", "")
            rows = [_rows(table, i, unit, out[column].replace(digits, d, 1))
                    for d in (digits, thousands)]
            if rows[0] != rows[1]:
                del out[column]
                found.ambiguous[column] = (shown, format_number(float(digits)), thousands)
    return found


def _fraction_for_percent(x: Number, unit: str, table: DecisionTable, i: int) -> str | None:
    """The percentage a fraction of one (0.85, .5) written with no unit for column `i` in
    percent says, when every finite bound of the column's conditions is a whole percentage of
    1 or more (a table that tells 0.5 % from 1 % is read as written); else None."""
    if x.unit is not None or unit != "%" or "." not in x.value:
        return None
    value = Decimal(x.value)
    if not 0 < value < 1:
        return None
    bounds = [b for row in table.conditions for b in (row[i].lo, row[i].hi)
              if row[i].numeric and abs(b) != float("inf")]
    if not bounds or any(b < 1 or b != int(b) for b in bounds):
        return None
    return format_number(float(value * 100))


def _rows(table: DecisionTable, i: int, unit: str, value: str) -> tuple[int, ...]:
    """The rows whose condition of column `i` (numbers in `unit`) accepts `value` as given."""
    x = number_in(read_given(value, True, unit).text, unit)
    if x is None:
        return ()
    return tuple(n for n, row in enumerate(table.conditions)
                 if not row[i].numeric or row[i].accepts_number(x))
