"""``--where`` filters as Milvus boolean expressions, with the same meaning as the local mask.

`kbtools.query.filters.filter_mask` compares values as numbers when both sides are numbers
(``=``, ``!=``: by `number_key`, so ``1.0`` is ``1``; ``>=``, ``<=``, ``>``, ``<``: by
`order_number`, exactly, infinities too; the orders then versions and instants,
`filter_kinds.keys_against`), else as text (``=``, ``!=`` case-insensitively;
the orders as strings), and lets a list match when any member does (a member that is a list: when any of
its members does, at any depth). Milvus has no case folding, number reading or "any member
≥", so each published chunk carries three JSON fields computed from its facts (front
matter plus the chunk's ``doc``, ``kind`` and ``verified``), and filters test those:

* ``f_eq[key]``: the values as ``=`` compares text (`filter_kinds.fold`: case-folded,
  full-width forms as ASCII) as a list → ``json_contains`` for ``=`` / ``!=``
  (of a tag key, each tag without its ``#`` and the branches it is nested under:
  `kbtools.markdown.tags`);
* ``f_num[key]``: the `number_key` of each member that reads as a number, and the
  `filter_kinds.equal_keys` of each version or instant (an instant's periods too: the
  year, month and day it writes, as precisely as it writes them; a year of four digits its
  year's) → ``json_contains`` for ``=`` / ``!=`` with a value that reads as one
  (`filter_kinds.wanted_keys`: ``updated=2024-03`` is ``p:2024-03``);
* ``f_ord[key]``: per key the extremes (``…max``/``…min``) of its members as each order
  compares them (`kbtools.query.filter_kinds`: numbers, then versions, then instants, else
  text, by what both sides read as): ``n`` numeric members as `order_text`; ``v`` versions
  and plain numbers (``1.9``) as `version_text`, ``x`` versions alone; ``d`` dates and
  datetimes as `instant_text` (UTC), ``y`` years of four digits (`filter_kinds.is_year`)
  as their first instant; ``w`` / ``e`` the starts / ends of the periods dates, datetimes,
  months and such years write (`filter_kinds.value_span`), which a period,
  ``updated>2024-03-01``, compares with its edges by containment); ``t<class>`` the members of one
  `filter_kinds.member_class` as strings; ``a`` all members as strings → ``>=`` / ``>`` on
  the largest, ``<=`` / ``<`` on the smallest (``q:<unit>`` quantities in that unit,
  ``qn`` every quantity's number, `filter_numbers.quantity`), of each class the value's class compares
  by that order (`_ORDERS_BY_WANT`), of the others as text; a member of text alone
  (``tt``) beside a value of another class orders after it (`filters._compare`).

Milvus compares JSON numbers as floats (exactly only as 64-bit integers), so an order on
numbers compares their `order_text` instead: a string whose order (Milvus compares strings
byte by byte) is the order of the exact numbers, of any size and precision, infinities
included, as `filter_numbers.order_number` reads them (the local mask compares those
numbers), exponents beyond ``Decimal``'s too.

What `filter_fields` stores is versioned (`FILTER_RULES`, recorded with a published release
as ``kb.filters``): rows stored by other rules would answer filters otherwise, so a reader
refuses them and a publish loads the release again (`filters_problem`).

Every value and key enters an expression only through `literal`, a quoted string with its
quotes, backslashes and line breaks escaped, so no value can change the expression's
structure (tests/test_engine_expr.py checks that property).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from kbtools.markdown.tags import is_tag_key, parents, tag_text, wanted_tag
from kbtools.query.filter_kinds import (
    boolean_of,
    equal_keys,
    fold,
    held_boolean,
    instant_text,
    member_class,
    period_of,
    quantity_key,
    value_instant,
    value_span,
    version_text,
    wanted_keys,
)
from kbtools.query.filter_numbers import (
    fraction_or_percent,
    is_percent,
    number_key,
    order_number,
    order_text,
    quantity,
)
from kbtools.query.filter_text import Between, Condition, Want
from kbtools.query.filter_units import measured

EQ_FIELD = "f_eq"
NUM_FIELD = "f_num"
ORD_FIELD = "f_ord"
# how `filter_fields` makes a chunk's filter fields: bump it whenever the same facts would
# be stored otherwise (1: f_eq and f_ord; 2: f_num too, numbers equal as numbers; 3:
# f_ord's nmax/nmin as `order_text`, exact, infinities kept; infinities in f_num; 4:
# numbers with exponents beyond Decimal's, 1e1000000000000000000, numbers, not text; 5:
# the members of nested lists, [[小麦, 玉米]], each a value, as the local mask reads them;
# 6: a tag key's f_eq and f_num hold each tag without its `#`, and f_eq the branches it is
# nested under, `kbtools.markdown.tags`: tags=病害 finds 病害/赤霉病; and the document's
# inline tags, `#病害` in its text, `kbtools.query.filter_fields.document_facts`; 7: f_ord's
# extremes per member class, `filter_kinds.member_class`: versions (1.10.2 > 1.9) and
# instants (2024-03-01T08:00:00+08:00 is 2024-03-01) ordered as such, smax/smin gone; 8:
# dates as 2024/03/01 and 2024-3-1, months (2024-03, 2024年3月: their first day) instants,
# full-width forms (２．１, ２０２４－０３－０１) read as ASCII,
# `filter_numbers.narrow`: f_num and f_ord hold them as numbers, versions and instants, f_eq
# the text so, `filter_kinds.fold`: equipment=ＨＸ－２６０ finds HX-260; 9: a date's periods,
# `filter_kinds.period_keys` (p:2024, p:2024-03, p:2024-03-01 by the day it writes) in
# f_num, and f_ord's wmax/wmin, the dates as written: updated=2024-03-01 is that whole day;
# 10: a value's period by containment, `filter_kinds.Span`: a month's p: keys its year's
# and month's only, f_ord's wmax (starts) and emin (ends) of the periods values write, and
# four-digit years (2024 beside dates) those periods, p:2024 and d:, and ymax/ymin instants;
# quantities, 7.5kW, `filter_numbers.quantity`: q:<unit>:<order_text> in f_num, and f_ord's
# q:<unit>max/min per unit and qnmax/qnmin of all their numbers; a YAML boolean b:true /
# b:false in f_num, which a filter's true, yes, on, 是 (false, no, off, 否) finds; 11: a
# quantity in a unit that converts, `filter_units.measured`, keyed in its dimension's base
# unit, q:w:<order_text> for 5kW, and its f_ord q:w extremes likewise: power>500W finds 5kW;
# 12: horsepower, psi, inches, feet, pounds, gallons, m² and acres converted too, areas in
# 亩 by fractions, rates of two such units (kg/亩, L/ha) keyed in their bases', q:mg/亩;
# the minus sign U+2212 read as -, `filter_numbers.narrow`: −1.5kW is -1.5kW; 13: cm², mm²,
# ft² and the squared units' characters (㎠, ㎏: a quantity's unit in NFKC, m2 for m²)
# converted, a number in scientific notation with its unit (1e3W) a quantity); 14: m³, cm³,
# ft³, in³ converted with litres and gallons, yards and square yards with lengths and areas,
# and a unit in words a blank apart (200 sq ft, 2 cubic metres, 30 degrees F, 450 kg per ha)
# a quantity, `filter_numbers.quantity`; a month or a date in English words (March 2024,
# 1 Mar 2024) that period, `filter_kinds.period_of`; 15: money with its currency's sign
# before or after it (¥80, $12.50, 80元) a quantity of that currency, `filter_numbers.quantity`;
# 16: a dollar with its country's letters (US$12, HK$12, NT$12, S$12) a quantity of its currency;
# f_ord's p extremes: the bare numbers but 0 < |n| <= 1, what a percentage orders (湿度>=80%
# leaves 湿度: 0.9 out, a fraction or 0.9 %: `filter_numbers.fraction_or_percent`); 17: a
# number per mille (3‰) a quantity, q:‰ as 0.3% is, and money with its currency's code first
# (RMB80, USD 12) a quantity of that currency, `filter_numbers.quantity`; a unit after 万, 亿,
# 千 or 百 (1.5万元, 2万吨) that many of the unit, keyed in its base, `filter_units.measured`;
# a share in words (百分之五十, 千分之五) that share, `filter_numbers.in_digits`; 18: a number
# in digits times 万, 亿, 千 or 百 (1.5万, 2万5千) that number, and 百分之百 100 %,
# `filter_numbers.in_digits`; an amount grouping its thousands (¥1,000, 1,000元) that
# amount, 块 (100块, 三块钱) and yuan 元, pct %, kgs kg, and a Latin unit with a Chinese word
# after it (5kW起, 10kW之间) text, `filter_numbers.quantity`; 19: a bare number grouping its
# thousands by commas (5,000, 1，200) that number, `filter_numbers.order_number`; 20: a
# number said short (1万5, 3千5, 一万五, 三千五) that number, `filter_numbers.in_digits`; 21:
# mA and A, Hz to GHz, Wh to MWh (千瓦时) and tons (吨, metric) converted, `decision.units.SCALES`;
# 22: a range's last end whose decimal in the first's unit never ends (1公顷..20亩) in that
# unit, rounded up, `filter_bounds._one_unit`; a power's symbol then 时 (5kW时) that energy,
# `decision.units.SCALED_SPELLINGS`; 5万3千2 (五万三千二) 53200, `filter_numbers.in_digits`;
# other spaces (5\u00a0kW) a blank and what shows nothing (5\u200bkW) left out, `narrow`;
# a Latin unit then a Han character of `index.tokenize.CJK` (U+FA11 too) no unit, `quantity`;
# 23: an energy as a power times an hour (kW·h, kW.h, kW h, 千瓦·时) that energy,
# `decision.units.product_unit`; 1万5千瓦 15000 W (as 一万五千瓦), `filter_numbers.in_digits`
FILTER_RULES = "23"
CHUNK_FACTS = ("doc", "kind", "verified")  # chunk-level keys; they shadow front matter

# Milvus reads only these escapes in a string literal (\u, \x, \b, \0 … are refused);
# every other character, control characters included, stands for itself.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPED = re.compile(r'[\\"\n\r\t]')


def literal(value: str) -> str:
    """`value` as a Milvus string literal: double-quoted, with backslash, quote, newline,
    carriage return and tab escaped (the only escapes Milvus's expression parser reads)."""
    return '"' + _ESCAPED.sub(lambda m: _ESCAPES[m.group(0)], value) + '"'


def _as_text(value: Any) -> str | None:
    """A fact as the local filters compare it (None: absent)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _members(value: Any) -> Iterator[Any]:
    """The values a fact holds as `kbtools.query.filters` compares them: a list's members,
    a nested list's members at any depth (``[[小麦, 玉米], [水稻]]`` holds 小麦, 玉米 and
    水稻: the local mask matches a list when any member does, and a member that is a list
    is matched alike), anything else the one value itself."""
    if isinstance(value, list):
        for member in value:
            yield from _members(member)
    else:
        yield value


def chunk_facts(metadata: dict[str, Any], doc: str, kind: str, verified: bool) -> dict[str, Any]:
    """The values a chunk's filters see, by key (chunk-level keys win over front matter)."""
    facts = {k: v for k, v in metadata.items() if k not in CHUNK_FACTS}
    facts.update(doc=doc, kind=kind, verified=verified)
    return facts


