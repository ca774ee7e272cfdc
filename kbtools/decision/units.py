"""The units decision tables know, by what they measure: which spellings are one unit
(``m²``, ``㎡``, ``m2``, ``平方米``), which words multiply a number rather than name its unit
(``万``, ``k``), and which words a header may end its name with to name its unit (``…小时``).

A number in a unit of its column's family is converted by the exact factor between them
(`SCALES`: 2 years in a column of months is 24); any other unit is not converted, and these
lists say when two spellings are known to be the same unit or known to differ (72 °F against
a ℃ column is refused), and their spellings in words (``degrees Fahrenheit``). Pure:
imports `kbtools.decision.numerals` (what 万, 千 multiply by).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from kbtools.decision.numerals import MAGNITUDE_TIMES

# Units an input may name, by what they measure: two of one group are the same unit, two of
# different groups are not (an input in °F against a ℃ column, weeks against days). Any
# other spelling is not judged (the module docstring).
UNIT_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in (
    {"℃", "°c", "c", "度", "摄氏度"}, {"℉", "°f", "f", "华氏度"}, {"开尔文"},
    {"%", "百分比", "percent"}, {"‰"},
    {"s", "sec", "secs", "second", "seconds", "秒"},
    {"min", "mins", "minute", "minutes", "分钟", "分"}, {"刻钟"},
    {"h", "hr", "hrs", "hour", "hours", "小时", "时", "钟头"},
    {"d", "day", "days", "天", "日"}, {"周", "星期", "week", "weeks", "wk", "wks"},
    {"月", "个月", "month", "months"}, {"年", "year", "years", "yr", "yrs"},
    {"mm", "毫米"}, {"cm", "厘米"}, {"m", "米"}, {"km", "公里", "千米"},
    {"g", "克"}, {"kg", "千克", "公斤"}, {"斤"}, {"t", "吨"}, {"mg", "毫克"},
    {"ml", "毫升"}, {"l", "升"}, {"亩", "mu"}, {"公顷", "ha", "hectare", "hectares"},
    {"m2", "平方米", "平米", "sqm"}, {"cm2", "平方厘米"}, {"mm2", "平方毫米"},
    {"km2", "平方公里", "平方千米"}, {"m3", "立方米", "方"}, {"cm3", "立方厘米", "cc"},
    {"pa"}, {"kpa", "千帕"}, {"mpa", "兆帕"}, {"bar"}, {"psi", "psig"}, {"psia"},
    {"v", "伏", "volt", "volts"}, {"kv", "千伏"}, {"mv", "毫伏"}, {"a", "安", "amp", "amps"},
    {"w", "瓦"}, {"kw", "千瓦"}, {"hp", "horsepower"}, {"rpm", "转/分", "r/min"},
    {"in/s", "ips"}, {"mm/s"}, {"gpm"}, {"cfm"}, {"cal/cm2", "cal/cm²"},
    # money: each currency its own unit, never converted to another (¥80 is 80元)
    {"元", "¥", "人民币", "rmb", "cny"}, {"$", "us$", "usd", "美元"}, {"€", "eur", "欧元"},
    {"£", "gbp", "英镑"}, {"hk$", "hkd", "港元", "港币"}, {"nt$", "twd", "新台币"},
    {"s$", "sgd", "新加坡元"}, {"a$", "aud", "澳元"}, {"c$", "cad", "加元"},
    {"nz$", "nzd", "新西兰元"},
))
# the dollars written with their country's letters before the sign (US$12, HK$12, S$12): each
# its own currency, as `UNIT_GROUPS` names it (a bare $ is the US dollar)
DOLLAR_PREFIXES = ("US", "HK", "NT", "NZ", "A", "C", "S")
GROUP_OF = {unit: i for i, group in enumerate(UNIT_GROUPS) for unit in group}
# the ISO 4217 codes (and RMB) of the currencies `UNIT_GROUPS` knows, as a price may write one
# before its amount (RMB80, USD 12, EUR5) as well as after it (80RMB): that currency's amount
CURRENCY_CODES = ("RMB", "CNY", "USD", "EUR", "GBP", "HKD", "TWD", "SGD", "AUD", "CAD", "NZD")
assert all(code.casefold() in GROUP_OF for code in CURRENCY_CODES)
# a length's spellings in English, as `SPELLED_UNITS` squares and cubes them (sq ft, cubic metres)
_LENGTH_WORDS: dict[str, tuple[str, ...]] = {
    **{unit: (unit, *(f"{word}{end}" for end in ("er", "ers", "re", "res")))
       for unit, word in (("mm", "millimet"), ("cm", "centimet"), ("m", "met"), ("km", "kilomet"))},
    "in": ("in", "in.", "inch", "inches"), "ft": ("ft", "ft.", "foot", "feet"),
    "yd": ("yd", "yard", "yards")}
# English spellings of a unit, as the unit the tables know (written after the value: ``30
# degrees F`` is 30 °F, as a question or a caller's value gives it)
SPELLED_UNITS: dict[str, str] = {
    **dict.fromkeys(("degrees fahrenheit", "degree fahrenheit", "deg fahrenheit",
                     "degrees f", "degree f", "deg f", "degf", "fahrenheit"), "°f"),
    **dict.fromkeys(("degrees celsius", "degree celsius", "deg celsius", "degrees centigrade",
                     "degrees c", "degree c", "deg c", "degc", "celsius", "centigrade"), "°c"),
    **dict.fromkeys(("per cent", "pct"), "%"),
    # relative humidity as instruments and field reports write it (90%RH, 90 % RH): percent
    **dict.fromkeys(("%rh", "% rh", "%r.h.", "% r.h."), "%"),
    # areas and volumes in words a blank apart (30 square metres, 200 sq ft, 2 cubic metres)
    **{f"{word} {length}": f"{unit}{power}"
       for power, words in (("2", ("square", "sq", "sq.")), ("3", ("cubic", "cu", "cu.")))
       for word in words for unit, lengths in _LENGTH_WORDS.items() for length in lengths},
    **{f"sq.{unit}": f"{unit}2" for unit in ("ft", "in", "yd", "m", "km")},
}
_SPELLED = re.compile(r"(?<=\d)\s*(" + "|".join(
    re.escape(w) for w in sorted(SPELLED_UNITS, key=len, reverse=True)) + r")(?![a-z])",
    re.IGNORECASE)


def glued_problem(unit: str, zh: bool = False) -> str | None:
    """Why an input whose number is followed by `unit` is no number in a unit: `unit` is a
    unit symbol (`GLUED_UNITS`: %, ‰, ℃) with text after it that no spelling of a unit makes
    (``90%ABC`` is not 90 % with ``ABC`` ignored); None otherwise (``90%``, ``90 % RH``:
    `SPELLED_UNITS`). In English, or Chinese."""
    key = unit.casefold()
    symbol = next((s for s in GLUED_UNITS if key.startswith(s) and key != s), "")
    if not symbol or key in GROUP_OF or key in SPELLED_UNITS:
        return None
    shown, rest = unit[:len(symbol)], unit[len(symbol):].strip()
    return (f"{shown} 之后的“{rest}”不是单位，请只写数值和单位" if zh else
            f"'{rest}' after {shown} names no unit; send the number and its unit alone")


def unit_symbols(text: str) -> str:
    """`text` with each unit spelled in words after a number in its symbol (``above 30
    degrees F`` → ``above 30°F``), as the tables' readers know it (`SPELLED_UNITS`)."""
    return _SPELLED.sub(lambda m: SPELLED_UNITS[m.group(1).casefold()].upper(), text)


