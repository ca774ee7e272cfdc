"""Executable answers: a question that gives values for a decision table's inputs is answered
by evaluating the table, not by the row that merely reads most alike.

`kbtools.query.inputs` reads the values a question gives one `DecisionTable`'s inputs.
`evaluate_question` tries the decision tables among the best candidates and returns an
`Evaluation`:

- ``match``: every input found and a row matches (`kbtools.decision.match_rules`): that row,
  with each cell's reason in the question's language;
- ``no_match``: every input found, no row matches: the table, "no rule matches, needs human
  review" (never a guessed row);
- ``spans_rows``: a range or bound given (22到25度, ``between 20 and 25 C``: `query.ranges`)
  that no one row holds all of, rows each holding part of it: those rows named (`spans`),
  in the question's language, as ``kb table eval`` refuses it; never one of them guessed;
- ``missing_inputs``: some inputs found, others not: the table and the missing inputs named,
  with the values of each the question gave two of (温度22度…温度23度: `conflicts`), and the
  value in an input's unit the question said of another thing (80度 of 油温 for 温度(℃):
  `said_of_other`, worded in the question's language).

Pure but for reading decision tables from the index's table chunks (the build ships them
parsed; cached per index). The input readers are importable from here too (`__all__`).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kbtools.decision import (
    NO_MATCH_MESSAGE,
    DecisionTable,
    TableResult,
    column_key,
    match_rules,
)
from kbtools.decision.given import APPROXIMATE_NOTE, DEPENDS_NOTE, InputError, near_bound
from kbtools.decision.matching import NO_MATCH_ZH, NOT_GIVEN_REASON, NOT_GIVEN_ZH, CellMatch
from kbtools.errors import KbError
from kbtools.index.reader import KbIndex
from kbtools.query.inputs import (
    Inputs,
    find_inputs,
    given_value,
    names_of,
    read_inputs,
)
from kbtools.query.mentions import NAME_GAP_LATIN
from kbtools.query.naming import NAME_GAP
from kbtools.query.quantities import input_names
from kbtools.query.sections import (
    TABLE_DEPTH,
    TABLE_KINDS,
    decision_number,
    decision_record,
    result_extra,
)
from kbtools.query.wording import Terms, is_cjk, names_subject

__all__ = [  # the input readers of `kbtools.query.inputs` stay importable from here
    "NAME_GAP", "NAME_GAP_LATIN", "TABLE_DEPTH", "TABLE_KINDS", "Evaluation", "Inputs",
    "answer_chunk", "decision_number", "decision_table", "evaluate_inputs", "evaluate_question",
    "find_inputs", "given_value", "input_vocabulary", "missing_message", "names_of",
    "read_inputs", "result_extra", "said_of_other_note", "unused_note",
]

READ_NOTE = "read"  # how a value not taken as typed was read: ``(read: 流量(L/h) 1 200 as 1200)``


@dataclass(frozen=True)
class Evaluation:
    """A decision table evaluated on the values a question gives (see the module doc)."""

    status: str  # match | no_match | spans_rows | missing_inputs
    message: str
    doc: str
    table: str  # the table's label (name or heading path)
    markdown_index: int  # 1-based among the document's Markdown tables (its chunks' table_index)
    inputs: dict[str, str]  # input column → value read from the question
    missing: tuple[str, ...] = ()
    row: int | None = None  # 1-based body row that matched (the first, policy ``all``)
    outputs: dict[str, str] = field(default_factory=dict)
    # per input cell: column, condition, value, matched, reason (in the question's language:
    # ``25.5 满足 > 20`` for a Chinese question, ``25.5 is > 20`` for an English one)
    cells: tuple[dict[str, Any], ...] = ()
    # every row the table's policy selects ({row, outputs, cells}): one for ``first``, each
    # matching row for ``all`` (row, outputs and cells above are the first of them; the
    # JSON's ``outputs`` lists each one's, as `evaluate_table`'s does)
    rows: tuple[dict[str, Any], ...] = ()
    # 1-based among the document's decision tables: the `table` that `evaluate_table` and
    # `kb table eval --table` take, and the `index` their results give (0: not known)
    table_index: int = 0
    # input column → the values the question gave it, as written (温度22度…温度23度: 22度,
    # 23度): missing because the table cannot take two
    conflicts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # input column → its value as written, when the question gave it only roughly (大约90%,
    # ``about 90%``): evaluated as that value, and the message says so (`APPROXIMATE_NOTE`)
    approximate: dict[str, str] = field(default_factory=dict)
    # approximate input column → the matched row's condition whose bound its value is within
    # `given.NEAR_BOUND` of (``about 30 C`` on ``>= 30``): the answer depends on the exact value
    near_bound: dict[str, str] = field(default_factory=dict)
    # missing input column → why the value in its unit the question gave is not its (``80度
    # 说的是油温，不是温度(℃)``: `said_of_other_note`), in the question's language
    said_of_other: dict[str, str] = field(default_factory=dict)
    # input column → the rows (1-based) each holding part of the range given it (status
    # ``spans_rows``): which one applies depends on the value within it
    spans: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # input column → how its value was read when not as typed (``1 200 as 1200``, ``湿度0.85``
    # ``as 85 %``: `query.readings`); the message says so too (`READ_NOTE`)
    readings: dict[str, str] = field(default_factory=dict)
    # input column → its value as the question typed it, where that is not the value in
    # `inputs` (``2 k`` for 2k, ``2100 hours`` for 2100hours, 二十五 for 25): what a line
    # showing the inputs quotes
    typed: dict[str, str] = field(default_factory=dict)
    # the values the question gave that no input of the table took (压力3MPa, 大风3天 on a
    # table of 温度 and 湿度: `Inputs.unused`), as typed; the message ends naming them
    unused: tuple[str, ...] = ()

    def chunk(self, index: KbIndex) -> dict[str, Any] | None:
        """`answer_chunk` (a search holding an evaluation need not import this module)."""
        return answer_chunk(index, self)

    def to_dict(self) -> dict[str, Any]:
        """What a search result carries under ``evaluation``: ``table_index`` is the number
        `evaluate_table` takes (a Markdown table before it that is no decision table does not
        count), so an agent re-evaluates the same table with more inputs."""
        return {"status": self.status, "message": self.message, "doc": self.doc,
                "table": self.table, "table_index": self.table_index,
                "inputs": dict(self.inputs), "missing": list(self.missing),
                "conflicts": {k: list(v) for k, v in self.conflicts.items()},
                "approximate": dict(self.approximate),
                "near_bound": dict(self.near_bound),
                "said_of_other": dict(self.said_of_other),
                "readings": dict(self.readings),
                "typed": dict(self.typed), "unused": list(self.unused),
                "spans": {k: list(v) for k, v in self.spans.items()}, "row": self.row,
                # one object per selected row (none unless matched): `evaluate_table`'s shape
                "outputs": [dict(r["outputs"]) for r in self.rows],
                "cells": [dict(c) for c in self.cells],
                "rows": [{"row": r["row"], "outputs": dict(r["outputs"]),
                          "cells": [dict(c) for c in r["cells"]]} for r in self.rows]}



_TABLES: weakref.WeakKeyDictionary[KbIndex, dict[tuple[str, int], DecisionTable | None]] = \
    weakref.WeakKeyDictionary()
_VOCABULARY: weakref.WeakKeyDictionary[KbIndex, frozenset[str]] = weakref.WeakKeyDictionary()
_SYNONYMS: weakref.WeakKeyDictionary[KbIndex, Terms] = weakref.WeakKeyDictionary()


def input_synonyms(index: KbIndex) -> Terms:
    """How a question may name a decision-table input besides its header: the other terms
    of the header's synonym group, keyed as `inputs.names_of` looks them up. Made once per
    opened index (every search asks: keying each term anew cost a search 0.37 ms of the
    example knowledge's 5.3, and ~12 ms with 1,000 groups), as `Terms`, which the readers
    of a table's inputs remember what they derive from by."""
    got = _SYNONYMS.get(index)
    if got is None:
        got = _SYNONYMS[index] = Terms({column_key(term): others for term, others
                                        in index.synonyms().mapping().items()})
    return got


def input_vocabulary(index: KbIndex, synonyms: Mapping[str, Sequence[str]] = {}) -> frozenset[str]:
    """The names of every decision table's inputs in `index` (`quantities.input_names`: with
    their synonyms and short forms), read once per index, the first time a question gives a
    table values: a value said of one of them is no value of another table's input."""
    if index not in _VOCABULARY:
        _VOCABULARY[index] = input_names(index.store.decision_inputs(), synonyms)
    return _VOCABULARY[index]


def decision_table(index: KbIndex, doc: str, table_index: int) -> DecisionTable | None:
    """Decision table `table_index` of `doc`, as the build shipped it on its table chunk
    (``extra["decision"]``: `decision_record`), cached per index; None when that table is
    not a decision table. Never reads or parses Markdown."""
    cache = _TABLES.setdefault(index, {})
    key = (doc, table_index)
    if key not in cache:
        record = decision_record(index, doc, table_index)
        try:
            cache[key] = DecisionTable.from_record(record) if record else None
        except KbError:
            cache[key] = None
    return cache[key]


def evaluate_question(index: KbIndex, question: str, tables: Iterable[tuple[str, int, int]],
                      synonyms: Mapping[str, Sequence[str]] = {}) -> Evaluation | None:
    """Evaluate the best-ranked decision table that the question gives input values for,
    a table whose subject it names by the synonyms first (`wording.names_subject`); None
    when there is none. `tables`: (document, table index, first line) of the table
    chunks (TABLE_KINDS) among the first TABLE_DEPTH candidates, best first
    (`kbtools.query.sections.SectionTable.tables_of`)."""
    seen = dict.fromkeys((doc, ti) for doc, ti, _ in tables if ti)  # (in rank order)
    found_tables = [(doc, ti, dt) for doc, ti in seen
                    if (dt := decision_table(index, doc, ti)) is not None]
    # a table whose subject the question names comes first (``wheat scab risk at 22 C``: the
    # 赤霉病 table, not the corn table ranked above it for the numbers both hold)
    found_tables.sort(key=lambda t: not names_subject(question, t[2], synonyms))
    for doc, ti, dt in found_tables:  # the best-ranked table the question gives values for
        given = read_inputs(question, dt, synonyms, input_vocabulary(index, synonyms))
        found = given.values
        # inferred tables answer only when fully given; a value said only of another
        # quantity (油温80度 by a 温度 table) is no value for this table: not evaluated, so
        # the table is not put first for a question about something else (but a value of
        # its own quantity said at another part of the day, 白天25度 by a 夜温 table, is said)
        if (found and (dt.annotated or len(found) == len(dt.inputs))) or \
                ((given.conflicts or given.ambiguous or given.other_times) and dt.annotated):
            chinese = any(is_cjk(ch) for ch in question)
            # each value as the question typed it (``2100 hours``, not 2100hours)
            notes = {k: said_of_other_note(k, given.typed.get(v, v), n, chinese=chinese)
                     for k, (v, n) in given.others.items()}
            conflicts = {k: tuple(given.typed.get(v, v) for v in vs)
                         for k, vs in given.conflicts.items()}
            notes.update({k: ambiguous_note(*v, chinese=chinese)
                          for k, v in given.ambiguous.items()})
            ev = evaluate_inputs(doc, ti, dt, found, conflicts, given.approximate, notes,
                                 lang="zh" if chinese else "en", readings=given.readings,
                                 typed=given.typed)
            if given.unused:  # a value given that no input took: said, never dropped
                ev = replace(ev, unused=given.unused, message=ev.message + unused_note(
                    given.unused, chinese=chinese))
            if given.differences:  # 比昨天高5度: a difference, no reading: said, not used
                ev = replace(ev, message=ev.message + difference_note(given.differences,
                                                                      chinese=chinese))
            return replace(ev, table_index=decision_number(index, doc, ti))
    return None


def evaluate_inputs(doc: str, ti: int, dt: DecisionTable, found: dict[str, str],
                    conflicts: Mapping[str, tuple[str, ...]] = {},
                    approximate: Mapping[str, str] = {},
                    said_of_other: Mapping[str, str] = {}, *, lang: str = "en",
                    readings: Mapping[str, tuple[str, str]] = {},
                    typed: Mapping[str, str] = {}) -> Evaluation:
    """Match the values found: the rows the table's policy selects (the first matching row,
    or with policy ``all`` every one, as `kb table eval` does). With inputs missing, the
    answer is still certain when every row the given values select accepts any value ("*")
    for every missing input. `conflicts`: the inputs the question gave two values (missing
    for that; the answer says so). `approximate`: the inputs given only roughly (大约90%),
    as written; evaluated as given, the message ends naming them (``(approximate value:
    相对湿度(%) 90%)``) since a value near a row's bound may belong to the next row.
    `said_of_other`: missing input → why the value in its unit is not its
    (`said_of_other_note`), said after it in the message. A range rows split is refused
    in `lang` (``zh`` or ``en``: the question's), naming them (status ``spans_rows``).
    `readings`: input → (its value as typed, as read) where that is not the number as typed
    (1 200 → 1200, 一半 → 50 %: `query.readings`); the message ends naming them
    (``(read: 流量(L/h) 1 200 as 1200)``). `typed`: a value as `found` holds it → as the
    question typed it (``25degrees`` → ``25 degrees``), how a refusal quotes it."""
    ev = _evaluate(doc, ti, dt, found, conflicts, said_of_other, lang, typed)
    as_typed = {k: readings[k][0] if k in readings else typed.get(v, v) for k, v in found.items()}
    ev = replace(ev, typed={k: t for k, t in as_typed.items() if t != found[k]})
    read = {k: f"{typed} as {value}" for k, (typed, value) in readings.items() if k in found}
    zh = lang == "zh"
    if read:  # (in Chinese: （读作：流量(L/h) 1 200 为 1200）)
        ev = replace(ev, readings=read, message=f"{ev.message}（读作：" + "、".join(
            f"{k} {t} 为 {v}" for k, (t, v) in readings.items() if k in found) + "）" if zh else
            f"{ev.message} ({READ_NOTE}: " + ", ".join(f"{k} {v}" for k, v in read.items()) + ")")
    rough = {k: v for k, v in approximate.items() if k in found}
    if not rough:
        return ev
    near = near_bounds(dt, found, rough, [r["row"] for r in ev.rows])
    if zh:  # （近似值：相对湿度(%) 90%；结果取决于确切数值：相对湿度(%) >=90）
        named = "、".join(f"{k} {v}" for k, v in rough.items())
        depends = "；结果取决于确切数值：" + "、".join(f"{k} {c}" for k, c in near.items()) \
            if near else ""
        return replace(ev, approximate=rough, near_bound=near,
                       message=f"{ev.message}（近似值：{named}{depends}）")
    named = ", ".join(f"{k} {v}" for k, v in rough.items())
    depends = "; " + DEPENDS_NOTE + ": " + ", ".join(f"{k} {c}" for k, c in near.items()) \
        if near else ""
    return replace(ev, approximate=rough, near_bound=near,
                   message=f"{ev.message} ({APPROXIMATE_NOTE}: {named}{depends})")


def near_bounds(dt: DecisionTable, found: Mapping[str, str], rough: Iterable[str],
                rows: Sequence[int]) -> dict[str, str]:
    """Input column → the condition (as written) of a selected row (1-based `rows`) whose
    finite bound the value given roughly for that column is within `given.NEAR_BOUND` of: a
    slightly different value would select another row (or none)."""
    out: dict[str, str] = {}
    for column in rough:
        try:
            x = float(found[column])
        except ValueError:  # a value the table took as text
            continue
        at = dt.header.index(column)
        for row in rows:
            cond = dt.conditions[row - 1][at]
            if near_bound(cond, x):
                out[column] = cond.raw.strip()
                break
    return out


def _evaluate(doc: str, ti: int, dt: DecisionTable, found: dict[str, str],
              conflicts: Mapping[str, tuple[str, ...]],
              said_of_other: Mapping[str, str] = {}, lang: str = "en",
              typed: Mapping[str, str] = {}) -> Evaluation:
    """`evaluate_inputs` but for the values given roughly."""
    missing = tuple(dt.header[i] for i in dt.inputs if dt.header[i] not in found)
    conflicts = {k: tuple(v) for k, v in conflicts.items() if k in missing}
    others = {k: v for k, v in said_of_other.items() if k in missing and k not in conflicts}
    if not found:  # only inputs given two values or another thing's: nothing to match on
        return Evaluation("missing_inputs", missing_message(missing, conflicts, others,
                                                            chinese=lang == "zh"),
                          doc, dt.label(), ti, found, missing, conflicts=conflicts,
                          said_of_other=others)
    given = dt if not missing else replace(
        dt, inputs=tuple(i for i in dt.inputs if dt.header[i] in found),
        numeric=tuple(i for i in dt.numeric if dt.header[i] in found))
    try:
        result = match_rules(given, found, doc=doc, table_index=ti)
    except InputError as exc:
        said = typed.get(exc.value, "")  # quoted as typed: ``25 degrees``, not 25degrees
        if not exc.rows:  # a value the table cannot take (湿度25度, in no unit of its
            # column): what is wrong with it, in the answer's language, no "no rule matches"
            return Evaluation("no_match", exc.value_message(lang, said), doc, dt.label(), ti,
                              found)
        # a range over rules (18-25度 over 15-20 and >20): the rows, no guess among them
        return Evaluation("spans_rows", exc.value_message(lang, said), doc, dt.label(), ti, found,
                          spans={exc.column: exc.rows})
    except KbError as exc:  # a value the table cannot take: show the table, say why
        return Evaluation("no_match", f"{no_match_message(lang == 'zh')} ({exc.message})", doc,
                          dt.label(), ti, found)
    if result.status != "match":
        return Evaluation("no_match", no_match_message(lang == "zh"), doc, dt.label(), ti, found)
    chosen = [m for m in result.matches if m.row in result.selected]
    if missing and any(dt.conditions[m.row - 1][i].kind != "any"
                       for m in chosen for i in dt.inputs if dt.header[i] in missing):
        return Evaluation("missing_inputs", missing_message(missing, conflicts, others,
                                                            chinese=lang == "zh"),
                          doc, dt.label(), ti, found, missing, conflicts=conflicts,
                          said_of_other=others)
    zh = lang == "zh"

    def not_given(row: int) -> list[dict[str, Any]]:  # the missing inputs' cells of `row`
        return [{"column": h, "condition": dt.rows[row - 1][dt.header.index(h)], "value": None,
                 "matched": True, "reason": NOT_GIVEN_ZH if zh else NOT_GIVEN_REASON}
                for h in missing]

    def worded(cell: CellMatch) -> dict[str, Any]:  # its reason in the question's language
        return {**cell.to_dict(), "reason": cell.reason_in(lang)} if zh else cell.to_dict()

    rows: tuple[dict[str, Any], ...] = tuple(
        {"row": m.row, "outputs": dict(m.outputs),
         "cells": (*(worded(c) for c in m.cells), *not_given(m.row))} for m in chosen)
    message = not_given_message([m.row for m in chosen], missing, chinese=lang == "zh") \
        if missing else match_message(result, chinese=lang == "zh")
    first = rows[0]
    return Evaluation("match", message, doc, dt.label(), ti, found, (), first["row"],
                      first["outputs"], first["cells"], rows)


def missing_message(missing: Sequence[str],
                    conflicts: Mapping[str, Sequence[str]] = {},
                    said_of_other: Mapping[str, str] = {}, *, chinese: bool = False) -> str:
    """``missing input(s): A, B``, each input the question gave two values followed by them
    (``温度(℃) (two values given: 22度, 23度)``), each whose value in its unit the question
    said of another thing followed by that (``温度(℃) (80度说的是油温，不是温度(℃))``); in
    Chinese for a question with Chinese in it (``缺少输入：温度(℃)（给出了两个值：22度、23度）``)."""
    if chinese:
        return "缺少输入：" + "、".join(
            f"{m}（给出了两个值：{'、'.join(conflicts[m])}）" if m in conflicts else
            f"{m}（{said_of_other[m]}）" if m in said_of_other else m for m in missing)
    return "missing input(s): " + ", ".join(
        f"{m} (two values given: {', '.join(conflicts[m])})" if m in conflicts else
        f"{m} ({said_of_other[m]})" if m in said_of_other else m for m in missing)


def match_message(result: TableResult, *, chinese: bool) -> str:
    """What a match says (`TableResult.message`: ``row 2 matches``, ``rows 1, 3 match; policy
    'first' applied: row 1``), in Chinese for a question with Chinese in it (``第2行匹配``,
    ``第1、3行匹配；按 first 策略取第1行``)."""
    if not chinese:
        return result.message
    rows = [m.row for m in result.matches]
    said = f"第{'、'.join(map(str, rows))}行匹配"
    if len(rows) == 1:
        return said
    return f"{said}；按 {result.policy} 策略" + (
        f"取第{result.selected[0]}行" if result.policy == "first" else "全部采用")


def no_match_message(chinese: bool) -> str:
    """`NO_MATCH_MESSAGE`, in Chinese for a question with Chinese in it."""
    return NO_MATCH_ZH if chinese else NO_MATCH_MESSAGE


def not_given_message(rows: Sequence[int], missing: Sequence[str], *, chinese: bool) -> str:
    """What a match says when inputs not given cannot change it (every row selected takes any
    value for them): ``row 1 matches; not given, but any value is accepted: 湿度(%)``, in
    Chinese for a question with Chinese in it (``第1行匹配；未给出，但接受任意值：湿度(%)``)."""
    if chinese:
        return f"第{'、'.join(map(str, rows))}行匹配；未给出，但接受任意值：{'、'.join(missing)}"
    return f"{'row' if len(rows) == 1 else 'rows'} {', '.join(map(str, rows))} " \
        f"{'matches' if len(rows) == 1 else 'match'}; not given, but any value is " \
        f"accepted: {', '.join(missing)}"


def said_of_other_note(column: str, value: str, other: str, *, chinese: bool) -> str:
    """Why `value` (as the question wrote it) is no value of input `column`: the question
    said it of `other` (油温, ``oil temperature``); in Chinese for a question with Chinese
    in it, else in English."""
    if chinese:
        return f"{value}说的是{other}，不是{column}"
    return f"{value} is said of {other}, not of {column}"


def unused_note(values: Sequence[str], *, chinese: bool) -> str:
    """What a message ends with when the question gave `values` no input of the table took
    (压力3MPa on a table of 温度 and 湿度): not used, as the table has no such input; in
    Chinese for a question with Chinese in it."""
    if chinese:
        return f"（未使用：{'、'.join(values)}，此表没有对应的输入）"
    return f" (not used: {', '.join(values)}: the table has no such input)"


def difference_note(values: Sequence[str], *, chinese: bool) -> str:
    """What a message ends with when the question gave `values` as a difference from another
    time or value (比昨天高5度, 比25度高3度, ``5 degrees higher than yesterday``): not used,
    as no reading; in Chinese for a question with Chinese in it."""
    if chinese:
        return f"（未使用：{'、'.join(values)}，这是差值，不是读数）"
    return f" (not used: {', '.join(values)}: a difference, not a reading)"


def ambiguous_note(typed: str, one: str, other: str, *, chinese: bool) -> str:
    """Why `typed` (1.200) is no value of its input: it reads as `one` (1.2) or `other`
    (1200, its dot grouping thousands), which select other rows; in Chinese for a question
    with Chinese in it, else in English."""
    if chinese:
        return f"{typed}可读作{one}或{other}，两者对应不同的行；请写成{one}或{other}"
    return f"{typed} reads as {one} or as {other} (a dot grouping thousands), which select " \
        f"other rows; write {one} or {other}"


def answer_chunk(index: KbIndex, ev: Evaluation) -> dict[str, Any] | None:
    """The chunk that shows the evaluation: the matched row, else (no row, or several with
    policy ``all``) the whole table."""
    dt = _TABLES.get(index, {}).get((ev.doc, ev.markdown_index))
    if dt is None:  # not evaluated on this index
        return None
    row = ev.row if len(ev.rows) <= 1 else None
    line = dt.line_of(row) if row else dt.line_start
    rows = index.store.overlapping(ev.doc, line, line)
    want = "table_row" if row else "table"
    for r in rows:
        if r["kind"] == want and r["extra"].get("table_index") == ev.markdown_index and \
                (not row or r["extra"].get("row") == row):
            return r
    return None
