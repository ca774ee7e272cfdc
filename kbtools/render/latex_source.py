"""The formula as the renderer hands it to LaTeX, and the characters it can draw.

`pieces(formula)` reads a formula's control words, braces, `$` and non-ASCII characters with
the mode each is in (math, or text: the argument of `\\text` and the other `TEXT_ARGUMENT`
commands, `$…$` inside them, `$…$` inside `\\boxed`); `tex_source(formula)` rewrites what
TeX's math fonts cannot draw (`α` → `\\alpha`, `²` → `^{2}`, `温` → `{\\text{温}}`) and moves a
`\\tag{X}` to the formula's end (`tag_at_end`); `glyph_problem(formula)` names a character
the renderer's fonts have no glyph for. `latex_allow` checks a formula with them; the
renderer (`formula.py`) typesets `tex_source`'s output.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import NamedTuple

from kbtools.markdown.latex_names import MATH_CHARS, TEXT_SYMBOL_NAMES
from kbtools.render.glyphs import (
    BSMI_PACKAGE,
    SUBSCRIPTS,
    SUPERSCRIPTS,
    bsmi_installed,
    drawn_in_text,
    needs_bsmi,
    text_glyph,
)
from kbtools.render.latex_text import OWN_MATH, TEXT_ACCENTS

# Commands whose braced argument is text, where CJKutf8 typesets any character it has a glyph
# for; everywhere else a formula is in math mode, whose fonts hold no Chinese, Greek or other
# non-ASCII character (TeX drops such a character, or a text symbol, from the page).
TEXT_ARGUMENT = frozenset("text mbox textrm textbf textit textsf texttt textnormal textup "
                          "textsl emph".split()) | TEXT_ACCENTS  # `\\c{…}` in math: a box of text
TEXT_SYMBOLS = frozenset(TEXT_SYMBOL_NAMES.split())
_TEX_PIECE = re.compile(r"\\(?:[A-Za-z]+|.)|[{}$]|[^\x00-\x7f]", re.S)
# `\tag{X}` / `\tag*{X}` (Typora's and Obsidian's equation number): the formula's label,
# drawn at its right (`tex_source`); checked on its own, it is not in `COMMANDS`.
TAG = "tag"
TAG_ARG = re.compile(r"\s*+(\*?)\s*+\{")  # possessive: no backtracking over blanks


def shown_char(ch: str) -> str:
    """A character as it can be shown in a one-line message."""
    if len(ch) == 1 and (ch.isprintable() and not unicodedata.category(ch).startswith("C")):
        return ch
    return "".join(f"U+{ord(c):04X}" for c in ch)


class Piece(NamedTuple):
    start: int
    end: int
    text: str  # a control word or symbol, a brace, or one non-ASCII character
    in_text: bool  # inside the argument of a `TEXT_ARGUMENT` command (else math mode)
    # what a `$`, `\\(`, `\\)` or `}` does to the mode: "open" (math in text, or text in
    # `\\boxed`'s math), "close", "bad" (LaTeX stops), "unclosed" (a `}` ending a `$` left
    # open: "unclosed$" for math in text, "unclosed$boxed" for text in `\\boxed`), else ""
    switch: str = ""
    owner: str = ""  # for "unclosed$boxed": the `OWN_MATH` command whose argument it is in


# `\\boxed{…}` sets its argument as `\\fbox{$\\displaystyle …$}`, and the other `OWN_MATH`
# commands theirs in a `$…$` of their own: math, where a `$` sets text again (`\\boxed{$x$}`
# is x in text)
_OPENS = {("text", "$"): "$", ("text", "\\("): "$", ("boxed", "$"): "$boxed",
          ("", "$"): "$top", ("$top", "\\("): "$", ("$boxed", "\\("): "$"}  # `$top`: at
# the formula's top level (`dollar_problem`)
_CLOSES = frozenset({("$", "$"), ("$", "\\)"), ("$boxed", "$"), ("$top", "$")})


def pieces(formula: str) -> Iterator[Piece]:
    """The pieces of `formula` that `tex_source` may rewrite, each with its mode: how the
    renderer, the glyph check (`glyph_problem`) and `dollar_problem` read a formula. In text
    `$…$` and `\\(…\\)` are math again, in `\\boxed`'s argument (and the other `OWN_MATH`
    commands') `$…$` is text."""
    # one entry per open brace, `$` or `\\(`: "text", "math", "boxed" (an `OWN_MATH` command's
    # argument), "$" (math in text) or "$boxed" (text in that math, up to its `$`)
    modes: list[str] = []
    owners: list[tuple[str, int]] = []  # per "boxed" entry: its command, arguments after it
    text_arg_at = -1  # where a TEXT_ARGUMENT or `OWN_MATH` command (or its argument) ended
    boxed: tuple[str, int] | None = None  # that command was `OWN_MATH`: it, arguments left
    pmod_at = -1  # where a `\\pmod` or `\\pod` ended
    for m in _TEX_PIECE.finditer(formula):
        piece = m.group(0)
        top = modes[-1] if modes else ""
        in_text = top in ("text", "$boxed", "$top")
        switch = owner = ""
        then: tuple[str, int] | None = None  # the `OWN_MATH` argument this `}` ends: the next
        if piece == "{":
            arg = text_arg_at >= 0 and not formula[text_arg_at:m.start()].strip()
            if arg and boxed:
                modes.append("boxed")
                owners.append(boxed)
            elif pmod_at >= 0 and not formula[pmod_at:m.start()].strip():
                # `\\pmod{…}`: its braces are no group (a macro's argument); where a math list
                # is at its top (the formula's, `\\boxed`'s, `$…$` in text) `$` sets text there
                modes.append("" if top in ("", "boxed", "$") else top)
            else:
                modes.append("text" if in_text or arg else "math")
        elif piece == "}":
            left = ""
            while modes and (left := modes.pop()) in ("$", "$boxed", "$top"):  # left open
                switch = "unclosed" + left
                owner = owners[-1][0] if owners else ""
            if left == "boxed" and (ended := owners.pop())[1]:  # `\\sideset{a}{…}`
                then = (ended[0], ended[1] - 1)
        elif piece in ("$", "\\(", "\\)"):
            opens = _OPENS.get((top, piece))
            closes = (top, piece) in _CLOSES
            switch = "open" if opens else "close" if closes else "bad"
            if opens:
                modes.append(opens)
            elif closes:
                modes.pop()
            owner = "top" if "$top" in (opens, top) and not switch == "bad" else owner
        command = piece[1:] if piece[0] == "\\" else ""
        text_arg_at = m.end() if command in TEXT_ARGUMENT or command in OWN_MATH or then else -1
        boxed = then or ((command, OWN_MATH[command]) if command in OWN_MATH else None)
        pmod_at = m.end() if command in ("pmod", "pod") else -1
        yield Piece(m.start(), m.end(), piece, in_text, switch, owner)


