"""Chinese numerals as decimal numbers: ``二十六`` → ``26``, ``两千`` → ``2000``, ``十五点五`` →
``15.5``, ``一万零五百`` → ``10500``.

Only a numeral written the one standard way is read (`chinese_number`): the value is worked
out, written back in standard form, and must give the numeral as written. So ``三四`` (three
or four), ``二三十`` (twenty or thirty), ``二十五六`` and ``一万五`` (colloquial for 15000) are
no numbers: a reader leaves them unread rather than guess. ``两`` is read as ``二``, ``〇`` as
``零``; values reach 99,999,999 (``亿`` is not read).

Pure: imports nothing from kbtools.
"""

from __future__ import annotations

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
