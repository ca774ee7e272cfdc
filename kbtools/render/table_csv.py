"""Markdown tables to CSV files: UTF-8 with a BOM (so Excel shows Chinese), deterministic bytes.

A table is named by a `<!-- csv: name.csv -->` annotation right before it, else
`<doc-stem>-<n>.csv` with n the 1-based index of the table in its document (`csv_name`).
Derived names are made unique over the whole build by `CsvNames`, the one name map the
chunker (the `csv` of table chunks) and `render_tables` share: a derived name that another
table also derives or annotates (case-insensitively; `a/index.md` and `b/index.md`, or
`what's-new.md` and `what_s-new.md`) is qualified by the document's folders
(`a.index-1.csv`), then by a hash of its path, then by a counter, so no two tables of a
build can get one file, and the same documents always get the same names.
`table_csv` makes one table's bytes, `render_tables` writes a build's CSV files, and
`duplicate_csv_names` lets `kb check` report clashes of *annotated* names (an author's
choice, refused by the build) before the build would refuse them.

What a name may be is one rule, `unsafe_name` (with `annotated_file_name`, the ".csv" an
annotation may leave out, and `name_key`, when two names are one file): `render_tables`
refuses what it reports and `kb check` reports the same, at the annotation's line. A name
is a plain file name on every system a release is opened on: no path separator, no leading
dot or space, no control or format character, none of `<>:"|?*`, not a Windows device name,
at most 255 bytes. Chinese punctuation (`杀菌剂（用量）.csv`, `戊唑·咪鲜胺 用量.csv`) is fine.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kbtools.errors import RenderError
from kbtools.fsutil import atomic_write_bytes
from kbtools.markdown.doctree import Inline, Table

BOM = "\ufeff"
_UNSAFE = re.compile(r"[^\w\u4e00-\u9fff .()+-]")  # what a derived name replaces with `_`
MAX_FILE_NAME_BYTES = 255  # the limit of common file systems (ext4, APFS, NTFS in UTF-16)
NOT_IN_NAME = frozenset('/\\<>:"|?*')  # path separators and what Windows names cannot hold
# control, format (bidi overrides, zero-width), surrogate, private-use, unassigned, line and
# paragraph separators: invisible or unportable in a file name
_NOT_IN_NAME_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# what opens a formula in a spreadsheet cell (OWASP "CSV injection"); and what of those is a
# plain value a spreadsheet reads as written
FORMULA_STARTS = frozenset("=+-@\t\r")
PLAIN_VALUE = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?%?$")
WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                             *(f"lpt{i}" for i in range(1, 10))})


@dataclass(frozen=True)
class CsvName:
    """A CSV file name and the table that claims it (for duplicate-name findings)."""

    name: str
    doc: str  # doc path that declares it
    line: int  # line of the table (its annotation sits just above)


MAX_NAME_BYTES = 200  # a derived name is kept below common file-name limits (255 bytes)


def annotated_file_name(value: str) -> str | None:
    """The file name a `<!-- csv: value -->` annotation asks for (".csv" added), or None."""
    name = value.strip()
    if not name:
        return None
    return name if name.lower().endswith(".csv") else name + ".csv"


def annotated_name(table: Table) -> str | None:
    """The name a table's `csv` annotation gives it (".csv" added), or None."""
    return annotated_file_name(table.annotations.get("csv", ""))


def name_key(name: str) -> str:
    """What two names share when they are one file: case-insensitive and normalisation-
    insensitive file systems (Windows, macOS) take `a.csv` and `A.csv`, or a composed and a
    decomposed `é`, for the same file."""
    return unicodedata.normalize("NFC", name).casefold()


def unsafe_name(name: str) -> str | None:
    """Why `name` cannot be a CSV file of a build's data/tables/ (None: it can). The one rule
    of `render_tables` and `kb check`; the message names the name and what to change."""
    why = _name_problem(name)
    return None if why is None else f"csv name {name!r} is not a plain file name: {why}"


def _name_problem(name: str) -> str | None:
    if not name.lower().endswith(".csv") or not name[:-4].strip():
        return "name the file, e.g. 'dosage.csv'"
    if "/" in name or "\\" in name:
        return "it is a path; give a file name without folders"
    if name[0] == "." or name[0].isspace():
        return "it starts with a dot or a space"
    bad = next((c for c in name if c in NOT_IN_NAME
                or unicodedata.category(c) in _NOT_IN_NAME_CATEGORIES), None)
    if bad is not None:
        return f"it holds {bad!r}, which file names cannot hold on every system"
    if name.split(".")[0].rstrip(" ").lower() in WINDOWS_DEVICES:
        return "Windows reserves that name for a device"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_FILE_NAME_BYTES:
        return f"it is longer than {MAX_FILE_NAME_BYTES} bytes"
    return None


