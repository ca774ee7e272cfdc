"""Four more places where `kb check` read a formula otherwise than the renderer's LaTeX:

- an environment's placement `[…]`: LaTeX's {array} compares it with `\\if` and amsmath's
  {aligned} and {gathered} expand its first token, both expanding a command there, which
  stops LaTeX for many (`\\begin{array}[\\sin]{c}`: "Limit controls must follow a math
  operator"); the check passed every one;
- `\\limits` and `\\nolimits` after what is no operator (`x\\limits_a`, `{\\sum}\\limits`);
- `\\cfrac[l…]`: LaTeX sets what follows the `l` right after the numerator, so its scripts
  go on the numerator's last base (`\\cfrac[l^2]{a^3}{b}`: "Double superscript");
- a text command's unbraced argument is text too (`\\text\\alpha`: "Missing $ inserted").

Each list is run through the renderer's LaTeX, and the options are swept: every allowlisted
command, control symbol and ASCII character as the placement of {array}, {aligned} and
{gathered}, the check's verdict against LaTeX's.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.render.latex_allow import COMMANDS, SYMBOLS, latex_problem
from tests.latexcases import (
    assert_accepted,
    assert_build_draws,
    assert_latex_refuses,
    assert_refused_naming,
    latex_verdicts,
    list_tests,
    needs_latex,
)
from tests.test_latex_delims import latex_draws

REFUSED = [
    ("\\begin{array}[\\sin]{c} a \\end{array}", ["placement", "[t]"]),
    ("\\begin{array}[\\hat]{cc} a & b \\end{array}", ["placement"]),
    ("\\begin{array}[\\sum]{c} a \\end{array}", ["placement"]),
    ("\\begin{array}[\\'] {c} a \\end{array}", ["placement"]),
    ("\\begin{aligned}[\\widehat] a & b \\end{aligned}", ["placement", "[t]"]),
    ("\\begin{gathered}[\\widetilde] a \\end{gathered}", ["placement"]),
    ("x\\limits_a^b", ["\\limits", "operator", "\\mathop{x}\\limits"]),
    ("{\\sum}\\limits_a", ["\\limits"]), ("\\sum{}\\limits_a", ["\\limits"]),
    ("\\frac{a}{b}\\nolimits^2", ["\\nolimits"]), ("\\sum\\,\\limits_a", ["\\limits"]),
    ("\\text{lim}\\limits_a", ["\\limits"]),
    ("\\begin{aligned} a & \\limits \\end{aligned}", ["\\limits"]),
    ("\\begin{aligned}[\\limits] a \\end{aligned}", ["\\limits"]),
    ("\\begin{gathered}[\\nolimits] a \\end{gathered}", ["\\nolimits"]),
    ("\\cfrac[l^2]{a^3}{b}", ["double superscript", "\\cfrac[l"]),
    ("\\cfrac[l_1]{a_2}{b}", ["double subscript"]),
    ("\\cfrac[l']{a'}{b}", ["double superscript"]),
    ("\\cfrac[l^2]{x_1^3}{y}", ["double superscript"]),
    ("\\cfrac[{l^2}]{x^3}{y}", ["double superscript"]),
    ("\\text\\alpha", ["'\\alpha' inside \\text"]), ("\\mbox\\sum", ["'\\sum'"]),
    ("\\textbf\\frac12", ["'\\frac'"]),
]
ACCEPTED = [
    "\\begin{array}[t]{cc} a & b \\end{array}", "\\begin{array}[b]{c} a \\end{array}",
    "\\begin{array}[c]{c} a \\end{array}", "\\begin{array}[x]{c} a \\end{array}",
    "\\begin{array}[\\alpha]{c} a \\end{array}", "\\begin{array}[x\\sin]{c} a \\end{array}",
    "\\begin{array}[]{c} a \\end{array}", "\\begin{array}[\\big]{c} a \\end{array}",
    "\\begin{aligned}[t] a & b \\end{aligned}",
    "\\begin{aligned}[\\hat] a \\end{aligned}", "\\begin{gathered}[b] a \\\\ b \\end{gathered}",
    "\\sum\\limits_a^b", "\\sum_a\\limits^b", "\\lim\\limits_{x \\to 0}", "\\int\\nolimits_0^1",
    "\\mathop{x}\\limits_a", "\\operatorname{f}\\nolimits_a", "\\sin\\limits^2",
    "\\sum\\limits\\nolimits_a", "\\sum' \\limits_a", "\\overbrace{x}\\limits^a",
    "\\cfrac[l^2]{a}{b}", "\\cfrac[r^2]{a^3}{b}", "\\cfrac[l_1]{a^2}{b}",
    "\\cfrac[l^2]{{a^3}}{b}", "\\cfrac[l^2]{a^3 b}{c}", "\\cfrac[l]{a^3}{b}",
    "\\text a", "\\text\\S", "\\textbf a b", "x^\\text a",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


# every allowlisted command, control symbol and ASCII character, but those the allowlist
# refuses wherever they stand alone (a brace, `#`, `$`, `%`, an unpaired \left, \begin)
SWEPT = sorted(({f"\\{w} " for w in COMMANDS} | {f"\\{s}" for s in SYMBOLS if s != " "}
                | {c for c in string.printable if not c.isspace() and c != "\\"})
               - {"{", "}", "#", "$", "%", "\\left ", "\\right ", "\\begin ", "\\end "})
PLACED = ["\\begin{array}[%s]{cc} a & b \\end{array}", "\\begin{aligned}[%s] a & b \\end{aligned}",
          "\\begin{gathered}[%s] a \\\\ b \\end{gathered}"]


@needs_latex
@pytest.mark.parametrize("slot", PLACED)
def test_the_check_reads_a_placement_as_latex_reads_it(slot):
    """Each swept token as an environment's placement: the check accepts it exactly when
    LaTeX draws it (`\\c`, a text accent, aside: LaTeX draws it in math or not by the
    height of what it accents, which the check does not weigh)."""
    formulas = [slot % t for t in SWEPT if t != "\\c "]
    drawn = latex_verdicts(formulas)
    assert {f for f in formulas if latex_problem(f) is None} == {f for f in formulas
                                                                  if drawn[f]}


# pieces of placements, limits, `\\cfrac[…]` and text arguments, mixed as an author might slip
PIECES = st.lists(st.sampled_from([
    "\\begin{array}[", "\\begin{aligned}[", "\\begin{gathered}[", "]", "{c}", "{cc}", "a", "&",
    "\\\\", "\\end{array}", "\\end{aligned}", "\\end{gathered}", "\\cfrac[l", "\\cfrac[r",
    "\\cfrac[{l", "{a^3}", "{b}", "^2", "_1", "'", "\\limits", "\\nolimits", "\\sum", "\\sin",
    "\\mathop{x}", "\\text", "\\mbox", "\\alpha", "\\hat", "\\widehat", "{", "}", " ", "t",
]), max_size=25).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES)
def test_any_mix_gets_an_answer_of_one_line(text):
    """Whatever mix of them is written, the check answers (no exception) with None or one
    line, and accepts no `\\limits` right after a brace or at a formula's start."""
    problem = latex_problem(text)
    assert problem is None or (problem and "\n" not in problem)
    assert problem is not None or not text.lstrip().startswith(("\\limits", "\\nolimits"))


