"""Query expansion from the knowledge's own vocabulary: synonym groups and document aliases.

A question that names a term of a synonym group (``data/synonyms.txt``, see
`kbtools.index.synonyms`) also searches BM25 for the other terms of the group; a question
that names an alias of a document (front matter ``aliases:``) also searches for the
document's title, and the document is routed (boosted like a front-matter value named in the
question, `kbtools.query.routing.route`). Expanded terms never replace the question's own:
their BM25 scores are added with the weight EXPANSION_WEIGHT (below the original's 1), so a
passage using the question's own word still wins a tie with one using a synonym.

For the relevance threshold a question word that the index never saw but whose synonyms it
knows is not "unknown" (a field user's word for something the knowledge covers), and a
passage holding a synonym of a question word covers that word. Pure but for the index's
tokenizer and vocabulary.

Besides the knowledge's own groups, every index knows the few groups of MEASURES: how a
question asks for a bound or an amount ("What is the maximum upload size …?") and how
documentation states one ("photos above the 25 MB upload limit"). The words share no token
(maximum/limit, size/MB), so BM25 could not see the answer and ranked a page that merely
names the product first. A term of the knowledge's own groups is never expanded by these.

A question word the index does not have, but has with a hyphen inserted or removed
(`spellings`: RS485 for RS-485, F03 for F-03, deadheading for dead-heading, tag-out for
tagout), searches for the index's spelling as if the question had written it: as an unknown
word it found nothing and counted towards "no answer". So does a question word that is a
code the index writes otherwise (`index_spellings`, `kbtools.query.codes`: E017 for the E17
of a fault-code table, ERR9007 for ``ERROR 9007 (HY000)``); a code the index holds as
written (p53, E17) is searched as written only. A code typed as two words (``E 17``,
`kbtools.query.codes.spaced_codes`) that the index holds only as one (E17) is searched as
that one (`joined_code`); as two words it is searched as written (``MEK 1``, ``Z 42``). Typed
in lower case (``e 17``) it is a code only where the index holds it joined and not as the two
words: prose writes words before numbers (``in 2``, ``top 10``).

Words the question writes apart that the index holds joined by underscores as one setting's
name (``poll interval ms``, ``max retries`` for ``poll_interval_ms``, ``max_retries``) are
searched as that name, as the question's own word, and are no unknown words.

A compound the question writes apart (``o ring``, ``check valve``, ``tag out``, ``tag-out``:
`kbtools.query.compounds`) that the index holds joined (oring, checkvalve, tagout) is searched
joined, as a spelling, and its words are covered by it (tag of tag-out is no unknown word).
The other way round, a question word of letters the index lacks (checkvalve, lockout) that
splits into two words a chunk writes side by side (check valve, lock out: `joined_words`) is
searched as those words (out, a stop word, is no token), together weighing as the one word
the question typed (each its share: a passage holding check and valve counted them as two
question words), and is no unknown word; two words the index merely holds (sand, box) do not
make sandbox. Three words are tried when no two are written so (airflowmeter: air flow
meter).

A word the question writes in the other national spelling (color, liters, aluminum, center
for the knowledge's colour, litres, aluminium, centre; a unit's name for its one-letter
symbol after a number, litres for 4.5 L: `english.regional_spellings`) is searched in the
index's spelling too, as the question's own word where the index lacks the question's, at
EXPANSION_WEIGHT where it holds both; and an everyday technical abbreviation
(temp, RH, pwr, dia: `english.ABBREVIATIONS`, ``from: "abbreviations"``) is expanded as
MEASURES are.

A value the question writes in Chinese numerals (保留三十天, 百分之九十, 二十至三十度:
`digits.numeral_spellings`) has its number searched in Arabic digits too (30, 90, 20 and
30), as the question's own word, where the index holds the number so: jieba makes 三十,
十天 and 三十天 of 三十天, words the knowledge never writes, and the number that told
passages apart was lost. The numeral's own words the index holds (二十) are searched as
well; those it lacks are covered by the digits (no unknown words).
"""

from __future__ import annotations

