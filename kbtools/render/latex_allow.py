"""The static formula check: LaTeX tokenised as TeX reads it, and only allowlisted tokens pass.

`latex_problem(source) -> str | None` is what ``kb check`` runs on every formula (no LaTeX
run) and what the renderer runs again before LaTeX sees anything. It is an allowlist, not a
blocklist: a formula passes only if every control word is a math command listed here, every
control symbol is an escape or spacing symbol listed here, every environment is a listed
math environment named literally (`\\begin{pmatrix}`), and no character has a meaning that
changes how TeX reads the rest (`%` comments, `#` parameters, `$` outside text, `^^`
character codes, control characters); in text `$…$` is math again (`dollar_problem`). Nothing allowed defines, redefines or constructs a command name, changes
a category code, reads or writes a file, or issues a special, so TeX reads the formula exactly
as this tokeniser does: `\\csname`, `\\@nameuse`, `\\scantokens`, `\\catcode`, `^^5c`,
`\\expandafter`, `\\input`, `\\special`, `\\def` … are unknown tokens, refused by name.

The allowed commands are data (`COMMANDS`, grouped as docs/formulas.md lists them); adding
one is safe when it only typesets (takes arguments that are themselves formulas or plain
text/dimensions) and is defined by the renderer's preamble (amsmath, amssymb, CJKutf8).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import NamedTuple

from kbtools.markdown.latex_names import COMMAND_GROUPS
from kbtools.render.latex_fonts import alphabet_problem
from kbtools.render.latex_source import (
    TAG,
    TAG_ARG,
    glyph_problem,
    pieces,
    shown_char,
    tag_at_end,
    tex_source,
)
from kbtools.render.latex_structure import structure_problem

MAX_FORMULA_CHARS = 20_000

COMMANDS = frozenset(w for group in COMMAND_GROUPS.values() for w in group.split())
# Commands of packages the renderer does not load, which Typora's and Obsidian's MathJax
# draw: refused with what to write instead (the package, then the way to write it).
UNSUPPORTED: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("ce", "pu"), ("mhchem chemistry",
                                   "write it in math: \\mathrm{H_2O}, \\mathrm{CO_2}, "
                                   "A \\rightarrow B")),
    **dict.fromkeys(("SI", "si", "qty", "unit", "num", "ang", "SIrange", "qtyrange",
                     "numrange"), ("siunitx units",
                                   "write the value and unit: 5\\,\\mathrm{kg}, "
                                   "2\\,\\mathrm{m/s}")),
    "degree": ("gensymb", "write ^\\circ"), "celsius": ("gensymb", "write ^\\circ\\mathrm{C}"),
    "ohm": ("gensymb", "write \\Omega"), "micro": ("gensymb", "write \\mu"),
    "k": ("the ogonek, not in the renderer's OT1 font encoding: \"Command \\k unavailable\"",
          "write the letter with it: ą, ę"),
    # Typora's and Obsidian's equation numbering (MathJax's): a page has no numbered
    # equations to refer to, so a label and a reference to it have nothing to name
    "label": ("an equation label for \\eqref, which pages do not number",
              "number the formula with \\tag{1} and write its number in the text: 式 (1)"),
    **dict.fromkeys(("eqref", "ref"), (
        "a reference to a \\label, which pages do not number",
        "write the number outside the formula, in the text: 见式 (1), see (1)")),
    **dict.fromkeys(("notag", "nonumber"), (
        "an unnumbered line of numbered equations",
        "delete it: a formula without \\tag has no number")),
}
# Control symbols: escaped specials, spacing, line break, text accents, italic correction,
# discretionary hyphen and times.
SYMBOLS = frozenset("\\{}%_&#$,:;! |>'`\"^~=./-*")
# Environments that work inside the renderer's `$\displaystyle …$`.
ENVIRONMENTS = frozenset("""matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases
    aligned alignedat gathered array subarray""".split())
DISPLAY_ENVIRONMENTS = frozenset("""align align* gather gather* equation equation* multline
    multline* flalign flalign* alignat alignat* split eqnarray eqnarray*""".split())

_TOKEN = re.compile(r"\\([A-Za-z]+|.?)|[{}%#$]|[\x00-\x1f\x7f-\x9f\ud800-\udfff]", re.S)
_ENV_NAME = re.compile(r"\s*\{([A-Za-z]+\*?)\}")


class Token(NamedTuple):
    kind: str  # "word" (\name), "symbol" (\x), "char" (a special character)
    value: str  # the name without "\\", or the character(s)
    end: int  # index just after the token in the formula


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text` that matter to the check, in order (letters, digits and other
    plain characters are skipped: they only typeset themselves)."""
    for m in _TOKEN.finditer(text):
        if m.group(1) is None:
            yield Token("char", m.group(0), m.end())
        elif len(m.group(1)) > 1 or m.group(1).isalpha():
            yield Token("word", m.group(1), m.end())
        else:
            yield Token("symbol", m.group(1), m.end())


