"""kbtools.render.latex_allow: the static formula check is an allowlist TeX cannot dodge."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.corpus import read_doc
from kbtools.markdown.frontend import scan
from kbtools.render.glyphs import BSMI_FAMILY
from kbtools.render.latex_allow import (
    COMMAND_GROUPS,
    COMMANDS,
    ENVIRONMENTS,
    SYMBOLS,
    latex_problem,
)
from kbtools.render.latex_source import tex_source

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# Ways to reach a command that a blocklist names, or to change how TeX reads what follows.
ATTACKS = {
    r"x ^^5cspecial{dvisvgm:raw <script>alert(1)</script>}": "'^^'",
    r"^^5c^^73pecial{x}": "'^^'",
    r"\^^5cspecial{x}": "'^^'",
    r"x^^": "'^^'",
    r"x \makeatletter\@nameuse{special}{dvisvgm:img 10 10 http://evil/x.png}":
        r"\makeatletter",
    r"x\@nameuse{special}{y}": r"command \@ ",
    r"\expandafter\csname\string special\endcsname": r"\expandafter",
    r"\csname special\endcsname{x}": r"\csname",
    r"\scantokens{\spe cial{x}}": r"\scantokens",
    r"\catcode`\!=0 !special{x}": r"\catcode",
    r"\def\x{\x}\x": r"\def",
    r"\let\foo\special \foo{x}": r"\let",
    r"\global\edef\x{y}": r"\global",
    r"\input{/etc/passwd}": r"\input",
    r"\InputIfFileExists{/etc/passwd}{}{}": r"\InputIfFileExists",
    r"\write18{rm -rf /}": r"\write",
    r"\immediate\openout5=x.tex": r"\immediate",
    r"\directlua{os.execute('x')}": r"\directlua",
    r"\romannumeral-`0\special{x}": r"\romannumeral",
    r"\lowercase{\SPECIAL}": r"\lowercase",
    r"\uppercase{x}": r"\uppercase",
    r"\special{dvisvgm:raw <script/>}": r"\special",
    r"\pdfliteral{x}": r"\pdfliteral",
    r"\text{\special{x}}": r"\special",
    r"\begin{array}{@{\special{x}}c} a \end{array}": r"\special",
    r"\begin{array}{>{\input{x}}c} a \end{array}": r"\input",
    r"\begin{special}x\end{special}": "unknown environment {special}",
    r"\begin{document}": "unknown environment {document}",
    r"\end{CJK}\begin{CJK}{UTF8}{gbsn}": "unknown environment {CJK}",
    r"\begin \special x": r"\begin must be followed",
    r"\begin{\special}": r"\begin must be followed",
    r"\newcommand\x{y}": r"\newcommand",
    r"\DeclareMathOperator\x{y}": r"\DeclareMathOperator",
    r"\mathrm{\char92}": r"\char",
    r"\verb|x|": r"\verb",
    r"\includegraphics{x}": r"\includegraphics",
    r"\href{javascript:x}{y}": r"\href",
    r"\label{x}": r"\label",
    r"\ifx a a\fi": r"\ifx",
    r"\relax": r"\relax",
    r"\noexpand\x": r"\noexpand",
    r"\the\catcode 1": r"\the",
    "\\text{中}\\special{x}": r"\special",
    "x\\中": r"command \中",
    "a % \\special{x}": "'%'",
    "a # b": "'#'",
    "a $ \\special{x} $": "'$'",
    "x\\": "cannot end with",
    "a\x00b": "U+0000",
    "a\x7fb": "U+007F",
    "a\x1bb": "U+001B",
    "a\x9bb": "U+009B",
    "a\ud800b": "U+D800",
    r"\(x\)": r"command \(",
    r"\[x\]": r"command \[",
    "x" * 20_001: "limit is 20,000",
}

# Formulas from real documents: the bundled knowledge, TiDB's Chinese docs, SciFact.
REAL = [
    r"\text{病情指数} = \frac{\sum (\text{各级病叶数} \times \text{该级代表值})}"
    r"{\text{调查总叶数} \times \text{最高级代表值}} \times 100",
    r"\text{发病率}(\%) = \frac{\text{发病株(叶、穗)数}}{\text{调查总数}} \times 100",
    r"\text{施药液量}(\text{L/亩}) = \frac{\text{喷头总流量}(\text{L/min}) \times 666.7}"
    r"{\text{作业速度}(\text{m/min}) \times \text{有效喷幅}(\text{m})}",
    r"\ge 1:150", r"\ge 80\%", r"15 \times 1000 / 1500 = 10",
    r"DISTANCE(p,q)=\sqrt {\sum \limits _{i=1}^{n}{(p_{i}-q_{i})^{2}}}",
    r"DISTANCE(p,q)=1.0 - {\frac {\sum \limits _{i=1}^{n}{p_{i}q_{i}}}{{\sqrt {\sum \limits "
    r"_{i=1}^{n}{p_{i}^{2}}}}\cdot {\sqrt {\sum \limits _{i=1}^{n}{q_{i}^{2}}}}}}",
    r"DISTANCE(p,q)=- INNER\_PROD(p,q)=-\sum \limits _{i=1}^{n}{p_{i}q_{i}}",
    r"DISTANCE(p,q)=\sum \limits _{i=1}^{n}{|p_{i}-q_{i}|}",
    r"B_1 \dots B_k", r"S \times S",
    # what formulas in technical documents typically use
    r"\begin{aligned} a &= b + c \\ &\le d \end{aligned}",
    r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"f(x) = \begin{cases} 0 & x < 0 \\ 1 & x \ge 0 \end{cases}",
    r"\begin{array}{|c|c|} \hline a & b \\ \hline \end{array}",
    r"\lim_{n \to \infty} \left( 1 + \frac{1}{n} \right)^n = e",
    r"\int_0^1 x^2 \, dx = \tfrac{1}{3}", r"\mathbf{v} \cdot \mathbf{w} \approx 0",
    r"\operatorname{median}(x) \pm \sigma", r"\hat{\beta} = (X^\top X)^{-1} X^\top y",
    r"T_{\text{储存}} \le 25\,^\circ\mathrm{C}", r"\text{温度}\quad\text{湿度} \ne 0",
    r"\{ a, b \} \subseteq \mathbb{R}", r"x \mapsto \sqrt[3]{x}",
]


def tex_names(text: str) -> list[str]:
    """Control sequence names as TeX reads `text` with LaTeX's standard category codes
    (a reference written independently of the checker's tokeniser)."""
    names, i = [], 0
    while i < len(text):
        if text[i] != "\\":
            i += 1
            continue
        j = i + 1
        while j < len(text) and text[j].isascii() and text[j].isalpha():
            j += 1
        if j == i + 1:
            j = min(i + 2, len(text))
        names.append(text[i + 1:j])
        i = j
    return names


@pytest.mark.parametrize("latex", list(ATTACKS), ids=lambda s: repr(s[:40]))
def test_attacks_are_refused_naming_the_command(latex):
    problem = latex_problem(latex)
    assert problem is not None and ATTACKS[latex] in problem
    assert "\n" not in problem and len(problem) < 200


@pytest.mark.parametrize("latex", REAL, ids=lambda s: repr(s[:40]))
def test_real_formulas_pass(latex):
    assert latex_problem(latex) is None


def test_bundled_and_shared_corpus_formulas_pass():
    """Every formula in knowledge/ (and in ../shared corpora, where present) is accepted,
    except the shell `$VAR` text a foreign corpus mistakes for math."""
    roots = [REPO / "knowledge"] + [p for p in (SHARED / "corpora" / "tidb-docs-cn",
                                               SHARED / "eval" / "tidb_faq_zh" / "corpus",
                                               SHARED / "eval" / "scifact" / "corpus")
                                    if p.is_dir()]
    formulas = []
    for root in roots:
        for path in sorted(root.rglob("*.md")):
            src = read_doc(path, root)
            formulas += [latex for _, _, latex, _ in scan(src.body, src.body_line).math]
    assert len(formulas) >= 14
    refused = {f: latex_problem(f) for f in formulas if latex_problem(f) is not None}
    assert refused == {}


def test_escaped_specials_and_environments_are_fine():
    assert latex_problem(r"50\% \; \#3 \; \$5 \; a\_b \; \{x\} \; a \& b \\ c") is None
    assert latex_problem(r"\\special") is None  # a line break, then the letters s-p-e-c-i-a-l
    assert "does not match" in latex_problem(r"\begin{cases} x \end{matrix}")
    assert "use {aligned}" in latex_problem(r"\begin{align} x \end{align}")
    given = {"array": "{c}", "alignedat": "{1}"}  # their column letters, their column pairs
    assert all(latex_problem(rf"\begin{{{e}}}{given.get(e, '')} x \end{{{e}}}") is None
               for e in ENVIRONMENTS)


def test_check_is_fast_on_long_formulas():
    big = r"\frac{\alpha_{i}}{\beta^{2}} + " * 600 + "x"  # about 19,000 characters
    start = time.thread_time()
    assert latex_problem(big) is None
    assert "not closed" in latex_problem("{" * 19_999)
    assert "limit" in latex_problem("\\csname" * 2_000_000)
    assert time.thread_time() - start < 1.0


FRAGMENTS = ["\\", "\\\\", "\\special", "\\csname", "\\endcsname", "\\string", "\\begin",
             "\\end", "{array}", "{special}", "{", "}", "^", "^^", "5c", "%", "#", "$", "@",
             "\\@", "\\alpha", "\\text", "\\frac", "\\expandafter", "\\catcode", "`", "=",
             "0", " ", "\x00", "\ud800", "中", "\\^", "\\%", "\\#", "~", "&", "'", "\\left",
             "\\right", "(", "\\input", "\\def", "\\x", "*", "\\*", "\n", "\t"]
formula_text = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join),
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=3)), max_size=30)
    .map("".join),
)