import re
import unicodedata
import weakref
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from kbtools.decision.numerals import NUMERAL_CHARS
from kbtools.index.reader import KbIndex
from kbtools.index.synonyms import parse
from kbtools.index.tokenize import EN_STOP
from kbtools.query.codes import (
    MAX_PADDING,
    code_parts,
    joined_spellings,
    key_line,
    prefixes,
    spaced_codes,
    split_spellings,
    written_apart,
)
from kbtools.query.compounds import LATIN_RUN, coded_compound, compounds, splits
from kbtools.query.digits import numeral_spellings
from kbtools.query.english import ABBREVIATIONS, regional_spellings
from kbtools.query.typos import MAX_WORDS, corrected

EXPANSION_WEIGHT = 0.5  # an expanded term's BM25 score counts half of a question term's

# The vocabulary of bounds and amounts, in every index (see the module docstring): a bound
# asked for and the words that state one; an amount of data and its units. Chinese and
# English; groups in the synonyms file format (`kbtools.index.synonyms`).
MEASURES = parse("""
maximum = max = limit = cap = largest
minimum = min = smallest = at least
size = MB = GB = KB = TB = KiB = MiB = GiB = bytes
最大 = 上限 = 最多 = 至多
最小 = 下限 = 最少 = 至少
""")[0]


@dataclass(frozen=True)
class Expansion:
    """What a question was expanded with."""

    terms: tuple[str, ...] = ()  # expansion tokens in the index's vocabulary
    ids: tuple[int, ...] = ()  # their BM25 term ids
    covers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # question token → tokens
    shown: tuple[dict[str, Any], ...] = ()  # {"term", "expanded": […], "from"} per named term
    # those of `ids` that weigh as a question term (see `expand`), the rest EXPANSION_WEIGHT
    full_ids: tuple[int, ...] = ()
    # those of `full_ids` that weigh other than a question term: a joined compound standing
    # for words its holders lack, more (`compound_weight`); the words a joined question word
    # stands for, each its share of one term (`joined_words`)
    weights: dict[int, float] = field(default_factory=dict)

    def weighed_ids(self) -> tuple[int, ...]:
        """The expansion ids searched at EXPANSION_WEIGHT (the others are in `full_ids`)."""
        return tuple(i for i in self.ids if i not in self.full_ids)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def covered(self, token: str, matched: set[str]) -> bool:
        """Whether a passage whose matched terms are `matched` holds `token` or a synonym."""
        return token in matched or any(t in matched for t in self.covers.get(token, ()))


NO_EXPANSION = Expansion()


