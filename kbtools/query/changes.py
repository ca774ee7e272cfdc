"""English verbs of change before a value (``heated to 80 C``, ``the pressure was raised to
30 psi``): they say how a quantity went, not of what, so `kbtools.query.qualified.Qualified`
reads the thing they are said of from their subject or object instead (``oil heated to``,
``heated the oil to``: the oil's), as it reads a Chinese verb of change (升温到80度).

Pure.
"""

from __future__ import annotations

from kbtools.query.fillers import drop_fillers

# English verbs of change before ``to`` and a value (``heated to 80 c``, ``the pressure was
# raised to 30 psi``, ``we cooled the room down to 5 c``): say how the quantity went, not of
# what, as `quantities.CHANGES` do; a thing before the verb or after it still qualifies it
# (``oil heated to 80 c``, ``heated the oil to 80 c``: the oil's)
EN_CHANGES = frozenset((
    "heat", "heats", "heated", "heating", "warm", "warms", "warmed", "warming", "cool", "cools",
    "cooled", "cooling", "chill", "chills", "chilled", "chilling", "raise", "raises", "raised",
    "raising", "lower", "lowers", "lowered", "lowering", "increase", "increases", "increased",
    "increasing", "decrease", "decreases", "decreased", "decreasing", "reduce", "reduces",
    "reduced", "reducing", "drop", "drops", "dropped", "dropping", "rise", "rises", "rose",
    "risen", "rising", "fall", "falls", "fell", "fallen", "falling", "climb", "climbs",
    "climbed", "climbing", "pressurize", "pressurizes", "pressurized", "pressurised",
    "depressurized", "depressurised", "pump", "pumps", "pumped", "inflate", "inflated",
    "deflate", "deflated", "boost", "boosted", "adjust", "adjusted", "bring", "brought",
    "ramp", "ramped", "jump", "jumped", "go", "goes", "went", "gone", "set"))
# words between such a verb and ``to`` that say which way (``cooled down to``, ``back to``)
EN_CHANGE_WAYS = ("down", "back")


def change_before(text: str, at: int) -> tuple[int, list[str]] | None:
    """Where an English verb of change (`EN_CHANGES`) and ``to`` before position `at` of
    compacted `text` start, filler words before the value dropped (``dropped to about 5
    c``), and the words of its object (``heated the oil to``: the, oil; ``cooled the room
    down to``: the, room); None when no such verb leads the value (``rose by 5 c`` is a
    change, not a value; ``heated up to 80 c`` a bound, which `values.numbers` makes no
    exact value)."""
    head = drop_fillers(text[:at]).rstrip(" ")
    if not (head == "to" or head.endswith(" to")):
        return None
    words = clause_words(head[:-2])
    for n in range(len(words) - 1, max(-1, len(words) - 6), -1):
        if words[n] in EN_CHANGES:
            obj = [w for w in words[n + 1:] if w not in EN_CHANGE_WAYS]
            return len(head[:-2].rstrip(" ")) - len(" ".join(words[n:])), obj
    return None


def clause_words(text: str) -> list[str]:
    """The Latin words that end compacted `text`, back to a clause mark, number or other
    script."""
    at = len(text)
    while at and (text[at - 1].isascii() and (text[at - 1].isalpha() or text[at - 1] in " '")):
        at -= 1
    return text[at:].split()
