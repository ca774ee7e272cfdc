"""``--where`` filters as Milvus boolean expressions, with the same meaning as the local mask.

`kbtools.query.filters.filter_mask` compares values as numbers when both sides are numbers
(``=``, ``!=``: by `number_key`, so ``1.0`` is ``1``; ``>=``, ``<=``, ``>``, ``<``: by
`order_number`, exactly, infinities too), else as text (``=``, ``!=`` case-insensitively;
the orders as strings), and lets a list match when any member does (a member that is a list: when any of
its members does, at any depth). Milvus has no case folding, number reading or "any member
≥", so each published chunk carries three JSON fields computed from its facts (front
matter plus the chunk's ``doc``, ``kind`` and ``verified``), and filters test those:

* ``f_eq[key]``: the case-folded values as a list → ``json_contains`` for ``=`` / ``!=``
  (of a tag key, each tag without its ``#`` and the branches it is nested under:
  `kbtools.markdown.tags`);
* ``f_num[key]``: the `number_key` of each member that reads as a number → ``json_contains``
  for ``=`` / ``!=`` with a value that reads as one;
* ``f_ord[key]``: per key the extremes ``nmax``/``nmin`` (numeric members, as `order_text`),
  ``smax``/``smin`` (non-numeric members) and ``amax``/``amin`` (all members as strings) →
  ``>=`` / ``>`` on the largest, ``<=`` / ``<`` on the smallest.

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
from collections.abc import Iterable, Iterator
from typing import Any

from kbtools.markdown.tags import is_tag_key, parents, tag_text, wanted_tag
from kbtools.query.filter_numbers import number_key, order_number, order_text

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
# inline tags, `#病害` in its text, `kbtools.query.filters.document_facts`)
FILTER_RULES = "6"
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
        folded = {t.casefold() for t in same}
        if is_tag_key(key):  # the branches each tag is nested under match it too
            folded |= {p for t in list(folded) for p in parents(t)}
        eq[key] = sorted(folded)
        if keys := {k for t in same if (k := number_key(t)) is not None}:
            numbers[key] = sorted(keys)
        nums = [x for t in texts if (x := order_number(t)) is not None]
        words = [t for t in texts if order_number(t) is None]
        ext: dict[str, Any] = {"amax": max(texts), "amin": min(texts)}
        if nums:
            ext.update(nmax=order_text(max(nums)), nmin=order_text(min(nums)))
        if words:
            ext.update(smax=max(words), smin=min(words))
        order[key] = ext
    return {EQ_FIELD: eq, NUM_FIELD: numbers, ORD_FIELD: order}


def _path(field: str, key: str, sub: str | None = None) -> str:
    path = f"{field}[{literal(key)}]"
    return path if sub is None else f"{path}[{literal(sub)}]"


_EXTREME = {">=": "max", ">": "max", "<=": "min", "<": "min"}  # the order operators


def condition(key: str, op: str, want: str) -> str:
    """One parsed ``--where`` (key, op, value) as a Milvus expression; ``=`` / ``!=`` on a
    tag key test the tag its value names (`kbtools.markdown.tags.wanted_tag`), which the
    stored fields hold for the tag and every tag nested under it."""
    if op in ("=", "!="):
        want = wanted_tag(want) if is_tag_key(key) else want
        test = f"json_contains({_path(EQ_FIELD, key)}, {literal(want.casefold())})"
        if (want_key := number_key(want)) is not None:  # a member reading as a number is
            # equal by number; another (no number) by text, as `filters.same_value` has it
            test = f"({test} or json_contains({_path(NUM_FIELD, key)}, {literal(want_key)}))"
        return test if op == "=" else f"(not {test})"
    pick = _EXTREME[op]  # some member is above (below) the value: the largest (smallest) is
    number = order_number(want)
    if number is None:
        return f"({_path(ORD_FIELD, key, 'a' + pick)} {op} {literal(want)})"
    return (f"({_path(ORD_FIELD, key, 'n' + pick)} {op} {literal(order_text(number))} or "
            f"{_path(ORD_FIELD, key, 's' + pick)} {op} {literal(want)})")


def where_expression(where: Iterable[tuple[str, str, str]], verified_only: bool) -> str:
    """All filters as one expression ("" when there are none)."""
    parts = [condition(k, op, v) for k, op, v in where]
    if verified_only:
        parts.append("verified == true")
    return " and ".join(parts)
