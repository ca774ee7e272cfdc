"""One table cell read as a condition, and the text and number forms cells and inputs take.

Cell conditions (after Unicode NFKC, so full-width ``＜``/``～``/``％`` work too):

    <15  <=15  ≤15  >20  >=85  ≥85        comparisons
    15-20  15~20  15–20  15至20  15到20   closed ranges: both ends inclusive
    25±2  25℃±2℃  6.5 +/- 0.2            a value and its tolerance: 23-27, 6.3-6.7
    20 / 20℃                              numeric equality
    2000小时以上 / 10以下 / 30 ℃ 以上      ≥2000 / ≤10 / ≥30
    6.5以下(不含) 7以上(含7) 4-8 (exclusive)  a bracket saying whether a bound is included,
                                          where the cell leaves it open: <6.5, ≥7, 4<x<8
    =>3  =<3  > = 3  =3                  ≥3, ≤3, ≥3, 3: symbols as also typed (`operators`)
    不低于30  低于15  超过20  不超过3次     the same in words (`symbolic`), Chinese or English:
    at least 30  below 15  2 or more      ≥30, <15, >20, ≤3, ≥30, <15, ≥2;
    150 to 170  between 150 and 170       150~170
    above 4 and at most 8  >4, ≤8          4 < x ≤ 8: a lower and an upper comparison joined
    高于4且不超过8                          (and, a comma, ;, &, 且): each end as its own says
    v ≤ 2.8  2.8 < v ≤ 7.1  6 ≤ pH < 6.5   a formula about the value: ≤2.8, 2.8 < x ≤ 7.1
    三天以下  不超过五次  二十至三十度       bounds in Chinese numerals (standard ones): ≤3, ≤5, 20~30
    周一至周五  Sat, Sun  工作日  周五至周一   days of the week (`weekdays`), wrapping the week
    * or empty (or -, —, 任意, 不限, any)  any value
    anything else                         text, equal ignoring case and surrounding space

Numbers may group thousands with commas or spaces (``1,000-10,000``, ``>12,500 h``, ``<1 200``,
``1 000 kg``; an input ``5,000``, ``1 200``): a comma or space followed by exactly three digits;
``1,5`` and ``1 200,5`` are no number (a list, or a decimal comma: `cell_text.decimal_comma`).

Units are ignored here: in headers (``温度(℃)`` is addressed as ``温度``, see
`headers.column_key`) and
in cells (``≥2000 h``, ``85%``); which unit a column, a cell or an input value is in, an input
as a number and the units refused are `column_units`'. A number beyond the range of a float
(``1e400``, a 401-digit value) is no number: a cell holding one is text. Because ranges
are closed and comparisons strict, adjacent rows ``<15`` / ``15-20`` / ``>20`` tile the number
line exactly: 15 and 20 fall in the middle row, 14.9 in the first, 20.1 in the last.

Every pattern here is matched from the start of one normalised cell (`re.match`) with
bounded unit lengths, and the header unit is found with string scans
(`headers.header_unit_start`),
so reading a table costs time linear in its size whatever its cells hold.

Pure: imports only `kbtools.decision.numerals`, `cell_text`, `clock`, `weekdays`, `tolerance`
(a value's tolerance, 25±2, 200±5%) and `words` (comparisons written in words). A cell's
normalised text and a header's key are imported from where they live (`cell_text`,
`headers`), not through this module.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from kbtools.decision.cell_text import ANY_CELLS, normalize_cell
from kbtools.decision.clock import cell_minutes, clock_text
from kbtools.decision.numerals import (
    NUMERAL_CHARS,
    chinese_number,
    halves,
    magnified,
    read_mixed,
    tenths_as_percent,
)
from kbtools.decision.tolerance import percent_of_value, tolerance_ends
from kbtools.decision.weekdays import cell_days, days_text
from kbtools.decision.words import ROUGH_AFTER, WORD_PREFIXES, symbolic

# 1,000 and 1 000 (a space, or after NFKC a no-break or thin one): groups of three; not
# 1 200,5, whose comma may be a decimal one (`cell_text.decimal_comma`)
WHOLE = r"[+-]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d,])|\d+)"
NUM = WHOLE + r"(?:\.\d+)?"
# a unit: what follows a number up to 12 characters, but never a word that bounds it (30以上,
# 6.5以下(不含) were read as "= 30", "= 6.5" with a unit "以上", "以下(不含)")
# ... an area or a volume keeps its power (m², ㎡, cm³ are m2, cm3 after NFKC: 10m² was text)
# (nor a word that bounds it without a comparison, 20多度, or ``+``: 25°C+ is no 25; nor
# these in Traditional script, 20度以內, which a value is refused for, never read as 20)
_NOT_UNIT = "|".join(("以上", "以下", "以内", "以外", "含", "之上", "之下", "之间", *ROUGH_AFTER,
                      "以內", "之間", "餘", "幾", "來"))
UNIT = rf"(?:[cdkm]?m[23](?![\d.])|(?!{_NOT_UNIT})[^\d\s<>=≤≥≦≧~〜\-–—至到,;:*|+]){{0,12}}"
_RANGE_SEP = r"(?:-|~|〜|–|—|至|到)"
_RE_CMP = re.compile(rf"^(<=|>=|<|>|≤|≥|≦|≧)\s*({NUM})\s*{UNIT}$")
RANGE_FORM = re.compile(rf"^({NUM})\s*{UNIT}\s*{_RANGE_SEP}\s*({NUM})\s*{UNIT}$")
_RE_NUMBER = re.compile(rf"^({NUM})\s*{UNIT}$")
# interval notation: [5, 8) is 5 ≤ x < 8, (5, 8] 5 < x ≤ 8, [5℃, 8℃], [5, 8) ℃, (-∞, 5),
# [85, +∞); full-width ［5，8） is the same after NFKC
_IUNIT = r"(?:[cdkm]?m[23](?![\d.])|(?!以上|以下|以内|以外|含)[^\d\s<>=≤≥≦≧~〜\-–—至到,;:*|()\[\]]){0,12}"
_END = rf"({NUM}|[+-]?∞|[+-]?inf)"
INTERVAL_FORM = re.compile(rf"^([\[(])\s*{_END}\s*{_IUNIT}\s*[,;]\s*{_END}\s*{_IUNIT}\s*([\])])"
                          rf"\s*{UNIT}$", re.IGNORECASE)
# a value with its tolerance: 25±2℃, 25℃±2℃, 6.5 +/- 0.2 (the range 23-27, both ends included)
TOLERANCE_FORM = re.compile(rf"^({NUM})\s*{UNIT}\s*(?:±|\+/-|\+-)\s*({NUM})\s*{UNIT}$")
_RE_SUFFIX = re.compile(rf"^({NUM})\s*(?:{UNIT}\s*)?(以上|以下)$")  # 30 ℃ 以上 too
# what a cell may add in brackets to say whether its bound is included: 6.5以下(不含),
# 7以上(含 7), 4-8 (inclusive); matched from the cell's last "(" (`split_qualifier`)
_RE_QUALIFIER = re.compile(rf"\(\s*(不包含|不包括|不含|包含|包括|含|not included|inclusive|"
                           rf"exclusive|included|excluded|incl\.?|excl\.?)\s*"
                           rf"(?:({NUM})\s*{UNIT}\s*)?\)", re.IGNORECASE)
# a comparison written about the value's name, as a formula: v ≤ 2.8, 2.8 < v ≤ 7.1, pH<5.5
_VAR = r"[^\d\s<>=≤≥≦≧~〜\-–—+,;:*|()]{1,16}"
_RE_VAR_CMP = re.compile(rf"^{_VAR}\s*(<=|>=|<|>|≤|≥|≦|≧)\s*({NUM})\s*{UNIT}$")
_RE_VAR_BETWEEN = re.compile(rf"^({NUM})\s*{UNIT}\s*(<=|>=|<|>|≤|≥|≦|≧)\s*{_VAR}\s*"
                             rf"(<=|>=|<|>|≤|≥|≦|≧)\s*({NUM})\s*{UNIT}$")
# a Chinese numeral in a cell (三天以下, 不超过五次, 二十至三十度), read where it makes a bound
_CJK_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万]+(?:点[零〇一二三四五六七八九]+)?")
_OPS = {"<": "lt", ">": "gt", "<=": "le", "≤": "le", "≦": "le", ">=": "ge", "≥": "ge", "≧": "ge"}


def finite(text: str) -> float | None:
    """`text` (a matched number) as a float; None when it lies beyond the range of one."""
    x = float(text.replace(",", "").replace(" ", ""))
    return x if math.isfinite(x) else None


def format_number(x: float) -> str:
    """A number as shown in messages: ``15`` for 15.0, ``14.5`` otherwise, ``1e+20`` for one
    whose digits would not add meaning."""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


@dataclass(frozen=True)
class Condition:
    """One cell as a condition. Numeric conditions are intervals over the reals."""

    raw: str
    kind: str  # any | text | number | lt | le | gt | ge | range
    lo: float = -math.inf
    hi: float = math.inf
    lo_incl: bool = False
    hi_incl: bool = False
    text: str = ""  # normalised text for kind == "text"
    clock: bool = False  # in minutes after midnight (`clock`): 22:00-6:00 crosses midnight
    weekday: bool = False  # days 1 (Mon) to 7 (Sun) (`weekdays`): 周五至周一 wraps the week

    @property
    def numeric(self) -> bool:
        """A number form (comparison, range or bare number), not `any` or text."""
        return self.kind not in ("any", "text")

    @property
    def is_rangeish(self) -> bool:
        """A comparison or range (a bare number alone does not make a column numeric)."""
        return self.kind in ("lt", "le", "gt", "ge", "range")

    def accepts_number(self, x: float) -> bool:
        """Whether `x` lies in this condition's interval (`any` accepts everything)."""
        if self.kind == "any":
            return True
        lo_ok = x > self.lo or (self.lo_incl and x == self.lo)
        hi_ok = x < self.hi or (self.hi_incl and x == self.hi)
        wraps = (self.clock or self.weekday) and self.lo > self.hi
        return lo_ok or hi_ok if wraps else lo_ok and hi_ok

    def describe(self, lang: str = "en") -> str:
        """The condition in words, as used in match reasons (``in 15–20 (both ends …)``; in
        Chinese for `lang` ``zh``: ``在 15–20 之间（含两端）``)."""
        zh, num = lang == "zh", clock_text if self.clock else format_number
        if self.kind == "any":
            return "任意值" if zh else "any value"
        if self.weekday:  # 周一至周五, in Mon–Fri
            return days_text(self.lo, self.hi, zh)
        if self.kind == "text":
            return f"文本“{self.raw.strip()}”" if zh else f"text '{self.raw.strip()}'"
        if self.kind == "number":
            return f"= {num(self.lo)}"
        if self.kind == "range" and not (self.lo_incl and self.hi_incl):  # >4 and ≤8
            low = f"{'≥' if self.lo_incl else '>'} {num(self.lo)}"
            high = f"{'≤' if self.hi_incl else '<'} {num(self.hi)}"
            return f"{low} 且 {high}" if zh else f"{low} and {high}"
        if self.kind == "range":
            span = f"{num(self.lo)}–{num(self.hi)}"
            return f"在 {span} 之间（含两端）" if zh else f"in {span} (both ends inclusive)"
        if self.kind in ("lt", "le"):
            return f"{'<' if self.kind == 'lt' else '≤'} {num(self.hi)}"
        return f"{'>' if self.kind == 'gt' else '≥'} {num(self.lo)}"