# ``degrees`` alone: a temperature, in whichever degrees the column counts (``22 degrees``
# in a ℃ column is 22 ℃, ``160 degrees`` in a °F one 160 °F); in any other column no value
BARE_DEGREES = frozenset(("degrees", "degree", "deg", "°"))  # 24°: no scale named
TEMPERATURE_GROUPS = frozenset((GROUP_OF["℃"], GROUP_OF["°f"]))
TIME_GROUPS = frozenset(GROUP_OF[u] for u in ("s", "min", "刻钟", "h", "d", "week", "month",
                                              "year"))
# what multiplies a number rather than naming its unit ("2万" hours is 20,000, not 2)
MAGNITUDES = frozenset("十百千万亿兆成") | {"k", "w"}  # 9成 is 90%, not 9
MAGNITUDE_WORDS = ("thousand", "million", "billion", "hundred", "dozen")  # 2 thousand is no 2
# a header that names its unit in its last words: 运行小时 counts hours, 连续降雨天数 days
# units a header may end with glued to its name (温度℃, 湿度%): symbols, never letters
GLUED_UNITS = ("°c", "°f", "℃", "℉", "%", "‰")
NAMED_UNITS = (("小时数", "小时"), ("小时", "小时"), ("天数", "天"), ("日数", "天"),
               ("分钟数", "分钟"), ("分钟", "分钟"), ("周数", "周"), ("月数", "月"), ("年数", "年"))
