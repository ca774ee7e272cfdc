"""Spellings of one value that the BM25 tokenizer cuts into different parts.

`value_tokens` finds, in the normalised lower-case text `kbtools.index.tokenize.Tokenizer`
cuts (the same for chunks and questions), values the cut parts at punctuation and gives
each one token more, the same for every spelling: a number with thousands separators
(`1,000` and `1，000` also as `1000`). Their parts stay tokens too, so a question naming the
digits as written still matches. Stored text, snippets and citations keep what the author
wrote.
"""

from __future__ import annotations

import re

# In normalised lower-case text (NFKC made ， ASCII). Grouped digits: one to three, then
# groups of three after commas, not part of a longer number, list of numbers or code.
_VALUE_SPELLING = re.compile(
    r"(?<![a-z0-9_.,])(?P<grouped>\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?![\d]|[.,]\d)")


def value_tokens(text: str) -> list[str]:
    """One token per grouped number of `text` (normalised, lower case), which the tokenizer
    cuts at its commas: the number without them."""
    return [m.group("grouped").replace(",", "") for m in _VALUE_SPELLING.finditer(text)]
