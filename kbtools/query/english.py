"""English as maintenance engineers write it: the other national spelling of a word, and the
abbreviations they type for the words the knowledge spells out.

A manual written in British English says ``colour``, ``litres``, ``aluminium``, ``centre``,
``analyse`` and ``sulphur``; the engineer asking writes ``color``, ``liters``, ``aluminum``,
``center``, ``analyze`` and ``sulfur`` (or the other way round). Stemming leaves the two
spellings two terms, so the question's word matched nothing and counted as an unknown word
towards "no answer". `spelling_variants` writes a word's other spellings by the regular
differences (-our/-or, -re/-er, -ise/-ize and -yse/-yze with their endings; ae and oe as e,
British to American only: which e an American word would write so is no rule)
and a short list of words that differ otherwise (`IRREGULAR`: aluminium, sulphur, grey, tyre,
mould, programme, licence, …). The rules are generous on purpose: a spelling is searched
only when the index holds its token (`kbtools.query.expansion.expand`), so a made-up form
(contour as contor) costs a dictionary look-up and finds nothing.

`ABBREVIATIONS` are the short forms of everyday technical English (temp, RH, pwr, approx,
dia, qty, hrs, specs), as groups in the synonyms file format (`kbtools.index.synonyms`),
read as `kbtools.query.expansion.MEASURES` are: like them, every index knows them, and the
knowledge's own synonym groups come first. ``max`` and ``min`` are in MEASURES.

Pure: the caller gives the index's tokenizer and vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Container, Iterable

from kbtools.index.synonyms import parse
from kbtools.query.compounds import LATIN_RUN

# The short forms of technical English (the first term of a group: the word written out).
# "press" (a machine), "min" and "max" (MEASURES), "no." and "sw" (several words) are none.
ABBREVIATIONS = parse("""
temperature = temp = temps
relative humidity = rh
power = pwr
approximately = approx = approximate
diameter = dia
quantity = qty
frequency = freq
hours = hrs = hr
minutes = mins
seconds = secs = sec
specification = spec = specs
configuration = config
maintenance = maint
lubrication = lube
assembly = assy
weight = wt
average = avg
tolerance = tol
ground = gnd
control = ctrl
reference = ref
standard = std
transformer = xfmr
breaker = brkr
valve = vlv
heater = htr
information = info
""")[0]

# Words whose British and American spellings differ otherwise than by a rule below: the
# start of the British word → that of the American (a word starting so is respelled, its
# ending kept: moulding as molding, sulphate as sulfate, tyres as tires).
IRREGULAR = (
    ("aluminium", "aluminum"), ("sulph", "sulf"), ("grey", "gray"), ("tyre", "tire"),
    ("mould", "mold"), ("programme", "program"), ("licence", "license"),
    ("defence", "defense"), ("offence", "offense"), ("practise", "practice"),
    ("plough", "plow"), ("kerb", "curb"), ("ageing", "aging"), ("jewellery", "jewelry"),
    ("artefact", "artifact"), ("sceptic", "skeptic"), ("manoeuvr", "maneuver"),
    ("aeroplane", "airplane"), ("judgement", "judgment"), ("instalment", "installment"),
    ("skilful", "skillful"), ("fulfil", "fulfill"), ("enrol", "enroll"),
    ("catalogue", "catalog"), ("dialogue", "dialog"), ("analogue", "analog"),
)
# every start of IRREGULAR, looked for at once first (most words begin with none of them)
_IRREGULAR_STARTS = tuple(start for pair in IRREGULAR for start in pair)
MIN_LETTERS = 4  # shorter words (hour, four, tour, acre) are respelled by no rule
# -our/-or after two letters or more (colour, behaviour, colours, favourite, neighbourhood)
_OUR = re.compile(r"(?<=[a-z]{2})our")
_OR = re.compile(r"(?<=[a-z]{2})or")
# -re/-er after a consonant at the end, with a plural or past ending (centre, litres,
# centred, fibre; center, liters, centered)
_RE_END = re.compile(r"(?<=[a-z][bcdgklmnptv])re(s|d)?$")
_ER_END = re.compile(r"(?<=[a-z][bcdgklmnptv])er(s|ed)?$")
# -ise/-ize, -yse/-yze with their endings (organise, organised, organisation; analyse)
_ISE = re.compile(r"(?<=[a-z]{3})([iy])s(e|es|ed|ing|er|ers|ation|ations)$")
_IZE = re.compile(r"(?<=[a-z]{3})([iy])z(e|es|ed|ing|er|ers|ation|ations)$")
# ae or oe for e, in a word of five letters or more (haemoglobin, oestrogen, foetal); not
# an ending oe or oes (canoe, heroes)
_AE_OE = re.compile(r"[ao]e(?!s?$)")
_LETTERS = re.compile(r"[a-z]+")
# The names of units whose symbol is one letter (4.5 L, 500 g, 3 m, 24 V, 600 W): text keeps
# them words (`kbtools.index.spellings.UNIT_WORDS`: l, g, m are letters of many other
# things); a question's name the index lacks is searched as the symbol where the knowledge
# writes that after a number (`regional_spellings`), read in the text of at most
# `UNIT_HOLDERS` of the chunks holding the symbol
ONE_LETTER_UNITS = {name: symbol for symbol, names in (
    ("l", "litre litres liter liters"), ("g", "gram grams gramme grammes"),
    ("m", "metre metres meter meters"), ("v", "volt volts"), ("w", "watt watts"))
    for name in names.split()}
UNIT_HOLDERS = 50
# a number and one letter after it, apart from what follows (4.5 L, 500g, 3 m/s; not M8, 3 mm)
_NUMBER_LETTER = re.compile(r"\d[ \t\u00a0]?([A-Za-z])(?![A-Za-z0-9])")
_RE_ENDINGS = {"": "", "s": "s", "d": "ed", "ed": "d"}
# each ending's pattern and its other spelling
_ENDINGS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_RE_END, lambda m: "er" + _RE_ENDINGS[m.group(1) or ""]),
    (_ER_END, lambda m: "re" + _RE_ENDINGS[m.group(1) or ""]),
    (_ISE, lambda m: m.group(1) + "z" + m.group(2)),
    (_IZE, lambda m: m.group(1) + "s" + m.group(2)),
)


def spelling_variants(word: str) -> tuple[str, ...]:
    """The other British or American spellings `word` (lower-case letters) may have, by the
    rules and words of the module docstring; none for a word shorter than `MIN_LETTERS` or
    not all letters. Made-up forms among them are expected: the caller keeps those the
    index holds."""
    if len(word) < MIN_LETTERS or not _LETTERS.fullmatch(word):
        return ()
    out: dict[str, None] = {}
    for british, american in IRREGULAR if word.startswith(_IRREGULAR_STARTS) else ():
        if word.startswith(british):
            out[american + word[len(british):]] = None
        elif word.startswith(american):
            out[british + word[len(american):]] = None
    for pattern, spelled in ((_OUR, "or"), (_OR, "our")):
        for m in pattern.finditer(word):
            out[word[:m.start()] + spelled + word[m.end():]] = None
    for pattern, respelled in _ENDINGS:
        if pattern.search(word):
            out[pattern.sub(respelled, word, count=1)] = None
    if len(word) >= 5:
        for m in _AE_OE.finditer(word):
            out[word[:m.start()] + "e" + word[m.end():]] = None
    out.pop(word, None)
    return tuple(out)


def regional_spellings(text: str, tok: Callable[[str], list[str]], vocab: Container[str],
                       holders: Callable[[str, int], Iterable[str]] = lambda term, n: ()
                       ) -> list[tuple[str, str, list[str]]]:
    """(word, its token, the tokens of its other spellings `vocab` holds) for each word of
    `text` that the index writes in the other national spelling too or only (`tok`: the
    index's tokenizer): color for colour, liters for litres; or, a unit's name that neither
    spelling of is in `vocab`, as its one-letter symbol (`ONE_LETTER_UNITS`: litres as l)
    where the knowledge writes that after a number (`holders`: the texts of up to n chunks
    holding a term); words without one are left out."""
    out = []
    for m in LATIN_RUN.finditer(unicodedata.normalize("NFKC", text)):
        word = m.group(0).lower()
        if len(own := tok(word)) != 1:
            continue
        other = [t for v in spelling_variants(word) for got in [tok(v)]
                 if len(got) == 1 and (t := got[0]) != own[0] and t in vocab]
        if not other and own[0] not in vocab and (symbol := ONE_LETTER_UNITS.get(word)) and \
                symbol in vocab and written_after_number(holders(symbol, UNIT_HOLDERS), symbol):
            other = [symbol]
        if other:
            out.append((word, own[0], list(dict.fromkeys(other))))
    return out


def written_after_number(texts: Iterable[str], symbol: str) -> bool:
    """Whether one of `texts` writes the one letter `symbol` (either case) as a unit: right
    after a number, or a space after it (4.5 L, 500g), no letter or digit following."""
    return any(m.group(1).lower() == symbol for text in texts
               for m in _NUMBER_LETTER.finditer(text))