def expand(index: KbIndex, text: str, routed_aliases: list[str],
           tokens: Collection[str] | None = None) -> Expansion:
    """The expansion of question `text`: the other terms of each synonym group it names (the
    knowledge's own, then MEASURES) and the titles of the documents whose `routed_aliases`
    it names. The expansion of a MEASURES word that no chunk of the index uses ("maximum"
    where the documentation says "limit") weighs as the question's own word: EXPANSION_WEIGHT
    lets a passage that uses the question's word win a tie, and here none can. `tokens`:
    the question's tokens when the caller has them (`Bm25.query_terms`' known and unknown
    terms), so that a search tokenizes its question once."""
    bm25 = index.bm25
    # the question's tokens, in its order (`tokens`: its known terms, then its unknown ones,
    # each in its order: the unknown ones, all `said` is read for, are in the question's)
    said = list(dict.fromkeys(bm25.tok(text) if tokens is None else tokens))
    own = set(said)
    mine = index.synonyms()
    named: list[tuple[str, list[str], str]] = [
        (t, mine.others(t), "synonyms") for t in mine.found_in(text)]
    named += [(t, [o for o in MEASURES.others(t) if not mine.others(o)], "measures")
              for t in MEASURES.found_in(text) if not mine.others(t)]
    # an abbreviation's words written out, and their synonyms in the knowledge's own groups
    # (temp: temperature, and 温度 where the knowledge groups 温度 = temperature)
    named += [(t, [w for o in ABBREVIATIONS.others(t) for w in (o, *mine.others(o))],
               "abbreviations") for t in ABBREVIATIONS.found_in(text) if not mine.others(t)]
    docs = index.docs()
    for alias in routed_aliases:
        holders = index.facet_docs("aliases").get(alias.casefold())
        titles = [str(docs[i]["metadata"].get("title") or "") for i in
                  (holders.tolist() if holders is not None else [])]
        named.append((alias, [t for t in titles if t], "aliases"))
    terms: dict[str, int] = {}
    covers: dict[str, tuple[str, ...]] = {}
    full: set[int] = set()
    weights: dict[int, float] = {}
    shown = []

    def cover(word: str, by: Iterable[str]) -> None:  # `word` found through `by`
        covers[word] = tuple(dict.fromkeys([*covers.get(word, ()), *by]))

    def as_own(term: str, words: Iterable[str], *, searched_too: bool = False) -> list[str]:
        """`words` (indexed) the question lacks, searched as its own words and shown as
        spellings of `term`; `searched_too`: also those an expansion above searched, which
        now weigh in full."""
        found = [w for w in words if w not in own and (searched_too or w not in terms)]
        for w in found:
            full.add(terms.setdefault(w, bm25.vocab[w]))
        if found:
            shown.append({"term": term, "expanded": found, "from": "spelling"})
        return found

    for term, others, source in named:
        known = list(dict.fromkeys(w for o in others for w in bm25.tok(o) if w in bm25.vocab))
        # the term's words are covered by its group's indexed words, those the question
        # names itself too ("滤芯 filter element": filter and element are not unknown words)
        for q in bm25.tok(term) if known else ():
            if q not in known:
                cover(q, known)
        found = [w for w in known if w not in own]
        if not found:
            continue
        for w in found:
            terms.setdefault(w, bm25.vocab[w])
        if source in ("measures", "abbreviations") and \
                not any(q in bm25.vocab for q in bm25.tok(term)):
            full.update(bm25.vocab[w] for w in found)
        shown.append({"term": term, "expanded": others, "from": source})
    # a word the index has only with or without a hyphen (RS485, deadhead), or a code it
    # writes otherwise (E17 for E017, ERROR 9007 for ERR9007)
    for q in own:
        if q in bm25.vocab:
            continue  # (most words: their spellings are not even made)
        spelled, covering = index_spellings(index, q)
        if searched := as_own(q, spelled, searched_too=True):
            cover(q, searched if covering == spelled else covering)  # (one token: itself)
    # a word the index lacks that it writes as two words (checkvalve, lockout: check valve,
    # lock out); only an unknown word is split, so an ordinary question costs nothing here
    gone = {q for q in own if q not in bm25.vocab and q not in covers and q.isascii()
            and q.isalpha()}
    for m in LATIN_RUN.finditer(unicodedata.normalize("NFKC", text)) if gone else ():
        word = m.group(0).lower()
        token = bm25.tok(word) if word.isascii() and word.isalpha() else []
        if len(token) != 1 or token[0] not in gone or not (apart := joined_words(index, word)):
            continue
        gone.discard(token[0])
        covers[token[0]] = apart
        found = as_own(m.group(0), apart)
        for w in found if len(apart) > 1 else ():  # one word typed: its words weigh as one
            weights[bm25.vocab[w]] = 1 / len(apart)
    remembered = bm25.tok.run_tokens  # (a question's word pairs: mostly the same words)
    for words in compounds(text):  # o ring, check valve, tag-out for the oring, … it holds
        key = remembered("_".join(words))  # poll interval ms: the poll_interval_ms it holds
        if len(key) == 1 and "_" in key[0] and key[0] in bm25.vocab and \
                " ".join(words) in text.lower():  # (typed hyphenated: a whole run, below)
            as_own(" ".join(words), key)
            for w in remembered(" ".join(words)):
                cover(w, key)
            continue
        joined = [w for w in remembered("".join(words)) if w in bm25.vocab]
        if len(joined) != 1 or joined[0] in (parts := remembered(" ".join(words))):
            continue
        if not (weight := compound_weight(index, bm25.vocab[joined[0]], parts)):
            continue  # written only hyphenated (TiDB-Lightning): its words find it already
        for w in parts:  # (tag of tag-out is no unknown word)
            cover(w, joined)
        if joined[0] not in own and joined[0] not in terms:
            terms[joined[0]] = jid = bm25.vocab[joined[0]]
            if not _together(index, words, parts):  # written only joined: as the question's words
                full.add(jid)
                if weight > 1:
                    weights[jid] = weight
            shown.append({"term": " ".join(words), "expanded": joined, "from": "spelling"})
    for m in LATIN_RUN.finditer(unicodedata.normalize("NFKC", text)):  # pg-terminate-backend
        run = m.group(0).lower()
        if "-" not in run and "." not in run:
            continue  # (most runs: no separator to respell)
        parts = [t for t in bm25.tok(run) if t not in bm25.vocab]
        whole = next((t for sep in "_-." for t in [bm25.tok(separated(run, sep))]
                      if len(t) == 1 and t[0] in bm25.vocab), None) if parts else None
        if whole is None or whole[0] in own or whole[0] in terms:
            continue
        as_own(m.group(0), whole)
        for w in parts:  # the run's pieces the index lacks are the identifier's
            cover(w, whole)
    for q in own:  # Rad53-dependent as Rad53 and dependent, where the index lacks it whole
        if q in bm25.vocab or q in covers or (coded := coded_parts(index, q)) is None:
            continue
        covers[q] = coded
        as_own(q, coded)
    regional = regional_spellings(text, bm25.tok.run_tokens, bm25.vocab, lambda s, n: (  # 4.5 L
        r["text"] for r in index.store.chunks(bm25.holders([bm25.vocab[s]], n)).values()))
    for word, said_as, other in regional:  # color for colour, liters for litres
        cover(said_as, other)
        if said_as not in bm25.vocab:  # the index's only spelling: as the question's own word
            as_own(word, other)
        elif found := [w for w in other if w not in own and w not in terms]:
            terms.update((w, bm25.vocab[w]) for w in found)
            shown.append({"term": word, "expanded": found, "from": "spelling"})
    unknown = [q for q in said if q not in bm25.vocab and q not in covers and q not in terms]
    for q in unknown[:MAX_WORDS]:  # microenviroment, echo-domain (kbtools.query.typos)
        if (fixed := corrected(q, bm25.vocab, lambda ids: bm25.share(ids).tolist())) is None:
            continue
        covers[q] = (fixed,)
        if fixed not in own and fixed not in terms:  # a guess: weighed as a synonym
            terms[fixed] = bm25.vocab[fixed]
            shown.append({"term": typed(text, q, remembered), "expanded": [fixed],
                          "from": "spelling"})
    for written, arabic in _numerals(text):  # 三十天 also as 30天, 百分之九十 as 90%
        digits = [w for w in dict.fromkeys(bm25.tok(arabic))
                  if w in bm25.vocab and any(ch.isdigit() for ch in w)]
        if not digits:
            continue  # the knowledge never writes the number so: nothing to search
        for q in bm25.tok(written):  # (三十, 十天 and 三十天 are no unknown words)
            if q not in bm25.vocab:
                cover(q, digits)
        as_own(written, digits)
    for prefix, number in spaced_codes(text, any_case=True):  # E 17, e 17 for E17
        joined = joined_code(index, prefix, number) or []
        as_own(f"{prefix} {number}", joined, searched_too=True)
        for w in bm25.tok(f"{prefix} {number}") if joined else ():
            cover(w, joined)
    return Expansion(tuple(terms), tuple(terms.values()), covers, tuple(shown),
                     tuple(i for i in terms.values() if i in full), weights)