# the English unit words a header may end with as its last word: ``Operating hours`` counts
# hours, ``Consecutive rain days`` days (so 4 days given the first is 96, 2100 hours the second 87.5)
EN_NAMED_UNITS = ("hours", "hrs", "days", "minutes", "mins", "weeks", "months", "years")

# what a header names a count of when its name (without its unit) ends in it: 连续降雨天数
# and ``rain days`` count days, 喷药次数 times, ``number of sprays`` and ``spray count``
# sprays. Its values are whole numbers, so a bound or a range given it is one on whole
# numbers (<4 days is ≤3 days): the table means whole days when it splits ≤3 from >3. Not
# hours or years counted (运行小时数, 使用年数: 2.5 hours or 1.5 years are values of their own)
COUNTED = ("天数", "日数", "次数", "个数", "人数", "头数", "株数", "只数", "台数", "件数", "粒数",
           "遍数", "层数", "代数")
_EN_COUNTED = re.compile(r"^(?:numberof|no\.?of|#)|(?:count|days)$")


def counts_whole(key: str) -> bool:
    """Whether a column whose header without its unit is `key` (`conditions.column_key`:
    case-folded, no spaces) counts whole things (`COUNTED`)."""
    return key.endswith(COUNTED) or bool(_EN_COUNTED.search(key))


# Families of units one is converted to another in by an exact factor: each unit's size in
# its family's base unit (the one of size 1), by exact definition (an inch is 25.4 mm, a
# pound 453592.37 mg, a US gallon 3785.411784 ml, psi a pound-force per square inch, hp
# 745.69987158227022 W, 马力 and PS metric horsepower 735.49875 W, a mu 10000/15 m²). One
# table for the decision tables (`scale`) and the ``--where`` filters
# (`kbtools.query.filter_units`). Not months and days, nor years and days or weeks (a month
# is no fixed number of days), not °F and ℃ (no factor: `filter_units` shifts them).
_SIZES: tuple[dict[str, int | str | Fraction], ...] = (
    {"s": 1, "min": 60, "刻钟": 900, "h": 3600, "d": 86400, "week": 604800},
    {"month": 1, "year": 12},
    {"mm": 1, "cm": 10, "m": 1000, "km": 1000000, "in": "25.4", "ft": "304.8", "yd": "914.4"},
    {"mg": 1, "g": 1000, "斤": 500000, "kg": 1000000, "t": 1000000000, "lb": "453592.37"},
    {"ml": 1, "l": 1000, "gal": "3785.411784", "cm3": 1, "m3": 1000000,  # not oz: a mass
     "in3": "16.387064", "ft3": "28316.846592"},  # or a fluid ounce
    {"亩": 1, "公顷": 15, "m2": "0.0015", "cm2": "0.00000015", "mm2": "0.0000000015",
     "km2": 1500, "acre": Fraction("4046.8564224") * Fraction("0.0015"),
     "ft2": Fraction("0.09290304") * Fraction("0.0015"),
     "yd2": Fraction("0.83612736") * Fraction("0.0015"),
     "in2": Fraction("0.00064516") * Fraction("0.0015")},
    {"pa": 1, "kpa": 1000, "bar": 100000, "mpa": 1000000, "atm": 101325,
     "psi": Fraction("0.45359237") * Fraction("9.80665") / Fraction("0.00064516")},
    {"mv": 1, "v": 1000, "kv": 1000000},
    {"‰": 1, "%": 10},  # 0.5‰ is 0.05%: shares of a whole, in thousandths and hundredths
    {"w": 1, "kw": 1000, "hp": "745.69987158227022", "马力": "735.49875"},
    {"ma": 1, "a": 1000},  # a current: 500mA is 0.5 A
    {"hz": 1, "khz": 1000, "mhz": 1000000, "ghz": 1000000000},  # mhz: MHz (case aside)
    {"wh": 1, "kwh": 1000, "mwh": 1000000},  # energy: 千瓦时, 1 kWh is 1000 Wh; mwh: MWh
)
SCALES: tuple[dict[str, Fraction], ...] = tuple(
    {unit: size if isinstance(size, Fraction) else Fraction(size) for unit, size in family.items()}
    for family in _SIZES)
