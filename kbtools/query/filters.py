"""Search filters: ``--where KEY OP VALUE`` parsed, checked against the index, and turned into
a mask of the chunks a search may return (with ``--verified-only``)."""

from __future__ import annotations

import operator
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.synonyms import normalize
from kbtools.index.tokenize import to_simplified
from kbtools.markdown.tags import (
    is_tag_key,
    nested_under,
    parents,
    tag_text,
    wanted_tag,
)
from kbtools.query.cited_parts import verified_parts
from kbtools.query.filter_checks import check_filters, likeness
from kbtools.query.filter_docs import doc_value as doc_value  # re-exported
from kbtools.query.filter_docs import shared_folders as shared_folders
from kbtools.query.filter_fields import (
    CHUNK_KEYS,
    chunk_kinds,
    document_facts,
    in_celsius,
    key_reads_dates,
    key_reads_temperatures,
    scalars,
)
from kbtools.query.filter_kinds import (
    Wanted,
    boolean_of,
    fold,
    held_boolean,
    keys_against,
    member_class,
    nearest_periods,
    period_of,
    wanted,
)
from kbtools.query.filter_numbers import fraction_or_percent, is_percent, order_number, quantity
from kbtools.query.filter_numbers import number_key as number_key  # re-exported
from kbtools.query.filter_text import (  # re-exported: the filters' text, read and written
    MAX_WHERE_CHARS as MAX_WHERE_CHARS,
)
from kbtools.query.filter_text import OPERATORS as OPERATORS
from kbtools.query.filter_text import OPERATORS_SHOWN as OPERATORS_SHOWN
from kbtools.query.filter_text import OR_WORDS, range_ends, values_of
from kbtools.query.filter_text import Between as Between
from kbtools.query.filter_text import Condition as Condition
from kbtools.query.filter_text import Want as Want
from kbtools.query.filter_text import checked_conditions as checked_conditions
from kbtools.query.filter_text import narrow_operator as narrow_operator
from kbtools.query.filter_text import parse_where as parse_where
from kbtools.query.filter_text import where_text as where_text
from kbtools.query.filter_units import celsius

# the orders and what each asks of the two sides (`_compare`)
_ORDERED: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
ORDERS = tuple(_ORDERED)
# What a filter is, for the agents' tool schema and the HTTP API's OpenAPI description alike.
WHERE_HELP = (f"{OPERATORS_SHOWN} (or in words: 功率大于6kW, 不低于, 早于, power at least 5kW). KEY is a front-matter "
              "field a result's `metadata` shows (category, tags, lang, verified, timestamp "
              "…) or `doc` (a document path, as `read` takes it); a key with other "
              "characters in quotes (\"pH (水)\"=6). Values a comma (, ， 、) or ; apart: "
              "= any of them, != none of them (crop=小麦,玉米); a value holding a comma "
              "in quotes (title=\"小麦、玉米轮作\"); a range with = both ends included "
              "(power=5kW..10kW, 5~10kW, 5–10kW, 5至10kW, 10±2kW), open at one end (power=5kW.., "
              "5kW~, 5kW以上, 不低于5kW: 5kW or more; ..10kW, 10kW以下, 不超过10kW: 10kW or "
              "less; ~10kW is "
              "refused: about, or up to?), or among values (power=5–10kW,20kW). Numbers compare as "
              "numbers (size=1 matches 1.0; size>1 does not), versions as versions "
              "(version>1.9 matches 1.10.2 and v2; 2.0.0-rc1 < 2.0.0; a plain number "
              "beside a version is one: firmware=2 matches 2.0.0 and v2, as >= and <= "
              "do), a date, a month or a year as that whole period, by the day a value "
              "writes (updated=2024-03-01 matches 2024-03-01T23:30+08:00; updated<=2024-03 "
              "all of March; updated=2024 all of 2024; 2024/3/1, 2024年3月1日, 2024年3月 and "
              "2024年, Mar 2024, 1 March 2024, 15/03/2024 and 03/15/2024 too, 03/04/2024 "
              "refused; 2024.03.01 is a version; 2024年3月以后, since 2024-03 >=, 以前, until <=, "
              "之后, after >, 之前, before <; in a list too: after 2024,2020), a datetime as an instant "
              "(2024-03-01T08:00+08:00, 2024年3月1日 08:00; no offset: UTC), no date in a "
              "field holding part numbers (model=3000-12 is that part; a month written in digits "
              "alone, 3000-12, 1200-06, names a year 1900-2099 or none), a year beside dates "
              "that year "
              "(published: 2024 is in published=2024, in neither published>=2024-02 nor "
              "<=2024-02: a value's day, month or year must lie inside the filter's), "
              "a number with its unit as that quantity, converted within one dimension "
              "(power>500W matches 5kW, power>5hp 7.5kW, pressure<=30psi 2 bar, size>=12in "
              "1 ft, rate>=20kg/亩 450kg/ha, 面积<10cm² 300 mm², 温度<=40℃ matches 104°F, "
              "area>=200 sq ft 20 m², tank>=2 cubic metres 2500 L, "
              "power>=1e3W 5kW; power>5kg is refused beside "
              "values in kW; power>5 matches 7.5kW), "
              "a YAML boolean as true, yes, on, 是, 真 or 对 (false, no, off, 否, 假, 错) "
              "name it (a value 是, 真, 对, 否, 假 or 错 is that boolean), a number in Chinese "
              "numerals as that number (数量=二十, 功率>=五千瓦, 温度=零下10到零下2度), "
              "full-width forms (２．１, ＨＸ－２６０) as ASCII, other "
              "values as "
              "text (= and != case-insensitively; a document's text orders after a number, "
              "quantity, version or date: 数量<十 leaves 很多 out, 数量>=十 keeps it); "
              "tags=X also matches the tags nested under X (X/…) and a #X in the text. A "
              "value no document has filters everything out (no_answer).")


