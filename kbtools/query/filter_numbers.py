"""Numbers as ``--where`` filters read them: exactly, of any size and precision.

A value reads as a number when Python's ``Decimal`` reads it (``25``, ``+25.00``, ``2.5e1``,
``025``, ``inf``, ``-Infinity``), or would but for an exponent beyond ``Decimal``'s
(±999999999999999999): ``1e1000000000000000000`` is a `FarNumber`, compared exactly with the
others (it was read as text, so ``size>=1e1000000000000000000`` compared strings). `NaN` is
text. `number_key` writes a number one way for ``=`` / ``!=``; `order_number` is what ``>=``
/ ``<=`` compare; `order_text` writes a number as a string whose byte order is the
numbers' order, for an engine that orders only strings exactly (`kbtools.engine.expr`).

A **quantity** (`quantity`) is a number with its unit after it, ``7.5kW``, ``3 kW``,
``20%``, ``15亩``, ``1500 r/min``: two quantities in one unit (case aside: ``kW`` is ``KW``)
compare as their numbers (``power>5kW`` holds for ``12kW``, which as text it did not);
in two units of one dimension converted (`kbtools.query.filter_units`: ``500W`` is below
``5kW``), in others not compared at all (`INCOMPARABLE`); a bare number orders with a quantity's
number, in the unit the quantity gives (``power>5`` holds for ``7.5kW``, ``power<=5kW``
for ``power: 3``), but is not equal to it (``code=7`` is not ``7A``, as before). A
number with a leading zero is no quantity (``07A`` is a code).

A number in Chinese numerals, alone or before a unit known (``二十``, ``五千瓦``, ``十亩``,
``零下五度``, ``零下10度``: `in_digits`), is read as the number in digits, in a filter and in a
document's value alike (``数量=二十`` holds for ``数量: 20``).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, DecimalTuple, InvalidOperation
from functools import lru_cache
from typing import Any

from kbtools.decision.numerals import (
    MAGNITUDE_CHARS,
    MAGNITUDE_TIMES,
    NUMERAL_CHARS,
    chinese_number,
    magnified,
    mixed_numbers,
    read_mixed,
)
from kbtools.decision.units import (
    CURRENCY_CODES,
    DOLLAR_PREFIXES,
    GROUP_OF,
    PRODUCT_MARKS,
    SCALED_SPELLINGS,
    SCALES,
    SPELLED_UNITS,
    product_unit,
    scaled_units,
)
from kbtools.index.tokenize import CJK

_NAMED = frozenset({"inf", "infinity", "nan"})  # the numbers `Decimal` reads by name, unsigned
# what `Decimal` reads as a finite number with an exponent (digits may hold underscores
# between them, and be any script's decimal digits, as `Decimal` and `int` read them)
_EXPONENT_FORM = re.compile(r"\s*([+-]?)(\d(?:_?\d)*)?(?:\.(\d(?:_?\d)*)?)?[eE]([+-]?\d(?:_?\d)*)\s*")
# an exponent of more digits than this is text: Python converts at most 4300 digits between
# int and str (`sys.int_max_str_digits`), and no measured quantity needs 10**(10**4000)
MAX_EXPONENT_DIGITS = 4000


class FarNumber:
    """A finite, nonzero number whose exponent `Decimal` cannot hold, exactly: `sign` (1:
    negative), `digits` (no leading or trailing zeros) and `exponent` (of the last digit,
    as ``Decimal.as_tuple`` gives it). It compares with Decimals and with its kind as the
    numbers compare (by `order_text`), and answers what `number_key` and `order_text` ask of
    a Decimal; unhashable (no Decimal of the same value hashes alike)."""

    __slots__ = ("sign", "digits", "exponent")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, sign: int, digits: str, exponent: int):
        self.sign, self.digits, self.exponent = sign, digits, exponent

    def is_infinite(self) -> bool:
        return False

    def is_nan(self) -> bool:
        return False

    def __bool__(self) -> bool:
        return True

    def adjusted(self) -> int:
        return self.exponent + len(self.digits) - 1

    def as_tuple(self) -> DecimalTuple:
        return DecimalTuple(self.sign, tuple(int(d) for d in self.digits), self.exponent)

    def __repr__(self) -> str:
        return f"FarNumber('{'-' if self.sign else ''}{self.digits}e{self.exponent}')"

    def _order(self, other: Any) -> tuple[str, str] | None:
        if not isinstance(other, (Decimal, FarNumber)) or other.is_nan():
            return None
        return order_text(self), order_text(other)

    def __eq__(self, other: object) -> bool:
        texts = self._order(other)
        return texts is not None and texts[0] == texts[1]

    def __lt__(self, other: Any) -> bool:
        texts = self._order(other)
        return NotImplemented if texts is None else texts[0] < texts[1]

    def __le__(self, other: Any) -> bool:
        texts = self._order(other)
        return NotImplemented if texts is None else texts[0] <= texts[1]

    def __gt__(self, other: Any) -> bool:
        texts = self._order(other)
        return NotImplemented if texts is None else texts[0] > texts[1]

    def __ge__(self, other: Any) -> bool:
        texts = self._order(other)
        return NotImplemented if texts is None else texts[0] >= texts[1]


Number = Decimal | FarNumber


def _far(text: str) -> Number | None:
    """`text` as the number it writes when `Decimal` refuses it for its exponent alone; None
    when it writes no number (or an exponent of more than `MAX_EXPONENT_DIGITS` digits)."""
    m = _EXPONENT_FORM.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):
        return None
    whole, fraction, power = ((g or "").replace("_", "") for g in m.group(2, 3, 4))
    if len(power.lstrip("+-")) > MAX_EXPONENT_DIGITS:
        return None
    mantissa = "".join(str(int(d)) for d in whole + fraction)  # other scripts' digits: ASCII
    digits = mantissa.lstrip("0")
    if not digits:
        return Decimal(f"{m.group(1)}0")  # 0e99999999999999999999 is zero, -0 too
    kept = digits.rstrip("0")
    exponent = int(power) - len(fraction) + len(digits) - len(kept)
    return FarNumber(1 if m.group(1) == "-" else 0, kept, exponent)


# full-width ASCII forms (U+FF01–FF5E: ２．１, －, ：, ｖ), the ideographic space and the
# minus sign (U+2212, −1.5kW as a word processor or a web page writes it) as ASCII; the other
# spaces (no-break, U+00A0 of 5&nbsp;kW, thin, figure, narrow no-break) as a blank, and what
# shows nothing (zero-width space, word joiner, a BOM, a soft hyphen: 5\u200bkW as pasted from
# a web page or a chat) left out. Not the zero-width joiners, part of how some scripts and
# emoji are written.
_SPACES = (0x00A0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)
_UNSEEN = (0x00AD, 0x200B, 0x2060, 0xFEFF)
_NARROW: dict[int, int | None] = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | \
    dict.fromkeys(_SPACES, 0x20) | dict.fromkeys(_UNSEEN) | {0x2212: 0x2D}
# a character `_NARROW` writes otherwise
_WIDE = re.compile("[" + "".join(map(chr, sorted(_NARROW))) + "]")
_SEEN = dict.fromkeys(_UNSEEN)


def seen(text: str) -> str:
    """`text` without the characters that show nothing (`_UNSEEN`: ``功\u200b率=5\u200bkW`` is
    ``功率=5kW``), as it was meant to be typed."""
    return text if text.isascii() else text.translate(_SEEN)


def narrow(text: str) -> str:
    """`text` with full-width forms (``２．１``, ``２０２４－０３－０１``, ``ｖ２``, ``ＨＸ－２６０``) and the
    minus sign (``−1.5kW``) as ASCII, other spaces as a blank and characters that show
    nothing left out (``5\u00a0kW``: ``5 kW``, ``5\u200bkW``: ``5kW``: `_NARROW`), as a Chinese input method types the numbers, versions, dates and names the filters
    read (`order_number`, and `kbtools.query.filter_kinds`), and composed (NFC: a value
    copied on macOS, ``e`` + U+0301, is the ``é`` a document holds); other characters as
    they are. Per document value: ASCII (most) returns at once, other text that is composed
    and has no full-width form costs two checks in C."""
    if text.isascii():
        return text
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text if _WIDE.search(text) is None else text.translate(_NARROW)


# before a number, what makes it negative (零下5度, 负五); a numeral's characters (万 and 点 too)
_BELOW_ZERO = ("零下", "负")
_NUMERALS = "".join(sorted(NUMERAL_CHARS))
_READ_FIRST = frozenset(_NUMERALS) | {"负"}  # what a value `in_digits` respells starts with
# a share in words before its number (百分之五十 is 50%, 千分之五 is 5‰)
_SHARE_WORDS = {"百分之": "%", "千分之": "‰"}
# what may follow a numeral respelled: a unit the decision tables know (亩, 千瓦, 度, kg), a count
# a Latin letter then a Chinese character in a unit (kW及 of 5kW及以下, kW之间, kW起): no unit but
# a unit and a word; one of a rate (kg每亩) and one known so spelled (kW时: kWh) aside
_LATIN_THEN_HAN = re.compile(rf"[a-z][{CJK}](?<!每)")
# a unit as said aloud or typed in short, as the unit it is: 100块 is 100元, 5 pct 5 %, 5 yuan
# 5元, 5 kgs 5 kg
SPOKEN_UNITS = {"块": "元", "块钱": "元", "元钱": "元", "pct": "%", "yuan": "元", "kgs": "kg"}
_UNITS_AFTER = frozenset((*GROUP_OF, *scaled_units(), "个", *SPOKEN_UNITS))
_SIGNS = "+-."  # what a number in digits may start with (a magnitude after it: -1.5万)
_LEADING_MAGNITUDES = "百千"  # a share's numeral that says no 一 before them (百分之百: 100%)


def in_digits(text: str) -> str:
    """`text` with the Chinese numeral it begins with in Arabic digits (``二十``: ``20``, ``十亩``:
    ``10亩``, ``三点五千瓦``: ``3.5千瓦``, ``五千瓦``: ``5000瓦``), 零下 or 负 before a number as a minus
    sign (``零下五度``, ``零下10度``: ``-5度``, ``-10度``), when what follows is nothing or a unit
    known (`_UNITS_AFTER`); a share in words as its number and sign (``百分之五十``: ``50%``,
    ``千分之五``: ``5‰``, ``百分之百``: ``100%``); a number in digits times 万, 亿, 千 or 百 as
    its value, as the decision tables read it (`kbtools.decision.numerals.magnified`:
    ``1.5万`` is ``15000``, ``2万5千元`` ``25000元``, ``3千克`` stays 3 kg); other text as it is
    (``三七``, ``十字花科``, ``负责人``), at the cost of one check for most."""
    first = text.lstrip()[:1]
    if first not in _READ_FIRST:
        if (first.isdigit() or first in _SIGNS) and any(c in MAGNITUDE_CHARS for c in text):
            return magnified(read_mixed(_place_after(_before_unit(text))))  # 1.5万, 1万5: 15000
        return text
    clean = text.strip()
    word = next((w for w in _SHARE_WORDS if clean.startswith(w)), None)
    if word is not None:  # 百分之五十, 千分之0.3: the number and its sign
        said = clean[len(word):].lstrip()
        said = f"一{said}" if said[:1] in _LEADING_MAGNITUDES else said  # 百分之百: 一百
        share = in_digits(said).strip()
        return f"{share}{_SHARE_WORDS[word]}" if _decimal(share) is not None else text
    sign = next((z for z in _BELOW_ZERO if clean.startswith(z)), "")
    body = clean[len(sign):].lstrip()
    lead = len(body) - len(body.lstrip(_NUMERALS))
    # the numeral as far as it reads, or but its last 千, 百 or 万 (三点五 of 三点五千瓦: 千瓦 a unit)
    for end in (lead, lead - 1) if lead > 1 and body[lead - 1] in "千百万" else (lead,) if lead else ():
        rest = body[end:].strip()
        if (number := chinese_number(body[:end]) or _said_short(body[:end])) is not None and \
                (not rest or rest.casefold() in _UNITS_AFTER):
            return f"{'-' if sign else ''}{number}{body[end:]}"
    return f"-{body}" if sign and not lead and body[:1].isdigit() else text


# whole numbers each before 万, 亿, 千 or 百 (as `read_mixed` reads 5万3千), then digits: one digit
# is the next place down, as said short (1万5 is 15000, 3千5 3500, 2亿3 230000000, 5万3千2
# 53200, as 五万三千二), more are no number (1万50: 10050? 15000?)
PLACE_AFTER = re.compile(r"\s*([+-]?)((?:\d+(?:万亿|亿|万|千|百))+)(\d+)(?![\d.万亿千百])")
_PLACED = re.compile(r"(?<!\d)\d+(万亿|亿|万|千|百)")  # from a run's first digit: linear
_DIGIT_WORDS = "一二三四五六七八九"


def placed_whole(m: re.Match[str]) -> int | None:
    """The whole number before the digits of a `PLACE_AFTER` match (``5万3千`` of ``5万3千2``:
    53000, ``-1万`` of ``-1万5``: -10000); None when the magnitudes are no numeral's
    (``5千3万``)."""
    head = m.group(2)
    whole = read_mixed(head) if len(_PLACED.findall(head)) > 1 else magnified(head)
    return int(f"{m.group(1)}{whole}") if whole.isdigit() else None


def place_below(m: re.Match[str]) -> int:
    """What one digit after a `PLACE_AFTER` match's last magnitude counts (万: 1000)."""
    return MAGNITUDE_TIMES[_PLACED.findall(m.group(2))[-1]] // 10