# A table's cells are each read several times (its columns' units, then each cell's):
# the readings of this many cells are kept, so a table costs one reading a cell
CELL_MEMORY = 1 << 16


@lru_cache(maxsize=CELL_MEMORY)
def parse_condition(cell: str) -> Condition:
    """Parse one cell. Never fails: whatever is not a number form (or holds a number beyond
    the range of a float) is a text condition."""
    return _parse(cell, pair=True)


def _parse(cell: str, *, pair: bool) -> Condition:
    """`parse_condition`; a cell of two comparisons joined (`_two_bounds`) only with `pair`."""
    raw = cell
    plain = magnified(normalize_cell(cell))
    if plain.casefold() in ANY_CELLS:
        return Condition(raw, "any")
    base, included, at = split_qualifier(plain)
    if included is not None and pair and "(" in base and (c2 := _two_bounds(raw, plain)):
        return c2  # 4以上(含)8以下(不含): the last bracket is the upper bound's own
    if included is not None:
        c = _qualified(_parse(base, pair=pair), base, included, at)
        return replace(c, raw=raw) if c else Condition(raw, "text", text=plain.casefold())
    if (minutes := cell_minutes(plain)) is not None and (c := _parse(minutes, pair=pair)).numeric:
        return replace(c, raw=raw, clock=True)  # <9:00, 22:00-6:00: `clock`
    if (days := cell_days(plain)) is not None:
        return replace(_parse(days, pair=pair), raw=raw, weekday=True)  # 1-5: `weekdays`
    text = symbolic(plain)
    m = INTERVAL_FORM.match(text)
    if m:
        return _interval(raw, m) or Condition(raw, "text", text=plain.casefold())
    m = _RE_CMP.match(text)
    if m and (x := finite(m.group(2))) is not None:
        kind = _OPS[m.group(1)]
        if kind in ("lt", "le"):
            return Condition(raw, kind, hi=x, hi_incl=kind == "le")
        return Condition(raw, kind, lo=x, lo_incl=kind == "ge")
    m = _RE_SUFFIX.match(text)
    if m and (x := finite(m.group(1))) is not None:
        if m.group(2) == "以上":
            return Condition(raw, "ge", lo=x, lo_incl=True)
        return Condition(raw, "le", hi=x, hi_incl=True)
    m = RANGE_FORM.match(text) or TOLERANCE_FORM.match(text)
    if m and (lo := finite(m.group(1))) is not None and (hi := finite(m.group(2))) is not None:
        if m.re is TOLERANCE_FORM:  # 25±2: from 23 to 27, in the digits written
            lo, hi = tolerance_ends(m)
        return Condition(raw, "range", lo=lo, hi=hi, lo_incl=True, hi_incl=True)
    m = _RE_NUMBER.match(text)
    if m and (x := finite(m.group(1))) is not None:
        return Condition(raw, "number", lo=x, hi=x, lo_incl=True, hi_incl=True)
    m = _RE_VAR_CMP.match(text)
    if m and finite(m.group(2)) is not None:  # v ≤ 2.8: the comparison ≤ 2.8
        return replace(_parse(text[m.start(1):], pair=False), raw=raw)
    return (pair and (_two_bounds(raw, plain) or _formula(raw, text) or _numerals(raw, plain))) \
        or Condition(raw, "text", text=plain.casefold())


