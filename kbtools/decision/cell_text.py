"""A table cell's or an input value's text as the decision readers parse and compare it:
NFKC (full-width forms become ASCII), the typeset minus sign a hyphen-minus, a raised digit
after a digit kept apart, whitespace runs collapsed (`normalize_cell`); case-folded for
comparing texts (`normalize_text`). Pure: the standard library only.
"""

from __future__ import annotations

import re
import unicodedata

# the minus sign of typeset text, Word and weather pages, which NFKC leaves: a hyphen-minus
MINUS_SIGNS = str.maketrans({"\u2212": "-"})

# What an input cell writes for "any value": * or nothing, a dash, the word, or "does not
# apply" to this row (N/A, 不适用, a slash as Chinese forms write it)
ANY_CELLS = frozenset(("", "*", "-", "–", "—", "任意", "不限", "any", "n/a", "n.a.", "n/a.",
                       "not applicable", "不适用", "/"))
# What an input cell may write for "none", which is a value of a text column (有/无) but
# no number: in a numeric column it is refused, naming 0 and * (`model`)
NONE_CELLS = frozenset(("无", "没有", "none", "nil"))


# a raised or lowered digit right after a digit: a footnote mark (≥7¹) or a power (10³),
# which NFKC would glue onto the number (≥71, 103); kept apart as ^1, ^3 (no number)
_RAISED_AFTER_DIGIT = re.compile(r"(?<=[0-9０-９])([⁰¹²³⁴-⁹₀-₉])")


def normalize_cell(text: str) -> str:
    """Text as parsed: NFKC (full-width forms become ASCII), the minus sign ``−`` a hyphen-minus,
    a superscript digit after a digit kept apart (``≥7¹`` is ``≥7^1``, no number: NFKC made it
    ≥71), whitespace runs collapsed."""
    text = _RAISED_AFTER_DIGIT.sub(r"^\1", text)
    return " ".join(unicodedata.normalize("NFKC", text).translate(MINUS_SIGNS).split())


def normalize_text(text: str) -> str:
    """Text as compared: NFKC, whitespace collapsed, case-folded."""
    return normalize_cell(text).casefold()


# a decimal comma after thousands grouped by spaces or points (1 200,5; 1.200,5), or after
# digits no three follow (1,5; 12,25): what a European writes for 1200.5 or 1.5
_DECIMAL_COMMA = re.compile(r"^([+-]?(?:\d{1,3}(?:[ .]\d{3})+|\d+)),(\d{1,2}|\d{4,})(?!\d)")


def decimal_comma(value: str) -> str | None:
    """`value` (normalised) written with a decimal comma, as the number it would then be
    (``1 200,5`` → ``1200.5``, ``1,5`` → ``1.5``); None when it writes none. No table reads
    one: ``1,5`` is as well the list 1 and 5, ``1.200`` one point two."""
    m = _DECIMAL_COMMA.match(value)
    return f"{m.group(1).replace(' ', '').replace('.', '')}.{m.group(2)}" if m else None
