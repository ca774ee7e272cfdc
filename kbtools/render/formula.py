"""Formulas to content-addressed SVG files: `formulas/<sha256 of normalised LaTeX>.svg`.

Backend: `latex` (DVI mode, amsmath + CJKutf8 so Chinese in `\\text{}` gets real glyphs)
then `dvisvgm --no-fonts` (glyphs become paths: the SVG needs no fonts on the device).
LaTeX runs in a temp dir with a timeout, `-no-shell-escape` and paranoid file access.
All formulas of one call render in one LaTeX run (one page each); the SVGs are then
canonicalised (no generator comment, glyph ids renumbered by first use, defs sorted) so a
formula's bytes never depend on which other formulas shared its run. `latex_problem` is the
static check ``kb check`` runs on every formula without LaTeX. See docs/formulas.md.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from kbtools.errors import RenderError
from kbtools.fsutil import atomic_write_bytes

FORMULA_DIR = "formulas"
APT_PACKAGES = ("texlive-latex-base texlive-latex-recommended dvisvgm "
                "latex-cjk-chinese latex-cjk-chinese-arphic-gbsn00lp")
TIMEOUT_S = 60
PRECISION = 3
PREAMBLE = r"""\documentclass[12pt]{article}
\usepackage{amsmath,amssymb}
\usepackage{CJKutf8}
\pagestyle{empty}
\begin{document}
\begin{CJK}{UTF8}{gbsn}
"""
ENDING = "\\end{CJK}\n\\end{document}\n"
# Environments allowed inside a formula (amsmath + base LaTeX).
ENVIRONMENTS = frozenset("""matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases
    dcases aligned alignedat gathered split array subarray align align* gather gather* equation
    equation* multline multline* flalign flalign* alignat alignat* substack""".split())
# Commands that touch files, the terminal or TeX's internals: refused before any run.
FORBIDDEN = re.compile(r"\\(input|include|openin|openout|write|read|immediate|catcode|def|edef"
                       r"|gdef|xdef|let|futurelet|csname|usepackage|documentclass|special"
                       r"|begin\{document\}|end\{document\}|newcommand|renewcommand|loop"
                       r"|jobname|ShellEscape|write18|directlua|includegraphics)(?![A-Za-z])")


def normalize_latex(latex: str) -> str:
    """The form that is hashed: surrounding space stripped, runs of whitespace collapsed."""
    return " ".join(latex.split())


def formula_hash(latex: str) -> str:
    """sha256 hex of the normalised formula: the SVG's file name, so equal formulas share it."""
    return hashlib.sha256(normalize_latex(latex).encode("utf-8")).hexdigest()


def formula_relpath(latex: str) -> str:
    """`formulas/<sha256>.svg`, relative to the render output directory."""
    return f"{FORMULA_DIR}/{formula_hash(latex)}.svg"


def latex_problem(source: str) -> str | None:
    """A cheap static check: None when the formula looks renderable, else what is wrong.

    Checks balanced braces, \\begin/\\end pairs against known environments, \\left/\\right
    counts, stray `$`, and commands that are refused for safety. No LaTeX run (fast enough
    for `kb check`); the build's real render catches the rest (undefined control sequences).
    """
    text = normalize_latex(source)
    if not text:
        return "empty formula"
    stripped = re.sub(r"\\[\\{}$%&#_]", "", text)  # escaped characters do not count
    depth = 0
    for ch in stripped:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return "unbalanced braces: '}' without '{'"
    if depth:
        return f"unbalanced braces: {depth} '{{' not closed"
    if "$" in stripped:
        return "'$' inside a formula (math is already on)"
    m = FORBIDDEN.search(text)
    if m:
        return f"command {m.group(0)} is not allowed in formulas"
    stack: list[str] = []
    for kind, env in re.findall(r"\\(begin|end)\s*\{([^}]*)\}", text):
        if env not in ENVIRONMENTS:
            return f"unknown environment {{{env}}}"
        if kind == "begin":
            stack.append(env)
        elif not stack or stack.pop() != env:
            return f"\\end{{{env}}} does not match its \\begin"
    if stack:
        return f"\\begin{{{stack[-1]}}} is never ended"
    lefts = len(re.findall(r"\\left(?![A-Za-z])", text))
    rights = len(re.findall(r"\\right(?![A-Za-z])", text))
    if lefts != rights:
        return f"\\left and \\right do not pair ({lefts} vs {rights})"
    return None


@lru_cache(maxsize=1)
def backend_problem() -> str | None:
    """None when latex, dvisvgm and the CJK package are installed, else an install hint."""
    missing = [tool for tool in ("latex", "dvisvgm", "kpsewhich") if shutil.which(tool) is None]
    if not missing:
        try:
            found = subprocess.run(["kpsewhich", "CJKutf8.sty", "amsmath.sty", "c70gbsn.fd"],
                                   capture_output=True, text=True, timeout=20).stdout.split()
        except (OSError, subprocess.SubprocessError):
            found = []
        if len(found) < 3:
            missing.append("CJKutf8/amsmath/gbsn fonts")
    if missing:
        return (f"formula rendering needs {', '.join(missing)}: "
                f"run `apt-get install {APT_PACKAGES}`")
    return None


