"""A cell's value with its tolerance (``25±2``, ``25℃±2℃``, ``6.5 +/- 0.2``, ``200±5%``) as the
range it allows, from the match `conditions` makes of it (groups 1 and 2: the value and the
tolerance, each a number as cells write them, thousands grouped by commas or spaces).

Pure: the standard library only.
"""

from __future__ import annotations

import re
from decimal import Decimal


def tolerance_ends(m: re.Match[str], *, share: bool | None = None) -> tuple[float, float]:
    """The ends of a value and its tolerance (`conditions.TOLERANCE_FORM`), in the digits
    written: 25±2 is 23 to 27; a tolerance in percent of a value not itself in percent is that share of it
    (200±5% is 190 to 210, 6.5 ± 10% 5.85 to 7.15), one in the value's own % is points
    (50%±5% is 45 to 55). `share` True or False reads it so whatever it writes."""
    nominal, tolerance = (Decimal(m.group(n).replace(",", "").replace(" ", "")) for n in (1, 2))
    if percent_of_value(m) if share is None else share:
        tolerance = abs(nominal) * tolerance / 100
    lo, hi = (float(nominal + k * tolerance) for k in (-1, 1))
    return lo, hi


def percent_of_value(m: re.Match[str]) -> bool:
    """Whether the tolerance `conditions.TOLERANCE_FORM` matched is in percent of the value (``200±5%``),
    not in the value's own unit (``50%±5%``, ``25±2℃``)."""
    return m.string[m.end(2):].strip().casefold() in _PERCENT and own_unit(m) not in _PERCENT


_PERCENT = ("%", "percent", "pct")


def own_unit(m: re.Match[str]) -> str:
    """The unit a value with a tolerance (`conditions.TOLERANCE_FORM`) writes after the value itself."""
    return m.string[m.end(1):m.start(2)].strip().rstrip("±+/-").strip()
