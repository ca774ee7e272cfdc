"""Matching inputs against the rules of a `DecisionTable`: `match_rules` and its `TableResult`.

A row matches when every input cell's condition accepts the given value (numbers with their
units ignored, or converted to the column's when of its family: ``2 years`` in months is
24; text ignoring case and surrounding space). The policy picks among several
matching rows: ``first`` (default) or ``all``. No matching row is a result, not an error:
status ``no_match`` with `NO_MATCH_MESSAGE`; the outputs are never guessed.

Pure: imports `kbtools.decision.conditions`, `column_units`, `model` and `kbtools.errors`.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

from kbtools.decision.cell_text import decimal_comma, normalize_text
from kbtools.decision.clock import CLOCK_UNIT, clock_mismatch, clock_text
from kbtools.decision.column_units import (
    column_unit,
    input_unit_problem,
    number_in,
    overflows,
    parse_number,
    unit_of,
)
from kbtools.decision.conditions import (
    Condition,
    format_number,
    parse_condition,
    tolerance_readings,
)
from kbtools.decision.given import (
    APPROXIMATE_NOTE,
    CONVERTED_NOTE,
    DEPENDS_NOTE,
    Given,
    InputError,
    covers,
    meets,
    near_bound,
    quoted,
    read_given,
)
from kbtools.decision.headers import column_key
from kbtools.decision.model import POLICIES, DecisionTable, find_input, inputs_named
from kbtools.decision.refusals import (
    check_merged_cells,
    check_possible,
    read_inputs,
    span_error,
)
from kbtools.decision.units import chinese_unit, scale, unit_group
from kbtools.decision.weekdays import WEEKDAY_UNIT, day_name, not_a_day, weekday_mismatch
from kbtools.errors import TableError

NO_MATCH_MESSAGE = "no rule matches, needs human review"
# the same said to a Chinese question (`query.answers`; the web page's words too: `serve.i18n`)
NO_MATCH_ZH = "没有匹配的规则，需要人工复核"
# a cell of an input column not given, in a row that takes any value there
NOT_GIVEN_REASON = "not given; any value accepted (* or empty cell)"
NOT_GIVEN_ZH = "未给出；接受任意值（* 或空单元格）"  # the same in Chinese (`CellMatch.reason_in`)
MAX_PLAIN_DIGITS = 30  # a float input is written out without an exponent up to this length


@dataclass(frozen=True)
class CellMatch:
    """One input cell of one row checked against the given value, and why it (not) matched."""

    column: str
    condition: str  # the cell as written
    value: str  # the input value
    matched: bool
    reason: str
    unit: str = ""  # the column's unit the value was converted to ("" when it was not)
    # the number `match_rules` read the value as, in the column's unit (None: not read as one,
    # or not known); what `reason_in` says, not in the JSON (`to_dict`)
    number: float | None = field(default=None, compare=False)

    def reason_in(self, lang: str) -> str:
        """`reason` in `lang` (``en`` or ``zh``; the web page's words), from the cell as written
        and the value as `match_rules` read it (its `number`: 一半 is 50 in a column of %,
        77°F 25 in one of ℃ whose unit only its cells write)."""
        if self.reason == NOT_GIVEN_REASON:
            return NOT_GIVEN_ZH if lang == "zh" else self.reason
        cond = parse_condition(self.condition)
        number = self.number
        if number is None:  # a cell made without its reading: the value read again
            text = read_given(self.value, cond.numeric, column_unit(self.column)).text  # 约25度
            number = number_in(text, self.unit) if self.unit else parse_number(text)
        return cell_reason(cond, self.value, number, self.matched, lang, self.unit)

    def to_dict(self) -> dict[str, Any]:
        """The cell as `kb table eval --json`, the MCP tool and a search's evaluation give it."""
        return {"column": self.column, "condition": self.condition, "value": self.value,
                "matched": self.matched, "reason": self.reason, "unit": self.unit}


@dataclass(frozen=True)
class RowMatch:
    """A row whose every input cell matched, with its outputs."""

    row: int  # 1-based body row
    line: int  # source line (0 when unknown)
    cells: tuple[CellMatch, ...]
    outputs: dict[str, str]
    # the links of its output cells: {column, text, href (as the Markdown parser reads it,
    # percent-encoded), target (the href resolved against the document's folder and decoded;
    # a URL as it is)}
    links: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class TableResult:
    """The outcome of matching inputs against a table; `to_dict()` is the JSON contract."""

    status: str  # "match" | "no_match"
    message: str
    policy: str
    doc: str
    table: DecisionTable
    inputs: dict[str, str]  # column header -> value as given
    matches: tuple[RowMatch, ...]  # every matching row, in table order
    selected: tuple[int, ...]  # rows chosen by the policy
    outputs: tuple[dict[str, str], ...]  # outputs of the selected rows
    table_index: int = 0  # 1-based among the doc's decision tables (0 when not from a doc)

    def to_dict(self) -> dict[str, Any]:
        """The result as `kb table eval --json` and the MCP tool `evaluate_table` return it."""
        return {
            "status": self.status, "message": self.message, "policy": self.policy,
            "doc": self.doc, "table": dict(self.table.summary(), index=self.table_index),
            "inputs": self.inputs,
            "matches": [{"row": m.row, "line": m.line, "outputs": m.outputs,
                         "links": [dict(link) for link in m.links],
                         "cells": [c.to_dict() for c in m.cells]} for m in self.matches],
            "selected": list(self.selected), "outputs": list(self.outputs),
            "citation": self.citation(),
        }

    def citation(self) -> str:
        """``doc:line`` of the first selected row (else of the table); the doc alone if no line."""
        lines = [m.line for m in self.matches if m.row in self.selected and m.line]
        span = f":{lines[0]}" if lines else (f":{self.table.line_start}" if self.table.line_start
                                             else "")
        return f"{self.doc}{span}" if self.doc else span.lstrip(":")


def match_rules(table: DecisionTable, inputs: Mapping[str, str], *, policy: str | None = None,
                doc: str = "", table_index: int = 0,
                synonyms: Mapping[str, Sequence[str]] = {}) -> TableResult:
    """Match `inputs` (column → value) against every row. Never guesses: no row → "no_match".

    `policy` overrides the table's own (``first`` or ``all``). An input column not given is
    left out only when the answer cannot depend on it: every row the policy selects takes any
    value there (``*``), and no row matches whatever it is (no_match); its cells say "not
    given". This is how a search evaluates a question's values, so `kb table eval`, the MCP
    tool, the API and the web form answer as the search results page does. Raises TableError
    when an input names no input column, a missing one decides the answer (or none is
    given), or a numeric column gets a value that is no number; and InputError or TableError
    for what `kbtools.decision.refusals` refuses (a value none of its column's: a date that
    does not exist, several values, a text no row takes, a number its quantity cannot be; a
    range rows split; a merged-looking empty cell deciding the row). A value said roughly
    (约25度), in Chinese numerals (二十五度) or as a range (22-25度) is read as
    `kbtools.decision.given` says. `synonyms` (the knowledge's synonym groups keyed by
    `column_key`) name columns (``temperature`` for 温度(℃)) and text values too.
    """
    policy = policy or table.policy
    if policy not in POLICIES:
        raise TableError(f"policy must be one of {', '.join(POLICIES)}, not '{policy}'",
                         key="table_policy",
                         values={"policy": policy, "policies": ", ".join(POLICIES)})
    where = f"{doc}: {table.label()}" if doc else table.label()
    given = _input_columns(table, inputs, where, synonyms)
    missing = [i for i in table.inputs if i not in given]
    if len(missing) == len(table.inputs):
        raise _missing_error(table, missing, where)
    reads = read_inputs(table, given, where, synonyms)
    numbers = _input_numbers(table, reads, where)
    units = {i: u for i in table.numeric if i in given and scale(
        unit_of(reads[i].text), u := column_unit(table.header[i], (r[i] for r in table.rows)))}
    matches, partial = [], []
    blank = table.blank_rows()
    for n, conds in enumerate(table.conditions, 1):
        if n in blank:
            continue  # an empty line an editor left in the table is no rule
        cells, part = [], False
        for i in table.inputs:
            if i not in given:  # judged below: the row is certain only if it takes any value
                cells.append(CellMatch(table.header[i], table.rows[n - 1][i], "", True,
                                       NOT_GIVEN_REASON))
                continue
            unit = units.get(i, "")
            ok = _check_cell(conds[i], reads[i], numbers[i])
            part = part or (not ok and _partly(conds[i], reads[i]))
            reason = cell_reason(conds[i], given[i], numbers[i], ok, "en", unit)
            cells.append(CellMatch(table.header[i], table.rows[n - 1][i], given[i], ok, reason,
                                   unit, numbers[i]))
        if part and all(c.matched or _partly(conds[i], reads.get(i))
                        for c, i in zip(cells, table.inputs, strict=True)):
            partial.append(n)
        if all(c.matched for c in cells):
            outs = {table.header[j]: table.rows[n - 1][j].strip() for j in table.outputs}
            links = tuple({"column": table.header[c], "text": text, "href": href,
                           "target": link_target(doc, href)}
                          for r, c, text, href in table.links
                          if r == n - 1 and c in table.outputs)
            matches.append(RowMatch(n, table.line_of(n), tuple(cells), outs, links))
    if partial:  # a range some rows hold only part of: the answer depends on the value
        raise span_error(table, reads, [m.row for m in matches], partial, where)
    shown_inputs = {table.header[i]: given[i] for i in table.inputs if i in given}
    if not matches:  # no value of a missing input could make a row match
        return TableResult("no_match", NO_MATCH_MESSAGE, policy, doc, table, shown_inputs, (),
                           (), (), table_index)
    chosen = matches if policy == "all" else matches[:1]
    if any(table.conditions[m.row - 1][i].kind != "any" for m in chosen for i in missing):
        raise _missing_error(table, missing, where)  # the answer depends on a missing value
    check_merged_cells(table, [m.row for m in matches], [m.row for m in chosen],
                       {i: _accepts(reads[i], numbers[i]) for i in given}, where)
    certain = [m for m in matches if all(table.conditions[m.row - 1][i].kind == "any"
                                         for i in missing)]
    message = _match_message(matches, policy) if not missing else _not_given_message(
        chosen, [table.header[i] for i in missing])
    message += _rough_note(table, reads, numbers, chosen)
    converted = [f"{table.header[i]} {reads[i].written.strip()} = {reads[i].text}"
                 for i in table.inputs if i in reads and reads[i].converted]
    message += f" ({CONVERTED_NOTE}: {', '.join(converted)})" if converted else ""
    return TableResult("match", message, policy, doc, table, shown_inputs, tuple(certain),
                       tuple(m.row for m in chosen), tuple(m.outputs for m in chosen),
                       table_index)


def _missing_error(table: DecisionTable, missing: list[int], where: str) -> TableError:
    """The error for input columns not given that the answer depends on."""
    names = [table.header[i] for i in missing]
    return TableError(f"{where}: missing input for column(s) {', '.join(names)}; give e.g. "
                      f"{column_key(names[0])}=VALUE", key="table_missing_input",
                      values={"columns": "、".join(names)})


def _not_given_message(chosen: list[RowMatch], missing: list[str]) -> str:
    """A match made without some inputs, each of which every chosen row takes any value of
    (as search says it of a question's values: `kbtools.query.answers`)."""
    rows = ", ".join(str(m.row) for m in chosen)
    return (f"{'row' if len(chosen) == 1 else 'rows'} {rows} "
            f"{'matches' if len(chosen) == 1 else 'match'}; not given, but any value is "
            f"accepted: {', '.join(missing)}")


def link_target(doc: str, href: str) -> str:
    """Where a link written in document `doc` points, as the knowledge names files: a
    relative target resolved against the document's folder and percent-decoded (``../x.md#a``
    from ``knowledge/crops/y.md`` is ``knowledge/x.md#a``), an anchor alone in `doc` itself;
    a URL or an absolute path as written."""
    path, hash_, anchor = href.partition("#")
    if "://" in path or path.startswith(("/", "mailto:")) or not doc:
        return href
    anchor = f"#{unquote(anchor)}" if hash_ else ""
    if not path:
        return doc + anchor
    return posixpath.normpath(posixpath.join(posixpath.dirname(doc), unquote(path))) + anchor


def _json_kind(value: object) -> str:
    """What a JSON value is, as an agent wrote it (``null``, ``a list``): the inputs come as
    JSON, and "not NoneType" named Python's type for the ``null`` an LLM sends for a value
    it does not know."""
    kinds = ((bool, "a boolean"), (type(None), "null (leave a value not known out)"),
             (list, "a list"), (dict, "an object"))
    return next((said for kind, said in kinds if isinstance(value, kind)),
                type(value).__name__)


def input_value(value: object, name: str = "") -> str:
    """One input given as JSON (API, MCP: a string or a number) as the text `match_rules`
    reads, the one conversion every adapter uses.

    Strings are kept; an int is written out; a float is written as the shortest decimal that
    reads back as exactly that float, without an exponent while that stays short (``1e-07`` →
    ``0.0000001``, ``22.0`` → ``22``), with one beyond (``1e+308``, which `parse_number`
    reads too). TableError for a boolean (``true`` is never 1: a decision must not rest on
    it), NaN or ±infinity, an int beyond the range of a float, and any other type.
    """
    label = f"input '{quoted(name)}'" if name else "an input"
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TableError(f"{label} must be a string or a number, not {_json_kind(value)}")
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            raise TableError(f"{label} is too large a number to compare (beyond the range "
                             "of a float)") from None
        return str(value)
    if not math.isfinite(value):
        raise TableError(f"{label} must be a finite number, not {value}")
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    plain = format(Decimal(repr(value)), "f")
    return plain if len(plain) <= MAX_PLAIN_DIGITS else repr(value)


def _check_cell(cond: Condition, given: Given, number: float | None) -> bool:
    """Whether one cell accepts the value `given` (`number` is its parsed form): a range or
    bound given (`Given.span`) only when the cell holds all of it."""
    if cond.kind == "any":
        return True
    if given.span is not None:
        return cond.numeric and covers(cond, given.span)
    if cond.kind == "text" or number is None:  # text, or a bare number in a text column
        return normalize_text(given.text) == normalize_text(cond.raw)
    return cond.accepts_number(number)


def _partly(cond: Condition, given: Given | None) -> bool:
    """Whether the cell holds some but not all of a range given (`Given.span`)."""
    return given is not None and given.span is not None and cond.numeric and \
        meets(cond, given.span) and not covers(cond, given.span)


def _accepts(given: Given, number: float | None) -> Callable[[Condition], bool]:
    """Whether a cell would accept the value `given` (for `refusals.check_merged_cells`)."""
    return lambda cond: _check_cell(cond, given, number)


def _rough_note(table: DecisionTable, reads: Mapping[int, Given],
                numbers: Mapping[int, float | None], chosen: list[RowMatch]) -> str:
    """`` (approximate value: 温度(℃) 约25度; the answer depends on the exact value: 温度(℃)
    >20)`` for the values given roughly, naming the bound of a chosen row each lies near
    (`given.near_bound`), as a search says it of a question's rough value; "" for none."""
    rough = [i for i in table.inputs if i in reads and reads[i].approximate]
    if not rough:
        return ""
    named = ", ".join(f"{table.header[i]} {reads[i].written.strip()}" for i in rough)
    near = {}
    for i in rough:
        x = numbers[i]
        cond = next((c for m in chosen if x is not None and
                     near_bound(c := table.conditions[m.row - 1][i], x)), None)
        if cond is not None:
            near[table.header[i]] = cond.raw.strip()
    depends = f"; {DEPENDS_NOTE}: " + ", ".join(f"{k} {c}" for k, c in near.items()) \
        if near else ""
    return f" ({APPROXIMATE_NOTE}: {named}{depends})"


def cell_reason(cond: Condition, value: str, number: float | None, ok: bool,
                lang: str = "en", unit: str = "") -> str:
    """Why a cell did (`ok`) or did not accept `value`, in English or (`lang` ``zh``) Chinese;
    `unit`: the column's unit `number` was converted to from the value's (``2 years = 24
    months; 24 is > 12``)."""
    if unit and number is not None and cond.kind != "any":
        said = cell_reason(cond, value, number, ok, lang)
        if lang == "zh":  # 2年 = 24个月, said in Chinese as the rest is (not ``24 months``)
            word = chinese_unit(unit)  # (13800 V: a symbol keeps its space)
            gap = " " if word.isascii() else ""
            return f"{_chinese_value(value)} = {format_number(number)}{gap}{word}；{said}"
        return f"{value.strip()} = {format_number(number)} {unit}; {said}"
    zh, shown = lang == "zh", value.strip()
    if cond.kind == "any":
        return "接受任意值（* 或空单元格）" if zh else "any value accepted (* or empty cell)"
    if cond.numeric and number is None and read_given(value, True).span is not None:
        if zh:  # a range given (22-25度): the cell holds all of it, or not
            return f"“{shown}”的{'每个值都满足' if ok else '并非每个值都满足'} {cond.describe(lang)}"
        return f"'{shown}': {'every' if ok else 'not every'} value of it is {cond.describe()}"
    if cond.kind == "text" or number is None:
        if zh:
            return f"“{shown}”{'等于' if ok else '不等于'}“{cond.raw.strip()}”（文本，不区分大小写）"
        rel = "equals" if ok else "does not equal"
        return f"'{shown}' {rel} '{cond.raw.strip()}' (text, case-insensitive)"
    said = clock_text(number) if cond.clock else format_number(number)  # 9:05, not 545
    said = day_name(number, lang == "zh") if cond.weekday else said  # 周三, not 3
    if zh:
        return f"{said} {'满足' if ok else '不满足'} {cond.describe(lang)}"
    return f"{said} {'is' if ok else 'is not'} {cond.describe()}"


def _chinese_value(value: str) -> str:
    """`value` with the Latin word of its unit in Chinese (``2 years`` → 2年, ``3days`` →
    3天: `chinese_unit`); as written when no Chinese word names its unit (2年, 30 mm)."""
    shown = value.strip()
    unit = unit_of(shown)
    cut = len(shown)
    while cut and shown[cut - 1].isascii() and shown[cut - 1].isalpha():
        cut -= 1
    if not unit.isascii() or shown[cut:].casefold() != unit.casefold() or \
            chinese_unit(unit) == unit:
        return shown
    return shown[:cut].rstrip() + chinese_unit(unit)


def _input_columns(table: DecisionTable, inputs: Mapping[str, str], where: str,
                   synonyms: Mapping[str, Sequence[str]] = {}) -> dict[int, str]:
    """Input column index → value; each input column given once at most, and only those
    (which may be left out is `match_rules`' to judge).
    Two names of one column (``温度`` and ``温度(℃)``, or its number) with different values
    are refused: the last one given silently decided the row."""
    names = ", ".join(table.header[j] for j in table.inputs)
    given: dict[int, str] = {}
    named: dict[int, str] = {}  # column index → the key that gave its value
    for key, value in inputs.items():
        i = find_input(table, key, synonyms)
        shared = inputs_named(table, key) if i is None else []
        if len(shared) > 1:  # 温度 of 棚内温度 and 棚外温度
            which = ", ".join(table.header[j] for j in shared)
            raise TableError(f"{where}: no column '{key}': it names {len(shared)} inputs "
                             f"({which}); give the whole name", key="table_no_column",
                             values={"column": key, "inputs": names})
        if i is None:
            raise TableError(f"{where}: no column '{key}' (inputs are {names})",
                             key="table_no_column", values={"column": key, "inputs": names})
        if i not in table.inputs:
            raise TableError(f"{where}: '{table.header[i]}' is an output column, not an input "
                             f"(inputs are {names})", key="table_output_column",
                             values={"column": table.header[i], "inputs": names})
        if i in given and given[i].strip() != str(value).strip():
            raise TableError(f"{where}: two values for column {table.header[i]}: "
                             f"{named[i]}={given[i]} and {key}={value}; give one",
                             key="table_two_values",
                             values={"column": table.header[i], "first": f"{named[i]}={given[i]}",
                                     "second": f"{key}={value}"})
        given[i], named[i] = str(value), key
    return given


def _input_numbers(table: DecisionTable, reads: Mapping[int, Given],
                   where: str) -> dict[int, float | None]:
    """Each value read as a number (None for text and for a range given); a numeric column
    must get a number or a range, and one that its quantity can be (`given.impossible`)."""
    numbers: dict[int, float | None] = {}
    for i, read in reads.items():
        value = read.text  # as compared; an error quotes it as given unless read roughly
        shown = read.text if read.approximate else read.written
        unit = column_unit(table.header[i], (row[i] for row in table.rows))
        numbers[i] = number_in(value, unit) if i in table.numeric else parse_number(value)
        if i in table.numeric and read.span is not None:  # in the column's unit already
            numbers[i] = None
            ends = [x for x in (read.span.lo, read.span.hi) if math.isfinite(x)]
            if read.span.weekday != (unit == WEEKDAY_UNIT):  # 周一至周三 against 天, or 1-3
                raise InputError(where, table.header[i], shown, unit, said=(
                    weekday_mismatch(unit, False), weekday_mismatch(unit, True)))
            if unit_group(unit) == unit_group("%") and (both := tolerance_readings(value)):
                (a, b), (c, d) = ((format_number(x) for x in r) for r in both)
                raise InputError(where, table.header[i], shown, unit, said=(  # 50±5% in %
                    f"the column is in %, so the tolerance may be a share of the value ({a}-{b}) "
                    f"or points ({c}-{d}): give the range meant",
                    f"这一列以 % 计，公差可能是数值的百分比（{a}-{b}），也可能是百分点（{c}-{d}）："
                    f"请写出所指的范围"))
            if read.span.clock != (unit == CLOCK_UNIT):  # 8-9 against 9:00, or 8:00-9:00 against 小时
                raise InputError(where, table.header[i], shown, unit, said=(
                    clock_mismatch(unit, False), clock_mismatch(unit, True)))
            if _fraction_of_percent(table, i, value, unit, ends):  # 0.85-0.95: as 0.9 is
                raise InputError(where, table.header[i], shown, unit,
                                 said=fraction_range(ends, unit))
            check_possible(table, i, read.written, ends, unit, where)
            continue
        if i in table.numeric and numbers[i] is None and unit == WEEKDAY_UNIT:  # 明天, 周8
            raise InputError(where, table.header[i], shown, unit, said=(
                not_a_day(value, False), not_a_day(value, True)))
        if i in table.numeric and numbers[i] is None and (point := decimal_comma(value)):
            raise InputError(where, table.header[i], shown, unit, said=(  # 1 200,5: 1200.5?
                f"a decimal comma, or two values: write {point} if {point} is meant",
                f"逗号可能是小数点，也可能分隔两个值：若指 {point}，请写 {point}"))
        if overflows(value) or (i in table.numeric and numbers[i] is None):
            raise InputError(where, table.header[i], shown)
        if i in table.numeric and (problem := input_unit_problem(value, unit)):
            # why, of the value as read (1年半 is 1.5年), quoting it as given (30 degrees F)
            raise InputError(where, table.header[i], shown if parse_number(shown) is not None
                             or value.endswith((CLOCK_UNIT, WEEKDAY_UNIT)) else value, unit,  # 9:00
                             said=(problem, input_unit_problem(value, unit, "zh") or problem))
        if i in table.numeric and _fraction_of_percent(table, i, value, unit):
            raise InputError(where, table.header[i], shown, unit, fraction=True)
        if i in table.numeric:
            check_possible(table, i, read.written, [numbers[i] or 0.0], unit, where)
    return numbers


def _fraction_of_percent(table: DecisionTable, column: int, value: str, unit: str,
                         ends: Sequence[float] | None = None) -> bool:
    """Whether `value` looks like a fraction given to a percent column: a number between 0
    and 1 without a unit of its own (``0.9``, as programs write 90 %), or a range whose
    `ends` lie so (``0.85-0.95``), where every bound of the column is 1 or more (``≥85``),
    so no row tells 0.9 % from any other small percent. Read as 0.9 % it would answer
    silently from the lowest band; the caller is asked which."""
    xs = [parse_number(value)] if ends is None else list(ends)
    if not xs or any(x is None or not 0 <= x <= 1 for x in xs) or \
            not any(x is not None and 0 < x < 1 for x in xs) or \
            unit_group(unit) != unit_group("%") or unit_of(value) or \
            ends is not None and ("%" in value or "percent" in value.casefold()):
        return False  # (0.1%-0.3%: a percentage said so)
    bounds = [b for r in table.conditions for b in (r[column].lo, r[column].hi)
              if r[column].numeric and math.isfinite(b) and b != 0]
    return bool(bounds) and all(abs(b) >= 1 for b in bounds)


def fraction_range(ends: Sequence[float], unit: str) -> tuple[str, str]:
    """Why a range of fractions (`_fraction_of_percent`) is refused, English and Chinese:
    what it reads as and what to give for the percentages it may mean."""
    read = "-".join(format_number(x) for x in ends)
    meant = "-".join(format_number(round(x * 100, 9)) for x in ends)
    where, where_zh = ("each end", "两端") if len(ends) > 1 else ("it", "数后")
    return (f"the column is in {unit}, where {read} reads as {read} {unit}; give {meant} for "
            f"{meant} {unit} (or write the unit after {where} if {read} {unit} is meant)",
            f"这一列以 {unit} 计，{read} 会被读作 {read}{unit}；若指 {meant}{unit}，请输入 {meant}"
            f"（确指 {read}{unit} 时在{where_zh}写上单位）")


def _match_message(matches: list[RowMatch], policy: str) -> str:
    rows = ", ".join(str(m.row) for m in matches)
    if len(matches) == 1:
        return f"row {matches[0].row} matches"
    if policy == "first":
        return f"rows {rows} match; policy 'first' applied: row {matches[0].row}"
    return f"rows {rows} match; policy 'all' applied"
