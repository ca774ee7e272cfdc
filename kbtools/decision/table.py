"""Decision tables: Markdown tables read as rules, evaluated against inputs.

A table is a decision table when a ``<!-- decision: inputs=A,B; outputs=C,D -->`` comment
precedes it, or (by default, unannotated) when its leading columns hold only numeric
conditions with at least one comparison or range: those columns are the inputs and the
others the outputs (``运行小时 | 保养项目`` with ``≥2000 | 更换润滑油``). Reference tables
whose range columns come later (``药剂 | 每亩用量 20～25 mL``) are therefore not rules. Each body row is one rule; a row matches when
every input cell's condition accepts the given value.

Cell conditions (after Unicode NFKC, so full-width ``＜``/``～``/``％`` work too):

    <15  <=15  ≤15  >20  >=85  ≥85        comparisons
    15-20  15~20  15–20  15至20  15到20   closed ranges: both ends inclusive
    20 / 20℃                              numeric equality
    2000小时以上 / 10以下                  ≥2000 / ≤10
    * or empty                            any value
    anything else                         text, equal ignoring case and surrounding space

Units are ignored: in headers (``温度(℃)`` is addressed as ``温度``), in cells (``≥2000 h``,
``85%``) and in input values (``20℃``). Because ranges are closed and comparisons strict,
adjacent rows ``<15`` / ``15-20`` / ``>20`` tile the number line exactly: 15 and 20 fall in
the middle row, 14.9 in the first, 20.1 in the last.

The pure core works on `DecisionTable` (header + rows); `decision_tables(src)` adapts the
tables found by `kbtools.markdown.doctree`. Overlap/gap analysis for ``kb check`` (`analyse`,
`table_findings`) lives in `kbtools.check.decision_tables`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbtools.errors import TableError

NO_MATCH_MESSAGE = "no rule matches, needs human review"
POLICIES = ("first", "all")

_NUM = r"[+-]?\d+(?:\.\d+)?"
_UNIT = r"[^\d\s<>=≤≥≦≧~〜\-–—至到,;:*|]{0,12}"
_RANGE_SEP = r"(?:-|~|〜|–|—|至|到)"
_RE_CMP = re.compile(rf"^(<=|>=|<|>|≤|≥|≦|≧)\s*({_NUM})\s*{_UNIT}$")
_RE_RANGE = re.compile(rf"^({_NUM})\s*{_UNIT}\s*{_RANGE_SEP}\s*({_NUM})\s*{_UNIT}$")
_RE_NUMBER = re.compile(rf"^({_NUM})\s*{_UNIT}$")
_RE_SUFFIX = re.compile(rf"^({_NUM})\s*{_UNIT}?(以上|以下)$")
_HEADER_UNIT = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\]|/.*)\s*$")
_OPS = {"<": ("lt", "<"), ">": ("gt", ">"), "<=": ("le", "≤"), "≤": ("le", "≤"),
        "≦": ("le", "≤"), ">=": ("ge", "≥"), "≥": ("ge", "≥"), "≧": ("ge", "≥")}


def _nfkc(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def normalize_text(text: str) -> str:
    """Text as compared: NFKC, whitespace collapsed, case-folded."""
    return _nfkc(text).casefold()


def column_key(header: str) -> str:
    """A header without its unit: ``温度(℃)`` / ``温度（℃）`` / ``温度 [℃]`` → ``温度``."""
    text = _nfkc(header)
    stripped = _HEADER_UNIT.sub("", text).strip()
    return (stripped or text).casefold().replace(" ", "")


def parse_number(text: str) -> float | None:
    """``20``, ``20℃``, ``85 %``, ``2000 h`` → the number; anything else → None."""
    m = _RE_NUMBER.match(_nfkc(text))
    return float(m.group(1)) if m else None


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


# --------------------------------------------------------------------------- conditions

@dataclass(frozen=True)
class Condition:
    """One cell as a condition. Numeric conditions are intervals over the reals."""

    raw: str
    kind: str  # any | text | number | lt | le | gt | ge | range
    lo: float = -math.inf
    hi: float = math.inf
    lo_incl: bool = False
    hi_incl: bool = False
    text: str = ""  # normalised text for kind == "text"

    @property
    def numeric(self) -> bool:
        return self.kind not in ("any", "text")

    @property
    def is_rangeish(self) -> bool:
        """A comparison or range (a bare number alone does not make a column numeric)."""
        return self.kind in ("lt", "le", "gt", "ge", "range")

    def accepts_number(self, x: float) -> bool:
        if self.kind == "any":
            return True
        lo_ok = x > self.lo or (self.lo_incl and x == self.lo)
        hi_ok = x < self.hi or (self.hi_incl and x == self.hi)
        return lo_ok and hi_ok

    def describe(self) -> str:
        if self.kind == "any":
            return "any value"
        if self.kind == "text":
            return f"text '{self.raw.strip()}'"
        if self.kind == "number":
            return f"= {_fmt(self.lo)}"
        if self.kind == "range":
            return f"in {_fmt(self.lo)}–{_fmt(self.hi)} (both ends inclusive)"
        if self.kind in ("lt", "le"):
            return f"{'<' if self.kind == 'lt' else '≤'} {_fmt(self.hi)}"
        return f"{'>' if self.kind == 'gt' else '≥'} {_fmt(self.lo)}"


def parse_condition(cell: str) -> Condition:
    """Parse one cell. Never fails: whatever is not a number form is a text condition."""
    raw = cell
    text = _nfkc(cell)
    if text in ("", "*"):
        return Condition(raw, "any")
    m = _RE_CMP.match(text)
    if m:
        kind, _ = _OPS[m.group(1)]
        x = float(m.group(2))
        if kind in ("lt", "le"):
            return Condition(raw, kind, hi=x, hi_incl=kind == "le")
        return Condition(raw, kind, lo=x, lo_incl=kind == "ge")
    m = _RE_SUFFIX.match(text)
    if m:
        x = float(m.group(1))
        if m.group(2) == "以上":
            return Condition(raw, "ge", lo=x, lo_incl=True)
        return Condition(raw, "le", hi=x, hi_incl=True)
    m = _RE_RANGE.match(text)
    if m:
        lo, hi = float(m.group(1)), float(m.group(2))
        return Condition(raw, "range", lo=lo, hi=hi, lo_incl=True, hi_incl=True)
    m = _RE_NUMBER.match(text)
    if m:
        x = float(m.group(1))
        return Condition(raw, "number", lo=x, hi=x, lo_incl=True, hi_incl=True)
    return Condition(raw, "text", text=text.casefold())


# --------------------------------------------------------------------------- tables

@dataclass(frozen=True)
class DecisionTable:
    """A table read as rules. Rows are padded/validated by `build_table`."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    inputs: tuple[int, ...]  # column indexes (0-based)
    outputs: tuple[int, ...]
    numeric: tuple[int, ...]  # input columns holding numeric conditions
    conditions: tuple[tuple[Condition, ...], ...]  # per row, per column
    row_lines: tuple[int, ...] = ()
    line_start: int = 0
    line_end: int = 0
    heading_path: tuple[str, ...] = ()
    name: str = ""  # csv / decision annotation name
    policy: str = "first"
    annotated: bool = False

    def line_of(self, row: int) -> int:
        """Source line of 1-based body row `row` (0 when unknown)."""
        return self.row_lines[row - 1] if 0 < row <= len(self.row_lines) else 0

    def label(self) -> str:
        where = " > ".join(self.heading_path)
        return self.name or where or f"table at line {self.line_start}"

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "heading_path": list(self.heading_path),
                "line_start": self.line_start, "line_end": self.line_end,
                "inputs": [self.header[i] for i in self.inputs],
                "outputs": [self.header[i] for i in self.outputs],
                "rows": len(self.rows), "policy": self.policy, "annotated": self.annotated}


