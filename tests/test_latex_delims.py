"""Three more kinds of formula `kb check` reads as LaTeX does (`latex_delims`, `latex_structure`,
`latex_allow.dollar_problem`):

- what follows `\\left`, `\\middle`, `\\right` and the sizes (`\\big`, `\\Bigl` …) must be a
  delimiter: `\\left x \\right)` passed and stopped LaTeX ("Missing delimiter");
- a command's optional `[…]` is read: as math for `\\sqrt` and the arrows (`\\sqrt[\\frac{1}]{x}`
  passed), up to its first `]` outside braces as TeX reads it (`\\sqrt[\\sqrt[3]{x}]{y}`);
- `$…$` inside `\\text{}` is math again, which LaTeX draws (`\\text{if $x>0$}` was refused),
  and is checked as math (`\\text{a $\\frac{1}$ b}` is refused).

Each list is run through the renderer's LaTeX: what the check refuses, LaTeX refuses; what
it accepts, the build draws. The delimiters are swept: every allowlisted command, control
symbol and ASCII character after `\\left` and `\\bigl`, the check's verdict against LaTeX's.
"""

from __future__ import annotations

import re
import string
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render.latex_allow import (
    COMMANDS,
    MAX_FORMULA_CHARS,
    SYMBOLS,
    latex_problem,
)
from kbtools.render.latex_delims import DELIMITERS
from kbtools.render.latex_source import tex_source
from kbtools.render.latex_structure import ARGUMENTS
from kbtools.render.tex_sandbox import ENDING, PREAMBLE, sandbox_env
from tests.kbfixtures import GOOD_FM
from tests.latexcases import (
    SIDE_BY_SIDE,
    list_tests,
    needs_latex,
    side_by_side,
)

