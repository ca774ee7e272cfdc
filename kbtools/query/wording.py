"""How a question's words name a decision table's input, whichever script each is written
in (`kbtools.query.inputs` binds values with these): a Latin cell value named as a word
of its own, the script of a word against a header's, a word of the other script named by
the synonyms, the count noun of ``4 rainy days`` naming ``Rain days``, the English words
before a number that make it an amount of no name before them (``ran 5 hours``), and what
a fraction is said of (3%的病叶, 3%病叶, ``3% of the leaves``). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from kbtools.decision.headers import MIN_PART
from kbtools.index.tokenize import is_cjk as is_cjk  # re-exported: whether a character is Han
from kbtools.query.compacted import compact, compact_term
from kbtools.query.fillers import GLUED_NOT_NOUNS, drop_fillers
from kbtools.query.number_spans import CJK_NUMBER
from kbtools.query.value_units import DURATIONS, UNIT_CLASSES, unit_after
from kbtools.query.values import AMOUNT_LEADS, SUBJECTS

if TYPE_CHECKING:  # the table code is imported by a question that reaches a decision table
    from kbtools.decision.model import DecisionTable

# words that join two quantities named one after the other (温度22度和湿度90%): what follows
# one starts a name of its own, not a compound with it (和湿度 is 湿度; 土壤湿度 is not)
JOINERS = ("以及", "并且", "和", "与", "及", "跟", "同", "并", "且")
# words of time, sequence or contrast after which a name starts anew as well (温度22度，然后温度
# 23度: the same 温度 named again, as ``then the temperature`` is; 最低温度 is another one)
CLAUSE_LEADS = ("然后", "随后", "之后", "后来", "接着", "现在", "目前", "当前", "如今", "今天",
                "昨天", "但是", "可是", "不过", "而且", "另外", "同时", "但", "而", "又", "再")
NAME_STARTS = tuple(sorted(JOINERS + CLAUSE_LEADS, key=len, reverse=True))
# Short forms people write for a quantity a table's header spells out, as synonym groups
# (the form `kbtools.index.synonyms` gives `query.inputs`): ``rh 90%`` names 相对湿度(%) and
# ``Relative humidity (%)``, ``temp 26`` names ``Temperature (°C)``. Only abbreviations that
# mean one quantity whatever the subject; a knowledge base's own groups add to these.
ABBREVIATIONS: tuple[tuple[str, ...], ...] = (
    ("relative humidity", "rh", "相对湿度"),
    ("temperature", "temp", "温度"),
    ("state of charge", "soc", "荷电状态"),
)


# a one-word short form typed against its value, as a logger's display shows it (rh85%,
# RH90%, temp24): the short form as a whole word, a number right after it
_GLUED = re.compile("(?<![A-Za-z0-9_.-])(" + "|".join(sorted(
    (t for g in ABBREVIATIONS for t in g if t.isascii() and t.isalpha()), key=len, reverse=True))
    + r")(?=\d)", re.IGNORECASE)


def unglued(question: str) -> str:
    """`question` with a space between a one-word short form of `ABBREVIATIONS` and the
    number typed against it (``rh85%`` → ``rh 85%``, ``temp24 C`` → ``temp 24 C``), so the
    value is read as the short form's, as it is when typed apart: digits right after letters
    are otherwise part of an identifier (E17, c85). A longer word holding the letters
    (``hrh85``, ``temper85``) is left as it is."""
    return _GLUED.sub(r"\1 ", question)


def short_form_value(term: str) -> bool:
    """Is `term` (a token, a code typed as two words joined) a one-word short form of
    `ABBREVIATIONS` and the number typed against it (rh85, RH90, temp24, ``RH 85`` as the
    prefix and number of a code): a value of a named quantity, no name a knowledge lacks."""
    return bool(_GLUED.match(term)) and bool(re.fullmatch(r"\d+(?:\.\d+)?",
                                                          _GLUED.sub("", term, count=1)))


def with_abbreviations(synonyms: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """`synonyms` (spaceless term → the other terms of its group, as `query.search`
    keys them) with the groups of `ABBREVIATIONS` added to them."""
    merged = {term: list(group) for term, group in synonyms.items()}
    for group in ABBREVIATIONS:
        for term in group:
            have = merged.setdefault(term.replace(" ", ""), [])
            have.extend(t for t in group if t != term and t not in have)
    return merged


def abbreviated(synonyms: Mapping[str, Sequence[str]]) -> Terms:
    """`with_abbreviations` of `synonyms`, as `Terms`: remembered for `Terms` (a release's,
    `query.answers.input_synonyms`), so a search does not copy the synonyms file again for
    each table it reads."""
    return _abbreviated(synonyms) if isinstance(synonyms, Terms) else \
        Terms(with_abbreviations(synonyms))


@lru_cache(maxsize=16)
def _abbreviated(synonyms: Terms) -> Terms:
    return Terms(with_abbreviations(synonyms))


class Terms(Mapping[str, Sequence[str]]):
    """Synonyms (a term → the other terms of its group) frozen, and equal and hashed by what
    they hold: what `column_names` remembers a column's names by."""

    __slots__ = ("_terms", "_hash")

    def __init__(self, synonyms: Mapping[str, Sequence[str]]):
        self._terms = {term: tuple(others) for term, others in synonyms.items()}
        self._hash = hash(frozenset(self._terms.items()))

    def __getitem__(self, term: str) -> tuple[str, ...]:
        return self._terms[term]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Terms) and self._terms == other._terms