def latex_problem(source: str) -> str | None:
    """None when the formula may be rendered, else one line saying what is not allowed.

    Static and linear in the formula's length (no LaTeX run), so ``kb check`` stays fast.
    """
    text = " ".join(source.split())
    if not text:
        return "empty formula"
    if all(c == " " or unicodedata.category(c) == "Cf" for c in text):
        return "empty formula (only invisible characters such as a zero-width space)"
    if len(text) > MAX_FORMULA_CHARS:
        return f"formula is {len(text):,} characters long; the limit is {MAX_FORMULA_CHARS:,}"
    if "^^" in text:  # TeX turns ^^xx into a character before it tokenises: refuse outright
        return "'^^' (TeX's character-code notation) is not allowed in formulas"
    if ("$" in text or "\\(" in text or "\\)" in text) and (problem := dollar_problem(text)):
        return problem
    depth = 0
    lefts = rights = 0
    stack: list[str] = []
    skip_to = 0  # end of an environment name already checked
    tags = 0
    in_tag = False  # inside the braces of the label of a `\tag`
    for tok in tokens(text):
        if tok.end <= skip_to:
            continue
        if tok.kind == "word" and tok.value == TAG:
            problem = _tag_problem(text, tok, tags, in_tag, bool(depth or stack or lefts != rights))
            if problem:
                return problem
            tags, in_tag = tags + 1, True
            continue
        # `dollar_problem` read them
        dollar = tok.value == "$" or (tok.kind == "symbol" and tok.value in ("(", ")"))
        problem = None if dollar else _token_problem(tok)
        if problem:
            return problem
        if tok.kind == "char":
            depth += {"{": 1, "}": -1}.get(tok.value, 0)
            if depth < 0:
                return "unbalanced braces: '}' without '{'"
            in_tag = in_tag and depth > 0
        elif tok.value in ("begin", "end"):
            m = _ENV_NAME.match(text, tok.end)
            if not m:
                return f"\\{tok.value} must be followed by an environment name in braces"
            problem = _environment_problem(m.group(1))
            if problem:
                return problem
            skip_to = m.end()
            if tok.value == "begin":
                stack.append(m.group(1))
            elif not stack or stack.pop() != m.group(1):
                return f"\\end{{{m.group(1)}}} does not match its \\begin"
        elif tok.value == "left":
            lefts += 1
        elif tok.value == "right":
            rights += 1
    if depth:
        return f"unbalanced braces: {depth} '{{' not closed"
    if stack:
        return f"\\begin{{{stack[-1]}}} is never ended"
    if lefts != rights:
        return f"\\left and \\right do not pair ({lefts} vs {rights})"
    tex = tex_source(text)
    return structure_problem(tex, text) or glyph_problem(text) or alphabet_problem(tex)


