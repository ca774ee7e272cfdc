"""What a caller names a decision table by, read once for every surface.

A search result, a citation and a document's own links name a document and a part of it in
one string: ``knowledge/x.md:65-73 § A > B`` (a citation: lines, a heading path or both),
``knowledge/x.md#32-风险等级判定表`` (a link: its anchor, URL-escaped or not, a
``{#custom-id}``, the heading's text, a section number as ``#3``). `read` takes each as
its document (`kbtools.agents.read.read_section`); this module makes table evaluation take
the same strings the same way, for the MCP tool ``evaluate_table``, ``/api/table/evaluate``
and ``kb table eval`` alike, so the three give one verdict and one error text:

- `named` splits what a caller gave into the document path and the part it names (the
  citation and link readers of `read`, `cited` and `linked`);
- `named_table` turns that part into the choice of table `select_table` takes: the table
  at a citation's lines (checked against its heading path, which outlives a release that
  moved the lines), or the one decision table of the section a link or a heading path
  names. A section holding none or several is said in one line naming the tables there
  and what to send instead (the document path alone with the table's number);
- `evaluate_named` evaluates it.

Each surface resolves `Named.doc` to a file its own way (a release's files, a repository's,
a file given on the command line) and hands the source read to `evaluate_named`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kbtools.agents.citation_text import (
    NARROW_DIGITS,
    narrow_width,
    percent_decoded,
    plain_citation,
)
from kbtools.agents.docpath import cited, linked
from kbtools.agents.heading_meaning import by_meaning
from kbtools.agents.read import anchored_section, find_section
from kbtools.corpus import SourceDoc
from kbtools.decision.documents import document_tables, select_table, table_from_markdown
from kbtools.decision.matching import TableResult, match_rules
from kbtools.decision.model import DecisionTable, find_input
from kbtools.errors import INVISIBLE, TableError, UsageError, line_span, one_line, unpadded
from kbtools.index.tokenize import to_simplified
from kbtools.markdown.doctree import parse
from kbtools.markdown.heading_paths import heading_parts, path_matches
from kbtools.render.table_csv import derived_table_number

Tables = Sequence[DecisionTable | TableError]
# a caller's choice of table: a number, a name or a section, or a heading path as a list
TableArg = str | int | list[str] | tuple[str, ...] | None


@dataclass(frozen=True)
class Named:
    """A document as a caller named it: `doc`, its path alone; `lines` and `heading`, what
    a citation names of it (None and "" when it names none); `anchor`, a link's anchor
    (URL escapes decoded; None for no link). `given` is the string as the caller sent it."""

    given: str
    doc: str
    lines: tuple[int, int] | None = None
    heading: str = ""
    anchor: str | None = None

    @property
    def kind(self) -> str:
        """``link``, ``citation`` or ``path``: what the caller's messages call it."""
        if self.anchor is not None:
            return "link"
        return "citation" if self.lines is not None or self.heading else "path"


def named(doc: str) -> Named:
    """`doc` as a path, a citation (`cited`) or a link (`linked`), the readers `read` uses."""
    given, link = cited(doc), linked(doc)
    if given is not None:
        return Named(doc, given.doc, given.lines, given.heading)
    if link is not None:
        return Named(doc, link[0], anchor=link[1])
    return Named(doc, plain_citation(doc))  # a path with the release it came from after it