# how far after a duration its object is read (下了4天雨: 雨; 下了四天的雨): a word of one or
# two characters, 的 before it and filler words after it (下了4天雨了) aside
OBJECT_CHARS = 2


def duration_object(text: str, at: int) -> str:
    """The Chinese words right after a duration's unit ending at position `at` of compacted
    `text`, where the verb-duration-object order Chinese counts an event's days by puts the
    object (下了4天雨, 刮了三天的风, 浇了2天水): the run of Chinese characters up to one of
    another script or a clause mark, 的 before it and filler words ending it aside (下了4天雨了:
    雨); "" when none stands there. English: the words after ``of`` (``4 days of rain``)."""
    if text.startswith("of ", at):
        return fraction_of(text, at)
    rest = text[at:].removeprefix("的")
    end = next((n for n, ch in enumerate(rest) if not is_cjk(ch)), len(rest))
    return drop_fillers(rest[:end])


def object_names(text: str, at: int, key: str, names: Sequence[str],
                 synonyms: Mapping[str, Sequence[str]]) -> bool | None:
    """Whether the object after a duration ending at position `at` (`duration_object`: 雨 of
    下了4天雨, ``rain`` of ``4 days of rain``) names the column of header text `key`, as a
    count noun does (`noun_names`): a Chinese one by its first `OBJECT_CHARS` characters or
    fewer (the 雨 of 下了4天雨温度22度, a name after it); None when no object follows, or a
    run too long for one that names nothing (4天多云天气)."""
    noun = duration_object(text, at)
    if not noun:
        return None
    if noun.isascii():  # by its head, the last word (``4 days of heavy rain``)
        return noun_names(noun.split()[-1], key, names, synonyms)
    if any(noun_names(noun[:n], key, names, synonyms) for n in range(1, OBJECT_CHARS + 1)):
        return True
    return False if len(noun) <= OBJECT_CHARS else None


# the marks of a verb's aspect before an amount (下了4天雨, 下过3天雨): the word after the
# amount's unit is then the verb's object
ASPECTS = ("了", "过")
_DURATION_UNITS = tuple(sorted((w for n in DURATIONS for w in UNIT_CLASSES[n] if not w.isascii()),
                               key=len, reverse=True))
_NUMERALS = re.compile(r"[零〇一二两三四五六七八九十百千万]+")


def counted_object(text: str, lo: int, at: int) -> bool:
    """Whether the Chinese word `text[lo:at]` before a name is a duration's unit and object of
    a clause of its own (下了4天雨温度22度, 下了四天雨温度: the 雨 is what fell, no thing whose
    温度 it is): a verb's aspect mark (`ASPECTS`) before the amount, in digits before `lo` or
    in numerals starting the word, a unit of time after it and an object of at most
    `OBJECT_CHARS` characters."""
    num = lo
    while num and (text[num - 1].isdigit() or text[num - 1] == "."):
        num -= 1
    rest = text[lo:at]
    if num == lo:  # the amount in numerals, inside the word
        numeral = _NUMERALS.match(rest)
        if numeral is None:
            return False
        rest = rest[numeral.end():]
    unit = next((u for u in _DURATION_UNITS if rest.startswith(u)), "")
    return text[:num].endswith(ASPECTS) and bool(unit) and \
        0 < len(rest) - len(unit) <= OBJECT_CHARS


