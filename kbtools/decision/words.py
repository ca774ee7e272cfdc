"""Comparisons and ranges written in words, Chinese or English (``不低于30``, ``below 150``,
``150 to 170``, 介于150和170之间), and `symbolic`, which writes a cell of them in its symbol
form (``≥30``, ``<150``, ``150~170``) for `kbtools.decision.conditions` to read; the words
that bound a number without saying how (20多度: `ROUGH_AFTER`). Pure: imports
`kbtools.decision.units`.
"""

from __future__ import annotations

import re

from kbtools.decision.units import bare_degrees, unit_group, unit_symbols

# Comparisons and ranges written in words, read as the symbol forms (``不低于30`` is ``≥30``,
# ``below 150`` is ``<150``, ``150 to 170`` is ``150~170``): longest words first, matched
# case-insensitively and only when a number follows (a prefix) or precedes (a suffix) them.
WORD_PREFIXES: tuple[tuple[str, str], ...] = tuple(sorted((
    *((w, "<") for w in ("低于", "小于", "少于", "不足", "不到", "未满", "不满", "未达", "未到", "below",
                         "under", "less than", "lower than", "fewer than")),
    *((w, "≤") for w in ("小于等于", "小于或等于", "不高于", "不大于", "不超过", "不多于", "最多",
                         "至多", "最高", "最大", "不超", "at most", "up to", "no more than",
                         "not more than", "not above", "not over", "no higher than",
                         "not exceeding", "less than or equal to", "equal to or less than",
                         "up to and including", "max", "max.", "maximum")),
    *((w, ">") for w in ("高于", "大于", "超过", "多于", "超", "逾", "above", "over", "more than",
                         "greater than", "higher than", "exceeding")),
    *((w, "≥") for w in ("大于等于", "大于或等于", "不低于", "不小于", "不少于", "至少", "最少",
                         "最低", "最小", "at least", "no less than", "not less than",
                         "not below", "not under", "no lower than", "greater than or equal to",
                         "equal to or greater than", "equal to or more than", "min", "min.",
                         "minimum")),
), key=lambda wo: -len(wo[0])))
WORD_SUFFIXES: tuple[tuple[str, str], ...] = tuple(sorted((
    *((w, "≥") for w in ("or more", "or above", "or higher", "or greater", "or over", "or longer",
                         "and above", "and over", "and up", "+", "minimum", "at minimum")),
    *((w, "≤") for w in ("以内", "or less", "or below", "or lower", "or fewer", "or under", "or shorter",
                         "and below", "and under", "max", "max.", "maximum", "at most",
                         "at maximum")),
    # above and below as such, as ``above``/``below`` before a number (以上 and 以下 include
    # their number by Chinese convention: `conditions`)
    ("之上", ">"), ("之下", "<"),
), key=lambda wo: -len(wo[0])))
# The words that bound a number without a comparison one can state (20多度, 20余天, 二十来度,
# 20度出头, 接近30度, 将近, 快到; 从 starts a change or a span, 从18度升到25度): the number is
# no exact value and no interval, so a caller's value with one is no number
# (`kbtools.decision.conditions`: 20多度 is not 20) and a question's leaves its input missing
# (`kbtools.query.values`)
ROUGH_BEFORE = ("接近", "将近", "快到", "从")
ROUGH_AFTER = ("出头", "多", "余", "几", "来")
# what the number before 之间 and the one after a joiner make a range of (介于22和25度之间, 在22与25度
# 之间, 22到25度之间: ``between 22 and 25``); without 之间 or 介于, 22和25度 lists two values
ZH_BETWEEN = (("介于", "之间"), ("介于", "中间"), ("介于", ""), ("在", "之间"), ("在", "中间"),
              ("", "之间"), ("", "中间"))
RANGE_ENDS = tuple(sorted({end for _, end in ZH_BETWEEN if end}))  # words ending a range: 之间
ZH_JOINERS = ("和", "与", "跟", "及", "到", "至", "-", "~", "〜", "–", "—")
# Comparison symbols as writers also type them: the two characters the other way round
# (``=>3``, ``=<3``), apart (``> = 3``), equality doubled (``==3``); each read as its symbol
# next to a number. A leading ``=`` then is equality (``=3`` is the number 3).
OPERATOR_SPELLINGS: tuple[tuple[str, str], ...] = (
    ("=>", "≥"), ("=<", "≤"), ("> =", "≥"), ("< =", "≤"), ("==", "="))
# words that make a number an approximate value (大约90%, 90%左右, 近90%, ``about 90%``,
# ``approx. 90%``, ``~90%``, ``90% or so``): read as the value, marked approximate so an
# answer says so (a question's: `kbtools.query.values`; a caller's input:
# `kbtools.decision.given`). Before it (a Latin one as a whole word; filler words may stand
# between: 大约是90%, 大概在90%), and after it and its unit. 近 only as a word of its own:
# 接近, 将近 (``nearly``) are bounds (`BOUND_BEFORE`), 最近3天 and 附近 name no amount
APPROX_BEFORE = ("大约", "大概", "大致", "约为", "约莫", "约合", "约", "差不多", "估计", "近", "~", "≈",
                 "about", "around", "approximately", "approx", "apprx", "roughly", "circa",
                 "ca", "estimated", "est", "some")
