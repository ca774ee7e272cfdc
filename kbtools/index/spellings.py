"""Spellings of one value that the BM25 tokenizer cuts into different parts.

`respell` rewrites the normalised lower-case text `kbtools.index.tokenize.Tokenizer` cuts
(the same for chunks and questions), and names tokens to add, so that every spelling of
these values gives the same tokens:

- a number with thousands separators is the number (`1,000` and `1，000` as `1000`): the
  commas go, and as many spaces follow the number, so the text keeps its length (the
  tokenizer reads the case of a word at its place in the text as written);
- a date written with slashes, dots or 年月日 (`2026/03/19`, `2026.3.19`, `2026年3月19日`)
  adds the token of its ISO spelling (`2026-03-19`, which is one token), its parts kept so
  that a question naming the year still matches.

Stored text, snippets and citations keep what the author wrote.
"""

from __future__ import annotations

import re

# In normalised lower-case text (NFKC made ，and ／ ASCII). A date: a four-digit year, a month
# and a day joined by one separator twice, or written with 年 月 日/号 (spaces allowed), not
# part of a longer dotted or dashed number or code. Grouped digits: one to three, then groups
# of three after commas, not part of a longer number, list of numbers or code.
_VALUE_SPELLING = re.compile(
    r"(?<![a-z0-9_.,/])(?:"
    r"(?<!-)(?P<y>\d{4})(?:(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
    r"|[ \t]*年[ \t]*(?P<zm>\d{1,2})[ \t]*月[ \t]*(?P<zd>\d{1,2})[ \t]*[日号])"
    r"|(?P<grouped>\d{1,3}(?:,\d{3})+(?:\.\d+)?)"
    r")(?![\d]|[.,/-]\d)")


# After an ISO date, a character that keeps the Latin run going, so that the run's token is
# not the date (2026-03-19t10:30 is 2026-03-19t10 and 30).
_RUN_GOES_ON = frozenset("abcdefghijklmnopqrstuvwxyz_")


def respell(text: str) -> tuple[str, list[str]]:
    """`text` (normalised, lower case) with its grouped numbers joined, the same length, and
    the ISO token of each date the tokenizer cuts into parts (an ISO date that is a token of
    its own already and a date of no such month or day add none)."""
    dates: list[str] = []

    def one(m: re.Match[str]) -> str:
        if grouped := m.group("grouped"):
            return grouped.replace(",", "") + " " * grouped.count(",")
        month, day = (m.group("m"), m.group("d")) if m.group("sep") else \
            (m.group("zm"), m.group("zd"))
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            iso = f"{m.group('y')}-{int(month):02d}-{int(day):02d}"
            if m.group(0) != iso or text[m.end():m.end() + 1] in _RUN_GOES_ON:
                dates.append(iso)
        return m.group(0)

    return _VALUE_SPELLING.sub(one, text), dates
