"""Executable answers: a question that gives values for a decision table's inputs is answered
by evaluating the table, not by the row that merely reads most alike.

`find_inputs` reads input values out of a question for one `DecisionTable`: a number is
given to the input column named just before it (by its header without the unit, a leading or
trailing part of it of two characters or more, or a synonym: 湿度 for 相对湿度(%), 连续降雨 for
连续降雨天数), else to the one column whose unit it carries (26℃ / 26 度 → 日均温(℃)); a text
column gets the one of its cell values the question names. `evaluate_question` tries the
decision tables among the best candidates and returns an `Evaluation`:

- ``match``: every input found and a row matches (`kbtools.decision.match_rules`): that row,
  with each cell's reason;
- ``no_match``: every input found, no row matches: the table, "no rule matches, needs human
  review" (never a guessed row);
- ``missing_inputs``: some inputs found, others not: the table and the missing inputs named.

Pure but for reading decision tables from the index's table chunks (the build ships them
parsed; cached per index).
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kbtools.decision import (
    NO_MATCH_MESSAGE,
    DecisionTable,
    column_key,
    match_rules,
    normalize_text,
)
from kbtools.decision.conditions import (
    MAGNITUDES,
    UNIT_GROUPS,
    column_unit,
    header_unit_start,
    input_unit_problem,
)
from kbtools.decision.numerals import NUMERAL_CHARS, chinese_number
from kbtools.errors import KbError
from kbtools.index.reader import KbIndex

TABLE_DEPTH = 30  # decision tables are tried when one of their chunks is among these hits
TABLE_KINDS = ("table", "table_row")  # the chunks of a table
NAME_GAP = 4  # at most this many characters between an input's name and its value
MIN_PART = 2  # shortest leading/trailing part of a header that still names it
# Units that mark what a number measures (the same quantity in a header and a question).
UNIT_CLASSES: tuple[tuple[str, ...], ...] = (
    ("℃", "°c", "摄氏度", "度"),
    ("%", "％", "percent"),
    ("小时", "h", "hours", "hour", "hrs"),
    ("天数", "天", "日", "days", "day"),
    ("分钟", "min", "minutes"),
    ("mm", "毫米"),
    ("mpa",),
    ("kg", "公斤", "千克"),
)
_UNIT_WORDS = sorted({w for c in UNIT_CLASSES for w in c}, key=len, reverse=True)
_NUMBER = re.compile(r"(?<![a-z0-9_.\-])(-?\d+(?:\.\d+)?)")
_STOP_GAP = re.compile(r"[,，、。;；!?！？\d]")
# a Chinese numeral (百分之九十 as a percentage), read when standard (`chinese_number`)
_CJK_NUMBER = re.compile(r"(百分之)?([零〇一二两三四五六七八九十百千万]+(?:点[零〇一二三四五六七八九]+)?)")


@dataclass(frozen=True)
class Evaluation:
    """A decision table evaluated on the values a question gives (see the module doc)."""

    status: str  # match | no_match | missing_inputs
    message: str
    doc: str
    table: str  # the table's label (name or heading path)
    table_index: int  # 1-based among the document's Markdown tables
    inputs: dict[str, str]  # input column → value read from the question
    missing: tuple[str, ...] = ()
    row: int | None = None  # 1-based body row that matched
    outputs: dict[str, str] = field(default_factory=dict)
    cells: tuple[dict[str, Any], ...] = ()  # per input cell: column, condition, value, matched, reason

    def to_dict(self) -> dict[str, Any]:
        """What a search result carries under ``evaluation``."""
        return {"status": self.status, "message": self.message, "doc": self.doc,
                "table": self.table, "table_index": self.table_index,
                "inputs": dict(self.inputs), "missing": list(self.missing), "row": self.row,
                "outputs": dict(self.outputs), "cells": [dict(c) for c in self.cells]}


@dataclass(frozen=True)
class _Number:
    start: int
    end: int
    value: str
    unit: int | None  # index into UNIT_CLASSES
    written: str  # the number with the unit or multiplying word written after it, if any
    exact: bool = True  # False: a bound or a span, not a value (不到15度, 20多度, 22~25度)
    word: str = ""  # the word right before it, filler words dropped (病叶率 in 病叶率3%)

    def given(self, table: DecisionTable, column: int) -> str | None:
        """The value for input `column`: the number alone, or as written when what follows
        it would change it there (2万, 72°f in a ℃ column, 4周 in a column of days), so
        that the table refuses it (`decision.conditions.input_unit_problem`) rather than
        reading the bare number; None for a number that is no exact value (the input is
        then missing: the table needs one)."""
        if not self.exact:
            return None
        unit = column_unit(table.header[column], (row[column] for row in table.rows))
        return self.written if input_unit_problem(self.written, unit) else self.value


# what a number's value carries from the question: a unit the tables' checks know
# (`decision.conditions.UNIT_GROUPS`: 72°f against a ℃ column is refused, not read as 72 ℃)
# or a word that multiplies it (2万 is refused, not read as 2); not a single Latin letter,
# which may start a word rather than name a unit
_SUFFIXES = sorted({w for w in (*_UNIT_WORDS, *(u for g in UNIT_GROUPS for u in g))
                    if len(w) > 1 or not (w.isascii() and w.isalpha())}, key=len, reverse=True)
_UNIT_AFTER_NUMERAL = tuple(_SUFFIXES)  # a Chinese numeral is a number when one follows it


# words that make a number below zero, or a bound or a span rather than a value
BELOW_ZERO = ("零下", "负")
BOUND_BEFORE = ("不到", "不足", "不超过", "不高于", "不低于", "不少于", "低于", "小于", "少于",
                "高于", "大于", "超过", "多于", "至少", "最多", "超", "逾", "近", "接近", "将近",
                "快到", "未满", "不满", "未到", "从", "<", ">", "≤", "≥")
BOUND_AFTER = ("多", "余", "几", "来", "以上", "以下", "以内", "之上", "之下", "出头", "+")
_WORD_BEFORE = re.compile(r"[\u3400-\u9fffa-z]+$")  # the word a number follows, if any
_NUMERAL_RUN = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
# a negation in the clause a number opens (5天没有下雨, 22度不是): what it counts did not happen
_NEGATED = re.compile(r"[^,，、。;；!?！？\d]{0,4}?(?:没有|没|未|无|不)")
_DIGIT_CHARS = frozenset("0123456789零〇一二两三四五六七八九")  # a digit, Arabic or Chinese
_SPAN_AFTER = re.compile(r"(?:~|〜|-|–|—|到|至)[\d零〇一二两三四五六七八九十]")
# the upper end of 22~25度, 从18度升到25度 or 二十到二十五度 (not 高5度，达到22度: a clause apart)
_SPAN_BEFORE = re.compile(r"[\d零〇一二两三四五六七八九十百千万]"
                          r"[^\d,，、。;；!?！？]{0,4}(?:~|〜|–|—|到|至)$")


def _number_spans(text: str) -> list[tuple[int, int, str, str]]:
    """Each number of `text` as (start, end, value, what follows it): the Arabic ones, and the
    Chinese numerals written the standard way (`decision.numerals`) that a unit follows
    (二十六度, 三个小时: the 个 dropped) or 百分之 leads (百分之九十 is 90 followed by %). A
    numeral no unit follows is no number here (一些, 十分, 二十多), nor is 一 alone (一度 is
    also "once")."""
    spans = [(m.start(), m.end(), m.group(1), text[m.end():m.end() + 8])
             for m in _NUMBER.finditer(text)]
    for m in _CJK_NUMBER.finditer(text):
        value = chinese_number(m.group(2))
        rest = text[m.end():m.end() + 9]
        rest = rest[1:] if rest.startswith("个") else rest
        if m.group(1):
            rest = "%" + rest
        elif m.group(2) == "一" or not rest.startswith(_UNIT_AFTER_NUMERAL):
            continue
        if value is not None:
            spans.append((m.start(), m.end(), value, rest[:8]))
    return sorted(spans)


def _numbers(text: str) -> list[_Number]:
    out = []
    for start, end, value, rest in _number_spans(text):
        before = text[max(0, start - 3):start]
        unit = next((n for w in _UNIT_WORDS if rest.startswith(w)
                     for n, c in enumerate(UNIT_CLASSES) if w in c), None)
        suffix = next((w for w in _SUFFIXES if rest.startswith(w)), "")
        first, then = rest[:1], rest[1:2]
        if not suffix and first in MAGNITUDES and not (then.isascii() and then.isalpha()):
            suffix = first  # 2万, 2k (not the k of a word: 2kg is a unit, found above)
        if before.endswith(BELOW_ZERO) and not value.startswith("-"):
            value = "-" + value  # 零下5度 is -5 ℃
        after = rest[len(suffix):] if suffix not in MAGNITUDES else rest
        if before.endswith("华氏"):
            suffix = "°f"  # 华氏80度: in °F, whatever follows
        word = _WORD_BEFORE.search(text, max(0, start - 12), start)
        run = _NUMERAL_RUN.split(word.group(0))[-1] if word else ""  # 三月 before 二日: 月
        exact = not (before.endswith(BOUND_BEFORE) or after.startswith(BOUND_AFTER)
                     or _SPAN_AFTER.match(rest) or _SPAN_AFTER.match(after)
                     or _SPAN_BEFORE.search(text[max(0, start - 8):start])
                     or "每" in run  # 每天运行20小时: a rate
                     or _NEGATED.match(after)  # 连续5天没有下雨: not the column's value
                     or after[:1] in _DIGIT_CHARS)  # 二十六度五: 26.5 said the spoken way
        out.append(_Number(start, end, value, unit, value + suffix, exact, _drop_fillers(run)))
    return out


def _unit_of(header: str) -> int | None:
    """The unit class a header declares: in its unit part (``(℃)``), else by a unit word of
    two characters or more ending it (连续降雨天数, 运行小时)."""
    text = normalize_text(header)
    unit, key = text[header_unit_start(text):], column_key(header)
    for n, c in enumerate(UNIT_CLASSES):
        if unit and any(w in unit for w in c):
            return n
    for n, c in enumerate(UNIT_CLASSES):
        if any(len(w) >= 2 and key.endswith(w) for w in c):
            return n
    return None


def names_of(header: str, synonyms: Mapping[str, Sequence[str]] = {}) -> list[str]:
    """How a question may name an input column, longest first: the header without its unit,
    its leading and trailing parts of at least MIN_PART characters (a CJK header only: 湿度
    for 相对湿度), and its synonyms."""
    key = column_key(header)
    names = {key, *(normalize_text(s).replace(" ", "") for s in synonyms.get(key, ()))}
    if len(key) > MIN_PART and all("\u3400" <= ch <= "\u9fff" for ch in key):
        names |= {key[:n] for n in range(MIN_PART, len(key))}
        names |= {key[n:] for n in range(1, len(key) - MIN_PART + 1)}
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def find_inputs(question: str, table: DecisionTable,
                synonyms: Mapping[str, Sequence[str]] = {}) -> dict[str, str]:
    """Input column header → value, for the inputs the question gives a value for."""
    text = normalize_text(unicodedata.normalize("NFKC", question)).replace(" ", "")
    numbers = _numbers(text)
    claimed: set[int] = set()
    out: dict[str, str] = {}
    blocked: set[int] = set()  # named with a value that is none (a bound, 二十六): missing
    key_of = {i: column_key(table.header[i]) for i in table.inputs}
    for i in table.inputs:  # numbers right after the column's name
        if i not in table.numeric:
            continue
        key = column_key(table.header[i])
        whole = {key, *(normalize_text(s).replace(" ", "") for s in synonyms.get(key, ()))}
        for name in names_of(table.header[i], synonyms):
            tail = name not in whole and key.endswith(name)  # 湿度 of 相对湿度
            found = _after_name(text, name, numbers, claimed, tail=tail)
            if found is None:
                continue
            num, numeral = found
            if numeral:  # 日均温二十六度: a value, but not one read here
                blocked.add(i)
            elif (value := numbers[num].given(table, i)) is not None:
                out[table.header[i]] = value
            else:
                blocked.add(i)
            if num >= 0:
                claimed.add(num)
            break
    for i in table.inputs:  # else the one unclaimed number in the column's unit
        unit = _unit_of(table.header[i])
        if i not in table.numeric or table.header[i] in out or unit is None or i in blocked:
            continue
        fits = [n for n, x in enumerate(numbers)
                if n not in claimed and x.unit == unit and _may_name(x.word, key_of[i])]
        if len(fits) == 1 and sum(_unit_of(table.header[j]) == unit for j in table.inputs) == 1:
            if (value := numbers[fits[0]].given(table, i)) is not None:
                out[table.header[i]] = value
            claimed.add(fits[0])
    for i in table.inputs:  # text columns: a cell value the question names
        if i in table.numeric:
            continue
        values = {c[i].text for c in table.conditions if c[i].kind == "text" and len(c[i].text) > 1}
        named = [v for v in values if v.replace(" ", "") in text]
        if len(named) == 1:
            out[table.header[i]] = named[0]
    return out


def _after_name(text: str, name: str, numbers: list[_Number], claimed: set[int], *,
                tail: bool = False) -> tuple[int, bool] | None:
    """The number a mention of `name` gives: the first unclaimed number after it, when only
    filler words (`FILLERS`: 为, 达到, 目前 …) stand between, as (its index, False); (-1,
    True) when a Chinese numeral that is no number here follows instead (二十多度, 三四天:
    named, not readable); None
    when no mention is followed so (比昨天高5度, 下午3点28度: the number is another
    quantity's). A `tail` of a header (湿度 for 相对湿度) right after another CJK character
    names something else (土壤湿度)."""
    for m in re.finditer(re.escape(name), text):
        if tail and m.start() > 0 and _is_cjk(text[m.start() - 1]):
            continue
        ahead = text[m.end():m.end() + NAME_GAP + 2]
        rest = _strip_fillers(ahead)
        at = m.end() + len(ahead) - len(rest)
        if rest[:1] in NUMERAL_CHARS and not any(x.start == at for x in numbers):
            return -1, True
        for n, x in enumerate(numbers):
            if n in claimed or x.start < m.end():
                continue
            gap = text[m.end():x.start]
            if len(gap) <= NAME_GAP and not _STOP_GAP.search(gap) and not _strip_fillers(gap):
                return n, False
            break
    return None


# words that may stand between an input's name and its value (温度为22度, 湿度达到90%)
# (零下 and 负 too: they make the number negative, `BELOW_ZERO`; 华氏 puts it in °F, refused)
FILLERS = sorted(("目前", "现在", "当前", "已经", "大约", "大概", "达到", "约为", "共计", "累计",
                  "零下", "华氏", "是", "为", "约", "在", "达", "到", "了", "已", "有", "共", "都", "均",
                  "负", ":", "=", "≈"), key=len, reverse=True)


def _drop_fillers(word: str) -> str:
    """`word` without the filler words it ends with (达到 in 气温达到)."""
    return _without_fillers(word, at_end=True)


def _may_name(word: str, key: str) -> bool:
    """Whether the word before a number may name column `key` when the number is taken by its
    unit: no word at all (26℃), or one sharing a character with the key (气温 18℃ for 温度,
    降雨 2 天 for 连续降雨天数) that is not another thing's compound of its tail (土壤湿度
    for 相对湿度). 病叶率 3%, 3月2日, 第3天 name something else."""
    if not word:
        return True
    if not set(word) & {ch for ch in key if _is_cjk(ch)}:
        return False
    tails = [key[n:] for n in range(1, len(key) - 1)]
    return not any(word.endswith(t) and len(word) > len(t) and _is_cjk(word[-len(t) - 1])
                   for t in tails)


def _strip_fillers(text: str) -> str:
    """`text` without the filler words it starts with."""
    return _without_fillers(text, at_end=False)


def _without_fillers(text: str, *, at_end: bool) -> str:
    """`text` without the filler words (`FILLERS`, longest first) at its end or its start."""
    while True:
        word = next((w for w in FILLERS if (text.endswith(w) if at_end else text.startswith(w))),
                    None)
        if word is None:
            return text
        text = text[:-len(word)] if at_end else text[len(word):]


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


_TABLES: weakref.WeakKeyDictionary[KbIndex, dict[tuple[str, int], DecisionTable | None]] = \
    weakref.WeakKeyDictionary()


def decision_table(index: KbIndex, doc: str, table_index: int,
                   line: int) -> DecisionTable | None:
    """Decision table `table_index` of `doc` (its table chunk overlaps `line`), as the build
    shipped it on that chunk (``extra["decision"]``), cached per index; None when that table
    is not a decision table. Never reads or parses Markdown."""
    cache = _TABLES.setdefault(index, {})
    key = (doc, table_index)
    if key not in cache:
        record = next((r["extra"].get("decision") for r in index.store.overlapping(doc, line, line)
                       if r["kind"] == "table" and r["extra"].get("table_index") == table_index),
                      None)
        try:
            cache[key] = DecisionTable.from_record(record) if record else None
        except KbError:
            cache[key] = None
    return cache[key]


def evaluate_question(index: KbIndex, question: str, tables: Iterable[tuple[str, int, int]],
                      synonyms: Mapping[str, Sequence[str]] = {}) -> Evaluation | None:
    """Evaluate the best-ranked decision table that the question gives input values for;
    None when there is none. `tables`: (document, table index, first line) of the table
    chunks (TABLE_KINDS) among the first TABLE_DEPTH candidates, best first
    (`kbtools.query.sections.SectionTable.tables_of`)."""
    seen: dict[tuple[str, int], int] = {}  # (doc, table index) → a line of that table
    for doc, ti, line in tables:
        if ti:
            seen.setdefault((doc, ti), line)
    for (doc, ti), line in seen.items():  # the best-ranked table the question gives values for
        dt = decision_table(index, doc, ti, line)
        if dt is None:
            continue
        found = find_inputs(question, dt, synonyms)
        if found and (dt.annotated or len(found) == len(dt.inputs)):
            return evaluate_inputs(doc, ti, dt, found)  # inferred tables answer only when fully given
    return None


def evaluate_inputs(doc: str, ti: int, dt: DecisionTable, found: dict[str, str]) -> Evaluation:
    """Match the values found. With inputs missing, the answer is still certain when the
    first row the given values select accepts any value ("*") for every missing input."""
    missing = tuple(dt.header[i] for i in dt.inputs if dt.header[i] not in found)
    given = dt if not missing else replace(
        dt, inputs=tuple(i for i in dt.inputs if dt.header[i] in found),
        numeric=tuple(i for i in dt.numeric if dt.header[i] in found))
    try:
        result = match_rules(given, found, doc=doc, table_index=ti)
    except KbError as exc:  # a value the table cannot take: show the table, say why
        return Evaluation("no_match", f"{NO_MATCH_MESSAGE} ({exc.message})", doc, dt.label(),
                          ti, found)
    if result.status != "match":
        return Evaluation("no_match", NO_MATCH_MESSAGE, doc, dt.label(), ti, found)
    chosen = result.matches[0]
    cells = [vars(c) for c in chosen.cells]
    if missing:
        conds = dt.conditions[chosen.row - 1]
        if any(conds[i].kind != "any" for i in dt.inputs if dt.header[i] in missing):
            return Evaluation("missing_inputs", "missing input(s): " + ", ".join(missing),
                              doc, dt.label(), ti, found, missing)
        cells += [{"column": h, "condition": dt.rows[chosen.row - 1][dt.header.index(h)],
                   "value": None, "matched": True,
                   "reason": "not given; any value accepted (* or empty cell)"} for h in missing]
    message = result.message if not missing else \
        f"row {chosen.row} matches; not given, but any value is accepted: {', '.join(missing)}"
    return Evaluation("match", message, doc, dt.label(), ti, found, (), chosen.row,
                      dict(chosen.outputs), tuple(cells))


def answer_chunk(index: KbIndex, ev: Evaluation) -> dict[str, Any] | None:
    """The chunk that shows the evaluation: the matched row, else the whole table."""
    dt = _TABLES.get(index, {}).get((ev.doc, ev.table_index))
    if dt is None:  # not evaluated on this index
        return None
    line = dt.line_of(ev.row) if ev.row else dt.line_start
    rows = index.store.overlapping(ev.doc, line, line)
    want = "table_row" if ev.row else "table"
    for r in rows:
        if r["kind"] == want and r["extra"].get("table_index") == ev.table_index and \
                (not ev.row or r["extra"].get("row") == ev.row):
            return r
    return None