def noun_names(noun: str, key: str, names: Sequence[str],
               synonyms: Mapping[str, Sequence[str]]) -> bool:
    """Whether the count noun `noun` (rainy of ``4 rainy days``, 雨 of 4个雨天) names the
    column of header text `key` (without its unit, compacted): one of its `names`
    (`query.inputs.names_of`); English words each sharing a stem with a word of the header
    (``rainy`` and ``Rain days``, `stems_meet`); Chinese characters it shares with the
    header (雨 of 连续降雨天数); in the other script, a synonym group holding a term the
    header holds and a term the noun names so (连续降雨天数 = rainy days)."""
    if noun in names:
        return True
    if other_script(noun, key):
        return any(any(_names_by_stem(noun, t) for t in terms)
                   for terms in held_groups(key, synonyms))
    return _names_by_stem(noun, key)


def held_groups(key: str, synonyms: Mapping[str, Sequence[str]]) -> tuple[list[str], ...]:
    """The synonym groups (a term and its others, compacted) one of whose terms header text
    `key` holds; remembered for `Terms` (a release's: the same few for every question)."""
    return _held_groups(key, synonyms) if isinstance(synonyms, Terms) else \
        _groups_held(key, synonyms)


def _groups_held(key: str, synonyms: Mapping[str, Sequence[str]]) -> tuple[list[str], ...]:
    out = []
    for term, group in synonyms.items():
        terms = [compact_term(t) for t in (term, *group) if t]
        if any(holds(key, t) for t in terms):
            out.append(terms)
    return tuple(out)


@lru_cache(maxsize=1024)
def _held_groups(key: str, synonyms: Terms) -> tuple[list[str], ...]:
    return _groups_held(key, synonyms)


def _names_by_stem(noun: str, text: str) -> bool:
    """English: each word of `noun` shares a stem with a word of `text` (`stems_meet`);
    Chinese: `noun` shares a character with `text`."""
    if noun.isascii():
        own = text.split()
        return all(any(stems_meet(w, o) for o in own) for w in noun.split())
    return bool({ch for ch in noun if is_cjk(ch)} & set(text))


def stems_meet(a: str, b: str) -> bool:
    """Whether one of two English words starts with the other, the shorter of three letters
    or more (``rain`` and ``rainy``), or they do without a suffix that makes a noun or a form
    of a verb of the same stem (`_STEM_SUFFIXES`: ``operation`` and ``operating``)."""
    def meet(x: str, y: str) -> bool:
        return len(min(x, y, key=len)) >= 3 and (x.startswith(y) or y.startswith(x))
    return meet(a, b) or meet(_stem(a), _stem(b))


# suffixes of an English noun or verb form that leave its stem (``operation``, ``operating``,
# ``operated``: operat), cut only where a stem of `_MIN_STEM` letters or more is left
_STEM_SUFFIXES = ("ions", "ion", "ing", "ed")
_MIN_STEM = 5


def _stem(word: str) -> str:
    suffix = next((s for s in _STEM_SUFFIXES if word.endswith(s)), "")
    return word[:-len(suffix)] if suffix and len(word) - len(suffix) >= _MIN_STEM else word


def names_word(text: str, value: str) -> bool:
    """Whether `text` names the Latin cell value `value` as a word of its own, plural allowed
    (``outdoors`` names ``outdoor``; the no of ``noise`` or ``normal`` names no ``No``)."""
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        rest = text[end:end + 3]
        plural = next((p for p in ("es", "s") if rest.startswith(p)), "")
        if not is_latin(text[start - 1:start]) and not is_latin(text[end + len(plural):][:1]):
            return True
        start = text.find(value, start + 1)
    return False


def subject_words(table: DecisionTable, synonyms: Mapping[str, Sequence[str]] = {}) -> str:
    """What a table is about, as the words of a question may name it: its name, heading
    path and the titles of the callouts holding it, and the other terms of each synonym group one of whose terms they write (南方锈病 =
    southern rust, 液压油 = hydraulic oil): ``southern rust temperature 28 C`` is the table's
    own subject's temperature, as 南方锈病温度28度 is, and ``hydraulic oil 2100 hours`` its
    running hours, as 液压油2100小时 are."""
    context = " ".join((table.name, *table.heading_path, *table.callouts))
    bare = compact_term(context).replace(" ", "")
    return " ".join((context, *(t for key, group in synonyms.items()
                                if len(key) > 1 and key in bare for t in group)))