# (formula, what the message must name)
REFUSED = [
    ("\\left x \\right)", ["\\left takes a delimiter", "not 'x'", "Missing delimiter",
                          "\\left( x \\right)", "\\langle", ". for none"]),
    ("\\left( x \\right x", ["\\right takes a delimiter", "not 'x'"]),
    ("\\left( x \\middle\\mid y \\right)", ["\\middle", "'\\mid'", "write \\middle|"]),
    ("\\left\\parallel x \\right.", ["'\\parallel'", "write \\left\\|"]),
    ("\\left（ x \\right)", ["not '（'", "write \\left("]),
    ("\\left\\rightarrow x \\right.", ["'\\rightarrow'"]), ("\\left- x \\right.", ["'-'"]),
    ("\\left\\, x \\right.", ["'\\,'"]), ("\\left' x \\right.", ["'''"]),
    ("\\left\\\\ x \\right.", ["\\left takes"]), ("\\left\\alpha x \\right.", ["'\\alpha'"]),
    ("\\left\\big( x \\right.", ["'\\big'"]),
    ("\\bigl x", ["\\bigl takes a delimiter", "\\bigl("]), ("\\big", ["and has none"]),
    ("{\\big}", ["and has none"]), ("\\big{}", ["and has none"]), ("\\big{x(}", ["not 'x'"]),
    ("\\Bigr\\to", ["'\\to'"]), ("\\text{\\big x}", ["\\big takes"]),
    ("a \\biggm= b", ["'='"]), ("\\big{\\{ x^2^3}", ["double superscript"]),
    ("x^\\big x", ["\\big takes"]), ("\\frac\\big(\\big)", ["without its delimiter",
                                                         "\\frac{\\big(}"]),
    ("\\hat\\big(", ["\\hat{\\big(}"]), ("\\text\\big(", ["\\text{\\big(}"]),
    ("x^\\bigl(", ["Missing { inserted", "x^{\\bigl(}"]), ("\\sqrt\\Bigr)", ["\\sqrt{\\Bigr(}"]),
    # optional arguments
    ("\\sqrt[\\frac{1}]{x}", ["\\frac takes 2"]), ("\\sqrt[\\hat]{x}", ["\\hat takes 1"]),
    ("\\sqrt[x^2^3]{y}", ["double superscript"]), ("\\sqrt[a & b]{x}", ["'&' outside"]),
    ("\\sqrt[\\text{\\alpha}]{x}", ["'\\alpha' inside \\text"]),
    ("\\sqrt[\\left( x]{y}", ["do not pair"]), ("\\sqrt[3]", ["\\sqrt[3]{x}"]),
    ("\\sqrt[\\sqrt[3]{x}]{y}", ["first ']' outside braces", "'\\sqrt[\\sqrt[3]'",
                                 "\\sqrt[{…}]{x}"]),
    ("\\sqrt[\\left[ x \\right]]{y}", ["'\\sqrt[\\left[ x \\right]'"]),
    ("\\sqrt[\\left( x \\right]", ["first ']' outside braces"]),
    ("\\sqrt[\\big]]{x}", ["first ']'"]),
    ("\\xrightarrow[\\frac{1}]{a}", ["\\frac takes 2"]),
    ("\\xleftarrow[\\sqrt[3]{x}]{a}", ["the [ … ] of \\xleftarrow"]),
    ("\\xrightarrow[a]", ["\\xrightarrow takes 1"]),
    ("\\smash[\\,]{y}", ["\\smash[…] holds '\\,'", "\\smash[t]{x}"]),
    ("\\smash[\\alpha]{y}", ["'\\alpha'"]), ("\\smash[t]", ["\\smash takes 1"]),
    ("\\cfrac[l]{a}", ["\\cfrac takes 2"]),
    # math in text
    ("\\text{a $\\frac{1}$ b}", ["\\frac takes 2"]), ("\\text{$x^2^3$}", ["double superscript"]),
    ("\\text{a $x}", ["does not close", "Missing $ inserted", "\\text{if $x>0$}"]),
    ("a $ b", ["'$' inside a formula", "\\$", "x $y$ z"]),
    ("\\text{$a$} $", ["'$' inside a formula"]), ("{a $ b}", ["'$'"]),
    ("\\text{$\\left( x$ \\right)}", ["'$' closes before the \\left"]),
    ("\\text{$\\left( x \\right.$ \\right)}", ["do not pair"]),
    ("\\text{$\\begin{matrix} a $ \\end{matrix}}", ["'$' closes before the \\begin{matrix}"]),
    ("\\begin{array}{c} \\text{$a & b$} \\end{array}", ["'&' outside"]),
    ("\\mbox{$\\sqrt[\\frac{1}]{x}$}", ["\\frac takes 2"]),
    ("\\text{$\\text{$\\hat$}$}", ["\\hat takes 1"]), ("\\text{$\\alpha}$", ["'$'"]),
    ("\\text{$x$ \\alpha}", ["'\\alpha' inside \\text"]),
]
ACCEPTED = [
    "\\left( x \\right)", "\\left[ x \\right]", "\\left\\{ x \\right\\}", "\\left| x \\right|",
    "\\left\\| x \\right\\|", "\\left< x \\right>", "\\left/ x \\right\\backslash",
    "\\left. x \\right|_0^1", "\\left\\langle x \\middle| y \\right\\rangle",
    "\\left\\lfloor x \\right\\rfloor", "\\left\\lceil x \\right\\rceil",
    "\\left\\lvert x \\right\\rvert", "\\left\\lVert x \\right\\rVert",
    "\\left\\lbrace x \\right\\rbrace", "\\left\\lbrack x \\right\\rbrack",
    "\\left\\uparrow x \\right\\Downarrow", "\\left\\ulcorner x \\right\\lrcorner",
    "\\left ( x \\right )", "\\left⟨ x \\right⟩", "\\left⌈ x \\right⌉", "\\left] x \\right[",
    "\\bigl( x \\bigr)", "\\Bigl\\{ x \\Bigr\\}", "\\big< \\Big. \\bigg/ \\Bigg|",
    "a \\bigm| b", "\\big{(} x \\big{)}", "\\big{ (x}", "\\big (", "\\text{\\big( a \\Big)}",
    "\\text{\\big{(x}}", "x^\\big(", "x_\\Big\\{", "\\sqrt\\big(", "\\mathopen\\big\\langle",
    "\\pod\\big x", "\\frac{\\big(}{\\big)}",
    "\\sqrt[3]{x}", "\\sqrt [n+1] {x}", "\\sqrt[]{x}", "\\sqrt[\\frac{1}{2}]{x}",
    "\\sqrt[{\\sqrt[3]{x}}]{y}", "\\sqrt[{]}]{x}", "\\sqrt[\\left( x \\right)]{y}",
    "\\sqrt[{\\left[ x \\right]}]{y}",
    "\\sqrt[x \\\\ y]{z}", "\\sqrt[\\alpha_1]{x}",
    "\\xrightarrow[a]{b}", "\\xleftarrow[\\text{下}]{\\text{上}}", "\\xrightarrow[x^2]{}",
    "\\smash[t]{y}", "\\smash[b]{y}", "\\smash[tb]{y}", "\\smash{y}", "\\smash[t b]{y}",
    "\\cfrac[l]{a}{b}", "\\cfrac[r]{1}{1 + \\cfrac{1}{2}}", "\\cfrac[x]{a}{b}",
    "\\cfrac[l\\frac{1}]{a}{b}",
    "\\text{if $x>0$}", "\\text{若 $α>0$，则}", "\\textbf{for $n \\ge 1$}",
    "\\text{a $x$ b $y$}", "\\text{$\\text{$x$}$}", "\\text{$\\frac{1}{2}$}", "\\mbox{$x$}",
    "\\text{面积 $m²$}", "\\text{$\\left( x \\right)$}", "\\text{$\\sqrt[3]{x}$}",
    "f(x) = \\begin{cases} 1 & \\text{if $x>0$} \\\\ 0 & \\text{otherwise} \\end{cases}",
    "\\text{$ a \\\\ b $}", "\\text{price \\$5 if $n=1$}", "y \\tag{$n$}",
]


