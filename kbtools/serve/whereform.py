"""The search page's conditions: filters beyond the facet menus' ``=``, as ``kb query
--where`` and ``/api/search?where=`` take them (``!=``, ``>=``, ``<=``, ``>``, ``<``; numbers,
dates and versions compared as such).

A condition is a row of the form: a key menu (every key a filter may name in the release), an
operator menu (its words said in the page's language) and a value typed in a box; with no key
chosen, the box holds a whole condition as the CLI takes it (``timestamp>=2026-01-01``,
``firmware≥2.1`` as a Chinese input method types it). The rows are read as the text
``KEY OP VALUE`` and parsed by `parse_where`, the CLI's parser, so the page, the CLI and the
API refuse and accept the same conditions in the same words. A posted form's rows are folded
into ``where=`` fields (`folded`): the address a search is redirected to is the API's, short
enough to keep and share, and read back into rows when the page is shown (`rows`). The form
works without script: the page always shows one empty row more than it was asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import zip_longest

from starlette.datastructures import QueryParams

from kbtools.errors import FilterError
from kbtools.query.filter_text import key_text, values_text
from kbtools.query.filters import OPERATORS, Condition, parse_where, where_text

WHERE_PARAM = "where"  # a typed condition in a search address, as /api/search names it
ROW_KEY, ROW_OP, ROW_VALUE = "wk", "wo", "wv"  # a condition row's fields in a posted form
ROW_FIELDS = (ROW_KEY, ROW_OP, ROW_VALUE)
# each operator's menu entry: its sign, then its word in the page's language (``op_ge``, …)
OPERATOR_SIGNS = {"=": ("=", "op_eq"), "!=": ("≠", "op_ne"), ">=": ("≥", "op_ge"),
                  "<=": ("≤", "op_le"), ">": (">", "op_gt"), "<": ("<", "op_lt")}


@dataclass(frozen=True)
class Row:
    """One condition row as the form shows it: a key chosen (empty: the value is a whole
    condition as typed), an operator, the value typed."""

    key: str = ""
    op: str = "="
    value: str = ""


def row_text(key: str, op: str, value: str) -> str:
    """The condition text one posted row asks (`parse_where` reads it): ``KEY OP VALUE``
    as typed, the value alone when no key is chosen; empty when no value is typed (a row
    left blank asks nothing)."""
    if not value.strip():
        return ""
    if not key.strip():
        return value
    return f"{key_text(key)}{op if op in OPERATORS else '='}{value}"


def folded(params: QueryParams) -> QueryParams:
    """`params` with its condition rows (``wk``/``wo``/``wv``, in the order a form sends
    them) as ``where`` fields in their place, a row without a value left out."""
    rows = [params.getlist(name) for name in ROW_FIELDS]
    if not any(rows):
        return params
    texts = [row_text(k or "", o or "=", v or "") for k, o, v in zip_longest(*rows)]
    items: list[tuple[str, str]] = []
    placed = False
    for name, value in params.multi_items():
        if name not in ROW_FIELDS:
            items.append((name, value))
        elif not placed:
            items.extend((WHERE_PARAM, text) for text in texts if text)
            placed = True
    return QueryParams(items)


def asked(params: QueryParams) -> list[str]:
    """The conditions a search address asks (``where=``, rows folded), blank ones left
    out, each once."""
    return list(dict.fromkeys(w for w in folded(params).getlist(WHERE_PARAM) if w.strip()))


def parsed(texts: Iterable[str]) -> list[Condition]:
    """`texts` as (key, op, value), read by the CLI's parser (a FilterError names the first
    it refuses)."""
    return parse_where(list(texts))


def rows(texts: Iterable[str]) -> list[Row]:
    """The rows the page shows for the conditions `texts` asked, and one empty row to add
    another: a condition the parser reads as its key, operator and value (the value as
    `where_text` writes it, so that it reads back the same); one it refuses as typed, in the
    box of a row without a key, to be mended."""
    shown: list[Row] = []
    for text in texts:
        try:
            read = parse_where([text])  # a range (5kW..10kW) is two conditions, two rows
        except FilterError:
            shown.append(Row(value=text))
            continue
        shown += [Row(key, op, values_text(op, value)) for key, op, value in read]
    return [*shown, Row()]


def shown(texts: Iterable[str]) -> list[str]:
    """The conditions asked as the filters' summary names them (each as `where_text`
    writes it; one the parser refuses as typed)."""
    out = []
    for text in texts:
        try:
            read = parse_where([text])
        except FilterError:
            out.append(text)
            continue
        out += [where_text(key, op, value) for key, op, value in read]
    return out