def tex_source(formula: str) -> str:
    """The formula as LaTeX is given it: in math mode (outside the arguments of `\\text` and
    the other `TEXT_ARGUMENT` commands) a non-ASCII character becomes its math command
    (`MATH_CHARS`: α → `\\alpha`, ≤ → `\\leq`), a superscript or subscript character a
    script (`m⁻¹` → `m^{-1}`, neighbours grouped: `glyphs.SUPERSCRIPTS`) or, with any other
    (温, ℃, °), is set as text (`{\\text{温}}`), and a text symbol (`\\textcelsius`) is set as
    text too, as MathJax draws them; TeX's math fonts have none of them. A character only the
    bsmi font has (traditional Chinese: 體) is set in that font wherever it is text
    (`glyphs.text_glyph`: `{\\CJKfamily{bsmi}體}`). Each becomes one token or one group, so `x^α` and `\\frac 温度` keep their meaning (`x^²` becomes
    `x^{{}^{2}}`). Invisible format characters (zero-width space, BOM, soft hyphen) are left
    out. Only ever adds allowlisted commands (and the renderer's own `\\CJKfamily{bsmi}`)
    and balanced braces; linear in the formula's length.

    A `\\tag{X}` is taken out and its label drawn at the formula's end, in text as amsmath
    sets it: `\\qquad\\text{(X)}` (`\\tag*{X}`: `\\qquad\\text{X}`), since the formula is
    typeset inline, where LaTeX has no equation number."""
    formula = tag_at_end(formula)
    out: list[str] = []
    pos = 0
    last = ""  # the last non-blank character given to LaTeX
    script: tuple[str, int, str, bool] | None = None  # the ^{…}/_{…} run being read:
    # its kind, its index in `out`, its text, and whether it follows a `^`/`_` of its own
    for p in pieces(formula):
        gap = formula[pos:p.start]
        out.append(gap)
        last = gap.rstrip()[-1:] or last
        pos = p.end
        piece = p.text
        word = piece[1:] if piece[0] == "\\" else ""
        kind = "" if p.in_text else "^" if piece in SUPERSCRIPTS else \
            "_" if piece in SUBSCRIPTS else ""
        if kind:
            value = (SUPERSCRIPTS if kind == "^" else SUBSCRIPTS)[piece]
            if script is not None and script[0] == kind and not gap:  # `⁻¹` → `^{-1}`
                script = (kind, script[1], script[2] + value, script[3])
            else:  # after `^` or `_`, a script of its own: `x^²` → `x^{{}^{2}}`
                script = (kind, len(out), value, last in ("^", "_"))
                out.append("")
            group = f"{kind}{{{script[2]}}}"
            out[script[1]] = "{{}" + group + "}" if script[3] else group
            last = "}"
            continue
        script = None
        if not word and unicodedata.category(piece) == "Cf":
            continue  # invisible (a zero-width space copied from a web page): no glyph to draw
        if p.in_text or (word and word not in TEXT_SYMBOLS) or piece in "{}$":
            out.append(text_glyph(piece) if p.in_text else piece)
        elif piece in MATH_CHARS:  # a control word ends at the space: `αx` → `\\alpha x`
            out.append(MATH_CHARS[piece] + " " * MATH_CHARS[piece][-1].isalpha())
        else:  # a non-ASCII character, or a text symbol, in math mode
            out.append("{\\text{" + text_glyph(piece) + "}}")
        last = out[-1].rstrip()[-1:] or last
    out.append(formula[pos:])
    return "".join(out)