_PLACES = "十百千万亿"


def _before_unit(text: str) -> str:
    """`text` with a numeral in digits between its units (``1万5千``, `read_mixed`'s) before a
    unit known that begins with its last unit's character (瓦 of 千瓦, 米 of 千米) as its value
    and that unit: ``1万5千瓦`` is ``15000瓦``, as ``一万五千瓦`` is (the numeral as far as it
    reads, `in_digits`); other text as it is (``5千瓦``: 5 kW)."""
    body = text.strip()
    start = 1 if body[:1] in "+-" else 0
    end = start
    while end < len(body) and (body[end].isdigit() or body[end] in _PLACES):
        end += 1
    run, rest = body[start:end], body[end:].strip()
    if not rest or run[-1:] not in _PLACES or rest.casefold() not in _UNITS_AFTER:
        return text
    read = mixed_numbers(run)
    if len(read) != 1 or read[0][:2] != (0, len(run)):
        return text
    return f"{body[:start]}{read[0][2]}{body[end:]}"


def _place_after(text: str) -> str:
    """`text` with a number said short (`PLACE_AFTER`: ``1万5``, ``3千5元``, ``5万3千2``) at
    its start as its value in digits (``15000``, ``3500元``, ``53200``); other text as it is
    (``1万50``, ``2万5千``: `read_mixed`'s)."""
    m = PLACE_AFTER.match(text)
    if m is None or len(m.group(3)) != 1 or (whole := placed_whole(m)) is None:
        return text
    said = abs(whole) + place_below(m) * int(m.group(3))
    return f"{'-' if whole < 0 else ''}{said}{text[m.end():]}"


