"""The decision tables of a Markdown document, and `evaluate_table`, the document-level entry point.

The tables come from `kbtools.markdown.doctree` (the one Markdown front end): a table with a
``<!-- decision: … -->`` annotation before it is read with that annotation, any other table
is a decision table only if `build_table` infers one. A malformed annotated table is an error
only when it is the table asked for: the other tables of the document still evaluate.

Imports `kbtools.corpus`, `kbtools.markdown.doctree`, `kbtools.errors` and the pure
`kbtools.decision` modules; reads the document file when given a path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kbtools.corpus import SourceDoc, decode, parse_source, read_source
from kbtools.decision.cell_text import normalize_text
from kbtools.decision.matching import TableResult, match_rules
from kbtools.decision.model import DecisionTable, build_table
from kbtools.errors import SourceError, TableError, plural
from kbtools.markdown.doctree import Document, Table, parse
from kbtools.markdown.heading_paths import heading_parts, path_matches, section_number
from kbtools.markdown.table_lines import count_cells, without_quote_marks

DocRef = SourceDoc | str | os.PathLike[str]  # a parsed source, or the path of a Markdown file
DECISION_ANNOTATION = "decision"  # <!-- decision: inputs=…; outputs=… -->
CSV_ANNOTATION = "csv"  # <!-- csv: name.csv --> also names the decision table


def as_source(doc: DocRef) -> SourceDoc:
    """`doc` itself when already a SourceDoc, else the file at that path, read and split."""
    if isinstance(doc, SourceDoc):
        return doc
    path = Path(doc)
    try:  # a regular file, bounded: a FIFO or /dev/zero named here never blocks
        raw = read_source(path, None)
    except SourceError as exc:
        raise TableError(exc.message, path=str(path)) from None
    return parse_source(decode(raw)[0], path, path.as_posix())


def decision_annotation(table: Table) -> str | None:
    """The text of the table's ``decision`` annotation; None when it has none."""
    return table.annotations.get(DECISION_ANNOTATION)


def raw_row_width(line: str) -> int:
    """Cells in a table row as written (the parser pads short rows and drops extra cells);
    a quoted row's (an Obsidian callout's table) `>` markers are no cell."""
    return count_cells(without_quote_marks(line))


def table_from_markdown(table: Table, lines: Sequence[str] = ()) -> DecisionTable | None:
    """A parsed Markdown table as a decision table; None when it is not one.

    `lines` (the document's lines) let an annotated table's rows be counted as written, so a
    short or long row is reported rather than silently padded. TableError when malformed.
    """
    decision = decision_annotation(table)
    if decision is not None and lines:
        _check_cut(table, lines)
        for n, line in enumerate(table.row_lines, 1):
            width = (raw_row_width(lines[line - 1]) if 0 < line <= len(lines)
                     else len(table.header))
            if width != len(table.header):
                raise TableError(f"table at line {table.line_start}: row {n} has "
                                 f"{plural(width, 'cell')}, the header has {len(table.header)}",
                                 line=line)
    dt = build_table(list(table.header), [list(r) for r in table.rows], decision=decision,
                     row_lines=table.row_lines, line_start=table.line_start,
                     line_end=table.line_end, heading_path=table.heading_path,
                     name=table.annotations.get(CSV_ANNOTATION) or "")
    return dt if dt is None else replace(dt, links=cell_links(table))


MAX_BLANK_LINES = 2  # blank lines after a table through which a cut-off row is looked for


def _check_cut(table: Table, lines: Sequence[str]) -> None:
    """TableError when a blank line (or two) ends an annotated table and a row of its width
    follows: Markdown ends a table at a blank line, so the rows after it, which an editor
    shows as one table, would silently be no rules."""
    end = table.line_end  # 1-based: the table's last line
    for n in range(end, min(end + MAX_BLANK_LINES, len(lines) - 1)):
        if without_quote_marks(lines[n]).strip():
            return
        after = without_quote_marks(lines[n + 1])
        if after.strip().startswith("|") and raw_row_width(after) == len(table.header):
            raise TableError(f"table at line {table.line_start}: the blank line {n + 1} ends "
                             f"the table, so the row at line {n + 2} is no rule: remove the "
                             "blank line", line=n + 1)


