"""A command that takes arguments, written unbraced as another's argument, and the text
accents in math, as the renderer's LaTeX reads them (`latex_scripts.unbraced_argument`,
`latex_text.accent_in_math`):

- where TeX reads a math field (a script, `\\sqrt`'s radicand, `\\mathop`'s argument) an
  unbraced `\\text`, `\\mathrm` or `\\frac` reads its own arguments from what follows, and
  they were not checked: `x_\\text\\infty` and `x^\\text{\\alpha}` passed (LaTeX: "Missing $
  inserted"), as did `x^\\frac12^3` ("Double superscript"), and `x^\\text{a$b$}` was refused
  though it draws;
- any other command (a macro: `\\frac`, `\\hat`, `\\text` …) takes such a command as its one
  token, which LaTeX then sets without its arguments: `\\frac\\text{a}{b}`, `\\hat\\mathrm a`,
  `\\text\\textbf a` passed and stop LaTeX; the few pairs LaTeX draws (`\\hat\\bar a`,
  `\\mathrm\\mathbf a`, `\\pmod\\frac{a}{b}`, `\\overrightarrow\\hat a`) pass;
- a prime as the argument of a math field (`\\sqrt'`, `\\mathop'`) is a superscript with
  nothing to raise (LaTeX: "Missing { inserted"), and passed;
- a text accent as an unbraced argument (`x^\\c{c}`, `\\frac\\u a{b}`, `\\text\\c c`, `\\b\\c c`)
  passed and stops LaTeX;
- `\\c` in math draws its cedilla unless what it is put under is 1ex high (`\\c{A}`, `\\c{}`,
  `\\c{g}` draw; `\\c{c}` does not), and OT1's composites `\\r{A}` and `\\.{i}` draw: all
  were refused.

Each list is run through the renderer's LaTeX, and every pair of commands that take
arguments (and the text accents as the inner one) is swept, the check's verdict against
LaTeX's; so are the characters under `\\c`.
"""

from __future__ import annotations

import string

import pytest

from kbtools.render.latex_allow import latex_problem
from kbtools.render.latex_structure import ARGUMENTS
from kbtools.render.latex_text import TEXT_ACCENTS
from tests.latexcases import (
    assert_latex_refuses,
    list_tests,
    needs_latex,
)
from tests.test_latex_delims import latex_draws

