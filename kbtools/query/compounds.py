"""A compound a question writes apart that the knowledge writes joined.

The tokenizer makes a hyphenated compound of the knowledge its joined word and its parts
(O-ring: oring, o, ring; `kbtools.index.tokenize`), so a question writing it joined, spaced
or hyphenated meets it. A compound the knowledge writes joined (oring, checkvalve, tagout)
is one token only: a question writing it spaced (``o ring``, ``check valve``, ``tag out``)
or hyphenated (``tag-out``: tagout and tag) must be joined to meet it. `compounds` lists the
runs of two or three words (letters only) that a question writes next to each other, apart
by a space or a hyphen, in the words' lower-case letters: the caller keeps those whose
joined token the index holds (`kbtools.query.expansion.expand`).

Not every pair of words is a compound: ``a part`` is not apart nor ``no one`` noon. A run
whose words before its last are stop words is left out (a stop word ends a compound: tag
out, set up, log in; it does not start one), and so is one whose words before its last are
other function words (``every one``, ``him self``, ``through out``: `FUNCTION_WORDS`) or a
bound prefix written apart (``re main``, ``un do``, ``dis like``: `BOUND_PREFIXES`). A
compound names a kind of its last word (a checkvalve is a valve, an O-ring a ring); a prefix
makes another word of it (remain is no kind of main), and which word a question that cuts
one in two meant is not for the index to guess: its words are searched as typed.

Pure: imports nothing from kbtools but the tokenizer's stop words.
"""

from __future__ import annotations

import re
import unicodedata

from kbtools.index.tokenize import EN_STOP

# A Latin run as the tokenizer reads it (`kbtools.index.tokenize._RUN`), in any case: a
# letter or digit, then as many run characters as end on one that may end a run. Written
# with its tail optional rather than as two alternatives (the same matches: a lone
# character is the first alternative failing), a fifth cheaper to scan a passage with,
# which every cited result's text is (`kbtools.query.unknown.held_as`)
LATIN_RUN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_\-.+#]*[A-Za-z0-9+#])?")

# English words that start no compound besides the tokenizer's stop words (`EN_STOP`):
# function words (every one, him self, never the less) and the bound prefixes of up to
# three letters, which are no words on their own (re main is not remain; see above)
FUNCTION_WORDS = frozenset("""
every ever never none him through along upon within without per via whether though
although because since yet thus hence cannot
""".split())
BOUND_PREFIXES = frozenset("re un de dis mis non pre co ex bi tri im il ir en em".split())
STARTS_NONE = EN_STOP | FUNCTION_WORDS | BOUND_PREFIXES

MAX_WORDS = 3  # words of one compound (lock out tag out is two)
MIN_LETTERS = 4  # letters of a joined compound (o ring: oring; not "a b")
# before a run, a character that makes it part of an identifier (a path, an option, a key):
# as the tokenizer keeps such a run whole, it is no compound either
_IDENTIFIER_BEFORE = frozenset("/\\-_.:=@$")


def compounds(text: str) -> list[tuple[str, ...]]:
    """The runs of two to `MAX_WORDS` words of `text` (lower case) that may be one compound
    written apart: words of ASCII letters next to each other, apart by spaces or tabs (on
    one line) or by hyphens inside one run (``tag-out``), at least `MIN_LETTERS` letters
    together, no word of `STARTS_NONE` before the last. Each run once, in the order of the
    text."""
    out: dict[tuple[str, ...], None] = {}
    for group in _word_groups(unicodedata.normalize("NFKC", text)):
        for start in range(len(group) - 1):
            for end in range(start + 2, min(start + MAX_WORDS, len(group)) + 1):
                words = tuple(group[start:end])
                if sum(map(len, words)) >= MIN_LETTERS and \
                        not any(w in STARTS_NONE for w in words[:-1]):
                    out[words] = None
    return list(out)


def _word_groups(norm: str) -> list[list[str]]:
    """The lower-cased words of `norm` in groups of words next to each other (see
    `compounds`); a run that is not letters (and hyphens between them) ends a group."""
    groups: list[list[str]] = []
    current: list[str] = []
    end = -1
    for m in LATIN_RUN.finditer(norm):
        parts = m.group(0).lower().split("-")
        letters = all(p.isalpha() and p.isascii() for p in parts) and \
            norm[m.start() - 1:m.start()] not in _IDENTIFIER_BEFORE and \
            norm[m.end():m.end() + 1] != "/"
        apart = norm[end:m.start()] if end >= 0 else ""
        if not letters or not (apart and apart.strip(" \t") == ""):
            if len(current) > 1:
                groups.append(current)
            current = []
        if letters:
            current = [*current, *parts]
        end = m.end()
    if len(current) > 1:
        groups.append(current)
    return groups


def splits(word: str) -> list[tuple[str, str]]:
    """The ways a question word of ASCII letters (lower case) may be two words written
    joined (``checkvalve``: check valve; ``lockout``: lock out), the more even splits first:
    (first word, second word), the first no stop word (a stop word ends a compound, never
    starts one: inlet is no in let), both together at least `MIN_LETTERS` letters. Which of
    them the knowledge writes side by side is the caller's to check
    (`kbtools.query.expansion.joined_words`)."""
    if len(word) < MIN_LETTERS or not (word.isascii() and word.isalpha()):
        return []
    cuts = sorted(range(1, len(word)), key=lambda i: (-min(i, len(word) - i), i))
    return [(word[:i], word[i:]) for i in cuts if word[:i] not in EN_STOP]


# A name with a letter and a digit, then words by hyphens (Rad53-dependent, IP3R-mediated,
# miR-21-induced, x86-based, S3-compatible): `coded_compound`
_CODED = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*?)((?:-[a-z]{4,})+)")
MIN_WORD = 4  # letters of a word after a coded name (-like, -based; not -dev, -bin, -only)


def coded_compound(token: str) -> tuple[str, tuple[str, ...]] | None:
    """(the name, its words) of a token that is a name holding a letter and a digit followed
    by one or more words of at least `MIN_WORD` letters, by hyphens, none a stop word:
    ``rad53-dependent`` → (``rad53``, (``dependent``,)), ``moz-tif2-induced`` → (``moz-tif2``,
    (``induced``,)); else None. The tokenizer keeps such a token whole (a code with digits is
    one token: E-17, RS-485, IL-17A), so a question writing it meets only a text writing the
    same compound, not the many that name the code alone ("depends on Rad53"). Not a value
    (10-fold, 3-dimensional, COVID-19: no letter in the name before the words), nor a
    short or stop-word tail (python3-dev, ipv6-only)."""
    m = _CODED.fullmatch(token)
    if m is None or not (re.search(r"[a-z]", m.group(1)) and re.search(r"\d", m.group(1))):
        return None
    words = tuple(m.group(2)[1:].split("-"))
    return None if any(w in EN_STOP for w in words) else (m.group(1), words)
