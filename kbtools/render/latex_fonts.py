"""The letters a math alphabet's font has no glyph for: `\\mathbb{b}`, `\\mathfrak{\\Phi}`.

`\\mathbb`, `\\mathfrak` and the other math alphabets set TeX's `\\fam` for what they hold, and
TeX takes every class-7 math character (letters, digits and `\\Gamma` … `\\Omega`, mathcode
"7xxx) from that family's font. amsfonts' blackboard bold (msbm10) has no b, c, d or e, and
its Fraktur (eufm10) no `\\Phi`, `\\Psi` or `\\Omega`: LaTeX stops ("Missing character: There
is no b in font msbm10!", `\\tracinglostchars=3` in the renderer's preamble), so the build
failed on a formula `kb check` passed. `alphabet_problem(tex)` reads a formula as the renderer
hands it to LaTeX (`latex_source.tex_source`) and names the first such letter.

What an alphabet's argument holds is in its font but where TeX starts a math formula of its
own (it sets `\\fam` to -1 there: `\\boxed`, `\\phantom`, `\\substack`, the cells of an
environment …), sets text (`\\text`, `\\c`), uses a font of its own (`\\operatorname`,
another alphabet) or reads a dimension (`\\hspace{1cm}`), as the renderer's LaTeX was found
to draw them (tests/test_latex_fonts.py sweeps every allowlisted command inside each
alphabet). One pass with a stack of the arguments read: linear.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kbtools.render.latex_args import argument, past_blanks
from kbtools.render.latex_source import TEXT_ARGUMENT
from kbtools.render.latex_text import OWN_MATH


class Gap(NamedTuple):
    """A math alphabet's font and the class-7 characters it has no glyph for."""

    name: str  # the font as a reader knows it
    font: str  # its TFM name, as LaTeX's message names it
    missing: frozenset[str]  # letters, digits, `\\Gamma` … as written
    instead: str  # what to write


# Read from the fonts' TFM files (tests/test_latex_fonts.py reads them again with tftopl):
# every other math alphabet's font (cmr, cmbx, cmti, cmss, cmtt, cmmi, cmsy) has a glyph at
# every code a class-7 character takes.
ALPHABET_GAPS: dict[str, Gap] = {
    "mathbb": Gap("blackboard-bold", "msbm10", frozenset("bcde"),
                  "it has capital letters (and other symbols at some lower-case letters): "
                  "write a capital, as \\mathbb{B}, or \\mathbf{b} for a bold letter"),
    "mathfrak": Gap("Fraktur", "eufm10", frozenset({"\\Phi", "\\Psi", "\\Omega"}),
                    "it has Latin letters, digits and \\Gamma to \\Upsilon: write the Greek "
                    "letter outside \\mathfrak{…}"),
}
ALPHABETS = frozenset("mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathnormal"
                      .split())
# Commands whose arguments are set apart from the alphabet around them, with how many of
# their arguments are (a `[…]` first included): in text, in a math formula of their own, in a
# font of their own, or read as a dimension
APART: dict[str, int] = {
    **dict.fromkeys(TEXT_ARGUMENT | ALPHABETS, 1), **{w: n + 1 for w, n in OWN_MATH.items()},
    **dict.fromkeys("""operatorname pmb phantom hphantom vphantom smash overbrace underbrace
        hspace mspace""".split(), 1),
    "sqrt": 0,  # its `[…]` only: the root's index is a formula of its own
}
OPTIONAL_APART = frozenset({"sqrt", "smash", "cfrac"})  # their `[…]` is apart too
_PIECE = re.compile(r"\\(?:[A-Za-z]+|.?)|.", re.S)
_ENV = re.compile(r"\\(begin|end)\s*+\{([A-Za-z]++\*?)\}")


class _Span(NamedTuple):
    start: int
    end: int
    alphabet: str  # the alphabet in force ("" where none is)


def alphabet_problem(tex: str) -> str | None:
    """Why LaTeX has no glyph for a letter of `tex` (a formula as `tex_source` gives it) in
    the math alphabet it is set in, or None."""
    if not any(f"\\{word}" in tex for word in ALPHABET_GAPS):
        return None
    environments = _environments(tex)
    spans: list[_Span] = []
    skip_to = 0
    for m in _PIECE.finditer(tex):
        start, piece = m.start(), m.group(0)
        if start < skip_to:
            continue
        while spans and start >= spans[-1].end:
            spans.pop()
        alphabet = next((s.alphabet for s in reversed(spans) if s.start <= start), "")
        word = piece[1:]
        if word in APART or word in OPTIONAL_APART:
            spans += reversed(_arguments(word, tex, m.end()))
        elif word == "begin" and start in environments:  # each cell is a formula of its own
            spans.append(_Span(start, environments[start], ""))
        elif piece == "\\\\" and tex[past_blanks(tex, m.end()):][:1] == "[":  # `\\[1cm]`
            skip_to = tex.find("]", m.end()) + 1 or len(tex)
        gap = ALPHABET_GAPS.get(alphabet)
        if gap and piece in gap.missing:
            return (f"\\{alphabet}{{…}} sets {piece} in the {gap.name} font ({gap.font}), "
                    f"which has no glyph for it (LaTeX: \"Missing character: There is no "
                    f"{piece} in font {gap.font}!\"): {gap.instead}")
    return None


def _arguments(word: str, tex: str, at: int) -> list[_Span]:
    """The arguments of `\\word` at `tex[at:]` that `APART` sets apart (an alphabet's: in it),
    each with the alphabet in force there."""
    alphabet = word if word in ALPHABETS else ""
    spans: list[_Span] = []
    at = past_blanks(tex, at)
    if tex[at:at + 1] == "*":  # `\\operatorname*`, `\\hspace*`
        at += 1
    if word in OPTIONAL_APART and tex[past_blanks(tex, at):][:1] == "[":
        start = past_blanks(tex, at)
        close = _bracket_end(tex, start)
        spans.append(_Span(start, close, ""))
        at = close
    for _ in range(APART.get(word, 0)):
        arg = argument(tex, at)
        if arg is None:
            break
        spans.append(_Span(arg[0], max(arg[1], arg[0] + 1), alphabet))
        at = arg[2]
    return spans


def _bracket_end(tex: str, at: int) -> int:
    """Just after the `]` closing the `[` at `tex[at]` (outside braces), or the end."""
    depth = 0
    for j in range(at + 1, len(tex)):
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        if tex[j] == "]" and not depth:
            return j + 1
    return len(tex)


def _environments(tex: str) -> dict[int, int]:
    """Where each `\\begin{…}` starts → just after its `\\end{…}` (`latex_allow` pairs them)."""
    opened: list[int] = []
    ends: dict[int, int] = {}
    for m in _ENV.finditer(tex):
        if m.group(1) == "begin":
            opened.append(m.start())
        elif opened:
            ends[opened.pop()] = m.end()
    return ends
