"""What LaTeX refuses of how a formula's pieces fit together, `kb check` refuses first.

`x²^3` (a typed superscript, then `^`) passed `kb check` and stopped `kb build`'s LaTeX
("Double superscript"), as `x^2^3` and `x_1_2` did; so did `\\frac{1}`, `a & b`, `\\right)
x \\left(` and the other slips a Typora or Obsidian author makes (their MathJax draws most of
them). Each list below is checked against the real LaTeX the renderer runs: what the check
refuses, LaTeX refuses; what it accepts, the build draws.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render.latex_allow import MAX_FORMULA_CHARS, latex_problem
from tests.kbfixtures import GOOD_FM
from tests.latexcases import list_tests

# (formula, what the message must name): two scripts of one kind on one base, every spelling
DOUBLE = [
    ("x²^3", ["double superscript", "{x^2}^3", "x^{23}", "typed ²"]),
    ("x^2^3", ["double superscript", "{x^2}^3", "x^{23}"]),
    ("x_1_2", ["double subscript", "{x_1}_2", "x_{12}"]),
    ("x₁_2", ["double subscript", "{x_1}_2", "x_{12}"]),
    ("x^2²", ["double superscript", "{x^2}^2"]),
    ("x² ³", ["double superscript", "{x^2}^3"]),
    ("x^{2}^{3}", ["double superscript", "{x^2}^3", "x^{23}"]),
    ("x^2 ^3", ["double superscript"]),
    ("x^a_b^c", ["double superscript", "{x^a_b}^c"]),
    ("x_1^2_3", ["double subscript", "{x_1^2}_3"]),
    ("x'^2^3", ["double superscript", "prime"]),
    ("x^2'", ["double superscript", "prime", "{x^2}'"]),
    ("x′^2^3", ["double superscript"]),
    ("x' ^2", ["double superscript"]),
    ("x'_1^2", ["double superscript"]),
    ("\\sum^a^b", ["double superscript"]),
    ("\\int\\limits_a_b", ["double subscript"]),
    ("\\frac{1}{2}^3^4", ["double superscript", "{\\frac{1}{2}^3}^4"]),
    ("\\left( x \\right)^2^3", ["double superscript"]),
    ("\\overbrace{x}^{a}^{b}", ["double superscript"]),
    ("\\begin{aligned} a & x^\\alpha^\\beta \\end{aligned}", ["double superscript",
                                                            "x^{\\alpha\\beta}"]),
    ("{a_1_2}", ["double subscript"]),
]
# the other slips (unbalanced \left/\right, an argument missing, `&` outside columns, …)
OTHER = [
    ("\\frac{1}", ["\\frac takes 2 arguments", "\\frac{a}{b}"]),
    ("\\frac 1", ["\\frac takes 2"]),
    ("{\\dfrac{a}} + 1", ["\\dfrac takes 2"]),
    ("\\sqrt", ["\\sqrt{x}"]), ("\\sqrt[3]", ["\\sqrt[3]{x}"]),
    ("\\hat", ["\\hat{x}"]), ("\\mathrm", ["\\mathrm{x}"]), ("\\text", ["\\text{x}"]),
    ("\\binom{n}", ["\\binom{n}{k}"]), ("\\overset{a}", ["\\overset{a}{x}"]),
    ("x^", ["'^' without a superscript"]), ("x_", ["'_' without a subscript", "\\_"]),
    ("x^_2", ["'^' without"]), ("x_'", ["'_' without"]), ("{x^} y", ["'^' without"]),
    ("x^\\hat a", ["needs braces", "^{\\hat{…}}"]), ("x^\\sqrt{2}", ["needs braces"]),
    ("e_\\overline{x}", ["needs braces"]), ("x^\\dfrac12", ["needs braces"]),
    ("a & b", ["'&' outside", "\\&"]), ("{a & b}", ["'&' outside"]),
    ("\\text{R & D}", ["'&' outside"]),
    ("\\begin{matrix} a \\end{matrix} & b", ["'&' outside"]),
    ("\\begin{gathered} a & b \\end{gathered}", ["{gathered} has no columns"]),
    ("\\begin{cases} a & b & c \\end{cases}", ["{cases}"]),
    ("\\begin{array}{c} a & b \\end{array}", ["{array}"]),
    ("\\begin{matrix} " + " & ".join("abcdefghijk") + " \\end{matrix}", ["{matrix}"]),
    ("\\right) x \\left(", ["\\right without a \\left"]),
    ("\\left( \\begin{matrix} a \\right) \\end{matrix}", ["\\right without a \\left"]),
    ("{ \\left( } \\right)", ["'}' closes before the \\left"]),
    ("\\left( { \\right) }", ["\\right without a \\left"]),
    ("x \\middle| y", ["\\middle without a \\left"]),
    ("a\\'b", ["text accent", "\\acute{e}"]), ("a\\^b", ["text accent"]),
    ("a \\over b \\over c", ["\\over", "\\frac{a}{b}"]),
]
# a dimension that is none, column letters LaTeX's own {array} has not, a row longer than its
# columns, and \hline, \cline, \multicolumn out of place
ROWS = [
    ("a\\hspace{x}b", ["'\\hspace{x}'", "a number and a unit", "\\hspace{1em}"]),
    ("a\\hspace{}b", ["a number and a unit"]), ("a\\hspace{1}b", ["a unit after its number"]),
    ("a\\hspace 1pt b", ["in braces"]), ("a\\hspace{3 true em}b", ["Illegal unit"]),
    ("a\\hspace{3ptplus}b", ["Missing number"]), ("a\\hspace{1pt minus}b", ["Missing number"]),
    ("a\\hspace{3pt plus 1fillll}b", ["filll"]), ("a\\hspace{1mu}b", ["Illegal unit"]),
    ("a\\hspace{1..pt}b", ["Illegal unit"]), ("a\\hspace{1p t}b", ["Illegal unit"]),
    ("a\\hspace{16384pt}b", ["Dimension too large"]), ("a\\hspace{1395em}b", ["too large"]),
    ("a\\hspace{577cm}b", ["too large"]), ("a\\hspace{1073741824sp}b", ["too large"]),
    ("a\\hspace{2147483648sp}b", ["Number too big"]), ("\\text{a\\hspace{x}b}", ["\\hspace"]),
    ("a\\mkern3pt b", ["mu", "\\mkern3mu"]), ("a\\mkern{3mu} b", ["Missing number"]),
    ("a\\mkern x", ["\\mkern3mu"]), ("a\\mkern", ["\\mkern3mu"]), ("a\\mkern 20000mu b", ["large"]),
    ("a\\mspace{3pt}b", ["mu", "\\mspace{3mu}"]), ("a\\mspace{3mu plus 2pt}b", ["mu"]),
    ("\\begin{array}{cc} a \\\\[x] b \\end{array}", ["\\\\[4pt]"]),
    ("\\begin{array}{cc} a \\\\ [0,1] \\end{array}", ["{[}0,1]", "Illegal unit"]),
    ("\\begin{array}{c} a \\\\[2pt plus 1pt] b \\end{array}", ["\\ifdim"]),
    ("\\begin{array}{c} a \\\\* [x] b \\end{array}", ["\\\\[4pt]"]),
    ("\\begin{aligned} a \\\\[] b \\end{aligned}", ["a number and a unit"]),
    ("\\begin{smallmatrix} a \\\\[x] b \\end{smallmatrix}", ["\\\\[4pt]"]),
    ("a \\\\ [x] b", ["\\\\[4pt]"]), ("\\text{a \\\\ [x] b}", ["\\\\[4pt]"]),
    ("\\begin{array}{q} a \\end{array}", ["'q' is none of", "no array package"]),
    ("\\begin{array}{>{x}c} a \\end{array}", ["'>'"]), ("\\begin{array}{m{2cm}} a \\end{array}",
                                                       ["'m'"]),
    ("\\begin{array}{2c} a \\end{array}", ["'2'"]), ("\\begin{array}{c\\,c} a \\end{array}",
                                                   ["'\\,'"]),
    ("\\begin{array}{} a \\end{array}", ["no column"]), ("\\begin{array}{|} a \\end{array}",
                                                      ["no column"]),
    ("\\begin{array}{*{0}{c}c} a \\end{array}", ["no column"]),
    ("\\begin{array}{@{}c@{}} a & b \\end{array}", ["more cells than its 1 column "]),
    ("\\begin{array}{p{x}} a \\end{array}", ["Missing number"]),
    ("\\begin{array}{p} a \\end{array}", ["p needs its width"]),
    ("\\begin{array}{*{x}{c}} a \\end{array}", ["Missing number"]),
    ("\\begin{array}{*{2.5}{c}} a & b \\end{array}", ["'.'"]),
    ("\\begin{array}{*{3}{c}} a & b & c & d \\end{array}", ["3 columns"]),
    ("\\begin{array}c a & b \\end{array}", ["{array}"]),
    ("\\begin{array}[t]{c} a & b \\end{array}", ["{array}"]),
    ("\\begin{subarray}{cc} a & b \\end{subarray}", ["{subarray}"]),
    ("\\begin{alignedat}{x} a \\end{alignedat}", ["column pairs"]),
    ("\\begin{array}{c} a \\hline \\end{array}", ["\\hline not at the start of a row",
                                                  "Misplaced \\noalign"]),
    ("\\begin{array}{c} a \\\\ b \\hline \\end{array}", ["\\hline not"]),
    ("\\begin{array}{cc} a & \\hline b \\end{array}", ["\\hline not"]),
    ("\\hline a", ["\\hline not"]), ("a \\hline", ["\\hline not"]), ("{\\hline} a", ["\\hline"]),
    ("\\begin{array}{c} a \\\\ {\\hline} b \\end{array}", ["\\hline not"]),
    ("\\begin{array}{c} \\text{\\hline} a \\end{array}", ["\\hline not"]),
    ("\\begin{array}{cc} a & b \\\\ \\cline{1-3} c \\end{array}", ["it has 2", "\\cline{1-2}"]),
    ("\\begin{array}{cc} a & b \\\\ \\cline{2} c \\end{array}", ["\\cline{2-3}"]),
    ("\\begin{array}{cc} a & b \\\\ \\cline{x-2} c \\end{array}", ["\\cline{2-3}"]),
    ("\\begin{array}{cc} a \\cline{1-2} \\end{array}", ["Misplaced \\omit"]),
    ("\\cline{1-2} a", ["\\cline"]), ("\\begin{gathered} a \\\\ \\cline{1-2} \\end{gathered}",
                                       ["it has 1"]),
    ("\\begin{array}{cc} a & b \\multicolumn{1}{c}{x} \\end{array}",
     ["\\multicolumn not at the start of a cell", "Misplaced \\omit"]),
    ("\\begin{array}{cc} {\\multicolumn{2}{c}{x}} \\end{array}", ["\\multicolumn not"]),
    ("\\multicolumn{1}{c}{x}", ["\\multicolumn not"]),
    ("\\begin{array}{cc} \\multicolumn{2}{c}{x} & b \\end{array}", ["2 columns"]),
    ("\\begin{array}{cc} \\multicolumn{3}{c}{x} \\end{array}", ["2 columns"]),
    ("\\begin{array}{cc} \\multicolumn{1}{cc}{x} \\end{array}", ["make one column"]),
    ("\\begin{array}{cc} \\multicolumn{1}{q}{x} \\end{array}", ["'q'"]),
    ("\\begin{array}{cc} \\multicolumn{x}{c}{x} \\end{array}", ["number of columns"]),
    ("\\begin{array}{cc} \\multicolumn{1}{c}{\\hline} \\end{array}", ["\\hline not"]),
    ("\\begin{aligned} \\multicolumn{2}{c}{x} \\\\ a & b \\end{aligned}", ["{aligned}"]),
    ("\\begin{cases} \\multicolumn{3}{c}{x} \\end{cases}", ["{cases}"]),
]
# the last gaps: math inside an array's `@{…}` column letters, math commands in text, a row's
# `\\` inside braces within a cell (a \multicolumn's text, a group, \text{…}, \left…\right)
GAPS = [
    ("\\begin{array}{@{\\frac{1}}c} a \\end{array}", ["\\frac takes 2"]),
    ("\\begin{array}{c@{\\hat}c} a & b \\end{array}", ["\\hat takes 1"]),
    ("\\begin{array}{*{2}{@{x^2^3}c}} a \\end{array}", ["double superscript"]),
    ("\\begin{array}[t]{@{\\text{\\alpha}}c} a \\end{array}", ["'\\alpha' inside \\text"]),
    ("\\begin{array}{@{a & b}c} a \\end{array}", ["'&' outside"]),
    ("\\begin{array}{@{a \\\\ b}c} a \\end{array}", ["'\\\\' inside braces"]),
    ("\\begin{array}{cc} \\multicolumn{1}{@{\\hat}c}{a} & b \\end{array}", ["\\hat takes 1"]),
    ("\\text{a\\mkern3mu b}", ["'\\mkern' inside \\text{…}", "Missing $ inserted"]),
    ("\\text{\\frac{1}{2}}", ["'\\frac' inside", "\\text{a } \\frac"]),
    ("\\text{x^2}", ["'^' inside", "\\text{x}^2"]), ("\\text{a_1}", ["'_' inside"]),
    ("\\text{\\mathrm{d}x}", ["\\mathrm allowed only in math mode"]),
    ("\\text{\\hat{a}}", ["\\hat allowed only in math mode"]), ("\\text{a \\| b}", ["'\\|'"]),
    ("\\text{\\alpha}", ["'\\alpha'"]), ("\\mbox{\\le 3}", ["'\\le'"]),
    ("\\text{\\mspace{3mu}}", ["'\\mspace'"]), ("\\text{\\phantom{x^2}}", ["'^'"]),
    ("\\textbf{\\underline{a_1}}", ["'_'"]), ("\\text{\\boxed{\\text{\\sum}}}", ["'\\sum'"]),
    ("\\text{\\begin{matrix} a \\end{matrix}}", ["'\\begin'"]),
    ("\\text{\\left( a \\right)}", ["'\\left'"]), ("x^{\\text{\\infty}}", ["'\\infty'"]),
    ("\\begin{array}{cc} \\multicolumn{2}{c}{a \\\\ b} \\end{array}",
     ["'\\\\' inside braces within a cell of {array}", "\\substack{a \\\\ b}"]),
    ("\\begin{array}{c} \\multicolumn{1}{c}{\\text{a \\\\ b}} \\end{array}", ["'\\\\' inside"]),
    ("\\begin{array}{cc} {a \\\\ b} & c \\end{array}", ["'\\\\' inside"]),
    ("\\begin{array}{cc} \\text{a \\\\ b} & c \\end{array}", ["'\\\\' inside"]),
    ("\\begin{aligned} {a \\\\ b} & c \\end{aligned}", ["{aligned}"]),
    ("\\begin{cases} a & \\frac{b \\\\ c}{d} \\end{cases}", ["{cases}"]),
    ("\\begin{pmatrix} \\left( a \\\\ b \\right) \\end{pmatrix}", ["{pmatrix}"]),
]
GAPS_ACCEPTED = [
    "\\begin{array}{@{\\frac{1}{2}}c} a \\end{array}", "\\begin{array}{@\\alpha c} a \\end{array}",
    "\\begin{array}[t]{@{}p{2cm}@{\\;}c} a & b \\\\ c & d \\end{array}",
    "\\begin{array}{*{2}{@{x^2}c}} a & b \\end{array}",
    "\\begin{array}{cc} \\multicolumn{1}{@{\\,}c}{a} & b \\end{array}",
    "\\text{\\boxed{x^2}}", "\\text{\\~a \\.b \\= c \\, d\\;e\\!f}", "\\text{\\big( \\lbrack \\vdots}",
    "\\text{\\textbf{a} \\emph{b} \\phantom{c} \\quad \\S 3 \\textdegree C}",
    "\\text{a \\\\ b}", "{a \\\\ b}", "\\frac{a \\\\ b}{c}", "\\text{a}^2 \\text{b}_1",
    "\\begin{array}{c} \\sum_{\\substack{a \\\\ b}} \\end{array}",
    "\\begin{array}{c} \\multicolumn{1}{c}{\\begin{matrix} a \\\\ b \\end{matrix}} \\end{array}",
    "\\begin{array}{c} {\\begin{matrix} a \\\\ b \\end{matrix}} \\\\ c \\end{array}",
]
ROWS_ACCEPTED = [
    "a\\hspace{1,5em}b", "a\\hspace{.5em}b", "a\\hspace{ - 3 PT }b", "a\\hspace{3 true pt}b",
    "a\\hspace{3pt x}b", "a\\hspace{3pt plus 1fil l}b", "a\\hspace{3pt minus 1pt plus 2pt}b",
    "a\\hspace{1px}b", "a\\hspace{1nd}b", "a\\hspace{\"A pt}b", "a\\hspace{.pt}b",
    "a\\hspace*{1pt}b", "a\\hspace{16383.99999pt}b", "a\\hspace{1394em}b",
    "a\\hspace{1073741823sp}b", "\\text{a\\hspace{2mm}b}", "a\\mkern-1.5mu b", "a\\mkern 3 MU b",
    "a\\mkern3mux", "a\\mspace{3mu plus 2fil}b", "\\begin{array}{ c | c } a & b \\end{array}",
    "\\begin{array}{@{}c@{}} a \\end{array}", "\\begin{array}{p{2cm}} a \\end{array}",
    "\\begin{array}{*3c} a & b & c \\end{array}", "\\begin{array}{*{2}{cc}} a&b&c&d \\end{array}",
    "\\begin{array}{c*{0}{c}} a \\end{array}", "\\begin{array}{*{2}{|}c} a \\end{array}",
    "\\begin{array}{{c}c} a & b \\end{array}", "\\begin{array}c a \\end{array}",
    "\\begin{array}[t]{cc} a & b \\end{array}", "\\begin{subarray}{q} a \\end{subarray}",
    "\\begin{matrix} a \\\\ [0,1] \\end{matrix}", "\\begin{aligned} a \\\\ [x] b \\end{aligned}",
    "\\begin{aligned} a \\\\[2pt plus 1pt] b \\end{aligned}", "a \\\\[2pt x] b",
    "\\begin{array}{cc} a \\\\*[2pt] b \\end{array}", "\\begin{array}{cc} a \\\\ {[}0,1] \\end{array}",
    "\\begin{array}{c}\\hline a \\\\ \\hline b \\\\ \\hline\\end{array}",
    "\\begin{array}{c} a \\\\[2pt] \\hline b \\end{array}", "\\begin{aligned} a \\\\ \\hline b \\end{aligned}",
    "\\begin{matrix} \\hline a \\end{matrix}", "\\begin{cases} \\hline a & b \\end{cases}",
    "\\begin{array}{cc} a & b \\\\ \\cline{1-1} \\cline{2-2} c \\end{array}",
    "\\begin{array}{cc} a & b \\\\ \\cline{2-1} c \\end{array}",
    "\\begin{array}{cc} \\multicolumn{2}{c}{x} \\\\ a & b \\end{array}",
    "\\begin{array}{cc} a & \\multicolumn{1}{|c|}{x} \\end{array}",
    "\\begin{array}{cc} \\multicolumn{1}{}{x} & y \\end{array}",
    "\\begin{array}{cc} \\hline \\multicolumn{2}{c}{x} \\end{array}",
    "\\begin{matrix} \\multicolumn{2}{c}{x} \\\\ a & b \\end{matrix}",
    "\\begin{array}{cc} \\multicolumn 1c x & y \\end{array}",
    "\\begin{alignedat}{1} a & b & c \\end{alignedat}",
]
# written every day, drawn by LaTeX: the check must not refuse them
ACCEPTED = ["x'^2", "x''", "x'''^2", "x_1'", "x_1'^2", "x^{2}_{1}", "{x^2}^3", "x^{23}",
            "x²³", "x₁²", "x^2{}^3", "x^{a}{}^{b}", "a^2 \\, ^3", "x^2 \\displaystyle ^3",
            "\\hat{x}'", "\\text{x'}'", "\\text{it's 2}", "x^\\text{max}", "x_\\mathrm{T}",
            "x^\\frac12", "\\frac12", "\\frac a b", "\\frac{1}{}", "\\sqrt{}", "\\sqrt[3]{x}",
            "\\sum\\limits_a^b", "\\underbrace{x}_{a}", "\\left. x \\right|",
            "\\left( x \\middle| y \\right)^2", "\\begin{cases} a & b \\\\ c & d \\end{cases}",
            "\\begin{array}{c|cc} a & b & c \\end{array}",
            "\\begin{alignedat}{2} a & b & c & d \\end{alignedat}",
            "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}^2",
            "a \\\\ b", "a \\& b", "\\text{R \\& D}", "a \\% b", "{a \\over b} + {c \\choose d}",
            "\\operatorname*{arg\\,max}_x f", "\\sideset{_a^b}{_c^d}\\sum", "'x",
            "x = 1 \\tag{1}", "\\text{\\'e}", *ROWS_ACCEPTED, *GAPS_ACCEPTED]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(
    DOUBLE + OTHER + ROWS + GAPS, ACCEPTED)


BODY = "# 公式\n\n面积比 $x²^3$ 与\n\n$$\nx_1_2\n$$\n\n以及 $\\frac{1}$ 和 $a & b$。\n"
FIRST = GOOD_FM.count("\n") + 1  # the body's first line


def _corpus(root: Path) -> Path:
    corpus = root / "knowledge"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    (root / "kb.toml").write_text("")
    return corpus


def test_kb_check_names_file_line_and_what_to_write(tmp_path):
    corpus = _corpus(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "math-invalid" in line]
    assert len(lines) == 4, result.stdout
    # each at its `$` (a block: its opening `$$`), two on one line in the order written
    expected = [(FIRST + 2, 5, "{x^2}^3"), (FIRST + 4, 1, "{x_1}_2"),
                (FIRST + 8, 4, "\\frac{a}{b}"), (FIRST + 8, 17, "\\&")]
    for line, (at, col, write) in zip(lines, expected, strict=True):
        assert f"doc.md:{at}:{col}:" in line and write in line, line


def test_kb_build_refuses_the_same_formulas_at_their_lines(tmp_path):
    corpus = _corpus(tmp_path)
    with pytest.raises(FindingsError) as err:
        build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                  progress=False))
    shown = [line for line in str(err.value).splitlines() if "math-invalid" in line]
    assert [s.split("doc.md:")[1].split(":")[0] for s in shown] == \
        [str(FIRST + 2), str(FIRST + 4), str(FIRST + 8), str(FIRST + 8)], str(err.value)


# arguments inside arguments, runs of digits, signs and brackets, as long as a formula may be
# (`k` repeats): each piece is read a bounded number of times
GROWING = [
    lambda k: "\\hspace{1pt " * k + "}" * k,
    lambda k: "\\text{\\hspace{1pt " * k + "}}" * k,
    lambda k: "\\begin{array}{c} " * k + "a" + " \\end{array}" * k,
    lambda k: "\\begin{array}{" + "{" * k + "c" + "}" * k + "} a \\end{array}",
    lambda k: "\\begin{array}{" + "*{2}{" * k + "c" + "}" * k + "} a \\end{array}",
    lambda k: "\\begin{array}{" + "@{" * k + "}" * k + "c} a \\end{array}",
    lambda k: "\\begin{aligned} " + "a \\\\[1pt x " * k + "] \\end{aligned}",
    lambda k: "\\begin{array}{c} " + "\\hline \\cline{1-1} " * k + "\\end{array}",
    lambda k: "\\begin{array}{cc} " + "\\multicolumn{1}{c}{" * k + "x" + "}" * k + " \\end{array}",
    lambda k: "a\\mkern" + "-" * k + "3mu", lambda k: "a\\hspace{" + "1" * k + "pt}",
    lambda k: "a\\hspace{1." + "5" * k + "pt}", lambda k: "\\begin{array}[" * k,
    lambda k: "a \\\\[" * k, lambda k: "\\begin{array}{" + "c" * k + "} " + "a & " * k,
    lambda k: "\\begin{array}{" + "@{\\frac{1}{2}" * k + "}" * k + "c} a \\end{array}",
    lambda k: "\\begin{array}{" + "*{2}{@{x}" * k + "c" + "}" * k + "} a \\end{array}",
    lambda k: "\\text{" + "\\phantom{\\boxed{\\text{" * k + "a" + "}}}" * k + "}",
    lambda k: "{" * k + "a \\\\ " * k + "}" * k,
    lambda k: "\\begin{array}{c} " + "{" * k + "a" + "}" * k + " \\\\ b" * k + " \\end{array}",
]
LONG = [grow((MAX_FORMULA_CHARS - len(grow(0))) // (len(grow(1)) - len(grow(0))))
        for grow in GROWING]


@pytest.mark.parametrize("formula", LONG, ids=range(len(LONG)))
def test_the_check_is_linear_in_the_formula(formula):
    start = time.thread_time()
    problem = latex_problem(formula)
    assert time.thread_time() - start < 1.0  # read twice over: 0.2 s; quadratic: seconds
    assert not (problem or "").startswith("formula is"), len(formula)  # no longer than allowed


# what an author types where TeX reads a number, a dimension or column letters
ARGUMENT_TEXT = st.lists(st.sampled_from(list("0123456789.,+-\"'` ptcmexinbpdsfluPT*@|{}[]&^_x")
                                         + ["\\\\", "\\hline", "\\,", "true", "plus", "minus",
                                            "fil"]), max_size=30).map("".join)
SLOTS = ["\\hspace{%s}", "\\text{\\hspace{%s}}", "\\mspace{%s}", "x\\mkern%s y",
         "\\begin{array}{%s} a & b \\\\ c \\end{array}", "\\begin{array}{cc} a \\\\%s b \\end{array}",
         "\\begin{aligned} a \\\\%s b \\end{aligned}", "\\begin{array}{cc} \\multicolumn{%s}{c}{x} \\end{array}",
         "\\begin{array}{cc} \\multicolumn{1}{%s}{x} \\end{array}",
         "\\begin{array}{cc} a \\\\ \\cline{%s} \\end{array}", "\\begin{alignedat}{%s} a \\end{alignedat}"]


@settings(max_examples=600, deadline=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SLOTS), ARGUMENT_TEXT)
def test_any_argument_text_gets_an_answer_of_one_line(slot, text):
    """Whatever is typed where TeX reads a number, a dimension or column letters, the check
    answers (no exception) with None or one line."""
    problem = latex_problem(slot.replace("%s", text))
    assert problem is None or (problem and "\n" not in problem)
