"""Chinese numerals as decimal numbers: ``二十六`` → ``26``, ``两千`` → ``2000``, ``十五点五`` →
``15.5``, ``一万零五百`` → ``10500``.

Only a numeral written the one standard way is read (`chinese_number`): the value is worked
out, written back in standard form, and must give the numeral as written. So ``三四`` (three
or four), ``二三十`` (twenty or thirty), ``二十五六`` and ``一万五`` (colloquial for 15000) are
no numbers: a reader leaves them unread rather than guess. ``两`` is read as ``二``, ``〇`` as
``零``; values reach 99,999,999 (``亿`` is not read).

English number words as numbers (`english_number`): ``four`` → ``4``, ``twenty-four`` →
``24``, ``two thousand one hundred`` → ``2100``, ``a hundred and twenty`` → ``120``, ``twenty
five hundred`` → ``2500``; words in an order no number is said in (``two four``, ``hundred
hundred``) are none, and `spell_numbers` writes the words of a text that are a number in
digits where a test says the number is a value there (a unit follows it).

A share said in tenths as a percentage (`tenths`, `tenths_as_percent`: 九成 is 90%, 八成五
85%, 八到九成 80%到90%) and a numeral written with Arabic digits between its units as its
value (`mixed_numbers`, `read_mixed`: 2万5千 is 25000), for table cells, a caller's inputs
and a question's numbers alike.

Pure: imports nothing from kbtools.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

DIGITS = "零一二三四五六七八九"
UNITS = {"十": 10, "百": 100, "千": 1000}
NUMERAL_CHARS = frozenset(DIGITS + "两〇十百千万点")  # what a numeral may be written with
_SAME = str.maketrans({"两": "二", "〇": "零"})


def chinese_number(numeral: str) -> str | None:
    """The numeral's value as a decimal string (``"26"``, ``"15.5"``), or None when it is not
    a numeral written the standard way (see the module doc)."""
    text = numeral.translate(_SAME)
    whole, dot, fraction = text.partition("点")
    if not whole or (dot and (not fraction or any(ch not in DIGITS for ch in fraction))):
        return None
    value = _value(whole)
    if value is None or value >= 10 ** 8 or _written(value) != whole:
        return None
    return f"{value}.{''.join(str(DIGITS.index(ch)) for ch in fraction)}" if dot else str(value)


def _value(text: str) -> int | None:
    """The value of a whole numeral read digit by unit (right only for the standard form,
    which `chinese_number` checks by writing the value back)."""
    total = section = digit = 0
    for ch in text:
        if ch in DIGITS:
            digit = DIGITS.index(ch)
        elif ch in UNITS:
            section += (digit or 1) * UNITS[ch]
            digit = 0
        elif ch == "万":
            total, section, digit = (section + digit) * 10_000, 0, 0
        else:
            return None
    return total + section + digit


def _written(n: int) -> str:
    """`n` (0 ≤ n < 10⁸) as a Chinese numeral in the standard form: 十五, 一百一十五, 一千零五,
    二万, 一万零五百."""
    if n == 0:
        return "零"
    high, low = divmod(n, 10_000)
    if not high:
        return _below_10k(low, leading=True)
    rest = ("零" if low < 1000 else "") + _below_10k(low, leading=False) if low else ""
    return _below_10k(high, leading=True) + "万" + rest


def _below_10k(n: int, *, leading: bool) -> str:
    """1 ≤ n < 10⁴: one 零 for any run of missing places between digits; 十 alone for 1x
    when it leads the numeral (十五, but 一百一十五)."""
    out: list[str] = []
    gap = False
    for size, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // size % 10
        if not d:
            gap = bool(out)
            continue
        if gap:
            out.append("零")
            gap = False
        out.append(unit if size == 10 and d == 1 and leading and not out else DIGITS[d] + unit)
    return "".join(out)


# two neighbouring digits said together, "three or four" (三四天, 两三个小时, 七八成, 二十五六度,
# 三四十公斤): no numeral `chinese_number` reads, but a rough value within the span it says
_ROUGH_PAIR = re.compile(r"(?<![零〇一二两三四五六七八九十百千万点])((?:[二三四五六七八九]?十)?)"
                         r"(一两|两三|二三|三四|四五|五六|六七|七八|八九)([十百千万]?)"
                         r"(?![零〇一二两三四五六七八九十百千万点])")


def rough_pairs(text: str, counts: Callable[[str], bool]) -> list[tuple[int, int, str]]:
    """(start, end, the span it says) of each numeral of `text` that is two neighbouring
    digits (see above) followed by what `counts` (given what follows the numeral) takes for a
    unit or a measure word, or after 百分之: 三四天 → 三到四, 二十五六度 → 二十五到二十六,
    三四十公斤 → 三十到四十, 七八成 → 七到八, 百分之八九十 → 八十到九十. Not 十一两 (eleven liang), nor a pair in a longer run
    (一二三四)."""
    out = []
    for m in _ROUGH_PAIR.finditer(text):
        tens, pair, times = m.groups()
        if (tens and (times or pair == "一两")) or not (
                counts(text[m.end():]) or text.endswith(PERCENT_SAID, 0, m.start())):
            continue
        low, high = pair[0], pair[1]
        read = f"{low}{times}到{high}{times}" if times else f"{tens}{low}到{tens}{high}"
        out.append((m.start(), m.end(), read))
    return out


PERCENT_SAID = "百分之"  # a share said before its number
# a share said 百分之 before a range of numerals or a rough pair (百分之八十到九十, 百分之八十到
# 百分之九十, 百分之八九十): the range or pair, with its % after it
_PERCENT_SAID = re.compile(r"百分之([零〇一二两三四五六七八九十百千点]+)(?:([到至~〜\-–—])(?:百分之)?"
                           r"([零〇一二两三四五六七八九十百千点]+))?")


def percent_ranges(text: str) -> str:
    """`text` with each share said 百分之 before a range of numerals written as that range
    followed by % (百分之八十到九十 and 百分之八十到百分之九十 as 八十到九十%, 百分之八九十 as
    八九十%, which `rough_pairs` reads as 八十到九十%), as a range with its unit after it is
    read; a share of one numeral (百分之八十) as it is."""
    def said(m: re.Match[str]) -> str:
        first, joiner, last = m.groups()
        if joiner and chinese_number(first) is not None and chinese_number(last) is not None:
            return f"{first}{joiner}{last}%"
        if not joiner and chinese_number(first) is None and _ROUGH_PAIR.fullmatch(first):
            return f"{first}%"
        return m.group()
    return _PERCENT_SAID.sub(said, text) if "百分之" in text else text


# English number words: below twenty, the tens, and the multipliers
EN_SMALL = {w: n for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"))}
EN_TENS = {w: 10 * n for n, w in enumerate(
    ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), start=2)}
EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
# a word of a number, or ``a`` before a multiplier (``a hundred``) and ``and`` after one
# (``one hundred and twenty``), each with where it ends: joined by a space or a hyphen
_EN_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
# no number is said in more words than this (nine hundred and ninety-nine thousand nine
# hundred and ninety-nine: 12); a longer run is read no further
EN_MAX_WORDS = 12


def english_number(words: list[str]) -> str | None:
    """The value of number words `words` (lower case) as a decimal string, or None when they
    are no number said so (see the module doc): ``and`` only after a multiplier and before
    more words, ``a`` only before one."""
    total = current = 0  # (the millions and thousands said, the number below them)
    last = ""  # what the word before was: small, tens, unit (of a tens), hundred, scale, a, and
    for n, word in enumerate(words):
        if word in EN_SMALL:
            if last not in ("", "hundred", "scale", "and") and \
                    not (last == "tens" and EN_SMALL[word] < 10 and EN_SMALL[word]):
                return None
            current += EN_SMALL[word]
            last = "unit" if last == "tens" else "small"
        elif word in EN_TENS:
            if last not in ("", "hundred", "scale", "and"):
                return None
            current += EN_TENS[word]
            last = "tens"
        elif word == "hundred":
            if last == "a":
                current = 1
            if not 0 < current < 100 or last not in ("small", "tens", "unit", "a"):
                return None
            current *= 100
            last = "hundred"
        elif word in EN_SCALES:
            if last == "a":
                current = 1
            size = EN_SCALES[word]
            if not current or last in ("scale", "and") or (total and total < size * 1000):
                return None  # (two thousand three thousand, a million thousand)
            total, current, last = total + current * size, 0, "scale"
        elif word == "a" and n == 0 and len(words) > 1:
            last = "a"
        elif word == "and" and last in ("hundred", "scale") and n + 1 < len(words):
            last = "and"
        else:
            return None
    return str(total + current) if last not in ("", "a", "and") else None


def spell_numbers(text: str, is_value: Callable[[str], bool]) -> str:
    """`text` with each run of English number words written in digits (``four days`` → ``4
    days``) when `is_value` says what follows the run makes it a value (a unit after it), or
    it joins another number so (``ten to 20 hours``: a span's end, read as the span it is).
    Words that are no number, and number words followed by anything else (``one of the
    vents``, ``temperature twenty``), are left as written. Each run is the longest words from
    its start that are a number (``ten and twenty``: ten, then twenty)."""
    for _ in range(2):  # ten to twenty hours: twenty first, then ten before its 20
        out, at = [], 0
        words = list(_EN_WORD.finditer(text))
        n = 0
        while n < len(words):
            run = _number_run(text, words, n)
            if run is None:
                n += 1
                continue
            end, value = run
            stop = words[end - 1].end()
            rest = text[stop:]
            if is_value(rest) or _JOINED.match(rest):
                out += [text[at:words[n].start()], value]
                at = stop
            n = end
        text = "".join(out) + text[at:]
    return text


# a number word before a span or list word and a digit (``ten to 20``, ``four or 5``)
_JOINED = re.compile(r" (?:to|and|or|through|thru) -?\d")


def _number_run(text: str, words: list[re.Match[str]], n: int) -> tuple[int, str] | None:
    """The longest run of words from `words[n]` that is a number (`english_number`), joined
    by one space or hyphen and no Latin letter or digit glued to either end (a Chinese
    character may be: 液压油two thousand hours), as (the index after its last word, its
    value); None when there is none, or when `words[n]` follows a number word (the four of
    ``two four days``: the rest of words that are no number, not a number of its own)."""
    first = words[n]
    before = text[first.start() - 1] if first.start() else ""
    if before.isascii() and before.isalnum() or before in ("-", "'") or \
            n and words[n - 1].group().lower() in _EN_NUMBER_WORDS | {"point"} and \
            text[words[n - 1].end():first.start()] in (" ", "-"):
        return None  # inside a word, the rest of number words that are no number, or the
        # decimals of one (ninety-nine point five: not read, no 5)
    best = None
    end = n
    while end < min(len(words), n + EN_MAX_WORDS) and \
            words[end].group().lower() in _EN_VOCABULARY and \
            (end == n or text[words[end - 1].end():words[end].start()] in (" ", "-")):
        end += 1
        value = english_number([w.group().lower() for w in words[n:end]])
        after = text[words[end - 1].end():words[end - 1].end() + 1]
        if value is not None and not (after.isalnum() or after in "-'" and after) and \
                not text.startswith(" point ", words[end - 1].end()):
            best = (end, value)
    return best


_EN_NUMBER_WORDS = frozenset((*EN_SMALL, *EN_TENS, *EN_SCALES))
_EN_VOCABULARY = _EN_NUMBER_WORDS | {"a", "and"}


# 成 says tenths of a whole, as a field user says a share (湿度九成 is 90%, 八成五 85%, 9成以上
# ≥90%): a whole number up to 10 (or one with one decimal, 8.5成) before it, one more digit
# after it for the hundredths' tens (八成五). Not the 成 of a word it starts (一成不变, 成本,
# 成熟, 成虫: the character after it), nor one a longer number leads (100成).
TENTHS_MARK = "成"
_TENTHS_WORDS = frozenset("不为本功熟虫立员分绩果品都形型活株年交效长像套批组对片堆块团")
_TENTH_DIGITS = "0123456789" + DIGITS


def tenths(number: str, rest: str) -> tuple[str, int] | None:
    """(the percentage `number` 成 says, how many characters of `rest` say it) when `rest`
    starts with 成 and an optional tenth digit (Arabic or a Chinese one: ``成五``; ``成半``
    is 成五); None when
    it does not, or `number` (decimal digits) is no share in tenths."""
    if not rest.startswith(TENTHS_MARK) or not re.fullmatch(r"10|\d(?:\.\d)?", number):
        return None
    digit = rest[1:2]
    if digit and digit in _TENTH_DIGITS:  # 八成五; not 9成50, 8.5成5: no share said so
        if "." in number or rest[2:3] and rest[2:3] in _TENTH_DIGITS + ".%十百千万点":
            return None
        used, tenth = 2, _TENTH_DIGITS.index(digit) % 10
    elif digit == "半" and "." not in number:  # 八成半: 85%, not 80% and a 半 of nothing
        used, tenth = 2, 5
    elif digit and digit in _TENTHS_WORDS:
        return None  # 一成不变, 三成本
    else:
        used, tenth = 1, 0
    value = float(number) * 10 + tenth
    if value > 100:
        return None
    return (str(int(value)) if value.is_integer() else str(round(value, 6))), used


_TENTHS_AT = re.compile(rf"(?<![\d.])(10|\d(?:\.\d)?)(?={TENTHS_MARK})")


def _span_start(m: re.Match[str], text: str) -> str:
    """The first end of a span `_TENTHS_SPAN` found as the share it says when the span's
    other end says one in tenths (8到9成: 80%到; not 8到9成本)."""
    other = _TENTHS_AT.match(text, m.end())
    first = tenths(m.group(1), TENTHS_MARK)
    if other is None or first is None or tenths(other.group(1), text[other.end():]) is None:
        return m.group(0)
    return f"{first[0]}%{m.group(2)}"


# the first end of a span of shares in tenths (8到9成, 七至八成: 80% to 90%); not the tenth
# digit of a share before it (the 5 of 八成五到九成五 is 85%'s)
_TENTHS_SPAN = re.compile(rf"(?<![\d.{TENTHS_MARK}])(10|\d(?:\.\d)?)\s*([到至~〜\-–—]\s*)"
                          rf"(?=(?:10|\d(?:\.\d)?){TENTHS_MARK})")


def tenths_as_percent(text: str) -> str:
    """`text` (its numerals in digits) with each share said in tenths written as a percentage
    (``9成以上`` → ``90%以上``, ``8成5`` → ``85%``; `tenths`)."""
    if TENTHS_MARK not in text:
        return text
    text = _TENTHS_SPAN.sub(lambda m: _span_start(m, text), text)
    out, at = [], 0
    for m in _TENTHS_AT.finditer(text):
        said = tenths(m.group(1), text[m.end():m.end() + 3])
        if said is not None and m.start() >= at:
            out += [text[at:m.start()], said[0], "%"]
            at = m.end() + said[1]
    return "".join(out) + text[at:]


# A numeral written with Arabic digits between its units (2万5千, 1千9百, 12万3千, 2万五千): the
# digits respelled as Chinese numerals, it is read when that is the standard form (二万五千 is
# 25000); 1万5 (colloquial for 15000, 一万五) is none, as 一万五 is none. Not a unit that
# begins with 千, 百 or 万 (千克, 千米, 千瓦, 百分之: 2千克 is 2 kg); a decimal before a unit
# (2.5万) is `magnified`'s.
_MIXED = re.compile(r"(?<![\d.,])(?:\d+|[零〇一二两三四五六七八九])"
                    r"(?:[十百千万](?![克米瓦帕伏焦卡分兆吨])(?:\d+|[零〇一二两三四五六七八九])?)+"
                    r"(?![\d.]|,\d)")


_DIGIT_RUN = re.compile(r"\d+|[零〇一二两三四五六七八九]")


def mixed_numbers(text: str) -> list[tuple[int, int, str]]:
    """Each numeral of `text` written with Arabic digits between its units, as (start, end,
    its value as decimal digits); those that are no standard numeral are not listed."""
    out = []
    for m in _MIXED.finditer(text) if any(ch in "十百千万" for ch in text) else ():
        run = m.group(0)
        if not any(ch.isdigit() for ch in run) or len(_DIGIT_RUN.findall(run)) < 2:
            continue  # 二万五千: `chinese_number`'s; 2万 alone: a multiplier, as before
        spelled = re.sub(r"\d+", lambda d: _written(int(d.group(0))) if 0 < int(d.group(0))
                         < 10_000 else "?", run)
        value = chinese_number(spelled)
        if value is not None:
            out.append((m.start(), m.end(), value))
    return out


def read_mixed(text: str) -> str:
    """`text` with each numeral of `mixed_numbers` written as its value (``2万5千`` →
    ``25000``); the rest as it is."""
    found = mixed_numbers(text)
    for start, end, value in reversed(found):
        text = text[:start] + value + text[end:]
    return text


# A number times 万, 亿, 千 or 百, as Chinese writes amounts (``1.5万以上`` is ≥15000, ``2万-3万
# h`` 20000-30000 h, ``3千小时`` 3000 hours): read as its value, in a table cell, a caller's
# input and a question's value alike. Not a unit that begins with the character (千克, 千米,
# 千瓦, 千帕, 千分之, 百分之: 3千克 is 3 kg), nor digits after it (2万5千 is `read_mixed`'s; 1万5,
# colloquial for 15000, is read by neither). Other magnitudes (k, w, 成 aside) are refused
# (`column_units.magnitude_unit`): k also begins kg, K is kelvin, w is also watts.
_MAGNIFIED = re.compile(r"(?<![\d.,])([+-]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?)\s*+"
                        r"(万亿|万|亿|千(?![克米瓦帕伏焦卡兆吨]|分[之比率])|百(?!分[之比率点]))"
                        r"(?![\d零〇一二两三四五六七八九十百千])")
MAGNITUDE_TIMES = {"万": 10 ** 4, "亿": 10 ** 8, "万亿": 10 ** 12, "千": 10 ** 3, "百": 10 ** 2}
MAGNITUDE_CHARS = "万亿千百"  # what `magnified` reads after a number


def magnified_numbers(text: str) -> list[tuple[int, int, str]]:
    """Each number of `text` times 万, 亿, 千 or 百 (`_MAGNIFIED`), as (start, end, its value
    as decimal digits)."""
    if not any(ch in text for ch in MAGNITUDE_CHARS):
        return []
    return [(m.start(), m.end(), _times(m)) for m in _MAGNIFIED.finditer(text)]


def magnified(text: str) -> str:
    """`text` with each number followed by 万, 亿, 千 or 百 written as its value (``1.5万`` →
    ``15000``, ``1,000万`` → ``10000000``, ``3千小时`` → ``3000小时``; not ``3千克``)."""
    for start, end, value in reversed(magnified_numbers(text)):
        text = text[:start] + value + text[end:]
    return text


def _times(m: re.Match[str]) -> str:
    value = Decimal(m.group(1).replace(",", "")) * MAGNITUDE_TIMES[m.group(2)]
    return str(int(value)) if value == value.to_integral_value() else format(value.normalize(), "f")


# Half a unit of time as said (两个半小时 is 2.5 hours, 1天半 1.5 days, 半小时 0.5 hours, 半个月
# half a month): the number with its half, in the unit. Not 上半年, 下半天, 前半月 (a half of the
# year, no length), nor a half before more digits (1天半3小时).
_HALF_UNITS = "小时|钟头|分钟|刻钟|天|日|周|星期|个月|月|年"
_HALF_AFTER = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)(?:个半(个)?({_HALF_UNITS})|"
                         rf"({_HALF_UNITS})半)(?![\d零〇一二两三四五六七八九十])")
_HALF_ALONE = re.compile(rf"(?<![\d.上下前后多大小])半个?({_HALF_UNITS})")


def halves(text: str) -> str:
    """`text` with each length of time said with a half written as its number (``2个半小时``
    → ``2.5小时``, ``1天半`` → ``1.5天``, ``半小时`` → ``0.5小时``); the rest as it is."""
    if "半" not in text:
        return text
    text = _HALF_AFTER.sub(lambda m: f"{Decimal(m.group(1)) + Decimal('0.5')}"
                                     f"{m.group(3) or m.group(4)}", text)
    return _HALF_ALONE.sub(lambda m: f"0.5{m.group(1)}", text)


NUMERAL_CHARS_SET = "零〇一二两三四五六七八九十百千"  # a numeral's characters, 万 and 点 aside
# the words of a number with a half before its unit (半 of 半小时, 2个半 of 2个半小时, 两个半 of
# 两个半天), as a question says a length of time
_HALF_BEFORE = re.compile(rf"(?:(?<![\d.])(\d+(?:\.\d+)?)|(?<![{NUMERAL_CHARS_SET}])"
                          rf"([{NUMERAL_CHARS_SET}]{{1,9}}))个半"
                          rf"(?=(?:{_HALF_UNITS}))|(?<![\d.上下前后多大小个])半(?=个?(?:{_HALF_UNITS}))")


def half_numbers(text: str) -> list[tuple[int, int, str]]:
    """Each number said with a half before its unit (`halves`: ``半小时``, ``半个月``,
    ``2个半小时``, ``两个半小时``) as (start, end, its value): the words from the number to 半,
    its unit after them. Not 上半年 (a half of the year, no length)."""
    out = []
    for m in _HALF_BEFORE.finditer(text) if "半" in text else ():
        whole = m.group(1) or (chinese_number(m.group(2)) if m.group(2) else "0")
        if whole is not None:
            out.append((m.start(), m.end(), str(Decimal(whole) + Decimal("0.5"))))
    return out


# A fraction as a whole value: 三分之二 (3分之2 once its numerals are read), 2/3, ½ (1⁄2 after
# NFKC). In a column of shares (% or ‰) it is that share of the whole (2/3 is 66.666667 %);
# elsewhere 3分之2 and 1⁄2 are their value, and 2/3 is left as written (two values, or a date)
_FRACTION_SAID = re.compile(r"(\d+)分之(\d+(?:\.\d+)?)(\D*)")
_FRACTION_SLASH = re.compile(r"(\d+(?:\.\d+)?)\s*([/\u2044])\s*(\d+(?:\.\d+)?)(\D*)")
FRACTION_DIGITS = 6  # decimals a fraction's value is written with


def fraction(text: str, share: str = "") -> str:
    """`text` (a whole value, its numerals in digits) written as the number a fraction says
    (``3分之2`` → ``0.666667``, ``1⁄2小时`` → ``0.5小时``); with `share` (``%`` or ``‰``, the
    column's unit) as that share of the whole (``2/3`` → ``66.666667%``). Anything else, a
    zero denominator, and ``2/3`` outside a share column as written."""
    said = _FRACTION_SAID.fullmatch(text)
    slash = None if said else _FRACTION_SLASH.fullmatch(text)
    if slash is not None and slash.group(2) == "/" and not share:
        return text
    if said is not None:
        top, bottom, rest = Decimal(said.group(2)), Decimal(said.group(1)), said.group(3)
    elif slash is not None:
        top, bottom, rest = Decimal(slash.group(1)), Decimal(slash.group(3)), slash.group(4)
    else:
        return text
    if not bottom or rest.strip() and share:
        return text  # (2/3% is no share of 2/3)
    value = top / bottom * (1000 if share == "‰" else 100 if share else 1)
    shown = f"{value:.{FRACTION_DIGITS}f}".rstrip("0").rstrip(".")
    return f"{shown}{share}{rest}"


# a share of a whole said as a fraction in a question (湿度一半, 三分之二, 2/3, ½: 1⁄2 after
# NFKC), read as the percentage it is (50, 66.666667) where a % column may take it; not
# 百分之 or 千分之 (a percentage, a per mille: read as such), nor a fraction of a unit (1/2小时)
# or of more than the whole (3/2), nor a date's or a path's digits (2024/3/4, 1/2/3)
_SHARE_SAID = re.compile(rf"(?<![\d.\u2044/分{NUMERAL_CHARS_SET}])(?:(一半)|([\d{NUMERAL_CHARS_SET}]+)分之"
                         rf"([\d{NUMERAL_CHARS_SET}]+)|(\d+)\s*[/\u2044]\s*(\d+))(?![\d.\u2044/])")


def shares_said(text: str) -> list[tuple[int, int, str]]:
    """Each share `text` says as a fraction of a whole (`_SHARE_SAID`) as (start, end, the
    percentage it is); the reader of a question's values puts a % after it."""
    out = []
    for m in _SHARE_SAID.finditer(text):
        if m.group(1):
            out.append((m.start(), m.end(), "50"))
            continue
        whole, part = (m.group(2), m.group(3)) if m.group(2) else (m.group(5), m.group(4))
        bottom, top = (w if w.isdigit() else chinese_number(w) for w in (whole, part))
        if top is None or bottom is None or m.group(2) in ("百", "千", "万") or \
                not 0 < Decimal(top) < Decimal(bottom):
            continue
        value = f"{Decimal(top) / Decimal(bottom) * 100:.{FRACTION_DIGITS}f}"
        out.append((m.start(), m.end(), value.rstrip("0").rstrip(".")))
    return out