def typed(text: str, token: str, tokens: Callable[[str], list[str]]) -> str:
    """The word of `text` as typed (lower case) whose one token is `token`; else `token`
    (echodomain of echo-domain: no one word)."""
    return next((w for m in LATIN_RUN.finditer(unicodedata.normalize("NFKC", text))
                 for w in (m.group(0).lower(),) if tokens(w) == [token]), token)


def coded_parts(index: KbIndex, token: str) -> tuple[str, ...] | None:
    """The index's tokens of a coded compound's name and words (`compounds.coded_compound`:
    rad53 and depend of ``rad53-dependent``), searched for it as the question's own words
    where the index lacks the compound whole; None when it is none or the index lacks the
    name (its words alone, depend, mediat, are not what the question asks about)."""
    parts = coded_compound(token)
    if parts is None:
        return None
    tok, vocab = index.bm25.tok, index.bm25.vocab
    name = [t for t in tok(parts[0]) if t in vocab]
    if not name:
        return None
    return tuple(dict.fromkeys([*name, *(t for w in parts[1] for t in tok(w) if t in vocab)]))


def _numerals(text: str) -> list[tuple[str, str]]:
    """The values `text` writes in Chinese numerals, each as written and in Arabic digits
    (`digits.numeral_spellings`); none read where no numeral character is."""
    return [] if NUMERAL_CHARS.isdisjoint(text) else numeral_spellings(text)


