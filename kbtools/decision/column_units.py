"""The units cells and input values are written in: what unit a column's numbers are in, the
units a cell writes, an input value as a number (in its column's unit) and the units refused.

Units are ignored when a cell is read as a condition (`conditions`): in headers (``温度(℃)``
is addressed as ``温度``, see `column_key`), in cells (``≥2000 h``, ``85%``) and in input values
(``20℃``, see `parse_number`), but an input value in another unit of its column's family is
converted (``2 years`` in months is 24, `number_in`), or refused (``72°F`` against ℃,
``90%ABC``: `input_unit_problem`), and a table whose cells write a unit other than their
column's is no rule (`unit_conflict`). Input values may also be written with an exponent
(``1e-7``, ``2.5E3``: what programs print); one beyond the range of a float (``1e400``, a
401-digit value) is refused (`overflows`).

Every pattern here is matched from the start of one normalised value (`re.match`) or on a
cell's last characters (`_UNIT_TAIL`) with bounded unit lengths, so its cost is linear.

Pure: imports `kbtools.decision.conditions` (the number and unit forms, a cell's condition),
`numerals`, `units` (the units known), `cell_text`, `clock`, `weekdays`, `headers`,
`tolerance` and `words`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from functools import lru_cache

from kbtools.decision.cell_text import normalize_cell
from kbtools.decision.clock import CLOCK_UNIT, clock_mismatch
from kbtools.decision.conditions import (
    CELL_MEMORY,
    INTERVAL_FORM,
    NUM,
    RANGE_FORM,
    TOLERANCE_FORM,
    UNIT,
    WHOLE,
    finite,
    parse_condition,
    read_numerals,
    split_qualifier,
)
from kbtools.decision.headers import header_unit_start
from kbtools.decision.numerals import MAGNITUDE_TIMES, magnified
from kbtools.decision.tolerance import own_unit, percent_of_value
from kbtools.decision.units import (
    EN_NAMED_UNITS,
    GLUED_UNITS,
    GROUP_OF,
    MAGNITUDE_WORDS,
    MAGNITUDES,
    NAMED_UNITS,
    bare_degrees,
    degrees_fit,
    glued_problem,
    rates_agree,
    scale,
)
from kbtools.decision.weekdays import WEEKDAY_UNIT, weekday_mismatch
from kbtools.decision.words import symbolic

_EXP = r"(?:[eE][+-]?\d+)?"  # inputs only: 1e-07, 2.5E+3
# an input may start at its point, as a phone's decimal keypad types 0.5 (.5, -.5), or end
# at it (25., the point typed and no decimal after it): the point is the number's, not a
# unit "." (25.℉ was 25 in a ℃ column, its unit ".°F" unknown; 25. ℃ no number); a cell
# is written by an author, whose 0.5 the table shows
_RE_INPUT = re.compile(rf"^((?:{WHOLE}\.(?![\d.])|(?:{NUM}|[+-]?\.\d+){_EXP}))\s*{UNIT}$")
_RE_UNIT_TAIL = re.compile(rf"\s*+{UNIT}\s*+")  # what follows a cell's last number
_UNIT_TAIL = 40  # characters: the longest tail `_RE_UNIT_TAIL` is tried on


def magnitude_unit(unit: str, column: str) -> bool:
    """Whether a cell's `unit` (what follows its number) multiplies the number rather than
    naming a unit (``2k``, ``3千``, ``9成``, ``2 thousand``): not a unit `UNIT_GROUPS` knows
    (``千克``, ``kg``), nor the `column`'s own, nor ``K`` (kelvin: ``300 K``)."""
    key = unit.casefold()
    if not key or unit == "K" or key == column.casefold() or key in GROUP_OF:
        return False
    return key in MAGNITUDES or key[0] in MAGNITUDES or key.startswith(MAGNITUDE_WORDS)


def parse_number(text: str) -> float | None:
    """An input value as a number: ``20``, ``20℃``, ``85 %``, ``2000 h``, ``1e-7`` → the
    number; anything else, and a number too large for a float (see `overflows`), → None."""
    m = _RE_INPUT.match(normalize_cell(text))
    return finite(m.group(1)) if m else None