APPROX_AFTER = ("左右", "上下", "前后", "or so", "or thereabouts", "give or take", "-ish", "ish",
                "approximately", "approx", "roughly")
# abbreviations of APPROX_BEFORE written with a period (``approx. 90%``, ``ca. 90%``): the
# period is dropped by `compact`, as it is no sentence end (``at 20 C. 90% humidity``)
APPROX_ABBREVIATIONS = ("approx", "apprx", "ca", "est")
RANGE_WORDS = ((("between ", " and "), ("from ", " to "), ("", " to "), ("", " through "),
                ("", " thru ")))


def symbolic(text: str) -> str:
    """A normalised cell with a comparison or range written in words in its symbol form
    (``不低于 30℃`` → ``≥30℃``, ``140 °F or more`` → ``≥140 °F``, ``between 150 and 170``
    → ``150~170``, ``=> 3`` → ``≥ 3``, ``= 3`` → ``3``: `OPERATOR_SPELLINGS`); any other
    text as it is."""
    text = operators(text)
    if text[:1] == "=" and starts_number(text[1:]):
        return text[1:].strip()
    # only the words that start (end) with the text's first (last) letter can match: a
    # table's every cell comes here, and trying each word was most of chunking a long table
    for word, op in _PREFIXES_BY_FIRST.get(text[:1].casefold()[:1], ()):
        if text[:len(word)].casefold() == word and starts_number(text[len(word):]):
            return op + text[len(word):].strip()
    for word, op in _SUFFIXES_BY_LAST.get(text[-1:].casefold()[-1:], ()):
        if text[len(text) - len(word):].casefold() == word and \
                starts_number(core := text[:len(text) - len(word)]):
            return op + core.strip()
    lead = _LEAD_NUMBER.match(text)
    rest = text[lead.end():] if lead else ""
    # before the unit: ``25+ C``, ``4 or more days``
    for word, op in _SUFFIXES_BY_FIRST.get(rest[:1].casefold()[:1], ()):
        unit = rest[len(word):]
        if rest[:len(word)].casefold() == word and _unit_only(unit) and \
                not (word[-1:].isalpha() and unit[:1].isalpha()):  # (not the min of minutes)
            return f"{op}{lead.group(1) if lead else ''}{unit}"
    for start, end in ZH_BETWEEN if not text.isascii() else ():
        core = text[len(start):len(text) - len(end)].strip()
        if (start or end) and text.startswith(start) and text.endswith(end) and \
                starts_number(core):
            for joiner in ZH_JOINERS:
                at = core.find(joiner, 1)
                if at > 0 and starts_number(core[at + len(joiner):]):
                    return f"{core[:at].strip()}~{core[at + len(joiner):].strip()}"
    key = text.casefold()
    if len(key) == len(text):  # the English range words (16 to 18°C): where casefold keeps
        # the positions
        for start, middle in RANGE_WORDS:
            at = key.find(middle, len(start))
            if key.startswith(start) and at >= 0 and starts_number(text[len(start):at]):
                return f"{text[len(start):at].strip()}~{text[at + len(middle):].strip()}"
    return text


_LEAD_NUMBER = re.compile(r"\s*([+-]?\d[\d,]*(?:\.\d+)?)\s*")  # the number a text starts with


def _by_letter(words: tuple[tuple[str, str], ...], at: int) -> dict[str, tuple[tuple[str, str], ...]]:
    """`words` grouped by their letter at `at` (0: first, -1: last), each group in the
    order of `words` (longest first)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for word, op in words:
        groups.setdefault(word[at], []).append((word, op))
    return {letter: tuple(group) for letter, group in groups.items()}


_PREFIXES_BY_FIRST = _by_letter(WORD_PREFIXES, 0)
_SUFFIXES_BY_LAST = _by_letter(WORD_SUFFIXES, -1)
_SUFFIXES_BY_FIRST = _by_letter(WORD_SUFFIXES, 0)


def _unit_only(text: str) -> bool:
    """Whether `text` is a unit the tables know (`units.UNIT_GROUPS`, ``degrees``), as after a
    bound word before it (`` C``, `` days``, 度; not ``items`` of ``1 or more items``)."""
    text = unit_symbols(text.strip()).casefold()
    return unit_group(text) is not None or bare_degrees(text)


def operators(text: str) -> str:
    """`text` with each of `OPERATOR_SPELLINGS` that a number follows or ends before written
    as its symbol (``v => 2.8`` → ``v ≥ 2.8``, ``4 =< v`` → ``4 ≤ v``); an arrow between
    words (``A => B``) is left as it is."""
    for spelled, op in OPERATOR_SPELLINGS:
        at = text.find(spelled)
        while at >= 0:
            if starts_number(text[at + len(spelled):]) or \
                    text[:at].rstrip()[-1:].isdigit():  # 4 =< v
                text = text[:at] + op + text[at + len(spelled):]
            at = text.find(spelled, at + 1)
    return text


def starts_number(text: str) -> bool:
    """Whether `text` (stripped) starts with a digit, or a sign and a digit."""
    head = text[:64].lstrip()
    return head[:1].isdigit() or (head[:1] in "+-" and head[1:2].isdigit())
