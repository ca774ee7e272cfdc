"""What LaTeX allows where a formula is text, and where a row may end: the data and messages
`latex_structure` uses.

Inside `\\text{…}` (and the other text commands) LaTeX is in text mode: a math command, `^`,
`_` or `\\|` there stops it ("Missing $ inserted", or for a math font or accent "\\mathrm
allowed only in math mode"). `TEXT_MODE` lists the allowed commands that work in text, as
the renderer's LaTeX (article 12pt, amsmath, amssymb, CJKutf8) was found to draw each of
them inside `\\text{}`; every other allowed command is math only. `\\boxed` works in text
because it sets its argument as math again.

A row's `\\\\` inside braces (a group, `\\text{…}`, an argument, `\\left…\\right`, a
`\\multicolumn`'s text) within a cell of an environment ends the row across them, which
LaTeX refuses ("Missing } inserted", "Misplaced \\cr"); outside any environment it draws.
"""

from __future__ import annotations

import re

from kbtools.render.latex_args import argument, number, shown
from kbtools.render.latex_numbers import Slip

TEXT_MODE = frozenset("""text mbox textrm textbf textit textsf texttt textnormal textup
    textsl emph textdegree textcelsius textmu textperthousand textpm texttimes textdiv
    textbackslash textasciitilde textasciicircum textunderscore textbar textless textgreater
    textbullet textregistered texttrademark textcopyright textsection textperiodcentered
    textohm quad qquad enspace thinspace medspace thickspace negthinspace negmedspace
    negthickspace hspace phantom hphantom vphantom smash underline pmb boxed big Big bigg
    Bigg lbrack rbrack ldots dots dotso vdots S P dag ddag copyright pounds checkmark hline
    cline multicolumn u v H c d b r t i j ss SS o O ae AE oe OE aa AA l L""".split()) | {"CJKfamily"}  # the renderer's own font switch (`glyphs`)
# math commands whose own error LaTeX gives in text (LaTeX's math fonts, amsmath's accents)
ONLY_IN_MATH = frozenset("""mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak
    mathnormal hat check tilde acute grave dot ddot breve bar vec mathring""".split())
# Commands that set their argument in a `$…$` of their own (in a box: `\\boxed`'s `\\fbox`,
# amsbsy's `\\boldsymbol`, amsmath's arrows, `\\substack`'s cells, `\\sideset`'s measures),
# where a `$` sets text again (`\\boldsymbol{$x$}` is x in text), with how many of their
# arguments after the first are so, as the renderer's LaTeX was found to draw them
OWN_MATH = {**dict.fromkeys("""boxed boldsymbol overrightarrow overleftarrow overleftrightarrow
    underrightarrow underleftarrow underleftrightarrow substack""".split(), 0), "sideset": 1}
SPECIFIED = frozenset({"array", "subarray"})  # environments whose columns are written out
MATH_IN_TEXT = frozenset({"^", "_", "\\|"})  # characters and symbols that are math only
# the allowed text accents (`accent_problem`): in text only, but `ACCENTS_IN_MATH`
TEXT_ACCENTS = frozenset([*"'`\"^~=.", *"u v H c d b r t".split()])
ACCENTS_IN_MATH = frozenset("bd")  # `\\b{o}`, `\\d{o}`: a box of their own, in math too
# `\\c` (OT1) boxes its argument and draws the cedilla below with `\\ooalign` (which math
# takes) unless the box is exactly 1ex high, when it uses TeX's `\\accent` (which stops LaTeX
# in math: "Please use \\mathaccent"). The box is as high as its highest character: those of
# the renderer's text font (cmr12) that are 1ex high, and those lower; every other printable
# ASCII character is higher (as the renderer's LaTeX was found to draw `x \\c{…}`).
CEDILLA_AT_EX = frozenset("acemnopqrsuvwxyz-:;|")
CEDILLA_BELOW_EX = frozenset(",.=")
CEDILLA_UNKNOWN = frozenset("\\#$%&^_~")  # what is no character in text
# The text-mode commands without arguments (`TEXT_MODE`) weighed the same way (as the
# renderer's LaTeX draws `x \c{\S}`, `x \c{\quad c}`; tests/test_latex_cedilla.py): 1ex
# high, lower (a space, dots on the baseline, `\textunderscore`); every other one is higher.
# A command with arguments under `\c` (`\c{\textbf{c}}`) is not weighed: refused.
CEDILLA_AT_EX_COMMANDS = frozenset("i j ae oe textmu".split())
# the `TEXT_MODE` commands that take an argument (or are no symbol): not weighed
TEXT_MODE_NOT_SYMBOLS = frozenset("""text mbox textrm textbf textit textsf texttt textnormal
    textup textsl emph hspace phantom hphantom vphantom smash underline pmb boxed big Big
    bigg Bigg hline cline multicolumn CJKfamily""".split()) | TEXT_ACCENTS