def overflows(text: str) -> bool:
    """Whether `text` is written as a number but lies beyond the range of a float (``1e400``,
    a 401-digit value): no comparison with it can be trusted."""
    m = _RE_INPUT.match(normalize_cell(text))
    return m is not None and finite(m.group(1)) is None


def number_in(value: str, column: str) -> float | None:
    """`value` as a number in unit `column` (`column_unit`): converted when written in another
    unit of its family (``2 years`` in months is 24: `units.scale`), else `parse_number`."""
    x = parse_number(value)
    factor = scale(unit_of(value), column) if x is not None else None
    if x is None or factor is None:
        return x
    return float(Decimal(repr(x)) * factor[0] / factor[1])


def unit_of(text: str) -> str:
    """The unit of a number as written (what follows it), normalised, without the measure
    word 个 before a unit (2个小时 is in 小时); "" when none."""
    m = _RE_INPUT.match(normalize_cell(text))
    unit = m.string[m.end(1):].strip() if m else ""
    return unit[1:] if unit[:1] == "个" and unit not in GROUP_OF and unit[1:] in GROUP_OF \
        else unit


def cell_unit(cell: str) -> str:
    """The unit a numeric cell writes after its last number (``≥2000 h`` → ``h``, ``≥10 m²``
    → ``m2``)."""
    text = _symbol_form(cell)
    if (m := TOLERANCE_FORM.match(text)) and percent_of_value(m):  # 200 kPa±5%: in kPa
        return own_unit(m)
    text = text.removesuffix("以上").removesuffix("以下")
    return _unit_after_last_number(text)


def _unit_after_last_number(text: str) -> str:
    """What follows the last number of `text` when it is a unit (`UNIT`: ``m2`` of ``10m2``
    is the unit, not a number); "" when none. Only the last characters are tried, a unit
    being short."""
    for i in range(max(0, len(text) - _UNIT_TAIL), len(text)):
        if text[i].isdigit() and (i + 1 == len(text) or not text[i + 1].isdigit()) and \
                _RE_UNIT_TAIL.fullmatch(text, i + 1):
            return text[i + 1:].strip()
    return ""


def cell_units(cell: str) -> tuple[str, ...]:
    """The units a numeric cell writes after its numbers: both ends of a range (``60°F-70°F``
    → ``°F``, ``°F``), else the one after its last number (`cell_unit`); "" where none."""
    text = _symbol_form(cell)
    m = INTERVAL_FORM.match(text)
    if m is not None:  # [60°F, 70°F), [5, 8) ℃
        first = text[m.end(2):m.start(3)].strip().rstrip(",;").strip()
        return first, " ".join(text[m.end(3):].replace(m.group(4), " ", 1).split())
    m = RANGE_FORM.match(text)
    if m is None:
        return (cell_unit(cell),)
    between = text[m.end(1):m.start(2)].strip().rstrip("-~〜–—至到").strip()
    return between, cell_unit(cell)


def unit_conflict(header: str, cells: Sequence[str]) -> tuple[int, str, str] | None:
    """The first numeric cell written in a unit known to differ from its column's (``<60°F``
    under ``温度(℃)``, ``≥50mm`` under ``株高(cm)``; with no unit in the header, one differing
    from the first unit its cells write): (0-based row, the cell's unit, the column's unit);
    None when every unit agrees or is not one `UNIT_GROUPS` knows. Such a table is no rule:
    a cell's unit is ignored, not converted, so its number would be compared as if in the
    column's unit."""
    column = column_unit(header, cells)
    want = GROUP_OF.get(column.casefold())
    if want is None:
        return None
    for n, cell in enumerate(cells):
        if not parse_condition(cell).numeric:
            continue
        for unit in cell_units(cell):
            group = GROUP_OF.get(unit.casefold())
            if group is not None and group != want:
                return n, unit, column
    return None