def parse_annotation(text: str) -> dict[str, Any]:
    """``inputs=A,B; outputs=C; policy=all; name=x`` → dict of lists/strings."""
    out: dict[str, Any] = {}
    for part in re.split(r"[;；]", _nfkc(text)):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in ("inputs", "outputs", "policy", "name"):
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


def build_table(header: list[str] | tuple[str, ...], rows: list[list[str]] | tuple,
                *, decision: dict[str, Any] | str | None = None,
                row_lines: tuple[int, ...] | list[int] = (), line_start: int = 0,
                line_end: int = 0, heading_path: tuple[str, ...] | list[str] = (),
                name: str = "") -> DecisionTable | None:
    """Read (header, rows) as a decision table.

    With a ``decision`` annotation the named columns are used and any problem raises
    TableError. Without one, the leading numeric-condition columns become inputs; None is
    returned when there is none (it is not a decision table).
    """
    header = tuple(" ".join(str(h).split()) for h in header)
    where = f"table at line {line_start}" if line_start else "table"
    if isinstance(decision, str):
        try:
            decision = parse_annotation(decision)
        except TableError as exc:
            raise TableError(f"{where}: {exc.message}", line=line_start or None) from None
    annotated = decision is not None
    if not header or not any(header):
        if annotated:
            raise TableError(f"{where}: decision table has no header", line=line_start or None)
        return None
    dup = [h for h in set(map(column_key, header)) if list(map(column_key, header)).count(h) > 1]
    body: list[tuple[str, ...]] = []
    for n, row in enumerate(rows, 1):
        cells = tuple(str(c) for c in row)
        if len(cells) != len(header) and annotated:
            line = row_lines[n - 1] if n <= len(row_lines) else line_start
            raise TableError(f"{where}: row {n} has {len(cells)} cells, the header has "
                             f"{len(header)}", line=line or None)
        body.append((cells + ("",) * len(header))[: len(header)])
    conditions = tuple(tuple(parse_condition(c) for c in r) for r in body)

    def numeric_col(i: int) -> bool:
        cs = [r[i] for r in conditions if r[i].kind != "any"]
        return bool(cs) and any(c.is_rangeish for c in cs)

    if annotated:
        assert isinstance(decision, dict)
        if dup:
            raise TableError(f"{where}: duplicate column name(s) {', '.join(sorted(dup))}",
                             line=line_start or None)
        inputs = _resolve(header, decision.get("inputs") or [], where, line_start)
        if not inputs:
            raise TableError(f"{where}: decision annotation names no inputs",
                             line=line_start or None)
        outputs = _resolve(header, decision.get("outputs") or [], where, line_start) or tuple(
            i for i in range(len(header)) if i not in inputs)
        both = set(inputs) & set(outputs)
        if both:
            raise TableError(f"{where}: column(s) {', '.join(header[i] for i in sorted(both))} "
                             "are both input and output", line=line_start or None)
        if not outputs:
            raise TableError(f"{where}: decision table has no output column",
                             line=line_start or None)
        policy = str(decision.get("policy") or "first")
        if policy not in POLICIES:
            raise TableError(f"{where}: policy must be first or all, not '{policy}'",
                             line=line_start or None)
        name = str(decision.get("name") or name)
    else:
        lead = []  # the leading run of columns holding only numeric conditions
        for i in range(len(header)):
            if not numeric_col(i) or any(r[i].kind == "text" or (r[i].kind == "range" and
                                         r[i].lo > r[i].hi) for r in conditions):
                break
            lead.append(i)
        inputs = tuple(lead)
        outputs = tuple(i for i in range(len(header)) if i not in inputs)
        if not inputs or not outputs or not body:
            return None
        policy = "first"
    if not body:
        raise TableError(f"{where}: decision table has no rows", line=line_start or None)
    numeric = tuple(i for i in inputs if numeric_col(i))
    for i in numeric:  # a numeric column may not hold free text
        for n, r in enumerate(conditions, 1):
            c = r[i]
            if c.kind == "text":
                line = row_lines[n - 1] if n <= len(row_lines) else line_start
                raise TableError(f"{where}: row {n}, column {header[i]}: '{c.raw.strip()}' is "
                                 "not a numeric condition (expected <x, ≤x, x-y, >x, ≥x, x or *)",
                                 line=line or None)
            if c.kind == "range" and c.lo > c.hi:
                line = row_lines[n - 1] if n <= len(row_lines) else line_start
                raise TableError(f"{where}: row {n}, column {header[i]}: range '{c.raw.strip()}' "
                                 "runs backwards (write the smaller number first)",
                                 line=line or None)
    return DecisionTable(header=header, rows=tuple(body), inputs=inputs, outputs=outputs,
                         numeric=numeric, conditions=conditions, row_lines=tuple(row_lines),
                         line_start=line_start, line_end=line_end,
                         heading_path=tuple(heading_path), name=name, policy=policy,
                         annotated=annotated)