(test_the_check_refuses_with_what_to_write, test_the_check_accepts_what_latex_draws,
 test_latex_refuses_each_formula_the_check_refuses,
 test_the_build_draws_each_formula_the_check_accepts) = list_tests(REFUSED, ACCEPTED)


def latex_draws(formulas: list[str]) -> dict[str, bool]:
    """Whether the renderer's LaTeX (its preamble, `$\\displaystyle …$`) draws each formula:
    runs in batches without stopping at an error, the errors on each page counted between
    markers printed through a macro (so an error's context never shows a marker). Each
    formula is a file of its own, read in by `\\input`: at its end TeX stops reading an
    argument or skipping a conditional the formula left open (an error of that formula), so
    the next formula's marker and page are still read; a batch runs again, from the formula
    after, only when LaTeX stopped (a fatal error) before a page ended. (The formulas' parts
    `side_by_side`.)"""
    return side_by_side(_draws_in_turn, formulas)


def _draws_in_turn(formulas: list[str]) -> dict[str, bool]:
    drawn: dict[str, bool] = {}
    pending = list(formulas)
    while pending:
        batch, pending = pending[:40], pending[40:]
        with tempfile.TemporaryDirectory() as tmp:
            for i, f in enumerate(batch):
                Path(tmp, f"m{i}.tex").write_text(f"$\\displaystyle {tex_source(f)}$\n",
                                                  encoding="utf-8")
            body = "".join(f"\\kbmark{{{i}}}\\input{{m{i}}}\n\\newpage\n"
                           for i in range(len(batch)))
            Path(tmp, "f.tex").write_text(
                PREAMBLE + "\\def\\kbmark#1{\\message{[kbmark-#1]}}\n" + body +
                f"\\kbmark{{{len(batch)}}}" + ENDING, encoding="utf-8")
            subprocess.run(["latex", "-interaction=nonstopmode", "-no-shell-escape", "f.tex"],
                           cwd=tmp, env=sandbox_env(Path(tmp)), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, timeout=300, check=False)
            log = Path(tmp, "f.log").read_text(encoding="utf-8", errors="replace")
        parts = re.split(r"\[kbmark-(\d+)\]", log)
        seen = {int(parts[k]): parts[k + 1] for k in range(1, len(parts) - 1, 2)}
        for i, formula in enumerate(batch):
            if i + 1 not in seen:  # its page never ended (an argument ran away): the rest again
                drawn[formula] = False
                pending = batch[i + 1:] + pending
                break
            drawn[formula] = "\n! " not in "\n" + seen[i]
    return drawn


SWEPT = sorted({f"\\{w}" for w in COMMANDS} | {f"\\{s}" for s in SYMBOLS if s != " "}
               | {c for c in string.printable if not c.isspace() and c != "\\"})


@needs_latex
@pytest.mark.parametrize("size", ["\\left", "\\bigl"])
def test_the_check_takes_as_delimiter_what_latex_takes(size):
    """Every allowlisted command, control symbol and ASCII character after `\\left` (TeX's
    `scan_delimiter`) and after `\\bigl` (a macro's argument): the check accepts it exactly
    when LaTeX draws it."""
    formulas = {f"{size}{t}{' ' * t[-1].isalpha()} x" + " \\right." * (size == "\\left"): t
                for t in SWEPT}
    drawn = latex_draws(list(formulas))
    taken = {formulas[f] for f, ok in drawn.items() if ok}
    assert taken == DELIMITERS, (sorted(taken - DELIMITERS), sorted(DELIMITERS - taken))
    accepted = {formulas[f] for f in formulas if latex_problem(f) is None}
    assert accepted == taken, (sorted(accepted - taken), sorted(taken - accepted))


@needs_latex
def test_a_size_as_an_argument_is_judged_as_latex_judges_it():
    """`\\big(` unbraced as the argument of each command that takes one (and of `^`, `_`):
    LaTeX's scripts, radical and math classes read on to the delimiter, the others take
    `\\big` alone; the check accepts exactly what LaTeX draws."""
    formulas = [f"x{c}{size}(" for c in "^_" for size in ("\\big", "\\bigl")] + [
        f"\\{c}{size}(" + "{a}" * (n - 1) for c, n in sorted(ARGUMENTS.items())
        for size in ("\\big", "\\bigl")
        if c not in ("multicolumn", "cline", "hspace")]  # no math there (`latex_args`)
    drawn = latex_draws(formulas)
    assert {f: latex_problem(f) is None for f in formulas} == drawn


