"""The units decision tables know, by what they measure: which spellings are one unit
(``m²``, ``㎡``, ``m2``, ``平方米``), which words multiply a number rather than name its unit
(``万``, ``k``), and which words a header may end its name with to name its unit (``…小时``).

Units are ignored, never converted (`kbtools.decision.conditions`); these lists say only
when two spellings are known to be the same unit or known to differ. Pure: imports nothing.
"""

from __future__ import annotations

# Units an input may name, by what they measure: two of one group are the same unit, two of
# different groups are not (an input in °F against a ℃ column, weeks against days). Any
# other spelling is not judged: units are ignored, not converted (the module docstring).
UNIT_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in (
    {"℃", "°c", "c", "度", "摄氏度"}, {"℉", "°f", "f", "华氏度"}, {"开尔文"},
    {"%", "百分比", "percent"}, {"‰"},
    {"s", "sec", "秒"}, {"min", "分钟", "分"}, {"h", "hr", "hrs", "hour", "hours", "小时", "时"},
    {"d", "day", "days", "天", "日"}, {"周", "星期", "week", "weeks", "wk", "wks"},
    {"月", "个月", "month", "months"}, {"年", "year", "years", "yr", "yrs"},
    {"mm", "毫米"}, {"cm", "厘米"}, {"m", "米"}, {"km", "公里", "千米"},
    {"g", "克"}, {"kg", "千克", "公斤"}, {"斤"}, {"t", "吨"}, {"mg", "毫克"},
    {"ml", "毫升"}, {"l", "升"}, {"亩"}, {"公顷", "ha"},
    {"m2", "平方米", "平米", "sqm"}, {"cm2", "平方厘米"}, {"mm2", "平方毫米"},
    {"km2", "平方公里", "平方千米"}, {"m3", "立方米", "方"}, {"cm3", "立方厘米", "cc"},
    {"pa"}, {"kpa", "千帕"}, {"mpa", "兆帕"}, {"bar"}, {"psi", "psig"}, {"psia"},
    {"v", "伏", "volt", "volts"}, {"kv", "千伏"}, {"mv", "毫伏"}, {"a", "安", "amp", "amps"},
    {"w", "瓦"}, {"kw", "千瓦"}, {"hp", "horsepower"}, {"rpm", "转/分", "r/min"},
    {"in/s", "ips"}, {"mm/s"}, {"gpm"}, {"cfm"}, {"cal/cm2", "cal/cm²"},
))
GROUP_OF = {unit: i for i, group in enumerate(UNIT_GROUPS) for unit in group}
TIME_GROUPS = frozenset(GROUP_OF[u] for u in ("s", "min", "h", "d", "week", "month", "year"))
# what multiplies a number rather than naming its unit ("2万" hours is 20,000, not 2)
MAGNITUDES = frozenset("十百千万亿兆成") | {"k", "w"}  # 9成 is 90%, not 9
MAGNITUDE_WORDS = ("thousand", "million", "billion", "hundred", "dozen")  # 2 thousand is no 2
# a header that names its unit in its last words: 运行小时 counts hours, 连续降雨天数 days
# units a header may end with glued to its name (温度℃, 湿度%): symbols, never letters
GLUED_UNITS = ("°c", "°f", "℃", "℉", "%", "‰")
NAMED_UNITS = (("小时数", "小时"), ("小时", "小时"), ("天数", "天"), ("日数", "天"),
               ("分钟数", "分钟"), ("分钟", "分钟"), ("周数", "周"), ("月数", "月"), ("年数", "年"))


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