def dollar_problem(formula: str) -> str | None:
    """Why a `$`, `\\(` or `\\)` of `formula` stops LaTeX, or None. In text (the argument of
    `\\text` and the other `TEXT_ARGUMENT` commands) `$…$` and `\\(…\\)` are math again, as
    LaTeX draws them (`\\text{if $x>0$}`), closed before the text ends; in `\\boxed`'s
    argument (and the other `OWN_MATH` commands') `$…$` is text (`\\boxed{$x$}`), and at the
    formula's top level, where a `$` ends the renderer's `$\\displaystyle …$` (`x $y$ z`,
    `\\pmod{$n$}`: `\\pmod`'s argument is set there), if it does not end the formula with a
    `$` (LaTeX reads `$$`, display math); anywhere else math is already on. A top-level
    `$…$` around no text (`y $$ z`, `$ $`) is refused though LaTeX draws it: it sets
    nothing, and is a formula's end written inside it (`$$ y $$ z $$` on one line)."""
    tagged = tag_at_end(formula)
    top = None  # the top-level `$` opening text not closed yet
    for p in pieces(tagged):
        if p.owner == "top" and p.switch == "close" and tagged[p.end:p.end + 1] in ("$", ""):
            return ("'$' inside a formula ends text right before another '$' or the formula's "
                    "end (LaTeX reads '$$', display math: \"Display math should end with $$\"): "
                    "write x \\text{ y}")
        if p.owner == "top" and p.switch == "close" and top is not None \
                and not tagged[top.end:p.start].strip():
            return ("'$$' inside a formula, around no text: a formula's end written inside it "
                    "(two formulas on one line, as $$ a $$ b $$?): end the formula there and "
                    "start the next on a line of its own, or write \\$\\$ for dollar signs")
        top = p if p.owner == "top" and p.switch == "open" else None if p.owner == "top" \
            else top
        if p.switch == "bad" and p.text == "$":
            return ("'$' inside a formula (math is already on): write \\$ for a dollar sign; "
                    "only in \\text{…}, \\boxed{…} and at the formula's top level does $…$ "
                    "switch between math and text, as \\text{if $x>0$}")
        if p.switch == "bad":
            what = "closes no math opened" if p.text == "\\)" else "opens math where it is on"
            return (f"command {p.text} {what} (LaTeX: \"Bad math environment delimiter\"): a formula "
                    "is math already; only in \\text{…} does \\( … \\) set math again, as "
                    "\\text{if \\(x>0\\)}")
        if p.switch == "unclosed$boxed":
            return (f"'$' inside \\{p.owner}{{…}} sets text that it does not end before the '}}' "
                    f"(LaTeX: \"Missing $ inserted\"): close it, as \\{p.owner}{{$x$}}, or leave "
                    f"the $ out for math, as \\{p.owner}{{x}}")
        if p.switch == "unclosed$top":
            return ("'$' inside \\pmod{…} or \\pod{…} sets text that it does not end before the "
                    "'}': close it, as \\pmod{$n$}, or leave the $ out for math, as \\pmod{n}")
        if p.switch == "unclosed$":
            return ("'$' or '\\(' inside \\text{…} opens math that the text does not close "
                    "(LaTeX: \"Missing $ inserted\"): close it before the text's '}', as "
                    "\\text{if $x>0$} or \\text{if \\(x>0\\)}")
    if top is not None:
        return ("'$' inside a formula, at its top level, opens text that it does not close "
                "(LaTeX: \"Display math should end with $$\"): close it, as x $y$ z, or write "
                "\\$ for a dollar sign")
    return None


def inline_problem(source: str) -> str | None:
    """Why a formula `latex_problem` accepts cannot be inline math (`$…$`), or None.

    LaTeX (and KaTeX) number display math only: `\\tag` in `$…$` stops LaTeX ("\\tag not
    allowed here"), so ``kb check`` and ``kb build`` refuse it there (the renderer typesets
    every formula the same way and would draw it)."""
    if any(tok.kind == "word" and tok.value == TAG for tok in tokens(source)):
        return ("\\tag in inline math ($…$): LaTeX numbers display formulas only; "
                "write the formula as a $$ … $$ block, or leave the \\tag out")
    return None