def named_table(src: SourceDoc, name: Named, table: TableArg, tables: Tables,
                option: str = "table") -> str | int | None:
    """The choice of table (`select_table`'s `table`) that `name` makes in `src` (whose
    decision tables are `tables`): `table` itself for a plain path; for a citation or a
    link, the table it names, which `table` (called `option` on this surface) may not name
    too. UsageError/TableError/KbError, one line, when it names no table or several. A
    list is a heading path (a search result's `heading_path`), as `read` takes one."""
    choice = " > ".join(table) if isinstance(table, (list, tuple)) else table
    if choice is not None and str(choice).strip() == "":
        choice = None  # an empty `table`, as agents send an argument they do not set
    if isinstance(choice, str) and (number := choice.strip().translate(NARROW_DIGITS)) \
            .isascii() and number.isdigit():
        choice = number  # its number typed full-width (`１`), as an input method types it
    if name.kind == "path" and isinstance(choice, str) and choice.strip().startswith("#"):
        # a link's anchor as the table (`#32-风险等级判定表`): the section it names, as the
        # link whole as the document names it
        anchor = choice.strip()[1:]
        name, choice = Named(name.given, name.doc, anchor=percent_decoded(anchor) or anchor), None
    if name.kind == "path":
        return built_name(src, tables, choice) if isinstance(choice, str) else choice
    label = src.rel
    if choice is not None:  # as a citation given with lines too was refused (session 31)
        said = f"#{name.anchor}" if name.anchor is not None else \
            line_span(*name.lines, "-") if name.lines is not None else name.heading
        raise UsageError(f"{label} {one_line(said, 80)} names a table by its {name.kind} and "
                         f"{option} names one too: give one of them")
    parsed = parse(src)
    if name.anchor is not None:
        sec = anchored_section(parsed, src, name.anchor, section_arg=option)
        return _one_in(tables, parsed, [sec], f"#{name.anchor}", label, option)
    sections = _sections_named(parsed, name.heading) if name.heading else []
    if name.lines is None:
        return _one_in(tables, parsed, sections, name.heading, label, option)
    at = _at(tables, name.lines)
    if at is not None and (not sections or at in _inside(tables, sections)):
        return at
    if sections:  # the lines hold another table than the heading path's section, or none:
        # a release moved the lines since the citation was given, its heading path still
        # names the section
        return _one_in(tables, parsed, sections, name.heading, label, option)
    placed = ", ".join(line_span(t.line_start, t.line_end, "-") for t in tables
                       if isinstance(t, DecisionTable))
    raise UsageError(f"no decision table at {label} {line_span(*name.lines, '-')}" +
                     (f" (its decision tables: {placed})" if placed else
                      " (it has no decision tables)"))


def evaluate_named(src: SourceDoc, name: Named, inputs: Mapping[str, str],
                   table: TableArg = None, *, policy: str | None = None,
                   synonyms: Mapping[str, Sequence[str]] = {},
                   option: str = "table") -> TableResult:
    """Evaluate the decision table of `src` that `name` (with `table`) names against
    `inputs`: the one entry point of ``evaluate_table``, ``/api/table/evaluate`` and
    ``kb table eval``. `synonyms` as `match_rules` takes them; `option` is what the
    surface calls its table argument (``table``, ``--table``) in messages."""
    tables = document_tables(src)
    choice = named_table(src, name, table, tables, option)
    try:
        n, dt = select_table(tables, choice, src.rel)
    except TableError as exc:  # "Risk level table" for 3.2 风险等级表: by its section's meaning
        meant = _table_by_meaning(src, tables, choice) if exc.key == "no_table_named" else None
        if meant is None:
            raise
        n, dt = select_table(tables, meant, src.rel)
    return match_rules(dt, in_script(dt, inputs, synonyms, f"{src.rel}: {dt.label()}"),
                       policy=policy, doc=src.rel,
                       table_index=n, synonyms=synonyms)


def in_script(table: DecisionTable, inputs: Mapping[str, str],
              synonyms: Mapping[str, Sequence[str]] = {}, where: str = "") -> dict[str, str]:
    """`inputs` as the table reads them when a caller pastes or types a name other than the
    header as written. A name pasted from a chat app or a PDF carries invisible characters
    (`温度\u200b`, a byte-order mark, a zero-width joiner inside it: `pasted_name`), which
    no header holds (the Markdown reader drops them). A caller may type Traditional script
    (溫度=超過20度, 介於22和25度之間, 濕度): a number's words (the bounds, units and numerals
    the value reader knows, `decision.words`) are Simplified ones, so a numeric column's value
    is read in Simplified (`index.tokenize.to_simplified`), as a search reads a question; a
    name the table does not hold as written is looked for in Simplified, and a text value too
    where its column's cells are written in Simplified (a table in Traditional keeps its own).
    Names are compared in Simplified both ways: 溫度 names a column 温度, and 温度 (or a
    synonym of it) a column 溫度(℃); the input is then given under a name the table reads
    as that column, and that no other input holds (`_free_name`). `where` names the table
    in errors (`match_rules`'s words). A value is read as pasted too (`pasted_name`: `18\u200b`
    is 18, and is echoed so; `２５` is 25: `read_value`), as the Markdown reader reads the
    cells it is compared with."""
    out: dict[str, str] = {}
    simple = replace(table, header=tuple(to_simplified(h) for h in table.header))
    for key, given in inputs.items():
        value = read_value(given) if isinstance(given, str) else given
        i = find_input(table, key, synonyms)
        if i is None:
            name = pasted_name(key)
            i = _column_of(table, simple, name, synonyms)
            if i is None:  # refused by `match_rules`, named as read
                key = key if name in inputs or name in out else name
            elif (free := _free_name(table, i, name, value, inputs, out, synonyms,
                                     where)) is None:
                continue  # the value another name of its column gives
            else:
                key = free
        if i is not None and (i in table.numeric or all(
                to_simplified(row[i]) == row[i] for row in table.rows)):
            value = to_simplified(value)
        out[key] = value
    return out