def _resolve(header: tuple[str, ...], names: list[str], where: str, line: int) -> tuple[int, ...]:
    out = []
    for name in names:
        i = find_column(header, name)
        if i is None:
            raise TableError(f"{where}: decision annotation names column '{name}', which is not "
                             f"in the header ({', '.join(header)})", line=line or None)
        out.append(i)
    return tuple(out)


# --------------------------------------------------------------------------- evaluation

@dataclass(frozen=True)
class CellMatch:
    column: str
    condition: str  # the cell as written
    value: str  # the input value
    matched: bool
    reason: str


@dataclass(frozen=True)
class RowMatch:
    row: int  # 1-based body row
    line: int  # source line (0 when unknown)
    cells: tuple[CellMatch, ...]
    outputs: dict[str, str]


@dataclass(frozen=True)
class TableResult:
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
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "message": self.message, "policy": self.policy,
            "doc": self.doc, "table": dict(self.table.summary(), index=self.table_index),
            "inputs": self.inputs,
            "matches": [{"row": m.row, "line": m.line, "outputs": m.outputs,
                         "cells": [vars(c) for c in m.cells]} for m in self.matches],
            "selected": list(self.selected), "outputs": list(self.outputs),
            "citation": self.citation(),
        }

    def citation(self) -> str:
        lines = [m.line for m in self.matches if m.row in self.selected and m.line]
        span = f":{lines[0]}" if lines else (f":{self.table.line_start}" if self.table.line_start
                                             else "")
        return f"{self.doc}{span}" if self.doc else span.lstrip(":")