def _tag_problem(text: str, tok: Token, seen: int, in_tag: bool, nested: bool) -> str | None:
    """Why a `\\tag` is refused, or None: one per formula, at its top level, with its
    label in braces (the label's own tokens are checked as the rest of the formula)."""
    if in_tag:
        return "\\tag inside the label of another \\tag is not allowed"
    if seen:
        return "more than one \\tag in a formula (LaTeX: \"Multiple \\tag\"); keep one"
    if nested:
        return ("\\tag must stand at the formula's top level "
                "(not inside braces, \\left…\\right or an environment)")
    arg = TAG_ARG.match(text, tok.end)
    if not arg:
        return "\\tag must be followed by its label in braces: \\tag{1} or \\tag*{A}"
    return _label_problem(_braced(text, arg.end()), bool(arg.group(1)))


def _braced(text: str, start: int) -> str:
    """The text from `start` (just after a `{`) to its closing brace; to the end when it has
    none (the check of the whole formula says so)."""
    depth = 1
    for m in _TOKEN.finditer(text, start):
        depth += {"{": 1, "}": -1}.get(m.group(0), 0)
        if not depth:
            return text[start:m.start()]
    return text[start:]


def _label_problem(label: str, starred: bool) -> str | None:
    """Why a `\\tag`'s label is refused, or None: it is read as the renderer sets it, in text
    (`\\text{(label)}`, `\\tag*`: `\\text{label}`, `tag_at_end`), token by token as TeX reads
    it, so `\\^`, `\\_`, `\\&` and `$\\alpha$` pass and a math command, `^`, `_` or `&` is
    refused before `kb build` stops at it. (A command not allowed anywhere, or a `\\tag` in
    the label, is left to the check of the whole formula to name.)"""
    if any(tok.value == TAG or (tok.value not in "$()" and _token_problem(tok))
           for tok in tokens(label)):
        return None
    problem = structure_problem(tex_source("\\text{" + (label if starred else f"({label})")
                                           + "}"))
    return f"a \\tag's label is set as text: {problem}" if problem else None


def _token_problem(tok: Token) -> str | None:
    """Why one token is refused, or None."""
    if tok.kind == "word":
        if tok.value in COMMANDS:
            return None
        if tok.value in UNSUPPORTED:
            what, instead = UNSUPPORTED[tok.value]
            return f"command \\{tok.value} ({what}) is not supported in formulas; {instead}"
        return f"command \\{tok.value} is not allowed in formulas (see docs/formulas.md)"
    if tok.kind == "symbol":
        if tok.value == "":
            return "a formula cannot end with '\\'"
        if tok.value in SYMBOLS:
            return None
        return f"command \\{shown_char(tok.value)} is not allowed in formulas (see docs/formulas.md)"
    if tok.value in "{}":
        return None
    if tok.value == "$":
        return "'$' inside a formula (math is already on)"
    if tok.value == "%":
        return "'%' starts a TeX comment; write \\% for a percent sign"
    if tok.value == "#":
        return "'#' is TeX's parameter character; write \\# for a number sign"
    return f"control character {shown_char(tok.value)} is not allowed in formulas"


def _environment_problem(name: str) -> str | None:
    if name in ENVIRONMENTS:
        return None
    if name in DISPLAY_ENVIRONMENTS:
        inner = "aligned" if name.startswith(("align", "eqnarray", "split", "flalign")) \
            else "gathered"
        return (f"environment {{{name}}} cannot be used inside a formula; "
                f"use {{{inner}}} instead")
    return (f"unknown environment {{{name}}}: formulas allow matrix, pmatrix, bmatrix, "
            "cases, aligned, array and the others listed in docs/formulas.md")