def _column_of(table: DecisionTable, simple: DecisionTable, name: str,
               synonyms: Mapping[str, Sequence[str]]) -> int | None:
    """The input column `name` names as written, else in Simplified (`simple`: the table's
    headers in Simplified); an agent's snake_case key (``relative_humidity``) as words."""
    for each in dict.fromkeys((name, name.replace("_", " "))):
        i = find_input(table, each, synonyms)
        if i is None:
            i = find_input(simple, to_simplified(each), synonyms)
        if i is not None:
            return i
    return None


def pasted_name(name: str) -> str:
    """A column's name (or a value) as a caller pasted it, read as the Markdown reader reads a
    header (or a cell):
    without the invisible characters around or inside it (`errors.INVISIBLE`: `温\u200b度` is
    温度) and the blanks around it."""
    return unpadded(INVISIBLE.sub("", name))


def read_value(value: str) -> str:
    """An input value as the table reads it, and echoes it in `inputs`: as pasted
    (`pasted_name`), its full-width ASCII forms as the ASCII they are read as (`narrow_width`:
    `温度=２５` was echoed `２５` beside a reason that read 25); a superscript is kept, as the
    table reads it apart from the digit before it (``10⁵`` is 10^5, no 105)."""
    return pasted_name(narrow_width(value))


def _free_name(table: DecisionTable, i: int, name: str, value: str,
               inputs: Mapping[str, str], out: Mapping[str, str],
               synonyms: Mapping[str, Sequence[str]], where: str) -> str | None:
    """The name an input `in_script` found as column `i` under another name goes under: its
    pasted name read (`name`) when the table reads it so, its header, or its number, the
    first that no other input holds. When the caller gave each of them too, one holding
    another value is refused as `match_rules` refuses two values for a column; None when
    they all hold this one (the input adds nothing)."""
    names = [n for n in (name, table.header[i], str(i + 1))
             if find_input(table, n, synonyms) == i]
    free = [n for n in names if n not in inputs and n not in out]
    if free:
        return free[0]
    held = {n: out.get(n, inputs.get(n, "")) for n in names}
    other = next((n for n, v in held.items() if str(v).strip() != value.strip()), None)
    if other is None:
        return None
    first = f"{other}={held[other]}"
    raise TableError(f"{where}: two values for column {table.header[i]}: {first} and "
                     f"{name}={value}; give one", key="table_two_values",
                     values={"column": table.header[i], "first": first,
                             "second": f"{name}={value}"})