# spellings of `SCALES`' units beyond the groups of `UNIT_GROUPS` (whose words a question's
# reader takes as units after a number: ``in`` is not among them, ``5 in the field``): a
# table's column and a filter's value are converted in them. Superscripts and the squared
# units' single characters are read in NFKC (``m²``, ``㎡``: ``m2``; ``㎏``: ``kg``)
SCALED_SPELLINGS: dict[str, str] = {
    "inch": "in", "inches": "in", "英寸": "in", "foot": "ft", "feet": "ft", "英尺": "ft",
    "lbs": "lb", "磅": "lb", "gallon": "gal", "gallons": "gal", "加仑": "gal",
    "acres": "acre", "英亩": "acre", "标准大气压": "atm", "ps": "马力",
    "sqft": "ft2", "平方英尺": "ft2", "平方英寸": "in2", "pound": "lb", "pounds": "lb",
    "yard": "yd", "yards": "yd", "立方英尺": "ft3", "立方英寸": "in3",
    # a ton as 吨 and a datasheet in metric units mean it, 1000 kg (not a US short ton)
    "ton": "t", "tons": "t", "公吨": "t", "毫安": "ma", "赫兹": "hz", "赫": "hz", "千赫": "khz",
    "兆赫": "mhz", "吉赫": "ghz", "hertz": "hz", "kilohertz": "khz", "megahertz": "mhz",
    "gigahertz": "ghz", "千瓦时": "kwh", "瓦时": "wh", "兆瓦时": "mwh",
    # a power's symbol then 时 (hour), as Chinese writes an energy: 5kW时 is 5 kWh
    "kw时": "kwh", "w时": "wh", "mw时": "mwh",
    **{w + end: unit for w, unit in (("milliamp", "ma"), ("milliampere", "ma"),
                                      ("ampere", "a")) for end in ("", "s")},
    **{w + end: unit for w, unit in (("millimet", "mm"), ("centimet", "cm"), ("met", "m"),
                                      ("kilomet", "km"), ("lit", "l"), ("millilit", "ml"))
       for end in ("er", "ers", "re", "res")},
    **{w + end: unit for w, unit in (("milligram", "mg"), ("gram", "g"), ("kilogram", "kg"),
                                      ("tonne", "t"), ("watt", "w"), ("kilowatt", "kw"),
                                      ("kilovolt", "kv"), ("pascal", "pa"),
                                      ("kilopascal", "kpa"), ("megapascal", "mpa"))
       for end in ("", "s")},
}
# the marks an energy is written with as a power times an hour, as standards write it (kW·h,
# kW⋅h, kW∙h, kW・h, kW.h, kW h, 千瓦·时): the unit the two spell joined (kWh, 千瓦时)
PRODUCT_MARKS = "·⋅∙•・. "
_HOURS = UNIT_GROUPS[GROUP_OF["h"]]


def product_unit(first: str, second: str) -> str | None:
    """The unit `first` times `second` (two units a `PRODUCT_MARKS` mark apart) is, as one
    spelling `SCALES` converts (``kW`` times ``h``: ``kwh``, 千瓦 times 时: 千瓦时), case-folded;
    None when `second` is no hour (``m`` times ``in`` is no ``min``) or the two joined spell
    no unit known (``k`` times ``h``)."""
    joined = (first + second).casefold()
    return joined if second.casefold() in _HOURS and _scale_of(joined) is not None else None