def _together(index: KbIndex, words: tuple[str, ...], parts: list[str]) -> bool:
    """Whether the knowledge writes a compound's `words` (`parts`: their tokens) as the
    question does too (health care beside healthcare): then its joined spelling is another
    way of writing them, searched at EXPANSION_WEIGHT; where it never does (oring,
    checkvalve), the joined spelling is the knowledge's only one, searched as the question's
    own words: a chunk holding them all writes them side by side (`apart_in`). Remembered
    per index."""
    known = _TOGETHER.setdefault(index, {})
    if words not in known:
        if len(known) >= MAX_JOINED:
            known.clear()
        bm25 = index.bm25
        ids = [bm25.vocab[p] for p in dict.fromkeys(parts) if p in bm25.vocab]
        held = bm25.holding_all(ids, SPLIT_CHUNKS) if len(ids) == len(set(parts)) else []
        known[words] = bool(held) and apart_in(index, words, held)
    return known[words]


def compound_weight(index: KbIndex, joined: int, parts: list[str]) -> float:
    """The weight of the joined compound `joined` (a BM25 id: checkvalve) searched for a
    question writing its words `parts` (tokens: check, valv) apart: the idf its holders miss
    of those words, each part's idf times the share of the holders lacking it (a part the
    index never saw: the highest idf), over the compound's own idf, and never below 1. A
    passage writing only checkvalve so scores as one writing check and valve once: weighed
    as one term, it lost to a check list holding check twice and no valve. 0 for a compound
    every holder of which holds its words too (the knowledge writes it only hyphenated,
    check-valve: checkvalve, check, valv): searching it would count those words twice."""
    bm25 = index.bm25
    held = round(float(bm25.share([joined])[0]) * bm25.num_docs)
    own = float(bm25.idf([joined])[0])
    if not held or own <= 0:
        return 1.0
    missed = 0.0
    pids = [bm25.vocab.get(part) for part in dict.fromkeys(parts)]
    both = bm25.co_held(joined, [p for p in pids if p is not None], held)  # at once
    for pid in pids:
        if pid is None:
            missed += bm25.max_idf()
        else:
            missed += float(bm25.idf([pid])[0]) * (1 - both[pid] / held)
    return max(1.0, missed / own) if missed > 0 else 0.0


def separated(token: str, sep: str) -> str:
    """`token` with `sep` for each of its hyphens, underscores and dots (an identifier typed
    with other separators than the knowledge writes: ``pg-terminate-backend`` for
    ``pg_terminate_backend``, whose hyphens the tokenizer splits at)."""
    return "".join(sep if ch in "-_." else ch for ch in token)