@settings(max_examples=400, deadline=200, suppress_health_check=[HealthCheck.too_slow])
@given(formula_text)
def test_property_accepted_formulas_only_hold_allowed_tokens(text):
    problem = latex_problem(text)  # never raises
    assert problem is None or isinstance(problem, str)
    if problem is not None:
        return
    norm = " ".join(text.split())
    assert "^^" not in norm
    names = tex_names(norm)
    assert all(n in COMMANDS or n == "tag" or (len(n) == 1 and n in SYMBOLS)
               for n in names), names
    unescaped = norm
    for n in ("\\\\", "\\%", "\\#", "\\$"):
        unescaped = unescaped.replace(n, "")
    outside = _outside_text(unescaped)
    assert not set("%#") & set(outside)
    # `$` only in `\text{…}`, or around text at the top level (`x $y$ z`, docs/formulas.md)
    assert _top_level_pairs(outside), outside
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF
                   for c in norm)


def _top_level_pairs(formula: str) -> bool:
    """Whether every `$` of `formula` stands outside braces (`\\{`, `\\}` are none) and
    they pair up."""
    depth, dollars = 0, 0
    for ch in formula.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "$":
            if depth:
                return False
            dollars += 1
    return dollars % 2 == 0


def _outside_text(formula: str) -> str:
    """`formula` without the braced arguments of `\\text`, `\\mbox`, `\\textbf` … and of the
    commands whose argument LaTeX sets in a `$…$` of its own, where `$…$` is text too
    (`\\boxed`, `\\boldsymbol`, `\\substack`, the arrows, `\\sideset`, `\\pmod`: a reference
    reading of its own, not the renderer's)."""
    out, at = [], 0
    for m in re.finditer(r"\\(?:text(?:rm|bf|it|sf|tt|normal|up|sl)?|mbox|emph|boxed|boldsymbol"
                         r"|substack|(?:over|under)(?:left|right|leftright)arrow|sideset|pmod) *\{",
                         formula):
        if m.start() < at:
            continue
        out.append(formula[at:m.start()])
        depth, at = 1, m.end()
        while at < len(formula) and depth:
            depth += {"{": 1, "}": -1}.get(formula[at], 0)
            at += 2 if formula[at] == "\\" else 1
    return "".join(out) + formula[at:]