def glyph_problem(formula: str) -> str | None:
    """Why the renderer could not draw a character of `formula` (LaTeX would stop with "no
    glyph"), or None: read as `tex_source` reads it, a non-ASCII character in math must have
    a math command (`MATH_CHARS`), be a sub/superscript or have a text glyph
    (`glyphs.drawn_in_text`); in `\\text{}` (and a `\\tag`'s label) it needs a text glyph."""
    for p in pieces(tag_at_end(formula)):
        ch = p.text
        if len(ch) != 1 or ch.isascii() or unicodedata.category(ch) == "Cf" \
                or drawn_in_text(ch):
            continue
        if not p.in_text and (ch in MATH_CHARS or ch in SUPERSCRIPTS or ch in SUBSCRIPTS):
            continue
        return f"{_char_named(ch)} {_glyph_hint(ch, p.in_text)}"
    return None


def _char_named(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"character {shown_char(ch)} (U+{ord(ch):04X}{' ' + name if name else ''})"


def _glyph_hint(ch: str, in_text: bool) -> str:
    """What to write instead of a character the renderer has no glyph for."""
    where = "in \\text{}" if in_text else "in math"
    head = f"has no glyph in the formula renderer's fonts {where} (kb build would fail); "
    math = MATH_CHARS.get(ch) or (f"^{{{SUPERSCRIPTS[ch]}}}" if ch in SUPERSCRIPTS else
                                  f"_{{{SUBSCRIPTS[ch]}}}" if ch in SUBSCRIPTS else "")
    if in_text and math:
        return head + f"write it in math, outside \\text{{}}: {math}"
    plain = unicodedata.normalize("NFKC", ch)
    if plain != ch and all(drawn_in_text(c) for c in plain):
        return head + f"write {plain}"
    if needs_bsmi(ch):  # traditional Chinese, and the bsmi font is not installed
        return head + (f"traditional Chinese needs the bsmi font: run `apt-get install "
                       f"{BSMI_PACKAGE}` (docs/formulas.md), or write it in simplified Chinese")
    big5 = ", Big5 (traditional Chinese)" if bsmi_installed() else ""
    return head + (f"it draws GB2312 (simplified Chinese, Greek, common symbols){big5} and "
                   "accented Latin letters; write it with a LaTeX command (docs/formulas.md) "
                   "or leave it out")


def tag_at_end(formula: str) -> str:
    """`formula` with its top-level `\\tag{X}` moved to its end as `\\qquad\\text{(X)}`
    (`\\tag*{X}`: `\\qquad\\text{X}`); unchanged when it has none (or an unclosed one)."""
    depth = 0
    tag: re.Match[str] | None = None
    for m in _TEX_PIECE.finditer(formula):
        piece = m.group(0)
        if tag is None and depth == 0 and piece == "\\" + TAG:
            tag = TAG_ARG.match(formula, m.end())
            if tag is None:
                return formula
            start = m.start()
            depth = -1  # the label's `{` (already read by `tag`) brings it back to 0
        elif piece == "{":
            depth += 1
        elif piece == "}":
            depth -= 1
            if tag is not None and depth == -1:
                label = formula[tag.end():m.start()]
                label = label if tag.group(1) else f"({label})"
                # a space where the tag was: `\\alpha\\tag{1}x` must not become `\\alphax`,
                # nor `^\\tag{1}^` TeX's `^^`
                body = (formula[:start] + " " + formula[m.end():]).rstrip()
                return body + f" \\qquad\\text{{{label}}}"
    return formula
