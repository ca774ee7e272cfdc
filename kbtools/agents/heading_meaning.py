"""A section named in the other language by its words alone, found by what they mean.

An agent reading a Chinese document in English names its sections in English:
``read("knowledge/pump.md", "Risk level table")`` for the heading ``3.2 风险等级表``. With the
section number ("3.2 Risk level table") `kbtools.markdown.heading_paths` matches it; by its
words alone no text of any heading matched, and the read (and `evaluate_table` naming the
table by its section) failed, listing the sections. Each part of such a name written in
another script than the heading it stands against (Latin against CJK, or the reverse) is
now compared with that heading's words (its number left out) by meaning, with the
multilingual model every chunk is embedded with (USE, which ships its weights: nothing is
downloaded), loaded only when no heading matched by its text. A section is taken when its
headings are close in meaning (`MIN_SIMILARITY`) and clearly closer than any other
section's (`MIN_MARGIN`); otherwise nothing is guessed and the caller says no section
matched, as before. A part with a section number, or one in the heading's own script that
does not match it, names no section here: the number, or the words, already said which.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np

from kbtools.markdown.heading_paths import (
    heading_words,
    norm,
    other_script,
    path_matches,
    section_number,
)

log = logging.getLogger("kbtools.read")

MODEL = "use"  # the multilingual base model (`[embedding] model`'s default)
# cosine of a name and a heading's words that says the same thing in two languages: USE gave
# 0.58-0.86 for names of the example knowledge's sections ("Risk level table" and 风险等级表
# 0.68, "Daily inspection" and 日常检查 0.58), at most 0.31 for the other sections
MIN_SIMILARITY = 0.45
MIN_MARGIN = 0.15  # how far the section taken is ahead of the next one


def by_meaning(sections: Iterable[Any], parts: list[str]) -> list[Any]:
    """The sections of `sections` that `parts` (a heading path's parts, the last heading's
    last) name by meaning in another language: the closest, with any other whose headings
    say the same words (the caller tells those apart as it does for text); [] when no part
    crosses scripts, no section is close enough or two are too close to tell."""
    if not parts or any(section_number(p) for p in parts):
        return []
    sections = list(sections)
    pairs: dict[int, list[tuple[str, str]]] = {}  # section -> its (part, heading words) to weigh
    for n, sec in enumerate(sections):
        path = tuple(sec.heading_path)
        if len(path) < len(parts):
            continue
        crossed: list[tuple[str, str]] = []
        for part, heading in zip(parts, path[len(path) - len(parts):], strict=True):
            words = heading_words(heading)
            if path_matches([part], None, (heading,), whole=True):
                continue
            if not words or not other_script(part, words):
                break
            crossed.append((norm(part), words))
        else:
            if crossed:
                pairs[n] = crossed
    if not pairs:
        return []
    texts = sorted({t for crossed in pairs.values() for pair in crossed for t in pair})
    try:
        from kbtools.embed.base import normalise
        from kbtools.embed.registry import get_embedder

        vectors = normalise(get_embedder(MODEL).embed_batch(texts))
    except Exception as exc:  # no model here: nothing is found by meaning, as before
        log.warning("sections by meaning: the %s model did not load (%s)", MODEL, exc)
        return []
    at = {t: i for i, t in enumerate(texts)}
    score = {n: min(float(np.dot(vectors[at[a]], vectors[at[b]])) for a, b in crossed)
             for n, crossed in pairs.items()}
    best = max(score.values())
    if best < MIN_SIMILARITY:
        return []
    said = {n: tuple(b for _, b in pairs[n]) for n in pairs}  # the headings' words weighed
    top = next(n for n, s in score.items() if s == best)
    rest = [s for n, s in score.items() if said[n] != said[top]]
    if rest and best - max(rest) < MIN_MARGIN:
        return []
    return [sections[n] for n in pairs if said[n] == said[top]]
