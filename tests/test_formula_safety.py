"""Formulas are data: hostile LaTeX is a `kb check` error, never markup in a release, and a
formula that loops costs seconds once (the failure is cached and reported by `kb check`)."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.render import formula as fm
from kbtools.render import tex_sandbox
from kbtools.render.formula import formula_relpath, normalize_latex, render_formulas
from tests.kbfixtures import GOOD_FM, copy_example

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")

# Formulas that put markup or file access into a formula's SVG unless stopped, one per trick.
HOSTILE = [
    r"x ^^5cspecial{dvisvgm:raw <script>alert(1)</script>}",
    r"x \makeatletter\@nameuse{special}{dvisvgm:img 10 10 http://evil/x.png}",
    r"\expandafter\csname\string special\endcsname{dvisvgm:raw <script>1</script>}",
    r"\scantokens{\special{dvisvgm:raw <script>1</script>}}",
    r"\catcode`\!=0 !special{dvisvgm:raw <image href='file:///etc/passwd'/>}",
    r"\begingroup\lccode`\~=`\^ \lowercase{\endgroup\def~}{x}",
    r"\special{dvisvgm:raw <g onload='alert(1)'/>}",
    r"\def\x{\x}\x",
    r"\input{/etc/passwd}",
    r"\immediate\write18{touch pwned}",
    r"\romannumeral-`0\special{dvisvgm:raw <script/>}",
    r"\begin{special}{dvisvgm:raw <script/>}\end{special}",
    r"\text{\^^5cspecial{dvisvgm:raw <script/>}}",
    r"\directlua{os.execute('touch pwned')}",
    r"x \tag{\special{dvisvgm:raw <script>alert(1)</script>}}",  # the label is checked too
    r"x \tag*{\input{/etc/passwd}}",
]
LOOP = r"\begin{array}{*{99999999}{c}} a \end{array}"  # allowlisted, yet never ends
SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
# What a formula SVG may hold, written down here independently of the sanitiser.
SAFE_TAGS = {"svg", "g", "defs", "symbol", "use", "path", "rect", "line", "polyline",
             "polygon", "circle", "ellipse", "title", "desc"}


def assert_safe(svg: bytes) -> None:
    """No script, handler or reference leaving the document, read by a second parser."""
    if not svg:
        return
    assert b"<!DOCTYPE" not in svg and b"<?xml-stylesheet" not in svg
    for el in ET.fromstring(svg).iter():
        assert el.tag.startswith(SVG) and el.tag[len(SVG):] in SAFE_TAGS, el.tag
        for name, value in el.attrib.items():
            local = name.rpartition("}")[2]
            assert not local.lower().startswith("on") and local != "style", name
            assert "}" not in name or name == XLINK_HREF, name
            if local == "href":
                assert re.fullmatch(r"#[A-Za-z_][\w.-]*", value), value
            assert "url(" not in value.lower() or re.fullmatch(r"url\(#[\w.-]+\)", value)
            assert ":" not in value and "/" not in value, (name, value)


def doc(formula: str) -> str:
    return GOOD_FM + f"# Formula\n\nThe value is\n\n$$\n{formula}\n$$\n\nand more text.\n"


def svg_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.svg"))


def test_kb_check_reports_every_hostile_formula_as_an_error(tmp_path, monkeypatch):
    (tmp_path / "kb.toml").write_text("")
    for i, formula in enumerate(HOSTILE):
        path = tmp_path / "knowledge" / f"f{i:02d}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(doc(formula), encoding="utf-8")
    (tmp_path / "knowledge" / "ok.md").write_text(doc(r"\frac{a}{b} \times 100\%"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--json", "--no-cache"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    findings = json.loads(result.stdout)
    flagged = {f["path"] for f in findings if f["code"] == "math-invalid"
               and f["level"] == "error"}
    assert flagged == {f"knowledge/f{i:02d}.md" for i in range(len(HOSTILE))}


@needs_latex
def test_formulas_slipping_past_the_static_check_leave_no_markup(tmp_path, monkeypatch):
    """Defence in depth: with the allowlist switched off, dvisvgm ignores specials, LaTeX
    cannot reach files or a shell, and whatever is written is a clean SVG."""
    monkeypatch.setattr(fm, "latex_problem", lambda latex: None)
    files = [
        rf"\immediate\write18{{touch {tmp_path}/pwned-shell}}",
        rf"\immediate\openout5={tmp_path}/pwned-write \immediate\write5{{x}}",
        r"\immediate\openout5=../pwned-parent \immediate\write5{x}",
        r"\immediate\openout5=.pwned-dotfile \immediate\write5{x}",
    ]
    failures: dict[str, str] = {}
    start = time.monotonic()
    done = render_formulas(HOSTILE + files + ["x^2"], tmp_path / "out", failures=failures,
                           failure_cache=tmp_path / "failed", seconds=1)
    assert time.monotonic() - start < 60
    assert "x^2" in done and r"\def\x{\x}\x" in failures
    assert r"\input{/etc/passwd}" in failures  # openin_any=p: no absolute paths
    assert set(files[1:]) <= set(failures)  # openout_any=p: nothing outside the temp dir
    for path in svg_files(tmp_path / "out"):
        data = path.read_bytes()
        assert_safe(data)
        assert b"<script" not in data and b"<image" not in data  # (the title shows the source)
    assert not list(tmp_path.rglob("*pwned*"))


@needs_latex
def test_unsafe_svg_from_the_backend_is_refused(tmp_path, monkeypatch):
    real = fm.to_svg

    def injecting(tmp, pages, seconds):
        out = real(tmp, pages, seconds)
        return [p.replace("</svg>", "<script>alert(1)</script></svg>") for p in out]

    monkeypatch.setattr(fm, "to_svg", injecting)
    failures: dict[str, str] = {}
    assert render_formulas(["x^2"], tmp_path, failures=failures) == {}
    assert "not safe (element <script>)" in failures["x^2"]
    assert svg_files(tmp_path) == []


@needs_latex
def test_an_unsafe_svg_already_in_place_is_rendered_again(tmp_path):
    target = tmp_path / formula_relpath("x^2")
    target.parent.mkdir(parents=True)
    target.write_text("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>")
    assert render_formulas(["x^2"], tmp_path) == {"x^2": formula_relpath("x^2")}
    assert b"<script" not in target.read_bytes()
    assert_safe(target.read_bytes())


@pytest.fixture
def patient_backstop(monkeypatch):
    """The CPU limit is what these tests are about: on a busy machine LaTeX may get a tenth of
    a core, and the wall-time backstop (4× the CPU budget) would stop it first, for the other
    reason (tested on its own below). A loop without any limit never ends, so the generous
    wall bounds below still prove the run is stopped."""
    monkeypatch.setattr(tex_sandbox, "WALL_FACTOR", 60)


@needs_latex
@pytest.mark.usefixtures("patient_backstop")
def test_a_looping_formula_costs_seconds_once(tmp_path, monkeypatch):
    failures: dict[str, str] = {}
    start = time.monotonic()
    done = render_formulas(["x^2", LOOP, "y"], tmp_path / "out", failures=failures,
                           failure_cache=tmp_path / "failed", seconds=1)
    assert time.monotonic() - start < 120  # 1 s of CPU; the machine may be shared
    assert set(done) == {"x^2", "y"}
    assert "1 s of CPU time" in failures[LOOP]
    assert len(list((tmp_path / "failed").glob("*.json"))) == 1
    # the failure is cached: the next run starts no LaTeX (here there is none to start)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    fm.backend_problem.cache_clear()
    try:
        again: dict[str, str] = {}  # with no LaTeX on PATH, a new render would fail otherwise
        assert render_formulas([LOOP], tmp_path / "out", failures=again,
                               failure_cache=tmp_path / "failed") == {}
        assert again == {LOOP: failures[LOOP]}
    finally:
        fm.backend_problem.cache_clear()


@needs_latex
def test_a_stall_on_a_busy_machine_is_not_cached(tmp_path, monkeypatch):
    """When LaTeX gets no CPU (here: its CPU time reads as zero), the wall-time backstop
    stops it and the failure is reported but not cached: it may not happen again."""
    monkeypatch.setattr("kbtools.render.tex_sandbox._cpu_seconds", lambda pid: 0.0)
    failures: dict[str, str] = {}
    start = time.monotonic()
    assert render_formulas([LOOP], tmp_path / "out", failures=failures,
                           failure_cache=tmp_path / "failed", seconds=0.5) == {}
    assert time.monotonic() - start < 20
    assert "made no progress" in failures[LOOP] and "not cached" in failures[LOOP]
    assert not list(tmp_path.rglob("*.json"))


@needs_latex
@pytest.mark.usefixtures("patient_backstop")
def test_build_stops_on_a_looping_formula_and_kb_check_reports_it(tmp_path, monkeypatch):
    repo = copy_example(tmp_path / "repo", ["knowledge/crops/field-survey-methods.md"])
    (repo / "knowledge" / "crops" / "loop.md").write_text(doc(LOOP), encoding="utf-8")
    cfg = load_config(repo)
    start = time.monotonic()
    with pytest.raises(FindingsError) as err:
        build(cfg, BuildOptions(out=tmp_path / "dist", progress=False))
    assert time.monotonic() - start < 240  # no embedding: the build stops at the render stage
    assert "knowledge/crops/loop.md:14:1: error: math-invalid" in str(err.value)
    assert "CPU time" in str(err.value) and not (tmp_path / "dist").exists()
    assert list((repo / ".kb-cache" / "formula-failures").glob("*.json"))
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "knowledge/crops/loop.md:14:1: error: math-invalid: LaTeX used more than" \
        in result.stdout and "in an earlier build" in result.stdout


@pytest.mark.slow
@needs_latex
def test_lenient_build_of_a_hostile_corpus_ships_only_safe_svgs(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "good.md").write_text(doc(r"\text{用药量} = \frac{a}{b}"), encoding="utf-8")
    for i, formula in enumerate(HOSTILE[:7]):
        (corpus / f"hostile{i}.md").write_text(doc(formula), encoding="utf-8")
    stats = build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                      lenient=True, progress=False))
    svgs = svg_files(tmp_path / "dist")
    for path in svgs:
        assert_safe(path.read_bytes())
    assert [p.name for p in svgs] == [formula_relpath(r"\text{用药量} = \frac{a}{b}")[9:]]
    assert stats.documents == 8 and stats.warnings >= 7  # each hostile formula reported


def formula_chunks(dist: Path) -> list[dict[str, object]]:
    return [c for shard in sorted((dist / "data" / "chunks").glob("*.jsonl"))
            for line in shard.read_text(encoding="utf-8").splitlines()
            if (c := json.loads(line))["kind"] == "formula"]


@needs_latex
def test_a_lenient_build_names_no_svg_for_a_formula_that_did_not_render(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "mixed.md").write_text(
        doc(r"v = \frac{s}{t}") + "\n$$\n\\nosuchmacro{x}\n$$\n\nafter.\n", encoding="utf-8")
    (corpus / "good.md").write_text(doc(r"F = ma"), encoding="utf-8")
    for _ in range(2):  # the second build keeps the first one's shards
        stats = build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                                          lenient=True, progress=False))
        assert stats.warnings >= 1
        chunks = {c["extra"]["latex"]: c["extra"] for c in formula_chunks(tmp_path / "dist")}
        assert set(chunks) == {r"v = \frac{s}{t}", r"\nosuchmacro{x}", "F = ma"}
        assert "svg" not in chunks[r"\nosuchmacro{x}"]
        for latex in (r"v = \frac{s}{t}", "F = ma"):  # each names the file its release holds
            assert chunks[latex]["svg"] == formula_relpath(latex)
            assert (tmp_path / "dist" / "data" / str(chunks[latex]["svg"])).is_file()


TAGGED = [r"E = mc^2 \tag{1}", r"\text{用药量} = \frac{a}{b} \tag*{(式 A)}"]


@needs_latex
def test_kb_check_takes_a_tag_and_kb_build_draws_it(tmp_path, monkeypatch):
    """Typora's and Obsidian's equation number passes `kb check` and is drawn by the build
    as a clean SVG; two numbers on one formula are an error naming the file and line."""
    (tmp_path / "kb.toml").write_text("")
    knowledge = tmp_path / "knowledge"
    knowledge.mkdir()
    for i, formula in enumerate(TAGGED):
        (knowledge / f"t{i}.md").write_text(doc(formula), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--json", "--no-cache"])
    assert [f for f in json.loads(result.stdout) if f["level"] == "error"] == []
    stats = build(load_config(tmp_path), BuildOptions(out=tmp_path / "dist", progress=False))
    assert stats.warnings == 0
    for formula in TAGGED:
        svg = tmp_path / "dist" / "data" / formula_relpath(formula)
        assert_safe(svg.read_bytes())
        assert ET.fromstring(svg.read_bytes()).find(f"{SVG}title").text == \
            normalize_latex(formula)

    (knowledge / "twice.md").write_text(doc(r"a = b \tag{1} \tag{2}"), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--json", "--no-cache"])
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout) if f["level"] == "error"]
    assert [(f["path"], f["code"]) for f in errors] == [("knowledge/twice.md", "math-invalid")]
    assert "more than one \\tag" in errors[0]["message"] and errors[0]["line"]


@needs_latex
@pytest.mark.usefixtures("patient_backstop")
def test_the_build_says_a_formula_that_fails_where_kb_check_says_it(tmp_path, monkeypatch):
    """One locator: a formula the allowlist passes and LaTeX cannot finish, written inline
    twice in a sentence, is two findings at their `$` in the build's error, as `kb check`
    says them once the failure is cached (the build said both at column 1)."""
    repo = copy_example(tmp_path / "repo", ["knowledge/crops/field-survey-methods.md"])
    sentence = f"取值为 ${LOOP}$，复核时再算 ${LOOP}$ 一次。"
    (repo / "knowledge" / "crops" / "loop.md").write_text(
        GOOD_FM + f"# 公式\n\n{sentence}\n", encoding="utf-8")
    line = GOOD_FM.count("\n") + 3
    cols = [sentence.index("$") + 1, sentence.index("$", sentence.index("$，") + 1) + 1]
    said = [f"knowledge/crops/loop.md:{line}:{col}: error: math-invalid:" for col in cols]
    with pytest.raises(FindingsError) as err:
        build(load_config(repo), BuildOptions(out=tmp_path / "dist", progress=False))
    shown = [x for x in str(err.value).splitlines() if "math-invalid" in x]
    assert [x.strip().split(" LaTeX")[0] for x in shown] == said, str(err.value)
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["check"])
    checked = [x for x in result.stdout.splitlines() if "math-invalid" in x]
    assert [x.split(" LaTeX")[0] for x in checked] == said, result.stdout