CEDILLA_BELOW_EX_COMMANDS = frozenset("""quad qquad enspace thinspace medspace thickspace
    negthinspace negmedspace negthickspace dots dotso ldots textunderscore""".split())
MAX_NESTED_ACCENTS = 8
_CEDILLA_PIECE = re.compile(r"\\(?:[A-Za-z]+|.?)|.", re.S)
# accent and letter pairs OT1 defines as a character or a command of their own, which math
# takes: `\\r{A}` (Å), `\\.{i}` and `\\.{\\i}` (i), `\\c{g}` (a comma above)
COMPOSITES_IN_MATH = frozenset({("r", "A"), (".", "i"), (".", "\\i"), ("c", "g")})


def math_in_text(piece: str) -> str | None:
    """Why LaTeX refuses `piece` inside `\\text{…}`, or None when text takes it."""
    word = piece[1:] if piece.startswith("\\") else ""
    if piece not in MATH_IN_TEXT and not (word.isalpha() and word not in TEXT_MODE):
        return None
    latex = f"{piece} allowed only in math mode" if word in ONLY_IN_MATH else \
        "Missing $ inserted"
    if piece in ("^", "_"):
        example = f"\\text{{x}}{piece}2, or x{piece}2 outside the text"
    else:
        example = f"\\text{{a }} {piece}{'{…}' * (word in ONLY_IN_MATH)} \\text{{ b}}"
    return (f"'{piece}' inside \\text{{…}} (text, where LaTeX takes no math: \"{latex}\"): "
            f"end the text before it, as {example}")


def accent_in_math(word: str, tex: str, at: int) -> int | str:
    """Where reading goes on after the text accent `\\word` in math whose argument starts at
    `tex[at:]`, or why LaTeX refuses it there. OT1's accents are TeX's `\\accent`, refused in
    math, but for the composites OT1 defines (`COMPOSITES_IN_MATH`), `\\b` and `\\d` (a box
    of their own: not asked here) and `\\c` when its argument is not 1ex high (`\\c{A}`,
    `\\c{}`, `\\c{\\S}`: `cedilla_heights`)."""
    arg = argument(tex, at)
    inside = tex[arg[0]:arg[1]] if arg else "\\"
    first = argument(inside, 0)  # a composite is chosen by the first token (the rest dropped)
    heights = cedilla_heights(inside) if word == "c" else None
    if (word, inside[first[0]:first[1]].strip() if first else "") in COMPOSITES_IN_MATH or \
            heights is not None and ("higher" in heights or "at" not in heights):
        return arg[2] if arg else at
    cedilla = ", or \\c{A} (a cedilla drawn in math only under what is not 1ex high)" * \
        (word == "c")
    return (f"\\{word} is a text accent, which LaTeX refuses in math (\"Please use "
            f"\\mathaccent\"): write \\acute{{e}}, \\hat{{a}}, \\ddot{{o}} … in math, or "
            f"the accented letter in \\text{{}}{cedilla}")


