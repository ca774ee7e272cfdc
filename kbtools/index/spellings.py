"""Spellings of one value that the BM25 tokenizer cuts into different parts.

`written_units` rewrites, in the text as written (before NFKC, the same for chunks and
questions), the unit signs NFKC would lose or misread: a superscript after a digit is an
exponent (`10²` as `10^2`, where NFKC makes the number 102), the ohm sign is `ohm` (`10kΩ`
as `10kohm`: NFKC makes Ω a Greek letter, which no token keeps), a micro sign before a unit
letter is `u` (`5μm` as `5um`, where μ was dropped and `5 m` left: metres), and the Chinese
unit names are their signs (`摄氏度` as `℃`, `华氏度` as `℉`, `欧姆` as `ohm`), and
newton-metres are `N.m` (`10 N·m`, `10N·m`, `10 N-m`, `10Nm`, `10 kN·m` or `KN·m`,
`10牛·米`, `10 牛米`, and `N·m`, `牛·米` without a number): the token `n.m`, which is neither
`n` and `m` (metres) nor `nm`, the nanometres `10 nm` still are.

`respell` rewrites the normalised lower-case text `kbtools.index.tokenize.Tokenizer` cuts
(the same for chunks and questions), and names tokens to add, so that every spelling of
these values gives the same tokens:

- a number with thousands separators is the number (`1,000` and `1，000` as `1000`): the
  commas go, and as many spaces follow the number, so the text keeps its length (the
  tokenizer reads the case of a word at its place in the text as written);
- a date written with slashes, dots or 年月日 (`2026/03/19`, `2026.3.19`, `2026年3月19日`)
  adds the token of its ISO spelling (`2026-03-19`, which is one token), its parts kept so
  that a question naming the year still matches; every date (ISO too) adds the token of its
  month (`2026-03`), as does a month written alone (`2026-03`, `2026/3`, `2026年3月`, of a
  year 1900-2099), so that a question naming the month finds the dates in it;
- a range written with 至 or 到 between two numbers (`10至20`, `10 到 20`, `5%至10%`,
  `5℃至10℃`) is the two numbers, as `10~20` and `10-20` are: the word goes (a space for it);
- a number of 万 or 亿 (`3万`, `1.5 万`, `2亿`) adds the token of the number it is (`30000`,
  `15000`, `200000000`), its parts kept (万一, 万能, 万用表, 万向节 are not numbers).

`code_dashes` writes a dash other than the hyphen-minus (the Unicode hyphen, non-breaking
hyphen, figure dash, en dash, minus sign, small hyphen-minus; an em dash or horizontal bar
between a letter and a digit or two digits) between two ASCII letters or digits as ``-``:
a word processor or a phone's smart punctuation types ``HX–260`` and ``E–17`` for the
HX-260 and E-17 of a manual, which were cut into ``hx`` and ``260``. An em dash between two
words (``the pump—when hot—leaks``) is punctuation and stays.

`UNIT_WORDS` names the unit written out in full or as a technician types it (``degC``,
``megabytes``, ``kilopascal``, ``Fahrenheit``) by its symbol's token (``c``, ``mb``, ``kpa``,
``f``), so that ``30 degC``, ``30 degrees Celsius`` and ``30 °C`` or ``25 megabytes`` and
``25MB`` are the same tokens; the tokenizer also drops a ``deg``/``degrees`` written before
the scale (`DEGREE_WORDS`), which ``30 °C`` does not say. Only names of units whose symbol is
two letters or more, or the temperature scales: ``volts`` and ``amps`` stay words (``v`` and
``a`` are letters of many other things).

Stored text, snippets and citations keep what the author wrote.
"""

from __future__ import annotations

import re
from decimal import Decimal

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# One pass over a text that is not ASCII: the unit signs and names `written_units` rewrites
# (the Greek letters as escapes: Ω and Ω, µ and μ look alike).
_OHM_SIGN, _OMEGA, _MICRO_SIGN, _MU = "\u2126", "\u03a9", "\u00b5", "\u03bc"
_UNIT_SIGN = re.compile(
    r"(?P<exp>(?<=\d)[⁰¹²³⁴-⁹⁻]+)"  # an exponent: superscripts after a digit
    rf"|(?P<ohm>(?<=\d)[ \t]?[kKmMG]?[{_OHM_SIGN}{_OMEGA}])"  # Ω after a number is ohm
    rf"|{_OHM_SIGN}"  # and the ohm sign always
    rf"|[{_MICRO_SIGN}{_MU}](?=[A-Za-z])"  # micro before a unit letter: μm, µs, μA
    r"|摄氏度|华氏度|欧姆")
