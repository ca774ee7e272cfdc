"""Where a cited section lies now, when the document its citation names is not in the
release read: MCP `read` and `evaluate_table`, ``/api/read``, ``/api/table/evaluate``,
`kb read` and `kb table eval` alike.

A `kb sync` brought a release that renamed or moved a document; an agent passing back a
citation an earlier answer gave (``knowledge/crops/wheat-scab.md:62-75 § A > B``) was told
only that no such document exists, "removed or renamed", and searched again from scratch.
The release read still holds the section at the citation's whole heading path, usually in
the renamed document: `moved` names the documents holding it, for the caller to read there.
Nothing is read in their place, since another document is no citation of the first.
"""

from __future__ import annotations

from kbtools.agents.read import Knowledge
from kbtools.errors import KbError
from kbtools.markdown.heading_paths import heading_parts, path_matches

MAX_NAMED = 3  # documents named; more are counted


def holding(kn: Knowledge, heading: str | list[str] | None) -> list[str]:
    """The documents of the release `kn` reads holding a section at heading path `heading`
    (all of it, from the document's top heading, as a citation writes it); none for a
    repository's files or no heading path."""
    parts, seps = heading_parts(heading)
    if kn.idx is None or not parts:
        return []
    return sorted({doc for doc, path in kn.idx.store.heading_paths()
                   if path_matches(parts, seps, path, whole=True)})


def moved(exc: KbError, kn: Knowledge, heading: str | list[str] | None, where: str) -> KbError:
    """`exc`, when it says a document is not in the release `kn` reads (`where`, as a
    message names it) and that release holds the section `heading` names elsewhere, with
    the documents holding it named (also as ``values["moved"]``, the clause, for a caller
    that words the error its own way)."""
    if exc.key != "no_document":
        return exc
    found = holding(kn, heading)
    if not found:
        return exc
    parts = heading_parts(heading)[0]
    named = ", ".join(found[:MAX_NAMED]) + (f" and {len(found) - MAX_NAMED} more"
                                            if len(found) > MAX_NAMED else "")
    clause = (f"; {where} has the section '{' > '.join(parts)}' in {named}: renamed or "
              "moved, perhaps; read it there and cite it as that document")
    return KbError(exc.message + clause, key=exc.key, path=exc.path, line=exc.line,
                   values={**exc.values, "moved": clause, "moved_in": named,
                           "moved_section": " > ".join(parts)})
