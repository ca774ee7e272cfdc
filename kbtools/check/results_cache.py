"""Per-document check results kept between runs: an edit re-checks the edited document.

A document's own findings (front matter, schema, body, links, formulas, decision tables)
and the facts the corpus-wide checks need from it (heading slugs, #anchor links, CSV names)
depend on its path and bytes and on nothing else but

- the run's settings: lenient, schema checks, size limit, the knowledge folder, the
  content checks registered (only the built-in set is cached), kbtools's version;
- the schemas (every file under the schemas folder, by content);
- the formula failures earlier builds recorded (every file of the failure cache);
- the renderer's optional fonts found installed (`glyphs.fonts_signature`: is traditional
  Chinese drawn);
- which files exist under the root (link targets, their letter case, symlinks): the
  `tree_signature`, every path with its type and link target, hidden folders (`.git`,
  staging directories) and the build output and cache folders left out.

An entry also keeps the document's front matter as YAML loaded it (`encode_front`: when it
loaded without errors and its values survive JSON exactly), so a build reading an unchanged
document does not load its YAML again.

The key hashes all of those, so an entry can be missing but never stale. A document whose
checks looked where the signature does not (a path in a hidden or output folder) is not
cached. Links written as absolute paths are judged partly by the file system outside the
root; those outcomes are cached with the document (`kb check --no-cache` re-judges them).
The corpus-wide checks (anchors, duplicate CSV names, lapsed verification, synonyms) always
run, over the cached facts. Entries are JSON in `<cache>/check-results.sqlite`; a cache
that cannot be opened or written only costs time.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kbtools import __version__
from kbtools.cachedb import open_cache_db
from kbtools.render.glyphs import fonts_signature

FILE_NAME = "check-results.sqlite"
FORMAT = 102  # bump when a check's findings for the same inputs change (5: `$` in code
# spans; 6: footnotes; 7: HTML `src` percent-decoded; 8: Obsidian wikilinks and embeds;
# 9: a percent-encoded destination's column; 10: decision tables' worded conditions,
# dashes and units, ```latex fences as code; 11: findings a watcher stored after a schema
# was edited, made with the schema's earlier text; 12: file names macOS and Windows cannot
# hold or tell apart, links matching a name only in another Unicode form; 13: UTF-16 text
# named as such, not as binary; 14: Obsidian wikilinks to decomposed names; 15: the
# pictures a document links, not only those it shows, among its image facts; 16: `%23` in a
# destination as a file name's `#`; 17: UTF-8 text with NULs is file-nul, not file-binary;
# 18: files a document links, not pictures (a PDF manual, an .xlsx), among its facts, and
# `file-not-shipped`; 19: `html-table`; 20: `obsidian-comment`;
# 21: `==highlight==` markers are no heading or cell text; 22: editors' settings named as
# such among unknown front-matter keys; 23: a boolean's spelling (`verified: yes`) in
# front-matter findings; 24: "did you mean" for a near-miss path or anchor; 25: `text-bidi`;
# 26: a heading's Obsidian block id is no part of its anchor; footnote definitions'
# indented paragraphs are no code; 27: decision cells `30 ℃ 以上`, `6.5以下(不含)`,
# `2.8 < v ≤ 7.1` as bounds, `同上` in an input cell malformed, `−5`
# a number, `≥7¹` none, `三天以下` ≤3, `8 max` ≤8; `Temp °C` a header unit; 28: an
# escaped `\{#x}` ending a heading names no anchor, `<script>` contents are no part of one;
# 29: decision cells in m², `4以上8以下`, `[5, 8)`, `N/A`, 万 read as rules, `无` in a numeric
# column named, magnitudes refused; `image-no-alt`; 30: `path-escapes-repo` names the
# knowledge base's folder, not the repository; 31: a file saved as GBK/Big5 is named so, its
# garbled paths and words not checked; 32: Obsidian's `#` in front-matter lists named,
# `fm-tag-hash`, and a `#` YAML read as a comment; 33: what to write for a date written
# 2026/03/19, a `: ` inside a value, a tab, `verified: 是`; 34: a full-width `：` or a
# no-break space after a key, an indented key, an empty value, a long value cut short, a
# timestamp with a space for its `T`; 35: `supersedes:` not staged names the `git add`, a
# `#` value found without the schema, a misspelt required key one finding, what to write
# for verified without reviewer, repeated items, a list where text belongs, an unknown key,
# a BOM, a quote or bracket left open, a front matter never closed, a table row's width,
# an absolute path outside the repository, the allowed value meant, a length asked, a
# formula block left open; 36: `footnote-undefined`, `footnote-unused`, what front matter
# to write for `fm-missing`, a BOM-only file `file-empty`, a near-miss path's suggestion
# keeps its `?query`/`#fragment`, a short name one typo off suggested; 37: the front
# matter `fm-missing` shows satisfies `anyOf`/`oneOf`/`if`-`then`, `heading-skip`,
# the heading a wikilink's fix links to among its edits; 38: the finding of a wikilink
# whose fix writes an anchor made with the anchors, not cached; a path fix's anchor;
# 39: `path-absolute` with an anchor made with the anchors, as its edit writes it;
# 40: one not located as written, too; a full-width name's path-missing fixable; 41: a
# case, backslash or Unicode-form fix not located as written said to be written by hand;
# 42: a `path-missing` suggestion's anchor made with the anchors, as `--fix` writes it;
# 43: `\tag` in inline math refused, mhchem/siunitx/gensymb commands named; 44: the
# targets no file is, for rename hints; 45:
# `obsidian-comment` only where a `%%` is never closed: a closed comment is hidden; 46: characters
# the formula renderer has no glyph for refused, `m⁻¹` read as `m^{-1}`; 47: the wikilinks
# naming no file among the targets no file is, for rename hints; 48: a wikilink ending in
# a backslash named, an embed's `<` escaped in the alt text its fix writes; 49: double
# scripts and the other slips LaTeX stops at refused, `<img>` alt no part of an anchor;
# 50: dimensions, array column letters, rows longer than their columns, `\hline`,
# `\cline` and `\multicolumn` out of place refused as LaTeX refuses them; 51: math in an
# array's `@{…}` column letters read, math commands, `^`, `_` in `\text{}` and a row's `\\`
# inside braces within a cell refused; 52: traditional Chinese in formulas drawn with the
# bsmi font when installed, else refused with the package; 53: a wikilink whose target
# names its file in another letter case or Unicode form says so; 54: a non-delimiter after
# `\left`/`\right`/`\big`…, the math of `\sqrt[…]` and the arrows' `[…]` refused, `$…$` in
# `\text{}` read as math; 55: `yaml-1.1-value`; 56: a text accent (`\^`) in `\text{}` with
# nothing to put it on refused, `\(…\)` in `\text{}` read as math, `$…$` in `\boxed`'s
# argument read as text; 57–61 (three lines of work at once): `fm-missing` names a front
# matter block below line 1 and what to delete above it, `heading-no-space`, a wikilink's
# heading path to a repeated heading left unfixed, a quoted table's cells counted without
# its `>`, `link-space`; 62: `yaml-1.1-value` says whether `--fix` quotes the value, and its
# quoting edit; 63: the formulas' `\cfrac[…]`, a `\tag`'s label, `$…$` in own-math
# arguments and at the top level, the text accents; 64: `--fix` edits of `heading-no-space`,
# `link-space` and a front matter below line 1, their warnings saying so;
# 65: formulas' placement `[…]` of {array}/{aligned}/{gathered}, `\limits` after no
# operator, `\cfrac[l…]`'s scripts on the numerator, a text command's unbraced argument;
# 66: formulas' unbraced command as another's argument, text accents in math (`\c{A}`),
# a placement past its first token); 67: formulas' letters a math alphabet's font lacks
# (`\mathbb{b}`), `\pmod` at a formula's end, `\c` over text commands, placements of two
# commands alike (session 30); 68: a front matter key in another case or separator
# (`TITLE`, `Valid-Until`) names the schema's and `--fix` renames it; a YAML syntax finding
# of an editor's habit says `--fix` mends it; a link's `#^block` anchor says what to link
# (session 31); 69: an editor's `date:`/`created:`/`updated:` with no `timestamp` is the
# timestamp meant, renamed by `--fix` when it says a date (session 31, x31); 70: a blank
# line cutting an annotated decision table before a row of its width is `decision-malformed`
# (session 32, d32); 71: a front-matter list item of values joined by 、/，/； is
# `fm-list-joined`, split by `--fix` in a one-line flow list; `duplicate-key` says what to
# write; `\label`, `\eqref`, `\notag` in formulas and a key with no value say what to write;
# a `$$` formula a blank line splits is one finding, mended by `--fix`; Obsidian's `tags: a b`
# is two tags and `alias:`/`tag:` are renamed by `--fix`; an absolute path outside the
# repository names the one file of its name in it (session 32, c32); 72: lines that look
# like a table and are read as text are `table-unread`, a line with no `|` read as a row is
# named as text after the table (session 33, f33)
# 73: a boolean written as a word or quoted, a date or timestamp that is no real date, text
# read as a number say what to write; `fm-missing` names TOML (+++) front matter, a fence of
# four dashes and a block below a comment or title (session 33, o33)
# 74: a wikilink to a block of one note named with the note's blocks (the heading the
# block stands under), not cached; one to no file says so (session 34, e34)
# 75: `fm-tag-hash` on `tags` no longer says `--where` misses the tag (session 34, n34)
# 76: a document or linked file whose symlink leads into a hidden entry of the repository
# (`.git/config`, `.env`) is `path-symlink-escape` (session 35, s35)
# 77: Git's conflict markers left in a file are `merge-conflict` (session 36, h36)
# 78: an annotated decision table in a quote or callout counts its rows' cells without the
# `>` markers (every row was `decision-malformed`) (session 36, c36)
# 79: `image-no-alt` of a picture in a captioned HTML wrapper names its caption and how to
# fix that form; `path-missing` below a submodule not checked out says so (session 37, c37)
# 80: a front-matter key indented under a key with a value says `--fix` moves it to the
# first column (session 37, h37)
# 81: `merge-conflict` reads fenced code from the parse: markers after a list item's or a
# quote's fence, or around a fence on each side, are a conflict (session 37, h37)
# 82: `path-missing` below a submodule not checked out says so in a knowledge base in a folder
# of a monorepo too (`.gitmodules` at the top), naming the folder from where kb runs (not
# cached) (session 38, c38)
# 83: an Obsidian Excalidraw drawing is one `doc-drawing` finding; `path-absolute` of a path
# read against the document's `typora-root-url` names the file Typora shows; a note's
# embed says to copy its text in when the page should show it, a drawing's to export its
# picture (session 38, cb)
# 84: an unknown key the document's category schema declares says to declare it in the
# base schema too (it was told to declare it where it was); a schema's own `format: date`
# key says what to write, as `valid_until` does (session 39, h39)
# 85: a `typora-root-url` of the author's disk (`C:\Users\x\kb\assets`, `file:///C:/…`, a
# folder this disk lacks) is read by the repository's folders it ends with; `~~struck~~` no
# text of headings and cells (session 39, c)
# 86: the picture or file a wikilink or embed names is among a document's images and files
# (the build ships it; a left-out one is warned at) (session 40, c)
# 87: a wikilink to a block naming no file is among the targets no file is, for aliases
# (`[[泵手册#^id]]`); `link-empty` at its link's column, saying what to write; a `/…` path
# naming no file in a folder at the repository's root said to be missing; a missing
# target of no letter or digit (`[M + K](+)`) says how to keep it text (session 41, cb)
# 88: an anchor written twice (`#安装#安装`) suggested once, with its `--fix` edit; a
# spaced link or footnote in a table cell located from the cell's start; a formula said at
# its column; a front matter item's column beside a tab after a key (session 41, cc)
# 89: no `heading-skip` where a `<!-- markdownlint-disable MD001 -->` comment turns the rule
# off; a quote left open on its line said there, not where YAML stopped; a wikilink whose
# `|` ends its table cell (session 42, cb)
# 90: a quote or flow list never closed (the front matter's last line's too) says what to
# write and `--fix` closes it (session 43, k)
# 91: a wikilink naming a heading its note lacks is one `link-wikilink` line, no
# `link-anchor` beside it; an anchor written decomposed (NFD) says so (session 44, k)
# 92: `html-swallows-markdown` names every line of its block, a table, quote, code fence or
# `$$` swallowed too; the files `<video>`, `<audio>`, `<source>`, `<track>`, `<iframe>`,
# `<embed>` and `<object>` name, and a video's `poster`, are checked as a link's and an
# image's; Obsidian's `app://local/…` is `path-absolute` as `file:///…` is (session 45, k45)
# 93: the files a `srcset` names are checked as pictures; a remote file an HTML element
# plays or frames is `media-remote` (session 45, k45b)
# 94: an inline `<img alt=it's src=a.png>` is checked as a picture (session 46, k46)
# 95: a `path-missing` "did you mean" never names a file of the build's output (dist/)
# (session 47, k47); 96: a link's full-width `／` and `．．` read as `/` and `..` for a
# fixable `path-missing` (session 47, k47); 97: a full-width `＃` before a link's anchor
# and a wikilink's full-width `｜` and `＃` read as `|` and `#` (session 48, k48)
# 98: a full-width `？` before a link's query string read as `?` (session 48, k48b)
# 99: an HTML block's `<IMG SRC=…>` path checked as a lower-case tag's (session 49, k49)
# 100: an anchor written as a heading's title (`#安装步骤（二）`) told the anchor to write
# 101: ... and `--fix` writing it when it names a heading (session 49, x49)
# 102: `encoding-bom`, `encoding-crlf` say `kb check --fix` mends them (session 49, x49b)
# (2: front matter; 3: `<`, `>` in headings, csv names, links, front-matter keys;
#  4: unclosed code fences)


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def tree_signature(root: Path, excluded: Iterable[Path] = ()) -> str:
    """A digest of every path under `root` with its type (and a link's target), leaving
    out hidden folders and the `excluded` folders (the build output, the cache)."""
    skip = {os.path.realpath(p) for p in excluded}
    parts: list[str] = []
    for top, dirs, files in os.walk(root, followlinks=False):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and os.path.realpath(os.path.join(top, d)) not in skip)
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            kind = f"l:{os.readlink(path)}" if os.path.islink(path) else \
                ("d" if name in dirs else "f")
            parts.append(f"{rel}/{name}\0{kind}")
    return _digest(parts)


def folder_signature(folder: Path | None) -> str:
    """A digest of every file under `folder` by name and content ("" when there is none)."""
    if folder is None or not folder.is_dir():
        return ""
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            data = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
            parts.append(f"{path.relative_to(folder).as_posix()}\0{data}")
        except OSError:
            parts.append(f"{path.relative_to(folder).as_posix()}\0unreadable")
    return _digest(parts)


_DATE, _TIME = "\x00d", "\x00t"  # tags of YAML's timestamps in an encoded value


def _to_json(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        return {_TIME: value.isoformat()}
    if isinstance(value, datetime.date):
        return {_DATE: value.isoformat()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and _TIME in value:
            return datetime.datetime.fromisoformat(value[_TIME])
        if len(value) == 1 and _DATE in value:
            return datetime.date.fromisoformat(value[_DATE])
        return {k: _from_json(v) for k, v in value.items()}
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (1 is not True, a date is not a
    datetime, the offset of a time counts)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, datetime.datetime):
        return bool(a.isoformat() == b.isoformat() and a.tzinfo == b.tzinfo)
    return bool(a == b)


def encode_front(meta: dict[str, Any], key_lines: dict[str, int]) -> Any:
    """Front matter as JSON (None when some value would not come back exactly: a set,
    binary, a non-string key, a NaN…)."""
    try:
        encoded = json.loads(json.dumps([_to_json(meta), key_lines], allow_nan=False))
    except (TypeError, ValueError):
        return None
    return encoded if _same(decode_front(encoded), (meta, key_lines)) else None


def decode_front(value: Any) -> tuple[dict[str, Any], dict[str, int]] | None:
    """`encode_front`'s inverse (None for no entry, or a malformed one: a miss)."""
    try:
        meta, lines = value
        if not isinstance(meta, dict) or not isinstance(lines, dict):
            return None
        return _from_json(meta), {str(k): int(v) for k, v in lines.items()}
    except (TypeError, ValueError):
        return None


class ResultsCache:
    """Entries by key (`key_for`); every method is a miss or a no-op when the file cannot
    be used."""

    def __init__(self, path: Path, context: str, excluded: tuple[str, ...]):
        self.path = path
        self.context = context  # digest of everything but the document itself
        self.excluded = excluded  # rel path prefixes the signature leaves out
        self._con: sqlite3.Connection | None = None
        self._pid = 0

    @property
    def con(self) -> sqlite3.Connection | None:
        """This process's connection (a forked check worker opens its own)."""
        if self._pid != os.getpid():
            self._pid, self._con = os.getpid(), None
            try:
                self._con = open_cache_db(self.path, ["CREATE TABLE IF NOT EXISTS results "
                                                      "(doc TEXT PRIMARY KEY, key TEXT, value TEXT)"])
            except (OSError, sqlite3.Error):
                self._con = None
        return self._con

    @classmethod
    def open(cls, cache_dir: Path, root: Path, settings: dict[str, Any],
             schemas: Path | None, failures: Path, excluded: list[Path]) -> ResultsCache:
        inside = tuple(p.resolve().relative_to(root.resolve()).as_posix()
                       for p in excluded if p.resolve().is_relative_to(root.resolve()))
        context = _digest([str(FORMAT), __version__, json.dumps(settings, sort_keys=True),
                           fonts_signature(), folder_signature(schemas),
                           folder_signature(failures),
                           tree_signature(root, excluded)])
        return cls(cache_dir / FILE_NAME, context, inside)

    def key_for(self, rel: str, raw: bytes) -> str:
        return _digest([self.context, rel, hashlib.blake2b(raw, digest_size=16).hexdigest()])

    def covers(self, touched: Iterable[str]) -> bool:
        """Whether the signature covers every root-relative path a document's checks
        looked at."""
        for rel in touched:
            parts = [p for p in rel.split("/") if p]
            if any(p.startswith(".") for p in parts) or any(
                    rel == e or rel.startswith(e + "/") for e in self.excluded):
                return False
        return True

    def get(self, rel: str, key: str) -> dict[str, Any] | None:
        con = self.con
        if con is None:
            return None
        try:
            row = con.execute("SELECT value FROM results WHERE doc = ? AND key = ?",
                                   (rel, key)).fetchone()
            return json.loads(row[0]) if row is not None else None
        except (sqlite3.Error, ValueError):  # UnicodeEncodeError is a ValueError
            return None

    def save(self, entries: Iterable[tuple[str, str, str]]) -> None:
        """Write (doc, key, JSON value) entries, one transaction, best effort."""
        rows = list(entries)
        con = self.con
        if con is None or not rows:
            return
        try:
            with con:
                con.executemany("INSERT OR REPLACE INTO results VALUES (?,?,?)", rows)
        except (sqlite3.Error, ValueError):
            pass

    def close(self) -> None:
        if self._con is not None and self._pid == os.getpid():
            self._con.close()
        self._con, self._pid = None, 0
