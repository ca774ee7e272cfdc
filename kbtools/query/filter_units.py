"""Quantities as ``--where`` filters compare them across units: ``power>500W`` holds for
``5kW``, ``weight<=2t`` for ``1500kg``, ``depth>=30cm`` for ``0.5 m``, ``温度<=40℃`` for
``104°F``, ``power>5hp`` for ``7.5kW``, ``pressure<=30psi`` for ``2 bar``, ``rate>=20kg/亩``
for ``450 kg/ha``.

A quantity (`filter_numbers.quantity`: a number and the unit written after it) is
`measured` when its unit is one of a dimension's here (`FAMILIES`: the units the decision
tables convert, one table for both, `kbtools.decision.units.SCALES`, in every spelling
`UNIT_GROUPS` and `SCALED_SPELLINGS` give them — durations, lengths (inches and feet too),
masses (pounds), volumes (US gallons), areas (亩, hectares, m², cm², mm², km², acres, ft²),
pressures (psi, atm), voltages, shares in % and ‰, and watts, horsepower (``hp``:
745.69987158227022 W; 马力 and ``PS``, metric: 735.49875 W), each by its exact definition), a rate of two such units (``kg/亩``, ``公斤每亩``, ``L/ha``,
``km/h``: its dimension the two bases'), or in degrees Celsius or Fahrenheit (based on °F,
where ``°F = ℃ × 1.8 + 32`` is exact in decimals). Its number in the dimension's base unit
is exact where the factor's decimal ends, else rounded to `ROUNDED_DIGITS` significant
digits (psi in Pa, kg/ha in mg/亩): one number for every way of writing one quantity, in
order as the quantities are, locally and in Milvus (`kbtools.engine.expr` keys it). Two
quantities of one dimension compare by those numbers; two units of different dimensions
that are both known (``power>5kg`` of values in kW) are refused by `dimension_problem`;
another unit `UNIT_GROUPS` knows is compared only with its own spellings (``rpm`` with
``r/min`` and ``转/分``, ``psia``), and any other only with itself, as written.

A unit after 万, 亿, 千 or 百 is that many of it (``1.5万元`` is 15000元, ``2万吨`` 20000 t).
Spellings one character long that name other things too are not converted: 度 (an angle,
a kilowatt-hour), 分 (a mark, a fen), 方, 时, 月 (``3月`` is March), and the letters ``c`` and
``f``. Pure: imports `kbtools.decision.units` (the units known) and `filter_numbers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Context, Decimal
from fractions import Fraction
from functools import lru_cache

from kbtools.decision.numerals import MAGNITUDE_TIMES
from kbtools.decision.units import GROUP_OF, UNIT_GROUPS, scale_base, scaled_units
from kbtools.query.filter_numbers import Number, quantity

_AMBIGUOUS = frozenset(("度", "分", "方", "时", "月", "c", "f"))
_MAGNITUDES = sorted(MAGNITUDE_TIMES, key=len, reverse=True)  # 万亿 before 万
_RATE_MARKS = ("/", "每")  # between a rate's two units: kg/亩, 公斤每亩


def _families() -> dict[str, tuple[str, Fraction]]:
    """Each spelling converted (`_AMBIGUOUS` aside): its dimension's base unit and its size
    (`kbtools.decision.units.SCALES`, the one table the decision tables convert by too)."""
    return {unit: (scale_base(n), size) for unit, (n, size) in scaled_units().items()
            if unit not in _AMBIGUOUS}


FAMILIES = _families()
_CELSIUS, _FAHRENHEIT = GROUP_OF["℃"], GROUP_OF["°f"]
TEMPERATURE = "°f"  # the base unit of temperatures
SHOWN_UNITS = 3  # values a refusal names, one per unit
ROUNDED_DIGITS = 50  # a number whose decimal in the base unit never ends, so rounded


def _group(unit: str) -> int | None:
    return None if unit in _AMBIGUOUS else GROUP_OF.get(unit)


def _size(unit: str) -> tuple[str, Fraction] | None:
    """(base unit, size in it) of a unit converted, or of a rate of two (``kg/亩``); of
    another unit `UNIT_GROUPS` knows, its group's first spelling and 1 (``r/min`` is
    ``rpm``, ``amps`` is ``a``: one unit, converted to no other); None for a unit not
    known, or a temperature (`_measured`)."""
    if (size := _converted(unit)) is not None:
        return size
    group = _group(unit)
    if group is None:
        return _magnified(unit)
    if group in (_CELSIUS, _FAHRENHEIT):
        return None
    spellings = sorted(UNIT_GROUPS[group])
    return next((s for s in map(_converted, spellings) if s is not None),
                (spellings[0], Fraction(1)))


def _magnified(unit: str) -> tuple[str, Fraction] | None:
    """`_size` of a unit written after 万, 亿, 千 or 百 (``万元``, ``亿元``, ``万吨``, ``百米``:
    `kbtools.decision.numerals.MAGNITUDE_TIMES`), that many of the unit (1.5万元 is 15000元);
    None when what follows is no unit `_size` knows (``千分``, ``百度``: `_AMBIGUOUS`)."""
    mark = next((m for m in _MAGNITUDES if unit.startswith(m) and len(unit) > len(m)), None)
    size = None if mark is None else _size(unit[len(mark):])
    return None if size is None or mark is None else (size[0], size[1] * MAGNITUDE_TIMES[mark])


def _converted(unit: str) -> tuple[str, Fraction] | None:
    """`_size` of a unit of `FAMILIES` or a rate of two of them; None for any other."""
    if unit in FAMILIES:
        return FAMILIES[unit]
    mark = next((m for m in _RATE_MARKS if m in unit), None)
    if mark is None:
        return None
    top, _, per = unit.partition(mark)
    a, b = FAMILIES.get(top.strip()), FAMILIES.get(per.strip())
    return None if a is None or b is None else (f"{a[0]}/{b[0]}", a[1] / b[1])


def _times(number: Decimal, size: Fraction) -> Decimal:
    """``number × size``: exact when its decimal ends, else rounded to `ROUNDED_DIGITS`
    significant digits (correctly, so that every way of writing a number gives one)."""
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    whole = Fraction(int("".join(map(str, digits)) or "0")) * size
    top, below = whole.numerator, whole.denominator
    twos = fives = 0
    rest = below
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest == 1:  # the decimal ends: exact
        shift = max(twos, fives)
        scaled = top * (10 ** shift // below)
        return Decimal((sign, tuple(map(int, str(scaled))), exponent - shift))
    near = Context(prec=ROUNDED_DIGITS).divide(Decimal(top), Decimal(below)).as_tuple()
    assert isinstance(near.exponent, int)
    return Decimal((sign, near.digits, near.exponent + exponent))


def measured(unit: str, number: Number) -> tuple[str, Number] | None:
    """(the dimension's base unit, the number in it) of a quantity ``number unit`` (`unit` as
    `quantity` writes it, case-folded) when its unit converts; None otherwise."""
    return _measured(unit, number) if isinstance(number, Decimal) else None


@lru_cache(maxsize=4096)  # per document value a filter compares
def _measured(unit: str, number: Decimal) -> tuple[str, Number] | None:
    group = _group(unit)
    if group in (_CELSIUS, _FAHRENHEIT):
        if group == _FAHRENHEIT:
            return TEMPERATURE, number
        exact = Context(prec=len(number.as_tuple().digits) + 40)  # no rounding
        return TEMPERATURE, exact.add(exact.multiply(number, Decimal("1.8")), 32)
    size = _size(unit)
    return None if size is None else (size[0], _times(number, size[1]))


def in_unit(amount: tuple[str, Number], unit: str, near: Context | None = None) -> Decimal | None:
    """The number a quantity `amount` (`quantity`) is in `unit`, of one dimension with it and
    exactly (``6‰`` in ``%``: 0.6, ``1 m`` in ``cm``: 100, ``1万元`` in ``元``: 10000); None
    for another dimension, a unit not converted, a temperature, or a number whose decimal in
    `unit` never ends (``20亩`` in ``公顷``: 4/3) unless `near` is given: then that number
    rounded in its precision and rounding (``ROUND_CEILING``: 1.33…334, never below 4/3)."""
    number = amount[1]
    have, want = _size(amount[0]), _size(unit)
    if not isinstance(number, Decimal) or not number.is_finite() or have is None \
            or want is None or have[0] != want[0]:
        return None
    exact = Fraction(number) * have[1] / want[1]
    rest = exact.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest == 1:
        return _times(Decimal(exact.numerator), Fraction(1, exact.denominator)).normalize()
    if near is None:
        return None
    return near.normalize(near.divide(Decimal(exact.numerator), Decimal(exact.denominator)))


def comparable(a: tuple[str, Number], b: tuple[str, Number]) -> tuple[Number, Number] | None:
    """The numbers two quantities compare by: as written in one unit, else measured in
    their dimension's base unit; None when they are of different dimensions or a unit is
    not known (`measured`)."""
    if a[0] == b[0]:
        return a[1], b[1]
    ma, mb = measured(*a), measured(*b)
    return (ma[1], mb[1]) if ma is not None and mb is not None and ma[0] == mb[0] else None


def dimension(unit: str) -> str | None:
    """What a unit measures as filters tell dimensions apart: its base unit (`measured`:
    of a unit converted, or the first spelling of another `UNIT_GROUPS` knows, ``psia``,
    ``rpm``); None for a unit not known (not judged)."""
    if (size := _size(unit)) is not None:
        return size[0]
    return TEMPERATURE if _group(unit) in (_CELSIUS, _FAHRENHEIT) else None


def dimension_problem(want: str, values: Iterable[str]) -> str | None:
    """Why the filter value `want` cannot be compared with a key's `values` (its documents'
    values as text): it is a quantity in a known unit and the values are quantities in known
    units, every one of another dimension (``5kg`` beside ``5kW`` and ``800W``); or it is in
    a unit not known and every value is a quantity in another unit (``2巴`` beside ``2 bar``
    and ``30 psi``: compared with its own unit alone, it would match nothing): what they are
    written in, for the one-line error; None otherwise."""
    amount = quantity(want)
    if amount is None:
        return None
    wanted = dimension(amount[0])
    units: dict[str, str] = {}
    for text in values:
        held = quantity(text)
        if held is None and wanted is None:
            return None  # a bare number orders with it; text is not judged
        if held is None:
            continue
        if held[0] == amount[0] or wanted is not None and dimension(held[0]) in (wanted, None):
            return None
        units.setdefault(held[0], text)
    if not units:
        return None
    shown = ", ".join(sorted(units.values())[:SHOWN_UNITS])
    if wanted is None:
        return (f"{want} is in a unit none of the values here is in ({shown}); give one in "
                "their units")
    return f"{want} measures another thing than the values here ({shown}); give one in their units"


DEGREES = "度"  # a degree of angle, or of temperature in Chinese (25度): `_AMBIGUOUS`


def reads_temperatures(values: Iterable[str]) -> bool:
    """Whether a field's values (as text) are temperatures: one of them at least is a
    quantity in a unit of temperature (``25℃``, ``77°F``, ``25摄氏度``). In such a field a
    number of ``度`` is degrees Celsius, as the decision tables read it (`celsius`); in
    another (``角度: 30度``) it stays a degree of angle, its own unit."""
    return any((held := quantity(text)) is not None and dimension(held[0]) == TEMPERATURE
               for text in values)


def celsius(text: str) -> str:
    """`text` with a number of ``度`` as degrees Celsius (``20度``: ``20℃``, ``零下5度``:
    ``-5℃``), for a field of temperatures (`reads_temperatures`); any other text as it is."""
    held = quantity(text)
    if held is None or held[0] != DEGREES:
        return text
    return f"{format(held[1], 'f') if isinstance(held[1], Decimal) else held[1]}℃"
