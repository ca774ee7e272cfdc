"""Spellings of one value that the BM25 tokenizer cuts into different parts.

`value_tokens` finds, in the normalised lower-case text `kbtools.index.tokenize.Tokenizer`
cuts (the same for chunks and questions), values the cut parts at punctuation and gives
each one token more, the same for every spelling: a date (`2026/03/19`, `2026.3.19`,
`2026年3月19日` also as `2026-03-19`, as an ISO date is one token) and a number with
thousands separators (`1,000` and `1，000` also as `1000`). Their parts stay tokens too, so
a question naming the year, or the digits as written, still matches. Stored text, snippets and citations keep what the author
wrote.
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


def value_tokens(text: str) -> list[str]:
    """One token per date or grouped number of `text` (normalised, lower case) that the
    tokenizer cuts into parts: the date as `yyyy-mm-dd`, the number without its commas. An
    ISO date that is a token of its own already and a date of no such month or day give
    none."""
    out: list[str] = []
    for m in _VALUE_SPELLING.finditer(text):
        if grouped := m.group("grouped"):
            out.append(grouped.replace(",", ""))
            continue
        month, day = (m.group("m"), m.group("d")) if m.group("sep") else \
            (m.group("zm"), m.group("zd"))
        if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
            continue
        iso = f"{m.group('y')}-{int(month):02d}-{int(day):02d}"
        if m.group(0) != iso or text[m.end():m.end() + 1] in _RUN_GOES_ON:
            out.append(iso)
    return out