# a value's unit the tables leave unconverted: w (2w is 2万; 瓦, and a column in W, convert)
_NOT_SCALED_IN_TABLES = frozenset(("w",))


def scaled_units() -> dict[str, tuple[int, Fraction]]:
    """Every spelling of a unit `SCALES` converts (its group's in `UNIT_GROUPS`, and
    `SCALED_SPELLINGS`): (its family's position in `SCALES`, its size in the family's base)."""
    out: dict[str, tuple[int, Fraction]] = {}
    for n, family in enumerate(SCALES):
        for unit, size in family.items():
            for spelling in UNIT_GROUPS[GROUP_OF[unit]] if unit in GROUP_OF else (unit,):
                out[spelling] = (n, size)
    for spelling, unit in SCALED_SPELLINGS.items():
        out[spelling] = out[unit]
    return out


_SCALE_OF = scaled_units()


def scale_base(n: int) -> str:
    """The base unit of `SCALES`' family `n`: its unit of size 1."""
    return next(u for u, size in SCALES[n].items() if size == 1)


def rate_parts(unit: str) -> tuple[str, str] | None:
    """(what, per what) of a rate written with two units `UNIT_GROUPS` knows: ``kg/亩``,
    ``公斤每亩``, ``kg per ha`` → (kg, 亩); None for any other unit (``mm/s`` and ``r/min``
    are units of their own)."""
    key = unit.casefold()
    if key in GROUP_OF:
        return None
    parts = key.replace(" per ", "/").replace("每", "/").split("/")
    if len(parts) != 2 or not all(p.strip() in GROUP_OF for p in parts):
        return None
    return parts[0].strip(), parts[1].strip()


def rates_agree(unit: str, column: str) -> bool | None:
    """Whether a value in rate `unit` is one of a column in rate `column` (`rate_parts`):
    the same rate (公斤每亩 and kg/亩) or one `scale` converts (kg/亩 to kg/ha); None when
    either is no rate (not judged here)."""
    a, b = rate_parts(unit), rate_parts(column)
    if a is None or b is None:
        return None
    return all(GROUP_OF[x] == GROUP_OF[y] or scale(x, y) is not None for x, y in zip(a, b, strict=True))


def scale(unit: str, column: str) -> tuple[int, int] | None:
    """(numerator, denominator) that turn a number in `unit` into one in `column` (both
    normalised spellings) when they are different units of one of `SCALES`' families (2
    years → months: (12, 1)), or `column` is `unit` times 万, 亿, 千 or 百 (元 → 万元: (1,
    10000)), or both are rates whose parts are so converted (kg/亩 → kg/ha: (15, 1));
    None when they are one unit, unknown, or not so converted."""
    a_rate, b_rate = rate_parts(unit), rate_parts(column)
    if a_rate is not None and b_rate is not None and rates_agree(unit, column):
        (n1, d1), (n2, d2) = (scale(x, y) or (1, 1) for x, y in zip(a_rate, b_rate, strict=True))
        return None if n1 * d2 == d1 * n2 else (n1 * d2, d1 * n2)
    a = None if unit.casefold() in _NOT_SCALED_IN_TABLES else _scale_of(unit)
    b = _scale_of(column)
    if a is None or b is None or a[0] != b[0] or a == b:
        times = MAGNITUDE_TIMES.get(column[:1])
        return (1, times) if times and unit and unit.casefold() == column[1:].casefold() \
            and unit.casefold() not in _NO_BASE else None
    ratio = a[1] / b[1]
    return ratio.numerator, ratio.denominator


def _scale_of(unit: str) -> tuple[int, Fraction] | None:
    """(family, size) of a unit the tables convert (`_SCALE_OF`), as written or one spelling
    of it (``30 psi``, ``12 m²``); None for another."""
    key = unit.casefold()
    return _SCALE_OF.get(key) or _SCALE_OF.get(unicodedata.normalize("NFKC", key))


