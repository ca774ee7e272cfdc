"""Formulas to content-addressed SVG files: `formulas/<sha256 of normalised LaTeX>.svg`
(`latex_spaces.normalize_latex`: the spaces TeX skips left out, so `$a+b$` and `$a + b$`
are one file).

A formula reaches LaTeX only through three locks (docs/formulas.md):

1. `latex_problem` (kbtools/render/latex_allow.py), the static allowlist check ``kb check``
   runs on every formula, is run again here: a formula it refuses is never rendered.
2. LaTeX runs boxed in (kbtools/render/tex_sandbox.py): no shell escape, paranoid file
   access, an empty temporary directory, CPU/memory/file-size limits and a per-formula
   watchdog of `FORMULA_SECONDS`. A formula that fails or runs too long is named, recorded
   in the failure cache (when one is given) so a rebuild does not pay for it again, and
   reported by ``kb check`` from there (`formula_problem`).
3. Every SVG passes `sanitize_svg` (kbtools/render/svg_sanitize.py) before it is written; an
   SVG that needed anything removed is refused, and a file already in place is reused only
   if it passes too.

Backend: `latex` (DVI mode, amsmath + CJKutf8 so Chinese in `\\text{}` gets real glyphs) then
`dvisvgm --no-fonts --no-specials` (glyphs become paths: the SVG needs no fonts on the
device). All formulas of one call render in one LaTeX run (one page each); a failing formula
is taken out by name and the rest run again. The SVGs are canonicalised (no generator
comment, glyph ids renumbered by first use, defs sorted) so a formula's bytes never depend
on which other formulas shared its run.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kbtools.errors import RenderError
from kbtools.fsutil import atomic_write_bytes
from kbtools.render.glyphs import BACKEND_FILES, tex_files_found
from kbtools.render.latex_allow import ENVIRONMENTS, latex_problem
from kbtools.render.latex_source import tex_source
from kbtools.render.latex_spaces import normalize_latex
from kbtools.render.svg_sanitize import sanitize_svg
from kbtools.render.tex_sandbox import (
    ENDING,
    FORMULA_SECONDS,
    PREAMBLE,
    TexRun,
    to_svg,
    typeset,
)

__all__ = ["ENVIRONMENTS", "FAILURE_DIR", "FORMULA_DIR", "FORMULA_SECONDS", "canonical_svg",
           "cached_failure", "formula_hash", "formula_problem", "formula_relpath",
           "latex_problem", "normalize_latex", "render_formulas", "render_svg"]

FORMULA_DIR = "formulas"
FAILURE_DIR = "formula-failures"  # under the kb.toml cache dir: one JSON file per failure
APT_PACKAGES = ("texlive-latex-base texlive-latex-recommended dvisvgm "
                "latex-cjk-chinese latex-cjk-chinese-arphic-gbsn00lp")
# Cached failures stay valid while the document LaTeX sees is the same.
RENDERER_ID = hashlib.sha256(f"kb-formula-5\n{PREAMBLE}{ENDING}".encode()).hexdigest()[:16]


def formula_hash(latex: str) -> str:
    """sha256 hex of the normalised formula: the SVG's file name, so equal formulas share it."""
    return hashlib.sha256(normalize_latex(latex).encode("utf-8", "surrogatepass")).hexdigest()


def formula_relpath(latex: str) -> str:
    """`formulas/<sha256>.svg`, relative to the render output directory."""
    return f"{FORMULA_DIR}/{formula_hash(latex)}.svg"


def cached_failure(failure_cache: Path, latex: str) -> str | None:
    """Why this formula failed to render in an earlier run, if the failure cache says so."""
    path = failure_cache / f"{formula_hash(latex)}.json"
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("renderer") != RENDERER_ID:
        return None
    reason = record.get("reason")
    return reason if isinstance(reason, str) and reason else None


