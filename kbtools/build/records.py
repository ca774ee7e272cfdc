"""Data passed between stages. Frozen dataclasses; JSON-friendly via `to_dict`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

CHUNK_KINDS = ("section", "list_item", "table", "table_row", "code", "formula", "mermaid", "image")


@dataclass(frozen=True)
class Link:
    """A resolved cross reference ("见 4.3 节", "see section 2.1", [x](other.md#anchor))."""

    text: str  # the reference as written
    doc: str  # target doc path relative to the repo root ("" when unresolved)
    heading_path: tuple[str, ...] = ()
    line: int = 0  # line of the reference in the source file
    # the anchor the target heading's page gives it (`#注意事项-1` for a repeated heading:
    # GitHub's de-duplication); "" without a heading
    anchor: str = ""


@dataclass(frozen=True)
class Chunk:
    id: str  # sha256(doc + heading path + text)[:16]
    doc: str  # posix path relative to the repo (corpus) root
    heading_path: tuple[str, ...]
    kind: str  # one of CHUNK_KINDS
    line_start: int  # 1-based, inclusive, in the original file
    line_end: int
    text: str  # display text (Markdown as written, or a rendered row)
    embed_text: str  # heading path prefixed; table rows with their header
    metadata: dict[str, Any] = field(default_factory=dict)  # the document's front matter
    content_hash: str = ""  # sha256 of embed_text
    links: tuple[Link, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific: formula svg, csv name…

    def to_dict(self) -> dict[str, Any]:
        """The chunk as a JSON-friendly dict (what `dataclasses.asdict` gives, with lists for
        tuples), made field by field: asdict's recursive deep copy was a tenth of a cold
        build's chunking time. `metadata` and `extra` are copied one level deep."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["heading_path"] = list(self.heading_path)
        d["metadata"] = dict(self.metadata)
        d["extra"] = dict(self.extra)
        d["links"] = [dict(asdict(link), heading_path=list(link.heading_path)) for link in self.links]
        return d