def _said_short(numeral: str) -> str | None:
    """A Chinese numeral said short, its last digit the next place down (``一万五``: 15000,
    ``三千五``: 3500, ``两百五``: 250), as digits; None for another (``一万零五`` is
    `chinese_number`'s)."""
    place = {"万": 1000, "千": 100, "百": 10}.get(numeral[-2:-1], 0)
    head = chinese_number(numeral[:-1]) if place and len(numeral) > 2 else None
    if head is None or numeral[-1] not in _DIGIT_WORDS or not head.isdigit():
        return None
    return str(int(head) + place * (_DIGIT_WORDS.index(numeral[-1]) + 1))


def _decimal(text: str) -> Number | None:
    """`text` as Python's ``Decimal`` reads it (``25``, ``+25.00``, ``2.5e1``, ``025``,
    ``inf``, ``-Infinity``, ``nan``) or, for an exponent beyond ``Decimal``'s
    (±999999999999999999), as a `FarNumber`; None when it reads no number: most text,
    ``1.0.0``, a date."""
    start = text.lstrip()[:1]
    if not (start.isdigit() or start in ("+", "-", ".") or
            start in ("i", "I", "n", "N") and text.strip().casefold() in _NAMED):
        return None  # most text: no exception's cost
    try:
        return Decimal(text)
    except (InvalidOperation, ValueError):  # a date, a version, or an exponent too far
        return _far(text) if "e" in text or "E" in text else None