def _check_cell(cond: Condition, value: str, number: float | None) -> tuple[bool, str]:
    shown = value.strip()
    if cond.kind == "any":
        return True, "any value accepted (* or empty cell)"
    if cond.kind == "text" or number is None:  # text, or a bare number in a text column
        ok = normalize_text(value) == normalize_text(cond.raw)
        rel = "equals" if ok else "does not equal"
        return ok, f"'{shown}' {rel} '{cond.raw.strip()}' (text, case-insensitive)"
    ok = cond.accepts_number(number)
    return ok, f"{_fmt(number)} {'is' if ok else 'is not'} {cond.describe()}"


def evaluate(table: DecisionTable, inputs: dict[str, str], *, policy: str | None = None,
             doc: str = "", table_index: int = 0) -> TableResult:
    """Evaluate a decision table. Never guesses: no matching row → status "no_match"."""
    policy = policy or table.policy
    if policy not in POLICIES:
        raise TableError(f"policy must be one of {', '.join(POLICIES)}, not '{policy}'")
    where = f"{doc}: " if doc else ""
    given: dict[int, str] = {}
    for key, value in inputs.items():
        i = find_column(table.header, key)
        if i is None:
            raise TableError(f"{where}{table.label()}: no column '{key}' (inputs are "
                             f"{', '.join(table.header[j] for j in table.inputs)})")
        if i not in table.inputs:
            raise TableError(f"{where}{table.label()}: '{table.header[i]}' is an output column, "
                             f"not an input (inputs are "
                             f"{', '.join(table.header[j] for j in table.inputs)})")
        given[i] = str(value)
    missing = [table.header[i] for i in table.inputs if i not in given]
    if missing:
        raise TableError(f"{where}{table.label()}: missing input for column(s) "
                         f"{', '.join(missing)}; give e.g. {column_key(missing[0])}=VALUE")
    numbers: dict[int, float | None] = {}
    for i, value in given.items():
        numbers[i] = parse_number(value)
        if i in table.numeric and numbers[i] is None:
            raise TableError(f"{where}{table.label()}: input {table.header[i]}='{value}' is not a "
                             "number, and this column holds numeric conditions")
    matches = []
    for n, conds in enumerate(table.conditions, 1):
        cells = []
        for i in table.inputs:
            ok, reason = _check_cell(conds[i], given[i], numbers[i])
            cells.append(CellMatch(table.header[i], table.rows[n - 1][i], given[i], ok, reason))
        if all(c.matched for c in cells):
            outs = {table.header[j]: table.rows[n - 1][j].strip() for j in table.outputs}
            matches.append(RowMatch(n, table.line_of(n), tuple(cells), outs))
    shown_inputs = {table.header[i]: given[i] for i in table.inputs}
    if not matches:
        return TableResult("no_match", NO_MATCH_MESSAGE, policy, doc, table, shown_inputs, (),
                           (), (), table_index)
    chosen = matches if policy == "all" else matches[:1]
    rows = ", ".join(str(m.row) for m in matches)
    if len(matches) == 1:
        message = f"row {matches[0].row} matches"
    elif policy == "first":
        message = f"rows {rows} match; policy 'first' applied: row {matches[0].row}"
    else:
        message = f"rows {rows} match; policy 'all' applied"
    return TableResult("match", message, policy, doc, table, shown_inputs, tuple(matches),
                       tuple(m.row for m in chosen), tuple(m.outputs for m in chosen),
                       table_index)


# --------------------------------------------------------------------------- documents

def _annotation(annotations: Any, key: str) -> Any:
    if not annotations:
        return None
    value = annotations.get(key) if isinstance(annotations, dict) else None
    return value


