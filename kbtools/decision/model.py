"""A table read as rules: `DecisionTable`, and `build_table`, which reads (header, rows) into one.

A table is a decision table when a ``<!-- decision: inputs=A,B; outputs=C,D -->`` comment
precedes it (the annotation, read by `parse_annotation`), or, unannotated, when its leading
columns hold only numeric conditions with at least one comparison or range: those columns are
the inputs and the others the outputs (``运行小时 | 保养项目`` with ``≥2000 | 更换润滑油``).
Reference tables whose range columns come later (``药剂 | 每亩用量 20～25 mL``) are therefore
not rules. Each body row is one rule.

Pure: imports `kbtools.decision.conditions`, `column_units` and `kbtools.errors`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kbtools.decision.cell_text import NONE_CELLS, decimal_comma, normalize_cell, normalize_text
from kbtools.decision.column_units import cell_units, column_unit, magnitude_unit, unit_conflict
from kbtools.decision.conditions import (
    Condition,
    format_number,
    parse_condition,
    tolerance_readings,
)
from kbtools.decision.headers import MIN_PART as MIN_PART
from kbtools.decision.headers import column_key, header_unit_start
from kbtools.decision.units import unit_group
from kbtools.errors import TableError, plural

POLICIES = ("first", "all")
# what an input cell writes for "the same as the cell above", which a table of rules cannot
# say (each row is read alone; an empty cell is any value)
DITTO_CELLS = frozenset(("同上", "上同", "仝上", "〃", '"', "”", "ditto", "do.", "as above",
                         "same as above"))
ANNOTATION_KEYS = ("inputs", "outputs", "policy", "name")

Conditions = tuple[tuple[Condition, ...], ...]  # per body row, per column


@dataclass(frozen=True)
class DecisionTable:
    """A table read as rules. Rows are padded/validated by `build_table`."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    inputs: tuple[int, ...]  # column indexes (0-based)
    outputs: tuple[int, ...]
    numeric: tuple[int, ...]  # input columns holding numeric conditions
    conditions: Conditions
    row_lines: tuple[int, ...] = ()
    line_start: int = 0
    line_end: int = 0
    heading_path: tuple[str, ...] = ()
    name: str = ""  # csv / decision annotation name
    policy: str = "first"
    annotated: bool = False
    # the links written in cells: (0-based body row, column, link text, target as written),
    # so an output keeps where it points (`[手册](../x.md#a)` reads 手册 as text)
    links: tuple[tuple[int, int, str, str], ...] = ()
    # the titles of the Obsidian callouts holding the table, outer ones first (`> [!note]
    # 过滤器更换判定`): what it is about, as its heading path says (`query.wording`)
    callouts: tuple[str, ...] = ()

    def line_of(self, row: int) -> int:
        """Source line of 1-based body row `row` (0 when unknown)."""
        return self.row_lines[row - 1] if 0 < row <= len(self.row_lines) else 0

    def blank_rows(self) -> frozenset[int]:
        """The 1-based body rows whose every cell is empty: an empty line an editor left in
        the table, which is no rule (it would take any input): `match_rules` skips them."""
        return frozenset(n for n, row in enumerate(self.rows, 1)
                         if not any(c.strip() for c in row))

    def without_blank_rows(self) -> DecisionTable:
        """The table without its `blank_rows` (what `kb check` looks for gaps in)."""
        blank = self.blank_rows()
        if not blank:
            return self
        keep = [n for n in range(1, len(self.rows) + 1) if n not in blank]
        return replace(self, rows=tuple(self.rows[n - 1] for n in keep),
                       conditions=tuple(self.conditions[n - 1] for n in keep),
                       row_lines=tuple(self.line_of(n) for n in keep),
                       links=tuple((keep.index(r + 1), c, t, h) for r, c, t, h in self.links
                                   if r + 1 in keep))

    def label(self) -> str:
        """How messages name the table: its name, else its heading path, else its line."""
        where = " > ".join(self.heading_path)
        return self.name or where or f"table at line {self.line_start}"

    def to_record(self) -> dict[str, Any]:
        """The table as JSON-ready data (what a build ships on the table's chunk, so search
        evaluates it without parsing Markdown); `from_record` reads it back."""
        return {"header": list(self.header), "rows": [list(r) for r in self.rows],
                "inputs": list(self.inputs), "outputs": list(self.outputs),
                "numeric": list(self.numeric), "row_lines": list(self.row_lines),
                "line_start": self.line_start, "line_end": self.line_end,
                "heading_path": list(self.heading_path), "name": self.name,
                "policy": self.policy, "annotated": self.annotated,
                "links": [list(link) for link in self.links]} | \
            ({"callouts": list(self.callouts)} if self.callouts else {})

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> DecisionTable:
        """The table `to_record` wrote, read by this kbtools' rules: its cells' conditions are
        parsed again (which is cheap) and what follows from them is decided again (the
        numeric columns, an inferred table's inputs, units and numeric cells checked as
        `build_table` does), so a record shipped by an older build reads as a build of the
        same cells now would. TableError when the record is not one, or its cells are no
        decision table by these rules."""
        try:
            header = tuple(str(h) for h in record["header"])
            rows = tuple(tuple(str(c) for c in r) for r in record["rows"])
            inputs, outputs = (tuple(int(i) for i in record[k]) for k in ("inputs", "outputs"))
            if any(len(r) != len(header) for r in rows) or \
                    any(not 0 <= i < len(header) for c in (inputs, outputs) for i in c):
                raise ValueError("cells and columns do not fit the header")
            site = _Site(int(record["line_start"]), tuple(int(n) for n in record["row_lines"]))
            line_end = int(record["line_end"])
            heading_path = tuple(str(h) for h in record["heading_path"])
            name, policy = str(record["name"]), str(record["policy"])
            annotated = bool(record["annotated"])
            links = tuple((int(r), int(c), str(t), str(h))
                          for r, c, t, h in record.get("links", ()))
            if any(not (0 <= r < len(rows) and 0 <= c < len(header)) for r, c, _, _ in links):
                raise ValueError("a link outside the table")
            callouts = tuple(str(t) for t in record.get("callouts", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise TableError(f"decision table record unreadable: {exc}") from None
        conditions = tuple(tuple(parse_condition(c) for c in r) for r in rows)
        columns = _Columns(inputs, outputs, policy, name) if annotated else \
            _inferred_columns(header, conditions, name)
        table = None
        if rows and columns.inputs and columns.outputs and columns.policy in POLICIES:
            table = _rules(header, rows, conditions, columns, site, annotated=annotated,
                           line_end=line_end, heading_path=heading_path)
        if table is None:
            raise TableError("decision table record: not a decision table by this kbtools' "
                             "rules")
        return replace(table, links=links, callouts=callouts)

    def summary(self) -> dict[str, Any]:
        """Name, place, inputs, outputs, row count and policy (the JSON of `kb table list`)."""
        return {"name": self.name, "heading_path": list(self.heading_path),
                "line_start": self.line_start, "line_end": self.line_end,
                "inputs": [self.header[i] for i in self.inputs],
                "outputs": [self.header[i] for i in self.outputs],
                "rows": len(self.rows), "policy": self.policy, "annotated": self.annotated}


def parse_annotation(text: str) -> dict[str, Any]:
    """``inputs=A,B; outputs=C; policy=all; name=x`` → dict of lists/strings."""
    out: dict[str, Any] = {}
    for part in re.split(r"[;；]", normalize_cell(text)):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in ANNOTATION_KEYS:
            raise TableError(f"decision annotation: cannot read '{part.strip()}' "
                             "(expected inputs=…; outputs=…; policy=first|all; name=…)")
        if key in ("inputs", "outputs"):
            out[key] = [v.strip() for v in re.split(r"[,，、]", value) if v.strip()]
        else:
            out[key] = value.strip()
    return out


def find_column(header: tuple[str, ...], name: str) -> int | None:
    """Column index for a header name (units optional, case-insensitive) or 1-based index."""
    key = column_key(name)
    for i, h in enumerate(header):
        if column_key(h) == key or normalize_text(h) == normalize_text(name):
            return i
    text = name.strip()
    if text.isdigit() and 1 <= int(text) <= len(header):
        return int(text) - 1
    return None


def name_parts(key: str) -> set[str]:
    """The parts of a column's name by which a question or a caller may also name it:
    `key` is the header without its unit, case-folded, words one space apart. A CJK name's
    leading and trailing runs of at least MIN_PART characters (湿度 for 相对湿度); an English
    name's leading and trailing whole words, longer than MIN_PART characters (``cycles``
    for ``Cycles of concentration``, ``temperature`` for ``Basin temperature``). A part that
    also names another input names neither (`find_input`, `query.inputs.find_inputs`). A
    name of both scripts (土壤pH, EC值, CO2浓度) is cut where the script changes, into parts of
    at least MIN_PART characters (``ph`` and 土壤 for 土壤pH)."""
    parts: set[str] = set()
    chars = [(n, _cjk(ch)) for n, ch in enumerate(key) if not ch.isspace()]
    cuts = [n for (_, a), (n, b) in zip(chars, chars[1:], strict=False) if a != b]
    if cuts and any(_cjk(ch) for ch in key) and any(ch.isascii() and ch.isalnum() for ch in key):
        halves = {p.strip() for n in cuts for p in (key[:n], key[n:])}
        parts |= {p for p in halves if len(p.replace(" ", "")) >= MIN_PART}
    elif len(key) > MIN_PART and all(_cjk(ch) for ch in key):
        parts |= {key[:n] for n in range(MIN_PART, len(key))}
        parts |= {key[n:] for n in range(1, len(key) - MIN_PART + 1)}
    elif key.isascii() and len(words := key.split()) > 1:
        parts |= {" ".join(words[:n]) for n in range(1, len(words))}
        parts |= {" ".join(words[n:]) for n in range(1, len(words))}
        parts = {p for p in parts if len(p) > MIN_PART}
    return parts


def _cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


def _spaced_key(text: str) -> str:
    """`text` without its unit, case-folded, its words one space apart."""
    norm = normalize_cell(text)
    return " ".join((norm[:header_unit_start(norm)].strip() or norm).casefold().split())


def find_input(table: DecisionTable, name: str,
               synonyms: Mapping[str, Sequence[str]] = {}) -> int | None:
    """The column `name` names in a caller's inputs (`kb table eval`, MCP `evaluate_table`):
    the column `find_column` finds, else the one input whose name `name` is a part of
    (`name_parts`: ``cycles`` for ``Cycles of concentration``), as a question names it, else
    the one input it is a synonym of (`synonyms`: the knowledge's ``_synonyms.txt`` keyed by
    `column_key`, as `kbtools.query.answers.input_synonyms` makes it: ``temperature`` for
    温度(℃) and 温度 for ``Temperature (°C)`` when the file has 温度 = temperature)."""
    i = find_column(table.header, name)
    if i is not None:
        return i
    named = inputs_named(table, name)
    if not named and synonyms:
        key = column_key(name)
        named = [j for j in table.inputs if key in synonym_names(table.header[j], synonyms)]
    return named[0] if len(named) == 1 else None


def inputs_named(table: DecisionTable, name: str) -> list[int]:
    """The input columns whose name `name` is a part of (`name_parts`)."""
    key = _spaced_key(name)
    return [j for j in table.inputs if key in name_parts(_spaced_key(table.header[j]))]


def synonym_names(header: str, synonyms: Mapping[str, Sequence[str]]) -> set[str]:
    """The names (as `column_key` writes them) the synonyms give a column: the other terms of
    the group of its name or of a part of it (湿度 of 相对湿度), and their parts (``humidity``
    of ``relative humidity``)."""
    own = {column_key(header)} | {column_key(p) for p in name_parts(_spaced_key(header))}
    terms = [t for n in own for t in synonyms.get(n, ())]
    return {column_key(t) for t in terms} | \
        {column_key(p) for t in terms for p in name_parts(_spaced_key(t))}


# --------------------------------------------------------------------------- build_table

@dataclass(frozen=True)
class _Site:
    """Where the table being built sits: names it in errors and gives each error its line."""

    line_start: int
    row_lines: tuple[int, ...]

    @property
    def label(self) -> str:
        return f"table at line {self.line_start}" if self.line_start else "table"

    def error(self, message: str, row: int = 0) -> TableError:
        """`message` about the table (row 0) or about 1-based body row `row`."""
        line = self.row_lines[row - 1] if 0 < row <= len(self.row_lines) else self.line_start
        return TableError(f"{self.label}: {message}", line=line or None)


@dataclass(frozen=True)
class _Columns:
    """What the table's columns are for: which are inputs and outputs, and its policy/name."""

    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    policy: str
    name: str


def build_table(header: Sequence[str], rows: Iterable[Sequence[str]], *,
                decision: Mapping[str, Any] | str | None = None,
                row_lines: Sequence[int] = (), line_start: int = 0, line_end: int = 0,
                heading_path: Sequence[str] = (), name: str = "") -> DecisionTable | None:
    """Read (header, rows) as a decision table.

    With a ``decision`` annotation (its text, or the dict `parse_annotation` makes of it) the
    named columns are used and any problem raises TableError. Without one, the leading
    numeric-condition columns become inputs; None is returned when there is none (it is not a
    decision table).
    """
    site = _Site(line_start, tuple(row_lines))
    cols = tuple(" ".join(str(h).split()) for h in header)
    annotation = _read_annotation(decision, site)
    if not cols or not any(cols):
        if annotation is not None:
            raise site.error("decision table has no header")
        return None
    body = _body_rows(cols, rows, strict=annotation is not None, site=site)
    if annotation is None and not _first_column_input(body):
        return None  # no leading input column: read no further cell (a long fault-code table)
    conditions = tuple(tuple(parse_condition(c) for c in r) for r in body)
    if annotation is not None:
        columns = _annotated_columns(cols, annotation, name, site)
    else:
        columns = _inferred_columns(cols, conditions, name)
        if not columns.inputs or not columns.outputs or not body:
            return None
    if not body:
        raise site.error("decision table has no rows")
    return _rules(cols, body, conditions, columns, site, annotated=annotation is not None,
                  line_end=line_end, heading_path=tuple(heading_path))


def _rules(header: tuple[str, ...], body: tuple[tuple[str, ...], ...], conditions: Conditions,
           columns: _Columns, site: _Site, *, annotated: bool, line_end: int,
           heading_path: tuple[str, ...]) -> DecisionTable | None:
    """The table whose columns are decided: its numeric columns, checked (units, numeric
    cells); TableError for an annotated table that fails, None for an inferred one."""
    numeric = tuple(i for i in columns.inputs if _numeric_column(conditions, i))
    conflict = _unit_conflict(header, body, numeric, site)
    if conflict is not None:
        if annotated:
            raise conflict
        return None  # inferred: its numbers would be compared in the wrong unit
    _check_ditto_cells(header, body, columns.inputs, site)
    _check_numeric_columns(header, conditions, columns.inputs, numeric, site)
    return DecisionTable(header=header, rows=body, inputs=columns.inputs,
                         outputs=columns.outputs, numeric=numeric, conditions=conditions,
                         row_lines=site.row_lines, line_start=site.line_start,
                         line_end=line_end, heading_path=heading_path, name=columns.name,
                         policy=columns.policy, annotated=annotated)


def _read_annotation(decision: Mapping[str, Any] | str | None,
                     site: _Site) -> Mapping[str, Any] | None:
    """The annotation as a mapping (parsed when given as text); None when unannotated."""
    if not isinstance(decision, str):
        return decision
    try:
        return parse_annotation(decision)
    except TableError as exc:
        raise site.error(exc.message) from None


def _body_rows(header: tuple[str, ...], rows: Iterable[Sequence[str]], *, strict: bool,
               site: _Site) -> tuple[tuple[str, ...], ...]:
    """Rows as text cells, padded or cut to the header's width (`strict`: wrong width raises)."""
    body: list[tuple[str, ...]] = []
    for n, row in enumerate(rows, 1):
        cells = tuple(str(c) for c in row)
        if len(cells) != len(header) and strict:
            raise site.error(f"row {n} has {plural(len(cells), 'cell')}, the header has "
                             f"{len(header)}",
                             row=n)
        body.append((cells + ("",) * len(header))[: len(header)])
    return tuple(body)


def _annotated_columns(header: tuple[str, ...], annotation: Mapping[str, Any], name: str,
                       site: _Site) -> _Columns:
    """Inputs, outputs, policy and name as the annotation declares them; TableError if wrong."""
    keys = [column_key(h) for h in header]
    dup = [k for k in set(keys) if keys.count(k) > 1]
    if dup:
        raise site.error(f"duplicate column name(s) {', '.join(sorted(dup))}")
    inputs = _resolve(header, annotation.get("inputs") or [], site)
    if not inputs:
        raise site.error("decision annotation names no inputs")
    outputs = _resolve(header, annotation.get("outputs") or [], site) or tuple(
        i for i in range(len(header)) if i not in inputs)
    both = set(inputs) & set(outputs)
    if both:
        raise site.error(f"column(s) {', '.join(header[i] for i in sorted(both))} "
                         "are both input and output")
    if not outputs:
        raise site.error("decision table has no output column")
    policy = str(annotation.get("policy") or "first")
    if policy not in POLICIES:
        raise site.error(f"policy must be first or all, not '{policy}'")
    return _Columns(inputs, outputs, policy, str(annotation.get("name") or name))


def _resolve(header: tuple[str, ...], names: Sequence[str], site: _Site) -> tuple[int, ...]:
    out = []
    for name in names:
        i = find_column(header, name)
        if i is None:
            raise site.error(f"decision annotation names column '{_short(name)}', which is not "
                             f"in the header ({_short(', '.join(_short(h) for h in header))})")
        out.append(i)
    return tuple(out)


def _short(text: str, limit: int = 60) -> str:
    """Author text quoted in a message, cut to `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _inferred_columns(header: tuple[str, ...], conditions: Conditions, name: str) -> _Columns:
    """Unannotated: the leading run of columns holding only numeric conditions are inputs."""
    lead = []
    for i in range(len(header)):
        if not _numeric_column(conditions, i) or any(_never_input(r[i]) for r in conditions):
            break
        lead.append(i)
    inputs = tuple(lead)
    outputs = tuple(i for i in range(len(header)) if i not in inputs)
    return _Columns(inputs, outputs, "first", name)


def _never_input(c: Condition) -> bool:
    """A cell that keeps its column from being an inferred input: text, or a range running
    backwards (a clock or weekday span may: 22:00-6:00)."""
    return c.kind == "text" or (c.kind == "range" and c.lo > c.hi and not (c.clock or c.weekday))


def _first_column_input(body: Sequence[Sequence[str]]) -> bool:
    """Whether an unannotated table's first column can be an input (`_inferred_columns`),
    read down to its first cell that says it cannot: a table whose first column is codes or
    names is no decision table, whatever its other cells hold."""
    rangeish = False
    for row in body:
        c = parse_condition(row[0])
        if _never_input(c):
            return False
        rangeish = rangeish or (c.kind != "any" and c.is_rangeish)
    return rangeish


def _numeric_column(conditions: Conditions, i: int) -> bool:
    """Column `i` has a comparison or range in some row (bare numbers alone do not count)."""
    cs = [r[i] for r in conditions if r[i].kind != "any"]
    return bool(cs) and any(c.is_rangeish for c in cs)


def _unit_conflict(header: tuple[str, ...], body: tuple[tuple[str, ...], ...],
                   numeric: tuple[int, ...], site: _Site) -> TableError | None:
    """The error for the first numeric cell written in another unit than its column's
    (`column_units.unit_conflict`), or one whose number a magnitude multiplies (``≥2k``:
    read as 2; `column_units.magnitude_unit`); None when there is none."""
    for i in numeric:
        cells = [r[i] for r in body]
        column = column_unit(header[i], cells)
        for n, cell in enumerate(cells):
            if column[:1] in ("万", "亿") and ("万" in cell or "亿" in cell):
                return site.error(f"row {n + 1}, column {header[i]}: '{cell.strip()}': the "
                                  f"column is in {column} already: write the number without "
                                  f"{column[:1]}", row=n + 1)
            read = tolerance_readings(cell) if unit_group(column) == unit_group("%") else None
            if read is not None:  # 50±5% under 湿度(%): 47.5-52.5, or 45-55?
                (a, b), (c, d) = ((format_number(x) for x in r) for r in read)
                return site.error(f"row {n + 1}, column {header[i]}: '{cell.strip()}': the "
                                  f"column is in %, so the tolerance may be a share of the value "
                                  f"({a}-{b}) or points ({c}-{d}): write the range meant",
                                  row=n + 1)
            unit = next((u for u in cell_units(cell) if magnitude_unit(u, column)), None)
            if unit is not None and parse_condition(cell).numeric:
                return site.error(f"row {n + 1}, column {header[i]}: '{cell.strip()}': '{unit}' "
                                  "multiplies the number, which a bound cannot say: write the "
                                  "number out in full", row=n + 1)
        found = unit_conflict(header[i], cells)
        if found is not None:
            n, unit, column = found
            return site.error(f"row {n + 1}, column {header[i]}: '{body[n][i].strip()}' is in "
                              f"{unit}, the column in {column} (units are not converted: "
                              f"write every number of the column in one unit)",
                              row=n + 1)
    return None


def _check_ditto_cells(header: tuple[str, ...], body: tuple[tuple[str, ...], ...],
                       inputs: tuple[int, ...], site: _Site) -> None:
    """An input cell may not say "as above" (``同上``, ``〃``, ``ditto``): it would be
    compared as that text, so the row it was meant to continue matches no input."""
    for i in inputs:
        above = ""
        for n, row in enumerate(body, 1):
            cell = normalize_cell(row[i])
            if cell.casefold() not in DITTO_CELLS:
                above = cell or above
                continue
            again = f"write '{_short(above)}' again" if above else "write the value"
            raise site.error(f"row {n}, column {header[i]}: '{cell}' means \"as above\", which a "
                             f"decision table cannot say (each row is a rule of its own): "
                             f"{again}", row=n)


# a cell opening with a comparison and a digit: a bound, which a text condition cannot be
_BOUND_LIKE = re.compile(r"^(?:<=|>=|<|>|≤|≥|≦|≧)\s*(?=\d)")


def _check_numeric_columns(header: tuple[str, ...], conditions: Conditions, inputs:
                           tuple[int, ...], numeric: tuple[int, ...], site: _Site) -> None:
    """A numeric column may not hold free text or a range written backwards; no input column
    a cell that bounds a number the way no cell is read (``<1 200,5``, ``≥1,5``)."""
    for i in inputs:
        cell = next((c.raw.strip() for c in (r[i] for r in conditions) if c.kind == "text" and
                     _BOUND_LIKE.match(normalize_cell(c.raw))), None)
        n = next((n for n, r in enumerate(conditions, 1) if r[i].raw.strip() == cell), 0)
        if cell is not None and (point := decimal_comma(_BOUND_LIKE.sub("", normalize_cell(cell)))):
            raise site.error(f"row {n}, column {header[i]}: '{cell}': a decimal comma, or two "
                             f"numbers: write {point} if {point} is meant", row=n)
        if cell is not None:
            raise site.error(f"row {n}, column {header[i]}: '{cell}' is not a numeric "
                             "condition (expected <x, ≤x, x-y, >x, ≥x, x or *)", row=n)
    for i in numeric:
        for n, r in enumerate(conditions, 1):
            c = r[i]
            if c.kind == "text" and normalize_text(c.raw) in NONE_CELLS:
                raise site.error(f"row {n}, column {header[i]}: '{c.raw.strip()}' is no number: "
                                 "write 0 if it means none, or * if the row takes any value",
                                 row=n)
            if c.kind == "text":
                raise site.error(f"row {n}, column {header[i]}: '{c.raw.strip()}' is not a "
                                 "numeric condition (expected <x, ≤x, x-y, >x, ≥x, x or *)",
                                 row=n)
            if c.kind == "range" and c.lo > c.hi and not (c.clock or c.weekday):  # 22:00-6:00
                raise site.error(f"row {n}, column {header[i]}: range '{c.raw.strip()}' runs "
                                 "backwards (write the smaller number first)", row=n)