def tolerance_readings(cell: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """For a value with a tolerance in percent of it, as `tolerance.tolerance_ends` reads ``200±5%``: the
    range it is read as and the range it would be as points (190–210, 195–205), which a
    column in % cannot tell apart (`model` refuses it there); None for any other cell."""
    m = TOLERANCE_FORM.match(symbolic(magnified(normalize_cell(cell))))
    if m is None or not percent_of_value(m):
        return None
    return tolerance_ends(m, share=True), tolerance_ends(m, share=False)


def _interval(raw: str, m: re.Match[str]) -> Condition | None:
    """The interval `INTERVAL_FORM` matched: a bracket includes its end, a parenthesis leaves it
    out; an infinite end is open whatever its bracket (``[85, +∞)`` is ≥85). None when an
    end is a number beyond the range of a float."""
    lo, hi = _end(m.group(2), -math.inf), _end(m.group(3), math.inf)
    if lo is None or hi is None:
        return None
    lo_incl = m.group(1) == "[" and math.isfinite(lo)
    hi_incl = m.group(4) == "]" and math.isfinite(hi)
    if math.isinf(lo) and math.isinf(hi):
        return Condition(raw, "any") if lo < hi else None
    if math.isinf(hi):
        return Condition(raw, "ge" if lo_incl else "gt", lo=lo, lo_incl=lo_incl)
    if math.isinf(lo):
        return Condition(raw, "le" if hi_incl else "lt", hi=hi, hi_incl=hi_incl)
    return Condition(raw, "range", lo=lo, hi=hi, lo_incl=lo_incl, hi_incl=hi_incl)


def _end(text: str, infinite: float) -> float | None:
    """One end of an interval: its number, or ±infinity written ``∞``/``inf`` (its sign, else
    `infinite`'s); None for a number beyond the range of a float or infinity on the wrong
    side (``[+∞, 5)``)."""
    word = text.casefold().lstrip("+-")
    if word in ("∞", "inf"):
        value = -math.inf if text.startswith("-") else \
            (math.inf if text.startswith("+") else infinite)
        return value if value == infinite else None
    return finite(text)


def read_numerals(text: str) -> str:
    """`text` with each Chinese numeral written the standard way as its decimal number
    (``三天以下`` → ``3天以下``), a percentage or a per-mille said so with its sign
    (``百分之八十五以上`` → ``85%以上``, ``千分之五`` → ``5‰``) or in tenths (``九成以上`` →
    ``90%以上``: `numerals.tenths`), a length of time with a half (``两个半小时`` →
    ``2.5小时``: `numerals.halves`); any other numeral (三四, 二十五六) as written."""
    if not any(ch in NUMERAL_CHARS for ch in text):
        return tenths_as_percent(halves(text))  # 9成, 2个半小时
    text = _CJK_NUMERAL.sub(lambda m: chinese_number(m.group(0)) or m.group(0), read_mixed(text))
    text = halves(text)
    text = _PERCENT_SAID.sub(r"\1%", text) if "百分之" in text else text
    return tenths_as_percent(_PERMILLE_SAID.sub(r"\1‰", text) if "千分之" in text else text)


_PERCENT_SAID = re.compile(rf"百分之\s*({NUM})")  # 百分之85: 85%
_PERMILLE_SAID = re.compile(rf"千分之\s*({NUM})")  # 千分之5: 5‰


def _numerals(raw: str, plain: str) -> Condition | None:
    """A cell bounding its value with Chinese numerals (``三天以下``, ``不超过五次``, ``二十至三十度``):
    the comparison or range it is with each numeral written the standard way read as its
    number (`numerals.chinese_number`); None when that makes no comparison or range (一级,
    十字花科 and a bare 五 stay text: a numeral alone is no bound)."""
    if len(plain) > BOUNDS_MAX or (read := read_numerals(plain)) == plain:
        return None
    c = _parse(read, pair=True)
    return replace(c, raw=raw) if c.is_rangeish else None


def _formula(raw: str, text: str) -> Condition | None:
    """A value's name between two bounds (``2.8 < v ≤ 7.1``, ``7.1 ≥ v > 2.8``, ``6.0 ≤ pH <
    6.5``): the interval between them, each end included as its symbol says; None when the
    cell is no such formula (or its two symbols point different ways)."""
    m = _RE_VAR_BETWEEN.match(text)
    if m is None or (a := finite(m.group(1))) is None or (b := finite(m.group(4))) is None:
        return None
    first, second = _OPS[m.group(2)], _OPS[m.group(3)]
    if {first, second} <= {"lt", "le"}:  # a < v ≤ b
        return Condition(raw, "range", lo=a, hi=b, lo_incl=first == "le", hi_incl=second == "le")
    if {first, second} <= {"gt", "ge"}:  # b ≥ v > a
        return Condition(raw, "range", lo=b, hi=a, lo_incl=second == "ge", hi_incl=first == "ge")
    return None


def split_qualifier(text: str) -> tuple[str, bool | None, float | None]:
    """A normalised cell without the bracket that ends it saying whether its bound is
    included (``6.5以下(不含)``, ``7以上(含7)``, ``4-8 (exclusive)``): (the rest, True for
    included, False for not, None when the cell ends in no such bracket; the bound the
    bracket names, else None)."""
    i = text.rfind("(")
    m = _RE_QUALIFIER.fullmatch(text, i) if i > 0 else None
    if m is None:
        return text, None, None
    word = m.group(1).casefold()
    at = finite(m.group(2)) if m.group(2) else None
    return text[:i].rstrip(), not word.startswith(("不", "ex", "not")), at


def _qualified(c: Condition, base: str, included: bool, at: float | None) -> Condition | None:
    """`c` (the cell without its bracket, `base`) with the bound the bracket names included
    or not: 6.5以下(不含) is <6.5, 7以上(含) ≥7, 4-8 (exclusive) 4 < x < 8, 6-6.5(不含6.5)
    6 ≤ x < 6.5. The bracket decides only where the cell leaves it open (以上, 以下, 以内 or
    a range a-b); one that contradicts a symbol or word (``<7 (含)``), names no bound of the
    cell, or is added to a number or a text gives None (the cell is text)."""
    if not c.is_rangeish or (at is not None and at not in (c.lo, c.hi)):
        return None
    open_ = base.endswith(("以上", "以下", "以内")) or \
        (c.kind == "range" and RANGE_FORM.match(symbolic(base)) is not None)
    lo = c.lo_incl if at is not None and at != c.lo else included
    hi = c.hi_incl if at is not None and at != c.hi else included
    if c.kind in ("ge", "gt"):
        lo, hi = lo, False
    elif c.kind in ("le", "lt"):
        lo, hi = False, hi
    if not open_ and (lo, hi) != (c.lo_incl, c.hi_incl):
        return None
    if c.kind == "range":
        return replace(c, lo_incl=lo, hi_incl=hi)
    kind = ("ge" if lo else "gt") if c.kind in ("ge", "gt") else ("le" if hi else "lt")
    return replace(c, kind=kind, lo_incl=lo, hi_incl=hi)


# what joins the two comparisons of a cell bounded on both sides (``>4 and ≤8``, ``>4, ≤8``)
_BOUND_JOIN = re.compile(r",|;|&|、|\band\b|\bbut\b|并且|且|而且", re.IGNORECASE)
BOUNDS_MAX = 80  # characters: a longer cell is not split in two (each split parses both parts)


def _two_bounds(raw: str, plain: str) -> Condition | None:
    """A cell that is a lower and an upper comparison joined (``above 4 and at most 8``,
    ``>4, <=8``, ``高于4且不超过8``) or written one after the other (``4以上8以下``,
    ``4℃以上8℃以下``, ``超过4不超过8``, ``≥4 <8``): the interval between them, each end
    included as its comparison says (None when the cell is no such pair). Adjacent rows
    ``1.2 to 4`` / ``above 4 and at most 8`` / ``above 8`` tile the number line with shared
    endpoints."""
    if len(plain) > BOUNDS_MAX or sum(1 for n, ch in enumerate(plain) if ch.isdigit() and
                                      (n == 0 or not plain[n - 1].isdigit())) < 2:
        return None
    splits = [(m.start(), m.end()) for m in _BOUND_JOIN.finditer(plain)]
    splits += [(n, n) for n in _adjacent_splits(plain)]
    for start, end in splits:
        a, b = _comparison(plain[:start]), _comparison(plain[end:])
        if a is None or b is None:
            continue
        lower, upper = (a, b) if a.kind in ("gt", "ge") else (b, a)
        if lower.kind in ("gt", "ge") and upper.kind in ("lt", "le"):
            return Condition(raw, "range", lo=lower.lo, hi=upper.hi, lo_incl=lower.kind == "ge",
                             hi_incl=upper.kind == "le")
    return None


# where the second of two comparisons written one after the other may start: after a word or
# bracket that ends one (4以上|8以下, 4以上(含)|8以下), or at a symbol or word that opens one
_BOUND_ENDS = ("以上", "以下", "以内", ")")
_PREFIX_STARTS = frozenset(w[0].casefold() for w, _ in WORD_PREFIXES) | set("<>≤≥≦≧")


def _adjacent_splits(plain: str) -> list[int]:
    """The places `plain` might be cut into two comparisons not joined by a word."""
    out = []
    for n in range(1, len(plain)):
        ch = plain[n]
        if plain.endswith(_BOUND_ENDS, 0, n) or ch == " " or \
                (ch.casefold() in _PREFIX_STARTS and not ch.isascii()) or ch in "<>≤≥≦≧":
            out.append(n)
    return out


def _comparison(part: str) -> Condition | None:
    """One side of `_two_bounds`: a comparison (``above 4``, ``≤8``, ``8 or less``), else
    None."""
    c = _parse(part, pair=False)
    return c if c.kind in ("lt", "le", "gt", "ge") else None
