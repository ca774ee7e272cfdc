"""Which spellings are one code: a technician types a code from a display or from memory.

A *code* is a prefix of one to five ASCII letters and a number (E17, HX260, ERR9007,
ERROR 9007). Two spellings are the same code when their prefixes are the same letters, in
any case, or the short and long forms of one word (`PREFIX_FORMS`: ERR and ERROR), and their
numbers are the same number: a hyphen or one space may stand between the two (E-17, E 17),
and leading zeros do not count (E017, E0017). Nothing else: E17 is not E170, v5 is not
v5.4 (the number ends where the code does, not before a ".digit"), and a token with letters
after its digits (utf8mb4, 25MB's inverse) is no code.

In a document's text the space form is a code only with its prefix's first letter in upper
case (``ERROR 9007``, ``Error 9007``, ``E 17``): prose puts lower-case words before numbers
(``in 2``, ``top 10``), a display or a log writes codes in capitals.

Pure: imports nothing from kbtools.
"""

from __future__ import annotations

import re
from functools import lru_cache

# One word's short and long forms as a code's prefix, in lower case.
PREFIX_FORMS = (("err", "error"),)
MAX_PADDING = 4  # a code's number is also tried zero-padded to this many digits (E7 → E0007)

_PARTS = re.compile(r"([A-Za-z]{1,5})[- ]?(\d{1,9})")
# In a question: a prefix in capitals, a space, a number standing alone (E 17, ERR 9007).
_SPACED = re.compile(r"(?<![A-Za-z0-9_.\-])[A-Z]{1,5} \d{1,9}(?![A-Za-z0-9_]|[.,:]\d)")


def code_parts(token: str) -> tuple[str, str] | None:
    """(prefix in lower case, number without leading zeros) of a code, else None."""
    m = _PARTS.fullmatch(token)
    if m is None:
        return None
    return m.group(1).lower(), m.group(2).lstrip("0") or "0"


def prefixes(prefix: str) -> tuple[str, ...]:
    """The forms of a code's prefix (lower case): itself, and its short or long form."""
    for forms in PREFIX_FORMS:
        if prefix in forms:
            return forms
    return (prefix,)


def code_regex(token: str) -> str | None:
    """A regular expression (to be matched ignoring case) for every spelling of the code
    `token` in a text, as a whole token; None when `token` is no code."""
    parts = code_parts(token)
    if parts is None:
        return None
    prefix, number = parts
    forms = sorted(prefixes(prefix), key=len, reverse=True)
    words = "|".join(re.escape(p) for p in forms)
    # joined or hyphenated in any case; with a space, the prefix's first letter a capital
    spaced = "|".join(f"(?-i:{re.escape(p[0].upper())}){re.escape(p[1:])}" for p in forms)
    return (rf"(?<![A-Za-z0-9_])(?:(?:{words})-?|(?:{spaced}) )0*{number}"
            rf"(?![A-Za-z0-9_]|\.\d)")


@lru_cache(maxsize=256)
def code_pattern(token: str) -> re.Pattern[str] | None:
    """`code_regex` compiled (ignoring case but for the space form's capital)."""
    regex = code_regex(token)
    return re.compile(regex, re.IGNORECASE) if regex is not None else None


def joined_spellings(token: str) -> list[str]:
    """The one-token spellings of the code `token` (lower case: as an index's vocabulary
    holds them), itself first: each prefix form, joined or hyphenated, its number as written,
    without leading zeros or zero-padded up to `MAX_PADDING` digits. [] for no code."""
    parts = code_parts(token)
    if parts is None:
        return []
    prefix, number = parts
    numbers = [number] + [number.rjust(w, "0") for w in range(len(number) + 1, MAX_PADDING + 1)]
    out = [token.lower().replace(" ", "")]
    for p in prefixes(prefix):
        for n in numbers:
            out += [f"{p}{n}", f"{p}-{n}"]
    return list(dict.fromkeys(out))


def split_spellings(token: str) -> list[tuple[str, str]]:
    """The code `token` as two words (prefix form, number), as ``ERROR 9007`` writes it."""
    parts = code_parts(token)
    return [(p, parts[1]) for p in prefixes(parts[0])] if parts else []


def spaced_codes(text: str) -> list[str]:
    """The codes a question writes with a space (``E 17``, ``ERR 9007``: a prefix in
    capitals), as written."""
    return [m.group(0) for m in _SPACED.finditer(text)]
