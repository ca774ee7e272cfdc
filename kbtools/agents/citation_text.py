"""A citation as agents and people copy it, read back as the citation `read` takes.

`Citation.text()` writes ``knowledge/x.md:65-73 § A > B``, and every surface takes that
(`kbtools.agents.read.cited`). What gets pasted back is often more or other:

- the release it came from after it: ``… @ 3f2a9c1d0b7e`` (a citation and the release's
  ``source_commit``, as agents are told to cite both), ``… (commit 3f2a9c1d0b7e)``, or
  `kb query`'s closing ``[release r7 @ 3f2a9c1d0b7e]``;
- what `kb query` shows a person, ``knowledge/x.md › A › B (lines 65–73)``
  (`Citation.display`);
- a code host's line anchor, ``knowledge/x.md#L65-L73``;
- the whole of it URL-escaped, as a web address holds it (``%23`` for ``#``).

`split_release` takes the release off, `as_citation` turns the shown form into the written
one. Both are plain string operations on the text's tail (and one pattern over at most a
line's few characters), so no pasted text can make them slow.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

MIN_COMMIT_DIGITS = 7  # as git abbreviates a commit; fewer name too many commits
MAX_COMMIT_DIGITS = 64  # a SHA-256 commit
# the line numbers `Citation.display` ends with, after " (line": "s 65–73)" or " 7)"
_SHOWN_LINES = re.compile(r"s?\s*(\d{1,9})(?:\s*[–—-]\s*(\d{1,9}))?\s*\)")
_DOCUMENT_ENDS = (".md", ".markdown")
# what an input method types where a citation's line numbers stand (NFKC of the full-width
# forms, and the dashes a range is typed with): `：１０-２０`, `#Ｌ１０－Ｌ２０`, `10～20`
NARROW_DIGITS = str.maketrans({chr(0xFF10 + n): str(n) for n in range(10)})  # ０-９ → 0-9
_WIDE = {chr(0xFF10 + n): str(n) for n in range(10)} | {"：": ":", "Ｌ": "L", "ｌ": "l"} | \
    dict.fromkeys("－–—～〜~", "-")
# the full-width forms of ASCII and the ideographic space, what a Chinese input method types
# (`ｘ．ｍｄ：１０`, `２５`, `ｐＨ`, `＞`, `＃`): the characters Unicode decomposes as <wide> of
# one ASCII character (U+FF01-FF5E, U+3000), each as that character (`narrow_width`)
NARROW_FORMS = str.maketrans({
    c: unicodedata.normalize("NFKC", c)
    for c in map(chr, (*range(0x3000, 0x3040), *range(0xFF00, 0xFFF0)))
    if unicodedata.decomposition(c).startswith("<wide>")
    and unicodedata.normalize("NFKC", c).isascii()})


def narrow_width(text: str) -> str:
    """`text` with the full-width forms of ASCII and the ideographic space as the ASCII they
    stand for (`NARROW_FORMS`), one character for one: an index into the result is the same
    character's in `text`. Other compatibility forms keep their own characters, though NFKC
    reads some as ASCII: a superscript or subscript is an exponent or a footnote's mark
    (``pump.md:40²`` is line 40 and note 2, no line 402; a table reads ``10⁵`` as 10^5), a
    ligature (``ﬁ``), ``℃`` or ``①`` stands for more than one character or no digit, and
    nobody types a path's or a number's letters in mathematical bold (``𝐦𝐝``)."""
    return text.translate(NARROW_FORMS)


def is_commit(text: str) -> bool:
    """`text` is a commit as written: 7 to 64 hexadecimal digits."""
    return (MIN_COMMIT_DIGITS <= len(text) <= MAX_COMMIT_DIGITS and text.isascii()
            and all(c in "0123456789abcdefABCDEF" for c in text))


def _names_document(text: str) -> bool:
    """`text` holds a Markdown document's name (what a citation starts with)."""
    low = text.lower()
    return any(end in low for end in _DOCUMENT_ENDS)