@lru_cache(maxsize=4096)  # a filter's value, once per document it is compared with
def number_key(text: str) -> str | None:
    """The number `text` reads as (what Python's ``Decimal`` reads: ``25``, ``25.0``,
    ``+25.00``, ``2.5e1``, ``025``; and beyond its exponents, ``1e1000000000000000000``),
    written one way for every way of writing it (all five: ``25e0``; ``inf``,
    ``Infinity``, ``+INF``: ``inf``, as ``>=``/``<=`` read them); None when `text` is no
    number (``nan``, ``1.0.0``, a date). Exact: no float rounding makes two long numbers one
    (``9007199254740993`` is not ``9007199254740992``). Leading zeros are only a way of
    writing: ``007`` is 7, as ``>=``/``<=`` and YAML (an unquoted ``007``) read it."""
    number = order_number(text)
    return None if number is None else key_of(number)


def key_of(number: Number) -> str:
    """`number` written as `number_key` writes it."""
    if number.is_infinite():
        return "-inf" if number < 0 else "inf"
    sign, digits, exponent = number.as_tuple()
    written = "".join(map(str, digits)).lstrip("0")
    if not written:
        return "0"  # 0, -0.0, 0e5
    kept = written.rstrip("0")
    return f"{'-' if sign else ''}{kept}e{int(exponent) + len(written) - len(kept)}"


