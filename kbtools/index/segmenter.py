"""The jieba segmenter a `Tokenizer` cuts Chinese runs with, made once it is needed.

rjieba builds a segmenter of its own when it is imported (`rjieba._DEFAULT_JIEBA`: jieba's
dictionary read and its prefix tree built, ~0.1-0.3 s and ~25 MiB), which nothing in
kbtools cuts with. The first segmenter a process asks for is that one, with the domain
terms added; only a second one (another dictionary of terms in the same process) is built
anew. A cold Chinese `kb query` so builds jieba's dictionary once, not twice.
"""

from __future__ import annotations

import threading
from typing import Any

from kbtools.errors import ConfigError

JIEBA_MISSING = ("[bm25] tokenizer = \"jieba\" needs the jieba package: "
                 "pip install 'kbtools[jieba]' (the default, \"rjieba\", needs nothing more)")

_claim = threading.Lock()
_default_claimed = False  # rjieba's own segmenter was handed out (its words are ours now)


def segmenter(backend: str, words: tuple[str, ...]) -> Any:
    """A jieba segmenter of `backend` (``rjieba`` or ``jieba``) holding jieba's dictionary and
    `words` (in the script the text it cuts is in), its own: words added to one are in no
    other."""
    if backend == "rjieba":
        seg = _rjieba()
        for w in words:
            seg.add_word(w, None, None)
        return seg
    try:
        import jieba
    except ImportError:
        raise ConfigError(JIEBA_MISSING) from None
    seg = jieba.Tokenizer()  # jieba's import builds nothing: its default initializes on use
    seg.initialize()
    for w in words:
        seg.add_word(w)
    return seg


def _rjieba() -> Any:
    """rjieba's segmenter with jieba's dictionary and nothing added: the one its import made,
    the first time, and a new one after."""
    global _default_claimed
    import rjieba

    with _claim:
        own = None if _default_claimed else getattr(rjieba, "_DEFAULT_JIEBA", None)
        _default_claimed = True
    return own if own is not None else rjieba.Jieba()  # (a release without one: built)
