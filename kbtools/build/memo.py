"""Outlines, parsed documents and chunks kept between builds: an edit costs one document.

A save changes one document; the next build parses and chunks only that one. Entries are
keyed by what their result depends on: the document's path and bytes (and the parser's
version) for the parse and its `Outline`; that, the chunker's settings and version, the
corpus's headings (cross references resolve against every document's headings), the CSV
names of the document's tables (a function of every document's tables) and the embedding
settings (the records name their models) for the chunks. A miss just means doing the work.

In memory the memo lives as long as its owner (`kb watch` keeps one per watcher); with a
`ParseCache` (`kbtools.build.parse_cache`, what `kb build` attaches unless --no-cache)
outlines and chunks also survive the process, so a one-paragraph edit rebuilds without
parsing the rest of the corpus.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from kbtools.build.chunk import CHUNKER_VERSION, ChunkConfig, HeadingIndex, chunk_document
from kbtools.build.history import HistoryMemo
from kbtools.build.parse_cache import (
    PARSER_VERSION,
    Outline,
    ParseCache,
    decode_chunks,
    decode_outline,
)
from kbtools.build.records import Chunk
from kbtools.build.xref import HeadingRows
from kbtools.check.engine import DocResult, FileStatus
from kbtools.corpus import SourceDoc
from kbtools.fsutil import json_lines
from kbtools.markdown.doctree import parse
from kbtools.markdown.nodes import Document
from kbtools.render.table_csv import CsvNames


def _rows_digest(doc: str, rows: HeadingRows) -> str:
    text = repr((doc, tuple((path, num, tuple(sorted(ids)), anchor)
                            for path, num, ids, anchor in rows)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def headings_key(resolver: HeadingIndex,
                 kept: dict[str, tuple[HeadingRows, str]] | None = None) -> str:
    """A digest of every heading and title a cross reference can resolve to: of each
    document's headings' digest and of the titles. `kept` holds each document's rows with
    their digest, reused while the rows are the very same object (a watcher's outlines
    stay in memory: an edit digests one document's headings, not the corpus's)."""
    digests = []
    for doc, rows in sorted(resolver.headings.items()):
        got = kept.get(doc) if kept is not None else None
        if got is None or got[0] is not rows:
            got = (rows, _rows_digest(doc, rows))
            if kept is not None:
                kept[doc] = got
        digests.append(got[1])
    items = repr((digests, sorted(resolver.titles.items())))
    return hashlib.sha256(items.encode("utf-8", "surrogatepass")).hexdigest()


Records = list[dict[str, Any]]


@dataclass
class BuildMemo:
    """What one build leaves for the next; `hits`/`misses` count documents whose chunks
    were reused or made, `parses` the documents parsed, `lines_made` those whose lines in
    data/chunks/ were serialised (not reused)."""

    disk: ParseCache | None = None
    parsed: dict[str, tuple[str, Document]] = field(default_factory=dict)
    outlined: dict[str, tuple[str, Outline]] = field(default_factory=dict)
    chunked: dict[str, tuple[str, list[Chunk], Records | None]] = field(default_factory=dict)
    written: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # data/chunks/ lines
    checked: dict[str, tuple[str, DocResult]] = field(default_factory=dict)  # check results
    # each file's status when the check read it (by path): an unchanged file is not read
    statuses: dict[str, tuple[FileStatus, str, str, str]] = field(default_factory=dict)
    heading_digests: dict[str, tuple[HeadingRows, str]] = field(default_factory=dict)
    history: HistoryMemo | None = None  # a watcher's blame and review coverages
    hits: int = 0
    misses: int = 0
    parses: int = 0
    lines_made: int = 0
    _source_keys: dict[str, tuple[bytes, str]] = field(default_factory=dict)

    def source_key(self, src: SourceDoc, raw: bytes) -> str:
        got = self._source_keys.get(src.rel)
        if got is not None and got[0] is raw:  # the very bytes hashed already
            return got[1]
        h = hashlib.sha256(f"{PARSER_VERSION}\0".encode() +
                           src.rel.encode("utf-8", "surrogatepass") + b"\0" + raw)
        self._source_keys[src.rel] = (raw, h.hexdigest())
        return h.hexdigest()

    def _on_disk(self, table: str, rel: str, key: str) -> str | None:
        return self.disk.get(table, rel, key) if self.disk is not None else None

    def parse(self, src: SourceDoc, raw: bytes) -> Document:
        key = self.source_key(src, raw)
        got = self.parsed.get(src.rel)
        if got is None or got[0] != key:
            self.parses += 1
            got = (key, parse(src))
            self.parsed[src.rel] = got
        return got[1]

    def outline(self, src: SourceDoc, raw: bytes) -> Outline:
        """The document's outline: from memory, the disk, or a parse."""
        key = self.source_key(src, raw)
        got = self.outlined.get(src.rel)
        if got is not None and got[0] == key:
            return got[1]
        outline = None
        if (text := self._on_disk("outlines", src.rel, key)) is not None:
            try:
                outline = decode_outline(text, src.rel)
            except (ValueError, KeyError, TypeError):
                outline = None  # a damaged entry is a miss
        if outline is None:
            outline = Outline.of(self.parse(src, raw), src.body)
            if self.disk is not None:
                self.disk.put_outline(src.rel, key, outline)
        self.outlined[src.rel] = (key, outline)
        return outline

    def chunk_key(self, src: SourceDoc, raw: bytes, cfg: ChunkConfig, resolver_key: str,
                  csv_names: CsvNames | None = None, salt: str = "") -> str:
        """The key of the document's chunks: everything they depend on (module docstring);
        `salt` names whatever else the records depend on."""
        outline = self.outline(src, raw)
        names = [csv_names.name(src.rel, t) for t in outline.tables] if csv_names else []
        return (f"{self.source_key(src, raw)}:{CHUNKER_VERSION}:{cfg!r}:{resolver_key}:"
                f"{names!r}:{salt}")

    def chunks(self, src: SourceDoc, raw: bytes, cfg: ChunkConfig, resolver: HeadingIndex,
               resolver_key: str, csv_names: CsvNames | None = None, salt: str = "") -> list[Chunk]:
        """The document's chunks; `salt` names whatever else the records depend on."""
        key = self.chunk_key(src, raw, cfg, resolver_key, csv_names, salt)
        got = self.chunked.get(src.rel)
        if got is not None and got[0] == key:
            self.hits += 1
            return got[1]
        if (text := self._on_disk("chunks", src.rel, key)) is not None:
            try:
                chunks, records = decode_chunks(text, dict(src.meta))
            except (ValueError, KeyError, TypeError):
                pass  # a damaged entry is a miss
            else:
                self.hits += 1
                self.chunked[src.rel] = (key, chunks, records)
                return chunks
        self.misses += 1
        chunks = chunk_document(src, cfg, resolver=resolver, doc=self.parse(src, raw),
                                csv_names=csv_names)
        self.chunked[src.rel] = (key, chunks, None)
        return chunks

    def records(self, rel: str, chunks: list[Chunk]) -> Records | None:
        """The base records (see `kbtools.build.pipeline`) kept for these very chunks."""
        got = self.chunked.get(rel)
        return got[2] if got is not None and got[1] is chunks else None

    def keep_records(self, rel: str, chunks: list[Chunk], records: Records) -> None:
        got = self.chunked.get(rel)
        if got is not None and got[1] is chunks:
            self.chunked[rel] = (got[0], chunks, records)
            if self.disk is not None:
                self.disk.put_chunks(rel, got[0], chunks, records)

    def lines(self, rel: str, chunks: list[Chunk], records: Records, added: str) -> bytes:
        """`json_lines(records)`: the lines of document `rel` in its data/chunks/ shard,
        kept for these very chunks and `added`, a digest of what the records add to the
        chunks' base records (provenance, verification)."""
        got = self.chunked.get(rel)
        if got is None or got[1] is not chunks:
            return json_lines(records)
        key = f"{got[0]}:{added}"
        kept = self.written.get(rel)
        if kept is not None and kept[0] == key:
            return kept[1]
        data = self.disk.get_lines(rel, key) if self.disk is not None else None
        if data is None or data.count(b"\n") != len(records) \
                or not data.endswith(b"\n") and len(records) > 0:  # damaged: a miss
            self.lines_made += 1
            data = json_lines(records)
            if self.disk is not None:
                self.disk.put_lines(rel, key, data)
        self.written[rel] = (key, data)
        return data

    def flush(self) -> None:
        """Write new entries to the disk cache (one transaction)."""
        if self.disk is not None:
            self.disk.flush()

    def forget_others(self, keep: set[str]) -> None:
        """Drop documents no longer in the corpus (from memory; the disk keeps them for a
        build of another corpus)."""
        tables: list[dict[str, Any]] = [self.parsed, self.outlined, self.chunked, self.written,
                                        self.checked, self.heading_digests, self._source_keys]
        for table in tables:
            for rel in set(table) - keep:
                del table[rel]
        for path in [p for p, seen in self.statuses.items() if seen[1] not in keep]:
            del self.statuses[path]