@lru_cache(maxsize=4096)
def order_number(text: str) -> Number | None:
    """The number `text` is for ``>=`` / ``<=``: the numbers `number_key` reads, exactly
    (``9007199254740993`` is more than ``9007199254740992``, ``1e400`` a number, less than
    ``1e1000000000000000000``, less than infinity), and the infinities (``inf``,
    ``-Infinity``, YAML's ``.inf`` as a document stores it: ``inf``); None for text and
    NaN, which order as text. Full-width forms read as ASCII (`narrow`: ``１．５`` is 1.5); a
    number grouping its thousands by commas as that number (``5,000``, ``1，200``:
    `_GROUPED_NUMBER`)."""
    clean = in_digits(narrow(text))
    if "," in clean and (grouped := _GROUPED_NUMBER.fullmatch(clean)) is not None:
        clean = grouped.group(1).replace(",", "")  # 5,000: 5000, as a table or a price writes it
    number = _decimal(clean)
    return None if number is None or number.is_nan() else number


# a bare number grouping its thousands by commas, each group of exactly three digits after
# one of one to three (5,000, -1,234.5, 12,345,678); not 12,5 (a decimal comma?) or 1,2,3
_GROUPED_NUMBER = re.compile(r"\s*([+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?)\s*")


# `order_text`: what begins each class of numbers, in their order, and the exponent's width
_MINUS_INF, _NEGATIVE, _ZERO, _POSITIVE, _PLUS_INF = "0", "1", "2", "3", "4"
_EXPONENT_SHIFT = 10 ** 19  # Decimal's exponents lie within ±10**18 (and so its adjusted)
_EXPONENT_DIGITS = 20
_LENGTH_DIGITS = 20  # a far exponent's count of digits (a string holds fewer than 10**20)
_BELOW, _ABOVE = "/", ":"  # before and after every digit: a far exponent's mark
_END = "~"  # after a negative number's digits: after every digit (a shorter one is more)
_COMPLEMENT = str.maketrans("0123456789/:", "9876543210:/")


def _exponent_text(adjusted: int) -> str:
    """`adjusted` as a string whose order is the exponents': 20 digits within Decimal's
    exponents (and beyond, up to 10**19); a farther one marked `_ABOVE` (or `_BELOW`), its
    count of digits in `_LENGTH_DIGITS` digits, then the digits (complemented below)."""
    shifted = adjusted + _EXPONENT_SHIFT
    if 0 <= shifted < 10 ** _EXPONENT_DIGITS:
        return f"{shifted:0{_EXPONENT_DIGITS}d}"
    digits = str(abs(shifted))
    text = f"{len(digits):0{_LENGTH_DIGITS}d}{digits}"
    return _ABOVE + text if shifted > 0 else _BELOW + text.translate(_COMPLEMENT)