def formula_problem(latex: str, failure_cache: Path | None = None) -> str | None:
    """What ``kb check`` reports for a formula: the static check's problem, or a render
    failure recorded in `failure_cache` by an earlier build; None when neither."""
    problem = latex_problem(latex)
    if problem or failure_cache is None:
        return problem
    failed = cached_failure(failure_cache, latex)
    if failed is None:
        return None
    return (f"{failed} (in an earlier build; fix the formula, or delete "
            f"{FAILURE_DIR}/{formula_hash(latex)[:12]}….json in the cache to retry)")


@lru_cache(maxsize=1)
def backend_problem() -> str | None:
    """None when latex, dvisvgm and the CJK package are installed, else an install hint."""
    missing = [tool for tool in ("latex", "dvisvgm", "kpsewhich") if shutil.which(tool) is None]
    if not missing and not set(BACKEND_FILES) <= tex_files_found():
        missing.append("CJKutf8/amsmath/gbsn fonts")
    if missing:
        return (f"formula rendering needs {', '.join(missing)}: "
                f"run `apt-get install {APT_PACKAGES}`")
    return None


def render_formulas(latex_sources: Iterable[str], out_dir: Path, *,
                    failures: dict[str, str] | None = None,
                    failure_cache: Path | None = None,
                    seconds: float = FORMULA_SECONDS,
                    scratch: Path | None = None) -> dict[str, str]:
    """Render every distinct formula to `out_dir/formulas/<sha256>.svg` (cached by name).

    Returns {latex as given: relpath} for every formula that has an SVG. A formula that
    the static check refuses, that LaTeX cannot render within `seconds`, or whose SVG is not
    clean is left out and, when `failures` is given, recorded there with the reason; render
    failures are also written to `failure_cache` (a directory) when given, and a formula
    found there is not tried again. An existing file is reused only if it is a clean SVG.
    LaTeX runs in a new directory made in `scratch` (a build's staging directory, which the
    next build removes if this one is killed; None: the system's temporary directory).
    Raises RenderError when the LaTeX backend is missing (the message says what to install)
    and there is something new to render.
    """
    wanted: dict[str, list[str]] = {}  # normalised -> sources as given
    for src in latex_sources:
        wanted.setdefault(normalize_latex(src), []).append(src)
    result: dict[str, str] = {}
    todo: list[str] = []
    for norm, sources in wanted.items():
        rel = formula_relpath(norm)
        problem = latex_problem(norm)
        if problem is None and failure_cache is not None:
            problem = cached_failure(failure_cache, norm)
        if problem:
            _fail(failures, sources, problem)
        elif _clean_file(out_dir / rel):
            result.update(dict.fromkeys(sources, rel))
        else:
            todo.append(norm)
    if not todo:
        return result
    problem = backend_problem()
    if problem:
        raise RenderError(problem)
    outcome = _render(todo, seconds, scratch)
    for norm, reason in outcome.failed.items():
        _fail(failures, wanted[norm], reason)
        if failure_cache is not None and norm not in outcome.transient:
            record = {"renderer": RENDERER_ID, "latex": norm[:500], "reason": reason}
            atomic_write_bytes(failure_cache / f"{formula_hash(norm)}.json",
                               json.dumps(record, ensure_ascii=False).encode("utf-8"))
    for norm, svg in outcome.svgs.items():
        rel = formula_relpath(norm)
        atomic_write_bytes(out_dir / rel, svg)
        result.update(dict.fromkeys(wanted[norm], rel))
    return result


def render_svg(latex: str, seconds: float = FORMULA_SECONDS) -> bytes:
    """One formula's SVG bytes (no cache, no file). Raises RenderError on any failure."""
    norm = normalize_latex(latex)
    problem = latex_problem(norm)
    if problem:
        raise RenderError(f"formula {norm[:60]!r}: {problem}")
    backend = backend_problem()
    if backend:
        raise RenderError(backend)
    outcome = _render([norm], seconds)
    if norm not in outcome.svgs:
        raise RenderError(f"formula {norm[:60]!r}: {outcome.failed.get(norm, 'not rendered')}")
    return outcome.svgs[norm]


def _fail(failures: dict[str, str] | None, sources: list[str], reason: str) -> None:
    """Record `reason` for every source spelling of a formula that did not render."""
    if failures is not None:
        for src in sources:
            failures[src] = reason


