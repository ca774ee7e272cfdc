"""What a question's unknown and matched words tell the user, in the words the question wrote.

The index's terms are lower-cased and stemmed (`kbtools.index.tokenize`): ``cycle`` is the
term cycl, ``servo.overload_guard_ms`` the term servo.overload_guard_m, and a code typed as
two words that is nowhere in the knowledge (``E 99``) is weighed as the one token e99. The
rules that weigh unknown terms (`kbtools.query.fusion.answerable`,
`kbtools.query.calibration`) read those terms; the user is shown the question's own words
(`shown_unknown`), and among them the names and codes the knowledge does not hold
(`fusion.unknown_names`), which the answer to the rest of a question does not cover: a
pasted log answered about its alarm also names a setting no document holds. The terms a
result holds are shown so too (`shown_matched`), with the ways the result writes them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence

from kbtools.index.subscripts import subscripts
from kbtools.index.tokenize import CJK, other_spellings, to_simplified
from kbtools.query.compounds import LATIN_RUN
from kbtools.query.fusion import unknown_names
from kbtools.query.identifiers import nfkc

_CJK_TERM = re.compile(rf"[{CJK}]")
# a version (v2.3.1, 2.3.1, V1.2.0-rc1: a `v` and one dot, or two dots) or a network
# address with its port (10.0.0.1:8080) as a question writes it: what the user names, as a
# code, and a name the knowledge lacks whether or not its tokens (2.3.1; 10.0.0.1 and 8080)
# look like one; a decimal (2.5, v aside) is a value, not listed
_VERSION_OR_ADDRESS = re.compile(
    r"(?<![\w.:])(?:[vV]\d+(?:\.\d+)+|\d+(?:\.\d+){2,})"
    r"(?:[-+][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?::\d{1,5})?(?!\w|[.:]\w)")


def as_written(tok: Callable[[str], list[str]], text: str,
               terms: Sequence[str]) -> dict[str, str]:
    """How `text` writes each of `terms` (tokens of `tok`): the Latin run (NFKC-normalised,
    its case kept) whose tokens hold the term, or the characters a Chinese term (Simplified)
    stands for in the text (Traditional ones stay as written); a term found in neither way
    (a token the tokenizer made across runs): the term itself."""
    norm = unicodedata.normalize("NFKC", text)
    out: dict[str, str] = {}
    wanted = {t for t in terms if not _CJK_TERM.search(t)}
    for m in LATIN_RUN.finditer(norm) if wanted else ():
        for t in tok(m.group(0)):
            if t in wanted:
                out[t] = m.group(0)
                wanted.discard(t)
        if not wanted:
            break
    simple = to_simplified(norm.lower())
    aligned = len(simple) == len(norm)
    for t in terms:
        if t not in out and _CJK_TERM.search(t) and aligned and (at := simple.find(t)) >= 0:
            out[t] = norm[at:at + len(t)]
    return {t: out.get(t, t) for t in terms}


def held_as(tok: Callable[[str], list[str]], text: str,
            terms: Sequence[str]) -> dict[str, list[str]]:
    """Every way `text` (a chunk's title, headings and text) writes each Latin term of
    `terms`: the distinct Latin runs (NFKC-normalised, case kept) whose tokens hold it, in
    the order of the text (``bearing`` and ``Bearings`` for bear), then its subscripted
    symbols (``p_{max}`` for p_max and pmax: `subscripts`). A term no run holds (a Chinese
    term, a token the tokenizer made across runs) is not listed."""
    wanted = {t for t in terms if not _CJK_TERM.search(t)}
    out: dict[str, dict[str, None]] = {}
    # each distinct run once (a passage's runs as strings, deduplicated without Python
    # calls: five passages' runs are read for every answer)
    written = nfkc(text) if wanted else ""
    for run in dict.fromkeys([*LATIN_RUN.findall(written), *subscripts(written)]):
        for t in tok(run):
            if t in wanted:
                out.setdefault(t, {})[run] = None
    return {t: list(runs) for t, runs in out.items()}


def question_forms(tok: Callable[[str], list[str]], question: str,
                   terms: Sequence[str]) -> dict[str, str | None]:
    """How `question` writes each of `terms` (tokens): the first Latin run holding it
    (`held_as`: ``faulted`` for the stem fault), else the characters a Chinese term stands
    for (`as_written`); None where the question writes it nowhere (a synonym, the E17 of
    ``E 17``). Asked once per search for the terms of all its results (`shown_matched`)."""
    asked = held_as(tok, question, terms)
    typed = as_written(tok, question, [t for t in terms if t not in asked])
    return {t: asked[t][0] if t in asked else typed[t] if typed[t] != t else None
            for t in terms}


def shown_matched(tok: Callable[[str], list[str]], asked: Mapping[str, str | None],
                  shown: str, matched: Sequence[str]) -> list[str]:
    """The terms `matched` that a chunk holds (tokens: stems, Simplified), as a result lists
    them: each as the question writes it (`asked`, from `question_forms`), or, a term the
    question does not write, as the chunk's text `shown` first writes it; then every other
    way `shown` writes them (`held_as`: ``faults``; `other_spellings`: Traditional 數據 for
    数据), what a display highlights. Each spelling once, case aside; a term written nowhere
    (a token made across runs, 20000 of ``20,000``): the term."""
    held = held_as(tok, shown, matched)
    out: dict[str, str] = {}
    for t in matched:
        forms = held.get(t, [])
        first = asked.get(t) or (forms[0] if forms else t)
        for form in (first, *forms):
            out.setdefault(form.casefold(), form)
    for form in other_spellings(shown, matched):
        out.setdefault(form.casefold(), form)
    return list(out.values())


def shown_unknown(tok: Callable[[str], list[str]], text: str, unknown: Sequence[str],
                  codes: Sequence[tuple[str, str]], values: Collection[str] = ()
                  ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the question's unknown words, the codes and names among them), as it writes them,
    each once: the `unknown` terms (`as_written`; names: `fusion.unknown_names`), and each
    code typed as two words that is nowhere in the knowledge (`codes`: (prefix, number) as
    written, `kbtools.query.expansion.unknown_codes`) as typed (``E 99``), in the place of
    its two words; a version or address no document holds (`versions_and_addresses`) whole,
    as written, in the place of its terms, and among the names. `values`: the unknown terms
    that only make up values (rh85: `kbtools.query.coverage.value_terms`), no names the
    knowledge lacks."""
    written = as_written(tok, text, unknown)
    typed = [f"{p} {n}" for p, n in codes]
    parts = {w: f"{p} {n}" for p, n in codes for w in (p, n)}
    wholes = versions_and_addresses(tok, text, [t for t in unknown if t not in values])
    shown = [wholes.get(t) or parts.get(written[t], written[t]) for t in unknown]
    named = set(unknown_names([t for t in unknown if t not in values]))
    names = [wholes.get(t) or written[t] for t in unknown
             if t in wholes or t in named and written[t] not in parts]
    return tuple(dict.fromkeys([*shown, *typed])), tuple(dict.fromkeys([*names, *typed]))


def versions_and_addresses(tok: Callable[[str], list[str]], text: str,
                           unknown: Sequence[str]) -> dict[str, str]:
    """Each term of `unknown` (tokens no document holds) that is part of a version or an
    address `text` writes (`_VERSION_OR_ADDRESS`) whose own first term is unknown -> that
    version or address as written (``v2.3.1`` for the term 2.3.1; ``10.0.0.1:8080`` for
    10.0.0.1 and for 8080). Display only: which questions are answered reads the terms."""
    lacking = set(unknown)
    out: dict[str, str] = {}
    for m in _VERSION_OR_ADDRESS.finditer(nfkc(text)) if lacking else ():
        terms = tok(m.group(0))
        if terms and terms[0] in lacking:
            out.update((t, m.group(0)) for t in terms if t in lacking and t not in out)
    return out
