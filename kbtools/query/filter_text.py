"""``--where`` filters as text: ``KEY OP VALUE`` read (`parse_where`) and written back
(`where_text`) so that what a response shows pastes back as the same filter.

A key is written as a front matter's key is named: a word in any script (``crop``,
``作物``, ``亩产-kg``), words a blank apart (``施药 时间``), or anything in quotes
(``"pH (水)"=6``). The value of ``=`` and ``!=`` may be several, separated by a comma
(``,``, ``，``), an enumeration comma (``、``) or a semicolon (``;``, ``；``): ``crop=小麦,玉米`` holds for a document of
either, ``crop!=小麦、玉米`` for one of neither; a list as front matter writes it,
``crop=[小麦, "a,b"]``, lists its items (``crop=[]`` is refused); a value that holds such a comma itself goes
in quotes (``title="小麦、玉米轮作"``). A range after ``=`` (``power=5kW..10kW``, ``5~10kW``,
``5–10kW``, ``5至10kW``, ``5 to 10 kW``: `range_ends`) reads as its two bounds, ``>=`` and ``<=``. An order (``>=``, ``<=``, ``>``, ``<``) takes one
value, as written (``price>=1,000``); an amount grouping its thousands is one value
(``price=¥1,000``, ``1,000元``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbtools.errors import FilterError, UsageError, valid_unicode
from kbtools.query.filter_bounds import (
    ABOUT_MARK,
    Converted,
    about_instead,
    an_end,
    between,
    check_day_month,
    check_range,
    date_bound,
    open_tilde,
    refuse_range,
)
from kbtools.query.filter_bounds import (  # re-exported: what a value's range or bound is
    RANGE_MARKS as RANGE_MARKS,
)
from kbtools.query.filter_bounds import Between as Between
from kbtools.query.filter_bounds import range_ends as range_ends
from kbtools.query.filter_commas import (
    DECIMAL_COMMA,
    GROUPED,
    GROUPED_AMOUNT,
    check_grouping,
    check_places,
    one_amount,
    written_in_chinese,
)
from kbtools.query.filter_commas import written_hint as written_hint  # re-exported
from kbtools.query.filter_kinds import day_month
from kbtools.query.filter_numbers import quantity, seen

# KEY: a front-matter key as a schema may declare it, in any script (作物, stage-期, crop_2),
# its words a blank apart (施药 时间), or any key in quotes ("pH (水)")
_BARE_KEY = r"[^\W\d][\w.-]*(?:[ \t]+[\w.-]+)*"
_WHERE = re.compile(r"^\s*(?:\"([^\"]+)\"|'([^']+)'|(" + _BARE_KEY + r"))"
                    r"\s*(>[ \t]*=|<[ \t]*=|![ \t]*=|=|>|<)(.*)$")  # value stripped below
_KEY = re.compile(_BARE_KEY)
# a filter typed as front matter writes its key (crop: 小麦, 作物：小麦): no operator
_COLON = re.compile(r"^\s*(?:\"([^\"]+)\"|'([^']+)'|(" + _BARE_KEY + r"))\s*[:：]\s*(\S.*)$")
MAX_WHERE_CHARS = 1000
OPERATORS = ("=", "!=", ">=", "<=", ">", "<")
OPERATORS_SHOWN = "KEY=VALUE, KEY!=VALUE, KEY>=VALUE, KEY<=VALUE, KEY>VALUE or KEY<VALUE"
OPERATOR_START = ("=", "<", ">", "!")  # a bare value starting so is a mistyped operator
SEPARATORS = ",，、;；"  # between the values of one `=` / `!=` filter: any of them (none of them)
_SEPARATOR = re.compile(f"[{SEPARATORS}]")
# "or" between two bare values of `=` / `!=` (功率=5kW或10kW, crop=小麦或者玉米, power=5kW or
# 10kW): a separator too, not where it is part of a word (或许, 或然) or a value's edge (或多或少)
_OR = re.compile(r"(?<![ \t])[ \t]+or[ \t]+|或者|或是|或(?![许然])", re.IGNORECASE)
OR_WORDS = ("或", "或者", " or ")  # as a value holding the word may have been written
_BLANKS = " \t\u3000"
# a value's quotes, opening: closing (“小麦，玉米” as a Chinese input method types "小麦，玉米")
QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
Want = str | tuple[str, ...]  # one value, or the values of `=` / `!=` any of which it means
Condition = tuple[str, str, Want]  # one filter: (key, operator, value or values)


def values_of(want: Want) -> tuple[str, ...]:
    """A filter's values: its one value, or each of those it lists."""
    return (want,) if isinstance(want, str) else want