def built_name(src: SourceDoc, tables: Tables, choice: str) -> str | int:
    """`choice` as `select_table` takes it: the number of the decision table a build's CSV
    name of `src` names (`derived_table_number`: ``wheat-scab-1.csv``, a search result's
    ``extra.csv``, counts every Markdown table of the document), else `choice` itself (an
    annotated name is the author's and wins). A derived name of a table that is no
    decision table is said so, with the decision tables there are."""
    text = choice.strip()
    wanted = text.lower().removesuffix(".csv")
    if any(isinstance(t, DecisionTable) and t.name
           and t.name.strip().lower().removesuffix(".csv") == wanted for t in tables):
        return choice
    number = derived_table_number(src.rel, text)
    if number is None:
        return choice
    parsed, n = parse(src), 0
    for table in parsed.tables():  # counted as `document_tables` counts them
        try:
            rules = table_from_markdown(table, parsed.lines) is not None
        except TableError:
            rules = True  # malformed: choosing it says what is wrong
        n += rules
        if table.index == number:
            if rules:
                return n
            break
    else:
        return choice
    listed = "; ".join(f"{n}: {_label(t)}" for n, t in enumerate(tables, 1)
                       if isinstance(t, DecisionTable))
    raise TableError(f"'{one_line(text, 80)}' is table {number} of {src.rel} "
                     f"({line_span(table.line_start, table.line_end, '-')}), which is no "
                     "decision table" + (f"; its decision tables: {listed}" if listed else
                                         "; it has no decision tables"),
                     key="no_table_named", values={"name": one_line(text, 80),
                                                   "count": str(len(tables))})


def _sections_named(parsed: Any, heading: str) -> list[Any]:
    """The sections whose heading path ends with `heading` (as `read` matches one, in the
    other language too: `by_meaning`); none when no section does (a heading renamed since
    the citation was given)."""
    parts, seps = heading_parts(heading)
    return [s for s in parsed.sections() if s.heading_path
            and path_matches(parts, seps, s.heading_path)] or by_meaning(parsed.sections(), parts)


def _table_by_meaning(src: SourceDoc, tables: Tables, choice: Any) -> int | None:
    """The number of the one decision table in the section `choice` names in the other
    language (`by_meaning`: "Risk level table" for 3.2 风险等级表); None for none or several
    (the error about `choice` as a name stands)."""
    if not isinstance(choice, str):
        return None
    found = _inside(tables, by_meaning(parse(src).sections(), heading_parts(choice)[0]))
    return found[0] if len(found) == 1 else None


def _at(tables: Tables, lines: tuple[int, int]) -> int | None:
    """The number of the first decision table of `tables` at or across `lines`; None."""
    return next((n for n, t in enumerate(tables, 1) if isinstance(t, DecisionTable)
                 and t.line_start <= lines[1] and lines[0] <= t.line_end), None)


def _inside(tables: Tables, sections: Sequence[Any]) -> list[int]:
    """The numbers (1-based, as `select_table` counts) of the tables inside `sections`
    (their subsections too); a malformed one counts, so choosing it says what is wrong."""
    out = []
    for n, t in enumerate(tables, 1):
        first = t.line_start if isinstance(t, DecisionTable) else t.line or 0
        if any(s.line_start <= first <= s.line_end for s in sections):
            out.append(n)
    return out


def _one_in(tables: Tables, parsed: Any, sections: Sequence[Any], said: str, label: str,
            option: str) -> int:
    """The number of the one table inside `sections` (what a link or heading path `said`
    names); one line naming the tables there, or the document's, and what to send
    instead when there is none or several."""
    if not sections:  # no heading path matched: read's own refusal, naming the sections
        find_section(parsed, said)
    found = _inside(tables, sections)
    if len(found) == 1:
        return found[0]
    span = ", ".join(line_span(s.line_start, s.line_end, "-") for s in sections[:5])
    opening = f"'{one_line(said, 80)}' names a section of {label} ({span})"
    listed = found or [n for n, t in enumerate(tables, 1) if isinstance(t, DecisionTable)]
    where = "; ".join(f"{n}: {_label(tables[n - 1])}" for n in listed[:10])
    instead = (f"give the document path {label} alone with "
               + " or ".join(f"{option}={n}" for n in listed[:5]))
    if found:
        raise TableError(f"{opening} holding {len(found)} decision tables ({where}): {instead}",
                         key="table_section_shared",
                         values={"name": one_line(said, 80), "count": str(len(found))})
    raise TableError(f"{opening} that holds no decision table" +
                     (f"; its decision tables: {where}: {instead}" if listed else
                      "; it has no decision tables"), key="section_no_table",
                     values={"name": one_line(said, 80)})


def _label(t: DecisionTable | TableError) -> str:
    """A table as a listing names it: its heading path and lines."""
    if isinstance(t, TableError):
        return f"malformed table at line {t.line}"
    return f"{t.label()} ({line_span(t.line_start, t.line_end, '-')})"
