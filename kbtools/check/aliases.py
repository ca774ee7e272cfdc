"""Obsidian's note aliases: `[[泵手册]]` names the note whose front matter lists it among its
`aliases` (Obsidian's help, "Aliases"; the older `alias` key too, a list or one value).

A wikilink naming no file (`links.Missing`, a `link-wikilink` finding "no file …") is looked
up among the aliases of the knowledge folder's documents, once per check and only when there
is one to look up (those of the documents the check read come with their results, cached
with them; only the others are read: `kb check FILE` reads them all), letter case ignored
as Obsidian ignores it: one note → the finding says whose alias it is and `kb check --fix`
writes the standard link to that note (its text the alias, or the wikilink's label);
several → they are named, none chosen. A rename hint from
Git history (`kbtools.check.renames`) is told first. A device's page links the same
wikilinks through the release's documents (`kbtools.serve.source.Served.aliased`).
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kbtools.check.docresult import DocResult
from kbtools.check.links import Edit, Missing
from kbtools.check.names import disk_key
from kbtools.check.wikilinks import (
    CODE,
    SETTINGS,
    TEXT_INSTEAD,
    Wikilink,
    describe,
    heading_slug,
    parse_wikilink,
    quoted,
    standard_link,
)
from kbtools.corpus import decode, parse_source, read_source, rel_path
from kbtools.docfiles import find_markdown
from kbtools.errors import SourceError
from kbtools.findings import Finding, finding

KEYS = ("aliases", "alias")  # front-matter keys of a note's other names
Key = tuple[str, int, int]  # (linking document, line, column)
Walked = tuple[Sequence[Path], Sequence[Path]]  # a check's paths, the documents found there
# the findings of a document's edits made once headings and blocks are read
Anchored = Callable[[str, Sequence[Edit]], list[Finding]]


def note_aliases(meta: Mapping[str, Any]) -> list[str]:
    """The other names a document's front matter gives it (`aliases: [泵手册, Pump Manual]`,
    `alias: 泵手册`), as written."""
    out: list[str] = []
    for key in KEYS:
        value = meta.get(key)
        items = value if isinstance(value, list) else [value]
        out.extend(str(v).strip() for v in items
                   if isinstance(v, (str, int, float)) and not isinstance(v, bool)
                   and str(v).strip())
    return out


def alias_key(name: str) -> str:
    """How a wikilink's target is compared with an alias: as Obsidian compares names."""
    return disk_key(name.strip())


def documents_under(knowledge: Path, walked: Walked | None) -> list[Path]:
    """The documents under `knowledge` (`find_markdown`): taken from a walk the check made
    already, (its paths, what it found), when one of its folders holds `knowledge` where
    no hidden folder does; else found afresh."""
    if walked is not None:
        where = knowledge.absolute()
        for folder in walked[0]:
            top = Path(folder).absolute()
            if top.is_dir() and where.is_relative_to(top) \
                    and not any(p.startswith(".") for p in where.relative_to(top).parts):
                return [f for f in walked[1] if f.absolute().is_relative_to(where)]
    return find_markdown([knowledge])


def read_aliases(knowledge: Path, root: Path, max_bytes: int,
                 known: Mapping[str, Sequence[str]] | None = None,
                 walked: Walked | None = None) -> dict[str, list[str]]:
    """Each alias (`alias_key`) of the documents under `knowledge`: their root-relative
    paths, sorted. `known`: the aliases of documents this check read already (their
    `DocResult.aliases`, cached with their results), by path: those are not read again;
    `walked`: the check's own walk (`documents_under`). A document that cannot be read
    gives none (`kb check` names it)."""
    known = known or {}
    found: dict[str, set[str]] = {}
    for path in documents_under(knowledge, walked):
        rel = rel_path(path, root)
        if rel in known:
            names: Sequence[str] = known[rel]
        else:
            try:
                text, _ = decode(read_source(path, root, max_bytes))
                names = note_aliases(parse_source(text, path, rel).meta)
            except (SourceError, RecursionError):  # as `anchors.read_slugs` reads a document
                continue
        for alias in names:
            found.setdefault(alias_key(alias), set()).add(rel)
    return {key: sorted(docs) for key, docs in found.items()}


def alias_said(link: Wikilink, note: str, doc: str) -> str:
    """What a finding says of `link`'s target, an alias of the note `note` (root-relative),
    in the document `doc`."""
    shown = posixpath.relpath(note, posixpath.dirname(doc) or ".")
    return f"{quoted(link.target)} is an alias (front matter `aliases`) of {quoted(shown)}"