# The characters `_UNIT_SIGN` starts with: one scan of a character class tells the few texts
# that have one (a tenth of the alternation's time on Chinese text).
_UNIT_FIRST = re.compile(f"[⁰¹²³⁴-⁹⁻{_OHM_SIGN}{_OMEGA}{_MICRO_SIGN}{_MU}摄华欧]")
_UNIT_NAMES = {_OHM_SIGN: "ohm", _MICRO_SIGN: "u", _MU: "u", "摄氏度": "℃", "华氏度": "℉",
               "欧姆": "ohm"}


# A unit's name (lower case, as the tokenizer sees one Latin run) → its symbol's token
_UNIT_NAMES_BY_SYMBOL = {
    "c": "degc celsius centigrade", "f": "degf fahrenheit",
    "kb": "kilobyte kilobytes", "mb": "megabyte megabytes", "gb": "gigabyte gigabytes",
    "tb": "terabyte terabytes", "kpa": "kilopascal kilopascals",
    "mpa": "megapascal megapascals", "khz": "kilohertz", "mhz": "megahertz",
    "ghz": "gigahertz", "hz": "hertz", "kw": "kilowatt kilowatts",
    "mm": "millimetre millimetres millimeter millimeters",
    "cm": "centimetre centimetres centimeter centimeters",
    "km": "kilometre kilometres kilometer kilometers",
    "kg": "kilogram kilograms kilogramme kilogrammes",
    "mg": "milligram milligrams milligramme milligrammes",
    "ml": "millilitre millilitres milliliter milliliters",
    "ms": "millisecond milliseconds msec msecs", "ns": "nanosecond nanoseconds",
    "ma": "milliamp milliamps milliampere milliamperes",
    "kv": "kilovolt kilovolts", "mv": "millivolt millivolts",
}
UNIT_WORDS = {name: symbol for symbol, names in _UNIT_NAMES_BY_SYMBOL.items()
              for name in names.split()}
# the words of "degree" a scale may follow (30 deg C, 30 degrees F): their stems
DEGREE_WORDS = frozenset({"deg", "degre", "degs"})
DEGREE_SCALES = frozenset({"c", "f"})


def _unit(m: re.Match[str]) -> str:
    text = m.group(0)
    if m.group("exp"):
        return "^" + text.translate(_SUPERSCRIPTS)
    if m.group("ohm"):
        return text[:-1] + "ohm"
    return _UNIT_NAMES[text]


# Newton-metres: after a number N and m with a dot, hyphen or nothing between (capital N,
# lower m: 10 nm and 10 NM are not torque) or 牛(顿)米 with or without a dot; without a number
# only the dotted N·m and 牛·米. Not followed by a letter or digit (N·mm, N-methyl).
_DOTS = "·⋅∙・･"
_TORQUE = re.compile(
    rf"(?:(?<=\d)|(?<=\d[ \t]))(?P<k>[kK]?)(?:N[{_DOTS}.\-]?m|牛(?:顿)?[{_DOTS}]?米)"
    rf"(?![A-Za-z0-9²³])"
    rf"|(?<![A-Za-z])(?P<k2>[kK]?)(?:N[{_DOTS}]m|牛(?:顿)?[{_DOTS}]米)(?![A-Za-z0-9²³])")
_TORQUE_FIRST = re.compile(rf"N[{_DOTS}.\-]?m|牛")


def _torque(m: re.Match[str]) -> str:
    glued = m.start() > 0 and m.string[m.start() - 1].isdigit()
    kilo = "k" if m.group("k") or m.group("k2") else ""
    return f"{' ' if glued else ''}{kilo}N.m "


# A dash that is not the hyphen-minus between two ASCII letters or digits, glued to both: the
# hyphens and the en dash anywhere, the em dash and the horizontal bar next to a digit.
_DASHES = "\u2010\u2011\u2012\u2013\u2212\ufe63"
_LONG_DASHES = "\u2014\u2015"
_CODE_DASH = re.compile(rf"(?<=[A-Za-z0-9])[{_DASHES}](?=[A-Za-z0-9])"
                        rf"|(?<=[0-9])[{_LONG_DASHES}](?=[A-Za-z0-9])"
                        rf"|(?<=[A-Za-z])[{_LONG_DASHES}](?=[0-9])")
_ANY_DASH = re.compile(f"[{_DASHES}{_LONG_DASHES}]")


def code_dashes(text: str) -> str:
    """`text` with each dash that joins two ASCII letters or digits written ``-`` (see the
    module docstring), the same length; a text without such a dash is returned as is."""
    if text.isascii() or not _ANY_DASH.search(text):
        return text
    return _CODE_DASH.sub("-", text)


