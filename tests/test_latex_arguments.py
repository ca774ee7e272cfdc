"""What a formula's arguments are, as the renderer's LaTeX reads them:

- a `\\tag`'s label is text (`\\text{(label)}`), read token by token: `\\^`, `\\_`, `\\&` and
  `$\\alpha$` there draw (the check refused the characters `^`, `_`, `&` wherever they were);
- `\\cfrac[…]` compares its first token with `l` and `r`: after one of them the rest is math
  in the numerator, followed by `\\hfill` (`\\cfrac[l&]{a}{b}` passed and stopped LaTeX);
  after any other LaTeX skips it, but in a cell an `&` outside braces ends the cell there;
- the text accents written as a letter (`\\u \\v \\H \\c \\d \\b \\r \\t`) and the dotless
  `\\i`, `\\j` are text, as `\\^` is (they were not allowed); `\\b` and `\\d` draw in math too;
- `\\boldsymbol`, the arrows (`\\overrightarrow` …), `\\substack` and `\\sideset` set their
  argument in a `$…$` of their own, as `\\boxed` does: a `$` there sets text again
  (`\\boldsymbol{$x$}` was refused); `\\sideset` takes its operator as a third argument, and
  braces in `\\substack`'s cells hold no row (`\\substack{{a \\\\ b}}` passed);
- at the formula's top level a `$` ends the renderer's `$\\displaystyle …$`: `x $y$ z` is y in
  text, and so is `\\pmod{$n$}` (`\\pmod`'s argument is set there), unless the `$` back to
  math ends the formula or meets another `$` (LaTeX reads `$$`, display math);

Each list is run through the renderer's LaTeX: it stops at every refused formula and draws
every accepted one.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.render.latex_allow import MAX_FORMULA_CHARS, latex_problem
from kbtools.render.latex_structure import ARGUMENTS
from tests.latexcases import (
    assert_refused_naming,
    list_tests,
    needs_latex,
)
from tests.test_latex_delims import SWEPT, latex_draws

# (formula, what the message must name)
REFUSED = [
    ("x \\tag{a_b}", ["a \\tag's label is set as text", "'_' inside \\text{…}"]),
    ("x \\tag{a^2}", ["\\tag's label", "'^'"]),
    ("x \\tag{a&b}", ["\\tag's label", "'&' outside an environment"]),
    ("x \\tag{\\alpha}", ["\\tag's label", "'\\alpha' inside \\text{…}"]),
    ("x \\tag*{\\^}", ["\\tag's label", "\\^ in text puts an accent", "nothing follows"]),
    ("x \\tag{\\(x\\)^2}", ["\\tag's label", "'^'"]),
    ("\\cfrac[l&]{a}{b}", ["'&' outside an environment", "Misplaced alignment tab"]),
    ("\\cfrac[r&]{a}{b}", ["'&'"]), ("\\cfrac[{l&}]{a}{b}", ["'&'"]),
    ("\\cfrac[l^]{a}{b}", ["\\cfrac[…] holds '^' without its argument", "\\hfill",
                           "write \\cfrac[l]{a}{b}"]),
    ("\\cfrac[r\\sqrt]{a}{b}", ["holds 'sqrt' without its argument"]),
    ("\\cfrac[l\\mathbin]{a}{b}", ["'mathbin' without"]),
    ("\\cfrac[l\\over b]{a}{b}", ["holds \\over", "Missing } inserted"]),
    ("\\cfrac[r\\limits]{a}{b}", ["holds \\limits", "Limit controls"]),
    ("\\cfrac[l\\^o]{a}{b}", ["\\^ is a text accent"]),
    ("\\cfrac[l\\big]{a}{b}", ["[ … ] of \\cfrac ends at its first ']'"]),
    ("\\cfrac[l\\hat{\\frac{1}}]{a}{b}", ["\\frac takes 2 arguments"]),
    ("\\begin{array}{cc} \\cfrac[x&]{a}{b} & c \\end{array}",
     ["'&' in the [ … ] of \\cfrac within a cell", "Misplaced alignment tab", "\\&"]),
    ("\\begin{aligned} \\smash[&]{a} & c \\end{aligned}", ["[ … ] of \\smash within a cell"]),
    ("\\begin{aligned} \\sqrt[&]{a} & c \\end{aligned}", ["[ … ] of \\sqrt within a cell"]),
    ("\\u{o}", ["\\u is a text accent", "Please use \\mathaccent", "\\text{}"]),
    ("x \\v c", ["\\v is a text accent"]), ("\\H{o}", ["\\H is"]), ("\\c{c}", ["\\c is"]),
    ("\\r{a}", ["\\r is"]), ("\\t{oo}", ["\\t is"]),
    ("\\text{\\u}", ["\\u in text puts an accent", "nothing follows", "\\u o", "\\u{}"]),
    ("\\text{a\\t}", ["\\t in text", "nothing"]), ("\\text{\\u\\^o}", ["'\\^' follows"]),
    ("\\text{\\^\\c c}", ["'\\c' follows"]), ("\\text{\\b$x$}", ["'$' follows"]),
    ("\\text{\\k{a}}", ["command \\k", "ogonek", "ą"]), ("\\b", ["\\b takes 1 argument"]),
    ("\\boldsymbol{$x}", ["'$' inside \\boldsymbol{…} sets text", "\\boldsymbol{$x$}"]),
    ("\\substack{$x \\\\ y$}", ["'\\\\' inside braces within a cell of {subarray}"]),
    ("\\substack{{a \\\\ b}}", ["{subarray}"]), ("\\substack{\\text{a \\\\ b}}", ["{subarray}"]),
    ("\\boldsymbol{$x^2$}", ["'^' inside \\text{…}"]), ("\\boldsymbol{{$x$}}", ["'$' inside"]),
    ("\\overrightarrow{$\\frac12$}", ["'\\frac' inside \\text{…}"]),
    ("\\sideset{a}{b}", ["\\sideset takes 3 arguments", "\\sideset{_a}{^b}\\sum"]),
    ("\\sideset{}{}{$x$}", ["'$' inside"]), ("\\xrightarrow{$x$}", ["'$' inside"]),
    ("\\underleftarrow{$x$ $y}", ["'$' inside \\underleftarrow{…} sets text"]),
    ("x $y", ["'$' inside a formula, at its top level, opens text", "x $y$ z"]),
    ("x $y$", ["right before another '$' or the formula's end", "Display math", "x \\text{ y}"]),
    ("x $y$$z$ w", ["right before another '$'"]), ("$x$", ["the formula's end"]),
    ("{\\pmod{$x$}}", ["'$' inside a formula", "at the formula's top level"]),
    ("\\pmod{$x^2$}", ["'^' inside \\text{…}"]), ("\\pmod{$x}", ["'$' inside \\pmod{…}"]),
    ("\\left( \\pmod{$x$} \\right)", ["'$' where math is already on", "top level"]),
    ("\\begin{aligned} a \\pmod{$x$} \\end{aligned}", ["'$' where math is already on"]),
    ("x $\\frac12$ z", ["'\\frac' inside \\text{…}"]), ("x $a & b$ c", ["'&'"]),
]

ACCEPTED = [
    "x \\tag{a\\^}", "x \\tag{a\\_b}", "x \\tag{a\\&b}", "x \\tag{a\\^{o}}", "x \\tag{\\^}",
    "x \\tag{$\\alpha$}", "x \\tag{\\(x^2\\)}", "x \\tag*{a\\_1}", "x \\tag{\\~a \\'e}",
    "\\cfrac[l]{a}{b}", "\\cfrac[{r}]{a}{b}", "\\cfrac[x&]{a}{b}", "\\cfrac[ l&]{a}{b}",
    "\\cfrac[{l}&]{a}{b}", "\\cfrac[{{l&}}]{a}{b}", "\\cfrac[c&]{a}{b}", "\\cfrac[L&]{a}{b}",
    "\\cfrac[l x^2]{a}{b}", "\\cfrac[r\\hat]{a}{b}", "\\cfrac[l\\frac]{a}{b}",
    "\\cfrac[l{\\over}]{a}{b}", "\\cfrac[l\\sum\\limits]{a}{b}", "\\cfrac[l\\\\]{a}{b}",
    "\\cfrac[l\\text{$x$}]{a}{b}", "\\begin{aligned} \\cfrac[x{&}]{a}{b} & c \\end{aligned}",
    "\\begin{aligned} {\\cfrac[x&]{a}{b}} & c \\end{aligned}",
    "\\text{\\u{o} \\v{c} \\H{o} \\c{c} \\d{o} \\b{o} \\r{a} \\t{oo}}", "\\text{\\u o \\v c}",
    "\\text{\\u\\i \\v\\j}", "\\text{\\u{}}", "\\b{o} + \\d x", "\\i + \\j", "x \\tag{\\v{c}}",
    "\\text{\\c\\ldots}",
    "\\boldsymbol{$x$}", "{\\boldsymbol{a $x$ b}}", "\\boldsymbol{$\\text{$x$}$}", "\\boldsymbol{$\\^o$}",
    "\\boldsymbol{$x \\\\ y$}", "\\overrightarrow{$x$}^2", "\\overleftarrow{$AB$}",
    "\\overleftrightarrow{$x$}", "\\underrightarrow{$x$}", "\\underleftarrow{$温$}",
    "\\underleftrightarrow{$x$}", "\\substack{$x$ \\\\ $y$}", "\\sum_{\\substack{$i$ \\\\ j}} a",
    "\\sideset{$x$}{$y$}\\sum", "\\sideset{}{$x$}\\prod", "\\sideset{a}{b}{\\sum}",
    "\\text{\\boxed{\\boldsymbol{$x$}}}",
    "x $y$ z", "$x$ y", "x $y$ \\tag{1}", "x $温$ z", "x $y \\(z\\)$ w",
    "a \\over b $x$ c \\over d", "x^2 $y$ ^3", "\\boxed{$a \\(b^2\\) c$}", "\\pmod{$x$}",
    "\\pod{$x$ and $y$}", "x^2 \\pmod{$n$}", "\\pmod{\\pmod{$x$}}", "\\pmod{a $x$ b} y",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


# drawn by LaTeX, yet refused: a top-level `$…$` around no text sets nothing, and is a
# formula's end written inside it (`$$ y $$ z $$` on one line is one formula, ` y $$ z `)
BLANK_TEXT = ["x $$ y", "x $ $ y", " y $$ z ", "a $$ b $$ c", "\\pmod{$ $}"]


@pytest.mark.parametrize("formula", BLANK_TEXT)
def test_a_top_level_dollar_pair_around_no_text_is_refused(formula):
    assert_refused_naming(formula, ["'$$' inside a formula", "line of its own"])


# what the allowlist refuses anywhere, whatever LaTeX's conditional skips (`$`, `#`, and
# `\\left`, `\\right`, `\\begin`, `\\end` unpaired); and `\\c`, refused in math though LaTeX
# draws it there when its argument is not 1ex high (`\\c\\hfill`, `\\c{A}`: no `\\accent`)
ALWAYS_REFUSED = {"$", "#", "%", "\\left", "\\right", "\\begin", "\\end"}


@needs_latex
def test_the_check_reads_a_cfrac_s_bracket_as_latex_does():
    """Every allowlisted command, control symbol and ASCII character after `l`, `r` or `x`
    in `\\cfrac[…]`: the check accepts it exactly when LaTeX draws it."""
    formulas = [f"\\cfrac[{side}{t}{' ' * t[-1].isalpha()}]{{a}}{{b}}" for side in "lrx"
                for t in SWEPT if t not in ALWAYS_REFUSED | {"\\c"}]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_dollars_in_an_argument_in_math_are_judged_as_latex_judges_them():
    """`$x$` as the argument of each command that takes one, in math, alone and in braces:
    the commands that set it in a `$…$` of their own take it as text, and `\\pmod`, `\\pod`
    at the top level (their argument is the formula's own math, where a `$` ends it), the
    others stop LaTeX; the check accepts exactly what LaTeX draws."""
    formulas = [f"{left}\\{c}{{$x$}}" + ("{a}" * (n - 1))[:-3 * (c == "sideset")]
                + "{\\sum}" * (c == "sideset") + right
                for c, n in sorted(ARGUMENTS.items()) for left, right in (("", ""), ("{", "}"))
                if c not in ("multicolumn", "cline", "hspace")]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


# braces stripped around a `\\cfrac`'s `l`, `\\pmod`'s braces, top-level text, own-math
# arguments, as long as a formula may be (`k` repeats): each piece read a bounded number of times
GROWING = [
    lambda k: "\\cfrac[{l" * k + "}]{a}{b}" * k, lambda k: "\\pmod{" * k + "$x$" + "}" * k,
    lambda k: "a $y$ " * k + "z", lambda k: "\\sideset{$x$}{$y$}\\sum " * k,
    lambda k: "\\boldsymbol{$\\text{\\boxed{" * k + "x" + "}}$}" * k,
    lambda k: "x \\tag{" + "a\\^ " * k + "}", lambda k: "\\substack{{" * k + "x" + "}}" * k,
]
LONG = [grow((MAX_FORMULA_CHARS - len(grow(0))) // (len(grow(1)) - len(grow(0))))
        for grow in GROWING]


@pytest.mark.parametrize("formula", LONG, ids=range(len(LONG)))
def test_the_check_is_linear_in_the_formula(formula):
    start = time.thread_time()
    problem = latex_problem(formula)
    assert time.thread_time() - start < 1.0
    assert not (problem or "").startswith("formula is"), len(formula)


# what an author types around a `\\cfrac[…]`, a `\\tag`, own-math arguments and top-level `$`
PIECES = st.lists(st.sampled_from(["\\cfrac[", "l", "r", "]", "{", "}", "$", "\\pmod{", "&",
                                   "\\boldsymbol{", "\\substack{", "\\sideset{", "\\sum",
                                   "\\tag{", "\\^", "\\_", "\\u", "x", " ", "^", "\\\\",
                                   "\\over", "\\limits", "\\text{", "\\(", "\\)",
                                   "\\begin{aligned}", "\\end{aligned}"]),
                  max_size=25).map("".join)


@settings(max_examples=600, deadline=500, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES)
def test_any_mix_gets_an_answer_of_one_line(text):
    """No exception, one line or None; an accepted formula's `$` are paired and it does not
    end with one (LaTeX would read `$$`)."""
    problem = latex_problem(text)
    assert problem is None or (problem and "\n" not in problem)
    if problem is None:
        assert text.count("$") % 2 == 0 and not text.rstrip().endswith("$"), text
