"""A content-addressed cache of Markdown scans, so unchanged documents are not re-parsed.

The scan of a body depends only on its text and the parser versions, so the key is a hash
of exactly those. Path, schema and anchor checks always run fresh (they depend on the
filesystem and the schemas). Entries are rows of `<cache dir>/check-scans.sqlite`, read
one by one as documents are checked (an edit reads and writes one, not the whole cache);
a missing, unreadable or unwritable cache just means parsing again, and a file that is
not a database is replaced.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import markdown_it
import mdit_py_plugins

from kbtools.cachedb import is_busy, open_cache_db
from kbtools.markdown.frontend import Ref, Scan, TableShape

FORMAT = 41  # bump when `scan` reads the same text differently (3: `<`, `>` kept in text;
# 4: unclosed code fences; 5: a `$` inside a code span closes no formula;
# 6: `[^1]: …` is a footnote, no link definition; 7: HTML `src`/`href` percent-decoded;
# 8: inline math written over lines found by its first line; 9: `$$` after text;
# 10: Obsidian wikilinks and embeds; 11: a destination located as written first;
# 12: a ```latex or ```tex fence is code, no formula; 13: unclosed code fences kept, a
# front-matter edit lost their `code-unclosed` warning; 14: HTML tables; 15: Obsidian
# `%%` comments; 16: `==highlight==` markers are no heading text; 17: footnotes parsed:
# `[^1]` is no heading text, a definition's indented paragraphs are no code; 18: an
# escaped `\{#x}` ending a heading is text, `<script>`/`<style>` contents and invisible
# characters no heading text; 19: images without alternative text; 20: footnote
# references no definition resolves, definitions no reference uses; 21: heading levels;
# 22: a wikilink with emphasis or a highlight inside, `[[a*b*c]]`, `[[n|**label**]]`;
# 23: an image in a link's text located, a destination located only where it ends;
# 24: each formula's display flag, for `\tag` in inline math; 25: an Obsidian `%% comment %%`
# the parser closes is no text (no heading text, no link inside it): only unclosed `%%` found;
# 26: a wikilink holding an inline HTML tag, `![[p.png|<a>]]`, or ending in a backslash;
# 27: an `<img>` tag's alt is heading text but no part of its anchor; 28: a quoted table's
# cells counted without its `>`, paragraph lines opening with `#` (`heading-no-space`); 29: links and images with a space in
# their path (`link-space`); 30: tables read as text (`table-unread`: widths, no blank line, full-width `｜`), table rows holding no
# `|` (`table-text-row`)); 31: the caption an HTML wrapper shows beside a picture with no alt;
# 32: the lines of fenced code blocks, for `merge-conflict`
# 33: a heading's formula reads as said in its text (`E=mc²`), its anchor still the LaTeX's;
# `~~struck~~` is no text of headings and cells
# 34: an empty destination (`[a]()`, `src=""`) located where it is written, not at column 1;
# a table row's cells located in order (a destination two cells write is two)
# 35: each table cell located from where it starts: a spaced link or footnote two cells
# write is two; each formula's column; a spaced link after the same text in a code span
# 36: `<!-- markdownlint-… -->` comments kept (`Scan.lint`); a table row's wikilinks whose
# `|` ends their cell
# 37: Markdown an HTML block swallows, comments never closed (`Scan.swallowed`, `.open_comments`)
# 38: every line of Markdown an HTML block swallows (`Scan.swallowed`'s fourth), its table
# rows, quotes, code fences and `$$` too; the files of `<video>`, `<audio>`, `<source>`,
# `<iframe>`, `<embed>`, `<object>` (`frontend.FILE_ATTRS`) and a video's `poster`
# 39: the files a `srcset` names (`<img srcset>`, `<picture>`'s `<source srcset>`); a file
# an HTML element plays or frames (`Ref.plays`)
# 40: an inline `<img>` CommonMark leaves as text (`<img alt=it's src=a.png>`) is a picture
# 41: an HTML block's files named by attributes in capitals (`<IMG SRC=…>`) are read
FILE_NAME = "check-scans.sqlite"
MAX_ENTRIES = 50_000
SALT = f"{FORMAT}:{markdown_it.__version__}:{mdit_py_plugins.__version__}"


def key_for(body: str, body_line: int) -> str:
    return hashlib.blake2b(f"{SALT}\0{body_line}\0{body}".encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def to_json(scan: Scan) -> dict[str, Any]:
    return {
        "refs": [[r.kind, r.target, r.line, r.col, r.raw, r.plays] for r in scan.refs],
        "headings": scan.headings,
        "anchors": sorted(scan.anchor_texts.items()),
        "levels": scan.heading_levels,
        "ids": sorted(scan.html_ids),
        "tables": [[t.line, t.header_cells, [list(r) for r in t.rows], list(t.text_rows)]
                   for t in scan.tables],
        "unread_tables": scan.unread_tables,
        "math": scan.math,
        "dollars": scan.stray_dollars,
        "csv": scan.csv_names,
        "wiki": scan.wikilinks,
        "fences": scan.unclosed_fences,
        "html_tables": scan.html_tables,
        "comments": scan.comments,
        "no_alt": scan.images_no_alt,
        "notes_undefined": scan.notes_undefined,
        "notes_unused": scan.notes_unused,
        "hash_lines": scan.hash_lines,
        "spaced": scan.spaced,
        "fenced": scan.fenced,
        "lint": scan.lint,
        "swallowed": scan.swallowed,
        "open_comments": scan.open_comments,
    }


def from_json(data: dict[str, Any]) -> Scan:
    return Scan(
        refs=[Ref(*r) for r in data["refs"]],
        headings=[(int(a), str(b)) for a, b in data["headings"]],
        anchor_texts={int(a): str(b) for a, b in data["anchors"]},
        heading_levels=[(int(a), int(b)) for a, b in data["levels"]],
        html_ids=set(data["ids"]),
        tables=[TableShape(a, b, tuple((int(x), int(y)) for x, y in rows),
                           tuple(int(x) for x in text))
                for a, b, rows, text in data["tables"]],
        unread_tables=[(int(a), str(b)) for a, b in data["unread_tables"]],
        math=[(int(a), int(b), str(c), bool(d)) for a, b, c, d in data["math"]],
        stray_dollars=[(int(a), int(b)) for a, b in data["dollars"]],
        csv_names=[(int(a), str(b)) for a, b in data["csv"]],
        wikilinks=[(int(a), int(b), str(c)) for a, b, c in data["wiki"]],
        unclosed_fences=[(int(a), str(b)) for a, b in data["fences"]],
        html_tables=[int(a) for a in data["html_tables"]],
        comments=[(int(a), int(b)) for a, b in data["comments"]],
        images_no_alt=[(int(a), int(b), str(c)) for a, b, c in data["no_alt"]],
        notes_undefined=[(int(a), int(b), str(c)) for a, b, c in data["notes_undefined"]],
        notes_unused=[(int(a), str(b)) for a, b in data["notes_unused"]],
        hash_lines=[(int(a), str(b)) for a, b in data["hash_lines"]],
        spaced=[(int(a), int(b), str(c), str(d)) for a, b, c, d in data["spaced"]],
        fenced=[(int(a), int(b)) for a, b in data["fenced"]],
        lint=[(int(a), str(b)) for a, b in data["lint"]],
        swallowed=[(int(a), int(b), int(c), tuple(int(x) for x in d))
                   for a, b, c, d in data["swallowed"]],
        open_comments=[int(a) for a in data["open_comments"]],
    )


@dataclass
class ScanCache:
    path: Path | None
    new: dict[str, dict[str, Any]] = field(default_factory=dict)
    _con: sqlite3.Connection | None = field(default=None, repr=False)
    _pid: int = field(default=0, repr=False)

    @classmethod
    def load(cls, cache_dir: Path | None) -> ScanCache:
        return cls(None if cache_dir is None else cache_dir / FILE_NAME)

    @property
    def con(self) -> sqlite3.Connection | None:
        """This process's connection (a forked check worker opens its own)."""
        if self.path is None:
            return None
        if self._pid != os.getpid():
            self._pid, self._con = os.getpid(), None
            for attempt in range(2):
                try:
                    self._con = open_cache_db(self.path, [
                        "CREATE TABLE IF NOT EXISTS scans (key TEXT PRIMARY KEY, salt TEXT, "
                        "value TEXT)"])
                    break
                except sqlite3.DatabaseError as exc:
                    if attempt or is_busy(exc):  # busy: another process's live file
                        break
                    for part in (self.path, self.path.with_name(self.path.name + "-wal"),
                                 self.path.with_name(self.path.name + "-shm")):
                        try:  # not a database (or a damaged one): ours to replace
                            part.unlink(missing_ok=True)
                        except OSError:
                            return None
                except OSError:
                    break
        return self._con

    def size(self) -> int:
        """How many scans are kept."""
        con = self.con
        try:
            return int(con.execute("SELECT COUNT(*) FROM scans").fetchone()[0]) if con else 0
        except sqlite3.Error:
            return 0

    def get(self, key: str) -> Scan | None:
        con = self.con
        if con is None:
            return None
        try:
            row = con.execute("SELECT value FROM scans WHERE key = ? AND salt = ?",
                              (key, SALT)).fetchone()
            return from_json(json.loads(row[0])) if row is not None else None
        except (sqlite3.Error, KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, scan: Scan) -> None:
        self.new[key] = to_json(scan)

    def save(self, new: dict[str, dict[str, Any]]) -> None:
        """Write `new` entries (from this process or workers), one transaction, best effort;
        the newest `MAX_ENTRIES` are kept."""
        con = self.con
        if con is None or not new:
            return
        try:
            rows = [(k, SALT, json.dumps(v, ensure_ascii=False, separators=(",", ":")))
                    for k, v in new.items()]
            with con:
                con.executemany("INSERT OR REPLACE INTO scans VALUES (?,?,?)", rows)
                con.execute("DELETE FROM scans WHERE rowid <= (SELECT MAX(rowid) FROM scans) - ?",
                            (MAX_ENTRIES,))
        except (sqlite3.Error, ValueError):  # a lone surrogate cannot be UTF-8: not cached
            pass