def same_value(text: str, want: str | Wanted) -> bool:
    """Whether a front-matter value (as `text`) is a filter's `want` for ``=``: the same
    number when both read as numbers (`number_key`: ``1.0`` is ``1``), the same version or
    instant when both read as such (`filter_kinds.keys_against`: ``v2.3`` is ``2.3.0``,
    ``2024-03-01T08:00+08:00`` is ``2024-03-01``), else the same text case-folded, full-width
    forms as ASCII (`filter_kinds.fold`: ``ＨＸ－２６０`` is ``hx-260``)."""
    want = wanted(want) if isinstance(want, str) else want
    keys = keys_against(text, want, ordered=False)
    if keys is not None:
        return bool(keys[0] == keys[1])
    return fold(text) == want.folded


def _compare(value: Any, op: str, want: str | Wanted) -> bool:
    """Whether a document's value (a list: any member, at any depth) passes ``op want``;
    `want` is read once (`filter_kinds.wanted`), the value here."""
    want = wanted(want) if isinstance(want, str) else want
    if isinstance(value, list):
        if op in ("=", "!="):
            hit = any(_compare(v, "=", want) for v in value)
            return hit if op == "=" else not hit
        return any(_compare(v, op, want) for v in value)
    if op in ("=", "!=") and (held := held_boolean(value)) is not None and (
            isinstance(value, bool) or boolean_of(want.text) is not None):  # yes, on, 是, 真
        return (boolean_of(want.text) is held) == (op == "=")  # name true (YAML 1.1; 合格: 是)
    if isinstance(value, bool):
        value = "true" if value else "false"
    if value is None:
        return op == "!="
    sval = str(value)
    if op == "=":
        return same_value(sval, want)
    if op == "!=":
        return not same_value(sval, want)
    keys = keys_against(sval, want)  # numbers exactly, versions, instants, else text
    if keys is None and member_class(sval) == "t" and _typed(want):  # 很多 beside 数量<十
        return op in (">", ">=")  # text orders after every number, quantity, version, date
    a, b = (sval, want.text) if keys is None else keys
    return bool(_ORDERED[op](a, b))


def _typed(want: Wanted) -> bool:
    """Whether an order's value reads as a number, a quantity, a version or a date
    (`filter_kinds.member_class`; a date not in a field of part numbers, `Wanted.dates`):
    a document's text then orders after it, however either is written (``数量<十`` and
    ``数量<10`` leave ``很多`` out alike), as `kbtools.engine.expr` has it."""
    cls = member_class(want.text)
    return cls != "t" and (cls != "d" or want.dates)



