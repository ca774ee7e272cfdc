"""The words that frame an English question rather than name what it asks about.

``how many litres of oil does it take``, ``how long does the oil last``, ``any idea about the
oil type?``, ``I need to know the torque``, ``hi, tell me the capacity``: the knowledge says
``Capacity: 4.5 L`` and ``every 2,000 hours``, never many, long, last, idea, need, know, hi
or tell. Weighed as the question's words, they were unknown words (towards "no answer" on a
small index) and BM25 terms (a chunk saying ``show`` or ``idea`` ranked for them). The
Chinese frames (多少, 请问, 怎么办) are stop words of the tokenizer (`ZH_STOP`); the English
ones are read here as phrases, not as stop words, because the same words name things in
other places: a ``long shaft``, the ``last stage``, ``show mode``, an ``idea`` board. Only
the framing use is dropped:

- a greeting opening the question (``hi,``, ``hello there``, ``good morning``);
- a request to be told, shown, helped or explained (``tell me``, ``show us``, ``help me``,
  ``explain the`` / ``explain how``: not ``EXPLAIN ANALYZE``);
- the kind of thing asked for (``what type of oil``, ``which kind of filter``: not a ``type
  B`` fuse);
- the wish to know (``I need to know``, ``we'd like to know``, ``do you know``, ``let me
  know``, ``I was wondering``);
- ``any idea`` and its kin before what it is about (``any advice on``, ``any tips for``);
- the measure a ``how`` asks (``how many``, ``how much``, ``how long``, ``how often``), and
  the verb such a question ends with (``…does it take``, ``…does the oil last``, ``…does
  the sump hold``).

The question's other words, its vector and what is shown to the user are unchanged: this
is what its BM25 terms and unknown words are read from (`kbtools.query.search`). Pure.
"""

from __future__ import annotations

import re

_AUX = r"(?:do|does|did|will|would|should|can|could|must|is|are|was|were)"
_WH = r"(?:what|which|who|whom|whose|how|when|where|why|whether|if)"
FRAMES = re.compile(
    # a greeting at the start, before a mark or a word that starts a question
    r"^\s*(?:hi|hello|hey|greetings|good\s+(?:morning|afternoon|evening|day))"
    r"(?:\s+(?:there|all|everyone|team|guys|folks))?"
    rf"(?=\s*[,!.:;]|\s+(?:{_WH}|{_AUX}|i|we|please|tell|show|give|help|explain|any)\b)"
    # told, shown, given, helped or explained
    r"|\b(?:tell|show|give|help)\s+(?:me|us)\b"
    # the kind of thing asked for (what type of oil; not a type B fuse, the oil type)
    r"|(?<=\bwhat\s)\s*(?:type|kind|sort)s?(?=\s+of\b)|(?<=\bwhich\s)\s*(?:type|kind|sort)s?"
    r"(?=\s+of\b)"
    r"|\bexplain(?=\s+(?:to\s+(?:me|us)|me|us|the|a|an|this|that|these|those|why|how|what"
    r"|when|which|where|whether|if)\b)"
    # the wish to know
    r"|\b(?:i|we)\s*(?:need|want|wanted|needed|would\s+like|['’]d\s+like|wish)\s+to\s+know\b"
    r"|\b(?:do|does|did)\s+(?:you|anyone|anybody|someone|somebody)\s+know\b"
    r"|\blet\s+(?:me|us)\s+know\b"
    r"|\b(?:i|we)(?:['’]m|\s+(?:am|was|were|are))?\s+wondering\b|\b(?:i|we)\s+wonder\b"
    # any idea, before what it is about
    r"|\b(?:any|some)\s+(?:ideas?|clues?|advice|tips|hints|pointers|suggestions|thoughts)"
    rf"(?=\s+(?:on|about|regarding|for|as\s+to|{_WH})\b|\s*[?!.,]|\s*$)"
    # the measure a how asks
    r"|(?<=\bhow\s)\s*(?:many|much|long|often)\b",
    re.IGNORECASE)
# the verb a how-many question ends with, after an auxiliary (``…does it take``)
MEASURE_VERBS = frozenset(("take", "takes", "last", "lasts", "need", "needs", "require",
                           "requires", "hold", "holds"))
AUXILIARIES = frozenset(_AUX[3:-1].split("|"))
_HOW_MEASURE = re.compile(r"\bhow\s+(?:many|much|long|often)\b", re.IGNORECASE)
_ENDING = "?!.,;: \t"


def unframed(text: str) -> str:
    """`text` with the English words framing it (module docstring) blanked, each character
    a space (the other words keep their places); a question without any is returned as it
    is."""
    out = FRAMES.sub(lambda m: " " * len(m.group(0)), text)
    how = _HOW_MEASURE.search(text)
    if how is None:
        return out
    end = len(text.rstrip(_ENDING))
    start = end - len(text[:end].split()[-1]) if text[:end].split() else end
    between = text[how.end():start].lower().split()
    if text[start:end].lower() in MEASURE_VERBS and AUXILIARIES.intersection(between):
        out = out[:start] + " " * (end - start) + out[end:]
    return out