def order_text(number: Number) -> str:
    """`number` (not NaN) as an ASCII string whose byte order is the numbers' order: the
    class (−∞, negative, zero, positive, +∞), then for a finite one its exponent
    (`_exponent_text`) and its digits without trailing zeros (``1.2`` before ``1.25``); a
    negative one's exponent and digits complemented, with `_END` after them, so that a
    bigger magnitude comes first. Equal numbers (``1``, ``1.00``, ``-0``) have one text."""
    if number.is_infinite():
        return _MINUS_INF if number < 0 else _PLUS_INF
    if not number:
        return _ZERO
    sign, digits, _ = number.as_tuple()
    body = (_exponent_text(number.adjusted())
            + "".join(map(str, digits)).lstrip("0").rstrip("0"))
    return _NEGATIVE + body.translate(_COMPLEMENT) + _END if sign else _POSITIVE + body


# a number (no leading zero: 07A is a code; an exponent, 1e3W, 2.5E-1 kW) and the unit
# after it: letters of any script (a degree sign before them), one more such unit after a
# slash (r/min, m/s), or a percent or degree sign; no digit in it but a power after a unit
# known so (m2, cm2, m3: `_POWERED`)
_NUMBER = r"\s*([+-]?(?:(?:0|[1-9]\d*)(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?)\s*"
_NUMBER_AT = re.compile(_NUMBER)
# a dollar with its country's letters (US$, HK$, S$: `kbtools.decision.units.DOLLAR_PREFIXES`)
_DOLLAR = r"(?i:" + "|".join(DOLLAR_PREFIXES) + r")\$"
_QUANTITY = re.compile(_NUMBER + r"((?:°?[^\W\d_]+[23]?(?:/[^\W\d_]+[23]?)?)|" + _DOLLAR
                       + r"|[%‰℃℉¥$€£])\s*")
# a currency's sign or code before its amount (¥80, $12.50, € 5, HK$12, RMB80, USD 12): the
# amount in that currency (`kbtools.decision.units.CURRENCY_CODES`, any case)
_MONEY_FIRST = re.compile(r"(" + _DOLLAR + r"|(?i:" + "|".join(CURRENCY_CODES)
                          + r")|[¥$€£￥＄])" + _NUMBER)
MAX_QUANTITY_CHARS = 40  # longer text is no measured value
# a number grouping its thousands by commas before its unit or after its currency (¥1,000,
# 1,000元, 5,000 W): the number without them; a bare 1,000 stays none (1 or 1000?)
_GROUPED = re.compile(r"(?<![\d.,])(\d{1,3})((?:,\d{3})+)(?![\d,])")
# the units written with a power's digit (as NFKC writes m² and ㎡): no other letters and digit
# are a unit (5A2 is a code)
_POWERED = frozenset(u for u in (*GROUP_OF, *SCALED_SPELLINGS.values(), *SPELLED_UNITS.values(),
                                  *(u for family in SCALES for u in family)) if u[-1:] in "23")
_BLANK_RUN = re.compile(r"\s+")


@lru_cache(maxsize=4096)
def quantity(text: str) -> tuple[str, Number] | None:
    """`text` as a number and its unit (``7.5 kW``: ``("kw", 7.5)``, ``1e3W``: ``("w",
    1000)``, the unit case-folded and in NFKC, ``㎡``, ``m²`` as ``m2``, full-width forms as
    ASCII; money with its sign or code first, ``¥80``, ``RMB80``, as ``("¥", 80)``, ``("rmb",
    80)``); its thousands grouped by commas read (``¥1,000``, ``1,000元``: 1000), a unit said
    aloud or typed short as the unit it is (`SPOKEN_UNITS`: ``100块`` is ``("元", 100)``,
    ``5 pct`` ``("%", 5)``); None for a bare number (``1,000`` too), text, a date, a version
    or a unit with a word after it (``10kW之间``, ``5kW及``)."""
    clean = in_digits(narrow(text))
    if not clean.isascii():  # ㎏, ㎡, m² as kg, m2, m2 (NFKC)
        clean = unicodedata.normalize("NFKC", clean)
    if "," in clean:  # ¥1,000: ¥1000
        clean = _GROUPED.sub(lambda g: g.group(1) + g.group(2).replace(",", ""), clean)
    if (money := _MONEY_FIRST.fullmatch(clean)) is not None:  # ¥80: 80 of ¥ (元)
        clean = money.group(2) + money.group(1)
    m = _QUANTITY.fullmatch(clean) if len(clean) <= MAX_QUANTITY_CHARS else None
    if m is None and len(clean) <= MAX_QUANTITY_CHARS:  # 200 sq ft, 450 kg per ha; kW·h
        m = _QUANTITY.fullmatch(_unit_in_symbols(_product_joined(clean)))
    if m is None:
        return None
    number = _decimal(m.group(1))
    unit = m.group(2).casefold()
    unit = SPOKEN_UNITS.get(unit, unit)
    if unit not in _UNITS_AFTER and _LATIN_THEN_HAN.search(unit) is not None:  # 10kW之间: a
        # quantity and a word, no unit; one known so spelled aside (5kW时: 5 kWh)
        return None
    if number is None or any(p[-1:] in "23" and p not in _POWERED for p in unit.split("/")):
        return None
    return unit, number