def value_matches(key: str, value: Any, op: str, want: Want | Wanted) -> bool:
    """Whether a document's value of `key` (front matter, or a chunk's own key) passes the
    filter ``key op want``: as `_compare` has it, but ``=`` / ``!=`` on a tag key read its
    values as Obsidian's nested tags (`kbtools.markdown.tags`: ``tags=病害`` holds for
    ``病害/赤霉病``, ``#病害`` and ``病害``; ``!=`` for a document holding none of them).
    Of several values, ``=`` holds when one of them does, ``!=`` when ``=`` holds for none."""
    if isinstance(want, tuple):
        hit = any(value_matches(key, value, "=", w) for w in want)
        return hit if op == "=" else not hit
    if isinstance(want, Between):  # power=5–10kW,20kW: in 5kW..10kW, ends included
        inside = all(_compare(value, bound, end) for bound, end in want.bounds())
        return inside if op == "=" else not inside
    if op not in ("=", "!=") or not is_tag_key(key):
        return _compare(value, op, want)
    branch = wanted(wanted_tag(want) if isinstance(want, str) else wanted_tag(want.text),
                    isinstance(want, str) or want.dates)  # as the field reads dates
    hit = any(_tag_is(v, branch) for v in scalars([value]))
    return hit if op == "=" else not hit


def _tag_is(value: Any, branch: Wanted) -> bool:
    """Whether one tag is the branch `branch` or nested under it (`kbtools.markdown.tags`)."""
    text = tag_text("true" if value is True else "false" if value is False else str(value))
    return same_value(text, branch) or nested_under(fold(text), branch.folded)


def resolve_docs(index: KbIndex, where: list[Condition]) -> list[Condition]:
    """`where` with each ``doc=`` / ``doc!=`` value as the document path it stands for
    (`doc_value`: ``crops/x.md`` → ``knowledge/crops/x.md``), so the mask here and an
    engine's expression (`kbtools.engine.expr`) filter the same documents."""
    if not any(key == "doc" and op in ("=", "!=") for key, op, _ in where):
        return where
    names = [str(d["doc"]) for d in index.docs()]
    return [(key, op, _resolved(op, want, names) if key == "doc" and op in ("=", "!=") else want)
            for key, op, want in where]


def _resolved(op: str, want: Want, names: Sequence[str]) -> Want:
    """Each ``doc`` value of `want` as the path it stands for (`doc_value`)."""
    if isinstance(want, str):
        return doc_value(op, want, names)
    return tuple(dict.fromkeys(doc_value(op, w, names) for w in want))


def filter_mask(index: KbIndex, where: list[Condition], verified_only: bool) -> np.ndarray | None:
    """Per chunk, whether it passes `where` (its ``doc`` values resolved: `resolve_docs`) and
    `verified_only`; None when nothing filters."""
    if not where and not verified_only:
        return None
    check_filters(index, where)
    mask = np.ones(len(index.chunk_table().doc), dtype=bool)
    for condition in _with_verified(where, verified_only):
        mask &= condition_mask(index, condition)
    return mask


def shown_verdict(where: Sequence[Condition], verified_only: bool) -> bool | None:
    """The verdict of the text filters (checked) keep alone: True with `verified_only` or a
    ``verified`` filter no unverified chunk passes, False with one no verified chunk passes
    (``verified=false``), else None. A result then cites a chunk's sections of that
    verdict alone (`kbtools.query.cited_parts.judged_part`)."""
    if verified_only:
        return True
    return next((_compare(True, op, want) for key, op, want in where if key == "verified"
                 and isinstance(want, str) and _compare(True, op, want) != _compare(
                     False, op, want)), None)


def _with_verified(where: Sequence[Condition], verified_only: bool) -> list[Condition]:
    """`where`, and ``verified_only`` as the filter it is, ``verified=true``."""
    return [*where, *([("verified", "=", "true")] if verified_only else [])]


# a filter's mask is kept per opened index (an index does not change): a search page asks for
# the masks twice (what its filters leave, `emptying_filters`, then the search's own), the API
# and MCP the same filters question after question; kept up to this many bytes of masks per
# index (the one asked last always)
MASK_CACHE_BYTES = 8 * 2**20
_MASKS: weakref.WeakKeyDictionary[KbIndex, OrderedDict[Condition, np.ndarray]] = \
    weakref.WeakKeyDictionary()
_MASKS_LOCK = threading.Lock()  # the web app's pages and searches run on several threads


def condition_mask(index: KbIndex, condition: Condition) -> np.ndarray:
    """Per chunk, whether it passes one checked filter (`check_filters`); read-only, made
    once per index and filter (`MASK_CACHE_BYTES`)."""
    with _MASKS_LOCK:
        kept = _MASKS.setdefault(index, OrderedDict())
        if (mask := kept.get(condition)) is not None:
            kept.move_to_end(condition)
            return mask
    mask = _condition_mask(index, condition)
    mask.flags.writeable = False
    with _MASKS_LOCK:
        kept[condition] = mask
        total = sum(m.nbytes for m in kept.values())
        while total > MASK_CACHE_BYTES and len(kept) > 1:
            total -= kept.popitem(last=False)[1].nbytes
    return mask