def parse_where(items: list[str] | None) -> list[Condition]:
    """``KEY=VALUE``, ``KEY!=VALUE``, ``KEY>=VALUE``, ``KEY<=VALUE``, ``KEY>VALUE``,
    ``KEY<VALUE`` → (key, op, value); ``KEY=A,B`` (``，``, ``、``) → (key, op, (A, B)).

    What would silently match nothing is an error instead: a doubled or unknown operator
    (``crop==x``, ``crop=>x``, ``crop=<x``: the value would start with the operator's
    rest) and an empty value. A bare value loses its surrounding space. A value in matching
    quotes (``crop="小麦"``) loses them (one pair) and is taken as it is inside: its space
    and commas kept, its first character never read as an operator (``size="<1 ha"``), so
    every value can be written (`where_text`). An empty value between two commas, or after
    the last, names nothing and is left out (``crop=小麦，``)."""
    out: list[Condition] = []
    for item in items or []:
        item = _seen_unquoted(valid_unicode(str(item)))  # 功率=5\u200bkW, pasted: 功率=5kW
        m = _WHERE.match(item) if len(item) <= MAX_WHERE_CHARS else None
        if m is None and len(item) <= MAX_WHERE_CHARS:
            m = _WHERE.match(narrow_operator(item))
        elif m is not None and m.group(5).lstrip(_BLANKS)[:1] in _WIDE_OPERATOR:  # >＝, =≥
            m = _WHERE.match(item[:m.start(4)] + narrow_operator(item[m.start(4):]))
        if m is None and (worded := _worded(item)) is not None:  # 功率大于6kW, power at least 5kW
            m = _WHERE.match(worded)
        shown = item if len(item) <= 60 else item[:60] + "…"
        _check_about(shown, item, m)
        if not m and (colon := _COLON.match(item)) is not None:  # crop: 小麦, as front matter
            instead = _rewritten(colon.group(1) or colon.group(2) or colon.group(3),
                                 colon.group(4).strip())
            raise FilterError("bad", f"{shown!r}: a colon is no operator; use "
                              f"{instead} (or !=, >=, <=, >, <)",
                              key="bad_where", values={"where": shown})
        if not m and (apart := _no_operator(item)) is not None:  # power 5kW
            raise FilterError("bad", f"{shown!r}: no operator between {apart[0]} and {apart[1]}; "
                              f"use {_rewritten(*apart)} (or !=, >=, <=, >, <)",
                              key="bad_where", values={"where": shown})
        if not m:
            raise FilterError("bad", f"{shown!r}: use {OPERATORS_SHOWN} "
                              f"(at most {MAX_WHERE_CHARS} characters; a key of other "
                              "characters in quotes)",
                              key="bad_where", values={"where": shown})
        key = m.group(1) or m.group(2) or m.group(3)
        op, value = "".join(m.group(4).split()), m.group(5).strip()  # x < = 5: <=
        typed, after = _typed_operator(item, m.start(4))
        if value[:1] in OPERATOR_START:
            bad = typed if typed != op else op + value[: 1 + (value[1:2] in ("=", "<", ">"))]
            said = typed[_typed_length(typed, op):] + item[after:].strip()  # ≤0℃ of 温度=≤0℃
            meant = (f"for {said} write {key}{_WIDE_OPERATOR[said[0]]}{said[1:].strip()}, or "
                     if op == "=" and said[:1] in _WIDE_ORDERS else "")  # 温度<=0℃
            raise FilterError("bad", f"{shown!r}: {bad!r} is not an operator; {meant}use "
                              f"{OPERATORS_SHOWN.replace('KEY', key)} (a "
                              f"value that starts so goes in quotes: {key}{op}\"{said}\")",
                              key="bad_where", values={"where": shown})
        if (bound := date_bound(value)) is not None and bound[0] in (">", "<"):  # after 2024
            if op != "=":
                raise FilterError("bad", f"{shown!r}: {value} is a bound, read with = alone "
                                  f"({key}={value}, or {key}{''.join(bound)})",
                                  key="bad_where", values={"where": shown})
            out.append((key, *bound))
            continue
        if op not in ("=", "!=") and (ranged := between(value)) is not None and \
                _said_twice(op, ranged):  # >=5kW以上, <=10kW及以下: that bound, said twice
            value = ranged.low or ranged.high or value
        elif op not in ("=", "!=") and ranged is not None:
            refuse_range(shown, key, value, f"{key}{op}{ranged.low or ranged.high}")
        _check_dangling_or(shown, key, op, value)
        if not _in_quotes(value):  # 1,000,2,000: thousands grouped, or values?
            check_grouping(shown, key, op, value)
        _check_brackets(shown, key, op, value, len(item.rstrip()) - len(value))
        _check_tildes(shown, key, op, value)
        _check_order_list(shown, key, op, value)
        if op in ("=", "!="):
            listed = flow_list(value)
            if listed is not None and not _values(listed):
                raise FilterError("bad", f"{shown!r}: an empty list names no value; give one or "
                                  f"more ({key}{op}A or {key}{op}[A, B])",
                                  key="bad_where", values={"where": shown})
            read = _listed(value if listed is None else listed)
            values = tuple(dict.fromkeys(v for v, _ in read))
            dated = [v for v, quoted in read if not quoted]  # "03/04/2024": as typed, text
        else:  # quotes that reached us through a second shell layer; a separator after the
            # one value names nothing, as after the last of a list (功率>=6kW；)
            values = (value[1:-1] if _in_quotes(value) else value.rstrip(SEPARATORS + _BLANKS),)
            dated = list(values)  # an order compares no text in a field of dates
        if not values or not all(v.strip() for v in values):
            raise FilterError("bad", f"{shown!r}: no value after {op!r}",
                              key="bad_where", values={"where": shown})
        for ranged in (v for v in values if isinstance(v, Between)):
            check_range(shown, key, op, ranged, alone=len(values) == 1)
        check_places(shown, key, op, [v for v in dated if isinstance(v, str)])
        check_day_month(shown, key, op, [v for x in dated for v in (
            (x.low, x.high) if isinstance(x, Between) else (x,)) if v is not None])
        if len(values) == 1 and isinstance(values[0], Between) and \
                not isinstance(values[0].high, Converted):  # power=5kW..10kW, 5kW..; one
            # whose end is converted stays the range, shown as typed (面积=1公顷..20亩)
            out += [(key, bound, end) for bound, end in values[0].bounds()]
            continue
        out.append((key, op, values[0] if len(values) == 1 else values))
    return out


