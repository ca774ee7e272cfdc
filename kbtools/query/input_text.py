"""A question's text as `kbtools.query.inputs` reads it and quotes it back: in Simplified
script, character for character (`simplified`), spans blanked out (`without`), words of the
compacted text as the question writes them (`as_written`).

Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbtools.index.tokenize import to_simplified
from kbtools.query.wording import is_cjk


def without(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    """`text` with each span a comma, character for character (so texts stay aligned)."""
    for start, end, _ in spans:
        text = text[:start] + "," * (end - start) + text[end:]
    return text


def simplified(question: str) -> str:
    """`question` with each Traditional character in Simplified script (`index.tokenize.
    to_simplified`: 溫度超過 is 温度超过), one for one; a character whose Simplified form lies
    beyond the common CJK block (鵟) as it is, a character the reader reads as Chinese."""
    simple = to_simplified(question)
    if simple == question or len(simple) != len(question):
        return question if len(simple) != len(question) else simple
    return "".join(s if is_cjk(s) or not is_cjk(q) else q
                   for q, s in zip(question, simple, strict=True))


def as_written(said: str, text: str, shown: str) -> str:
    """`said`, words of the compacted question `text` read in Simplified script, as the
    question writes them (`shown`, which lines up with `text`: 溫度, not 温度)."""
    written = {t: w for t, w in zip(text, shown, strict=True) if t != w}
    return "".join(written.get(ch, ch) for ch in said) if written else said