def _condition_mask(index: KbIndex, condition: Condition) -> np.ndarray:
    key, op, text = condition
    if not isinstance(text, str):  # =: any of the values; !=: none of them
        masks = [condition_mask(index, (key, op, t)) for t in text]
        either: np.ndarray = (np.logical_or if op == "=" else np.logical_and).reduce(masks)
        return either
    if isinstance(text, Between):  # a listed range: both its bounds (`parse_where`)
        inside: np.ndarray = np.logical_and.reduce([condition_mask(index, (key, bound, end))
                                                    for bound, end in text.bounds()])
        return inside if op == "=" else ~inside
    warm = key_reads_temperatures(index, key)  # 温度>=20度 beside 25℃: 20 ℃ (and a 30度 value)
    want = wanted(celsius(text) if warm else text, key_reads_dates(index, key))  # read once
    table = index.chunk_table()
    if key == "kind":
        kinds = chunk_kinds(index)  # compared once per kind, not once per chunk
        by_kind = np.array([_compare(k, op, want) for k in kinds.names], dtype=bool)
        kind_ok: np.ndarray = by_kind[kinds.codes]
        return kind_ok
    if key == "verified":  # per chunk, as decided by the build (not the front matter);
        # a chunk holding a verified section passes for it (cited alone: `cited_parts`)
        verified_ok: np.ndarray = np.where(table.verified, _compare(True, op, want),
                                           _compare(False, op, want))
        return verified_ok | verified_parts(index) if _compare(True, op, want) else verified_ok
    docs = index.docs()
    doc_ok = np.array([value_matches(key, d["doc"] if key == "doc" else
                                     in_celsius(document_facts(d).get(key)) if warm else
                                     document_facts(d).get(key), op, want) for d in docs],
                      dtype=bool)
    chunk_ok: np.ndarray = doc_ok[table.doc]
    return chunk_ok


def emptying_filters(index: KbIndex, where: Sequence[Condition],
                     verified_only: bool) -> tuple[list[Condition], bool]:
    """Why checked filters (`where`, ``doc`` values resolved, and `verified_only` as
    ``verified=true``) leave no chunk: the filters that alone leave none, and False; else
    (each leaves some, not all together) all of them, and True. ([], False) when some chunk
    passes them all. What every surface names when a search has nothing to search."""
    conditions = _with_verified(where, verified_only)
    masks = [condition_mask(index, c) for c in conditions]
    if not conditions or np.logical_and.reduce(masks).any():
        return [], False
    alone = [c for c, m in zip(conditions, masks, strict=True) if not m.any()]
    return (alone, False) if alone else (conditions, True)


def fractions_left_out(index: KbIndex, where: Sequence[Condition]) -> list[str]:
    """The document values an order on a percentage left out (`filter_numbers.
    fraction_or_percent`: ``湿度: 0.9`` beside ``湿度>=80%``, a fraction or 0.9 %), each
    once as ``key: value``, for every surface to say beside the results."""
    said: dict[str, None] = {}
    for key, op, listed in where:
        percent = [want for want in values_of(listed) for bound, end in (
            want.bounds() if isinstance(want, Between) else [(op, want)])
            if bound in _ORDERED and (amount := quantity(end)) is not None and is_percent(amount[0])]
        if not percent or key in CHUNK_KEYS or key == "verified":
            continue
        for d in index.docs():
            for held in scalars([document_facts(d).get(key)]):
                number = None if isinstance(held, bool) else order_number(str(held))
                if number is not None and fraction_or_percent(number, "%"):
                    said[f"{key}: {held}"] = None
    return list(said)


def unheld_values(index: KbIndex, where: Sequence[Condition]) -> list[tuple[str, list[str]]]:
    """The values of `where`'s ``=`` / ``!=`` filters on front-matter keys that no document
    holds, while the filter itself keeps some chunk (one that keeps none is named by
    `emptying_filters`): ``crop=小麦,玉木`` answers for 小麦 alone, ``crop!=玉木`` leaves
    nothing out. Each as ``key=value`` (`where_text`) with what it may mean (`meant_values`:
    ``crop=玉米``), for every surface to say beside the results. A ``!=`` value nothing held
    resembles is not among them: `split_unheld`."""
    return split_unheld(index, where)[0]


def split_unheld(index: KbIndex, where: Sequence[Condition]
                 ) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """`unheld_values`, and apart from them the ``!=`` filters whose value no document holds
    and no held value resembles (``crop!=玉米`` on a knowledge of wheat alone), as
    ``key!=value``: a deliberate exclusion the knowledge already satisfies, noted once
    beside the results, not warned of; one that resembles a held value (``crop!=玉木``, 玉米
    held) is a likely typo that excludes nothing it meant to, and is warned of."""
    out: list[tuple[str, list[str]]] = []
    quiet: list[str] = []
    for key, op, listed in where:
        if op not in ("=", "!=") or key in CHUNK_KEYS or key == "verified" or \
                op == "=" and not condition_mask(index, (key, op, listed)).any():
            continue
        for want in values_of(listed):
            if isinstance(want, Between) or condition_mask(index, (key, "=", want)).any():
                continue  # a range is no value held: the filters that empty a search name it
            meant = _meant(index, key, want)
            if op == "!=" and not meant:
                quiet.append(where_text(key, op, want))
            else:
                out.append((where_text(key, "=", want), meant))
    return list({shown: (shown, meant) for shown, meant in out}.values()), \
        list(dict.fromkeys(quiet))



def meant_values(index: KbIndex, condition: Condition) -> list[str]:
    """For a filter ``key=value`` that no document has, the filters it may mean, as
    `where_text` writes them, at most `SUGGESTED`: first the values documents give the key
    that are the value's synonyms (a group of the release's synonyms file: ``disease=赤霉病``
    for disease=wheat scab, disease=烂麦头 or 爛麥頭, the name in the other language or the field's
    word, which the filter compares as written), then those it may be a typo of
    (`VALUE_LIKENESS` alike or more, the closest first): ``crop=玉米`` for crop=玉木,
    ``equipment=HX-260 注塑机`` for equipment=HX260 注塑机; of tags, the branches they are
    nested under too, without a ``#`` (``tags=病害`` for tags=病虫, where a document is
    tagged ``病害/赤霉病``); of dates, for a day, month or year, those nearest it that
    documents lie in (``updated=2024-03-01`` for updated=2024-03-02). [] for another
    operator, a
    chunk's own key (``doc`` names its documents itself: `doc_value`) or a value nothing
    resembles (crop=香蕉). Of several values (``crop=玉木,水道``), each one's, and first the
    one value a document holds written so, commas and all (``title="小麦、玉米轮作"``)."""
    key, op, listed = condition
    if op != "=" or key in CHUNK_KEYS or key == "verified":
        return []
    if isinstance(listed, str):
        return _meant(index, key, listed)
    held = {fold(str(v)) for d in index.docs()
            for v in scalars([document_facts(d).get(key)])}
    whole = [j for j in (sep.join(listed) for sep in _JOINS) if fold(j) in held][:1]
    return list(dict.fromkeys([*(where_text(key, op, w) for w in whole),
                               *(m for want in listed if not isinstance(want, Between)
                                 for m in _meant(index, key, want))]))


# a value no document has is named with those that differ from it by a typo: at least
# this similar (difflib's ratio, case aside; 玉木 for 玉米 is 0.5), at most this many
VALUE_LIKENESS = 0.5
SUGGESTED = 3
# how one value holding commas (or the word "or") may have been written
_JOINS = (",", ", ", "，", "、", ";", "；", *OR_WORDS)


def _meant(index: KbIndex, key: str, want: str) -> list[str]:
    """`meant_values` of one value, ``key=want``."""
    op = "="
    held = {str(v) for d in index.docs() for v in scalars([document_facts(d).get(key)])
            if not isinstance(v, bool)}
    period = period_of(want) if key_reads_dates(index, key) else None
    if period is not None:  # the days (months, years) nearest that documents lie in
        return [where_text(key, op, p) for p in nearest_periods(held, period, SUGGESTED)]
    if is_tag_key(key):  # a branch is a value to name too: tags=病害 for tags=病虫
        held = {t for v in held for t in (tag_text(v), *parents(tag_text(v))) if t.strip()}
    groups = index.synonyms()  # a Traditional spelling (爛麥頭) of a Simplified group's term
    same = {normalize(t) for t in groups.others(want) or groups.others(to_simplified(want))}
    named = sorted(v for v in held if normalize(v) in same)
    scored = sorted(((likeness(want, v), v) for v in held if v not in named),
                    key=lambda p: (-p[0], p[1]))
    typos = [v for r, v in scored if r >= VALUE_LIKENESS]
    ends = range_ends(want.replace("-", "..", 1)) if "-" in want.strip()[1:] else None
    ranged = [Between(*ends)] if ends and quantity(ends[1]) else []  # 5-10kW: 5kW..10kW
    return [where_text(key, op, v) for v in [*ranged, *named, *typos][:SUGGESTED]]


