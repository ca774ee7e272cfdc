"""Which vector model reads a question, when the knowledge may be written in another language.

Every chunk is embedded with the base model (multilingual: USE), and the chunks of a
configured language (`[embedding] languages`: English → MiniLM) with that language's model
too, whose vectors are the stronger ones within it. A question in that language is read by
its model (`query_models`), which sees that language's chunks only: an English question
about a page written in Chinese ("corn rust symptoms", 玉米南方锈病) reached it through BM25
alone, that is only through a synonym an author happened to write, and was otherwise
answered from the wrong English pages or not at all.

So where the index holds chunks the language model does not cover (`partial`), the
question is also read by the base model, over every chunk (`vector_lists`). Similarity
across languages runs lower than within one (USE: 0.31–0.44 for an English question and
the Chinese section answering it, against 0.38–0.53 for the same question in Chinese), so
a chunk the language model cannot see at the top of the base model's list is strong
evidence that the answer is written in another language: the base model's list is then
the question's vector list (its English chunks ranked by it too, on one scale with the
rest). Otherwise the language model's list is, as before. An index whose chunks the
language model covers whole (an English corpus under MiniLM) is read as before, with no
second embedding.

A question read across languages (`crossed`) weighs its vectors as much as the shape
weighting ever does, fixed, when they reach the cross-language threshold (`crossed_params`;
below it they found nothing, and a synonym's BM25 evidence must not lose to their noise):
its BM25 list holds the chunks of its own
language that share a word with it ("symptoms", "often"), which the base model, reading
every chunk, ranked below the other language's (a synonym an author wrote still reaches
the other language's chunks through BM25, at the rest of the weight). It is judged by the no-answer rule against the
cross-language similarity threshold (`FusionParams.min_cross_cosine`), and the question's
words the knowledge never writes do not count as a subject it does not cover: they are
the other language's words (`kbtools.query.fusion.answerable`).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from kbtools.index.reader import KbIndex
from kbtools.index.tokenize import question_language
from kbtools.query.fusion import FusionParams, Ranked
from kbtools.query.inherit import vector_models

# per opened index and model: per chunk, is it scored by that model's vectors?
_COVERS: weakref.WeakKeyDictionary[KbIndex, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


def _embedding(index: KbIndex) -> dict[str, object]:
    emb: dict[str, object] = index.manifest["config"]["values"]["embedding"]
    return emb


# a word of a language written in Latin letters: three letters or more (not a code's
# letters: E17, HX-260), and after a number more than three (30 days; not a unit: 17.5MPa,
# 30 rpm)
_LETTERS = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{3,}(?![A-Za-z0-9])|(?<=[0-9])[A-Za-z]+")
_AFTER_NUMBER = re.compile(r"[0-9] ?$")


def worded(text: str) -> bool:
    """Does the question hold a word (`_LETTERS`), or is it numbers, units and codes only,
    which belong to no language?"""
    for m in _LETTERS.finditer(text):
        unit = bool(_AFTER_NUMBER.search(text, max(0, m.start() - 2), m.start()))
        if len(m.group()) >= 3 and not (unit and len(m.group()) <= 3):
            return True
    return False


def language_model(index: KbIndex, text: str) -> str | None:
    """The model configured for the question's language (`question_language`), when the
    index holds its vectors; None: the question is read by the base model, as is one of
    numbers, units and codes only (`worded`: no language's model is the stronger one)."""
    language = question_language(text)
    if language == "en" and not worded(text):
        return None
    languages = _embedding(index).get("languages") or {}
    model = languages.get(language) if isinstance(languages, dict) else None
    return model if isinstance(model, str) and model in index.manifest["models"] else None


def base_model(index: KbIndex) -> str | None:
    """The model every chunk is embedded with, when the index holds its vectors."""
    model = _embedding(index).get("model")
    return model if isinstance(model, str) and model in index.manifest["models"] else None


def query_models(index: KbIndex, text: str) -> list[str]:
    """Models to embed the question with when no cross-language reading is asked: the
    language model configured for the question's language when the index has it (its
    vectors are the stronger ones), else the base model, else every model the index has."""
    lang = language_model(index, text)
    if lang:
        return [lang]
    base = base_model(index)
    return [base] if base else sorted(index.manifest["models"])


def covered(index: KbIndex, model: str) -> np.ndarray:
    """Per chunk of `index`: is it scored by `model`'s vectors (its own, or those of the
    section whose vector it shares)? Made once per opened index."""
    known = _COVERS.setdefault(index, {})
    if model not in known:
        names, inverse = np.unique(vector_models(index), return_inverse=True)
        has = np.array([model in str(n).split(",") for n in names], dtype=bool)
        known[model] = has[inverse]
    return known[model]


def partial(index: KbIndex, model: str) -> bool:
    """Does some chunk of `index` have no vector of `model` (`covered`)?"""
    return not bool(covered(index, model).all())


def vector_lists(index: KbIndex, text: str,
                 search: Callable[[str], Ranked]) -> dict[str, Ranked]:
    """The question's vector candidate lists, named ``vector:<model>``, each made by
    `search(model)` (the local graph or an engine, with the question's filters): the base
    model's over every chunk when the best chunk it finds is one the question language's
    model cannot see (module docstring), else the usual models' (`query_models`)."""
    lang, base = language_model(index, text), base_model(index)
    if lang and base and base != lang and partial(index, lang):
        across = search(base)
        if len(across.keys) and not covered(index, lang)[int(across.keys[0])]:
            return {f"vector:{base}": across}
    return {f"vector:{model}": search(model) for model in query_models(index, text)}


def list_models(lists: dict[str, Ranked]) -> list[str]:
    """The models of the vector lists among `lists`, in their order."""
    return [name.split(":", 1)[1] for name in lists if name.startswith("vector:")]


def crossed(index: KbIndex, text: str, lists: dict[str, Ranked]) -> bool:
    """Was the question read across languages: its language has a model of its own in the
    index, and its vector list is another model's (`vector_lists`)?"""
    lang = language_model(index, text)
    models = list_models(lists)
    if lang is None:  # its language's model has no chunk here: every chunk is in another
        return absent_language(index, text) and bool(models)
    return bool(models) and lang not in models


def absent_language(index: KbIndex, text: str) -> bool:
    """Is the question worded in a language configured with a model of its own
    (`[embedding] languages`) of which the index holds no vectors? A build adds that model
    only for chunks written in its language, so such an index holds none: an English
    question over Chinese-only knowledge is then read by the base model alone, across
    languages, and is judged as one (`crossed`). It was judged as a question in the
    knowledge's own language, its every word one the knowledge never writes: "wheat scab
    risk" was no answer beside the Chinese page on 小麦赤霉病."""
    language = question_language(text)
    if language == "en" and not worded(text):
        return False
    languages = _embedding(index).get("languages") or {}
    model = languages.get(language) if isinstance(languages, dict) else None
    return (isinstance(model, str) and model not in index.manifest["models"]
            and base_model(index) is not None)


# a word of a language in Latin letters as the index holds it (lower case, stemmed): three
# letters or more and nothing else (not a code, E71, nor a setting, max_upload_retries)
_WORD_TERM = re.compile(r"[a-z]{3,}")
_ACRONYM = re.compile(r"[A-Z]{2,}")


def foreign_words(text: str, unknown: Sequence[str], written: Mapping[str, str]) -> bool:
    """Are the only words of the Chinese question `text` that the knowledge never writes
    (`unknown`: index terms, each as the question writes it in `written`) words of a language
    in Latin letters ("玉米 rust 症状", "E17 报警 怎么 reset")? A technician mixes in the English
    word for what the knowledge writes in Chinese, and the base model reads such a question
    across the two languages, as it reads an English one over Chinese knowledge (`crossed`):
    the no-answer rule judges it so (`kbtools.query.fusion.answerable`). A code or setting (E71,
    ``max_upload_retries``) or an acronym typed in capitals (SAML, RDS: a product or protocol's
    name) is no word of a language but a name the knowledge does not cover; a Chinese word
    it never writes (叉车) a subject it does not cover."""
    if not unknown or question_language(text) != "zh":
        return False
    return all(_WORD_TERM.fullmatch(t) and not _ACRONYM.fullmatch(written.get(t, t))
               for t in unknown)


def crossed_params(params: FusionParams, lists: dict[str, Ranked], *,
                   named: bool = False) -> FusionParams:
    """`params` for a question read across languages (module docstring): BM25 and vectors
    weighed fixed, the vectors at the shape weighting's most (``shape_scale``) — when the
    vectors find the other language's answer, their best similarity reaching
    ``min_cross_cosine``. Below it they found nothing the no-answer rule would answer
    from, only the least unrelated passages, and the BM25 list is the evidence (a synonym
    group an author wrote, "fusarium head blight" = 赤霉病): the question is weighed as any
    other (`params` unchanged), not with the noise rescaled to the most weight. So is one
    whose every word the index lacks a synonym group of the knowledge names (`named`:
    "wheat scab", "fusarium head blight" = 赤霉病): the author's own word for it is the
    evidence, and a similarity just over the threshold was a page on another thing ("wheat
    scab" found 小麦蚜虫 at 0.3316 and ranked it above the 赤霉病 page BM25 ranked first)."""
    if params.weighting != "shape" or named or \
            best_similarity(lists) < params.min_cross_cosine:
        return params
    return replace(params, weighting="fixed", bm25_weight=1.0 - params.shape_scale,
                   vector_weight=params.shape_scale)


def best_similarity(lists: dict[str, Ranked]) -> float:
    """The best similarity of the vector lists among `lists` (0 without any)."""
    return max((float(r.scores.max()) for name, r in lists.items()
                if name.startswith("vector:") and len(r.scores)), default=0.0)


def crossed_lists(index: KbIndex, text: str, lists: dict[str, Ranked]) -> dict[str, Ranked]:
    """`lists` of a question read across languages with its BM25 list left without the
    chunks of its own language that the base model did not list: words shared by chance."""
    lang, bm25 = language_model(index, text), lists.get("bm25")
    if lang is None or bm25 is None or not len(bm25.keys):
        return lists
    listed = np.concatenate([r.keys for name, r in lists.items() if name.startswith("vector:")])
    keep = ~covered(index, lang)[bm25.keys] | np.isin(bm25.keys, listed)
    ranks = None if bm25.ranks is None else bm25.ranks[keep]
    return {**lists, "bm25": Ranked(bm25.keys[keep], bm25.scores[keep], ranks)}