def spellings(token: str) -> list[str]:
    """Other spellings of a question token that the index may hold instead: with one hyphen
    inserted (``rs485`` → ``rs-485``, ``deadhead`` → ``dead-head``, ``f03`` → ``f-03``) or
    without its hyphens, underscores and dots, or with one of them for all of them
    (``tag-out`` → ``tagout``, ``rs_485`` → ``rs-485``, ``pg-terminate-backend`` →
    ``pg_terminate_backend``, ``server_port`` → ``server.port``). Tried only for a
    token the index does not have, so a word it has is never searched as another."""
    if not token.isascii() or len(token) < 3:
        return []
    out = [token[:i] + "-" + token[i:] for i in range(1, len(token))
           if token[i - 1].isalnum() and token[i].isalnum()]
    joined = "".join(ch for ch in token if ch not in "-_.")
    if joined != token and joined:
        out += [joined, *(separated(token, sep) for sep in "-_.")]
    return [v for v in dict.fromkeys(out) if v != token]


def index_spellings(index: KbIndex, token: str,
                    split: bool = True) -> tuple[list[str], list[str]]:
    """The index's spellings of a question token it does not have: (the terms to search,
    those that hold it). One token first: `spellings`, or a code's other spellings
    (`kbtools.query.codes.joined_spellings`: e17 for e017, error9007 for err9007); else, with
    `split`, a code as the two words the index writes it in (``ERROR 9007`` for err9007: its
    prefix's forms and its number, held by the number) when a chunk holding the number
    writes the code so (`split_spelling`). ([], []) when there is none. Only for a token
    the index does not hold: a code it holds as written (p53, E17) is never respelled."""
    vocab = index.bm25.vocab
    if token in vocab:
        return [], []
    one = [v for v in [*spellings(token), *joined_spellings(token)] if v in vocab and v != token]
    if one or not split:
        return list(dict.fromkeys(one)), list(dict.fromkeys(one))
    return split_spelling(index, token)


# A code's number held by more chunks than this is too common to look for the code in them
# (ERROR 9007: 2 chunks of TiDB's FAQ, ERROR 1105: 53; the 1 of a Class1 or YAP1: thousands).
SPLIT_CHUNKS = 200


def split_spelling(index: KbIndex, token: str) -> tuple[list[str], list[str]]:
    """The code `token` as the two words some chunk writes it in (``ERROR 9007`` for
    err9007): ([the prefix as that chunk writes it, the number], [the number]); ([], [])
    unless one of the at most SPLIT_CHUNKS chunks holding the number writes the code so
    (`kbtools.query.codes.written_apart`): that the index holds NF and 2, or K and 164,
    somewhere does not make NF2 or K164 the words NF 2 or K 164. The number is looked for
    as the code writes it without leading zeros and zero-padded (``ADR 0002`` for
    adr-0002 and adr2)."""
    vocab, bm25 = index.bm25.vocab, index.bm25
    pairs = [(p, z) for p, n in split_spellings(token)  # ADR 0002 for adr-0002: zero-padded
             for z in [n, *(n.rjust(w, "0") for w in range(len(n) + 1, MAX_PADDING + 1))]
             if p in vocab and z in vocab]
    pattern = written_apart(token)
    if not pairs or pattern is None:
        return [], []
    for number in dict.fromkeys(n for _, n in pairs):  # 2 of ADR 2, else 0002 of ADR 0002
        nid = vocab[number]
        if float(bm25.share([nid])[0]) * max(bm25.num_docs, 1) > SPLIT_CHUNKS:
            continue
        texts = index.store.identifier_texts(bm25.holders([nid], SPLIT_CHUNKS))
        found = next((m for text, heading, _ in texts.values()
                      for m in (pattern.search(text) or pattern.search(heading),) if m), None)
        if found is not None:
            # the prefix as the knowledge writes it (error, not the err of Go's err != nil)
            return [w for w in (found.group("prefix").lower(), number) if w in vocab], [number]
    return [], []


