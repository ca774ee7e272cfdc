"""Parsed documents and their chunks kept between the builds of one process (`kb watch`).

A save changes one document; the next build of the watcher parses and chunks only that one.
Entries are keyed by what their result depends on: the document's path and bytes for the
parse; that, the chunker's settings and version, the corpus's headings (cross references
resolve against every document's headings) and the CSV names of the document's tables (a
function of every document's tables) for the chunks. A miss just means doing the
work; the memo never outlives the process, so no cache file can be stale or tampered with.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from kbtools.build.chunk import CHUNKER_VERSION, ChunkConfig, HeadingIndex, chunk_document
from kbtools.build.records import Chunk
from kbtools.corpus import SourceDoc
from kbtools.markdown.doctree import parse
from kbtools.markdown.nodes import Document
from kbtools.render.table_csv import CsvNames


def headings_key(resolver: HeadingIndex) -> str:
    """A digest of every heading and title a cross reference can resolve to."""
    items = repr((sorted((d, tuple((path, num, tuple(sorted(ids))) for path, num, ids in hs))
                         for d, hs in resolver.headings.items()),
                  sorted(resolver.titles.items())))
    return hashlib.sha256(items.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class BuildMemo:
    """What one build leaves for the next in the same process; `hits`/`misses` count
    documents whose chunks were reused or made."""

    parsed: dict[str, tuple[str, Document]] = field(default_factory=dict)
    chunked: dict[str, tuple[str, list[Chunk], list[dict[str, Any]] | None]] = \
        field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    @staticmethod
    def source_key(src: SourceDoc, raw: bytes) -> str:
        h = hashlib.sha256(src.rel.encode("utf-8", "surrogatepass") + b"\0" + raw)
        return h.hexdigest()

    def parse(self, src: SourceDoc, raw: bytes) -> Document:
        key = self.source_key(src, raw)
        got = self.parsed.get(src.rel)
        if got is None or got[0] != key:
            got = (key, parse(src))
            self.parsed[src.rel] = got
        return got[1]

    def chunks(self, src: SourceDoc, raw: bytes, cfg: ChunkConfig, resolver: HeadingIndex,
               resolver_key: str, csv_names: CsvNames | None = None) -> list[Chunk]:
        doc = self.parse(src, raw)
        names = [csv_names.name(src.rel, t) for t in doc.tables()] if csv_names else []
        key = f"{self.source_key(src, raw)}:{CHUNKER_VERSION}:{cfg!r}:{resolver_key}:{names!r}"
        got = self.chunked.get(src.rel)
        if got is not None and got[0] == key:
            self.hits += 1
            return got[1]
        self.misses += 1
        chunks = chunk_document(src, cfg, resolver=resolver, doc=doc, csv_names=csv_names)
        self.chunked[src.rel] = (key, chunks, None)
        return chunks

    def records(self, rel: str, chunks: list[Chunk]) -> list[dict[str, Any]] | None:
        """The base records (see `kbtools.build.pipeline`) kept for these very chunks."""
        got = self.chunked.get(rel)
        return got[2] if got is not None and got[1] is chunks else None

    def keep_records(self, rel: str, chunks: list[Chunk], records: list[dict[str, Any]]) -> None:
        got = self.chunked.get(rel)
        if got is not None and got[1] is chunks:
            self.chunked[rel] = (got[0], chunks, records)

    def forget_others(self, keep: set[str]) -> None:
        """Drop documents no longer in the corpus."""
        for table in (self.parsed, self.chunked):
            for rel in set(table) - keep:
                del table[rel]
