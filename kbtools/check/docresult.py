"""One document's `kb check` outcome (`DocResult`: its findings and what the checks across
documents need) and its entry in the results cache (`kbtools.check.results_cache`): a JSON
object `to_entry` writes and `from_entry` reads back (a malformed entry is a miss)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.check import assets, links, results_cache
from kbtools.check.links import AnchorTarget, Edit
from kbtools.corpus import SourceDoc
from kbtools.findings import Finding


@dataclass(frozen=True)
class DocResult:
    """Per-document outcome, plus what cross-document checks need."""

    path: Path
    rel: str
    findings: tuple[Finding, ...] = ()
    slugs: frozenset[str] | None = None
    anchors: tuple[AnchorTarget, ...] = ()
    csv_names: tuple[tuple[int, str], ...] = ()
    edits: tuple[Edit, ...] = ()
    images: tuple[assets.ImageLink, ...] = ()  # existing files its images show
    new_scan: tuple[str, dict[str, Any]] | None = None  # cache entry made by this run
    new_result: tuple[str, str, str] | None = None  # (doc, key, entry) for the results cache
    read: bool = True  # False: the file was not read (outside the repo, not regular, …)
    source: tuple[SourceDoc, bytes] | None = None  # the document and its bytes (keep_sources)
    files: tuple[assets.ImageLink, ...] = ()  # existing files it links (no picture, no document)
    missing: tuple[links.Missing, ...] = ()  # targets no file is (renamed? `check.renames`)
    # the other names its front matter gives it (`aliases`: `check.aliases.note_aliases`)
    aliases: tuple[str, ...] = ()


def to_entry(r: DocResult, src: SourceDoc | None) -> str:
    """A result as a results-cache entry (what `from_entry` reads back), with the
    document's front matter when it loaded without errors and keeps as JSON."""
    front = results_cache.encode_front(src.meta, src.key_lines) \
        if src is not None and not src.errors and src.meta else None
    return json.dumps({
        "m": front,
        "f": [[f.path, f.line, f.col, f.level, f.code, f.message] for f in r.findings],
        "s": sorted(r.slugs) if r.slugs is not None else None,
        "a": [[a.doc, a.fragment, a.line, a.col] for a in r.anchors],
        "c": [list(c) for c in r.csv_names],
        "e": [[e.line, e.col, e.old, e.new, e.doc, e.fragment, e.wikilink, e.code, e.said,
               e.hint]
              for e in r.edits],
        "i": [list(i) for i in r.images],
        "l": [list(i) for i in r.files],
        "p": [[m.line, m.col, m.raw, m.path, m.suffix, m.said, m.wikilink] for m in r.missing],
        "n": list(r.aliases),
        "r": r.read})  # ASCII: a lone surrogate in a message is kept as an escape


def from_entry(path: Path, rel: str, data: dict[str, Any] | None) -> DocResult | None:
    """A cached result (None: no entry, or a malformed one, which is a miss)."""
    if data is None:
        return None
    try:
        return DocResult(
            path, rel,
            tuple(Finding(str(p), int(ln), int(c), str(lv), str(cd), str(m))
                  for p, ln, c, lv, cd, m in data["f"]),
            frozenset(map(str, data["s"])) if data["s"] is not None else None,
            tuple(AnchorTarget(str(d), str(fr), int(ln), int(c)) for d, fr, ln, c in data["a"]),
            tuple((int(ln), str(n)) for ln, n in data["c"]),
            tuple(Edit(int(ln), int(c), str(o), str(n), str(d), str(fr), bool(w), str(cd),
                       str(sd), bool(h)) for ln, c, o, n, d, fr, w, cd, sd, h in data["e"]),
            tuple((int(ln), int(c), str(p)) for ln, c, p in data["i"]),
            read=bool(data["r"]),
            files=tuple((int(ln), int(c), str(p)) for ln, c, p in data["l"]),
            missing=tuple(links.Missing(int(ln), int(c), str(r), str(p), str(x), str(s), bool(w))
                          for ln, c, r, p, x, s, w in data["p"]),
            aliases=tuple(map(str, data["n"])))
    except (KeyError, TypeError, ValueError):
        return None