_PRODUCT_BLANKS = str.maketrans(dict.fromkeys(PRODUCT_MARKS, " "))


def _product_joined(text: str) -> str:
    """`text`, a number and a unit written as a product of two (``5kW·h``, ``5 kW.h``, ``5
    kW h``, ``5千瓦·时``: `kbtools.decision.units.product_unit`), as the number and the unit
    joined (``5kwh``, ``5千瓦时``); other text as it is."""
    m = _NUMBER_AT.match(text)
    parts = text[m.end():].translate(_PRODUCT_BLANKS).split() if m is not None else []
    joined = product_unit(*parts) if len(parts) == 2 else None
    return text if m is None or joined is None else text[:m.end()] + joined


def _unit_in_symbols(text: str) -> str:
    """`text`, a number and a unit in words a blank apart (``200 sq ft``, ``2 cubic metres``,
    ``30 degrees F``, ``450 kg per ha``), as the number and the unit's symbol
    (`kbtools.decision.units.SPELLED_UNITS`, the tables' one list of them): ``200ft2``,
    ``2m3``, ``30°f``, ``450kg/ha``; other text as it is."""
    m = _NUMBER_AT.match(text)
    if m is None or not any(c.isspace() for c in text[m.end():].strip()):
        return text
    words = _BLANK_RUN.sub(" ", text[m.end():].strip()).casefold().split(" per ")
    return text[:m.end()] + "/".join(SPELLED_UNITS.get(w, w) for w in words)


def unit_written(text: str) -> str:
    """What follows the number of a quantity `text` (`quantity`), as written (full-width
    forms as ASCII): ``℃`` of ``-5 ℃``, ``kW`` of ``１０ｋＷ``."""
    clean = in_digits(narrow(text)).strip()
    if (money := _MONEY_FIRST.fullmatch(clean)) is not None:
        return money.group(1)  # ¥ of ¥80
    m = _NUMBER_AT.match(clean)
    return clean[m.end():] if m else ""


_SHARES = frozenset((GROUP_OF["%"], GROUP_OF["‰"]))  # percent, per mille


def fraction_or_percent(number: Number, unit: str) -> bool:
    """Whether a bare `number` (a document's ``湿度: 0.9``) beside a quantity in `unit` may
    mean two things: in percent (``80%``), one of 0 < |n| ≤ 1 is a fraction (90 %) as much as that many percent (0.9 %), so an order leaves it out rather
    than compare one guess (0 is 0 % either way, 50 is 50 %)."""
    return is_percent(unit) and isinstance(number, Decimal) and number.is_finite() and \
        not number.is_zero() and number.copy_abs() <= 1  # exactly, of any exponent


def is_percent(unit: str) -> bool:
    """Whether a quantity's `unit` (`quantity`: ``%``, ``percent``, ``‰``) is a share in
    percent or per mille (``5‰`` is 0.5 %: a bare 0.003 beside it is as much a fraction)."""
    return GROUP_OF.get(unit) in _SHARES


class Incomparable:
    """What two quantities in different units compare as (`quantity`): every comparison
    false, ``=`` too (``!=`` is its opposite where filters ask it)."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return False

    def __lt__(self, other: object) -> bool:
        return False

    __le__ = __gt__ = __ge__ = __lt__


INCOMPARABLE = Incomparable()