def _clean_file(path: Path) -> bool:
    """True when `path` is an existing SVG that the sanitiser leaves exactly as it is."""
    try:
        data = path.read_bytes() if path.is_file() else None
    except OSError:
        return False
    if data is None:
        return False
    check = sanitize_svg(data)
    return check.clean and check.svg == data


@dataclass
class _Outcome:
    svgs: dict[str, bytes] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    transient: set[str] = field(default_factory=set)  # failures not to cache

    def fail(self, latex: str, run: TexRun) -> None:
        self.failed[latex] = run.reason
        if run.transient:
            self.transient.add(latex)


def _render(formulas: list[str], seconds: float, scratch: Path | None = None) -> _Outcome:
    """Render in as few LaTeX runs as possible: a failing formula is named by the run and
    taken out, the rest run again; when a run cannot name it, each formula runs alone."""
    out = _Outcome()
    pending = list(formulas)
    while pending:
        run = _batch(pending, seconds, out, scratch)
        if run is None:
            break
        if run.culprit is not None:
            out.fail(pending.pop(run.culprit), run)
            continue
        for one in pending:
            run = _batch([one], seconds, out, scratch)
            if run is not None:
                out.fail(one, run)
        break
    return out


def _batch(formulas: list[str], seconds: float, out: _Outcome,
           scratch: Path | None) -> TexRun | None:
    """One LaTeX + dvisvgm run in a new directory in `scratch`. None when it went through
    (each SVG, or the refusal of an unsafe one, is in `out`), else the failed run."""
    with tempfile.TemporaryDirectory(prefix=".kb-formula-", dir=scratch) as tmp:
        run = typeset([tex_source(f) for f in formulas], Path(tmp), seconds)
        if not run.ok:
            return run
        pages = to_svg(Path(tmp), len(formulas), seconds)
    if pages is None:
        return TexRun(False, 0, None, "dvisvgm could not convert this formula")
    for latex, page in zip(formulas, pages, strict=True):
        check = sanitize_svg(canonical_svg(page, latex))
        if check.clean:
            out.svgs[latex] = check.svg
        else:
            what = check.rejected or ", ".join(dict.fromkeys(check.removed))
            out.failed[latex] = f"the SVG made for this formula is not safe ({what}); refused"
    return None


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


def render_cached(latex: list[str], data: Path, cache: Path | None,
                  failures: dict[str, str], scratch: Path | None = None) -> dict[str, str]:
    """`render_formulas` into `data` (a release's data/), reusing the SVGs (and failures) kept
    in the directory `cache` between builds, and keeping the new ones there. The SVGs kept
    are those of this renderer: a `cache/formulas/` another one filled (`RENDERER_ID`; an
    older one drew `$α$` without its α) is emptied first. LaTeX runs in `scratch` (see
    `render_formulas`)."""
    if cache is not None:
        _own_svg_cache(cache / FORMULA_DIR)
        for src in latex:
            rel = formula_relpath(normalize_latex(src))
            if (cache / rel).is_file():
                (data / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(cache / rel, data / rel)
    done = render_formulas(latex, data, failures=failures,
                           failure_cache=cache / FAILURE_DIR if cache is not None else None,
                           scratch=scratch)
    if cache is not None:
        for rel in set(done.values()):  # new SVGs, and clean ones replacing stale copies
            if not (cache / rel).is_file() or \
                    (cache / rel).read_bytes() != (data / rel).read_bytes():
                (cache / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(data / rel, cache / rel)
    return done


def _own_svg_cache(svgs: Path) -> None:
    """Empty the SVG cache `svgs` unless its `renderer` stamp is this `RENDERER_ID`; stamp it.
    (An SVG's name is a hash of its formula alone, so a renderer that draws a formula
    differently cannot be told apart by name.)"""
    stamp = svgs / "renderer"
    try:
        if stamp.read_text(encoding="utf-8") == RENDERER_ID:
            return
    except (OSError, UnicodeDecodeError):
        pass
    shutil.rmtree(svgs, ignore_errors=True)
    atomic_write_bytes(stamp, RENDERER_ID.encode("utf-8"))