REFUSED = [
    ("x_\\text\\infty", ["'\\infty' inside \\text"]),
    ("x^\\text\\alpha", ["'\\alpha' inside \\text"]),
    ("x_\\text{\\infty}", ["'\\infty' inside \\text"]),
    ("T_\\text{max^2}", ["'^' inside \\text"]),
    ("\\sqrt\\text{\\alpha}", ["'\\alpha' inside \\text"]),
    ("\\mathop\\textbf{\\sum}", ["'\\sum' inside \\text"]),
    ("\\sqrt'", ["\\sqrt takes 1 argument"]), ("\\mathop '", ["\\mathop takes 1 argument"]),
    ("x^\\frac12^3", ["double superscript"]),
    ("\\frac a\\pmod2", ["\\pmod as the argument of \\frac"]),
    ("\\frac{a}\\text{b}", ["\\text as the argument of \\frac"]),
    ("\\pmod\\frac", ["\\frac takes 2 arguments"]),
    ("\\mathrm\\overset", ["\\overset takes 2 arguments"]), ("x_\\text a_b", ["double subscript"]),
    ("x^\\mathrm{T}^2", ["double superscript"]),
    ("\\frac\\text{a}{b}", ["\\text as the argument of \\frac needs braces",
                            "\\frac{\\text{…}}"]),
    ("\\frac\\mathrm d{x}", ["\\mathrm as the argument of \\frac"]),
    ("\\hat\\mathrm a", ["\\mathrm as the argument of \\hat"]),
    ("\\text\\textbf{温度}", ["\\textbf as the argument of \\text"]),
    ("\\sqrt\\hat a", ["\\hat as the argument of \\sqrt", "Missing { inserted"]),
    ("\\overline\\mathbf{v}", ["\\mathbf as the argument of \\overline"]),
    ("\\boxed\\frac12", ["\\frac as the argument of \\boxed"]),
    ("\\underset\\text{min}{x}", ["\\text as the argument of \\underset"]),
    ("\\operatorname\\mathrm{d}", ["\\mathrm as the argument of \\operatorname"]),
    ("\\widehat\\hat a", ["\\hat as the argument of \\widehat"]),
    ("\\mathbf\\overset{a}{b}", ["\\overset as the argument of \\mathbf"]),
    ("\\overrightarrow\\frac{a}{b}", ["\\frac as the argument of \\overrightarrow"]),
    ("x^\\c{c}", ["text accent \\c as a superscript", "x^{\\text{\\c{c}}}"]),
    ("x_\\u a", ["text accent \\u as a subscript"]),
    ("\\frac\\v{s}{2}", ["text accent \\v as the argument of \\frac"]),
    ("\\text\\c c", ["text accent \\c as the argument of \\text", "\\text{\\c{c}}"]),
    ("x \\b\\c c", ["text accent \\c as the argument of \\b"]),
    ("\\hat\\H o", ["text accent \\H"]),
    ("\\pmod\\u a", ["text accent \\u"]),
    ("x \\c{c}", ["\\c is a text accent", "in math", "\\c{A}"]),
    ("x \\c c", ["\\c is a text accent"]), ("\\c{ça}", ["\\c is a text accent"]),
    ("x \\c{oA^2}", ["\\c is a text accent"]), ("\\c{.x}", ["\\c is a text accent"]),
    ("x \\c", ["\\c is a text accent"]), ("\\r{a}", ["\\r is a text accent"]),
    ("\\r{{Ax}}", ["\\r is a text accent"]), ("\\.\\i", ["\\. is a text accent"]),
    ("\\u{g}", ["\\u is a text accent"]), ("x \\c{\\i}", ["\\c is a text accent"]),
]
ACCEPTED = [
    "x^\\text a", "x_\\text{max}", "x_\\text\\S", "x^\\textbf\\S", "x_\\mathrm\\infty",
    "x^\\text{a$b$}", "\\sqrt\\text{a $\\alpha$}", "T_\\text{最大}", "x_\\mathrm{d}^2",
    "x^\\frac12", "x^\\frac12_3", "\\sqrt\\frac12", "\\mathop\\mathrm{d}\\limits_a",
    "\\mathrm\\infty", "\\text a", "\\frac'2", "\\sqrt[3]'", "\\hat'", "x^\\frac'2",
    "\\hat\\bar a", "\\vec\\hat x", "\\hat\\bar\\text{a}", "\\hat\\hat\\frac{a}{b}",
    "\\mathrm\\mathbf a", "\\mathrm\\mbox{\\alpha}", "\\mathcal\\overset{a}{b}",
    "\\pmod\\frac{a}{b}", "\\pmod\\text\\alpha", "\\frac\\pmod{n}{2}", "\\pmod\\frac{a}",
    "\\mathrm\\stackrel{a}", "\\hat\\hat", "\\mathrm\\mbox", "\\pmod\\hat",
    "\\overrightarrow\\hat{a}", "\\overrightarrow\\text\\alpha", "\\underleftarrow\\c{x}",
    "x \\c{A}", "x \\c{}", "x \\c g", "x \\c{g}", "\\c{Ac}", "x \\c{ A }", "\\c{c A}",
    "x^{\\c{A}}", "\\frac{\\c{A}}{2}", "\\c{.}", "\\c{ }", "x \\c A_1", "\\c{{A}}",
    "x \\r A", "\\r{A}", "\\r{ A }", "\\r{AB}", "\\.{i}", "\\.i", "\\.{ix}",
    "\\text{\\c{c}}", "\\text{\\c c}", "\\text{\\c{}}", "\\text{\\u{g} \\v{s} \\H{o}}",
    "x \\b\\i", "x \\d{o}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


# every command that takes arguments (but those read as numbers, dimensions or column letters
# and `\\sideset`'s scripts), and the text accents, which take one
TAKING = sorted(w for w in ARGUMENTS if w not in ("hspace", "cline", "multicolumn", "sideset"))
INNER = TAKING + sorted(a for a in TEXT_ACCENTS if a not in ARGUMENTS)


def _nested(outer: str, inner: str, args: str) -> str:
    """`outer` (a `^`/`_`, or a command) with `\\inner` unbraced as its argument, `args` the
    inner's arguments, then the rest of the outer's arguments."""
    head = f"x{outer}" if outer in ("^", "_") else f"\\{outer}"
    return head + f"\\{inner}" + args + "{z}" * (ARGUMENTS.get(outer, 1) - 1)


# Pairs LaTeX draws or not by what ran before them in the same LaTeX run (a math alphabet's
# font set up on its first use; `\\cfrac`'s `\\ifx` left open): the sweeps, which run many
# formulas in one LaTeX, leave them out; each is refused, and stops LaTeX run alone.
BY_CONTEXT = [("mathbf", "stackrel"), ("mathit", "stackrel"), ("mathsf", "stackrel"),
              ("mathtt", "stackrel"), ("mathfrak", "stackrel"), ("cfrac", "cfrac")]


@needs_latex
def test_the_pairs_drawn_by_context_are_refused_as_latex_refuses_them_alone():
    formulas = [_nested(outer, inner, "{a}" * ARGUMENTS.get(inner, 1))
                for outer, inner in BY_CONTEXT]
    assert all(latex_problem(f) for f in formulas)
    assert_latex_refuses(formulas)


@needs_latex
@pytest.mark.parametrize("outer", ["^", "_", *TAKING])
def test_an_unbraced_command_as_an_argument_is_judged_as_latex_judges_it(outer):
    """Every command that takes arguments (and every text accent) unbraced as the argument
    of `outer`, its own arguments braced letters: the check accepts exactly what LaTeX
    draws."""
    formulas = [_nested(outer, inner, "{a}" * ARGUMENTS.get(inner, 1)) for inner in INNER
                if (outer, inner) not in BY_CONTEXT]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_an_unbraced_command_as_a_later_argument_is_judged_as_latex_judges_it():
    """Every command that takes arguments (and every text accent) unbraced as the second
    argument of each command that takes two, and each pair the check accepts with nothing
    after it: the check accepts exactly what LaTeX draws (none of the first)."""
    formulas = [f"\\{outer}{{a}}\\{inner}" + "{a}" * ARGUMENTS.get(inner, 1)
                for outer in TAKING if ARGUMENTS[outer] == 2 for inner in INNER]
    formulas += [_nested(outer, inner, "") for outer in ["^", "_", *TAKING] for inner in INNER
                 if (outer, inner) not in BY_CONTEXT
                 and latex_problem(_nested(outer, inner, "{a}" * ARGUMENTS.get(inner, 1))) is None]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_what_follows_an_unbraced_command_is_judged_as_latex_judges_it():
    """For each pair the check accepts, its arguments written otherwise: a math command
    (text where a text command reads it), math in braces, a double superscript, `$…$` and
    letters after blanks: the check accepts exactly what LaTeX draws."""
    formulas = []
    for outer in ["^", "_", *TAKING]:
        for inner in INNER:
            n = ARGUMENTS.get(inner, 1)
            if latex_problem(_nested(outer, inner, "{a}" * n)) is None:
                formulas += [_nested(outer, inner, first + "{a}" * (n - 1)) for first in
                             ("\\alpha", "{\\alpha}", "{a^2^3}", "{a$x$}", " B")]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_what_a_cedilla_goes_under_in_math_is_judged_as_latex_judges_it():
    """`\\c` in math under every printable ASCII character, alone and beside a letter 1ex
    high (c) or higher (A), and the other accents under a letter: the check accepts exactly
    what LaTeX draws."""
    chars = [c for c in string.printable if not c.isspace() and c not in "\\{}#$%&^_~"]
    formulas = [f"x \\c{{{c}{other}}}" for c in chars for other in ("", "c", "A")]
    formulas += [f"x \\{a}{blank}{c}" for a in sorted(TEXT_ACCENTS)
                 for blank in (" " * a.isalpha(),) for c in "AicgO"]
    formulas += [f"x \\{a}{{{c}}}" for a in sorted(TEXT_ACCENTS) for c in ("", "A", "ix")]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn
