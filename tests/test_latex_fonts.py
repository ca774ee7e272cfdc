"""A math alphabet's letters its font has no glyph for (`latex_fonts.alphabet_problem`).

`kb check` passed `\\mathbb{b}` and the build stopped on it: amsfonts' blackboard bold (msbm10)
has no b, c, d or e, its Fraktur (eufm10) no `\\Phi`, `\\Psi` or `\\Omega` ("Missing character:
There is no b in font msbm10!"). The check now names the letter and the font. The fonts' TFM
files are read again here (tftopl), and every allowlisted command and character inside each
alphabet is swept through the renderer's LaTeX, the check's verdict against LaTeX's.
"""

from __future__ import annotations

import re
import shutil
import string
import subprocess

import pytest

from kbtools.render import formula as fm
from kbtools.render.latex_allow import COMMAND_GROUPS, COMMANDS, latex_problem
from kbtools.render.latex_fonts import ALPHABET_GAPS
from kbtools.render.latex_structure import ARGUMENTS
from tests.latexcases import list_tests, needs_latex
from tests.test_formula_authoring import check
from tests.test_latex_delims import latex_draws

REFUSED = [
    ("\\mathbb{b}", ["\\mathbb", "sets b", "msbm10", "\\mathbb{B}"]),
    ("\\mathbb{ab}", ["sets b", "msbm10"]), ("\\mathbb{R} + \\mathbb{e}", ["sets e"]),
    ("\\mathbb c", ["sets c"]), ("x^\\mathbb d", ["sets d"]), ("{\\mathbb b}", ["sets b"]),
    ("\\mathbb{x_b}", ["sets b"]), ("\\mathbb{\\hat{b}}", ["sets b"]),
    ("\\mathbb{\\frac{1}{d}}", ["sets d"]), ("\\mathbb{\\left( b \\right)}", ["sets b"]),
    ("\\mathbb{\\sin b}", ["sets b"]), ("\\mathbb{\\pmod{c}}", ["sets c"]),
    ("\\mathbb{\\sqrt{e}}", ["sets e"]), ("\\mathbb{\\xrightarrow{b}}", ["sets b"]),
    ("\\boxed{\\mathbb{b}}", ["sets b"]), ("\\mathcal{\\mathbb{b}}", ["sets b"]),
    ("\\mathbb{\\mathbb{d}}", ["sets d"]), ("温度 \\mathbb{C} \\mathbb{c}", ["sets c"]),
    ("\\mathfrak{\\Phi}", ["\\mathfrak", "sets \\Phi", "eufm10", "outside \\mathfrak"]),
    ("\\mathfrak{x^\\Psi}", ["sets \\Psi"]), ("\\mathfrak{Ω}", ["sets \\Omega"]),
    ("\\mathfrak{\\Omega_1}", ["sets \\Omega"]),
]
ACCEPTED = [
    "\\mathbb{R}", "\\mathbb{A} \\mathbb{Z}", "\\mathbb{a}", "\\mathbb{k}", "\\mathbb{1}",
    "\\mathbb{\\Gamma\\Omega}", "\\mathbb{\\alpha}", "\\mathbb{x}_b", "\\mathbb{x} b",
    "\\mathbb x_b", "\\mathbb{\\text{b}}", "\\mathbb{\\mathrm{b}}", "\\mathbb{\\mathcal b}",
    "\\mathbb{\\operatorname{b}}", "\\mathbb{\\boxed{b}}", "\\mathbb{\\phantom{b}}",
    "\\mathbb{\\sqrt[b]{x}}", "\\mathbb{\\overrightarrow{b}}", "\\mathbb{\\substack{b}}",
    "\\mathbb{\\begin{array}{c} b \\end{array}}", "\\mathbb{\\begin{cases} b & c \\end{cases}}",
    "\\mathbb{\\hspace{1cm}}", "\\mathbb{\\c{b}}", "\\mathbb{\\text{x $b$}}", "ℝ", "ℂ + c",
    "\\mathbb{\\smash[b]{b}}", "\\mathbb{\\sideset{_b}{^c}\\sum}", "\\mathfrak{\\varOmega}",
    "\\mathfrak{\\Gamma b}", "\\mathcal{\\Omega b}", "\\mathbb{B} \\tag{b}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


def test_check_names_the_file_and_line_of_a_letter_the_font_lacks(tmp_path):
    code, out = check(tmp_path, "集合 $\\mathbb{N}$ 与 $\\mathbb{b}$。\n")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 1, out
    assert "doc.md:" in lines[0] and "math-invalid" in lines[0] and "msbm10" in lines[0]


# TeX's class-7 math characters: letters and digits (their code) and \Gamma … \Omega (0-10)
GREEK = "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split()
CLASS7 = {**{c: ord(c) for c in string.ascii_letters + string.digits},
          **{f"\\{g}": k for k, g in enumerate(GREEK)}}
FONTS = {"mathbb": "msbm10", "mathfrak": "eufm10", "mathcal": "cmsy10", "mathrm": "cmr12",
         "mathbf": "cmbx12", "mathit": "cmti12", "mathsf": "cmss12", "mathtt": "cmtt12",
         "mathnormal": "cmmi12"}


@pytest.mark.skipif(shutil.which("tftopl") is None or shutil.which("kpsewhich") is None,
                    reason="TeX's tftopl and kpsewhich not installed")
@pytest.mark.parametrize("alphabet", sorted(FONTS))
def test_the_gaps_are_those_of_the_installed_fonts(alphabet):
    """The class-7 characters each alphabet's font has no glyph for, read from its TFM file,
    are exactly those `ALPHABET_GAPS` lists."""
    tfm = subprocess.run(["kpsewhich", f"{FONTS[alphabet]}.tfm"], capture_output=True,
                         text=True, check=True).stdout.strip()
    pl = subprocess.run(["tftopl", tfm], capture_output=True, text=True, check=True).stdout
    codes = {ord(m.group(2)) if m.group(1) == "C" else int(m.group(2), 8)
             for m in re.finditer(r"^\(CHARACTER ([CO]) (\S+)", pl, re.M)}
    missing = {written for written, code in CLASS7.items() if code not in codes}
    gap = ALPHABET_GAPS.get(alphabet)
    assert missing == (set(gap.missing) if gap else set())
    assert gap is None or gap.font == FONTS[alphabet]


ALPHABETS = sorted(FONTS)
SWEEP_SKIP = {"begin", "end", "left", "right", "middle", "hline", "cline", "multicolumn",
              "limits", "nolimits", "over", "choose", "hspace", "mkern", "mspace", "c",
              "sideset"}


@needs_latex
def test_every_character_in_every_alphabet_is_judged_as_latex_judges_it():
    """Each printable ASCII character, Greek letter and symbol command in each alphabet."""
    chars = [c for c in string.printable if not c.isspace() and c not in "\\{}#$%&^_~'"]
    names = COMMAND_GROUPS["Greek letters"].split() + COMMAND_GROUPS["symbols"].split()
    formulas = [f"\\{a}{{{c}}}" for a in ALPHABETS for c in chars]
    formulas += [f"\\{a}{{\\{n}}}" for a in ALPHABETS for n in names]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
@pytest.mark.parametrize("alphabet", ["mathbb", "mathfrak"])
def test_every_command_inside_an_alphabet_is_judged_as_latex_judges_it(alphabet):
    """Every allowlisted command inside the alphabet, with a letter its font lacks in each of
    its arguments in turn (`\\mathbb{\\frac{b}{x}}`, `\\mathbb{\\boxed{b}}`): what TeX sets in
    the alphabet's font, and what it sets apart, as the renderer's LaTeX does."""
    lacking = "b" if alphabet == "mathbb" else "\\Phi"
    formulas = []
    for word in sorted(COMMANDS - SWEEP_SKIP):
        n = ARGUMENTS.get(word, 0)
        formulas += [f"\\{alphabet}{{\\{word}" + "".join(
            f"{{{lacking}}}" if j == k else "{x}" for j in range(n)) + "}"
            for k in range(max(n, 1))]
    formulas += [f"\\{alphabet}{{\\begin{{{env}}} {lacking} \\end{{{env}}}}}"
                 for env in ("matrix", "cases", "aligned", "gathered", "smallmatrix")]
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


@needs_latex
def test_the_build_names_the_font_the_check_now_names(tmp_path):
    """Where the check names the font, the build's LaTeX stops at the same formula, naming it
    too (no glyph), so the check says before the build what the build would say."""
    failures: dict[str, str] = {}
    fm.render_formulas(["\\mathbb{b}"], tmp_path, failures=failures)
    assert "msbm10" in failures["\\mathbb{b}"]
