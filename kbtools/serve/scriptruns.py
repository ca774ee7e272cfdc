"""Runs of the other script inside knowledge text, each with its own ``lang``.

A paragraph, heading or cell says its language (`passes.block_langs`: the document's, or the
one most of its letters are in). A Chinese sentence with an English phrase in it
(``更换 mechanical seal assembly 之前关闭阀门``) was one `lang`: a screen reader's Chinese
voice spelled the English out or mangled it, and a Chinese run inside English text was read
by an English voice that cannot read Han characters at all, its glyphs picked by the
interface's font. What a reader needs, and no more (a voice switched for every code would
stutter):

- in English text, every run of Han characters is tagged Chinese (an English voice reads
  none of them; the glyphs are the Chinese ones);
- in Chinese text, a run of Latin script is tagged English when it is a phrase: at least
  `MIN_WORDS` words of letters (``mechanical seal``, ``Placement Driver``), a code or a
  number among them kept inside (``seal kit SKU-12``). A lone word, an acronym, a code
  (``SKU-12``, ``E07``, ``PD``) or a unit (``mg/L``) stays in the sentence's voice, as
  WCAG's "language of parts" leaves technical terms and names.

No regular expression: one scan of the text, linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import replace

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from kbtools.index.tokenize import CJK_RANGES
from kbtools.serve.i18n import HTML_LANG
from kbtools.serve.marks import highlight

MIN_WORDS = 2  # Latin words of letters that make a phrase its own `lang` in Chinese text
_JOINERS = frozenset("-'’.")  # inside a word or code, between two of its characters
_GAPS = frozenset(" \t\u00a0,;:/&")  # between the words of one phrase
_HAN_BETWEEN = frozenset(" \t\u00a0\u00b7")  # between Han characters of one run


# Han characters (the tokenizer's ranges) and CJK and full-width punctuation
_HAN = tuple(sorted([*CJK_RANGES, (0x3000, 0x303F), (0xFF00, 0xFFEF)]))
_HAN_LO, _HAN_HI = _HAN[0][0], _HAN[-1][1]


def _han(ch: str) -> bool:
    o = ord(ch)
    if o < _HAN_LO or o > _HAN_HI:  # most characters of English text: one comparison
        return False
    return any(lo <= o <= hi for lo, hi in _HAN)


def _latin(ch: str) -> bool:
    return (ch.isascii() and ch.isalnum()) or ("\u00c0" <= ch <= "\u024f" and ch.isalpha())


def _han_runs(text: str) -> list[tuple[int, int]]:
    """Spans of Han characters (and full-width punctuation; spaces between them kept in)."""
    runs: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        if not _han(text[i]):
            i += 1
            continue
        start = end = i
        while i < n:
            if _han(text[i]):
                end = i + 1
            elif text[i] not in _HAN_BETWEEN:
                break
            i += 1
        runs.append((start, end))
        i = end
    return runs


def _tokens(text: str) -> list[tuple[int, int, bool]]:
    """The Latin tokens of `text`: (start, end, whether a word of letters, ≥ 2 of them)."""
    out: list[tuple[int, int, bool]] = []
    i, n = 0, len(text)
    while i < n:
        if not _latin(text[i]):
            i += 1
            continue
        start = i
        while i < n and (_latin(text[i]) or (text[i] in _JOINERS and i + 1 < n
                                             and _latin(text[i + 1]) and _latin(text[i - 1]))):
            i += 1
        word = text[start:i]
        letters = [c for c in word if c not in _JOINERS]
        out.append((start, i, len(letters) >= 2 and all(c.isalpha() for c in letters)))
    return out


def _phrases(text: str) -> list[tuple[int, int]]:
    """Spans of Latin phrases: tokens joined by spaces or light punctuation, holding at least
    `MIN_WORDS` words, trimmed to begin and end with a word."""
    runs: list[tuple[int, int]] = []
    chain: list[tuple[int, int, bool]] = []

    def close() -> None:
        words = [t for t in chain if t[2]]
        if len(words) >= MIN_WORDS:
            runs.append((words[0][0], words[-1][1]))
        chain.clear()

    for tok in _tokens(text):
        if chain and not all(c in _GAPS for c in text[chain[-1][1]:tok[0]]):
            close()
        chain.append(tok)
    close()
    return runs


def other_script_runs(text: str, own: str) -> list[tuple[int, int, str]]:
    """The runs of `text` to tag with their own `lang` inside an element of language `own`
    (a `lang` attribute): (start, end, lang). None for an element of another language than
    Chinese or English."""
    primary = own.split("-")[0].casefold()
    if primary == "en":
        return [(a, b, HTML_LANG["zh"]) for a, b in _han_runs(text)]
    if primary == "zh":
        return [(a, b, HTML_LANG["en"]) for a, b in _phrases(text)]
    return []


def runs_html(text: str, own: str, pattern: re.Pattern[str] | None = None) -> str:
    """Plain knowledge text outside Markdown (a result's title, a heading of its path, a
    changed document's title) as HTML inside an element of language `own`: escaped, each run
    of the other script (`other_script_runs`) in a ``<span lang>`` as the page's text marks
    them, and the matches of `pattern` (the question's terms) in ``<mark>`` within each
    piece, as a passage marks them."""
    out, pos = [], 0
    for start, end, lang in other_script_runs(text, own):
        out.append(highlight(text[pos:start], pattern))
        out.append(f'<span lang="{escapeHtml(lang)}">{highlight(text[start:end], pattern)}</span>')
        pos = end
    out.append(highlight(text[pos:], pattern))
    return "".join(out)


def script_runs(tokens: list[Token], text_lang: str) -> list[Token]:
    """Each inline text run of the other script (`other_script_runs`) in ``lang_open`` /
    ``lang_close`` tokens, in place; the element's language is the nearest ``lang`` of the
    blocks it is in (`block_langs`), else `text_lang` (the document's)."""
    if not text_lang:
        return tokens
    stack = [text_lang]
    for tok in tokens:
        if tok.nesting == 1:
            stack.append(str(tok.attrGet("lang") or stack[-1]))
        elif tok.nesting == -1 and len(stack) > 1:
            stack.pop()
        elif tok.type == "inline" and tok.children:
            tok.children = _split(tok.children, stack[-1])
    return tokens


def _split(children: list[Token], own: str) -> list[Token]:
    out: list[Token] = []
    for child in children:
        runs = other_script_runs(child.content, own) if child.type == "text" else []
        if not runs:
            out.append(child)
            continue
        pos, text = 0, child.content
        for start, end, lang in runs:
            if start > pos:
                out.append(replace(child, content=text[pos:start]))
            out.append(Token("lang_open", "span", 1, attrs={"lang": lang}))
            out.append(replace(child, content=text[start:end]))
            out.append(Token("lang_close", "span", -1))
            pos = end
        if pos < len(text):
            out.append(replace(child, content=text[pos:]))
    return out