def render_formulas(latex_sources: Iterable[str], out_dir: Path, *,
                    failures: dict[str, str] | None = None,
                    timeout: float = TIMEOUT_S) -> dict[str, str]:
    """Render every distinct formula to `out_dir/formulas/<sha256>.svg` (cached by name).

    Returns {latex as given: relpath} for every formula that has an SVG. A formula that
    does not render is left out and, when `failures` is given, recorded there with the
    reason. Raises RenderError when the LaTeX backend is missing (the message says what
    to install) and there is something new to render.
    """
    wanted: dict[str, list[str]] = {}  # normalised -> sources as given
    for src in latex_sources:
        wanted.setdefault(normalize_latex(src), []).append(src)
    result: dict[str, str] = {}
    todo: list[str] = []
    for norm, sources in wanted.items():
        rel = formula_relpath(norm)
        problem = latex_problem(norm)
        if problem:
            _fail(failures, sources, problem)
        elif (out_dir / rel).is_file():
            result.update(dict.fromkeys(sources, rel))
        else:
            todo.append(norm)
    if not todo:
        return result
    problem = backend_problem()
    if problem:
        raise RenderError(problem)
    svgs = _render_batch(todo, timeout)
    if svgs is None:  # one bad formula stops a batch: render one by one to find it
        svgs = {}
        for norm in todo:
            one = _render_batch([norm], timeout)
            if one:
                svgs.update(one)
            else:
                _fail(failures, wanted[norm], "LaTeX could not render this formula")
    for norm, svg in svgs.items():
        rel = formula_relpath(norm)
        atomic_write_bytes(out_dir / rel, svg)
        result.update(dict.fromkeys(wanted[norm], rel))
    return result


def render_svg(latex: str, timeout: float = TIMEOUT_S) -> bytes:
    """One formula's SVG bytes (no cache, no file). Raises RenderError on any failure."""
    norm = normalize_latex(latex)
    problem = latex_problem(norm)
    if problem:
        raise RenderError(f"formula {norm[:60]!r}: {problem}")
    backend = backend_problem()
    if backend:
        raise RenderError(backend)
    svgs = _render_batch([norm], timeout)
    if not svgs:
        raise RenderError(f"formula {norm[:60]!r}: LaTeX could not render it")
    return svgs[norm]


def _fail(failures: dict[str, str] | None, sources: list[str], reason: str) -> None:
    """Record `reason` for every source spelling of a formula that did not render."""
    if failures is not None:
        for src in sources:
            failures[src] = reason


def _render_batch(formulas: list[str], timeout: float) -> dict[str, bytes] | None:
    """One LaTeX + dvisvgm run, one page per formula; None if any step fails or times out."""
    body = "".join(f"$\\displaystyle {f}$\n\\newpage\n" for f in formulas)
    env = dict(os.environ, openin_any="p", openout_any="p", shell_escape="f")
    with tempfile.TemporaryDirectory(prefix="kb-formula-") as tmp:
        (Path(tmp) / "f.tex").write_text(PREAMBLE + body + ENDING, encoding="utf-8")
        try:
            run = subprocess.run(
                ["latex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                 "f.tex"],
                cwd=tmp, env=env, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
            if run.returncode != 0 or not (Path(tmp) / "f.dvi").is_file():
                return None
            run = subprocess.run(
                ["dvisvgm", "--no-fonts", "--exact-bbox", f"--precision={PRECISION}",
                 "--page=1-", "--output=p%p.svg", "f.dvi"],
                cwd=tmp, env=env, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
        if run.returncode != 0:
            return None
        pages = sorted(Path(tmp).glob("p*.svg"), key=lambda p: int(re.sub(r"\D", "", p.stem)))
        if len(pages) != len(formulas):
            return None
        return {f: canonical_svg(p.read_text(encoding="utf-8"), f)
                for f, p in zip(formulas, pages, strict=True)}


_USE = re.compile(r"xlink:href='#([^']+)'")
_DEF = re.compile(r"<path id='([^']+)' d='([^']*)'/>")


def canonical_svg(svg: str, latex: str) -> bytes:
    """Deterministic SVG: comment dropped, <title> added, glyph ids by first use, defs sorted."""
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    svg = re.sub(r"<g id='page\d+'>", "<g>", svg)
    defs = dict(_DEF.findall(svg))
    order: dict[str, str] = {}
    for ref in _USE.findall(svg):
        order.setdefault(ref, f"g{len(order) + 1}")
    svg = re.sub(r"<defs>.*?</defs>\n?", "", svg, flags=re.S)
    svg = _USE.sub(lambda m: f"xlink:href='#{order.get(m.group(1), m.group(1))}'", svg)
    new_defs = "".join(f"<path id='{new}' d='{defs[old]}'/>\n" for old, new in order.items()
                       if old in defs)
    head, sep, rest = svg.partition(">\n<g")
    if not sep:  # unexpected layout: keep dvisvgm's body untouched
        head, sep, rest = svg.partition("'>\n")
    title = f"<title>{html.escape(latex, quote=False)}</title>\n"
    svg_open_end = head.rfind("<svg")
    head = head[:svg_open_end] + head[svg_open_end:].replace("<svg ", "<svg role='img' ", 1)
    defs_block = f"<defs>\n{new_defs}</defs>\n" if new_defs else ""
    out = head + ">\n" + title + defs_block + "<g" + rest if sep == ">\n<g" else svg
    return out.encode("utf-8")