def names_subject(question: str, table: DecisionTable,
                  synonyms: Mapping[str, Sequence[str]] = {}) -> bool:
    """Whether `question` names what `table` is about by a synonym group one of whose terms
    its name, heading path or callouts' titles write (``wheat scab`` = 赤霉病, under 小麦赤霉病…): a Latin term as
    whole words, a Chinese one anywhere."""
    text = compact(question)
    bare = text.replace(" ", "")
    heading = compact_term(" ".join((table.name, *table.heading_path, *table.callouts))
                      ).replace(" ", "")
    for key, group in synonyms.items():
        if len(key) < 2 or key not in heading:
            continue
        for term in (key, *group):
            said = compact_term(term)
            if said and (names_word(text, said) if is_latin(said[:1]) else said in bare):
                return True
    return False


def other_script(word: str, key: str) -> bool:
    """Whether `word` is written in a script `key` has none of: CJK against a header of
    Latin words, or Latin against a header of CJK characters."""
    cjk = any(is_cjk(ch) for ch in key)
    latin = any(ch.isascii() and ch.isalpha() for ch in key)
    if any(is_cjk(ch) for ch in word):
        return not cjk
    return word.isascii() and not latin


def translates(word: str, key: str, synonyms: Mapping[str, Sequence[str]]) -> bool:
    """Whether `word`, in the other script than header `key`, may name it: yes when a
    synonym group holds a term in `word` and a term in `key` (软管 = hose: 软管用了 names
    ``hose age``; 滤芯 = filter element: 滤芯用了 names ``filter age``, a word of an English
    term is enough); no when a group holding a term in `word` has terms in the key's script
    but none in the key (软管 = hose: 软管用了 names no ``filter age``); else the word is
    not known and does not say: the number's unit, in the one column of that unit, decides."""
    return tied(word, key, synonyms) is not False


def tied(word: str, key: str, synonyms: Mapping[str, Sequence[str]]) -> bool | None:
    """`translates`' three answers: True (a synonym group ties `word` to header `key`),
    False (a group ties it to another thing), None (no group holds it: not known)."""
    other = False
    for term, group in synonyms.items():
        if not term or not holds(word, term):
            continue
        written = [w for g in group for w in compact_term(g).split(" ") if len(w) >= MIN_PART]
        if any(holds(key, w) for w in written):
            return True
        other = other or any(not other_script(w, key) for w in written)
    return False if other else None


def amount_subject(words: Sequence[str]) -> list[str] | None:
    """The subject of the English `words` right before a number (`values.Number.word`,
    split) when they end in a word after which it is an amount (`values.AMOUNT_LEADS`, or
    the verb after a subject: ``it ran``): the words before that lead that are no lead, no
    filler and no subject (pump of ``pump ran``, none of ``was used for``); None when they
    end in no such word (``bearing temperature``, ``pressure``)."""
    if not words or not (words[-1] in AMOUNT_LEADS or
                         (len(words) > 1 and words[-2] in SUBJECTS)):
        return None
    end = len(words) - 1
    while end and (words[end - 1] in AMOUNT_LEADS or not drop_fillers(words[end - 1])):
        end -= 1
    return [w for w in words[:end] if w not in SUBJECTS]


# what leads from a fraction to the thing it is a fraction of (3%的病叶, ``3% of the leaves``)
_OF = ("的", "of ")
_OF_LEADS = ("the ", "a ", "an ", "all ", "its ", "their ")
# English words that are no noun after a fraction (``90% and 26 C``, ``90% what should I do``,
# ``90% today``); the Chinese ones, `fillers.GLUED_NOT_NOUNS`
_EN_NOT_NOUNS = frozenset((
    "and", "or", "but", "then", "so", "is", "are", "was", "were", "be", "been", "being", "it",
    "its", "this", "that", "these", "those", "what", "which", "who", "how", "why", "when",
    "where", "should", "shall", "would", "could", "can", "will", "do", "does", "did", "must",
    "may", "might", "please", "now", "today", "yesterday", "tonight", "currently", "still",
    "again", "also", "already", "right", "here", "there", "with", "in", "on", "at", "to",
    "for", "from", "by", "after", "before", "since", "while", "if", "as", "than", "we", "you",
    "they", "he", "she", "my", "our", "your", "their", "the", "an", "of", "not", "no", "yet",
    "too", "okay", "outside", "inside", "overall", "average", "exactly", "about", "roughly",
    "approximately", "approx", "apprx", "circa", "ca", "est", "estimated", "give", "ish",
    "nearly", "almost", "or", "plus", "more", "less", "max", "min", "tops",
    "over", "under", "above", "below", "all", "any", "some", "out", "up", "down", "off"))


