"""BM25 tokenisation for Chinese and English, the same at index and query time.

Chinese runs are segmented with jieba (rjieba, the Rust port, by default: identical output
with HMM off and several times faster) in search mode, so compound terms also yield their
parts; a domain dictionary (front-matter values + an optional user file) keeps terms such
as 赤霉病 or 戊唑·咪鲜胺 whole. Latin text becomes lower-cased words with English stop words
removed (one written in capitals in a text that is not all capitals is an acronym and kept:
CAN, IT, NO, ON/OFF), stemmed with Snowball (PyStemmer); a value is the same tokens however it is spaced
(150psi as 150 psi, 10-20 as 10~20, v6.5.0 as 6.5.0, M8x1.25 as M8×1.25: `latin_words`), and a compound of
words as written joined, hyphenated or spaced (O-ring as oring and O ring: `_compound_tokens`). Text is NFKC-normalised
first (full-width → ASCII), and Chinese text is mapped to Simplified script with OpenCC (`to_simplified`), so Traditional
and Simplified spellings of a word are one token and Traditional text is segmented with the
(Simplified) jieba dictionary. Only the tokens change: stored text, snippets and citations keep
the characters the author wrote (`other_spellings` finds a token's spellings in them). A dash
joining two letters or digits is a hyphen (HX–260 as HX-260: `spellings.code_dashes`), the
courtesies a phone question ends with (pls, thanks) are stop words, and a unit written as a
word is its symbol (degC and Celsius as C, megabytes as MB: `spellings.UNIT_WORDS`). A LaTeX
subscript also gives its plain spellings (p_{max} as p_max, pmax and p max: `subscripts`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from kbtools.config import kb_home
from kbtools.errors import ConfigError
from kbtools.fsutil import atomic_write_text
from kbtools.index.segmenter import JIEBA_MISSING, segmenter
from kbtools.index.spellings import (
    DEGREE_SCALES,
    DEGREE_WORDS,
    UNIT_WORDS,
    code_dashes,
    respell,
    written_units,
)
from kbtools.index.subscripts import SUBSCRIPT, subscript_spellings

CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
CJK = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in CJK_RANGES)
_RUN = re.compile(rf"([{CJK}·]+)|([a-z0-9](?:[a-z0-9_\-.+#]*[a-z0-9+#])?)")  # tail optional:
# the same runs as a second alternative for a lone character, scanned faster
_CJK_CHAR = re.compile(rf"[{CJK}]")


def is_cjk(ch: str) -> bool:
    """Whether `ch`, one character, is a CJK ideograph (`CJK_RANGES`: the one definition the
    query readers and the filters use too); an empty string is none."""
    return len(ch) == 1 and any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)


SCRIPT = "t2s"  # OpenCC configuration that normalises the script of Chinese text for tokens
TOKENS_VERSION = "v10"  # bump when tokens change for the same text (recorded in the manifest)

EN_STOP = frozenset("""
a an the and or but if then else of to in on at by for with from as is are was were be been
being it its this that these those there here into onto over under than so such not no nor
do does did done have has had having i you he she we they them his her our your their my me
us what which who whom whose when where why how all any both each few more most other some
own same too very can will just should would could may might must shall also about above
after again against below between during further once only out up down off until while
please pls plz thank thanks thx
""".split())

ZH_STOP = frozenset("""
的 了 和 是 在 也 就 都 而 及 与 或 之 其 个 这 那 有 被 把 对 从 以 为 于 上 中 下 等 吗 呢 吧 啊
么 得 地 着 过 能 才 还 又 很 再 让 给 要 会 我 你 他 她 它 们 我们 你们 什么 怎么 怎么办 怎样 如何
哪些 哪个 哪里 哪儿 多少 是否 可以 需要 应该 一个 一下 一直 进行 使用 时候 意思 还要 还能 出来 准备
为什么 有没有 是不是 能不能 请问
""".split())


# English clitics after an apostrophe (pump's, it's, you'll, we're, they've, I'd, I'm, don't):
# no words of their own (the s of pump's matched the s of in/s); a stop word before n't is
# dropped with it (don't, doesn't, isn't: do not, …)
_CLITICS = frozenset(("s", "t", "ll", "re", "ve", "d", "m"))
_APOSTROPHES = "'’"


def _clitic(text: str, start: int, end: int) -> bool:
    """Whether the Latin run text[start:end] is a clitic after an apostrophe (the s of
    pump's) or a stop word whose n't follows it (the don of don't)."""
    if text[start:end] in _CLITICS and start >= 2 and text[start - 1] in _APOSTROPHES and \
            text[start - 2].isalnum():
        return True
    run = text[start:end]
    return run.endswith("n") and run[:-1] in EN_STOP and text[end:end + 1] in _APOSTROPHES \
        and text[end + 1:end + 2] == "t" and not text[end + 2:end + 3].isalnum()


_NUMBER = r"\d+(?:\.\d+)?"
# A value written as a technician types it either way: a number glued to its unit (150psi,
# 0.5mm, 16gb, 5m2 as NFKC writes 5m²: "150 psi"), a range of two numbers (10-20, 20-32c: "10~20", "10 - 20"), a
# dotted version with its "v" (v6.5.0: "6.5.0"), a product of sizes with an x (M8x1.25,
# M8X1.25, 1920x1080, 2x16gb: as M8×1.25, whose × already parts them), a decimal number glued
# to the word of two or more letters it measures (ph6.5, pm2.5, mysql5.7, tls1.2: "pH 6.5").
# Not hex (0xff), nor codes that have letters before their whole number (m8, e17, hx-260,
# ph7) or one letter before a decimal (h3.3, e11.5), nor more parts (2024-03-01, 1e-5):
# those stay whole.
_AMOUNT = re.compile(rf"({_NUMBER})((?!x[0-9a-f]|e\d)[a-z]+[23]?)")
_RANGE = re.compile(rf"({_NUMBER})-({_NUMBER})([a-z]*)")
_VERSION = re.compile(r"v(\d+(?:\.\d+)+)")
_DIMENSION = re.compile(rf"([a-z]*{_NUMBER})((?:x{_NUMBER})+)([a-z]*)")
_MEASURED = re.compile(r"([a-z]{2,})(\d+(?:\.\d+)+)")
# pH glued to a whole number of its scale (0-14) or a range: pH7 is pH 7 and pH6-8 pH 6-8,
# as pH6.5 is pH 6.5 (`_MEASURED`).
_PH_VALUE = r"(?:1[0-4]|\d)(?:\.\d+)?"
_PH = re.compile(rf"ph({_PH_VALUE}(?:-{_PH_VALUE})?)")
# Units that are also English stop words: us (microseconds: 10 us, 10 μs, 10us) kept after a
# number, glued or spaced; in (inches) only glued (5in), as "1 in 10" is a word. Not a and i:
# glued to a number they are names (IL-17A, 5-HT1A, 2i, 131I), spaced words ("1 a day").
_STOP_UNITS = frozenset({"us"})
_GLUED_UNITS = frozenset({"us", "in"})
_NUMBER_BEFORE = re.compile(r"\d[ \t]*$")


def latin_words(run: str) -> tuple[str, ...]:
    """The words of one lower-cased Latin run, a number and its unit apart so that every
    spelling of a value gives the same tokens (see `_AMOUNT`, `_RANGE`, `_VERSION`,
    `_DIMENSION`, `_MEASURED`)."""
    if run[0].isdigit() or (run[0] == "v" and run[1:2].isdigit()):
        if m := _AMOUNT.fullmatch(run):
            return m.group(1), m.group(2)
        if m := _RANGE.fullmatch(run):
            return tuple(w for w in m.groups() if w)
        if m := _VERSION.fullmatch(run):
            return _release(m.group(1))
        if run.endswith(".0"):
            return _release(run)
    if "x" in run and (m := _DIMENSION.fullmatch(run)) and m.group(1) != "0":
        return m.group(1), *m.group(2)[1:].split("x"), *filter(None, [m.group(3)])
    if "." in run and (m := _MEASURED.fullmatch(run)):
        return m.group(1), *latin_words(m.group(2))
    if run.startswith("ph") and (m := _PH.fullmatch(run)):
        return "ph", *latin_words(m.group(1))
    return (run,)


_SERIES_FIRST = re.compile(r"(\d+\.\d+)\.0")


def _release(version: str) -> tuple[str, ...]:
    """A dotted version's words: a release x.y.0 is also its series x.y (v6.5.0 is TiDB
    6.5, as "TiDB 6.5 新特性" asks of it); x.y.1 and four-part numbers (192.168.1.0) are not."""
    m = _SERIES_FIRST.fullmatch(version)
    return (version, m.group(1)) if m else (version,)


_VALUE_FIRST = frozenset("0123456789v")  # a run that may be a value starts so (or holds a digit)


@lru_cache(maxsize=200_000)
def _value_tokens(run: str) -> tuple[str, ...]:
    """The tokens of a Latin run that may be a value (`latin_words`, stemmed, stop words
    dropped); cached, as numbers and versions repeat through a corpus. A unit glued to its
    number is kept though a stop word (`_GLUED_UNITS`: 10us, 5in)."""
    words = latin_words(run)
    if len(words) == 2 and words[1] in _GLUED_UNITS and run == words[0] + words[1]:
        return words
    if len(words) == 2 and words[1] in UNIT_WORDS:  # 30degc, 25megabytes: 30 c, 25 mb
        return words[0], UNIT_WORDS[words[1]]
    return tuple(_stem(w) for w in words if w not in EN_STOP)


# A compound of words joined by hyphens, letters only (O-ring, e-mail, re-torque, V-belt,
# check-valve): not a code or value (E-17, RS-485, 10-20, IL-17A keep their own tokens).
_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")
# before a compound, a character that makes it part of an identifier, kept whole: a path's
# segment (/sql-statements/, also with a / after it), an option (--config-file), a key
_IDENTIFIER_BEFORE = frozenset("/\\-_.:=@$")


@lru_cache(maxsize=200_000)
def _compound_tokens(run: str) -> tuple[str, ...]:
    """The tokens of a hyphenated compound (`_COMPOUND`): the word written without its hyphens
    (O-ring as oring, re-torque as retorque), then each part (as O ring, re torque), stemmed,
    stop words dropped; so the joined, hyphenated and spaced spellings meet."""
    parts = run.split("-")
    words = [_stem("".join(parts)), *(_stem(p) for p in parts if p not in EN_STOP)]
    return tuple(dict.fromkeys(words))


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """Snowball (Porter 2) English stem; words with digits (e17, v6.0) stay as written."""
    if len(word) <= 3 or any(ch.isdigit() for ch in word) or not word.isascii():
        return word
    stem: str = _stemmer().stemWord(word)
    return stem


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _opencc() -> Any:
    import opencc

    return opencc.OpenCC(SCRIPT)


@lru_cache(maxsize=1)
def _traditional() -> re.Pattern[str]:
    """A character class of the CJK characters that OpenCC changes on their own (about 4,200
    of the 28,000): text holding none is Simplified (or script-neutral) and is left alone.
    The characters are found once per OpenCC installation and kept in KB_HOME
    (`traditional_chars`), so a cold question neither loads OpenCC nor converts 28,000
    characters. (A regex: scanning long texts at build time it is ~4× a frozenset's speed.)"""
    return re.compile(f"[{re.escape(traditional_chars())}]")


def _opencc_key() -> str:
    """What the set of changed characters depends on: OpenCC's installed files (path, size,
    modification time), its configuration and the CJK ranges."""
    spec = importlib.util.find_spec("opencc")
    root = Path(spec.origin).parent if spec is not None and spec.origin else None
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root is not None else []
    stats = [[str(f), st.st_size, st.st_mtime_ns] for f in files for st in [f.stat()]]
    blob = json.dumps([stats, SCRIPT, CJK_RANGES]).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def traditional_chars() -> str:
    """The characters OpenCC (`SCRIPT`) changes on their own, from the KB_HOME cache when it
    has them (a cache problem never stops tokenising: they are computed again)."""
    path = kb_home() / "cache" / f"opencc-{SCRIPT}-{_opencc_key()}.txt"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        pass
    chars = [chr(c) for lo, hi in CJK_RANGES for c in range(lo, hi + 1)]
    converted = _opencc().convert("\n".join(chars)).split("\n")
    if len(converted) != len(chars):  # not one to one: convert every text with CJK
        changed = "".join(chars)
    else:
        changed = "".join(c for c, s in zip(chars, converted, strict=True) if c != s)
    try:
        atomic_write_text(path, changed)
    except OSError:
        pass
    return changed


def to_simplified(text: str) -> str:
    """`text` with Traditional Chinese characters (and the phrases whose mapping depends on
    context: 乾燥 → 干燥 but 乾隆 stays) in Simplified. Text without a Traditional character
    is returned as is without calling OpenCC, so Simplified text keeps its exact tokens and
    costs one regex scan."""
    if not _traditional().search(text):
        return text
    out: str = _opencc().convert(text)
    return out


def other_spellings(text: str, terms: Iterable[str]) -> list[str]:
    """How `text` writes `terms` (tokens, so Simplified) where that differs from the term: in a
    Traditional text matched by the token 数据 that is 數據. Case aside, a term written as
    such is not listed. Found where `to_simplified` keeps the length of `text` (it maps
    characters one to one almost always), in order of the terms, each spelling once."""
    lowered = text.lower()
    simple = to_simplified(lowered)
    if len(simple) != len(text) or simple == lowered:
        return []
    out: dict[str, None] = {}
    for term in dict.fromkeys(terms):
        start = simple.find(term) if term else -1
        while start >= 0:
            if lowered[start:start + len(term)] != term:
                out[text[start:start + len(term)]] = None
            start = simple.find(term, start + len(term))
    return list(out)


_LOWER_OR_CJK = re.compile(rf"[a-z{CJK}]")


def not_all_capitals(text: str) -> bool:
    """Does `text` have a lower-case Latin letter or a Chinese character, so that a stop word
    written in capitals in it stands out as an acronym (CAN 总线, "the CAN bus"), where in a
    text all in capitals (a shouted question, HOW DO I RESET THE PUMP) it is a stop word?"""
    return _LOWER_OR_CJK.search(text) is not None


@lru_cache(maxsize=4)
def shared_tokenizer(backend: str, words: tuple[str, ...]) -> Tokenizer:
    """One Tokenizer per backend and dictionary in a process (making one loads the
    segmenter's own dictionary, about a second): deriving and checking an index share it."""
    return Tokenizer(backend=backend, words=words)


RUN_MEMORY = 1 << 16  # runs a tokenizer remembers the tokens of (`Tokenizer.run_tokens`)


@dataclass
class Tokenizer:
    """Callable text -> list of tokens. Build one per index; it is deterministic."""

    backend: str = "rjieba"
    words: tuple[str, ...] = ()  # domain dictionary terms
    _seg: Any = field(default=None, repr=False)
    # `run_tokens`' memory: one run's tokens, the same in every text
    _runs: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.words = tuple(sorted({w.strip() for w in self.words if _keep_term(w)}))
        if self.backend not in ("rjieba", "jieba"):
            raise ValueError(f"unknown tokenizer backend {self.backend!r}")
        # Terms jieba cannot hold whole (they contain "·"): matched before cutting, in the
        # script the text is cut in. A term with Latin letters or digits never stays whole
        # (they are cut from the Chinese run first; `kb check` says so: `user_dict_unused`).
        special = sorted({to_simplified(w) for w in self.words
                          if not re.fullmatch(rf"[{CJK}]+", w)}, key=len, reverse=True)
        self._special = re.compile("|".join(map(re.escape, special))) if special else None

    def fingerprint(self) -> dict[str, str]:
        return tokenizer_fingerprint(self.backend, self.words)

    def _cut(self, text: str) -> list[str]:
        """jieba's search-mode cut. The segmenter (its import and dictionary: most of a cold
        English query's start-up) is made on the first Chinese run, not before."""
        if self._seg is None:
            self._seg = segmenter(self.backend,
                                  tuple(dict.fromkeys(to_simplified(w) for w in self.words)))
        cut: list[str] = list(self._seg.cut_for_search(text, False))
        return cut

    def __call__(self, text: str) -> list[str]:
        norm = unicodedata.normalize("NFKC", written_units(code_dashes(text)))
        text, added = respell(to_simplified(norm.lower()))
        out = self._tokens(norm, text)
        out.extend(added)  # ISO dates and months, numbers of 万 the runs above cut apart
        if "_" in text:  # a LaTeX subscript's plain spellings (p_{max}: p_max, pmax)
            for m in SUBSCRIPT.finditer(text):
                if spellings := subscript_spellings(m):
                    out.extend(self._spelled(m.group(0), spellings))
        return out

    def _spelled(self, written: str, spellings: tuple[str, ...]) -> list[str]:
        """The tokens of `spellings` (of one symbol) that its `written` form lacks, once
        each: what the symbol adds to a text's tokens."""
        held = set(self._tokens(written, written))
        out: list[str] = []
        for spelling in spellings:
            for t in self._tokens(spelling, spelling):
                if t not in held:
                    held.add(t)
                    out.append(t)
        return out

    def _tokens(self, norm: str, text: str) -> list[str]:
        """The tokens of the runs of `text` (`norm`: it as written but lower case)."""
        aligned = len(norm) == len(text)  # a word's case is read in `norm` at its place
        out: list[str] = []
        last = 0  # where the run before ended
        for m in _RUN.finditer(text):
            cjk, latin = m.group(1), m.group(2)
            last, end = m.end(), last
            if cjk:
                self._cut_cjk(cjk, out)
            elif latin.isalpha() and _clitic(text, m.start(), m.end()):
                continue
            elif "-" in latin and _COMPOUND.fullmatch(latin) and \
                    text[m.start() - 1:m.start()] not in _IDENTIFIER_BEFORE and \
                    text[m.end():m.end() + 1] != "/":
                out.extend(_compound_tokens(latin))
            elif latin[0] in _VALUE_FIRST or not latin.isalpha():
                out.extend(_value_tokens(latin))
            elif latin in UNIT_WORDS or latin in DEGREE_SCALES:  # degC, megabytes: c, mb
                unit = UNIT_WORDS.get(latin, latin)
                if unit in DEGREE_SCALES and out and out[-1] in DEGREE_WORDS and \
                        text[end:m.start()].isspace():
                    out.pop()  # the degrees of 30 degrees C, which 30 °C does not say
                out.append(unit)
            elif latin not in EN_STOP or latin in _STOP_UNITS and \
                    _NUMBER_BEFORE.search(text, max(0, m.start() - 8), m.start()):
                out.append(_stem(latin))
            elif aligned and len(latin) > 1 and norm[m.start():m.end()].isupper() and \
                    not_all_capitals(norm):
                out.append(_stem(latin))  # an acronym: CAN bus, IT, NO (nitric oxide), ON/OFF
        return out

    def run_tokens(self, run: str) -> list[str]:
        """`self(run)` for one run of a text, remembered (the last `RUN_MEMORY` runs asked):
        a search's results list the ways their texts write the question's words, which is
        every Latin run of five passages tokenized alone, mostly the same words each time.
        The list returned is shared: not to be changed."""
        got = self._runs.get(run)
        if got is None:
            if len(self._runs) >= RUN_MEMORY:
                self._runs.clear()
            got = self._runs[run] = self(run)
        return got

    def _cut_cjk(self, run: str, out: list[str]) -> None:
        pieces = [run]
        if self._special is not None and "·" in run:
            pieces = []
            pos = 0
            for m in self._special.finditer(run):
                pieces.append(run[pos:m.start()])
                out.append(m.group(0))
                pieces.append(m.group(0))  # its parts match partial queries
                pos = m.end()
            pieces.append(run[pos:])
        for piece in pieces:
            for tok in self._cut(piece):
                tok = tok.strip("·")
                if tok and tok not in ZH_STOP:
                    out.append(tok)


@functools.cache
def tokenizer_libs(backend: str) -> str:
    """The libraries that cut text into terms, with their installed versions
    (``jieba==0.42.1;pystemmer==2.2.0.3;opencc==1.1.9:t2s``): another version of any may cut
    the same text otherwise, as another `TOKENS_VERSION` does. `backend` is the
    ``bm25.tokenizer`` setting (or the library's name). Read once a process (~5 ms; every
    index open asks): the libraries a process cuts with are those it loaded."""
    lib = "rjieba" if backend == "rjieba" else "jieba"
    try:
        lib_version = version(lib)
    except PackageNotFoundError:
        raise ConfigError(JIEBA_MISSING if lib == "jieba" else f"{lib} is not installed") from None
    return (f"{lib}=={lib_version};pystemmer=={version('PyStemmer')};"
            f"opencc=={version('opencc')}:{SCRIPT}")


def tokenizer_fingerprint(backend: str, words: Iterable[str]) -> dict[str, str]:
    """What the manifest records of a tokenizer; needs no dictionary loaded."""
    lib = "rjieba" if backend == "rjieba" else "jieba"
    kept = sorted({w.strip() for w in words if _keep_term(w)})
    return {"name": f"kbtools-{lib}-search",
            "version": f"{tokenizer_libs(backend)};{TOKENS_VERSION}",
            "dictionary_sha256": hashlib.sha256("\n".join(kept).encode()).hexdigest()}


def _keep_term(term: str) -> bool:
    """A dictionary term: 2-32 characters with CJK, no whitespace and no lone surrogate inside.
    data/dictionary.txt holds one UTF-8 term per line and is read back with `str.split()`, so a
    term with whitespace (a line or paragraph separator, NEL, a tab, U+3000…) could never come
    back whole, and a lone surrogate cannot be written."""
    term = term.strip()
    return 1 < len(term) <= 32 and bool(_CJK_CHAR.search(term)) \
        and not any(ch.isspace() or "\ud800" <= ch <= "\udfff" for ch in term)


def is_cjk_text(text: str, threshold: float = 0.15) -> bool:
    """True when CJK characters make up a notable share of the letters in `text`."""
    letters = sum(1 for ch in text if ch.isalpha())
    if not letters:
        return False
    return len(_CJK_CHAR.findall(text)) / letters >= threshold


def language_of(text: str) -> str:
    """"zh" when CJK characters make up a notable share of `text`, else "en" (picks the
    embedding model of a chunk at build time and of a question at query time)."""
    return "zh" if is_cjk_text(text) else "en"


def question_language(text: str) -> str:
    """The language whose embedding model a question is searched with: "zh" when it holds a
    Chinese character at all, else "en". Unlike a chunk's (`language_of`), a share does not
    decide: ``TiDB、TiKV、Placement Driver (PD) 主要作用？`` is mostly Latin letters, but an
    English model reads none of its Chinese words, and the chunks answering it are Chinese
    ones only the multilingual model has vectors of."""
    return "zh" if _CJK_CHAR.search(text) else "en"


def dictionary_terms(metadata_values: Iterable[object], user_dict_text: str = "") -> list[str]:
    """Domain dictionary: CJK strings from front matter plus the user's dictionary file.

    The user file has jieba's format: `term [freq] [tag]` per line; `#` starts a comment.
    """
    terms: set[str] = set()

    def visit(value: object) -> None:
        if isinstance(value, str):
            if _keep_term(value):
                terms.add(value.strip())
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)

    for v in metadata_values:
        visit(v)
    for line in user_dict_text.split("\n"):
        line = line.split("#", 1)[0].strip()
        if line:
            terms.add(line.split()[0])
    return sorted(terms)


_FREQUENCY, _TAG = re.compile(r"[0-9]+"), re.compile(r"[a-z]+")
_JIEBA_LINE = re.compile(r"^(.+?)( [0-9]+)?( [a-z]+)?$")  # jieba's re_userdict


def user_dict_problems(text: str) -> list[tuple[int, str]]:
    """(1-based line, message) of each line of a user dictionary `text` that is not
    `word [frequency] [tag]` (a frequency is a whole number, a tag lowercase letters).

    The build takes a line's first field as its word (`dictionary_terms`); jieba would take
    all it does not read as a frequency and tag: `斑马 notanumber n` is "斑马" to one and
    "斑马 notanumber" to the other, a word with a space or a mistyped frequency either
    way, so `kb check` reports it."""
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        fields = raw.split("#", 1)[0].split()
        if len(fields) < 2 or _fields_ok(fields[1:]):
            continue
        line = " ".join(fields)
        match = _JIEBA_LINE.match(line)
        jieba_word = match.group(1) if match else line
        out.append((number, f"{line!r} is not 'word [frequency] [tag]': jieba would read the "
                            f"word {jieba_word!r}, the build {fields[0]!r} (a word holds no "
                            "spaces, a frequency is a whole number, a tag lowercase letters: "
                            "'赤霉病 20 n')"))
    return out


def _fields_ok(rest: list[str]) -> bool:
    if len(rest) == 1:
        return bool(_FREQUENCY.fullmatch(rest[0]) or _TAG.fullmatch(rest[0]))
    return len(rest) == 2 and bool(_FREQUENCY.fullmatch(rest[0]) and _TAG.fullmatch(rest[1]))


def user_dict_unused(text: str) -> list[tuple[int, str]]:
    """(1-based line, message) of each word of a user dictionary `text` that the tokenizer
    cannot use, saying what happens to it: a word with Latin letters, digits or other
    characters beside its Chinese (``PLC模块``, ``pH计``) is cut apart before jieba sees it
    (Latin and Chinese are separate runs of the text, and jieba would match ``PLC模块``
    only as written, not lower-cased), a word without Chinese (``CAN``) is tokenized as
    any Latin word, and a one-character or over-32-character word is dropped."""
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        fields = raw.split("#", 1)[0].split()
        if not fields:
            continue
        word = fields[0]
        norm = to_simplified(unicodedata.normalize("NFKC", word).lower())
        parts = _searched_as(norm)
        if not _CJK_CHAR.search(word):
            why = (f"{word!r} has no Chinese characters: Latin words and numbers are split "
                   f"at spaces and punctuation without the dictionary (searched as {parts})")
        elif not _keep_term(word):
            why = f"{word!r} is not 2 to 32 characters long: the dictionary leaves it out"
        elif not re.fullmatch(rf"[{CJK}·]+", norm):
            why = (f"{word!r} mixes Chinese with other characters: the tokenizer cuts Latin "
                   "letters, digits and other characters from the Chinese before the "
                   f"dictionary applies, so it is searched as {parts}")
        else:
            continue
        out.append((number, f"{why}; this line changes nothing (a dictionary word is "
                            "Chinese characters, '·' allowed: '赤霉病', '戊唑·咪鲜胺')"))
    return out


def _searched_as(norm: str) -> str:
    """The runs the tokenizer makes of a normalised text, Latin ones stemmed (a stop word
    named as dropped), for a message."""
    parts = []
    for m in _RUN.finditer(norm):
        cjk, latin = m.group(1), m.group(2)
        parts.append(repr(cjk) if cjk else f"{latin!r} (a stop word: dropped, unless "
                     "written in capitals)" if latin in EN_STOP else repr(_stem(latin)))
    return " + ".join(parts) or "no token at all"
