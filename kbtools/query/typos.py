"""A question word typed with one slip of the keyboard: the word the knowledge writes.

"microenviroment", "green florescent protein", "thiopurine methyltrasnferase",
"leuekmogenesis": a word the index never saw that is one edit (a letter left out, added,
changed, or two neighbours swapped) from a word it holds is most often that word mistyped.
As written it matched nothing and counted as an unknown word of the question, with the
highest idf, towards "no answer" (scifact: "Mercaptopurine … by thiopurine
methyltrasnferase (TPMT)" was refused). `corrected` finds the index's word for such a
token; `kbtools.query.expansion.expand` searches it as a spelling of the question's word.

Only long words of letters are read so (`MIN_LETTERS` of the stemmed token: short words are
one edit from many others; up to `MAX_LETTERS`: no word is longer, and a code or name with digits or separators, E17, HX-260,
max_retries, is never a slip of another), and at most `MAX_WORDS` of a question (a pasted
log's unknown words are its own names, not slips). The edits are of the token, stemmed as
the index's terms are (floresc of florescent, one edit from fluoresc): a slip that changes
the stem itself (cavitaton, whose stem is not cavit's) is not found, which keeps the cost
to a few hundred set lookups per unknown word. Of several terms one edit away, the one
the most chunks hold. Pure: the caller gives the vocabulary and how many chunks hold each
term.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping

MIN_LETTERS = 7  # of the stemmed token: floresc (florescent), microenviro (microenviroment)
# ... and at most this many: a longer run of letters (a pasted hash, a base64 blob, a log
# line without spaces) is no slip of a word, and its edits cost the square of its length (a
# 2,000-letter token: ~100,000 strings of 2,000 characters, a second and 200 MB per token)
MAX_LETTERS = 64
MAX_WORDS = 4  # unknown words of one question tried (~0.3 ms each)
_LETTERS = string.ascii_lowercase


def one_edit(word: str) -> set[str]:
    """Every string one edit from `word` (lower-case ASCII letters): a letter deleted,
    two neighbours swapped, a letter changed or inserted."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in cuts if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
    out |= {a + c + b[1:] for a, b in cuts if b for c in _LETTERS}
    out |= {a + c + b for a, b in cuts for c in _LETTERS}
    out.discard(word)
    return out


def corrected(token: str, vocab: Mapping[str, int],
              holders: Callable[[list[int]], list[float]]) -> str | None:
    """The term of `vocab` one edit from `token` (a question's token, stemmed as the index's
    terms are, that the vocabulary lacks: floresc of florescent for fluoresc), the one held
    by the most chunks (`holders`: per term id, how many or what share of the chunks hold
    it; ties: the first in alphabetical order); None for a short or a very long token, one
    not all ASCII letters, or none one edit away."""
    if not MIN_LETTERS <= len(token) <= MAX_LETTERS or not (token.isascii() and token.isalpha()):
        return None
    near = sorted(v for v in one_edit(token) if v in vocab)
    if not near:
        return None
    held = holders([vocab[t] for t in near])
    return max(zip(held, near, strict=True), key=lambda pair: (pair[0], [-ord(c) for c in pair[1]]))[1]