def _said_twice(op: str, ranged: Between) -> bool:
    """Whether an order's value, a bound open at one end (`between`), says the order again:
    ``>=`` before one open above (``5kW以上``, ``5kW or more``), ``<=`` before one open below
    (``10kW及以下``), each end included, in words (``>=5kW..`` stays refused: a range)."""
    if not ranged.written.rstrip()[-1:].isalpha():
        return False
    open_above = ranged.high is None and ranged.low is not None
    open_below = ranged.low is None and ranged.high is not None
    return not ranged.strict and (op == ">=" and open_above or op == "<=" and open_below)


# an operator written in words between a key and its value, as a technician types it with
# no operator at hand (功率大于6kW, 日期不早于2024-03, power at least 5kW): the operator it is
WORD_OPERATORS = {
    "大于等于": ">=", "大于或等于": ">=", "小于等于": "<=", "小于或等于": "<=", "不等于": "!=",
    "不小于": ">=", "不低于": ">=", "不少于": ">=", "不早于": ">=", "不大于": "<=", "不高于": "<=",
    "不多于": "<=", "不超过": "<=", "不晚于": "<=", "大于": ">", "高于": ">", "多于": ">",
    "超过": ">", "晚于": ">", "小于": "<", "低于": "<", "少于": "<", "早于": "<", "等于": "=",
    " at least ": ">=", " no less than ": ">=", " at most ": "<=", " no more than ": "<=",
    " greater than ": ">", " more than ": ">", " less than ": "<", " fewer than ": "<",
    " equals ": "=", " not equal to ": "!=", " earlier than ": "<", " later than ": ">",
    " before ": "<", " after ": ">", " since ": ">=", " until ": "<="}