def _safe(part: str) -> str:
    """`part` with the characters a plain file name may not hold as `_`, starting with a
    word character ("what's-new" → what_s-new)."""
    stem = _UNSAFE.sub("_", part)
    return stem if re.match(r"[\w\u4e00-\u9fff]", stem) else "_" + stem


def _derived(stem: str, index: int, doc_rel: str, tag: str = "") -> str:
    """`<stem>[-<tag>]-<n>.csv`, the stem cut (and the path's hash added) when the name
    would pass MAX_NAME_BYTES."""
    tail = (f"-{tag}" if tag else "") + f"-{index}.csv"
    name = stem + tail
    if len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    digest = "-" + hashlib.sha256(doc_rel.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    room = MAX_NAME_BYTES - len((digest + tail).encode("utf-8"))
    cut = stem.encode("utf-8")[:room].decode("utf-8", "ignore")
    return cut + digest + tail


def csv_name(doc_rel: str, table: Table) -> str:
    """The CSV file name a table asks for: its `csv` annotation or `<doc-stem>-<n>.csv`.
    Unique only within its document; a build names tables through `CsvNames`."""
    return annotated_name(table) or _derived(_safe(PurePosixPath(doc_rel).stem), table.index,
                                             doc_rel)


def derived_table_number(doc_rel: str, name: str) -> int | None:
    """The Markdown table number (`Table.index`) that `name` gives to one of `doc_rel`'s
    tables when a build derived it (`csv_name`, or `CsvNames` qualifying it by the
    document's folders and a hash of its path: ``wheat-scab-1.csv``,
    ``crops.wheat-scab-1.csv``, ``crops.x-1a2b3c4d-2.csv``), ``.csv`` optional; None when
    it is no such name. A search result carries the name as its ``extra.csv``: a caller
    passing it back as the table named no table, since only annotated names were taken."""
    key = name.strip().lower()
    key = key.removesuffix(".csv")
    head, _, number = key.rpartition("-")
    if not (number.isascii() and number.isdigit()) or not head:
        return None
    digest = hashlib.sha256(doc_rel.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    rest, _, counter = head.rpartition("-")
    if head.endswith(f"-{digest}"):
        head = head[:-len(digest) - 1]
    elif counter.isascii() and counter.isdigit() and rest.endswith(f"-{digest}"):
        head = rest[:-len(digest) - 1]
    stem = _safe(PurePosixPath(doc_rel).stem).lower()
    return int(number) if head == stem or head.endswith("." + stem) else None


def _qualified(rel: str, index: int, top: str, used: set[str]) -> str:
    """The first name of `rel`'s table `index` not in `used` (`name_key`s): qualified by
    the document's folders below `top`, then also by a hash of its path, then a counter."""
    path = PurePosixPath(os.path.relpath(rel, top) if top != "." else rel)
    parts = [_safe(p) for p in (*path.parent.parts, path.stem) if p != ".."]
    if parts[0].lower() in WINDOWS_DEVICES:  # `con.index-1.csv` would name a device
        parts[0] = "_" + parts[0]
    stem = ".".join(parts)
    digest = hashlib.sha256(rel.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    name, k = _derived(stem, index, rel), 1
    while name_key(name) in used:
        tag = digest if k == 1 else f"{digest}-{k}"
        name, k = _derived(stem, index, rel, tag), k + 1
    return name


class CsvNames:
    """The CSV file name of every table of a build, collision-free by construction.

    Annotated names are the author's: kept as written (a clash between two of them is a
    `kb check` error and a build error). Each derived name that is unique (ignoring case)
    among all the names asked for is kept; the others are qualified by the document's
    folders below the documents' common folder, then by a hash of the document's path,
    then by a counter, in the sorted order of (document, table), until unique. The map is
    a function of the set of tables alone, so a build is reproducible."""

    def __init__(self, doc_tables: Iterable[tuple[str, Table]]):
        tables = sorted(((rel, t) for rel, t in doc_tables), key=lambda x: (x[0], x[1].index))
        self._names: dict[tuple[str, int], str] = {}
        wanted = {(rel, t.index): csv_name(rel, t) for rel, t in tables}
        asked = Counter(name_key(n) for n in wanted.values())
        used = {name_key(n) for n in wanted.values()}
        top = os.path.commonpath([PurePosixPath(rel).parent.as_posix() for rel, _ in tables]
                                 or ["."])
        later: list[tuple[str, Table]] = []
        for rel, t in tables:
            name = wanted[rel, t.index]
            if annotated_name(t) is not None or asked[name_key(name)] == 1:
                self._names[rel, t.index] = name
            else:
                later.append((rel, t))
        for rel, t in later:
            name = _qualified(rel, t.index, top, used)
            used.add(name_key(name))
            self._names[rel, t.index] = name

    @classmethod
    def of_document(cls, doc_rel: str, tables: Iterable[Table]) -> CsvNames:
        """The names of one document's tables on their own (a document chunked alone)."""
        return cls((doc_rel, t) for t in tables)

    def name(self, doc_rel: str, table: Table) -> str:
        """The file name of `table` of document `doc_rel` (which the map must hold)."""
        return self._names[doc_rel, table.index]

    def __len__(self) -> int:
        return len(self._names)


def spreadsheet_text(cell: str) -> str:
    """`cell` as a spreadsheet shows it as text, never runs it: a cell Excel, WPS or
    LibreOffice would take for a formula (`=HYPERLINK(…)`, `+cmd|' /C calc'!A0`, `@SUM(…)`,
    `-2+3`, or one opening with a tab or CR) gets a leading `'`, which they read as "text
    follows" and do not show. A number (`-5`, `+3.5`, `-1,200`, `-20%`) and a lone `-` or
    `+` (a table's "none") are left as they are: a spreadsheet reads them as the author
    meant."""
    if cell[:1] in FORMULA_STARTS and not PLAIN_VALUE.match(cell):
        return "'" + cell
    return cell


_NONE = Inline()


def table_csv(table: Table) -> bytes:
    """The CSV bytes of one table: BOM, header row, body rows; \\r\\n line ends (RFC 4180);
    every cell as `spreadsheet_text`, so opening the file runs nothing a document wrote."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    width = max([len(table.header)] + [len(r) for r in table.rows])
    cells = iter(table.cells)  # each cell's inline content, in reading order
    for row in (table.header, *table.rows):
        # a cell's `<br>` (Typora's Shift+Enter) a line break in it, as the page shows it
        shown = [(next(cells, None) or _NONE).lines or c for c in row]
        writer.writerow([spreadsheet_text(c) for c in shown] + [""] * (width - len(row)))
    return (BOM + buf.getvalue()).encode("utf-8")


def render_tables(doc_tables: Iterable[tuple[str, Table]], out_dir: Path,
                  names: CsvNames | None = None, *, durable: bool = True,
                  place: Callable[[Path, bytes], None] | None = None) -> dict[str, str]:
    """Write every (doc rel path, table) as `out_dir/<csv name>`; returns name -> doc.

    Each file is written atomically and synced, unless `durable` is False: a build's staging
    directory, never read before it replaces the output whole, needs neither. `place(target,
    data)` puts a file there instead (a build links the files its previous output holds).

    `names` is the build's name map (default: one made from `doc_tables`). Raises
    RenderError when a name is unsafe (a path) or two annotations claim one name (ignoring
    case, as case-insensitive file systems do); `kb check` reports the same problems earlier
    through `duplicate_csv_names`.
    """
    pairs = list(doc_tables)
    names = names if names is not None else CsvNames(pairs)
    written: dict[str, str] = {}
    claimed: dict[str, str] = {}
    out_dir.mkdir(parents=True, exist_ok=True)
    for rel, table in pairs:
        name = names.name(rel, table)
        unsafe = unsafe_name(name)
        if unsafe is not None:
            raise RenderError(unsafe, path=rel, line=table.line_start)
        key = name_key(name)
        if key in claimed:
            raise RenderError(f"csv name {name!r} is already used by {claimed[key]}",
                              path=rel, line=table.line_start)
        claimed[key] = rel
        data = table_csv(table)
        target = out_dir / name
        if place is not None:
            place(target, data)
        elif not durable:
            target.write_bytes(data)
        elif not (target.is_file() and target.read_bytes() == data):
            atomic_write_bytes(target, data)
        written[name] = rel
    return written


def duplicate_csv_names(doc_tables: Iterable[tuple[str, Table]]) -> list[tuple[CsvName, CsvName]]:
    """(first, later) pairs of tables that would write the same CSV file, for `kb check`."""
    seen: dict[str, CsvName] = {}
    dups: list[tuple[CsvName, CsvName]] = []
    for rel, table in doc_tables:
        entry = CsvName(csv_name(rel, table), rel, table.line_start)
        key = name_key(entry.name)  # case-insensitive file systems would collide too
        if key in seen:
            dups.append((seen[key], entry))
        else:
            seen[key] = entry
    return dups
