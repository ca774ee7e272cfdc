"""Numbers, dimensions and glue read as TeX scans them (The TeXbook ch. 24; tex.web
`scan_int`, `scan_dimen`, `scan_glue`): signs and blanks first, a decimal (with `.` or `,`),
octal `'`, hexadecimal `"` or character `` ` `` constant, then a unit keyword (any case,
blanks before it): `pt pc in bp cm mm dd cc nd nc sp`, `true` before one of them, `em` `ex`
`px`; `mu` only (and always) in math glue; `fil`, `fill`, `filll` only after `plus` or
`minus`. A dimension of 16384pt or more is "Dimension too large", an integer over 2^31-1
"Number too big". Each scanner returns where reading ends, or a `Slip` naming what LaTeX
stops at; each reads every character a bounded number of times. `latex_args` reads a
formula's arguments with these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_INT = 2**31 - 1
MAX_DIMEN = 2**30  # scaled points: 16384pt
UNITY = 2**16
# physical units as TeX converts them to points: numerator, denominator (tex.web §458;
# pdfTeX's new didot `nd` and new cicero `nc`)
UNITS: dict[str, tuple[int, int]] = {
    "pt": (1, 1), "in": (7227, 100), "pc": (12, 1), "cm": (7227, 254), "mm": (7227, 2540),
    "bp": (7227, 7200), "dd": (1238, 1157), "cc": (14856, 1157), "nd": (685, 642),
    "nc": (1370, 107)}
# `em` and `ex` of the font a formula's math is set in (cmr12: the preamble's 12pt
# article), and pdfTeX's `px` (\pdfpxdimen, 1bp), in scaled points
FONT_UNITS = {"em": 770040, "ex": 338603, "px": 65782}
_NUMBER_START = re.compile(r"[\s+-]*+")  # possessive: no backtracking


@dataclass(frozen=True)
class Slip:
    """What LaTeX stops at in an argument: its error, as LaTeX words it."""

    latex: str  # "Missing number, treated as zero", "Illegal unit of measure (pt inserted)" …
    near: str = ""  # the character it stops at, when that says more


MISSING_NUMBER = Slip("Missing number, treated as zero")
ILLEGAL_UNIT = Slip("Illegal unit of measure (pt inserted)")
MU_UNIT = Slip("Illegal unit of measure (mu inserted)")
TOO_LARGE = Slip("Dimension too large")
TOO_BIG = Slip("Number too big")
FILLLL = Slip("Illegal unit of measure (replaced by filll)")


def scan_int(text: str, at: int) -> tuple[int, int] | Slip:
    """The integer TeX reads at `text[at:]` (signs and blanks first) and where it ends,
    one blank after it included."""
    negative, at = _signs(text, at)
    read = _unsigned(text, at)
    if isinstance(read, Slip):
        return read
    return (-read[0] if negative else read[0]), read[1]


def _signs(text: str, at: int) -> tuple[bool, int]:
    """Whether the signs from `at` make a negative number, and where they end."""
    end = _NUMBER_START.match(text, at).end()  # type: ignore[union-attr]
    return text.count("-", at, end) % 2 == 1, end


def _unsigned(text: str, at: int) -> tuple[int, int] | Slip:
    """A decimal, octal (`'`), hexadecimal (`"`) or character (`` ` ``) constant."""
    ch = text[at:at + 1]
    if ch == "`":
        end = at + 1 + (text[at + 1:at + 2] == "\\")
        if end >= len(text):
            return MISSING_NUMBER
        return ord(text[end]), _blank(text, end + 1)
    digits, base, start = ("01234567", 8, at + 1) if ch == "'" else \
        ("0123456789ABCDEF", 16, at + 1) if ch == '"' else ("0123456789", 10, at)
    end = start
    while end < len(text) and text[end] in digits:
        end += 1
    if end == start:
        return MISSING_NUMBER
    digits_read = text[start:end].lstrip("0") or "0"
    if len(digits_read) > 11:  # more than 2**31 in any base (and no 4,300-digit int())
        return TOO_BIG
    value = int(digits_read, base)
    if value > MAX_INT:
        return TOO_BIG
    return value, _blank(text, end)


def _blank(text: str, at: int) -> int:
    """Past one optional blank at `at`."""
    return at + 1 if text[at:at + 1].isspace() else at


def _keyword(text: str, at: int, word: str) -> int:
    """Where `word` (any case, blanks before it) ends at `at`, or -1."""
    while at < len(text) and text[at].isspace():
        at += 1
    return at + len(word) if text[at:at + len(word)].lower() == word else -1


def scan_dimen(text: str, at: int, *, mu: bool = False, inf: bool = False,
               font_units: bool = True) -> int | Slip:
    """Where the dimension TeX reads at `text[at:]` ends (one blank after it included).
    `mu`: a math dimension (unit `mu`); `inf`: `fil`/`fill`/`filll` allowed (the stretch or
    shrink of glue); `font_units`: the size of `em`/`ex` is known (math mode: cmr12)."""
    at = _signs(text, at)[1]  # the sign does not change whether it is too large
    whole, fraction, point = 0, 0, at
    if text[at:at + 1] not in (".", ","):
        read = _unsigned(text, at)
        if isinstance(read, Slip):
            return read
        whole, end = read
        point = end if text[at].isdigit() and not text[end - 1].isspace() else -1
        at = end
    if point >= 0 and text[point:point + 1] in (".", ","):  # `.`/`,` and the digits after
        end = point + 1
        while end < len(text) and text[end].isdigit():
            end += 1
        fraction = _round_decimals(text[point + 1:end][:17])
        at = _blank(text, end)
    return _units(text, at, whole, fraction, mu=mu, inf=inf, font_units=font_units)


def _units(text: str, at: int, whole: int, fraction: int, *, mu: bool, inf: bool,
           font_units: bool) -> int | Slip:
    """Read the unit after a number `whole + fraction / 2**16` (tex.web §453-461)."""
    if inf and (end := _keyword(text, at, "fil")) >= 0:
        order = 1
        while (more := _keyword(text, end, "l")) >= 0:
            if order == 3:
                return FILLLL
            order, end = order + 1, more
        return _blank(text, end) if whole < 16384 else TOO_LARGE
    if mu:
        end = _keyword(text, at, "mu")
        if end < 0:
            return MU_UNIT
        return _blank(text, end) if whole < 16384 else TOO_LARGE
    for unit, size in FONT_UNITS.items():
        end = _keyword(text, at, unit)
        if end >= 0:
            scaled = whole * size + _xn_over_d(size, fraction, UNITY)[0]
            return _blank(text, end) if scaled < MAX_DIMEN or not font_units else TOO_LARGE
    if (true := _keyword(text, at, "true")) >= 0:
        at = true
    end = _keyword(text, at, "sp")
    if end >= 0:
        return _blank(text, end) if whole < MAX_DIMEN else TOO_LARGE
    for unit, (num, denom) in UNITS.items():
        end = _keyword(text, at, unit)
        if end >= 0:
            if (num, denom) != (1, 1):
                whole, remainder = _xn_over_d(whole, num, denom)
                fraction = (num * fraction + UNITY * remainder) // denom
                whole += fraction // UNITY
            return _blank(text, end) if whole < 16384 else TOO_LARGE
    return ILLEGAL_UNIT


def scan_glue(text: str, at: int, *, mu: bool = False, font_units: bool = True) -> int | Slip:
    """Where the glue (`3pt plus 1fil minus 1pt`) TeX reads at `text[at:]` ends."""
    end = scan_dimen(text, at, mu=mu, font_units=font_units)
    for word in ("plus", "minus"):
        if isinstance(end, Slip):
            return end
        after = _keyword(text, end, word)
        if after >= 0:
            end = scan_dimen(text, after, mu=mu, inf=True, font_units=font_units)
    return end


def _round_decimals(digits: str) -> int:
    """TeX's `round_decimals`: `.digits` in units of 2**-16."""
    a = 0
    for d in reversed(digits):
        a = (a + int(d) * 2**17) // 10
    return (a + 1) // 2


def _xn_over_d(x: int, n: int, d: int) -> tuple[int, int]:
    return divmod(x * n, d)
