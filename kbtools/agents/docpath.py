"""What a caller passes as a document (MCP `read` and `evaluate_table`, ``/api/read``,
`kb read`): a path checked before any file is touched (`check_doc_path`: nothing absolute,
no ``..``, no backslash, NUL or invalid UTF-8, only Markdown), a citation or a link given
whole as the path (`cited`, `linked`), and the document a name means when no file is named
so exactly but one is named so but for case, Unicode composition or its Markdown suffix
(`same_documents`), or has that file name in another folder (`same_file_names`): every
surface alike (`kb read`, MCP, ``/api/read``, ``/doc/`` pages: `named_documents`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from kbtools.agents.arguments import MAX_SECTION_CHARS
from kbtools.agents.citation_text import percent_decoded, plain_citation
from kbtools.errors import UsageError, unpadded, valid_unicode

MAX_PATH_CHARS = 1024  # a document path longer than this is refused before any file access
# `doc` given whole: a path, with a citation's lines and heading path (or a link's anchor) and
# the release after it (`x.md:65-73 § A > B @ kb-r3`): the path's bound, a heading path's
# (`MAX_SECTION_CHARS`) and 128 for the rest; every surface refuses a longer one
# (`check_doc_length`) and its schema says so (OpenAPI and MCP ``maxLength``)
MAX_CITED_CHARS = MAX_PATH_CHARS + MAX_SECTION_CHARS + 128
MAX_NAME_BYTES = 255  # as is one with a longer component (no file system has such names)
_DRIVE = re.compile(r"^[A-Za-z]:")



def shown_doc(doc: str) -> str:
    """`doc` as messages show it: at most 80 characters, control characters and surrogates
    escaped."""
    text = doc if len(doc) <= 80 else doc[:79] + "…"
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


# a document's path with a citation's lines or section, or a link's anchor, after it
_CITED = re.compile(r"(?P<path>.+?\.(?:md|markdown))(?P<lines>:(?P<a>\d+)(?:-(?P<b>\d+))?)?"
                    r"(?:\s*§\s*(?P<heading>.*?))?(?P<anchor>#.*)?", re.IGNORECASE | re.DOTALL)


def _cited_hint(cited: re.Match[str], section_arg: str = "heading_path") -> str:
    """What to send instead of a citation or a link given as a document path: an agent passed
    `knowledge/x.md:53-60 § A > B` (the citation it was told to cite) or `knowledge/x.md#b`,
    and was told only Markdown documents can be read. `section_arg` is the argument the call
    takes a section as: `heading_path` (with line_start/line_end) for a read; a call that
    takes no lines (evaluate_table's `table`) is told to name the section there, not sent
    to arguments it refuses."""
    parts = []
    reads = section_arg == "heading_path"
    if cited.group("lines") and reads:
        parts.append(f"its lines as line_start={cited.group('a')}, line_end="
                     f"{cited.group('b') or cited.group('a')}")
    if cited.group("heading"):
        parts.append(f"its section as {section_arg}='{shown_doc(cited.group('heading').strip())}'")
    elif cited.group("lines") and not reads:
        parts.append(f"the section the lines lie in as {section_arg} (a heading or a section "
                     "number), not line numbers")
    if cited.group("anchor"):
        parts.append(f"a section by its heading as {section_arg}, not by its #anchor")
    return (f"a document path names the file alone ('{shown_doc(cited.group('path'))}'); give "
            + " or ".join(parts))


@dataclass(frozen=True)
class Cited:
    """A citation given where a document path is asked for, as search results print it
    (``knowledge/x.md:65-73 § A > B``; lines, a heading path or both): the document, the
    lines (None: none given) and the heading path (empty: none given)."""

    doc: str
    lines: tuple[int, int] | None
    heading: str


def cited(doc: Any) -> Cited | None:
    """`doc` as a citation, or None when it is none (a plain path, a link with an ``#``
    anchor, no Markdown file). Agents are told to cite each result's `citation` and pass
    back what search printed: refusing that text as a path made them rebuild the call."""
    if not isinstance(doc, str):
        return None
    found = _CITED.fullmatch(plain_citation(unpadded(doc)))  # as shown, or with its release
    if found is None or found.group("anchor"):
        return None
    heading = (found.group("heading") or "").strip()
    if not found.group("lines"):
        return Cited(found.group("path").strip(), None, heading) if heading else None
    first = int(found.group("a"))
    last = int(found.group("b") or first)  # `:62-60`, typed from its end: lines 60 to 62
    return Cited(found.group("path").strip(), (min(first, last), max(first, last)), heading)


def linked(doc: Any) -> tuple[str, str] | None:
    """(document path, anchor) of a link given where a document path is asked for
    (``knowledge/x.md#32-风险等级判定表``, the anchor URL-escaped or not), or None for
    anything else. Documents link to each other's sections so, and an agent following such
    a link passed it whole as the document."""
    if not isinstance(doc, str):
        return None
    found = _CITED.fullmatch(plain_citation(unpadded(doc)))
    if found is None or not found.group("anchor") or found.group("lines") \
            or found.group("heading"):
        return None
    anchor = found.group("anchor")[1:]
    return found.group("path").strip(), percent_decoded(anchor) or anchor


def _refused(shown: str, why: str, key: str, **values: str) -> UsageError:
    """A document path refused for `why`, with its `key` and values for another language's
    words (`serve.i18n.ERRORS`: a Chinese page says it in Chinese)."""
    return UsageError(f"refused document path '{shown}': {why}", key=key,
                      values={"doc": shown, **values})


def check_doc_length(doc: object) -> None:
    """UsageError when `doc` (a path or a whole citation, as given) is longer than
    `MAX_CITED_CHARS` characters: the bound every surface's schema states for it."""
    if isinstance(doc, str) and len(doc) > MAX_CITED_CHARS:
        raise _refused(shown_doc(doc), f"longer than {MAX_CITED_CHARS} characters",
                       "doc_path_long", limit=str(MAX_CITED_CHARS))


def check_doc_path(doc: str, section_arg: str = "heading_path") -> str:
    """Validate a document path given by a caller; returns it as a clean posix path. A
    citation or link given as the path is refused saying where its parts go: a section as
    `section_arg` (`_cited_hint`)."""
    if not isinstance(doc, str) or not unpadded(doc):
        raise UsageError("document path is empty", key="doc_path_empty")
    text = unpadded(doc)
    shown = shown_doc(doc)
    if len(text) > MAX_PATH_CHARS:
        raise _refused(shown, f"longer than {MAX_PATH_CHARS} characters", "doc_path_long",
                       limit=str(MAX_PATH_CHARS))
    if "\x00" in text or "\\" in text:
        raise _refused(shown, "backslashes and NUL are not allowed", "doc_path_chars")
    if valid_unicode(text) != text:
        raise _refused(shown, "not valid UTF-8", "doc_path_chars")
    # judged as it is meant: typed with a Chinese input method's full-width forms
    # (`knowledge／crops／a．md`, `．．／`), which `same_documents` reads as the ASCII ones
    meant = unicodedata.normalize("NFKC", text)
    if "\\" in meant:
        raise _refused(shown, "backslashes and NUL are not allowed", "doc_path_chars")
    if meant.startswith(("/", "~")) or _DRIVE.match(meant):
        raise _refused(shown, "absolute paths are not allowed; use the repo-relative path "
                       "from a search result", "doc_path_absolute")
    parts = [p for p in PurePosixPath(text).parts if p != "."]
    said = [p for p in PurePosixPath(meant).parts if p != "."]
    if ".." in said:
        raise _refused(shown, "'..' is not allowed", "doc_path_up")
    if any(len(p.encode("utf-8")) > MAX_NAME_BYTES for p in parts):
        raise _refused(shown, f"a name longer than {MAX_NAME_BYTES} bytes", "doc_path_long",
                       limit=f"{MAX_NAME_BYTES} B")
    if not parts or not said or not said[-1].lower().endswith((".md", ".markdown")):
        if (found := _CITED.fullmatch(text)) and any(found.group("lines", "heading", "anchor")):
            raise _refused(shown, _cited_hint(found, section_arg), "doc_path_cited",
                           path=shown_doc(found.group("path").strip()))
        raise _refused(shown, "only Markdown documents can be read", "doc_not_markdown")
    return "/".join(parts)


MARKDOWN = (".md", ".markdown")
MAX_NAMED_DOCS = 5  # documents named when a name means several but for case


def folded(path: str) -> str:
    """`path` as two spellings of one file name compare: NFKC (a full-width `／`, `．ｍｄ` or
    letter, as a Chinese input method types them, is the ASCII one), case-folded."""
    return unicodedata.normalize("NFKC", path).casefold()


def spellings(doc: str, folders: tuple[str, ...]) -> set[str]:
    """The folded paths an address `doc` may name: as given and percent-decoded once more,
    with ``.md``/``.markdown`` when it has no Markdown ending, under each knowledge folder."""
    given = {doc, *([d] if (d := percent_decoded(doc)) is not None else [])}
    named = {folded(g.strip("/")) for g in given}
    named |= {n + ext for n in named if not n.endswith(MARKDOWN) for ext in MARKDOWN}
    return named | {folded(f) + "/" + n for f in folders for n in named}


def same_documents(doc: str, names: list[str], folders: tuple[str, ...]) -> list[str]:
    """The documents of `names` that `doc` names but for case and Unicode composition
    (``Wheat-Scab.MD``, an NFD name for an NFC file), sorted: one is the document meant;
    several (``A.md`` beside ``a.md``) are for the caller to choose from."""
    wanted = spellings(doc, folders)
    return sorted(n for n in names if folded(n) in wanted)


def same_file_names(doc: str, names: list[str], folders: tuple[str, ...]) -> list[str]:
    """The documents of `names` at whose path's end `doc` is, whole names only, but for case
    and Unicode composition, sorted: a path given without its folders (``wheat-scab.md``,
    ``crops/wheat-scab.md`` or ``knowledge/wheat-scab.md`` for
    ``knowledge/crops/wheat-scab.md``), as a citation or a link is shortened by hand."""
    tails = {n for n in spellings(doc, ()) if n}
    tails |= {n[len(folded(f)) + 1:] for n in tails for f in folders
              if n.startswith(folded(f) + "/")}
    return sorted(n for n in names if any(folded(n).endswith("/" + t) for t in tails if t))


def whole_path(doc: str, folders: tuple[str, ...]) -> bool:
    """Whether the address `doc` is a path a document may have had: under a knowledge folder
    (``knowledge/x.md``), not a file name or path shortened by hand (``x.md``,
    ``crops/x.md``), which no document of any release had. Such a path naming no document
    never opens another of its file name (it may be the path of one since removed): the
    rule of `kb read`, `/api/read` and a document's page."""
    return any(n.startswith(folded(f).strip("/") + "/") for n in spellings(doc, ())
               for f in folders)


def named_documents(doc: str, names: list[str], folders: tuple[str, ...]
                    ) -> tuple[list[str], bool]:
    """The documents of `names` that `doc`, naming none exactly, means: those it names but
    for case and Unicode composition (`same_documents`), else those of its file name in
    other folders (`same_file_names`); and whether they were found by file name."""
    if found := same_documents(doc, names, folders):
        return found, False
    return same_file_names(doc, names, folders), True


def same_document(doc: str, names: list[str], folders: tuple[str, ...]) -> str | None:
    """The one document of `names` that `doc` means (`named_documents`); None when none is,
    or several are."""
    found = named_documents(doc, names, folders)[0]
    return found[0] if len(found) == 1 else None


def several_named(doc: str, found: list[str], by_file_name: bool = False) -> UsageError:
    """The error for `doc` naming no document exactly and several of `found` but for case
    or Unicode composition, or (`by_file_name`) by its file name in several folders: it
    names them, for the caller to give one exactly."""
    listed = ", ".join(found[:MAX_NAMED_DOCS]) + (
        f" and {len(found) - MAX_NAMED_DOCS} more" if len(found) > MAX_NAMED_DOCS else "")
    if by_file_name:
        return UsageError(f"'{shown_doc(doc)}' names no document exactly, and {len(found)} "
                          f"documents have that file name: {listed}; give the one meant with "
                          "its folders", key="doc_names_several_files",
                          values={"doc": shown_doc(doc), "docs": listed,
                                  "count": str(len(found))})
    return UsageError(f"'{shown_doc(doc)}' names no document exactly, and {len(found)} "
                      f"documents but for case or Unicode composition: {listed}; give the "
                      "one meant as it is written", key="doc_names_several",
                      values={"doc": shown_doc(doc), "docs": listed})


def same_name_clause(found: list[str], where: str) -> str:
    """What "no such document" adds for a whole path (`whole_path`) naming none while `found`
    have its file name in other folders: they are not read in its place (it may be the path
    of one since removed), but named, for the caller to read and cite the one meant by its
    own path; empty when none have."""
    if not found:
        return ""
    listed = ", ".join(found[:MAX_NAMED_DOCS]) + (
        f" and {len(found) - MAX_NAMED_DOCS} more" if len(found) > MAX_NAMED_DOCS else "")
    has = "a document" if len(found) == 1 else f"{len(found)} documents"
    return (f"; the {where} has {has} of that file name in another folder: {listed}; if "
            "one is meant, read and cite it by that path")
