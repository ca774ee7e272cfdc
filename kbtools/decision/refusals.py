"""The inputs and tables `match_rules` refuses rather than answer from a row that may be wrong.

- values that are no value of their column (`read_inputs`): a date that does not exist
  (``2026-02-30``), several values in one (``E17和E71``: a table answers one at a time), a
  text no row of a text column takes (a growth stage the table does not list: its values are
  named), a range in another unit than its column's;
- a number its quantity cannot be (`check_possible`: 湿度 130%, -300度);
- a range given that rules split (`span_error`: 18-25度 over ``15-20`` and ``>20``);
- an empty cell under a filled one that makes a chosen row match where the row above's
  value would not (`check_merged_cells`): an editor's merged-looking cell read as "any
  value" picked the wrong row of several.

Each raises `given.InputError` (a value: worded in English and Chinese) or `TableError` (the
table, with the `key` and `values` the web page's Chinese words take: `serve.i18n.ERRORS`),
naming the column and what it takes. Pure: imports `kbtools.decision` modules and
`kbtools.errors`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal

from kbtools.decision.cell_text import normalize_text
from kbtools.decision.column_units import (
    cell_units,
    column_unit,
    input_unit_problem,
    overflows,
    parse_number,
)
from kbtools.decision.conditions import Condition
from kbtools.decision.given import (
    Given,
    InputError,
    bad_date,
    covers,
    impossible,
    read_given,
    several,
    whole,
)
from kbtools.decision.headers import column_key
from kbtools.decision.model import DecisionTable
from kbtools.decision.units import counts_whole, scale
from kbtools.errors import TableError

SHOWN_VALUES = 12  # the values of a text column an error names at most


def read_inputs(table: DecisionTable, given: Mapping[int, str], where: str,
                synonyms: Mapping[str, Sequence[str]] = {}) -> dict[int, Given]:
    """Each given value read for its column (`given.read_given`); InputError for a value that
    is none of its column's (see the module doc). A text value that is a synonym of one of its
    column's values (`synonyms`, keyed by `column_key`: 大田 = 露地) is read as that value."""
    out: dict[int, Given] = {}
    for i, value in given.items():
        column = table.header[i]
        date = bad_date(value)
        if date is not None:
            raise InputError(where, column, value, said=date)
        read = read_given(value, i in table.numeric,
                          column_unit(column, (row[i] for row in table.rows)))
        if i not in table.numeric and not overflows(value):  # too large: `matching` says so
            read = _check_text_value(table, i, read, where, synonyms)
        elif parse_number(read.text) is None and read.span is None and several(value):
            raise _several_error(where, column, value)
        elif read.span is not None:
            read = _span_in_column_unit(table, i, read, where)
            if read.span is not None and counts_whole(column_key(column)):  # <4天: ≤3 days
                read = replace(read, span=whole(read.span))
        out[i] = read
    return out


def _several_error(where: str, column: str, value: str) -> InputError:
    parts = several(value)
    return InputError(where, column, value, said=(
        f"{len(parts)} values ({', '.join(parts)}): a table answers one value at a time; "
        f"evaluate each ({column}={parts[0]}, then {column}={parts[1]})",
        f"给了 {len(parts)} 个值（{'、'.join(parts)}）：决策表一次只判定一个值，请逐个查"
        f"（{column}={parts[0]}，再查 {column}={parts[1]}）"))


def _rows(table: DecisionTable) -> list[int]:
    """The 0-based body rows that are rules (a row of empty cells is none)."""
    blank = table.blank_rows()
    return [n for n in range(len(table.rows)) if n + 1 not in blank]


def _check_text_value(table: DecisionTable, i: int, read: Given, where: str,
                      synonyms: Mapping[str, Sequence[str]]) -> Given:
    """A value of a text column whose every row names its value (none takes any value): it
    must be one of them, or a synonym of one (read as it), else InputError naming them
    (灌浆期 where the rows say 苗期, 拔节期, 扬花期; ``E17和E71``: two values). A number in a
    column of numbers (档位 1, 2, 3) is left to match no row, as a numeric column's is."""
    value = read.text
    conds = [table.conditions[n][i] for n in _rows(table)]
    number = parse_number(value)
    if any(c.kind == "any" for c in conds) or any(_text_accepts(c, value, number) for c in conds):
        return read
    if number is not None and any(c.kind == "number" for c in conds):
        return read  # a number between a column's listed numbers: no rule, as in a numeric one
    same = {c.raw.strip() for c in conds if c.kind == "text" and column_key(value) in
            {column_key(t) for t in synonyms.get(column_key(c.raw), ())}}
    if len(same) == 1:
        return replace(read, text=same.pop())
    if several(value):
        raise _several_error(where, table.header[i], value)
    shown = list(dict.fromkeys(c.raw.strip() for c in conds))
    more = "…" if len(shown) > SHOWN_VALUES else ""
    shown = shown[:SHOWN_VALUES]
    raise InputError(where, table.header[i], value, said=(
        f"not a value this column takes (its rows take: {', '.join(shown)}{more})",
        f"不是这一列的取值（可取：{'、'.join(shown)}{more}）"))