def glued_noun(text: str, at: int) -> str:
    """The noun written right after a fraction, from position `at` (where the text after the
    number and its unit starts): the CJK characters there up to a stop (3%病叶 → 病叶), or
    one or two English words of three letters or more (``3% diseased leaves``); "" when
    what follows is no noun (`GLUED_NOT_NOUNS`) or the name of the number after it (85%温度
    26度: 温度 is the 26's)."""
    rest = text[at:at + 24]
    if rest[:1] and is_cjk(rest[0]):
        end = next((n for n, ch in enumerate(rest) if not is_cjk(ch) or _amount_at(rest, n)),
                   len(rest))
        if rest.startswith(GLUED_NOT_NOUNS) or rest[end:end + 1].isdigit() or \
                _amount_at(rest, end):  # 85%下了四天雨: a clause of its own amount
            return ""
        return rest[:end]
    words: list[str] = []
    for w in rest.split(" ")[:2]:  # up to a comma or a number: ``leaves,26 c``
        head = _latin_head(w)
        if len(head) < 3 or head in _EN_NOT_NOUNS:
            break
        words.append(head)
        if head != w:
            break
    noun = " ".join(words)
    return "" if rest[len(noun):].lstrip(" ")[:1].isdigit() else noun


def _amount_at(text: str, at: int) -> bool:
    """Whether a Chinese numeral and a unit start at position `at` of `text` (四天, 三个月): an
    amount, as digits would be, which no noun holds."""
    m = CJK_NUMBER.match(text, at)
    return m is not None and (bool(m.group(1)) or  # 百分之九十
                              unit_after(text[m.end():].removeprefix("个"))[2] is not None)


def fraction_of(text: str, at: int) -> str:
    """The noun a fraction is said of after it, from position `at` of a compacted question
    (where the text after the number and its unit starts): the CJK characters after 的
    (3%的病叶 → 病叶), the words after ``of`` up to a comma or a number (``3% of the diseased
    leaves`` → ``diseased leaves``), else the noun right after it (`glued_noun`: 3%病叶,
    ``3% leaves``); "" when none follows."""
    rest = text[at:at + 40]
    lead = next((o for o in _OF if rest.startswith(o)), "")
    if not lead:
        return glued_noun(text, at)
    rest = rest[len(lead):]
    if lead == "的":
        end = next((n for n, ch in enumerate(rest) if not is_cjk(ch)), len(rest))
        return rest[:end]
    for word in _OF_LEADS:
        rest = rest.removeprefix(word)
    words = []
    for w in rest.split(" ")[:3]:  # up to a comma, a number or ``and``: ``of leaves,then``
        head = _latin_head(w)
        if head in _EN_NOT_NOUNS:
            break  # ``4 days of rain and 80% humidity``: rain
        if head:
            words.append(head)
        if head != w or not head:
            break
    return " ".join(words)


def _latin_head(word: str) -> str:
    """The Latin letters `word` starts with (``leaves`` of ``leaves,then``)."""
    return word[:next((n for n, ch in enumerate(word) if not (ch.isascii() and ch.isalpha())),
                      len(word))]


def fraction_names(noun: str, key: str, synonyms: Mapping[str, Sequence[str]]) -> bool:
    """Whether `noun`, what a fraction is said of (`fraction_of`), names the column of header
    text `key`: a word sharing a stem with one of the header's (``rated load`` and ``load``),
    a character shared with a CJK header (湿度 and 相对湿度), in the other script a synonym
    group that ties them (`tied`: an unknown word names no column)."""
    if other_script(noun, key):
        return tied(noun, key, synonyms) is True
    if noun.isascii():
        return any(stems_meet(w, o) for w in noun.split() for o in key.split())
    return bool({ch for ch in noun if is_cjk(ch)} & set(key))


def holds(text: str, term: str) -> bool:
    """Whether `text` holds `term` (spaceless, as synonym keys are): as a whole word when it
    is a Latin one (``hose`` in ``hose age``, ``hoseage`` too), anywhere in CJK text."""
    if is_latin(term[:1]):
        return any(names_word(t, term) for t in (text, text.replace(" ", "")))
    return term in text.replace(" ", "")


def is_latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()
