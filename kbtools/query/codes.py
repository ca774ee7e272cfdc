"""Which spellings are one code: a technician types a code from a display or from memory.

A *code* is a prefix of one to five ASCII letters and a number (E17, HX260, ERR9007,
ERROR 9007). Two spellings are the same code when their prefixes are the same letters, in
any case, or the short and long forms of one word (`PREFIX_FORMS`: ERR and ERROR), and their
numbers are the same number: a hyphen may stand between the two (E-17) and leading zeros do
not count (E017, E0017). Nothing else: E17 is not E170, and a token with letters after its
digits (utf8mb4, HX260A) is no code.

A document may write a code as two words, its prefix and its number (``ERROR 9007``); there
the prefix's first letter is a capital (`written_apart`): prose puts lower-case words before
numbers (``in 2``, ``top 10``), a display or a log writes codes in capitals.

These spellings are used only for a question's word the index does not hold as written
(`kbtools.query.expansion.index_spellings`): a code the index holds (p53, Th2 in
biomedical abstracts, E17 in a fault-code table) is searched and matched as written.

A question may type a code as two words too (`spaced_codes`: ``E 17`` as the display shows
it, ``ERROR 9007``, ``Error 1105``): a prefix in capitals, or a prefix form with an initial
capital (Error, Err), one space and a number (not ``Table 3``, ``Step 2``, ``in 2``). A
document states what such a code is on a line keyed by its prefix (`key_line`: ``* Error
Number: 9007``, ``错误码 Error: 9007``).

Pure: imports nothing from kbtools.
"""

from __future__ import annotations

import re
from functools import lru_cache

# One word's short and long forms as a code's prefix, in lower case.
PREFIX_FORMS = (("err", "error"),)
MAX_PADDING = 4  # a code's number is also tried zero-padded to this many digits (E7 → E0007)

_PARTS = re.compile(r"([A-Za-z]{1,5})-?(\d{1,9})")


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


def joined_spellings(token: str) -> list[str]:
    """The one-token spellings of the code `token` (lower case: as an index's vocabulary
    holds them), itself first: each prefix form, joined or hyphenated, its number as written,
    without leading zeros or zero-padded up to `MAX_PADDING` digits. [] for no code."""
    parts = code_parts(token)
    if parts is None:
        return []
    prefix, number = parts
    numbers = [number] + [number.rjust(w, "0") for w in range(len(number) + 1, MAX_PADDING + 1)]
    out = [token.lower()]
    for p in prefixes(prefix):
        for n in numbers:
            out += [f"{p}{n}", f"{p}-{n}"]
    return list(dict.fromkeys(out))


def split_spellings(token: str) -> list[tuple[str, str]]:
    """The code `token` as two words (prefix form, number), as ``ERROR 9007`` writes it."""
    parts = code_parts(token)
    return [(p, parts[1]) for p in prefixes(parts[0])] if parts else []


def written_apart(token: str) -> re.Pattern[str] | None:
    """A pattern for the code `token` written as two words in a text: a prefix form whose
    first letter is a capital, one space, the number (leading zeros allowed), as whole
    tokens (``ERROR 9007 (HY000)``, ``Error 9007`` for err9007; not ``error 9007`` in prose,
    not ``ERROR 90070``, not ``E 17.5``); group ``prefix``: the prefix as written. None for
    no code."""
    parts = code_parts(token)
    if parts is None:
        return None
    prefix, number = parts
    forms = "|".join(f"{re.escape(p[0].upper())}(?i:{re.escape(p[1:])})"
                     for p in sorted(prefixes(prefix), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_.\-])(?P<prefix>{forms}) 0*{number}"
                      rf"(?![A-Za-z0-9_]|\.\d)")


_SPACED = re.compile(r"(?<![A-Za-z0-9_.\-])(?P<prefix>[A-Za-z]{1,5}) (?P<number>\d{1,9})"
                     r"(?![A-Za-z0-9_]|[.,]\d)")


def spaced_codes(text: str, any_case: bool = False) -> list[tuple[str, str]]:
    """The codes `text` types as two words, (prefix, number) as written, each once: a prefix
    of one to five capitals (``E 17``, ``HX 260``, ``ERROR 9007``) or a prefix form
    (`PREFIX_FORMS`) with an initial capital (``Error 1105``), one space, a number as a whole
    token (not ``E 17.5``, ``E 170x``). With `any_case`, a prefix in lower case too (``e 17``,
    ``err 9007``, but also ``in 2`` and ``top 10``: for a caller that keeps only the codes an
    index holds joined, `kbtools.query.expansion.expand`)."""
    out: list[tuple[str, str]] = []
    for m in _SPACED.finditer(text):
        prefix, number = m.group("prefix"), m.group("number")
        if prefix.isupper() or (prefix[0].isupper() and len(prefixes(prefix.lower())) > 1) \
                or (any_case and prefix.islower()):
            out.append((prefix, number))
    return list(dict.fromkeys(out))


def spaced_parts(ident: str) -> tuple[str, str] | None:
    """(prefix, number) of an identifier that is a code typed as two words, else None."""
    found = spaced_codes(ident)
    return found[0] if len(found) == 1 and " ".join(found[0]) == ident else None


@lru_cache(maxsize=256)
def key_line(prefix: str, number: str) -> re.Pattern[str]:
    """A line stating the code (`prefix`, `number`): up to 40 characters holding one of the
    prefix's forms as a word (``* Error Number``), a colon, then only the number (leading
    zeros allowed, in optional quotes). Lines end at a newline or a NUL (texts joined)."""
    forms = "|".join(re.escape(p) for p in sorted(prefixes(prefix.lower()), key=len, reverse=True))
    return re.compile(rf"(?:^|(?<=[\n\x00]))[^:：\n\x00]{{0,40}}?(?<![A-Za-z])(?:{forms})"
                      rf"(?![A-Za-z])[^:：\n\x00]{{0,40}}[:：][ \t]*[`'\"]?0*{int(number)}[`'\"]?"
                      rf"[ \t]*(?=$|[\n\x00])", re.IGNORECASE)
