"""The question's matched terms marked in page text: one pattern of at most `MAX_TERMS`
terms, each as the page shows it (a Latin term starts a word, a stem takes the rest of its
word, CJK terms match anywhere; characters no reader sees, a zero-width space or a soft hyphen
the source puts inside a term, do not break it), over text HTML-escaped around the marks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from markdown_it.common.utils import escapeHtml

from kbtools.errors import INVISIBLE

MAX_TERMS = 32  # highlighted terms per question
# between two characters of a term: what no reader sees (U+200B, a soft hyphen), which search
# leaves out of chunk text and questions alike (`errors.INVISIBLE`), so `赤\u00ad霉病` matched
_GAP = f"(?:{INVISIBLE.pattern})?"


def terms_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """The question's matched terms (BM25 tokens) as one pattern. A Latin term starts a word
    (``f`` of ``160 F`` is not marked inside ``Safety``, ``2`` not inside ``P-200``) and a
    stem is marked with the rest of its word (``temperatur`` → ``temperature``); a term of
    digits or of fewer than three letters is a whole word. CJK terms match anywhere."""
    words = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    words = words[:MAX_TERMS]
    if not words:
        return None
    return re.compile("|".join(_term_regex(w) for w in words), re.I)


def lone_character(term: str) -> bool:
    """A term of one character beyond ASCII (a CJK character)."""
    term = term.strip()
    return len(term) == 1 and not term.isascii()


def _term_regex(word: str) -> str:
    spelled = _GAP.join(re.escape(c) for c in word)
    if not (word[0].isascii() and word[0].isalnum()):
        return spelled
    last = word[-1]
    tail = "[a-z]*" if last.isascii() and last.isalpha() and len(word) >= 3 else "(?![a-z0-9])"
    return f"(?<![a-z0-9]){spelled}{tail}"


def highlight(text: str, pattern: re.Pattern[str] | None) -> str:
    """`text` HTML-escaped, each match of `pattern` (found in the raw text) in ``<mark>``."""
    if pattern is None:
        return escapeHtml(text)
    out, pos = [], 0
    for m in pattern.finditer(text):
        if m.end() == m.start():
            continue
        out.append(escapeHtml(text[pos:m.start()]))
        out.append(f"<mark>{escapeHtml(m.group(0))}</mark>")
        pos = m.end()
    out.append(escapeHtml(text[pos:]))
    return "".join(out)


def highlight_terms(text: str, terms: Sequence[str]) -> str:
    """Plain text escaped, with the matched terms marked (titles, headings, table cells)."""
    return highlight(text, terms_pattern(terms))