# What LaTeX makes of a placement past its first token: {array}'s `\if` expands the second
# token too (`[x\cline]` stops it) and, when the first two are the same character, sets the
# rest and a `t` as math before the box (`[tt\frac]`: `\frac t\vtop`); amsmath's environments
# strip braces around all of it (`[{\frac}]` is `[\frac]`, math at the start of the first
# cell) and expand nothing after a blank (`[ \widehat]`).
PLACED_FURTHER = {"array": ["x%s", "t%s", "tt%s", " %s"], "aligned": ["{%s}", " %s", "t%s"],
                  "gathered": ["{%s}", " %s"]}
PLACEMENT_REFUSED = [
    ("\\begin{array}[x\\cline]{cc} a & b \\end{array}", ["placement", "\\cline"]),
    ("\\begin{array}[t\\multicolumn]{c} a \\end{array}", ["placement", "\\multicolumn"]),
    ("\\begin{array}[tt\\frac]{c} a \\end{array}", ["two letters alike", "\\frac takes 2"]),
    ("\\begin{array}[bb&]{c} a \\end{array}", ["two letters alike", "'&'"]),
    ("\\begin{array}[{tt\\big}]{c} a \\end{array}", ["two letters alike", "\\big"]),
    ("\\begin{array}[cc\\binom]{c} a \\end{array}", ["two letters alike", "\\binom"]),
    ("\\begin{array}[tt\\\\]{c} a \\end{array}", ["two letters alike", "Missing \\endgroup"]),
    ("\\begin{array}[xx{\\\\}]{c} a \\end{array}", ["'\\\\' in what LaTeX sets"]),
    ("\\begin{gathered}[{&}] a \\\\ b \\end{gathered}", ["{gathered} has no columns"]),
    ("\\begin{aligned}[{x^2^3}] a & b \\end{aligned}", ["double superscript"]),
]
PLACEMENT_ACCEPTED = [
    "\\begin{array}[tb]{cc} a & b \\end{array}", "\\begin{array}[ t ]{cc} a & b \\end{array}",
    "\\begin{array}[c t]{cc} a & b \\end{array}", "\\begin{array}[]{cc} a & b \\end{array}",
    "\\begin{array}[{t}]{cc} a & b \\end{array}", "\\begin{array}[tt]{c} a \\end{array}",
    "\\begin{array}[tt^]{c} a \\end{array}", "\\begin{array}[xx\\alpha]{c} a \\end{array}",
    "\\begin{array}[x\\hat]{c} a \\end{array}", "\\begin{array}[ \\alpha]{c} a \\end{array}",
    "\\begin{aligned}[tb] a & b \\end{aligned}", "\\begin{aligned}[ t ] a & b \\end{aligned}",
    "\\begin{aligned}[c t] a & b \\end{aligned}", "\\begin{aligned}[] a & b \\end{aligned}",
    "\\begin{aligned}[{t}] a & b \\end{aligned}", "\\begin{aligned}[{\\frac}] a & b \\end{aligned}",
    "\\begin{aligned}[{^}] a & b \\end{aligned}", "\\begin{aligned}[{&}] a & b \\end{aligned}",
    "\\begin{aligned}[ \\widehat] a & b \\end{aligned}",
    "\\begin{gathered}[{\\text}] a \\\\ b \\end{gathered}",
    "\\begin{gathered}[ \\widetilde] a \\\\ b \\end{gathered}",
]