def filters_problem(rules: str | None, what: str) -> str | None:
    """Why the filter fields of a published release whose rows were stored by
    `FILTER_RULES` `rules` (None: not recorded, rules 1) would not answer filters as this kb
    does (None: they would); `what` names the release."""
    rules = rules or "1"
    if rules == FILTER_RULES:
        return None
    return (f"{what} holds filter fields stored by kbtools filter rules {rules}, this kb "
            f"filters by rules {FILTER_RULES}")


def filter_fields(facts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{f_eq: …, f_num: …, f_ord: …}`` of one chunk (see the module docstring)."""
    eq: dict[str, list[str]] = {}
    numbers: dict[str, list[str]] = {}
    order: dict[str, dict[str, Any]] = {}
    for key, value in facts.items():
        texts = [t for t in (_as_text(v) for v in _members(value)) if t is not None]
        if not texts:
            continue
        same = [tag_text(t) for t in texts] if is_tag_key(key) else texts
        folded = {fold(t) for t in same}
        if is_tag_key(key):  # the branches each tag is nested under match it too
            folded |= {p for t in list(folded) for p in parents(t)}
        eq[key] = sorted(folded)
        keys = {k for t in same if (k := number_key(t)) is not None}
        keys |= {f"b:{'true' if b else 'false'}" for v in _members(value)
                 if (b := held_boolean(v)) is not None}  # a YAML boolean or 是 (yes, on name it)
        if keys := keys | {k for t in same for k in equal_keys(t)}:
            numbers[key] = sorted(keys)
        order[key] = _extremes(texts)
    return {EQ_FIELD: eq, NUM_FIELD: numbers, ORD_FIELD: order}


def _extremes(texts: list[str]) -> dict[str, str]:
    """One key's `ORD_FIELD` entry: the extremes of its members as each order compares them
    (the module docstring), by `filter_kinds.member_class`."""
    ext = {"amax": max(texts), "amin": min(texts)}
    by_class: dict[str, list[str]] = {}
    for text in texts:
        by_class.setdefault(member_class(text), []).append(text)
    for cls, members in by_class.items():
        ext.update({f"t{cls}max": max(members), f"t{cls}min": min(members)})
    bare = [x for c in "nmy" for t in by_class.get(c, []) if (x := order_number(t)) is not None]
    sides: dict[str, list[str]] = {
        "n": [order_text(x) for x in bare],  # p: those a percentage orders (not 0.9)
        "p": [order_text(x) for x in bare if not fraction_or_percent(x, "%")],
        "v": [v for t in by_class.get("v", []) if (v := version_text(t)) is not None],
        "d": [d for t in by_class.get("d", []) if (d := instant_text(t)) is not None],
        "y": [y for t in by_class.get("y", []) if (y := value_instant(t)) is not None]}
    spans = [s for t in by_class.get("d", []) + by_class.get("y", [])
             if (s := value_span(t)) is not None]  # a year of four digits too
    sides["w"] = [s.start for s in spans]
    sides["e"] = [s.end for s in spans]
    for text in by_class.get("q", []):  # quantities per unit (q:kw; a unit that converts:
        if (amount := quantity(text)) is not None:  # its dimension's, q:w), their numbers (qn)
            unit, number = measured(*amount) or amount
            sides.setdefault(f"q:{unit}", []).append(order_text(number))
            sides.setdefault("qn", []).append(order_text(amount[1]))
    sides["x"] = list(sides["v"])  # versions alone (beside a plain number: `condition`)
    sides["v"] += [v for t in by_class.get("m", []) + by_class.get("y", [])
                   if (v := version_text(t, True)) is not None]
    for side, keys in sides.items():
        if keys:
            ext.update({f"{side}max": max(keys), f"{side}min": min(keys)})
    return ext


# per class of a filter's value (`member_class`): for each class of member compared with it
# by an order of its own, that order's field prefix in `_extremes` (``n`` numbers, ``v``
# versions and plain numbers, ``x`` versions alone, ``d`` instants, ``w`` the dates and
# datetimes as written, compared with a period: `_PERIOD_TESTS`); the member classes not
# named compare with it as text (`t<class>max` / `t<class>min`)
_ORDERS_BY_WANT: dict[str, dict[str, str]] = {
    "n": {"n": "n", "m": "n", "y": "n", "q": "qn"},
    "m": {"n": "n", "m": "n", "y": "n", "v": "x", "q": "qn"},
    "y": {"n": "n", "m": "n", "y": "n", "v": "x", "q": "qn"},
    "v": {"v": "v", "m": "v", "y": "v"}, "d": {"d": "d"},
    "q": {"n": "n", "m": "n", "y": "n"}, "t": {}}
# a period's order (`filter_kinds.Span`: by containment) as a test of the extremes of the
# periods values write: the extreme (of their starts, ``wmax``, or ends, ``emin``), the
# operator and which edge of the period it compares with
_PERIOD_TESTS = {">=": ("wmax", ">=", "start"), ">": ("wmax", ">=", "end"),
                 "<=": ("emin", "<=", "end"), "<": ("emin", "<=", "start")}


def _written(side: str, want: str) -> str:
    """A filter's value as the order `side` (`_extremes`) writes its members."""
    if side.startswith("q:"):  # a quantity's number, in its dimension's unit when it converts
        return quantity_key(want).split(":", 2)[2]
    if side in ("n", "p") and (amount := quantity(want)) is not None:
        return order_text(amount[1])  # beside bare numbers: as written, in its own unit
    number = order_number(want) if side in ("n", "qn") else None
    text = (order_text(number) if number is not None else
            instant_text(want) if side in ("d", "y") else version_text(want, True))
    assert text is not None, (side, want)  # `_ORDERS_BY_WANT` names only such sides
    return text


def _order_condition(key: str, op: str, want: str, dates: bool) -> str:
    """An order operator's expression: some member is above (below) the value by the order
    `filter_kinds.keys_against` compares it and the value by, so the largest (smallest) of
    each class is; with `dates` False (`filter_kinds.wanted`) a date is text."""
    pick = _EXTREME[op]
    cls = member_class(want)
    cls = "t" if cls == "d" and not dates else cls
    if cls == "t":
        return f"({_path(ORD_FIELD, key, 'a' + pick)} {op} {literal(want)})"
    by = dict(_ORDERS_BY_WANT[cls])
    if cls == "q":  # quantities in its unit by number; in another unit, never (no text test)
        by["q"] = ":".join(quantity_key(want).split(":", 2)[:2])  # q:kw
        if is_percent((quantity(want) or ("", 0))[0]):  # 80%: bare numbers but 0 < |n| <= 1
            by.update(dict.fromkeys("nmy", "p"))
    period = period_of(want) if dates else None
    if cls == "d":  # a year (2024 beside dates) as the period or the instant it is
        by["y"] = "w" if period is not None else "y"
    if period is not None:  # dates and datetimes by the day they write
        by["d"] = "w"
    tests = [f"{_path(ORD_FIELD, key, side + pick)} {op} {literal(_written(side, want))}"
             for side in dict.fromkeys(by.values()) if side != "w"]
    tests += [f"{_path(ORD_FIELD, key, 't' + c + pick)} {op} {literal(want)}"
              for c in "nmyvdq" if c not in by]
    if op in (">", ">="):  # text after every number, quantity, version, date (`filters._compare`)
        tests.append(f'{_path(ORD_FIELD, key, "ttmax")} >= ""')
    if period is not None:
        extreme, test_op, edge = _PERIOD_TESTS[op]
        tests.append(f"{_path(ORD_FIELD, key, extreme)} {test_op} "
                     f"{literal(period.start if edge == 'start' else period.end)}")
    return "(" + " or ".join(tests) + ")"


def _path(field: str, key: str, sub: str | None = None) -> str:
    path = f"{field}[{literal(key)}]"
    return path if sub is None else f"{path}[{literal(sub)}]"


_EXTREME = {">=": "max", ">": "max", "<=": "min", "<": "min"}  # the order operators


def condition(key: str, op: str, want: Want, dates: bool = True) -> str:
    """One parsed ``--where`` (key, op, value) as a Milvus expression; ``=`` / ``!=`` on a
    tag key test the tag its value names (`kbtools.markdown.tags.wanted_tag`), which the
    stored fields hold for the tag and every tag nested under it; of several values, ``=``
    any of them, ``!=`` none of them. With `dates` False (a field not of dates:
    `kbtools.query.filter_fields.key_reads_dates`) the value is no date."""
    if not isinstance(want, str):
        either = "(" + " or ".join(condition(key, "=", w, dates) for w in want) + ")"
        return either if op == "=" else f"(not {either})"
    if isinstance(want, Between):  # a listed range, 5kW..10kW of 5–10kW,20kW: both bounds
        inside = "(" + " and ".join(_order_condition(key, bound, end, dates)
                                    for bound, end in want.bounds()) + ")"
        return inside if op == "=" else f"(not {inside})"
    if op in ("=", "!="):
        want = wanted_tag(want) if is_tag_key(key) else want
        test = f"json_contains({_path(EQ_FIELD, key)}, {literal(fold(want))})"
        kinds = [k for k in (number_key(want), *wanted_keys(want, dates)) if k is not None]
        if (boolean := boolean_of(want)) is not None:  # a YAML boolean member (`filter_fields`)
            kinds.append(f"b:{'true' if boolean else 'false'}")
        for want_key in kinds:  # a member reading as a number (a version, an instant) is
            # equal by number (…); another by text, as `filters.same_value` has it
            test = f"{test} or json_contains({_path(NUM_FIELD, key)}, {literal(want_key)})"
        test = f"({test})" if kinds else test
        return test if op == "=" else f"(not {test})"
    return _order_condition(key, op, want, dates)


def where_expression(where: Iterable[Condition], verified_only: bool,
                     undated: Collection[str] = ()) -> str:
    """All filters as one expression ("" when there are none); the keys in `undated` read
    no value as a date (`kbtools.query.filter_fields.undated_keys`)."""
    parts = [condition(k, op, v, k not in undated) for k, op, v in where]
    if verified_only:
        parts.append("verified == true")
    return " and ".join(parts)