# a range said in words with no operator (功率在5到10kW之间, 功率介于5和10kW之间): key, range
_IN_RANGE = re.compile(r"\s*([^\s在介]+?)\s*(?:在|介于)\s*(\S.*)")


def _worded(item: str) -> str | None:
    """A filter written with its operator in words (`WORD_OPERATORS`: ``功率大于6kW``,
    ``功率 不低于 5kW``, ``power at least 5kW``) as `parse_where` reads it (``功率>6kW``): the
    first such word after a key (a longer one at the same place: 大于等于 before 大于), a value
    after it; None for another text."""
    lower = item.lower()
    if len(lower) != len(item) or len(item) > MAX_WHERE_CHARS:
        return None
    found = [(at, -len(word), word) for word in WORD_OPERATORS
             if (at := lower.find(word)) > 0]
    if not found and (inside := _IN_RANGE.match(item)) is not None and \
            (ranged := between(inside.group(2))) is not None and ranged.low and ranged.high:
        return f"{key_text(inside.group(1).strip())}={inside.group(2).strip()}"  # 在5到10kW之间
    if not found:
        return None
    at, _, word = min(found)
    key, value = item[:at].strip(), item[at + len(word):].strip()
    key = key[1:-1] if _in_quotes(key) else key
    if not value or not key or (not _KEY.fullmatch(key) and '"' in key and "'" in key):
        return None
    return f"{key_text(key)}{WORD_OPERATORS[word]}{value}"


_QUOTED = re.compile(r"(\"[^\"]*\"|'[^']*')")  # a key's or a value's quotes and what they hold


def _seen_unquoted(item: str) -> str:
    """`item` without the characters that show nothing (`filter_numbers.seen`) but in quotes,
    which take a key or a value as it is (`where_text` quotes a value holding one)."""
    if seen(item) == item:
        return item
    return "".join(p if i % 2 else seen(p) for i, p in enumerate(_QUOTED.split(item)))


def _rewritten(key: str, value: str) -> str:
    """The filter to write for `key` and `value` typed with a colon between them: the order
    the value begins with as the operator (``功率：≤0℃``: ``功率<=0℃``, ``功率: >=5kW``), else
    ``key=value`` (``crop: 小麦``: ``crop=小麦``), else the filter the refusal of that one
    advises (`FilterError.instead`: ``功率: 10..5kW``: ``功率=5kW..10kW``), else that value in
    quotes (``功率: ≤``: ``功率="≤"``): the first `parse_where` reads, so that the advice is
    never refused."""
    typed, quote = narrow_operator(value), "'" if '"' in value else '"'
    ordered = [f"{key_text(key)}{typed}"] if typed[:1] in OPERATOR_START else []
    tried = [*ordered, f"{key_text(key)}={value}", f"{key_text(key)}={quote}{value}{quote}"]
    for n, instead in enumerate(tried):
        try:
            parse_where([instead])
        except FilterError as refused:
            if refused.instead is not None and refused.instead not in tried:
                tried.insert(n + 1, refused.instead)  # before the literal in quotes
            continue
        return instead
    return where_text(key, "=", value)


def _no_operator(item: str) -> tuple[str, str] | None:
    """(key, value) of a filter typed without its operator, a blank between a key and a
    number, quantity, version or date (``power 5kW``, ``施药 时间 2024-05-01``, ``power 5
    kW``, ``updated Mar 2024``): the longest such value; None for another text."""
    words = item.split() if len(item) <= MAX_WHERE_CHARS else []
    for n in range(1, len(words)):
        key, value = " ".join(words[:n]), " ".join(words[n:])
        if _KEY.fullmatch(key) and an_end(value):
            return key, value
    return None