def _raw_width(line: str) -> int:
    """Cells in a table row as written (the parser pads short rows and drops extra cells)."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return len(re.split(r"(?<!\\)\|", text))


def _from_parsed(t: Any, lines: tuple[str, ...] = ()) -> DecisionTable | None:
    ann = getattr(t, "annotations", None) or {}
    decision = _annotation(ann, "decision")
    if decision is not None and not isinstance(decision, (str, dict)):
        decision = str(decision)
    row_lines = tuple(getattr(t, "row_lines", ()) or ())
    if decision is not None and lines:
        for n, line in enumerate(row_lines, 1):
            width = _raw_width(lines[line - 1]) if 0 < line <= len(lines) else len(t.header)
            if width != len(t.header):
                raise TableError(f"table at line {t.line_start}: row {n} has {width} cells, the "
                                 f"header has {len(t.header)}", line=line)
    name = str(_annotation(ann, "csv") or "")
    return build_table(list(t.header), [list(r) for r in t.rows], decision=decision,
                       row_lines=row_lines, line_start=t.line_start, line_end=t.line_end,
                       heading_path=tuple(t.heading_path), name=name)


def _source(doc: Any) -> Any:
    from kbtools.corpus import SourceDoc, decode, parse_source

    if isinstance(doc, SourceDoc):
        return doc
    path = Path(doc)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TableError(f"cannot read: {exc.strerror}", path=str(path)) from None
    return parse_source(decode(raw)[0], path, path.as_posix())


def _doc_tables(src: Any) -> list[DecisionTable | TableError]:
    """Decision tables in document order; a malformed annotated table is its TableError."""
    from kbtools.markdown.doctree import parse

    parsed = parse(src)
    out: list[DecisionTable | TableError] = []
    for t in parsed.tables():
        try:
            dt = _from_parsed(t, parsed.lines)
        except TableError as exc:
            out.append(TableError(exc.message, path=src.rel, line=exc.line))
            continue
        if dt is not None:
            out.append(dt)
    return out


def decision_tables(src: Any) -> list[DecisionTable]:
    """The decision tables of a document (SourceDoc or path); TableError if one is malformed."""
    out = []
    for t in _doc_tables(_source(src)):
        if isinstance(t, TableError):
            raise t
        out.append(t)
    return out


def select_table(tables: list[Any], table: str | int | None,
                 doc: str = "") -> tuple[int, DecisionTable]:
    """Pick one table by 1-based index, annotation/CSV name or heading. Returns (index, table).

    `tables` may hold TableError entries (malformed tables): choosing one raises it.
    """
    def label(t: Any) -> str:
        return f"malformed table at line {t.line}" if isinstance(t, TableError) else t.label()

    def chosen(n: int) -> tuple[int, DecisionTable]:
        if isinstance(tables[n - 1], TableError):
            raise tables[n - 1]
        return n, tables[n - 1]

    listing = "; ".join(f"{n}: {label(t)}" for n, t in enumerate(tables, 1))
    if not tables:
        raise TableError("no decision table in this document", path=doc or None)
    if table is None or str(table).strip() == "":
        if len(tables) == 1:
            return chosen(1)
        raise TableError(f"{len(tables)} decision tables; choose one with --table ({listing})",
                         path=doc or None)
    text = str(table).strip()
    if text.isdigit():
        n = int(text)
        if 1 <= n <= len(tables):
            return chosen(n)
        raise TableError(f"no decision table {n} (there are {len(tables)}: {listing})",
                         path=doc or None)
    key = normalize_text(text)
    bare = key.removesuffix(".csv")
    good = [(n, t) for n, t in enumerate(tables, 1) if not isinstance(t, TableError)]
    for n, t in good:
        if t.name and normalize_text(t.name).removesuffix(".csv") == bare:
            return n, t
    for n, t in good:
        path = [normalize_text(h) for h in t.heading_path]
        if path and (path[-1] == key or " > ".join(path) == key or "/".join(path) == key):
            return n, t
    raise TableError(f"no decision table named '{text}' ({listing})", path=doc or None)


def evaluate_table(doc_path_or_src: Any, table: str | int | None, inputs: dict[str, str], *,
                   policy: str | None = None, doc: str | None = None) -> TableResult:
    """Library entry point: evaluate one decision table of a document against inputs."""
    src = _source(doc_path_or_src)
    label = doc or src.rel
    n, dt = select_table(_doc_tables(src), table, label)
    return evaluate(dt, inputs, policy=policy, doc=label, table_index=n)