def cell_links(table: Table) -> tuple[tuple[int, int, str, str], ...]:
    """The links written in a table's body cells: (0-based row, column, text, target as
    written); none when its cells do not line up with its header and rows."""
    width = len(table.header)
    if not width or len(table.cells) != width * (1 + len(table.rows)):
        return ()
    return tuple((n // width - 1, n % width, link.text, link.href)
                 for n, cell in enumerate(table.cells) if n >= width for link in cell.links)


def document_tables(src: SourceDoc, parsed: Document | None = None
                    ) -> list[DecisionTable | TableError]:
    """Decision tables in document order; a malformed annotated table is its TableError.
    `parsed`: `src` parsed already (`doctree.parse`), else parsed here."""
    parsed = parse(src) if parsed is None else parsed
    out: list[DecisionTable | TableError] = []
    for t in parsed.tables():
        try:
            dt = table_from_markdown(t, parsed.lines)
        except TableError as exc:
            out.append(TableError(exc.message, path=src.rel, line=exc.line,
                                  key="malformed_table",
                                  values={"line": str(exc.line or t.line_start)}))
            continue
        if dt is not None:
            out.append(dt)
    return out


def decision_tables(src: DocRef) -> list[DecisionTable]:
    """The decision tables of a document (SourceDoc or path); TableError if one is malformed."""
    out = []
    for t in document_tables(as_source(src)):
        if isinstance(t, TableError):
            raise t
        out.append(t)
    return out


def list_tables(src: DocRef) -> list[dict[str, Any]]:
    """Each decision table's `summary()` plus its 1-based ``index`` (`kb table list --json`)."""
    return [dict(t.summary(), index=n) for n, t in enumerate(decision_tables(src), 1)]


def select_table(tables: Sequence[DecisionTable | TableError], table: str | int | None,
                 doc: str = "") -> tuple[int, DecisionTable]:
    """Pick one table by 1-based index, annotation/CSV name or heading. Returns (index, table).

    `tables` may hold TableError entries (malformed tables): choosing one raises it.
    """
    labels = [t.label() for t in tables if not isinstance(t, TableError)]

    def label(t: DecisionTable | TableError) -> str:
        if isinstance(t, TableError):
            return f"malformed table at line {t.line}"
        # tables of one section share their label: their lines tell them apart
        return t.label() + (f" (lines {t.line_start}-{t.line_end})"
                            if labels.count(t.label()) > 1 else "")

    def chosen(n: int) -> tuple[int, DecisionTable]:
        entry = tables[n - 1]
        if isinstance(entry, TableError):
            raise entry
        return n, entry

    listing = "; ".join(f"{n}: {label(t)}" for n, t in enumerate(tables, 1))
    count = str(len(tables))
    if not tables:
        raise TableError("no decision table in this document", path=doc or None,
                         key="no_decision_table")
    if table is None or str(table).strip() == "":
        if len(tables) == 1:
            return chosen(1)
        raise TableError(f"{len(tables)} decision tables; choose one by number or name "
                         f"({listing})", path=doc or None, key="table_not_chosen",
                         values={"count": count})
    text = str(table).strip()
    if text.isascii() and text.isdigit():  # "²" or "١" is a name (int() refuses or reads them)
        n = int(text)
        if 1 <= n <= len(tables):
            return chosen(n)
        numbered = any(section_number(h) == text for t in tables
                       if isinstance(t, DecisionTable) for h in t.heading_path)
        hint = f"; for the section numbered {n}, write 'section {n}'" if numbered else ""
        raise TableError(f"no decision table {n} (there are {len(tables)}: {listing}){hint}",
                         path=doc or None, key="no_table_number",
                         values={"n": str(n), "count": count})
    found = _table_named(tables, text, doc)
    if found is None:
        raise TableError(f"no decision table named '{text}' ({listing})", path=doc or None,
                         key="no_table_named", values={"name": text, "count": count})
    return found


def _table_named(tables: Sequence[DecisionTable | TableError], text: str,
                 doc: str = "") -> tuple[int, DecisionTable] | None:
    """By annotation/CSV name (``.csv`` optional) first, then by last heading or heading
    path, then by the section it lies in as `read` names a section (`_table_in_section`)."""
    key = normalize_text(text)
    bare = key.removesuffix(".csv")
    good = [(n, t) for n, t in enumerate(tables, 1) if not isinstance(t, TableError)]
    for n, t in good:
        if t.name and normalize_text(t.name).removesuffix(".csv") == bare:
            return n, t
    found = []
    for n, t in good:
        path = [normalize_text(h) for h in t.heading_path]
        if path and (path[-1] == key or " > ".join(path) == key or "/".join(path) == key):
            found.append((n, t))
    if len(found) > 1:  # one section with several tables: the heading names none of them
        which = "; ".join(f"{n}: lines {t.line_start}-{t.line_end}" for n, t in found)
        raise TableError(f"'{text}' is the heading of {len(found)} decision tables ({which}); "
                         "choose one by number", path=doc or None, key="table_heading_shared",
                         values={"name": text, "count": str(len(found))})
    return found[0] if found else _table_in_section(good, text, doc)


def _table_in_section(good: Sequence[tuple[int, DecisionTable]], text: str,
                      doc: str = "") -> tuple[int, DecisionTable] | None:
    """The table of the section `text` names as `kb read` and citations name one
    (`markdown.heading_paths`: its number "4.4" or "section 4.4", its heading without the
    number, a citation's "A > B"), else the one in a subsection of it; several: an error
    naming them. The tool's `table` took only a heading exactly as written, so "4.4", as
    `read` takes it and a citation shows it, was no table."""
    parts, seps = heading_parts(text)
    if not parts:
        return None
    found = [(n, t) for n, t in good if path_matches(parts, seps, t.heading_path)]
    if not found:
        found = [(n, t) for n, t in good if any(path_matches(parts, seps, t.heading_path[:j])
                                                for j in range(1, len(t.heading_path)))]
    if len(found) > 1:
        which = "; ".join(f"{n}: {t.label()} (lines {t.line_start}-{t.line_end})"
                          for n, t in found)
        raise TableError(f"'{text}' names sections holding {len(found)} decision tables ({which}); "
                         "choose one by number", path=doc or None, key="table_section_shared",
                         values={"name": text, "count": str(len(found))})
    return found[0] if found else None


def evaluate_table(doc_path_or_src: DocRef, table: str | int | None,
                   inputs: Mapping[str, str], *, policy: str | None = None,
                   doc: str | None = None,
                   synonyms: Mapping[str, Sequence[str]] = {}) -> TableResult:
    """Evaluate one decision table of a document against inputs (column → value).

    `table` chooses among several tables (see `select_table`); `doc` is the name the result
    and errors use for the document (default: its path as read); `synonyms` the knowledge's
    synonym groups keyed by `column_key` (`match_rules`). The library entry point behind
    `kb table eval` and the MCP tool `evaluate_table`.
    """
    src = as_source(doc_path_or_src)
    label = doc or src.rel
    n, dt = select_table(document_tables(src), table, label)
    return match_rules(dt, inputs, policy=policy, doc=label, table_index=n, synonyms=synonyms)
