"""How much of a question's term weight a chunk holds, and which of its terms: once per chunk
in a search.

A search asks three times about the same few chunks — the gate of links and anchor text
(`kbtools.query.fusion.words_found`, its best candidates), the no-answer rule (the results)
and the citations (each result's matched terms) — so one `Coverage` per search remembers,
per chunk number, the terms it holds and the share of the weight they carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from kbtools.decision.numerals import NUMERAL_CHARS
from kbtools.index.reader import KbIndex
from kbtools.index.tokenize import CJK
from kbtools.query.digits import numeral_values
from kbtools.query.expansion import NO_EXPANSION, Expansion
from kbtools.query.fusion import Hit
from kbtools.query.wording import short_form_value
from kbtools.textfind import occurrences


class Coverage:
    """The question's terms (`terms` known to the index, their BM25 `ids`, the `unknown`
    ones), its synonym expansion `exp` and the words of front-matter values it names that no
    chunk's text holds (`routed`: `kbtools.query.routing.routed_words`, not in `unknown`),
    against chunks of `index`. `question`: the text the terms are of; `values`, the unknown
    terms that only make up its values (`value_terms`), which weigh nothing."""

    def __init__(self, index: KbIndex, terms: list[str], ids: list[int], unknown: list[str],
                 exp: Expansion = NO_EXPANSION, routed: dict[str, np.ndarray] | None = None,
                 question: str = ""):
        self.index = index
        self.exp = exp
        self.terms, self.ids = terms + list(exp.terms), ids + list(exp.ids)
        self.routed = routed or {}
        self.values = value_terms(question, unknown)
        self.weighed = bool(ids or unknown or exp or self.routed)  # else every coverage is empty
        self.weights: dict[str, float] = {}
        self.total = 1.0
        if self.weighed:
            idf = index.bm25.idf(ids) if ids else np.zeros(0)
            self.weights = dict(zip(terms, idf.tolist(), strict=True))
            exp_idf = dict(zip(exp.terms, index.bm25.idf(list(exp.ids)).tolist(), strict=True)) \
                if exp else {}
            # a question word known only through its synonyms weighs as its rarest synonym
            # (an expansion term, or another word of the question: "滤芯 filter element")
            for t, alts in exp.covers.items():
                known = [w for a in alts if (w := exp_idf.get(a, self.weights.get(a)))
                         is not None]
                if t not in self.weights and known:
                    self.weights[t] = max(known)
            # a word of a front-matter value the question names (`routed_words`: no chunk's
            # text holds it) weighs as a term held by the chunks of the documents carrying it
            for t, held in self.routed.items():
                self.weights[t] = float(index.bm25.idf_of(np.array([float(held.sum())]))[0])
            # a question word the knowledge never uses weighs as much as the rarest term; a
            # value's unit (the 度 of 80度 where the knowledge writes ℃) or a value written in
            # Chinese numerals (八十度) names no subject
            missing = sum(t not in self.values for t in unknown) * index.bm25.max_idf()
            self.total = sum(self.weights.values()) + missing or 1.0
        self._matched: dict[int, list[str]] = {}
        self._share: dict[int, float] = {}

    def matched(self, num: int) -> list[str]:
        """The question's terms (expansion terms included) that chunk `num` holds (a new
        list: the caller may extend it)."""
        if num not in self._matched:
            self._matched[num] = self.index.bm25.matched(self.ids, self.terms, num) \
                if self.ids else []
        return list(self._matched[num])

    def of(self, hits: Iterable[Hit]) -> np.ndarray:
        """Per hit, the share of the question's idf weight it contains (a question word known
        only through its synonyms is covered by any of them); empty for a question without
        terms."""
        if not self.weighed:
            return np.zeros(0)
        out = []
        for h in hits:
            share = self._share.get(h.num)
            if share is None:
                held = set(self.matched(h.num))
                share = self._share[h.num] = sum(
                    w for t, w in self.weights.items()
                    if self.exp.covered(t, held) or (t in self.routed and self.routed[t][h.num])
                ) / self.total
            out.append(share)
        return np.array(out)

    def yields_to(self, fine: int, fine_text: str, enclosing: int, enclosing_text: str) -> bool:
        """Whether chunk `fine`, inside chunk `enclosing` of its document, holds the question's
        terms only through its heading path (the first line of its embed text, "Title ›
        heading", which every chunk under that heading inherits) while `enclosing` holds
        each of them in its own text (below that line): the table row whose only match is
        its section's heading, against the section saying it. Such a finer chunk matches no
        better than where it lies and gives way to the enclosing one."""
        terms = set(self.matched(fine))
        if not terms or not terms <= set(self.matched(enclosing)):
            return False
        tok = self.index.bm25.tok
        fine_own, enclosing_own = _below_heading(fine_text), _below_heading(enclosing_text)
        if not any(_CJK.search(t) for t in terms):  # Latin terms: the texts' Latin alone, as
            # Chinese text gives no Latin token (and an English question loads no segmenter)
            fine_own, enclosing_own = _CJK.sub(" ", fine_own), _CJK.sub(" ", enclosing_own)
        return terms.isdisjoint(tok(fine_own)) and terms <= set(tok(enclosing_own))

    def line_share(self, lines: Sequence[str], hits: Sequence[Hit]) -> float:
        """The largest share of one line's idf weight (a term the index never saw weighing
        as the rarest, as everywhere) that one of `hits` holds, over the lines of which it
        holds at least `LINE_TERMS` words (not numbers): 0.0 for none. What says that a
        best hit holds a pasted error line (its code and message) whatever the rest of the
        paste (stack frames, paths: the user's own names) weighs."""
        best = 0.0
        for line in lines:
            terms, ids, unknown = self.index.bm25.query_terms(line)
            idf = dict(zip(terms, self.index.bm25.idf(ids).tolist(), strict=True)) if ids else {}
            if sum(1 for t in idf if _WORD.search(t)) < LINE_TERMS:
                continue
            total = sum(idf.values()) + len(set(unknown)) * self.index.bm25.max_idf()
            for h in hits:
                held = [t for t in dict.fromkeys(self.matched(h.num)) if t in idf]
                if sum(1 for t in held if _WORD.search(t)) >= LINE_TERMS:
                    best = max(best, sum(idf[t] for t in held) / total)
        return best


def value_terms(question: str, unknown: Sequence[str]) -> set[str]:
    """The unknown terms that only make up values of `question`, which name no subject: a
    one-character term it writes only right after an Arabic number (80度, 3 天: the unit of
    a value, which the knowledge may write otherwise, ℃), and a term it writes only inside
    values in Chinese numerals (八十, 十度 and 八十度 of 八十度; 三天, 百分之九十:
    `digits.numeral_values`). A subject is none: the 蛆 of 韭菜根蛆, or a word holding a
    numeral and more (十字花科, 七星瓢虫, 一氧化碳) or a numeral not written the standard way
    (三七). A short form typed against its number (rh85: `wording.short_form_value`) is
    a value too."""
    numeral = unknown and not NUMERAL_CHARS.isdisjoint(question)
    spans = numeral_values(question) if numeral else []  # read only where there may be one
    out = {t for t in unknown if short_form_value(t)}  # rh85: 85 of the rh named
    for t in unknown:
        starts = occurrences(question, t)  # once per term, for both readings
        if starts and ((len(t) == 1 and all(question[:at].rstrip()[-1:].isdigit()
                                            for at in starts))
                       or all(any(s <= at and at + len(t) <= e for s, e in spans)
                              for at in starts)):
            out.add(t)
    return out


# A pasted line is held by a hit holding at least this many of its words (letters, not
# numbers alone: a log line's timestamp is in every log a knowledge quotes).
LINE_TERMS = 3
_WORD = re.compile(r"[^\W\d_]")
_CJK = re.compile(f"[{CJK}]")


def _below_heading(embed_text: str) -> str:
    """A chunk's embed text without its first line, the heading path every chunk under the
    same heading starts with (`build.chunk_text`): the chunk's own text."""
    return embed_text.partition("\n")[2]