def joined_code(index: KbIndex, prefix: str, number: str) -> list[str] | None:
    """The index's one-token spellings of a code a question types as two words (``E 17``:
    e17, e017; `kbtools.query.codes.joined_spellings`) when the index does not hold the two
    words as written: one of them it never saw, or none of the at most SPLIT_CHUNKS chunks
    holding the number writes them apart (any case; a number held by more chunks may be
    written so: ``MEK 1``). [] when it holds them so (``Z 42`` of an aircraft's name), or
    holds both words and states the code on a line keyed by its prefix
    (`kbtools.query.codes.key_line`: ``HTTP status: 413``, ``* Error Number: 8158``), or
    holds both words and the prefix is no code's in it (``CPU 96 核``, ``TLS 13``: a count
    or a version as well as a code); None when the code is nowhere in it: one of its words
    unknown, or both known, the prefix a code's (`code_prefix`) and no chunk holding the
    number writing the code (``ERROR 9999`` where 9999 is a port number), and no one-token
    spelling (``E 99``)."""
    known = _JOINED.setdefault(index, {})
    if (prefix, number) not in known:  # a search asks up to three times (expansion, the
        if len(known) >= MAX_JOINED:   # unknown codes, the identifier's spelling)
            known.clear()
        known[(prefix, number)] = _joined_code(index, prefix, number)
    found = known[(prefix, number)]
    return None if found is None else list(found)


def _joined_code(index: KbIndex, prefix: str, number: str) -> list[str] | None:
    """`joined_code`, worked out (it reads the texts of the chunks holding the number)."""
    vocab, bm25 = index.bm25.vocab, index.bm25
    joined = [v for v in joined_spellings(prefix + number) if v in vocab]
    words = bm25.tok(f"{prefix} {number}")
    if len(words) == 2 and all(w in vocab for w in words):
        held = _held_apart(index, prefix, number, vocab[words[1]])
        if held or (not joined and (held is None or not code_prefix(index, prefix))):
            return []
        return joined or None
    return joined or None


# per index: `joined_code`'s answers, by (prefix, number) as typed (an index never changes)
_JOINED: weakref.WeakKeyDictionary[KbIndex, dict[tuple[str, str], list[str] | None]] = \
    weakref.WeakKeyDictionary()
MAX_JOINED = 1024  # codes kept per index; then forgotten all at once


def code_prefix(index: KbIndex, prefix: str) -> bool:
    """Is `prefix` a code's in the knowledge of `index`: one of the forms of a word that
    names a code (`kbtools.query.codes.PREFIX_FORMS`: ERR, ERROR), or a prefix of codes the
    index holds as one token (e17 and e01 make E a code's prefix in a fault-code manual;
    no cpu8 makes CPU one)?"""
    forms = prefixes(prefix.lower())
    if len(forms) > 1:
        return True
    known = _CODE_PREFIXES.get(index)
    if known is None:
        known = _CODE_PREFIXES[index] = frozenset(
            p for term in index.bm25.vocab if (parts := code_parts(term)) for p in parts[:1])
    return forms[0] in known


# per index: the prefixes of the codes its vocabulary holds as one token (`code_prefix`)
_CODE_PREFIXES: weakref.WeakKeyDictionary[KbIndex, frozenset[str]] = weakref.WeakKeyDictionary()


def _held_apart(index: KbIndex, prefix: str, number: str, nid: int) -> bool | None:
    """Does a chunk write the two words `prefix` `number` (any case, leading zeros as
    written)? True too when the number is held by more than SPLIT_CHUNKS chunks (not read);
    None when none does but one states the code on a line keyed by its prefix
    (`kbtools.query.codes.key_line`); False when no chunk holds the code either way."""
    bm25 = index.bm25
    if float(bm25.share([nid])[0]) * max(bm25.num_docs, 1) > SPLIT_CHUNKS:
        return True
    pattern = re.compile(rf"(?<![A-Za-z0-9_.\-]){re.escape(prefix)}\s+{re.escape(number)}"
                         rf"(?![A-Za-z0-9_]|[.,]\d)", re.IGNORECASE)
    texts = index.store.identifier_texts(bm25.holders([nid], SPLIT_CHUNKS)).values()
    if any(pattern.search(text) or pattern.search(heading) for text, heading, _ in texts):
        return True
    keyed = key_line(prefix, number)
    return None if any(keyed.search(text) for text, _, _ in texts) else False