def _text_accepts(cond: Condition, value: str, number: float | None) -> bool:
    """Whether a cell of a text column accepts `value` (as `matching` compares it)."""
    if cond.numeric and number is not None:
        return cond.accepts_number(number)
    return normalize_text(value) == normalize_text(cond.raw)


def _span_in_column_unit(table: DecisionTable, i: int, read: Given, where: str) -> Given:
    """A range given (22-25度, 1-2 years) with its ends in the column's unit: converted by the
    exact factor of its family, else InputError for a unit known to differ (72-80°F in ℃)."""
    assert read.span is not None
    unit = column_unit(table.header[i], (row[i] for row in table.rows))
    said = next((u for u in cell_units(read.text) if u), "")
    problem = input_unit_problem(f"1{said}", unit) if said else None
    if problem is not None:
        raise InputError(where, table.header[i], read.written, said=(
            problem, input_unit_problem(f"1{said}", unit, "zh") or problem))
    factor = scale(said, unit) if said else None
    if factor is None:
        return read

    def scaled(x: float) -> float:
        return x if not math.isfinite(x) else float(Decimal(repr(x)) * factor[0] / factor[1])

    return replace(read, span=replace(read.span, lo=scaled(read.span.lo),
                                      hi=scaled(read.span.hi)))


def check_possible(table: DecisionTable, i: int, value: str, xs: Sequence[float], unit: str,
                   where: str) -> None:
    """InputError when a number given column `i` (`xs`, in its `unit`) is none its quantity
    can be (`given.impossible`), nor one its own cells reach."""
    cells = [(c.lo, c.hi) for n in _rows(table) if (c := table.conditions[n][i]).numeric]
    why = impossible(list(xs), unit, cells)
    if why is not None:
        raise InputError(where, table.header[i], value, unit, said=why)


def span_error(table: DecisionTable, reads: Mapping[int, Given], matched: Sequence[int],
               partial: Sequence[int], where: str) -> InputError:
    """The error for a range given that rows hold only parts of (1-based `partial`; `matched`
    rows hold all of it): each row that applies to some of it, with its cell and first
    output, so the caller sees which rules the range spans rather than one picked."""
    i = next(i for i in table.inputs if i in reads and (span := reads[i].span) is not None and any(
        not covers(table.conditions[n - 1][i], span) for n in partial))
    rows = sorted({*matched, *partial})
    out = table.outputs[0]
    parts = [(n, table.rows[n - 1][i].strip() or "*", table.rows[n - 1][out].strip())
             for n in rows]
    en = ", ".join(f"row {n} ({cell} → {res})" for n, cell, res in parts)
    zh = "、".join(f"第 {n} 行（{cell} → {res}）" for n, cell, res in parts)
    said = (f"a range over more than one rule: {en} each apply to part of it; give one value",
            f"这个范围跨了多条规则：{zh}各管其中一部分，请给一个确定的值") if len(rows) > 1 else \
        (f"a range only part of which a rule holds: {en} applies to part of it, no row to "
         "the rest; give one value",
         f"这个范围只有一部分落在规则里：{zh}，其余部分没有规则，请给一个确定的值")
    return InputError(where, table.header[i], reads[i].written, said=said, rows=tuple(rows))


def check_merged_cells(table: DecisionTable, matched: Sequence[int], chosen: Sequence[int],
                       accepts: Mapping[int, Callable[[Condition], bool]], where: str) -> None:
    """TableError when several rows match and a chosen one (1-based) matches only through an
    empty input cell under a filled one whose value the input does not satisfy: the author
    most likely meant "as above" (a merged cell in Typora, Obsidian or a spreadsheet), which
    Markdown cannot say, so the row picked may be the wrong one. `accepts`: per given input
    column, whether a cell accepts its value."""
    if len(matched) < 2:
        return
    for r in chosen:
        for i, accept in accepts.items():
            if table.rows[r - 1][i].strip():
                continue
            above = next((k for k in range(r - 1, 0, -1) if table.rows[k - 1][i].strip()), 0)
            if above and not accept(table.conditions[above - 1][i]):
                rows = ", ".join(str(n) for n in matched)
                cell = table.rows[above - 1][i].strip()
                raise TableError(
                    f"{where}: row {r} leaves {table.header[i]} empty under '{cell}' (row "
                    f"{above}); an empty cell means any value, not \"as above\", so rows {rows} "
                    f"all match: write the value again (or * for any value) in row {r}",
                    line=table.line_of(r) or None, key="table_merged_cell",
                    values={"column": table.header[i], "cell": cell, "row": str(r),
                            "above": str(above), "rows": "、".join(str(n) for n in matched)})