# what follows 万, 千 in a unit that is no unit of its own counted in thousands (千分之 is ‰)
_NO_BASE = frozenset(("分之", "分比", "分率"))


def family(unit: str) -> int | None:
    """Which of `SCALES`' families the unit `unit` (normalised) is in, the units `scale`
    converts between (年 and ``months``; 天 and ``h``); None when it is in none."""
    found = _scale_of(unit)
    return found[0] if found else None


def unit_word(word: str) -> bool:
    """Whether `word`, the last of a header, is its unit: one `UNIT_GROUPS` knows written with
    a symbol (``°C``, ``mm/s``, ``%``) or a short abbreviation (``bar``, ``kPa``, ``rpm``);
    not a word of the name (``Running hours``, ``Rain days``, ``Pressure min``) or a letter
    (``Zone C``, ``Pump A``)."""
    key = word.casefold()
    if key not in GROUP_OF:
        return False
    return not key.isalpha() or (1 < len(key) <= 4 and GROUP_OF[key] not in TIME_GROUPS)


def unit_group(unit: str) -> int | None:
    """Which of `UNIT_GROUPS` `unit` (normalised) is in; None for a spelling not known."""
    return GROUP_OF.get(unit.casefold())


# the word a Chinese sentence says a unit of time (or area) in, by its group (2年 = 24个月, not
# ``24 months``); a unit no word here names (℃, mm, kPa) is said as written
ZH_UNIT_WORDS = ("秒", "分钟", "小时", "天", "周", "个月", "年", "公顷")


def chinese_unit(unit: str) -> str:
    """`unit` as a Chinese sentence says it (``months`` and 月 → 个月, ``h`` → 小时, ``days``
    → 天); `unit` itself when `ZH_UNIT_WORDS` names none of its group (℃, mm)."""
    group = unit_group(unit.strip())
    return next((w for w in ZH_UNIT_WORDS if group is not None and GROUP_OF[w] == group), unit)


def bare_degrees(unit: str) -> bool:
    """Whether `unit` is ``degrees`` with no scale named (`BARE_DEGREES`)."""
    return unit.casefold() in BARE_DEGREES


def degrees_fit(column: str) -> bool:
    """Whether a number in bare degrees is a value of a column in unit `column`: one whose
    unit is a temperature in degrees (℃, °F)."""
    return unit_group(column) in TEMPERATURE_GROUPS


# What a value in a unit can be at all, as (lowest, highest) in that unit: no temperature is
# below absolute zero, a share in % lies in 0–100 (‰: 0–1000), and a duration, a length, a
# mass, a volume, an area or a speed is not negative. A value beyond is a typo or a wrong
# field (湿度 130%, -300度), refused by `kbtools.decision.given.impossible` rather than
# answered from the last row; a column whose own bounds go beyond (``>100`` in a growth-rate
# %) takes what its author wrote. Units not listed (pressure, which a vacuum makes negative,
# voltage, current) are not judged.
_NOT_NEGATIVE = ("s", "min", "刻钟", "h", "d", "week", "month", "year", "mm", "cm", "m", "km", "mg",
                 "g", "斤", "kg", "t", "ml", "l", "亩", "公顷", "m2", "cm2", "mm2", "km2", "m3",
                 "cm3", "rpm", "mm/s", "in/s", "gpm", "cfm")
LIMITS: dict[int, tuple[float, float]] = {
    GROUP_OF["℃"]: (-273.15, float("inf")), GROUP_OF["°f"]: (-459.67, float("inf")),
    GROUP_OF["开尔文"]: (0.0, float("inf")), GROUP_OF["%"]: (0.0, 100.0),
    GROUP_OF["‰"]: (0.0, 1000.0),
    **{GROUP_OF[u]: (0.0, float("inf")) for u in _NOT_NEGATIVE},
}


def limits(unit: str) -> tuple[float, float] | None:
    """(lowest, highest) a value in `unit` (normalised) can take (`LIMITS`); None when its
    unit is not judged."""
    group = unit_group(unit)
    return LIMITS.get(group) if group is not None else None