def joined_words(index: KbIndex, word: str) -> tuple[str, ...]:
    """The index's tokens of the two words a question word of letters that the index lacks
    stands for (`kbtools.query.compounds.splits`: checkvalve, check valve; lockout, lock
    out: lock, the stop word out no token), when a chunk writes those two words side by side
    (`apart_in`); () when none does: the index holding sand and box somewhere does not make
    sandbox the words sand box. Remembered per index."""
    known = _APART.setdefault(index, {})
    if word not in known:
        if len(known) >= MAX_JOINED:
            known.clear()
        known[word] = _joined_words(index, word)
    return known[word]


def _joined_words(index: KbIndex, word: str) -> tuple[str, ...]:
    """`joined_words`, worked out (it reads the texts of chunks holding all the words): two
    words first, then three (airflowmeter: air flow meter) if no two words are written so.
    Only the splits whose leading words the index holds are split again, so an unknown word
    of n letters costs at most n² tokenizations of its pieces, once per index."""
    bm25 = index.bm25

    def held(piece: str) -> str | None:  # the index's one token of a leading word
        token = bm25.tok(piece)
        return token[0] if len(token) == 1 and token[0] in bm25.vocab else None

    def written(words: tuple[str, ...]) -> tuple[str, ...]:
        tail = bm25.tok(words[-1])
        if len(tail) > 1 or (tail and tail[0] not in bm25.vocab) or \
                (not tail and words[-1] not in EN_STOP):
            return ()
        tokens = (*(held(w) or "" for w in words[:-1]), *tail)
        nums = bm25.holding_all([bm25.vocab[t] for t in dict.fromkeys(tokens)], SPLIT_CHUNKS)
        return tokens if apart_in(index, words, nums) else ()

    leading = [(first, rest) for first, rest in splits(word) if held(first)]
    for first, rest in leading:
        if found := written((first, rest)):
            return found
    for first, rest in leading:
        for second, third in splits(rest):
            if held(second) and (found := written((first, second, third))):
                return found
    return ()


def apart_in(index: KbIndex, words: tuple[str, ...], nums: list[int]) -> bool:
    """Does one of the chunks `nums` write the word ``words[0]`` and then, each after
    spaces or tabs, words with the tokens of the others (any case: ``Check valves`` for check
    valve, ``air flow meters`` for air flow meter; a stop word as written: ``lock out``)?"""
    tok = index.bm25.tok
    tails = [tok(w) for w in words[1:]]
    pattern = re.compile(rf"(?<![A-Za-z0-9_.\-]){re.escape(words[0])}"
                         rf"(?=((?:[ \t]+[A-Za-z]+){{{len(tails)}}})(?![A-Za-z0-9_]))",
                         re.IGNORECASE)
    for text, heading, _ in index.store.identifier_texts(nums).values():
        for m in (*pattern.finditer(heading), *pattern.finditer(text)):
            after = m.group(1).split()
            if all((tok(a) == t) if t else a.lower() == w
                   for a, t, w in zip(after, tails, words[1:], strict=True)):
                return True
    return False


# per index: `joined_words`'s answers, by question word (an index never changes)
_APART: weakref.WeakKeyDictionary[KbIndex, dict[str, tuple[str, ...]]] = \
    weakref.WeakKeyDictionary()
# per index: `_together`'s answers, by a question's compound words
_TOGETHER: weakref.WeakKeyDictionary[KbIndex, dict[tuple[str, ...], bool]] = \
    weakref.WeakKeyDictionary()


def unknown_codes(index: KbIndex, text: str) -> list[tuple[str, str]]:
    """The codes `text` types as two words that are nowhere in the index (`joined_code` is
    None), (prefix, number) as typed (``E 99``, ``ERROR 9999``): a code the knowledge never
    mentions, as E99 typed whole is (`kbtools.query.fusion.answerable`), not a question its
    neighbour E17 answers."""
    return [(p, n) for p, n in spaced_codes(text) if joined_code(index, p, n) is None]