@settings(max_examples=300, deadline=200, suppress_health_check=[HealthCheck.too_slow])
@given(formula_text | st.text(alphabet="αβ≤×温度℃°{} \\textcelsiusmbox^_", max_size=60))
def test_property_what_latex_is_given_passes_the_check_too(text):
    """`tex_source` (non-ASCII in math mode as commands or text) only adds allowlisted
    commands, balanced braces and the renderer's own font switch for traditional Chinese
    (`glyphs.text_glyph`: `{\\CJKfamily{bsmi}靂}`, where the bsmi font is installed; no
    author may write it): an accepted formula stays accepted; ASCII is left alone."""
    if latex_problem(text) is not None:
        return
    assert latex_problem(tex_source(text).replace(f"\\CJKfamily{{{BSMI_FAMILY}}}", "")) is None
    text_symbols = COMMAND_GROUPS["text symbols"].split()
    if text.isascii() and not any(f"\\{w}" in text for w in text_symbols + ["tag"]):
        assert tex_source(text) == text


def test_tex_source_rewrites_math_mode_only():
    assert tex_source("α + β") == r"\alpha  + \beta "
    assert tex_source(r"x^α_{温}") == r"x^\alpha _{{\text{温}}}"
    assert tex_source(r"\text {温 α {β}} γ") == r"\text {温 α {β}} \gamma "
    assert tex_source(r"\frac 温度") == r"\frac {\text{温}}{\text{度}}"
    assert tex_source(r"\{α\} 25\textcelsius") == r"\{\alpha \} 25{\text{\textcelsius}}"
    assert tex_source("f′′(x) − 1") == "f''(x) - 1"
    assert tex_source("a\u200bb \\text{温\ufeff度\u00ad}") == r"ab \text{温度}"  # invisible


