"""Outlines and chunks of documents kept on disk between builds (`kb build` is a new process).

A build needs every document's outline — headings (cross references resolve against all of
them), tables (CSV names are a function of all of them), formulas and images — and every
document's chunks, but an edit changes one document. One SQLite file next to the embedding
cache (kb.toml paths.cache, `parsed.sqlite`) keeps, per document, its `Outline` and its
chunks with their base records, each under the key `kbtools.build.memo.BuildMemo` computes:
the document's path and bytes (+ the parser's version) for the outline; that, the chunker's
settings and version, the corpus's headings, the document's CSV names and the embedding
settings for the chunks; that and a digest of what the records add to the chunks
(provenance, verification) for the bytes of the document's lines in data/chunks/ (so an
unchanged document's lines are not serialised again). A changed input is a different key, so an entry can be missing but
never stale; a document's newer entry replaces its older one.

Entries are plain JSON decoded into our own node and chunk dataclasses (an allow-list of
types, never pickle), so a tampered cache file can at worst index wrong text, like a
tampered embedding cache; `kb build --no-cache` neither reads nor writes it. Front matter is
not stored: it comes from the document as read.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markdown_it
import mdit_py_plugins

from kbtools import __version__
from kbtools.build.records import Chunk, Link
from kbtools.build.xref import HeadingRows, heading_rows
from kbtools.cachedb import open_cache_db
from kbtools.index.tokenize import language_of
from kbtools.markdown import nodes
from kbtools.markdown.nodes import Document

PARSE_CACHE_FILE = "parsed.sqlite"
LANG_SPAN = 4000  # a document's language is that of its first characters
# bump FORMAT when the parse tree of the same bytes changes (markdown/ code) or the entries'
# layout does; entries made by another kbtools or markdown-it release never match either
FORMAT = 31  # 2: outlines record the document's language; 3: `<`, `>` kept in text;
# 4: a `$` inside a code span closes no formula; 5: `[^1]: …` is no link definition;
# 6: lines counted through inline spans written over several lines; 7: `$$` after text;
# 8: the formulas and images of headings are in the outline; 9: ```latex fences are code;
# 10: pictures linked (not shown) are in the outline's images; 11: other files linked (a PDF
# manual, a spare-parts sheet) are the outline's files; 12: `==highlight==` markers are no
# heading or cell text, and the outline keeps no images or files (the build ships what
# `kb check` found documents to show and link); 13: an Obsidian block id (`^id`) ending a
# heading is no part of its title; the HTML tags and comments no reader sees
# (`Document.hidden`) left out of chunk text; footnotes parsed (`[^1]` no heading or cell
# text, a definition's indented paragraphs no code); 14: block ids, a heading's `{#id}`,
# footnote labels and `<script>`/`<style>` contents hidden too, entities as their character;
# 15: invisible characters hidden, `<script>`/`<style>`
# contents no heading or cell text, an escaped `\{#x}` ending a heading is text; 16: Obsidian
# `%% comments %%` are no heading or cell text, and hidden (`Document.hidden`, `.comments`);
# 17: an `<img>` tag's alt is heading text but no part of the heading's anchor
# 18: the outline's heading anchors de-duplicated as GitHub's (the second `## 注意事项` is
# `#注意事项-1`); 19: those in quotes and list items counted too; 20: the headings' section
# numbers of English (`Chapter 5`, `Section 5.2`) and full-width (`第４章`) headings; 21: the
# anchor each heading's page gives it, and each link's (`Link.anchor`); 22: each picture of
# an HTML block at the line its `<img` opens on (all had the block's first line)
# 23: a block id on the line below its block (`…\n^id`) hidden (`Document.hidden`)
# 24: the Obsidian tags a document's text writes (`Document.tags`), in its outline
# 25: a highlight's `==` marks hidden (`Document.hidden`)
# 26: a setext heading's underline hidden; an Obsidian block id is an anchor (`^id`) of the
# heading it stands under in the outline's heading rows (`xref.block_anchors`)
# 27: an Excalidraw drawing is titled by its name; an Obsidian wikilink or note embed reads
# as its text in `Document.hidden` (`[[泵站#检修|步骤]]` reads `步骤`)
# 28: a heading's formula reads as said in its text (`## $E=mc^2$` is `E=mc²`)
# and a table cell's `<br>` is a line break in its CSV (`Inline.lines`); `~~struck~~` parsed
# 29: an `<img>` tag's `src` percent-encoded as a Markdown image's (`html_images`)
# 30: an `<img>` tag's attributes read by `html.parser` (`html_tags`): `alt="压力>5MPa"` whole
# 31: an inline `<img>` CommonMark leaves as text (`<img alt=it's src=a.png>`) is a picture
PARSER_VERSION = (f"{FORMAT}:{__version__}:{markdown_it.__version__}:"
                  f"{mdit_py_plugins.__version__}")

@dataclass(frozen=True)
class Outline:
    """What a build reads from every document, changed or not, besides its chunks."""

    rel: str
    title: str
    headings: HeadingRows
    tables: tuple[nodes.Table, ...]
    formulas: tuple[nodes.Math, ...]
    lang: str  # `kbtools.index.tokenize.language_of` the body's first 4,000 characters
    tags: tuple[str, ...] = ()  # the Obsidian tags its text writes (`Document.tags`)

    @classmethod
    def of(cls, doc: Document, body: str) -> Outline:
        return cls(doc.rel, doc.title, heading_rows(doc), tuple(doc.tables()),
                   tuple(doc.formulas()), language_of(body[:LANG_SPAN]), doc.tags)


_TYPE = "\x00t"  # the key naming a node's class in its JSON object
_NODES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (
        nodes.Image, nodes.Math, nodes.LinkRef, nodes.Inline, nodes.Paragraph, nodes.Heading,
        nodes.ListItem, nodes.ListBlock, nodes.Table, nodes.Code, nodes.MathBlock, nodes.Html,
        nodes.Quote, nodes.Rule)}


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        out[_TYPE] = type(value).__name__
        return out
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    return value  # str, int, bool, None, and str → str dicts (annotations)


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if isinstance(value, dict) and _TYPE in value:
        cls = _NODES.get(value.pop(_TYPE))
        if cls is None:
            raise ValueError("unknown node type in the parse cache")
        return cls(**{k: _decode(v) for k, v in value.items()})
    return value


def encode_outline(outline: Outline) -> str:
    return json.dumps({"title": outline.title, "tables": _encode(outline.tables),
                       "formulas": _encode(outline.formulas), "lang": outline.lang,
                       "tags": list(outline.tags),
                       "headings": [[list(path), num, sorted(slugs), anchor]
                                    for path, num, slugs, anchor in outline.headings]},
                      ensure_ascii=False)


def decode_outline(text: str, rel: str) -> Outline:
    data = json.loads(text)
    headings = tuple((tuple(path), str(num), frozenset(slugs), str(anchor))
                     for path, num, slugs, anchor in data["headings"])
    outline = Outline(rel, str(data["title"]), headings, _decode(data["tables"]),
                      _decode(data["formulas"]), str(data["lang"]),
                      tuple(str(t) for t in data["tags"]))
    for kind, items in ((nodes.Table, outline.tables), (nodes.Math, outline.formulas)):
        if not all(isinstance(x, kind) for x in items):
            raise ValueError("the parse cache holds a malformed outline")
    return outline


def encode_chunks(chunks: list[Chunk], records: list[dict[str, Any]]) -> str:
    """Chunks by their base records (`kbtools.build.pipeline._base_record`: the chunk's
    fields less the front matter, with the records' content hash and models), plus each
    chunk's own content hash."""
    return json.dumps([{"record": r, "hash": c.content_hash}
                       for c, r in zip(chunks, records, strict=True)], ensure_ascii=False)


def decode_chunks(text: str, meta: dict[str, Any]) -> tuple[list[Chunk], list[dict[str, Any]]]:
    """`encode_chunks`'s inverse, for a document with front matter `meta`."""
    chunks, records = [], []
    for row in json.loads(text):
        r = row["record"]
        links = tuple(Link(text=lk["text"], doc=lk["doc"], heading_path=tuple(lk["heading_path"]),
                           line=lk["line"], anchor=lk["anchor"]) for lk in r["links"])
        chunks.append(Chunk(id=r["id"], doc=r["doc"], heading_path=tuple(r["heading_path"]),
                            kind=r["kind"], line_start=r["line_start"], line_end=r["line_end"],
                            text=r["text"], embed_text=r["embed_text"], metadata=meta,
                            content_hash=str(row["hash"]), links=links, extra=r["extra"]))
        records.append(r)
    return chunks, records


# the only SQL names; "shards": what `kbtools.build.reuse` keeps of the shards a build wrote
_TABLES = {"outlines": "outlines", "chunks": "chunks", "lines": "lines", "shards": "shards"}


class ParseCache:
    """The cache file; every method is a no-op (a miss) when the file cannot be used."""

    def __init__(self, path: Path | None):
        self.con: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            self.con = open_cache_db(path, [
                f"CREATE TABLE IF NOT EXISTS {table} (doc TEXT PRIMARY KEY, key TEXT, "
                f"value {'BLOB' if table == 'lines' else 'TEXT'})" for table in _TABLES.values()])
        except (OSError, sqlite3.Error):
            self.con = None
        self._pending: dict[str, list[tuple[str, str, str | bytes]]] = {t: [] for t in _TABLES}

    def get(self, table: str, doc: str, key: str) -> str | None:
        """The entry of `doc` in `table` ("outlines" or "chunks") if made under `key`."""
        got = self.get_value(table, doc, key)
        return str(got) if got is not None else None

    def get_lines(self, doc: str, key: str) -> bytes | None:
        """The bytes of `doc`'s lines in data/chunks/ if made under `key`."""
        got = self.get_value("lines", doc, key)
        return got if isinstance(got, bytes) else None

    def get_value(self, table: str, doc: str, key: str) -> str | bytes | None:
        if self.con is None:
            return None
        try:
            row = self.con.execute(f"SELECT value FROM {_TABLES[table]} WHERE doc = ? AND key = ?",
                                   (doc, key)).fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row is not None else None

    def put_outline(self, doc: str, key: str, outline: Outline) -> None:
        self._pending["outlines"].append((doc, key, encode_outline(outline)))

    def put_chunks(self, doc: str, key: str, chunks: list[Chunk],
                   records: list[dict[str, Any]]) -> None:
        self._pending["chunks"].append((doc, key, encode_chunks(chunks, records)))

    def put_lines(self, doc: str, key: str, lines: bytes) -> None:
        self._pending["lines"].append((doc, key, lines))

    def put_value(self, table: str, doc: str, key: str, value: str) -> None:
        self._pending[_TABLES[table]].append((doc, key, value))

    def flush(self) -> None:
        """Write what was put since the last flush, in one transaction."""
        if self.con is None or not any(self._pending.values()):
            return
        try:
            with self.con:
                for table, rows in self._pending.items():
                    self.con.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?,?,?)", rows)
        except sqlite3.Error:
            pass  # a cache that cannot be written only costs the next build time
        self._pending = {t: [] for t in _TABLES}

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