@pytest.mark.parametrize("formula, words", PLACEMENT_REFUSED,
                         ids=[f for f, _ in PLACEMENT_REFUSED])
def test_a_placement_past_its_first_token_is_refused_with_what_to_write(formula, words):
    assert_refused_naming(formula, words)


def test_a_placement_past_its_first_token_is_accepted_where_latex_draws_it():
    assert_accepted(PLACEMENT_ACCEPTED)


@needs_latex
def test_latex_agrees_with_the_placements_past_their_first_token(tmp_path):
    assert_latex_refuses([f for f, _ in PLACEMENT_REFUSED])
    assert_build_draws(PLACEMENT_ACCEPTED, tmp_path)


@needs_latex
@pytest.mark.parametrize("env", sorted(PLACED_FURTHER))
def test_the_check_reads_a_placement_past_its_first_token_as_latex_reads_it(env):
    """Each swept token after a character, a blank or two characters alike, or braced, as
    an environment's placement: the check accepts it exactly when LaTeX draws it."""
    slot = next(s for s in PLACED if f"{{{env}}}" in s)
    formulas = [slot % (form % t) for form in PLACED_FURTHER[env] for t in SWEPT
                if t != "\\c "]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


# {array}'s `\if` takes two control sequences it cannot expand as alike, so `[\alpha\beta
# \frac]` sets `\frac t\vtop` as math (LaTeX: "Missing { inserted") and was passed; a command
# whose own expansion gives `\if` two such tokens sets itself and all after it there
# (`[\sqrt x\frac]`); a primitive second (`\limits`) is taken whole, unset.
ALIKE_REFUSED = [
    ("\\begin{array}[\\alpha\\beta\\frac]{c} a \\end{array}", ["two commands", "\\frac"]),
    ("\\begin{array}[\\infty \\le x^2^3]{c} a \\end{array}", ["two commands", "double"]),
    ("\\begin{array}[\\cdot\\times\\\\]{c} a \\end{array}", ["Missing \\endgroup"]),
    ("\\begin{array}[\\sqrt x\\frac]{c} a \\end{array}", ["\\sqrt", "\\frac"]),
    ("\\begin{array}[\\textbf\\alpha x]{c} a \\end{array}", ["'\\alpha' inside \\text"]),
    ("\\begin{array}[~\\alpha\\frac]{c} a \\end{array}", ["~", "\\frac"]),
    ("\\begin{array}[\\alpha ~\\frac]{c} a \\end{array}", ["two commands", "\\frac"]),
    ("\\begin{array}[\\alpha\\widehat x]{c} a \\end{array}", ["placement", "\\widehat"]),
    ("\\begin{array}[{\\Gamma\\Delta\\frac}]{c} a \\end{array}", ["two commands"]),
    ("\\begin{array}[\\, \\alpha\\frac]{c} a \\end{array}", ["\\,", "\\frac"]),
]
ALIKE_ACCEPTED = [
    "\\begin{array}[\\alpha\\beta x]{c} a \\end{array}",
    "\\begin{array}[\\alpha \\beta \\frac12]{c} a \\end{array}",
    "\\begin{array}[\\alpha\\textdegree\\frac]{c} a \\end{array}",
    "\\begin{array}[\\alpha \\limits x]{c} a \\end{array}",
    "\\begin{array}[\\alpha\\mkern x]{c} a \\end{array}",
    "\\begin{array}[\\alpha x\\frac]{c} a \\end{array}",
    "\\begin{array}[\\sqrt x]{c} a \\end{array}", "\\begin{array}[\\quad\\alpha\\frac]{c} a \\end{array}",
]