def fix_said(link: Wikilink, note: str, doc: str, new: str | None, heading: str = "") -> str:
    """The finding of `link`, naming the note `note` by an alias, whose fix writes `new`
    (None: nothing can be written); `heading`: what is wrong with the heading it names."""
    what = f"`kb check --fix` writes {quoted(new)}" if new is not None else \
        "`kb check --fix` leaves it as it is: write a standard link by hand"
    said = alias_said(link, note, doc) + (f"; {heading}" if heading else "")
    return (f"{describe(link)}; {said}: {what}"
            f"{TEXT_INSTEAD if link.embed else ''} ({SETTINGS})")


def alias_hints(missing: Iterable[tuple[str, Missing]], aliases: Mapping[str, Sequence[str]]
                ) -> dict[Key, tuple[str, Edit | None]]:
    """What the finding of each wikilink naming no file says when its target is an alias,
    and the edit `--fix` writes (one note). A wikilink to a heading or a block of the note
    (`[[泵手册#停机]]`, `[[泵手册#^leak-rule]]`) gets the edit a wikilink naming the note by
    its file gets (`Edit.told_with_anchors`: its finding is made once the note's headings
    and blocks are read, `kbtools.check.anchors`; a block's is never written)."""
    out: dict[Key, tuple[str, Edit | None]] = {}
    for doc, m in missing:
        link = parse_wikilink(m.raw) if m.wikilink else None
        # a note embedded by its alias (`![[泵手册]]`, `![[Pump Manual#停机]]`) is that
        # note's, as linked; a picture has no alias
        notes = aliases.get(alias_key(link.target), ()) if link and not link.image else ()
        if link is None or not notes:
            continue
        here = posixpath.dirname(doc) or "."
        if len(notes) > 1:
            listed = ", ".join(quoted(posixpath.relpath(n, here)) for n in notes)
            out[(doc, m.line, m.col)] = (
                f"{describe(link)}; {quoted(link.target)} is an alias (front matter "
                f"`aliases`) of {len(notes)} documents ({listed}): write a standard relative "
                f"link to the one meant ({SETTINGS})", None)
            continue
        note, new = notes[0], standard_link(link, notes[0], doc)
        if link.block:
            edit = Edit(m.line, m.col, m.raw, "", note, link.heading.rsplit("#", 1)[-1],
                        True, hint=True)
        else:
            slug = heading_slug(link, note)
            edit = Edit(m.line, m.col, m.raw, new, note if slug else "", slug, True)
        out[(doc, m.line, m.col)] = (fix_said(link, note, doc, None if link.block else new),
                                     edit)
    return out


def retold(findings: list[Finding], told: Mapping[Key, tuple[str, Edit | None]]
           ) -> list[Finding]:
    """`findings` with each `link-wikilink` finding of an alias saying so."""
    return [finding(f.path, f.line, f.col, f.level, f.code, told[(f.path, f.line, f.col)][0])
            if f.code == "link-wikilink" and (f.path, f.line, f.col) in told else f
            for f in findings]


def resolve(results: list[DocResult], findings: list[Finding], knowledge: Path | None,
            root: Path, max_bytes: int, told: Iterable[Key], walked: Walked | None = None,
            anchored: Anchored | None = None) -> tuple[list[DocResult], list[Finding]]:
    """`results` with the edits and `findings` with the messages of the wikilinks naming an
    alias (not those a rename hint, `told`, explains); the aliases are looked up only when a
    wikilink names no file, and read only from the documents `results` do not hold.
    `anchored`: the findings of a document's edits told with the anchors (a wikilink to a
    heading or block of the note: `kbtools.check.anchors.anchor_findings`), which replace
    the "no file" finding of each."""
    skip = set(told)
    wanted = [(r.rel, m) for r in results for m in r.missing
              if m.wikilink and (r.rel, m.line, m.col) not in skip]
    if knowledge is None or not wanted:
        return results, findings
    hints = alias_hints(wanted, read_aliases(knowledge, root, max_bytes,
                                             {r.rel: r.aliases for r in results}, walked))
    if not hints:
        return results, findings
    edits = {rel: tuple(e for (d, _, _), (_, e) in sorted(hints.items()) if d == rel and e)
             for rel in {d for d, _, _ in hints}}
    later = {key: edit for key, (_, edit) in hints.items()
             if anchored is not None and edit and edit.told_with_anchors}
    messages = {key: hint for key, hint in hints.items() if key not in later}
    kept = [f for f in retold(findings, messages)
            if f.code != CODE or (f.path, f.line, f.col) not in later]
    if anchored is not None:
        for rel in sorted({d for d, _, _ in later}):
            kept.extend(anchored(rel, [e for (d, _, _), e in sorted(later.items()) if d == rel]))
    return ([dataclasses.replace(r, edits=r.edits + edits.get(r.rel, ())) for r in results],
            kept)