# optional arguments inside optional arguments, `$` inside text inside math, sizes inside
# sizes, as long as a formula may be (`k` repeats): each piece is read a bounded number of times
GROWING = [
    lambda k: "\\sqrt[{" * k + "x" + "}]{y}" * k, lambda k: "\\sqrt[" + "{" * k + "]" + "}" * k + "]{x}",
    lambda k: "\\smash[{" * k + "}]{y}" * k, lambda k: "\\cfrac[{" * k + "}]{y}{z}" * k,
    lambda k: "\\xrightarrow[" * k + "]{y}" * k, lambda k: "\\text{$" * k + "$}" * k,
    lambda k: "\\big{(" * k + "}" * k, lambda k: "\\left(" * k + "\\right)" * k,
]
LONG = [grow((MAX_FORMULA_CHARS - len(grow(0))) // (len(grow(1)) - len(grow(0))))
        for grow in GROWING]


@needs_latex
def test_formulas_left_reading_an_argument_or_skipping_cost_no_run_of_their_own(monkeypatch):
    """A formula whose argument never closes, or whose conditional never ends, took the next
    formulas' pages with it, so the rest of its batch ran again after each such formula
    (a sweep's LaTeX runs were about as many as its failures): they fail alone, in the
    batch's one run, and the formulas after them are drawn."""
    runs: list[str] = []
    real = subprocess.run

    def run(args, **kwargs):
        runs.append(args[0])
        return real(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    broken = ["\\frac{x", "\\text{a", "\\bigl\\iffalse x", "\\sqrt{", "\\bigl\\else"]
    formulas = [f for bad in broken for f in (bad, f"x_{len(bad)}")]
    assert latex_draws(formulas) == {f: f not in broken for f in formulas}
    assert runs == ["latex"]


@needs_latex
def test_a_sweep_cut_into_parts_run_side_by_side_gets_the_verdicts_of_one_run():
    """A sweep's formulas cut into parts whose LaTeX runs go side by side (one per core, 40
    formulas at least): every formula gets the verdict it gets when the whole list is run
    in turn, those LaTeX stops at included."""
    formulas = [f"\\sqrt{t}" if i % 9 else f"x^{t}^2" for i, t in enumerate(SWEPT[:90])]
    parts: list[int] = []

    def judge(part: list[str]) -> dict[str, bool]:
        parts.append(len(part))
        return _draws_in_turn(part)

    whole = _draws_in_turn(formulas)
    assert 0 < list(whole.values()).count(False) < len(formulas)
    assert side_by_side(judge, formulas) == whole
    assert len(parts) == min(SIDE_BY_SIDE, 2) and sum(parts) == len(formulas)


@pytest.mark.parametrize("formula", LONG, ids=range(len(LONG)))
def test_the_check_is_linear_in_the_formula(formula):
    start = time.thread_time()
    problem = latex_problem(formula)
    assert time.thread_time() - start < 1.0  # linear: 0.1 s; each `[…]` read again: 1.7 s
    assert not (problem or "").startswith("formula is"), len(formula)


# what an author types around a `\left`, a size, a `[…]` or a `$` in text
PIECES = st.lists(st.sampled_from(["\\left", "\\right", "\\middle", "\\big", "\\bigl", "(", ")",
                                   "[", "]", ".", "|", "\\|", "\\{", "x", " ", "{", "}",
                                   "\\sqrt", "\\sqrt[", "\\xrightarrow", "\\smash", "\\cfrac",
                                   "\\frac", "^", "&", "\\\\", "$", "\\text{", "\\alpha",
                                   "\\begin{matrix}", "\\end{matrix}"]),
                  max_size=25).map("".join)


@settings(max_examples=600, deadline=500, suppress_health_check=[HealthCheck.too_slow])
@given(PIECES)
@example("\\{$($(").via("an escaped brace opens no group: the $…$ is at the top level")
def test_any_mix_gets_an_answer_of_one_line(text):
    """No exception, one line or None; an accepted formula's `$` are paired, the first in
    text or at the formula's top level (outside braces and `\\left…\\right`), and the
    formula does not end with one (LaTeX would read `$$`)."""
    problem = latex_problem(text)
    assert problem is None or (problem and "\n" not in problem)
    if problem is None and "$" in text:
        before = text.split("$")[0]
        grouped = re.sub(r"\\[\\{}]", "", before)  # \{ is a brace drawn, no group
        top = grouped.count("{") == grouped.count("}") and \
            before.count("\\left") == before.count("\\right")
        assert text.count("$") % 2 == 0 and ("\\text{" in before or top), text
        assert not text.rstrip().endswith("$"), text


BODY = ("# 公式\n\n$$\nf(x) = \\begin{cases} 1 & \\text{if $x>0$} \\\\ 0 & \\text{else} "
        "\\end{cases}\n$$\n\n根 $\\sqrt[3]{x}$ 与 $\\left\\langle x \\right\\rangle$。\n\n"
        "坏 $\\left x \\right)$ 和 $\\sqrt[\\frac{1}]{x}$。\n\n$$\n\\text{a $\\frac{1}$ b}\n$$\n")
FIRST = GOOD_FM.count("\n") + 1  # the body's first line


def test_kb_check_names_file_line_and_what_to_write(tmp_path):
    corpus = tmp_path / "knowledge"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    (tmp_path / "kb.toml").write_text("")
    result = CliRunner().invoke(main, ["check", "--no-cache", str(corpus)])
    assert result.exit_code == 1
    lines = sorted((line for line in result.stdout.splitlines() if "math-invalid" in line),
                   key=lambda line: (int(line.split("doc.md:")[1].split(":")[0]), line))
    assert len(lines) == 3, result.stdout
    expected = [(FIRST + 8, "\\frac{a}{b}"), (FIRST + 8, "\\left( x \\right)"),
                (FIRST + 10, "\\frac{a}{b}")]  # a block: its opening `$$`
    for line, (at, write) in zip(lines, expected, strict=True):
        assert f"doc.md:{at}:" in line and write in line, line


def test_kb_build_refuses_the_same_formulas_at_their_lines(tmp_path):
    corpus = tmp_path / "knowledge"
    corpus.mkdir()
    (corpus / "doc.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    (tmp_path / "kb.toml").write_text("")
    with pytest.raises(FindingsError) as err:
        build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                  progress=False))
    shown = [line for line in str(err.value).splitlines() if "math-invalid" in line]
    assert sorted(int(s.split("doc.md:")[1].split(":")[0]) for s in shown) == \
        [FIRST + 8, FIRST + 8, FIRST + 10], str(err.value)