def column_unit(header: str, cells: Iterable[str] = ()) -> str:
    """The unit a column's numbers are in: its header's (``温度(℃)`` → ``℃``, ``Temp °C``,
    ``Vibration mm/s``: `header_unit_start`), else a symbol its header ends with (``温度℃``),
    else one its header names (``运行小时`` → ``小时``, ``Operating hours`` → ``hours``:
    its last word), else the first known unit its cells
    write; `CLOCK_UNIT` before all when its cells write times of day (<9:00, 08:00-17:30)."""
    cells = tuple(cells)
    if any(":" in c and parse_condition(c).clock for c in cells):
        return CLOCK_UNIT
    if any(parse_condition(c).weekday for c in cells):  # 周一至周五, Mon-Fri: days of the week
        return WEEKDAY_UNIT
    text = normalize_cell(header)
    bracketed = text[header_unit_start(text):].strip(" ,").strip("()[]/").strip()
    if bracketed:
        return bracketed
    glued = next((s for s in GLUED_UNITS if text.casefold().endswith(s) and len(text) > len(s)), "")
    if glued:
        return text[-len(glued):]
    named = next((unit for end, unit in NAMED_UNITS if text.endswith(end)), "") or \
        next((w for w in EN_NAMED_UNITS if text.casefold().split()[-1:] == [w]), "")
    return named or next((u for c in cells if (u := cell_unit(c)).casefold() in GROUP_OF), "")


def input_unit_problem(value: str, column: str, lang: str = "en") -> str | None:
    """Why number `value` cannot be compared in a column in unit `column` (`column_unit`)
    though it parses: its unit multiplies it (``2万``, ``2k``: read as 2), differs from the
    column's (``72°F`` against ``℃``, ``4周`` against ``天``, ``25 degrees`` against ``%``),
    or is a symbol with text after it (``90%ABC``). None when none: a unit of the column's
    family converts (`number_in`); a spelling not in `UNIT_GROUPS` is not judged."""
    unit, zh = unit_of(value), lang == "zh"
    key, col = "开尔文" if unit == "K" else unit.casefold(), column.casefold()  # 300 K: kelvin
    if (key == WEEKDAY_UNIT) != (col == WEEKDAY_UNIT):  # 周三 against 天, 3 against 周一至周五
        return weekday_mismatch(column, zh)
    if (key == CLOCK_UNIT) != (col == CLOCK_UNIT):  # 9:00 against 小时, 3小时 against 9:00
        return clock_mismatch(column, zh)
    other = (f"单位是 {unit}，这一列是 {column}，请换算成 {column} 后输入" if zh else
             f"it is in '{unit}', the column in '{column}'; give the value in {column}")
    agree = rates_agree(key, col)  # 公斤每亩 and kg/亩 are one rate, kg/亩 converts to kg/ha
    if agree is not None:
        return None if agree else other
    if not key or key == col or GROUP_OF.get(key, -1) == GROUP_OF.get(col, -2) or \
            key == col[:1] and key in MAGNITUDE_TIMES:  # 3万 under 费用(万元): 3 of its 万元
        return None
    if key not in GROUP_OF and (key in MAGNITUDES or key[0] in MAGNITUDES
                                 or key.startswith(MAGNITUDE_WORDS)):
        return (f"“{unit}”会放大数值，请写出完整的数" if zh else
                f"'{unit}' multiplies the number; write it out in full")
    if col in GROUP_OF and (key in GROUP_OF and scale(key, col) is None or
                            bare_degrees(key) and not degrees_fit(col)):  # 25 degrees: of %
        return other
    return glued_problem(unit, zh)  # 90%ABC: not 90 % with ABC ignored


@lru_cache(maxsize=CELL_MEMORY)
def _symbol_form(cell: str) -> str:
    """A cell as `cell_unit` and `cell_units` read its units: normalised, its qualifier
    (含) cut, its numerals and words in figures and symbols."""
    return symbolic(read_numerals(split_qualifier(magnified(normalize_cell(cell)))[0]))