def test_docs_list_exactly_the_allowed_commands():
    text = (REPO / "docs" / "formulas.md").read_text(encoding="utf-8")
    section = text.split("### Allowed commands", 1)[1].split("###", 1)[0]
    listed = {w for line in section.splitlines() if line.startswith("- ")
              for w in line.split(":", 1)[1].split()}
    assert listed == COMMANDS
    assert ENVIRONMENTS <= set(section.replace("`", " ").replace(";", " ").split())


# --- \tag: the equation number of Typora and Obsidian ------------------------------------

@pytest.mark.parametrize("formula", [
    r"E = mc^2 \tag{1}", r"\tag{2.3} a + b", r"x \tag*{A}", r"x \tag *{(a)}",
    r"y \tag{温度 \textbf{1}}", r"\begin{aligned} a &= b \end{aligned} \tag{3}", r"\tag{}",
])
def test_a_tag_at_the_top_level_is_allowed(formula):
    assert latex_problem(formula) is None


@pytest.mark.parametrize("formula, problem", [
    (r"a \tag{1} \tag{2}", "more than one \\tag"),
    (r"a \tag{1} = b \tag*{B}", "more than one \\tag"),
    (r"a \tag{\tag{1}}", "inside the label of another \\tag"),
    (r"a \tag{x \tag*{y}}", "inside the label of another \\tag"),
    (r"a \tag 1", "label in braces"),
    (r"a \tag", "label in braces"),
    (r"a \tag\*{1}", "label in braces"),
    (r"{a \tag{1}}", "top level"),
    (r"\frac{a \tag{1}}{b}", "top level"),
    (r"\left( a \tag{1} \right)", "top level"),
    (r"\begin{aligned} a \tag{1} \end{aligned}", "top level"),
    (r"\text{a \tag{1}}", "top level"),
    (r"a \tag{\csname x\endcsname}", r"command \csname"),
    (r"a \tag{\input{/etc/passwd}}", r"command \input"),
    (r"a \tag{1", "not closed"),
    (r"a \tag{1}}", "without '{'"),
    (r"a \tag{50%}", "'%' starts a TeX comment"),
    (r"a \tag{^^5c}", "'^^'"),
])
def test_a_tag_is_checked_like_the_rest_of_the_formula(formula, problem):
    got = latex_problem(formula)
    assert got is not None and problem in got, got
    assert "\n" not in got


def test_tex_source_draws_the_tag_at_the_formula_s_right():
    assert tex_source(r"E = mc^2 \tag{1}") == r"E = mc^2 \qquad\text{(1)}"
    assert tex_source(r"\tag*{A} a + b") == r"  a + b \qquad\text{A}"
    assert tex_source(r"a \tag *{x} = b") == r"a   = b \qquad\text{x}"
    # the label is text, as amsmath sets it: Chinese stays a character, braces stay whole
    assert tex_source(r"α \tag{式 {1}}") == r"\alpha  \qquad\text{(式 {1})}"
    assert tex_source(r"\{ \tag{1} \}") == r"\{   \} \qquad\text{(1)}"  # escaped braces
    # what is left around the tag does not join into another token
    assert tex_source(r"\alpha\tag{1}x") == r"\alpha x \qquad\text{(1)}"
    assert tex_source(r"x^\tag{1}^2") == r"x^ ^2 \qquad\text{(1)}"
    assert tex_source(r"a\ \tag{1}b") == r"a\  b \qquad\text{(1)}"


TAG_FRAGMENTS = FRAGMENTS + ["\\tag", "\\tag*", "\\tag{1}", "\\tag*{A}", "\\tag{", "{1}"]
tagged_text = st.one_of(
    st.lists(st.sampled_from(TAG_FRAGMENTS), max_size=30).map("".join),
    st.tuples(formula_text, st.sampled_from(["\\tag", "\\tag*", "\\tag *"]), formula_text,
              formula_text).map(lambda t: f"{t[0]}{t[1]}{{{t[2]}}}{t[3]}"),
)


@settings(max_examples=300, deadline=200, suppress_health_check=[HealthCheck.too_slow])
@given(tagged_text)
def test_property_a_tagged_formula_holds_allowed_tokens_and_one_tag(text):
    """Only allowlisted names (and at most one `\\tag`) pass; what LaTeX is given for an
    accepted formula has no `\\tag` left and passes the check too."""
    if latex_problem(text) is not None:
        return
    norm = " ".join(text.split())
    names = tex_names(norm)
    assert names.count("tag") <= 1
    assert all(n in COMMANDS or n == "tag" or (len(n) == 1 and n in SYMBOLS) for n in names)
    source = tex_source(norm)
    assert "tag" not in tex_names(source)
    # the renderer's own font switch for traditional Chinese (`glyphs.text_glyph`), as above
    assert latex_problem(source.replace(f"\\CJKfamily{{{BSMI_FAMILY}}}", "")) is None
    if "tag" in names:
        assert source.endswith("}") and "\\qquad\\text{" in source