def cedilla_heights(inside: str, depth: int = 0) -> set[str] | None:
    """How high the pieces of `inside`, the text `\\c` boxes, are against 1ex: a set of
    "higher", "at" and "below" (empty for no piece), or None when one is not known (a
    non-ASCII character, a command with arguments, a control symbol). Braces and blanks
    weigh nothing; a text accent weighs as what it is put on, and higher when it sits above
    (`\\c{\\u A}`, `\\c{\\r{a}}`) and is put on something; accents nested deeper than
    `MAX_NESTED_ACCENTS` are not weighed (each level reads its argument once more)."""
    if depth > MAX_NESTED_ACCENTS:
        return None
    heights: set[str] = set()
    at = 0
    while (m := _CEDILLA_PIECE.match(inside, at)) is not None:
        piece, at = m.group(0), m.end()
        word = piece[1:]
        if piece.isspace() or piece in "{}":
            continue
        if word in TEXT_ACCENTS:
            arg = argument(inside, at)
            under = cedilla_heights(inside[arg[0]:arg[1]], depth + 1) if arg else None
            if under is None:
                return None
            heights |= under | ({"higher"} if under and word not in ("c", "d", "b") else set())
            at = arg[2] if arg else at
        elif word.isalpha() and word in TEXT_MODE and word not in TEXT_MODE_NOT_SYMBOLS:
            heights.add("at" if word in CEDILLA_AT_EX_COMMANDS else
                        "below" if word in CEDILLA_BELOW_EX_COMMANDS else "higher")
        elif len(piece) == 1 and piece.isascii() and piece not in CEDILLA_UNKNOWN:
            heights.add("at" if piece in CEDILLA_AT_EX else
                        "below" if piece in CEDILLA_BELOW_EX else "higher")
        else:
            return None
    return heights


def accent_problem(word: str, after: str, takes_argument: bool) -> str | None:
    """Why LaTeX refuses the text accent `\\word` (`\\^`, `\\'` …) in text followed by the
    piece `after` (blanks skipped; "" at the end), or None. Its argument is the letter it is
    put on: a braced group (`\\^{o}`, `\\^{}`), or one token; not the text's end or `}`,
    nor a `$`, another accent or a command that takes an argument (`takes_argument`:
    `\\textbf`, `\\boxed`, `\\hspace` …), as the renderer's LaTeX was found to refuse."""
    if after and after not in ("}", "$", "\\(", "\\)") and not takes_argument and \
            not (after[:1] == "\\" and after[1:] in TEXT_ACCENTS):
        return None
    latex = f"Argument of \\{word} has an extra }}" if after in ("", "}") else \
        "Improper \\spacefactor" if after in ("$", "\\(") else "You can't use a prefix with"
    what = "nothing" if after in ("", "}") else f"'{after}'"
    blank = " " * word.isalpha()  # `\\u o`, not the command `\\uo`
    return (f"\\{word} in text puts an accent on the letter after it, and {what} follows "
            f"(LaTeX: \"{latex}\"): write \\{word}{{o}} or \\{word}{blank}o for an accented "
            f"letter, \\{word}{{}} for the accent alone")


def row_in_braces(env: str) -> str:
    return (f"'\\\\' inside braces within a cell of {{{env}}} (a group, \\text{{…}}, a "
            "\\multicolumn's text or \\left…\\right): it ends the row across them (LaTeX: "
            "\"Missing } inserted\" or \"Misplaced \\cr\"): close the braces before the \\\\, "
            "or stack the lines in \\begin{matrix} a \\\\ b \\end{matrix} or "
            "\\substack{a \\\\ b}")