def split_release(doc: str) -> tuple[str, str | None, str | None]:
    """(`doc` without the release it names at its end, the commit, the release tag); the
    text as given and None, None when it names none. Read: ``@ <commit>``,
    ``(commit <commit>)`` or ``commit <commit>``, ``[release <tag> @ <commit>]`` and
    ``[local build @ <commit>]`` (`kb query`'s line, ``+ uncommitted changes`` too)."""
    text = doc.strip()
    head, commit, tag = text, None, None
    if text.endswith("]") and "[" in text:
        head, _, inner = text[:-1].rpartition("[")
        words = inner.replace("+ uncommitted changes", "").replace("@", " @ ").split()
        said = words[:-2]
        if len(words) < 3 or words[-2] != "@" or not is_commit(words[-1]) or \
                said != ["local", "build"] and (len(said) != 2 or said[0] != "release"):
            return text, None, None
        commit, tag = words[-1], said[1] if said[0] == "release" else None
    elif text.endswith(")") and "(" in text:
        head, _, inner = text[:-1].rpartition("(")
        words = inner.replace(",", " ").split()
        if len(words) >= 2 and words[-2] == "commit" and is_commit(words[-1]):
            commit = words[-1]
            tag = words[1] if len(words) == 4 and words[0] == "release" else None
            if len(words) not in (2, 4) or len(words) == 4 and tag is None:
                return text, None, None
        else:
            return text, None, None
    else:
        before, _, last = text.rpartition("@")
        if before and is_commit(last.strip()):
            head, commit = before, last.strip()
        else:
            before, _, last = text.rpartition(" ")
            if before.rstrip().lower().endswith("commit") and is_commit(last):
                head, commit = before.rstrip()[:-len("commit")], last
            else:
                return text, None, None
    head = head.rstrip()
    if not head or not _names_document(head):
        return text, None, None
    return head, commit.lower(), tag


def said_dirty(doc: str) -> bool:
    """The release after citation `doc` was a build of uncommitted files (`kb query`'s
    ``[local build @ <commit> + uncommitted changes]``, or a message's ``… @ <commit> with
    uncommitted changes``): `split_release` reads its commit alone."""
    text = doc.strip()
    tail = text[max(text.rfind("["), text.rfind("@")):] if "[" in text or "@" in text else ""
    return "uncommitted changes" in tail


def as_citation(doc: str) -> str:
    """`doc` as `Citation.text` writes it when it is a citation as `Citation.display` shows
    it (``x.md › A › B (lines 65–73)``: ``x.md:65-73 § A > B``); else `doc` as given."""
    text = doc.strip()
    head, _, tail = text.rpartition(" (line")
    found = _SHOWN_LINES.fullmatch(tail) if head else None
    if found is None:
        return doc
    path, *headings = (part.strip() for part in head.split("›"))
    if not path.lower().endswith(_DOCUMENT_ENDS) or not all(headings):
        return doc
    first = found.group(1).translate(NARROW_DIGITS)
    lines = f"{first}-{(found.group(2) or first).translate(NARROW_DIGITS)}"
    return f"{path}:{lines}" + (f" § {' > '.join(headings)}" if headings else "")


def percent_decoded(doc: str) -> str | None:
    """`doc` with its URL escapes decoded (``knowledge%2Fcrops%2Fx.md``,
    ``knowledge/%E9%BB%84%E7%93%9C.md``), or None when it has none or they are no UTF-8.
    An agent copies a document's path from a link or a web page's address, where a Chinese
    name or every '/' is written so; `Knowledge.resolve` tries the decoded path when the path
    as given names no file (a file whose name holds '%' is still read as named). The decoded
    path is checked as any other (``%2E%2E`` is '..', refused)."""
    if "%" not in doc:
        return None
    try:
        decoded = unquote(doc, errors="strict")
    except UnicodeDecodeError:
        return None
    return decoded if decoded != doc else None


def unescaped(doc: str) -> str:
    """`doc` URL-decoded when it is a link or citation escaped whole (its ``#`` as ``%23``,
    ``knowledge%2Fcrops%2Fx.md%2332-%E9%A3%8E…``, as a web page's address holds it); else
    as given. A path escaped alone is decoded when read (`percent_decoded`), so that a file
    whose name holds '%' is still read as named."""
    decoded = percent_decoded(doc)
    return decoded if decoded is not None and any(c in decoded and c not in doc
                                                  for c in "#§") else doc