def _check_about(shown: str, item: str, m: re.Match[str] | None) -> None:
    """A FilterError for a value said approximately, by an operator (``数量≈10``,
    ``数量~=10``), a word (``数量约10``, ``数量=约10``, ``count=about 10``) or after it
    (``数量=10左右``), naming the range or tolerance to write instead (`about_instead`)."""
    if m is not None:
        key, op, value = m.group(1) or m.group(2) or m.group(3), "".join(m.group(4).split()), \
            m.group(5)
    elif (about := ABOUT_MARK.search(item)) is not None and \
            (written := item[:about.start()].rstrip(_BLANKS + "=＝:：")):  # 数量：约10 too
        key, op, value = key_text(written.strip()), "=", item[about.start():]
    else:
        return
    if (instead := about_instead(key, op, value)) is not None:
        raise FilterError("bad", f"{shown!r}: a filter compares no value said approximately; "
                          f"write {instead}", key="bad_where", values={"where": shown})


def _check_tildes(shown: str, key: str, op: str, value: str) -> None:
    """A FilterError for a bare value (or a listed one) that begins with a tilde before a
    number (``power=~10kW``): about 10kW, or up to it (`open_tilde`)?"""
    parts = _SEPARATOR.split(flow_list(value) or value) if op in ("=", "!=") else [value]
    end = next((e for p in parts if (e := open_tilde(p)) is not None), None)
    if end is not None:
        instead = (f"{key}<={end} (or {key}={end}, or a range: {key}=A..{end})"
                   if op in ("=", "!=") else f"{key}{op}{end}")
        raise FilterError("bad", f"{shown!r}: a ~ before {end} may mean about {end} or up to it; "
                          f"write {instead}", key="bad_where", values={"where": shown})


# a list's brackets, as front matter writes them and as a Chinese input method types them
BRACKETS = {"[": "]", "［": "］", "【": "】"}
_CLOSERS = {c: o for o, c in BRACKETS.items()}


def flow_list(value: str) -> str | None:
    """What a value written as a YAML flow list (``[小麦, 玉米]``, as front matter writes a
    list; ``［小麦，玉米］`` or ``【小麦、玉米】`` as a Chinese input method types it) lists,
    between its brackets; None for any other value (``"[a]"`` in quotes, ``[草稿] 小麦``)."""
    return value[1:-1] if len(value) >= 2 and BRACKETS.get(value[0]) == value[-1] else None


def _check_brackets(shown: str, key: str, op: str, value: str, start: int) -> None:
    """A FilterError, naming the column (from 1) of the filter text where the problem lies
    (`value` begins at `start` in it), for a bare value that would match nothing silently:
    a list after an order (``size>=[5]``), a list's bracket never closed (``crop=[小麦, 玉米``)
    or one closed that was never opened (``crop=小麦, 玉米]``)."""
    trouble = bracket_trouble(op, value)
    if trouble is None:
        return
    opener, closer = value[:1], value[-1:]
    if trouble == "list":
        raise FilterError("bad", f"{shown!r}: a list ({value}, column {start + 1}) is read "
                          f"with = or != alone; give {op} one value ({key}{op}"
                          f"{value[1:-1].strip() or 'VALUE'})",
                          key="bad_where", values={"where": shown})
    if trouble == "open":
        raise FilterError("bad", f"{shown!r}: the {opener} at column {start + 1} is never "
                          f"closed; end the list with {BRACKETS[opener]} ({key}{op}{value}"
                          f"{BRACKETS[opener]}), or put a value starting so in quotes",
                          key="bad_where", values={"where": shown})
    raise FilterError("bad", f"{shown!r}: the {closer} at column {start + len(value)} "
                      f"closes no list; begin the list with {_CLOSERS[closer]} "
                      f"({key}{op}{_CLOSERS[closer]}{value}), or put a value ending so in "
                      "quotes", key="bad_where", values={"where": shown})


def bracket_trouble(op: str, value: str) -> str | None:
    """What a bare value's brackets would make of filter ``op value``, when not a value:
    ``list`` after an order (``>=[5]``), ``open`` for a list never closed (``[小麦``),
    ``close`` for one never opened (``小麦]``); None for any other value (``[a]`` after
    ``=``, ``[草稿] 小麦``, ``a[1]``, one in quotes)."""
    if value[:1] in QUOTES:
        return None
    if flow_list(value) is not None:
        return None if op in ("=", "!=") else "list"
    if value[:1] in BRACKETS and BRACKETS[value[0]] not in value:
        return "open"
    if value[-1:] in _CLOSERS and _CLOSERS[value[-1]] not in value:
        return "close"
    return None