def written_units(text: str) -> str:
    """`text` with the unit signs NFKC would lose or misread spelled as a technician types
    them (see the module docstring); ASCII text without N·m is returned as is after one scan."""
    if _TORQUE_FIRST.search(text):
        text = _TORQUE.sub(_torque, text)
    if text.isascii() or not _UNIT_FIRST.search(text):
        return text
    return _UNIT_SIGN.sub(_unit, text)


# In normalised lower-case text (NFKC made ，and ／ ASCII). A date: a four-digit year, a month
# and a day joined by one separator twice, or written with 年 月 日/号 (spaces allowed), not
# part of a longer dotted or dashed number or code; a month alone: the year and month joined
# by - or /, or with 年 月. Grouped digits: one to three, then groups
# of three after commas, not part of a longer number, list of numbers or code.
# Written from the first digit on, the character before it checked behind (a pattern that
# starts with a digit is scanned for digits only: ~3.5x faster on every text tokenized).
_VALUE_SPELLING = re.compile(
    r"\d(?<![a-z0-9_.,/]\d)(?:"
    r"(?<!-\d)\d{3}(?:(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
    r"|[ \t]*年[ \t]*(?P<zm>\d{1,2})[ \t]*月[ \t]*(?P<zd>\d{1,2})[ \t]*[日号]"
    r"|(?P<msep>[-/])(?P<mm>\d{1,2})|[ \t]*年[ \t]*(?P<zmm>\d{1,2})[ \t]*月)"
    r"|(?P<grouped>\d{0,2}(?:,\d{3})+(?:\.\d+)?)"
    r")(?![\d]|[.,/-]\d)")

# After an ISO date, a character that keeps the Latin run going, so that the run's token is
# not the date (2026-03-19t10:30 is 2026-03-19t10 and 30).
_RUN_GOES_ON = frozenset("abcdefghijklmnopqrstuvwxyz_")


# 至 or 到 between two numbers, the first with its unit or not (`10至20`, `10 到 20`,
# `5%至10%`, `5℃至10℃`, `5mm到10mm`): a range, as `10~20`.
_WORD_RANGE = re.compile(r"(\d[ \t]*(?:[a-z]{1,4}|%|°[cf])?[ \t]*)[至到](?=[ \t]*\d)")
# A number of 万 (ten thousand) or 亿 (a hundred million), not a word that starts with 万.
_MYRIAD = re.compile(r"(?<![a-z0-9_.])(\d+(?:\.\d+)?)[ \t]*([万亿])(?![一能用向物分])")
_MYRIAD_VALUE = {"万": Decimal(10_000), "亿": Decimal(100_000_000)}


def respell(text: str) -> tuple[str, list[str]]:
    """`text` (normalised, lower case) with its grouped numbers joined and 至/到 ranges
    spaced, the same length, and the tokens to add: the ISO token of each date the tokenizer
    cuts into parts (an ISO date that is a token of its own already and a date of no such
    month or day add none), of each date's month and of each number of 万 or 亿."""
    added: list[str] = []
    if ("至" in text or "到" in text) and _WORD_RANGE.search(text):
        text = _WORD_RANGE.sub(lambda m: m.group(1) + " ", text)
    if _VALUE_SPELLING.search(text) is None:  # most texts: one scan, no substitution
        return text, _myriads(text) if "万" in text or "亿" in text else added

    def one(m: re.Match[str]) -> str:
        if m.group("grouped"):
            return m.group(0).replace(",", "") + " " * m.group(0).count(",")
        year, month = m.group(0)[:4], m.group("mm") or m.group("zmm")
        if month:  # a month alone
            if 1 <= int(month) <= 12 and 1900 <= int(year) <= 2099:
                added.append(f"{year}-{int(month):02d}")
            return m.group(0)
        month, day = (m.group("m"), m.group("d")) if m.group("sep") else \
            (m.group("zm"), m.group("zd"))
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            iso = f"{year}-{int(month):02d}-{int(day):02d}"
            if m.group(0) != iso or text[m.end():m.end() + 1] in _RUN_GOES_ON:
                added.append(iso)
            added.append(iso[:7])
        return m.group(0)

    text = _VALUE_SPELLING.sub(one, text)
    if "万" in text or "亿" in text:
        added.extend(_myriads(text))
    return text, added


def _myriads(text: str) -> list[str]:
    """The token of each number of 万 or 亿 in `text`: the number it is, as written in digits
    (`1.5万` is `15000`, `1.23456万` `12345.6`)."""
    out = []
    for m in _MYRIAD.finditer(text):
        value = (Decimal(m.group(1)) * _MYRIAD_VALUE[m.group(2)]).normalize()
        out.append(format(value, "f"))
    return out
