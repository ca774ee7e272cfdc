"""A decision table's header and its unit: where the unit starts (``温度(℃)``, ``流量/L·h⁻¹``,
``Vibration mm/s``, ``Temp °C``) and the header without it, by which a column is addressed.

Pure: imports only `kbtools.decision.cell_text` and `units` (the units known).
"""

from __future__ import annotations

from kbtools.decision.cell_text import normalize_cell
from kbtools.decision.units import unit_word


def header_unit_start(text: str) -> int:
    r"""Where the unit of a header starts (``len(text)`` when it has none): the earliest of a
    ``/`` (``流量/L·h⁻¹``) and a final ``(…)`` or ``[…]`` group holding no closing bracket. A
    ``/`` inside the last word, after the name and a space, is that word's (``Vibration
    mm/s``, ``Flow L/min``: the unit is mm/s, not s). Without either, a unit `UNIT_GROUPS`
    knows as the last word, after a space or comma (``Temp °C``, ``Temperature, °F``; not a
    single letter: ``Zone C``, ``Pump A`` are names).

    The same as searching ``\s*(\([^)]*\)|\[[^\]]*\]|/.*)\s*$``, done with a fixed number of
    string scans so a header of any length costs linear time (the search is quadratic on
    ``((((…`` or ``[[[[…``).
    """
    end = len(text.rstrip())
    starts = [i] if (i := text.find("/", 0, end)) >= 0 else []
    if starts and text.find(" ", i, end) < 0 and (space := text.rfind(" ", 0, i)) > 0 and \
            text[:space].strip() and text[space + 1:i].strip():
        starts = [space + 1]  # Vibration mm/s
    if not starts:  # Temp °C, Temperature, °F: a known unit as the last word
        cut = max(text.rfind(" ", 0, end), text.rfind(",", 0, end))
        word = text[cut + 1:end]
        if cut > 0 and text[:cut].strip(" ,") and unit_word(word):
            while cut > 0 and text[cut - 1] in " ,":
                cut -= 1
            starts.append(cut)
    for open_, close in (("(", ")"), ("[", "]")):
        if end and text[end - 1] == close:
            after = text.rfind(close, 0, end - 1) + 1  # the group holds no closing bracket
            i = text.find(open_, after, end - 1)
            if i >= 0:
                starts.append(i)
    return min(starts, default=len(text))


MIN_PART = 2  # shortest leading/trailing part of a column's name that still names it


def column_key(header: str) -> str:
    """A header without its unit: ``温度(℃)`` / ``温度（℃）`` / ``温度 [℃]`` → ``温度``."""
    text = normalize_cell(header)
    stripped = text[:header_unit_start(text)].strip()
    return (stripped or text).casefold().replace(" ", "")