def rule_problem(word: str) -> str:
    what = "\\hline" if word == "hline" else "\\cline{i-j}" if word == "cline" else \
        "\\multicolumn"
    latex = "Misplaced \\noalign" if word == "hline" else "Misplaced \\omit"
    if word == "multicolumn":
        return ("\\multicolumn not at the start of a cell of an {array}, a matrix or {cases} "
                f"(LaTeX: \"{latex}\"): write it first in its cell, as "
                "a & \\multicolumn{2}{c}{x} \\\\")
    return (f"{what} not at the start of a row of an environment (LaTeX: \"{latex}\"): write "
            "it right after \\begin{array}{…} or a row's \\\\, as \\begin{array}{c} \\hline "
            "a \\\\ \\hline \\end{array}")


def tab_problem(env: str | None, limit: int | None = 0) -> str:
    if env is None:
        return ("'&' outside an environment with columns (LaTeX: \"Misplaced alignment tab\"): "
                "write \\& for an ampersand, or the rows in \\begin{aligned} a & b \\\\ "
                "c & d \\end{aligned}")
    if env == "cases":
        return ("a row of {cases} has two columns, the value & its condition (LaTeX: \"Extra "
                "alignment tab\"): write one '&' a row, or use {array}")
    if limit or env in SPECIFIED:
        return (f"a row of {{{env}}} has more cells than its {(limit or 0) + 1} "
                f"column{'s' * bool(limit)} (LaTeX: "
                "\"Extra alignment tab has been changed to \\cr\"): add a column (a letter "
                "of {array}), or end the row with \\\\")
    return (f"{{{env}}} has no columns (LaTeX: \"Extra alignment tab\"): write the rows "
            "with '&' in {aligned}, or leave the '&' out")


def unpaired(word: str, kind: str) -> str:
    return (f"\\{word} without a \\left before it in the same group or environment (LaTeX: "
            f"\"Extra \\{word}\"): write \\left( … \\right) within one pair of braces"
            + _inside(kind))


def crossing(what: str, kind: str, name: str) -> str:
    opened = {"left": "\\left", "env": f"\\begin{{{name}}}", "top": "nothing",
              "opt": f"[ of \\{name}", "inline": "$"}.get(kind, "'{'")
    return (f"{what} closes before the {opened} opened after it: pairs must nest "
            "(\\left … \\right, { … }, \\begin … \\end inside one another, not across)")


def dollar_in_math() -> str:
    return ("'$' where math is already on (LaTeX: \"Display math should end with $$\"): write "
            "\\$ for a dollar sign; only in \\text{…} does $…$ set math again, as "
            "\\text{if $x>0$}, and only at the formula's top level (not in braces, "
            "\\left…\\right or an environment) is $…$ text, as x $y$ z")


def _inside(kind: str) -> str:
    return "" if kind == "top" else \
        f" ({'inside an environment' if kind == 'env' else 'inside a group'})"


def cline_end(name: str, tabs_allowed: int | None, tex: str, at: int) -> int | str:
    """Where `\\cline`'s `{i-j}` at `tex[at:]` ends, or why LaTeX refuses it (in the environment
    `name`, whose rows take `tabs_allowed` `&`)."""
    arg = argument(tex, at)
    inside = tex[arg[0]:arg[1]] if arg else ""
    first, dash, last = inside.partition("-")
    i, j = number(first), number(last)
    if arg is None or not dash or isinstance(i, Slip) or isinstance(j, Slip):
        return (f"\\cline{{{shown(inside)}}}: its argument is the columns it rules, i-j "
                "(LaTeX: \"Missing number\" or \"Runaway argument\"): write \\cline{2-3}")
    tabs = max(i - 1, 0) + max(j - i, 0)
    if tabs_allowed is not None and tabs > tabs_allowed:
        return (f"\\cline{{{shown(inside)}}} rules columns {{{name}}} has not (it has "
                f"{tabs_allowed + 1}; LaTeX: \"Extra alignment tab has been changed "
                f"to \\cr\"): write \\cline{{1-{tabs_allowed + 1}}} at most")
    return arg[2]