@pytest.mark.parametrize("formula, words", ALIKE_REFUSED, ids=[f for f, _ in ALIKE_REFUSED])
def test_a_placement_of_two_commands_alike_is_refused_with_what_latex_stops_at(formula, words):
    assert_refused_naming(formula, words)


def test_a_placement_of_commands_is_accepted_where_latex_draws_it():
    assert_accepted(ALIKE_ACCEPTED)


@needs_latex
def test_latex_agrees_with_the_placements_of_commands(tmp_path):
    assert_latex_refuses([f for f, _ in ALIKE_REFUSED])
    assert_build_draws(ALIKE_ACCEPTED, tmp_path)


# every swept token first, then `\alpha` and a command or a letter; after `\alpha`; before
# a letter and a command (a primitive `\if` takes alone, or a macro setting itself there)
ALIKE_FORMS = ["%s\\alpha\\frac", "%s\\alpha x", "\\alpha %s\\frac", "\\alpha %sx", "%sx\\frac"]
# `\binom` and the other fractions stop LaTeX alone as a placement (`PLACEMENT_STOPS`), and
# draw when two tokens follow for their arguments: refused, a gap left
ARGUMENT_STOPS = {"\\binom ", "\\dbinom ", "\\tbinom ", "\\cfrac ", "\\dfrac ", "\\tfrac ",
                  "\\stackrel "}


@needs_latex
@pytest.mark.parametrize("form", ALIKE_FORMS)
def test_the_check_reads_commands_alike_in_a_placement_as_latex_reads_them(form):
    slot = PLACED[0]
    formulas = sorted({slot % (form % t) for t in SWEPT
                       if t != "\\c " and not (t in ARGUMENT_STOPS and form.startswith("%s"))})
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
@pytest.mark.parametrize("seed", [1, 2])
def test_pairs_of_commands_in_a_placement_are_read_as_latex_reads_them(seed):
    """Pairs of swept commands (and `~`), a sample drawn with a fixed seed, followed by a
    command, a letter, a script or a prime: the check accepts exactly what LaTeX draws (a
    row's end after them is a known gap: `[\\psi\\mspace\\\\]` passes, `[\\psi\\b\\\\]` is
    refused, LaTeX judging them otherwise)."""
    rng = random.Random(seed)
    tokens = [t for t in SWEPT if t.startswith("\\") and t not in ARGUMENT_STOPS | {"\\c "}]
    tokens.append("~")
    formulas = sorted({PLACED[0] % (a + b + c) for a in rng.sample(tokens, 15)
                       for b in rng.sample(tokens, 15)
                       for c in ["\\frac", "x", "^", "\\sqrt", "'"]})
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn
