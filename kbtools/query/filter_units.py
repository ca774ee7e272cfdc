"""Quantities as ``--where`` filters compare them across units: ``power>500W`` holds for
``5kW``, ``weight<=2t`` for ``1500kg``, ``depth>=30cm`` for ``0.5 m``, ``温度<=40℃`` for
``104°F``.

A quantity (`filter_numbers.quantity`: a number and the unit written after it) in a unit
the decision tables convert (`kbtools.decision.units.SCALES`: durations, lengths, masses,
volumes, areas in 亩 and 公顷, pressures, voltages, shares in % and ‰), in watts or
kilowatts, or in degrees Celsius or Fahrenheit is `measured`: its number in its dimension's
base unit (the family's smallest; a temperature in °F, where ``°F = ℃ × 1.8 + 32`` is exact
in decimals), exactly. Two quantities of one dimension compare by those numbers; two units
of different dimensions that `UNIT_GROUPS` both know (``power>5kg`` of values in kW) are
refused by `dimension_problem`; any other unit is compared only with itself, as written.

Spellings one character long that name other things too are not converted: 度 (an angle,
a kilowatt-hour), 分 (a mark, a fen), 方, 时, 月 (``3月`` is March), and the letters ``c`` and
``f``. Pure: imports `kbtools.decision.units` (the units known) and `filter_numbers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Context, Decimal
from functools import lru_cache

from kbtools.decision.units import GROUP_OF, SCALES
from kbtools.query.filter_numbers import Number, quantity

# watts: left out of SCALES for the tables' cells (2w is 2万 there), plain in front matter
_POWER = {"w": 1, "kw": 1000}
_AMBIGUOUS = frozenset(("度", "分", "方", "时", "月", "c", "f"))
# the dimension (its base unit's name) and size in it of each group of spellings converted
_SIZE: dict[int, tuple[str, int]] = {
    GROUP_OF[u]: (min(family, key=family.__getitem__), size)
    for family in (*SCALES, _POWER) for u, size in family.items()}
_CELSIUS, _FAHRENHEIT = GROUP_OF["℃"], GROUP_OF["°f"]
TEMPERATURE = "°f"  # the base unit of temperatures
SHOWN_UNITS = 3  # values a refusal names, one per unit


def _group(unit: str) -> int | None:
    return None if unit in _AMBIGUOUS else GROUP_OF.get(unit)


def measured(unit: str, number: Number) -> tuple[str, Number] | None:
    """(the dimension's base unit, the number in it) of a quantity ``number unit`` (`unit` as
    `quantity` writes it, case-folded) when its unit converts; None otherwise."""
    return _measured(unit, number) if isinstance(number, Decimal) else None


@lru_cache(maxsize=4096)  # per document value a filter compares
def _measured(unit: str, number: Decimal) -> tuple[str, Number] | None:
    group = _group(unit)
    if group is None:
        return None
    exact = Context(prec=len(number.as_tuple().digits) + 40)  # no rounding: the factors are small
    if group in (_CELSIUS, _FAHRENHEIT):
        degrees = exact.add(exact.multiply(number, Decimal("1.8")), 32) \
            if group == _CELSIUS else number
        return TEMPERATURE, degrees
    if group not in _SIZE:
        return None
    base, size = _SIZE[group]
    return base, exact.multiply(number, size)


def comparable(a: tuple[str, Number], b: tuple[str, Number]) -> tuple[Number, Number] | None:
    """The numbers two quantities compare by: as written in one unit, else measured in
    their dimension's base unit; None when they are of different dimensions or a unit is
    not known (`measured`)."""
    if a[0] == b[0]:
        return a[1], b[1]
    ma, mb = measured(*a), measured(*b)
    return (ma[1], mb[1]) if ma is not None and mb is not None and ma[0] == mb[0] else None


def dimension(unit: str) -> str | None:
    """What a unit measures as filters tell dimensions apart: its base unit when it converts
    (`measured`), else its group of spellings `UNIT_GROUPS` knows (``hp``, ``rpm``); None for
    a unit not known (not judged)."""
    group = _group(unit)
    if group is None:
        return None
    if group in (_CELSIUS, _FAHRENHEIT):
        return TEMPERATURE
    return _SIZE[group][0] if group in _SIZE else f"group {group}"


def dimension_problem(want: str, values: Iterable[str]) -> str | None:
    """Why the filter value `want` cannot be compared with a key's `values` (its documents'
    values as text): it is a quantity in a known unit and the values are quantities in known
    units, every one of another dimension (``5kg`` beside ``5kW`` and ``800W``): what they
    are written in, for the one-line error; None otherwise."""
    amount = quantity(want)
    if amount is None or (wanted := dimension(amount[0])) is None:
        return None
    units: dict[str, str] = {}
    for text in values:
        held = quantity(text)
        if held is None:
            continue
        if held[0] == amount[0] or dimension(held[0]) in (wanted, None):
            return None
        units.setdefault(held[0], text)
    if not units:
        return None
    shown = ", ".join(sorted(units.values())[:SHOWN_UNITS])
    return f"{want} measures another thing than the values here ({shown}); give one in their units"
