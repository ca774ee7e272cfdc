"""A question as its values and input names are read from it (`compact`): NFKC, case-folded,
whitespace dropped (Chinese needs none: 温度 22 度 is 温度22度) except one space between two
Latin words or numbers, between a Latin word and a number (``leak rate 2``: glued, ``rate2``
would read as an identifier like E17, whose digits are no value; ``1 200`` is no 1200) and
after a comma or a period before a number (``20 C. 90%``: a sentence end, not 20 and .90)
or between a word and a sign before a number (``pump #3``, quoted as typed);
the period of an abbreviation of "about" (``approx. 90%``: `APPROX_ABBREVIATIONS`) is
dropped, and numbers said in words or in ranges of shares are spelt as `kbtools.query.values`
reads them (``four days``, 百分之八十到九十). Input names are compacted the same way
(`compact_term`, remembered), so ``Leak rate`` is found as ``leak rate``.

Pure: the words are data in `kbtools.decision` and `kbtools.query.value_units`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kbtools.decision.cell_text import normalize_cell, normalize_text
from kbtools.decision.numerals import percent_ranges, spell_numbers
from kbtools.decision.units import MAGNITUDE_WORDS
from kbtools.decision.words import APPROX_ABBREVIATIONS
from kbtools.index.tokenize import is_cjk
from kbtools.query.fillers import EN_NUMERALS
from kbtools.query.value_units import said_roughly, unit_after
from kbtools.query.values import count_noun


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@lru_cache(maxsize=16384)
def compact_term(text: str) -> str:
    """`compact` of a synonym term or a table's header or subject, remembered: a search
    reading a table's inputs compacted every term of the synonyms file again for each of its
    count nouns and words (what the knowledge says, the same texts every search)."""
    return compact(text)


def compact(text: str, *, fold: bool = True) -> str:
    """`text` as values and input names are read from it (see the module doc); with `fold`
    False, the same text in the case it was written (what a message shows the user)."""
    text = plain(text)
    text = normalize_text(text) if fold else normalize_cell(text)
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == " ":
            left, right = text[i - 1:i], text[i + 1:i + 2]
            after = text[i + 2:i + 3]
            keep = (_latin(left) and _latin(right)) or \
                (left.isascii() and left.isalpha() and right in "-+#" and after.isdigit()) or \
                (left in ",." and right.isdigit()) or \
                (right.isdigit() and (left in "%°" or (
                    is_cjk(left) and text[i - 2:i - 1].isdigit())))
            # (22度 90%: a space after a number's unit parts two values, no 22.90 said the
            # spoken way, 26度5; the word before the second is none)
            if not keep:
                continue
        elif ch.isdigit() and "".join(out[-2:]).casefold() in _LETTER_UNITS and \
                (len(out) < 3 or out[-3].isdigit() or out[-3] == " "):
            out.append(" ")  # 24°c85%: the c is 24's unit, no letter of an identifier c85
        elif ch == "." and _abbreviation(out) and (text[i + 1:i + 2].isdigit() or (
                text[i + 1:i + 2] == " " and text[i + 2:i + 3].isdigit())):
            ch = " " if text[i + 1:i + 2].isdigit() else ""  # approx. 90%: approx 90%
        out.append(ch)
    # 百分之八十到九十, 百分之八九十: a range of shares, read as 八十到九十%
    return spell_numbers(said_roughly(percent_ranges("".join(out))), _unit_follows)


def plain(text: str) -> str:
    """`text` with its compatibility forms as the plain characters they stand for (NFKC, as
    the rest of the project reads them: ＲＨ８５％ as RH85%, ｔｅｍｐ２５．５ as temp25.5, ⁸⁵ as
    85), a full-width comma as the clause end it is and a thin space grouping thousands
    dropped; what `compact` reads, and what a question's words are found in before it is
    compacted (`query.inputs`: the short form glued to its number, ＲＨ８５)."""
    # a full-width comma ends a clause, never groups digits (湿度84.9，26℃ is no 84.9,26)
    # a thin space grouping thousands (1 200, as SI writes them) is part of the number
    return unicodedata.normalize("NFKC", _THIN_GROUPS.sub("", text.replace("\uff0c", ", ")))


_THIN_GROUPS = re.compile(r"(?<=\d)[\u2009\u202f](?=\d{3}(?!\d))")


def _unit_follows(rest: str) -> bool:
    """Whether `rest` (what follows English number words) starts with a unit, or with the
    words a number counts and a unit of time (``rainy days``), making the words a value as a
    unit after a Chinese numeral does (``four days``, ``eighty percent``; not the a of ``one
    a day``, an article)."""
    rest = rest.casefold()
    suffix = unit_after(rest)[0]
    noun, gap = count_noun(rest)  # (not ``one`` of ``one one days``: no thing counted)
    return bool(suffix and suffix != "a" and suffix not in MAGNITUDE_WORDS) or \
        bool(gap) and not EN_NUMERALS.match(noun)


# a degree sign and the letter of its scale (℃ is °c after NFKC): a number right after one
# is a value of its own (24°c85%), as one after 度 is (24度85%)
_LETTER_UNITS = ("°c", "°f")


def _abbreviation(out: list[str]) -> bool:
    """Whether the text `out` so far ends with a whole word of `APPROX_ABBREVIATIONS`, whose
    period `compact` drops (``approx. 90%`` reads as ``approx 90%``)."""
    tail = "".join(out[-8:]).lower()
    return any(tail.endswith(w) and not _latin(tail[-len(w) - 1:-len(w)])
               for w in APPROX_ABBREVIATIONS)
