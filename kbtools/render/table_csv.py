"""Markdown tables to CSV files: UTF-8 with a BOM (so Excel shows Chinese), deterministic bytes.

A table is named by a `<!-- csv: name.csv -->` annotation right before it, else
`<doc-stem>-<n>.csv` with n the 1-based index of the table in its document (`csv_name`).
`table_csv` makes one table's bytes, `render_tables` writes a build's CSV files, and
`duplicate_csv_names` lets `kb check` report name clashes before the build would refuse them.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kbtools.errors import RenderError
from kbtools.fsutil import atomic_write_bytes
from kbtools.markdown.doctree import Table

BOM = "\ufeff"
SAFE_NAME = re.compile(r"^[\w\u4e00-\u9fff][\w\u4e00-\u9fff .()+-]*\.csv$")
_UNSAFE = re.compile(r"[^\w\u4e00-\u9fff .()+-]")


@dataclass(frozen=True)
class CsvName:
    """A CSV file name and the table that claims it (for duplicate-name findings)."""

    name: str
    doc: str  # doc path that declares it
    line: int  # line of the table (its annotation sits just above)


def csv_name(doc_rel: str, table: Table) -> str:
    """The CSV file name of a table: its `csv` annotation or `<doc-stem>-<n>.csv` (characters
    of the stem that a plain file name may not hold become `_`)."""
    name = table.annotations.get("csv", "").strip()
    if name:
        return name if name.lower().endswith(".csv") else name + ".csv"
    stem = _UNSAFE.sub("_", PurePosixPath(doc_rel).stem)  # "what's-new.md" → what_s-new-1.csv
    if not re.match(r"[\w\u4e00-\u9fff]", stem):
        stem = "_" + stem
    return f"{stem}-{table.index}.csv"


def table_csv(table: Table) -> bytes:
    """The CSV bytes of one table: BOM, header row, body rows; \\r\\n line ends (RFC 4180)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    width = max([len(table.header)] + [len(r) for r in table.rows])
    writer.writerow(list(table.header) + [""] * (width - len(table.header)))
    for row in table.rows:
        writer.writerow(list(row) + [""] * (width - len(row)))
    return (BOM + buf.getvalue()).encode("utf-8")


def render_tables(doc_tables: Iterable[tuple[str, Table]], out_dir: Path) -> dict[str, str]:
    """Write every (doc rel path, table) as `out_dir/<csv name>`; returns name -> doc.

    Raises RenderError when a name is unsafe (a path) or two tables claim one name;
    `kb check` reports the same problems earlier through `duplicate_csv_names`.
    """
    written: dict[str, str] = {}
    out_dir.mkdir(parents=True, exist_ok=True)
    for rel, table in doc_tables:
        name = csv_name(rel, table)
        if not SAFE_NAME.match(name):
            raise RenderError(f"table csv name {name!r} is not a plain file name",
                              path=rel, line=table.line_start)
        if name in written:
            raise RenderError(f"csv name {name!r} is already used by {written[name]}",
                              path=rel, line=table.line_start)
        data = table_csv(table)
        target = out_dir / name
        if not (target.is_file() and target.read_bytes() == data):
            atomic_write_bytes(target, data)
        written[name] = rel
    return written


def duplicate_csv_names(doc_tables: Iterable[tuple[str, Table]]) -> list[tuple[CsvName, CsvName]]:
    """(first, later) pairs of tables that would write the same CSV file, for `kb check`."""
    seen: dict[str, CsvName] = {}
    dups: list[tuple[CsvName, CsvName]] = []
    for rel, table in doc_tables:
        entry = CsvName(csv_name(rel, table), rel, table.line_start)
        key = entry.name.lower()  # case-insensitive file systems would collide too
        if key in seen:
            dups.append((seen[key], entry))
        else:
            seen[key] = entry
    return dups