def _values(text: str) -> list[str]:
    """The values `text` (a filter's, after ``=`` / ``!=``, stripped) lists: separated by
    `SEPARATORS`, each stripped, one in matching quotes (closed right before a separator
    or the end) taken as it is inside; empty bare ones left out."""
    return [value for value, _ in _listed(text)]


def _listed(text: str) -> list[tuple[str, bool]]:
    """`_values` of `text`, each with whether it was written in quotes."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    while i <= n:
        while i < n and text[i] in _BLANKS:
            i += 1
        quote = QUOTES[text[i]] if i < n and text[i] in QUOTES else ""  # its closing one
        j = i + 1
        while quote and (j := text.find(quote, j)) != -1:
            k = j + 1
            while k < n and text[k] in _BLANKS:
                k += 1
            if k == n or text[k] in SEPARATORS:
                out.append((text[i + 1:j], True))
                i = k + 1
                break
            j += 1
        else:
            end = next((p for p in range(i, n) if text[p] in SEPARATORS), n)
            if text[end:end + 1] in ",，" and (grouped := GROUPED_AMOUNT.match(text, i)) \
                    is not None and one_amount(grouped.group()):
                end = grouped.end()  # ¥1,000 of 价格=¥1,000,¥2,000, 1,000 of 价格=1,000: one
            if (bare := text[i:end].strip()) and (bound := between(bare)) is not None:
                out.append((bound, False))  # 5kW或以上: 5kW or more, no list of 5kW and 以上
            elif _says_or(ors := text[i:end]):  # 5kW或10kW; not 或许 (a value's edge: one value)
                out += [(between(part) or part, False) for part in _or_parts(ors)]
            elif bare := text[i:end].strip():
                out.append((between(bare) or bare, False))  # 5–10kW of 5–10kW,20kW: a range
            i = end + 1
    return out


# an operator as a Chinese input method types it (`crop＝小麦`, `size≥5`): its ASCII form
_WIDE_OPERATOR = {"＝": "=", "！": "!", "＞": ">", "＜": "<", "≥": ">=", "≤": "<=", "≧": ">=",
                  "≦": "<=", "≠": "!=", "\u3000": " "}


# an order as a Chinese input method types it, one character (after `=`: the order meant?)
_WIDE_ORDERS = frozenset("≥≤≧≦＞＜")


def _typed_operator(item: str, start: int) -> tuple[str, int]:
    """The operator of filter `item` as typed, from `start` (where it begins) on: its
    characters, ASCII or full-width (`_WIDE_OPERATOR`), without the blanks among them
    (``温度=≤0℃``: ``=≤``; ``crop = = x``: ``==``), as a refusal shows it; and where in
    `item` the characters after it begin."""
    end = start
    while end < len(item) and (item[end] in _WIDE_OPERATOR or item[end] in "=!<> \t"):
        end += 1
    return "".join(item[start:end].split()), end


def _typed_length(typed: str, op: str) -> int:
    """How many of `typed`'s characters (`_typed_operator`) write the operator `op` read
    (``=`` of ``=≠``: 1; ``>=`` of ``≥=``: 1, of ``>＝<``: 2)."""
    n, read = 0, ""
    while read != op and n < len(typed):
        read += _WIDE_OPERATOR.get(typed[n], typed[n])
        n += 1
    return n


def narrow_operator(item: str) -> str:
    """`item` (a filter) with its operator, and the blanks around it, typed full-width as
    ASCII; its key and value as given (a value keeps its own ＝ or ≥)."""
    start = next((i for i, c in enumerate(item) if c in _WIDE_OPERATOR or c in "=!<>"),
                 len(item))
    end = start
    while end < len(item) and (item[end] in _WIDE_OPERATOR or item[end] in "=!<> \t"):
        end += 1
    return "".join(_WIDE_OPERATOR.get(c, c) for c in item[:end]) + item[end:]


def key_text(key: str) -> str:
    """A filter's key as `parse_where` reads it back: as it is when it is a word or words a
    blank apart, else in quotes (``"pH (水)"``)."""
    if _KEY.fullmatch(key):
        return key
    return f"'{key}'" if '"' in key else f'"{key}"'


def where_text(key: str, op: str, value: Want) -> str:
    """One filter as the ``where`` text `parse_where` reads back as (key, op, value), for a
    response to show it so that it can be pasted back: ``crop=小麦`` as it is; the value in
    quotes when bare it would be read otherwise (it starts with an operator's character,
    has space around it, is itself in matching quotes, holds a comma ``=`` / ``!=`` would
    read as between two values, or is a date bare refused as day or month first):
    ``size="<1 ha"``, ``tags=""A""``, ``name=" a "``, ``title="小麦、玉米轮作"``,
    ``updated="03/04/2024"``, ``title="小麦或玉米"``; several values a comma apart: ``crop=小麦,玉米``."""
    return key_text(key) + op + values_text(op, value)


def values_text(op: str, value: Want) -> str:
    """What `where_text` writes after the operator: the value or values of ``key op value``."""
    listed = op in ("=", "!=")
    return ",".join(_value_text(v, listed) for v in values_of(value))


def _value_text(value: str, listed: bool) -> str:
    if isinstance(value, Between):  # 5kW..10kW, ..10kW: read back as the range; an end
        # converted as typed (1公顷..20亩, not 1公顷..1.3333333333333333334公顷)
        return str(value) if not isinstance(value.high, Converted) else \
            f"{value.low or ''}..{value.high.typed}"
    if isinstance(value, Converted):
        value = value.typed  # 面积<=20亩 of 面积=1公顷..20亩, compared as 1.33…334公顷
    bare = value == value.strip() and value[:1] not in OPERATOR_START \
        and between(value) is None and open_tilde(value) is None \
        and not _in_quotes(value) and not (listed and any(c in value for c in SEPARATORS)) \
        and not (listed and _says_or(value)) \
        and not (listed and flow_list(value) is not None) \
        and not (listed and len(day_month(value) or ()) == 2) \
        and not (not listed and (value[-1:] in SEPARATORS or _order_parts(value))) \
        and value[:1] not in _WIDE_OPERATOR and seen(value) == value \
        and bracket_trouble("=" if listed else ">", value) is None
    if bare:
        return value
    held = listed and '"' in value and "'" not in value and any(c in value for c in SEPARATORS)
    return f"'{value}'" if held else f'"{value}"'  # a " before a comma would close it


def _or_parts(value: str) -> list[str]:
    """The values a bare value lists with "or" between them (`_OR`), each stripped."""
    return [part.strip() for part in _OR.split(value)]


def _says_or(value: str) -> bool:
    """Whether a bare value of ``=`` / ``!=`` is several a word "or" lies between
    (``小麦或玉米``, ``5kW or 10kW``), none of them empty (``或许``, ``或多或少``: one value)."""
    parts = _or_parts(value)
    return len(parts) > 1 and all(parts)


def _order_parts(value: str) -> list[str]:
    """The values an order's bare `value` lists ("or" or a separator between them), when
    several; [] for one (in quotes, a number with a comma: ``1,000``, ``12,5kW``, ``¥1,000``)."""
    if _in_quotes(value) or GROUPED.match(value) is not None \
            or DECIMAL_COMMA.match(value) is not None or quantity(value) is not None:
        return []
    parts = _or_parts(value) if _says_or(value) else [p.strip() for p in _SEPARATOR.split(value)]
    return parts if len(parts) > 1 and all(parts) else []


def _check_order_list(shown: str, key: str, op: str, value: str) -> None:
    """An order given several values, "or" or a separator between them (``功率>=5kW或10kW``,
    ``power>=5kW or 10kW``, ``power<5kW,10kW``): an order takes one bound and a list of values
    is read with ``=``, so a FilterError naming both to write instead, in Chinese where the
    filter is written so (its key or value holds a Chinese character or punctuation), else
    in English. A value in quotes, or a number with a comma (``1,000``, ``12,5``), is one."""
    parts = [] if op in ("=", "!=") else _order_parts(value)
    if not parts:
        return
    bound, listed = f"{key}{op}{parts[0]}", f"{key}={','.join(parts)}"
    zh = written_in_chinese(key + value)
    raise FilterError("bad", f"{shown!r}: " + (
        f"比较（{op}）只取一个界限，如 {bound}；几个值中的任一个请用 =，如 {listed}" if zh else
        f"an order ({op}) takes one bound, e.g. {bound}; for any of several values use =, "
        f"e.g. {listed}"), key="order_listed",
        values={"where": shown, "op": op, "bound": bound, "listed": listed})


# "or" at a bare value's end or start, nothing on that side of it (功率>=5kW或, power=5kW or)
_OR_AT_END = ("或者", "或是", "或", " or")
_OR_AT_START = ("或者", "或是", "或", "or ")


def _check_dangling_or(shown: str, key: str, op: str, value: str) -> None:
    """A FilterError for a bare value that ends (or begins) with "or" and nothing after (before)
    it, the rest a number, quantity, version or date (``功率>=5kW或``, ``power=5kW or``,
    ``功率>=或5kW``): half a list, which as one text value would match nothing, or as an order
    was refused in general terms. It names the filter without it and, for several values, the
    list to write, in Chinese where the filter is written so (`_check_order_list`)."""
    if _in_quotes(value):
        return
    text, folded = value.rstrip(SEPARATORS + _BLANKS), value.casefold()
    end = next((w for w in _OR_AT_END if folded.rstrip(SEPARATORS + _BLANKS).endswith(w)), None)
    start = None if end else next((w for w in _OR_AT_START if folded.startswith(w)), None)
    word = end or start
    if word is None:
        return
    rest = (text[:-len(word)] if end else text[len(word):]).strip().rstrip(SEPARATORS + _BLANKS)
    if not rest or not all(an_end(p.strip()) for p in _SEPARATOR.split(rest) if p.strip()):
        return  # 或许, A or: a word; 5kW,10kW或: the list's last value
    one, listed = f"{key}{op}{rest}", f"{key}={rest},…"
    zh = written_in_chinese(key + value)
    side_zh = "后面" if end else "前面"
    said_zh = (f"“{word.strip()}”{side_zh}没有值；请写 {one}" +
               ("" if op == "=" else f"，要取几个值中的任一个请用 = 并列出它们，如 {listed}"))
    said = (f'nothing {"after" if end else "before"} "{word.strip()}"; write {one}' +
            ("" if op == "=" else f", or for any of several values use = and list them, "
             f"e.g. {listed}"))
    raise FilterError("bad", f"{shown!r}: {said_zh if zh else said}", key="or_dangling",
                      values={"where": shown, "said_zh": said_zh})


def _in_quotes(value: str) -> bool:
    """Whether `value` is wrapped in a pair of matching quotes (which `parse_where` takes off)."""
    return len(value) >= 2 and QUOTES.get(value[0]) == value[-1]


def checked_conditions(conditions: Iterable[Condition]) -> list[Condition]:
    """Filters chosen as (key, op, value), not typed as text (the web app's facet menus):
    each value is taken as it is, never read for an operator, quotes or commas, so every
    value a document holds can be chosen (``<1 ha``, ``=> 5``, ``"A"``, ``a,b``:
    `parse_where` refuses the first two as a doubled operator, takes the quotes off the
    third and reads the last as two values). An operator not in OPERATORS or an empty key or
    value is a UsageError, as `parse_where` gives."""
    out: list[Condition] = []
    for key, op, listed in conditions:
        key = valid_unicode(str(key))
        values = tuple(valid_unicode(str(v)) for v in values_of(listed))
        value: Want = values[0] if isinstance(listed, str) else values
        shown = where_text(key, op, value)
        shown = shown if len(shown) <= 60 else shown[:60] + "…"
        if op not in OPERATORS or not key.strip() or not all(v.strip() for v in values) \
                or not values or len(key) + sum(map(len, values)) > MAX_WHERE_CHARS \
                or not isinstance(listed, str) and op not in ("=", "!="):
            raise UsageError(f"bad filter {shown!r}: a key, one of {', '.join(OPERATORS)} and "
                             f"a value (at most {MAX_WHERE_CHARS} characters)",
                             key="bad_where", values={"where": shown})
        out.append((key, op, value))
    return out