def line_anchor(doc: str) -> str:
    """`doc` with a code host's line anchor (``x.md#L65-L73``, ``#L65-73``, ``#L65``) written
    as a citation's lines (``x.md:65-73``); else as given."""
    head, _, anchor = doc.rpartition("#")
    first, _, last = anchor.removeprefix("L").partition("-")
    last = last.removeprefix("L")
    if not head or not anchor.startswith("L") or not _digits(first) or last and not _digits(last):
        return doc
    return f"{head}:{int(first)}-{int(last or first)}"


def _digits(text: str) -> bool:
    return 0 < len(text) <= 9 and text.isascii() and text.isdigit()


def narrow_numbers(text: str) -> str:
    """`text` with full-width digits, colon and 'L', and a range's dashes (`_WIDE`), as
    ASCII: a line range as an input method types it (``Ｌ１０－Ｌ２０`` → ``L10-L20``)."""
    return "".join(_WIDE.get(c, c) for c in text)


def narrow_lines(doc: str) -> str:
    """`doc` with the line numbers after its document's name as ASCII when an input method
    typed them wide: ``x.md：１０-２０ § A`` → ``x.md:10-20 § A``, ``x.md#Ｌ１０－Ｌ２０`` →
    ``x.md#L10-L20``, ``x.md:10～20`` → ``x.md:10-20``; else as given. Only the characters
    up to the heading path (``§``) or the end are read, so a heading keeps its own text."""
    low = doc.lower()
    end = max((i + len(e) for e in _DOCUMENT_ENDS for i in (low.rfind(e),) if i >= 0),
              default=-1)
    if end < 0 or end >= len(doc) or doc[end] not in ":：#":
        return doc
    tail = doc[end:]
    cut = len(tail)
    for stop in ("§", "@", "(", "["):  # its heading path, or the release after it
        at = tail.find(stop)
        cut = min(cut, at) if at > 0 else cut
    lines, rest = tail[:cut], tail[cut:]
    if lines.isascii() or lines[0] == "#" and lines[1:2] not in ("L", "Ｌ", "l", "ｌ"):
        return doc  # nothing typed wide, or a link's anchor (#32-风险等级判定表)
    narrow = narrow_numbers(lines.rstrip())
    if not narrow.isascii() or not any(c.isdigit() for c in narrow):
        return doc
    return doc[:end] + narrow + lines[len(lines.rstrip()):] + rest


def narrow_suffix(doc: str) -> str:
    """`doc` with its document's Markdown suffix as ASCII when an input method typed it wide
    (``x．md:60-73``, ``x.ｍｄ：60-73``, ``x．ＭＤ § A``: ``x.md``, ``x.MD``), so that the
    lines, heading path or release after it are read as after ``.md``; else as given. The
    suffix is the first one ending the path (at the text's end, or before a character that
    neither goes on with the name nor starts a folder); the rest keeps its own characters,
    but for a full-width ``＃`` right after the suffix: the ``#`` before a link's anchor or a
    code host's lines (``x.md＃安装步骤``, ``x.md＃Ｌ１０``), as a Chinese input method types
    it, which was read as part of the path ("no such document")."""
    narrow = narrow_width(doc)  # one to one: each index the same character's
    low = narrow.lower()
    ends = [(at, at + len(e)) for e in _DOCUMENT_ENDS for at in _found(low, e)
            if at + len(e) == len(doc) or not (narrow[at + len(e)].isalnum()
                                              or narrow[at + len(e)] == "/")]
    if not ends:
        return doc
    at, end = min(ends)
    if narrow[end:end + 1] == "#":
        end += 1
    return doc[:at] + narrow[at:end] + doc[end:]


def _found(text: str, part: str) -> list[int]:
    """Where `part` starts in `text`, each place."""
    places, at = [], text.find(part)
    while at >= 0:
        places.append(at)
        at = text.find(part, at + 1)
    return places


def plain_citation(doc: str) -> str:
    """`doc` without a release after it and in the written form: what `cited` and `linked`
    read (the release a read is asked for is `split_release`'s business)."""
    return as_citation(line_anchor(narrow_lines(split_release(narrow_suffix(unescaped(doc)))[0])))
